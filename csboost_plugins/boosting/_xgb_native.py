"""The xgboost plugin's native helpers (objective, money metrics, cost DMatrix, deployable boosters).

Public through :mod:`csboost_plugins.xgb`, next to the scikit-learn wrapper
:class:`~csboost_plugins.xgb.CSXGBClassifier`, whose module imports this one and never the
reverse (the engine / sklearn split of lightgbm's own package).
"""

from __future__ import annotations

import json
import numbers

import numpy as np
import xgboost as xgb
from scipy.special import expit

from . import _aec, _money_eval, _native_input
from .._docstrings import fill_doc
from ._money_eval import DEFAULT_WATCH
from ..costs import check_costs

__all__ = [
    *_money_eval.PLUGIN_NAMES,
    "early_stopping",
    "attach_costs",
    "cost_dmatrix",
    "get_costs",
    "start_margin",
    "aec_params",
    "predict_proba",
    "bayes_decisions",
    "to_deployable",
    "dask_cost_dmatrix",
    "cv",
]


@fill_doc
def attach_costs(dmatrix, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                 warn=True):
    """Attach per-row costs to an existing ``xgb.DMatrix`` (or ``QuantileDMatrix``).

    The costs are validated against ``dmatrix.num_row()`` and stored on the object,
    so objective and metrics read the rows' own money wherever the DMatrix goes,
    also into ``xgb.cv``'s folds (``dmatrix.slice(rows)`` carries ``costs[rows]``).

    Parameters
    ----------
    dmatrix : xgboost.DMatrix
        The data set.
    %(native_costs, warn)s

    Returns
    -------
    xgboost.DMatrix
        ``dmatrix`` itself, now carrying its costs.
    """
    if not isinstance(dmatrix, xgb.DMatrix):
        raise TypeError(f"dmatrix must be an xgboost.DMatrix, got {type(dmatrix).__name__}")
    costs = check_costs(dmatrix.num_row(), fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                        tn_cost=tn_cost, cost_matrix=cost_matrix, warn=warn)
    _money_eval.keep_costs_on_subsets(dmatrix, "slice")
    return _money_eval.store_costs(dmatrix, costs)


@fill_doc
def cost_dmatrix(X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                 weight=None, quantile=False, pos_label=None, **dmatrix_kwargs):
    """Build a ``DMatrix`` (``quantile=True``: ``QuantileDMatrix``) that carries its rows' costs.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, p)
        Features (pandas ``category`` columns with ``enable_categorical=True``).
    %(native_y, native_costs, native_weight)s
    quantile : bool, default False
        Build a ``QuantileDMatrix``.
    %(native_pos_label)s
    **dmatrix_kwargs
        Passed to the DMatrix constructor.

    Returns
    -------
    xgboost.DMatrix
    """
    y01 = _native_input.check_builder_labels(X, y, "cost_dmatrix", pos_label, [
        ("weight", weight), ("fp_cost", fp_cost), ("fn_cost", fn_cost), ("tp_cost", tp_cost), ("tn_cost", tn_cost),
        ("cost_matrix", cost_matrix)])
    names = dmatrix_kwargs.get("feature_names")
    _native_input.check_feature_names(list(X.columns) if names is None and hasattr(X, "columns") else names,
                                      "xgboost", "X" if names is None else "feature_names")
    _native_input.check_feature_values(X, "xgboost")
    cls = xgb.QuantileDMatrix if quantile else xgb.DMatrix
    dm = cls(X, label=y01, weight=weight, **dmatrix_kwargs)
    return attach_costs(dm, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                        cost_matrix=cost_matrix)


def get_costs(dmatrix) -> np.ndarray:
    """The costs a DMatrix carries.

    Parameters
    ----------
    dmatrix : xgboost.DMatrix

    Returns
    -------
    numpy.ndarray of shape (n, 4)
        ``[C_FP, C_FN, C_TP, C_TN]`` per row; ``ValueError`` if the DMatrix has none.
    """
    return _money_eval.stored_costs(
        dmatrix, xgb.DMatrix.num_row, kind="DMatrix",
        missing="this DMatrix carries no costs: build it with csboost_plugins.xgb.cost_dmatrix(X, y, "
                "fp_cost=..., fn_cost=...) or call attach_costs(dmatrix, fp_cost=..., fn_cost=...) "
                "(costs are never matched to an eval set by length or order). Under xgboost.dask the workers "
                "rebuild the DMatrix from label and weight: train on dask_cost_dmatrix(...) with "
                "obj=aec_objective(costs_in_weight=True), no money custom_metric (score after training)")


