"""RIFFClassifier: the RIFF pipeline (sample induction/selection sets, fit a tree model,
extract candidate rules, select a low-FPR rule set) as a scikit-learn estimator."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils._param_validation import Interval as _PInterval
from sklearn.utils.validation import _num_samples, check_is_fitted, validate_data

from .._docstrings import fill_doc
from .._params import store_init_args
from .._validation import (check_sample_weight, check_X_columns, check_X_values, costs_given, fit_target,
                           has_text_labels)
from .._cost_columns import check_same_index, row_index
from ..costs import check_costs
from ._data import as_float_matrix
from ._riff_induce import induce_rules
from ._riff_pool import default_estimators as _default_estimators
from ._ruleset import RuleSet
from ._select import riff_select

__all__ = ["RIFFClassifier"]


def _clone(est):
    """sklearn's ``clone``; for a CatBoost model whose ``get_params`` copies a list parameter (``cat_features``),
    which fails clone's identity check, a new model from the same parameters."""
    try:
        return clone(est)
    except RuntimeError:
        if not type(est).__module__.startswith("catboost"):
            raise
        return type(est)(**est.get_params(deep=False))


def _subsample(idx, y, ratio, positive_rate, rng):
    """Rows of idx: a fraction ``ratio`` of them, with positive share ``positive_rate`` when given.

    With rebalancing, n_pos = min(#positives, round(positive_rate * n_target)) and
    n_neg = min(#negatives, round(n_pos * (1 - positive_rate) / positive_rate)), so
    when positives are scarce (fraud) all of them are kept and negatives are
    under-sampled to the requested rate.
    """
    n_target = max(2, int(round(ratio * len(idx))))
    if positive_rate is None:
        return np.sort(rng.choice(idx, size=min(n_target, len(idx)), replace=False))
    pos, neg = idx[y[idx] == 1], idx[y[idx] == 0]
    n_pos = max(1, min(len(pos), int(round(positive_rate * n_target))))
    n_neg = max(1, min(len(neg), int(round(n_pos * (1 - positive_rate) / positive_rate))))
    return np.sort(np.concatenate([rng.choice(pos, n_pos, replace=False), rng.choice(neg, n_neg, replace=False)]))


