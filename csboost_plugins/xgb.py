"""AEC objective and money eval metrics for xgboost (native ``xgb.train``, scikit-learn, dask).

Native use::

    import xgboost as xgb
    from csboost_plugins import xgb as cxgb

    dtrain = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount)       # rows carry their costs
    dval = cxgb.cost_dmatrix(Xv, yv, fp_cost=10.0, fn_cost=amount_v)
    params = cxgb.aec_params(dtrain, {"tree_method": "hist", "max_depth": 4, "eta": 0.1})
    bst = xgb.train(params, dtrain, 300, obj=cxgb.aec_objective(),
                    evals=[(dval, "val")], custom_metric=cxgb.money_metric("savings", decision="0.5"),
                    maximize=True, early_stopping_rounds=30)
    margin = bst.predict(xgb.DMatrix(Xt), output_margin=True,
                         iteration_range=(0, bst.best_iteration + 1))
    decisions = margin > 0                       # s > 1/2: the AEC model's own decision

Which decision: the AEC pushes s towards 0/1 and already holds the costs, so its
natural decision is s > 1/2 (margin > 0); Bayes minimum risk on its probabilities
counts the costs twice (benchmarks/results/boosting.md). For a logloss model use
``money_metric("savings", decision="bmr", preds="probability")``. Early stopping on
savings is flat while every s is on one side of 1/2; ``aec_metric`` (minimise) is
the smooth alternative the estimators use by default.

``aec_params`` puts the start margin in ``base_score``: with a custom objective
xgboost treats ``base_score`` as a margin and stores it in the model, so
``output_margin=True`` predictions (also after ``save_model`` / ``load_model``)
already include it. Probabilities are ``scipy.special.expit(margin)``
(:func:`csboost_plugins._aec.sigmoid`); Bayes-minimum-risk decisions with each
row's own costs (the right rule for calibrated, e.g. logloss, probabilities) are ``csboost_plugins.metrics.bayes_minimum_risk(expit(margin),
fp_cost=..., fn_cost=...)``, or :func:`bayes_decisions` on a cost DMatrix.

Costs travel *with the DMatrix* (:func:`cost_dmatrix` / :func:`attach_costs`):
every metric evaluates each eval set with that set's own rows' costs, never
matched by length or order; a DMatrix without costs raises a ``ValueError``.
``sample_weight`` (the DMatrix ``weight``) multiplies gradient, hessian and metrics.

Under dask the worker-side DMatrix is rebuilt from label and weight only, so
:func:`dask_cost_dmatrix` folds the costs into them
(:func:`csboost_plugins._aec.encode_costs_as_weights`) and the objective runs with
``costs_in_weight=True``; money metrics are then computed after training.
"""

from __future__ import annotations

import json

import numpy as np
import xgboost as xgb
from scipy.special import expit

from . import _aec, _money_eval
from .costs import check_binary_labels, check_costs

__all__ = [
    "AECObjective",
    "aec_objective",
    "MoneyMetric",
    "money_metric",
    "aec_metric",
    "savings_metric",
    "expected_savings_metric",
    "money_metrics",
    "attach_costs",
    "cost_dmatrix",
    "get_costs",
    "start_margin",
    "aec_params",
    "predict_proba",
    "bayes_decisions",
    "to_deployable",
    "dask_cost_dmatrix",
    "CSXGBClassifier",
]

def attach_costs(dmatrix, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                 warn=True):
    """Attach per-row costs to an existing ``xgb.DMatrix`` (or QuantileDMatrix); returns it.

    The costs are validated against ``dmatrix.num_row()`` and stored on the object,
    so objective and metrics read the rows' own money wherever the DMatrix goes.
    """
    if not isinstance(dmatrix, xgb.DMatrix):
        raise TypeError(f"dmatrix must be an xgboost.DMatrix, got {type(dmatrix).__name__}")
    costs = check_costs(dmatrix.num_row(), fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                        tn_cost=tn_cost, cost_matrix=cost_matrix, warn=warn)
    return _money_eval.store_costs(dmatrix, costs)


def cost_dmatrix(X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                 weight=None, quantile=False, **dmatrix_kwargs):
    """Build a ``DMatrix`` (``quantile=True``: ``QuantileDMatrix``) that carries its rows' costs.

    ``y`` is mapped to 0/1 like scikit-learn (sorted unique values); ``weight`` is
    the per-row sample weight; other keywords go to the DMatrix constructor.
    """
    y01 = check_binary_labels(y, name="y", require_both=False)
    cls = xgb.QuantileDMatrix if quantile else xgb.DMatrix
    dm = cls(X, label=y01, weight=weight, **dmatrix_kwargs)
    return attach_costs(dm, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                        cost_matrix=cost_matrix)


