"""CAL5_OC tree construction (paper section 4.2, function CAL5_OC(M, alpha, S_max)).

The tree grows multiway, as the paper draws it (a decision node per attribute, one
branch per interval, :class:`CAL5Tree`), and is converted at the end of fitting to the
project's fitted-tree form (:class:`csboost_plugins.tree_protocol.TreeArrays`): each
multiway node is written as a chain of binary interval splits on the same attribute
``x <= b_0``, ``x <= b_1``, ..., the extra ``chain`` marking the chain's inner nodes.
Prediction and rules read those arrays; the multiway view is derived from them for
display only (:func:`multiway_view`, :func:`export_text`).
"""

from __future__ import annotations

import textwrap

import numpy as np

from csboost_plugins.tree_protocol import TreeArrays

from .. import _aot
from .._apply import apply_one
from .._export import count_text
from ._intervals import NO_DOMINANT, UNDECIDED, meta_decision, weighted_attribute_intervals

# why a node is a leaf
LEAF_KINDS = {
    "dominates": "class dominates",
    "undecided": "no confident decision, Bayes rule",
    "no_split": "no dominant class but no attribute splits, Bayes rule",
    "max_depth": "max_depth reached, Bayes rule",
    "merged": "neighbouring leaves with the same class, merged",
}


class CAL5Tree:
    """A CAL5/CAL5_OC tree while it grows (multiway nodes)."""

    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        # multiway nodes
        self.feature: list[int] = []
        self.thresholds: list[np.ndarray] = []
        self.children: list[list[int]] = []
        self.counts: list[np.ndarray] = []
        self.cost_sums: list[np.ndarray] = []
        self.status: list[int] = []
        self.label: list[int] = []
        self.leaf_kind: list[str] = []
        self.depth: list[int] = []
        self.info: list[float] = []

    # -- construction -------------------------------------------------------------------
    def _add_node(self, counts, cost_sums, status, depth):
        self.feature.append(-1)
        self.thresholds.append(np.empty(0))
        self.children.append([])
        self.counts.append(counts)
        self.cost_sums.append(cost_sums)
        self.status.append(int(status))
        self.label.append(_bayes_class(counts, cost_sums) if status < 0 else int(status))
        self.leaf_kind.append("")
        self.depth.append(depth)
        self.info.append(np.nan)
        return len(self.feature) - 1

    def reachable(self) -> list[int]:
        """Nodes reachable from the root (merging leaves orphans some list entries)."""
        out, stack = [], [0]
        while stack:
            i = stack.pop()
            out.append(i)
            stack.extend(self.children[i])
        return out

    @property
    def node_count(self) -> int:
        return len(self.reachable())

    @property
    def n_leaves(self) -> int:
        return sum(self.feature[i] < 0 for i in self.reachable())

    @property
    def max_depth(self) -> int:
        return max(self.depth[i] for i in self.reachable())


def _bayes_class(counts, cost_sums) -> int:
    """Bayes rule of eq. 26: the class with the largest cost sum (counts if all costs are 0)."""
    return int(np.argmax(cost_sums)) if cost_sums.sum() > 0 else int(np.argmax(counts))


def _stats(k, c, w, n_classes):
    """Per-class weight sums ``sum w_p`` (the counts n_j) and cost sums ``sum w_p c_p``."""
    return (np.bincount(k, weights=w, minlength=n_classes),
            np.bincount(k, weights=w * c, minlength=n_classes))


