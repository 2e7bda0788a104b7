"""scikit-learn wrapper of the lightgbm AEC plugin: :class:`CSLGBMClassifier`.

Public as ``csboost_plugins.lgb.CSLGBMClassifier``; the native helpers live in
:mod:`csboost_plugins.boosting._lgb_native`, which this module imports (never the reverse).
"""

from __future__ import annotations

import json
import os

import lightgbm as lgb
import numpy as np
from lightgbm.basic import _ConfigAliases
from sklearn.exceptions import NotFittedError
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from . import _lgb_native as _native
from . import _aec, _decision_layer, _money_eval
from ._decision_layer import DEFAULT_ESTIMATOR_DECISION, VALIDATION_FRACTION, metric_decision
from ._sklearn_base import DOCS, META_KEY, CostSensitiveBoostingMixin, native_error, native_seed
from .._docstrings import fill_doc
from ..costs import row_index
from .._params import store_init_args
from ._lgb_native import AECObjective, bake_start_margin, money_metrics
from ._money_eval import DEFAULT_WATCH
from ._lgb_callback import early_stopping

__all__ = ["CSLGBMClassifier"]

# native names in lightgbm's messages -> the keyword of this estimator
_ALIASES = {"bagging_fraction": "subsample", "bagging_freq": "subsample_freq", "feature_fraction": "colsample_bytree",
            "lambda_l1": "reg_alpha", "lambda_l2": "reg_lambda", "min_data_in_leaf": "min_child_samples",
            "min_sum_hessian_in_leaf": "min_child_weight", "min_gain_to_split": "min_split_gain",
            "bin_construct_sample_cnt": "subsample_for_bin", "boosting": "boosting_type", "num_threads": "n_jobs",
            "seed": "random_state"}
# the keywords of LGBMClassifier.predict / predict_proba, passed to Booster.predict
_PREDICT_KW = (
    "raw_score : bool, default False\n"
    "    Return the margin (start margin included).\n"
    "start_iteration : int, default 0\n"
    "    First tree used (0: the one holding the start margin).\n"
    "num_iteration : int, optional\n"
    "    Trees used; None: all (the booster is cut at ``best_iteration_`` already).\n"
    "pred_leaf : bool, default False\n"
    "    Return each row's leaf index in every tree.\n"
    "pred_contrib : bool, default False\n"
    "    Return SHAP contributions to the margin, the last column the expected value.\n"
    "validate_features : bool, default False\n"
    "    As ``Booster.predict`` (check a DataFrame's column names)."
)
_EMPTY_AFTER_FILTER = "num_features()) > (0)"  # lightgbm dropped every feature as unsplittable


def _merge_native(base: dict, override: dict) -> dict:
    """``base`` updated by ``override``, dropping every lightgbm alias of an overridden parameter."""
    out = dict(base)
    for k, v in override.items():
        for alias in _ConfigAliases.get_by_alias(k):
            out.pop(alias, None)
        out[k] = v
    return out


def _eval_set_from_Xy(eval_set, eval_X, eval_y):
    """``eval_set`` from lightgbm 4.7's ``eval_X`` / ``eval_y`` (one set, or tuples of sets)."""
    if eval_X is None and eval_y is None:
        return eval_set
    if eval_set is not None:
        raise ValueError("give eval_set or eval_X and eval_y, not both")
    if (eval_X is None) != (eval_y is None):
        raise ValueError("eval_X and eval_y go together: give both")
    if isinstance(eval_X, tuple) != isinstance(eval_y, tuple) or (
            isinstance(eval_X, tuple) and len(eval_X) != len(eval_y)):
        raise ValueError("eval_X and eval_y must both be one set, or tuples of the same length")
    return list(zip(eval_X, eval_y)) if isinstance(eval_X, tuple) else [(eval_X, eval_y)]


