"""Savings of a probability model as its Bayes decision thresholds are scaled."""

from __future__ import annotations

import numpy as np

from .._cost_scorer import pos_label_score
from .._docstrings import fill_doc
from ..decision_costs import bayes_thresholds, row_cost, trivial_policy_costs
from ..metrics import _LABEL_DOCS, _costs_kw, _prepare
from ._common import _Y_DOC, _Y_LABELS, _axes, _choice, _weights, _savings

__all__ = ["ThresholdScalingDisplay"]


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
