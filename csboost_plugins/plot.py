"""Money plots on matplotlib (``pip install 'csboost-plugins[plot]'``), in scikit-learn's Display style:
``Display.from_predictions(...)`` / ``Display.from_estimator(...)`` draw on ``ax`` (a new figure
when None) and return the display, which keeps the plotted data as arrays and the artists
(``ax_``, ``figure_``, ``line_``, ...).

- :class:`MoneyCurveDisplay`: money caught, net money or savings against the alert rate (or
  FPR) when the top-scored rows are flagged, with a rule set's points on the same axes.
- :class:`RuleWaterfallDisplay`: each rule's added money caught and alert cost, down to the
  rule set's net money.
- :class:`MoneyPerRoundDisplay`: a money metric per boosting round from ``evals_result_`` or
  ``record_money`` (train vs validation), best iteration marked.
- :class:`ThresholdScalingDisplay`: savings (or cost) of a probability model as its decision
  thresholds are scaled around the Bayes minimum risk thresholds (or a constant threshold).

Money is in the costs' own unit. For a flagged row: money caught = ``C_FN - C_TP`` on a
positive, alert cost = ``C_FP - C_TN`` on a negative, net money = their difference summed,
i.e. the money saved against flagging nothing (:mod:`csboost_plugins.decision_costs`).
"""

from __future__ import annotations

import numpy as np

from ._cost_scorer import pos_label_score
from ._docstrings import fill_doc
from .decision_costs import bayes_thresholds, misclassification_costs, row_cost, trivial_policy_costs
from .metrics import _LABEL_DOCS, _BinaryLabels, _costs_kw, _prepare

__all__ = ["MoneyCurveDisplay", "RuleWaterfallDisplay", "MoneyPerRoundDisplay", "ThresholdScalingDisplay"]

