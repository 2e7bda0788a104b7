"""What the rule modules share below the rule classes: how a rule prints a number, lightgbm's zero band, the
check of a column index. The SQL writer (``_export``) and the JSON schema (``_schema``) read them from here, so
that the rule classes, whose export and schema methods call those modules, do not import each other in a circle;
``_rule`` re-exports every name."""

from __future__ import annotations

import numpy as np

__all__ = ["ZERO_THRESHOLD", "check_feature_index", "exact_decimal"]

#: lightgbm's kZeroThreshold (1e-35f): |x| <= it counts as zero for missing_type 'Zero'
ZERO_THRESHOLD = float(np.float32(1e-35))
_INT64_MAX = int(np.iinfo(np.int64).max)


def check_feature_index(feature, where: str = "feature") -> int:
    """``feature`` as a Python int: a column index, >= 0 (kernels read X[:, feature] unchecked)."""
    if isinstance(feature, (bool, np.bool_)) or not isinstance(feature, (int, np.integer)):
        raise TypeError(f"{where} must be an integer column index, got {type(feature).__name__} {feature!r}")
    f = int(feature)
    if not 0 <= f <= _INT64_MAX:
        raise ValueError(f"{where} must be a column index >= 0 (and below 2**63), got {f}")
    return f


def exact_decimal(v: float, *, point: bool = True) -> str:
    """The shortest decimal that reads back as ``v`` in float64 (Python's ``repr``), as text.

    Every number a rule prints goes through here (rule text, SQL, pandas queries), so
    ``x <= exact_decimal(b)`` compared in float64 is ``x <= b`` for every float64 ``x``.
    With ``point=False`` an integral value drops its ``.0`` and a negative zero its sign
    (``3.0`` -> ``"3"``, ``-0.0`` -> ``"0"``: the same float64, the same comparisons).
    """
    v = float(v)
    if point:
        return repr(v)
    if v == 0.0:
        return "0"
    return repr(v).removesuffix(".0")
