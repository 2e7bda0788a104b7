"""Rules from lightgbm boosters, read from ``dump_model()`` (mirrors ``Tree::NumericalDecision``
and ``Tree::CategoricalDecision``).

Numerical split (``'<='``, compared in float64): missing_type 'NaN' sends NaN to
``default_left``; 'Zero' sends NaN and ``|x| <= 1e-35`` to the default side;
'None' replaces NaN by 0.0 and compares it. Categorical split (``'=='``): a code
(``int(x)``, truncated) in the set goes LEFT; NaN, negative codes and codes not
in the set go right. Codes index ``pandas_categorical`` for pandas input.
"""

from __future__ import annotations

import math
import warnings

from ._conditions import TreeConditions, check_output
from ._rule import CategorySet, Interval, exact_decimal

__all__ = ["lightgbm_trees"]


def _tree(struct: dict, levels: dict) -> TreeConditions:
    left, right, cl, cr, node_id, value = [], [], [], [], [], []
    tree_cats = {}

    def add(node):
        i = len(left)
        left.append(-1)
        right.append(-1)
        cl.append(None)
        cr.append(None)
        if "leaf_index" in node or "split_index" not in node:
            if node.get("leaf_coeff"):
                raise ValueError("extract_rules does not support linear_tree=True: its leaves are not constant")
            node_id.append(int(node.get("leaf_index", 0)))
            value.append(float(node.get("leaf_value", math.nan)))
            return i
        node_id.append(int(node["split_index"]))
        value.append(float(node.get("internal_value", math.nan)))
        f = int(node["split_feature"])
        dl = bool(node["default_left"])
        if node["decision_type"] == "==":
            codes = tuple(sorted(int(c) for c in str(node["threshold"]).split("||")))
            cl[i] = CategorySet(f, codes=codes, negate=False, missing=False)
            cr[i] = CategorySet(f, codes=codes, negate=True, missing=True)
            if f in levels:
                tree_cats[f] = levels[f]
        elif node["decision_type"] == "<=":
            thr = float(node["threshold"])
            mt = node.get("missing_type", "None")
            s = exact_decimal(thr, point=False)  # lightgbm's own cut, all its digits (6 significant ones misrouted rows)
            if mt == "NaN":
                ml, zm = dl, False
            elif mt == "Zero":
                ml, zm = dl, True
            else:  # 'None': NaN is replaced by 0.0 and compared
                ml, zm = 0.0 <= thr, False
            cl[i] = Interval(f, upper=thr, upper_closed=True, missing=ml, zero_missing=zm, upper_text=f"<= {s}")
            cr[i] = Interval(f, lower=thr, lower_closed=False, missing=not ml, zero_missing=zm,
                             lower_text=f"> {s}")
        else:
            raise ValueError(f"unknown lightgbm decision_type {node['decision_type']!r}")
        left[i] = add(node["left_child"])
        right[i] = add(node["right_child"])
        return i

    add(struct)
    return TreeConditions(left, right, cl, cr, node_id, value, categories=tree_cats)


def _levels(dump: dict) -> dict:
    """{feature index: pandas training categories}; the j-th categorical feature gets pandas_categorical[j]."""
    pc = dump.get("pandas_categorical") or []
    if not pc:
        return {}
    infos = dump.get("feature_infos", {})
    names = dump.get("feature_names", [])
    def is_cat(info):
        if isinstance(info, dict):  # dump_model(): categorical features list their category codes
            return bool(info.get("values"))
        return not str(info).startswith("[") and str(info) != "none"  # model-string format
    cat_idx = [j for j, nm in enumerate(names) if is_cat(infos.get(nm, "none"))]
    if len(cat_idx) != len(pc):
        warnings.warn("could not match lightgbm pandas_categorical to features; categorical rules use codes",
                      stacklevel=3)
        return {}
    return {j: list(v) for j, v in zip(cat_idx, pc)}


def lightgbm_trees(model, output=None):
    import lightgbm as lgb
    booster, num_iteration = model, None
    if isinstance(model, lgb.LGBMModel):
        booster = model.booster_
        best = getattr(model, "best_iteration_", None)
        num_iteration = best if best else None
    if not isinstance(booster, lgb.Booster):
        raise TypeError(f"expected a lightgbm Booster or LGBMModel, got {type(model).__name__}")
    dump = booster.dump_model(num_iteration=num_iteration)
    levels = _levels(dump)
    trees = [_tree(t["tree_structure"], levels) for t in dump["tree_info"]]
    k = int(dump.get("num_tree_per_iteration", 1) or 1)
    output = check_output(output, k, "lightgbm model")
    if output is not None:  # tree t adds to output t % k only
        for ti, tc in enumerate(trees):
            if ti % k != output:
                tc.value = [0.0 if tc.left[i] == -1 else math.nan for i in range(len(tc.value))]
    return trees, list(dump.get("feature_names", [])) or None
