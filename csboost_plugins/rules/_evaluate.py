"""numba kernels: rule evaluation on rows, first matching rule, and per-rule weight sums
over a prefix trie of conditions (the coverage counts of rule selection)."""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numba
import numpy as np
from numba import njit

from . import _aot
from ._rule import ZERO_THRESHOLD, CategorySet, Interval

__all__ = ["CompiledConditions", "ConditionTrie", "compile_conditions", "first_match", "coverage_matrix",
           "rule_mask_rows"]

_Z = ZERO_THRESHOLD


class CompiledConditions:
    """Flat arrays of conditions (one entry per condition) and rules as CSR over them."""

    def __init__(self, conditions, rule_conditions):
        m = len(conditions)
        self.feature = np.empty(m, np.int64)
        self.kind = np.zeros(m, np.int8)
        self.lo = np.full(m, -np.inf)
        self.hi = np.full(m, np.inf)
        self.lo_closed = np.ones(m, np.bool_)
        self.hi_closed = np.ones(m, np.bool_)
        self.missing = np.zeros(m, np.bool_)
        self.zero_missing = np.zeros(m, np.bool_)
        self.negate = np.zeros(m, np.bool_)
        self.cat_ptr = np.zeros(m + 1, np.int64)
        cats = []
        for i, c in enumerate(conditions):
            self.feature[i] = c.feature
            self.missing[i] = c.missing
            if isinstance(c, Interval):
                self.lo[i], self.hi[i] = c.lower, c.upper
                self.lo_closed[i], self.hi_closed[i] = c.lower_closed, c.upper_closed
                self.zero_missing[i] = c.zero_missing
            elif isinstance(c, CategorySet):
                self.kind[i] = 1
                self.negate[i] = c.negate
                self.zero_missing[i] = c.strict_negative  # (slot unused by categories) x < 0 is in no set
                cats.extend(sorted(c.codes))
            else:
                raise TypeError(f"unknown condition type {type(c).__name__}")
            self.cat_ptr[i + 1] = len(cats)
        self.cats = np.asarray(cats, dtype=np.float64)
        self.rule_ptr = np.zeros(len(rule_conditions) + 1, np.int64)
        self.rule_cond = np.asarray([k for rc in rule_conditions for k in rc], dtype=np.int64)
        self.rule_ptr[1:] = np.cumsum([len(rc) for rc in rule_conditions])

    @property
    def args(self):
        return (self.feature, self.kind, self.lo, self.hi, self.lo_closed, self.hi_closed, self.missing,
                self.zero_missing, self.negate, self.cat_ptr, self.cats)


def compile_conditions(rules, feature_map=None) -> CompiledConditions:
    """Compile rules (their merged conditions); ``feature_map`` renumbers features (old -> new column)."""
    conds, index, rule_conditions = [], {}, []
    for r in rules:
        ks = []
        for c in r.conditions:
            if feature_map is not None:
                c = _remap(c, feature_map[c.feature])
            k = c.key
            if k not in index:
                index[k] = len(conds)
                conds.append(c)
            ks.append(index[k])
        rule_conditions.append(ks)
    return CompiledConditions(conds, rule_conditions)


def _remap(c, j):
    from dataclasses import replace
    return replace(c, feature=j)


@njit(cache=True, nogil=True)
def _ok_category(x, c, missing, strict_negative, negate, cat_ptr, cats):
    if x != x:
        return missing[c]
    code = np.trunc(x)  # truncation toward zero, as static_cast<int>
    inset = False
    if code >= 0.0 and not (strict_negative[c] and x < 0.0):
        a, b = cat_ptr[c], cat_ptr[c + 1]
        while a < b:  # binary search in the sorted codes
            mid = (a + b) // 2
            if cats[mid] < code:
                a = mid + 1
            else:
                b = mid
        inset = a < cat_ptr[c + 1] and cats[a] == code
    return inset != negate[c]


@njit(cache=True, nogil=True, inline="always")
def _ok_interval(x, lo_c, hi_c, lc, hc, m, z):
    """Branch-free interval test of one value; NaN (and, with ``z``, |x| <= _Z) is missing, sent by ``m``."""
    special = (x != x) | (z & (x >= -_Z) & (x <= _Z))
    inside = ((x > lo_c) | ((x == lo_c) & lc)) & ((x < hi_c) | ((x == hi_c) & hc))
    return (special & m) | ((not special) & inside)


