"""FIGS and FIGU: greedy tree sums and greedy tree unions.

Papers: Y. S. Tan et al., "Fast Interpretable Greedy-Tree Sums" (FIGS, 2022; each tree
fitted to the residuals of the others, ``r_i = y - sum_{j != i} f_j(x)``, which the RIFF
paper writes as eq. 1) and "RIFF: Inducing Rules for Fraud Detection from Decision Trees"
(FIGU, section 3.1 and eq. 2: a leaf of tree i is scored on the rows no other tree covers).
``csdt._binning`` bins the features (shared with CSDT), ``_histogram`` holds the numba histogram and split
kernels, ``_builder`` the greedy loop and ``_classifier`` the estimators,
:class:`FIGSClassifier` and :class:`FIGUClassifier`.
"""

from .._lazy import lazy_exports

__all__ = ["FIGSClassifier", "FIGUClassifier"]

__getattr__, __dir__ = lazy_exports(__name__, "._classifier", __all__)
