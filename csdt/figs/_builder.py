"""Greedy growth of tree sums (FIGS) and tree unions (FIGU) over binned features.

One loop serves both models. At every step each current leaf of every tree and
one "new tree" candidate (a single leaf holding all rows) proposes its best
split; the split with the largest weighted squared-error decrease is made,
until ``max_rules`` splits (Tan et al. 2022, Algorithm 1).

FIGS (eq. 1 of the RIFF paper): the leaf of tree i is evaluated against the
residual ``r_i = y - sum_{j != i} f_j(x)``. On a leaf of tree i, ``f_i`` is a
constant, so ``r_i`` and the global residual ``R = y - sum_j f_j(x)`` differ by a
constant there and give the same squared-error decrease; all histograms
therefore hold ``w * R``, and a split of a leaf with value ``v`` gives its
children ``v + mean_w(R | child)``. After the split ``R`` changes only on the
split leaf's rows, so only those rows are moved in the other trees' histograms.

FIGU (eq. 2): the target is ``y`` and a row is evaluated for tree i only if no
other tree j covers it, where tree j covers a row whose leaf in j has precision
(weighted positive rate over all training rows of the leaf) at least
``precision_threshold``, or is j's best leaf by precision (first leaf in node
order on ties). After a split only the rows whose coverage flipped are
re-evaluated.
"""

from __future__ import annotations

import numpy as np

from .. import _aot
from .._binning import _CODE_NAMES
from ._histogram import (
    best_splits,
    build_histogram,
    shift_histogram,
    subtract_histogram,
    update_residual_histograms,
    update_usable_histograms,
)

__all__ = ["grow_trees", "GrownTree"]


class GrownTree:
    """Node lists of one grown tree (node 0 is the root)."""

    def __init__(self):
        self.children_left, self.children_right = [-1], [-1]
        self.feature, self.threshold, self.missing_left = [-1], [np.nan], [False]
        self.value, self.n_samples, self.depth, self.gain = [0.0], [0.0], [0], [np.nan]

    def add_children(self, node, feature, threshold, missing_left, gain):
        left = len(self.children_left)
        for _ in range(2):
            self.children_left.append(-1)
            self.children_right.append(-1)
            self.feature.append(-1)
            self.threshold.append(np.nan)
            self.missing_left.append(False)
            self.value.append(0.0)
            self.n_samples.append(0.0)
            self.depth.append(self.depth[node] + 1)
            self.gain.append(np.nan)
        self.children_left[node], self.children_right[node] = left, left + 1
        self.feature[node], self.threshold[node], self.gain[node] = feature, threshold, gain
        self.missing_left[node] = missing_left
        return left, left + 1

    def leaves(self):
        return np.flatnonzero(np.asarray(self.children_left) == -1)


class _State:
    """Histogram slots and per-row bookkeeping shared by FIGS and FIGU."""

    def __init__(self, X_binned, n_bins, max_nodes):
        n, d = X_binned.shape
        self.n, self.d, self.width = n, d, int(n_bins.max()) + 1  # + the missing-value bin
        self.max_nodes = max_nodes
        self.G = np.zeros((0, d, self.width))
        self.H = np.zeros((0, d, self.width))
        self.N = np.zeros((0, d, self.width), dtype=np.int32)
        self.free = []
        self.owner = {}  # slot -> (tree row, node)
        self.leaf_of = np.zeros((1, n), dtype=np.int32)  # row 0: the new-tree candidate
        self.covered = np.zeros((1, n), dtype=np.bool_)  # FIGU: covered[row] by tree row
        self.n_rows = 1  # rows in use (capacity = leaf_of.shape[0])
        self.slot_of = np.full((1, max_nodes), -1, dtype=np.int64)
        self.gain = self.feature = self.threshold = self.missing_left = None
        self.left_g = self.left_w = self.tot_g = self.tot_w = None

    def alloc(self, row, node):
        if not self.free:
            old = self.G.shape[0]
            new = max(4, 2 * old)
            grow = lambda a: np.concatenate([a, np.zeros((new - old,) + a.shape[1:], a.dtype)])
            self.G, self.H, self.N = grow(self.G), grow(self.H), grow(self.N)
            self.free.extend(range(new - 1, old - 1, -1))
            for name in ("gain", "feature", "threshold", "missing_left", "left_g", "left_w", "tot_g", "tot_w"):
                a = getattr(self, name)
                dtype = {"feature": np.int64, "missing_left": np.bool_}.get(name, np.float64)
                fresh = np.zeros(new, dtype=dtype)
                if a is not None:
                    fresh[:old] = a
                setattr(self, name, fresh)
        s = self.free.pop()
        self.owner[s] = (row, node)
        self.slot_of[row, node] = s
        return s

    def reassign(self, s, row, node):
        old_row, old_node = self.owner[s]
        if self.slot_of[old_row, old_node] == s:
            self.slot_of[old_row, old_node] = -1
        self.owner[s] = (row, node)
        self.slot_of[row, node] = s

    def add_tree_row(self):
        """Start one more tree row in the per-row arrays (capacity doubles when full)."""
        row = self.n_rows
        if row == self.leaf_of.shape[0]:
            extra = row  # double
            self.leaf_of = np.vstack([self.leaf_of, np.zeros((extra, self.n), np.int32)])
            self.slot_of = np.vstack([self.slot_of, np.full((extra, self.max_nodes), -1, np.int64)])
            self.covered = np.vstack([self.covered, np.zeros((extra, self.n), np.bool_)])
        self.n_rows += 1
        return row


