"""scikit-learn wrapper of the CatBoost AEC plugin: :class:`CSCatBoostClassifier`.

Public as ``csboost_plugins.catboost.CSCatBoostClassifier``; the native helpers live in
:mod:`csboost_plugins.boosting._cat_native`, which this module imports (never the reverse).
"""

from __future__ import annotations

import re

import catboost
import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import _aec, _aec_kernels, _decision_layer
from . import _cat_native as _native
from ._decision_layer import DEFAULT_ESTIMATOR_DECISION, VALIDATION_FRACTION, metric_decision
from ._money_eval import DEFAULT_WATCH, METRIC_NAMES
from ._sklearn_base import DOCS, META_KEY, CostSensitiveBoostingMixin, native_seed
from .._docstrings import fill_doc
from .._params import store_init_args

__all__ = ["CSCatBoostClassifier"]

# CatBoost's aliases -> the keyword of this estimator (given as **kwargs they replace it)
_ALIASES = {"iterations": "n_estimators", "num_boost_round": "n_estimators", "num_trees": "n_estimators",
            "eta": "learning_rate", "random_seed": "random_state", "max_depth": "depth",
            "objective": "loss_function"}
_NATIVE = {"n_estimators": "iterations", "random_state": "random_seed"}  # ours -> CatBoost's name
_CLASS_WEIGHTS = ("class_weights", "scale_pos_weight", "auto_class_weights")  # applied as row weights
# xgboost's default min_child_weight: a split needs this much hessian on each side. CatBoost's symmetric
# trees have no such floor (min_data_in_leaf is for the other grow policies) and split two rows 1 + 1
_MIN_CHILD_HESSIAN = 1.0


