"""Rule selection on dask collections (data larger than memory).

Everything RIFF needs from the rows adds across partitions: a greedy step of
:func:`riff_select` needs per candidate the weight sums (money, negatives,
positives, all) over the rows no selected rule covers yet, and the totals of the
rows the newly selected rule takes. So the client keeps the (n_candidates, 4)
table of sums and each step is **one pass** over the persisted partitions: every
partition, on its worker, runs the compiled kernels of :mod:`._evaluate` and
returns two small arrays, which the client adds. The client never holds the data
(no ``compute()`` / ``np.asarray`` of X).

Passes: 1 (totals and the candidates' sums over all rows) + 1 per selected rule.
What a step pass costs per partition is what the in-memory step costs on its rows:
the new rule's conditions on the partition's uncovered rows, then the condition
trie on the rows it takes. The uncovered-row mask of each partition stays on the
worker that ran the partition's previous pass (a module dict keyed by the
selection's id and the partition, tagged with the number of rules it has taken
off); where it is missing or stale (another worker, a worker restarted, a task
retried) the pass recomputes it from the selected rules (a first match over them),
so any worker can run any pass and the result is the same. The condition trie is
sent to the workers once (scattered to every worker; scattered again if all its
copies are lost), not with every pass. On a distributed cluster, each partition's
task is submitted to the worker holding the persisted partition (no partition moves;
without persisted partitions or a distributed client the passes run as task graphs),
and column selections of one frame (``ddf[features]``, ``ddf["y"]``, ...) are read
from the frame's partitions, not copied per pass.

Persist the data first (``ddf = ddf.persist()``, X, y and costs as columns of it; with
a memory limit below its size the workers spill partitions to disk): this module does
not persist, since persisting column projections of a persisted frame would copy them,
and an unpersisted collection is re-read from its source at every pass.

With integer weights (counts, integer amounts) every sum is exact, so the
selection equals the in-memory one bit for bit; with float money the sums may
differ in the last bits from the in-memory order of additions.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time
import uuid

import numpy as np

from ..costs import check_costs
from .._dask_blocks import _BLOCK, _add, _blocks, _labels, _tree_sum, _values, is_dask
from ._data import _generated_names, _positions_by_name, as_float_matrix, collect_categories
from ._evaluate import ConditionTrie, compile_conditions, first_match, rule_mask_rows
from ._greedy import N_COLUMNS, NEG, POS, greedy, row_weights, selection_stats
from ._dask_simplify import simplify_selection
from ._scores import make_score, resolve_prior

__all__ = ["riff_select"]

_SCATTER_TRIES = 5  # attempts at scattering the context while workers die (waits 0.1 s, 0.2 s, ... between)


def _projection(v):
    """(parent expression, column label(s)) if v is a column selection of a dask DataFrame, else None."""
    expr = getattr(v, "expr", None)
    if expr is None or type(expr).__name__ != "Projection":
        return None
    return expr.frame, expr.operand("columns")


def _common_frame(X, others, names):
    """When X (columns matched by name) and the dask ones of ``others`` are column selections of one
    dask DataFrame: (that frame, the column each of ``others`` reads, None for the non-dask ones), so a
    pass reads the frame's partitions as they are, instead of a column copy of each (the selections'
    own tasks) per pass. None otherwise."""
    px = _projection(X)
    if px is None or names is None or not set(map(str, names)) <= set(map(str, X.columns)):
        return None
    picks = []
    for v in others:
        if not is_dask(v):
            picks.append(None)
            continue
        pv = _projection(v)
        if pv is None or pv[0]._name != px[0]._name or isinstance(pv[1], (list, tuple, slice)):
            return None
        picks.append(pv[1])
    from dask.dataframe.dask_expr import new_collection

    return new_collection(px[0]), picks


def _partition_futures(v):
    """The partitions of a persisted dask collection as distributed futures in partition order
    (None when v is not read straight from persisted partitions: a pass then runs its graph)."""
    from distributed import futures_of

    expr = getattr(v, "expr", None)
    if expr is not None:
        if type(expr).__name__ != "FromGraph":  # dask DataFrame: only a persisted one as it is
            return None
        keys = list(expr.operand("keys"))
    else:
        if getattr(v, "ndim", 0) == 2 and v.numblocks[1] != 1:
            return None
        from dask.core import flatten

        keys = list(flatten(v.__dask_keys__()))
    have = {f.key: f for f in futures_of(v)}
    if not keys or any(key not in have for key in keys):
        return None
    return [have[key] for key in keys]

def _rows(xb, a, b):
    """Rows a..b-1 of a partition (a view)."""
    return xb.iloc[a:b] if hasattr(xb, "iloc") else xb[a:b]


def _take(v, idx):
    """Rows idx of a partition (None and scalars as they are)."""
    if v is None or np.ndim(v) == 0:
        return v
    return v.iloc[idx] if hasattr(v, "iloc") else np.asarray(v)[idx]


def _aligned(obj):
    """obj with its array attributes (and those of its CompiledConditions) aligned, writeable copies
    where they are not: arrays unpickled from a worker's network frames may be neither, which the
    AOT kernels refuse (they would fall back to the JIT)."""
    for k, v in list(vars(obj).items()):
        if isinstance(v, np.ndarray) and not (v.flags.aligned and v.flags.writeable and v.flags.c_contiguous):
            setattr(obj, k, np.array(v, copy=True))
        elif hasattr(v, "rule_ptr"):
            _aligned(v)
    return obj


class _Categories:
    """Stands in for the candidates in :func:`as_float_matrix` (it reads only their categories)."""

    def __init__(self, rules):
        self.categories = collect_categories(rules)


class _Context:
    """What every pass needs besides the rows: the candidates' condition trie and how to read X.
    Sent to the workers once (a worker may spill it to disk and read it back: its arrays are made
    kernel-ready, :func:`_aligned`, after every unpickling)."""

    def __init__(self, candidates, names):
        self.trie = ConditionTrie(candidates)
        self.cats = [_Categories(candidates)]
        self.names = names
        self.picks = (None, None, None)  # y, sample_weight, fn_cost: column of the partition given for them
        self.cost_scalars = None  # (C_FP, C_TP, C_TN) when ranking by money (fn_cost per row)

    def read(self, xb, yb, wb, mb):
        """The partition's X, y, sample_weight and fn_cost (picked from one frame's partition, see
        :func:`_common_frame`)."""
        return (xb, *(v if c is None else v[c] for v, c in zip((yb, wb, mb), self.picks)))

    def weights(self, yb, wb, mb, n):
        """The selection's per-row weights (:func:`row_weights`) of n rows of a partition."""
        costs = None
        if self.cost_scalars is not None:
            fp, tp, tn = self.cost_scalars
            costs = check_costs(n, fp_cost=fp, fn_cost=_values(mb, "fn_cost", n), tp_cost=tp, tn_cost=tn, warn=False)
        return row_weights(_labels(yb, n), _values(wb, "sample_weight", n), costs)

    def matrix(self, xb, columns=None):
        """float64 Fortran-order matrix of the partition's rows (the rule columns ``columns``, default all)."""
        return as_float_matrix(xb, self.cats, feature_names=self.names, order="F", columns=columns)

    def __setstate__(self, state):
        self.__dict__.update(state)
        _aligned(self.trie)

    def sums(self, X, W):
        """Per candidate, the column sums of W over the rows of X that it covers (row blocks of _BLOCK:
        the trie walk's buffers grow with the rows)."""
        trie = self.trie
        out = np.zeros((trie.n_rules, W.shape[1]))
        for a in range(0, X.shape[0], _BLOCK):
            b = min(X.shape[0], a + _BLOCK)
            out += trie.sums(X, np.arange(a, b, dtype=np.int64), W[a:b])
        return out


