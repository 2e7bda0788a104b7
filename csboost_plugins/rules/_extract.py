"""extract_rules: one candidate rule per leaf (or per node) of any supported tree model."""

from __future__ import annotations

from ._conditions import TreeConditions, check_output
from ._rule import Rule

__all__ = ["TreeConditions", "check_output", "extract_rules", "rules_from_tree"]


def rules_from_tree(tree: TreeConditions, *, nodes="leaves", feature_names=None, model_index=0, tree_index=0):
    """One Rule per leaf (``nodes="leaves"``) or per non-root node (``nodes="all"``), root at position 0."""
    out = []
    stack = [(0, [])]
    while stack:
        i, path = stack.pop()
        leaf = tree.left[i] == -1
        if path and (leaf or nodes == "all"):
            out.append(Rule(path, feature_names=feature_names,
                            sources=[{"model": model_index, "tree": tree_index, "node": tree.node_id[i],
                                      "leaf": bool(leaf)}],
                            value=tree.value[i], categories=tree.categories, path=path))
        if not leaf:
            stack.append((tree.right[i], path + [tree.cond_right[i]]))
            stack.append((tree.left[i], path + [tree.cond_left[i]]))
    return out


def _single_model_trees(model, output=None, X=None):
    """(list of TreeConditions, feature_names) of one model, dispatched on its type (``X``: CatBoost only)."""
    if hasattr(model, "fit") and hasattr(model, "get_params"):  # an estimator: say "fit it", not "unsupported"
        from sklearn.utils.validation import check_is_fitted
        check_is_fitted(model, msg=f"This {type(model).__name__} instance is not fitted yet; fit it before "
                                   "extract_rules")
    mod = type(model).__module__
    booster = getattr(model, "booster_", None)
    hosts = ("xgboost", "lightgbm", "catboost")
    if booster is not None and not mod.startswith(hosts) and type(booster).__module__.startswith(hosts):
        # a wrapper holding a fitted booster, e.g. CSXGBClassifier / CSLGBMClassifier: the
        # trees are the booster's (their start margin is a constant, not a rule); the
        # wrapper saw the pandas column names, the booster only positions
        trees, names = _single_model_trees(booster, output, X)
        if hasattr(model, "feature_names_in_"):
            names = [str(c) for c in model.feature_names_in_]
        return trees, names
    if mod.startswith("xgboost"):
        from ._extract_xgb import xgboost_trees
        return xgboost_trees(model, output=output)
    if mod.startswith("lightgbm"):
        from ._extract_lgb import lightgbm_trees
        return lightgbm_trees(model, output=output)
    if mod.startswith("catboost"):
        from ._extract_catboost import catboost_trees
        return catboost_trees(model, output=output, X=X)
    if hasattr(model, "tree_arrays"):
        from ._extract_protocol import protocol_trees
        check_output(output, 1, type(model).__name__)
        return protocol_trees(model)
    if mod.startswith("sklearn"):
        from ._extract_sklearn import sklearn_trees
        return sklearn_trees(model, output=output)
    from ..tree_protocol import TreeArrays
    if isinstance(model, TreeArrays) or (isinstance(model, (list, tuple)) and model
                                          and all(isinstance(t, TreeArrays) for t in model)):
        from ._extract_protocol import protocol_trees
        check_output(output, 1, "TreeArrays")
        return protocol_trees(model)
    raise TypeError(
        f"extract_rules does not support {type(model).__name__}: give an xgboost Booster/XGBClassifier, a lightgbm "
        "Booster/LGBMClassifier, a CatBoost model, a scikit-learn DecisionTree/RandomForest/ExtraTrees/"
        "(Hist)GradientBoosting model, a model with tree_arrays(), TreeArrays, or a list of these")


