"""Parameter validation shared by every csdt estimator: scikit-learn's ``_parameter_constraints``.

Each estimator declares ``_parameter_constraints`` in scikit-learn's grammar and calls
:func:`validate_params` first thing in ``fit``: a bad value raises scikit-learn's
``InvalidParameterError`` (both a ``ValueError`` and a ``TypeError``) naming the parameter
and what it accepts. One rule on top of scikit-learn's: a boolean is not a number here
(``max_depth=True`` is refused unless the parameter is declared ``"boolean"``). Counts are
bounded by :data:`INT_MAX` so no value can overflow the kernels' int64 arithmetic.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
)

__all__ = ["INT_MAX", "count", "fraction", "non_negative", "positive", "StrOptions", "Interval", "HasMethods",
           "validate_params"]

#: largest count parameter (depth, rows, leaves, rules, ...): far above any real use
INT_MAX = int(np.iinfo(np.int32).max)


def count(low, high=INT_MAX):
    """An integer in ``[low, high]``."""
    return Interval(Integral, low, high, closed="both")


def fraction(closed="right"):
    """A real in ``(0, 1]`` (``closed="right"``) or ``[0, 1]`` (``"both"``)."""
    return Interval(Real, 0, 1, closed=closed)


def non_negative():
    """A finite real >= 0."""
    return Interval(Real, 0, None, closed="left")


def positive():
    """A finite real > 0."""
    return Interval(Real, 0, None, closed="neither")


def validate_params(estimator):
    """Check every ``__init__`` parameter of ``estimator`` against its ``_parameter_constraints``."""
    estimator._validate_params()
    for name, constraints in estimator._parameter_constraints.items():
        if constraints == "no_validation":  # any value (pos_label: a label, checked against y at fit)
            continue
        value = getattr(estimator, name)
        if isinstance(value, (bool, np.bool_)) and "boolean" not in constraints:
            raise InvalidParameterError(
                f"The {name!r} parameter of {type(estimator).__name__} must be one of {constraints}; "
                f"got {value!r}, a boolean, where a number or option is expected.")
        if isinstance(value, (float, np.floating)) and not np.isfinite(value):
            raise InvalidParameterError(
                f"The {name!r} parameter of {type(estimator).__name__} must be finite, got {value!r}.")