def build_tree(X, k, c, n_classes, alpha, s_max, max_depth=None, merge_leaves=True, w=None) -> TreeArrays:
    """Grow a CAL5_OC tree on validated float64 X (n, d), class indices k, costs c >= 0 and example
    weights w > 0 (None: all 1; example p counts as w_p copies of itself); returns its binary-chain
    :class:`TreeArrays` (see :func:`to_tree_arrays`)."""
    tree = CAL5Tree(n_classes)
    w = np.ones(k.shape[0]) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    counts, costs = _stats(k, c, w, n_classes)
    status = _aot.run("cal5_meta_decision", meta_decision, counts, costs, alpha, s_max)
    root = tree._add_node(counts, costs, status, 0)
    # (node, rows, attribute of the parent node, which the paper excludes)
    stack = [(root, np.arange(X.shape[0]), -1)]
    while stack:
        node, rows, prev = stack.pop()
        status, depth = tree.status[node], tree.depth[node]
        if node != root and status != NO_DOMINANT:
            tree.leaf_kind[node] = "undecided" if status == UNDECIDED else "dominates"
            continue
        if max_depth is not None and depth >= max_depth:
            tree.leaf_kind[node] = "max_depth"
            continue
        kr, cr, wr = k[rows], c[rows], w[rows]
        best = None
        for f in range(X.shape[1]):
            if f == prev:
                continue
            res = _aot.run("cal5_weighted_attribute_intervals", weighted_attribute_intervals, X[rows, f], kr, cr,
                           wr, n_classes, alpha, s_max)
            # a single interval is no branching; strict '>' keeps the first best attribute
            if res[0].shape[0] > 0 and (best is None or res[4] > best[1][4]):
                best = (f, res)
        if best is None or not best[1][4] > 0.0:
            tree.leaf_kind[node] = "no_split"
            continue
        f, (thresholds, statuses, _, _, info) = best
        tree.feature[node] = f
        tree.thresholds[node] = thresholds
        tree.info[node] = float(info)
        interval = np.searchsorted(thresholds, X[rows, f], side="left")  # x <= b_t -> interval t
        for t in range(thresholds.shape[0] + 1):
            sub = rows[interval == t]
            cn, cs = _stats(k[sub], c[sub], w[sub], n_classes)
            child = tree._add_node(cn, cs, statuses[t], depth + 1)
            tree.children[node].append(child)
            stack.append((child, sub, f))
    if merge_leaves:
        _merge_same_class_leaves(tree)
    return to_tree_arrays(tree)


def _merge_same_class_leaves(tree: CAL5Tree) -> None:
    """Merge neighbouring leaf intervals with the same class label (paper section 3.1).

    Bottom-up (children are created after their parents); a node left with a
    single interval becomes a leaf itself. Predictions are unchanged.
    """
    for i in range(len(tree.feature) - 1, -1, -1):
        if tree.feature[i] < 0:
            continue
        ch, bounds = tree.children[i], list(tree.thresholds[i])
        new_ch, new_b = [ch[0]], []
        for t in range(1, len(ch)):
            a, b = new_ch[-1], ch[t]
            if tree.feature[a] < 0 and tree.feature[b] < 0 and tree.label[a] == tree.label[b]:
                tree.counts[a] = tree.counts[a] + tree.counts[b]
                tree.cost_sums[a] = tree.cost_sums[a] + tree.cost_sums[b]
                if tree.leaf_kind[a] != tree.leaf_kind[b]:
                    tree.leaf_kind[a] = "merged"
            else:
                new_ch.append(b)
                new_b.append(bounds[t - 1])
        if len(new_ch) == 1:
            tree.feature[i] = -1
            tree.children[i] = []
            tree.thresholds[i] = np.empty(0)
            tree.label[i] = tree.label[new_ch[0]]
            tree.leaf_kind[i] = tree.leaf_kind[new_ch[0]]
        else:
            tree.children[i] = new_ch
            tree.thresholds[i] = np.asarray(new_b)