@fill_doc(**DOCS)
class CSLGBMClassifier(CostSensitiveBoostingMixin):
    """lightgbm trees trained on the average expected cost, as a scikit-learn classifier.

    A drop-in for ``lightgbm.LGBMClassifier``: the same keywords (``boosting_type``,
    ``num_leaves``, ``class_weight``, ``importance_type``, ...) and any further
    native parameter as ``**kwargs`` (``verbose=-1``, ``max_cat_to_onehot``,
    ``interaction_constraints``, ``device_type``, ...); ``objective`` is the AEC
    (another loss raises a ``ValueError``). Same fit / predict contract as
    :class:`csboost_plugins.xgb.CSXGBClassifier`; ``fit`` also takes lightgbm's
    ``callbacks`` and ``categorical_feature`` (pandas ``category`` columns are
    categorical by default, as natively), ``init_score``, ``eval_init_score`` and
    ``init_model``.

    %(continued_training)s
    lightgbm: ``init_score`` is the start instead of the start margin
    (lightgbm's ``boost_from_average``), so the model holds none (``start_margin_ = 0``)
    and a row's margin is its init score plus ``predict(X, raw_score=True)``, as with
    ``LGBMClassifier``, whose ``predict`` takes no init score.

    The start margin is the training init score and is baked into the first tree;
    the booster carries ``objective=binary sigmoid:1``, so plain lightgbm's
    ``predict`` returns ``predict_proba(X)[:, 1]`` and ``predict(raw_score=True)`` the margin.

    Parameters
    ----------
    boosting_type, num_leaves, max_depth, learning_rate, n_estimators, subsample_for_bin, min_split_gain, \
min_child_samples, subsample, subsample_freq, colsample_bytree, reg_alpha, reg_lambda, random_state, \
n_jobs, importance_type : optional
        lightgbm parameters, meaning and defaults as ``LGBMClassifier``.
    min_child_weight : float, default 1e-3
        ``min_sum_hessian_in_leaf``, on the cost-scaled hessian.
    max_bin : int, default 255
        Histogram bins per feature.
    objective : None or "aec"
        The loss is always the AEC; any other value raises ``ValueError``.
    class_weight : dict, "balanced" or None
        Multiplies the row weights, as ``LGBMClassifier``.
    hessian, hessian_floor, logloss_weight, start_margin, early_stopping_rounds, eval_metric, decision, \
validation_fraction, params : optional
        As in :class:`csboost_plugins.xgb.CSXGBClassifier`.
    %(pos_label)s
    **kwargs : dict
        Further native lightgbm parameters (defaults ``verbose=-1``,
        ``deterministic=True``, ``force_row_wise=True``).

    Attributes
    ----------
    booster_ : lightgbm.Booster
        The booster ``predict_proba`` and ``predict`` use (with ``decision="auto"`` the
        chosen rule's), deployable: start margin in the model, ``objective=binary sigmoid:1``.
    aec_booster_, logloss_booster_ : lightgbm.Booster or None
        The two boosters of ``decision="auto"`` (None otherwise).
    decision_ : {"aec", "aec+bmr", "logloss+bmr"}
        Rule of ``predict`` (see :class:`csboost_plugins.xgb.CSXGBClassifier`).
    validation_savings_ : dict or None
        Validation savings of each rule (``decision="auto"``).
    %(fitted_columns)s
    cost_scale_ : float
        Money unit the costs were divided by.
    start_margin_ : float or None
        Margin the boosting started from, baked into the first tree; 0.0 after
        ``fit(init_score=...)``, the init model's after ``fit(init_model=...)``
        (None when a plain booster does not say).
    evals_result_ : dict
        Money metrics of each eval set per round.
    best_iteration_ : int or None
        1-based best round of early stopping (lightgbm's convention: the model keeps
        ``best_iteration_`` rounds), else None.
    best_score_ : dict
        ``{eval set: {metric: value}}`` at ``best_iteration_`` (else the last
        round), as ``LGBMClassifier``.
    n_estimators_ : int
        Rounds in the booster (also ``n_iter_``).
    feature_importances_, feature_name_, n_features_, n_classes_ : optional
        As ``LGBMClassifier`` (``importance_type`` picks the importances).
    """

    _native_library = "lightgbm"

    def __init__(self, *, boosting_type="gbdt", num_leaves=31, max_depth=-1, learning_rate=0.1, n_estimators=100,
                 subsample_for_bin=200000, objective=None, class_weight=None, min_split_gain=0.0,
                 min_child_weight=1e-3, min_child_samples=20, subsample=1.0, subsample_freq=0, colsample_bytree=1.0,
                 reg_alpha=0.0, reg_lambda=0.0, random_state=None, n_jobs=None, importance_type="split",
                 max_bin=255, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, start_margin="cost_prior",
                 early_stopping_rounds=None, eval_metric=DEFAULT_WATCH, decision=DEFAULT_ESTIMATOR_DECISION,
                 validation_fraction=VALIDATION_FRACTION, pos_label=None, params=None,
                 **kwargs):
        store_init_args(self, locals())
        self._set_other_params(kwargs)

    @fill_doc(**DOCS)
    def fit(self, X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None, eval_set=None, eval_costs=None, eval_sample_weight=None, eval_names=None,
            callbacks=None, categorical_feature="auto", eval_X=None, eval_y=None, init_score=None,
            eval_init_score=None, init_model=None):
        """Fit boosted trees minimising the average expected cost (csboost paper eq. 7).

        As :meth:`csboost_plugins.xgb.CSXGBClassifier.fit`, plus these keywords of
        ``LGBMClassifier.fit``: ``eval_names``, ``callbacks``, ``categorical_feature``,
        ``eval_X`` / ``eval_y``, ``init_score``, ``eval_init_score``, ``init_model``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Numeric, bool or pandas ``category`` columns; NaN is a missing value.
        %(fit_data)s
        eval_names : list of str, optional
            Names of the eval sets (keys of ``evals_result_`` and ``best_score_``);
            default ``validation_0``, ``validation_1``, ...
        callbacks : list of callable, optional
            ``lgb.train`` callbacks.
        categorical_feature : "auto" or list of int or str, default "auto"
            As lightgbm ("auto": the pandas ``category`` columns).
        eval_X, eval_y : array-like or tuple of array-like, optional
            lightgbm 4.7's spelling of ``eval_set``: one set, or tuples of sets
            (``eval_set = list(zip(eval_X, eval_y))``); ``eval_costs`` as with ``eval_set``.
        init_score : array-like of shape (n,), optional
            Each training row's start margin (raw score, log-odds), as ``LGBMClassifier.fit``:
            the boosting starts from it instead of the start margin (``start_margin``, here
            what lightgbm's ``boost_from_average`` would be), so the model holds no start
            margin (``start_margin_ = 0.0``, nothing baked) and its raw score is the trees'
            sum alone: row i's margin is ``init_score[i] + predict(X, raw_score=True)[i]``,
            as with lightgbm (whose ``predict`` takes no init score). Not with
            ``decision="auto"``.
        eval_init_score : list of (array-like of shape (n_k,) or None), optional
            One start margin array per eval set, as ``LGBMClassifier.fit``: the set's rows
            start from it instead of the model's start ``start_margin_`` (row i's margin is
            ``eval_init_score[k][i] + predict(X_k, raw_score=True)[i] - start_margin_``) in
            the money metrics and early stopping; None: the set starts from ``start_margin_``.
        init_model : str, path-like, lightgbm.Booster, CSLGBMClassifier or LGBMClassifier, optional
            Continue training this model, as ``LGBMClassifier.fit``: its trees (up to its
            ``best_iteration``) are kept and ``n_estimators`` more are boosted from its raw
            scores, so n rounds then m more from the n-round model equal n + m rounds. Its
            start margin is in its first tree already and is not added again
            (``start_margin_`` is the init model's, None when a plain booster does not say);
            ``cost_scale_`` comes from this fit's costs. The booster must be a binary one
            whose raw score is the whole margin (model text ``objective=binary sigmoid:1``:
            this estimator's ``booster_``, ``LGBMClassifier``'s, or an AEC booster after
            :func:`csboost_plugins.lgb.bake_start_margin`). Not with ``init_score`` /
            ``eval_init_score``: lightgbm replaces them by the init model's raw scores.

        %(returns_self)s
        """
        eval_set = _eval_set_from_Xy(eval_set, eval_X, eval_y)
        n_sets = 0 if eval_set is None else 1 if isinstance(eval_set, tuple) else len(eval_set)
        if eval_names is not None and (isinstance(eval_names, str) or len(eval_names) != n_sets):
            raise ValueError(f"eval_names needs one name per eval set ({n_sets}), got {eval_names!r}")
        if init_model is not None and (init_score is not None or eval_init_score is not None):
            raise ValueError("give init_model or init_score / eval_init_score, not both: lightgbm replaces the init "
                             "scores by the init model's raw scores ('The init_score will be overridden by the "
                             "prediction of init_model')")
        start = dict(train=("init_score", init_score), evals=("eval_init_score", eval_init_score),
                     model=("init_model", init_model))
        return self._fit(X, y, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                    cost_matrix=cost_matrix), sample_weight, eval_set, eval_costs,
                         eval_sample_weight, start,
                         options=dict(callbacks=callbacks, categorical_feature=categorical_feature,
                                      eval_names=eval_names))

    def _class_weight(self, y01, w):
        if self.class_weight is None:
            return w
        cw = self.class_weight
        if isinstance(cw, dict):  # keyed by the original labels, as LGBMClassifier
            cw = {k: cw[c] for k, c in enumerate(self.classes_) if c in cw}
        cw_rows = compute_sample_weight(cw, y01)
        return cw_rows if w is None else w * cw_rows

    def _native_params(self):
        base = {
            "boosting": self.boosting_type, "num_leaves": self.num_leaves, "max_depth": self.max_depth,
            "learning_rate": self.learning_rate, "bin_construct_sample_cnt": self.subsample_for_bin,
            "min_gain_to_split": self.min_split_gain, "min_sum_hessian_in_leaf": self.min_child_weight,
            "min_data_in_leaf": self.min_child_samples, "bagging_fraction": self.subsample,
            "bagging_freq": self.subsample_freq, "feature_fraction": self.colsample_bytree,
            "lambda_l1": self.reg_alpha, "lambda_l2": self.reg_lambda,
            "max_bin": self.max_bin, "verbose": -1, "deterministic": True, "force_row_wise": True,
        }
        if self.random_state is not None:  # None: lightgbm's default seeds, the same model every fit (as LGBMClassifier)
            base["seed"] = native_seed(self.random_state)
        if self.n_jobs is not None:
            base["num_threads"] = self.n_jobs
        p = _merge_native(_merge_native(base, self._other_native_params()), self.params or {})
        p["objective"] = AECObjective(hessian=self.hessian, hessian_floor=self.hessian_floor,
                                      logloss_weight=self.logloss_weight, cost_scale=self.cost_scale_)
        return p

    def _start_with_offsets(self, margin0):
        return 0.0  # init_score is the start instead: the model holds none (as lightgbm's boost_from_average)

    def _init_booster(self, model, name, X):
        start = None
        if isinstance(model, (str, os.PathLike)):
            if not os.path.isfile(model):
                raise ValueError(f"{name}: no model file {str(model)!r}")
            bst, meta = self._load_booster(str(model))
            start = json.loads(meta).get("start_margin") if meta else None
        elif isinstance(model, lgb.Booster):
            bst = model
        elif isinstance(model, (lgb.LGBMModel, CSLGBMClassifier)):
            try:
                check_is_fitted(model, "booster_")
            except NotFittedError as exc:
                raise NotFittedError(f"{name}: {exc}") from None
            bst, start = model.booster_, getattr(model, "start_margin_", None)
        else:
            raise TypeError(f"{name} must be a model file path, a lightgbm.Booster or a fitted CSLGBMClassifier / "
                            f"LGBMClassifier, got {type(model).__name__}")
        try:
            # a new booster cut at best_iteration; refuses one whose raw scores miss its start margin
            bst = _native.to_deployable(bst)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        if bst.num_feature() != X.shape[1]:
            raise ValueError(f"{name} was trained on {bst.num_feature()} features but X has {X.shape[1]}")
        return bst, start

    def _dataset(self, ctx, X, y, w, costs, margin0, reference, params, init_score=None):
        """A Dataset whose rows start from ``init_score``, else from ``margin0`` (None: no init score)."""
        names = "auto" if hasattr(X, "columns") else (self._feature_names() or "auto")
        if init_score is None and margin0 is not None:
            init_score = np.full(X.shape[0], margin0)
        ds = lgb.Dataset(X, label=y, weight=w, init_score=init_score, reference=reference,
                         free_raw_data=False, feature_name=names,
                         categorical_feature=ctx.options.get("categorical_feature", "auto"),
                         params=params)
        return _money_eval.store_costs(ds, costs)

    # ------------------------------------------------------ the host contract (see _host.BoostingHost)
    def _fit_booster(self, ctx, X, y, costs, w, evals, margin0):
        params = self._native_params()
        boosting = next((params[k] for k in _ConfigAliases.get("boosting") if k in params), "gbdt")
        if boosting in ("rf", "random_forest"):
            raise ValueError(f"boosting_type='rf' ({boosting!r}): lightgbm's random forest mode takes no custom "
                             "objective such as the AEC; use 'gbdt' or 'dart' (with subsample / colsample_bytree)")
        try:
            return self._train(ctx, X, y, costs, w, evals, margin0, params)
        except lgb.basic.LightGBMError as exc:
            if _EMPTY_AFTER_FILTER not in str(exc):
                raise native_error(exc, _ALIASES, type(self).__name__) from exc
        # constant / all-NaN / tiny X: every feature was filtered as unsplittable. Keep them
        # (a constant model, like the other estimators) instead of failing.
        return self._train(ctx, X, y, costs, w, evals, margin0, {**params, "feature_pre_filter": False})

    def _train(self, ctx, X, y, costs, w, evals, margin0, params):
        start = ctx.start
        # the start the model holds: none with init_score (the rows' own) or init_model (in its first tree)
        held = 0.0 if start.booster is not None or start.train is not None else margin0
        # continuing: lightgbm sets every Dataset's init score to the init model's raw scores
        rows_start = None if start.booster is not None else held
        ds_params = {k: v for k, v in params.items() if k != "objective"}
        dtrain = self._dataset(ctx, X, y, w, costs, rows_start, None, ds_params, start.train)
        valid_sets, names = [], []
        eval_names = ctx.options.get("eval_names")
        for k, (Xk, yk, ck, wk) in enumerate(evals):
            valid_sets.append(self._dataset(ctx, Xk, yk, wk, ck, rows_start, dtrain, ds_params, start.evals[k]))
            names.append(str(eval_names[k]) if eval_names is not None else f"validation_{k}")
        evals_result = {}
        callbacks = [lgb.record_evaluation(evals_result), *(ctx.options.get("callbacks") or [])]
        rounds = _decision_layer.patience(self, evals)
        if rounds is not None:
            callbacks.append(early_stopping(rounds, data_name=names[-1], metric=self.eval_metric))
        # decision="auto" fits its logloss booster on the same Datasets (one binning)
        ctx.data.update(train=dtrain, valid=valid_sets, params=ds_params)
        feval = money_metrics(watch=self.eval_metric, decision=metric_decision(self.decision)) if valid_sets else None
        bst = lgb.train(params, dtrain, self.n_estimators, valid_sets=valid_sets or None,
                        valid_names=names or None, feval=feval, callbacks=callbacks, init_model=start.booster)
        # early stopping (ours or a callback of fit) sets best_iteration; lgb.train has cut the trees after it
        self.best_iteration_ = int(bst.best_iteration) if bst.best_iteration > 0 else None
        self.best_score_ = {name: dict(scores) for name, scores in bst.best_score.items()}
        bake_start_margin(bst, held)
        self.booster_ = _native.to_deployable(bst)
        self.evals_result_ = evals_result
        self.n_estimators_ = bst.current_iteration()

    def _fit_logloss_booster(self, ctx, recipe, y, w, evals):
        """The logloss booster of ``decision="auto"`` on the AEC fit's own Datasets (one binning)."""
        dtrain, valid = ctx.data["train"], ctx.data["valid"][-1:]
        for ds in (dtrain, *valid):  # no init score: lightgbm boosts from the average and keeps it in the model
            ds.set_field("init_score", None)  # (set_init_score(None) keeps a constructed Dataset's scores)
            ds.init_score = None
        params = _merge_native(ctx.data["params"], recipe.params)
        for key, floor in recipe.floors.items():  # lower bounds, whatever alias the user spelled
            given = [params.pop(a) for a in _ConfigAliases.get_by_alias(key) if a in params]
            params[key] = max([floor, *[float(v) for v in given]])
        params.update(objective="binary", metric="binary_logloss")
        cbs = [lgb.early_stopping(recipe.patience, verbose=False)] if valid and recipe.patience else []
        bst = lgb.train(params, dtrain, recipe.rounds, valid_sets=valid or None,
                        valid_names=["validation"] if valid else None, callbacks=cbs)
        best = int(bst.best_iteration) if bst.best_iteration > 0 else None
        best_score = {name: dict(scores) for name, scores in bst.best_score.items()}
        bst = _native.to_deployable(bst)
        p = float(np.average(y, weights=w))  # boost_from_average's start: the log-odds of the weighted positive rate
        m0 = float(np.log(p) - np.log1p(-p))
        return bst, dict(best_iteration_=best, n_estimators_=bst.current_iteration(), start_margin_=m0,
                         best_score_=best_score)

    def _booster_margin(self, booster, X, offset=None):
        margin = np.asarray(booster.predict(X, raw_score=True), dtype=np.float64)
        # a row's own start (init_score / eval_init_score) replaces the one the model holds (start_margin_:
        # 0.0 with init_score, m0 with eval_init_score alone)
        return margin if offset is None else margin - self.start_margin_ + offset

    def _cut_booster(self, booster, rounds):
        return lgb.Booster(model_str=booster.model_to_string(num_iteration=int(rounds)))

    def _booster_n_features(self, booster):
        return booster.num_feature()

    def _booster_rounds(self, booster):
        return booster.current_iteration()

    # ------------------------------------------------ LGBMClassifier's predict keywords
    def _native_predict(self, X, kw):
        """``Booster.predict`` of the booster the decision thresholds (AEC, or logloss for
        ``decision_ == "logloss+bmr"``) with lightgbm's keywords ``kw``."""
        check_is_fitted(self, "booster_")
        X = self._validate_X(X, reset=False)
        bst = self.booster_
        return bst.predict(X, **kw)

    @fill_doc(lgb_predict_kw=_PREDICT_KW)
    def predict_proba(self, X, *, raw_score=False, start_iteration=0, num_iteration=None, pred_leaf=False,
                      pred_contrib=False, validate_features=False):
        """Probabilities ``[1 - s, s]`` with s = sigmoid(margin), or lightgbm's raw outputs.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Rows to score.
        %(lgb_predict_kw)s

        Returns
        -------
        ndarray of shape (n, 2), or the raw output
            Columns in the order of ``classes_``; with ``raw_score`` / ``pred_leaf``
            / ``pred_contrib`` what ``LGBMClassifier.predict_proba`` returns: the
            margin (n,), leaf indices (n, n_trees) or SHAP values (n, p + 1).
        """
        kw = dict(raw_score=raw_score, start_iteration=start_iteration, num_iteration=num_iteration,
                  pred_leaf=pred_leaf, pred_contrib=pred_contrib, validate_features=validate_features)
        if raw_score or pred_leaf or pred_contrib:
            return self._native_predict(X, kw)
        if start_iteration == 0 and num_iteration is None:
            return super().predict_proba(X)
        s = _aec.sigmoid(np.asarray(self._native_predict(X, {**kw, "raw_score": True}), dtype=np.float64))
        return np.column_stack([1.0 - s, s])

    @fill_doc(lgb_predict_kw=_PREDICT_KW, predict_costs=DOCS["predict_costs"], capacity=DOCS["capacity"])
    def predict(self, X, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, raw_score=False,
                start_iteration=0, num_iteration=None, pred_leaf=False, pred_contrib=False, validate_features=False,
                max_alerts=None, max_alert_rate=None, periods=None, entity=None):
        """Class labels (as :meth:`csboost_plugins.xgb.CSXGBClassifier.predict`), or lightgbm's raw outputs.

        Parameters
        ----------
        %(predict_costs)s
        %(lgb_predict_kw)s
        %(capacity)s

        Returns
        -------
        ndarray of shape (n,), or the raw output
            Labels from ``classes_``; with ``raw_score`` / ``pred_leaf`` /
            ``pred_contrib`` what ``LGBMClassifier.predict`` returns.
        """
        kw = dict(raw_score=raw_score, start_iteration=start_iteration, num_iteration=num_iteration,
                  pred_leaf=pred_leaf, pred_contrib=pred_contrib, validate_features=validate_features)
        if raw_score or pred_leaf or pred_contrib:
            return self._native_predict(X, kw)
        return self._decide(self.predict_proba(X, **kw)[:, 1], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                            tn_cost=tn_cost, cost_matrix=cost_matrix, max_alerts=max_alerts,
                            max_alert_rate=max_alert_rate, periods=periods, entity=entity, index=row_index(X))

    @property
    def feature_importances_(self):
        """``booster_.feature_importance(importance_type)``, as ``LGBMClassifier``.

        Returns
        -------
        ndarray of shape (n_features,)
            Split counts ("split", default) or total gains ("gain"), not normalised.
        """
        check_is_fitted(self, "booster_")
        return self.booster_.feature_importance(importance_type=self.importance_type)

    @property
    def feature_name_(self):
        """``booster_.feature_name()``, as ``LGBMClassifier``.

        Returns
        -------
        list of str
            The DataFrame's columns, else ``Column_0``, ``Column_1``, ...
        """
        check_is_fitted(self, "booster_")
        return self.booster_.feature_name()

    @property
    def n_features_(self):
        """``n_features_in_``, under ``LGBMClassifier``'s older name.

        Returns
        -------
        int
        """
        check_is_fitted(self, "booster_")
        return self.n_features_in_

    @property
    def n_classes_(self):
        """Number of classes, as ``LGBMClassifier``.

        Returns
        -------
        int
            Always 2.
        """
        check_is_fitted(self, "booster_")
        return len(self.classes_)

    @property
    def n_iter_(self):
        """Boosting rounds in ``booster_``, as ``LGBMClassifier``.

        Returns
        -------
        int
            ``n_estimators_``.
        """
        check_is_fitted(self, "booster_")
        return self.n_estimators_

    # ----------------------------------------------------------- save / load
    def _save_booster(self, booster, path, meta):
        # our metadata as one extra header line (lightgbm ignores unknown header keys)
        text = booster.model_to_string()
        head, sep, rest = text.partition("\nnum_class=")
        with open(path, "w") as f:
            f.write(f"{head}\n{META_KEY}={meta}{sep}{rest}")

    @staticmethod
    def _load_booster(path):
        with open(path) as f:
            text = f.read()
        meta = None
        for line in text.split("\n", 12)[:12]:
            if line.startswith(f"{META_KEY}="):
                meta = line[len(META_KEY) + 1:]
        return lgb.Booster(model_str=text), meta

