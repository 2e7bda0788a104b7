"""The host contract: what the shared boosting layer asks of a host library (xgboost, lightgbm, CatBoost).

:class:`BoostingHost` declares every hook, abstract, that the shared estimator base
(``_sklearn_base``: ``fit``, ``predict_proba``, ``save_model`` / ``load_model``) and the decision
layer (``_decision_layer``: ``decision="auto"``, the money and swap guards) call. The shared code
never imports a host library: it hands the host prepared data and gets native boosters back,
which it only passes to other hooks (``_booster_margin(booster, X)``, ``_save_booster(booster, ...)``).

:class:`FitContext` is the state of one running ``fit`` (the start margins given by the user,
the host's fit keywords, the native data sets both boosters are trained on); it lives as long
as the call and is never an attribute of the estimator.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

__all__ = ["HOOKS", "BoostingHost", "FitContext"]


@dataclass
class FitContext:
    """State of one ``fit`` call, handed to the hooks that fit (not public).

    Attributes
    ----------
    start : FitStart or None
        Where the boosting starts, as the user gave it (``_sklearn_base.FitStart``): per-row start
        margins and the model to continue.
    options : dict
        The host's own ``fit`` keywords (xgboost ``verbose``; lightgbm ``callbacks``,
        ``categorical_feature``, ``eval_names``).
    data : dict
        Whatever the host built to train the AEC booster and wants to reuse for the logloss booster
        (xgboost's DMatrix objects, lightgbm's Datasets: one construction, one binning; CatBoost's
        pools, kept alive until the fit ends because its metrics find their costs by them).
    """

    start: object = None
    options: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)

    def offset(self, X):
        """Start margins given at fit for the rows of the validated ``X`` (by identity), or None."""
        return None if self.start is None else self.start.offset(X)

    @property
    def verbose(self):
        """The fit's verbosity keyword (None when the host's ``fit`` has none)."""
        return self.options.get("verbose")


class BoostingHost(abc.ABC):
    """Hooks a host library implements for the shared estimator base and decision layer (not public).

    A "booster" is the host's native model object (``xgboost.Booster``, ``lightgbm.Booster``,
    ``catboost.CatBoostClassifier``), deployable: its plain probability is ``sigmoid(margin)``.
    Margins are log-odds (start margin included), float64 arrays of shape (n,).
    """

    # ------------------------------------------------------------------ fit
    @abc.abstractmethod
    def _fit_booster(self, ctx, X, y, costs, w, evals, margin0):
        """Fit the AEC booster on prepared data.

        ``X`` validated features, ``y`` 0/1 float64 labels, ``costs`` (n, 4) money
        ``[C_FP, C_FN, C_TP, C_TN]``, ``w`` row weights or None, ``evals`` a list of
        ``(X_k, y_k, costs_k, w_k)`` (the last one is watched), ``margin0`` the start margin
        (log-odds). Sets ``booster_`` (deployable), ``best_iteration_`` (host convention),
        ``evals_result_`` and ``n_estimators_``; may keep data for the logloss booster in
        ``ctx.data``.
        """

    @abc.abstractmethod
    def _fit_logloss_booster(self, ctx, recipe, y, w, evals):
        """Fit the logloss booster of ``decision="auto"`` on the data the AEC booster was fitted on.

        ``recipe`` is the :class:`~csboost_plugins.boosting._decision_layer.LoglossRecipe` (round
        budget, early-stopping patience, native parameters over the estimator's tree parameters).
        Returns ``(booster, fitted)``: ``fitted`` maps estimator attributes describing that booster
        (``best_iteration_`` in the host's convention, ``n_estimators_``, ``start_margin_``, ...)
        to their values; they are set when the logloss rule is chosen.
        """

    # -------------------------------------------------------------- scoring
    @abc.abstractmethod
    def _booster_margin(self, booster, X, offset=None):
        """Margins (log-odds, float64 of shape (n,)) of validated ``X`` under ``booster``.

        ``offset``: per-row start margins given at fit (``base_margin`` / ``init_score``) that
        replace the start margin the booster holds, or None.
        """

    @abc.abstractmethod
    def _cut_booster(self, booster, rounds):
        """A copy of ``booster`` with its first ``rounds`` boosting rounds (start margin kept)."""

    @abc.abstractmethod
    def _booster_n_features(self, booster):
        """Number of feature columns ``booster`` was trained on (int)."""

    @abc.abstractmethod
    def _booster_rounds(self, booster):
        """Number of boosting rounds in ``booster`` (int)."""

    # ----------------------------------------------------------- save / load
    @abc.abstractmethod
    def _save_booster(self, booster, path, meta):
        """Write ``booster`` to ``path`` in the host's native format, with the JSON text ``meta``
        stored where plain host code ignores it; plain host code must load the file and predict
        ``sigmoid(margin)``."""

    @staticmethod
    @abc.abstractmethod
    def _load_booster(path):
        """``(booster, meta)`` from a file of :meth:`_save_booster` (``meta`` None for a plain native file)."""


#: the hooks every host implements (the abstract methods of :class:`BoostingHost`)
HOOKS = ("_fit_booster", "_fit_logloss_booster", "_booster_margin", "_cut_booster", "_booster_n_features",
         "_booster_rounds", "_save_booster", "_load_booster")