# Per-partition state of a running selection, on the worker that ran the partition's last pass:
# (selection id, partition) -> (number of selected rules taken off, uncovered-row mask).
_STATE: dict = {}
_STATE_LOCK = threading.Lock()
# Ids of the selections closed here (most recent last, bounded): a task of a failed pass that was still
# queued or running when its selection closed must not store its mask after _forget dropped the state.
_CLOSED: dict = {}
_CLOSED_KEEP = 4096


def _forget(sid):
    """Drop a finished selection's partition state (run on every worker)."""
    with _STATE_LOCK:
        for key in [k for k in _STATE if k[0] == sid]:
            del _STATE[key]
        _CLOSED[sid] = None
        while len(_CLOSED) > _CLOSED_KEEP:
            del _CLOSED[next(iter(_CLOSED))]


def _store(sid, part, k, uncovered):
    """Keep a partition's mask for the next pass, unless the selection is closed already."""
    with _STATE_LOCK:
        if sid not in _CLOSED:
            _STATE[sid, part] = (k, uncovered)


def _covered_by(xb, ctx, rules):
    """Mask of the partition's rows that some of ``rules`` covers (first match over them, in row blocks)."""
    n = len(xb)
    covered = np.zeros(n, dtype=bool)
    if not rules:
        return covered
    used = sorted({c.feature for r in rules for c in r.conditions})
    cc = compile_conditions(rules, {j: k for k, j in enumerate(used)})
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        X = ctx.matrix(_rows(xb, a, b), used) if used else np.zeros((b - a, 1), order="F")
        covered[a:b] = first_match(X, cc) >= 0
    return covered


