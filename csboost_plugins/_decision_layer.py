"""Decision layer of the AEC boosting estimators: ``decision="auto"`` and the money guard.

Benchmark 6 (``benchmarks/bench_money_recipes.py``, results in
``benchmarks/results/money_recipes.md``) measured, on realised test savings, the AEC
model's own decision s > 1/2 against logloss boosting + Bayes minimum risk (BMR) and
against AEC variants (cost features, a warm start at the logloss model's Bayes decision,
a logloss-to-AEC schedule, isotonic maps). No single rule wins everywhere: with each
row's costs known at decision time, logloss + BMR is the best or tied on the bundled
sets and the synthetic fraud set, while the AEC rules win on the real card-fraud file
(BMR on the AEC probability, 10 of 10 folds). The recipe that is never worse is
therefore chosen per problem on the validation set:

``decision="auto"`` (needs ``eval_set`` with ``eval_costs``)
    besides the AEC booster (``booster_``), fit a logloss booster with the same tree
    parameters (``logloss_booster_``; always early-stopped on the validation logloss,
    patience ``early_stopping_rounds`` or 30: unstopped logloss boosting overfits its
    probabilities, which BMR then trusts) and score on the last eval set the savings
    (paper eq. 5) of three rules

    * ``"aec"``: s > 1/2 on the AEC probability (no costs needed at prediction),
    * ``"aec+bmr"``: BMR on the AEC probability with each row's costs,
    * ``"logloss+bmr"``: BMR on the logloss probability with each row's costs;

    keep logloss + BMR unless an AEC rule saves more by more than ``AUTO_Z`` = 2 standard
    errors of the paired per-row difference (:func:`choose_rule`), as ``decision_``
    (the validation savings in ``validation_savings_``), and log the choice (logger ``csboost_plugins``, a warning
    when the AEC rules lose to logloss + BMR). ``predict(X, fp_cost=..., fn_cost=...)``
    applies that rule; ``predict_proba`` / ``decision_function`` give the probability
    the rule thresholds (the logloss model's when ``decision_ == "logloss+bmr"``).

The money guard (every fit): when the fitted model's decision saves less than the
cheaper trivial policy (savings < 0) on the validation set (or on the training rows
without an eval set), a :class:`MoneyLossWarning` names the likely cause with numbers:
the costs' drivers not among the features (BMR with the rows' costs would save money),
too few rounds (training savings < 0 too), or fp/fn costs swapped (the decisions would
save money with the two exchanged).
"""

from __future__ import annotations

import logging
import warnings

import numpy as np

from . import _aec
from .costs import FN, FP
from .decision_costs import bmr_decisions, row_cost, savings_from_costs, trivial_policy_costs

__all__ = ["DECISIONS", "RULES", "MoneyLossWarning", "after_fit", "metric_decision", "predict_rule"]

logger = logging.getLogger("csboost_plugins")

#: accepted values of the estimators' ``decision`` parameter
DECISIONS = ("0.5", "bmr", "auto")
#: rules ``decision="auto"`` chooses from; the first is kept unless another clearly saves more
RULES = ("logloss+bmr", "aec", "aec+bmr")
#: standard errors by which an AEC rule's validation gain must exceed logloss + BMR's to be chosen
AUTO_Z = 2.0


class MoneyLossWarning(UserWarning):
    """The fitted model's decisions cost more than the cheaper trivial policy (savings < 0)."""


def metric_decision(decision) -> str:
    """Decision rule of the "savings" eval metric for the estimators' ``decision``.

    Parameters
    ----------
    decision : {"0.5", "bmr", "auto"}
        The estimator's ``decision`` parameter.

    Returns
    -------
    str
        "0.5" or "bmr" ("auto" watches the AEC booster's own decision, "0.5").

    Raises
    ------
    ValueError
        If ``decision`` is not one of :data:`DECISIONS`.
    """
    if decision not in DECISIONS:
        raise ValueError(f"decision must be one of {DECISIONS}, got {decision!r}")
    return "0.5" if decision == "auto" else decision


