"""Prediction walks of a fitted tree (numba, GIL released, one loop over rows in numba)."""

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


@nb.njit(cache=True, nogil=True)
def decision_path_rows(X, left, right, feature, threshold, missing_left, depth):
    """CSR (indptr, indices) of the nodes every row visits, root first."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    max_len = 1
    for k in range(depth.shape[0]):
        max_len = max(max_len, depth[k] + 1)
    indices = np.empty(n * max_len, np.int64)
    pos = 0
    for i in range(n):
        node = 0
        indices[pos] = 0
        pos += 1
        while left[node] != -1:
            x = X[i, feature[node]]
            if np.isnan(x):
                go_left = missing_left[node]
            else:
                go_left = x <= threshold[node]
            node = left[node] if go_left else right[node]
            indices[pos] = node
            pos += 1
        indptr[i + 1] = pos
    return indptr, indices[:pos].copy()