def _first_pass(xb, yb, wb, mb, ctx, sid, part):
    """(candidates' sums over all rows of the partition, the partition's weight totals, 0 recomputed
    states); the partition's state starts: no rule taken off, every row uncovered."""
    xb, yb, wb, mb = ctx.read(xb, yb, wb, mb)
    n = len(xb)
    W = ctx.weights(yb, wb, mb, n)
    S = np.zeros((ctx.trie.n_rules, N_COLUMNS))
    for a in range(0, n, _BLOCK):  # the float64 copy of the rows, a block at a time
        b = min(n, a + _BLOCK)
        S += ctx.sums(ctx.matrix(_rows(xb, a, b)), W[a:b])
    _store(sid, part, 0, np.ones(n, dtype=bool))
    return S, W.sum(axis=0), 0


def _step_pass(xb, yb, wb, mb, ctx, sid, part, chosen):
    """(candidates' sums over the rows the last chosen rule newly covers, their weight totals,
    1 if the partition's uncovered-row mask had to be recomputed else 0).

    The new rule's columns are converted for the partition (its conditions are tested on the
    uncovered rows only), the candidates' columns only for the rows it takes.
    """
    xb, yb, wb, mb = ctx.read(xb, yb, wb, mb)
    n = len(xb)
    k = len(chosen)
    with _STATE_LOCK:
        state = _STATE.get((sid, part))
    missed = state is None or state[0] != k - 1 or state[1].shape[0] != n
    uncovered = ~_covered_by(xb, ctx, chosen[:-1]) if missed else state[1]
    rule = chosen[-1]
    used = sorted({c.feature for c in rule.conditions})
    cc = compile_conditions([rule], {j: i for i, j in enumerate(used)})
    new = []
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        rows = np.flatnonzero(uncovered[a:b])
        X = ctx.matrix(_rows(xb, a, b), used) if used else np.zeros((b - a, 1), order="F")
        new.append(a + rows[rule_mask_rows(X, rows, 0, cc)])
    new = np.concatenate(new) if new else np.zeros(0, np.int64)
    dS, took, m = None, np.zeros(N_COLUMNS), new.shape[0]
    if m:
        Wn = ctx.weights(_take(yb, new), _take(wb, new), _take(mb, new), m)
        dS, took = ctx.sums(ctx.matrix(_take(xb, new)), Wn), Wn.sum(axis=0)
    uncovered[new] = False  # the mask changes only once the pass's sums are done (a failure leaves it valid)
    _store(sid, part, k, uncovered)
    return dS, took, int(missed)

def _client():
    """The distributed Client in use, or None (the local schedulers)."""
    if "distributed" not in sys.modules:
        return None
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        return None


