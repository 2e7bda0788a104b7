"""AEC objective and money eval metrics for CatBoost (native ``catboost.CatBoost``): the catboost host's
native side. Public as :mod:`csboost_plugins.catboost`.

How the costs travel. CatBoost hands a custom objective only the approxes, targets and weights of a
range of rows (permuted under ordered boosting), never a row index, so the costs go *into* the Pool.
The AEC gradient depends on a row only through its regret difference d = c1 - c0 (money; the
expected cost is c0 + d s), so :func:`cost_pool` stores the label ``d / cost_scale`` (a float) and the
weight ``sample_weight`` (ones without): the objective computes the AEC gradient and hessian from them
with the same compiled kernel as the xgboost and lightgbm hosts, for any ordering of the rows.
CatBoost maximises its objective, so :class:`AECObjective` returns minus the gradient and minus the
(positive) hessian of the expected cost.

The money metrics need more than d (the cost of the trivial policy; the other class's costs for Bayes
minimum risk): :func:`cost_pool` registers each Pool's labels, costs and weights, and a metric finds
them from a fingerprint (a hash) of the float32 targets and weights CatBoost passes it, which are the
Pool's own. A Pool built otherwise raises a ``ValueError``.

Start margin: custom objectives get no ``boost_from_average`` from CatBoost (boosting starts from 0),
so :func:`cost_pool` sets every row's ``baseline`` to the start margin (``reference=`` gives an eval
pool the training pool's), and :func:`bake_start_margin` puts it into the model once as its bias
(``set_scale_and_bias``), so ``predict(prediction_type="RawFormulaVal")`` includes it.
:func:`to_deployable` returns a ``CatBoostClassifier`` whose plain ``predict_proba`` is ours: the model
file says ``Logloss`` and the class names.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import weakref
from typing import NamedTuple

import catboost
import numpy as np
from numba import njit

from . import _aec, _aec_kernels, _native_input
from .._validation import check_sample_weight
from ..costs import check_costs
from ..decision_costs import savings_from_costs, trivial_policy_costs

__all__ = [
    "AECObjective", "MoneyMetric", "AEC", "Savings", "ExpectedSavings", "money_metric",
    "cost_pool", "get_costs", "start_margin", "aec_params", "early_stopping",
    "bake_start_margin", "predict_proba", "to_deployable",
]

START_KEY = "csboost_start_margin"  # model metadata: the start margin baked into the bias


@njit(cache=True, nogil=True)
def _catboost_ders(m, t, w, policy, floor, alpha):
    """(n, 2) float64 of minus the AEC gradient and hessian, from margins m, scaled regrets t (float32, as
    CatBoost passes them) and weights w (empty: none), in one compiled call per block: CatBoost calls the
    objective on blocks of a few hundred rows, where per-call conversions would cost more than the maths."""
    n = m.shape[0]
    out = np.empty((n, 2), np.float64)
    weighted = w.shape[0] > 0
    for i in range(n):
        mi = np.float64(m[i])
        e = math.exp(-abs(mi))  # one exp: s and 1 - s from e^-|m| without overflow or cancellation
        big = 1.0 / (1.0 + e)
        s = big if mi >= 0.0 else e * big
        ss = s * (e * big if mi >= 0.0 else big)
        di = np.float64(t[i])
        gi, hi_ = _aec_kernels._row_grad_hess(di, s, ss, 1.0 if di < 0.0 else 0.0,
                                              np.float64(w[i]) if weighted else 1.0, policy, floor, alpha,
                                              weighted)
        out[i, 0] = -gi
        out[i, 1] = -hi_
    return out


_NO_WEIGHT = np.empty(0, np.float32)


class AECObjective:
    """The AEC as a CatBoost custom objective (``loss_function=AECObjective()``) over a :func:`cost_pool`.

    ``calc_ders_range(approxes, targets, weights)`` reads targets as d / scale (scaled regret
    differences) and returns an (n, 2) float64 array of minus the gradient and minus the hessian of the
    weighted expected cost (CatBoost maximises): one pass of the compiled kernel, no Python loop.

    Parameters
    ----------
    hessian : {"abs", "fisher", "bound", "exact"}, default "abs"
        Hessian policy (see :func:`csboost_plugins.boosting._aec.aec_grad_hess`).
    hessian_floor : float, default 0.1
        Floor of the "abs" policy.
    logloss_weight : float, default 0.0
        Weight of the logloss blend; its label is [d < 0] (the class whose prediction is cheaper,
        the true one for reasonable costs).
    """

    no_jit = True  # catboost would try to numba-compile calc_ders_range itself (and warn)

    def __init__(self, *, hessian="abs", hessian_floor=0.1, logloss_weight=0.0):
        _aec.check_hessian_params(hessian, hessian_floor, logloss_weight)
        self.hessian, self.hessian_floor, self.logloss_weight = hessian, float(hessian_floor), float(logloss_weight)

    def calc_ders_range(self, approxes, targets, weights):
        """Minus the AEC gradient and hessian of each row, for CatBoost.

        Parameters
        ----------
        approxes : ndarray of shape (n,)
            Margins (start margin included).
        targets : ndarray of shape (n,)
            Scaled regret differences d / scale (the labels of a :func:`cost_pool`).
        weights : ndarray of shape (n,) or None
            Row weights.

        Returns
        -------
        ndarray of shape (n, 2), float64
            Columns -g and -h.
        """
        m = np.asarray(approxes, dtype=np.float64)
        t = np.asarray(targets, dtype=np.float32)
        w = _NO_WEIGHT if weights is None else np.asarray(weights, dtype=np.float32)
        return _catboost_ders(m, t, w, _aec_kernels.POLICIES[self.hessian], self.hessian_floor, self.logloss_weight)


# ----------------------------------------------------------------------------- pools and their costs
class PoolCosts(NamedTuple):
    """What :func:`cost_pool` registers for a Pool: 0/1 labels, (n, 4) costs, weights, scale, start, the
    weighted money of the trivial policies (all 0, all 1) and the keys that identify its rows."""

    key: tuple
    sorted_key: tuple
    c0: float
    c1: float
    y: np.ndarray
    costs: np.ndarray
    weight: np.ndarray | None
    cost_scale: float
    start_margin: float


_POOLS: dict = {}  # id(Pool) -> (weakref to the Pool, PoolCosts), dropped when the Pool dies (Pool is unhashable)


def _register(pool, rec):
    pid = id(pool)
    _POOLS[pid] = (weakref.ref(pool), rec)
    weakref.finalize(pool, _POOLS.pop, pid, None)


def _registered(pool):
    hit = _POOLS.get(id(pool))
    return None if hit is None or hit[0]() is not pool else hit[1]


def _fingerprint(target, weight) -> tuple:
    """(n, hash) of the float32 targets and weights, as CatBoost stores and passes them."""
    t = np.ascontiguousarray(target, dtype=np.float32)
    h = hashlib.blake2b(t, digest_size=16)
    if weight is not None:
        h.update(np.ascontiguousarray(weight, dtype=np.float32))
    return t.shape[0], h.hexdigest()


def _sorted_fingerprint(target, weight) -> tuple:
    """(n, hash) of the sorted targets and weights: the same for any order of the rows."""
    return _fingerprint(np.sort(np.asarray(target, np.float32)),
                        None if weight is None else np.sort(np.asarray(weight, np.float32)))


def _lookup(target, weight, permuted_ok=False):
    """``(PoolCosts, in_order)`` of the live cost pool whose rows CatBoost passes; with ``permuted_ok``
    also a pool whose rows come permuted (the learn set under ordered boosting), ``in_order`` False."""
    key = _fingerprint(target, weight)
    hits = [rec for _, rec in list(_POOLS.values()) if rec.key == key]
    in_order = bool(hits)
    if not hits and permuted_ok:
        skey = _sorted_fingerprint(target, weight)
        hits = [rec for _, rec in list(_POOLS.values()) if rec.sorted_key == skey]
    if not hits:
        raise ValueError(
            f"a money metric was evaluated on {key[0]} rows that no live cost pool holds: build the training and "
            "eval pools with csboost_plugins.catboost.cost_pool(X, y, fp_cost=..., fn_cost=...) (eval pools with "
            "reference=the training pool); costs are never matched by length or order")
    first = hits[0]
    for rec in hits[1:]:
        if not (np.array_equal(rec.y, first.y) and np.array_equal(rec.costs, first.costs)):
            raise ValueError("two live cost pools have the same targets and weights but different costs, so a "
                             "money metric cannot tell which one it scores; delete one of them")
    return first, in_order


def _value_from_regrets(kind, margin, target, weight, rec):
    """A money metric from the rows' scaled regrets alone (any row order): EC = C0 + scale sum w t s."""
    s = _aec.sigmoid(margin)
    t = np.asarray(target, np.float64) * rec.cost_scale
    w = np.ones_like(t) if weight is None else np.asarray(weight, np.float64)
    if kind == "aec":
        return (rec.c0 + float(np.sum(w * t * s))) / float(w.sum())
    cost = rec.c0 + float(np.sum((w * t)[s > 0.5]) if kind == "savings" else np.sum(w * t * s))
    return savings_from_costs(cost, min(rec.c0, rec.c1))


