"""The internal fast-fit protocol between csdt's ensembles and their members.

An ensemble fits hundreds of members on arrays it has already validated, so a member that
implements ``_fit_validated(X, y01, costs)`` is fitted through it without re-validation:

* ``X``: C-contiguous float64 ``(n, d)`` (NaN allowed where the member allows it),
* ``y01``: int64 labels in {0, 1},
* ``costs``: C-contiguous float64 ``(n, 4)`` money per row, columns ``[C_FP, C_FN, C_TP, C_TN]``,
* ``sample_weight=``: float64 ``(n,)`` row weights >= 0 (given only when the ensemble was),

returning the fitted member (``CostSensitiveDecisionTreeClassifier`` and
``CostSensitiveLogisticRegression`` implement it). Any other scikit-learn classifier (the
stacking ``final_estimator``) is fitted through its public ``fit`` (a Pipeline's through its
last step, :func:`fit_keyword`): with ``cost_matrix=`` when its ``fit`` takes it, else with ``sample_weight`` = each row's misclassification regret
``|c1 - c0|`` (cost-proportionate weighting: a row weighs what a wrong decision on it
costs), else unweighted. Row weights ``w`` go to its ``sample_weight`` when it takes one; a member
that takes only the costs gets ``w``-scaled costs (the money of w copies), and the regret weights
become ``w |c1 - c0|``.
"""

from __future__ import annotations

import numpy as np
from sklearn import get_config
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import has_fit_parameter

from csboost_plugins.decision_costs import regret_difference

from ._weights import scale_costs

__all__ = ["fit_member", "fit_keyword"]


def fit_keyword(estimator, name):
    """The keyword that hands ``name`` (a fit parameter) to ``estimator.fit``, or None if nothing takes it.

    A Pipeline passes it to its last step: ``"<step>__name"`` (scikit-learn's fit-parameter
    routing), or, with metadata routing on, ``name`` when that step requested it.
    """
    if isinstance(estimator, Pipeline) and estimator.steps:
        step_name, step = estimator.steps[-1]
        if step is None or step == "passthrough" or not has_fit_parameter(step, name):
            return None
        if get_config()["enable_metadata_routing"]:
            return name if step.get_metadata_routing().fit.requests.get(name) is True else None
        return f"{step_name}__{name}"
    return name if has_fit_parameter(estimator, name) else None


def fit_member(estimator, X, y01, costs, sample_weight=None):
    """Fit ``estimator`` on validated arrays through the protocol above; returns it fitted."""
    w = sample_weight
    if hasattr(estimator, "_fit_validated"):
        return estimator._fit_validated(X, y01, costs, **({} if w is None else {"sample_weight": w}))
    weight_key = fit_keyword(estimator, "sample_weight")
    if (key := fit_keyword(estimator, "cost_matrix")) is not None:
        if w is None:
            return estimator.fit(X, y01, **{key: costs})
        if weight_key is None:  # the money of w copies of each row
            return estimator.fit(X, y01, **{key: scale_costs(costs, w)})
        return estimator.fit(X, y01, **{key: costs, weight_key: w})
    if weight_key is not None:
        regret = np.abs(regret_difference(y01, costs))
        return estimator.fit(X, y01, **{weight_key: regret if w is None else w * regret})
    if w is not None:
        raise ValueError(f"sample_weight was given but {type(estimator).__name__}.fit takes neither sample_weight "
                         "nor cost_matrix")
    return estimator.fit(X, y01)
