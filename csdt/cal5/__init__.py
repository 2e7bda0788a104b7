"""CAL5 and CAL5_OC: decision trees from the cost-dependent information measure.

Paper: F. Wysotzki, P. Geibel, "A New Information Measure Based on Example-Dependent
Misclassification Costs and Its Application in Decision Tree Learning" (sections 2-4):
the cost entropy ``H^c`` and cost-dependent transinformation ``I^c`` (eqs. 2-10, in
:mod:`csdt._cost_information`, shared with the tree criterion ``cost_entropy``) and
CAL5's interval formation per attribute with the Chebyshev bounds delta_1 / delta_2
(section 3). ``_intervals`` holds the numba interval kernels, ``_builder`` the recursive
growth and ``_classifier`` the estimators, :class:`CAL5Classifier` and
:class:`CAL5OCClassifier`.
"""

from .._lazy import lazy_exports

__all__ = ["CAL5Classifier", "CAL5OCClassifier", "cost_transinformation"]

__getattr__, __dir__ = lazy_exports(__name__, "._classifier", __all__)