def savings(y, pred, costs, sample_weight=None) -> float:
    """Savings (paper eq. 5) of 0/1 decisions against the cheaper trivial policy.

    Parameters
    ----------
    y : ndarray of shape (n,)
        0/1 labels.
    pred : ndarray of shape (n,)
        0/1 decisions.
    costs : ndarray of shape (n, 4)
        ``[C_FP, C_FN, C_TP, C_TN]`` per row (money).
    sample_weight : ndarray of shape (n,), optional
        Row weights.

    Returns
    -------
    float
        ``(base - cost) / |base|`` with ``base`` the cheaper of "all 0" / "all 1" (unitless;
        :func:`~csboost_plugins.decision_costs.savings_from_costs`); nan when that trivial policy costs 0.
    """
    c0, c1 = trivial_policy_costs(y, costs, sample_weight)
    base = min(c0, c1)
    cost = row_cost(y, pred, costs)
    cost = float(cost.sum() if sample_weight is None else cost @ sample_weight)
    return savings_from_costs(cost, base) if base != 0 else float("nan")  # benefits can make base < 0


def rule_decisions(rule, s, costs):
    """0/1 decisions of one of :data:`RULES` on probabilities ``s``.

    Parameters
    ----------
    rule : {"aec", "aec+bmr", "logloss+bmr"}
        "aec" decides s > 1/2; the BMR rules decide 1 iff the risk of 1 is lower (paper eq. 2).
    s : ndarray of shape (n,)
        Probabilities of class 1.
    costs : ndarray of shape (n, 4) or None
        Per-row costs (money); needed by the BMR rules.

    Returns
    -------
    ndarray of shape (n,)
        int64 decisions.
    """
    if rule == "aec":
        return (s > 0.5).astype(np.int64)
    return bmr_decisions(s, costs)


# ------------------------------------------------------------------ the logloss booster
LOGLOSS_PATIENCE = 30  # rounds without a better validation logloss before the logloss booster stops


def _patience(est):
    return est.early_stopping_rounds or LOGLOSS_PATIENCE


def _fit_logloss(est, X, y, w, evals):
    """A logloss booster with ``est``'s tree parameters (native xgboost / lightgbm booster)."""
    if hasattr(est, "_dmatrix"):  # xgboost
        import xgboost as xgb

        params = est._native_params(0.0)
        for k in ("base_score", "disable_default_eval_metric"):
            params.pop(k, None)
        params.update(objective="binary:logistic", eval_metric="logloss")
        dtrain = est._dmatrix(X, y, w)
        devals = [(est._dmatrix(Xk, yk, wk), f"validation_{k}") for k, (Xk, yk, _, wk) in enumerate(evals)]
        bst = xgb.train(params, dtrain, est.n_estimators, evals=devals, verbose_eval=False,
                        early_stopping_rounds=_patience(est) if devals else None)
        if devals:
            from ._xgb_native import first_rounds

            bst = first_rounds(bst, bst.best_iteration + 1)
        return bst
    import lightgbm as lgb

    params = {**est._native_params(), "objective": "binary", "metric": "binary_logloss",
              "feature_pre_filter": False}
    ds_params = {k: v for k, v in params.items() if k != "objective"}
    dtrain = est._dataset(X, y, w, None, 0.0, None, ds_params)
    dtrain.set_init_score(None)  # logloss boosts from the average, as lightgbm's own binary objective
    valid = []
    for Xk, yk, _, wk in evals:
        dv = est._dataset(Xk, yk, wk, None, 0.0, dtrain, ds_params)
        dv.set_init_score(None)
        valid.append(dv)
    cbs = [lgb.early_stopping(_patience(est), verbose=False)] if valid else []
    bst = lgb.train(params, dtrain, est.n_estimators, valid_sets=valid or None, callbacks=cbs)
    if cbs:
        bst = lgb.Booster(model_str=bst.model_to_string(num_iteration=bst.best_iteration))
    return bst


def logloss_margin(est, X):
    """Margin (log-odds) of the logloss booster of a ``decision="auto"`` estimator.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        Fitted with ``decision="auto"``.
    X : ndarray or DataFrame of shape (n, p)
        Validated features.

    Returns
    -------
    ndarray of shape (n,)
        float64 margins.
    """
    bst = est.logloss_booster_
    if hasattr(est, "_dmatrix"):  # xgboost
        return bst.predict(est._dmatrix(X), output_margin=True).astype(np.float64)
    return np.asarray(bst.predict(X, raw_score=True), dtype=np.float64)


