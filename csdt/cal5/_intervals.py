"""CAL5_OC interval construction for one attribute (paper section 4), numba kernels.

The statistics of a tentative interval I are, per class k_j, the number of
examples n_j(I) and their summed misclassification cost w_j(I). From them:

* c_j(I) = w_j(I) / n_j(I), the mean cost of not recognising k_j in I (eq. 20);
* S_j(I) = c_min(I) * S_max / c_j(I), the class threshold (eq. 22), with
  c_min(I) the smallest c_j(I) of the classes occurring in I (so S_j <= S_max);
* [delta_1, delta_2] = (2 alpha n_j + 1 -/+ sqrt(4 alpha n_j (1 - n_j / n) + 1))
  / (2 alpha n + 2), the Chebyshev confidence interval of p(k_j | I) (eq. 14):
  the roots p of n alpha (n_j / n - p)^2 = p (1 - p).

Meta-decisions (eqs. 23-25, "Boolean functions" of section 4.2):

* dominates(k_j, I): w_j(I) is maximal (Bayes rule, eq. 26) and delta_1 >= S_j(I);
* no_dominant_class(I): delta_2 < S_j(I) for every class occurring in I;
* otherwise no decision is possible yet and I is extended to the right.

Status codes returned for an interval: ``j >= 0`` = class j dominates,
:data:`NO_DOMINANT` = no class can dominate (branch further),
:data:`UNDECIDED` = no statistically safe decision (leaf by Bayes rule).
Examples with equal attribute values are never separated: the kernels work on
the sorted *distinct* values, each carrying its class counts and cost sums.
"""

import numba as nb
import numpy as np

from .._cost_information import cost_transinformation_table

NO_DOMINANT = -1
UNDECIDED = -2
# exact ties count as reached (e.g. alpha = 0.3, S_max = 0.6: a pure interval of 5 has delta_1 = 0.6)
_TIE = 1e-12


@nb.njit(cache=True, nogil=True)
def confidence_bounds(n_k, n, alpha):
    """(delta_1, delta_2) of eq. 14 for n_k of n examples at confidence 1 - alpha."""
    f = n_k / n
    root = np.sqrt(4.0 * alpha * n_k * (1.0 - f) + 1.0)
    den = 2.0 * alpha * n + 2.0
    return (2.0 * alpha * n_k + 1.0 - root) / den, (2.0 * alpha * n_k + 1.0 + root) / den


@nb.njit(cache=True, nogil=True)
def meta_decision(counts, cost_sums, alpha, s_max):
    """Status of an interval with per-class ``counts`` and ``cost_sums`` (see module doc)."""
    n_classes = counts.shape[0]
    n = 0.0
    c_min = np.inf
    w_best = -np.inf
    for j in range(n_classes):
        if counts[j] > 0:
            n += counts[j]
            cj = cost_sums[j] / counts[j]
            if cj < c_min:
                c_min = cj
            if cost_sums[j] > w_best:
                w_best = cost_sums[j]
    dominant = -1
    no_dominant = True
    for j in range(n_classes):
        if counts[j] <= 0:
            continue
        cj = cost_sums[j] / counts[j]
        # the cheapest class gets S_max itself (also covers c_min = c_j = 0)
        s_j = s_max if cj <= c_min else c_min * s_max / cj
        d1, d2 = confidence_bounds(counts[j], n, alpha)
        if dominant < 0 and cost_sums[j] == w_best and d1 >= s_j - _TIE:
            dominant = j
        if d2 >= s_j - _TIE:
            no_dominant = False
    if dominant >= 0:
        return dominant
    if no_dominant:
        return NO_DOMINANT
    return UNDECIDED