class RIFFClassifier(ClassifierMixin, BaseEstimator):
    """Rules for fraud detection from decision trees (RIFF), a rule-set classifier.

    Fit: split the training rows (stratified) into an induction part and a
    selection part (``selection_size``); draw from each a subset of
    ``sample_ratio`` of its rows, the induction subset at ``positive_rate``
    positives (None, the default, keeps the natural rate; the paper rebalances to
    30 %) and the selection subset at ``selection_positive_rate`` (None keeps the
    natural rate, which keeps the FPR estimate from being computed on a handful of
    negatives); fit ``estimator`` on the induction subset; extract one rule per
    leaf (``nodes``); greedily select rules on the selection subset until the FPR
    (or alert rate) budget is met (:func:`riff_select`). The defaults pool the
    leaves of a small LightGBM and a small XGBoost, rank them by a precision shrunk
    toward the base rate, prune and refine each chosen rule and keep at most 20;
    :meth:`paper` gives the paper's protocol.

    Costs: ``fit(X, y, fn_cost=..., fp_cost=...)`` or ``cost_matrix=``; without costs the
    rule selection is the paper's count-based one (unit costs). Costs are routed
    with metadata routing (``set_fit_request``).

    Parameters
    ----------
    estimator : tree model or list of tree models, optional
        Anything :func:`extract_rules` reads. A list: each model is fitted on the
        induction subset and their rules form one candidate pool (``estimator_`` is then
        the list of fitted models). None (default): the pool
        ``[LGBMClassifier(n_estimators=30, num_leaves=16, learning_rate=0.05),
        XGBClassifier(n_estimators=30, max_depth=6, learning_rate=0.1,
        enable_categorical=True)]``, one thread each, quiet, seeded from
        ``random_state``. Models set to one thread each (``n_jobs=1``, as the default
        pool) train side by side on a machine with more cores; each is the model it
        would be trained alone. If a model's ``fit`` accepts cost keywords and costs
        are given, the induction subset's costs are passed on. A CatBoost model splits pandas
        category columns (its ``cat_features``) one-hot only with ``one_hot_max_size`` >=
        their number of categories: its CTR splits are no rules.
    max_fpr : float in (0, 1], default 0.01
        FPR budget (ignored when ``max_alert_rate`` is set).
    max_alert_rate : float in (0, 1], optional
        Alert-rate budget instead of the FPR budget.
    selection_size : float in (0, 1), default 0.5
        Share of training rows used for selection.
    sample_ratio : float in (0, 1], default 1.0
        Share of each part drawn into its subset.
    positive_rate : float in (0, 1) or None, default None
        Positive share of the induction subset (None: natural rate; the paper: 0.3).
    selection_positive_rate : float in (0, 1) or None, default None
        Positive share of the selection subset (None: natural rate).
    nodes : {"leaves", "all"}, default "leaves"
        Candidate nodes.
    rank_by : {"precision", "money"}, default "precision"
        "precision" (the paper) or "money": net money per unit of budget, the net money of
        a rule being ``C_FN - C_TP`` summed over the positives it newly covers minus
        ``C_FP - C_TN`` over the negatives (needs ``fn_cost`` and ``fp_cost``, or ``cost_matrix``,
        in fit; ``fp_cost=0`` when alerts cost nothing); see :func:`riff_select`. With
        "precision" the costs given to ``fit`` do not reach the selection, only an
        ``estimator`` whose ``fit`` takes ``cost_matrix`` (a cost-sensitive tree or booster).
    stop_unprofitable : bool, default True
        With ``rank_by="money"``: stop before a rule whose net money on the selection
        subset's uncovered rows is <= 0, even with budget left (passed to
        :func:`riff_select`).
    precision_prior : float >= 0 or "auto", default "auto"
        Pseudo-rows of the shrunk precision, passed to :func:`riff_select`. "auto": one
        rule's share of the budget on the selection subset,
        ``max(1, max_fpr * n_neg / max_rules)`` with ``n_neg`` its negative rows (weight
        with ``sample_weight``; with ``max_alert_rate``: ``max_alert_rate * n_rows``) and
        ``max_rules`` read as 20 when None. The value used is ``precision_prior_``.
    refine : bool, default True
        Passed to :func:`riff_select`; refined rules are new rules, not the model's paths.
    prune : bool or float in [0, 1), default True
        Passed to :func:`riff_select`: True lets a rule give up a tenth of its score on the
        uncovered selection rows for fewer conditions; pruned rules are new rules, not the
        model's paths.
    max_rules : int >= 1 or None, default 20
        Passed to :func:`riff_select`. Keep a prior with a cap: without one the cap can be
        used up by small rules of high observed precision far below the budget.
    cuts : {"simple", "model"}, default "simple"
        Passed to :func:`riff_select`: "simple" gives human cuts, ``or x is missing`` only on
        columns with missing values and no redundant condition (:func:`simplify_rules` on the
        selection subset, whose rows route as before); "model" keeps the model's cuts.
    pos_label : int, float, bool, str or None, default None
        The positive class, the one the rules flag (a fraud). None: 1 (True) of 0/1, -1/1
        or boolean labels; text labels (``"fraud"`` / ``"ok"``), and any other labels when
        costs are given, are refused without it, since the rules would otherwise flag
        whichever label sorts last (numbers without costs: the larger label, as scikit-learn).
    random_state : int, RandomState or None
        Seeds the split, the sampling and the estimator (when its own random_state
        is None).
    rule_book : RuleSet or None, default None
        A team's own rules (e.g. :meth:`RuleSet.from_sql`). Given, ``fit`` is
        :func:`optimize_rule_book` ``(rule_book, X, y, max_fpr= / max_alert_rate=, costs,
        sample_weight=, random_state=random_state)``: the book as written, the book re-tuned to
        human numbers, the book with RIFF's default pool's rules and those rules alone are
        compared by cross-fitted money (5 folds; no choice on more than 300,000 rows: the
        book with those rules), the simplest within 0.75 standard errors of the best is kept
        and selected under the budget on all rows (by net money per unit of budget when costs
        are given, else by precision); ``rule_set_`` is that RuleSet. ``estimator``,
        ``selection_size``, ``sample_ratio``, the positive
        rates, ``nodes``, ``rank_by``, ``precision_prior``, ``refine``, ``prune``,
        ``max_rules`` and ``cuts`` are then not used.

    Attributes
    ----------
    estimator_ : fitted tree model, or list of them
        The model(s) fitted on the induction subset (a list for a list or the default pool).
    candidates_ : list of Rule
        The candidate rules.
    precision_prior_ : float
        The prior used (``precision_prior`` resolved on the selection subset; NaN for a
        ``rule_book`` with ``'allow'`` / ``'block'`` rules, which is re-tuned in its order).
    rule_set_ : RuleSet
        The selected rules; ``predict_proba(X)[:, 1]`` is the alert probability (1, rho
        for rows only the randomised last rule covers, 0) and ``predict`` its rounding.
    classes_ : ndarray of shape (2,)
        ``[negative label, positive label]`` (sorted for 0/1, -1/1 and boolean labels;
        ``classes_[1] == pos_label`` when given): ``predict`` returns ``classes_[1]`` where
        a rule fires, ``predict_proba``'s column 1 is the alert probability.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of str
        Column names (pandas input only).
    induction_index_, selection_index_ : ndarray of int
        Training rows of the induction and selection subsets (with ``rule_book``: the
        selection part of :func:`optimize_rule_book`, ``induction_index_`` empty;
        ``estimator_`` and ``candidates_`` are then None).

    Notes
    -----
    The defaults aim at the most recall within the budget with at most 20 short rules:
    with 30 % positives a fraud induction set keeps too few negatives to resolve a 1 %
    FPR region, the two boosters' leaves give more diverse candidates than one tree, and
    the prior keeps the greedy from spending the rule cap on tiny rules of high observed
    precision.

    The paper's protocol is one call away, ``RIFFClassifier.paper(max_fpr=0.01)``, or
    by keywords: ``RIFFClassifier(estimator=DecisionTreeClassifier(max_leaf_nodes=32),
    positive_rate=0.3, precision_prior=0.0, prune=False, refine=False, max_rules=None)``.
    With costs given to ``fit`` and the default ``rank_by="precision"`` the selection is
    unchanged; costs reach it with ``rank_by="money"``.
    """

    _parameter_constraints = {
        "estimator": [None, HasMethods(["fit"]), list, tuple],
        "max_fpr": [None, _PInterval(Real, 0, 1, closed="right")],
        "max_alert_rate": [None, _PInterval(Real, 0, 1, closed="right")],
        "selection_size": [_PInterval(Real, 0, 1, closed="neither")],
        "sample_ratio": [_PInterval(Real, 0, 1, closed="right")],
        "positive_rate": [None, _PInterval(Real, 0, 1, closed="neither")],
        "selection_positive_rate": [None, _PInterval(Real, 0, 1, closed="neither")],
        "nodes": [StrOptions({"leaves", "all"})],
        "rank_by": [StrOptions({"precision", "money"})],
        "stop_unprofitable": ["boolean"],
        "precision_prior": [StrOptions({"auto"}), _PInterval(Real, 0, None, closed="left")],
        "refine": ["boolean"],
        "prune": ["boolean", _PInterval(Real, 0, 1, closed="left")],
        "max_rules": [None, _PInterval(Integral, 1, None, closed="left")],
        "cuts": [StrOptions({"simple", "model"})],
        "pos_label": "no_validation",
        "random_state": ["random_state"],
        "rule_book": [None, RuleSet],
    }

    def __init__(self, estimator=None, max_fpr=0.01, max_alert_rate=None, selection_size=0.5, sample_ratio=1.0,
                 positive_rate=None, selection_positive_rate=None, nodes="leaves", rank_by="precision",
                 stop_unprofitable=True, precision_prior="auto", refine=True, prune=True, max_rules=20,
                 cuts="simple", pos_label=None, random_state=None, rule_book=None):
        store_init_args(self, locals())

    @classmethod
    def paper(cls, **params):
        """A RIFFClassifier with the RIFF paper's protocol.

        One CART tree of 32 leaves fitted on an induction subset with 30 % positives, its
        leaves selected by observed precision (Algorithm 1) with no rule cap, no prior, no
        pruning and no refinement: ``estimator=DecisionTreeClassifier(max_leaf_nodes=32),
        positive_rate=0.3, precision_prior=0.0, prune=False, refine=False, max_rules=None``.

        Parameters
        ----------
        **params
            Any other RIFFClassifier parameter (``max_fpr``, ``random_state``, ...); one of the
            six above given here replaces the paper's value.

        Returns
        -------
        RIFFClassifier
            Unfitted; ``get_params`` shows the paper's values.
        """
        from sklearn.tree import DecisionTreeClassifier
        kw = dict(estimator=DecisionTreeClassifier(max_leaf_nodes=32), positive_rate=0.3, precision_prior=0.0,
                  prune=False, refine=False, max_rules=None)
        kw.update(params)
        return cls(**kw)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = True
        return tags

    @fill_doc
    def fit(self, X, y, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
        """Fit the tree model on the induction subset and select rules on the selection subset.

        %(Parameters, X_nan, y)s
        sample_weight : array-like of shape (n_samples,), optional
            Row weights (passed to the estimator and the rule selection).
        %(costs)s
            Without costs: the paper's count-based selection.

        Returns
        -------
        RIFFClassifier
            self, with ``rule_set_``.
        """
        self._validate_params()
        import pandas as pd
        from sklearn.utils.validation import column_or_1d
        if y is None:
            raise ValueError("RIFFClassifier requires y to be passed, but the target y is None")
        check_same_index([("y", y)], row_index(X), "X")  # y is read by position: a re-sorted y is refused
        check_X_columns(X)
        if isinstance(X, pd.DataFrame):  # keeps pandas categoricals for lightgbm / xgboost estimators
            validate_data(self, X, skip_check_array=True, reset=True)
            as_float_matrix(X, [])  # numeric check
            y_raw = column_or_1d(y, warn=True)
        else:  # an inf is named with the pool's checks below
            X, y_raw = validate_data(self, X, y, ensure_all_finite=False, reset=True)
        if np.unique(y_raw).shape[0] == 1:
            raise ValueError("RIFFClassifier needs both classes in y; got only one class")
        # the rules flag the positive class: text labels, or any labels but 0/1 with costs, must name it
        # (numbers without costs keep scikit-learn's rule, the larger label is positive)
        required = has_text_labels(y_raw) or costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix)
        yb, self.classes_ = fit_target(y_raw, self.pos_label, required=required, who="RIFFClassifier")
        n = len(yb)
        if _num_samples(X) != n:
            raise ValueError(f"X has {_num_samples(X)} rows but y has {n}")
        costs = None
        if costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix):  # one missing is a TypeError naming it
            costs = check_costs(n, cost_matrix=cost_matrix, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                tn_cost=tn_cost, index=row_index(X))
        if self.rank_by == "money" and costs is None:
            raise ValueError("rank_by='money' needs per-row costs: fit(X, y, fp_cost=..., fn_cost=...) or "
                             "cost_matrix=")
        w = check_sample_weight(sample_weight, n, allow_all_zero=False, index=row_index(X))
        if w is not None and (w[yb == 1].sum() <= 0 or w[yb == 0].sum() <= 0):
            raise ValueError("RIFFClassifier needs positive sample_weight on both classes")
        if self.rule_book is not None:
            return self._fit_book(X, yb, w, costs)
        rng = check_random_state(self.random_state)
        from sklearn.model_selection import train_test_split
        idx = np.arange(n)
        strat = yb if min(np.bincount(yb)) >= 2 else None
        ind_idx, sel_idx = train_test_split(idx, test_size=self.selection_size, stratify=strat,
                                            random_state=rng.randint(2 ** 31 - 1))
        if yb[ind_idx].min() == yb[ind_idx].max() or yb[sel_idx].min() == yb[sel_idx].max():
            raise ValueError("too few rows of one class to split into induction and selection sets")
        ind = _subsample(ind_idx, yb, self.sample_ratio, self.positive_rate, rng)
        sel = _subsample(sel_idx, yb, self.sample_ratio, self.selection_positive_rate, rng)
        self.induction_index_, self.selection_index_ = ind, sel

        if self.estimator is None:
            ests = _default_estimators(rng)
        else:
            many = isinstance(self.estimator, (list, tuple))
            ests = [_clone(e) for e in (self.estimator if many else [self.estimator])]
            if not ests or not all(hasattr(e, "fit") for e in ests):
                raise ValueError("estimator must be a tree model or a non-empty list of tree models (with fit)")
            for est in ests:
                if est.get_params().get("random_state", 0) is None:  # seed it unless the user did
                    est.set_params(random_state=rng.randint(2 ** 31 - 1))
        names = list(map(str, self.feature_names_in_)) if hasattr(self, "feature_names_in_") else None
        fitted, self.candidates_ = induce_rules(ests, X, yb, w, costs, ind, names, nodes=self.nodes)
        self.estimator_ = fitted if self.estimator is None or isinstance(self.estimator, (list, tuple)) else fitted[0]
        if not self.candidates_:
            hint = ("the default LightGBM / XGBoost pair does not split a handful of rows (LightGBM wants 20 per "
                    "leaf): give more rows or a tree, e.g. RIFFClassifier.paper()") if self.estimator is None \
                else "use more data or a deeper tree"
            raise ValueError(f"the fitted estimator has no split, so there is no candidate rule; {hint}")
        budget = {"max_alert_rate": self.max_alert_rate} if self.max_alert_rate is not None \
            else {"max_fpr": self.max_fpr}
        self.rule_set_ = riff_select(self.candidates_, _safe_indexing(X, sel), yb[sel],
                                     sample_weight=None if w is None else w[sel],
                                     cost_matrix=None if self.rank_by != "money" else costs[sel], rank_by=self.rank_by,
                                     stop_unprofitable=self.stop_unprofitable,
                                     precision_prior=self.precision_prior, refine=self.refine, prune=self.prune,
                                     max_rules=self.max_rules, cuts=self.cuts, **budget)
        self.precision_prior_ = float(self.rule_set_.selection["precision_prior"])
        return self

    def _fit_book(self, X, yb, w, costs):
        """``fit`` with a rule book: :func:`optimize_rule_book` on all the rows given."""
        from ._book import optimize_rule_book

        budget = {"max_alert_rate": self.max_alert_rate} if self.max_alert_rate is not None \
            else {"max_fpr": self.max_fpr}
        self.rule_set_ = optimize_rule_book(self.rule_book, X, yb, sample_weight=w, cost_matrix=costs,
                                            random_state=self.random_state, **budget)
        self.estimator_ = self.candidates_ = None
        sel = self.rule_set_.selection
        # a book with actions is re-tuned in its order: no precision prior (NaN) and, unless re-tuned, no selection
        self.precision_prior_ = float(sel.get("precision_prior", np.nan))
        self.induction_index_ = np.zeros(0, dtype=np.intp)
        self.selection_index_ = np.asarray(sel.get("selection_index", np.zeros(0, dtype=np.intp)))
        return self

    def _check(self, X):
        check_is_fitted(self)
        import pandas as pd
        check_X_columns(X)
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, skip_check_array=True, reset=False)
        else:
            X = validate_data(self, X, ensure_all_finite=False, reset=False)
        check_X_values(X, allow_nan=True, who="RIFFClassifier")  # rules read NaN as missing; an inf as in fit
        return X

    @fill_doc
    def predict_proba(self, X):
        """Alert probability of the rule set: 1 where an always-on rule covers the row, rho (the last rule's probability) where only the last rule does, else 0.

        %(Parameters, X, returns_proba)s
        """
        X = self._check(X)
        p = self.rule_set_.predict_proba(X)
        return np.column_stack([1.0 - p, p])

    @fill_doc
    def predict(self, X):
        """``classes_[1]`` where a rule fires (the randomised last rule rounded), else ``classes_[0]``.

        %(Parameters, X, returns_labels)s
        """
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(int)]

    @fill_doc
    def decision_function(self, X):
        """The rule set's P(y=1) per row.

        %(Parameters, X)s

        Returns
        -------
        ndarray of shape (n_samples,)
            P(y=1) per row.
        """
        return self.predict_proba(X)[:, 1]
