"""Cost-sensitive logistic regression (cslogit).

Paper: S. Höppner, B. Baesens, W. Verbeke, T. Verdonck, "Instance-dependent
cost-sensitive learning for detecting transfer fraud" (the csboost paper), section 5.1
and Algorithm 1: a logistic model whose coefficients minimise the lasso-regularised
average expected cost (eqs. 7, 11 and 13) with its analytic gradient (eq. 12). It is also
the stacking learner of :mod:`csdt.ensemble` (ECSDT paper eq. 18). ``_objective`` holds
the AEC and its gradient; ``_logistic`` the estimators.
"""

from .._lazy import lazy_exports

__all__ = ["CostSensitiveLogisticRegression", "CostSensitiveLogisticRegressionCV"]

__getattr__, __dir__ = lazy_exports(__name__, "._logistic", __all__)
