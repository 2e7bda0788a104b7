"""Rules from CatBoost models, read from the JSON model (``save_model(format="json")``).

A symmetric (oblivious) tree of depth d applies one split per level to every row; split l
sets bit l of the leaf index (``calc_leaf_indexes``), so the tree unfolds into a binary tree
whose level l tests split l (left: bit 0, right: bit 1) and whose 2**d leaves keep CatBoost's
leaf index as their node id (internal nodes get ids from 2**d on). A non-symmetric tree
(``grow_policy`` Depthwise / Lossguide) is read as the JSON nests it (``left``: condition false),
its leaves numbered as CatBoost's own evaluation arrays number them (not left to right).

Numerical split (``FloatFeature``): ``float32(x) > border`` sets the bit (right); a missing
value goes right iff the feature's ``nan_value_treatment`` is ``AsTrue`` (``nan_mode='Max'`` with
NaN in the training column), else left (``AsFalse``: ``'Min'``; ``AsIs``: ``'Forbidden'`` or no NaN
in training, where NaN compares false). One-hot split
(``OneHotFeature``): the bit is set iff the category's hash equals the split's ``value``; any
other, unseen or missing category goes left. CatBoost keeps only the hashes, so naming the
categories needs the rows they came from (``X`` of :func:`extract_rules`), hashed by CatBoost
itself. CTR splits (``OnlineCtr``: a target statistic of a category or a combination of
categories) and text / embedding features are no condition on a raw column: ValueError.

Leaf values: ``scale * leaf_value`` (``scale_and_bias``), so bias + the values of the rules
covering a row = the raw margin (``prediction_type="RawFormulaVal"``); a multi-class leaf holds
one value per class (``leaf_values[leaf * k + j]``), see ``output``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile

import numpy as np

from ._conditions import TreeConditions, check_output
from ._rule import CategorySet, Interval, exact_decimal, float32_le_bound

__all__ = ["catboost_trees"]


def _model_json(model, pool=None) -> dict:
    """The model as CatBoost's JSON (with ``pool``: plus ``cat_features_hash``, hash -> text)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.json")
        model.save_model(path, format="json", pool=pool)
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)


def _ctr_features(info: dict, split: dict, names) -> list:
    """Names of the categorical features a CTR split reads (its ``split_index`` counts the float borders,
    then the one-hot values, then each CTR's borders, in the order the JSON lists them)."""
    k = int(split.get("split_index", -1))
    k -= sum(len(f.get("borders") or []) for f in info.get("float_features", []))
    k -= sum(len(f.get("values") or []) for f in info.get("categorical_features", []))
    flat = {int(f["feature_index"]): int(f["flat_feature_index"]) for f in info.get("categorical_features", [])}
    every = []
    for ctr in info.get("ctrs", []):
        cols = [names[flat[int(e["cat_feature_index"])]] for e in ctr.get("elements", [])
                if "cat_feature_index" in e and int(e["cat_feature_index"]) in flat]
        every += [c for c in cols if c not in every]
        n = len(ctr.get("borders") or [])
        if 0 <= k < n:
            return cols
        k -= n
    return every


def _split_error(split: dict, info: dict, names, tree_index: int) -> ValueError:
    """Why a split is no condition on a raw column, naming the split type and the features."""
    kind = split.get("split_type")
    if kind == "OnlineCtr":
        cols = _ctr_features(info, split, names)
        return ValueError(
            f"extract_rules cannot read CatBoost's CTR split on feature(s) {cols} (tree {tree_index}): it compares "
            "a target statistic of the category (or of a combination of categories), computed from the training "
            "labels, not the raw column. Train with one_hot_max_size >= the number of categories of those "
            "features (and max_ctr_complexity=1) so that CatBoost splits them one-hot")
    return ValueError(f"extract_rules cannot read CatBoost's {kind!r} split (tree {tree_index}): only FloatFeature "
                      "and OneHotFeature splits are conditions on raw columns")


def _all_splits(dump: dict):
    """(tree index, split) of every split of every tree, symmetric or not."""
    for ti, t in enumerate(dump.get("oblivious_trees", [])):
        for split in t.get("splits") or []:
            yield ti, split
    for ti, t in enumerate(dump.get("trees", [])):
        stack = [t]
        while stack:
            node = stack.pop()
            if "split" in node:
                yield ti, node["split"]
                stack += [node["left"], node["right"]]


def _float_conditions(split: dict, info: dict) -> tuple:
    """(bit 0, bit 1) conditions of a ``FloatFeature`` split: ``float32(x) > border`` sets the bit."""
    feat = info["float_features"][int(split["float_feature_index"])]
    f, border = int(feat["flat_feature_index"]), float(split["border"])
    nan_right = feat.get("nan_value_treatment") == "AsTrue"
    b, closed = float32_le_bound(border)  # {float32(x) <= border} == {x <= b} or {x < b}
    s = exact_decimal(border, point=False)
    left = Interval(f, upper=b, upper_closed=closed, missing=not nan_right, upper_text=f"<= {s}")
    right = Interval(f, lower=b, lower_closed=not closed, missing=nan_right, lower_text=f"> {s}")
    return left, right


