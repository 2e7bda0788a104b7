"""Turn user data (numpy, pandas, scipy sparse refused) into the float64 matrix rules read."""

from __future__ import annotations

import numpy as np

from .._validation import check_sample_weight  # noqa: F401  (the rules' weights, read as everywhere)
import pandas as pd

__all__ = ["as_float_matrix", "collect_categories"]


def collect_categories(rules) -> dict:
    """{feature index: training category values} over all rules (pandas categoricals)."""
    cats: dict = {}
    for r in rules:
        for j, v in r.categories.items():
            cats.setdefault(j, list(v))
    return cats


def _numeric_levels(cats: dict) -> dict:
    """The entries of ``cats`` whose training categories are all numbers (matched by value in numeric columns)."""
    return {j: v for j, v in cats.items()
            if v and all(isinstance(c, (int, float, np.number)) and not isinstance(c, bool) for c in v)}


def _recode(values: np.ndarray, levels) -> np.ndarray:
    """Index of each value among the training categories ``levels`` (exact match; others -> NaN)."""
    codes = pd.Index(np.asarray(levels, dtype=np.float64)).get_indexer(values)
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out


def _generated_names(feature_names) -> bool:
    """lightgbm's names of a model trained without names (``Column_0, Column_1, ...``): match by position."""
    return all(str(n) == f"Column_{j}" for j, n in enumerate(feature_names))


def _positions_by_name(X: pd.DataFrame, feature_names, cols) -> dict:
    """{rule column j: position in X of the column named feature_names[j]} for j in ``cols``."""
    where = {str(c): i for i, c in enumerate(X.columns)}
    position, missing = {}, []
    for j in cols:
        if j >= len(feature_names):
            raise ValueError(f"the rules use column index {j} but feature_names has {len(feature_names)} names")
        i = where.get(str(feature_names[j]))
        if i is None:
            missing.append(str(feature_names[j]))
        position[j] = i
    if missing:
        raise ValueError(f"X lacks {len(missing)} column(s) the rules use: {missing[:10]}; the DataFrame's columns "
                         "are matched by name (pass a numpy array to match by position)")
    return position


def as_float_matrix(X, rules, *, feature_names=None, order="C", columns=None) -> np.ndarray:
    """float64 2-D matrix of X; pandas ``category`` columns become codes of the training categories.

    A text (object or string dtype) column whose rules carry training categories (CatBoost's
    categorical features) is re-coded the same way, by value.

    A numeric column whose rules carry numeric training categories (scikit-learn
    HistGradientBoosting's ordinal-encoded categorical features) is re-coded the
    same way, by exact value, with unknown values -> NaN, as the model does.

    With ``feature_names``, a pandas DataFrame's columns are matched by name (order and
    extra columns do not matter; a missing name the conversion needs raises ValueError,
    as scikit-learn estimators do); without, by position. Category values unseen in
    training become NaN (as lightgbm does). Non-numeric columns raise TypeError.
    ``columns``: convert only these column indices (in this order); the others are not even read.
    """
    if hasattr(X, "tocsr") or hasattr(X, "toarray"):
        raise TypeError("X must be dense (numpy or pandas); sparse input treats absent entries as missing in "
                        "xgboost but as 0 in scikit-learn, so convert it explicitly")
    cats = collect_categories(rules)
    num_levels = _numeric_levels(cats)
    if isinstance(X, pd.DataFrame):
        if feature_names is not None and not _generated_names(feature_names):
            cols = range(len(feature_names)) if columns is None else columns
            position = _positions_by_name(X, feature_names, cols)
        else:
            cols = range(X.shape[1]) if columns is None else columns
            if len(cols) and max(cols) >= X.shape[1]:
                raise ValueError(f"X has {X.shape[1]} columns but the rules use column index {max(cols)}")
            position = dict(zip(cols, cols))
        out = np.empty((X.shape[0], len(cols)), dtype=np.float64, order=order)
        for k, j in enumerate(cols):
            name, col = X.columns[position[j]], X.iloc[:, position[j]]
            dt = col.dtype
            text = j in cats and (pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt))
            if isinstance(dt, pd.CategoricalDtype) or text:  # text: CatBoost's categories, matched by value
                if j in cats:
                    codes = pd.Index(cats[j]).get_indexer(col.astype(object))
                else:
                    codes = col.cat.codes.to_numpy()
                v = codes.astype(np.float64)
                v[codes < 0] = np.nan
                out[:, k] = v
            elif pd.api.types.is_bool_dtype(dt) or pd.api.types.is_numeric_dtype(dt):
                out[:, k] = col.to_numpy(dtype=np.float64, na_value=np.nan)
                if j in num_levels:
                    out[:, k] = _recode(out[:, k], num_levels[j])
            else:
                raise TypeError(f"X column {name!r} has non-numeric dtype {dt}; encode it or make it a pandas "
                                "category")
        return out
    try:
        arr = np.asarray(X, dtype=np.float64, order=order)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X must be numeric, got {type(X).__name__} that cannot be converted to float") from exc
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D (rows, features), got shape {arr.shape}")
    if columns is not None:
        if len(columns) and max(columns) >= arr.shape[1]:
            raise ValueError(f"X has {arr.shape[1]} columns but the rules use column index {max(columns)}")
        arr = np.asarray(arr[:, list(columns)], order=order)
    else:
        columns = range(arr.shape[1])
    recode = [(k, j) for k, j in enumerate(columns) if j in num_levels]
    if recode:
        arr = np.array(arr, dtype=np.float64, order=order, copy=True)  # never write into the caller's array
        for k, j in recode:
            arr[:, k] = _recode(arr[:, k], num_levels[j])
    return arr