# ------------------------------------------------------------------ hooks of the estimators
def after_fit(est, X, y, costs, w, evals, unit_costs):
    """Hook at the end of the estimators' ``fit``: ``decision="auto"`` and the money guard.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        With ``booster_`` fitted.
    X, y, costs, w : training features, 0/1 labels, (n, 4) costs (money) and weights or None.
    evals : list of (X_k, y_k, costs_k, w_k)
        Validated eval sets; the last one is the validation set.
    unit_costs : bool
        True when ``fit`` got no costs (unit costs C_FP = C_FN = 1).

    Sets ``decision_``, ``validation_savings_``, ``logloss_booster_`` on ``est``; may warn
    :class:`MoneyLossWarning`.
    """
    est._unit_costs_ = bool(unit_costs)
    est.logloss_booster_ = None
    est.validation_savings_ = None
    if est.decision == "auto":
        if not evals:
            raise ValueError("decision='auto' chooses its rule on validation savings: pass eval_set=[(X_val, "
                             "y_val)] and eval_costs=[{'fp_cost': ..., 'fn_cost': ...}]")
        Xv, yv, cv, wv = evals[-1]
        est.logloss_booster_ = _fit_logloss(est, X, y, w, evals)
        s_aec = _aec.sigmoid(est._margin(Xv))
        s_ll = _aec.sigmoid(logloss_margin(est, Xv))
        probs = {"logloss+bmr": s_ll, "aec": s_aec, "aec+bmr": s_aec}
        preds = {r: rule_decisions(r, probs[r], cv) for r in RULES}
        est.validation_savings_ = vs = {r: savings(yv, preds[r], cv, wv) for r in RULES}
        est.decision_ = choose_rule(yv, preds, cv, wv)
        msg = (f"{type(est).__name__}(decision='auto'): validation savings "
               + ", ".join(f"{r} {v:.4f}" for r, v in vs.items()) + f"; using {est.decision_!r}")
        if est.decision_ == "logloss+bmr":
            logger.warning(msg + f" (no AEC rule beat logloss + Bayes minimum risk by {AUTO_Z:g} standard errors "
                           "on this validation set: the model is the logloss booster)")
        else:
            logger.info(msg)
    else:
        est.decision_ = "aec"  # predict(X): s > 1/2; with costs: BMR (paper eq. 2)
    _money_guard(est, X, y, costs, w, evals)


def choose_rule(y, preds, costs, sample_weight=None, z=AUTO_Z):
    """The rule that ``decision="auto"`` keeps, from each rule's decisions on the validation set.

    logloss + BMR unless an AEC rule saves more money by more than ``z`` standard errors
    of the paired difference: with per-row cost differences
    ``delta_i = w_i (cost_i(logloss+bmr) - cost_i(rule))`` (money), the gain is
    ``sum delta`` and its standard error ``sqrt(n) * std(delta)``; among the rules that
    pass, the largest gain wins. Validation savings of 0/1 decisions are dominated by
    few expensive rows, so a plain arg-max switches on noise (benchmark 6).

    Parameters
    ----------
    y : ndarray of shape (n,)
        0/1 labels of the validation set.
    preds : dict
        Rule name (every one of :data:`RULES`) -> 0/1 decisions of shape (n,).
    costs : ndarray of shape (n, 4)
        Per-row costs (money).
    sample_weight : ndarray of shape (n,), optional
        Row weights.
    z : float, default :data:`AUTO_Z`
        Standard errors the gain must exceed (0: any positive gain).

    Returns
    -------
    str
        One of :data:`RULES`.
    """
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
    base_cost = row_cost(y, preds["logloss+bmr"], costs) * w
    best, best_gain = "logloss+bmr", 0.0
    for rule in RULES[1:]:
        delta = base_cost - row_cost(y, preds[rule], costs) * w
        gain = float(delta.sum())
        se = float(np.sqrt(delta.shape[0]) * delta.std())
        if gain > z * se and gain > best_gain:
            best, best_gain = rule, gain
    return best


def check_savable(est):
    """Refuse ``save_model`` of a ``decision="auto"`` model: one native file holds one booster.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        Fitted.

    Raises
    ------
    ValueError
        If ``est.decision == "auto"`` (its rule may use ``logloss_booster_``).
    """
    if est.decision == "auto":
        raise ValueError(
            f"save_model writes one native booster, but this decision='auto' model decides with "
            f"{getattr(est, 'decision_', '?')!r} and holds two (booster_ and logloss_booster_): save it with "
            "pickle / joblib, or save est.logloss_booster_ / est.booster_ natively")


def _needs_costs(est):
    return est.decision_ in ("aec+bmr", "logloss+bmr")


def decision_booster(est):
    """The booster whose probability a fitted estimator's decision thresholds: ``logloss_booster_`` when
    ``decision_ == "logloss+bmr"``, else ``booster_``.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        Fitted.

    Returns
    -------
    xgboost.Booster or lightgbm.Booster
    """
    return est.logloss_booster_ if getattr(est, "decision_", None) == "logloss+bmr" else est.booster_