def _onehot_conditions(split: dict, info: dict, levels: dict, names) -> tuple:
    """(bit 0, bit 1) conditions of a ``OneHotFeature`` split: category == the split's value sets the bit."""
    feat = info["categorical_features"][int(split["cat_feature_index"])]
    f = int(feat["flat_feature_index"])
    h = int(split["value"]) % 2 ** 32  # the JSON writes the uint32 hash as int32
    if f not in levels:
        raise ValueError(
            f"CatBoost splits feature {names[f]!r} one-hot but stores only the hashes of its categories; pass the "
            "rows it was trained on (or any rows holding the split categories) as extract_rules(model, X=...) to "
            "name them")
    hashes = levels[f][1]
    codes = tuple(k for k, v in enumerate(hashes) if v == h)
    if not codes:
        raise ValueError(f"no value of feature {names[f]!r} in X has CatBoost hash {h}, the category of a one-hot "
                         "split: pass the training rows as X")
    return CategorySet(f, codes=codes, negate=True, missing=True), CategorySet(f, codes=codes)


def _conditions(split: dict, info: dict, levels: dict, names, tree_index: int) -> tuple:
    kind = split.get("split_type")
    if kind == "FloatFeature":
        return _float_conditions(split, info)
    if kind == "OneHotFeature":
        return _onehot_conditions(split, info, levels, names)
    raise _split_error(split, info, names, tree_index)


def _leaf_value(values, leaf: int, dim: int, output, scale: float) -> float:
    return float(values[leaf * dim + (output or 0)]) * scale


def _oblivious(tree: dict, conds: list, dim: int, output, scale: float) -> TreeConditions:
    """Unfold a symmetric tree: level l tests split l, the leaf index is sum(bit_l << l)."""
    depth, n_leaves = len(conds), 2 ** len(conds)
    left, right, cl, cr, node_id, value = [], [], [], [], [], []
    inner = iter(range(n_leaves, 2 * n_leaves))

    def add(level, leaf):
        i = len(left)
        left.append(-1), right.append(-1), cl.append(None), cr.append(None)
        if level == depth:
            node_id.append(leaf)
            value.append(_leaf_value(tree["leaf_values"], leaf, dim, output, scale))
            return i
        node_id.append(next(inner))
        value.append(math.nan)
        cl[i], cr[i] = conds[level]
        left[i] = add(level + 1, leaf)
        right[i] = add(level + 1, leaf | (1 << level))
        return i

    add(0, 0)
    return TreeConditions(left, right, cl, cr, node_id, value)


def _nonsymmetric(tree: dict, steps, node_leaf, ctx: tuple, ti: int) -> TreeConditions:
    """A Depthwise / Lossguide tree: the JSON's nested ``split`` / ``left`` (bit 0) / ``right`` nodes walked
    beside CatBoost's own evaluation arrays (``_get_tree_step_nodes``: from node p a row moves to p + step,
    a step of 0 stops at p; ``_get_tree_node_to_leaf``: the leaf index where it stops), which number the leaves."""
    info, levels, names, dim, output, scale = ctx
    left, right, cl, cr, node_id, value = [], [], [], [], [], []
    inner = []

    def add(node, p):
        i = len(left)
        left.append(-1), right.append(-1), cl.append(None), cr.append(None), node_id.append(None)
        if "split" not in node:
            node_id[i] = int(node_leaf[p])
            v = node["value"]
            value.append(float(v[output or 0] if isinstance(v, list) else v) * scale)
            return i
        value.append(math.nan)
        inner.append(i)
        cl[i], cr[i] = _conditions(node["split"], info, levels, names, ti)
        for side, child, step in (("left", left, steps[p][0]), ("right", right, steps[p][1])):
            sub = node[side]
            stops = step == 0 or steps[p + step] == (0, 0)
            if stops != ("split" not in sub):
                raise ValueError(f"CatBoost tree {ti}: its JSON and its evaluation arrays disagree at node {p}")
            child[i] = add(sub, p + step)
        return i

    add(tree, 0)
    n_leaves = len(left) - len(inner)
    for k, i in enumerate(inner):  # internal ids after the leaves, as for symmetric trees
        node_id[i] = n_leaves + k
    return TreeConditions(left, right, cl, cr, node_id, value)


def _category_text(v, name):
    """CatBoost's text of a category value (it hashes text; integers as their decimal digits)."""
    if isinstance(v, str):
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return str(int(v))
    raise ValueError(f"value {v!r} of the categorical feature {name!r} in X is neither text nor an integer, "
                     "the category types CatBoost takes")


