"""numba kernel of :mod:`csboost_plugins._capacity`: the top ``cap[g]`` rows of each period, in O(n).

Inputs are validated by the caller (codes in ``[0, len(caps))``, caps >= 0, finite values).
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def top_k_per_group(value, codes, caps):
    """``keep[i]``: row i is among the ``caps[codes[i]]`` largest ``value`` of its group.

    Ties at the cut go to the earlier row (row order). A counting sort groups the rows (stable,
    so each group keeps row order), then each group's cut value is found by selection
    (``np.partition``, linear on average) instead of a sort.

    Parameters
    ----------
    value : ndarray of float64, shape (m,)
        The ranking value of each row (finite).
    codes : ndarray of int64, shape (m,)
        Group of each row, in ``[0, len(caps))``.
    caps : ndarray of int64, shape (G,)
        Rows to keep per group (>= 0).

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    m = value.shape[0]
    n_groups = caps.shape[0]
    start = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(m):
        start[codes[i] + 1] += 1
    for g in range(n_groups):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    rows = np.empty(m, dtype=np.int64)
    for i in range(m):  # counting sort: rows of a group stay in row order
        g = codes[i]
        rows[fill[g]] = i
        fill[g] += 1
    keep = np.zeros(m, dtype=np.bool_)
    for g in range(n_groups):
        lo, hi, k = start[g], start[g + 1], caps[g]
        size = hi - lo
        if k <= 0 or size == 0:
            continue
        if size <= k:
            for j in range(lo, hi):
                keep[rows[j]] = True
            continue
        seg = np.empty(size, dtype=np.float64)
        for j in range(size):
            seg[j] = value[rows[lo + j]]
        cut = np.partition(seg, size - k)[size - k]  # the k-th largest value
        above = 0
        for j in range(size):
            if seg[j] > cut:
                above += 1
        room = k - above  # rows tied at the cut still admitted, earliest first
        for j in range(lo, hi):
            v = value[rows[j]]
            if v > cut:
                keep[rows[j]] = True
            elif v == cut and room > 0:
                keep[rows[j]] = True
                room -= 1
    return keep