def extract_rules(model, feature_names=None, nodes="leaves", *, deduplicate=True, output=None, X=None) -> list:
    """Candidate rules from the leaves (or all nodes) of tree models (RIFF section 3.1).

    Parameters
    ----------
    model : a fitted model or a list/tuple of models (one pooled candidate set,
        the RIFF paper's bagging extension). Supported: ``xgboost.Booster`` /
        ``XGBModel`` (numerical and categorical splits), ``lightgbm.Booster`` /
        ``LGBMModel`` (numerical, categorical, missing types NaN/Zero/None),
        ``catboost.CatBoost`` / ``CatBoostClassifier`` / ``CatBoostRegressor``
        (numerical splits with every ``nan_mode``, one-hot categorical splits; a CTR
        split, a target statistic of a category, is no condition on the raw column
        and raises ``ValueError``: train with ``one_hot_max_size`` >= the number of
        categories), this
        library's ``CSXGBClassifier`` / ``CSLGBMClassifier`` (their ``booster_``),
        xgboost ``multi_strategy="multi_output_tree"`` (vector leaves, see ``output``),
        scikit-learn ``HistGradientBoosting*`` (numerical and categorical splits),
        scikit-learn ``DecisionTree*``, ``ExtraTree*``, ``RandomForest*``,
        ``ExtraTrees*``, ``GradientBoosting*``, any model exposing
        ``tree_arrays()`` (this project's trees) and ``TreeArrays`` themselves.
    feature_names : list of str, one per column of the model's input, for display
        and pandas column matching; defaults to the model's own.
    nodes : ``"leaves"`` (one rule per leaf, the paper) or ``"all"`` (every node
        but the root: shorter rules, the paper's future work).
    deduplicate : merge identical rules (same rows on every input), keeping all
        their ``sources``, and drop rules no row can satisfy.
    output : None or int k, which output (class of a multi-class model, target
        of a multi-target one) ``rule.value`` refers to. With k, a leaf rule's
        value is the leaf's additive contribution to output k's raw margin
        (boosters: component k of a vector leaf; 0.0 for a leaf of a tree that
        belongs to another class), so base margin + the values of the rules
        covering a row = the model's raw margin of output k; for single trees and
        forests, the class-k probability (classifiers) or target k (regressors).
        None keeps each leaf's own scalar value; a model whose leaves are vectors
        (xgboost ``multi_output_tree`` with several outputs) then raises
        ``ValueError``. Rule conditions do not depend on ``output``.
    X : DataFrame or array-like, optional
        CatBoost models with one-hot categorical splits only: rows holding the
        split categories, e.g. the training data. CatBoost stores only a hash of
        each category, so the categories are named by hashing X's values with
        CatBoost; without X such a model raises ``ValueError``. Ignored for other
        models.

    Returns
    -------
    list of :class:`Rule`. Each rule selects exactly the rows the library routes
    to its node (float32 casts, ties at thresholds, missing values and lightgbm /
    xgboost / HistGradientBoosting categorical sets included); ``rule.sources`` gives model, tree and the
    library's node id. A category value unseen in training counts as missing, as in lightgbm and
    HistGradientBoosting (xgboost 3.2 instead raises for a value sorting after every training category and
    silently re-codes any other unseen value as the next training category in sorted order).
    """
    if nodes not in ("leaves", "all"):
        raise ValueError(f"nodes must be 'leaves' or 'all', got {nodes!r}")
    if isinstance(feature_names, (str, bytes)):
        raise TypeError(f"feature_names must be a list of column names, got the string {feature_names!r}")
    feature_names = None if feature_names is None else list(feature_names)
    from ..tree_protocol import TreeArrays
    if isinstance(model, (list, tuple)) and not (model and all(isinstance(t, TreeArrays) for t in model)):
        models = list(model)
        if not models:
            raise ValueError("model is an empty list")
    else:
        models = [model]
    rules, names = [], None
    for mi, m in enumerate(models):
        trees, fnames = _single_model_trees(m, output, X)
        n_model = len(fnames) if fnames is not None else getattr(m, "n_features_in_", None)
        if feature_names is not None and n_model is not None and len(feature_names) != n_model:
            raise ValueError(f"feature_names has {len(feature_names)} names but the model has {n_model} features")
        if feature_names is None and fnames is not None:
            if names is not None and list(names) != list(fnames):
                raise ValueError(f"models 0 and {mi} have different feature names; pass feature_names= explicitly "
                                 "if their columns are the same")
            names = list(fnames)
        for ti, t in enumerate(trees):
            rules.extend(rules_from_tree(t, nodes=nodes, model_index=mi, tree_index=ti))
    names = list(feature_names) if feature_names is not None else names
    need = max((c.feature for r in rules for c in r.conditions), default=-1)
    if feature_names is not None and len(names) <= need:
        raise ValueError(f"feature_names has {len(names)} names but the rules use column index {need}")
    for r in rules:
        r.feature_names = names
    if not deduplicate:
        return rules
    pool: dict = {}
    for r in rules:
        if r.is_empty():
            continue
        k = r.key
        if k in pool:
            pool[k].sources.extend(r.sources)
        else:
            pool[k] = r
    return list(pool.values())
