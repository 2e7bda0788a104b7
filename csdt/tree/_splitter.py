"""Split search of the cost-sensitive decision tree (numba kernels).

Three searches share one contract: they scan the node's rows and return the best
``(gain, feature, threshold, missing_left, n_left)``; ties go to the lowest feature
index, then the lowest threshold (the first maximum, like ``np.argmax``).

* :func:`best_split_exact`: every distinct threshold. ``order[f, start:end]`` holds the
  node's rows sorted by feature ``f`` (NaN last; kept sorted by a stable partition
  after every split, so each feature is sorted once per tree), ``codes`` the dense
  rank of the value at each position. One pass of prefix sums of the per-row stats
  ``(s0, s1, y, 1)`` per feature gives the children's sums at every threshold:
  O(n) per feature per node. Thresholds are midpoints between consecutive distinct
  values, ``x <= threshold`` goes left.
* :func:`best_split_histogram`: the same scan over at most ``max_bins`` quantile bins
  per feature (LightGBM-style); O(n) to build the histogram, O(bins) to scan.
* :func:`best_split_costcla`: costcla 0.6's search, reproduced exactly: candidates are
  ``np.percentile(x_node, arange(0, 100, 100 / num_pct))`` (numpy <= 1.21 linear
  interpolation), a candidate equal to the previous one is skipped, the gain is
  rounded to 6 decimals, and the first maximum over (feature, percentile) wins.

Missing values (NaN): the exact and histogram searches try NaN rows on both sides of
every threshold and also the split "all non-missing left / missing right"
(threshold ``+inf``); the side that gains more is stored as ``missing_left``. A node
without NaN in the split feature sends future NaN to the larger child (as
scikit-learn >= 1.3 does). Both searches offer every candidate cut to one helper,
:func:`_offer_cut`, which tries it "missing right" then "missing left" and keeps the
first maximum: features in the order of ``feats``, cuts ascending, missing right
before missing left, the ``+inf`` cut last.
"""

from collections import namedtuple

import numba as nb
import numpy as np

from .._binning import NAN_BIN
from ._criterion import _INTERNAL, DIRECT_COST, split_gain, weighted_cost_pair

NAN_CODE = np.int32(2147483647)
#: the cut "every non-missing row left, missing right" (threshold +inf)
CUT_INF = -2

#: The node a search splits: its criterion (``crit``, ``weighted``; ``direct`` = the
#: default unweighted direct_cost, whose gain is inlined), impurity ``imp`` = I(S),
#: sums (s0, s1, n_pos) over its ``m`` rows, and ``min_leaf``.
Parent = namedtuple("Parent", ("crit", "weighted", "direct", "imp", "s0", "s1", "n_pos", "m", "min_leaf"))
#: Sums (s0, s1, n_pos) of the per-row stats over ``n`` rows (one side of a cut, or the
#: rows missing the feature).
Sums = namedtuple("Sums", ("s0", "s1", "n_pos", "n"))
#: The best candidate so far of the exact and histogram searches: its ``gain``,
#: ``feature``, ``cut`` (the search's position of the threshold, or CUT_INF),
#: ``missing_left`` and ``n_left`` (rows going left, missing ones included).
Split = namedtuple("Split", ("gain", "feature", "cut", "missing_left", "n_left"))


@nb.njit(cache=True, nogil=True, inline="always", **_INTERNAL)
def _gain(parent, l0, l1, lp, nl):
    """split_gain of the candidate whose left child has the sums (l0, l1, lp) and nl rows;
    -inf if a child has fewer than ``min_leaf`` rows."""
    if nl < parent.min_leaf or parent.m - nl < parent.min_leaf:
        return -np.inf
    if parent.direct:
        # the default criterion, inlined: (I - I_c(S_l) - I_c(S_r)) / |I|, I_c = min(s0, s1)
        return (parent.imp - (min(l1, l0) + min(parent.s1 - l1, parent.s0 - l0))) / abs(parent.imp)
    return split_gain(parent.crit, parent.weighted, parent.imp, parent.s0, parent.s1, parent.n_pos,
                      float(parent.m), l0, l1, lp, float(nl))


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _parent(crit, weighted, min_leaf, s0, s1, sp, m, imp):
    """The :class:`Parent` of one search (``direct``: the criterion has the inlined gain)."""
    direct = crit == DIRECT_COST and not weighted and imp != 0.0
    return Parent(crit, weighted, direct, imp, s0, s1, sp, m, min_leaf)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _no_split():
    """The :class:`Split` before any candidate: gain -inf, feature -1."""
    return Split(-np.inf, -1, -1, False, 0)  # numba types namedtuple fields non-literal