def _category_frame(X, cat_features):
    """X for a Pool: pandas ``category`` columns (and ``cat_features``) as strings, a missing value "nan"."""
    import pandas as pd

    if not hasattr(X, "columns"):
        if not cat_features:
            return X, cat_features
        X = pd.DataFrame(np.asarray(X))
    cols = list(X.columns)
    idx = [] if cat_features is None else [c if isinstance(c, (int, np.integer)) else cols.index(c)
                                           for c in cat_features]
    idx += [j for j, dt in enumerate(X.dtypes) if isinstance(dt, pd.CategoricalDtype) and j not in idx]
    if not idx:
        return X, cat_features
    X = X.copy()
    for j in idx:
        col = X.iloc[:, j]
        if pd.api.types.is_float_dtype(col.dtype):
            v = col.to_numpy()
            ok = np.isnan(v) | (v == np.round(v))
            if not ok.all():
                raise ValueError(f"cat_features: column {cols[j]!r} holds non-integer numbers; a categorical "
                                 "column must hold integers, strings or pandas categories")
            col = pd.Series(np.where(np.isnan(v), np.nan, v), index=col.index).map(
                lambda x: "nan" if x != x else str(int(x)))
        else:
            col = col.astype(object).where(col.notna(), "nan").astype(str)
        X[cols[j]] = col.astype(object)
    return X, sorted(idx)


