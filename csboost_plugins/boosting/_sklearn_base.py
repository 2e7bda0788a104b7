"""Shared scikit-learn estimator logic of ``CSXGBClassifier``, ``CSLGBMClassifier`` and ``CSCatBoostClassifier``.

The base validates X, y, costs, sample weights and eval sets once, then hands
the data (float64 arrays, or the DataFrame itself when it has pandas
``category`` columns, which the native libraries encode) to the host's hooks
(:class:`~csboost_plugins.boosting._host.BoostingHost`: ``_fit_booster``,
``_booster_margin``, ...). Like ``XGBClassifier`` and ``LGBMClassifier`` the
estimators take any further native parameter as a keyword (``**kwargs``), shown
by ``get_params`` so ``clone`` / ``GridSearchCV`` keep it.
"""

from __future__ import annotations

import inspect
import json
import numbers
import re

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _aec, _decision_layer, _decision_rule, _native_input
from ._host import BoostingHost, FitContext
from .. import _capacity
from .._docstrings import fill_doc
from .._params import native_seed
from .._validation import (check_binary_labels, check_predict_positive, check_sample_weight, check_X_columns,
                           costs_given, fit_target)
from ..costs import COST_KEYWORDS, check_costs, check_fit_costs, check_same_index, one_cost_warning, row_index
from ..metrics import bayes_minimum_risk

META_KEY = "csboost"  # name of the estimator metadata saved with a booster (JSON)

# numpydoc text the boosting estimators of every host share (csboost_plugins._docstrings.fill_doc)
DOCS = dict(
    predict_costs=(
        "X : array-like or DataFrame of shape (n, p)\n"
        "    Rows to decide.\n"
        "fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,), optional\n"
        "    The rows' costs: Bayes-minimum-risk decisions. Without them: s > 1/2 when\n"
        "    ``decision_`` is \"aec\" (``decision=\"0.5\"``), else a ``ValueError`` naming them.\n"
        "cost_matrix : array-like of shape (n, 4), optional\n"
        "    ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords."
    ),
    capacity=(
        "max_alerts : int >= 1, optional\n"
        "    Alert capacity: at most this many alerts per period (over all rows without\n"
        "    ``periods``), the most valuable of the rows the rule flags, ties by row order. Ranked by\n"
        "    the expected net money of an alert ``s (C_FN - C_TP) - (1 - s)(C_FP - C_TN)`` when the\n"
        "    rule is Bayes minimum risk (equal to ``bayes_minimum_risk`` with the same capacity), by\n"
        "    the margin ``log(s / (1 - s))`` when it is the AEC's own s > 1/2 (``decision_ == \"aec\"``).\n"
        "max_alert_rate : float in (0, 1], optional\n"
        "    At most ``floor(max_alert_rate * rows of the period)`` alerts; not with ``max_alerts``.\n"
        "periods : array-like of shape (n,), optional\n"
        "    Period label of each row (no missing value); the capacity applies within each period.\n"
        "entity : array-like of shape (n,), optional\n"
        "    Card or customer id of each row (no missing value; a pandas Series carries X's index):\n"
        "    with ``max_alerts`` the cap counts entities, every row of an alerted entity in the period\n"
        "    flagged. An entity is worth the sum of its rows' alert values over the period (among\n"
        "    entities whose sum is positive) under Bayes minimum risk, its rows' largest margin\n"
        "    (among entities with a row of positive margin) under the AEC's s > 1/2; ties to the\n"
        "    entity seen first. Not with ``max_alert_rate``; without a cap it changes nothing."
    ),
    fit_data=(
        "y : array-like of shape (n,)\n"
        "    Two classes: 0/1, -1/1 or booleans (1 is positive), or any two labels with\n"
        "    ``pos_label`` naming the positive one.\n"
        "fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,)\n"
        "    Money per row. With no costs at all, unit costs C_FP = C_FN = 1 are\n"
        "    used (AEC = expected 0-1 loss), so the estimator also works where no\n"
        "    money is known (scikit-learn checks).\n"
        "cost_matrix : array-like of shape (n, 4), optional\n"
        "    ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.\n"
        "sample_weight : array-like of shape (n,), optional\n"
        "    Multiplies each row's gradient, hessian and metric contribution.\n"
        "eval_set : list of (X_k, y_k), optional\n"
        "    Sets evaluated each round; early stopping watches the last one, and\n"
        "    ``decision=\"auto\"`` chooses its rule on it (without one it holds out\n"
        "    ``validation_fraction`` of the training rows).\n"
        "eval_costs : list, optional\n"
        "    One per eval set: a dict of ``fp_cost``/``fn_cost``/``tp_cost``/``tn_cost``\n"
        "    (or ``cost_matrix``) for that set's rows, or an (n_k, 4) array. Required\n"
        "    with ``eval_set`` when training costs are given: costs are never\n"
        "    matched to an eval set by length or order.\n"
        "eval_sample_weight : list of (n_k,) or None, optional\n"
        "    Row weights of each eval set."
    ),
    continued_training=(
        "Continued training and start margins follow the host library. ``fit`` with the\n"
        "model to continue (``xgb_model=`` / ``init_model=``: a path, a native booster, or\n"
        "a fitted estimator of this class or the native one) keeps its trees and boosts\n"
        "``n_estimators`` more from its margins: its start margin stays in it and is never\n"
        "added again, so n rounds then m more equal one fit of n + m rounds; ``cost_scale_``\n"
        "comes from the new fit's costs. Per-row start margins (``base_margin=`` /\n"
        "``init_score=``, and per eval set ``base_margin_eval_set=`` / ``eval_init_score=``)\n"
        "replace the start margin for those rows (not with ``decision=\"auto\"``)."
    ),
    fitted_columns=(
        "classes_ : ndarray of shape (2,)\n"
        "    ``[negative label, positive label]``: sorted for 0/1, -1/1 and boolean labels;\n"
        "    with ``pos_label``, ``classes_[1] == pos_label``. ``predict_proba``'s column 1\n"
        "    is P(``classes_[1]``) and ``predict`` returns these labels.\n"
        "n_features_in_ : int\n    Number of columns of X.\n"
        "feature_names_in_ : ndarray of str\n"
        "    Column names of a training DataFrame (also the booster's feature names)."
    ),
)


