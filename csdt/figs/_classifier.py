"""FIGS and FIGU: greedy tree sums and tree unions for binary classification.

:class:`FIGSClassifier` is Fast Interpretable Greedy-tree Sums (Tan et al. 2022):
several trees grow at once; at every step the split with the largest
squared-error decrease among all current leaves of all trees, and a new tree's
root, is made, each leaf evaluated against the residuals
``r_i = y - sum_{j != i} f_j(x)`` (RIFF paper eq. 1), until ``max_rules`` splits.
The score of a row is the sum of its leaf values over the trees.

:class:`FIGUClassifier` is FIGU, Greedy Tree Unions ("RIFF: Inducing Rules for Fraud
Detection from Decision Trees",
section 3.1): the same greedy loop, but the target is ``y`` and when a leaf of
tree i is evaluated the rows already covered by another tree j are discarded
(eq. 2). Tree j covers a row if the row's leaf in j has precision (weighted
positive rate over all training rows of that leaf) ``>= precision_threshold``
or is j's current best leaf by precision. A row's score is the largest leaf
precision over the trees (a union of rules, each rule a leaf).

Both search splits from per-leaf histograms over binned features with prefix
sums (no stump is refitted per candidate, unlike imodels, whose stump refits
take most of its fit time), and both expose their trees through the project's
tree array protocol (``tree_arrays()``), which
:func:`csboost_plugins.rules.extract_rules` reads.

Missing values (NaN in X) are handled as in scikit-learn's trees: each
candidate threshold is tried with the rows missing that feature on the left and
on the right, plus the split "all values left, missing right"; a node that saw
no missing value sends unseen ones to the child with more training rows. The
direction is stored per node (``TreeArrays.missing_left``), so rules extracted
from the trees say where a missing value goes. Infinite values are rejected.

Money weighting (our extension, not in either paper): pass per-row costs to
``fit`` and the trees are grown on the exact reduction of example-dependent
costs to weights: with ``c1``/``c0`` the row's cost of deciding 1/0, the total
cost of any decision rule is ``const + sum_i |c1_i - c0_i| [h(x_i) != t_i]`` with
``t_i = [c1_i < c0_i]``. So each row is weighted by ``sample_weight * |c1 - c0|``
(``C_FN - C_TP`` for a positive, ``C_FP - C_TN`` for a negative under reasonable
costs) and fitted to ``t`` (= y unless the costs make the other decision
cheaper, e.g. a fraud smaller than the cost of investigating it). Splits, leaf
values and (FIGU) precisions are then in money.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,
)

from csboost_plugins._docstrings import fill_doc
from csboost_plugins._params import store_init_args
from csboost_plugins._validation import check_X, costs_given, fit_target
from csboost_plugins.costs import check_fit_costs, check_same_index, row_index
from csboost_plugins.decision_costs import decision_costs
from csboost_plugins.tree_protocol import TreeArrays, stack_trees

from .._apply import apply
from .._export import (
    NodeFormat,
    binary_layout,
    check_decimals,
    check_plot_args,
    draw_layout,
    feature_names_of,
    new_axes,
    tree_lines,
)
from .._params import StrOptions, count, fraction, non_negative, validate_params
from .._weights import check_fit_sample_weight
from .._binning import bin_features
from ._builder import grow_trees

__all__ = ["FIGSClassifier", "FIGUClassifier"]


def _unit_free(regret):
    """``regret`` divided by its mean and rounded to 30 significant bits (relative 1e-9).

    The same money in cents or in millions then gives the same weights, so the same model:
    the division alone would leave last-bit differences that flip exact ties between
    candidate splits. Scaled by the largest value first, so neither tiny (1e-300) nor huge
    (1e300) money under- or overflows.
    """
    top = regret.max()
    if not top > 0:
        return regret
    regret = regret / top
    mantissa, exponent = np.frexp(regret / regret.mean())
    return np.ldexp(np.round(mantissa * 2.0**30) / 2.0**30, exponent)


def _given(*costs):
    """True when any of ``costs`` is an array or a non-zero scalar (the keywords' default is 0)."""
    return any(c is not None and (np.ndim(c) > 0 or c != 0) for c in costs)


class _GreedyTreesBase(ClassifierMixin, BaseEstimator):
    """Shared fit / predict / protocol of FIGS and FIGU (binary classification)."""

    _union = False

    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        "max_rules": [count(1)],
        "max_trees": [count(1), None],
        "max_depth": [count(1), None],
        "min_impurity_decrease": [non_negative()],
        "max_bins": [count(2, 65535)],
    }

    def _check_params(self):
        validate_params(self)

    def fit(self, X, y, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
            cost_matrix=None):
        """Grow the trees.

        Parameters
        ----------
        X : array-like or DataFrame (n, d), numeric; NaN = missing, no infinities.
        y : array-like (n,), two classes (the larger / later one is positive).
        sample_weight : array-like (n,) >= 0, optional.
        fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix : optional per-row costs
            (money; our extension). When given, each row's weight is multiplied
            by ``|c1 - c0|`` (its cost of deciding 1 minus that of deciding 0:
            ``C_FN - C_TP`` for a positive, ``C_FP - C_TN`` for a negative under
            reasonable costs), divided by the mean of ``|c1 - c0|`` so that the
            model does not depend on the money's unit, and its target is the
            cheaper decision (see the module docstring). Without costs every row weighs ``sample_weight``
            (unit costs), so the model passes scikit-learn's generic checks.
        """
        self._check_params()
        rows = row_index(X)
        check_same_index([("y", y)], rows, "X")  # y is read by position: a re-sorted pandas y is refused
        check_X(X, allow_nan=True, categories=False, who=type(self).__name__)  # named column and row count
        X, y_raw = validate_data(self, X, y, dtype=np.float64, order="C", y_numeric=False,
                                 ensure_all_finite="allow-nan", ensure_min_samples=2)
        y01, self.classes_ = fit_target(y_raw, self.pos_label,
                                        required=costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix))
        n = X.shape[0]
        w = check_fit_sample_weight(sample_weight, X, rows)  # a pandas index must be X's, as the costs'
        w = np.ones(n) if w is None else w
        target = y01.astype(np.float64)
        # tp_cost/tn_cost alone go with C_FP = C_FN = 1 (check_fit_costs), as in every csdt estimator
        if fp_cost is not None or fn_cost is not None or cost_matrix is not None or _given(tp_cost, tn_cost):
            c = check_fit_costs(n, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                cost_matrix=cost_matrix, index=rows)
            # cost of deciding 0 and 1 for every row; total cost = const + sum |c1 - c0| [h != cheaper]
            cost0, cost1 = decision_costs(y01, c)
            target = (cost1 < cost0).astype(np.float64)
            w = w * _unit_free(np.abs(cost0 - cost1))
        if not w.sum() > 0:
            raise ValueError("sample_weight (times costs) sums to zero; nothing to fit")
        X_binned, n_bins, bin_min, bin_max = bin_features(X, self.max_bins)
        trees, splits = grow_trees(
            X, X_binned, n_bins, bin_min, bin_max, target, w,
            union=self._union, max_rules=self.max_rules, max_trees=self.max_trees,
            max_depth=self.max_depth, min_impurity_decrease=float(self.min_impurity_decrease),
            precision_threshold=getattr(self, "precision_threshold", 0.5),
        )
        self._set_fitted_trees(trees, splits)
        return self

    def _set_fitted_trees(self, trees, splits):
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None
        self.trees_ = []
        for t in trees:
            label = np.full(len(t.children_left), -1, np.int64)
            if self._union:  # a leaf predicts positive iff it covers (eq. 2 rule)
                label = self._cover_labels(t)
            # node_cost stays NaN: a FIGS node decides no label, its money is not defined
            self.trees_.append(TreeArrays(
                t.children_left, t.children_right, t.feature, t.threshold, t.missing_left, t.value,
                label=label, n_node_samples=t.n_samples, left_inclusive=True, feature_names=names,
                extras={"gain": np.asarray(t.gain, np.float64), "depth": np.asarray(t.depth, np.int64)},
            ))
        self.splits_ = splits
        self.complexity_ = len(splits)
        self._forest = stack_trees(self.trees_)

    def _cover_labels(self, t):
        cl = np.asarray(t.children_left)
        value = np.asarray(t.value)
        leaves = np.flatnonzero(cl == -1)
        label = np.full(len(cl), -1, np.int64)
        label[leaves] = (value[leaves] >= self.precision_threshold).astype(np.int64)
        label[leaves[int(np.argmax(value[leaves]))]] = 1
        return label

    def tree_arrays(self):
        """The fitted trees as :class:`csboost_plugins.tree_protocol.TreeArrays`.

        ``value`` is each node's score (FIGS: additive leaf value, summed over
        trees; FIGU: leaf precision, maxed over trees); ``n_node_samples`` the
        training weight reaching the node; ``node_cost`` NaN (no node decides a
        label); the extra ``gain`` is the split's squared-error decrease (NaN at
        leaves); splits are ``x <= threshold``.
        """
        check_is_fitted(self, "trees_")
        return list(self.trees_)

    @property
    def feature_importances_(self):
        """Share of the total split gain (weighted squared-error decrease) per feature."""
        check_is_fitted(self, "trees_")
        imp = np.zeros(self.n_features_in_)
        for _, _, f, _, gain in self.splits_:
            imp[f] += gain
        total = imp.sum()
        return imp / total if total > 0 else imp

    def decision_function(self, X):
        """Raw score: sum of leaf values (FIGS) or largest leaf precision (FIGU)."""
        check_is_fitted(self, "trees_")
        check_X(X, allow_nan=True, categories=False, who=type(self).__name__)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False, ensure_all_finite="allow-nan")
        values = self._forest.leaf_values(apply(self._forest, X))
        if self._union:
            return values.max(axis=1) if values.shape[1] else np.zeros(X.shape[0])
        score = np.zeros(X.shape[0])
        for k in range(values.shape[1]):  # tree by tree, the order the model adds them in
            score += values[:, k]
        return score

    def predict(self, X):
        """Class with predicted probability above 0.5 (ties to the negative class)."""
        proba = self.predict_proba(X)[:, 1]
        return self.classes_[(proba > 0.5).astype(np.int64)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = True
        return tags

    def _node_format(self, decimals):
        """FIGS/FIGU's leaf formatter: the value the leaf adds to the sum (FIGU: its precision, and
        whether it covers), the training weight reaching the node; leaves coloured by value."""
        top = max((np.abs(t.value[t.is_leaf]).max() for t in self.trees_), default=0.0)

        def leaf(t, k):
            text = (f"precision {t.value[k]:.{decimals}f}" if self._union else f"value {t.value[k]:+.{decimals}f}")
            text += f", weight {t.n_node_samples[k]:.6g}"
            return text + (", covers" if self._union and t.label[k] == 1 else "")

        def color(t, k):
            v = t.value[k] / top if top > 0 else 0.0  # red adds to the score, blue takes away
            return _blend((0.88, 0.40, 0.40) if v >= 0 else (0.44, 0.66, 0.86), min(abs(v), 1.0))

        return NodeFormat(leaf=leaf, inner=lambda t, k: f"weight {t.n_node_samples[k]:.6g}",
                          color=None if self._union else color)

    def export_text(self, feature_names=None, decimals=3):
        """The trees as text, one block per tree (``Tree #k``), one line per split side and leaf.

        Parameters
        ----------
        feature_names : list of str, optional
            Names to print, one per column (default: ``feature_names_in_``, else x0, x1, ...).
        decimals : int in [0, 17], default=3
            Digits after the point of thresholds and leaf values.

        Returns
        -------
        str
            ``|--- name <= threshold`` / ``|--- name >  threshold`` lines (``(NaN)`` on the side
            missing values take); a FIGS leaf reads ``value +v, weight w``, ``v`` being what the
            leaf adds to the row's score (the score is the sum over the trees); a FIGU leaf
            ``precision v, weight w[, covers]`` (the score is the max over the trees).
        """
        check_is_fitted(self, "trees_")
        check_decimals(decimals)
        names = feature_names_of(self, feature_names)
        fmt = self._node_format(decimals)
        lines = []
        for k, t in enumerate(self.trees_):
            lines.append(f"Tree #{k}")
            lines += tree_lines(t, names, fmt.leaf, decimals)
        return "\n".join(lines) + "\n"

    @fill_doc
    def plot(self, ax=None, feature_names=None, max_depth=None, fontsize=8, decimals=3, tree_index=None):
        """Draw the trees with matplotlib (``pip install 'csboost-plugins[plot]'``), side by side.

        FIGS predicts the sum of one leaf value per tree, so each leaf shows the value it adds
        (red adds, blue takes away, the deeper the colour the larger the amount); FIGU leaves
        show their precision, red where they cover.

        Parameters
        ----------
        ax : matplotlib.axes.Axes or sequence of Axes, optional
            One Axes per tree drawn (a new figure with one row of axes when None).
        %(feature_names, plot_depth_font)s
        decimals : int in [0, 17], default=3
            Digits after the point of thresholds and leaf values.
        tree_index : int, optional
            Draw only this tree (default: all, titled ``tree k``).

        Returns
        -------
        matplotlib.axes.Axes or ndarray of Axes
            The Axes of ``tree_index``, else one Axes per tree (each node's box is a text with
            gid ``"node <id>"``).
        """
        check_is_fitted(self, "trees_")
        check_decimals(decimals)
        check_plot_args(max_depth, fontsize)
        names = feature_names_of(self, feature_names)
        n = len(self.trees_)
        if tree_index is not None and (isinstance(tree_index, bool) or not isinstance(tree_index, (int, np.integer))
                                       or not -n <= tree_index < n):
            raise ValueError(f"tree_index must be None or an integer in [0, {n - 1}] (the model has {n} "
                             f"tree(s)), got {tree_index!r}")
        which = list(range(n)) if tree_index is None else [int(tree_index) % n]
        fmt = self._node_format(decimals)
        layouts = [binary_layout(self.trees_[k], names, fmt, max_depth, fontsize, decimals) for k in which]
        if ax is None:
            title = (f"{type(self).__name__}: score = {'max' if self._union else 'sum'} of one leaf value per tree"
                     if tree_index is None else None)
            axes = new_axes(layouts, title)[1]
        else:
            axes = np.asarray(ax, dtype=object).ravel()
            if axes.shape[0] != len(which):
                raise ValueError(f"ax must hold one Axes per tree drawn ({len(which)}), got {axes.shape[0]}")
        for a, k, lay in zip(axes, which, layouts):
            draw_layout(a, lay, fontsize, title=f"tree {k}")
        return axes[0] if tree_index is not None else axes

    def __str__(self):
        if not hasattr(self, "trees_"):
            return repr(self)
        head = (f"{type(self).__name__}: {self.complexity_} split(s) in {len(self.trees_)} tree(s)"
                f" ({'max' if self._union else 'sum'} of leaf values)")
        return head + "\n" + self.export_text().rstrip("\n")


def _blend(rgb, amount):
    """``rgb`` mixed with white: amount 0 is white, 1 the full colour (hex)."""
    return "#" + "".join(f"{round(255 * (1.0 - amount * (1.0 - c))):02x}" for c in rgb)


@fill_doc
class FIGSClassifier(_GreedyTreesBase):
    """Fast Interpretable Greedy-tree Sums (FIGS) for binary classification.

    Trees are fitted to ``y`` in {0, 1} by least squares; the score of a row is
    ``s(x) = sum_k f_k(x)`` (sum of its leaf values over the trees).

    Parameters
    ----------
    max_rules : int, default=12
        Total number of splits over all trees.
    max_trees : int or None, default=None
        At most this many trees (None: no limit beyond ``max_rules``).
    max_depth : int or None, default=None
        A node at depth ``max_depth`` (root = 0) is not split, i.e. at most
        ``max_depth`` splits on any root-to-leaf path.
    min_impurity_decrease : float, default=0.0
        Stop when the best split decreases the weighted sum of squared
        residuals by less than this (units: weight x target^2, not divided by
        n; the same units as imodels).
    max_bins : int, default=255
        Features with at most this many distinct values are searched exactly;
        others are cut at quantiles into this many bins. Memory: about
        20 bytes x n_features x max_bins per leaf.
    link : {"clip", "sigmoid"}, default="clip"
        ``predict_proba``: ``clip(s, 0, 1)`` (the FIGS paper) or
        ``sigmoid(2 s - 1)``, which equals imodels' default softmax over its
        one-hot outputs ``(1 - s, s)``.
    %(pos_label)s

    Notes
    -----
    Deliberate differences from imodels 3.0.4 ``FIGSClassifier``:

    * Split search over binned features: identical candidate thresholds when a
      feature has at most ``max_bins`` distinct values, quantile-bin boundaries
      otherwise.
    * ``max_depth``: imodels increases its depth counter by 2 per level after
      the first recomputation, so its limit is not the tree depth (e.g. its
      ``max_depth=1`` lets the first tree grow two levels); here it is the
      plain depth. Results agree when ``max_depth`` is None.
    * Ties between equally good splits: imodels' stumps break them with an
      unseeded feature permutation; here the lowest feature index and then
      the first leaf (tree, node order) win, so fits are deterministic.
    * A split must decrease the loss by more than a numerical zero
      (1e-12 x total weight); imodels accepts any split its stump returns.
    * Thresholds are float64 midpoints of the data; scikit-learn (so imodels)
      takes them from a float32 copy of X, so they agree to float32 precision.
    * Rows of zero weight are ignored by the split search, as in scikit-learn.
    * Missing values are supported (scikit-learn's rule, see the module
      docstring); imodels 3.0.4 rejects them.

    The fit is deterministic (no ``random_state``: nothing is sampled except a
    fixed-seed row sample that places quantile bins when n > 200 000).

    Attributes
    ----------
    trees_ : list of :class:`~csboost_plugins.tree_protocol.TreeArrays`
        The fitted trees (also via ``tree_arrays()``; shown by ``export_text()`` and ``plot()``).
    splits_ : list of (tree, node, feature, threshold, gain) in the order made.
    complexity_ : int, number of splits.
    feature_importances_ : share of the total split gain per feature.
    classes_, n_features_in_, feature_names_in_.
    """

    _union = False

    def __init__(self, max_rules=12, max_trees=None, max_depth=None, min_impurity_decrease=0.0,
                 max_bins=255, link="clip", pos_label=None):
        store_init_args(self, locals())

    _parameter_constraints = {**_GreedyTreesBase._parameter_constraints, "link": [StrOptions({"clip", "sigmoid"})]}

    @fill_doc
    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p = clip(s, 0, 1)`` or ``sigmoid(2 s - 1)`` (see ``link``).

        %(Parameters, X_nan, returns_proba)s
        """
        s = self.decision_function(X)
        p = np.clip(s, 0.0, 1.0) if self.link == "clip" else expit(2.0 * s - 1.0)
        return np.column_stack([1.0 - p, p])


@fill_doc
class FIGUClassifier(_GreedyTreesBase):
    """FIGU, Greedy Tree Unions (RIFF paper, section 3.1) for binary classification.

    FIGS with the residual binarised: when a leaf of tree i is evaluated, rows
    covered by any other tree j are discarded (eq. 2); a row is covered by
    tree j when its leaf in j has precision ``>= precision_threshold`` or is
    j's best leaf by precision. Leaves are fitted to ``y`` on the remaining rows
    (squared error, which for 0/1 targets is the Gini criterion up to a factor 2).

    Interpretation choices (the paper leaves them open): a leaf's precision is
    the weighted positive rate over all training rows of the leaf; ties for
    the best leaf go to the first leaf in node order; the score of a row is
    ``max_k precision_k(x)`` over trees, ``predict_proba`` returns it as is.
    With one tree nothing is ever discarded and FIGU is best-first CART growth
    (scikit-learn ``DecisionTreeClassifier(max_leaf_nodes=max_rules + 1)``).

    Parameters
    ----------
    max_rules, max_trees, max_depth, min_impurity_decrease, max_bins
        As in :class:`FIGSClassifier`.
    precision_threshold : float in [0, 1], default=0.5
        A leaf with at least this precision covers its rows.
    %(pos_label)s

    Attributes
    ----------
    trees_ : list of :class:`~csboost_plugins.tree_protocol.TreeArrays`
        The fitted trees; ``label`` is 1 on covering leaves.
    splits_, complexity_, classes_, n_features_in_, feature_names_in_.
    """

    _union = True

    def __init__(self, max_rules=12, max_trees=None, max_depth=None, min_impurity_decrease=0.0,
                 max_bins=255, precision_threshold=0.5, pos_label=None):
        store_init_args(self, locals())

    _parameter_constraints = {**_GreedyTreesBase._parameter_constraints,
                              "precision_threshold": [fraction(closed="both")]}

    @fill_doc
    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p`` the largest leaf precision over the trees.

        %(Parameters, X_nan, returns_proba)s
        """
        p = np.clip(self.decision_function(X), 0.0, 1.0)
        return np.column_stack([1.0 - p, p])