def cost_pool(X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
              sample_weight=None, cat_features=None, reference=None, start_margin="cost_prior",
              cost_scale=None, pos_label=None, **pool_kwargs):
    """A ``catboost.Pool`` carrying its rows' costs for the AEC objective and the money metrics.

    Label ``d / cost_scale`` (float), weight ``sample_weight`` (ones without), baseline the
    start margin on every row; labels, costs and weights are registered for the money metrics
    while the Pool lives.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, p)
        Features; pandas ``category`` columns are categorical features (a missing value is the
        category "nan").
    y : array-like of shape (n,)
        Two classes: 0/1, -1/1 or booleans (1 / True positive), or any two labels with ``pos_label``.
    fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,)
        Money per row.
    cost_matrix : array-like of shape (n, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
    sample_weight : array-like of shape (n,), optional
        Row weights.
    cat_features : list of int or str, optional
        Further categorical columns (integers or strings), as ``catboost.Pool``.
    reference : catboost.Pool, optional
        The training cost pool, for an eval pool: its start margin and cost scale are used.
    start_margin : {"cost_prior", "prior"} or float, default "cost_prior"
        Start margin of a training pool (see :func:`csboost_plugins.boosting._aec.start_margin`).
    cost_scale : float, optional
        Money unit the regret differences are divided by (default: the weighted mean abs(d)).
    pos_label : int, float, bool, str or None, default None
        The positive class: the label whose miss costs ``fn_cost``. Labels other than 0/1, -1/1
        or booleans (``"fraud"`` / ``"ok"``) need it, else a ``ValueError``. A pandas y (costs,
        weight) must carry X's index.
    **pool_kwargs
        Passed to ``catboost.Pool`` (``feature_names``, ``text_features``, ...).

    Returns
    -------
    catboost.Pool
    """
    y01 = _native_input.check_builder_labels(X, y, "cost_pool", pos_label, [
        ("sample_weight", sample_weight), ("fp_cost", fp_cost), ("fn_cost", fn_cost), ("tp_cost", tp_cost),
        ("tn_cost", tn_cost), ("cost_matrix", cost_matrix)])
    costs = check_costs(y01.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                        cost_matrix=cost_matrix)
    w = check_sample_weight(sample_weight, y01.shape[0])
    for k in ("label", "weight", "baseline"):
        if k in pool_kwargs:
            raise ValueError(f"cost_pool sets the Pool's {k} itself (from y, the costs and the start margin)")
    d = _aec.regret_difference(y01, costs)
    if reference is not None:
        ref = _registered(reference)
        if ref is None:
            raise ValueError("reference must be a training pool built by cost_pool")
        scale, m0 = ref.cost_scale, ref.start_margin
    else:
        scale = _aec.cost_scale(d, w) if cost_scale is None else float(cost_scale)
        m0 = _aec.start_margin(y01, w, kind=start_margin, d=d)
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"cost_scale must be finite and > 0, got {scale!r}")
    label = (d / scale).astype(np.float32)
    weight = np.ones(y01.shape[0], np.float32) if w is None else w.astype(np.float32)
    data, cats = _category_frame(X, cat_features)
    pool = catboost.Pool(data, label=label, weight=weight, baseline=np.full(y01.shape[0], m0),
                         cat_features=cats, **pool_kwargs)
    c0, c1 = trivial_policy_costs(y01, costs, w)
    _register(pool, PoolCosts(_fingerprint(label, weight), _sorted_fingerprint(label, weight), c0, c1,
                              y01.astype(np.float64), costs, w, scale, m0))
    return pool


