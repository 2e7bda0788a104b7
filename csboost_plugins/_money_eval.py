"""Plumbing shared by the xgboost and lightgbm plugins: costs stored on a data set,
the AEC objective's data-set side and the money eval metrics.

Each plugin describes its data set (``xgb.DMatrix`` / ``lgb.Dataset``) by a
:class:`DataAccess` (how to read its costs, 0/1 labels and weights); the base
classes here hold everything else, so the objective and the metrics compute the
same numbers on either library. Not public: use :mod:`csboost_plugins.xgb` /
:mod:`csboost_plugins.lgb`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from . import _aec

COSTS_ATTR = "csboost_costs"  # instance attribute holding the (n, 4) float64 costs
_CACHE_ATTR = "_csboost_cache"  # (cost_scale, (y, d / scale, w)) computed from those costs


class DataAccess(NamedTuple):
    """How a plugin reads a data set: ``costs(data)`` (n, 4), ``label(data)`` float64, ``weight(data)`` or None."""

    costs: Callable
    label: Callable
    weight: Callable


def store_costs(data, costs):
    """Put validated (n, 4) costs on ``data`` and drop what was computed from earlier ones."""
    setattr(data, COSTS_ATTR, costs)
    data.__dict__.pop(_CACHE_ATTR, None)
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
    :func:`csboost_plugins._aec.cost_scale` of the set's own rows.
    """
    cache = data.__dict__.get(_CACHE_ATTR)
    if cache is not None and cache[0] == cost_scale:
        return cache[1]
    costs = io.costs(data)
    y = io.label(data)
    w = io.weight(data)
    d = _aec.regret_difference(y, costs)
    scale = _aec.cost_scale(d, w) if cost_scale == "auto" else float(cost_scale)
    out = (y, d / scale, w)
    data.__dict__[_CACHE_ATTR] = (cost_scale, out)
    return out


class AECObjectiveBase:
    """Hessian policy, cost scale and the data-set side of the AEC objective (subclasses set ``_io``)."""

    _io: DataAccess

    def __init__(self, *, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, cost_scale="auto",
                 costs_in_weight=False):
        _aec.check_hessian_params(hessian, hessian_floor, logloss_weight)
        if not (cost_scale == "auto" or (np.isfinite(cost_scale) and cost_scale > 0)):
            raise ValueError(f"cost_scale must be 'auto' or a positive float, got {cost_scale!r}")
        self.hessian = hessian
        self.hessian_floor = hessian_floor
        self.logloss_weight = logloss_weight
        self.cost_scale = cost_scale
        self.costs_in_weight = costs_in_weight
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

    def __init__(self, metric="savings", *, decision="bmr", preds="margin"):
        _aec.check_metric_params(metric, decision, preds)
        self.metric, self.decision, self.preds = metric, decision, preds
        self.__name__ = metric

    def value(self, preds, data) -> float:
        costs = self._io.costs(data)
        return _aec.money_metric_value(self.metric, preds, self._io.label(data), costs, self._io.weight(data),
                                       self.decision, is_margin=self.preds == "margin")

    def __repr__(self):
        return f"MoneyMetric({self.metric!r}, decision={self.decision!r}, preds={self.preds!r})"