class _Passes:
    """Runs per-partition functions over the persisted collections and counts the passes."""

    def __init__(self, X, y, sample_weight, fn_cost, ctx):
        # not persisted here: persisting column projections of a persisted frame would copy them;
        # the caller persists (or each pass re-reads the source, still one pass per step)
        common = _common_frame(X, (y, sample_weight, fn_cost), ctx.names)
        if common is not None:
            frame, ctx.picks = common
            X = frame  # every dask argument reads the frame's partitions
            y, sample_weight, fn_cost = (frame if is_dask(v) else v for v in (y, sample_weight, fn_cost))
        self.xs = _blocks(X, "X")
        k = len(self.xs)
        self.ys = _blocks(y, "y", k)
        self.ws = _blocks(sample_weight, "sample_weight", k)
        self.ms = _blocks(fn_cost, "fn_cost", k)
        self.count = self.recomputed = 0
        self.sid = uuid.uuid4().hex
        self.ctx, self.client, self._future = ctx, _client(), None
        # persisted inputs on a distributed cluster: each partition's task is submitted to the worker
        # holding the partition (its state lives there; nothing is stolen or moved)
        self.futures = self.where = None
        if self.client is not None:
            futs = [_partition_futures(v) if is_dask(v) else [v] * k for v in (X, y, sample_weight, fn_cost)]
            if all(f is not None and len(f) == k for f in futs):
                from distributed import wait

                wait(futs[0])  # (a persist may still be running) the first pass needs them anyway
                who = self.client.who_has(futs[0])
                self.futures = futs
                self.where = [list(who.get(f.key, ()))[:1] or None for f in futs[0]]

    def _shared_ctx(self):
        """The context as a future scattered to every worker (again if all its copies were lost);
        without a distributed client, as a graph node of the pass."""
        from dask import delayed

        if self.client is None:
            return delayed(self.ctx, traverse=False)
        if self._future is None or self._future.status != "finished":
            for attempt in range(_SCATTER_TRIES):
                try:
                    self._future = self.client.scatter(self.ctx, broadcast=True, hash=False)
                    break
                except Exception:  # a worker died meanwhile (CommClosedError, or the scheduler's
                    # replicate KeyError on the worker it just removed): scatter again to the workers left
                    if attempt == _SCATTER_TRIES - 1:
                        raise
                    time.sleep(0.1 * 2 ** attempt)
        return self._future

    def _sum_pass(self, fn, ctx, consts):
        """fn over every partition, the results summed."""
        if self.futures is not None:
            submit = self.client.submit
            parts = [submit(fn, x, y, w, m, ctx, self.sid, i, *consts, workers=self.where[i],
                            allow_other_workers=self.where[i] is not None, pure=False)
                     for i, (x, y, w, m) in enumerate(zip(*self.futures))]
            # the small results come to the client and are added there: one round trip per pass
            try:
                return functools.reduce(_add, self.client.gather(parts))
            finally:
                # released on the scheduler's ordered stream ahead of the next pass's tasks: a failed pass's
                # queued tasks need not run, and a worker lost later must not re-run a finished pass
                self.client.cancel(parts)
        from dask import delayed

        f = delayed(fn, pure=True)
        args = [delayed(c, traverse=False) for c in consts]
        return _tree_sum([f(x, y, w, m, ctx, self.sid, i, *args)
                          for i, (x, y, w, m) in enumerate(zip(self.xs, self.ys, self.ws, self.ms))])

    def run(self, fn, *consts):
        self.count += 1
        for attempt in (0, 1):
            ctx = self._shared_ctx()
            try:
                *out, missed = self._sum_pass(fn, ctx, consts)
                break
            except Exception:
                if attempt or self._future is None or self._future.status == "finished":
                    raise
                self._future = None  # the scattered context was lost with its workers: scatter it again
        self.recomputed += missed
        return out

    def close(self):
        """Drop the partitions' state and the scattered context."""
        if self.client is not None:
            with contextlib.suppress(Exception):  # a worker gone: its state went with it
                self.client.run(_forget, self.sid)
            if self._future is not None:
                self._future.release()
        _forget(self.sid)


def _n_columns(X):
    return X.shape[1] if not hasattr(X, "columns") else len(X.columns)


