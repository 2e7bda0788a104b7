"""Money caught, net money or savings against the alert rate (or FPR), with a rule set's points."""

from __future__ import annotations

import numpy as np

from .._docstrings import fill_doc
from ..decision_costs import bmr_decisions, misclassification_costs, trivial_policy_costs
from ..metrics import _LABEL_DOCS, _costs_kw, _prepare
from ._common import _Y_DOC, _ZOOM_DOC, _Y_LABELS, _axes, _choice, _score_of, _weights, _savings, _check_budget, _pair, _pct, _rules_budget

__all__ = ["MoneyCurveDisplay"]


class MoneyCurveDisplay:
    """Money against alert rate (or FPR) when the rows ranked first are flagged.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`. The rows are ranked
    by the expected net money of an alert, ``p (C_FN - C_TP) - (1 - p) (C_FP - C_TN)``
    (money per row), when the score is a probability ``p`` and the costs differ between
    rows, else by the score (``rank_by``). Each array has one entry per distinct cut of
    the ranking, starting at "flag nothing". A marker shows the money of the model's own
    0/1 decisions (Bayes minimum risk, or the estimator's ``predict``).

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
    ranked_by : {"expected_money", "score"}, default="score"
        What ranked the rows (for the legend).
    decision_point : dict, optional
        The decisions' ``alert_rate``, ``fpr``, ``money_caught``, ``alert_cost`` and
        ``label``.

    Attributes
    ----------
    net_money, savings : ndarray
        ``money_caught - alert_cost`` and ``(Cost_l - cost) / Cost_l``.
    rule_x, rule_y : ndarray or None
        The plotted points of rules 1..i.
    decision_x, decision_y : float or None
        The plotted point of the 0/1 decisions.
    line_ : matplotlib.lines.Line2D
        The score's curve.
    rules_line_ : matplotlib.lines.Line2D or None
        The rule set's points.
    rules_rate_line_, budget_line_ : matplotlib.lines.Line2D or None
        Vertical lines at the rule set's alert rate (or FPR) and at the budget.
    decision_line_ : matplotlib.lines.Line2D or None
        The marker of the 0/1 decisions.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    ZOOM_FACTOR = 2.0  # the zoomed window spans this many times the budget (or the rules' alert rate)

    def __init__(self, *, alert_rate, fpr, money_caught, alert_cost, cost_no_alerts, cost_flag_all,
                 rule_table=None, rule_alert_rate=None, x_axis="alert_rate", y_axis="net_money", name=None,
                 budget=None, budget_label=None, ranked_by="score", decision_point=None):
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
        self.ranked_by = _choice(ranked_by, "ranked_by", ("expected_money", "score"))
        self.decision_point = decision_point

    def _decision_xy(self):
        d = self.decision_point
        net = d["money_caught"] - d["alert_cost"]
        y = {"net_money": net, "money_caught": d["money_caught"],
             "savings": _savings(self.cost_no_alerts - net, min(self.cost_no_alerts, self.cost_flag_all))}
        return float(d[self.x_axis]), float(y[self.y_axis])

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
        order = "the top expected net money" if self.ranked_by == "expected_money" else "the top scores"
        self.line_, = ax.plot(xs, ys, label=f"{name}: flag {order}")
        self.rules_line_ = self.rules_rate_line_ = self.budget_line_ = self.decision_line_ = None
        self.rule_x = self.rule_y = self.decision_x = self.decision_y = None
        what = "alert rate" if self.x_axis == "alert_rate" else "FPR"
        if self.decision_point is not None:
            self.decision_x, self.decision_y = self._decision_xy()
            self.decision_line_, = ax.plot([self.decision_x], [self.decision_y], "D", color="k", ms=6, zorder=3,
                                           label=f"{self.decision_point['label']} ({what} {_pct(self.decision_x)})")
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
        if self.decision_x is not None and lo <= self.decision_x <= hi:
            pts.append(np.array([self.decision_y]))
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
                         y_axis="net_money", ax=None, name=None, pos_label=None, budget=None, zoom=True, xlim=None,
                         rank_by="auto", decisions="auto"):
        """Curve of a score on labelled rows.

        Parameters
        ----------
        %(y_true)s
        y_score : array-like of shape (n_samples,) or (n_samples, 2)
            Higher = flag first (a score of ``pos_label``); rows with one score are flagged
            together. A two-column ``predict_proba`` output gives its ``pos_label`` column.
            Values in [0, 1] are read as the probability P(y = ``pos_label``) by
            ``rank_by="auto"`` and ``decisions="auto"``.
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
        rank_by : {"auto", "expected_money", "score"}, default="auto"
            The order rows are flagged in. ``"expected_money"``: by each row's expected net
            money of an alert, ``e = p (C_FN - C_TP) - (1 - p) (C_FP - C_TN)`` with ``p`` =
            ``y_score`` (money; rows with one ``e`` flagged together). ``"score"``: by
            ``y_score``. ``"auto"`` (default): ``"expected_money"`` when ``y_score`` lies in
            [0, 1] and the costs differ between rows, else ``"score"``. Expected money is the
            default because with per-row costs the probability order flags a likely 2-EUR
            fraud before a less likely 2,000-EUR one and so understates what the model can
            book at each alert count; with equal costs on every row both orders coincide.
            Use ``"score"`` for a score in [0, 1] that is not a probability, or to see the
            curve of a deployment that thresholds the score itself.
        decisions : "auto", False or array-like of shape (n_samples,), default="auto"
            0/1 decisions (1 = alert) drawn as a marker at their alert rate (or FPR) and
            money. ``"auto"``: Bayes minimum risk on ``y_score`` with these costs (alert iff
            ``e > 0``; :func:`csboost_plugins.metrics.bayes_minimum_risk`) when ``y_score``
            lies in [0, 1]; no marker otherwise. False: no marker.

        Returns
        -------
        MoneyCurveDisplay
        """
        return cls._from_scores(y_true, y_score, _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                                sample_weight, pos_label, rank_by, decisions, "BMR decisions",
                                dict(rules=rules, X=X, x_axis=x_axis, y_axis=y_axis, name=name, budget=budget),
                                dict(ax=ax, zoom=zoom, xlim=xlim))

    @classmethod
    def _from_scores(cls, y_true, y_score, costs_kw, sample_weight, pos_label, rank_by, decisions, decision_label,
                     opts, plot_kw):
        """from_predictions with the decisions' legend label (from_estimator names its own rule)."""
        rules, X, x_axis, budget = opts["rules"], opts["X"], opts["x_axis"], opts["budget"]
        yt, s, c, w = _prepare(y_true, y_score, "y_score", costs_kw, sample_weight, pos_label=pos_label)
        w = _weights(w, len(yt))
        caught_row, alert_row = misclassification_costs(c)
        pos, neg = w * (yt == 1), w * (yt == 0)
        proba = bool(np.all((s >= 0) & (s <= 1)))
        ranked_by = _ranking(rank_by, proba, caught_row, alert_row)
        key = s * caught_row - (1.0 - s) * alert_row if ranked_by == "expected_money" else s
        order = np.argsort(-key, kind="stable")
        ends = np.flatnonzero(np.diff(key[order], append=np.nan) != 0)  # last row of each tie group

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
        d = _decisions(decisions, proba, s, c, len(yt))
        point = None if d is None else dict(
            alert_rate=float(w @ d / w.sum()), fpr=float(neg @ d / neg.sum()) if neg.sum() else np.nan,
            money_caught=float((pos * caught_row) @ d), alert_cost=float((neg * alert_row) @ d), label=decision_label)
        disp = cls(alert_rate=rates["alert_rate"], fpr=fpr, money_caught=cum(pos * caught_row),
                   alert_cost=cum(neg * alert_row), cost_no_alerts=none, cost_flag_all=flag_all, rule_table=table,
                   rule_alert_rate=alert_rate, x_axis=x_axis, y_axis=opts["y_axis"], name=opts["name"],
                   budget=budget, budget_label=label, ranked_by=ranked_by, decision_point=point)
        return disp.plot(**plot_kw)

    @classmethod
    @fill_doc(**_LABEL_DOCS, y_labels=_Y_DOC)
    def from_estimator(cls, estimator, X, y, *, rules=None, ax=None, name=None, pos_label=None, **kwargs):
        """:meth:`from_predictions` with the estimator's P(y=pos_label) (or decision function) on X.

        The marker shows the estimator's own decisions on X: ``estimator.predict(X, cost_matrix=...)``
        with the rows' costs when its ``predict`` takes them (this library's cost-sensitive
        estimators: their ``decision_`` rule, Bayes minimum risk under ``decision="bmr"``), else
        Bayes minimum risk on its ``predict_proba`` (``decisions="auto"``). The curve is ranked
        as ``rank_by`` says (default: by expected net money when ``predict_proba`` gives the
        score and the costs differ between rows).

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
            Costs, ``sample_weight``, ``x_axis``, ``y_axis``, ``budget``, ``zoom``, ``xlim``,
            ``rank_by`` and ``decisions`` as in :meth:`from_predictions`.

        Returns
        -------
        MoneyCurveDisplay
        """
        costs_kw = {k: kwargs.pop(k) for k in ("fp_cost", "fn_cost", "tp_cost", "tn_cost", "cost_matrix")
                    if k in kwargs}
        costs_kw = _costs_kw(**{"tp_cost": 0.0, "tn_cost": 0.0, "fp_cost": None, "fn_cost": None,
                                "cost_matrix": None, **costs_kw})
        score = _score_of(estimator, X, pos_label)
        rank_by, decisions = kwargs.pop("rank_by", "auto"), kwargs.pop("decisions", "auto")
        label = "BMR decisions"
        if isinstance(decisions, str) and decisions == "auto" and not hasattr(estimator, "predict_proba"):
            decisions = False  # a decision function is no probability: no BMR
        if isinstance(decisions, str) and decisions == "auto" and _predict_takes_costs(estimator):
            pred = np.asarray(estimator.predict(X, **costs_kw))
            decisions = (pred == _positive_class(estimator, pos_label)).astype(np.int64)
            label = f"{type(estimator).__name__}.predict"
        opts = dict(rules=rules, X=X, x_axis=kwargs.pop("x_axis", "alert_rate"),
                    y_axis=kwargs.pop("y_axis", "net_money"), name=name or type(estimator).__name__,
                    budget=kwargs.pop("budget", None))
        plot_kw = dict(ax=ax, zoom=kwargs.pop("zoom", True), xlim=kwargs.pop("xlim", None))
        sample_weight = kwargs.pop("sample_weight", None)
        if kwargs:
            raise TypeError(f"from_estimator got unexpected keyword argument(s) {sorted(kwargs)}")
        return cls._from_scores(y, score, costs_kw, sample_weight, pos_label, rank_by, decisions, label, opts,
                                plot_kw)


