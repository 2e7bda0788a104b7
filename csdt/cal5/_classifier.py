"""CAL5 and CAL5_OC: decision trees from the cost-dependent information measure.

Reference: F. Wysotzki, P. Geibel, "A New Information Measure Based on
Example-Dependent Misclassification Costs and Its Application in Decision Tree
Learning" (the CAL5_OC paper, sections 2-4).

Each training example p carries one misclassification cost c_p, the cost of not
deciding its true class (for this library's binary cost matrix:
``c_p = C_FN - C_TP`` for positives and ``C_FP - C_TN`` for negatives). For every
attribute, CAL5_OC sorts the examples reaching a node and forms intervals left
to right (the paper's ``intervals(x)``): an interval is closed when one class
dominates (Bayes rule on cost sums and the Chebyshev lower bound delta_1 >=
S_j(I) = c_min(I) S_max / c_j(I)) or when no class can dominate (delta_2 <
S_j(I) for all classes), and extended otherwise. Neighbours with the same
outcome are merged, bounds move to midpoints, the attribute with the largest
cost-dependent transinformation I^c_x (eq. 10, bits) is chosen, and every
"no dominant class" interval is refined recursively. CAL5 is the same algorithm
with one cost per class (the classical CAL5 thresholds S_k ~ const / cost_k).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from csboost_plugins._docstrings import fill_doc
from csboost_plugins._params import store_init_args
from csboost_plugins._validation import check_X, fit_labels
from csboost_plugins.costs import MAX_TOTAL_COST, check_costs, check_same_index, row_index
from csboost_plugins.decision_costs import misclassification_costs
from csboost_plugins.tree_protocol import TreeArrays

from .. import _aot
from .._cost_information import cost_transinformation_table
from .._export import (
    check_decimals,
    check_plot_args,
    feature_names_of,
)
from .._params import validate_params
from .._weights import check_fit_sample_weight
from ._builder import build_tree, export_text, plot_multiway, predict_leaf

__all__ = ["CAL5Classifier", "CAL5OCClassifier", "cost_transinformation"]


def cost_transinformation(x_binned, y, cost=None) -> float:
    """Cost-dependent transinformation I^c_x of a discrete attribute (eq. 10), in bits.

    I^c_x = H^c_k - sum_i p^c(x_i) H^c(k | x_i) with the cost-dependent
    probabilities p^c(k_j) = sum_{p in k_j} c_p / sum_p c_p, p^c(k_j | x_i) and
    p^c(x_i) the same cost shares within / of the value x_i (eqs. 2-5, 26).

    Parameters
    ----------
    x_binned : array-like of shape (n,)
        The discrete values (or interval ids) x_i.
    y : array-like of shape (n,)
        Class labels (any number of classes).
    cost : None, scalar or array-like of shape (n,)
        Each example's misclassification cost (>= 0). ``None`` means equal costs,
        giving Shannon's transinformation (Proposition 1a). Only the cost shares
        count: ``cost * k`` gives the same value for every k > 0.

    Returns
    -------
    float
        I^c_x in bits.
    """
    x = np.asarray(x_binned)
    yy = np.asarray(y)
    if x.ndim != 1 or yy.ndim != 1:
        raise ValueError(f"x_binned and y must be 1-D, got shapes {x.shape} and {yy.shape}")
    if x.shape[0] != yy.shape[0]:
        raise ValueError(f"x_binned has {x.shape[0]} values but y has {yy.shape[0]}")
    if x.shape[0] == 0:
        raise ValueError("x_binned is empty")
    c = _check_example_cost(cost, x.shape[0]) if cost is not None else np.ones(x.shape[0])
    if c.max() > 0:  # I^c depends on cost shares only (eqs. 2-5): in units of the largest, sums cannot overflow
        c = c / c.max()
    _, xi = np.unique(x, return_inverse=True)
    classes, ki = np.unique(yy, return_inverse=True)
    n_classes = classes.shape[0]
    table = np.bincount(xi * n_classes + ki, weights=c, minlength=(xi.max() + 1) * n_classes)
    table = np.ascontiguousarray(table.reshape(-1, n_classes))
    return float(_aot.run("cost_transinformation_table", cost_transinformation_table, table))


def _check_example_cost(cost, n):
    if isinstance(cost, (numbers.Number, np.number)) and not isinstance(cost, bool):
        cost = np.full(n, float(cost))
    if hasattr(cost, "to_numpy"):
        cost = cost.to_numpy()
    try:
        c = np.asarray(cost, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cost must be numeric (one misclassification cost per example), "
                        f"got {type(cost).__name__}") from exc
    if c.ndim == 2 and 1 in c.shape:
        c = c.ravel()
    if c.ndim != 1 or c.shape[0] != n:
        raise ValueError(f"cost must have one value per example: expected shape ({n},), got {c.shape}")
    if not np.isfinite(c).all():
        raise ValueError(f"cost contains {int((~np.isfinite(c)).sum())} NaN or infinite value(s)")
    if (c < 0).any():
        raise ValueError(f"cost must be >= 0 (the cost of misclassifying the example); "
                         f"{int((c < 0).sum())} value(s) are negative")
    return np.ascontiguousarray(c)


class _BaseCAL5(ClassifierMixin, BaseEstimator):
    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        "alpha": [Interval(numbers.Real, 0.0, 1.0, closed="right")],
        "s_max": [Interval(numbers.Real, 0.0, 1.0, closed="right")],
        "max_depth": [Interval(numbers.Integral, 0, None, closed="left"), None],
        "merge_leaves": ["boolean"],
    }

    def _example_costs(self, y_idx, n_classes, cost, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, rows=None):
        """One misclassification cost per example, or None when no costs are given (``rows``: X's pandas
        index, which pandas costs must carry)."""
        matrix_given = cost_matrix is not None or fp_cost is not None or fn_cost is not None
        if cost is not None and matrix_given:
            raise ValueError("give either cost= (one cost per example) or fp_cost=/fn_cost=/cost_matrix=, not both")
        n = y_idx.shape[0]
        if cost is not None:
            check_same_index([("cost", cost)], rows, "X")
            c = _check_example_cost(cost, n)
            if c.max() > MAX_TOTAL_COST / n:  # the tree keeps sums of costs in money (node costs), as check_costs
                raise ValueError(f"cost is too large: the largest cost is {c.max():.3g} on {n} examples, so sums of "
                                 f"costs could overflow float64 (largest cost x n must stay below "
                                 f"{MAX_TOTAL_COST:.0e}); express the costs in a larger unit (e.g. millions)")
            return c
        if not matrix_given:
            if (tp_cost is not None and np.any(np.asarray(tp_cost) != 0)) or (
                    tn_cost is not None and np.any(np.asarray(tn_cost) != 0)):
                raise ValueError("tp_cost/tn_cost need fp_cost= and fn_cost=")
            return None
        if n_classes != 2:
            raise ValueError(f"fp_cost/fn_cost/cost_matrix describe binary problems; y has {n_classes} "
                             f"classes (give cost= with one misclassification cost per example)")
        cm = check_costs(n, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=0.0 if tp_cost is None else tp_cost,
                         tn_cost=0.0 if tn_cost is None else tn_cost, cost_matrix=cost_matrix, index=rows)
        # only cost differences matter for the decision: regret of the wrong class
        c = np.where(y_idx == 1, *misclassification_costs(cm))
        if (c < 0).any():
            raise ValueError(f"{int((c < 0).sum())} example(s) have C_FN < C_TP (positives) or C_FP < C_TN "
                             f"(negatives): a misclassification must not cost less than a correct decision")
        return np.ascontiguousarray(c)

    def fit(self, X, y, cost=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None):
        """Grow the tree on X (n, d numeric), labels y and each example's misclassification cost.

        ``cost`` (n,): cost of misclassifying each example (any number of classes).
        Binary labels may instead take ``fp_cost``/``fn_cost``/``tp_cost``/``tn_cost``
        or ``cost_matrix`` (n, 4) [C_FP, C_FN, C_TP, C_TN]; then
        ``cost = C_FN - C_TP`` for positives (``classes_[1]``), ``C_FP - C_TN`` for
        negatives. No costs: every example costs 1.

        ``sample_weight`` (n,) >= 0: example p counts as ``w_p`` copies of itself, in the
        class counts of the confidence interval (eq. 14) ``n_j(I) = sum_{p in I, k_j} w_p``
        and in the cost sums ``w_j(I) = sum_{p in I, k_j} w_p c_p`` (so the mean cost c_j(I),
        the thresholds S_j(I), I^c and p^c are weighted too; CAL5's averaged class cost is
        ``sum w_p c_p / sum w_p``). Examples of weight 0 are dropped. Uniform weights c
        scale every n_j(I) by c: the Chebyshev bounds then see c times the evidence.
        """
        validate_params(self)
        rows = row_index(X)
        check_same_index([("y", y)], rows, "X")  # y is read by position: a re-sorted pandas y is refused
        check_X(X, allow_nan=False, categories=False, who=type(self).__name__)  # named column and row count
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=1)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] == 2 and (self.pos_label is not None or fp_cost is not None or fn_cost is not None
                                           or cost_matrix is not None):
            # the binary cost keywords charge C_FN on classes_[1]: it must be the positive class
            y_idx, self.classes_ = fit_labels(y, self.pos_label)
        n_classes = self.classes_.shape[0]
        if n_classes < 2:
            raise ValueError(f"y contains only one class ({self.classes_[0]!r}); CAL5 needs at least 2 classes")
        y_idx = y_idx.ravel().astype(np.int64)
        w = check_fit_sample_weight(sample_weight, X, rows)
        c = self._example_costs(y_idx, n_classes, cost, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, rows)
        costs = self._costs_for_tree(y_idx, c, w)
        if w is not None:  # weight 0: as if the example were not there (no value, no bound)
            keep = w > 0
            X, y_idx, costs, w = X[keep], y_idx[keep], costs[keep], w[keep]
        self.tree_ = build_tree(X, y_idx, costs, n_classes, float(self.alpha), float(self.s_max),
                                self.max_depth, bool(self.merge_leaves), w)
        return self

    # -- prediction -----------------------------------------------------------------------
    def predict_proba(self, X):
        """Cost-dependent class probabilities p^c(k_j | I) of each row's leaf interval (eq. 26).

        p^c(k_j | I) = (sum of the costs of class-j training examples in I) /
        (sum of all costs in I). This is the Bayes-rule score of the tree, not a
        calibrated probability: its argmax is the cost-minimal class.
        """
        check_is_fitted(self)
        check_X(X, allow_nan=False, categories=False, who=type(self).__name__)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.tree_.proba[predict_leaf(self.tree_, X)]

    def predict(self, X):
        """Class label of each row's leaf (dominant class, or Bayes rule on cost sums)."""
        check_is_fitted(self)
        check_X(X, allow_nan=False, categories=False, who=type(self).__name__)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.classes_[self.tree_.label[predict_leaf(self.tree_, X)]]

    def apply(self, X):
        """Index of each row's leaf in the binary-chain arrays of :meth:`tree_arrays`."""
        check_is_fitted(self)
        check_X(X, allow_nan=False, categories=False, who=type(self).__name__)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return predict_leaf(self.tree_, X)

    # -- inspection -----------------------------------------------------------------------
    def tree_arrays(self):
        """The tree for rule extraction, as ``[TreeArrays]`` (csboost_plugins.tree_protocol).

        Each multiway node with interval bounds b_0 < ... < b_{T-1} becomes a chain
        of binary splits on the same attribute: ``x <= b_0`` -> interval 0, else
        ``x <= b_1`` -> interval 1, ..., else interval T (``left_inclusive=True``).
        Chain nodes carry the statistics of the union of the remaining intervals.
        ``value`` is p^c(class 1) for binary problems; for multi-class problems it is
        p^c of the node's ``label`` (the index into ``classes_`` of its Bayes/dominant
        class), so rules read ``label``. ``node_cost`` is the training cost of the
        node's label (sum of the costs of its examples of other classes);
        ``n_node_samples`` counts training examples.
        """
        check_is_fitted(self)
        t = self.tree_
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None
        return [TreeArrays(t.children_left, t.children_right, t.feature, t.threshold, t.missing_left, t.value,
                           label=t.label, n_node_samples=t.n_node_samples, node_cost=t.node_cost,
                           left_inclusive=True, feature_names=names, validate=False)]

    def export_text(self, feature_names=None, decimals=3) -> str:
        """The multiway tree as text, derived from ``tree_`` (its binary chain): one line per interval.

        Parameters
        ----------
        feature_names : list of str, optional
            Names to print, one per column (default: ``feature_names_in_``, else x0, x1, ...).
        decimals : int in [0, 17], default=3
            Digits after the point of interval bounds and p^c.

        Returns
        -------
        str
            ``name in (lo, hi]:`` per interval, indented by multiway depth; leaves read
            ``class c  [why it is a leaf; n=examples, p^c=(class: p^c(class | leaf), ...)]``.
        """
        check_is_fitted(self)
        check_decimals(decimals)
        names = feature_names_of(self, feature_names)
        return export_text(self.tree_, names, [str(c) for c in self.classes_], decimals)

    @fill_doc
    def plot(self, ax=None, feature_names=None, max_depth=None, fontsize=8, decimals=3):
        """Draw the multiway tree with matplotlib (``pip install 'csboost-plugins[plot]'``).

        Decision nodes show their attribute, I^c (bits) and examples, edges their interval,
        leaves what :meth:`export_text` says (class, why, examples, p^c), coloured by class.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (a new figure when None).
        %(feature_names)s
        max_depth : int, optional
            Draw only the multiway levels up to this depth.
        fontsize : float, default=8
            Font size of the node boxes.
        decimals : int in [0, 17], default=3
            Digits after the point of bounds, I^c and p^c.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on; each node's box is a text with gid ``"node <id>"`` (its id in
            ``tree_``).
        """
        check_is_fitted(self)
        check_decimals(decimals)
        check_plot_args(max_depth, fontsize)
        names = feature_names_of(self, feature_names)
        return plot_multiway(self.tree_, names, [str(c) for c in self.classes_], ax, max_depth=max_depth,
                             fontsize=fontsize, decimals=decimals)

    def get_depth(self) -> int:
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        check_is_fitted(self)
        return self.tree_.n_leaves

    def __str__(self):
        text = self.__repr__()
        if hasattr(self, "tree_"):
            text += "\n" + self.export_text()
        return text

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


