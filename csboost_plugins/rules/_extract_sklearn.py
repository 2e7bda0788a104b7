"""Rules from scikit-learn trees: ``float32(x) <= threshold`` goes left (X is cast to
float32 by ``apply``), NaN goes left iff ``missing_go_to_left``."""

from __future__ import annotations

import numpy as np

from ._extract import TreeConditions
from ._rule import Interval, float32_le_bound

__all__ = ["sklearn_trees"]


def _short(t: float) -> str:
    """Shortest decimal with the same float32 routing as threshold t (display only)."""
    target = float32_le_bound(t)
    for p in range(1, 18):
        s = f"{t:.{p}g}"
        if float32_le_bound(float(s)) == target:
            return s
    return repr(t)


def _tree(est) -> TreeConditions:
    tr = est.tree_
    left, right = tr.children_left, tr.children_right
    n = tr.node_count
    mgl = getattr(tr, "missing_go_to_left", None)
    mgl = np.zeros(n, dtype=bool) if mgl is None else np.asarray(mgl, dtype=bool)
    cl, cr = [None] * n, [None] * n
    for i in np.flatnonzero(left != -1):
        f, thr = int(tr.feature[i]), float(tr.threshold[i])
        b, closed = float32_le_bound(thr)
        s = _short(thr)
        cl[i] = Interval(f, upper=b, upper_closed=closed, missing=bool(mgl[i]), upper_text=f"<= {s}")
        cr[i] = Interval(f, lower=b, lower_closed=not closed, missing=not bool(mgl[i]), lower_text=f"> {s}")
    v = tr.value[:, 0, :]
    if getattr(est, "n_classes_", None) is not None and np.ndim(est.n_classes_) == 0 and v.shape[1] >= 2:
        value = v[:, 1] / np.maximum(v.sum(axis=1), 1e-300)  # P(y=1) of a binary classifier
    else:
        value = v[:, 0]
    return TreeConditions(left, right, cl, cr, list(range(n)), value.tolist())


def _hist_tree(pred) -> TreeConditions:
    """HistGradientBoosting predictor: ``x <= num_threshold`` (float64) goes left, NaN by
    ``missing_go_to_left``."""
    nodes = pred.nodes
    n = len(nodes)
    if np.any(nodes["is_categorical"] & ~nodes["is_leaf"].astype(bool)):
        raise ValueError("extract_rules does not support categorical splits of HistGradientBoosting models")
    leaf = nodes["is_leaf"].astype(bool)
    left = np.where(leaf, -1, nodes["left"].astype(np.int64))  # (uint32 field: cast before -1)
    right = np.where(leaf, -1, nodes["right"].astype(np.int64))
    cl, cr = [None] * n, [None] * n
    for i in np.flatnonzero(~leaf):
        f, thr, ml = int(nodes["feature_idx"][i]), float(nodes["num_threshold"][i]), bool(nodes["missing_go_to_left"][i])
        s = repr(thr)
        cl[i] = Interval(f, upper=thr, upper_closed=True, missing=ml, upper_text=f"<= {s}")
        cr[i] = Interval(f, lower=thr, lower_closed=False, missing=not ml, lower_text=f"> {s}")
    return TreeConditions(left, right, cl, cr, list(range(n)), nodes["value"].tolist())


def sklearn_trees(model):
    from sklearn.utils.validation import check_is_fitted
    check_is_fitted(model)
    if hasattr(model, "_predictors"):  # HistGradientBoosting*: one predictor per iteration and class
        names = [str(c) for c in model.feature_names_in_] if hasattr(model, "feature_names_in_") else None
        return [_hist_tree(p) for it in model._predictors for p in it], names
    if hasattr(model, "tree_"):
        ests = [model]
    elif hasattr(model, "estimators_"):
        ests = list(np.asarray(model.estimators_, dtype=object).ravel())  # GradientBoosting: (n_stages, K)
        if not all(hasattr(e, "tree_") for e in ests):
            raise TypeError(f"{type(model).__name__} is not an ensemble of scikit-learn trees")
    else:
        raise TypeError(f"extract_rules does not support scikit-learn {type(model).__name__}")
    names = [str(c) for c in model.feature_names_in_] if hasattr(model, "feature_names_in_") else None
    return [_tree(e) for e in ests], names
