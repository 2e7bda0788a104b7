"""Plumbing shared by the xgboost and lightgbm plugins: costs stored on a data set,
the AEC objective's data-set side and the money eval metrics.

Each plugin describes its data set (``xgb.DMatrix`` / ``lgb.Dataset``) by a
:class:`DataAccess` (how to read its costs, 0/1 labels and weights); the base
classes here hold everything else, so the objective and the metrics compute the
same numbers on either library. Not public: use :mod:`csboost_plugins.xgb` /
:mod:`csboost_plugins.lgb`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from . import _aec, _aec_kernels
from .._metric_names import MONEY_METRICS
from .._params import store_init_args

#: Decision rule of every savings metric unless told otherwise: s > 1/2, the AEC model's own decision
#: (``predict(X)`` of the estimators under ``decision="0.5"``; their default ``decision`` is
#: ``_decision_layer.DEFAULT_ESTIMATOR_DECISION``). Bayes minimum risk on AEC probabilities counts the costs twice
#: (benchmarks/results/boosting.md); use ``decision="bmr"`` for calibrated (logloss) probabilities.
DEFAULT_METRIC_DECISION = "0.5"
#: Metric early stopping watches unless told otherwise: the AEC is smooth (lower is better), while the
#: savings of 0/1 decisions stay flat while every s is on one side of 1/2 and stop a run at round 0.
DEFAULT_WATCH = "aec"
METRIC_NAMES = tuple(MONEY_METRICS)  # evaluation order
#: The objective and money-metric names both plugins export first (``__all__`` of ``_xgb_native`` / ``_lgb_native``).
PLUGIN_NAMES = ("AECObjective", "aec_objective", "MoneyMetric", "money_metric", "aec_metric", "savings_metric",
                "expected_savings_metric", "MoneyMetrics", "money_metrics")

COSTS_ATTR = "csboost_costs"  # instance attribute holding the (n, 4) float64 costs
_CACHE_ATTR = "_csboost_cache"  # (cost_scale, (y, d / scale, w), sources) computed from those costs
_EVAL_ATTR = "_csboost_eval"  # (y, costs, w, sources) as the money-sums kernel reads them, for the metrics


class DataAccess(NamedTuple):
    """How a plugin reads a data set: ``costs(data)`` (n, 4), ``label(data)`` float64, ``weight(data)`` or None;
    ``sources(data)`` (optional): the objects label and weight are read from, which ``set_label`` /
    ``set_weight`` replace, so values computed from the old ones are not reused."""

    costs: Callable
    label: Callable
    weight: Callable
    sources: Callable | None = None


def _sources(io, data) -> tuple:
    return () if io.sources is None else tuple(io.sources(data))


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def store_costs(data, costs):
    """Put validated (n, 4) costs on ``data`` and drop what was computed from earlier ones."""
    setattr(data, COSTS_ATTR, costs)
    return forget_derived(data)


def forget_derived(data):
    """Drop the labels, weights and regrets cached on ``data`` (read again at the next round): a new
    training may follow ``set_label`` / ``set_weight``, which xgboost's DMatrix does not let us see."""
    data.__dict__.pop(_CACHE_ATTR, None)
    data.__dict__.pop(_EVAL_ATTR, None)
    return data


class _SubsetsKeepCosts:
    """Stands in for ``data.<method>`` (``DMatrix.slice`` / ``Dataset.subset``, what ``xgb.cv`` and
    ``lgb.cv`` call to build each fold): the subset carries its rows' costs and ``attrs``."""

    def __init__(self, data, method, attrs, order):
        self.data, self.method, self.attrs, self.order = data, method, attrs, order

    def __call__(self, indices, *args, **kwargs):
        sub = getattr(type(self.data), self.method)(self.data, indices, *args, **kwargs)
        rows = np.asarray(indices, dtype=np.int64).reshape(-1)
        rows = rows if self.order is None else self.order(rows)
        store_costs(sub, getattr(self.data, COSTS_ATTR)[rows])
        for a in self.attrs:
            if hasattr(self.data, a):
                setattr(sub, a, getattr(self.data, a))
        keep_costs_on_subsets(sub, self.method, self.attrs, self.order)
        return sub


def keep_costs_on_subsets(data, method, attrs=(), order=None):
    """Make ``data.<method>(indices)`` return a subset that carries ``costs[order(indices)]``.

    The libraries' cross-validation slices the data set it is given into new
    objects, which would lose the costs stored on ``data``; ``attrs`` are further
    instance attributes copied to the subsets (lightgbm's start margin); ``order``
    maps the indices to the subset's row order (lightgbm sorts them).
    """
    setattr(data, method, _SubsetsKeepCosts(data, method, tuple(attrs), order))
    return data


