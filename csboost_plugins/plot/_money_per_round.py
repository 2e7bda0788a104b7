"""A money metric per boosting round, train against validation, best iteration marked."""

from __future__ import annotations

import numpy as np

from .._docstrings import fill_doc
from .._metric_names import lower_is_better
from ._common import _axes

__all__ = ["MoneyPerRoundDisplay"]


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
        ax.set_ylabel(self.metric + (" (lower is better)" if lower_is_better(self.metric) else ""))
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