def _weight(dmatrix):
    w = dmatrix.get_weight()
    return None if w.size == 0 else w.astype(np.float64)


def _label(dmatrix):
    y = dmatrix.get_label().astype(np.float64)
    if not ((y == 0) | (y == 1)).all():  # read once per DMatrix (cached with its costs), as binary:logistic checks
        raise ValueError(f"the DMatrix label must be 0 or 1 for the AEC (got values {np.unique(y)[:5].tolist()}); "
                         "cost_dmatrix(X, y, ...) maps two classes to 0 / 1")
    return y


_IO = _money_eval.DataAccess(costs=get_costs, label=_label, weight=_weight)


def start_margin(dmatrix, kind="cost_prior") -> float:
    """Start margin for ``base_score`` (see :func:`csboost_plugins.boosting._aec.start_margin`).

    Parameters
    ----------
    dmatrix : xgboost.DMatrix
        Training data carrying its costs.
    kind : {"cost_prior", "prior"} or float, default "cost_prior"
        "cost_prior": logit of the share of regret money preferring class 1;
        "prior": logit of the weighted positive rate; a float is used as is.

    Returns
    -------
    float
        The margin eta_0 (log-odds), clipped to [-10, 10].
    """
    y, w = dmatrix.get_label(), _weight(dmatrix)
    d = _aec.regret_difference(y, get_costs(dmatrix)) if kind == "cost_prior" else None
    return _aec.start_margin(y, w, kind=kind, d=d)


_start_margin_of = start_margin  # aec_params has a keyword of the same name


def aec_params(dtrain, params=None, *, start_margin="cost_prior"):
    """Copy of ``params`` with ``base_score`` = the start margin and xgboost's default metric off.

    With ``obj=`` xgboost reads ``base_score`` as a margin and saves it in the model,
    so it is applied again at every prediction.

    Parameters
    ----------
    dtrain : xgboost.DMatrix
        Training data carrying its costs.
    params : dict, optional
        Native xgboost parameters.
    start_margin : {"cost_prior", "prior"} or float, default "cost_prior"
        See :func:`start_margin`.

    Returns
    -------
    dict
        The parameters for ``xgb.train``.

    Raises
    ------
    ValueError
        If ``params["objective"]`` is a native loss (e.g. ``"binary:logistic"``): xgboost would
        read the start margin in ``base_score`` as that loss's probability.
    """
    out = dict(params or {})
    objective = out.get("objective", _MARGIN_OBJECTIVES[0])
    if objective not in _MARGIN_OBJECTIVES:
        raise ValueError(
            f"params['objective']={objective!r}: the loss is obj=csboost_plugins.xgb.aec_objective(); drop "
            f"'objective' from params (xgboost would read base_score, the start margin, as {objective!r}'s "
            "probability). Probabilities: csboost_plugins.xgb.predict_proba, or to_deployable(bst) for a "
            "binary:logistic booster")
    out["base_score"] = _start_margin_of(dtrain, start_margin)
    _money_eval.forget_derived(dtrain)  # a new training: labels / weights may have been set since the last
    out.setdefault("disable_default_eval_metric", 1)
    return out