def _record(pool) -> PoolCosts:
    rec = _registered(pool)
    if rec is None:
        raise ValueError("this Pool carries no costs: build it with csboost_plugins.catboost.cost_pool(X, y, "
                         "fp_cost=..., fn_cost=...)")
    return rec


def get_costs(pool) -> np.ndarray:
    """The (n, 4) costs ``[C_FP, C_FN, C_TP, C_TN]`` a :func:`cost_pool` carries.

    Parameters
    ----------
    pool : catboost.Pool

    Returns
    -------
    ndarray of shape (n, 4)
    """
    return _record(pool).costs


def start_margin(pool) -> float:
    """The start margin (log-odds) every row of a :func:`cost_pool` starts from (its baseline).

    Parameters
    ----------
    pool : catboost.Pool

    Returns
    -------
    float
    """
    return _record(pool).start_margin


# ----------------------------------------------------------------------------- money metrics
class MoneyMetric:
    """A money metric as a CatBoost custom eval metric, over the rows' own costs (see :func:`cost_pool`).

    Parameters
    ----------
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of the savings (s > 1/2, or Bayes minimum risk with each row's costs).
    """

    no_jit = True  # catboost would try to numba-compile evaluate itself (and warn)
    kind = "aec"

    def __init__(self, decision="0.5"):
        _aec.check_metric_params(self.kind, decision, "margin")
        self.decision = decision
        self._found = {}  # (target address, weight address, n) -> lookup, within one fit

    def __getstate__(self):  # CatBoost fits a deep copy: start it without another fit's addresses
        return {"decision": self.decision}

    def __setstate__(self, state):
        self.__init__(state["decision"])

    def _find(self, target, weight):
        """:func:`_lookup`, remembered by the buffers' addresses: CatBoost passes the same buffers of a
        set every round of a fit, and hashing them each round would cost as much as the metric."""
        key = (target.ctypes.data, 0 if weight is None else weight.ctypes.data, target.shape[0])
        hit = self._found.get(key)
        if hit is None:
            hit = self._found[key] = _lookup(target, weight, permuted_ok=not (
                self.kind == "savings" and self.decision == "bmr"))
        return hit

    def is_max_optimal(self):
        """True for the savings (higher is better), False for the AEC.

        Returns
        -------
        bool
        """
        return _aec.METRICS[self.kind]

    def evaluate(self, approxes, target, weight):
        """The metric on a whole cost pool (CatBoost passes every row of a set in one call).

        Parameters
        ----------
        approxes : sequence of one ndarray of shape (n,)
            Margins.
        target, weight : ndarray of shape (n,)
            The pool's labels and weights (they identify its registered costs).

        Returns
        -------
        (float, float)
            The metric and weight 1.

        Raises
        ------
        ValueError
            When no live cost pool holds these rows in this order (for savings with
            ``decision="bmr"``: a learn set under ordered boosting, whose rows CatBoost permutes).
        """
        # the learn set comes permuted under ordered boosting: metrics that need d alone still hold
        rec, in_order = self._find(np.asarray(target), None if weight is None else np.asarray(weight))
        margin = np.ascontiguousarray(approxes[0], dtype=np.float64)
        if not in_order:
            return float(_value_from_regrets(self.kind, margin, target, weight, rec)), 1.0
        value = _aec.money_metric_value(self.kind, margin, rec.y,
                                        rec.costs, rec.weight, self.decision, is_margin=True)
        return float(value), 1.0

    def get_final_error(self, error, weight):
        """The metric as :meth:`evaluate` returned it.

        Parameters
        ----------
        error, weight : float

        Returns
        -------
        float
        """
        return error


