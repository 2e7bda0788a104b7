"""RuleSet.apply / predict_proba / predict / coverage on dask collections (lazy dask arrays with one row chunk
per partition of X), and ``evaluate`` in memory and on dask collections alike: the sums of one block of rows
(:func:`evaluate_part`) added by the one reduction (:func:`csboost_plugins._reduce.reduce_blocks`), over the
in-memory rows or over the partitions in one pass."""

from __future__ import annotations

import numpy as np

from .._dask_blocks import _blocks, _tree_sum
from .._reduce import Block, dask_partitions, reduce_blocks
from . import _engine
from ._report import (action_rule_sums, action_set_metrics, action_set_sums, action_table_from_sums, metrics_from_sums,
                      per_rule_sums, set_sums, table_from_sums)

__all__ = ["apply", "book_blocks", "book_part", "coverage", "evaluate", "evaluate_blocks", "evaluate_part",
           "memory_block", "overlap_counts", "predict", "predict_proba"]


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


def _overlap_part(xb, rs):
    from ._overlap import overlap_counts

    return (overlap_counts(rs.coverage(xb)),)


def overlap_counts(rs, X):
    """:func:`._overlap.overlap_counts` of a dask X, summed over its partitions on the workers."""
    from dask import delayed

    f, shared = delayed(_overlap_part, pure=True), delayed(rs, traverse=False)
    return _tree_sum([f(xb, shared) for xb in _blocks(X, "X")])[0]


# RuleSet.apply / predict_proba / predict / coverage on a dask X: lazy dask arrays, one row chunk per
# partition of X (int64 rule index, float64 probability, int64 0/1 alert, bool (n, n_rules) matrix).
def apply(rs, X):
    return _map_rows(rs, X, _apply_part, np.int64)


def predict_proba(rs, X):
    return _map_rows(rs, X, _proba_part, np.float64)


def predict(rs, X, limit):  # limit: the number of rules in force
    return _map_rows(rs, X, _predict_part, np.int64, limit)


def coverage(rs, X):
    return _map_rows(rs, X, _coverage_part, bool, ncols=len(rs.rules))


def evaluate_part(b, rs, per_rule):
    """A block's additive sums behind :meth:`RuleSet.evaluate` (a :class:`csboost_plugins._reduce.Block`, in
    memory or a dask partition): :func:`set_sums` or, with ``per_rule``, :func:`per_rule_sums`. SQL books go
    through the engine's bit masks (one pass gives the masks, the first match and the probabilities)."""
    prob = rs.rule_probabilities
    bits = _engine.rule_bits(rs, b.x) if rs._uses_engine else None
    first = _engine.first_match(bits) if bits is not None else None
    if per_rule and bits is not None:  # the per-rule sums read the masks, not each row's probability
        _check_rows(first.shape[0], b)
        return _engine.per_rule_sums(bits, first, b.y, b.w, b.costs, prob)
    p = np.append(prob, 0.0)[first] if bits is not None else rs.predict_proba(b.x)
    _check_rows(p.shape[0], b)
    if per_rule:
        return per_rule_sums(rs.coverage(b.x), rs.apply(b.x), b.y, b.w, b.costs, prob)
    return set_sums(p, b.y, b.w, b.costs)


def _check_rows(n, b):
    """ValueError when X's n rows are not y's."""
    if n != b.y.shape[0]:
        raise ValueError(f"X has {n} rows but y has {b.y.shape[0]}")


def evaluate_blocks(rs, blocks, per_rule):
    """:meth:`RuleSet.evaluate` (the dict, or the per-rule table) of the rule set ``rs`` (every rule in force as
    it is scored) from the sums of :func:`evaluate_part` over ``blocks`` (in memory or dask partitions)."""
    s = reduce_blocks(evaluate_part, blocks, shared=(rs, per_rule))
    return table_from_sums(rs, s) if per_rule else metrics_from_sums(s, len(rs.rules))


def book_part(b, rs, per_rule):
    """A block's additive sums behind :meth:`RuleSet.evaluate` of a rule book read top-down (first match wins):
    :func:`._report.action_set_sums` or, with ``per_rule``, :func:`._report.action_rule_sums`; the block's
    ``extra["decline_cost"]`` (None: ``C_FP``) prices a declined negative."""
    decline = (b.extra or {}).get("decline_cost")
    if decline is not None and not np.all(np.isfinite(decline)):
        raise ValueError("decline_cost must be finite (money per row of declining a legitimate customer)")
    if per_rule:
        cover = rs.coverage(b.x)
        if cover.shape[0] != b.n:
            raise ValueError(f"X has {cover.shape[0]} rows but y has {b.n}")
        return action_rule_sums(rs, cover, b.y, b.w, b.costs, decline)
    first = rs.apply(b.x)
    if first.shape[0] != b.n:
        raise ValueError(f"X has {first.shape[0]} rows but y has {b.n}")
    return action_set_sums(rs, first, b.y, b.w, b.costs, decline)


def book_blocks(rs, blocks, per_rule):
    """:meth:`RuleSet.evaluate` of the rule book ``rs`` read top-down, from the sums of :func:`book_part` over
    ``blocks`` (in memory or dask partitions)."""
    s = reduce_blocks(book_part, blocks, shared=(rs, per_rule))
    return action_table_from_sums(rs, s) if per_rule else action_set_metrics(s, len(rs.rules))


def memory_block(X, rows):
    """The :class:`csboost_plugins._reduce.Block` of in-memory rows read by ``read_rows``."""
    return Block(rows.n, x=X, y=rows.y, w=np.ones(rows.n) if rows.sample_weight is None else rows.sample_weight,
                 costs=rows.costs)


def evaluate(rs, X, y, *, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
             cost_matrix=None, per_rule=False, decline_cost=None, book=False):
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
    per_rule : bool, default False
        Return the per-rule table (from per-rule sums that add across partitions).
    decline_cost : float or dask Series / 1-D dask array, optional
        Money of declining a legitimate customer (a rule book's block), partitioned like X, or a scalar.
    book : bool, default False
        Read ``rs`` as a rule book, top-down, first match wins (its actions).

    Returns
    -------
    dict or pandas.DataFrame
        What :meth:`RuleSet.evaluate` returns on the same rows.
    """
    costs = {"fp_cost": fp_cost, "fn_cost": fn_cost, "tp_cost": tp_cost, "tn_cost": tn_cost,
             "cost_matrix": cost_matrix}
    has_costs = fn_cost is not None or fp_cost is not None or cost_matrix is not None
    if decline_cost is not None and not has_costs:
        raise TypeError("decline_cost needs the other costs: give fp_cost= and fn_cost= (or cost_matrix=)")
    columns = [("x", "X", X), ("y", "y", y), ("w", "sample_weight", sample_weight)]
    if book:
        columns.append(("decline_cost", "decline_cost", decline_cost))
    blocks = dask_partitions(columns, costs if has_costs else None)
    return book_blocks(rs, blocks, per_rule) if book else evaluate_blocks(rs, blocks, per_rule)
