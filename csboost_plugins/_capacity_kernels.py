"""numba kernels of :mod:`csboost_plugins._capacity`: the top ``cap[g]`` rows of each period, in O(n), and the
(period, entity) groups of a capacity counting entities, in O(n).

Inputs are validated by the caller (codes in ``[0, len(caps))``, caps >= 0, finite values). Compiled ahead of
time into ``csboost_plugins._capacity_kernels_aot`` (see :mod:`csboost_plugins._aot`; call them through
:data:`run`), with the ``cache=True`` JIT as the fallback and reference.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._aot import KernelSet, arr, read, vector_target

_RI1 = read("int64", 1)
#: exported name -> (module, function, return type, argument types)
SIGNATURES = {
    "top_k_per_group": ("_capacity_kernels", "top_k_per_group", arr("bool", 1), (read("float64", 1), _RI1, _RI1)),
    "period_entity_groups": ("_capacity_kernels", "period_entity_groups", ("T", arr("int64", 1), arr("int64", 1)),
                             (_RI1, _RI1, "i8", "i8")),
}
KERNELS = KernelSet("csboost_plugins._capacity_kernels_aot", __file__, SIGNATURES, **vector_target())
run = KERNELS.run


@nb.njit(cache=True, nogil=True)
def _kth_smallest(a, target):
    """The value at index ``target`` of sorted ``a`` (``a`` is reordered): quickselect with a median-of-three
    pivot and a three-way partition, so runs of equal values (ties) end a step at once."""
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        x, y, z = a[lo], a[mid], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))  # median of three
        lt, i, gt = lo, lo, hi
        while i <= gt:
            v = a[i]
            if v < pivot:
                a[i], a[lt] = a[lt], v
                lt += 1
                i += 1
            elif v > pivot:
                a[i], a[gt] = a[gt], v
                gt -= 1
            else:
                i += 1
        if target < lt:
            hi = lt - 1
        elif target > gt:
            lo = gt + 1
        else:
            return pivot
    return a[lo]


@nb.njit(cache=True, nogil=True)
def _rows_by_group(codes, n_groups):
    """Counting sort of the rows by group code, stable (a group's rows stay in row order): ``(start, rows)``,
    group g's rows being ``rows[start[g]:start[g + 1]]``. Codes lie in ``[0, n_groups)`` (checked by the caller)."""
    start = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(codes.shape[0]):
        start[codes[i] + 1] += 1
    for g in range(n_groups):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    rows = np.empty(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        g = codes[i]
        rows[fill[g]] = i
        fill[g] += 1
    return start, rows


@nb.njit(cache=True, nogil=True)
def top_k_per_group(value, codes, caps):
    """``keep[i]``: row i is among the ``caps[codes[i]]`` largest ``value`` of its group.

    Ties at the cut go to the earlier row (row order). A counting sort groups the rows (stable,
    so each group keeps row order), then each group's cut value is found by selection
    (quickselect, linear on average) instead of a sort.

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
    start, rows = _rows_by_group(codes, n_groups)
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
        cut = _kth_smallest(seg, size - k)  # the k-th largest value
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


@nb.njit(cache=True, nogil=True)
def period_entity_groups(period_codes, entity_codes, n_periods, n_entities):
    """``(group, group_period)`` of :func:`csboost_plugins._entity_capacity.group_rows` in O(n + periods +
    entities), no sort: rows are dealt to their period (counting sort, row order kept), within a period an
    entity's first row opens its group, then groups are numbered by their first row.

    Codes must lie in ``[0, n_periods)`` and ``[0, n_entities)`` (checked by the caller).
    """
    n = period_codes.shape[0]
    start, rows = _rows_by_group(period_codes, n_periods)
    stamp = np.full(n_entities, -1, dtype=np.int64)  # the period in which the entity's group was last opened
    current = np.empty(n_entities, dtype=np.int64)
    provisional = np.empty(n, dtype=np.int64)  # groups numbered period by period
    first_row = np.empty(n, dtype=np.int64)
    n_groups = 0
    for p in range(n_periods):
        for j in range(start[p], start[p + 1]):
            i = rows[j]
            e = entity_codes[i]
            if stamp[e] != p:
                stamp[e] = p
                current[e] = n_groups
                first_row[n_groups] = i
                n_groups += 1
            provisional[i] = current[e]
    rank_at_row = np.zeros(n, dtype=np.int64)  # 1 at each group's first row, then its rank by a running count
    for g in range(n_groups):
        rank_at_row[first_row[g]] = 1
    count = 0
    for i in range(n):
        c = rank_at_row[i]
        rank_at_row[i] = count
        count += c
    group = np.empty(n, dtype=np.int64)
    for i in range(n):
        group[i] = rank_at_row[first_row[provisional[i]]]
    group_period = np.empty(n_groups, dtype=np.int64)
    for g in range(n_groups):
        group_period[rank_at_row[first_row[g]]] = period_codes[first_row[g]]
    return group, group_period