class AEC(MoneyMetric):
    """Average expected cost (money per row; lower is better), as a CatBoost eval metric.

    Parameters
    ----------
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of the savings.
    """

    kind = "aec"


class Savings(MoneyMetric):
    """Savings of the 0/1 decisions (higher is better), as a CatBoost eval metric.

    Parameters
    ----------
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of the savings.
    """

    kind = "savings"


class ExpectedSavings(MoneyMetric):
    """Expected savings (higher is better), as a CatBoost eval metric.

    Parameters
    ----------
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of the savings.
    """

    kind = "expected_savings"


_METRIC_CLASSES = {"aec": AEC, "savings": Savings, "expected_savings": ExpectedSavings}


def money_metric(kind="aec", *, decision="0.5"):
    """The CatBoost eval metric object of a money metric (its class name is the metric's name in CatBoost).

    Parameters
    ----------
    kind : {"aec", "savings", "expected_savings"}, default "aec"
        The metric.
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of "savings".

    Returns
    -------
    MoneyMetric
    """
    if kind not in _METRIC_CLASSES:
        raise ValueError(f"metric must be one of {tuple(_METRIC_CLASSES)}, got {kind!r}")
    return _METRIC_CLASSES[kind](decision)


def early_stopping(rounds, *, metric="aec", decision="0.5"):
    """CatBoost parameters that stop training on a money metric of the (last) eval pool.

    Parameters
    ----------
    rounds : int
        Rounds without improvement before stopping (``early_stopping_rounds``).
    metric : {"aec", "savings", "expected_savings"}, default "aec"
        The watched metric.
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of "savings".

    Returns
    -------
    dict
        ``eval_metric``, ``early_stopping_rounds`` and ``use_best_model=True`` (the model keeps the
        trees up to the best round).
    """
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
    return {"eval_metric": money_metric(metric, decision=decision), "early_stopping_rounds": int(rounds),
            "use_best_model": True}


