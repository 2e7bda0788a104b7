"""numba kernel of :mod:`._monitor`: per (period, rule) sums from a block's coverage matrix, in one sweep."""

from __future__ import annotations

from numba import njit

__all__ = ["add_cell_sums"]


@njit(cache=True, nogil=True)
def add_cell_sums(cover, codes, w, y, net, out):  # pragma: no cover - compiled
    """Add to ``out[code, j]`` (shape (n_periods, k + 1, 5)) for every row and every rule j covering it:
    w, w^2, w y, w net, and w net again when no other rule covers the row; j = k is the set (any rule).

    The caller guarantees ``0 <= codes < out.shape[0]``, ``cover.shape == (len(codes), out.shape[1] - 1)``
    and equal lengths of codes, w, y, net.
    """
    n, k = cover.shape
    for i in range(n):
        c = codes[i]
        cnt = 0
        for j in range(k):
            if cover[i, j]:
                cnt += 1
        if cnt == 0:
            continue
        wi = w[i]
        wy = wi * y[i]
        wn = wi * net[i]
        for j in range(k + 1):
            if j < k and not cover[i, j]:
                continue
            out[c, j, 0] += wi
            out[c, j, 1] += wi * wi
            out[c, j, 2] += wy
            out[c, j, 3] += wn
            if j == k or cnt == 1:
                out[c, j, 4] += wn