def adopt_public_names(namespace):
    """Show the public classes and functions of a facade module (``csboost_plugins.xgb`` / ``lgb``) as its own.

    Each name of ``namespace["__all__"]`` defined in a private module (``csboost_plugins.boosting._*``) gets
    ``__module__`` = the facade, so it is documented, pickled and shown as ``csboost_plugins.xgb.<name>``.
    """
    for name in namespace["__all__"]:
        obj = namespace[name]
        if (isinstance(obj, type) or callable(obj) and hasattr(obj, "__code__")) and \
                obj.__module__.startswith("csboost_plugins.") and "._" in obj.__module__:
            obj.__module__ = namespace["__name__"]


def has_category_columns(X) -> bool:
    """True for a pandas DataFrame with at least one ``category`` column."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return False
    import pandas as pd

    return any(isinstance(dt, pd.CategoricalDtype) for dt in dtypes)


def native_error(exc, aliases, cls_name):
    """``ValueError`` naming the parameter an ``XGBoostError`` / ``LightGBMError`` complains about.

    ``aliases`` maps native parameter names to the estimator's keywords
    (``bagging_fraction`` -> ``subsample``); the native message is kept.
    """
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    m = re.search(r"Parameter (\w+)|Check failed: \(?(\w+)\)?", msg)
    if m is None:
        return ValueError(f"{cls_name}: {type(exc).__name__}: {msg}")
    name = m.group(1) or m.group(2)
    name = aliases.get(name, name)
    return ValueError(f"{cls_name}: invalid parameter {name}: {msg}")


class _hybridmethod:
    """``Cls.load_model(path)`` returns a new fitted estimator; ``est.load_model(path)`` fills ``est``
    (the xgboost habit ``clf = XGBClassifier(); clf.load_model(path)``) and returns it."""

    def __init__(self, func):
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj, cls):
        def bound(*args, **kwargs):
            return self.func(cls, obj, *args, **kwargs)

        bound.__doc__, bound.__name__ = self.func.__doc__, self.func.__name__
        params = list(inspect.signature(self.func).parameters.values())[2:]  # drop cls, self
        bound.__signature__ = inspect.Signature(params)
        return bound


def _json_params(params) -> dict:
    """The JSON-serialisable subset of ``get_params()`` (callbacks, objects are dropped)."""
    out = {}
    for k, v in params.items():
        try:
            json.dumps(v)
        except (TypeError, ValueError):
            continue
        out[k] = v
    return out


def check_margins(values, n, name, index=None):
    """User start margins (``init_score`` / ``base_margin``): finite float64 of shape (n,), or None.

    A margin is the log-odds eta the boosting starts from for that row (paper eq. 7's
    score before any tree); ``ValueError`` naming ``name`` on a wrong shape, a
    non-finite value (lightgbm and xgboost would train on NaN silently) or a pandas
    index other than ``index`` (X's: rows are matched by position, as the costs).
    """
    if values is None:
        return None
    check_same_index([(name, values)], index, "X")
    if hasattr(values, "to_numpy"):  # pandas Series / one-column DataFrame
        values = values.to_numpy()
    try:
        m = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric start margins (log-odds), one per row: {exc}") from None
    if m.ndim == 2 and m.shape[1] == 1:
        m = m[:, 0]
    if m.ndim != 1:
        raise ValueError(f"{name} must have shape ({n},) (one start margin per row), got shape {m.shape}")
    if m.shape[0] != n:
        raise ValueError(f"{name} has {m.shape[0]} values but X has {n} rows")
    bad = int((~np.isfinite(m)).sum())
    if bad:
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s): a start margin must be finite")
    return m


class FitStart:
    """Where one fit's boosting starts, as the user gave it (not public).

    ``train`` / ``evals[k]``: the training / eval rows' own start margins (None: the
    model's start); ``booster``: the native booster to continue (a copy), ``booster_start``
    its start margin (None when unknown). :meth:`offset` is the margin outside the model a
    validated ``X`` of this fit starts from, by object identity (the decision layer scores
    the very arrays ``fit`` validated).
    """

    def __init__(self, train=None, evals=None, booster=None, booster_start=None):
        self.train, self.evals = train, list(evals or [])
        self.booster, self.booster_start = booster, booster_start
        self._by_id = {}

    def register(self, X, margins):
        """Record ``margins`` as the start of the rows of ``X``; False when ``X`` already has others."""
        if margins is None:
            return True
        old = self._by_id.get(id(X))
        if old is not None and not (old[1] is margins or np.array_equal(old[1], margins)):
            return False
        self._by_id[id(X)] = (X, margins)  # X kept alive: its id is not reused during the fit
        return True

    def offset(self, X):
        """The start margins of ``X``'s rows given at fit, or None (they start from the model's)."""
        hit = self._by_id.get(id(X))
        return None if hit is None or hit[0] is not X else hit[1]


class CostSensitiveBoostingMixin(ClassifierMixin, BaseEstimator, BoostingHost):
    """Base of the AEC boosting estimators of every host (not public).

    Subclasses implement the hooks of :class:`~csboost_plugins.boosting._host.BoostingHost`
    (fit the AEC and the logloss booster, margins under a given booster, cut, save, load,
    number of features and of rounds) and set ``_native_library``. The native start keywords
    (xgboost's ``base_margin`` / ``base_margin_eval_set`` / ``xgb_model``, lightgbm's
    ``init_score`` / ``eval_init_score`` / ``init_model``) reach ``_fit_booster`` as
    ``ctx.start`` (a :class:`FitStart` in the fit's :class:`~csboost_plugins.boosting._host.FitContext`),
    the model to continue through ``_init_booster(model, keyword, X)``.
    """

    _native_names: tuple = ()
    _native_library: str = ""  # "xgboost" / "lightgbm": what _native_input checks X for
    _text_cure = None  # the cure named for a text column (None: check_X_columns' own; CatBoost names cat_features)

    # ------------------------------------------------------------- parameters
    def _set_other_params(self, kwargs):
        # further native parameters given as keywords (like LGBMClassifier / XGBClassifier **kwargs);
        # kept in one private dict (scikit-learn: __init__ sets no attribute but its parameters)
        self._other_params = dict(kwargs)

    def __getattr__(self, name):
        # est.verbose for a keyword given as **kwargs; only called when normal lookup fails
        other = self.__dict__.get("_other_params")
        if other is not None and name in other:
            return other[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_params(self, deep=True):
        """Parameters of the estimator, including native keywords given as ``**kwargs``.

        Parameters
        ----------
        deep : bool, default True
            As in scikit-learn (the estimators hold no sub-estimator).

        Returns
        -------
        dict
            Keyword name to value; ``clone`` and ``GridSearchCV`` rebuild the estimator from it.
        """
        params = super().get_params(deep=deep)
        params.update(getattr(self, "_other_params", {}))
        return params

    def set_params(self, **params):
        """Set parameters; a name outside the signature is kept as a native keyword (like ``**kwargs``).

        Parameters
        ----------
        **params : dict
            Keyword name to new value.

        Returns
        -------
        self
            The estimator.
        """
        known = set(self._get_param_names())
        own = {k: v for k, v in params.items() if k in known or "__" in k}
        super().set_params(**own)
        other = self.__dict__.setdefault("_other_params", {})
        other.update({k: v for k, v in params.items() if k not in own})
        return self

    def get_metadata_routing(self):
        """Metadata requests; with ``decision="bmr"`` or ``"auto"``, ``predict`` requests the cost keywords.

        Those rules decide with each row's costs, so pipelines and
        :func:`csboost_plugins.metrics.make_savings_scorer` hand them to ``predict``
        (routing on). With ``decision="0.5"`` the request stays unset (``predict(X)``
        is s > 1/2) unless ``set_predict_request`` sets it; an explicit
        ``set_predict_request`` always wins.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
            A copy: changing it does not change the estimator's requests.
        """
        request = super().get_metadata_routing()  # a fresh object, built from the instance's requests
        if self.decision in ("bmr", "auto"):
            for param, alias in request.predict.requests.items():
                if alias is None:  # left unset by the user
                    request.predict.add_request(param=param, alias=True)
        return request

    def _other_native_params(self) -> dict:
        return dict(getattr(self, "_other_params", {}))

    def _check_common_params(self):
        obj = getattr(self, "objective", None)
        if obj is not None and obj != "aec":
            raise ValueError(
                f"objective={obj!r}: {type(self).__name__} trains the average expected cost (AEC) objective with the "
                f"rows' costs; use the native xgboost.XGBClassifier / lightgbm.LGBMClassifier for another loss, or "
                f"blend logloss into the AEC with logloss_weight="
            )
        _aec.check_hessian_params(self.hessian, self.hessian_floor, self.logloss_weight)
        if not (isinstance(self.n_estimators, numbers.Integral) and self.n_estimators >= 1):
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not (isinstance(self.learning_rate, numbers.Real) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate!r}")
        for name in ("subsample", "colsample_bytree", "colsample_bylevel", "colsample_bynode"):
            v = getattr(self, name, None)
            if v is not None and not (isinstance(v, numbers.Real) and 0 < v <= 1):
                raise ValueError(f"{name} must lie in (0, 1], got {v!r}")
        if not isinstance(self.eval_metric, str) or self.eval_metric not in _aec.METRICS:  # a list: unhashable
            raise ValueError(f"eval_metric must be one of {tuple(_aec.METRICS)} (one name: money metrics on each "
                             f"eval set's costs; the AEC objective makes xgboost's / lightgbm's own metrics read "
                             f"margins), got {self.eval_metric!r}")
        _aec.check_metric_params(self.eval_metric, _decision_layer.metric_decision(self.decision), "margin")
        _decision_layer.check_validation_fraction(self.validation_fraction)
        esr = self.early_stopping_rounds
        if esr is not None and not (isinstance(esr, numbers.Integral) and esr >= 1):
            raise ValueError(f"early_stopping_rounds must be None or an integer >= 1, got {esr!r}")

    # ------------------------------------------------------------------ input
    def _validate_X(self, X, reset, y=None, argument="X"):
        """X (and y when given) validated for the native library: ``_read_X``, then what the library
        refuses with an error naming no column (a feature name, an inf, a value beyond its float32)."""
        # dates, text: named before numpy fails to convert them (a host may read some text columns itself)
        check_X_columns(X, argument, text=self._text_columns(X), text_cure=self._text_cure)
        out = self._read_X(X, reset, y)
        if reset:
            _native_input.check_feature_names(self._feature_names(), self._native_library, argument)
        _native_input.check_feature_values(out if y is None else out[0], self._native_library, argument,
                                           self._feature_names())
        return out

    def _text_columns(self, X):
        """Labels of the columns of X whose text the host encodes itself (none here; CatBoost overrides)."""
        return ()

    def _read_X(self, X, reset, y=None):
        """X as the native library takes it: a float array, or a DataFrame with category columns."""
        if has_category_columns(X):
            return self._validate_frame(X, reset, y)
        # float32 stays float32: both libraries bin it as is (no 2x copy of a large X); an inf is named by
        # check_feature_values, with its column and row count
        kw = dict(dtype=(np.float64, np.float32), ensure_all_finite=False, reset=reset)
        try:
            return validate_data(self, X, **kw) if y is None else validate_data(self, X, y, **kw)
        except ValueError as exc:
            if "could not convert" in str(exc) or "dtype" in str(exc):
                raise ValueError(f"X must be numeric, bool or pandas category columns: {exc}") from exc
            raise

    def _validate_frame(self, X, reset, y):
        """A DataFrame with ``category`` columns goes to the native library as it is (it encodes them); its
        other columns are numeric or bool (``check_X_columns`` named any other in ``_validate_X``)."""
        if X.shape[0] == 0:
            raise ValueError("X has 0 rows")
        if y is None:
            validate_data(self, X, reset=reset, skip_check_array=True)
            return X
        validate_data(self, X, y, reset=reset, skip_check_array=True)
        return X, np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)

    def _feature_names(self):
        """Feature names given to the booster: the training DataFrame's columns, else None."""
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [str(c) for c in names]

    # -------------------------------------------------------------------- fit
    @fill_doc(**DOCS)
    def fit(self, X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None, eval_set=None, eval_costs=None, eval_sample_weight=None):
        """Fit boosted trees minimising the average expected cost (csboost paper eq. 7).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Numeric (NaN allowed: a missing value); pandas ``category`` columns
            are encoded by the native library (xgboost needs
            ``enable_categorical=True``, as natively).
        %(fit_data, returns_self)s
        """
        return self._fit(X, y, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                    cost_matrix=cost_matrix), sample_weight, eval_set, eval_costs, eval_sample_weight)

    def _fit(self, X, y, cost_kw, sample_weight, eval_set, eval_costs, eval_sample_weight, start=None, options=None):
        """The shared fit. ``start``: ``{"train": (keyword, margins), "evals": (keyword, list),
        "model": (keyword, model)}`` of the native start keywords (``init_score`` / ``base_margin``, ...);
        ``options``: the host's own fit keywords (:attr:`FitContext.options`)."""
        self._check_common_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        rows = row_index(X)  # pandas costs must carry X's index (read by position, never by label)
        check_same_index([("y", y)], rows, "X")  # y too: a re-sorted y would give rows the wrong labels
        X, y = self._validate_X(X, reset=True, y=y)
        y01, classes = fit_target(y, self.pos_label, required=costs_given(**cost_kw), who=type(self).__name__)
        if y01.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y01.shape[0]} rows but X has {X.shape[0]}")
        self.classes_ = classes
        with one_cost_warning():  # one CostWarning per fit, at the caller's line
            costs = check_fit_costs(X.shape[0], **cost_kw, index=rows)
            unit = cost_kw["fp_cost"] is None and cost_kw["fn_cost"] is None and cost_kw["cost_matrix"] is None
            evals = self._check_evals(eval_set, eval_costs, eval_sample_weight, unit=unit)
        w = check_sample_weight(sample_weight, X.shape[0], rows_of="X", allow_all_zero=False, index=rows)
        w = self._class_weight(y01, w)
        if self.decision == "auto" and w is not None and not (w[y01 == 1].sum() > 0 and w[y01 == 0].sum() > 0):
            raise ValueError("decision='auto' also fits a logloss booster, which needs both classes with positive "
                             "sample_weight; one class has none here (fit decision='0.5' for the AEC booster alone)")
        if self.decision == "auto" and not evals:  # hold out validation rows: the rule is chosen on them
            split = _decision_layer.holdout(self, y01)
            if split is not None:
                tr, va = split
                evals = [(_safe_indexing(X, va), y01[va].astype(np.float64), costs[va], None if w is None else w[va])]
                X, y01, costs, w = _safe_indexing(X, tr), y01[tr], costs[tr], None if w is None else w[tr]
        if self.early_stopping_rounds is not None and not evals:
            raise ValueError("early_stopping_rounds needs an eval_set (with its eval_costs)")
        d = _aec.regret_difference(y01, costs)
        self.cost_scale_ = _aec.cost_scale(d, w)  # this fit's money unit, also when continuing a model
        margin0 = _aec.start_margin(y01, w, kind=self._start_margin_kind(), d=d)
        sets = [eval_set] if isinstance(eval_set, tuple) else list(eval_set or [])  # as _check_evals read them
        fit_start = self._check_start(start, X, evals, rows, [row_index(s[0]) for s in sets])
        if fit_start.booster is not None:  # its start margin is in the init model already: never added again
            self.start_margin_ = fit_start.booster_start
        elif fit_start.train is not None:
            self.start_margin_ = self._start_with_offsets(margin0)
        else:
            self.start_margin_ = margin0
        ctx = FitContext(start=fit_start, options=dict(options or {}))  # lives as long as this call
        self._fit_booster(ctx, X, y01.astype(np.float64), costs, w, evals, margin0)
        # decision="auto" (logloss booster, rule chosen on validation savings) and the money guard
        _decision_layer.after_fit(self, ctx, X, y01.astype(np.float64), costs, w, evals, unit_costs=unit)
        return self

    def _start_with_offsets(self, margin0):
        """``start_margin_`` of a fit whose training rows start from the user's margins."""
        return margin0

    def _init_booster(self, model, name, X):
        """``(native booster copy, its start margin or None)`` of the model to continue (subclasses)."""
        raise TypeError(f"{type(self).__name__} cannot continue a model ({name}=)")

    def _check_start(self, start, X, evals, rows=None, eval_rows=None):
        """The validated :class:`FitStart` of the native start keywords (see :meth:`_fit`); ``rows`` /
        ``eval_rows``: the pandas indexes of X and of each eval set's X, or None."""
        if start is None:
            return FitStart()
        (t_name, t_val), (e_name, e_val), (m_name, m_val) = start["train"], start["evals"], start["model"]
        train = check_margins(t_val, X.shape[0], t_name, rows)
        eval_margins = [None] * len(evals)
        if e_val is not None:
            if not evals:
                raise ValueError(f"{e_name} given without eval_set")
            if not isinstance(e_val, (list, tuple)):
                raise ValueError(f"{e_name} must be a list with one array of start margins (or None) per eval set, "
                                 f"got {type(e_val).__name__}")
            if len(e_val) != len(evals):
                raise ValueError(f"{e_name} has {len(e_val)} entries but eval_set has {len(evals)} sets")
            if eval_rows is None or len(eval_rows) != len(evals):  # eval_set was an iterator: no index to check
                eval_rows = [None] * len(evals)
            eval_margins = [check_margins(v, Xk.shape[0], f"{e_name}[{k}]", idx)
                            for k, (v, (Xk, *_), idx) in enumerate(zip(e_val, evals, eval_rows))]
        if self.decision == "auto" and (train is not None or any(m is not None for m in eval_margins)):
            raise ValueError(f"decision='auto' compares the AEC booster with a logloss booster fit from scratch, "
                             f"which has no use for AEC start margins ({t_name}= / {e_name}=): fit with "
                             f"decision='0.5' or 'bmr', or continue a model with {m_name}=")
        booster, booster_start = (None, None) if m_val is None else self._init_booster(m_val, m_name, X)
        out = FitStart(train, eval_margins, booster, booster_start)
        out.register(X, train)
        for k, m in enumerate(eval_margins):
            if not out.register(evals[k][0], m):  # the training array again, with other margins: score a copy
                evals[k] = (evals[k][0].copy(), *evals[k][1:])
                out.register(evals[k][0], m)
        return out

    def _start_margin_kind(self):
        return self.start_margin

    def _class_weight(self, y01, w):
        """Row weights times the native class weighting (``scale_pos_weight`` / ``class_weight``)."""
        return w

    def _check_evals(self, eval_set, eval_costs, eval_sample_weight, unit):
        if eval_set is None:
            if eval_costs is not None:
                raise ValueError("eval_costs given without eval_set")
            return []
        if isinstance(eval_set, tuple):
            eval_set = [eval_set]
        eval_set = list(eval_set)
        if eval_costs is None:
            if not unit:
                raise ValueError(
                    "eval_costs is required with eval_set: one dict of fp_cost/fn_cost/... (or an (n_k, 4) "
                    "cost matrix) per eval set; costs are never matched to eval sets by length or order"
                )
            eval_costs = [{}] * len(eval_set)
        if isinstance(eval_costs, dict) or (hasattr(eval_costs, "ndim") and getattr(eval_costs, "ndim", 0) == 2):
            eval_costs = [eval_costs]
        eval_costs = list(eval_costs)
        if len(eval_costs) != len(eval_set):
            raise ValueError(f"eval_costs has {len(eval_costs)} entries but eval_set has {len(eval_set)} sets")
        if eval_sample_weight is None:
            eval_sample_weight = [None] * len(eval_set)
        if len(eval_sample_weight) != len(eval_set):
            raise ValueError("eval_sample_weight needs one entry (or None) per eval set")
        out = []
        for k, ((Xk, yk), ck, wk) in enumerate(zip(eval_set, eval_costs, eval_sample_weight)):
            rows = row_index(Xk)
            Xk = self._validate_X(Xk, reset=False, argument=f"eval_set[{k}] X")
            yk = self._eval_labels(yk, f"eval_set[{k}] y")
            if yk.shape[0] != Xk.shape[0]:
                raise ValueError(f"eval_set[{k}]: y has {yk.shape[0]} rows but X has {Xk.shape[0]}")
            if isinstance(ck, dict):
                unknown = set(ck) - set(COST_KEYWORDS)
                if unknown:
                    raise ValueError(f"eval_costs[{k}] has unknown keys {sorted(unknown)}; use {COST_KEYWORDS}")
                kw = dict(ck)
                kw.setdefault("tp_cost", 0.0)
                kw.setdefault("tn_cost", 0.0)
                ck = check_fit_costs(Xk.shape[0], fp_cost=kw.get("fp_cost"), fn_cost=kw.get("fn_cost"),
                                     tp_cost=kw["tp_cost"], tn_cost=kw["tn_cost"], cost_matrix=kw.get("cost_matrix"),
                                     index=rows)
            else:
                ck = check_costs(Xk.shape[0], cost_matrix=ck, index=rows)
            wk = check_sample_weight(wk, Xk.shape[0], name=f"eval_sample_weight[{k}]", rows_of=f"eval_set[{k}] X",
                                     allow_all_zero=False, index=rows)
            out.append((Xk, yk.astype(np.float64), ck, wk))
        return out

    def _eval_labels(self, yk, name):
        """An eval set's labels as 0/1 by the training classes (``classes_``), not by its own sorted values:
        a set of one class, or with a label the training y lacks, would be silently re-coded otherwise."""
        check_binary_labels(yk, name=name, require_both=False)  # 1-D, not empty, no NaN, at most two labels
        raw = np.asarray(yk.to_numpy() if hasattr(yk, "to_numpy") else yk).ravel()
        unknown = ~np.isin(raw, self.classes_)
        if unknown.any():
            raise ValueError(f"{name} has label(s) {np.unique(raw[unknown])[:5].tolist()} that the training y "
                             f"does not have (its classes are {self.classes_.tolist()}): give the eval set's "
                             "labels in the training y's values")
        return (raw == self.classes_[1]).astype(np.int64)

    # -------------------------------------------------------------- prediction
    def decision_function(self, X):
        """Margin eta (log-odds of the cost-trained probability), start margin included.

        With ``decision="auto"`` and ``decision_ == "logloss+bmr"``: the logloss model's margin.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Rows to score, with the training columns.

        Returns
        -------
        ndarray of shape (n,)
            The margin eta_i; P(y=1) = 1 / (1 + exp(-eta_i)).
        """
        check_is_fitted(self, "booster_")
        X = self._validate_X(X, reset=False)
        return self._margin(X)

    def _margin(self, X):
        """Margins of validated ``X`` under ``booster_`` (the booster that decides)."""
        return self._booster_margin(self.booster_, X)

    def predict_proba(self, X):
        """Probabilities ``[1 - s, s]`` with s = sigmoid(margin).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Rows to score.

        Returns
        -------
        ndarray of shape (n, 2)
            Columns in the order of ``classes_``.
        """
        s = _aec.sigmoid(self.decision_function(X))
        return np.column_stack([1.0 - s, s])

    def predict(self, X, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, max_alerts=None,
                max_alert_rate=None, periods=None, entity=None):
        """Class labels, optionally under an alert capacity.

        With ``decision="auto"`` (the default): the rule ``decision_`` chosen on
        validation money; its BMR rules need the rows' costs (a ``ValueError`` names
        them; see :mod:`csboost_plugins.boosting._decision_layer`). With ``decision="0.5"`` /
        ``"bmr"``: without costs s > 1/2 on the cost-trained probability (the AEC
        already holds the training money); with the rows' costs (``fp_cost``/``fn_cost``/...
        or ``cost_matrix``) Bayes minimum risk, predict 1 iff
        ``s C_TP + (1-s) C_FP < s C_FN + (1-s) C_TN`` (paper eq. 2).

        Under an alert capacity (``max_alerts`` or ``max_alert_rate``, per period with
        ``periods``) only the most valuable of the rows the rule flags are flagged, up to the
        cap in each period; ties at the cut go by row order. What is ranked:

        * a Bayes-minimum-risk decision (``decision_`` "aec+bmr" / "logloss+bmr", or costs given
          with ``decision="0.5"`` / ``"bmr"``): the expected net money of an alert
          ``s (C_FN - C_TP) - (1 - s)(C_FP - C_TN)`` (:func:`csboost_plugins.metrics.alert_value`),
          among rows where it is positive, so the result equals
          ``bayes_minimum_risk(predict_proba(X), costs, max_alerts=..., periods=...)``;
        * the AEC's own decision s > 1/2 (``decision_ == "aec"``, or no costs with
          ``decision="0.5"`` / ``"bmr"``): the margin ``eta = log(s / (1 - s))``, among rows with
          a positive margin (costs are not used; margins beyond about 37, where s rounds to 1,
          tie and go by row order).

        With ``entity`` (card or customer id per row) and ``max_alerts`` the cap counts entities:
        in each period the ``max_alerts`` most valuable entities are alerted and all their rows in
        the period flagged. Under Bayes minimum risk an entity is worth the sum of its rows' alert
        values ``V(e, t) = sum_i v_i`` (money; alerted when ``V > 0``), so the result equals
        ``bayes_minimum_risk(predict_proba(X), costs, max_alerts=..., periods=..., entity=...)``;
        under the AEC's own s > 1/2 margins do not add, so an entity is worth its rows' largest
        margin (alerted when one of its rows has a positive margin). Ties go to the entity whose
        first row in the period comes first.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Rows to decide.
        fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,), optional
            The rows' costs (money); without them the decision is s > 1/2 (with
            ``decision="auto"``: required when ``decision_`` is a BMR rule).
        cost_matrix : array-like of shape (n, 4), optional
            ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
        max_alerts : int >= 1, optional
            At most this many alerts per period (over all rows without ``periods``).
        max_alert_rate : float in (0, 1], optional
            At most ``floor(max_alert_rate * rows of the period)`` alerts; not with ``max_alerts``.
        periods : array-like of shape (n,), optional
            Period label of each row (no missing value); the capacity applies within each period.
        entity : array-like of shape (n,), optional
            Card or customer id of each row (no missing value): the cap counts entities. Not with
            ``max_alert_rate``; without a cap it changes nothing.

        Returns
        -------
        ndarray of shape (n,)
            Labels from ``classes_``.
        """
        return self._decide(self.predict_proba(X)[:, 1], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                            tn_cost=tn_cost, cost_matrix=cost_matrix, max_alerts=max_alerts,
                            max_alert_rate=max_alert_rate, periods=periods, entity=entity, index=row_index(X))

    def _decide(self, s, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, max_alerts=None,
                max_alert_rate=None, periods=None, entity=None, index=None):
        """Labels of :meth:`predict` from the probabilities ``s`` (the rule, costs and capacity as there)."""
        capacity = _capacity.check_capacity(s.shape[0], max_alerts, max_alert_rate, periods, entity=entity,
                                            index=index, index_name="X")
        costs_kw = dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
        check_same_index(costs_kw.items(), index, "X")  # pandas costs in another row order than X: refused
        decisions = self._rule_decisions(s, **costs_kw)
        if capacity is not None:
            value, combine = self._capacity_ranking(s, costs_kw)
            decisions = _capacity.capped_decisions(value, decisions == 1, capacity, combine)
        return self.classes_[decisions]

    def _rule_decisions(self, s, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
        """0/1 decisions of :meth:`predict` without a capacity."""
        no_costs = fp_cost is None and fn_cost is None and cost_matrix is None
        check_predict_positive(self, not no_costs)
        if self.decision != "auto":
            if no_costs:
                return (s > 0.5).astype(np.int64)
            return bayes_minimum_risk(s, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                      cost_matrix=cost_matrix)
        costs = None if no_costs else check_costs(s.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                                   tn_cost=tn_cost, cost_matrix=cost_matrix)
        return _decision_layer.predict_rule(self, s, costs)

    def _capacity_ranking(self, s, costs_kw):
        """``(value, combine)`` a capacity ranks by: the margin for the AEC's own decision (an entity's largest),
        else the expected net money of an alert (summed over an entity's rows)."""
        no_costs = costs_kw["fp_cost"] is None and costs_kw["fn_cost"] is None and costs_kw["cost_matrix"] is None
        by_margin = no_costs if self.decision != "auto" else self.decision_ == "aec"
        # predict_rule fell back to unit costs when a model fitted without costs gets none
        costs = None if by_margin else (_capacity.UNIT_COSTS if no_costs else costs_kw)
        return _capacity.ranking_value(s, costs), "max" if by_margin else "sum"

    # ----------------------------------------------------------- save / load
    def _metadata(self) -> dict:
        """What ``load_model`` needs beyond the booster (stored in the saved model as JSON)."""
        names = getattr(self, "feature_names_in_", None)
        return {
            "estimator": type(self).__name__,
            "params": _json_params(self.get_params(deep=False)),
            "classes": self.classes_.tolist(),
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": None if names is None else [str(c) for c in names],
            "start_margin": self.start_margin_,
            "cost_scale": self.cost_scale_,
            "best_iteration": self.best_iteration_,
            "decision_": getattr(self, "decision_", "aec"),
            "unit_costs": bool(getattr(self, "_unit_costs_", False)),
            "decision_rule": self._decision_rule(),
        }

    def _decision_rule(self) -> dict:
        """The fitted decision as data (:mod:`csboost_plugins.boosting._decision_rule`)."""
        return _decision_rule.decision_rule(self.decision, getattr(self, "decision_", "aec"),
                                            bool(getattr(self, "_unit_costs_", False)))

    def decision_sql(self, proba="p", *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, dialect=None):
        """The fitted decision of :meth:`predict` as a SQL boolean expression, per row.

        Over a table holding each row's probability (``predict_proba(X)[:, 1]``, or plain
        ``Booster.predict`` of the :meth:`save_model` file) and, for Bayes minimum risk, its
        costs: ``WHERE <expression>`` selects the rows ``predict`` labels ``classes_[1]``.
        With the rows' costs and a Bayes-minimum-risk decision (``decision_`` "logloss+bmr" /
        "aec+bmr", or ``decision="0.5"`` / ``"bmr"`` given costs) it is
        ``p * C_TP + (1 - p) * C_FP < p * C_FN + (1 - p) * C_TN`` (paper eq. 2; where
        ``C_FN - C_TP + C_FP - C_TN > 0``: p > (C_FP - C_TN) / (C_FN - C_TP + C_FP - C_TN)),
        computed as ``predict`` computes it, so both agree on every row. Without costs, or with
        ``decision_ == "aec"`` under ``decision="auto"``: ``p > 0.5`` (margin > 0). NULL where a
        column it reads is NULL.

        Parameters
        ----------
        proba : str, default "p"
            Name of the probability column (quoted as given).
        fp_cost, fn_cost, tp_cost, tn_cost : str or float
            Each a column name (quoted as given) or a number (money per row, as in ``predict``).
        dialect : str, optional
            A sqlglot dialect ("duckdb", "sqlite", "postgres", "spark", "bigquery", ...); None
            writes generic SQL.

        Returns
        -------
        str
            The boolean expression, in parentheses.

        Raises
        ------
        ValueError
            If the decision needs the rows' costs and none are given (as ``predict``), or a cost
            number is not finite.
        TypeError
            If a cost is neither a str nor a number.
        """
        check_is_fitted(self, "booster_")
        return _decision_rule.decision_sql(self._decision_rule(), proba, fp_cost=fp_cost, fn_cost=fn_cost,
                                           tp_cost=tp_cost, tn_cost=tn_cost, dialect=dialect)

    def save_model(self, path):
        """Save the booster so that plain xgboost / lightgbm / CatBoost predicts our probabilities.

        The file is the native model (xgboost JSON/UBJSON by extension, lightgbm
        text) with a logistic objective and the start margin inside: a process
        that never imports ``csboost_plugins`` gets ``Booster.predict(X) ==
        predict_proba(X)[:, 1]``. With ``decision="auto"`` the file holds the
        booster of the chosen rule (``booster_``), so the probability a service
        thresholds is the one ``predict`` decides by; the rule (``decision_``),
        parameters and classes travel in the file too, for :meth:`load_model`.

        The estimator's metadata is one JSON object (xgboost: the booster attribute
        ``"csboost"``; lightgbm: the header line ``csboost=...``; CatBoost: the model metadata
        key ``"csboost"``). Its field ``"decision_rule"`` is the fitted decision, for a
        service that loads the file without this package (p = the file's probability):

        * ``"with_costs"``: ``"bmr"``: with the row's costs, alert iff
          ``p C_TP + (1 - p) C_FP < p C_FN + (1 - p) C_TN`` (where the denominator is
          positive: p > (C_FP - C_TN) / (C_FN - C_TP + C_FP - C_TN)); ``"threshold"``: the
          costs are not used, the ``without_costs`` threshold decides;
        * ``"without_costs"``: ``{"threshold": 0.5}`` (alert iff p > 0.5, margin > 0), or null
          when the rule needs each row's costs;
        * ``"rule"`` (``decision_``) and ``"formula"`` (the rule in words).

        :meth:`decision_sql` writes the same rule as SQL.

        Parameters
        ----------
        path : str or path-like
            Target file (xgboost: ``.json`` or ``.ubj``; lightgbm: text).

        Returns
        -------
        self
            The estimator.
        """
        check_is_fitted(self, "booster_")
        self._save_booster(self.booster_, str(path), json.dumps(self._metadata()))
        return self

    @_hybridmethod
    def load_model(cls, self, path):
        """Load a model saved by :meth:`save_model` (or a plain native model file) as a fitted estimator.

        ``CSXGBClassifier.load_model(path)`` returns a new estimator;
        ``est.load_model(path)`` loads into ``est`` (as ``XGBClassifier`` does)
        and returns it.

        Parameters
        ----------
        path : str or path-like
            A file written by :meth:`save_model`; a plain native model file loads
            with ``classes_ = [0, 1]`` and default parameters.

        Returns
        -------
        estimator
            Fitted, with the saved parameters, ``classes_``, ``feature_names_in_``,
            ``start_margin_`` and ``best_iteration_``.
        """
        booster, meta = cls._load_booster(str(path))
        meta = json.loads(meta) if meta else {}
        if self is None:
            self = cls(**meta.get("params", {}))
        elif meta.get("params"):
            self.set_params(**meta["params"])
        self.booster_ = booster
        self.classes_ = np.asarray(meta.get("classes", [0, 1]))
        names = meta.get("feature_names_in")
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = int(meta.get("n_features_in", self._booster_n_features(booster)))
        self.start_margin_ = meta.get("start_margin")
        self.cost_scale_ = meta.get("cost_scale")
        self.best_iteration_ = meta.get("best_iteration")
        # the rule the saved booster's probability is decided by (a plain file: the AEC's own)
        self.decision_ = meta.get("decision_", "aec")
        self._unit_costs_ = bool(meta.get("unit_costs", False))
        self.aec_booster_ = self.logloss_booster_ = self.validation_savings_ = None
        self.evals_result_ = {}
        self.n_estimators_ = self._booster_rounds(booster)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.classifier_tags.multi_class = False
        return tags
