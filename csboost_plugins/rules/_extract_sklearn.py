"""Rules from scikit-learn trees.

Single trees and forests: ``float32(x) <= threshold`` goes left (X is cast to
float32 by ``apply``), NaN goes left iff ``missing_go_to_left``.

HistGradientBoosting (mirrors ``_predictor.pyx``, ``_predict_one_from_raw_data``):
numerical split ``x <= num_threshold`` in float64, NaN by ``missing_go_to_left``.
When the model has categorical features, X first goes through the model's
``ColumnTransformer``: an ``OrdinalEncoder`` turns each categorical column into
the index of its value among the training categories (``categories_``; unknown
values and missing become NaN) and the categorical columns are moved to the
front, so ``feature_idx`` counts in that order and is mapped back here.
Categorical split: a code in the node's left bitset (``raw_left_cat_bitsets``)
goes LEFT, a known code (``known_cat_bitsets``) not in it goes RIGHT, NaN (so
missing and unknown values) goes to the ``missing_go_to_left`` side. The rule
conditions are :class:`CategorySet` on those codes, with the training
categories attached (``Rule.categories``) so that rules re-code pandas and
numeric columns by value as the model does.

Leaf values: HistGradientBoosting leaves hold the raw-margin contribution
(learning rate included); GradientBoosting leaves are scaled by
``learning_rate`` here so that they are too (raw margin = the model's initial
raw prediction + the rule values). Multi-class boosters have one tree per class
and iteration; see ``output`` in :func:`extract_rules`.
"""

from __future__ import annotations

import numpy as np

from ._conditions import TreeConditions, check_output
from ._rule import CategorySet, Interval, exact_decimal, float32_le_bound

__all__ = ["sklearn_trees"]

_CODES = np.arange(256)  # HGB categories are at most max_bins <= 255 codes


def _short(t: float) -> str:
    """Shortest decimal with the same float32 routing as threshold t (display only)."""
    target = float32_le_bound(t)
    for p in range(1, 18):
        s = f"{t:.{p}g}"
        if float32_le_bound(float(s)) == target:
            return s
    return repr(t)


def _node_values(est, output, scale):
    """Per-node value: P(y=1) of a binary classifier, class ``output``'s probability, target
    ``output`` of a regressor, else the first column (times ``scale``)."""
    v = est.tree_.value
    n_classes = getattr(est, "n_classes_", None)
    classifier = n_classes is not None and np.ndim(n_classes) == 0 and v.shape[2] >= 2
    if classifier:
        p = v[:, 0, :] / np.maximum(v[:, 0, :].sum(axis=1, keepdims=True), 1e-300)
        return p[:, 1 if output is None else output]
    return v[:, 0 if output is None else output, 0] * scale


def _tree(est, output=None, scale=1.0, value=None) -> TreeConditions:
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
    if value is None:
        value = _node_values(est, output, scale)
    return TreeConditions(left, right, cl, cr, list(range(n)), np.asarray(value, dtype=np.float64).tolist())