def _ranking(rank_by, proba, caught_row, alert_row):
    """"expected_money" or "score": what orders the rows (``rank_by`` as documented in from_predictions)."""
    _choice(rank_by, "rank_by", ("auto", "expected_money", "score"))
    if rank_by == "expected_money" and not proba:
        raise ValueError("rank_by='expected_money' needs y_score to be the probability P(y=pos_label), in [0, 1]; "
                         "use rank_by='score' for other scores")
    if rank_by == "auto":
        per_row = np.ptp(caught_row) > 0 or np.ptp(alert_row) > 0  # equal costs: both orders coincide
        return "expected_money" if proba and per_row else "score"
    return rank_by


def _decisions(decisions, proba, s, costs, n):
    """0/1 decisions of the marker (int64) or None: ``decisions`` as documented in from_predictions."""
    if isinstance(decisions, str):
        _choice(decisions, "decisions", ("auto",))
        return bmr_decisions(s, costs) if proba else None
    if decisions is False or decisions is None:
        return None
    d = np.asarray(decisions)
    if d.shape != (n,):
        raise ValueError(f"decisions must hold one 0/1 decision per row ({n}), got shape {d.shape}")
    if d.dtype == bool:
        return d.astype(np.int64)
    if d.dtype.kind not in "iuf" or not np.all((d == 0) | (d == 1)):
        raise ValueError("decisions must hold 0/1 decisions (1 = alert), 'auto' or False")
    return d.astype(np.int64)


def _predict_takes_costs(estimator):
    """True when ``estimator.predict`` accepts the rows' costs (this library's cost-sensitive estimators)."""
    import inspect

    try:
        params = inspect.signature(estimator.predict).parameters
    except (AttributeError, TypeError, ValueError):
        return False
    return "cost_matrix" in params


def _positive_class(estimator, pos_label):
    """The label of ``predict`` that means "alert": ``pos_label``, else the last of ``classes_`` (as the score)."""
    if pos_label is not None:
        return pos_label
    classes = getattr(estimator, "classes_", None)
    return 1 if classes is None else classes[-1]
