"""scikit-learn wrapper of the xgboost AEC plugin: :class:`CSXGBClassifier`.

Public as ``csboost_plugins.xgb.CSXGBClassifier``; the native helpers live in
:mod:`csboost_plugins.boosting._xgb_native`, which this module imports (never the reverse).
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import scipy.sparse as sp
import xgboost as xgb
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _aec, _decision_layer, _money_eval
from . import _xgb_native as _native
from ._decision_layer import DEFAULT_ESTIMATOR_DECISION, VALIDATION_FRACTION, metric_decision
from ._sklearn_base import DOCS, META_KEY, CostSensitiveBoostingMixin, check_margins, native_error, native_seed
from .._docstrings import fill_doc
from .._params import store_init_args
from ._money_eval import DEFAULT_WATCH
from ._xgb_native import AECObjective, MoneyMetrics
from ..costs import row_index

__all__ = ["CSXGBClassifier"]

# native names in xgboost's messages -> the keyword of this estimator
_ALIASES = {"eta": "learning_rate", "lambda": "reg_lambda", "alpha": "reg_alpha", "nthread": "n_jobs",
            "seed": "random_state", "min_split_loss": "gamma"}
# XGBClassifier keywords that are not booster parameters (handled by the wrapper / DMatrix)
_WRAPPER_ONLY = ("objective", "n_estimators", "base_score", "random_state", "missing", "importance_type",
                 "enable_categorical", "feature_types", "feature_weights", "eval_metric", "early_stopping_rounds",
                 "callbacks")

# native parameters the AEC sets itself: ``params`` may not override them (-> what to use instead)
_NOT_IN_PARAMS = {
    "objective": "the loss is always the AEC (blend logloss with logloss_weight=, or use xgboost.XGBClassifier)",
    "base_score": "the start is base_score= (a probability, as in XGBClassifier) or start_margin= (a margin)",
}


@fill_doc(**DOCS)
class CSXGBClassifier(CostSensitiveBoostingMixin):
    """xgboost trees trained on the average expected cost, as a scikit-learn classifier.

    A drop-in for ``xgboost.XGBClassifier``: every keyword it accepts is accepted
    here with the same meaning (``tree_method``, ``device``, ``enable_categorical``,
    ``max_cat_to_onehot``, ``interaction_constraints``, ``importance_type``,
    ``callbacks``, ... and any further native parameter as ``**kwargs``), except
    ``objective``, which is the AEC (another loss raises a ``ValueError``). ``X`` may
    also be scipy sparse (CSR / CSC: an absent entry is a missing value, as in xgboost).

    ``fit(X, y, fp_cost=..., fn_cost=..., tp_cost=0, tn_cost=0, sample_weight=None,
    eval_set=..., eval_costs=...)``, with ``XGBClassifier.fit``'s ``base_margin``,
    ``base_margin_eval_set`` and ``xgb_model`` (continued training); costs are
    routable with metadata routing (``set_fit_request(fp_cost=True, fn_cost=True)``). ``predict_proba`` returns
    probabilities sigmoid(margin), ``decision_function`` the margins (start margin
    included). By default (``decision="auto"``) the model is the better of an AEC
    booster and a logloss booster on validation money, and
    ``predict(X, fp_cost=..., fn_cost=...)`` decides each row with its own costs
    (Bayes minimum risk); ``decision="0.5"`` is the csboost paper's AEC model alone,
    whose ``predict(X)`` thresholds at 1/2.

    %(continued_training)s
    xgboost: a row's ``base_margin`` replaces ``base_score`` (which holds
    ``start_margin_``); the model does not hold it, so ``predict`` / ``predict_proba``
    take ``base_margin=`` as ``XGBClassifier``'s do.

    Parameters
    ----------
    n_estimators : int, default 100
        Boosting rounds.
    learning_rate : float, default 0.1
        Shrinkage (xgboost ``eta``; xgboost's own default is 0.3).
    max_depth, max_leaves, max_bin, grow_policy, booster, tree_method, gamma, max_delta_step, subsample, \
sampling_method, colsample_bytree, colsample_bylevel, colsample_bynode, reg_alpha, reg_lambda, \
num_parallel_tree, monotone_constraints, interaction_constraints, device, validate_parameters, \
max_cat_to_onehot, max_cat_threshold, multi_strategy, verbosity : optional
        xgboost parameters, meaning and defaults as ``XGBClassifier`` (here
        ``max_depth=6``, ``max_bin=256``, ``tree_method="hist"``).
    min_child_weight : float, default 1.0
        Minimum hessian of a leaf; with ``reg_lambda`` it acts on the
        cost-scaled hessian, so it means the same for any currency.
    objective : None or "aec"
        The loss is always the AEC; any other value raises ``ValueError``.
    base_score : float in (0, 1), optional
        As in ``XGBClassifier`` (a probability): starts the boosting at
        logit(base_score) instead of ``start_margin``.
    scale_pos_weight : float, optional
        Multiplies the weight of the positive rows (xgboost applies it inside
        ``binary:logistic``, which the AEC replaces).
    random_state : int, RandomState or None
        Seed of the booster; None is xgboost's default seed 0 (repeatable fits, as
        ``XGBClassifier``), a ``RandomState`` draws one.
    n_jobs : int, optional
        Threads (``nthread``).
    missing : float, default NaN
        Value read as missing.
    enable_categorical : bool, default False
        Let xgboost encode pandas ``category`` columns (needed for them, as natively).
    feature_types, feature_weights : optional
        Given to the ``DMatrix``.
    importance_type : str, optional
        Kind of ``feature_importances_`` ("gain" by default, as xgboost).
    callbacks : list of xgboost.callback.TrainingCallback, optional
        Called every round, as in ``XGBClassifier``.
    eval_metric : {"aec", "savings", "expected_savings"}, default "aec"
        Money metric watched by early stopping. "aec" is smooth; savings of 0/1
        decisions is flat while every s is on one side of 1/2 and stopped too
        early in benchmarks/bench_boosting_money.py.
    early_stopping_rounds : int, optional
        Stop when ``eval_metric`` on the last eval set has not improved for this
        many rounds; the booster is cut at the best round. With ``decision="auto"``
        None means 30 (both boosters stop on the validation rows).
    hessian : {"abs", "fisher", "bound", "exact"}, default "abs"
        Hessian policy of the AEC objective (see :class:`csboost_plugins.xgb.AECObjective`).
    hessian_floor : float in [0, 1], default 0.1
        Floor on abs(1 - 2s) for ``hessian="abs"``.
    logloss_weight : float, default 0.0
        alpha of the blend ``AEC / cost_scale + alpha * logloss``.
    start_margin : "cost_prior", "prior" or float, default "cost_prior"
        Starting margin; "cost_prior" = logit of the share of regret mass
        preferring class 1, "prior" = logit of the weighted positive rate (see
        :func:`csboost_plugins.boosting._aec.start_margin`).
    decision : {"auto", "0.5", "bmr"}, default "auto"
        How ``predict`` decides. "auto": besides the AEC booster, fit a logloss
        booster with the same tree parameters on the same data, early-stop both on the
        validation rows (the last ``eval_set`` with its ``eval_costs``; without one a
        stratified ``validation_fraction`` of the rows, seeded by ``random_state``, is
        held out and not refitted on), and keep logloss + Bayes minimum risk unless an
        AEC rule (s > 1/2, or BMR on the AEC probability) clearly saves more money there:
        by three standard errors of the paired per-row difference, and still without its
        largest rows (``decision_``, ``validation_savings_``; see
        :mod:`csboost_plugins.boosting._decision_layer`). The BMR rules need each row's costs at
        ``predict(X, fp_cost=..., fn_cost=...)`` (a ``ValueError`` names them otherwise).
        "0.5": the AEC booster alone, ``predict(X)`` = s > 1/2 (the csboost paper's
        decision, no costs needed; with costs: BMR on the AEC probability, which counts
        the costs twice). "bmr": the AEC booster, money metrics with BMR decisions.
        With "bmr" and "auto" ``predict`` requests the costs in metadata routing, so
        ``make_savings_scorer`` and pipelines pass each fold's costs to it (with "0.5":
        ``set_predict_request(cost_matrix=True)``).
    validation_fraction : float in (0, 1) or None, default 0.2
        Share of the training rows ``decision="auto"`` holds out (stratified) when
        ``fit`` gets no ``eval_set``; None, or too few rows of a class to hold out
        (fewer than 10 per class in that part): both boosters use every row, without
        early stopping, and logloss + BMR decides.
    %(pos_label)s
    params : dict, optional
        Further native xgboost parameters (override the above; a native name such as
        ``eta``, ``lambda``, ``alpha``, ``min_split_loss``, ``nthread`` or ``seed``, here
        or as a keyword, replaces the keyword it aliases).
    **kwargs : dict
        Further native xgboost parameters, as in ``XGBClassifier``.

    Attributes
    ----------
    booster_ : xgboost.Booster
        The booster ``predict_proba`` and ``predict`` use: with ``decision="auto"`` the
        chosen rule's (``logloss_booster_`` for "logloss+bmr", else ``aec_booster_``),
        otherwise the AEC booster. Deployable: saved with ``save_model`` (or
        ``get_booster().save_model``), plain xgboost's ``predict`` returns
        ``predict_proba(X)[:, 1]``; ``predict(..., output_margin=True)`` returns the margin.
    %(fitted_columns)s
    feature_importances_ : ndarray of shape (n_features,)
        See the property.
    cost_scale_ : float
        Money unit the costs were divided by (see :class:`csboost_plugins.xgb.AECObjective`).
    start_margin_ : float
        Margin the boosting started from, held as ``base_score``: rows scored without
        ``base_margin`` start from it. After ``fit(xgb_model=...)`` the init model's.
    evals_result_ : dict
        Money metrics of each eval set per round.
    best_iteration_ : int or None
        0-based best round with early stopping (xgboost's convention: the model keeps
        ``best_iteration_ + 1`` rounds), else None.
    n_estimators_ : int
        Rounds in the booster.
    decision_ : {"aec", "aec+bmr", "logloss+bmr"}
        Rule of ``predict``; with ``decision="auto"`` chosen on validation money.
    validation_savings_ : dict or None
        Validation savings of each rule (``decision="auto"``).
    aec_booster_, logloss_booster_ : xgboost.Booster or None
        The two boosters of ``decision="auto"`` (None otherwise). ``best_iteration_``,
        ``best_score``, ``n_estimators_`` and ``start_margin_`` describe ``booster_``;
        ``evals_result_`` holds the AEC booster's money metrics per round.

    Every fit warns (:class:`csboost_plugins.MoneyLossWarning`) when the fitted
    decisions save less than the trivial policy (savings < 0) on the validation set
    (training rows without one), naming the likely cause.
    """

    _native_names = ("max_depth", "max_leaves", "max_bin", "grow_policy", "learning_rate", "verbosity", "booster",
                     "tree_method", "n_jobs", "gamma", "min_child_weight", "max_delta_step", "subsample",
                     "sampling_method", "colsample_bytree", "colsample_bylevel", "colsample_bynode", "reg_alpha",
                     "reg_lambda", "num_parallel_tree", "monotone_constraints", "interaction_constraints", "device",
                     "validate_parameters", "max_cat_to_onehot", "max_cat_threshold", "multi_strategy")
    _native_library = "xgboost"

    def __init__(self, *, n_estimators=100, learning_rate=0.1, max_depth=6, max_leaves=None, max_bin=256,
                 grow_policy=None, verbosity=None, objective=None, booster=None, tree_method="hist", n_jobs=None,
                 gamma=0.0, min_child_weight=1.0, max_delta_step=None, subsample=1.0, sampling_method=None,
                 colsample_bytree=1.0, colsample_bylevel=None, colsample_bynode=None, reg_alpha=0.0, reg_lambda=1.0,
                 scale_pos_weight=None, base_score=None, random_state=None, missing=np.nan,
                 num_parallel_tree=None, monotone_constraints=None, interaction_constraints=None,
                 importance_type=None, device=None, validate_parameters=None, enable_categorical=False,
                 feature_types=None, feature_weights=None, max_cat_to_onehot=None, max_cat_threshold=None,
                 multi_strategy=None, eval_metric=DEFAULT_WATCH, early_stopping_rounds=None, callbacks=None,
                 hessian="abs", hessian_floor=0.1, logloss_weight=0.0, start_margin="cost_prior",
                 decision=DEFAULT_ESTIMATOR_DECISION, validation_fraction=VALIDATION_FRACTION, pos_label=None,
                 params=None, **kwargs):
        store_init_args(self, locals())
        self._set_other_params(kwargs)

    # ------------------------------------------------------------- parameters
    def _start_margin_kind(self):
        if self.base_score is None:
            return self.start_margin
        b = self.base_score
        if not (np.ndim(b) == 0 and 0 < float(b) < 1):
            raise ValueError(f"base_score is a probability in (0, 1) (as in XGBClassifier), got {b!r}")
        if self.start_margin != "cost_prior":
            raise ValueError("give base_score (a probability) or start_margin (a margin), not both")
        return float(np.log(b) - np.log1p(-b))

    def _class_weight(self, y01, w):
        if self.scale_pos_weight is None:
            return w
        spw = float(self.scale_pos_weight)
        if not (np.isfinite(spw) and spw > 0):
            raise ValueError(f"scale_pos_weight must be a positive number, got {self.scale_pos_weight!r}")
        out = np.ones(y01.shape[0]) if w is None else w.copy()
        out[y01 == 1] *= spw
        return out

    def _native_params(self, margin0):
        native = {k: getattr(self, k) for k in self._native_names}
        native.update(self._other_native_params())
        # xgboost's own translation of its scikit-learn keywords (public API)
        p = xgb.XGBClassifier(**native).get_xgb_params()
        p = {k: v for k, v in p.items() if v is not None and k not in _WRAPPER_ONLY}
        # None: xgboost's own default seed 0, so refits repeat as XGBClassifier's do
        p.update(seed=0 if self.random_state is None else native_seed(self.random_state))
        # a native spelling (eta=, params={"lambda": ...}) wins over the default of the keyword it aliases;
        # with both in the dict xgboost would apply the keyword's (learning_rate=0.1)
        for name, keyword in _ALIASES.items():
            if name in native or name in (self.params or {}):
                p.pop(keyword, None)
                p[name] = (self.params or {}).get(name, native.get(name))
        p.update(base_score=margin0, disable_default_eval_metric=1)
        for key, instead in _NOT_IN_PARAMS.items():
            if key in (self.params or {}):
                raise ValueError(f"params[{key!r}]={self.params[key]!r}: {instead}")
        p.update(self.params or {})
        return p

    # -------------------------------------------------------------------- fit
    def _read_X(self, X, reset, y=None):
        if not sp.issparse(X):
            return super()._read_X(X, reset, y)
        # as XGBClassifier: CSR / CSC go to the DMatrix as they are (an absent entry is a missing value)
        kw = dict(accept_sparse=("csr", "csc"), dtype=(np.float64, np.float32), ensure_all_finite="allow-nan",
                  reset=reset)
        return validate_data(self, X, **kw) if y is None else validate_data(self, X, y, **kw)

    def _dmatrix(self, X, y=None, w=None, costs=None, base_margin=None):
        names = None if hasattr(X, "columns") else self._feature_names()
        dm = xgb.DMatrix(X, label=y, weight=w, base_margin=base_margin, missing=self.missing,
                         nthread=self.n_jobs or -1, feature_names=names, feature_types=self.feature_types,
                         feature_weights=self.feature_weights, enable_categorical=self.enable_categorical)
        if costs is not None:
            _money_eval.store_costs(dm, costs)
        return dm

    @fill_doc(**DOCS)
    def fit(self, X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None, eval_set=None, eval_costs=None, eval_sample_weight=None,
            sample_weight_eval_set=None, verbose=False, base_margin=None, base_margin_eval_set=None, xgb_model=None):
        """Fit boosted trees minimising the average expected cost (csboost paper eq. 7).

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse of shape (n, p)
            Numeric (NaN allowed: a missing value); pandas ``category`` columns
            with ``enable_categorical=True``, as natively.
        %(fit_data)s
        sample_weight_eval_set : list of (n_k,) or None, optional
            ``XGBClassifier.fit``'s name for ``eval_sample_weight`` (give one of the two).
        verbose : bool or int, default False
            Print the eval sets' money metrics every round (every ``verbose`` rounds), as
            ``XGBClassifier.fit``.
        base_margin : array-like of shape (n,), optional
            Each training row's start margin (log-odds), as ``XGBClassifier.fit``: it
            replaces ``base_score`` (the start margin ``start_margin_``) for these rows, so
            row i's margin is ``base_margin[i] + sum of trees`` and the trees learn
            corrections to it. The model does not hold it: score such rows with
            ``predict(X, base_margin=...)`` / ``predict_proba(X, base_margin=...)``; rows
            scored without it start from ``start_margin_``. Not with ``decision="auto"``.
        base_margin_eval_set : list of (array-like of shape (n_k,) or None), optional
            One start margin array per eval set, as ``XGBClassifier.fit``: it replaces
            ``base_score`` for the set's rows in the money metrics and early stopping;
            None: that set starts from ``start_margin_``.
        xgb_model : str, path-like, xgboost.Booster, CSXGBClassifier or XGBClassifier, optional
            Continue training this model, as ``XGBClassifier.fit``: its trees (up to its
            ``best_iteration``) are kept and ``n_estimators`` more are boosted from its
            margins, so n rounds then m more from the n-round model equal n + m rounds.
            Its ``base_score`` stays the start margin (``start_margin_`` is the init
            model's; this fit's start margin is not added again); ``cost_scale_`` comes
            from this fit's costs. The booster must be ``binary:logistic`` (this
            estimator's ``booster_``, ``XGBClassifier``'s) or an AEC booster of
            :mod:`csboost_plugins.xgb` (``reg:squarederror``); a path is read as
            :meth:`load_model` reads it. With ``base_margin`` a row starts from its
            base margin plus the init model's trees, as in xgboost.

        %(returns_self)s
        """
        if sample_weight_eval_set is not None:
            if eval_sample_weight is not None:
                raise ValueError("give eval_sample_weight or sample_weight_eval_set (XGBClassifier's name), not both")
            eval_sample_weight = sample_weight_eval_set
        start = dict(train=("base_margin", base_margin), evals=("base_margin_eval_set", base_margin_eval_set),
                     model=("xgb_model", xgb_model))
        return self._fit(X, y, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                    cost_matrix=cost_matrix), sample_weight, eval_set, eval_costs,
                         eval_sample_weight, start, options=dict(verbose=verbose))

    def _init_booster(self, model, name, X):
        if isinstance(model, (str, os.PathLike)):
            if not os.path.isfile(model):
                raise ValueError(f"{name}: no model file {str(model)!r}")
            bst = self._load_booster(str(model))[0]  # as load_model reads it (cut at best_iteration)
        elif isinstance(model, xgb.Booster):
            bst = model
        elif isinstance(model, (xgb.XGBModel, CSXGBClassifier)):
            try:
                bst = model.get_booster()
            except NotFittedError as exc:
                raise NotFittedError(f"{name}: {exc}") from None
        else:
            raise TypeError(f"{name} must be a model file path, an xgboost.Booster or a fitted CSXGBClassifier / "
                            f"XGBClassifier, got {type(model).__name__}")
        objective, base = _native._learner_config(bst)
        if objective not in (*_native._MARGIN_OBJECTIVES, _native._DEPLOYED_OBJECTIVE) or base.size != 1:
            raise ValueError(f"{name}: a booster with objective {objective!r} and {base.size} output(s); continuing "
                             f"needs one binary:logistic margin (this estimator's booster_, XGBClassifier's) or an "
                             f"AEC booster (objective reg:squarederror)")
        if bst.num_features() != X.shape[1]:
            raise ValueError(f"{name} was trained on {bst.num_features()} features but X has {X.shape[1]}")
        # the trees it predicts with; xgb.train keeps a best_iteration attribute, which would cut the new trees
        bst = _native.cut_at_best_iteration(bst)
        bst.set_attr(best_iteration=None, best_score=None, **{META_KEY: None})
        # binary:logistic keeps base_score as a probability and starts from its logit
        b = float(base[0])
        return bst, (float(np.log(b) - np.log1p(-b)) if objective == _native._DEPLOYED_OBJECTIVE else b)

    # ------------------------------------------------------ the host contract (see _host.BoostingHost)
    def _fit_booster(self, ctx, X, y, costs, w, evals, margin0):
        start = ctx.start
        dtrain = self._dmatrix(X, y, w, costs, start.train)
        devals = [(self._dmatrix(Xk, yk, wk, ck, start.evals[k]), f"validation_{k}")
                  for k, (Xk, yk, ck, wk) in enumerate(evals)]
        obj = AECObjective(hessian=self.hessian, hessian_floor=self.hessian_floor,
                           logloss_weight=self.logloss_weight, cost_scale=self.cost_scale_)
        # the watched metric last: xgboost's early stopping uses it
        metric = MoneyMetrics(watch=self.eval_metric, decision=metric_decision(self.decision)) if devals else None
        ctx.data.update(train=dtrain, valid=devals)  # decision="auto" fits its logloss booster on them
        evals_result = {}
        params = self._native_params(margin0)
        if start.booster is not None:
            del params["base_score"]  # xgboost would replace the init model's own start with it
        try:
            bst = xgb.train(params, dtrain, self.n_estimators, evals=devals, obj=obj, xgb_model=start.booster,
                            custom_metric=metric, maximize=_aec.METRICS[self.eval_metric],
                            early_stopping_rounds=_decision_layer.patience(self, evals), evals_result=evals_result,
                            verbose_eval=ctx.options.get("verbose", False), callbacks=copy.deepcopy(self.callbacks))
        except xgb.core.XGBoostError as exc:
            raise native_error(exc, _ALIASES, type(self).__name__) from exc
        except ValueError as exc:  # xgboost's feature-name check of the init model against X
            if start.booster is None or "feature" not in str(exc):
                raise
            raise ValueError(f"xgb_model: its features are not X's: {exc}") from None
        # set by early_stopping_rounds or by an xgboost EarlyStopping in callbacks
        best = bst.attr("best_iteration")
        self.best_iteration_ = None if best is None else int(best)
        self.booster_ = _native.to_deployable(bst)  # cut at best_iteration, which it keeps (plain xgboost reads it)
        self.evals_result_ = evals_result
        self.n_estimators_ = self.booster_.num_boosted_rounds()

    def _fit_logloss_booster(self, ctx, recipe, y, w, evals):
        """The logloss booster of ``decision="auto"`` on the AEC fit's own DMatrix objects (one binning)."""
        params = self._native_params(0.0)
        for k in ("base_score", "disable_default_eval_metric"):
            params.pop(k, None)
        params.update(recipe.params)
        params.update(objective="binary:logistic", eval_metric="logloss")
        valid = ctx.data["valid"][-1:]
        bst = xgb.train(params, ctx.data["train"], recipe.rounds, evals=valid, verbose_eval=False,
                        early_stopping_rounds=recipe.patience if valid else None)
        best = bst.attr("best_iteration")
        bst = _native.cut_at_best_iteration(bst)
        b = float(_native._learner_config(bst)[1][0])  # binary:logistic keeps base_score as a probability
        return bst, dict(best_iteration_=None if best is None else int(best),
                         n_estimators_=bst.num_boosted_rounds(), start_margin_=float(np.log(b) - np.log1p(-b)))

    def _booster_margin(self, booster, X, offset=None):
        dm = self._dmatrix(X, base_margin=offset)  # a row's base_margin replaces base_score
        return booster.predict(dm, output_margin=True).astype(np.float64)

    def _cut_booster(self, booster, rounds):
        return _native.first_rounds(booster, int(rounds))  # categories kept; attributes dropped, as slicing

    def _booster_n_features(self, booster):
        return booster.num_features()

    def _booster_rounds(self, booster):
        return booster.num_boosted_rounds()

    # -------------------------------------------------------------- prediction

    def _native_margin(self, X, iteration_range, validate_features, base_margin=None):
        """The margin (start margin, or ``base_margin``, included) of the booster the decision thresholds,
        with xgboost's ``iteration_range`` / ``validate_features`` / ``base_margin``."""
        check_is_fitted(self, "booster_")
        rows = row_index(X)
        X = self._validate_X(X, reset=False)
        base_margin = check_margins(base_margin, X.shape[0], "base_margin", rows)
        bst = self.booster_
        if base_margin is not None and getattr(self, "decision_", None) == "logloss+bmr":
            raise ValueError("base_margin is a start margin of the AEC booster, but this decision='auto' model "
                             "decides with its logloss booster (decision_ == 'logloss+bmr'); predict without it")
        return bst.predict(self._dmatrix(X, base_margin=base_margin), output_margin=True,
                           validate_features=validate_features,
                           iteration_range=(0, 0) if iteration_range is None else iteration_range).astype(np.float64)

    def predict_proba(self, X, *, validate_features=True, base_margin=None, iteration_range=None):
        """Probabilities ``[1 - s, s]`` with s = sigmoid(margin), as ``XGBClassifier.predict_proba``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Rows to score.
        validate_features : bool, default True
            Check that a DataFrame's columns are the training columns (xgboost's keyword).
        base_margin : array-like of shape (n,), optional
            The rows' start margins, as ``XGBClassifier.predict_proba``: row i's margin is
            ``base_margin[i] + sum of trees`` (it replaces ``start_margin_``; for a model
            fit with ``base_margin=``, give these rows' start margins here).
        iteration_range : tuple of (int, int), optional
            Rounds ``[begin, end)`` whose trees are used (xgboost's keyword); None: all the
            trees of ``booster_``, which is cut at ``best_iteration_`` already.

        Returns
        -------
        ndarray of shape (n, 2)
            Columns in the order of ``classes_``.
        """
        if iteration_range is None and validate_features and base_margin is None:
            return super().predict_proba(X)
        s = _aec.sigmoid(self._native_margin(X, iteration_range, validate_features, base_margin))
        return np.column_stack([1.0 - s, s])

    @fill_doc(predict_costs=DOCS["predict_costs"], capacity=DOCS["capacity"])
    def predict(self, X, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                output_margin=False, validate_features=True, base_margin=None, iteration_range=None, max_alerts=None,
                max_alert_rate=None, periods=None, entity=None):
        """Class labels (as the base class's ``predict``), or the margin, as ``XGBClassifier.predict``.

        Parameters
        ----------
        %(predict_costs)s
        output_margin : bool, default False
            Return the margin (start margin included) instead of labels (xgboost's keyword).
        validate_features, base_margin, iteration_range
            As in :meth:`predict_proba`.
        %(capacity)s

        Returns
        -------
        ndarray of shape (n,)
            Labels from ``classes_``, or margins with ``output_margin=True``.
        """
        if output_margin:
            return self._native_margin(X, iteration_range, validate_features, base_margin)
        s = self.predict_proba(X, validate_features=validate_features, base_margin=base_margin,
                               iteration_range=iteration_range)[:, 1]
        return self._decide(s, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                            cost_matrix=cost_matrix, max_alerts=max_alerts, max_alert_rate=max_alert_rate,
                            periods=periods, entity=entity, index=row_index(X))

    def get_booster(self) -> xgb.Booster:
        """The fitted booster (as ``XGBClassifier.get_booster``).

        Returns
        -------
        xgboost.Booster
            ``booster_``: deployable (``binary:logistic``, start margin in ``base_score``);
            with ``decision_ == "logloss+bmr"`` (``decision="auto"``) ``predict_proba``
            comes from ``logloss_booster_`` instead.
        """
        check_is_fitted(self, "booster_")
        return self.booster_

    @property
    def best_iteration(self) -> int:
        """0-based best round of early stopping (``best_iteration_``), as ``XGBClassifier.best_iteration``.

        Returns
        -------
        int
            ``AttributeError`` when the fit did not stop early (as xgboost).
        """
        check_is_fitted(self, "booster_")
        if self.best_iteration_ is None:
            raise AttributeError("`best_iteration` is only defined when early stopping is used.")
        return self.best_iteration_

    @property
    def best_score(self) -> float:
        """Watched metric at ``best_iteration`` on the last eval set, as ``XGBClassifier.best_score``.

        Returns
        -------
        float
            ``AttributeError`` when the fit did not stop early.
        """
        score = self.get_booster().attr("best_score")
        if score is None:
            raise AttributeError("`best_score` is only defined when early stopping is used.")
        return float(score)

    def evals_result(self) -> dict:
        """Money metrics of each eval set per round (``evals_result_``), as ``XGBClassifier.evals_result()``.

        Returns
        -------
        dict
            ``{"validation_0": {"aec": [...], ...}, ...}``; ``XGBoostError`` (a ``ValueError``)
            without ``eval_set``, as xgboost.
        """
        check_is_fitted(self, "booster_")
        if not self.evals_result_:
            raise xgb.core.XGBoostError("No evaluation result, `eval_set` is not used during training.")
        return self.evals_result_

    @property
    def feature_importances_(self):
        """Importances of kind ``importance_type`` ("gain" by default, gblinear "weight"), as ``XGBClassifier``.

        Returns
        -------
        ndarray of shape (n_features,)
            float32, summing to 1 (all zero when no tree splits).
        """
        bst = self.get_booster()
        # as XGBClassifier: gblinear has only "weight" (its coefficients)
        score = bst.get_score(importance_type=self.importance_type or
                              ("weight" if self.booster == "gblinear" else "gain"))
        names = bst.feature_names or [f"f{i}" for i in range(self.n_features_in_)]
        out = np.array([score.get(f, 0.0) for f in names], dtype=np.float32)
        total = out.sum()
        return out if total == 0 else out / total

    # ----------------------------------------------------------- save / load
    def _save_booster(self, booster, path, meta):
        bst = booster.copy()
        bst.set_attr(**{META_KEY: meta})
        bst.save_model(path)

    @staticmethod
    def _load_booster(path):
        bst = xgb.Booster(model_file=path)
        meta = bst.attr(META_KEY)
        bst.set_attr(**{META_KEY: None})
        best = bst.attr("best_iteration")
        if meta is None:  # a plain file: as the estimator's own booster_, deployable and cut at best_iteration
            # (saved after early stopping it keeps every tree; XGBClassifier.load_model predicts with those up
            # to best_iteration); a raw AEC booster (margins) becomes binary:logistic, so save_model deploys
            deployable = _native._learner_config(bst)[0] in _native._MARGIN_OBJECTIVES
            bst = _native.to_deployable(bst) if deployable else _native.cut_at_best_iteration(bst)
            # feature_names_in_ from the booster's names, as XGBClassifier.load_model
            meta = json.dumps({"best_iteration": None if best is None else int(best),
                               "feature_names_in": bst.feature_names})
        return bst, meta

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
