"""RIFF's induction, written once for :class:`RIFFClassifier` and :func:`optimize_rule_book`: the checks of X
every model of the pool needs, the pool fitted on the induction rows, one candidate rule per node."""

from __future__ import annotations

import inspect
import sys
import threading
import time
from collections import deque
from contextlib import ExitStack

from sklearn.utils import _safe_indexing

from .._validation import check_feature_names, check_X_values
from ._evaluate import thread_cap, threads_at_most, threads_under
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
    fit_kws = []
    for est in ests:
        fit_kw = {}
        params = inspect.signature(est.fit).parameters
        if w is not None and "sample_weight" in params:
            fit_kw["sample_weight"] = w[rows]
        if costs is not None and "cost_matrix" in params:
            fit_kw["cost_matrix"] = costs[rows]
        fit_kws.append(fit_kw)
    fitted = fit_pool(ests, X_ind, y[rows], fit_kws)
    # X_ind names CatBoost's hashed categories
    candidates = extract_rules(fitted if len(fitted) > 1 else fitted[0], feature_names=names, nodes=nodes, X=X_ind)
    return fitted, candidates


#: the keywords by which the pool's libraries set a model's threads (scikit-learn and its wrappers, XGBoost's native
#: name, CatBoost)
_THREAD_KEYWORDS = ("n_jobs", "nthread", "thread_count")
#: seconds between two looks at whether a second core is free for the next model of the pool
_WAIT = 0.05


def _one_thread(est) -> bool:
    """True when ``est`` is set to train on one thread: it names its threads and every such keyword is 1."""
    get = getattr(est, "get_params", None)
    if get is None:
        return False
    try:
        params = get(deep=False)
    except Exception:  # noqa: BLE001 - a model whose parameters cannot be read is fitted in turn
        return False
    given = [params[k] for k in _THREAD_KEYWORDS if k in params]
    return bool(given) and all(v == 1 for v in given)


def fit_pool(ests, X, y, fit_kws):
    """Each model of the pool fitted on (X, y) with its keywords, in the pool's order. When every model trains
    on one thread and is a distinct object, the models train side by side, one thread each, while this thread may
    use more than one core (:func:`._evaluate._n_threads`): a second thread takes the next model whenever this
    thread's cap allows two (a task's share of a pool's cores grows as the pool's other tasks end), this thread
    the models it does not take. Each model is the same as when fitted alone (it reads only its own seed and rows).
    Each training thread takes the caller's XGBoost settings (``xgboost.config_context``: XGBoost keeps them per
    thread) and gives its own kernels one thread. The first model's error, in the pool's order, is raised."""
    cap = thread_cap()
    most = threads_under(None if callable(cap) else cap)  # a share may grow: the cores; else the cap now
    if most < 2 or len(ests) < 2 or len({id(e) for e in ests}) < len(ests) or not all(_one_thread(e) for e in ests):
        return [est.fit(X, y, **kw) for est, kw in zip(ests, fit_kws)]
    xgb = sys.modules.get("xgboost")
    config = xgb.get_config() if xgb is not None else None
    todo, lock = deque(range(len(ests))), threading.Lock()
    fitted, errors, done = [None] * len(ests), {}, set()

    def take():
        with lock:
            return todo.popleft() if todo else None

    def fit_one(i):
        try:
            with ExitStack() as stack:
                stack.enter_context(threads_at_most(1))
                if config is not None:
                    stack.enter_context(xgb.config_context(**config))
                fitted[i] = ests[i].fit(X, y, **fit_kws[i])
                done.add(i)
        except Exception as exc:  # noqa: BLE001 - raised below, in the pool's order (an interrupt leaves now)
            errors[i] = exc

    def second():  # takes a model whenever the caller's cap allows two threads, until none is left
        while todo:
            if threads_under(cap) < 2:
                time.sleep(_WAIT)
                continue
            i = take()
            if i is None:
                return
            fit_one(i)

    helper = threading.Thread(target=second, daemon=True)
    helper.start()
    while (i := take()) is not None:
        fit_one(i)
    helper.join()
    for i in range(len(ests)):
        if i in errors:
            raise errors[i]
        if i not in done:  # its thread ended without a model or an error
            raise RuntimeError(f"model {i} of the pool ({type(ests[i]).__name__}) was not fitted")
    return fitted
