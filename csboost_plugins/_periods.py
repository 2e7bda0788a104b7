"""Money and alerts per period (day, week, ...): :func:`money_by_period`.

Every figure is a sum over the period's rows, so the table of a data set split in
partitions is the sum of the partitions' tables (dask collections are read in one pass).
The definitions are those of :meth:`csboost_plugins.rules.RuleSet.evaluate`, per period.
"""

from __future__ import annotations

import numpy as np

from ._reduce import period_codes
from ._rows import check_cost_keywords, dask_labels

__all__ = ["check_alpha", "money_by_period", "period_codes"]

# additive sums per period (columns of the (n_periods, len(_SUMS)) array a partition returns)
_SUMS = ("rows", "alerts", "npos", "tp", "fp", "money_caught", "alert_cost", "cost", "cost_no_alerts",
         "cost_flag_all")
_COLUMNS = ("rows", "alerts", "alert_rate", "tp", "fp", "recall", "precision", "money_caught", "alert_cost",
            "net_money", "savings")


def check_alpha(alpha):
    """``alpha`` as a float in (0, 1) (ValueError naming it otherwise)."""
    if isinstance(alpha, (bool, np.bool_)):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}") from None
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must lie in (0, 1) (the test's level), got {alpha!r}")
    return a


def period_sums(codes, k, y, d, w, costs):
    """(k, len(_SUMS)) additive sums per period code of decisions ``d`` (0/1) on labels ``y`` (0/1)."""
    from ._reduce import group_sums
    from .decision_costs import decision_costs, misclassification_costs

    pos, neg = w * (y == 1), w * (y == 0)
    terms = [w, (w, d), pos, (pos, d), (neg, d)]
    if costs is not None:
        caught, alert = misclassification_costs(costs)
        c0, c1 = decision_costs(y, costs)
        terms += [(pos * d, caught), (neg * d, alert), (w, np.where(d == 1, c1, c0)), (w, c0), (w, c1)]
    out = np.zeros((k, len(_SUMS)))
    out[:, :len(terms)] = group_sums(codes, k, terms)
    return out


def table_from_sums(labels, S, has_costs):
    """The DataFrame of :func:`money_by_period` from its sums (rows: sorted labels)."""
    import pandas as pd

    s = dict(zip(_SUMS, S.T))
    with np.errstate(invalid="ignore", divide="ignore"):
        cols = {"rows": s["rows"], "alerts": s["alerts"],
                "alert_rate": np.where(s["rows"] > 0, s["alerts"] / s["rows"], np.nan),
                "tp": s["tp"], "fp": s["fp"],
                "recall": np.where(s["npos"] > 0, s["tp"] / s["npos"], np.nan),
                "precision": np.where(s["alerts"] > 0, s["tp"] / s["alerts"], np.nan)}
        if has_costs:
            base = np.minimum(s["cost_no_alerts"], s["cost_flag_all"])
            cols.update(money_caught=s["money_caught"], alert_cost=s["alert_cost"],
                        net_money=s["money_caught"] - s["alert_cost"],
                        savings=np.where(base != 0, (base - s["cost"]) / np.abs(base), np.nan))
    return pd.DataFrame(cols, index=pd.Index(labels, name="period"))


def _has_costs(fp_cost, fn_cost, cost_matrix):
    return fp_cost is not None or fn_cost is not None or cost_matrix is not None


def money_by_period(y_true, y_pred, periods, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                    cost_matrix=None, sample_weight=None, pos_label=None):
    """Alerts, precision and money of 0/1 decisions, period by period.

    For the rows of period ``t`` (weights ``w_i``, 1 without ``sample_weight``; decisions
    ``d_i`` in {0, 1}; labels ``y_i``, 1 = positive), as :meth:`RuleSet.evaluate` for one
    period:

    - ``rows`` = sum w_i; ``alerts`` = sum w_i d_i; ``alert_rate`` = alerts / rows;
    - ``tp`` = sum w_i d_i y_i; ``fp`` = sum w_i d_i (1 - y_i); ``recall`` = tp / sum w_i y_i;
      ``precision`` = tp / alerts (NaN where the denominator is 0);
    - with costs (money, in the costs' own unit): ``money_caught`` = sum over flagged positives
      of w_i (C_FN - C_TP); ``alert_cost`` = sum over flagged negatives of w_i (C_FP - C_TN);
      ``net_money`` = money_caught - alert_cost, the money saved against raising no alert;
      ``savings`` = ``(Cost_l - Cost) / abs(Cost_l)`` (ECSDT eq. 5) with Cost the period's total cost
      and Cost_l the cheaper of "no alerts" and "flag all" in that period (NaN when 0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        0/1 labels (1 = positive, e.g. fraud), booleans / {-1, 1}, or any two labels with
        ``pos_label``.
    y_pred : array-like of shape (n_samples,)
        0/1 decisions (1 = alert), e.g. ``rules.predict(X)``, or labels of y_true (``est.predict(X)``),
        read with the same ``pos_label``.
    periods : array-like of shape (n_samples,)
        The period of each row (week number, date, ``"2026-W07"``, ...); no missing labels.
    fp_cost, fn_cost : float or array-like of shape (n_samples,), optional
        Money per row (``C_FP``, ``C_FN``); ``fn_cost`` needs ``fp_cost`` (0 when alerts cost
        nothing), else a ``TypeError``. Without any cost only the counting columns are returned
        (see "Cost keywords" in the costs guide).
    tp_cost, tn_cost : float or array-like of shape (n_samples,), default=0.0
        ``C_TP``, ``C_TN``.
    cost_matrix : array-like of shape (n_samples, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights (every count and money figure is a weighted sum).
    pos_label : int, float, bool, str or None, default=None
        The positive class: the label whose miss costs ``fn_cost``. None: 1 for labels
        {0, 1}, {-1, 1} or booleans; other labels (``"fraud"`` / ``"ok"``) need it, else a
        ``ValueError``. Pandas arguments must share one index (else a ``ValueError`` naming the
        argument).

    Returns
    -------
    pandas.DataFrame
        Indexed by period (``period``, sorted), columns ``rows``, ``alerts``, ``alert_rate``,
        ``tp``, ``fp``, ``recall``, ``precision`` and, with costs, ``money_caught``,
        ``alert_cost``, ``net_money``, ``savings``. Summing ``net_money`` over the periods
        gives ``RuleSet.evaluate``'s ``net_money`` on all rows.

    Notes
    -----
    Dask collections (y_true, y_pred, periods, weights and per-row costs partitioned alike;
    0/1 labels) are read in one pass: each partition's per-period sums are added.
    """
    from ._dask_blocks import is_dask
    from ._reduce import Block, dask_partitions, reduce_blocks

    has_costs = _has_costs(fp_cost, fn_cost, cost_matrix)
    check_cost_keywords(fp_cost, fn_cost, cost_matrix, tp_cost, tn_cost)
    costs = dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
    if is_dask(y_true) or is_dask(y_pred) or is_dask(periods):
        blocks = dask_partitions([("periods", "periods", periods), ("y", "y_true", dask_labels(y_true, pos_label)),
                                  ("d", "y_pred", y_pred), ("w", "sample_weight", sample_weight)],
                                 costs if has_costs else None)
    else:
        y, d, w, c = _prepare(y_true, y_pred, periods, sample_weight, costs if has_costs else None, pos_label)
        codes, labels = period_codes(periods, y.shape[0])
        blocks = [Block(y.shape[0], y=y, w=w, costs=c, codes=codes, labels=labels, d=d)]
    return table_from_sums(*reduce_blocks(_period_part, blocks, by_label=True), has_costs)


def _period_part(b):
    """A block's ``(labels, sums)`` for :func:`money_by_period`."""
    return b.labels, period_sums(b.codes, len(b.labels), b.y, b.d, b.w, b.costs)


def _prepare(y_true, y_pred, periods, sample_weight, costs, pos_label=None):
    """Validated (y 0/1, decisions 0/1, weights, cost array or None) of in-memory arguments."""
    from ._validation import _BinaryLabels, _scores
    from .costs import check_costs, check_same_index
    from ._validation import check_sample_weight

    named = [("y_true", y_true), ("y_pred", y_pred), ("periods", periods), ("sample_weight", sample_weight)]
    check_same_index(named + list((costs or {}).items()))
    if hasattr(y_pred, "to_numpy"):
        y_pred = y_pred.to_numpy()
    labels = _BinaryLabels(y_true, y_pred, pos_label)
    y = labels.y01
    n = y.shape[0]
    d = _scores(labels.decisions(y_pred), "y_pred", column=None)
    if d.shape[0] != n:
        raise ValueError(f"y_pred has {d.shape[0]} rows but y_true has {n}")
    if not np.all((d == 0) | (d == 1)):
        raise ValueError("y_pred must hold 0/1 decisions (1 = alert)")
    w = np.ones(n) if sample_weight is None else check_sample_weight(sample_weight, n)
    c = None if costs is None else check_costs(n, **costs)
    return y, d, w, c
