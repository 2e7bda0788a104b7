"""Compiled kernels of :mod:`._book`'s re-tuning."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["masked_column_sums"]


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
