"""Rule selection and rule-set evaluation on dask collections (data larger than memory).

Everything RIFF needs from the rows adds across partitions: a greedy step of
:func:`riff_select` needs per candidate the weight sums (money, negatives,
positives, all) over the rows no selected rule covers yet, and the totals of the
rows the newly selected rule takes. So the client keeps the (n_candidates, 4)
table of sums and each step is **one pass** over the persisted partitions: every
partition, on its worker, runs the compiled kernels of :mod:`._evaluate`
(first matching rule among the selected ones, then the condition-trie sums over
the rows the new rule took) and returns two small arrays, summed pairwise on the
workers. The client never holds the data (no ``compute()`` / ``np.asarray`` of X).

Passes: 1 (totals and the candidates' sums over all rows) + 1 per selected rule.
Persist the data first (``ddf = ddf.persist()``, X, y and costs as columns of it; with
a memory limit below its size the workers spill partitions to disk): this module does
not persist, since persisting column projections of a persisted frame would copy them,
and an unpersisted collection is re-read from its source at every pass.
A partition is stateless between passes (it recomputes which of its rows the
selected rules cover, a first-match over at most ``len(selected)`` rules), so
passes can run on any worker and survive worker loss.

With integer weights (counts, integer amounts) every sum is exact, so the
selection equals the in-memory one bit for bit; with float money the sums may
differ in the last bits from the in-memory order of additions.
"""

from __future__ import annotations

import sys

import numpy as np

from ..costs import check_costs
from ._data import as_float_matrix, check_sample_weight
from ._evaluate import ConditionTrie, compile_conditions, first_match
from ._greedy import NEG, POS, greedy, row_weights, selection_stats

__all__ = ["apply", "coverage", "evaluate", "is_dask", "predict", "predict_proba", "riff_select"]



def is_dask(X) -> bool:
    """Whether X is a dask collection (checked without importing dask when it is not loaded).

    Parameters
    ----------
    X : object
        Any input.

    Returns
    -------
    bool
        True for dask DataFrames, Series, arrays and other dask collections.
    """
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(X)


# ----------------------------------------------------------------- partitions
def _blocks(v, name, n_parts=None):
    """The partitions of v as a list of dask Delayed (2-D arrays: row blocks with all columns);
    a scalar or None is repeated for every partition."""
    if not is_dask(v):
        if v is None or np.ndim(v) == 0:
            return [v] * (n_parts or 1)
        raise TypeError(f"{name} must be a dask collection partitioned like X (or a scalar), got "
                        f"{type(v).__name__}: an in-memory array cannot be matched to X's partitions")
    if hasattr(v, "divisions"):  # dask DataFrame / Series
        parts = list(v.to_delayed())
    else:  # dask array: row blocks only
        if v.ndim == 2:
            v = v.rechunk({1: -1})
            parts = list(v.to_delayed()[:, 0])
        elif v.ndim == 1:
            parts = list(v.to_delayed())
        else:
            raise ValueError(f"{name} must be 1-D or 2-D, got {v.ndim}-D")
    if n_parts is not None and len(parts) != n_parts:
        raise ValueError(f"{name} has {len(parts)} partitions but X has {n_parts}; partition them alike")
    return parts


def _values(v, name, n):
    """A partition's 1-D float64 values (a scalar is broadcast), checked to have n rows."""
    if v is None:
        return None
    a = np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float64)
    if a.ndim == 0:
        return np.full(n, float(a))
    a = a.reshape(-1)
    if a.shape[0] != n:
        raise ValueError(f"a partition of {name} has {a.shape[0]} rows but the matching partition of X has {n}")
    return a


def _labels(yb, n):
    y = _values(yb, "y", n)
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must hold 0/1 labels (or booleans) when X is a dask collection")
    return y


def _part_data(xb, yb, wb, mb, candidates, names):
    Xf = as_float_matrix(xb, candidates, feature_names=names, order="F")
    n = Xf.shape[0]
    return Xf, row_weights(_labels(yb, n), _values(wb, "sample_weight", n), _values(mb, "fn_cost", n))


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


def _first_pass(xb, yb, wb, mb, candidates, names, trie):
    """(candidates' sums over all rows of the partition, the partition's weight totals)."""
    trie = _aligned(trie)
    Xf, W = _part_data(xb, yb, wb, mb, candidates, names)
    return trie.sums(Xf, np.arange(Xf.shape[0], dtype=np.int64), W), W.sum(axis=0)