def get_costs(dmatrix) -> np.ndarray:
    """The (n, 4) ``[C_FP, C_FN, C_TP, C_TN]`` costs a DMatrix carries; ``ValueError`` if none."""
    return _money_eval.stored_costs(
        dmatrix, xgb.DMatrix.num_row, kind="DMatrix",
        missing="this DMatrix carries no costs: build it with csboost_plugins.xgb.cost_dmatrix(X, y, "
                "fp_cost=..., fn_cost=...) or call attach_costs(dmatrix, fp_cost=..., fn_cost=...) "
                "(costs are never matched to an eval set by length or order)")


def _weight(dmatrix):
    w = dmatrix.get_weight()
    return None if w.size == 0 else w.astype(np.float64)


def _label(dmatrix):
    return dmatrix.get_label().astype(np.float64)


_IO = _money_eval.DataAccess(costs=get_costs, label=_label, weight=_weight)


def start_margin(dmatrix, kind="cost_prior") -> float:
    """Start margin for ``base_score`` (see :func:`csboost_plugins._aec.start_margin`)."""
    y, w = dmatrix.get_label(), _weight(dmatrix)
    d = _aec.regret_difference(y, get_costs(dmatrix)) if kind == "cost_prior" else None
    return _aec.start_margin(y, w, kind=kind, d=d)


_start_margin_of = start_margin  # aec_params has a keyword of the same name


def aec_params(dtrain, params=None, *, start_margin="cost_prior"):
    """Copy of ``params`` with ``base_score`` = the start margin and xgboost's default metric off.

    With ``obj=`` xgboost reads ``base_score`` as a margin and saves it in the model,
    so it is applied again at every prediction.
    """
    out = dict(params or {})
    out["base_score"] = _start_margin_of(dtrain, start_margin)
    out.setdefault("disable_default_eval_metric", 1)
    return out


class AECObjective(_money_eval.AECObjectiveBase):
    """``obj=`` for ``xgb.train``: gradient and hessian of the cost-scaled AEC (paper eq. 16).

    Parameters
    ----------
    hessian : {"abs", "fisher", "bound", "exact"}, default "abs"
        Hessian policy (see :mod:`csboost_plugins._aec`); the gradient is always exact.
    hessian_floor : float in [0, 1], default 0.1
        Floor on |1-2s| for ``hessian="abs"``.
    logloss_weight : float >= 0, default 0
        alpha of the blend ``AEC / cost_scale + alpha * logloss``.
    cost_scale : "auto" or float
        Money unit the costs are divided by; "auto" = the training rows' weighted
        mean |C_TP - C_FN| (y=1) / |C_FP - C_TN| (y=0).
    costs_in_weight : bool, default False
        Read costs folded into label and weight by :func:`dask_cost_dmatrix`.
    """

    _io = _IO

    def __call__(self, predt, dtrain):
        return self._data_grad_hess(predt, dtrain)


def aec_objective(*, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, cost_scale="auto",
                  costs_in_weight=False) -> AECObjective:
    """The AEC objective for ``xgb.train(obj=...)``; see :class:`AECObjective`."""
    return AECObjective(hessian=hessian, hessian_floor=hessian_floor, logloss_weight=logloss_weight,
                        cost_scale=cost_scale, costs_in_weight=costs_in_weight)


class MoneyMetric(_money_eval.MoneyMetricBase):
    """``custom_metric=`` for ``xgb.train``: a money metric on each eval set's own costs.

    ``metric`` is ``"savings"`` (BMR decisions with the rows' costs, or s > 1/2 with
    ``decision="0.5"``), ``"expected_savings"`` or ``"aec"`` (money per row, lower
    is better). ``preds="margin"`` (xgboost passes margins when ``obj=`` is custom);
    use ``preds="probability"`` with the built-in ``binary:logistic``. Early
    stopping on savings needs ``maximize=True`` in ``xgb.train``.
    """

    _io = _IO

    def __call__(self, predt, dmatrix):
        return self.metric, self.value(predt, dmatrix)


def money_metric(metric="savings", *, decision="bmr", preds="margin") -> MoneyMetric:
    """A :class:`MoneyMetric` (use ``preds="probability"`` with built-in objectives)."""
    return MoneyMetric(metric, decision=decision, preds=preds)


