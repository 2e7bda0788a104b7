"""Decision paths of a fitted CSDT (the prediction walk itself is :mod:`csdt._apply`)."""

import numpy as np


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


def node_sums(tree, leaf, values):
    """Per-node sums (m, k) of the per-row ``values`` (n, k) of the rows whose leaf is ``leaf``.

    Summed over each leaf, then added up the tree, children before parents (node ids grow
    away from the root): a node's sum is over every row that passes through it.
    """
    m = tree.node_count
    v = np.stack([np.bincount(leaf, weights=values[:, j], minlength=m) for j in range(values.shape[1])], axis=1)
    left, right, depth = tree.children_left, tree.children_right, tree.depth
    inner = np.flatnonzero(left != -1)
    for level in range(int(depth.max()) if m else 0, -1, -1):  # one numpy step per depth
        k = inner[depth[inner] == level]
        v[k] = v[left[k]] + v[right[k]]
    return v