def grow_trees(X, X_binned, n_bins, bin_min, bin_max, y, weight, *, union, max_rules, max_trees,
               max_depth, min_impurity_decrease, precision_threshold=0.5):
    """Grow FIGS (``union=False``) or FIGU (``union=True``) trees.

    Parameters are validated by the estimator. ``y`` is float64 0/1, ``weight``
    float64 >= 0. Returns ``(trees, splits)``: a list of :class:`GrownTree` and the
    splits in the order they were made, as ``(tree, node, feature, threshold, gain)``.
    """
    n = X.shape[0]
    max_trees = max_rules if max_trees is None else min(max_trees, max_rules)
    max_depth = np.inf if max_depth is None else max_depth
    st = _State(X_binned, n_bins, 2 * max_rules + 1)
    all_rows = np.arange(n, dtype=np.int64)
    target = y.astype(np.float64).copy()  # FIGS: the residual R (updated in place); FIGU: y
    usable_all = np.ones(n, dtype=np.bool_)
    wy = weight * y  # FIGU: leaf precision numerators
    cover_count = np.zeros(n, dtype=np.int64)
    total_w = float(weight.sum())
    tol = 1e-12 * max(total_w, 1.0)  # numerical zero of a gain (weight x target^2)

    code = _CODE_NAMES[X_binned.dtype.type]  # the AOT kernels exist per bin-code dtype
    s0 = st.alloc(0, 0)
    _aot.run("figs_build_histogram_" + code, build_histogram, X_binned, all_rows, target, weight, usable_all,
             st.G, st.H, st.N, s0)
    trees: list[GrownTree] = []
    splits = []

    while len(splits) < max_rules:
        live = np.array(sorted(st.owner, key=lambda s: st.owner[s]), dtype=np.int64)
        _aot.run("figs_best_splits", best_splits, st.G, st.H, st.N, live, n_bins, bin_min, bin_max, st.gain,
                 st.feature, st.threshold, st.missing_left, st.left_g, st.left_w, st.tot_g, st.tot_w)
        best_slot, best_gain = -1, -np.inf
        for s in live:
            row, node = st.owner[int(s)]
            if row == 0 and len(trees) >= max_trees:
                continue
            if row > 0 and trees[row - 1].depth[node] >= max_depth:
                continue
            if st.feature[s] >= 0 and st.gain[s] > tol and st.gain[s] > best_gain:
                best_slot, best_gain = int(s), float(st.gain[s])
        if best_slot < 0 or best_gain < min_impurity_decrease:
            break
        s = best_slot
        row, node = st.owner[s]
        f, thr, miss_left = int(st.feature[s]), float(st.threshold[s]), bool(st.missing_left[s])
        gl, wl, g_tot, w_tot = st.left_g[s], st.left_w[s], st.tot_g[s], st.tot_w[s]

        base = None
        if row == 0:  # start a new tree from the candidate's histogram
            base = 0.0  # the candidate tree predicts 0 everywhere until it is split
            tree = GrownTree()
            trees.append(tree)
            row = st.add_tree_row()
            tree.n_samples[0] = total_w
            tree.value[0] = (g_tot / w_tot if not union
                             else float(weight @ y) / total_w if total_w > 0 else 0.0)
            sp = st.alloc(row, 0)
            st.G[sp], st.H[sp], st.N[sp] = st.G[s], st.H[s], st.N[s]
            s, node = sp, 0
        tree = trees[row - 1]
        covered = st.covered
        rows = np.flatnonzero(st.leaf_of[row] == node)
        x = X[rows, f]
        go_left = (x <= thr) | np.isnan(x) if miss_left else x <= thr
        rows_l, rows_r = rows[go_left], rows[~go_left]
        left, right = tree.add_children(node, f, thr, miss_left, best_gain)
        st.leaf_of[row, rows_l] = left
        st.leaf_of[row, rows_r] = right
        splits.append((row - 1, node, f, thr, best_gain))

        # children histograms: scan the smaller child, the larger is parent minus it
        usable = usable_all if not union else (cover_count - covered[row]) == 0
        small, small_rows, large = (left, rows_l, right) if rows_l.shape[0] <= rows_r.shape[0] else (right, rows_r, left)
        sc = st.alloc(row, small)
        _aot.run("figs_build_histogram_" + code, build_histogram, X_binned, small_rows.astype(np.int64, copy=False),
                 target, weight, usable, st.G, st.H, st.N, sc)
        _aot.run("figs_subtract_histogram", subtract_histogram, st.G, st.H, st.N, s, sc)
        st.reassign(s, row, large)
        slot_left, slot_right = (sc, s) if small == left else (s, sc)
        wsum_l, wsum_r = float(weight[rows_l].sum()), float(weight[rows_r].sum())
        tree.n_samples[left], tree.n_samples[right] = wsum_l, wsum_r
        others = np.array([r for r in range(st.n_rows) if r != row], dtype=np.int64)

        if not union:
            delta_l, delta_r = gl / wl, (g_tot - gl) / (w_tot - wl)
            base = tree.value[node] if base is None else base
            tree.value[left] = base + delta_l
            tree.value[right] = base + delta_r
            _aot.run("figs_shift_histogram", shift_histogram, st.G, st.H, slot_left, delta_l)
            _aot.run("figs_shift_histogram", shift_histogram, st.G, st.H, slot_right, delta_r)
            delta = np.where(go_left, delta_l, delta_r)
            _aot.run("figs_update_residual_histograms_" + code, update_residual_histograms, X_binned,
                     rows.astype(np.int64, copy=False), delta, weight, target, others, st.leaf_of, st.slot_of, st.G)
        else:
            prec = lambda r, ws: float(wy[r].sum()) / ws if ws > 0 else 0.0
            tree.value[left], tree.value[right] = prec(rows_l, wsum_l), prec(rows_r, wsum_r)
            leaves = tree.leaves()
            leaf_prec = np.asarray(tree.value)[leaves]
            covers = np.zeros(len(tree.children_left), dtype=np.bool_)
            covers[leaves] = leaf_prec >= precision_threshold
            covers[leaves[int(np.argmax(leaf_prec))]] = True
            new_cov = covers[st.leaf_of[row]]
            changed = np.flatnonzero(new_cov != covered[row])
            before = cover_count[changed]
            after = before + np.where(new_cov[changed], 1, -1)
            covered[row] = new_cov
            _aot.run("figs_update_usable_histograms_" + code, update_usable_histograms, X_binned,
                     changed.astype(np.int64, copy=False), target, weight, row, others, covered, before, after,
                     st.leaf_of, st.slot_of, st.G, st.H, st.N)
            cover_count[changed] = after

    if not trees:  # no split helps: one leaf predicting the weighted mean of y (as imodels)
        tree = GrownTree()
        tree.value[0] = float(weight @ y) / total_w if total_w > 0 else 0.0
        tree.n_samples[0] = total_w
        trees.append(tree)
    return trees, splits