@njit(cache=True, nogil=True, inline="always")
def _interval_of(c, lo, hi, lo_closed, hi_closed, missing, zero_missing):
    """Condition c's interval-test arguments of :func:`_ok_interval`, read once per column pass."""
    return lo[c], hi[c], lo_closed[c], hi_closed[c], missing[c], zero_missing[c]


@njit(cache=True, nogil=True, inline="always")
def _filter(X, rows, src, n_src, dst, c, feature, kind, lo, hi, lo_closed, hi_closed, missing, zero_missing,
            negate, cat_ptr, cats):
    """Write to dst the entries of src[:n_src] whose row rows[src[j]] satisfies condition c; return the count.

    Column-at-a-time and branch-free for intervals (a data-dependent branch per row
    made this loop ~20x slower); dst may be src (in-place compaction)."""
    f = feature[c]
    p = 0
    if kind[c] == 0:
        lo_c, hi_c, lc, hc, m, z = _interval_of(c, lo, hi, lo_closed, hi_closed, missing, zero_missing)
        for j in range(n_src):
            s = src[j]
            dst[p] = s
            p += _ok_interval(X[rows[s], f], lo_c, hi_c, lc, hc, m, z)
    else:
        for j in range(n_src):
            s = src[j]
            dst[p] = s  # p <= j: the entry at p was read already (or is this one)
            p += _ok_category(X[rows[s], f], c, missing, zero_missing, negate, cat_ptr, cats)
    return p


@njit(cache=True, nogil=True, inline="always")
def _partition(X, rows, src, n_src, dst_in, dst_out, c, feature, kind, lo, hi, lo_closed, hi_closed, missing,
               zero_missing, negate, cat_ptr, cats):
    """One pass: entries satisfying condition c to dst_in, the others to dst_out; returns the first count."""
    f = feature[c]
    p = 0
    q = 0
    if kind[c] == 0:
        lo_c, hi_c, lc, hc, m, z = _interval_of(c, lo, hi, lo_closed, hi_closed, missing, zero_missing)
        for j in range(n_src):
            s = src[j]
            ok = _ok_interval(X[rows[s], f], lo_c, hi_c, lc, hc, m, z)
            dst_in[p] = s
            dst_out[q] = s
            p += ok
            q += not ok
    else:
        for j in range(n_src):
            s = src[j]
            if _ok_category(X[rows[s], f], c, missing, zero_missing, negate, cat_ptr, cats):
                dst_in[p] = s
                p += 1
            else:
                dst_out[q] = s
                q += 1
    return p


@njit(cache=True, nogil=True, inline="always")
def _filter_rule(X, rows, cur, k, r, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed, hi_closed, missing,
                 zero_missing, negate, cat_ptr, cats):
    """Keep in cur[:k] (in place) the entries whose row satisfies every condition of rule r; return the count."""
    for q in range(rule_ptr[r], rule_ptr[r + 1]):
        k = _filter(X, rows, cur, k, cur, rule_cond[q], feature, kind, lo, hi, lo_closed, hi_closed, missing,
                    zero_missing, negate, cat_ptr, cats)
    return k


@njit(cache=True, nogil=True)
def _first_match_block(X, row_start, row_stop, out, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed,
                       hi_closed, missing, zero_missing, negate, cat_ptr, cats):
    """out[i] = first rule covering row i, for rows row_start..row_stop-1 (out preset to -1).

    Serial and GIL-free: :func:`first_match` runs blocks of rows in threads (a numba
    ``parallel=True`` kernel cost ~3 s more of first-call compile for the same speed-up).
    """
    n_rules = rule_ptr.shape[0] - 1
    chunk = 16384
    m = min(chunk, row_stop - row_start)
    rows = np.empty(m, np.int64)
    active = np.empty(m, np.int64)
    cur = np.empty(m, np.int64)
    for start in range(row_start, row_stop, chunk):
        stop = min(row_stop, start + chunk)
        n_act = stop - start
        for j in range(n_act):
            rows[j] = start + j
            active[j] = j
        for r in range(n_rules):
            if n_act == 0:
                break
            for j in range(n_act):  # a loop, not a slice copy: the slice's shape-mismatch
                cur[j] = active[j]  # error message costs ~2 s of first-call compile
            k = _filter_rule(X, rows, cur, n_act, r, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed,
                             hi_closed, missing, zero_missing, negate, cat_ptr, cats)
            if k == 0:
                continue
            for j in range(k):
                out[start + cur[j]] = r
            p = 0
            for j in range(n_act):  # drop the rows this rule matched
                a = active[j]
                active[p] = a
                p += out[start + a] == -1
            n_act = p