def aec_params(params=None, *, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, metric="aec",
               decision="0.5"):
    """``params`` with the AEC objective and a money eval metric, for ``catboost.CatBoost(params)``.

    Parameters
    ----------
    params : dict, optional
        Further CatBoost parameters (a ``loss_function`` other than the AEC raises ``ValueError``).
    hessian, hessian_floor, logloss_weight
        As :class:`AECObjective`.
    metric, decision
        As :func:`money_metric` (CatBoost needs an eval metric with a custom objective).

    Returns
    -------
    dict
    """
    params = dict(params or {})
    loss = params.pop("loss_function", None)
    if loss is not None and not isinstance(loss, AECObjective):
        raise ValueError(f"loss_function={loss!r}: the AEC is the loss here; use catboost directly for another")
    if params.get("task_type", "CPU") != "CPU":
        raise ValueError(f"task_type={params['task_type']!r}: CatBoost runs custom objectives on the CPU only")
    params["loss_function"] = loss or AECObjective(hessian=hessian, hessian_floor=hessian_floor,
                                                   logloss_weight=logloss_weight)
    params.setdefault("eval_metric", money_metric(metric, decision=decision))
    params.setdefault("allow_writing_files", False)
    params.setdefault("use_best_model", False)  # CatBoost's default cuts at the best round of any eval set
    return params


# ----------------------------------------------------------------------------- the trained model
def _metadata_value(model, key):
    try:
        return model.get_metadata()[key]
    except KeyError:
        return None


def bake_start_margin(model, margin):
    """Put the start margin into the model's bias once (a second call changes nothing).

    Parameters
    ----------
    model : catboost.CatBoost
        Trained on a :func:`cost_pool` (whose baseline the model does not hold).
    margin : float or catboost.Pool
        The start margin, or the training cost pool holding it.

    Returns
    -------
    model
        The same model; ``predict(prediction_type="RawFormulaVal")`` now includes the start margin.
    """
    if _metadata_value(model, START_KEY) is not None:
        return model
    m0 = start_margin(margin) if isinstance(margin, catboost.Pool) else float(margin)
    scale, bias = model.get_scale_and_bias()
    model.set_scale_and_bias(scale, bias + m0)
    model.get_metadata()[START_KEY] = repr(m0)
    return model


NO_SPLIT = "All features are either constant or ignored"  # CatBoost's refusal to fit X it cannot split


def constant_model(X, cat_features, margin, n_rows):
    """A CatBoost model of one tree without a split and leaf value 0: its raw prediction is ``margin`` on
    every row (in the bias, noted as baked); what CatBoost would fit if it fitted X it cannot split
    (it refuses, "all features are either constant or ignored", where xgboost and lightgbm keep the
    start margin).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, p)
        The training features (their names and categorical columns go into the model).
    cat_features : list of int or str, optional
        As :func:`cost_pool`.
    margin : float
        The constant log-odds.
    n_rows : float
        The training weight, the leaf's weight.

    Returns
    -------
    catboost.CatBoost
    """
    data, cats = _category_frame(X, cat_features)
    cats = set(cats or ())
    names = [str(c) for c in data.columns] if hasattr(data, "columns") else None
    floats, cat_info = [], []
    for j in range(np.shape(data)[1]):
        info = {"feature_index": len(cat_info) if j in cats else len(floats), "flat_feature_index": j}
        if names is not None:
            info["feature_id"] = names[j]
        if j in cats:
            cat_info.append(info)
        else:
            floats.append({**info, "borders": [], "has_nans": False, "nan_value_treatment": "AsIs"})
    dump = {"features_info": {"float_features": floats, "categorical_features": cat_info},
            "model_info": {},
            "oblivious_trees": [{"splits": [], "leaf_values": [0.0], "leaf_weights": [float(n_rows)]}],
            "scale_and_bias": [1.0, [float(margin)]]}
    fd, path = tempfile.mkstemp(suffix=".json")  # CatBoost reads a JSON model from a file only
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(dump, f)
        model = catboost.CatBoost()
        model.load_model(path, format="json")
    finally:
        os.unlink(path)
    md = model.get_metadata()
    md["params"] = json.dumps({"loss_function": {"type": "Logloss", "params": {}},  # read by to_deployable
                               "flat_params": {"loss_function": "Logloss"}})
    md[START_KEY] = repr(float(margin))
    return model


