"""Compiled kernels of :mod:`._book`'s re-tuning."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["masked_column_sums", "swept_column_sums"]


@njit(cache=True, nogil=True)
def masked_column_sums(mask, W):  # pragma: no cover - compiled
    """``W[mask].sum(axis=0)`` without the copy of the selected rows: the rows added in order, one column
    accumulator each, as numpy's reduction over the first axis of a C-ordered array does (same sums, bit for
    bit). ``mask`` (n,) bool, ``W`` (n, k) float64."""
    k = W.shape[1]
    out = np.zeros(k)
    for i in range(mask.shape[0]):
        if mask[i]:
            for j in range(k):
                out[j] += W[i, j]
    return out


@njit(cache=True, nogil=True)
def _count_below(grid, v, strict):  # pragma: no cover - compiled
    """How many values of the increasing ``grid`` are < ``v`` (``strict``) or <= ``v``."""
    lo, hi = 0, grid.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if grid[mid] < v or (not strict and grid[mid] == v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def swept_column_sums(x, null, if_true, if_false, if_null, grid, op, W):  # pragma: no cover - compiled
    """(G, k): row g holds ``W[mask_g].sum(axis=0)`` of the rule version whose moving comparison reads
    ``x op grid[g]`` (op: 0 ``<``, 1 ``<=``, 2 ``>``, 3 ``>=``, 4 ``=``, 5 ``<>``), each row added in row order
    as :func:`masked_column_sums` adds it (same sums, bit for bit). A row's mask is ``if_true`` / ``if_false`` /
    ``if_null`` when the comparison is TRUE / FALSE / unknown (``null``: x is NULL), the rest of the rule fixed.
    ``x`` (n,) float64; ``null``, ``if_*`` (n,) bool; ``grid`` (G,) increasing float64; ``W`` (n, k) float64.
    The versions where a row's comparison is TRUE are one run ``[lo, hi)`` of the increasing grid (its
    complement for ``<>``), found by bisection, so a row adds only to the versions that flag it."""
    G = grid.shape[0]
    k = W.shape[1]
    out = np.zeros((G, k))
    for i in range(W.shape[0]):
        a, b, c = if_true[i], if_false[i], if_null[i]
        if null[i]:
            if not c:
                continue
            a = b = True  # flagged under every version
        if not (a or b):
            continue
        xi = x[i]
        if xi != xi:  # NaN: FALSE under every version (TRUE with <>)
            a = b = a if op == 5 else b
            if not a:
                continue
        if a and b:  # flagged under every version
            for g in range(G):
                for j in range(k):
                    out[g, j] += W[i, j]
            continue
        if op == 0:  # xi < grid[g]: the values above xi
            lo, hi = _count_below(grid, xi, False), G
        elif op == 1:  # xi <= grid[g]
            lo, hi = _count_below(grid, xi, True), G
        elif op == 2:  # xi > grid[g]: the values below xi
            lo, hi = 0, _count_below(grid, xi, True)
        elif op == 3:  # xi >= grid[g]
            lo, hi = 0, _count_below(grid, xi, False)
        else:  # = (TRUE on the values equal to xi); <> (TRUE elsewhere)
            lo, hi = _count_below(grid, xi, True), _count_below(grid, xi, False)
        if op == 5:
            a, b = b, a  # the run [lo, hi) holds the versions where <> is FALSE
        if a:
            for g in range(lo, hi):
                for j in range(k):
                    out[g, j] += W[i, j]
        else:
            for g in range(lo):
                for j in range(k):
                    out[g, j] += W[i, j]
            for g in range(hi, G):
                for j in range(k):
                    out[g, j] += W[i, j]
    return out
