"""What xgboost and lightgbm refuse (with errors that name no column) or silently mangle in the data
they are given, checked before they see it: feature names, feature values and the labels of the
data builders. Shared by the scikit-learn estimators (:mod:`csboost_plugins.boosting._sklearn_base`) and
the native data builders (``cost_dmatrix`` / ``cost_dataset``). Not public.
"""

from __future__ import annotations

import numpy as np

from .._validation import (FLOAT32_LIBRARIES, check_binary_labels, check_feature_names,  # noqa: F401
                           check_X_values)


def check_feature_values(X, library: str, argument: str = "X", names=None) -> None:
    """:func:`csboost_plugins._validation.check_X_values` for ``library``: NaN taken (a missing value),
    values beyond float32 refused for the libraries storing float32 (:data:`FLOAT32_LIBRARIES`)."""
    check_X_values(X, argument, names, float32=library in FLOAT32_LIBRARIES, allow_nan=True, who=library)


def check_builder_labels(X, y, builder: str, pos_label=None, named=()) -> np.ndarray:
    """The 0/1 labels of a native data builder (``cost_dmatrix`` / ``cost_dataset`` / ``cost_pool``),
    validated against X.

    Labels 0/1, -1/1 or booleans name the positive class (1 / True); any other labels ("fraud" /
    "ok", 1 / 2) need ``pos_label`` (the label whose miss costs ``fn_cost``), else a ``ValueError``:
    the sort order of the labels says nothing about which class the costs call positive. A data set
    of one class (a validation fold) keeps 0 / 1 (or bool, or -1 as the negative of {-1, 1}) labels;
    a lone other label is read with ``pos_label`` (positive when it is ``pos_label``, negative when of
    its kind), and refused without it. A pandas ``y`` (or a cost / weight in ``named``) whose index
    differs from X's is a ``ValueError`` naming it.

    Parameters
    ----------
    X : array-like, DataFrame or str
        The features (a str / path: a file, whose rows are not counted here).
    y : array-like of shape (n,)
        The labels.
    builder : str
        The builder's name, for the message.
    pos_label : label or None
        The positive class.
    named : iterable of (str, object)
        Further per-row arguments (costs, weights) whose pandas index must be X's.

    Returns
    -------
    ndarray of shape (n,)
        int64 0/1.
    """
    from .._cost_columns import check_same_index
    from .._rows import read_labels

    if y is None:
        raise ValueError(f"{builder}: y (the label of each row) is required, got None")
    check_same_index([("X", X), ("y", y), *named])
    y01, classes = check_binary_labels(y, name="y", require_both=False, return_classes=True)
    if y01.min() == y01.max() and pos_label is None:
        raw = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()[:1].tolist()[0]
        if not (isinstance(raw, (bool, np.bool_)) or (isinstance(raw, (int, float, np.number))
                                                        and raw in (0, 1, -1))):
            raise ValueError(
                f"{builder}: y holds the single label {raw!r}, neither 0 nor 1: whether those rows are the positive "
                "or the negative class cannot be told from one label; give y as 0/1, or pass pos_label=")
    y01 = read_labels(y, pos_label, require_both=False)[0]
    n_x = len(X) if isinstance(X, (list, tuple)) else getattr(X, "shape", (None,))[0]  # None: a file path
    if n_x is not None and n_x != y01.shape[0]:
        raise ValueError(f"{builder}: y has {y01.shape[0]} rows but X has {n_x}: y needs one label per row of X")
    return y01
