"""RuleSet.apply / predict_proba / predict / coverage / evaluate on dask collections: lazy
dask arrays with one row chunk per partition of X, and one pass of additive per-partition sums
for ``evaluate``."""

from __future__ import annotations

import numpy as np

from .._dask_blocks import _blocks, _labels, _tree_sum, _weights_costs, cost_blocks

__all__ = ["apply", "coverage", "evaluate", "overlap_counts", "predict", "predict_proba"]


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


_EVAL = ("tp", "fp", "npos", "nneg", "ntot", "money_caught", "money_at_risk", "alert_cost", "cost",
         "cost_no_rules", "cost_flag_all")  # _report.set_sums


def _evaluate_part(xb, yb, wb, cost_parts, rs, cost_scalars, per_rule):
    """The partition's additive sums behind :meth:`RuleSet.evaluate`: ``_report.set_sums`` (keys in
    _EVAL) or, with ``per_rule``, ``_report.per_rule_sums``."""
    from ._report import per_rule_sums, set_sums

    n = len(xb)
    y = _labels(yb, n)
    w, c = _weights_costs(wb, cost_parts, cost_scalars, n)  # refused as in RuleSet.evaluate
    if per_rule:
        cover = rs.coverage(xb)  # read once: the first covering rule comes from the same matrix
        first = np.where(cover.any(axis=1), np.argmax(cover, axis=1), -1) if cover.shape[1] \
            else np.full(cover.shape[0], -1, np.int64)
        return per_rule_sums(cover, first, y, w, c, rs.rule_probabilities)
    s = set_sums(rs.predict_proba(xb), y, w, c)
    return (np.array([s.get(k, 0.0) for k in _EVAL]),)


def evaluate(rs, X, y, *, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
             cost_matrix=None, per_rule=False):
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

    Returns
    -------
    dict or pandas.DataFrame
        What :meth:`RuleSet.evaluate` returns on the same rows.
    """
    from dask import delayed

    from ._report import metrics_from_sums, table_from_sums

    costs = {"fp_cost": fp_cost, "fn_cost": fn_cost, "tp_cost": tp_cost, "tn_cost": tn_cost,
             "cost_matrix": cost_matrix}
    has_costs = fn_cost is not None or fp_cost is not None or cost_matrix is not None
    xs = _blocks(X, "X")
    k = len(xs)
    ys, ws = _blocks(y, "y", k), _blocks(sample_weight, "sample_weight", k)
    per_part, scalars = cost_blocks(costs if has_costs else None, k)
    f, shared = delayed(_evaluate_part, pure=True), delayed(rs, traverse=False)
    out = _tree_sum([f(xs[i], ys[i], ws[i], {name: b[i] for name, b in per_part.items()}, shared, scalars,
                       per_rule) for i in range(k)])
    if per_rule:
        return table_from_sums(rs, out)
    sums = dict(zip(_EVAL, out[0].tolist()))
    if not has_costs:
        sums = {k: sums[k] for k in ("tp", "fp", "npos", "nneg", "ntot")}
    return metrics_from_sums(sums, len(rs.rules))
