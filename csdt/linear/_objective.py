"""Average expected cost (AEC) of a logistic model and its analytic gradient.

Private helpers of :mod:`csdt.linear` (csboost/cslogit paper, section 5.1).

For row i with label y_i, linear score z_i = b0 + x_i . beta, s_i = sigmoid(z_i)
and costs C_FP, C_FN, C_TP, C_TN (money):

* expected cost (paper eq. 7)
  ``EC_i = y_i (s_i C_TP + (1 - s_i) C_FN) + (1 - y_i)(s_i C_FP + (1 - s_i) C_TN)``
* ``AEC = (1/N) sum_i EC_i`` (eq. 11), money per row
* ``dAEC/dbeta_j = (1/N) sum_i x_ij s_i (1 - s_i) d_i`` (eq. 12), with the per-row
  regret slope ``d_i = y_i (C_TP - C_FN) + (1 - y_i)(C_FP - C_TN)`` (money), x_i0 = 1
  for the intercept.

Everything is vectorised numpy (one matrix-vector product each way), which is
all the work there is; numba would not add anything here.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from csboost_plugins.decision_costs import decision_costs


def cost_slope_and_offset(y: np.ndarray, costs: np.ndarray):
    """Per-row ``d_i`` and ``e_i`` such that ``EC_i = s_i d_i + e_i`` (both money)."""
    c0, c1 = decision_costs(y, costs)
    return c1 - c0, c0


def aec_and_gradient(theta: np.ndarray, X: np.ndarray, d: np.ndarray, e: np.ndarray,
                     fit_intercept: bool):
    """AEC (eq. 11) and its gradient (eq. 12) in ``theta = [b0, beta]`` (or ``beta``).

    Returns ``(aec, grad)`` with ``grad`` the same shape as ``theta``.
    """
    n = X.shape[0]
    if fit_intercept:
        b0, beta = theta[0], theta[1:]
    else:
        b0, beta = 0.0, theta
    z = X @ beta + b0
    s = expit(z)
    aec = float(s @ d + e.sum()) / n
    # s (1 - s) written as expit(z) expit(-z): exact in the tails, no cancellation
    r = expit(z) * expit(-z) * d / n
    g_beta = X.T @ r
    grad = np.concatenate(([r.sum()], g_beta)) if fit_intercept else g_beta
    return aec, grad
