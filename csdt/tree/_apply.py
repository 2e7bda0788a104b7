"""Prediction walk of a fitted tree (numba, GIL released, one loop over rows in numba)."""

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def apply_rows(X, left, right, feature, threshold, missing_left):
    """Leaf id of every row: ``x <= threshold`` goes left, NaN follows ``missing_left``."""
    n = X.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        node = 0
        while left[node] != -1:
            x = X[i, feature[node]]
            if np.isnan(x):
                go_left = missing_left[node]
            else:
                go_left = x <= threshold[node]
            node = left[node] if go_left else right[node]
        out[i] = node
    return out


def decision_path_rows(leaf, left, right, depth):
    """CSR (indptr, indices) of the nodes every row visits, root first, from its ``leaf``.

    The path of a leaf is its chain of ancestors; built with numpy from the parent of
    every node (no second numba walk of the rows).
    """
    m = left.shape[0]
    parent = np.full(m, -1, np.int64)
    inner = np.flatnonzero(left != -1)
    parent[left[inner]] = inner
    parent[right[inner]] = inner
    # anc[k, j] = ancestor of node k at depth j (j <= depth[k])
    anc = np.zeros((m, int(depth.max()) + 1 if m else 1), np.int64)
    cur = np.arange(m)
    dep = depth.astype(np.int64)
    for _ in range(anc.shape[1]):
        ok = dep >= 0
        anc[np.flatnonzero(ok), dep[ok]] = cur[ok]
        cur = np.where(ok, parent[np.maximum(cur, 0)], -1)
        dep = dep - 1
    lengths = depth[leaf] + 1
    indptr = np.zeros(leaf.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = anc[leaf][np.arange(anc.shape[1]) < lengths[:, None]]
    return indptr, indices