@njit(cache=True, nogil=True)
def _coverage_block(X, row_start, row_stop, out, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed,
                    hi_closed, missing, zero_missing, negate, cat_ptr, cats):
    """out[i, r] = rule r covers row i, for rows row_start..row_stop-1 (out preset to False)."""
    n_rules = rule_ptr.shape[0] - 1
    chunk = 16384
    m = min(chunk, row_stop - row_start)
    rows = np.empty(m, np.int64)
    cur = np.empty(m, np.int64)
    for start in range(row_start, row_stop, chunk):
        stop = min(row_stop, start + chunk)
        for j in range(stop - start):
            rows[j] = start + j
        for r in range(n_rules):
            k = stop - start
            for j in range(k):
                cur[j] = j
            k = _filter_rule(X, rows, cur, k, r, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed, hi_closed,
                             missing, zero_missing, negate, cat_ptr, cats)
            for j in range(k):
                out[start + cur[j], r] = True


@njit(cache=True, nogil=True)
def _rule_mask_rows(X, rows, r, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed, hi_closed, missing,
                    zero_missing, negate, cat_ptr, cats):
    m = rows.shape[0]
    cur = np.arange(m)
    k = _filter_rule(X, rows, cur, m, r, rule_ptr, rule_cond, feature, kind, lo, hi, lo_closed, hi_closed, missing,
                     zero_missing, negate, cat_ptr, cats)
    out = np.zeros(m, np.bool_)
    for j in range(k):
        out[cur[j]] = True
    return out


@njit(cache=True, nogil=True, inline="always")
def _trie_walk(X, rows, W, out, node_start, node_stop, node_cond, node_depth, node_end, node_comp, term_ptr,
               term_rule, max_depth, feature, kind, lo, hi, lo_closed, hi_closed, missing, zero_missing, negate,
               cat_ptr, cats):
    # Depth-first walk of the condition trie: buf[d] holds the positions (into rows) satisfying
    # the path down to the current node at depth d, so a shared prefix is evaluated once. When
    # two siblings are complementary (the two sides of one split), one pass partitions the parent's
    # rows: node_comp = 1 (first of such a pair) keeps the other side in alt[d], 2 (second) reuses it.
    m = rows.shape[0]
    k = W.shape[1]
    buf = np.empty((max_depth + 1, m), np.int32)  # half the memory traffic of int64
    alt = np.empty((max_depth + 1, m), np.int32)
    cnt = np.zeros(max_depth + 1, np.int64)
    cnt_alt = np.zeros(max_depth + 1, np.int64)
    for j in range(m):
        buf[0, j] = j
    cnt[0] = m
    nd = node_start
    while nd < node_stop:
        d = node_depth[nd]
        if node_comp[nd] == 2 and nd != node_start:  # (a group may start at the second of a pair)
            p = cnt_alt[d]
            for j in range(p):  # a loop, not a slice copy (see _first_match_block)
                buf[d, j] = alt[d, j]
        elif node_comp[nd] == 1:
            p = _partition(X, rows, buf[d - 1], cnt[d - 1], buf[d], alt[d], node_cond[nd], feature, kind, lo, hi,
                           lo_closed, hi_closed, missing, zero_missing, negate, cat_ptr, cats)
            cnt_alt[d] = cnt[d - 1] - p
        else:
            p = _filter(X, rows, buf[d - 1], cnt[d - 1], buf[d], node_cond[nd], feature, kind, lo, hi, lo_closed,
                        hi_closed, missing, zero_missing, negate, cat_ptr, cats)
        cnt[d] = p
        if p == 0:
            nd = node_end[nd]  # nothing reaches this node: skip its subtree
            continue
        for t in range(term_ptr[nd], term_ptr[nd + 1]):
            rule = term_rule[t]
            for j in range(p):
                r = buf[d, j]
                for q in range(k):
                    out[rule, q] += W[r, q]
        nd += 1