class AECObjective(_money_eval.AECObjectiveBase):
    """``obj=`` for ``xgb.train``: gradient and hessian of the cost-scaled AEC (paper eq. 16).

    Parameters
    ----------
    hessian : {"abs", "fisher", "bound", "exact"}, default "abs"
        Hessian policy (see :mod:`csboost_plugins.boosting._aec`); the gradient is always exact.
    hessian_floor : float in [0, 1], default 0.1
        Floor on abs(1 - 2s) for ``hessian="abs"``.
    logloss_weight : float >= 0, default 0
        alpha of the blend ``AEC / cost_scale + alpha * logloss``.
    cost_scale : "auto" or float
        Money unit the costs are divided by; "auto" = the training rows' weighted
        mean of abs(C_TP - C_FN) (y=1) and abs(C_FP - C_TN) (y=0).
    costs_in_weight : bool, default False
        Read costs folded into label and weight by :func:`dask_cost_dmatrix`.
    """

    _io = _IO

    def __call__(self, predt, dtrain):
        """Gradient and hessian of the AEC at the margins.

        Parameters
        ----------
        predt : numpy.ndarray of shape (n,)
            Current margins.
        dtrain : xgboost.DMatrix
            Training data carrying its costs.

        Returns
        -------
        grad, hess : numpy.ndarray of shape (n,)
        """
        return self._data_grad_hess(predt, dtrain)


def aec_objective(*, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, cost_scale="auto",
                  costs_in_weight=False) -> AECObjective:
    """The AEC objective for ``xgb.train(obj=...)``.

    Parameters
    ----------
    hessian, hessian_floor, logloss_weight, cost_scale, costs_in_weight
        See :class:`AECObjective`.

    Returns
    -------
    AECObjective
    """
    return AECObjective(hessian=hessian, hessian_floor=hessian_floor, logloss_weight=logloss_weight,
                        cost_scale=cost_scale, costs_in_weight=costs_in_weight)


class MoneyMetric(_money_eval.MoneyMetricBase):
    """``custom_metric=`` for ``xgb.train``: a money metric on each eval set's own costs.

    Called as ``metric(predt, dmatrix)`` it returns ``(name, value)``.

    Parameters
    ----------
    metric : {"aec", "expected_savings", "savings"}, default "savings"
        "savings": paper eq. 5 of the 0/1 decisions (fraction of the cheaper
        trivial policy's cost saved, higher is better); "expected_savings": eq. 8
        on the probabilities; "aec": expected cost per row (money, lower is better).
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of "savings": s > 1/2 (the estimators' ``predict``) or Bayes
        minimum risk with each row's costs.
    preds : {"margin", "probability"}, default "margin"
        xgboost passes margins when ``obj=`` is custom; "probability" with the
        built-in ``binary:logistic``. Early stopping in the metric's own direction:
        :func:`early_stopping`.
    """

    _io = _IO

    def __call__(self, predt, dmatrix):
        """The metric of one eval set.

        Parameters
        ----------
        predt : numpy.ndarray of shape (n,)
            Margins (or probabilities with ``preds="probability"``).
        dmatrix : xgboost.DMatrix
            Eval set carrying its costs.

        Returns
        -------
        name : str
        value : float
        """
        return self.metric, self.value(predt, dmatrix)


aec_metric = MoneyMetric("aec")
savings_metric = MoneyMetric("savings")
expected_savings_metric = MoneyMetric("expected_savings")


class MoneyMetrics(_money_eval.MoneyMetricsBase):
    """``custom_metric=`` reporting aec, expected_savings and savings of each eval set, ``watch`` last.

    Called as ``metric(predt, dmatrix)`` it returns a list of ``(name, value)``.

    Parameters
    ----------
    watch : {"aec", "expected_savings", "savings"}, default "aec"
        Reported last: what xgboost's ``early_stopping_rounds`` uses. Its default
        direction (minimise) is right for "aec".
    decision, preds
        As in :class:`MoneyMetric`.
    """

    _metric = MoneyMetric

    def __call__(self, predt, dmatrix):
        """The metrics of one eval set.

        Parameters
        ----------
        predt : numpy.ndarray of shape (n,)
        dmatrix : xgboost.DMatrix

        Returns
        -------
        list of (str, float)
        """
        return self.values(predt, dmatrix)


money_metric, money_metrics = _money_eval.metric_factories(MoneyMetric, MoneyMetrics)


