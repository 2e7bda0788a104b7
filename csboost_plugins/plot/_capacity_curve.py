"""Net money against the alert capacity (alerts per period): ranking by alert value vs by score."""

from __future__ import annotations

import numbers

import numpy as np

from .._capacity import check_capacity, period_ranks
from .._cost_scorer import pos_label_score
from .._docstrings import fill_doc
from ..costs import check_same_index, row_index
from ..decision_costs import misclassification_costs, net_alert_value
from ..metrics import _LABEL_DOCS, _costs_kw, _prepare
from ._common import _axes

__all__ = ["CapacityCurveDisplay"]

_CAPACITY_X_DOC = """periods : array-like of shape (n_samples,), optional
    Period label of each row (day, shift, hour; no missing value): the capacity is per
    period. None: all rows form one period.
max_capacity : int >= 1, optional
    Largest capacity drawn (alerts per period), at most the rows of the largest period (a
    capacity above it is no cap). Default: 1.5 times the most rows any period has with a
    positive alert value (where ranking by alert value reaches uncapped Bayes minimum risk); with
    ``entity``, capacities count entities and the default is 1.5 times the most entities of
    positive summed alert value in a period.
entity : array-like of shape (n_samples,), optional
    Card or customer id of each row (no missing value): the capacity counts entities per period,
    every row of an alerted entity in the period flagged (the x axis counts entities). An entity
    is worth the sum of its rows' alert values ``V = sum_i v_i`` when ranking by alert value
    (among entities with ``V > 0``, :func:`csboost_plugins.metrics.bayes_minimum_risk` with
    ``entity``), its rows' largest score when ranking by score; ties to the entity seen first."""


def _curve(ranks, gain, n_capacities):
    """Net money at capacities 0..n_capacities-1 of flagging the rows with rank < k."""
    ok = ranks >= 0
    per_rank = np.bincount(ranks[ok], weights=gain[ok], minlength=n_capacities)[:n_capacities]
    return np.concatenate(([0.0], np.cumsum(per_rank)[:n_capacities - 1]))


