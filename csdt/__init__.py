"""csdt: numba cost-sensitive decision trees (CSDT), ensembles (ECSDT), cost-sensitive
logistic regression, FIGS/FIGU, CAL5/CAL5_OC, sampling baselines and the bundled data sets.

Public names are imported lazily (PEP 562) so that ``import csdt`` does not compile
numba kernels or import estimators the user does not need.
"""

from importlib import import_module

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS = {
    # trees (issue: CSDT)
    "CostSensitiveDecisionTreeClassifier": "tree",
    # ensembles and friends (issue: ECSDT)
    "CostSensitiveBaggingClassifier": "ensemble",
    "CostSensitivePastingClassifier": "ensemble",
    "CostSensitiveRandomForestClassifier": "ensemble",
    "CostSensitiveRandomPatchesClassifier": "ensemble",
    "CostSensitiveLogisticRegression": "linear",
    "CostSensitiveLogisticRegressionCV": "linear",
    "BayesMinimumRiskClassifier": "bmr",
    "ThresholdingOptimization": "bmr",
    # tree sums (issue: FIGS/FIGU)
    "FIGSClassifier": "figs",
    "FIGUClassifier": "figs",
    # CAL5 (issue: CAL5_OC)
    "CAL5Classifier": "cal5",
    "CAL5OCClassifier": "cal5",
    "cost_transinformation": "cal5",
}
_SUBMODULES = {"datasets", "sampling", "tree", "ensemble", "linear", "bmr", "figs", "cal5", "demo"}


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    if name in _SUBMODULES:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module 'csdt' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_EXPORTS) + list(_SUBMODULES))


__all__ = list(_EXPORTS)