def _catboost_error(exc, params, cls_name):
    """``ValueError`` naming the parameter a ``CatBoostError`` complains about (its message kept)."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    m = re.search(r"option \{?(\w+)\}?|(\w+) should|Invalid (\w+)", msg)
    name = next((g for g in m.groups() if g), None) if m else None
    if name is None:
        name = next((k for k in sorted(params, key=len, reverse=True) if re.search(rf"\b{re.escape(k)}\b", msg)),
                    None)
    if name is None:
        return ValueError(f"{cls_name}: CatBoostError: {msg}")
    if name not in params:  # CatBoost's internal name (L2LeafRegularizer): the parameter it contains
        flat = name.lower()
        name = next((k for k in sorted(params, key=len, reverse=True) if k.replace("_", "").lower() in flat), name)
    name = {v: k for k, v in _NATIVE.items()}.get(name, _ALIASES.get(name, name))
    return ValueError(f"{cls_name}: invalid parameter {name}: {msg}")


def _weighted_rows(X, y, costs, w):
    """The training rows of positive weight: a row of weight 0 is a row left out, which CatBoost would still
    count when it places its feature borders (quantization reads the values, not the weights)."""
    if w is None or (w > 0).all():
        return X, y, costs, w
    keep = w > 0
    if X is not None:
        X = X.iloc[keep] if hasattr(X, "iloc") else X[keep]
    return X, y[keep], None if costs is None else costs[keep], w[keep]


def _no_split(hessian_total):
    """True when no split could leave :data:`_MIN_CHILD_HESSIAN` on both sides (the training rows' total
    hessian at the start is below twice it): the model is then the constant start, as xgboost's default
    keeps it (lightgbm's min_data_in_leaf=20 keeps it below 40 rows)."""
    return hessian_total < 2 * _MIN_CHILD_HESSIAN


@fill_doc(**DOCS)
class CSCatBoostClassifier(CostSensitiveBoostingMixin):
    """CatBoost trees trained on the average expected cost, as a scikit-learn classifier.

    A drop-in for ``catboost.CatBoostClassifier``: its keywords (``depth``, ``l2_leaf_reg``,
    ``cat_features``, ``thread_count``, ``verbose``, ``boosting_type``, ...) are accepted
    as ``**kwargs`` and passed to CatBoost; ``loss_function`` is the AEC (another loss raises a
    ``ValueError``). Same fit / predict contract as :class:`csboost_plugins.xgb.CSXGBClassifier`,
    with the same default ``decision="auto"`` (AEC booster against a logloss booster with Bayes
    minimum risk, chosen on validation money).

    The start margin is every training row's CatBoost ``baseline`` (custom objectives get no
    ``boost_from_average``) and is then put into the model's bias, so ``booster_`` is a
    ``CatBoostClassifier`` whose plain ``predict_proba`` equals ours. pandas ``category`` columns
    (and ``cat_features``, also string columns) are categorical features; a missing category is its
    own value "nan". ``class_weights``, ``scale_pos_weight`` and ``auto_class_weights`` multiply the
    row weights (CatBoost cannot weight the classes of a custom objective). CatBoost evaluates the
    last ``eval_set`` (``evals_result_["validation"]``), the one early stopping and
    ``decision="auto"`` watch. Where no split is possible (every column constant, which CatBoost
    refuses, or a training hessian sum below 2: xgboost's default of 1 on each side of a split) the
    model is the constant start margin, as with the other hosts. A row of ``sample_weight`` 0 is
    left out. CatBoost's weights are relative: it multiplies ``l2_leaf_reg`` by the mean weight, and
    its default ``bootstrap_type`` (MVS) and ``random_strength`` draw per row, so integer weights
    equal repeated rows only with ``l2_leaf_reg`` divided by the mean weight,
    ``bootstrap_type="No"`` and ``random_strength=0``.

    Parameters
    ----------
    n_estimators : int, default 300
        Boosting rounds (CatBoost's ``iterations``).
    learning_rate : float, default 0.1
        Step size.
    depth : int, default 6
        Depth of the oblivious trees.
    random_state : int, Generator or None, default None
        CatBoost's ``random_seed`` (None: CatBoost's default seed, the same model every fit) and
        the seed of the ``decision="auto"`` holdout.
    cat_features : list of int or str, optional
        Categorical columns besides the pandas ``category`` ones.
    thread_count : int, default -1
        Threads (-1: all cores).
    verbose : bool or int, default False
        CatBoost's output per round.
    loss_function : None or "aec"
        The loss is always the AEC; any other value raises ``ValueError``.
    hessian, hessian_floor, logloss_weight, start_margin, early_stopping_rounds, eval_metric, decision, \
validation_fraction : optional
        As in :class:`csboost_plugins.xgb.CSXGBClassifier`.
    %(pos_label)s
    params : dict, optional
        Further native parameters (override the keywords).
    **kwargs : dict
        Any other ``CatBoostClassifier`` keyword (default ``allow_writing_files=False``).

    Attributes
    ----------
    booster_ : catboost.CatBoostClassifier
        The model ``predict_proba`` and ``predict`` use (with ``decision="auto"`` the chosen rule's),
        deployable: start margin in its bias, ``Logloss`` and the class names in its metadata.
    aec_booster_, logloss_booster_ : catboost.CatBoostClassifier or None
        The two models of ``decision="auto"`` (None otherwise).
    decision_ : {"aec", "aec+bmr", "logloss+bmr"}
        Rule of ``predict``.
    validation_savings_ : dict or None
        Validation savings of each rule (``decision="auto"``).
    %(fitted_columns)s
    cost_scale_ : float
        Money unit the costs were divided by.
    start_margin_ : float
        Margin the boosting started from (in the model's bias).
    evals_result_ : dict
        Money metrics per round under CatBoost's set names: ``"validation"`` (the last eval set)
        holds "aec", "expected_savings" and "savings", as the other hosts record for each eval
        set; ``"learn"`` the watched ``eval_metric`` as CatBoost computed it while training.
    best_iteration_ : int or None
        0-based best round of early stopping (CatBoost's convention), else None.
    n_estimators_ : int
        Trees in the model.
    feature_importances_ : ndarray
        CatBoost's ``get_feature_importance()`` of ``booster_``.
    """

    _native_library = "catboost"
    _text_cure = "name it in cat_features (CatBoost encodes text categories), or encode it as numbers"

    def __init__(self, *, n_estimators=300, learning_rate=0.1, depth=6, random_state=None, cat_features=None,
                 thread_count=-1, verbose=False, loss_function=None, hessian="abs", hessian_floor=0.1,
                 logloss_weight=0.0, start_margin="cost_prior", early_stopping_rounds=None,
                 eval_metric=DEFAULT_WATCH, decision=DEFAULT_ESTIMATOR_DECISION, validation_fraction=VALIDATION_FRACTION,
                 pos_label=None, params=None, **kwargs):
        store_init_args(self, locals())
        self._set_other_params(kwargs)

    def _text_columns(self, X):
        """Labels of the columns of X whose text CatBoost encodes itself (those named in ``cat_features``)."""
        cats = self.cat_features
        if not cats or not hasattr(X, "columns"):
            return ()
        cols = list(X.columns)
        return {cols[c] if isinstance(c, (int, np.integer)) and 0 <= c < len(cols) else c for c in cats}

    def _check_common_params(self):
        loss = self.loss_function if self.loss_function is not None else self._other_native_params().get("objective")
        if loss is not None and loss != "aec":
            raise ValueError(f"loss_function={loss!r}: {type(self).__name__} trains the average expected cost (AEC) "
                             "with the rows' costs; use catboost.CatBoostClassifier for another loss, or blend "
                             "logloss into the AEC with logloss_weight=")
        native = {**self._other_native_params(), **(self.params or {})}
        task = native.get("task_type", "CPU")
        if task != "CPU":
            raise ValueError(f"task_type={task!r}: CatBoost runs custom objectives such as the AEC on the CPU only")
        for k in ("eval_metric", "custom_metric", "early_stopping_rounds", "od_wait"):
            if k in (self.params or {}):
                raise ValueError(f"params[{k!r}]: set it as the estimator's own keyword (money metrics only)")
        super()._check_common_params()

    def _class_weight(self, y01, w):
        """Row weights times CatBoost's class weighting (``class_weights``, ``scale_pos_weight`` or
        ``auto_class_weights``), applied here for both boosters: CatBoost cannot weight the classes of a
        custom objective, whose labels are the rows' regret differences."""
        native = {**self._other_native_params(), **(self.params or {})}
        given = {k: native[k] for k in _CLASS_WEIGHTS if native.get(k) is not None}
        if not given:
            return w
        if len(given) > 1:
            raise ValueError(f"give one of {sorted(given)}, not several: each weights the classes")
        (name, value), = given.items()
        counts = np.bincount(y01, minlength=2).astype(np.float64)
        if name == "class_weights":
            if isinstance(value, dict):
                unknown = [k for k in value if k not in self.classes_.tolist()]
                if unknown:
                    raise ValueError(f"class_weights has labels {unknown} that y does not have")
                factors = [float(value.get(c, 1.0)) for c in self.classes_.tolist()]
            else:
                factors = [float(v) for v in value]
        elif name == "scale_pos_weight":
            factors = [1.0, float(value)]
        elif value in ("Balanced", "SqrtBalanced"):  # CatBoost's: the largest class count over the class's
            factors = counts.max() / counts
            factors = np.sqrt(factors) if value == "SqrtBalanced" else factors
        elif value == "None":
            return w
        else:
            raise ValueError(f"auto_class_weights must be 'Balanced', 'SqrtBalanced' or 'None', got {value!r}")
        factors = np.asarray(factors, dtype=np.float64)
        if factors.shape != (2,) or not (np.isfinite(factors).all() and (factors >= 0).all()):
            raise ValueError(f"{name} must give two finite non-negative class weights, got {value!r}")
        rows = factors[y01]
        return rows if w is None else w * rows

    def _native_params(self, aec=True):
        """CatBoost parameters of a fit: the keywords, ``**kwargs`` and ``params`` (aliases resolved)."""
        p = {"iterations": self.n_estimators, "learning_rate": self.learning_rate, "depth": self.depth,
             "thread_count": self.thread_count, "verbose": self.verbose, "allow_writing_files": False}
        if self.random_state is not None:
            p["random_seed"] = native_seed(self.random_state)
        for k, v in {**self._other_native_params(), **(self.params or {})}.items():
            ours = _ALIASES.get(k, k)
            if ours not in ("loss_function", "cat_features", *_CLASS_WEIGHTS):
                p[_NATIVE.get(ours, ours)] = v
        if aec:
            p.update(_native.aec_params(
                {}, hessian=self.hessian, hessian_floor=self.hessian_floor, logloss_weight=self.logloss_weight,
                metric=self.eval_metric, decision=metric_decision(self.decision)))
        else:
            p.update(loss_function="Logloss", eval_metric="Logloss")
        return p

    def _read_X(self, X, reset, y=None):
        """As the other hosts; a DataFrame's ``cat_features`` columns of strings become pandas categories
        first (CatBoost users keep categorical columns as strings)."""
        if self.cat_features and hasattr(X, "columns") and hasattr(X, "dtypes"):
            import pandas as pd

            cols = list(X.columns)
            names = [cols[c] if isinstance(c, (int, np.integer)) else c for c in self.cat_features]
            unknown = [c for c in names if c not in cols]
            if unknown:
                raise ValueError(f"cat_features names columns {unknown[:5]} that X does not have")
            text = [c for c in names if not (isinstance(X[c].dtype, pd.CategoricalDtype)
                                             or pd.api.types.is_numeric_dtype(X[c].dtype))]
            if text:
                X = X.astype({c: "category" for c in text})
        return super()._read_X(X, reset, y)

    def _pool_data(self, X):
        """X with categorical columns as strings, and their indices (see :func:`_cat_native.cost_pool`)."""
        return _native._category_frame(X, self.cat_features)

    # ------------------------------------------------------ the host contract (see _host.BoostingHost)
    def _fit_booster(self, ctx, X, y, costs, w, evals, margin0):
        X, y, costs, w = _weighted_rows(X, y, costs, w)
        ctx.data["X"] = self._pool_data(X)  # the logloss model of decision="auto" trains on the same columns
        dtrain = _native.cost_pool(X, y, cost_matrix=costs, sample_weight=w, cat_features=self.cat_features,
                                   cost_scale=self.cost_scale_, start_margin=margin0)
        dvalid = [_native.cost_pool(Xk, yk, cost_matrix=ck, sample_weight=wk, cat_features=self.cat_features,
                                    reference=dtrain) for Xk, yk, ck, wk in evals]
        params = self._native_params()
        rounds = _decision_layer.patience(self, evals)
        if rounds is not None:
            params["early_stopping_rounds"] = rounds
        native = {**self._other_native_params(), **(self.params or {})}
        # as the other hosts: cut at the best round when stopping; trained whole, cut below, so that the
        # money metrics of every evaluated round can be read from the staged margins
        cut = bool(native.get("use_best_model", rounds is not None))
        params["use_best_model"] = False
        # the rows' hessians CatBoost would start from ("exact" can vanish at s = 1/2: its Fisher part then)
        objective = _native.AECObjective(hessian="fisher" if self.hessian == "exact" else self.hessian,
                                         hessian_floor=self.hessian_floor, logloss_weight=self.logloss_weight)
        hess = -objective.calc_ders_range(np.full(len(y), margin0), np.asarray(dtrain.get_label(), np.float32),
                                          np.asarray(dtrain.get_weight(), np.float32))[:, 1]
        model = None if _no_split(hess.sum()) else self._train(params, dtrain, dvalid)
        if model is None:  # no split possible: the start margin, as the other hosts keep it
            model = _native.constant_model(X, self.cat_features, margin0, len(y) if w is None else np.sum(w))
            self.best_iteration_ = 0 if rounds is not None else None
        else:
            self.best_iteration_ = model.get_best_iteration() if rounds is not None else None
        _native.bake_start_margin(model, margin0)
        self.evals_result_ = self._money_history(model, evals, dvalid)
        if cut and model.get_best_iteration() is not None:
            model.shrink(model.get_best_iteration() + 1)
        self.booster_ = _native.to_deployable(model, self.classes_)
        self.n_estimators_ = int(model.tree_count_)
        ctx.data["pools"] = (dtrain, dvalid)  # alive until the fit ends: the metrics find their costs by them

    def _money_history(self, model, evals, dvalid):
        """``evals_result_``: CatBoost's keys ("learn", "validation") holding the money metrics by the
        library's names, as the other hosts record them for each eval set: on the validation set
        (CatBoost evaluates the last one) "aec", "expected_savings" and "savings" per round, the
        watched ``eval_metric`` as CatBoost computed it (the values early stopping compared), the
        others from the staged margins of the same rounds (one metric is all CatBoost takes from
        Python); on "learn" the watched metric as CatBoost reported it during training."""
        native = {type(_native.money_metric(k)).__name__: k for k in METRIC_NAMES}
        out = {key: {native.get(name, name): list(values) for name, values in hist.items()}
               for key, hist in model.get_evals_result().items()}
        if not dvalid:
            return out
        rec = _native._record(dvalid[-1])
        data, cats = self._pool_data(evals[-1][0])
        decision = metric_decision(self.decision)
        valid = out.get("validation", {})
        others = [k for k in METRIC_NAMES if k not in valid]  # all three for a model CatBoost did not train
        got = {k: [] for k in others}
        for margin in model.staged_predict(catboost.Pool(data, cat_features=cats), prediction_type="RawFormulaVal"):
            sums = _aec_kernels.money_sums(np.asarray(margin, np.float64), True, rec.y, rec.costs, rec.weight)
            for k in others:
                got[k].append(_aec.money_metric_from_sums(k, sums, decision))
        out["validation"] = {k: got[k] if k in got else valid[k] for k in METRIC_NAMES}
        return out

    def _train(self, params, dtrain, dvalid):
        """The trained model, or None when CatBoost refuses X because no feature can be split."""
        try:
            return catboost.CatBoost(params).fit(dtrain, eval_set=dvalid[-1:] or None)
        except catboost.CatBoostError as exc:
            if _native.NO_SPLIT in str(exc):
                return None
            raise _catboost_error(exc, params, type(self).__name__) from exc

    def _fit_logloss_booster(self, ctx, recipe, y, w, evals):
        """The logloss model of ``decision="auto"``: same tree parameters, CatBoost's own Logloss."""
        Xtr, cats = ctx.data["X"]
        _, y, _, w = _weighted_rows(None, y, None, w)  # the rows the AEC booster kept
        params = {**self._native_params(aec=False), **recipe.params, "iterations": recipe.rounds}
        dtrain = catboost.Pool(Xtr, label=y, weight=w, cat_features=cats)
        dvalid = []
        if evals:
            Xv, yv, _, wv = evals[-1]
            dvalid = [catboost.Pool(self._pool_data(Xv)[0], label=yv, weight=wv, cat_features=cats)]
            params["early_stopping_rounds"] = recipe.patience
        if "use_best_model" not in {**self._other_native_params(), **(self.params or {})}:
            params["use_best_model"] = bool(evals)
        rate = np.clip(np.average(y, weights=w), 1e-15, 1 - 1e-15)
        weight = len(y) if w is None else np.sum(w)
        model = None if _no_split(weight * rate * (1 - rate)) else self._train(params, dtrain, dvalid)
        if model is None:  # no split possible: the log-odds of the weighted class rate, logloss's best constant
            model = _native.constant_model(Xtr, cats, np.log(rate / (1 - rate)), weight)
        best = model.get_best_iteration() if evals else None
        bst = _native.to_deployable(model, self.classes_)
        return bst, dict(best_iteration_=best, n_estimators_=int(model.tree_count_),
                         start_margin_=float(model.get_scale_and_bias()[1]), evals_result_=model.get_evals_result())

    def _booster_margin(self, booster, X, offset=None):
        if offset is not None:  # CatBoost's fit takes no per-row start margins: none reach here
            raise ValueError("CSCatBoostClassifier has no per-row start margins")
        data, cats = self._pool_data(X)
        return np.asarray(booster.predict(catboost.Pool(data, cat_features=cats), prediction_type="RawFormulaVal"),
                          dtype=np.float64)

    def _cut_booster(self, booster, rounds):
        out = booster.copy()
        out.shrink(int(rounds))
        return out

    def _booster_n_features(self, booster):
        return len(booster.feature_names_)

    def _booster_rounds(self, booster):
        return int(booster.tree_count_)

    @property
    def feature_importances_(self):
        """``booster_.get_feature_importance()`` (CatBoost's PredictionValuesChange, summing to 100).

        Returns
        -------
        ndarray of shape (n_features,)
        """
        check_is_fitted(self, "booster_")
        return np.asarray(self.booster_.get_feature_importance(), dtype=np.float64)

    def to_deployable(self):
        """The CatBoost model ``predict_proba`` uses, as a ``CatBoostClassifier`` any process can load.

        Returns
        -------
        catboost.CatBoostClassifier
            ``predict_proba(X)`` equals this estimator's.
        """
        check_is_fitted(self, "booster_")
        return self.booster_.copy()

    # ----------------------------------------------------------- save / load
    def _save_booster(self, booster, path, meta):
        model = booster.copy()
        model.get_metadata()[META_KEY] = meta
        model.save_model(path)

    @staticmethod
    def _load_booster(path):
        model = catboost.CatBoostClassifier()
        model.load_model(path)
        try:
            meta = model.get_metadata()[META_KEY]
        except KeyError:
            meta = None
        return model, meta