def stored_costs(data, n_rows, *, kind, missing):
    """The costs ``data`` carries: ``ValueError(missing)`` if none, or if they do not cover its ``n_rows()``."""
    costs = getattr(data, COSTS_ATTR, None)
    if costs is None:
        raise ValueError(missing)
    n = n_rows(data)
    if costs.shape[0] != n:
        raise ValueError(f"the {kind} has {n} rows but carries costs for {costs.shape[0]}")
    return costs


def scaled_regret(io, data, cost_scale):
    """(y, d / scale, w) of a cost data set, computed once per data set and cost scale.

    ``d = regret_difference(y, costs)``; ``scale`` is ``cost_scale`` or, for "auto",
    :func:`csboost_plugins.boosting._aec.cost_scale` of the set's own rows.
    """
    cache = data.__dict__.get(_CACHE_ATTR)
    src = _sources(io, data)
    if cache is not None and cache[0] == cost_scale and _same(cache[2], src):
        return cache[1]
    costs = io.costs(data)
    y = io.label(data)
    w = io.weight(data)
    d = _aec.regret_difference(y, costs)
    scale = _aec.cost_scale(d, w) if cost_scale == "auto" else float(cost_scale)
    out = (y, d / scale, w)
    data.__dict__[_CACHE_ATTR] = (cost_scale, out, src)
    return out


def eval_inputs(io, data):
    """(y float64, costs, w or None) of an eval set, read from the library once per set (the
    metrics run every round: no per-round label/weight copies)."""
    costs = io.costs(data)  # validates the row count every call
    cache = data.__dict__.get(_EVAL_ATTR)
    src = _sources(io, data)
    if cache is None or cache[1] is not costs or not _same(cache[3], src):
        cache = data.__dict__[_EVAL_ATTR] = (np.ascontiguousarray(io.label(data), dtype=np.float64), costs,
                                             io.weight(data), src)
    return cache[:3]


class AECObjectiveBase:
    """Hessian policy, cost scale and the data-set side of the AEC objective (subclasses set ``_io``)."""

    _io: DataAccess

    def __init__(self, *, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, cost_scale="auto",
                 costs_in_weight=False):
        _aec.check_hessian_params(hessian, hessian_floor, logloss_weight)
        if not (cost_scale == "auto" or (isinstance(cost_scale, numbers.Real) and np.isfinite(cost_scale)
                                         and cost_scale > 0)):
            raise ValueError(f"cost_scale must be 'auto' or a positive float, got {cost_scale!r}")
        store_init_args(self, locals())
        self._buffers = _aec.GradHessBuffers()  # float32 g, h reused every round (both libraries keep float32)

    def _grad_hess(self, m, y, d, w):
        return _aec.aec_grad_hess(m, d, y=y, sample_weight=w, hessian=self.hessian,
                                  hessian_floor=self.hessian_floor, logloss_weight=self.logloss_weight,
                                  out=self._buffers.get(m.shape[0]))

    def _data_grad_hess(self, preds, data):
        """Gradient and hessian at margins ``preds`` with the costs (or folded label/weight) of ``data``."""
        m = np.asarray(preds).reshape(-1)  # float32 (xgboost) or float64 (lightgbm): the kernel reads either
        if self.costs_in_weight:  # label z = folded label, d = 1 - 2 z (see _aec.encode_costs_as_weights)
            z = self._io.label(data)
            return self._grad_hess(m, z, 1.0 - 2.0 * z, self._io.weight(data))
        y, d, w = scaled_regret(self._io, data, self.cost_scale)
        return self._grad_hess(m, y, d, w)

    def __repr__(self):
        return (f"AECObjective(hessian={self.hessian!r}, hessian_floor={self.hessian_floor!r}, "
                f"logloss_weight={self.logloss_weight!r}, cost_scale={self.cost_scale!r})")


class MoneyMetricBase:
    """A money metric of an eval set on its own rows' costs (subclasses set ``_io`` and ``__call__``).

    ``metric`` is "savings", "expected_savings" or "aec"; ``preds`` says whether the
    library passes margins (custom objective) or probabilities.
    """

    _io: DataAccess

    def __init__(self, metric="savings", *, decision=DEFAULT_METRIC_DECISION, preds="margin"):
        _aec.check_metric_params(metric, decision, preds)
        self.metric, self.decision, self.preds = metric, decision, preds
        self.__name__ = metric

    def sums(self, preds, data) -> dict:
        """The totals behind every money metric (:func:`csboost_plugins.boosting._aec_kernels.money_sums`) of
        ``preds`` on ``data`` (the arguments of :meth:`value`): one kernel pass, which the metrics of a
        :class:`MoneyMetricsBase` share."""
        y, costs, w = eval_inputs(self._io, data)
        return _aec_kernels.money_sums(preds, self.preds == "margin", y, costs, w)

    def from_sums(self, sums) -> float:
        """This metric from :meth:`sums` (shared by the metrics of one :class:`MoneyMetricsBase`)."""
        return _aec.money_metric_from_sums(self.metric, sums, self.decision)

    def value(self, preds, data) -> float:
        """The metric on one data set's own rows and costs.

        Parameters
        ----------
        preds : numpy.ndarray of shape (n,)
            Margins, or probabilities with ``preds="probability"``.
        data : xgboost.DMatrix or lightgbm.Dataset
            Carrying its costs.

        Returns
        -------
        float
            Savings or expected savings (fraction of the cheaper trivial policy's
            cost, at most 1), or the AEC (money per row).
        """
        return self.from_sums(self.sums(preds, data))

    def __repr__(self):
        return f"MoneyMetric({self.metric!r}, decision={self.decision!r}, preds={self.preds!r})"