# inlined by numba, as _gain: a call per cut (the named tuples flattened into ~24 arguments)
# cost 25 % more instructions in the exact search (benchmarks/results/tree.md)
@nb.njit(cache=True, nogil=True, inline="always", **_INTERNAL)
def _offer_cut(best, parent, f, cut, left, nan):
    """The better of ``best`` and the cut ``cut`` of feature f, tried with the missing rows
    on the right, then on the left (see module doc); returns a :class:`Split`.

    ``left``: :class:`Sums` of the non-missing rows left of the cut; ``nan``: of the rows
    missing f. A later candidate must gain strictly more (the first maximum wins). At
    ``CUT_INF`` every non-missing row is left already: only "missing right" is a split.
    With no missing rows, future NaN go to the larger child, ties left.
    """
    g = _gain(parent, left.s0, left.s1, left.n_pos, left.n)
    if g > best.gain:
        best = Split(g, f, cut, nan.n == 0 and left.n >= parent.m - left.n, left.n)
    if nan.n > 0 and cut != CUT_INF:
        nl = left.n + nan.n
        g = _gain(parent, left.s0 + nan.s0, left.s1 + nan.s1, left.n_pos + nan.n_pos, nl)
        if g > best.gain:
            best = Split(g, f, cut, True, nl)
    return best


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _offer_missing_right(best, parent, f, nv, nan):
    """:func:`_offer_cut` of the threshold +inf: the nv non-missing rows left, missing right."""
    if nan.n == 0:
        return best
    left = Sums(parent.s0 - nan.s0, parent.s1 - nan.s1, parent.n_pos - nan.n_pos, nv)
    return _offer_cut(best, parent, f, np.int64(CUT_INF), left, nan)  # not a literal: one compile


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def best_split_exact(X, stats, yb, order, codes, start, end, feats, crit, weighted, min_leaf,
                     s0, s1, sp, parent_imp, g0, g1, gp):
    """Exact search over all distinct thresholds of the features ``feats``.

    ``stats`` (n, 2) holds the rows' (s0, s1), ``yb`` their uint8 labels.
    ``g0``/``g1``/``gp`` are scratch arrays (length >= node size): the rows' stats are
    first gathered in sorted order (independent loads, so the CPU overlaps the cache
    misses), then scanned sequentially. ``direct_cost`` never reads the positive counts,
    so its search gathers no labels. A :class:`Split` cut is the position k of the last
    non-missing row left of the threshold.
    Returns (gain, feature, threshold, missing_left, n_left); feature -1 if none.
    """
    m = end - start
    parent = _parent(crit, weighted, min_leaf, s0, s1, sp, m, parent_imp)
    need_p = crit != DIRECT_COST
    best = _no_split()
    for fi in range(feats.shape[0]):
        f = feats[fi]
        nv = m
        while nv > 0 and codes[f, start + nv - 1] == NAN_CODE:
            nv -= 1
        if nv == 0:
            continue
        ns0 = 0.0
        ns1 = 0.0
        nsp = 0.0
        for k in range(start + nv, end):
            r = order[f, k]
            ns0 += stats[r, 0]
            ns1 += stats[r, 1]
            nsp += yb[r]
        nan = Sums(ns0, ns1, nsp, m - nv)
        for k in range(nv - 1):
            r = order[f, start + k]
            g0[k] = stats[r, 0]
            g1[k] = stats[r, 1]
        if need_p:
            for k in range(nv - 1):
                gp[k] = yb[order[f, start + k]]
        l0 = 0.0
        l1 = 0.0
        lp = 0.0
        for k in range(nv - 1):
            l0 += g0[k]
            l1 += g1[k]
            if need_p:
                lp += gp[k]
            if codes[f, start + k + 1] != codes[f, start + k]:  # a threshold between two values
                best = _offer_cut(best, parent, f, k, Sums(l0, l1, lp, k + 1), nan)
        best = _offer_missing_right(best, parent, f, nv, nan)
    thr = np.nan
    if best.feature >= 0:
        if best.cut == CUT_INF:
            thr = np.inf
        else:
            # midpoint between the two consecutive distinct values, with a <= t < b
            a = X[order[best.feature, start + best.cut], best.feature]
            b = X[order[best.feature, start + best.cut + 1], best.feature]
            thr = a / 2.0 + b / 2.0
            if thr >= b or thr < a or not np.isfinite(thr):
                thr = a
    return best.gain, best.feature, thr, best.missing_left, best.n_left


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def build_histogram(hist, bcodes, stats, samples, start, end, feats):
    """hist[f, bin, :] = sums of (s0, s1, y, 1) of the node's rows per bin (NaN bin 255)."""
    for fi in range(feats.shape[0]):
        f = feats[fi]
        for b in range(hist.shape[1]):
            for s in range(4):
                hist[f, b, s] = 0.0
    for k in range(start, end):
        r = samples[k]
        for fi in range(feats.shape[0]):
            f = feats[fi]
            b = bcodes[r, f]
            for s in range(4):
                hist[f, b, s] += stats[r, s]


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def subtract_histogram(parent, child, feats):
    """parent -= child on the features ``feats`` (the larger sibling's histogram)."""
    for fi in range(feats.shape[0]):
        f = feats[fi]
        for b in range(parent.shape[1]):
            for s in range(4):
                parent[f, b, s] -= child[f, b, s]


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def best_split_histogram(hist, edges, nbins, feats, crit, weighted, min_leaf, s0, s1, sp, m,
                         parent_imp):
    """Search the bin edges of ``feats`` on a node histogram (see build_histogram).

    A :class:`Split` cut is the last bin left of the threshold ``edges[f, cut]``.
    Returns (gain, feature, threshold, missing_left, n_left); feature -1 if none.
    """
    parent = _parent(crit, weighted, min_leaf, s0, s1, sp, m, parent_imp)
    best = _no_split()
    for fi in range(feats.shape[0]):
        f = feats[fi]
        nan = Sums(hist[f, NAN_BIN, 0], hist[f, NAN_BIN, 1], hist[f, NAN_BIN, 2],
                   int(hist[f, NAN_BIN, 3] + 0.5))
        nv = m - nan.n
        if nv == 0:
            continue
        l0 = 0.0
        l1 = 0.0
        lp = 0.0
        nl = 0
        for b in range(nbins[f] - 1):
            cnt = int(hist[f, b, 3] + 0.5)
            if cnt == 0:
                continue
            l0 += hist[f, b, 0]
            l1 += hist[f, b, 1]
            lp += hist[f, b, 2]
            nl += cnt
            if nl == nv:
                break
            best = _offer_cut(best, parent, f, b, Sums(l0, l1, lp, nl), nan)
        best = _offer_missing_right(best, parent, f, nv, nan)
    thr = np.nan
    if best.feature >= 0:
        thr = np.inf if best.cut == CUT_INF else edges[best.feature, best.cut]
    return best.gain, best.feature, thr, best.missing_left, best.n_left


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def round6(x):
    """numpy's ``np.round(x, 6)``: rint(x * 1e6) / 1e6 (costcla rounds every gain)."""
    return np.rint(x * 1e6) / 1e6


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _pct_value(X, order, f, start, m, q):
    """np.percentile(x_node, q) with numpy <= 1.21's linear rule v_lo (1 - w) + v_hi w."""
    idx = (q / 100.0) * (m - 1)
    lo = int(np.floor(idx))
    hi = lo + 1
    hi = min(hi, m - 1)
    w = idx - lo
    return X[order[f, start + lo], f] * (1.0 - w) + X[order[f, start + hi], f] * w


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def best_split_costcla(X, a0, a1, yv, order, start, end, selected, crit, weighted, num_pct,
                       cost_base, suf0, suf1, sufp):
    """costcla 0.6's ``_best_split`` (see module doc). Returns (gain, feature, threshold, n_left).

    ``selected[f]`` marks the features drawn for this node; costcla leaves the gain of
    an unselected feature at 0 with split value 0.0, and so do we (it can win a tie at 0).
    ``suf*`` are scratch arrays (length >= n + 1) for the right-hand sums.
    """
    m = end - start
    n = float(m)
    d = X.shape[1]
    step = 100.0 / num_pct
    best_gain = -np.inf
    best_f = 0
    best_t = 0.0
    for f in range(d):
        if not selected[f]:
            if 0.0 > best_gain:
                best_gain = 0.0
                best_f = f
                best_t = 0.0
            continue
        # right-hand sums, accumulated from the end as costcla's separate np.sum would
        suf0[m] = 0.0
        suf1[m] = 0.0
        sufp[m] = 0.0
        for k in range(m - 1, -1, -1):
            r = order[f, start + k]
            suf0[k] = suf0[k + 1] + a0[r]
            suf1[k] = suf1[k + 1] + a1[r]
            sufp[k] = sufp[k + 1] + yv[r]
        p = 0
        l0 = 0.0
        l1 = 0.0
        lp = 0.0
        prev = 0.0
        for li in range(num_pct):
            t = _pct_value(X, order, f, start, m, li * step)
            g = 0.0
            if li == 0 or t != prev:
                while p < m and X[order[f, start + p], f] <= t:
                    r = order[f, start + p]
                    l0 += a0[r]
                    l1 += a1[r]
                    lp += yv[r]
                    p += 1
                if cost_base != 0.0 and p != 0 and p != m:
                    w0, w1 = weighted_cost_pair(crit, l0, l1, lp, float(p))
                    cl = min(w0, w1)
                    w0, w1 = weighted_cost_pair(crit, suf0[p], suf1[p], sufp[p], float(m - p))
                    cr = min(w0, w1)
                    if weighted:
                        wl = p * 1.0 / n
                        g = round6((cost_base - (wl * cl + (1.0 - wl) * cr)) / cost_base)
                    else:
                        g = round6((cost_base - (cl + cr)) / cost_base)
            prev = t
            if g > best_gain:
                best_gain = g
                best_f = f
                best_t = t
    # rows going left under the chosen rule
    nl = 0
    for k in range(start, end):
        if X[order[best_f, k], best_f] <= best_t:
            nl += 1
    return best_gain, best_f, best_t, nl


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def partition_sorted(X, order, codes, start, end, feature, threshold, missing_left, flag,
                     tmp_o, tmp_c):
    """Stable partition of every feature's sorted segment into left rows then right rows.

    Keeps ``order[f, start:start + n_left]`` sorted by feature f for the left child and
    the rest for the right child. Returns n_left.
    """
    for k in range(start, end):
        r = order[0, k]
        x = X[r, feature]
        flag[r] = missing_left if np.isnan(x) else x <= threshold
    nl = 0
    for f in range(order.shape[0]):
        w = start
        t = 0
        for k in range(start, end):
            r = order[f, k]
            if flag[r]:
                order[f, w] = r
                codes[f, w] = codes[f, k]
                w += 1
            else:
                tmp_o[t] = r
                tmp_c[t] = codes[f, k]
                t += 1
        for k in range(t):
            order[f, w + k] = tmp_o[k]
            codes[f, w + k] = tmp_c[k]
        nl = w - start
    return nl


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def partition_samples(X, samples, start, end, feature, threshold, missing_left, tmp_o):
    """Stable partition of ``samples[start:end]`` by the split; returns n_left."""
    w = start
    t = 0
    for k in range(start, end):
        r = samples[k]
        x = X[r, feature]
        left = missing_left if np.isnan(x) else x <= threshold
        if left:
            samples[w] = r
            w += 1
        else:
            tmp_o[t] = r
            t += 1
    for k in range(t):
        samples[w + k] = tmp_o[k]
    return w - start