aec_metric = MoneyMetric("aec")
savings_metric = MoneyMetric("savings")
expected_savings_metric = MoneyMetric("expected_savings")


def money_metrics(*, decision="bmr", preds="margin"):
    """One ``custom_metric`` reporting aec, expected_savings and savings (savings last: early stopping uses it)."""
    parts = [MoneyMetric(k, decision=decision, preds=preds) for k in ("aec", "expected_savings", "savings")]

    def metric(predt, dmatrix):
        return [(m.metric, m.value(predt, dmatrix)) for m in parts]

    return metric


def _best_range(booster):
    """(0, best_iteration + 1) when early stopping set one, else (0, 0) = every tree."""
    best = booster.attr("best_iteration")
    return (0, 0) if best is None else (0, int(best) + 1)


def predict_proba(booster, data, *, iteration_range=None):
    """P(y=1) of a booster trained with :class:`AECObjective`: expit of its margin.

    ``iteration_range=None`` uses the trees up to ``booster.best_iteration`` when
    early stopping set one (as ``XGBClassifier`` does), else every tree.
    """
    if not isinstance(data, xgb.DMatrix):
        data = xgb.DMatrix(data)
    if iteration_range is None:
        iteration_range = _best_range(booster)
    return _aec.sigmoid(booster.predict(data, output_margin=True, iteration_range=iteration_range))


def bayes_decisions(booster, dmatrix, *, iteration_range=None):
    """Bayes-minimum-risk 0/1 decisions (paper eq. 2) with the costs ``dmatrix`` carries."""
    from .metrics import bayes_minimum_risk

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


def to_deployable(booster):
    """A copy of ``booster`` that plain xgboost scores as our :func:`predict_proba` does.

    With a custom objective xgboost saves ``objective=reg:squarederror`` and the start
    margin m0 as ``base_score``, so ``Booster.predict`` of a loaded model returns
    margins. The copy has ``objective=binary:logistic`` and ``base_score = expit(m0)``
    (binary:logistic keeps base_score as a probability and applies its logit), and
    is cut at ``best_iteration`` when early stopping set one (the attribute is kept),
    so ``xgb.Booster(model_file=...).predict(dmatrix)`` = expit(margin) to float32
    precision in a process that never imports ``csboost_plugins``. A booster that
    already has ``binary:logistic`` is returned as a (cut) copy; ``save_model`` the
    result as ``.json`` or ``.ubj``.
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
    attrs = booster.attributes()
    best = attrs.get("best_iteration")
    out = booster[: int(best) + 1] if best is not None else booster.copy()
    for k, v in attrs.items():  # slicing drops the attributes (best_iteration, best_score, ...)
        out.set_attr(**{k: v})
    if objective == _DEPLOYED_OBJECTIVE:
        return out
    p0 = float(expit(base[0]))
    if not 0.0 < np.float32(p0) < 1.0:
        raise ValueError(f"to_deployable: start margin {base[0]} saturates the probability in float32")
    out.set_param({"objective": _DEPLOYED_OBJECTIVE, "base_score": repr(p0)})
    return out


def dask_cost_dmatrix(client, X, y, *, fp_cost, fn_cost, tp_cost=0.0, tn_cost=0.0, weight=None,
                      start_margin="cost_prior"):
    """A ``xgboost.dask.DaskDMatrix`` whose label/weight carry the AEC (costs partitioned with the data).

    ``X`` a dask array/DataFrame; ``y`` and each cost a dask array (or scalar)
    chunked like ``X``'s rows. Returns ``(dtrain, info)`` where ``info`` has the
    ``cost_scale`` and ``start_margin`` computed over all partitions (as the
    estimators do); train with
    ``xgboost.dask.train(client, {..., "base_score": info["start_margin"]}, dtrain,
    obj=aec_objective(costs_in_weight=True))``.
    """
    from xgboost import dask as dxgb

    z, w, info = _aec.fold_costs_dask(y, fp_cost, fn_cost, tp_cost, tn_cost, weight, start_margin)
    return dxgb.DaskDMatrix(client, X, label=z.astype("float64"), weight=w), info


def __getattr__(name):
    # the scikit-learn wrapper lives in _xgb_sklearn (lightgbm's engine/sklearn split) and imports
    # this module, so it is re-exported lazily: importing xgb never imports the wrapper.
    if name == "CSXGBClassifier":
        from ._xgb_sklearn import CSXGBClassifier

        return CSXGBClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