@njit(cache=True, nogil=True)
def _trie_sums_range(X, rows, W, out, node_start, node_stop, node_cond, node_depth, node_end, node_comp, term_ptr,
                     term_rule, max_depth, feature, kind, lo, hi, lo_closed, hi_closed, missing, zero_missing, negate,
                     cat_ptr, cats):
    """Add to out the sums of the rules whose trie nodes are node_start..node_stop-1 (whole top-level
    subtrees); threads given disjoint ranges write disjoint rules of one out."""
    _trie_walk(X, rows, W, out, node_start, node_stop, node_cond, node_depth, node_end, node_comp, term_ptr,
               term_rule, max_depth, feature, kind, lo, hi, lo_closed, hi_closed, missing, zero_missing, negate,
               cat_ptr, cats)


_CAP = threading.local()  # this thread's cap on the threads of the kernels it starts (None: no cap)


def _n_threads() -> int:
    """Threads a kernel started from this thread may use: numba's count, at most one per core and at most the
    cap of :func:`threads_at_most`."""
    return threads_under(thread_cap())


def thread_cap():
    """This thread's cap (:func:`threads_at_most`): None, a count, or a callable giving the count now; a thread
    working for this one reads it with :func:`threads_under`."""
    return getattr(_CAP, "threads", None)


def threads_under(cap) -> int:
    """The threads a kernel may use under ``cap`` (:func:`thread_cap`): numba's count, at most one per core."""
    k = max(1, min(numba.get_num_threads(), os.cpu_count() or 1))
    if cap is None:
        return k
    return max(1, min(k, int(cap() if callable(cap) else cap)))


@contextmanager
def threads_at_most(k):
    """Within the block, kernels started from this thread use at most ``k`` threads (a count, or a callable giving
    the count when a kernel starts: a task's share of the cores among the tasks running then): a task of a pool
    that already runs one task per core would otherwise start more threads than there are cores, which costs time
    and gives the same results (every kernel's result is the same on any number of threads)."""
    old = getattr(_CAP, "threads", None)
    _CAP.threads = k if callable(k) else max(1, int(k))
    try:
        yield
    finally:
        _CAP.threads = old


def _in_threads(fn, ranges):
    """fn(a, b) for every (a, b) in ranges, in threads when there are several (the kernels release the GIL)."""
    if len(ranges) == 1:
        fn(*ranges[0])
        return
    with ThreadPoolExecutor(len(ranges)) as ex:
        list(ex.map(lambda ab: fn(*ab), ranges))


def _row_blocks(n) -> list:
    """Contiguous row ranges, one per thread for large n (a thread costs more than it saves on few rows)."""
    k = _n_threads() if n >= _THREAD_MIN_ROWS else 1
    cuts = np.linspace(0, n, k + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a] or [(0, 0)]


_THREAD_MIN_ROWS = 20000


def _layout(X) -> str:
    """Suffix of the AOT kernel variant for X's memory order."""
    return "f" if X.flags.f_contiguous else "c"


def first_match(X, cc: CompiledConditions) -> np.ndarray:
    """Index of the first rule covering each row, -1 if none."""
    out = np.full(X.shape[0], -1, np.int64)
    name = "first_match_block_" + _layout(X)
    _in_threads(lambda a, b: _aot.run(name, _first_match_block, X, a, b, out, cc.rule_ptr,
                                      cc.rule_cond, *cc.args),
                _row_blocks(X.shape[0]))
    return out


def coverage_matrix(X, cc: CompiledConditions) -> np.ndarray:
    out = np.zeros((X.shape[0], cc.rule_ptr.shape[0] - 1), np.bool_)
    name = "coverage_block_" + _layout(X)
    _in_threads(lambda a, b: _aot.run(name, _coverage_block, X, a, b, out, cc.rule_ptr,
                                      cc.rule_cond, *cc.args),
                _row_blocks(X.shape[0]))
    return out


def rule_mask_rows(X, rows, r, cc: CompiledConditions) -> np.ndarray:
    return _aot.run("rule_mask_rows", _rule_mask_rows, X, rows, r, cc.rule_ptr, cc.rule_cond, *cc.args)


def _complementary(a, b) -> bool:
    """True if every row satisfies exactly one of the conditions a, b."""
    if isinstance(a, Interval) and isinstance(b, Interval):
        if a.feature != b.feature or a.zero_missing != b.zero_missing or a.missing == b.missing:
            return False
        for u, v in ((a, b), (b, a)):
            if (u.lower == -math.inf and u.lower_closed and v.upper == math.inf and v.upper_closed
                    and u.upper == v.lower and u.upper_closed != v.lower_closed):
                return True
        return False
    if isinstance(a, CategorySet) and isinstance(b, CategorySet):
        return (a.feature == b.feature and a.codes == b.codes and a.negate != b.negate
                and a.missing != b.missing and a.strict_negative == b.strict_negative)
    return False


