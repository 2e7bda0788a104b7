"""RIFF's greedy loop (Algorithm 1) on per-rule sums, shared by the in-memory and the dask selection.

Both callers keep the (n_candidates, N_COLUMNS) table of weight sums over the uncovered rows
(columns: gain, negatives, positives, all, net money) and differ only in how a chosen
rule's newly covered rows are found (a mask over the uncovered rows in memory, one
pass over the partitions on dask): that is the ``cover`` callback.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_sample_weight

from ..costs import FN, FP, TN, TP

GAIN, NEG, POS, ALL, NET = 0, 1, 2, 3, 4  # columns of the per-row weight matrix W and of the sums
N_COLUMNS = 5


def row_weights(y, w, costs=None):
    """Per-row weights (gain, negative, positive, all, net money) of the rule selection.

    Parameters
    ----------
    y : array of shape (n,)
        0/1 labels.
    w : array of shape (n,) or None
        Row weights (default 1); must be finite and non-negative.
    costs : array of shape (n, 4) or None
        Validated costs ``[C_FP, C_FN, C_TP, C_TN]`` (:func:`csboost_plugins.costs.check_costs`);
        None ranks by counts.

    Returns
    -------
    array of shape (n, N_COLUMNS)
        Columns GAIN: ``w [y=1] (C_FN - C_TP)`` (money caught by flagging the row; ``w [y=1]``
        without costs), NEG: ``w [y=0]``, POS: ``w [y=1]``, ALL: ``w``, NET: the net money of
        flagging the row, ``w [y=1] (C_FN - C_TP) - w [y=0] (C_FP - C_TN)`` (without costs,
        ``w [y=1] - w [y=0]``, unused).
    """
    n = y.shape[0]
    w = np.ones(n) if w is None else check_sample_weight(w, n)
    W = np.zeros((n, N_COLUMNS))
    W[:, POS] = w * (y == 1)
    W[:, NEG] = w * (y == 0)
    W[:, ALL] = w
    if costs is None:
        W[:, GAIN] = W[:, POS]
        W[:, NET] = W[:, POS] - W[:, NEG]
    else:
        W[:, GAIN] = W[:, POS] * (costs[:, FN] - costs[:, TP])
        W[:, NET] = W[:, GAIN] - W[:, NEG] * (costs[:, FP] - costs[:, TN])
    return W


def check_prior(precision_prior):
    """``precision_prior`` as a float >= 0 or the string "auto" (ValueError naming it otherwise)."""
    if isinstance(precision_prior, str):
        if precision_prior == "auto":
            return "auto"
        raise ValueError(f"precision_prior must be 'auto' or a finite number >= 0, got {precision_prior!r}")
    try:
        prior = float(precision_prior)
    except (TypeError, ValueError):
        raise ValueError(f"precision_prior must be 'auto' or a finite number >= 0, got {precision_prior!r}") from None
    if not (np.isfinite(prior) and prior >= 0):
        raise ValueError(f"precision_prior must be 'auto' or a finite number >= 0, got {precision_prior!r}")
    return prior


#: rules the "auto" prior spreads the budget over when ``max_rules`` is None
AUTO_PRIOR_RULES = 20


def resolve_prior(prior, totals, criterion, budget, max_rules):
    """The number of pseudo-rows of a checked ``precision_prior`` (:func:`check_prior`).

    "auto": one rule's share of the budget, ``budget * totals[bcol] / k`` with ``k = max_rules``
    (:data:`AUTO_PRIOR_RULES` when None) and ``totals[bcol]`` the selection set's negative weight
    (FPR budget) or all its weight (alert-rate budget), at least 1. A rule that covers that much is
    pulled halfway to the base rate, so the greedy prefers rules that can carry their share of the
    budget. Numbers are returned as they are.

    Parameters
    ----------
    prior : float or "auto"
        The checked prior.
    totals : array of shape (N_COLUMNS,)
        Sums over the selection rows (:func:`row_weights`).
    criterion : {"fpr", "alert_rate"}
        What the budget bounds.
    budget : float
        The rate budget in (0, 1].
    max_rules : int or None
        Cap on the number of rules.

    Returns
    -------
    float
    """
    if prior != "auto":
        return float(prior)
    k = AUTO_PRIOR_RULES if max_rules is None else int(max_rules)
    return max(1.0, float(budget * totals[budget_column(criterion)] / k))


def shrink_base(totals, money=False, criterion="fpr"):
    """(g0, m0): the pseudo-row of the prior, per row of the selection set.

    Counts: the average gain and gain + negative weight (the shrunk precision
    ``(G + p g0) / (G + N + p m0)``). Money: the average net money and budget weight
    (the shrunk net money per budget unit ``(M + p g0) / (B + p m0)``).
    """
    if money:
        return totals[NET] / totals[ALL], totals[budget_column(criterion)] / totals[ALL]
    return totals[GAIN] / totals[ALL], (totals[GAIN] + totals[NEG]) / totals[ALL]


def budget_column(criterion):
    """The weight column the budget bounds: negatives (FPR) or all rows (alert rate)."""
    return NEG if criterion == "fpr" else ALL


def money_scores(S, totals, criterion, precision_prior=0.0):
    """Money ranking score of each candidate: net money per unit of budget on the uncovered rows.

    ``M / B`` with M = the candidate's net money (column NET) and B its budget weight
    (negative weight for an FPR budget, all weight for an alert-rate budget); with
    ``precision_prior`` p, ``(M + p g0) / (B + p m0)`` (:func:`shrink_base`). Without a
    prior a candidate with B = 0 scores +inf if it makes money, -inf otherwise, so the
    score is positive exactly when the net money is.

    Parameters
    ----------
    S : array of shape (n_candidates, N_COLUMNS)
        Sums over the uncovered rows.
    totals : array of shape (N_COLUMNS,)
        Sums over all rows.
    criterion : {"fpr", "alert_rate"}
        What the budget bounds.
    precision_prior : float, default 0
        p pseudo-rows.

    Returns
    -------
    array of shape (n_candidates,)
    """
    bcol = budget_column(criterion)
    M, B = S[:, NET], S[:, bcol]
    if precision_prior:
        g0, m0 = shrink_base(totals, money=True, criterion=criterion)
        return (M + precision_prior * g0) / (B + precision_prior * m0)
    eps_b = 1e-12 * totals[bcol]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(B > eps_b, M / np.where(B > eps_b, B, 1.0), np.where(M > 0, np.inf, -np.inf))


def money_eps(totals):
    """Net money below which a candidate counts as not making money (float noise of the running sums)."""
    return 1e-12 * (abs(totals[GAIN]) + abs(totals[NET] - totals[GAIN]))


def greedy(S, totals, criterion, budget, max_rules, cover, precision_prior=0.0, money=False, stop_unprofitable=True):
    """Select rules by (shrunk) precision, or net money per budget unit, on the uncovered rows.

    Counts (``money=False``, the paper's Algorithm 1): the next rule is the candidate with
    the highest (shrunk) precision; selection goes on until the budget is used.

    Money (``money=True``): the next rule is the candidate with the highest
    :func:`money_scores`; with ``stop_unprofitable`` only candidates whose net money on
    the uncovered rows is > 0 are eligible, so selection also stops when no candidate
    makes money (without a prior the best-scored candidate makes money whenever any does).

    Parameters
    ----------
    S : array of shape (n_candidates, 4)
        Each candidate's weight sums over all rows; updated in place to the uncovered rows.
    totals : array of shape (4,)
        The weight sums of all rows.
    criterion : {"fpr", "alert_rate"}
        What the budget bounds.
    budget : float
        The rate budget in (0, 1].
    max_rules : int or None
        Cap on the number of rules.
    cover : callable
        ``cover(r, remaining)`` takes the newly chosen rule r off the uncovered rows
        (``remaining``: budget weight left before r) and returns ``(sums of the rows it took
        (4,), their per-candidate sums (n_candidates, 4) or None)``, optionally with a third
        item ``stop`` (True: the rule as taken spends the budget, e.g. a budget-filling
        refinement; selection ends after it).
    precision_prior : float, default 0
        p pseudo-rows: rank by ``(G + p g0) / (G + N + p m0)`` (:func:`shrink_base`)
        instead of ``G / (G + N)`` (money: see :func:`money_scores`).
    money : bool, default False
        Rank by net money per budget unit (column NET of ``S``).
    stop_unprofitable : bool, default True
        With ``money``: never take a candidate whose net money on the uncovered rows is <= 0.

    Returns
    -------
    order : list of int
        Chosen candidates, in order.
    prefix : array of shape (len(order), 4)
        Weight sums covered by each prefix of the order.
    rho : float
        Probability of the last rule (the budget is met exactly in expectation).
    """
    bcol = budget_column(criterion)
    limit = budget * totals[bcol]
    eps = 1e-12 * (totals[GAIN] + totals[NEG])
    eps_rows, eps_money = 1e-12 * totals[ALL], money_eps(totals)
    g0, m0 = shrink_base(totals)
    chosen = np.zeros(S.shape[0], dtype=bool)
    order, used, prefix = [], np.zeros(S.shape[1]), []
    while used[bcol] < limit and (max_rules is None or len(order) < max_rules):
        if money:  # tie on the score: more net money, then the earlier candidate
            ok = ~chosen & (S[:, ALL] > eps_rows)
            if stop_unprofitable:
                ok &= S[:, NET] > eps_money
            tie = NET
        else:  # tie on the precision: more gain, then the earlier candidate
            mass = S[:, GAIN] + S[:, NEG]
            ok = ~chosen & (mass > eps)
            tie = GAIN
        if not ok.any():
            break
        idx = np.flatnonzero(ok)
        if money:
            prec = money_scores(S[idx], totals, criterion, precision_prior)
        elif precision_prior:
            prec = (S[idx, GAIN] + precision_prior * g0) / (mass[idx] + precision_prior * m0)
        else:
            prec = S[idx, GAIN] / mass[idx]
        best = idx[prec == prec.max()]
        if len(best) > 1:
            g = S[best, tie]
            best = best[g == g.max()]
        r = int(best[0])
        chosen[r] = True
        order.append(r)
        took, dS, *stop = cover(r, limit - used[bcol])
        used += took
        if dS is not None:
            S -= dS
        prefix.append(used.copy())
        if stop and stop[0]:
            break
    prefix = np.asarray(prefix).reshape(-1, S.shape[1])
    rho = 1.0
    if len(order) and prefix[-1, bcol] > limit:
        prev = prefix[-2, bcol] if len(order) > 1 else 0.0
        rho = (limit - prev) / (prefix[-1, bcol] - prev)
    return order, prefix, rho


def selection_stats(order, prefix, rho, totals, criterion, budget, n_candidates, money):
    """The ``selection`` dict of a RuleSet: per-prefix rates and their expectations under rho.

    Parameters
    ----------
    order, prefix, rho
        As returned by :func:`greedy`.
    totals : array of shape (4,)
        The weight sums of all rows.
    criterion : str
        What the budget bounds.
    budget : float
        The budget.
    n_candidates : int
        Number of candidates.
    money : bool
        Whether rules were ranked by money (adds ``money_recall`` and ``net_money``).

    Returns
    -------
    dict
        ``fpr``, ``tpr``, ``alert_rate`` (and ``money_recall``, ``net_money``: money caught
        minus alert cost on the selection set, in the costs' unit) per prefix, their
        ``expected_*`` values, ``criterion``, ``budget``, ``n_candidates``, ``candidate_index``.
    """
    rates = {"fpr": prefix[:, NEG] / totals[NEG], "tpr": prefix[:, POS] / totals[POS],
             "alert_rate": prefix[:, ALL] / totals[ALL]}
    if money:
        rates["money_recall"] = prefix[:, GAIN] / totals[GAIN] if totals[GAIN] > 0 else prefix[:, GAIN] * 0
        rates["net_money"] = prefix[:, NET].copy()
    sel = {"criterion": criterion, "budget": budget, "n_candidates": n_candidates,
           "candidate_index": np.asarray(order, dtype=np.int64)}
    for k, v in rates.items():
        sel[k] = v
        last = v[-1] if len(v) else 0.0
        prev = v[-2] if len(v) > 1 else 0.0
        sel["expected_" + k] = float((1 - rho) * prev + rho * last)
    return sel