def riff_select(candidates, X, y, *, budget, sample_weight=None, fn_cost=None, cost_scalars=None,
                rank_by="precision", stop_unprofitable=True, max_rules=None, precision_prior=0.0, cuts="simple"):
    """:func:`csboost_plugins.rules.riff_select` on dask collections (see the module doc).

    Called by :func:`csboost_plugins.rules.riff_select` once it has validated the candidates
    and the budget.

    Parameters
    ----------
    candidates : list of Rule
        The candidate rules.
    X : dask DataFrame or 2-D dask array
        The selection set, partitioned by rows (persist it first).
    y : dask Series or 1-D dask array
        0/1 labels, partitioned like X.
    budget : Budget
        What the budget bounds and its rate (:class:`._greedy.Budget`).
    sample_weight : dask Series or 1-D dask array, optional
        Row weights, partitioned like X.
    fn_cost : dask Series, 1-D dask array or float, optional
        Money at stake on positives (C_FN), partitioned like X (the selection's costs, with
        ``cost_scalars``).
    cost_scalars : tuple of float, optional
        ``(C_FP, C_TP, C_TN)``, the validated scalar costs beside ``fn_cost``.
    rank_by : {"precision", "money"}, default "precision"
        The ranking score (:mod:`._scores`); "money" needs ``fn_cost``.
    stop_unprofitable : bool, default True
        With ``rank_by="money"``: never take a rule whose net money on the uncovered rows is <= 0.
    max_rules : int, optional
        Cap on the number of rules.
    precision_prior : float >= 0 or "auto", default 0
        Pseudo-rows of the shrunk precision, as in :func:`csboost_plugins.rules.riff_select`.
    cuts : {"simple", "model"}, default "simple"
        "simple": the selected rules simplified as in memory (human cuts, missing values said
        only where they occur, short rules: :mod:`._dask_simplify`, 3 more passes); "model":
        the model's cuts.

    Returns
    -------
    rules : list of Rule
        The selected rules in order: the same as the in-memory selection on the same rows.
    rho : float
        Probability of the last rule.
    selection : dict
        The selection statistics; ``selection["passes"]`` is the number of passes of the
        greedy selection (1 + 1 per selected rule), ``selection["simplify_passes"]`` that of
        the simplification, ``selection["recomputed_partitions"]`` how many partition passes
        found their uncovered-row mask missing or stale and recomputed it (0 when every
        partition stayed on its worker).
    missing : list of int or None
        With ``cuts="simple"``, the columns the rules read that have a missing value.
    """
    if y is None:
        raise ValueError("y is required")
    names = next((r.feature_names for r in candidates if r.feature_names is not None), None)
    need = max((c.feature for r in candidates for c in r.conditions), default=-1)
    if hasattr(X, "columns") and names is not None and not _generated_names(names):
        # matched by name, as in memory: name the missing columns (only X.columns is read)
        _positions_by_name(X, names, sorted({c.feature for r in candidates for c in r.conditions}))
    elif need >= _n_columns(X):
        raise ValueError(f"X has {_n_columns(X)} columns but the candidates use column index {need}")

    ctx = _Context(candidates, names)
    money = fn_cost is not None
    if money:
        ctx.cost_scalars = tuple(cost_scalars) if cost_scalars is not None else (0.0, 0.0, 0.0)
    passes = _Passes(X, y, sample_weight, fn_cost, ctx)
    try:
        S, totals = passes.run(_first_pass)
        if totals[NEG] <= 0 or totals[POS] <= 0:
            raise ValueError("y (with sample_weight) must have positive weight on both classes")
        precision_prior = resolve_prior(precision_prior, totals, budget, max_rules)
        score = make_score(rank_by, totals, budget, precision_prior)
        chosen, took = [], []

        def cover(r, remaining):
            chosen.append(candidates[r])
            dS, t = passes.run(_step_pass, list(chosen))
            took.append(t)
            return t, dS

        order, prefix, rho = greedy(S, totals, budget, max_rules, cover, score, stop_unprofitable=stop_unprofitable)
        sel = selection_stats(order, prefix, rho, totals, budget, len(candidates), money)
        sel["rank_by"] = rank_by
        rules, missing, n_select = [candidates[i] for i in order], None, passes.count
        if cuts == "simple":
            rules, rho, sel, missing = simplify_selection(passes, rules, rho, sel, np.reshape(took, (-1, N_COLUMNS)),
                                                          totals)
    finally:
        passes.close()
    sel["precision_prior"] = precision_prior
    sel["passes"] = n_select
    sel["simplify_passes"] = passes.count - n_select
    sel["recomputed_partitions"] = passes.recomputed
    return rules, rho, sel, missing
