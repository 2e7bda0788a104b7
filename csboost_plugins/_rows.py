"""One row reader for every public entry point that takes labelled rows: :func:`read_rows`.

The rule reports (``RuleSet.evaluate`` / ``monitor`` / ``diff``, ``riff_select``,
``simplify_rules``, ``optimize_rule_book``), ``money_by_period`` and the native data builders
read their rows here, so three policies are written once:

- **labels**: 0/1, -1/1 or booleans name the positive class themselves (1 / True); any other
  labels (``"fraud"`` / ``"ok"``, 1 / 2) need ``pos_label=`` (the label whose miss costs
  ``fn_cost``), else a ``ValueError`` asks for it. A label is never taken as positive from its
  sort order ("ok" sorts after "fraud", which would invert the money). ``y`` is returned as
  int64 0/1 with 1 = ``pos_label``.
- **index**: rows are matched by position. A pandas ``y``, weight, cost, ``periods`` or
  ``entity`` whose index differs from X's (from y's when X is absent) is a ``ValueError``
  naming the argument, never re-aligned and never read by position silently.
- **cost keywords**: ``fn_cost`` without ``fp_cost`` (and without ``cost_matrix``) is a
  ``TypeError`` (:func:`check_cost_keywords`): the cost of an alert is never guessed. No costs
  at all is allowed where the caller counts (``costs="optional"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._cost_columns import check_same_index, row_index
from ._validation import FN_COST_ALONE, check_sample_weight, costs_given, fit_labels

__all__ = ["Rows", "check_cost_keywords", "dask_labels", "read_labels", "read_rows"]


@dataclass(frozen=True)
class Rows:
    """The rows of one call, read once.

    Attributes
    ----------
    n : int
        Number of rows.
    index : pandas.Index or None
        X's index (y's when X is absent or not pandas).
    y : ndarray of shape (n,), int64, or None
        Labels as 0/1, 1 = ``pos_label`` (None when no y was given).
    classes : ndarray of shape (2,) or None
        ``[negative label, positive label]`` as given.
    sample_weight : ndarray of shape (n,) or None
        Row weights (None when not given).
    costs : ndarray of shape (n, 4) or None
        ``[C_FP, C_FN, C_TP, C_TN]`` (money per row), None without costs.
    periods, entity : array-like or None
        As given (their index checked).
    """

    n: int
    index: object
    y: np.ndarray | None
    classes: np.ndarray | None
    sample_weight: np.ndarray | None
    costs: np.ndarray | None
    periods: object = None
    entity: object = None


def check_cost_keywords(fp_cost=None, fn_cost=None, cost_matrix=None, tp_cost=0.0, tn_cost=0.0) -> None:
    """``TypeError`` (``FN_COST_ALONE``) when ``fn_cost`` is given without ``fp_cost`` nor ``cost_matrix``;
    ``TypeError`` naming them when ``tp_cost`` / ``tn_cost`` come without ``fp_cost`` and ``fn_cost``."""
    if cost_matrix is not None:
        return
    if fn_cost is not None and fp_cost is None:
        raise TypeError(FN_COST_ALONE)
    if fp_cost is None and fn_cost is None and costs_given(tp_cost=tp_cost, tn_cost=tn_cost):
        raise TypeError("missing costs: fp_cost, fn_cost (tp_cost / tn_cost were given: give fp_cost= and "
                        "fn_cost=, or cost_matrix=)")


def read_labels(y, pos_label=None, *, name="y", require_both=True):
    """``(y01, classes)`` of ``y`` with ``pos_label`` (:func:`csboost_plugins._validation.fit_labels`,
    labels that do not name the positive class refused without it). A lone label of ``pos_label``'s
    kind that is not ``pos_label`` ("ok" against "fraud", a day without fraud) is the negative class."""
    return fit_labels(y, pos_label, name=name, require_both=require_both, required=True, lone_negative=True)


def dask_labels(y, pos_label):
    """A dask ``y`` with ``pos_label``: ``y == pos_label`` as int64 0/1, partitioned alike (lazily);
    without ``pos_label`` ``y`` itself (each partition must then hold 0/1 labels)."""
    if pos_label is None or y is None:
        return y
    from ._validation import _check_pos_label

    return (y == _check_pos_label(pos_label)).astype("int64")


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def read_rows(X=None, y=None, *, pos_label=None, require_both=True, sample_weight=None, fp_cost=None,
              fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, costs="optional", periods=None,
              entity=None, y_name="y") -> Rows:
    """Read the labelled rows of a public entry point: index, labels, weights and costs, checked once.

    Parameters
    ----------
    X : array-like, DataFrame or None
        The rows (only their number and pandas index are read here).
    y : array-like of shape (n,) or None
        Labels (:func:`read_labels`).
    pos_label : label or None
        The label whose miss costs ``fn_cost``.
    require_both : bool, default True
        Refuse a ``y`` of one class.
    sample_weight : array-like of shape (n,) or None
    fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix
        The cost keywords (money per row).
    costs : {"optional", "required", "none"}, default "optional"
        ``"optional"``: costs read when any is given, else None; ``"required"``: always read
        (``check_costs`` names what is missing); ``"none"``: not read.
    periods, entity : array-like or None
        Only their pandas index is checked here.
    y_name : str, default "y"
        The name of ``y`` in messages (``"y_true"`` for the metrics).

    Returns
    -------
    Rows
    """
    from .costs import check_costs

    cost_kw = dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
    read_costs = costs == "required" or (costs == "optional" and costs_given(**cost_kw))
    if read_costs:
        check_cost_keywords(fp_cost, fn_cost, cost_matrix, tp_cost, tn_cost)
    named = [("X", X), (y_name, y), ("sample_weight", sample_weight), ("periods", periods), ("entity", entity)]
    check_same_index(named + (list(cost_kw.items()) if read_costs else []))
    index = next((row_index(v) for _, v in named if row_index(v) is not None), None)
    y01 = classes = None
    if y is not None:
        y01, classes = read_labels(y, pos_label, name=y_name, require_both=require_both)
        n = y01.shape[0]
        if X is not None and _n_rows(X) != n:
            raise ValueError(f"X has {_n_rows(X)} rows but {y_name} has {n}")
    elif X is not None:
        n = _n_rows(X)
    else:
        raise ValueError("no rows: give X or y")
    w = check_sample_weight(sample_weight, n, rows_of=y_name if y is not None else "X")
    c = check_costs(n, **cost_kw) if read_costs else None
    return Rows(n, index, y01, classes, w, c, periods, entity)