@fill_doc
class CAL5OCClassifier(_BaseCAL5):
    """CAL5_OC: CAL5 with example-dependent misclassification costs (paper section 4).

    Parameters
    ----------
    alpha : float in (0, 1], default 0.3
        The confidence level is 1 - alpha for the Chebyshev interval
        [delta_1, delta_2] of eq. 14; larger alpha = narrower interval = earlier
        decisions (smaller intervals, larger trees).
    s_max : float in (0, 1], default 0.6
        Threshold S_max of the cheapest class in an interval; every other class j
        gets S_j(I) = c_min(I) S_max / c_j(I) (eq. 22). Controls tree complexity.
    max_depth : int or None, default None
        Optional limit on the number of multiway levels (not in the paper; the
        paper's stopping rule is the statistical one).
    merge_leaves : bool, default True
        After growing, merge neighbouring leaf intervals of a node that decide the
        same class, and turn a node whose intervals all decide one class into a
        leaf (section 3.1: "adjacent intervals with the same class label are
        merged"). Predictions are unchanged; trees get smaller and
        ``predict_proba`` coarser. False keeps every interval with its reason
        (dominant / no dominant class / undecided), as in the paper's figures.
    %(pos_label)s

    Attributes
    ----------
    tree_ : :class:`~csboost_plugins.tree_protocol.TreeArrays`
        The fitted tree as a binary chain (each multiway node a chain of splits
        ``x <= b_t``) with the extras ``proba``, ``counts``, ``cost_sums``, ``leaf_kind``,
        ``chain``, ``info``, ``depth``; ``export_text()``, ``print(model)`` and ``plot()``
        show its multiway intervals and leaves, derived from these arrays.
    classes_, n_features_in_, feature_names_in_

    Notes
    -----
    Costs are given to :meth:`fit` as ``cost=`` (one cost per example, any
    number of classes) or, for binary labels, in this library's convention
    ``fp_cost``/``fn_cost``/``tp_cost``/``tn_cost`` or ``cost_matrix`` (then
    ``cost = C_FN - C_TP`` for positives, ``C_FP - C_TN`` for negatives). With no
    costs every example costs 1, and CAL5_OC is the cost-free CAL5 with Shannon's
    transinformation (Proposition 1a).
    """

    def __init__(self, alpha=0.3, s_max=0.6, max_depth=None, merge_leaves=True, pos_label=None):
        store_init_args(self, locals())

    def _costs_for_tree(self, y_idx, cost, w=None):
        return np.ones(y_idx.shape[0]) if cost is None else cost