class MoneyMetricsBase:
    """aec, expected_savings and savings of each eval set in one custom metric (subclasses set
    ``_metric`` and ``__call__``); ``watch`` is reported last, the one xgboost's early stopping
    uses (lightgbm's subclass moves it first, where lightgbm's ``first_metric_only`` looks)."""

    _metric: type

    def __init__(self, *, watch=DEFAULT_WATCH, decision=DEFAULT_METRIC_DECISION, preds="margin"):
        if watch not in METRIC_NAMES:
            raise ValueError(f"watch must be one of {METRIC_NAMES}, got {watch!r}")
        self.parts = [self._metric(k, decision=decision, preds=preds)
                      for k in [k for k in METRIC_NAMES if k != watch] + [watch]]
        self.watch, self.decision, self.preds = watch, decision, preds
        self.__name__ = "money_metrics"

    def values(self, preds, data):
        """[(metric name, value)] of every part, in ``parts`` order, from one pass over the rows (the parts
        share ``decision`` and ``preds``, so one set of sums serves them all)."""
        sums = self.parts[0].sums(preds, data)
        return [(m.metric, m.from_sums(sums)) for m in self.parts]

    def __repr__(self):
        return f"MoneyMetrics(watch={self.watch!r}, decision={self.decision!r}, preds={self.preds!r})"


def metric_factories(metric_cls, metrics_cls):
    """``money_metric`` and ``money_metrics`` of a plugin, built from its metric classes.

    Both are module-level functions of the plugin (``__module__`` set to it) with one docstring.
    """

    def money_metric(metric="savings", *args, decision=DEFAULT_METRIC_DECISION, preds="margin"):
        """Build a :class:`MoneyMetric`: ``money_metric("aec")``, ``money_metric("savings", decision="bmr")``.

        A factory, not a metric: handed to the library uncalled (``custom_metric=money_metric``)
        it raises a ``TypeError`` naming the fix.

        Parameters
        ----------
        metric : {"aec", "expected_savings", "savings"}, default "savings"
            The money metric (see :class:`MoneyMetric`).
        *args
            Refused: present only to turn the library calling the factory as a metric
            (``custom_metric=money_metric`` uncalled) into a clear ``TypeError``.
        decision : {"0.5", "bmr"}, default "0.5"
            Decision rule of "savings": s > 1/2 (``DEFAULT_METRIC_DECISION``, the estimators'
            ``predict`` under ``decision="0.5"``) or Bayes minimum risk with the rows' costs.
        preds : {"margin", "probability"}, default "margin"
            What the library passes: margins (custom objective) or probabilities.

        Returns
        -------
        MoneyMetric
        """
        if not isinstance(metric, str) or args:
            raise TypeError(
                f"money_metric is a factory, not a metric: it was called with {1 + len(args)} data arguments. "
                'Call it (money_metric("aec"), money_metric("savings", decision="bmr")) or pass a ready metric: '
                "aec_metric, savings_metric, expected_savings_metric, money_metrics")
        return metric_cls(metric, decision=decision, preds=preds)

    def money_metrics(*args, watch=DEFAULT_WATCH, decision=DEFAULT_METRIC_DECISION, preds="margin"):
        """Build a :class:`MoneyMetrics` reporting aec, expected_savings and savings; usable uncalled.

        Parameters
        ----------
        *args
            Only when the library calls the factory itself as the metric (passed uncalled):
            the predictions and the data set; the default :class:`MoneyMetrics` is evaluated.
        watch : {"aec", "expected_savings", "savings"}, default "aec"
            Reported where the library's own early stopping looks: last for xgboost,
            first for lightgbm (``lgb.early_stopping(..., first_metric_only=True)``).
        decision : {"0.5", "bmr"}, default "0.5"
            Decision rule of "savings".
        preds : {"margin", "probability"}, default "margin"
            What the library passes.

        Returns
        -------
        MoneyMetrics or list
            The metric object; the metric values when called as the metric.
        """
        if args:  # handed over uncalled: the library calls it as the metric itself
            return metrics_cls()(*args)
        return metrics_cls(watch=watch, decision=decision, preds=preds)

    for f in (money_metric, money_metrics):
        f.__module__, f.__qualname__ = metric_cls.__module__, f.__name__
    return money_metric, money_metrics