class ConditionTrie:
    """Prefix trie of the rules' condition sequences (their unmerged tree paths when known).

    Nodes are stored in preorder; ``node_end`` is the preorder index after a node's
    subtree. Rules from one tree share the conditions of their common ancestors.
    """

    def __init__(self, rules):
        seqs = [r.path if r.path is not None else r.conditions for r in rules]
        conds, cindex = [], {}
        children: list[dict] = [{}]
        terms: list[list] = [[]]
        for ri, seq in enumerate(seqs):
            node = 0
            for c in seq:
                k = c.key
                if k not in cindex:
                    cindex[k] = len(conds)
                    conds.append(c)
                ci = cindex[k]
                nxt = children[node].get(ci)
                if nxt is None:
                    nxt = len(children)
                    children[node][ci] = nxt
                    children.append({})
                    terms.append([])
                node = nxt
            terms[node].append(ri)
        self.root_rules = np.asarray(terms[0], dtype=np.int64)  # rules with no condition
        # preorder layout
        order, depth, cond, end = [], [], [], []
        stack = [(child, ci, 1) for ci, child in reversed(list(children[0].items()))]
        pos = {}
        while stack:
            node, ci, d = stack.pop()
            pos[node] = len(order)
            order.append(node)
            depth.append(d)
            cond.append(ci)
            for ci2, ch in reversed(list(children[node].items())):
                stack.append((ch, ci2, d + 1))
        n = len(order)
        self.node_cond = np.asarray(cond, dtype=np.int64)
        self.node_depth = np.asarray(depth, dtype=np.int64)
        # subtree end: next preorder node with depth <= own depth
        end = np.full(n, n, dtype=np.int64)
        stack_idx: list[int] = []
        for i in range(n):
            while stack_idx and depth[stack_idx[-1]] >= depth[i]:
                end[stack_idx.pop()] = i
            stack_idx.append(i)
        self.node_end = end
        # complementary consecutive siblings (both sides of one split): partition in one pass
        comp = np.zeros(n, dtype=np.int8)
        for node in [0] + order:
            kids = list(children[node].items())
            for (ca, a), (cb, b) in zip(kids, kids[1:]):
                if comp[pos[a]] == 0 and _complementary(conds[ca], conds[cb]):
                    comp[pos[a]], comp[pos[b]] = 1, 2
        self.node_comp = comp
        tp = [0]
        tr = []
        for node in order:
            tr.extend(terms[node])
            tp.append(len(tr))
        self.term_ptr = np.asarray(tp, dtype=np.int64)
        self.term_rule = np.asarray(tr, dtype=np.int64)
        self.max_depth = int(max(depth)) if depth else 0
        self.top = np.flatnonzero(self.node_depth == 1)
        self.cc = CompiledConditions(conds, [])
        self.n_rules = len(rules)

    def groups(self, n_groups: int) -> np.ndarray:
        """Split the top-level subtrees into n_groups contiguous preorder ranges of similar size."""
        n = len(self.node_cond)
        if n == 0:
            return np.zeros(1, np.int64)
        n_groups = max(1, min(n_groups, len(self.top)))
        sizes = np.diff(np.append(self.top, n))
        cum = np.cumsum(sizes)
        cuts = [0]
        for g in range(1, n_groups):
            cuts.append(int(self.top[np.searchsorted(cum, cum[-1] * g / n_groups)]))
        cuts.append(n)
        return np.unique(np.asarray(cuts, dtype=np.int64))

    def sums(self, X, rows, W) -> np.ndarray:
        """Per rule, the column sums of W over the rows (indices into X) the rule covers."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        W = np.ascontiguousarray(W, dtype=np.float64)
        out = np.zeros((self.n_rules, W.shape[1]))
        if len(self.node_cond):
            # groups of whole top-level subtrees own disjoint rules: threads write one out
            g = self.groups(_n_threads() if len(rows) >= _THREAD_MIN_ROWS else 1)
            _in_threads(lambda a, b: _aot.run("trie_sums_range", _trie_sums_range, X, rows, W, out, a, b,
                                              self.node_cond, self.node_depth, self.node_end, self.node_comp,
                                              self.term_ptr, self.term_rule, self.max_depth, *self.cc.args),
                        list(zip(g[:-1].tolist(), g[1:].tolist())))
        if len(self.root_rules):
            out[self.root_rules] += W.sum(axis=0)
        return out
