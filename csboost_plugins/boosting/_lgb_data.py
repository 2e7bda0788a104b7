"""lightgbm's side of the money plumbing: how a ``lgb.Dataset`` gives its costs, labels and
weights, and the ``feval`` money metric. Shared by :mod:`csboost_plugins.lgb` (which re-exports
``get_costs`` and ``MoneyMetric``) and :mod:`csboost_plugins.callback`, so neither imports the other.
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np

from . import _aec, _money_eval
from .._docstrings import fill_doc

#: instance attribute of a cost Dataset holding its start margin (the init score lgb.train starts from)
MARGIN_ATTR = "csboost_start_margin"


def _n_rows(dataset):
    if dataset._handle is not None:  # constructed: the authoritative count
        return dataset.num_data()
    if dataset.label is None:  # get_label() raises a bare Exception before construct
        raise ValueError("the Dataset has no label yet (read from a file?): call dataset.construct() before "
                         "attaching costs, which are per labelled row")
    return len(dataset.label)


def get_costs(dataset) -> np.ndarray:
    """The costs a Dataset carries.

    Parameters
    ----------
    dataset : lightgbm.Dataset
        A Dataset from :func:`cost_dataset` or :func:`attach_costs` (or a subset of one).

    Returns
    -------
    numpy.ndarray of shape (n, 4)
        ``[C_FP, C_FN, C_TP, C_TN]`` per row; ``ValueError`` naming the fix if it has none.
    """
    return _money_eval.stored_costs(
        dataset, _n_rows, kind="Dataset",
        missing="this lightgbm Dataset carries no costs: build it with csboost_plugins.lgb.cost_dataset(X, y, "
                "fp_cost=..., fn_cost=...) or call attach_costs(dataset, fp_cost=..., fn_cost=...) "
                "(costs are never matched to an eval set by length or order)")


def reference_margin(dataset):
    """The start margin of ``dataset.reference`` (the training set of an eval set), or None."""
    return getattr(dataset.reference, MARGIN_ATTR, None) if dataset.reference is not None else None


def check_start_margin(dataset):
    """``ValueError`` for an eval set that lightgbm scores without the training set's start margin.

    lightgbm adds a Dataset's own init score to its raw scores; an eval set without one
    is scored from 0 while training started from the start margin m0, so every money
    metric of it would be silently off by m0.
    """
    ref = dataset.reference
    if ref is None or not hasattr(ref, MARGIN_ATTR):  # not an eval set of a cost Dataset
        return
    m0 = getattr(ref, MARGIN_ATTR) or 0.0  # None: training started from 0
    fix = ("build it with csboost_plugins.lgb.cost_dataset(X, y, ..., reference=dtrain), or attach_costs to "
           "dtrain.create_valid(X, label=y)")
    if dataset.get_init_score() is None:
        if m0:
            raise ValueError(
                f"this eval set has no init_score, so lightgbm scores it without the training set's start margin "
                f"{m0:.6g} and its money metrics would be wrong: {fix}")
        return
    own = getattr(dataset, MARGIN_ATTR, m0)
    if (own or 0.0) != m0:
        raise ValueError(
            f"this eval set starts from its own start margin {own:.6g} (its rows' labels and costs), not the "
            f"training set's {m0:.6g}, so its money metrics would be wrong: {fix}")


#: lightgbm objectives whose feval / Booster.eval scores are probabilities (a custom objective's are margins)
PROBABILITY_OBJECTIVES = ("binary", "cross_entropy", "xentropy")


def preds_kind(params):
    """What lightgbm hands feval under the training ``params`` (``env.params`` of a callback, where
    lgb.train has put the objective under its own name, "none" for a custom one): "probability" or
    "margin". Not from a Dataset's params, which keep the objective of the first lgb.train it saw."""
    return "probability" if params.get("objective") in PROBABILITY_OBJECTIVES else "margin"


def check_feval_call(dataset, rest):
    """``TypeError`` unless called by lightgbm's engine as ``feval(preds, dataset)`` (not scikit-learn's API)."""
    if rest or not isinstance(dataset, lgb.Dataset):
        raise TypeError(
            "csboost_plugins.lgb money metrics are feval= of lgb.train / lgb.cv: called as metric(preds, dataset) "
            "they read each eval set's costs from its Dataset. LGBMClassifier's eval_metric passes arrays without "
            "costs: use csboost_plugins.lgb.CSLGBMClassifier().fit(..., eval_set=..., eval_costs=...)")


def _weight(dataset):
    w = dataset.get_weight()
    return None if w is None or len(w) == 0 else np.asarray(w, dtype=np.float64)


def _label(dataset):
    return np.asarray(dataset.get_label(), dtype=np.float64)


_IO = _money_eval.DataAccess(costs=get_costs, label=_label, weight=_weight,
                             sources=lambda dataset: (dataset.label, dataset.weight))  # set_label / set_weight replace them


class MoneyMetric(_money_eval.MoneyMetricBase):
    """``feval=`` for ``lgb.train``: a money metric on each eval set's own costs.

    Called as ``metric(preds, dataset)`` it returns ``(name, value, is_higher_better)``.

    Parameters
    ----------
    metric : {"aec", "expected_savings", "savings"}, default "savings"
        As in :class:`csboost_plugins.xgb.MoneyMetric`.
    decision : {"0.5", "bmr"}, default "0.5"
        Decision rule of "savings".
    preds : {"margin", "probability"}, default "margin"
        "margin" with :class:`AECObjective` (lightgbm passes raw scores for custom
        objectives), "probability" with ``objective="binary"``.
    """

    _io = _IO

    def sums(self, preds, data):
        """The totals behind every money metric, refusing an eval set scored without the start margin.

        Parameters
        ----------
        preds : numpy.ndarray of shape (n,)
            Margins, or probabilities with ``preds="probability"``.
        data : lightgbm.Dataset
            Carrying its costs; an eval set of a training set with a start margin
            must have an init score (:func:`check_start_margin`).

        Returns
        -------
        dict
            As :meth:`csboost_plugins.boosting._money_eval.MoneyMetricBase.sums`.
        """
        out = super().sums(preds, data)  # first: an eval set without costs is the more basic error
        if self.preds == "probability" and preds.size and not (preds.min() >= 0.0 and preds.max() <= 1.0):
            raise ValueError("this metric was built with preds='probability' but lightgbm hands it scores outside "
                             "[0, 1]: margins of a custom objective such as the AEC; use preds='margin' (the default)")
        check_start_margin(data)
        return out

    @fill_doc
    def __call__(self, preds, dataset, *rest):
        """The metric of one eval set.

        %(lgb_eval_args)s
        *rest
            Refused: ``LGBMClassifier``'s ``eval_metric`` passes arrays (labels,
            scores, weight, group) without the eval set's costs (``TypeError``).

        Returns
        -------
        name : str
        value : float
        is_higher_better : bool
        """
        check_feval_call(dataset, rest)
        return self.metric, self.value(preds, dataset), _aec.METRICS[self.metric]
