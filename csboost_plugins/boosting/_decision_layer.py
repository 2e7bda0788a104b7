"""Decision layer of the AEC boosting estimators: ``decision="auto"`` (the default) and the money guard.

Host-neutral: it imports no host library. It receives native boosters from the host's hooks
(:class:`~csboost_plugins.boosting._host.BoostingHost`: ``_fit_logloss_booster``) and scores them
with ``_booster_margin(booster, X)``; the logloss booster's recipe is :func:`logloss_recipe`.

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
    booster with the same tree parameters is fitted on the same data (xgboost and lightgbm: one
    ``DMatrix`` / ``Dataset``, one binning; CatBoost: the same columns); both are early-stopped
    on the validation rows (patience ``early_stopping_rounds``, else :data:`AUTO_PATIENCE`: unstopped logloss boosting overfits
    its probabilities, which BMR then trusts). Three rules are scored there:

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
the features, too few rounds, fp/fn costs swapped). Costs that look swapped warn with a
:class:`~csboost_plugins.costs.CostWarning` naming the cure, whatever the savings: the
positives are rare, a false alarm costs more than a miss on most rows, the fitted decisions flag
fewer rows than there are positives, and the decisions the same probabilities give with the two
columns exchanged cost more under the given costs, so the costs pick the flags
(:func:`swap_evidence`; both money figures under the one cost matrix the user gave).
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import _aec
from .._docstrings import fill_doc
from ..costs import FN, FP
from ..decision_costs import (bayes_thresholds, bmr_decisions, misclassification_costs, row_cost, savings_from_costs,
                              trivial_policy_costs)

__all__ = ["DECISIONS", "DEFAULT_ESTIMATOR_DECISION", "RULES", "FewRoundsWarning", "LoglossRecipe", "MoneyLossWarning",
           "after_fit",
           "choose_rule", "holdout", "logloss_recipe", "metric_decision", "predict_rule"]

logger = logging.getLogger("csboost_plugins")

#: accepted values of the estimators' ``decision`` parameter; the first is the default
DECISIONS = ("auto", "0.5", "bmr")
#: the estimators' default ``decision``
DEFAULT_ESTIMATOR_DECISION = DECISIONS[0]
#: share of the training rows ``decision="auto"`` holds out when ``fit`` gets no ``eval_set``
VALIDATION_FRACTION = 0.2
#: fewest rows of each class in the held-out part; with fewer, logloss + BMR decides without a choice
MIN_VALIDATION_CLASS = 10
#: rules ``decision="auto"`` chooses from; the first is kept unless another clearly saves more
RULES = ("logloss+bmr", "aec", "aec+bmr")
#: standard errors by which an AEC rule's validation gain must exceed logloss + BMR's to be chosen: at 2 a
#: data set's mean fell below logloss + BMR, at 3 none did (benchmarks/results/money_default.md)
AUTO_Z = 3.0


_ROW_WEIGHTS_DOC = "sample_weight : ndarray of shape (n,), optional\n    Row weights."


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


@fill_doc(row_weights=_ROW_WEIGHTS_DOC)
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
    %(row_weights)s

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
    est : CSXGBClassifier, CSLGBMClassifier or CSCatBoostClassifier
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
@dataclass(frozen=True)
class LoglossRecipe:
    """How ``decision="auto"`` trains its logloss booster (hosts apply it in ``_fit_logloss_booster``).

    Attributes
    ----------
    rounds : int
        Boosting rounds at most.
    patience : int or None
        Early-stopping patience on the validation rows (None: no early stopping, every round kept).
    params : dict
        Native parameters laid over the estimator's tree parameters (host spelling).
    """

    rounds: int
    patience: int | None
    params: dict
    floors: dict = field(default_factory=dict)


#: native parameters the logloss booster adds to the estimator's tree parameters, per host library
#: (``_native_library``); empty: the same trees as the AEC booster. Every logloss booster starts from the
#: log-odds of the class rate, as xgboost (base_score from the data) and lightgbm (boost_from_average) do by
#: default; CatBoost's Logloss starts from 0 unless told, and its first rounds' probabilities misprice BMR
LOGLOSS_PARAMS = {"xgboost": {}, "lightgbm": {}, "catboost": {"boost_from_average": True}}
#: lower bounds on the logloss booster's native parameters (a larger value the user set is kept). Newton
#: leaf values are G / (H + lambda): at a 0.2 % positive rate a leaf of 100 positives among 120 rows has
#: H ~ 0.25, so lightgbm's defaults (lambda_l2 = 0, min_sum_hessian_in_leaf = 1e-3) step its log-odds by
#: ~40 at learning rate 0.1 and the booster diverges after round 1; xgboost's defaults are these floors
LOGLOSS_FLOORS = {"xgboost": {}, "lightgbm": {"lambda_l2": 1.0, "min_sum_hessian_in_leaf": 1.0}, "catboost": {}}
#: a deciding booster that kept fewer rounds than this (out of at least twice as many) warns FewRoundsWarning
FEW_ROUNDS = 5
#: minority-class share under which FewRoundsWarning names tiny hessians as the likely cause
TINY_HESSIAN_RATE = 0.01


class FewRoundsWarning(UserWarning):
    """The booster that decides stopped within a handful of rounds (early stopping found its validation
    score best there)."""


def logloss_recipe(est, evals) -> LoglossRecipe:
    """The logloss booster's recipe for a fit of ``est`` with validation rows ``evals``: the one place
    its round budget, early stopping and parameters are set.

    Today: ``n_estimators`` rounds, stopped with :func:`patience` on the last eval set, with the
    estimator's tree parameters and :data:`LOGLOSS_PARAMS` of its host.
    """
    return LoglossRecipe(rounds=est.n_estimators, patience=patience(est, evals) if evals else None,
                         params=dict(LOGLOSS_PARAMS.get(est._native_library, {})),
                         floors=dict(LOGLOSS_FLOORS.get(est._native_library, {})))


def _warn_few_rounds(est, rule, kept, budget, evals, y):
    """:class:`FewRoundsWarning` when the deciding booster kept fewer than :data:`FEW_ROUNDS` of ``budget``."""
    if not evals or kept is None or kept >= FEW_ROUNDS or budget < 2 * FEW_ROUNDS:
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


def _stage(est, ctx, msg, *args):
    """One line per stage of a ``decision="auto"`` fit: logged (logger ``csboost_plugins``, INFO), and
    printed at the estimator's verbose level (xgboost ``fit(verbose=True)``, lightgbm ``verbose >= 1``)."""
    logger.info(msg, *args)
    verbose = ctx.verbose or est.get_params().get("verbose", -1)
    if verbose is True or (not isinstance(verbose, bool) and isinstance(verbose, int) and verbose >= 1):
        print(msg % args, flush=True)


