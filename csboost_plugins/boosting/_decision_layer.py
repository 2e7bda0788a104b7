"""Decision layer of the AEC boosting estimators: ``decision="auto"`` (the default) and the money guard.

``benchmarks/bench_money_recipes.py`` (results in ``benchmarks/results/money_recipes.md``)
measured, on realised test savings, the AEC model's own decision s > 1/2 against logloss
boosting + Bayes minimum risk (BMR) and against AEC variants. No single rule wins
everywhere: with each row's costs known at decision time, logloss + BMR is the best or tied
on the bundled sets and the synthetic fraud set, while the AEC rules can win where the
probability model is poor. The recipe that is never worse is therefore chosen per problem:

``decision="auto"`` (the default)
    The validation rows are the last ``eval_set`` (with its ``eval_costs``); without one, a
    stratified ``validation_fraction`` of the training rows (seeded by ``random_state``) is
    held out and the model is trained on the rest, with no refit (as
    ``HistGradientBoostingClassifier``'s early stopping). Besides the AEC booster, a logloss
    booster with the same tree parameters is fitted on the same data (one ``DMatrix`` /
    ``Dataset``, one binning); both are early-stopped on the validation rows (patience
    ``early_stopping_rounds``, else :data:`AUTO_PATIENCE`: unstopped logloss boosting overfits
    its probabilities, which BMR then trusts). The logloss booster's recipe is set in one place
    (:data:`LOGLOSS_STOP`, :data:`LOGLOSS_ROUNDS`, :data:`LOGLOSS_LR`, :data:`LOGLOSS_REFIT`;
    benchmarks/bench_logloss_recipe.py compared the alternatives); lightgbm's runs with
    :data:`LGB_LOGLOSS_FLOORS` (its own leaf regularisation diverges under the tiny hessians of
    a 0.2 % positive rate). A deciding booster that kept fewer than :data:`FEW_ROUNDS` rounds warns
    :class:`FewRoundsWarning`. Three rules are scored there:

    * ``"aec"``: s > 1/2 on the AEC probability (no costs needed at prediction),
    * ``"aec+bmr"``: BMR on the AEC probability with each row's costs,
    * ``"logloss+bmr"``: BMR on the logloss probability with each row's costs;

    logloss + BMR is kept unless an AEC rule's money gain is clear (:func:`choose_rule`): more
    than :data:`AUTO_Z` standard errors of the paired per-row difference, and still a gain
    without its largest rows (savings of 0/1 decisions are dominated by a few expensive rows).
    ``booster_`` is the chosen rule's booster (``aec_booster_`` / ``logloss_booster_`` hold
    both), so ``predict_proba``, ``get_booster``, ``save_model`` and ``feature_importances_``
    are those of the model that decides; ``decision_`` names the rule and
    ``validation_savings_`` the money behind the choice. With too few rows of a class to hold
    out (fewer than :data:`MIN_VALIDATION_CLASS` per class in the validation part) there is
    no evidence for an AEC rule: both boosters are fitted on every row without early
    stopping and logloss + BMR decides.

The money guard (every fit): when the fitted model's decision saves less than the cheaper
trivial policy (savings < 0) on the validation set (or on the training rows without one), a
:class:`MoneyLossWarning` names the likely cause with numbers (the costs' drivers not among
the features, too few rounds, fp/fn costs swapped). Costs that look swapped (the fitted
decisions flag almost nothing while the same probabilities, decided with the two columns
exchanged, would save money) warn with a :class:`~csboost_plugins.costs.CostWarning` naming
the cure, whatever the savings.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np

from . import _aec
from ..costs import FN, FP
from ..decision_costs import bmr_decisions, row_cost, savings_from_costs, trivial_policy_costs

__all__ = ["DECISIONS", "DEFAULT_DECISION", "RULES", "FewRoundsWarning", "MoneyLossWarning", "after_fit", "choose_rule",
           "holdout", "metric_decision", "predict_rule"]

logger = logging.getLogger("csboost_plugins")

#: accepted values of the estimators' ``decision`` parameter; the first is the default
DECISIONS = ("auto", "0.5", "bmr")
#: the estimators' default ``decision``
DEFAULT_DECISION = DECISIONS[0]
#: share of the training rows ``decision="auto"`` holds out when ``fit`` gets no ``eval_set``
VALIDATION_FRACTION = 0.2
#: fewest rows of each class in the held-out part; with fewer, logloss + BMR decides without a choice
MIN_VALIDATION_CLASS = 10
#: rules ``decision="auto"`` chooses from; the first is kept unless another clearly saves more
RULES = ("logloss+bmr", "aec", "aec+bmr")
#: standard errors by which an AEC rule's validation gain must exceed logloss + BMR's to be chosen: at 2 a
#: data set's mean fell below logloss + BMR, at 3 none did (benchmarks/results/money_default.md)
AUTO_Z = 3.0


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


# ------------------------------------------------------------------ the validation rows
#: rounds without a better validation score before ``decision="auto"`` stops a booster
AUTO_PATIENCE = 30


def patience(est, evals):
    """Early-stopping patience of a fit: ``early_stopping_rounds``, else :data:`AUTO_PATIENCE` with
    ``decision="auto"`` and validation rows, else None (no early stopping)."""
    if est.early_stopping_rounds is not None:
        return est.early_stopping_rounds
    return AUTO_PATIENCE if est.decision == "auto" and evals else None


def holdout(est, y):
    """Rows ``decision="auto"`` trains on and validates on when ``fit`` got no ``eval_set``.

    A stratified split (scikit-learn's ``train_test_split``) of ``validation_fraction`` of
    the rows, seeded by ``random_state`` (None: seed 0, so refits repeat, as the boosters').

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        The estimator being fitted.
    y : ndarray of shape (n,)
        0/1 labels.

    Returns
    -------
    (ndarray, ndarray) or None
        Training and validation row indices, or None when the validation part would hold
        fewer than :data:`MIN_VALIDATION_CLASS` rows of a class (or the training part none).
    """
    from sklearn.model_selection import train_test_split

    from .._params import native_seed

    frac = est.validation_fraction
    counts = np.bincount(y.astype(np.int64), minlength=2)
    if frac is None or np.floor(counts * frac).min() < MIN_VALIDATION_CLASS or (counts * (1 - frac)).min() < 1:
        return None
    seed = 0 if est.random_state is None else native_seed(est.random_state)  # a Generator too, as the boosters
    tr, va = train_test_split(np.arange(y.shape[0]), test_size=frac, stratify=y, random_state=seed)
    return np.sort(tr), np.sort(va)


def check_validation_fraction(value):
    """``validation_fraction``: None or a float in (0, 1); ``ValueError`` naming it otherwise."""
    import numbers

    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"validation_fraction must be None or a float in (0, 1), got {value!r}")


# ------------------------------------------------------------------ the logloss booster
#: the logloss booster's recipe (one place, read by :func:`_fit_logloss`):
#: validation score its early stopping watches: "logloss", "money" (savings of BMR decisions) or None (no
#: early stopping: the whole round budget)
LOGLOSS_STOP = "logloss"
#: its round budget, in multiples of ``n_estimators``
LOGLOSS_ROUNDS = 1
#: its learning rate, in multiples of ``learning_rate``
LOGLOSS_LR = 1.0
#: refit it on every row (training + held-out part) with its kept round count when it decides and the
#: validation rows were held out of the training rows (no ``eval_set``)
LOGLOSS_REFIT = False
#: lower bounds of lightgbm's logloss booster's leaf regularisation (xgboost's defaults ``reg_lambda=1``,
#: ``min_child_weight=1``): a leaf's value is -G / (H + lambda_l2) with H = sum p (1 - p); at a positive rate
#: of 0.2 % a leaf of 100 positives among 120 rows has H ~ 0.25, so lightgbm's defaults (lambda_l2 = 0,
#: min_sum_hessian_in_leaf = 1e-3) step its log-odds by ~40 at learning rate 0.1 and the booster diverges
#: after round 1 (benchmarks/results/lgb_logloss_divergence.md)
LGB_LOGLOSS_FLOORS = {"lambda_l2": 1.0, "min_sum_hessian_in_leaf": 1.0}
#: a kept booster with fewer rounds than this (out of a larger budget) warns :class:`FewRoundsWarning`
FEW_ROUNDS = 5
#: minority-class share under which :class:`FewRoundsWarning` names tiny hessians as the likely cause
TINY_HESSIAN_RATE = 0.01


class FewRoundsWarning(UserWarning):
    """The booster that decides stopped within a handful of rounds (early stopping found its validation
    score best there)."""


def logloss_budget(est):
    """(rounds, learning rate) of the logloss booster: :data:`LOGLOSS_ROUNDS` x ``n_estimators`` at
    :data:`LOGLOSS_LR` x ``learning_rate``."""
    return max(1, int(round(LOGLOSS_ROUNDS * est.n_estimators))), LOGLOSS_LR


def _lgb_logloss_params(params, lr_factor):
    """lightgbm parameters of the logloss booster: the AEC booster's, with :data:`LGB_LOGLOSS_FLOORS` as lower
    bounds (whatever alias the user spelled them with) and the learning rate scaled by ``lr_factor``."""
    from lightgbm.basic import _ConfigAliases

    out = dict(params)
    for key, floor in LGB_LOGLOSS_FLOORS.items():
        given = [out.pop(a) for a in _ConfigAliases.get(key) if a in out]
        out[key] = max([floor, *[float(v) for v in given]])
    lrs = [out.pop(a) for a in _ConfigAliases.get("learning_rate") if a in out]
    out["learning_rate"] = float(lrs[-1] if lrs else 0.1) * lr_factor
    return out


def _fit_logloss(est, y, w, evals):
    """A logloss booster with ``est``'s tree parameters on the data the AEC booster was fitted on.

    Its recipe: :func:`logloss_budget` rounds, early-stopped on the last eval set by
    :data:`LOGLOSS_STOP` (patience :func:`patience`); lightgbm's with :data:`LGB_LOGLOSS_FLOORS`.

    Returns ``(booster, fitted)``: ``fitted`` holds the estimator attributes that describe it
    (``best_iteration_`` in the host's convention, ``n_estimators_``, ``start_margin_``, ...).
    """
    if hasattr(est, "_fit_logloss_booster"):  # a host that fits its logloss booster itself (catboost)
        return est._fit_logloss_booster(y, w, evals)
    data = est._fit_data  # the AEC fit's own DMatrix / Dataset objects: one construction, one binning
    rounds = patience(est, evals) if LOGLOSS_STOP is not None else None
    budget, lr_factor = logloss_budget(est)
    if hasattr(est, "_dmatrix"):  # xgboost
        import xgboost as xgb

        from . import _xgb_native

        params = est._native_params(0.0)
        for k in ("base_score", "disable_default_eval_metric"):
            params.pop(k, None)
        for k in ("learning_rate", "eta"):
            if k in params:
                params[k] = float(params[k]) * lr_factor
        valid = data["valid"][-1:] if rounds is not None else []
        kw = {}
        if LOGLOSS_STOP == "money" and valid:
            kw = dict(custom_metric=_xgb_native.money_metric("savings", decision="bmr", preds="probability"),
                      maximize=True)
            params.update(disable_default_eval_metric=1)
        params.update(objective="binary:logistic", eval_metric="logloss")
        if kw:
            params.pop("eval_metric")
        bst = xgb.train(params, data["train"], budget, evals=valid, verbose_eval=False,
                        early_stopping_rounds=rounds if valid else None, **kw)
        best = bst.attr("best_iteration")
        bst = _xgb_native.cut_at_best_iteration(bst)
        b = float(_xgb_native._learner_config(bst)[1][0])  # binary:logistic keeps base_score as a probability
        return bst, dict(best_iteration_=None if best is None else int(best),
                         n_estimators_=bst.num_boosted_rounds(), start_margin_=float(np.log(b) - np.log1p(-b)),
                         _logloss_params=(params, bst.num_boosted_rounds()))
    import lightgbm as lgb

    from . import _lgb_native
    from ._lgb_native import to_deployable

    dtrain, valid = data["train"], (data["valid"][-1:] if rounds is not None else [])
    for ds in (dtrain, *data["valid"][-1:]):  # no init score: lightgbm boosts from the average and keeps it
        ds.set_field("init_score", None)  # (set_init_score(None) keeps a constructed Dataset's scores)
        ds.init_score = None
    params = _lgb_logloss_params({**data["params"], "objective": "binary", "metric": "binary_logloss"}, lr_factor)
    feval = None
    if LOGLOSS_STOP == "money" and valid:
        params["metric"] = "None"
        feval = _lgb_native.money_metric("savings", decision="bmr", preds="probability")
    cbs = [lgb.early_stopping(rounds, verbose=False)] if valid else []
    bst = lgb.train(params, dtrain, budget, valid_sets=valid or None,
                    valid_names=["validation"] if valid else None, feval=feval, callbacks=cbs)
    best = int(bst.best_iteration) if bst.best_iteration > 0 else None
    best_score = {name: dict(scores) for name, scores in bst.best_score.items()}
    bst = to_deployable(bst)
    p = float(np.average(y, weights=w))  # boost_from_average's start: the log-odds of the weighted positive rate
    m0 = float(np.log(p) - np.log1p(-p))
    return bst, dict(best_iteration_=best, n_estimators_=bst.current_iteration(), start_margin_=m0,
                     best_score_=best_score, _logloss_params=(params, bst.current_iteration()))


def _refit_logloss(est, fitted):
    """The logloss booster refitted on every row the estimator got (:data:`LOGLOSS_REFIT`), with the round
    count and parameters of ``fitted``; None when there is nothing to refit (eval_set given, start margins or
    an init model, a host without the hook)."""
    whole = est.__dict__.get("_fit_all")
    start = est.__dict__.get("_fit_start")
    if (not LOGLOSS_REFIT or whole is None or "_logloss_params" not in fitted or start is None
            or start.train is not None or start.booster is not None):
        return None
    X, y, costs, w = whole
    params, n = fitted["_logloss_params"]
    if hasattr(est, "_dmatrix"):  # xgboost
        import xgboost as xgb

        from . import _xgb_native

        params = {k: v for k, v in params.items() if k != "disable_default_eval_metric"}
        bst = xgb.train(params, est._dmatrix(X, y, w), n)
        b = float(_xgb_native._learner_config(bst)[1][0])
        return bst, dict(best_iteration_=None, n_estimators_=bst.num_boosted_rounds(),
                         start_margin_=float(np.log(b) - np.log1p(-b)))
    import lightgbm as lgb

    from ._lgb_native import to_deployable

    ds_params = {k: v for k, v in params.items() if k not in ("objective", "metric")}
    bst = to_deployable(lgb.train(params, est._dataset(X, y, w, costs, None, None, ds_params), n))
    p = float(np.average(y, weights=w))
    return bst, dict(best_iteration_=None, n_estimators_=bst.current_iteration(), start_margin_=float(
        np.log(p) - np.log1p(-p)), best_score_={})


def _warn_few_rounds(est, rule, kept, budget, evals, y):
    """:class:`FewRoundsWarning` when the deciding booster kept fewer than :data:`FEW_ROUNDS` of ``budget``."""
    if not evals or kept >= FEW_ROUNDS or budget < 2 * FEW_ROUNDS:
        return
    rate = float(min(np.mean(y), 1 - np.mean(y)))
    if rate < TINY_HESSIAN_RATE:
        cause = (f"leaf values fitted under tiny hessians (minority class {rate:.3%} of the rows: a leaf of a few "
                 "such rows has a hessian sum of tenths, and its Newton step moves the log-odds by tens), so the "
                 "booster diverges after its first rounds")
    else:
        cause = (f"the validation score got worse after round {kept}: a learning rate too high for these rows, or "
                 "little signal in the features")
    warnings.warn(FewRoundsWarning(
        f"{type(est).__name__}: the {rule} booster that decides kept {kept} of {budget} rounds: its validation "
        f"score was best there and early stopping cut the rest. Likely cause: {cause}. Cure: raise "
        "min_child_weight and reg_lambda (e.g. 1), lower learning_rate, or cap max_delta_step; or pass "
        "early_stopping_rounds / an eval_set to control stopping."),
        stacklevel=5)


def _stage(est, msg, *args):
    """One line per stage of a ``decision="auto"`` fit: logged (logger ``csboost_plugins``, INFO), and
    printed at the estimator's verbose level (xgboost ``fit(verbose=True)``, lightgbm ``verbose >= 1``)."""
    logger.info(msg, *args)
    verbose = est.__dict__.get("_fit_verbose") or est.get_params().get("verbose", -1)
    if verbose is True or (not isinstance(verbose, bool) and isinstance(verbose, int) and verbose >= 1):
        print(msg % args, flush=True)


# ------------------------------------------------------------------ hooks of the estimators
def after_fit(est, X, y, costs, w, evals, unit_costs):
    """Hook at the end of the estimators' ``fit``: ``decision="auto"`` and the money guard.

    Parameters
    ----------
    est : CSXGBClassifier or CSLGBMClassifier
        With ``booster_`` fitted (the AEC booster) on ``X``.
    X, y, costs, w : training features, 0/1 labels, (n, 4) costs (money) and weights or None.
    evals : list of (X_k, y_k, costs_k, w_k)
        Validated eval sets (or the held-out part); the last one is the validation set.
    unit_costs : bool
        True when ``fit`` got no costs (unit costs C_FP = C_FN = 1).

    Sets ``decision_``, ``validation_savings_``, ``aec_booster_``, ``logloss_booster_`` on
    ``est`` (``booster_`` becomes the chosen rule's booster); may warn
    :class:`MoneyLossWarning` or :class:`~csboost_plugins.costs.CostWarning`.
    """
    est._unit_costs_ = bool(unit_costs)
    est.aec_booster_ = est.logloss_booster_ = None
    est.validation_savings_ = None
    name = type(est).__name__
    if est.decision != "auto":
        est.decision_ = "aec"  # predict(X): s > 1/2; with costs: BMR (paper eq. 2)
    else:
        est.aec_booster_ = est.booster_
        _stage(est, "%s: AEC booster fitted, %d rounds%s", name, est.n_estimators_,
                    "" if est.best_iteration_ is None else f" (best iteration {est.best_iteration_})")
        ll, fitted = _fit_logloss(est, y, w, evals)
        est.logloss_booster_ = ll
        _stage(est, "%s: logloss booster fitted, %d rounds", name, fitted["n_estimators_"])
        budget = logloss_budget(est)[0]
        if evals:
            Xv, yv, cv, wv = evals[-1]
            s_aec = _aec.sigmoid(est._margin(Xv))
            est.booster_ = ll
            s_ll = _aec.sigmoid(est._margin(Xv))
            est.booster_ = est.aec_booster_
            probs = {"logloss+bmr": s_ll, "aec": s_aec, "aec+bmr": s_aec}
            preds = {r: rule_decisions(r, probs[r], cv) for r in RULES}
            est.validation_savings_ = vs = {r: savings(yv, preds[r], cv, wv) for r in RULES}
            est.decision_ = choose_rule(yv, preds, cv, wv)
            _stage(est, "%s(decision='auto'): validation savings %s on %d rows; using %r", name,
                        ", ".join(f"{r} {v:.4f}" for r, v in vs.items()), yv.shape[0], est.decision_)
        else:
            est.decision_ = "logloss+bmr"
            _stage(est, "%s(decision='auto'): too few rows of a class to hold out validation rows; using "
                        "'logloss+bmr' fitted on every row", name)
        if est.decision_ == "logloss+bmr":
            if evals:
                _warn_few_rounds(est, "logloss", fitted["n_estimators_"], budget, evals, y)
            refit = _refit_logloss(est, fitted)  # after the choice: every row, the rounds chosen
            if refit is not None:
                ll, fitted = refit
                est.logloss_booster_ = ll
                _stage(est, "%s: logloss booster refitted on every row, %d rounds", name, fitted["n_estimators_"])
            est.booster_ = ll
            for k, v in fitted.items():
                if not k.startswith("_"):
                    setattr(est, k, v)
        elif evals:
            _warn_few_rounds(est, "AEC", est.n_estimators_, est.n_estimators, evals, y)
    _money_guard(est, X, y, costs, w, evals)
    if not unit_costs:
        _swap_guard(est, X, y, costs, w, evals)


def tail_rows(m: int) -> int:
    """How many of the largest per-row gains :func:`choose_rule` removes: ceil(sqrt(m)), at least 1."""
    return max(1, int(np.ceil(np.sqrt(m))))


def choose_rule(y, preds, costs, sample_weight=None, z=AUTO_Z, trim=True):
    """The rule that ``decision="auto"`` keeps, from each rule's decisions on the validation set.

    logloss + BMR unless an AEC rule saves clearly more money. With per-row cost differences
    ``delta_i = w_i (cost_i(logloss+bmr) - cost_i(rule))`` (money), the gain is
    ``G = sum delta`` and its standard error ``sqrt(n) * std(delta)``; a rule qualifies when

    * ``G > z * se`` (the paired z-test), and
    * (``trim``) ``G`` minus its ``k`` largest positive ``delta_i`` is still > 0, with
      ``k = ceil(sqrt(m))`` and ``m`` the rows where the two rules decide differently:
      a gain carried by a handful of expensive rows (heavy-tailed money, few positives)
      is not evidence, however large.

    Among the qualifying rules the largest gain wins.

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
    trim : bool, default True
        Also require the gain without its largest rows to stay positive.

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
        if not (gain > z * se and gain > best_gain):
            continue
        if trim:
            pos = np.sort(delta[delta > 0])[::-1]
            if gain - float(pos[: tail_rows(int(np.count_nonzero(delta)))].sum()) <= 0:
                continue
        best, best_gain = rule, gain
    return best


def _needs_costs(est):
    return est.decision_ in ("aec+bmr", "logloss+bmr")


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
    s = _aec.sigmoid(est._margin(Xg))
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
        s_tr = _aec.sigmoid(est._margin(X))
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


#: share of rows flagged at most (or at least 1 - it) for the fitted decisions to count as "flagging nothing"
SWAP_FLAG_SHARE = 0.001
#: savings the same probabilities must reach with fp/fn exchanged for the swap warning
SWAP_SAVINGS = 0.05


def _swap_guard(est, X, y, costs, w, evals):
    """``CostWarning`` when fp/fn costs look swapped: the fitted decisions flag (almost) no row, or every
    row, while BMR on the same probabilities with C_FP and C_FN exchanged saves money under the exchanged
    matrix. A model trained on swapped costs saves nothing and so never trips the money guard."""
    from ..costs import CostWarning

    where, (Xg, yg, cg, wg) = ("validation", evals[-1]) if evals else ("training", (X, y, costs, w))
    s = _aec.sigmoid(est._margin(Xg) if est.logloss_booster_ is None else _logloss_margin(est, Xg))
    flagged = float(np.average(rule_decisions(est.decision_, _aec.sigmoid(est._margin(Xg)), cg), weights=wg))
    if SWAP_FLAG_SHARE < flagged < 1 - SWAP_FLAG_SHARE:
        return
    swapped = costs_swapped(cg)
    sw = savings(yg, bmr_decisions(s, swapped), swapped, wg)
    if not (np.isfinite(sw) and sw > SWAP_SAVINGS):
        return
    warnings.warn(CostWarning(
        f"{type(est).__name__}: fp_cost and fn_cost look swapped: the fitted decisions flag {flagged:.2%} of the "
        f"{where} rows, while the same probabilities decided with the two exchanged save {sw:.4f} of the cost. "
        "fp_cost is the cost of a false alarm (flagging a negative row, e.g. a review), fn_cost the cost of a "
        "missed positive (e.g. the fraud amount): refit with them exchanged if so, or pass "
        "cost_matrix=[C_FP, C_FN, C_TP, C_TN]."), stacklevel=5)


def _logloss_margin(est, X):
    """Margin of ``logloss_booster_`` on validated ``X`` (which may not be ``booster_``)."""
    keep, est.booster_ = est.booster_, est.logloss_booster_
    try:
        return est._margin(X)
    finally:
        est.booster_ = keep


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
