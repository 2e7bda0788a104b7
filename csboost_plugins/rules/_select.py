"""riff_select: RIFF's greedy rule selection (Algorithm 1) with the randomised last rule."""

from __future__ import annotations

import numpy as np

from ..costs import check_binary_labels, check_costs
from ._data import as_float_matrix
from ._evaluate import ConditionTrie, compile_conditions, rule_mask_rows
from ._refine import conditions_mask, prune_rule, refine_rule
from ._rule import Rule
from ._ruleset import RuleSet

__all__ = ["riff_select"]

# columns of the per-row weight matrix W
_GAIN, _NEG, _POS, _ALL = 0, 1, 2, 3


def _check_rate(v, name):
    v = float(v)
    if not 0.0 < v <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {v}")
    return v


def riff_select(candidates, X, y, *, max_fpr=None, max_alert_rate=None, sample_weight=None, fn_cost=None,
                max_rules=None, precision_prior=0.0, refine=False, prune=False) -> RuleSet:
    """Greedy low-FPR rule selection (RIFF Algorithm 1) on a selection set.

    Starting from no rule, repeatedly add the candidate with the highest precision
    on the rows not yet covered, ``Precision(c; D') = |cov(c; D'+)| / |cov(c; D')|``,
    and remove the rows it covers, while ``FPR(S) < max_fpr``. The last rule r_l
    (the one that crosses the budget) is kept with probability::

        rho = (FPR_max - FPR(S_{l-1})) / (FPR(S_l) - FPR(S_{l-1}))

    so the expected FPR on the selection set equals ``max_fpr`` exactly and the
    expected TPR is ``(1 - rho) TPR(S_{l-1}) + rho TPR(S_l)``.

    Ties in precision go to the rule covering more positive weight (money), then
    to the earlier candidate. Candidates covering no uncovered row are skipped.
    If all candidates together stay within budget, every useful rule is kept and
    rho = 1. Without ``precision_prior``, ``prune`` and ``refine`` the selection is
    the paper's Algorithm 1 exactly.

    Parameters
    ----------
    candidates : list of Rule or RuleSet
        Candidate rules, e.g. from :func:`extract_rules`.
    X : numpy array or pandas DataFrame, shape (n_rows, n_features)
        The selection set.
    y : array-like of shape (n_rows,)
        Labels in {0, 1}.
    max_fpr : float in (0, 1], optional
        FPR budget (default 0.01); FPR = covered negative weight / negative weight.
    max_alert_rate : float in (0, 1], optional
        Alternative budget on the alert rate (covered weight / total weight); give
        either this or ``max_fpr``.
    sample_weight : array-like of shape (n_rows,), optional
        Row weights (count in every rate and precision).
    fn_cost : float or array-like of shape (n_rows,), optional
        Money at stake on positives (C_FN, e.g. the amount, in money units). When given,
        rules are ranked by money precision
        ``sum_{cov+} w C_FN / (sum_{cov+} w C_FN + sum_{cov-} w)`` (money caught per false
        positive) instead of count precision; the budget is unchanged.
    max_rules : int, optional
        Cap on the number of rules.
    precision_prior : float >= 0, default 0
        p pseudo-rows. Rules are ranked by the shrunk precision
        ``(G + p g0) / (G + N + p m0)`` (G: covered gain, N: covered negative weight on D';
        g0, m0: the selection set's average gain and gain + negative weight per row), as if
        each rule also covered p rows at the selection set's base rate. Rules covering few
        rows are pulled toward the base rate: broad rules win (fewer rules for the budget)
        and the winner's curse of ranking by observed precision is damped. The issue-16
        benchmark (``benchmarks/bench_rules_recall.py``) uses 50 with ``max_rules=20``.
    prune : bool, default False
        After a rule is picked, drop its conditions one at a time (best first) while the
        score on D' does not fall (``csboost_plugins.rules._refine.prune_rule``).
    refine : bool, default False
        After a rule is picked (and pruned), move each finite interval bound to the cut
        between two observed values of D' that maximises the score without giving up
        covered gain. The rule that would cross the budget instead gets the cut with the
        most gain that fits the remaining budget (selection then stops; rho = 1) rather
        than a coin flip (``csboost_plugins.rules._refine.refine_rule``).

    Returns
    -------
    RuleSet
        ``last_rule_probability`` = rho; ``selection`` holds per-prefix ``fpr``,
        ``tpr``, ``alert_rate`` (and ``money_recall``), ``expected_fpr``,
        ``expected_tpr``, ``expected_alert_rate`` and ``candidate_index``.

    Notes
    -----
    Pruned or refined rules are new rules: they no longer route rows like the tree node
    they came from (every unmodified rule still does, exactly). Their ``sources`` keep
    that node with ``"modified"`` set to ``"pruned"``, ``"refined"`` or
    ``"pruned+refined"``; the JSON export keeps it.
    """
    if isinstance(candidates, RuleSet):
        candidates = candidates.rules
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates is empty: no rule to select from")
    if not all(isinstance(r, Rule) for r in candidates):
        raise TypeError("candidates must be Rule objects (from extract_rules)")
    if max_fpr is not None and max_alert_rate is not None:
        raise ValueError("give max_fpr= or max_alert_rate=, not both")
    if max_alert_rate is not None:
        criterion, budget = "alert_rate", _check_rate(max_alert_rate, "max_alert_rate")
    else:
        criterion, budget = "fpr", _check_rate(0.01 if max_fpr is None else max_fpr, "max_fpr")
    names = next((r.feature_names for r in candidates if r.feature_names is not None), None)
    Xf = as_float_matrix(X, candidates, feature_names=names, order="F")
    y = check_binary_labels(y, name="y", require_both=True)
    n = y.shape[0]
    if Xf.shape[0] != n:
        raise ValueError(f"X has {Xf.shape[0]} rows but y has {n}")
    need = max(c.feature for r in candidates for c in r.conditions) if any(r.conditions for r in candidates) else -1
    if need >= Xf.shape[1]:
        raise ValueError(f"X has {Xf.shape[1]} columns but the candidates use column index {need}")
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has length {w.shape[0]} but y has {n} rows")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    W = np.zeros((n, 4))
    W[:, _POS] = w * (y == 1)
    W[:, _NEG] = w * (y == 0)
    W[:, _ALL] = w
    if fn_cost is not None:
        money = check_costs(n, fp_cost=0.0, fn_cost=fn_cost, warn=False)[:, 1]
        if np.any(money < 0):
            raise ValueError("fn_cost must be non-negative")
        W[:, _GAIN] = W[:, _POS] * money
    else:
        W[:, _GAIN] = W[:, _POS]
    totals = W.sum(axis=0)
    if totals[_NEG] <= 0 or totals[_POS] <= 0:
        raise ValueError("y (with sample_weight) must have positive weight on both classes")
    bcol = _NEG if criterion == "fpr" else _ALL
    limit = budget * totals[bcol]
    eps = 1e-12 * (totals[_GAIN] + totals[_NEG])

    prior = float(precision_prior)
    if not (np.isfinite(prior) and prior >= 0):
        raise ValueError(f"precision_prior must be a finite number >= 0, got {precision_prior!r}")
    g0, m0 = totals[_GAIN] / totals[_ALL], (totals[_GAIN] + totals[_NEG]) / totals[_ALL]
    trie = ConditionTrie(candidates)
    cc = compile_conditions(candidates)
    S = trie.sums(Xf, np.arange(n, dtype=np.int64), W)  # per rule: sums over the uncovered rows D'
    uncovered = np.arange(n, dtype=np.int64)
    chosen = np.zeros(len(candidates), dtype=bool)
    order, rules, used, full = [], [], np.zeros(4), False
    prefix = []
    while used[bcol] < limit and (max_rules is None or len(order) < max_rules):
        mass = S[:, _GAIN] + S[:, _NEG]
        ok = ~chosen & (mass > eps)
        if not ok.any():
            break
        idx = np.flatnonzero(ok)
        if prior:  # shrunk precision: pseudo-rows at the selection set's average gain / mass
            prec = (S[idx, _GAIN] + prior * g0) / (mass[idx] + prior * m0)
        else:
            prec = S[idx, _GAIN] / mass[idx]
        best = idx[prec == prec.max()]
        if len(best) > 1:
            g = S[best, _GAIN]
            best = best[g == g.max()]
        r = int(best[0])
        chosen[r] = True
        order.append(r)
        rule = candidates[r]
        if refine or prune:  # on D' = the uncovered rows, with the same score as the ranking
            Xu, gu, nu = Xf[uncovered], W[uncovered, _GAIN], W[uncovered, _NEG]
            if prune:
                rule = prune_rule(rule, Xu, gu, nu, prior, g0, m0)
            if refine:
                rule = refine_rule(rule, Xu, gu, nu, prior, g0, m0)
                cu = W[uncovered, bcol]
                if used[bcol] + cu[conditions_mask(rule.conditions, Xu)].sum() > limit:
                    # the rule crosses the budget: the cut that fills it with the most gain, not a coin flip
                    filled = refine_rule(rule, Xu, gu, nu, prior, g0, m0, cost=cu, max_cost=limit - used[bcol])
                    full = filled is not rule
                    rule = filled
        rules.append(rule)
        hit = rule_mask_rows(Xf, uncovered, r, cc) if rule is candidates[r] else conditions_mask(rule.conditions, Xu)
        new = uncovered[hit]
        uncovered = uncovered[~hit]
        if len(new):
            Wn = W[new]
            used += Wn.sum(axis=0)
            S -= trie.sums(Xf, new, Wn)
        prefix.append(used.copy())
        if full:  # the budget is spent by a refined last rule
            break
    prefix = np.asarray(prefix).reshape(-1, 4)
    rates = {"fpr": prefix[:, _NEG] / totals[_NEG], "tpr": prefix[:, _POS] / totals[_POS],
             "alert_rate": prefix[:, _ALL] / totals[_ALL]}
    if fn_cost is not None:
        rates["money_recall"] = prefix[:, _GAIN] / totals[_GAIN] if totals[_GAIN] > 0 else prefix[:, _GAIN] * 0
    rho = 1.0
    if len(order) and prefix[-1, bcol] > limit:
        prev = prefix[-2, bcol] if len(order) > 1 else 0.0
        rho = (limit - prev) / (prefix[-1, bcol] - prev)
    sel = {"criterion": criterion, "budget": budget, "n_candidates": len(candidates),
           "candidate_index": np.asarray(order, dtype=np.int64)}
    for k, v in rates.items():
        sel[k] = v
        last = v[-1] if len(v) else 0.0
        prev = v[-2] if len(v) > 1 else 0.0
        sel["expected_" + k] = float((1 - rho) * prev + rho * last)
    return RuleSet(rules, last_rule_probability=rho, feature_names=names, selection=sel)