def early_stopping(rounds, *, metric=DEFAULT_WATCH, data_name=None, min_delta=0.0, save_best=False):
    """``xgb.callback.EarlyStopping`` on one money metric, in that metric's direction.

    Pass the metric with ``custom_metric=`` (e.g. :func:`money_metrics`). The booster
    keeps every tree and ``best_iteration``, which :func:`predict_proba` and
    :func:`to_deployable` use.

    Parameters
    ----------
    rounds : int >= 1
        Stop when the metric has not improved for this many rounds.
    metric : {"aec", "expected_savings", "savings"}, default "aec"
        "aec" is smooth (lower is better); the savings (higher is better) of 0/1
        decisions are flat while every s is on one side of 1/2.
    data_name : str, optional
        Eval set watched; None: the last one.
    min_delta : float >= 0, default 0
        Smallest change that counts as an improvement.
    save_best : bool, default False
        Cut the booster at the best round (xgboost's option).

    Returns
    -------
    xgboost.callback.EarlyStopping
    """
    if metric not in _aec.METRICS:
        raise ValueError(f"metric must be one of {tuple(_aec.METRICS)}, got {metric!r}")
    if not (isinstance(rounds, numbers.Integral) and not isinstance(rounds, bool) and rounds >= 1):
        raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
    if not (np.isfinite(min_delta) and min_delta >= 0):
        raise ValueError(f"min_delta must be finite and >= 0, got {min_delta!r}")
    rounds = int(rounds)  # numpy integers from a parameter grid
    return xgb.callback.EarlyStopping(rounds=rounds, metric_name=metric, data_name=data_name,
                                      maximize=_aec.METRICS[metric], save_best=save_best, min_delta=min_delta)


def _best_range(booster):
    """(0, best_iteration + 1) when early stopping set one, else (0, 0) = every tree."""
    best = booster.attr("best_iteration")
    return (0, 0) if best is None else (0, int(best) + 1)


def predict_proba(booster, data, *, iteration_range=None):
    """P(y=1) of a booster trained with :class:`AECObjective`: expit of its margin.

    Parameters
    ----------
    booster : xgboost.Booster
    data : xgboost.DMatrix, array-like or DataFrame
        Rows to score (converted to a DMatrix, pandas categories allowed).
    iteration_range : tuple of int, optional
        Trees used; None: up to ``booster.best_iteration`` when early stopping set
        one (as ``XGBClassifier`` does), else every tree.

    Returns
    -------
    numpy.ndarray of shape (n,)
        Probabilities s = 1 / (1 + exp(-margin)), start margin included.
    """
    if not isinstance(booster, xgb.Booster):
        raise TypeError(f"booster must be an xgboost.Booster, got {type(booster).__name__}"
                        + ("; for an estimator call est.predict_proba(X)" if hasattr(booster, "get_booster") else ""))
    if not isinstance(data, xgb.DMatrix):
        data = xgb.DMatrix(data, enable_categorical=True)  # a no-op for numeric data
    if iteration_range is None:
        iteration_range = _best_range(booster)
    return _aec.sigmoid(booster.predict(data, output_margin=True, iteration_range=iteration_range))


def bayes_decisions(booster, dmatrix, *, iteration_range=None):
    """Bayes-minimum-risk 0/1 decisions (paper eq. 2) with the costs ``dmatrix`` carries.

    Parameters
    ----------
    booster : xgboost.Booster
    dmatrix : xgboost.DMatrix
        Rows carrying their costs.
    iteration_range : tuple of int, optional
        As in :func:`predict_proba`.

    Returns
    -------
    numpy.ndarray of shape (n,)
        1 where s C_TP + (1-s) C_FP < s C_FN + (1-s) C_TN, else 0.
    """
    from ..metrics import bayes_minimum_risk

    costs = get_costs(dmatrix)
    return bayes_minimum_risk(predict_proba(booster, dmatrix, iteration_range=iteration_range), cost_matrix=costs)


# objectives whose margin is base_score + sum of leaves (identity link): what xgboost keeps with obj=
_MARGIN_OBJECTIVES = ("reg:squarederror",)
_DEPLOYED_OBJECTIVE = "binary:logistic"


