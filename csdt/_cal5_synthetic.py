"""The synthetic data sets of the CAL5_OC paper, section 5 (NSEP, MULTI and their costs).

The paper does not give the Gaussians' parameters; these are stated here:

* NSEP: two classes of equal size, x1 ~ N(0, 1) for both (irrelevant), x2 ~
  N(-1, 1) for class 0 and N(+1, 1) for class 1 (Bayes error Phi(-1) = 15.9 %,
  close to the paper's 16.45 % for CAL5).
* MULTI: two classes of two Gaussian clusters each (std 0.7): class 0 at
  (-2, 0) and (2, 0), class 1 at (0, 1.5) and (0, -1.5).

Costs (one per example, the cost of misclassifying it):

* NSEP_OC, eqs. 29-30: c_0(x1, x2) = 2 / (1 + exp(-x1)) for class 0 and
  c_1(x1, x2) = 2 / (1 + exp(+x1)) for class 1 (both average 1 over x1 ~ N(0,1)).
  As printed, the equations make class 0 expensive for x1 > 0; the paper's text
  describes the mirror image (class 1 enlarged for x1 > 0). We follow the equations.
* MULTI_OC, eqs. 31-32: c_1 = 1 for class 1 and c_0 = 2 / (1 + exp(-x1)) for
  class 0, so the right cluster of class 0 is the expensive one.
"""

from __future__ import annotations

import numpy as np


def make_nsep(n_samples: int = 1000, random_state=None):
    """(X, y, cost): NSEP with the example-dependent costs of eqs. 29-30."""
    rng = np.random.default_rng(random_state)
    y = np.repeat([0, 1], [n_samples // 2, n_samples - n_samples // 2])
    X = np.column_stack([rng.normal(size=n_samples), rng.normal(size=n_samples) + np.where(y == 1, 1.0, -1.0)])
    return X, y, nsep_cost(X, y)


def nsep_cost(X, y):
    """Eqs. 29-30."""
    return np.where(y == 0, 2.0 / (1.0 + np.exp(-X[:, 0])), 2.0 / (1.0 + np.exp(X[:, 0])))


_MULTI_CENTRES = {0: [(-2.0, 0.0), (2.0, 0.0)], 1: [(0.0, 1.5), (0.0, -1.5)]}


def make_multi(n_samples: int = 1000, random_state=None):
    """(X, y, cost): MULTI (two clusters per class) with the costs of eqs. 31-32."""
    rng = np.random.default_rng(random_state)
    y = np.repeat([0, 1], [n_samples // 2, n_samples - n_samples // 2])
    cluster = rng.integers(0, 2, size=n_samples)
    centres = np.array([_MULTI_CENTRES[k][c] for k, c in zip(y, cluster)])
    X = centres + 0.7 * rng.normal(size=(n_samples, 2))
    return X, y, multi_cost(X, y)


def multi_cost(X, y):
    """Eqs. 31-32."""
    return np.where(y == 1, 1.0, 2.0 / (1.0 + np.exp(-X[:, 0])))