_Y_DOC = "y : array-like of shape (n_samples,)\n    Binary labels, with ``pos_label`` the positive class."
_ZOOM_DOC = """budget : float, optional
    Alert budget drawn as a labelled vertical line, on the horizontal axis's scale.
    Default: the budget ``rules`` were selected under (``rules.selection``); an FPR
    budget on the alert-rate axis is drawn at the score's alert rate where its FPR
    reaches the budget.
zoom : bool, default=True
    Show alert rates from 0 to ``ZOOM_FACTOR`` (2) times the larger of the budget and
    the rule set's alert rate (without either: of the alert rate where the score's net
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

    An FPR budget on the alert-rate axis sits where the score's curve reaches that FPR
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
    return at, f"budget: {names[criterion]} {_pct(budget)} (the score's {names[x_axis]} there)"


# ------------------------------------------------------------------------------------------- (a)
class MoneyCurveDisplay:
    """Money against alert rate (or FPR) when the rows with the highest scores are flagged.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`. Each array has
    one entry per distinct score cut, starting at "flag nothing".

    Parameters
    ----------
    alert_rate, fpr : array-like
        Share of (weighted) rows flagged, and of negatives flagged.
    money_caught, alert_cost : array-like
        Sum of ``C_FN - C_TP`` over flagged positives and of ``C_FP - C_TN`` over
        flagged negatives (money).
    cost_no_alerts, cost_flag_all : float
        Total cost of flagging nothing and of flagging everything.
    rule_table : pandas.DataFrame, optional
        A rule set's ``RuleSet.evaluate(..., per_rule=True)`` table on the same rows.
    rule_alert_rate : array-like, optional
        Alert rate of rules 1..i (with ``rule_table``).
    x_axis : {"alert_rate", "fpr"}, default="alert_rate"
        Horizontal axis.
    y_axis : {"net_money", "money_caught", "savings"}, default="net_money"
        Vertical axis: money caught minus alert cost (money saved against no
        alerts), money caught, or savings against the cheaper trivial policy.
    name : str, optional
        Legend name of the score.
    budget : float, optional
        Alert budget on the horizontal axis's scale (drawn as a vertical line).
    budget_label : str, optional
        Its legend label.

    Attributes
    ----------
    net_money, savings : ndarray
        ``money_caught - alert_cost`` and ``(Cost_l - cost) / Cost_l``.
    rule_x, rule_y : ndarray or None
        The plotted points of rules 1..i.
    line_ : matplotlib.lines.Line2D
        The score's curve.
    rules_line_ : matplotlib.lines.Line2D or None
        The rule set's points.
    rules_rate_line_, budget_line_ : matplotlib.lines.Line2D or None
        Vertical lines at the rule set's alert rate (or FPR) and at the budget.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    ZOOM_FACTOR = 2.0  # the zoomed window spans this many times the budget (or the rules' alert rate)

    def __init__(self, *, alert_rate, fpr, money_caught, alert_cost, cost_no_alerts, cost_flag_all,
                 rule_table=None, rule_alert_rate=None, x_axis="alert_rate", y_axis="net_money", name=None,
                 budget=None, budget_label=None):
        self.alert_rate, self.fpr = np.asarray(alert_rate), np.asarray(fpr)
        self.money_caught, self.alert_cost = np.asarray(money_caught), np.asarray(alert_cost)
        self.net_money = self.money_caught - self.alert_cost
        self.cost_no_alerts, self.cost_flag_all = cost_no_alerts, cost_flag_all
        self.savings = _savings(cost_no_alerts - self.net_money, min(cost_no_alerts, cost_flag_all))
        self.rule_table, self.rule_alert_rate = rule_table, rule_alert_rate
        self.x_axis = _choice(x_axis, "x_axis", ("alert_rate", "fpr"))
        self.y_axis = _choice(y_axis, "y_axis", ("net_money", "money_caught", "savings"))
        self.name = name
        self.budget = None if budget is None else _check_budget(budget)
        self.budget_label = budget_label

    def _rule_xy(self):
        t = self.rule_table
        rx = self.rule_alert_rate if self.x_axis == "alert_rate" else t["set_fpr"].to_numpy()
        net = t["set_net_money"].to_numpy()
        ry = {"net_money": net, "money_caught": t["set_money_caught"].to_numpy(),
              "savings": _savings(self.cost_no_alerts - net, min(self.cost_no_alerts, self.cost_flag_all))}[self.y_axis]
        return np.asarray(rx), np.asarray(ry)

    @fill_doc
    def plot(self, ax=None, *, name=None, zoom=True, xlim=None):
        """Draw the curve (and the rule set's points, its alert rate and the budget).

        %(Parameters, ax)s
        name : str, optional
            Legend name of the score.
        zoom : bool, default=True
            Show alert rates from 0 to ``ZOOM_FACTOR`` times the larger of the budget
            and the rule set's alert rate (without either: of the alert rate where the
            score's net money peaks), the vertical range fitted to the curve inside
            that window. False: the full range.
        xlim : (float, float), optional
            Horizontal window to show instead (the vertical range is fitted to it).

        Returns
        -------
        MoneyCurveDisplay
            self.
        """
        ax, fig = _axes(ax)
        name = name or self.name or "score"
        xs, ys = getattr(self, self.x_axis), getattr(self, self.y_axis)
        self.line_, = ax.plot(xs, ys, label=f"{name}: flag the top scores")
        self.rules_line_ = self.rules_rate_line_ = self.budget_line_ = None
        self.rule_x = self.rule_y = None
        what = "alert rate" if self.x_axis == "alert_rate" else "FPR"
        if self.rule_table is not None and len(self.rule_table):
            self.rule_x, self.rule_y = self._rule_xy()
            self.rules_line_, = ax.plot(self.rule_x, self.rule_y, "o-", color="C3", ms=4,
                                        label=f"rule set: rules 1..i ({len(self.rule_x)} rules)")
            self.rules_rate_line_ = ax.axvline(self.rule_x[-1], color="C3", lw=0.8, ls=":",
                                               label=f"rule set's {what} ({_pct(self.rule_x[-1])})")
        if self.budget is not None:
            self.budget_line_ = ax.axvline(self.budget, color="k", lw=0.8, ls="--",
                                           label=self.budget_label or f"budget: {what} {_pct(self.budget)}")
        ax.set_xlabel("alert rate" if self.x_axis == "alert_rate" else "false positive rate")
        ax.set_ylabel(_Y_LABELS[self.y_axis])
        window = self._window(zoom, xlim)
        if window is not None:
            ax.set_xlim(*window)
            ylim = self._ylim(window)
            if ylim is not None:
                ax.set_ylim(*ylim)
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self

    def _window(self, zoom, xlim):
        """The horizontal window: ``xlim``, the zoom around the budget / rules, or None (full range)."""
        if xlim is not None:
            return _pair(xlim, "xlim")
        if not isinstance(zoom, (bool, np.bool_)):
            raise TypeError(f"zoom must be True or False, got {zoom!r}")
        if not zoom:
            return None
        anchors = [v for v in (self.budget, None if self.rule_x is None else self.rule_x[-1]) if v is not None]
        if not anchors and self.net_money.max() > 0:  # no budget: around the best flag-the-top-k
            anchors = [getattr(self, self.x_axis)[int(np.argmax(self.net_money))]]
        hi = min(self.ZOOM_FACTOR * max(anchors, default=0.0), 1.0)
        return (0.0, hi) if hi > 0 else None

    def _ylim(self, window):
        """Vertical range of the curve's (and rules') points inside ``window``, 5 %% padded; None if none."""
        lo, hi = window
        xs, ys = getattr(self, self.x_axis), getattr(self, self.y_axis)
        pts = [ys[(xs >= lo) & (xs <= hi)]]
        if self.rule_x is not None:
            pts.append(self.rule_y[(self.rule_x >= lo) & (self.rule_x <= hi)])
        v = np.concatenate(pts)
        v = v[np.isfinite(v)]
        if not len(v):
            return None
        bottom, top = v.min(), v.max()
        pad = 0.05 * (top - bottom) if top > bottom else max(abs(top), 1.0) * 0.05
        return bottom - pad, top + pad

    @classmethod
    @fill_doc(**_LABEL_DOCS, zoom=_ZOOM_DOC)
    def from_predictions(cls, y_true, y_score, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                         cost_matrix=None, sample_weight=None, rules=None, X=None, x_axis="alert_rate",
                         y_axis="net_money", ax=None, name=None, pos_label=None, budget=None, zoom=True, xlim=None):
        """Curve of a score on labelled rows.

        Parameters
        ----------
        %(y_true)s
        y_score : array-like of shape (n_samples,) or (n_samples, 2)
            Higher = flag first (a score of ``pos_label``); rows with one score are flagged
            together. A two-column ``predict_proba`` output gives its ``pos_label`` column.
        %(costs, sample_weight)s
        rules : RuleSet, optional
            Rule set drawn as the points of rules 1..i.
        X : array-like or DataFrame, optional
            The rows (needed with ``rules``).
        x_axis : {"alert_rate", "fpr"}, default="alert_rate"
            Horizontal axis.
        y_axis : {"net_money", "money_caught", "savings"}, default="net_money"
            Vertical axis.
        %(ax)s
        name : str, optional
            Legend name of the score.
        %(pos_label, zoom)s

        Returns
        -------
        MoneyCurveDisplay
        """
        yt, s, c, w = _prepare(y_true, y_score, "y_score", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost,
                                                                      cost_matrix), sample_weight, pos_label=pos_label)
        w = _weights(w, len(yt))
        caught_row, alert_row = misclassification_costs(c)
        pos, neg = w * (yt == 1), w * (yt == 0)
        order = np.argsort(-s, kind="stable")
        ends = np.flatnonzero(np.diff(s[order], append=np.nan) != 0)  # last row of each tie group

        def cum(v):
            return np.concatenate([[0.0], np.cumsum(v[order])[ends]])

        none, flag_all = trivial_policy_costs(yt, c, w)
        table = alert_rate = None
        if rules is not None:
            if X is None:
                raise ValueError("rules need X (the rows y_true and y_score describe) to be evaluated")
            table = rules.evaluate(X, yt, sample_weight=w, cost_matrix=c, per_rule=True)
            alert_rate = np.cumsum(table["new_tp"] + table["new_fp"]).to_numpy() / w.sum()
        if neg.sum() == 0 and x_axis == "fpr":
            raise ValueError("x_axis='fpr' needs negatives in y_true: the false positive rate is undefined without "
                             "them (use x_axis='alert_rate')")
        with np.errstate(invalid="ignore"):  # no negatives: FPR undefined (NaN), the alert-rate curve still draws
            fpr = cum(neg) / neg.sum()
        rates = {"alert_rate": cum(w) / w.sum(), "fpr": fpr}
        label = None
        if budget is None and rules is not None:
            budget, label = _rules_budget(rules, x_axis, rates)
        disp = cls(alert_rate=rates["alert_rate"], fpr=fpr, money_caught=cum(pos * caught_row),
                   alert_cost=cum(neg * alert_row), cost_no_alerts=none, cost_flag_all=flag_all, rule_table=table,
                   rule_alert_rate=alert_rate, x_axis=x_axis, y_axis=y_axis, name=name, budget=budget,
                   budget_label=label)
        return disp.plot(ax, zoom=zoom, xlim=xlim)

    @classmethod
    @fill_doc(**_LABEL_DOCS, y_labels=_Y_DOC)
    def from_estimator(cls, estimator, X, y, *, rules=None, ax=None, name=None, pos_label=None, **kwargs):
        """:meth:`from_predictions` with the estimator's P(y=pos_label) (or decision function) on X.

        Parameters
        ----------
        estimator : fitted classifier
            Has ``predict_proba`` or ``decision_function``; the column (or sign) of
            ``pos_label`` is read from its ``classes_``.
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows (also given to ``rules``).
        %(y_labels)s
        rules : RuleSet, optional
            Rule set drawn on the same axes.
        %(ax)s
        name : str, optional
            Legend name (default: the estimator's class name).
        %(pos_label)s
        **kwargs
            Costs, ``sample_weight``, ``x_axis``, ``y_axis``, ``budget``, ``zoom``, ``xlim``
            as in :meth:`from_predictions`.

        Returns
        -------
        MoneyCurveDisplay
        """
        return cls.from_predictions(y, _score_of(estimator, X, pos_label), rules=rules, X=X, ax=ax,
                                    name=name or type(estimator).__name__, pos_label=pos_label, **kwargs)


# ------------------------------------------------------------------------------------------- (b)
class RuleWaterfallDisplay:
    """Waterfall of a rule set's money.

    For rule i, a bar up by the money it catches that no earlier rule catches
    (``new_money_caught``), then a bar down by its added alert cost
    (``new_alert_cost``); the last bar is the set's net money (money saved against
    no rules).

    Parameters
    ----------
    table : pandas.DataFrame
        ``RuleSet.evaluate(..., per_rule=True)`` computed with costs.

    Attributes
    ----------
    caught_bars_, alert_bars_, net_bar_ : matplotlib.container.BarContainer
        The bars.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, table):
        if not hasattr(table, "columns"):
            raise TypeError(f"table must be the DataFrame of RuleSet.evaluate(..., per_rule=True), got "
                            f"{type(table).__name__}")
        missing = {"new_money_caught", "new_alert_cost", "set_net_money"} - set(table.columns)
        if missing:
            raise ValueError(f"the per-rule table needs costs (columns {sorted(missing)} are missing)")
        self.table = table

    @fill_doc
    def plot(self, ax=None):
        """Draw the waterfall.

        %(Parameters, ax)s

        Returns
        -------
        RuleWaterfallDisplay
            self.
        """
        ax, fig = _axes(ax)
        t = self.table
        k = len(t)
        caught, alert = t["new_money_caught"].to_numpy(), t["new_alert_cost"].to_numpy()
        before = np.cumsum(np.concatenate([[0.0], caught - alert]))[:-1]  # net money of rules 1..i-1
        pos = np.arange(1, k + 1)
        self.caught_bars_ = ax.bar(pos - 0.2, caught, 0.4, bottom=before, color="C2", label="money caught")
        self.alert_bars_ = ax.bar(pos + 0.2, -alert, 0.4, bottom=before + caught, color="C3", label="alert cost")
        net = float(t["set_net_money"].iloc[-1]) if k else 0.0
        self.net_bar_ = ax.bar([k + 1], [net], 0.6, color="C0", label="net money")
        ax.set_xticks(list(pos) + [k + 1], [str(i) for i in pos] + ["net"])
        ax.set_xlabel("rule (in order; each bar counts only rows no earlier rule flags)")
        ax.set_ylabel("money")
        ax.axhline(0, color="k", lw=0.5)
        ax.legend(loc="upper left")
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    @fill_doc(**_LABEL_DOCS, y_labels=_Y_DOC)
    def from_estimator(cls, rules, X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                       sample_weight=None, ax=None, pos_label=None):
        """Waterfall of a rule set on (X, y) (a holdout set) with per-row costs.

        Parameters
        ----------
        rules : RuleSet
            The rule set.
        %(X, y_labels, costs, sample_weight, ax, pos_label)s

        Returns
        -------
        RuleWaterfallDisplay
        """
        y = _BinaryLabels(y, None, pos_label).y01  # the rule set counts y == 1 as caught: pos_label is that 1
        table = rules.evaluate(X, y, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                               cost_matrix=cost_matrix, sample_weight=sample_weight, per_rule=True)
        return cls(table).plot(ax)


# ------------------------------------------------------------------------------------------- (c)
_LOWER_IS_BETTER = ("aec", "cost", "logloss", "binary_logloss", "error", "rmse")


class MoneyPerRoundDisplay:
    """A metric per boosting round for every data set that records it.

    Parameters
    ----------
    evals_result : dict
        ``{data_name: {metric: [value per round]}}`` as xgboost's and lightgbm's
        ``evals_result_`` and :func:`csboost_plugins.callback.record_money` fill it.
    metric : str, default="savings"
        The metric to draw.
    best_iteration : int, optional
        0-based round to mark (None: not marked).

    Attributes
    ----------
    rounds : ndarray
        Round numbers from 1.
    values : dict
        ``{data_name: array of the metric per round}``.
    lines_ : dict
        ``{data_name: matplotlib.lines.Line2D}``.
    best_line_ : matplotlib.lines.Line2D or None
        The best-iteration marker.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, evals_result, metric="savings", best_iteration=None):
        if not isinstance(evals_result, dict):
            raise TypeError(f"evals_result must be a dict {{data_name: {{metric: [values]}}}}, got "
                            f"{type(evals_result).__name__}")
        self.values = {name: np.asarray(m[metric], dtype=np.float64) for name, m in evals_result.items()
                       if isinstance(m, dict) and metric in m}
        if not self.values:
            have = sorted({k for m in evals_result.values() if isinstance(m, dict) for k in m})
            raise ValueError(f"no data set records metric {metric!r}; recorded metrics: {have}")
        self.metric = metric
        self.rounds = np.arange(1, max(len(v) for v in self.values.values()) + 1)
        if best_iteration is not None and not 0 <= int(best_iteration) < len(self.rounds):
            raise ValueError(f"best_iteration must be a 0-based round in [0, {len(self.rounds)}), got {best_iteration}")
        self.best_iteration = None if best_iteration is None else int(best_iteration)

    @fill_doc
    def plot(self, ax=None):
        """Draw one line per data set.

        %(Parameters, ax)s

        Returns
        -------
        MoneyPerRoundDisplay
            self.
        """
        ax, fig = _axes(ax)
        self.lines_ = {}
        for name, v in self.values.items():
            self.lines_[name], = ax.plot(np.arange(1, len(v) + 1), v, label=name)
        self.best_line_ = None
        if self.best_iteration is not None:
            self.best_line_ = ax.axvline(self.best_iteration + 1, color="k", ls="--", lw=0.8,
                                         label=f"best iteration ({self.best_iteration + 1})")
        ax.set_xlabel("boosting round")
        ax.set_ylabel(self.metric + (" (lower is better)" if self.metric in _LOWER_IS_BETTER else ""))
        ax.legend()
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    @fill_doc
    def from_evals_result(cls, evals_result, *, metric="savings", best_iteration=None, ax=None):
        """Draw from an ``evals_result`` dict.

        Parameters
        ----------
        evals_result : dict
            ``{data_name: {metric: [value per round]}}``.
        metric : str, default="savings"
            The metric to draw.
        best_iteration : int, optional
            0-based round to mark.
        %(ax)s

        Returns
        -------
        MoneyPerRoundDisplay
        """
        return cls(evals_result, metric, best_iteration).plot(ax)

    @classmethod
    @fill_doc
    def from_estimator(cls, estimator, *, metric="savings", ax=None):
        """Draw from a fitted booster estimator's ``evals_result_``.

        With early stopping the best iteration marked is the last round the fitted
        model keeps (``n_estimators_``).

        Parameters
        ----------
        estimator : fitted estimator
            Has ``evals_result_`` (e.g. ``CSXGBClassifier`` / ``CSLGBMClassifier``
            fitted with ``eval_set``).
        metric : str, default="savings"
            The metric to draw.
        %(ax)s

        Returns
        -------
        MoneyPerRoundDisplay
        """
        if not hasattr(estimator, "evals_result_"):
            raise ValueError(f"{type(estimator).__name__} has no evals_result_: fit it with eval_set= first")
        best = None
        if getattr(estimator, "best_iteration_", None) is not None and hasattr(estimator, "n_estimators_"):
            best = int(estimator.n_estimators_) - 1
        return cls(estimator.evals_result_, metric, best).plot(ax)


# ------------------------------------------------------------------------------------------- (d)
class ThresholdScalingDisplay:
    """Savings (or cost, or net money) of a probability model's decisions as the threshold moves.

    ``threshold="bayes"``: row i is flagged iff ``p_i > t_i(k)`` where ``t_i(k)``
    scales the Bayes minimum risk threshold ``t*_i``
    (:func:`csboost_plugins.decision_costs.bayes_thresholds`) in odds:
    ``t/(1-t) = k t*/(1-t*)``, the same as multiplying the false-alert regret by
    ``k``; ``k = 1`` is Bayes minimum risk. ``threshold="constant"``: flag iff
    ``p > t`` for one ``t`` in [0, 1].

    Parameters
    ----------
    scale : array-like
        The k (or t) grid.
    cost : array-like
        Total cost (money) at each grid value.
    cost_no_alerts, cost_flag_all : float
        Total cost of flagging nothing and of flagging everything.
    threshold : {"bayes", "constant"}, default="bayes"
        What the grid scales.
    y_axis : {"savings", "cost", "net_money"}, default="savings"
        Vertical axis.
    name : str, optional
        Legend name.

    Attributes
    ----------
    savings, net_money : ndarray
        Savings against the cheaper trivial policy, and money saved against no alerts.
    reference : float
        1 (Bayes minimum risk) or 0.5.
    best : float
        The grid value with the lowest cost.
    line_ : matplotlib.lines.Line2D
        The curve.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, *, scale, cost, cost_no_alerts, cost_flag_all, threshold="bayes", y_axis="savings",
                 name=None):
        self.scale, self.cost = np.asarray(scale), np.asarray(cost)
        self.threshold = _choice(threshold, "threshold", ("bayes", "constant"))
        self.y_axis = _choice(y_axis, "y_axis", ("savings", "cost", "net_money"))
        self.net_money = cost_no_alerts - self.cost
        self.savings = _savings(self.cost, min(cost_no_alerts, cost_flag_all))
        self.reference = 1.0 if self.threshold == "bayes" else 0.5
        self.best = float(self.scale[int(np.argmin(self.cost))])
        self.name = name

    @fill_doc
    def plot(self, ax=None, *, name=None):
        """Draw the curve with the reference and best values marked.

        %(Parameters, ax)s
        name : str, optional
            Legend name.

        Returns
        -------
        ThresholdScalingDisplay
            self.
        """
        ax, fig = _axes(ax)
        self.line_, = ax.plot(self.scale, getattr(self, self.y_axis), label=name or self.name or "model")
        ax.axvline(self.reference, color="k", ls="--", lw=0.8,
                   label="Bayes minimum risk (k = 1)" if self.threshold == "bayes" else "p > 0.5")
        ax.axvline(self.best, color="C2", ls=":", lw=1.0, label=f"lowest cost ({self.best:.3g})")
        if self.threshold == "bayes":
            ax.set_xscale("log")
            ax.set_xlabel("threshold scale k (odds of the Bayes threshold times k)")
        else:
            ax.set_xlabel("decision threshold t (flag iff p > t)")
        ax.set_ylabel(_Y_LABELS[self.y_axis])
        ax.legend()
        self.ax_, self.figure_ = ax, fig
        return self

    @staticmethod
    def thresholds(costs, k, threshold="bayes"):
        """Per-row thresholds ``t_i(k)`` (see the class docstring).

        Parameters
        ----------
        costs : ndarray of shape (n_samples, 4)
            ``[C_FP, C_FN, C_TP, C_TN]``.
        k : float
            Scale (or the constant threshold).
        threshold : {"bayes", "constant"}, default="bayes"
            What ``k`` is.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        if threshold == "constant":
            return np.full(costs.shape[0], float(k))
        t = bayes_thresholds(costs)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = k * t / (1.0 - t + k * t)
        return np.where(np.isfinite(t) & (t < 1), out, t)  # t* >= 1 or infinite: never flag at any k

    @classmethod
    @fill_doc(**_LABEL_DOCS)
    def from_predictions(cls, y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                         cost_matrix=None, sample_weight=None, threshold="bayes", scale=None, y_axis="savings",
                         ax=None, name=None, pos_label=None):
        """Curve of probabilities on labelled rows.

        Parameters
        ----------
        %(y_true, y_proba, costs, sample_weight)s
        threshold : {"bayes", "constant"}, default="bayes"
            Scale the Bayes thresholds, or use one constant threshold.
        scale : array-like, optional
            Grid of k (default 81 values from 0.01 to 100, log-spaced) or of t
            (default 101 values in [0, 1]).
        y_axis : {"savings", "cost", "net_money"}, default="savings"
            Vertical axis.
        %(ax)s
        name : str, optional
            Legend name.
        %(pos_label)s

        Returns
        -------
        ThresholdScalingDisplay
        """
        yt, p, c, w = _prepare(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost,
                                                                      cost_matrix), sample_weight, pos_label=pos_label)
        w = _weights(w, len(yt))
        _choice(threshold, "threshold", ("bayes", "constant"))
        if scale is None:
            scale = np.logspace(-2, 2, 81) if threshold == "bayes" else np.linspace(0, 1, 101)
        scale = np.asarray(scale, dtype=np.float64)
        if scale.ndim != 1 or not len(scale) or not np.all(np.isfinite(scale)) or \
                (threshold == "bayes" and np.any(scale <= 0)):
            raise ValueError("scale must be a non-empty 1-D grid of finite values (> 0 for threshold='bayes')")
        cost = np.array([row_cost(yt, p > cls.thresholds(c, k, threshold), c) @ w for k in scale])
        none, flag_all = trivial_policy_costs(yt, c, w)
        disp = cls(scale=scale, cost=cost, cost_no_alerts=none, cost_flag_all=flag_all, threshold=threshold,
                   y_axis=y_axis, name=name)
        return disp.plot(ax)

    @classmethod
    @fill_doc(**_LABEL_DOCS, y_labels=_Y_DOC)
    def from_estimator(cls, estimator, X, y, *, ax=None, name=None, pos_label=None, **kwargs):
        """:meth:`from_predictions` with the ``predict_proba(X)`` column of ``pos_label`` in ``estimator.classes_``.

        Parameters
        ----------
        estimator : fitted classifier
            Has ``predict_proba``.
        %(X, y_labels, ax)s
        name : str, optional
            Legend name (default: the estimator's class name).
        %(pos_label)s
        **kwargs
            Costs, ``sample_weight``, ``threshold``, ``scale``, ``y_axis`` as in
            :meth:`from_predictions`.

        Returns
        -------
        ThresholdScalingDisplay
        """
        if not hasattr(estimator, "predict_proba"):
            raise TypeError(f"{type(estimator).__name__} has no predict_proba: the Bayes thresholds need "
                            "probabilities (calibrate it, e.g. CalibratedClassifierCV)")
        proba = pos_label_score(estimator, estimator.predict_proba(X), pos_label, "predict_proba")
        return cls.from_predictions(y, proba, ax=ax, name=name or type(estimator).__name__, pos_label=pos_label,
                                    **kwargs)