def _learner_config(booster):
    learner = json.loads(booster.save_config())["learner"]
    base = learner["learner_model_param"]["base_score"]  # '[-1.35E0]' in 3.x, '-1.35' in 2.x
    return learner["objective"]["name"], np.asarray(json.loads(base) if base.startswith("[") else [base],
                                                    dtype=np.float64)


def _tree_model(raw):
    """The ``model`` section (trees and category encoder) of a booster's ``save_raw("json")`` dict."""
    gb = raw["learner"]["gradient_booster"]
    return gb["gbtree"]["model"] if "gbtree" in gb else gb["model"]  # dart wraps a gbtree


def first_rounds(booster, n_rounds):
    """A copy of ``booster`` with its first ``n_rounds`` rounds, training categories kept.

    ``booster[:n]`` alone drops the category encoder xgboost stores with a model fit
    on pandas ``category`` columns, and the cut model then scores a batch by its
    category codes, not its values: the same rows read with their categories in
    another order get other probabilities. The encoder is put back here.
    Not public (:func:`cut_at_best_iteration` and the logloss booster use it).

    Parameters
    ----------
    booster : xgboost.Booster
    n_rounds : int
        Rounds kept, from the first.

    Returns
    -------
    xgboost.Booster
        The cut copy (without ``booster``'s attributes, as slicing).
    """
    out = booster[:n_rounds]
    if booster.get_categories().empty() or not out.get_categories().empty():
        return out  # no categories, or an xgboost whose slicing keeps them
    raw = json.loads(out.save_raw("json"))
    _tree_model(raw)["cats"] = _tree_model(json.loads(booster.save_raw("json")))["cats"]
    return xgb.Booster(model_file=bytearray(json.dumps(raw).encode()))


def cut_at_best_iteration(booster):
    """A copy of ``booster`` with the trees up to ``best_iteration`` (all when early stopping set none).

    Keeps the attributes (``best_iteration``, ``best_score``, ...), which slicing drops,
    and the category encoder (:func:`first_rounds`).
    Not public (``to_deployable`` and ``CSXGBClassifier.load_model`` use it).
    """
    attrs = booster.attributes()
    best = attrs.get("best_iteration")
    out = first_rounds(booster, int(best) + 1) if best is not None else booster.copy()
    for k, v in attrs.items():
        out.set_attr(**{k: v})
    return out


def to_deployable(booster):
    """A copy of ``booster`` that plain xgboost scores as our :func:`predict_proba` does.

    With a custom objective xgboost saves ``objective=reg:squarederror`` and the start
    margin m0 as ``base_score``, so ``Booster.predict`` of a loaded model returns
    margins. The copy has ``objective=binary:logistic`` and ``base_score = expit(m0)``
    (binary:logistic keeps base_score as a probability and applies its logit), and
    is cut at ``best_iteration`` when early stopping set one (the attribute and the
    training categories of pandas ``category`` columns are kept, so a batch whose
    categories are listed in another order is re-coded by value),
    so ``xgb.Booster(model_file=...).predict(dmatrix)`` equals expit(margin) to float32
    precision in a process that never imports ``csboost_plugins``; ONNX
    (onnxmltools), treelite and shap read it the same way. onnxmltools reads only
    xgboost's default feature names (f0, f1, ...): for a booster trained on a DataFrame
    set ``dep.feature_names = None`` before ``onnxmltools.convert_xgboost(dep, ...)``.

    Parameters
    ----------
    booster : xgboost.Booster
        Trained with ``obj=aec_objective()`` (or already ``binary:logistic``).

    Returns
    -------
    xgboost.Booster
        The deployable copy (save it as ``.json`` or ``.ubj``); ``booster`` is unchanged.
    """
    if not isinstance(booster, xgb.Booster):
        raise TypeError(f"booster must be an xgboost.Booster, got {type(booster).__name__}")
    objective, base = _learner_config(booster)
    if objective not in _MARGIN_OBJECTIVES + (_DEPLOYED_OBJECTIVE,):
        raise ValueError(f"to_deployable: the booster's objective is {objective!r}; expected a booster trained with "
                         f"obj=csboost_plugins.xgb.aec_objective() ({_MARGIN_OBJECTIVES[0]} in its config) or "
                         f"{_DEPLOYED_OBJECTIVE!r}")
    if base.size != 1:
        raise ValueError(f"to_deployable needs a single-output booster, got base_score {base.tolist()}")
    out = cut_at_best_iteration(booster)
    if objective == _DEPLOYED_OBJECTIVE:
        return out
    p0 = float(expit(base[0]))
    if not 0.0 < np.float32(p0) < 1.0:
        raise ValueError(f"to_deployable: start margin {base[0]} saturates the probability in float32")
    out.set_param({"objective": _DEPLOYED_OBJECTIVE, "base_score": repr(p0)})
    return out


