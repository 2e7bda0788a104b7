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


def _category_codes(info) -> list:
    """The category codes lightgbm lists for a categorical feature's ``feature_infos`` entry; [] if numeric."""
    if isinstance(info, dict):  # dump_model(): {"min_value", "max_value", "values"}
        return [int(v) for v in info.get("values") or []]
    text = str(info)  # model-string format: "[min:max]" numeric, "none" unused, "c1:c2:..." categorical
    return [] if text.startswith("[") or text == "none" else [int(v) for v in text.split(":")]


def _code_range(info, n_levels) -> bool:
    """True for a numeric feature whose values are all codes 0 .. n_levels - 1 (a category column read as numbers)."""
    if isinstance(info, dict):
        lo, hi = info.get("min_value"), info.get("max_value")
    else:
        text = str(info)
        if not text.startswith("["):
            return False
        lo, hi = (float(v) for v in text.strip("[]").split(":"))
    return lo is not None and hi is not None and 0 <= lo and hi <= n_levels - 1


def _unmatched(pc, names, infos, cat_idx, codes) -> str:
    """Why lightgbm's categorical features and its ``pandas_categorical`` do not pair up, naming the columns."""
    cats = [names[j] for j in cat_idx]
    levels = "; ".join(str(list(v)[:4])[:-1] + (", ...]" if len(v) > 4 else "]") for v in pc[:5])
    held = f"the model holds the categories of {len(pc)} pandas category column(s) ({levels})"
    split = f"lightgbm split {len(cat_idx)} feature(s) as categories ({cats[:10]})"
    if len(cat_idx) < len(pc):
        as_codes = [names[j] for j, info in enumerate(infos)
                    if j not in cat_idx and any(_code_range(info, len(v)) for v in pc)]
        why = (f"{held} but {split}: lightgbm treated at least {len(pc) - len(cat_idx)} pandas category column(s) "
               "as numeric and split them on their integer codes (an ordered pandas category, which "
               "categorical_feature='auto' leaves numeric, or a categorical_feature= list that omits the column)"
               + (f"; numeric feature(s) whose values are all such codes: {as_codes[:10]}" if as_codes else ""))
    elif len(cat_idx) > len(pc):
        why = (f"{split} but {held}: categorical_feature= named at least {len(cat_idx) - len(pc)} column(s) that "
               "were not pandas category columns (integer data lightgbm read as category codes)")
    else:
        j, v = next((j, v) for j, v in zip(cat_idx, pc) if max(codes[j]) >= len(v))
        why = (f"{split}, and its feature {names[j]!r} has category code {max(codes[j])} while the pandas category "
               f"column paired with it by position has only {len(v)} categories: lightgbm's categorical features are "
               "not the DataFrame's category columns (categorical_feature= named a column that was not a pandas "
               "category and omitted one that was)")
    return (f"extract_rules: {why}. Which categories belong to which feature cannot be told, so every categorical "
            "rule of this model uses codes; for rules on category values, train with categorical_feature= listing "
            "exactly the pandas category columns (unordered ones, or named explicitly)")


def _levels(dump: dict) -> dict:
    """{feature index: pandas training categories}: the j-th categorical feature gets pandas_categorical[j]
    when lightgbm split exactly the DataFrame's category columns as categories; else {} and a warning."""
    pc = dump.get("pandas_categorical") or []
    if not pc:
        return {}
    names = dump.get("feature_names", [])
    infos = [dump.get("feature_infos", {}).get(nm, "none") for nm in names]
    codes = [_category_codes(info) for info in infos]
    cat_idx = [j for j, c in enumerate(codes) if c]
    if len(cat_idx) == len(pc) and all(max(codes[j]) < len(v) for j, v in zip(cat_idx, pc)):
        return {j: list(v) for j, v in zip(cat_idx, pc)}
    warnings.warn(_unmatched(pc, names, infos, cat_idx, codes), stacklevel=4)
    return {}


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
