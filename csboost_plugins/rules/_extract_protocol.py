"""Rules from this project's trees through ``tree_arrays()`` (never imports csdt)."""

from __future__ import annotations

import math

import numpy as np

from ..tree_protocol import TreeArrays, get_tree_arrays
from ._conditions import TreeConditions
from ._rule import Interval, exact_decimal

__all__ = ["protocol_trees"]


def _tree(t: TreeArrays) -> TreeConditions:
    t.validate()  # a tree built with validate=False (or edited in place) could loop or read out of range
    n = t.node_count
    cl, cr = [None] * n, [None] * n
    for i in np.flatnonzero(~t.is_leaf):
        f, thr, ml = int(t.feature[i]), float(t.threshold[i]), bool(t.missing_left[i])
        if math.isnan(thr):
            raise ValueError(f"TreeArrays.threshold is NaN at internal node {i}")
        s = exact_decimal(thr, point=False)  # the tree's own cut, all its digits (6 significant ones misrouted rows)
        if t.left_inclusive:  # x <= t goes left, compared in float64
            cl[i] = Interval(f, upper=thr, upper_closed=True, missing=ml, upper_text=f"<= {s}")
            cr[i] = Interval(f, lower=thr, lower_closed=False, missing=not ml, lower_text=f"> {s}")
        else:
            cl[i] = Interval(f, upper=thr, upper_closed=False, missing=ml, upper_text=f"< {s}")
            cr[i] = Interval(f, lower=thr, lower_closed=True, missing=not ml, lower_text=f">= {s}")
    return TreeConditions(t.children_left, t.children_right, cl, cr, list(range(n)), t.value.tolist())


def protocol_trees(model):
    if isinstance(model, TreeArrays):
        trees = [model]
    elif isinstance(model, (list, tuple)):
        trees = list(model)
    else:
        trees = get_tree_arrays(model)
    names = None
    for t in trees:
        if t.feature_names is not None:
            names = list(t.feature_names)
            break
    if names is None and hasattr(model, "feature_names_in_"):
        names = [str(c) for c in model.feature_names_in_]
    return [_tree(t) for t in trees], names
