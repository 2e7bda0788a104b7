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
def swept_column_sums(x, null, if_true, if_false, if_null, grid, op, W):  # pragma: no cover - compiled
    """(G, k): row g holds ``W[mask_g].sum(axis=0)`` of the rule version whose moving comparison reads
    ``x op grid[g]`` (op: 0 ``<``, 1 ``<=``, 2 ``>``, 3 ``>=``, 4 ``=``, 5 ``<>``), each row added in row order
    as :func:`masked_column_sums` adds it (same sums, bit for bit). A row's mask is ``if_true`` / ``if_false`` /
    ``if_null`` when the comparison is TRUE / FALSE / unknown (``null``: x is NULL), the rest of the rule fixed.
    ``x`` (n,) float64; ``null``, ``if_*`` (n,) bool; ``grid`` (G,) float64; ``W`` (n, k) float64."""
    G = grid.shape[0]
    k = W.shape[1]
    out = np.zeros((G, k))
    for i in range(W.shape[0]):
        a, b, c = if_true[i], if_false[i], if_null[i]
        if null[i]:
            if not c:
                continue
            a = b = True  # flagged under every version
        if a and b:
            for g in range(G):
                for j in range(k):
                    out[g, j] += W[i, j]
            continue
        if not (a or b):
            continue
        xi = x[i]
        for g in range(G):
            v = grid[g]
            if op == 0:
                r = xi < v
            elif op == 1:
                r = xi <= v
            elif op == 2:
                r = xi > v
            elif op == 3:
                r = xi >= v
            elif op == 4:
                r = xi == v
            else:
                r = xi != v
            if a if r else b:
                for j in range(k):
                    out[g, j] += W[i, j]
    return out
