"""numba kernels of :mod:`._monitor`: a coverage matrix packed into per-rule bit masks, and per (period, mask)
sums over the masks' rows."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["mask_cell_sums", "pack_columns"]


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
def mask_cell_sums(words, alone, codes, w, y, net, r0, r1, out):  # pragma: no cover - compiled
    """For masks r in [r0, r1) (``words[r]``, bit j of word v = row 64 v + j) and every row i they hold, add
    to ``out[codes[i], r]``: w, w^2, w y, w net, and w net again where ``alone[i]`` (no other rule flags i).

    Rows are visited in order, so each cell adds its rows as a row-by-row sweep (or ``np.bincount``) does.
    Threads take disjoint ranges of masks (disjoint columns of ``out``). The caller guarantees
    ``out.shape[1:] == (len(words), 5)``, ``0 <= codes < out.shape[0]`` and equal lengths of the rows'
    arrays (``len(codes) <= 64 * words.shape[1]``; bits past the rows are never set).
    """
    for r in range(r0, r1):
        for v in range(words.shape[1]):
            x = words[r, v]
            while x:
                low = x & (~x + np.uint64(1))
                i = v * 64 + _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]
                x ^= low
                c = codes[i]
                wi = w[i]
                wn = wi * net[i]
                out[c, r, 0] += wi
                out[c, r, 1] += wi * wi
                out[c, r, 2] += wi * y[i]
                out[c, r, 3] += wn
                if alone[i]:
                    out[c, r, 4] += wn