def margin(est, X):
    """Margin of the probability a fitted estimator's decision thresholds.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        Fitted.
    X : ndarray or DataFrame of shape (n, p)
        Validated features.

    Returns
    -------
    ndarray of shape (n,)
        The logloss booster's margin when ``decision_ == "logloss+bmr"``, else the AEC booster's.
    """
    if getattr(est, "decision_", None) == "logloss+bmr":
        return logloss_margin(est, X)
    return est._margin(X)


def predict_rule(est, s, costs):
    """0/1 decisions of a ``decision="auto"`` estimator.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        Fitted with ``decision="auto"``.
    s : ndarray of shape (n,)
        Its probabilities (``predict_proba(X)[:, 1]``).
    costs : ndarray of shape (n, 4) or None
        The rows' costs (money); required when ``decision_`` is a BMR rule, unless the
        model was fitted without costs (unit costs are used then).

    Returns
    -------
    ndarray of shape (n,)
        int64 decisions.

    Raises
    ------
    ValueError
        If the rule needs costs and none are given.
    """
    if _needs_costs(est) and costs is None:
        if not est._unit_costs_:
            raise ValueError(
                f"this model decides by {est.decision_!r} (chosen on validation savings, see decision_ and "
                "validation_savings_): pass the rows' costs, predict(X, fp_cost=..., fn_cost=...) or "
                "cost_matrix=...")
        costs = np.tile([1.0, 1.0, 0.0, 0.0], (s.shape[0], 1))  # fitted without costs: unit costs
    return rule_decisions(est.decision_, s, costs)


# ------------------------------------------------------------------ the money guard
def _money_guard(est, X, y, costs, w, evals):
    where, (Xg, yg, cg, wg) = ("validation", evals[-1]) if evals else ("training", (X, y, costs, w))
    s = _aec.sigmoid(margin(est, Xg))
    rule = est.decision_
    sav = savings(yg, rule_decisions(rule, s, cg), cg, wg)
    if not (np.isfinite(sav) and sav < 0):
        return
    causes = []
    bmr = savings(yg, bmr_decisions(s, cg), cg, wg)
    if rule == "aec" and np.isfinite(bmr) and bmr > max(sav, 0.0):
        causes.append(f"the costs' drivers (e.g. the amount) may not be among the features: deciding with each "
                      f"row's costs, predict(X, fp_cost=..., fn_cost=...), saves {bmr:.4f} here; add them as "
                      "features or fit with decision='auto'")
    if where == "validation":
        s_tr = _aec.sigmoid(margin(est, X))
        tr = savings(y, rule_decisions(rule, s_tr, costs), costs, w)
        if np.isfinite(tr) and tr < 0.05:
            causes.append(f"too few rounds / too little capacity: training savings are {tr:.4f} after "
                          f"{est.n_estimators_} rounds (raise n_estimators or learning_rate)")
    else:
        causes.append(f"too few rounds / too little capacity ({est.n_estimators_} rounds; raise n_estimators or "
                      "learning_rate)")
    swapped = costs_swapped(cg)
    sw = savings(yg, rule_decisions(rule, s, swapped), swapped, wg)
    if np.isfinite(sw) and sw > 0:
        causes.append(f"fp_cost and fn_cost may be swapped: with the two exchanged these decisions save {sw:.4f}")
    if not causes:
        causes.append("no cause found among: costs' drivers not among the features, too few rounds, fp/fn costs "
                      "swapped; the trivial policy may simply be hard to beat with these features")
    warnings.warn(MoneyLossWarning(
        f"{type(est).__name__}: the fitted decisions ({rule}) lose money on the {where} set: savings {sav:.4f} "
        "< 0, i.e. they cost more than the cheaper of 'flag every row' / 'flag none'. Likely: "
        + "; ".join(causes) + "."), stacklevel=5)


def costs_swapped(costs):
    """The cost matrix with the C_FP and C_FN columns exchanged.

    Parameters
    ----------
    costs : ndarray of shape (n, 4)
        ``[C_FP, C_FN, C_TP, C_TN]`` (money).

    Returns
    -------
    ndarray of shape (n, 4)
        A copy with columns C_FP and C_FN swapped.
    """
    out = costs.copy()
    out[:, [FP, FN]] = costs[:, [FN, FP]]
    return out
