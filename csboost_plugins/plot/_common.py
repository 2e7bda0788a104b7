"""Shared pieces of the money displays: axes, argument checks, axis labels and budgets."""

from __future__ import annotations

import numpy as np

from .._cost_scorer import pos_label_score

_Y_DOC = "y : array-like of shape (n_samples,)\n    Binary labels, with ``pos_label`` the positive class."
_ZOOM_DOC = """budget : float, optional
    Alert budget drawn as a labelled vertical line, on the horizontal axis's scale.
    Default: the budget ``rules`` were selected under (``rules.selection``); an FPR
    budget on the alert-rate axis is drawn at the curve's alert rate where its FPR
    reaches the budget.
zoom : bool, default=True
    Show alert rates from 0 to ``ZOOM_FACTOR`` (2) times the larger of the budget and
    the rule set's alert rate (without either: of the alert rate where the curve's net
    money peaks), the vertical range fitted to the curve inside that window. False:
    the full range, up to flagging every row.
xlim : (float, float), optional
    Horizontal window to show instead (the vertical range is fitted to it)."""
_Y_LABELS = {"net_money": "net money saved vs no alerts", "money_caught": "money caught",
             "savings": "savings vs cheaper trivial policy", "cost": "total cost"}


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots()
    return ax, ax.figure


def _choice(value, name, options):
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value


def _score_of(estimator, X, pos_label):
    """P(y=pos_label) from predict_proba, else decision_function (any monotone score ranks the rows),
    the column / sign of ``pos_label`` read from ``estimator.classes_``."""
    for method in ("predict_proba", "decision_function"):
        if hasattr(estimator, method):
            return pos_label_score(estimator, getattr(estimator, method)(X), pos_label, method)
    raise TypeError(f"{type(estimator).__name__} has neither predict_proba nor decision_function")


def _weights(w, n):
    """Row weights (ones when None); a ValueError when they sum to 0 (no rows to plot)."""
    if w is None:
        return np.ones(n)
    if w.sum() == 0:
        raise ValueError("sample_weight sums to 0: no rows to plot")
    return w


def _savings(cost, base):
    """savings_from_costs over an array of costs; NaN (not an error) where Cost_l = 0, so the plot still draws."""
    return (base - cost) / abs(base) if base != 0 else np.full(np.shape(cost), np.nan)


def _check_budget(budget):
    try:
        b = float(budget)
    except (TypeError, ValueError):
        raise TypeError(f"budget must be a number in (0, 1], got {budget!r}") from None
    if not 0.0 < b <= 1.0:
        raise ValueError(f"budget must lie in (0, 1] (a rate on the horizontal axis), got {b}")
    return b


def _pair(v, name):
    try:
        lo, hi = (float(x) for x in v)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (left, right) of numbers, got {v!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"{name} must be finite with left < right, got {v!r}")
    return lo, hi


def _pct(rate):
    return f"{100 * rate:.3g} %"


def _rules_budget(rules, x_axis, rates):
    """The budget a RuleSet was selected under, on the ``x_axis`` scale, and its legend label.

    An FPR budget on the alert-rate axis sits where the curve reaches that FPR
    (the rates are non-decreasing along the curve); (None, None) without a recorded budget."""
    sel = getattr(rules, "selection", None) or {}
    criterion, budget = sel.get("criterion"), sel.get("budget")
    if budget is None or criterion not in rates:
        return None, None
    names = {"fpr": "FPR", "alert_rate": "alert rate"}
    if criterion == x_axis:
        return float(budget), f"budget: {names[criterion]} {_pct(budget)}"
    at = float(np.interp(budget, rates[criterion], rates[x_axis]))
    if not np.isfinite(at) or at <= 0:
        return None, None
    return at, f"budget: {names[criterion]} {_pct(budget)} (the curve's {names[x_axis]} there)"