def _bits(bitset) -> tuple:
    """Codes set in one row of a scikit-learn bitset (8 uint32 words, bit c of word c // 32)."""
    words = np.asarray(bitset, dtype=np.uint64)
    return tuple(int(c) for c in np.flatnonzero((words[_CODES // 32] >> (_CODES % 32).astype(np.uint64)) & 1))


def _hgb_layout(model):
    """(original column of each predictor feature index, {original column: training categories},
    {original column: known codes})."""
    pre = getattr(model, "_preprocessor", None)
    n = model.n_features_in_
    if pre is None:  # no categorical feature: columns are used as they are
        return np.arange(n), {}, {}
    order = np.empty(n, dtype=np.int64)
    for name, _, cols in pre.transformers_:
        sl = pre.output_indices_[name]
        idx = np.flatnonzero(cols) if np.asarray(cols).dtype == bool else np.asarray(cols, dtype=np.int64)
        order[sl] = idx  # output position -> original column
    enc = pre.named_transformers_["encoder"]
    enc_cols = order[pre.output_indices_["encoder"]]
    levels = {}
    for j, cats in zip(enc_cols, enc.categories_):
        cats = list(cats.tolist())
        if cats and isinstance(cats[-1], float) and cats[-1] != cats[-1]:
            cats = cats[:-1]  # the OrdinalEncoder lists NaN last; it is encoded as missing
        levels[int(j)] = cats
    known_bitsets, f_idx_map = model._bin_mapper.make_known_categories_bitsets()
    known = {int(order[f]): _bits(known_bitsets[f_idx_map[f]])
             for f in np.flatnonzero(model._bin_mapper.is_categorical_)}
    return order, levels, known


def _hist_tree(pred, order, levels, known, value) -> TreeConditions:
    nodes = pred.nodes
    n = len(nodes)
    leaf = nodes["is_leaf"].astype(bool)
    left = np.where(leaf, -1, nodes["left"].astype(np.int64))  # (uint32 field: cast before -1)
    right = np.where(leaf, -1, nodes["right"].astype(np.int64))
    cl, cr = [None] * n, [None] * n
    tree_cats = {}
    for i in np.flatnonzero(~leaf):
        f = int(order[nodes["feature_idx"][i]])
        ml = bool(nodes["missing_go_to_left"][i])
        if nodes["is_categorical"][i]:
            left_set = _bits(pred.raw_left_cat_bitsets[nodes["bitset_idx"][i]])
            if not ml:  # left: a code in the left set; right: any other known code, NaN, unknown
                cl[i] = CategorySet(f, codes=left_set, negate=False, missing=False)
                cr[i] = CategorySet(f, codes=left_set, negate=True, missing=True)
            else:  # right: a known code outside the left set; left: the rest, NaN and unknown included
                right_set = tuple(sorted(set(known[f]) - set(left_set)))
                cr[i] = CategorySet(f, codes=right_set, negate=False, missing=False)
                cl[i] = CategorySet(f, codes=right_set, negate=True, missing=True)
            tree_cats[f] = levels[f]
        else:
            thr = float(nodes["num_threshold"][i])
            s = exact_decimal(thr, point=False)
            cl[i] = Interval(f, upper=thr, upper_closed=True, missing=ml, upper_text=f"<= {s}")
            cr[i] = Interval(f, lower=thr, lower_closed=False, missing=not ml, lower_text=f"> {s}")
    return TreeConditions(left, right, cl, cr, list(range(n)), value, categories=tree_cats)


def _hgb_trees(model, output):
    k = len(model._predictors[0]) if model._predictors else 1
    output = check_output(output, k, type(model).__name__)
    order, levels, known = _hgb_layout(model)
    out = []
    for it in model._predictors:
        for c, p in enumerate(it):
            v = p.nodes["value"].astype(np.float64)
            if output is not None and c != output:
                v = np.where(p.nodes["is_leaf"].astype(bool), 0.0, np.nan)  # this tree adds to another class
            out.append(_hist_tree(p, order, levels, known, v.tolist()))
    return out


def sklearn_trees(model, output=None):
    from sklearn.utils.validation import check_is_fitted
    check_is_fitted(model)
    names = [str(c) for c in model.feature_names_in_] if hasattr(model, "feature_names_in_") else None
    if hasattr(model, "_predictors"):  # HistGradientBoosting*: one predictor per iteration and class
        return _hgb_trees(model, output), names
    if hasattr(model, "tree_"):
        return [_tree(model, _tree_output(model, output))], names
    if not hasattr(model, "estimators_"):
        raise TypeError(f"extract_rules does not support scikit-learn {type(model).__name__}")
    grid = np.asarray(model.estimators_, dtype=object)
    ests = list(grid.ravel())  # GradientBoosting: (n_stages, K), row-major: tree t is class t % K
    if not all(hasattr(e, "tree_") for e in ests):
        raise TypeError(f"{type(model).__name__} is not an ensemble of scikit-learn trees")
    if grid.ndim == 2:  # GradientBoosting*: leaves scaled to raw-margin contributions
        k = grid.shape[1]
        output = check_output(output, k, type(model).__name__)
        lr = float(model.learning_rate)
        trees = []
        for t, e in enumerate(ests):
            if output is not None and t % k != output:
                v = np.where(e.tree_.children_left == -1, 0.0, np.nan)
                trees.append(_tree(e, value=v))
            else:
                trees.append(_tree(e, scale=lr))
        return trees, names
    output = _tree_output(ests[0], output)
    return [_tree(e, output) for e in ests], names


def _tree_output(est, output):
    """Validate ``output`` against a single tree's classes (classifier) or targets (regressor)."""
    v = est.tree_.value
    n_classes = getattr(est, "n_classes_", None)
    n = v.shape[2] if n_classes is not None and np.ndim(n_classes) == 0 and v.shape[2] >= 2 else v.shape[1]
    return check_output(output, n, type(est).__name__)
