"""RIFF's induction, written once for :class:`RIFFClassifier` and :func:`optimize_rule_book`: the checks of X
every model of the pool needs, the pool fitted on the induction rows, one candidate rule per node."""

from __future__ import annotations

import inspect

from sklearn.utils import _safe_indexing

from .._validation import check_feature_names, check_X_values
from ._extract import extract_rules

__all__ = ["induce_rules"]


def _host_library(est):
    """"lightgbm", "xgboost", "catboost" or "other" (scikit-learn's trees...): what X must suit."""
    lib = getattr(est, "_native_library", "")  # this library's boosting estimators
    if lib:
        return lib
    top = type(est).__module__.split(".")[0]
    return top if top in ("lightgbm", "xgboost", "catboost") else "other"


def _check_pool_X(ests, X, names):
    """X as every model of the pool takes it, named here rather than by the model: column names lightgbm /
    xgboost refuse, an inf, and values beyond float32 for the models storing float32 (all but lightgbm)."""
    libs = {_host_library(e) for e in ests}
    for lib in sorted(libs & {"lightgbm", "xgboost"}):
        check_feature_names(names, lib)
    float32 = bool(libs - {"lightgbm"})
    who = " and ".join(sorted(lib for lib in libs - {"lightgbm"})).replace("other", "the tree model")
    check_X_values(X, names=names, float32=float32, allow_nan=True, who=who or "the estimator")


def _check_tree_categories(ests, X):
    """ValueError naming the pandas category columns when a scikit-learn tree would have to split on them."""
    import pandas as pd
    from sklearn.tree import BaseDecisionTree
    if not isinstance(X, pd.DataFrame) or not any(isinstance(e, BaseDecisionTree) for e in ests):
        return
    cat_cols = [c for c, dt in X.dtypes.items() if isinstance(dt, pd.CategoricalDtype)]
    if cat_cols:  # scikit-learn's tree would fail on converting the category values to float
        raise ValueError(f"X has pandas category columns {cat_cols[:5]}, which scikit-learn's "
                         f"DecisionTreeClassifier cannot split on; give an estimator that takes them, e.g. "
                         f"estimator=None (the default LightGBM + XGBoost pair), LGBMClassifier(), "
                         f"XGBClassifier(enable_categorical=True) or "
                         f"HistGradientBoostingClassifier(categorical_features='from_dtype')")


def induce_rules(ests, X, y, w, costs, rows, names, *, nodes="leaves"):
    """RIFF's induction, for :class:`RIFFClassifier` and :func:`optimize_rule_book`: X checked as every model of
    the pool ``ests`` takes it (named here, not by the model), each model fitted on the rows ``rows`` (positions;
    with the rows' ``sample_weight`` / ``cost_matrix`` when its ``fit`` takes them) and one candidate rule per
    node (``nodes``) extracted. ``y``: 0/1 labels of all rows; ``w`` / ``costs``: arrays of all rows or None;
    ``names``: X's column names (None for an array). Returns the fitted models and the candidate rules."""
    _check_pool_X(ests, X, names)
    _check_tree_categories(ests, X)
    X_ind = _safe_indexing(X, rows)
    fitted = []
    for est in ests:
        fit_kw = {}
        params = inspect.signature(est.fit).parameters
        if w is not None and "sample_weight" in params:
            fit_kw["sample_weight"] = w[rows]
        if costs is not None and "cost_matrix" in params:
            fit_kw["cost_matrix"] = costs[rows]
        fitted.append(est.fit(X_ind, y[rows], **fit_kw))
    # X_ind names CatBoost's hashed categories
    candidates = extract_rules(fitted if len(fitted) > 1 else fitted[0], feature_names=names, nodes=nodes, X=X_ind)
    return fitted, candidates