@fill_doc
class CAL5Classifier(_BaseCAL5):
    """CAL5 with no costs or class-dependent costs (paper section 3).

    The same interval construction and attribute selection as
    :class:`CAL5OCClassifier`, but every example of class k_j costs the same
    c_j, so the thresholds S_j = c_min S_max / c_j are fixed (eq. 17, S_k ~
    const / cost_k) and the transinformation uses class-dependent costs only
    (Shannon's when all c_j are equal).

    Parameters
    ----------
    alpha, s_max, max_depth, merge_leaves : as in :class:`CAL5OCClassifier`.
    class_cost : None, dict {class label: cost} or array-like in the order of
        ``classes_``, default None
        The cost of not recognising each class. When None and :meth:`fit` gets
        example costs (``cost=``, ``fp_cost``/``fn_cost`` or ``cost_matrix``),
        each class's cost is the mean of its training examples' costs (the
        "averaged class-dependent costs" the paper compares CAL5_OC with); with
        no costs at all every class costs 1 (cost-free CAL5).
    %(pos_label)s

    Attributes
    ----------
    class_cost_ : ndarray (n_classes,), the class costs used.
    """

    _parameter_constraints = {**_BaseCAL5._parameter_constraints, "class_cost": [dict, "array-like", None]}

    def __init__(self, alpha=0.3, s_max=0.6, max_depth=None, merge_leaves=True, class_cost=None, pos_label=None):
        store_init_args(self, locals())

    def _costs_for_tree(self, y_idx, cost, w=None):
        n_classes = self.classes_.shape[0]
        if self.class_cost is not None:
            if isinstance(self.class_cost, dict):
                missing = [c for c in self.classes_ if c not in self.class_cost]
                if missing:
                    raise ValueError(f"class_cost has no cost for class(es) {missing}")
                cc = np.array([self.class_cost[c] for c in self.classes_], dtype=np.float64)
            else:
                cc = np.asarray(self.class_cost, dtype=np.float64).ravel()
                if cc.shape[0] != n_classes:
                    raise ValueError(f"class_cost has {cc.shape[0]} values but y has {n_classes} classes")
            if not np.isfinite(cc).all() or (cc < 0).any():
                raise ValueError(f"class_cost must be finite and >= 0, got {cc.tolist()}")
        elif cost is not None:
            w = np.ones(y_idx.shape[0]) if w is None else w  # weighted mean: sum w c / sum w per class
            den = np.bincount(y_idx, weights=w, minlength=n_classes)
            # a class all of whose examples weigh 0 is not in the tree: any cost will do
            cc = np.divide(np.bincount(y_idx, weights=w * cost, minlength=n_classes), den,
                           out=np.ones(n_classes), where=den > 0)
        else:
            cc = np.ones(n_classes)
        self.class_cost_ = cc
        return np.ascontiguousarray(cc[y_idx])