def to_tree_arrays(tree: CAL5Tree) -> TreeArrays:
    """Write each multiway node as a chain of binary splits ``x <= b_t`` (left = interval t).

    Extras: ``proba`` (n_nodes, n_classes) p^c(k_j | node) (eq. 26), ``counts`` and
    ``cost_sums`` per class, ``leaf_kind`` (why a leaf is a leaf, :data:`LEAF_KINDS`),
    ``chain`` (True on a chain's inner nodes: the union of a multiway node's remaining
    intervals), ``info`` (I^c of the split, eq. 10, bits; NaN elsewhere) and ``depth``
    (multiway depth).
    """
    left, right, feat, thr, cnt, cst, lab, kind, chain, info, depth = ([] for _ in range(11))

    def alloc(counts, costs, label, node=-1, head=-1):
        left.append(-1), right.append(-1), feat.append(-1), thr.append(np.nan)
        cnt.append(counts), cst.append(costs), lab.append(label)
        kind.append(tree.leaf_kind[node] if node >= 0 else "")
        chain.append(node < 0)
        info.append(tree.info[node] if node >= 0 else np.nan)
        depth.append(tree.depth[node if node >= 0 else head])
        return len(left) - 1

    root = alloc(tree.counts[0], tree.cost_sums[0], tree.label[0], 0)
    stack = [(0, root)]
    while stack:
        i, b = stack.pop()
        if tree.feature[i] < 0:
            continue
        ch, bounds = tree.children[i], tree.thresholds[i]
        cur = b
        for s in range(len(bounds)):
            feat[cur], thr[cur] = tree.feature[i], bounds[s]
            lb = alloc(tree.counts[ch[s]], tree.cost_sums[ch[s]], tree.label[ch[s]], ch[s])
            left[cur] = lb
            stack.append((ch[s], lb))
            if s < len(bounds) - 1:
                # chain node: the union of intervals s+1 .. T of this attribute
                sc = np.sum([tree.counts[j] for j in ch[s + 1:]], axis=0)
                sw = np.sum([tree.cost_sums[j] for j in ch[s + 1:]], axis=0)
                nxt = alloc(sc, sw, _bayes_class(sc, sw), head=i)
            else:
                nxt = alloc(tree.counts[ch[-1]], tree.cost_sums[ch[-1]], tree.label[ch[-1]], ch[-1])
                stack.append((ch[-1], nxt))
            right[cur] = nxt
            cur = nxt
    counts, costs, label = np.array(cnt), np.array(cst), np.array(lab, dtype=np.int64)
    totals = costs.sum(axis=1, keepdims=True)
    # p^c(k_j | I) = w_j / sum_r w_r (eq. 26); plain frequencies where every cost is 0
    proba = np.where(totals > 0, costs / np.where(totals > 0, totals, 1.0),
                     counts / counts.sum(axis=1, keepdims=True))
    rows = np.arange(len(label))
    value = proba[:, 1] if tree.n_classes == 2 else proba[rows, label]
    return TreeArrays(
        left, right, feat, thr, np.zeros(len(left), bool), value, label=label,
        n_node_samples=counts.sum(axis=1), node_cost=totals[:, 0] - costs[rows, label], left_inclusive=True,
        extras={"proba": proba, "counts": counts, "cost_sums": costs, "leaf_kind": np.array(kind, dtype=object),
                "chain": np.array(chain, bool), "info": np.array(info, np.float64),
                "depth": np.array(depth, np.int64)},
    )


def predict_leaf(tree: TreeArrays, X) -> np.ndarray:
    """Binary-chain leaf of every row."""
    return apply_one(tree, np.ascontiguousarray(X, dtype=np.float64))


def multiway_view(tree: TreeArrays) -> list[dict]:
    """The multiway tree (display only), derived from the binary chain: one dict per
    multiway node in pre-order (index 0 the root) with ``node`` (its binary id),
    ``feature`` (-1 at leaves), ``thresholds``, ``children`` (indices into the list),
    ``label``, ``leaf_kind``, ``counts``, ``cost_sums``, ``info`` and ``depth``."""
    out = []

    def visit(b):
        me = len(out)
        out.append({"node": b, "feature": -1, "thresholds": np.empty(0), "children": [],
                    "label": int(tree.label[b]), "leaf_kind": tree.leaf_kind[b], "counts": tree.counts[b],
                    "cost_sums": tree.cost_sums[b], "info": float(tree.info[b]), "depth": int(tree.depth[b])})
        if tree.children_left[b] == -1:
            return me
        bounds, kids, cur = [], [], b
        while True:  # walk the chain: left children are the intervals, the last right one too
            bounds.append(tree.threshold[cur])
            kids.append(tree.children_left[cur])
            nxt = tree.children_right[cur]
            if not tree.chain[nxt]:
                kids.append(nxt)
                break
            cur = nxt
        out[me]["feature"], out[me]["thresholds"] = int(tree.feature[b]), np.asarray(bounds)
        out[me]["children"] = [visit(k) for k in kids]
        return me

    visit(0)
    return out