def dask_cost_dmatrix(client, X, y, *, fp_cost, fn_cost, tp_cost=0.0, tn_cost=0.0, weight=None,
                      start_margin="cost_prior"):
    """A ``xgboost.dask.DaskDMatrix`` whose label and weight carry the AEC (costs partitioned with the data).

    Train with ``xgboost.dask.train(client, {..., "base_score": info["start_margin"]},
    dtrain, obj=aec_objective(costs_in_weight=True))``.

    Parameters
    ----------
    client : distributed.Client
    X : dask array or DataFrame
    y : dask array
        Chunked like ``X``'s rows.
    fp_cost, fn_cost, tp_cost, tn_cost : dask array or float
        Per-row money, chunked like ``y``.
    weight : dask array, optional
    start_margin : {"cost_prior", "prior"} or float, default "cost_prior"

    Returns
    -------
    dtrain : xgboost.dask.DaskDMatrix
    info : dict
        ``cost_scale`` and ``start_margin`` computed over all partitions.
    """
    from xgboost import dask as dxgb

    z, w, info = _aec.fold_costs_dask(y, fp_cost, fn_cost, tp_cost, tn_cost, weight, start_margin)
    return dxgb.DaskDMatrix(client, X, label=z.astype("float64"), weight=w), info


def cv(params, dtrain, num_boost_round=10, *, obj=None, custom_metric=None, start_margin="cost_prior", **kwargs):
    """``xgboost.cv`` of the AEC objective, reporting the money metrics of each fold's own costs.

    Plain ``xgboost.cv(..., obj=aec_objective())`` without ``custom_metric=`` returns an
    empty DataFrame: the AEC has no built-in xgboost metric (and :func:`aec_params` turns
    the default one off). Here ``custom_metric`` defaults to :func:`money_metrics`
    (aec, expected_savings, savings per fold, ``aec`` last: what ``early_stopping_rounds``
    watches).

    Parameters
    ----------
    params : dict
        Native xgboost parameters; without ``base_score`` they go through
        :func:`aec_params` (start margin of ``dtrain``, default metric off).
    dtrain : xgboost.DMatrix
        Carrying its rows' costs (:func:`cost_dmatrix`); each fold keeps its rows' costs.
    num_boost_round : int, default 10
        Boosting rounds.
    obj : callable, optional
        The objective; None: :func:`aec_objective` with its defaults.
    custom_metric : callable, optional
        None: :func:`money_metrics` with its defaults.
    start_margin : {"cost_prior", "prior"} or float, default "cost_prior"
        As in :func:`aec_params` (unused when ``params`` has ``base_score``).
    **kwargs
        Passed to ``xgboost.cv`` (``nfold``, ``folds``, ``stratified``, ``seed``, ``callbacks``, ...).

    Returns
    -------
    pandas.DataFrame
        ``xgboost.cv``'s table: ``train-<metric>-mean`` / ``-std`` and ``test-<metric>-mean`` / ``-std``
        per round.
    """
    get_costs(dtrain)  # a DMatrix without costs: the ValueError naming the fix, before any fold is built
    params = dict(params or {})
    if "base_score" not in params:
        params = aec_params(dtrain, params, start_margin=start_margin)
    return xgb.cv(params, dtrain, num_boost_round, obj=aec_objective() if obj is None else obj,
                  custom_metric=money_metrics() if custom_metric is None else custom_metric, **kwargs)
