"""Ensembles of example-dependent cost-sensitive decision trees (ECSDT).

Paper: A. Correa Bahnsen, D. Aouada, B. Ottersten, "Ensemble of Example-Dependent
Cost-Sensitive Decision Trees" (arXiv 1505.04637, 2015): four random inducers
(cost-sensitive bagging, pasting, random forest and random patches, section 3) of
:mod:`csdt.tree` members and four combiners, majority voting (eq. 7), savings-weighted
voting (eqs. 14, 16) and cost-sensitive stacking (eqs. 17-18, whose learner is
:class:`csdt.linear.CostSensitiveLogisticRegression`). ``_inducers`` draws each member's
rows and features; ``_classifiers`` holds the estimators.
"""

from .._lazy import lazy_exports

__all__ = [
    "CostSensitiveBaggingClassifier",
    "CostSensitivePastingClassifier",
    "CostSensitiveRandomForestClassifier",
    "CostSensitiveRandomPatchesClassifier",
]

__getattr__, __dir__ = lazy_exports(__name__, "._classifiers", __all__)
