"""Shared scikit-learn estimator logic of ``CSXGBClassifier`` and ``CSLGBMClassifier``.

The base validates X, y, costs, sample weights and eval sets once, then hands
plain float64 arrays to the library-specific ``_fit_booster`` / ``_margin``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _aec
from .costs import check_binary_labels, check_costs, check_fit_costs
from .metrics import bayes_minimum_risk

_COST_KEYS = ("fp_cost", "fn_cost", "tp_cost", "tn_cost", "cost_matrix")


def native_seed(random_state) -> int:
    """The integer seed handed to xgboost / lightgbm for a scikit-learn ``random_state``."""
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class CostSensitiveBoostingMixin(ClassifierMixin, BaseEstimator):
    """Base of the AEC boosting estimators (not public).

    Subclasses implement ``_fit_booster(X, y, costs, w, evals, margin0)`` where
    ``evals`` is a list of ``(X, y, costs, w)`` and ``_margin(X)``.
    """

    def _check_common_params(self):
        _aec.check_hessian_params(self.hessian, self.hessian_floor, self.logloss_weight)
        if not (isinstance(self.n_estimators, numbers.Integral) and self.n_estimators >= 1):
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not (isinstance(self.learning_rate, numbers.Real) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate!r}")
        _aec.check_metric_params(self.eval_metric, self.decision, "margin")
        esr = self.early_stopping_rounds
        if esr is not None and not (isinstance(esr, numbers.Integral) and esr >= 1):
            raise ValueError(f"early_stopping_rounds must be None or an integer >= 1, got {esr!r}")

    def _validate_X(self, X, reset, y=None):
        kw = dict(dtype=np.float64, ensure_all_finite="allow-nan", reset=reset)
        try:
            return validate_data(self, X, **kw) if y is None else validate_data(self, X, y, **kw)
        except ValueError as exc:
            if "could not convert" in str(exc) or "dtype" in str(exc):
                raise ValueError(f"X must be numeric (encode categorical columns first): {exc}") from exc
            raise

    def fit(self, X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
            sample_weight=None, eval_set=None, eval_costs=None, eval_sample_weight=None):
        """Fit boosted trees minimising the average expected cost (csboost paper eq. 7).

        Parameters
        ----------
        X : array-like or DataFrame (n, p), numeric (NaN allowed: missing values)
        y : array-like (n,), two classes (sorted unique values map to 0 / 1)
        fp_cost, fn_cost, tp_cost, tn_cost : scalar or (n,) money per row
            Or ``cost_matrix`` (n, 4) ``[C_FP, C_FN, C_TP, C_TN]``. With no costs at
            all, unit costs C_FP = C_FN = 1 are used (AEC = expected 0-1 loss), so
            the estimator also works where no money is known (scikit-learn checks).
        sample_weight : (n,), optional
            Multiplies each row's gradient, hessian and metric contribution.
        eval_set : list of (X_k, y_k), optional
            Sets evaluated each round; early stopping watches the last one.
        eval_costs : list, one per eval set
            Each a dict of ``fp_cost``/``fn_cost``/``tp_cost``/``tn_cost`` (or
            ``cost_matrix``) for that set's rows, or an (n_k, 4) array. Required with
            ``eval_set`` when training costs are given: costs are never matched to
            an eval set by length or order.
        eval_sample_weight : list of (n_k,) or None, optional
        """
        self._check_common_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X, y = self._validate_X(X, reset=True, y=y)
        check_classification_targets(y)
        kind = type_of_target(y)
        if kind != "binary":
            raise ValueError(f"Only binary classification is supported. The type of the target is {kind}.")
        y01, classes = check_binary_labels(y, name="y", require_both=True, return_classes=True)
        if y01.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y01.shape[0]} rows but X has {X.shape[0]}")
        self.classes_ = classes
        costs = check_fit_costs(X.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                cost_matrix=cost_matrix)
        w = None if sample_weight is None else _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        evals = self._check_evals(eval_set, eval_costs, eval_sample_weight,
                                  unit=(fp_cost is None and fn_cost is None and cost_matrix is None))
        if self.early_stopping_rounds is not None and not evals:
            raise ValueError("early_stopping_rounds needs an eval_set (with its eval_costs)")
        d = _aec.regret_difference(y01, costs)
        self.cost_scale_ = _aec.cost_scale(d, w)
        self.start_margin_ = _aec.start_margin(y01, w, kind=self.start_margin, d=d)
        self._fit_booster(X, y01.astype(np.float64), costs, w, evals, self.start_margin_)
        return self

    def _check_evals(self, eval_set, eval_costs, eval_sample_weight, unit):
        if eval_set is None:
            if eval_costs is not None:
                raise ValueError("eval_costs given without eval_set")
            return []
        if isinstance(eval_set, tuple):
            eval_set = [eval_set]
        eval_set = list(eval_set)
        if eval_costs is None:
            if not unit:
                raise ValueError(
                    "eval_costs is required with eval_set: one dict of fp_cost/fn_cost/... (or an (n_k, 4) "
                    "cost matrix) per eval set; costs are never matched to eval sets by length or order"
                )
            eval_costs = [{}] * len(eval_set)
        if isinstance(eval_costs, dict) or (hasattr(eval_costs, "ndim") and getattr(eval_costs, "ndim", 0) == 2):
            eval_costs = [eval_costs]
        eval_costs = list(eval_costs)
        if len(eval_costs) != len(eval_set):
            raise ValueError(f"eval_costs has {len(eval_costs)} entries but eval_set has {len(eval_set)} sets")
        if eval_sample_weight is None:
            eval_sample_weight = [None] * len(eval_set)
        if len(eval_sample_weight) != len(eval_set):
            raise ValueError("eval_sample_weight needs one entry (or None) per eval set")
        out = []
        for k, ((Xk, yk), ck, wk) in enumerate(zip(eval_set, eval_costs, eval_sample_weight)):
            Xk = self._validate_X(Xk, reset=False)
            yk = check_binary_labels(yk, name=f"eval_set[{k}] y", require_both=False)
            if yk.shape[0] != Xk.shape[0]:
                raise ValueError(f"eval_set[{k}]: y has {yk.shape[0]} rows but X has {Xk.shape[0]}")
            if isinstance(ck, dict):
                unknown = set(ck) - set(_COST_KEYS)
                if unknown:
                    raise ValueError(f"eval_costs[{k}] has unknown keys {sorted(unknown)}; use {_COST_KEYS}")
                kw = dict(ck)
                kw.setdefault("tp_cost", 0.0)
                kw.setdefault("tn_cost", 0.0)
                ck = check_fit_costs(Xk.shape[0], fp_cost=kw.get("fp_cost"), fn_cost=kw.get("fn_cost"),
                                     tp_cost=kw["tp_cost"], tn_cost=kw["tn_cost"], cost_matrix=kw.get("cost_matrix"))
            else:
                ck = check_costs(Xk.shape[0], cost_matrix=ck)
            if wk is not None:
                wk = _check_sample_weight(wk, Xk, ensure_non_negative=True)
            out.append((Xk, yk.astype(np.float64), ck, wk))
        return out

    # -------------------------------------------------------------- prediction
    def decision_function(self, X):
        """Margin eta (log-odds of the cost-trained probability), start margin included."""
        check_is_fitted(self, "booster_")
        X = self._validate_X(X, reset=False)
        return self._margin(X)

    def predict_proba(self, X):
        """(n, 2) probabilities ``[1 - s, s]`` with s = sigmoid(margin)."""
        s = _aec.sigmoid(self.decision_function(X))
        return np.column_stack([1.0 - s, s])

    def predict(self, X, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
        """Class labels.

        Without costs: s > 1/2 on the cost-trained probability (the AEC already
        holds the training money). With the rows' costs (``fp_cost``/``fn_cost``/...
        or ``cost_matrix``): Bayes minimum risk, predict 1 iff
        ``s C_TP + (1-s) C_FP < s C_FN + (1-s) C_TN`` (paper eq. 2).
        """
        s = self.predict_proba(X)[:, 1]
        if fp_cost is None and fn_cost is None and cost_matrix is None:
            pred = (s > 0.5).astype(np.int64)
        else:
            pred = bayes_minimum_risk(s, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                      cost_matrix=cost_matrix)
        return self.classes_[pred]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.classifier_tags.multi_class = False
        return tags