# ------------------------------------------------------------------ hooks of the estimators
def after_fit(est, ctx, X, y, costs, w, evals, unit_costs):
    """Hook at the end of the estimators' ``fit``: ``decision="auto"`` and the money guard.

    Parameters
    ----------
    est : BoostingHost
        A boosting estimator of any host, with ``booster_`` fitted (the AEC booster) on ``X``.
    ctx : FitContext
        The running fit's state (start margins, native data sets the logloss booster reuses).
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

    cache = {}  # (id(booster), id(Xs)) -> (booster, Xs, margins): the references keep the ids from being reused

    def margin(booster, Xs):  # the rows' start margins given at fit replace the booster's own start
        offset = ctx.offset(Xs)
        if offset is not None:  # a host may read its fitted start (e.g. lightgbm's start_margin_): not cached
            return est._booster_margin(booster, Xs, offset)
        hit = cache.get((id(booster), id(Xs)))
        if hit is None:  # the same booster's margins on the same rows: computed once per fit
            hit = cache[id(booster), id(Xs)] = (booster, Xs, est._booster_margin(booster, Xs, None))
        return hit[2]

    if est.decision != "auto":
        est.decision_ = "aec"  # predict(X): s > 1/2; with costs: BMR (paper eq. 2)
    else:
        aec = est.aec_booster_ = est.booster_
        _stage(est, ctx, "%s: AEC booster fitted, %d rounds%s", name, est.n_estimators_,
               "" if est.best_iteration_ is None else f" (best iteration {est.best_iteration_})")
        ll, fitted = est._fit_logloss_booster(ctx, logloss_recipe(est, evals), y, w, evals)
        est.logloss_booster_ = ll
        _stage(est, ctx, "%s: logloss booster fitted, %d rounds", name, fitted["n_estimators_"])
        if evals:
            Xv, yv, cv, wv = evals[-1]
            s_aec, s_ll = _aec.sigmoid(margin(aec, Xv)), _aec.sigmoid(margin(ll, Xv))
            probs = {"logloss+bmr": s_ll, "aec": s_aec, "aec+bmr": s_aec}
            preds = {r: rule_decisions(r, probs[r], cv) for r in RULES}
            est.validation_savings_ = vs = {r: savings(yv, preds[r], cv, wv) for r in RULES}
            est.decision_ = choose_rule(yv, preds, cv, wv)
            _stage(est, ctx, "%s(decision='auto'): validation savings %s on %d rows; using %r", name,
                   ", ".join(f"{r} {v:.4f}" for r, v in vs.items()), yv.shape[0], est.decision_)
        else:
            est.decision_ = "logloss+bmr"
            _stage(est, ctx, "%s(decision='auto'): too few rows of a class to hold out validation rows; using "
                   "'logloss+bmr' fitted on every row", name)
        if est.decision_ == "logloss+bmr":
            _warn_few_rounds(est, "logloss", fitted["n_estimators_"], est.n_estimators, evals, y)
            est.booster_ = ll
            for k, v in fitted.items():
                setattr(est, k, v)
        elif evals:
            _warn_few_rounds(est, "AEC", est.n_estimators_, est.n_estimators, evals, y)
    _money_guard(est, margin, X, y, costs, w, evals)
    if not unit_costs:
        _swap_guard(est, margin, X, y, costs, w, evals)


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
    est : CSXGBClassifier, CSLGBMClassifier or CSCatBoostClassifier
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
def _money_guard(est, margin, X, y, costs, w, evals):
    """:class:`MoneyLossWarning` when the fitted decisions lose money; ``margin(booster, X)`` scores."""
    where, (Xg, yg, cg, wg) = ("validation", evals[-1]) if evals else ("training", (X, y, costs, w))
    s = _aec.sigmoid(margin(est.booster_, Xg))
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
        s_tr = _aec.sigmoid(margin(est.booster_, X))
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


#: the rare class's largest share of the rows for the swap guard to look (a swap shows where one class is rare)
SWAP_RARE = 0.25
#: how much more the decisions with C_FP and C_FN exchanged must cost under the given costs, as a share of
#: the cheaper trivial policy's money, for the given costs (not the probabilities) to be what picks the flags
SWAP_MONEY = 0.05


@fill_doc(row_weights=_ROW_WEIGHTS_DOC)
def swap_evidence(y, decisions, s, costs, sample_weight=None):
    """Evidence that C_FP and C_FN were given the wrong way round, or None.

    Swapped fraud costs (a false alarm charged the amount, a missed fraud the review fee) make the
    rare class cheaper to miss than to flag wrongly. On the rows not flagged whatever their
    probability (Bayes threshold t* = (C_FP - C_TN) / (C_FN - C_TP + C_FP - C_TN) > 0; a row
    where a false alarm costs nothing, e.g. a zero amount charged as C_FP, is flagged by the
    costs, not by the model), with ``pi`` their (weighted) positive rate and ``f`` the share the
    fitted ``decisions`` flag:

    1. *Flagged share against the base rate, and the costs' shape.* Positives are rare
       (``pi <`` :data:`SWAP_RARE`), a false alarm costs more than a miss (C_FP - C_TN > C_FN - C_TP) on most of
       these rows, and the decisions flag fewer rows than there are positives (``f < pi``). The
       flagged share alone says nothing: at a 0.16 % fraud rate a model with the right costs may
       flag under 0.1 % of the rows; with the right fraud costs a miss is the dearer error on
       most rows.
    2. *Money under one cost matrix, the given one.* The Bayes-minimum-risk decisions ``d_sw``
       on the same probabilities ``s`` with the two columns exchanged cost more, under the given
       costs, than the fitted decisions ``d``: ``M(d_sw) - M(d) > SWAP_MONEY * |M(trivial)|``,
       with ``M(d) = sum_i w_i cost_i(y_i, d_i)`` (money) and ``M(trivial)`` the cheaper of
       flagging every row / none. So the given costs, not the probabilities, pick the flags; a
       weak model, whose exchanged decisions flag as little, gives no evidence.

    The mirror (the same with the classes' roles exchanged) counts too: negatives rare
    (``1 - pi < SWAP_RARE``), a miss dearer on most rows, and fewer rows left unflagged than
    there are negatives (``1 - f < 1 - pi``).

    Parameters
    ----------
    y : ndarray of shape (n,)
        0/1 labels.
    decisions : ndarray of shape (n,)
        The fitted 0/1 decisions.
    s : ndarray of shape (n,)
        Probabilities of class 1 for the exchanged decisions.
    costs : ndarray of shape (n, 4)
        ``[C_FP, C_FN, C_TP, C_TN]`` as given (money).
    %(row_weights)s

    Returns
    -------
    dict or None
        ``flagged`` (``f``), ``base_rate`` (``pi``), ``flagged_swapped`` (the share ``d_sw``
        flags), ``dearer`` (share of the rows where the error named by ``alarm`` is the dearer),
        ``money``, ``money_swapped`` (of ``d`` and ``d_sw`` under the given costs), ``trivial``
        (the cheaper trivial policy's money) and ``alarm`` (True: a false alarm is the dearer
        error; False: the mirror); None without evidence.
    """
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    t = bayes_thresholds(costs)
    wi = w * (t > 0)  # rows flagged whatever p are not the model's flags; NaN t* (matrices rewarding errors) too
    total = float(wi.sum())
    if not total > 0:
        return None
    pi, f = float(wi @ y) / total, float(wi @ decisions) / total
    reg_pos, reg_neg = misclassification_costs(costs)
    if SWAP_RARE <= pi <= 1 - SWAP_RARE:  # no rare class: nothing to compare the flags with
        return None
    alarm = pi < SWAP_RARE
    dearer = float(wi @ ((reg_neg > reg_pos) if alarm else (reg_pos > reg_neg))) / total
    if not (dearer > 0.5 and (f < pi if alarm else 1 - f < 1 - pi)):
        return None
    d_sw = bmr_decisions(s, costs_swapped(costs))
    money, money_sw = float(row_cost(y, decisions, costs) @ w), float(row_cost(y, d_sw, costs) @ w)
    trivial = min(trivial_policy_costs(y, costs, sample_weight))
    if not money_sw - money > SWAP_MONEY * abs(trivial):
        return None
    return dict(flagged=f, base_rate=pi, flagged_swapped=float(wi @ d_sw) / total, dearer=dearer, money=money,
                money_swapped=money_sw, trivial=float(trivial), alarm=alarm)


def _swap_guard(est, margin, X, y, costs, w, evals):
    """``CostWarning`` when fp/fn costs look swapped (:func:`swap_evidence`), whatever the savings: a model
    trained on swapped costs flags nothing, saves nothing and so never trips the money guard."""
    from ..costs import CostWarning

    where, (Xg, yg, cg, wg) = ("validation", evals[-1]) if evals else ("training", (X, y, costs, w))
    decisions = rule_decisions(est.decision_, _aec.sigmoid(margin(est.booster_, Xg)), cg)
    # the exchanged decisions on the logloss probability when there is one (the AEC's holds the given costs)
    s = _aec.sigmoid(margin(est.booster_ if est.logloss_booster_ is None else est.logloss_booster_, Xg))
    ev = swap_evidence(yg, decisions, s, cg, wg)
    if ev is None:
        return
    dearer, other = ("a false alarm", "a missed positive") if ev["alarm"] else ("a missed positive", "a false alarm")
    warnings.warn(CostWarning(
        f"{type(est).__name__}: fp_cost and fn_cost look swapped: {dearer} costs more than {other} on "
        f"{ev['dearer']:.0%} of the {where} rows, and the fitted decisions flag {ev['flagged']:.3%} of them while "
        f"{ev['base_rate']:.3%} are positive. The costs, not the probabilities, pick those flags: decided with "
        f"C_FP and C_FN exchanged, the same probabilities flag {ev['flagged_swapped']:.3%}, and under the costs as "
        f"given those decisions cost {ev['money_swapped']:,.2f} against {ev['money']:,.2f} for the fitted ones "
        f"(money; flagging every row or none costs {ev['trivial']:,.2f} at best). fp_cost is the cost of a false "
        "alarm (flagging a negative row, e.g. a review), fn_cost the cost of a missed positive (e.g. the fraud "
        "amount): refit with them exchanged if so, or pass cost_matrix=[C_FP, C_FN, C_TP, C_TN]; if "
        f"{dearer} does cost more here, ignore this warning."), stacklevel=5)


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