@nb.njit(cache=True, nogil=True)
def raw_intervals(counts, cost_sums, alpha, s_max):
    """The paper's function intervals(x) on the sorted distinct values, before merging.

    ``counts``/``cost_sums`` are (m, n_classes), one row per distinct value in
    ascending order. Returns ``(last, status)``: interval t covers the distinct
    values ``last[t-1]+1 .. last[t]``; the last interval always ends at m - 1
    (extended to +inf, step 5) and its status is evaluated after the loop.
    """
    m, n_classes = counts.shape
    last = np.empty(m, np.int64)
    status = np.empty(m, np.int64)
    cur_n = counts[0].copy()
    cur_w = cost_sums[0].copy()
    t = 0
    u = 0  # index of the largest value in the current interval
    while u < m - 1:  # step 4: repeat until the largest value is reached
        st = meta_decision(cur_n, cur_w, alpha, s_max)
        if st != UNDECIDED:  # 4a: dominates or no_dominant_class -> close
            last[t] = u
            status[t] = st
            t += 1
            cur_n[:] = 0.0
            cur_w[:] = 0.0
        u += 1  # 4a(ii) starts the next interval / 4b extends this one
        for j in range(n_classes):
            cur_n[j] += counts[u, j]
            cur_w[j] += cost_sums[u, j]
    last[t] = m - 1
    status[t] = meta_decision(cur_n, cur_w, alpha, s_max)
    return last[: t + 1], status[: t + 1]


@nb.njit(cache=True, nogil=True)
def merge_intervals(last, status):
    """Merge neighbouring intervals with identical characteristics (same status)."""
    keep = np.ones(last.shape[0], np.bool_)
    for t in range(last.shape[0] - 1):
        if status[t] == status[t + 1]:
            keep[t] = False
    return last[keep], status[keep]


@nb.njit(cache=True, nogil=True)
def group_sorted(x, k, c, w, n_classes):
    """Distinct values of x (ascending) with per-class counts and cost sums, each (m, n_classes).

    Example p counts ``w[p]`` times: ``n_j += w_p``, ``w_j += w_p c_p``.
    """
    order = np.argsort(x)
    n = x.shape[0]
    values = np.empty(n)
    counts = np.zeros((n, n_classes))
    cost_sums = np.zeros((n, n_classes))
    m = -1
    prev = np.nan
    for i in range(n):
        p = order[i]
        v = x[p]
        if m < 0 or v != prev:
            m += 1
            values[m] = v
            prev = v
        counts[m, k[p]] += w[p]
        cost_sums[m, k[p]] += w[p] * c[p]
    m += 1
    return values[:m], counts[:m], cost_sums[:m]


@nb.njit(cache=True, nogil=True)
def attribute_intervals(x, k, c, n_classes, alpha, s_max):
    """Merged intervals of one attribute, midpoint bounds (eq. 27) and I^c_x in bits.

    Returns ``(thresholds, status, counts, cost_sums, info)``: interval t is
    (thresholds[t-1], thresholds[t]] with -inf/+inf at the ends; ``counts`` and
    ``cost_sums`` are its (T, n_classes) statistics.
    """
    return weighted_attribute_intervals(x, k, c, np.ones(x.shape[0]), n_classes, alpha, s_max)


@nb.njit(cache=True, nogil=True)
def weighted_attribute_intervals(x, k, c, w, n_classes, alpha, s_max):
    """:func:`attribute_intervals` with example weights ``w`` (> 0): example p counts as ``w_p``
    copies of itself, in n_j(I) (``sum w_p``) and in w_j(I) (``sum w_p c_p``)."""
    values, counts, cost_sums = group_sorted(x, k, c, w, n_classes)
    last, status = raw_intervals(counts, cost_sums, alpha, s_max)
    last, status = merge_intervals(last, status)
    n_int = last.shape[0]
    m_counts = np.zeros((n_int, n_classes))
    m_costs = np.zeros((n_int, n_classes))
    start = 0
    for t in range(n_int):
        for i in range(start, last[t] + 1):
            for j in range(n_classes):
                m_counts[t, j] += counts[i, j]
                m_costs[t, j] += cost_sums[i, j]
        start = last[t] + 1
    thresholds = np.empty(n_int - 1)
    for t in range(n_int - 1):
        lo = values[last[t]]
        hi = values[last[t] + 1]
        mid = lo + (hi - lo) / 2.0
        # rounding can land on hi; then hi would go left (x <= threshold)
        thresholds[t] = lo if mid >= hi else mid
    info = cost_transinformation_table(m_costs)
    return thresholds, status, m_counts, m_costs, info
