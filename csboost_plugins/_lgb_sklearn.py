"""scikit-learn wrapper of the lightgbm AEC plugin: :class:`CSLGBMClassifier`.

Public as ``csboost_plugins.lgb.CSLGBMClassifier``; the native helpers live in
:mod:`csboost_plugins.lgb`, which this module imports (never the reverse).
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np

from . import _money_eval
from ._boosting_sklearn import CostSensitiveBoostingMixin, native_seed
from .callback import early_stopping
from .lgb import AECObjective, bake_start_margin, money_metrics

__all__ = ["CSLGBMClassifier"]


class CSLGBMClassifier(CostSensitiveBoostingMixin):
    """lightgbm trees trained on the average expected cost, as a scikit-learn classifier.

    Same fit / predict contract as :class:`csboost_plugins.xgb.CSXGBClassifier`.
    The start margin is the training init score and is baked into the first tree
    (``booster_.predict(X, raw_score=True)`` includes it).

    Parameters
    ----------
    n_estimators, learning_rate, num_leaves, max_depth, min_child_samples,
    min_child_weight (min_sum_hessian_in_leaf, on the cost-scaled hessian),
    reg_lambda, reg_alpha, subsample, subsample_freq, colsample_bytree, max_bin :
        lightgbm parameters.
    hessian, hessian_floor, logloss_weight, start_margin, early_stopping_rounds,
    eval_metric, decision, random_state, n_jobs, params :
        as in :class:`csboost_plugins.xgb.CSXGBClassifier`.
    """

    def __init__(self, n_estimators=100, learning_rate=0.1, num_leaves=31, max_depth=-1, min_child_samples=20,
                 min_child_weight=1e-3, reg_lambda=0.0, reg_alpha=0.0, subsample=1.0, subsample_freq=0,
                 colsample_bytree=1.0, max_bin=255, hessian="abs", hessian_floor=0.1, logloss_weight=0.0,
                 start_margin="cost_prior", early_stopping_rounds=None, eval_metric="aec", decision="0.5",
                 random_state=None, n_jobs=None, params=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.max_depth = max_depth
        self.min_child_samples = min_child_samples
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.subsample = subsample
        self.subsample_freq = subsample_freq
        self.colsample_bytree = colsample_bytree
        self.max_bin = max_bin
        self.hessian = hessian
        self.hessian_floor = hessian_floor
        self.logloss_weight = logloss_weight
        self.start_margin = start_margin
        self.early_stopping_rounds = early_stopping_rounds
        self.eval_metric = eval_metric
        self.decision = decision
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.params = params

    def _native_params(self):
        p = {
            "objective": AECObjective(hessian=self.hessian, hessian_floor=self.hessian_floor,
                                      logloss_weight=self.logloss_weight, cost_scale=self.cost_scale_),
            "learning_rate": self.learning_rate, "num_leaves": self.num_leaves, "max_depth": self.max_depth,
            "min_data_in_leaf": self.min_child_samples, "min_sum_hessian_in_leaf": self.min_child_weight,
            "lambda_l2": self.reg_lambda, "lambda_l1": self.reg_alpha, "bagging_fraction": self.subsample,
            "bagging_freq": self.subsample_freq, "feature_fraction": self.colsample_bytree,
            "max_bin": self.max_bin, "seed": native_seed(self.random_state), "verbose": -1, "deterministic": True,
            "force_row_wise": True,
        }
        if self.n_jobs is not None:
            p["num_threads"] = self.n_jobs
        p.update(self.params or {})
        return p

    def _fit_booster(self, X, y, costs, w, evals, margin0):
        dtrain = lgb.Dataset(X, label=y, weight=w, init_score=np.full(X.shape[0], margin0), free_raw_data=False,
                             params={"max_bin": self.max_bin, "verbose": -1})
        _money_eval.store_costs(dtrain, costs)
        valid_sets, names = [], []
        for k, (Xk, yk, ck, wk) in enumerate(evals):
            dv = lgb.Dataset(Xk, label=yk, weight=wk, init_score=np.full(Xk.shape[0], margin0), reference=dtrain,
                             free_raw_data=False)
            _money_eval.store_costs(dv, ck)
            valid_sets.append(dv)
            names.append(f"validation_{k}")
        evals_result = {}
        callbacks = [lgb.record_evaluation(evals_result)]
        if self.early_stopping_rounds is not None:
            callbacks.append(early_stopping(self.early_stopping_rounds, data_name=names[-1], metric=self.eval_metric))
        feval = money_metrics(decision=self.decision) if valid_sets else None
        bst = lgb.train(self._native_params(), dtrain, self.n_estimators, valid_sets=valid_sets or None,
                        valid_names=names or None, feval=feval, callbacks=callbacks)
        self.best_iteration_ = None
        if self.early_stopping_rounds is not None:
            self.best_iteration_ = int(bst.best_iteration)
            bst = lgb.Booster(model_str=bst.model_to_string(num_iteration=self.best_iteration_))
        bake_start_margin(bst, margin0)
        self.booster_ = bst
        self.evals_result_ = evals_result
        self.n_estimators_ = bst.current_iteration()

    def _margin(self, X):
        return np.asarray(self.booster_.predict(X, raw_score=True), dtype=np.float64)