def _require_baked(model, what):
    if not isinstance(model, catboost.CatBoost):
        raise TypeError(f"{what} needs a catboost model, got {type(model).__name__}")
    if _metadata_value(model, START_KEY) is None:
        raise ValueError(f"{what}: the model does not hold its start margin; call "
                         "csboost_plugins.catboost.bake_start_margin(model, train_pool) once after training")


def predict_proba(model, X):
    """P(y=1) of a trained AEC model (start margin baked in): sigmoid of its raw prediction.

    Parameters
    ----------
    model : catboost.CatBoost
        After :func:`bake_start_margin`.
    X : array-like, DataFrame or catboost.Pool
        Rows (a DataFrame's category columns as at training).

    Returns
    -------
    ndarray of shape (n,)
    """
    _require_baked(model, "predict_proba")
    if not isinstance(X, catboost.Pool):
        X, cats = _category_frame(X, None)
        X = catboost.Pool(X, cat_features=cats)
    return _aec.sigmoid(model.predict(X, prediction_type="RawFormulaVal"))


def _class_params(classes) -> str:
    classes = list(classes)
    if all(isinstance(c, (bool, np.bool_)) for c in classes) or not all(
            isinstance(c, (int, np.integer, str)) for c in classes):
        classes = [str(c) for c in classes]
    kind = "String" if isinstance(classes[0], str) else "Integer"
    names = [c if isinstance(c, str) else int(c) for c in classes]
    return json.dumps({"classes_count": 0, "class_names": names, "class_to_label": [0, 1],
                       "class_label_type": kind})


def to_deployable(model, classes=(0, 1)):
    """A ``CatBoostClassifier`` copy whose plain ``predict_proba`` equals :func:`predict_proba`.

    The model file says ``Logloss`` (a custom-loss model would not) and the class names, so a
    process without this package loads it with ``CatBoostClassifier().load_model(path)``.

    Parameters
    ----------
    model : catboost.CatBoost
        After :func:`bake_start_margin` (or a Logloss model).
    classes : sequence of two labels, default (0, 1)
        Class names stored in the model (ints or strings).

    Returns
    -------
    catboost.CatBoostClassifier
    """
    if not isinstance(model, catboost.CatBoost):
        raise TypeError(f"to_deployable needs a catboost model, got {type(model).__name__}")
    params = json.loads(model.get_metadata()["params"])
    if params.get("loss_function", {}).get("type") != "Logloss":
        _require_baked(model, "to_deployable")
    out = catboost.CatBoostClassifier()
    out.load_model(blob=model._serialize_model())
    md = out.get_metadata()
    params["loss_function"] = {"type": "Logloss", "params": {}}
    if "flat_params" in params:
        params["flat_params"] = {k: v for k, v in params["flat_params"].items()
                                 if k not in ("loss_function", "eval_metric")}
        params["flat_params"]["loss_function"] = "Logloss"
    md["params"] = json.dumps(params)
    md["class_params"] = _class_params(classes)
    out.load_model(blob=out._serialize_model())  # re-read: classes_ and the loss come from the metadata
    return out
