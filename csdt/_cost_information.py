"""Cost-dependent entropy of the CAL5_OC paper (section 2, eqs. 2-10), numba kernels.

Implemented once and shared: the CSDT criterion ``"cost_entropy"`` and
``csdt.cost_transinformation`` / CAL5_OC both call these kernels.

With each example's misclassification cost c_p (cost of *not* deciding its true
class), the empirical cost-dependent probabilities are cost-weighted frequencies:
p^c(k_j) = sum_{p in k_j} c_p / sum_p c_p (eqs. 2-3), p^c(k_j | x_i) likewise
within the value/interval x_i (eq. 4) and p^c(x_i) = cost share of x_i (eq. 5).
The cost-dependent entropy is H^c = -sum_j p^c_j log2 p^c_j (eq. 10); with equal
costs these are Shannon's quantities (Proposition 1a). Units: bits.
"""

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def cost_entropy_from_sums(w):
    """H^c in bits of a vector of per-class cost sums (non-negative)."""
    total = 0.0
    for j in range(w.shape[0]):
        total += w[j]
    if total <= 0.0:
        return 0.0
    h = 0.0
    for j in range(w.shape[0]):
        if w[j] > 0.0:
            p = w[j] / total
            h -= p * np.log2(p)
    return h


@nb.njit(cache=True, nogil=True)
def cost_entropy_binary(w0, w1):
    """H^c in bits of a two-class node with cost sums w0 (class 0) and w1 (class 1)."""
    total = w0 + w1
    if total <= 0.0:
        return 0.0
    h = 0.0
    if w0 > 0.0:
        p = w0 / total
        h -= p * np.log2(p)
    if w1 > 0.0:
        p = w1 / total
        h -= p * np.log2(p)
    return h


@nb.njit(cache=True, nogil=True)
def cost_transinformation_table(table):
    """I^c_x (eq. 10) from a (m values, n classes) table of cost sums, in bits.

    I^c_x = H^c_k - sum_i p^c(x_i) H^c(k | x_i), p^c(x_i) = row cost share.
    """
    m, n = table.shape
    class_sums = np.zeros(n)
    total = 0.0
    for i in range(m):
        for j in range(n):
            class_sums[j] += table[i, j]
            total += table[i, j]
    if total <= 0.0:
        return 0.0
    cond = 0.0
    for i in range(m):
        row = table[i]
        rs = 0.0
        for j in range(n):
            rs += row[j]
        if rs > 0.0:
            cond += rs / total * cost_entropy_from_sums(row)
    return cost_entropy_from_sums(class_sums) - cond