class CapacityCurveDisplay:
    """Net money as a function of the alert capacity: ``k`` alerts per period, for ``k = 0, 1, ...``.

    Three policies, on the same labelled rows:

    * ranking by alert value: in each period, flag the ``k`` rows with the largest expected
      net money of an alert ``v = p (C_FN - C_TP) - (1 - p)(C_FP - C_TN)`` among those with
      ``v > 0`` (:func:`csboost_plugins.metrics.bayes_minimum_risk` with ``max_alerts=k``);
    * ranking by score: flag the ``k`` rows with the highest score (the probability itself
      unless another score is given), whatever their money;
    * uncapped Bayes minimum risk: every row with ``v > 0`` (a horizontal line).

    Net money is the money saved against flagging nothing (costs' unit): ``C_FN - C_TP`` per
    flagged positive minus ``C_FP - C_TN`` per flagged negative. Ties in a period go by row
    order, as in the decisions. With ``entity`` the capacity counts entities (cards, customers)
    per period instead of rows and flagging an entity flags all its rows of the period; the
    uncapped line stays per row (``entity`` without a cap changes nothing).

    The capacity marked is the smallest ``k`` at which the net money of ranking by alert value
    is largest: beyond it the marginal alert per period stops paying, i.e. the extra alerts lose
    more on false alerts than they catch on these rows.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`.

    Parameters
    ----------
    capacity : array-like of int
        Alerts per period, ``0, 1, ..., K``.
    net_money_value, net_money_score : array-like
        Net money of ranking by alert value and by score at each capacity.
    net_money_bmr : float
        Net money of uncapped Bayes minimum risk.
    bmr_alerts_per_period : int
        The most alerts uncapped Bayes minimum risk raises in one period (with ``unit="entities"``:
        the most entities it flags a row of).
    n_periods : int
        Number of periods.
    name : str, optional
        Legend name of the model.
    score_name : str, optional
        Legend name of the score ranked by (default "score").
    unit : {"alerts", "entities"}, default "alerts"
        What the capacity counts (the x axis).

    Attributes
    ----------
    best_capacity : int
        The marked capacity (smallest argmax of ``net_money_value``).
    line_value_, line_score_, line_bmr_, best_line_ : matplotlib.lines.Line2D
        The three policies' lines and the vertical line at ``best_capacity``.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, *, capacity, net_money_value, net_money_score, net_money_bmr, bmr_alerts_per_period,
                 n_periods, name=None, score_name=None, unit="alerts"):
        self.capacity = np.asarray(capacity)
        self.net_money_value, self.net_money_score = np.asarray(net_money_value), np.asarray(net_money_score)
        self.net_money_bmr, self.bmr_alerts_per_period = float(net_money_bmr), int(bmr_alerts_per_period)
        self.n_periods = int(n_periods)
        self.name, self.score_name = name, score_name
        if unit not in ("alerts", "entities"):
            raise ValueError(f"unit must be 'alerts' or 'entities', got {unit!r}")
        self.unit = unit
        self.best_capacity = int(self.capacity[int(np.argmax(self.net_money_value))])

    @fill_doc
    def plot(self, ax=None, *, name=None):
        """Draw the three policies and mark :attr:`best_capacity`.

        %(Parameters, ax)s
        name : str, optional
            Legend name of the model.

        Returns
        -------
        CapacityCurveDisplay
            self.
        """
        ax, fig = _axes(ax)
        name = name or self.name
        prefix = f"{name}: " if name else ""
        k, best = self.capacity, self.best_capacity
        per = " per period" if self.n_periods > 1 else ""
        self.line_value_, = ax.plot(k, self.net_money_value, color="C0", lw=2,
                                    label=f"{prefix}ranking by alert value (positive ones only)")
        self.line_score_, = ax.plot(k, self.net_money_score, color="C1", lw=1.5, ls="--",
                                    label=f"{prefix}ranking by {self.score_name or 'score'}")
        self.line_bmr_ = ax.axhline(self.net_money_bmr, color="0.4", lw=1, ls=":",
                                    label=f"uncapped Bayes minimum risk ({self.bmr_alerts_per_period} {self.unit}"
                                          f"{' at most' + per if per else ''}): {self.net_money_bmr:,.0f}")
        self.best_line_ = ax.axvline(best, color="C3", lw=1,
                                     label=f"marginal alert stops paying beyond {best}{per}")
        ax.plot([best], [self.net_money_value[int(np.argmax(self.net_money_value))]], "o", color="C3")
        counted = "alerts" if self.unit == "alerts" else "entities alerted"
        ax.set_xlabel(f"capacity: {counted}{per}" + (f" ({self.n_periods} periods)" if per else ""))
        ax.set_ylabel("net money saved vs no alerts")
        ax.set_xlim(0, k[-1])
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # capacities are whole alerts
        ax.legend(loc="lower right", fontsize="small")
        ax.grid(alpha=0.3)
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    @fill_doc(**_LABEL_DOCS, capacity_x=_CAPACITY_X_DOC)
    def from_predictions(cls, y_true, y_proba, *, periods=None, y_score=None, fp_cost=None, fn_cost=None,
                         tp_cost=0.0, tn_cost=0.0, cost_matrix=None, max_capacity=None, ax=None, name=None,
                         score_name=None, pos_label=None, entity=None):
        """Capacity curve of probabilities on labelled rows.

        Parameters
        ----------
        %(y_true)s
        y_proba : array-like of shape (n_samples,) or (n_samples, 2)
            P(y = pos_label) per row (the alert value needs a probability), or a ``predict_proba``
            output whose ``pos_label`` column is read.
        %(capacity_x)s
        y_score : array-like of shape (n_samples,), optional
            The score a team ranks by today (higher = alerted first). Default: ``y_proba``.
        %(costs)s
        %(ax)s
        name : str, optional
            Legend name of the model.
        score_name : str, optional
            Legend name of ``y_score``.
        %(pos_label)s

        Returns
        -------
        CapacityCurveDisplay
        """
        costs_kw = _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix)
        yt, p, c, _ = _prepare(y_true, y_proba, "y_proba", costs_kw, None, pos_label=pos_label)
        score = p if y_score is None else _prepare(y_true, y_score, "y_score", costs_kw, None,
                                                   pos_label=pos_label)[1]
        n = yt.shape[0]
        # a cap of 1 only to validate the periods (and entities) and get their codes
        cap = check_capacity(n, max_alerts=1, periods=periods, entity=entity, index=row_index(y_true),
                             index_name="y_true")
        n_periods = cap.caps.shape[0]
        caught, wasted = misclassification_costs(c)
        gain = np.where(yt == 1, caught, -wasted)  # net money of flagging the row
        v = net_alert_value(p, c)
        ranks_value = period_ranks(v, v > 0, cap.codes, n_periods, cap.entities, "sum")
        ranks_score = period_ranks(score, np.ones(n, dtype=bool), cap.codes, n_periods, cap.entities, "max")
        first = _first_rows(cap)  # one row per unit the capacity counts
        eligible = np.bincount(cap.codes[(ranks_value >= 0) & first], minlength=n_periods)  # alertable per period
        sizes = np.bincount(cap.codes[first], minlength=n_periods)
        top = _max_capacity(max_capacity, eligible, sizes)
        disp = cls(capacity=np.arange(top + 1), net_money_value=_curve(ranks_value, gain, top + 1),
                   net_money_score=_curve(ranks_score, gain, top + 1), net_money_bmr=float(gain[v > 0].sum()),
                   bmr_alerts_per_period=_bmr_alerts(v > 0, cap, n_periods), n_periods=n_periods, name=name,
                   score_name=score_name, unit="alerts" if entity is None else "entities")
        return disp.plot(ax)

    @classmethod
    @fill_doc(**_LABEL_DOCS, capacity_x=_CAPACITY_X_DOC)
    def from_estimator(cls, estimator, X, y, *, periods=None, max_capacity=None, ax=None, name=None, pos_label=None,
                       entity=None, **kwargs):
        """:meth:`from_predictions` with the estimator's ``predict_proba`` column of ``pos_label`` on X.

        Parameters
        ----------
        estimator : fitted classifier
            Has ``predict_proba``.
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows.
        y : array-like of shape (n_samples,)
            Their labels.
        %(capacity_x)s
        %(ax)s
        name : str, optional
            Legend name (default: the estimator's class name).
        %(pos_label)s
        **kwargs
            Costs, ``y_score``, ``score_name`` as in :meth:`from_predictions`.

        Returns
        -------
        CapacityCurveDisplay
        """
        if not hasattr(estimator, "predict_proba"):
            raise TypeError(f"{type(estimator).__name__} has no predict_proba: the alert value needs a probability")
        check_same_index([("entity", entity)], row_index(X), "X")  # rows match by position
        proba = pos_label_score(estimator, estimator.predict_proba(X), pos_label, "predict_proba")
        return cls.from_predictions(y, proba, periods=periods, max_capacity=max_capacity, ax=ax,
                                    name=name or type(estimator).__name__, pos_label=pos_label, entity=entity, **kwargs)


def _first_rows(cap):
    """Mask of the first row of each unit the capacity counts: every row, or each (period, entity) group's first."""
    if cap.entities is None:
        return np.ones(cap.codes.shape[0], dtype=bool)
    from .._entity_capacity import group_rows

    first = np.zeros(cap.codes.shape[0], dtype=bool)
    first[np.unique(group_rows(cap.codes, cap.entities)[0], return_index=True)[1]] = True
    return first


def _bmr_alerts(flagged, cap, n_periods):
    """The most rows (entities, with entities) uncapped Bayes minimum risk flags in one period."""
    if cap.entities is not None:
        from .._entity_capacity import group_rows

        group, group_period = group_rows(cap.codes, cap.entities)
        return int(np.bincount(group_period[np.unique(group[flagged])], minlength=n_periods).max(initial=0))
    return int(np.bincount(cap.codes[flagged], minlength=n_periods).max(initial=0))


def _max_capacity(max_capacity, eligible, sizes):
    if max_capacity is not None:
        if isinstance(max_capacity, (bool, np.bool_)) or not isinstance(max_capacity, numbers.Integral) \
                or max_capacity < 1:
            raise ValueError(f"max_capacity must be an integer >= 1 (alerts per period), got {max_capacity!r}")
        return min(int(max_capacity), int(sizes.max(initial=1)))  # beyond the largest period the curve is flat
    most = int(np.ceil(1.5 * eligible.max(initial=0)))
    return max(1, min(most, int(sizes.max(initial=1))))