def _interval(lo, hi, decimals):
    """``(lo, hi]`` of an interval ``lo < x <= hi``; ``)`` when ``hi`` is infinite."""
    return f"({lo:.{decimals}f}, {hi:.{decimals}f}{')' if np.isinf(hi) else ']'}"


def _leaf_items(node, class_names, decimals):
    """A multiway leaf's class, why it is a leaf, training examples and p^c per class (eq. 26)."""
    counts, costs = node["counts"], node["cost_sums"]
    tot = costs.sum()
    pc = costs / tot if tot > 0 else counts / counts.sum()
    pcs = ", ".join(f"{class_names[j]}: {pc[j]:.{decimals}f}" for j in range(len(pc)))
    return f"class {class_names[node['label']]}", LEAF_KINDS[node["leaf_kind"]], f"n={count_text(counts.sum())}", pcs


def export_text(tree: TreeArrays, feature_names, class_names, decimals=3) -> str:
    """Indented text of the multiway tree (:func:`multiway_view` of the binary chain): one line per
    interval ``name in (lo, hi]``, leaves with class, reason, examples and p^c; ``decimals`` digits
    after the point."""
    lines = []
    nodes = multiway_view(tree)

    def describe(i):
        cls, kind, n, pcs = _leaf_items(nodes[i], class_names, decimals)
        return f"{cls}  [{kind}; {n}, p^c=({pcs})]"

    def walk(i, indent):
        if nodes[i]["feature"] < 0:
            lines.append(indent + describe(i))
            return
        name = feature_names[nodes[i]["feature"]]
        bounds = [-np.inf, *nodes[i]["thresholds"], np.inf]
        for t, child in enumerate(nodes[i]["children"]):
            interval = f"{name} in {_interval(bounds[t], bounds[t + 1], decimals)}"
            if nodes[child]["feature"] < 0:
                lines.append(f"{indent}{interval}: {describe(child)}")
            else:
                lines.append(f"{indent}{interval}:")
                walk(child, indent + "|   ")

    walk(0, "")
    return "\n".join(lines)


def plot_multiway(tree: TreeArrays, feature_names, class_names, ax=None, max_depth=None, fontsize=8, decimals=3):
    """Draw the multiway tree (:func:`multiway_view` of the binary chain) on ``ax`` (a new figure when None).

    A decision node shows its attribute, I^c (eq. 10, bits) and examples; each child's box
    starts with its interval ``name in (lo, hi]``; a leaf shows its class, why it is a leaf,
    examples and p^c, coloured by class. Boxes carry the gid ``"node <binary id>"`` of the node
    in ``tree``.
    """
    from .._export import CLASS_COLORS, INNER_COLOR, draw_layout, layout_tree, new_axes

    nodes = multiway_view(tree)
    by_id = {nd["node"]: nd for nd in nodes}

    def children(b):
        return [nodes[c]["node"] for c in by_id[b]["children"]]

    def box(b):
        nd = by_id[b]
        if nd["feature"] < 0:
            cls, kind, n, pcs = _leaf_items(nd, class_names, decimals)
            kind = textwrap.fill(kind, 26)  # the longest reasons take two lines, not one wide box
            return f"{cls}\n{kind}\n{n}\np^c: {pcs}", CLASS_COLORS[nd["label"] % len(CLASS_COLORS)]
        return (f"{feature_names[nd['feature']]}\nI^c={nd['info']:.{decimals}f} bits\nn={count_text(nd['counts'].sum())}",
                INNER_COLOR)

    def edge_text(b, i):
        bounds = [-np.inf, *by_id[b]["thresholds"], np.inf]
        return f"{feature_names[by_id[b]['feature']]} in {_interval(bounds[i], bounds[i + 1], decimals)}"

    lay = layout_tree(children, box, edge_text, max_depth=max_depth, fontsize=fontsize)
    if ax is None:
        ax = new_axes([lay])[1][0]
    return draw_layout(ax, lay, fontsize)
