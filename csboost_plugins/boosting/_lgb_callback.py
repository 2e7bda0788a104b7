"""lightgbm callbacks for money: early stopping on one named metric of one named eval set,
and per-iteration recording of savings / expected savings of every eval set.

lightgbm's own ``early_stopping`` stops on *any* metric of *any* validation set;
:func:`early_stopping` watches exactly ``(data_name, metric)``, e.g. the savings of
the validation set, whatever else is reported.
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np

from ._aec import money_metric_from_sums
from ._lgb_data import MoneyMetric, get_costs, preds_kind
from ._money_eval import COSTS_ATTR, DEFAULT_METRIC_DECISION, DEFAULT_WATCH
from .._params import store_init_args

__all__ = ["early_stopping", "record_money"]


class _EarlyStoppingCallback:
    def __init__(self, stopping_rounds, data_name, metric, min_delta, verbose):
        # instance attributes: lgb.train setdefault()s "order" in the instance __dict__
        self.order = 30
        self.before_iteration = False
        if not (isinstance(stopping_rounds, int) and stopping_rounds >= 1):
            raise ValueError(f"stopping_rounds must be an integer >= 1, got {stopping_rounds!r}")
        if min_delta < 0:
            raise ValueError(f"min_delta must be >= 0, got {min_delta!r}")
        store_init_args(self, locals())
        self._reset()

    def _reset(self):
        self.best_score = None
        self.best_iter = 0
        self.best_result = None

    def _find(self, env):
        names = []
        train_name = _train_name(env.model)
        for item in env.evaluation_result_list:
            data_name, metric_name, value, higher_better = item[:4]
            if data_name == "cv_agg":  # lgb.cv of lightgbm < 4.7: ("cv_agg", "valid aec", ...)
                data_name, _, metric_name = metric_name.partition(" ")
            names.append((data_name, metric_name))
            if metric_name == self.metric and (self.data_name is None or data_name == self.data_name):
                if data_name != train_name or data_name == self.data_name:
                    return value, higher_better
        raise ValueError(
            f"early_stopping: no metric {self.metric!r} on eval set {self.data_name!r}; reported are {names}. "
            "Pass valid_sets= with that name and feval= (e.g. csboost_plugins.lgb.money_metrics)"
        )

    def __call__(self, env):
        if env.iteration == env.begin_iteration:
            self._reset()
        value, higher_better = self._find(env)
        better = (self.best_score is None
                  or (value > self.best_score + self.min_delta if higher_better
                      else value < self.best_score - self.min_delta))
        if better:
            self.best_score, self.best_iter, self.best_result = value, env.iteration, env.evaluation_result_list
        elif env.iteration - self.best_iter >= self.stopping_rounds:
            if self.verbose:
                print(f"early stopping at [{self.best_iter + 1}] {self.data_name} {self.metric}: {self.best_score}")
            raise lgb.callback.EarlyStopException(self.best_iter, self.best_result)
        if env.iteration == env.end_iteration - 1:  # lets lgb.train set best_iteration at the end too
            raise lgb.callback.EarlyStopException(self.best_iter, self.best_result)


def _train_name(booster):
    """The name lightgbm gave the training set: "train" in ``lgb.cv``; in ``lgb.train`` its entry of
    ``valid_names`` when it is among the ``valid_sets``, else "training"."""
    if isinstance(booster, lgb.CVBooster):
        return "train"
    return getattr(booster, "_train_data_name", "training")


def early_stopping(stopping_rounds, *, data_name=None, metric=DEFAULT_WATCH, min_delta=0.0, verbose=False):
    """Stop when ``metric`` of eval set ``data_name`` has not improved for ``stopping_rounds`` rounds.

    Direction comes from the metric's ``is_higher_better``. ``booster.best_iteration``
    is set to the best round (1-based), also when training runs to the end.

    Parameters
    ----------
    stopping_rounds : int >= 1
    data_name : str, optional
        Eval set watched (a name of ``valid_names``); None: the first validation
        set (not the training set) reporting ``metric``.
    metric : {"aec", "expected_savings", "savings"}, default "aec"
        "aec" is smooth; the savings of 0/1 decisions are flat while every s is on
        one side of 1/2.
    min_delta : float >= 0, default 0
    verbose : bool, default False
        Print the stopping round.

    Returns
    -------
    callable
        A lightgbm callback.
    """
    return _EarlyStoppingCallback(stopping_rounds, data_name, metric, min_delta, verbose)


class _RecordMoneyCallback:
    def __init__(self, eval_result, decision):
        self.order = 20  # before early stopping, so the stopping round is recorded too
        self.before_iteration = False
        if not isinstance(eval_result, dict):
            raise TypeError("eval_result must be a dict")
        self.eval_result = eval_result
        self.decision = decision
        self._metrics = {kind: MoneyMetric("savings", decision=decision, preds=kind)
                         for kind in ("margin", "probability")}

    def _feval(self, preds, dataset):
        """savings and expected_savings of one set from one pass of the money-sums kernel."""
        sums = self._metrics[self._kind].sums(preds, dataset)
        return [(k, money_metric_from_sums(k, sums, self.decision), True) for k in ("savings", "expected_savings")]

    def _money(self, bst, train_name):
        """{set name: {metric: value}} of one booster's training set (if it has costs) and eval sets."""
        sets = [(bst.train_set, train_name)] if getattr(bst.train_set, COSTS_ATTR, None) is not None else []
        sets += list(zip(bst.valid_sets, bst.name_valid_sets))
        out = {}
        for ds, name in sets:
            get_costs(ds)  # clear error for an eval set without costs
            # Booster.eval reuses lightgbm's cached scores of a registered set: no re-prediction
            res = bst.eval_train(feval=self._feval) if ds is bst.train_set else bst.eval(ds, name, feval=self._feval)
            out[name] = {r[1]: r[2] for r in res if r[1] in ("savings", "expected_savings")}
        return out

    def __call__(self, env):
        if env.iteration == env.begin_iteration:
            self.eval_result.clear()
        self._kind = preds_kind(env.params)
        if isinstance(env.model, lgb.CVBooster):  # lgb.cv: the mean over folds, as lgb.cv reports feval
            folds = [self._money(b, "train") for b in env.model.boosters]
        else:
            folds = [self._money(env.model, _train_name(env.model))]
        for name, metrics in folds[0].items():
            rec = self.eval_result.setdefault(name, {})
            for metric_name in metrics:
                rec.setdefault(metric_name, []).append(float(np.mean([f[name][metric_name] for f in folds])))


def record_money(eval_result, *, decision=DEFAULT_METRIC_DECISION):
    """Record savings and expected savings of every eval set (and the training set if it has costs) each round.

    Values are computed from lightgbm's cached raw scores with each set's own costs,
    independent of ``feval``: margins under the AEC objective, probabilities under
    lightgbm's ``binary`` / ``cross_entropy`` (a logloss baseline). In
    ``lgb.cv`` each value is the mean over the folds (as ``lgb.cv`` reports ``feval``),
    under lgb.cv's names "train" and "valid".

    Parameters
    ----------
    eval_result : dict
        Filled as ``{set_name: {"savings": [...], "expected_savings": [...]}}`` with
        the names of ``valid_names`` (the training set: its own entry when it is
        among ``valid_sets``, else "training").
    decision : {"0.5", "bmr"}, default "0.5"
        As in ``money_metric`` (s > 1/2: the estimators' ``predict``).

    Returns
    -------
    callable
        A lightgbm callback.
    """
    return _RecordMoneyCallback(eval_result, decision)
