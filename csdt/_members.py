"""The internal fast-fit protocol between csdt's ensembles and their members.

An ensemble fits hundreds of members on arrays it has already validated, so a member that
implements ``_fit_validated(X, y01, costs)`` is fitted through it without re-validation:

* ``X``: C-contiguous float64 ``(n, d)`` (NaN allowed where the member allows it),
* ``y01``: int64 labels in {0, 1},
* ``costs``: C-contiguous float64 ``(n, 4)`` money per row, columns ``[C_FP, C_FN, C_TP, C_TN]``,

returning the fitted member (``CostSensitiveDecisionTreeClassifier`` and
``CostSensitiveLogisticRegression`` implement it). Any other scikit-learn classifier (the
stacking ``final_estimator``) is fitted through its public ``fit``: with ``cost_matrix=``
when its ``fit`` takes it, else with ``sample_weight`` = each row's misclassification regret
``|c1 - c0|`` (cost-proportionate weighting: a row weighs what a wrong decision on it
costs), else unweighted.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import has_fit_parameter

from csboost_plugins.decision_costs import regret_difference

__all__ = ["fit_member"]


def fit_member(estimator, X, y01, costs):
    """Fit ``estimator`` on validated arrays through the protocol above; returns it fitted."""
    if hasattr(estimator, "_fit_validated"):
        return estimator._fit_validated(X, y01, costs)
    if has_fit_parameter(estimator, "cost_matrix"):
        return estimator.fit(X, y01, cost_matrix=costs)
    if has_fit_parameter(estimator, "sample_weight"):
        return estimator.fit(X, y01, sample_weight=np.abs(regret_difference(y01, costs)))
    return estimator.fit(X, y01)