def _step_pass(xb, yb, wb, mb, candidates, names, trie, chosen):
    """(candidates' sums over the rows the last chosen rule newly covers, their weight totals).

    Only the chosen rules' columns are converted for the first match; the candidates'
    columns only for the newly covered rows (a small share of the partition).
    """
    trie = _aligned(trie)
    used = sorted({c.feature for r in chosen for c in r.conditions})
    Xu = as_float_matrix(xb, chosen, feature_names=names, order="F", columns=used)
    fm = first_match(Xu if used else np.zeros((Xu.shape[0], 1)),
                     compile_conditions(chosen, {j: k for k, j in enumerate(used)}))
    n = fm.shape[0]
    new = np.flatnonzero(fm == len(chosen) - 1)
    Wn = row_weights(_labels(yb, n), _values(wb, "sample_weight", n), _values(mb, "fn_cost", n))[new]
    sub = xb.iloc[new] if hasattr(xb, "iloc") else np.asarray(xb)[new]
    Xn = as_float_matrix(sub, candidates, feature_names=names, order="F")
    return trie.sums(Xn, np.arange(new.shape[0], dtype=np.int64), Wn), Wn.sum(axis=0)


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def _tree_sum(parts):
    """Pairwise sum of per-partition results on the workers: only one small result reaches the client."""
    from dask import delayed

    add = delayed(_add, pure=True)
    while len(parts) > 1:
        parts = [add(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0].compute()


class _Passes:
    """Runs per-partition functions over the persisted collections and counts the passes."""

    def __init__(self, X, y, sample_weight, fn_cost):
        # not persisted here: persisting column projections of a persisted frame would copy them;
        # the caller persists (or each pass re-reads the source, still one pass per step)
        self.xs = _blocks(X, "X")
        k = len(self.xs)
        self.ys = _blocks(y, "y", k)
        self.ws = _blocks(sample_weight, "sample_weight", k)
        self.ms = _blocks(fn_cost, "fn_cost", k)
        self.count = 0
        self._shared = {}

    def shared(self, obj):
        """obj as one graph node of each pass (sent once per pass, not once per partition). Not
        scattered: scattered data is lost with its worker, a graph node is sent again."""
        from dask import delayed

        if id(obj) not in self._shared:
            self._shared[id(obj)] = (obj, delayed(obj, traverse=False))
        return self._shared[id(obj)][1]

    def run(self, fn, *consts):
        from dask import delayed

        f = delayed(fn, pure=True)
        args = [self.shared(c) for c in consts]
        self.count += 1
        return _tree_sum([f(x, y, w, m, *args) for x, y, w, m in zip(self.xs, self.ys, self.ws, self.ms)])


def _n_columns(X):
    return X.shape[1] if not hasattr(X, "columns") else len(X.columns)


def riff_select(candidates, X, y, *, criterion, budget, sample_weight=None, fn_cost=None, max_rules=None,
                precision_prior=0.0):
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
    criterion : {"fpr", "alert_rate"}
        What the budget bounds.
    budget : float
        The rate budget in (0, 1].
    sample_weight : dask Series or 1-D dask array, optional
        Row weights, partitioned like X.
    fn_cost : dask Series, 1-D dask array or float, optional
        Money at stake on positives (C_FN), partitioned like X; ranks by money precision.
    max_rules : int, optional
        Cap on the number of rules.
    precision_prior : float >= 0, default 0
        Pseudo-rows of the shrunk precision, as in :func:`csboost_plugins.rules.riff_select`.

    Returns
    -------
    order : list of int
        Chosen candidates in order: the same as the in-memory selection on the same rows.
    rho : float
        Probability of the last rule.
    selection : dict
        The selection statistics; ``selection["passes"]`` is the number of passes over the data.
    """
    if y is None:
        raise ValueError("y is required")
    names = next((r.feature_names for r in candidates if r.feature_names is not None), None)
    need = max((c.feature for r in candidates for c in r.conditions), default=-1)
    if need >= _n_columns(X):
        raise ValueError(f"X has {_n_columns(X)} columns but the candidates use column index {need}")

    passes = _Passes(X, y, sample_weight, fn_cost)
    trie = ConditionTrie(candidates)
    S, totals = passes.run(_first_pass, candidates, names, trie)
    if totals[NEG] <= 0 or totals[POS] <= 0:
        raise ValueError("y (with sample_weight) must have positive weight on both classes")
    step = {}

    def cover(r, remaining):
        step.setdefault("order", []).append(r)
        dS, took = passes.run(_step_pass, candidates, names, trie, [candidates[i] for i in step["order"]])
        return took, dS

    order, prefix, rho = greedy(S, totals, criterion, budget, max_rules, cover, precision_prior=precision_prior)
    sel = selection_stats(order, prefix, rho, totals, criterion, budget, len(candidates), fn_cost is not None)
    sel["passes"] = passes.count
    return order, rho, sel


# ----------------------------------------------------------------- RuleSet on dask
def _map_rows(rs, X, fn, dtype, *args, ncols=None):
    """``fn(rs, partition, *args)`` for every partition of X, as a lazy dask array (rows: X's partitions)."""
    import dask.array as da
    from dask import delayed

    f = delayed(fn, pure=True)
    shared = delayed(rs, traverse=False)
    shape = (np.nan,) if ncols is None else (np.nan, ncols)
    return da.concatenate([da.from_delayed(f(shared, xb, *args), shape=shape, dtype=dtype)
                           for xb in _blocks(X, "X")])


def _apply_part(rs, xb):
    return rs.apply(xb)


def _proba_part(rs, xb):
    return rs.predict_proba(xb)


def _predict_part(rs, xb, limit):
    fm = rs.apply(xb)
    return ((fm >= 0) & (fm < limit)).astype(np.int64)


def _coverage_part(rs, xb):
    return rs.coverage(xb)


def apply(rs, X):
    """Index of the first rule covering each row (-1: none), partition by partition.

    Parameters
    ----------
    rs : RuleSet
        The rules.
    X : dask DataFrame or 2-D dask array
        The rows.

    Returns
    -------
    dask array of int64, shape (n,)
        Lazy; one chunk per partition of X.
    """
    return _map_rows(rs, X, _apply_part, np.int64)


def predict_proba(rs, X):
    """Alert probabilities (1, rho or 0), partition by partition.

    Parameters
    ----------
    rs : RuleSet
        The rules.
    X : dask DataFrame or 2-D dask array
        The rows.

    Returns
    -------
    dask array of float64, shape (n,)
        Lazy; one chunk per partition of X.
    """
    return _map_rows(rs, X, _proba_part, np.float64)


def predict(rs, X, limit):
    """0/1 alerts: a rule among the first ``limit`` covers the row.

    Parameters
    ----------
    rs : RuleSet
        The rules.
    X : dask DataFrame or 2-D dask array
        The rows.
    limit : int
        Number of rules in force (the last one dropped or kept by ``RuleSet.predict``).

    Returns
    -------
    dask array of int64, shape (n,)
        Lazy; one chunk per partition of X.
    """
    return _map_rows(rs, X, _predict_part, np.int64, limit)


def coverage(rs, X):
    """Which rules cover which rows, partition by partition.

    Parameters
    ----------
    rs : RuleSet
        The rules.
    X : dask DataFrame or 2-D dask array
        The rows.

    Returns
    -------
    dask array of bool, shape (n, n_rules)
        Lazy; one row chunk per partition of X.
    """
    return _map_rows(rs, X, _coverage_part, bool, ncols=len(rs.rules))


_EVAL = ("tp", "fp", "npos", "nneg", "ntot", "money_caught", "money_at_risk", "alert_cost", "cost",
         "cost_no_rules", "cost_flag_all")  # _report.set_sums


def _evaluate_part(xb, yb, wb, cost_parts, rs, cost_scalars):
    """The partition's additive sums behind :meth:`RuleSet.evaluate` (``_report.set_sums``, keys in _EVAL)."""
    from ._report import set_sums

    p = rs.predict_proba(xb)
    n = p.shape[0]
    y = _labels(yb, n)
    w = _values(wb, "sample_weight", n)
    w = np.ones(n) if w is None else check_sample_weight(w, n)  # refused as in RuleSet.evaluate
    c = None
    if cost_scalars is not None:
        kw = dict(cost_scalars)
        for k, v in cost_parts.items():
            kw[k] = np.asarray(v, dtype=np.float64) if k == "cost_matrix" else _values(v, k, n)
        c = check_costs(n, **kw)
    s = set_sums(p, y, w, c)
    return (np.array([s.get(k, 0.0) for k in _EVAL]),)


def evaluate(rs, X, y, *, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
             cost_matrix=None) -> dict:
    """:meth:`RuleSet.evaluate` on dask collections: one pass, per-partition sums added on the workers.

    Parameters
    ----------
    rs : RuleSet
        The rules.
    X : dask DataFrame or 2-D dask array
        The rows.
    y : dask Series or 1-D dask array
        0/1 labels, partitioned like X.
    sample_weight : dask Series or 1-D dask array, optional
        Row weights, partitioned like X.
    fp_cost, fn_cost, tp_cost, tn_cost : float or dask Series / 1-D dask array, optional
        Per-row costs (money), partitioned like X, or scalars.
    cost_matrix : 2-D dask array, optional
        [C_FP, C_FN, C_TP, C_TN] per row, row chunks like X.

    Returns
    -------
    dict
        The keys and values of :meth:`RuleSet.evaluate` on the same rows.
    """
    from dask import delayed

    costs = {"fp_cost": fp_cost, "fn_cost": fn_cost, "tp_cost": tp_cost, "tn_cost": tn_cost,
             "cost_matrix": cost_matrix}
    has_costs = fn_cost is not None or fp_cost is not None or cost_matrix is not None
    if has_costs and fp_cost is None and cost_matrix is None:
        costs["fp_cost"] = 0.0
    xs = _blocks(X, "X")
    k = len(xs)
    ys, ws = _blocks(y, "y", k), _blocks(sample_weight, "sample_weight", k)
    per_part = {name: _blocks(v, name, k) for name, v in costs.items() if has_costs and is_dask(v)}
    scalars = {name: v for name, v in costs.items() if not is_dask(v)} if has_costs else None
    f, shared = delayed(_evaluate_part, pure=True), delayed(rs, traverse=False)
    (s,) = _tree_sum([f(xs[i], ys[i], ws[i], {name: b[i] for name, b in per_part.items()}, shared, scalars)
                      for i in range(k)])
    from ._report import metrics_from_sums

    sums = dict(zip(_EVAL, s.tolist()))
    if not has_costs:
        sums = {k: sums[k] for k in ("tp", "fp", "npos", "nneg", "ntot")}
    return metrics_from_sums(sums, len(rs.rules))
