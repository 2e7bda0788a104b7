"""Rules from xgboost boosters, read from the native JSON model (``save_raw('json')``).

Numerical split: ``float32(x) < split_condition`` goes left (the threshold is a
float32); missing goes to ``default_left``. The condition's ``upper_text`` / ``lower_text`` keep
xgboost's own cut as the shortest decimal that splits float32 data as the cut does (ties at the
cut included); the printed rule shows the exact float64 bound (see ``_rule``). Categorical split
(``split_type`` 1): a code in the node's set goes RIGHT, any other valid code and any x < 0 (also
-1 < x < 0, unlike lightgbm's truncation) go left, missing goes to the default child. Codes index the training categories stored in
the model (``cats``), which xgboost uses to re-code pandas input by value.

Leaf values: a scalar tree's leaf value is its ``split_conditions`` entry. A
``multi_strategy="multi_output_tree"`` tree (``tree_param.size_leaf_vector`` k > 1)
has vector leaves: a leaf's ``right_children`` entry is its slot s and its
value for output j is ``leaf_weights[s * k + j]`` (xgboost >= 3.2; before, the
leaf's node id i is the row: ``base_weights[i * k + j]``). Its paths are ordinary rules;
only the value needs an output (``extract_rules(..., output=j)``). With
one-output-per-tree multi-class models (the default) tree t adds to output
``tree_info[t]`` only. Raw margin of output j = base_score[j] (margin space) +
sum over trees of the rule values for ``output=j``; DART trees are scaled by
their ``weight_drop``.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ._conditions import TreeConditions, check_output
from ._rule import CategorySet, Interval, float32_lt_bound, float32_lt_text

__all__ = ["xgboost_trees"]


def _levels(cats: dict | None, names=None) -> dict:
    """{feature: training category values} from the model's ``cats`` encoder.

    String categories are stored as one byte stream cut by ``offsets``. With a non-ASCII
    name xgboost 3.2 writes negative (signed) bytes and offsets counted in characters, not
    bytes, so the stream is cut short and the names cannot be recovered: ValueError naming
    the feature.
    """
    out = {}
    if not cats:
        return out
    for j, enc in enumerate(cats.get("enc", [])):
        values, offsets = enc.get("values", []), enc.get("offsets", [])
        if offsets:
            if any(not 0 <= v < 128 for v in values):
                feature = names[j] if names is not None and j < len(names) else f"f{j}"
                raise ValueError(
                    f"xgboost stored the category names of feature {feature!r} garbled: they are not ASCII, and "
                    "xgboost saves such names with offsets in characters but bytes in UTF-8 (the names are lost "
                    "in the model). Rename the categories to ASCII (e.g. X[col].cat.rename_categories(...)) and "
                    "train again to extract rules")
            raw = bytes(values)
            out[j] = [raw[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1)]
        elif values:
            out[j] = list(values)
    return out


def _leaf_values(t: dict, output, group: int, scale: float, tree_index: int) -> list:
    """Value of every node for ``output`` (NaN at internal nodes): see the module docstring."""
    left, n = t["left_children"], len(t["left_children"])
    k = int(t.get("tree_param", {}).get("size_leaf_vector", "1") or 1)
    if k > 1:
        if output is None:
            raise ValueError(
                f"xgboost tree {tree_index} was grown with multi_strategy='multi_output_tree': its leaves hold "
                f"{k} values (one per class or target), so a rule has no single value; pass output=<0..{k - 1}> "
                "to extract_rules to value the rules by that output's leaf component")
        if "leaf_weights" in t:  # xgboost >= 3.2: leaf vectors apart, a leaf's right child is its slot
            weights = np.asarray(t["leaf_weights"], dtype=np.float32).reshape(-1, k)[:, output]
            slot = t["right_children"]
        else:  # xgboost < 3.2: every node's vector in base_weights, row = node
            weights = np.asarray(t["base_weights"], dtype=np.float32).reshape(-1, k)[:, output]
            slot = range(n)
        return [float(weights[slot[i]]) * scale if left[i] == -1 else math.nan for i in range(n)]
    cond = t["split_conditions"]
    if output is not None and group != output:
        return [0.0 if left[i] == -1 else math.nan for i in range(n)]  # this tree adds to another output
    return [float(cond[i]) * scale if left[i] == -1 else math.nan for i in range(n)]


def _tree(t: dict, levels: dict, value: list) -> TreeConditions:
    left, right = t["left_children"], t["right_children"]
    n = len(left)
    feat, cond = t["split_indices"], t["split_conditions"]
    dl, stype = t["default_left"], t.get("split_type", [0] * n)
    catsets = {}
    for node, seg, size in zip(t.get("categories_nodes", []), t.get("categories_segments", []),
                               t.get("categories_sizes", [])):
        catsets[node] = tuple(sorted(int(c) for c in t["categories"][seg:seg + size]))
    cl, cr = [None] * n, [None] * n
    tree_cats = {}
    for i in range(n):
        if left[i] == -1:
            continue
        f, miss_left = int(feat[i]), bool(dl[i])
        if stype[i] == 1:
            codes = catsets[i]
            # any x < 0 is an invalid category: not in the set (left), not the missing (default) side
            cr[i] = CategorySet(f, codes=codes, negate=False, missing=not miss_left, strict_negative=True)
            cl[i] = CategorySet(f, codes=codes, negate=True, missing=miss_left, strict_negative=True)
            if f in levels:
                tree_cats[f] = levels[f]
        else:
            t32 = np.float32(cond[i])
            b, closed = float32_lt_bound(float(t32))
            s = float32_lt_text(t32)  # not str(t32): that may read above the cut, a float32 at the cut left
            cl[i] = Interval(f, upper=b, upper_closed=closed, missing=miss_left, upper_text=f"< {s}")
            cr[i] = Interval(f, lower=b, lower_closed=not closed, missing=not miss_left, lower_text=f">= {s}")
    return TreeConditions(left, right, cl, cr, list(range(n)), value, categories=tree_cats)


def xgboost_trees(model, output=None):
    import xgboost as xgb
    booster = model
    if isinstance(model, xgb.XGBModel):
        miss = model.get_params().get("missing", np.nan)
        if miss is not None and not (isinstance(miss, float) and math.isnan(miss)):
            raise ValueError(f"extract_rules supports xgboost models with missing=np.nan only, got missing={miss!r}")
        booster = model.get_booster()
        try:
            best = model.best_iteration  # set only after early stopping
        except AttributeError:
            best = None
        if best is not None:
            from ..boosting._xgb_native import first_rounds

            booster = first_rounds(booster, best + 1)  # the sklearn wrapper predicts with the best iteration only
    if not isinstance(booster, xgb.Booster):
        raise TypeError(f"expected an xgboost Booster or XGBModel, got {type(model).__name__}")
    raw = json.loads(booster.save_raw("json"))
    gb = raw["learner"]["gradient_booster"]
    if gb.get("name") == "gblinear":
        raise TypeError("extract_rules needs a tree booster, got booster='gblinear'")
    mdl = gb["gbtree"]["model"] if gb.get("name") == "dart" else gb["model"]
    lmp = raw["learner"]["learner_model_param"]
    n_outputs = max(int(lmp.get("num_class", 0) or 0), int(lmp.get("num_target", 1) or 1), 1)
    output = check_output(output, n_outputs, "xgboost model")
    trees = mdl["trees"]
    groups = mdl.get("tree_info") or [0] * len(trees)
    scale = gb.get("weight_drop") or [1.0] * len(trees)  # DART: tree t's output is scaled by weight_drop[t]
    names = booster.feature_names
    levels = _levels(mdl.get("cats"), names)
    out = [_tree(t, levels, _leaf_values(t, output, int(groups[i]), float(scale[i]), i)) for i, t in enumerate(trees)]
    return out, (list(names) if names is not None else None)
