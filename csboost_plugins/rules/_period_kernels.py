"""numba kernels of :mod:`._monitor`: a coverage matrix packed into per-rule bit masks, and a mask's rows."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["pack_columns", "set_rows"]


@njit(cache=True, nogil=True)
def pack_columns(cover, word0, w0, w1, out):  # pragma: no cover - compiled
    """Set bit ``i & 63`` of ``out[j, word0 + (i >> 6)]`` for every row i of ``cover`` in its words [w0, w1)
    that rule j covers.

    ``cover``: (m, k) bool, row-major (as the induced rules' kernels write it), the rows from ``64 word0`` on;
    ``out``: (k, n_words) uint64. Threads take disjoint word ranges, so no word is written twice at once. The
    caller guarantees ``out.shape[0] == k`` and ``word0 + ceil(m / 64) <= out.shape[1]``.
    """
    m, k = cover.shape
    for w in range(w0, w1):
        for i in range(w * 64, min(m, w * 64 + 64)):
            bit = np.uint64(1) << np.uint64(i & 63)
            for j in range(k):
                if cover[i, j]:
                    out[j, word0 + w] |= bit


# de Bruijn multiplication: the index of a word's lowest set bit in a few operations
_DEBRUIJN = np.uint64(0x03F79D71B4CA8B09)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
_DEBRUIJN_INDEX[[((1 << b) * int(_DEBRUIJN) % 2**64) >> 58 for b in range(64)]] = np.arange(64)


@njit(cache=True, nogil=True)
def set_rows(words, n, out):  # pragma: no cover - compiled
    """Write the rows whose bit is set in ``words`` (bit j of word w = row 64 w + j), ascending, to ``out``;
    return how many. Rows from ``n`` on are ignored. The caller guarantees ``len(out) >= n``."""
    c = 0
    for w in range(words.shape[0]):
        x = words[w]
        while x:
            low = x & (~x + np.uint64(1))  # the lowest set bit
            i = w * 64 + _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]
            if i < n:
                out[c] = i
                c += 1
            x ^= low
    return c