def _candidates(X, names, cat_flat: list) -> dict:
    """{flat feature index: candidate category values}: a pandas category column's categories, else the
    column's distinct non-missing values."""
    import pandas as pd
    if not isinstance(X, pd.DataFrame):
        X = pd.DataFrame(np.asarray(X, dtype=object))
        if X.ndim != 2 or X.shape[1] != len(names):
            raise ValueError(f"X must have the model's {len(names)} columns, got shape {X.shape}")
        X.columns = list(names)
    out = {}
    for f in cat_flat:
        if names[f] not in X.columns:
            raise ValueError(f"X lacks the categorical feature {names[f]!r} of the CatBoost model")
        col = X[names[f]]
        if isinstance(col.dtype, pd.CategoricalDtype):
            out[f] = col.cat.categories.tolist()
        else:
            out[f] = pd.Index(pd.unique(col.dropna())).tolist()
    return out


def _category_levels(model, info: dict, X, names) -> dict:
    """{flat feature index: (values, CatBoost hashes)} of the one-hot features, hashed by CatBoost: a pool of
    the candidate values' texts saved with the model gives ``cat_features_hash`` (hash -> text)."""
    import catboost
    import pandas as pd
    onehot = sorted({int(f["flat_feature_index"]) for f in info.get("categorical_features", []) if f.get("values")})
    if X is None or not onehot:
        return {}
    values = _candidates(X, names, onehot)
    texts = {f: [_category_text(v, names[f]) for v in vs] for f, vs in values.items()}
    n = max([len(t) for t in texts.values() if t] or [0])
    if n == 0:
        return {}
    cat_flat = sorted(int(f["flat_feature_index"]) for f in info.get("categorical_features", []))
    frame = {}
    for f, name in enumerate(names):
        if f in cat_flat:
            t = texts.get(f) or ["0"]
            frame[name] = (t * (n // len(t) + 1))[:n]
        else:
            frame[name] = np.zeros(n)
    pool = catboost.Pool(pd.DataFrame(frame, columns=list(names)), cat_features=cat_flat)
    hashed = _model_json(model, pool)["features_info"].get("cat_features_hash", [])
    by_text = {}
    for e in hashed:
        by_text.setdefault(str(e["value"]), int(e["hash"]) % 2 ** 32)
    return {f: (values[f], [by_text.get(t, -1) for t in texts[f]]) for f in onehot}


def catboost_trees(model, output=None, X=None):
    """(list of TreeConditions, feature names) of a fitted CatBoost model (``X``: rows naming its categories)."""
    import catboost
    if not isinstance(model, catboost.CatBoost):
        raise TypeError(f"expected a CatBoost model, got {type(model).__name__}")
    if not model.is_fitted():
        raise ValueError(f"This {type(model).__name__} instance is not fitted yet; fit it before extract_rules")
    dump = _model_json(model)
    info = dump.get("features_info", {})
    names = [str(c) for c in (model.feature_names_ or [])]
    scale, bias = dump.get("scale_and_bias", [1.0, [0.0]])
    dim = max(len(bias) if isinstance(bias, list) else 1, 1)
    output = check_output(output, dim, "CatBoost model")
    if dim > 1 and output is None:
        raise ValueError(f"this CatBoost model has {dim} outputs (one value per class in every leaf), so a rule has "
                         f"no single value; pass output=<0..{dim - 1}> to extract_rules")
    for key in ("text_features", "embedding_features"):
        if info.get(key):
            raise ValueError(f"extract_rules cannot read CatBoost models with {key.replace('_', ' ')}: their splits "
                             "are on features CatBoost computes, not on raw columns")
    for ti, split in _all_splits(dump):  # refuse CTR splits before asking for X
        if split.get("split_type") not in ("FloatFeature", "OneHotFeature"):
            raise _split_error(split, info, names, ti)
    levels = _category_levels(model, info, X, names)
    trees = []
    if "oblivious_trees" in dump:
        for ti, t in enumerate(dump["oblivious_trees"]):
            conds = [_conditions(s, info, levels, names, ti) for s in t.get("splits") or []]
            trees.append(_oblivious(t, conds, dim, output, float(scale)))
    else:
        ctx = (info, levels, names, dim, output, float(scale))
        for ti, t in enumerate(dump.get("trees", [])):
            steps = [tuple(int(v) for v in st) for st in model._get_tree_step_nodes(ti)]
            trees.append(_nonsymmetric(t, steps, model._get_tree_node_to_leaf(ti), ctx, ti))
    cats = {f: list(v) for f, (v, _) in levels.items()}
    for t in trees:
        t.categories = cats
    generated = names == [str(j) for j in range(len(names))]  # CatBoost's names for unnamed (numpy) columns
    return trees, None if generated else names or None
