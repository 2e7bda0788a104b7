"""RIFF's greedy loop (Algorithm 1) on per-rule sums, shared by the in-memory and the dask selection.

Both callers keep the (n_candidates, 4) table of weight sums over the uncovered rows
(columns: money gain, negatives, positives, all) and differ only in how a chosen
rule's newly covered rows are found (a mask over the uncovered rows in memory, one
pass over the partitions on dask): that is the ``cover`` callback.
"""

from __future__ import annotations

import numpy as np

from ..costs import FN, check_costs

GAIN, NEG, POS, ALL = 0, 1, 2, 3  # columns of the per-row weight matrix W and of the sums


def row_weights(y, w, fn_cost):
    """Per-row weights (money gain, negative, positive, all) of the rule selection.

    Parameters
    ----------
    y : array of shape (n,)
        0/1 labels.
    w : array of shape (n,) or None
        Row weights (default 1); must be finite and non-negative.
    fn_cost : array of shape (n,), float or None
        Money at stake on positives (C_FN); None ranks by counts.

    Returns
    -------
    array of shape (n, 4)
        w [y=1] C_FN (or w [y=1]), w [y=0], w [y=1], w.
    """
    n = y.shape[0]
    w = np.ones(n) if w is None else w
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    W = np.zeros((n, 4))
    W[:, POS] = w * (y == 1)
    W[:, NEG] = w * (y == 0)
    W[:, ALL] = w
    if fn_cost is None:
        W[:, GAIN] = W[:, POS]
    else:
        money = check_costs(n, fp_cost=0.0, fn_cost=fn_cost, warn=False)[:, FN]
        if np.any(money < 0):
            raise ValueError("fn_cost must be non-negative")
        W[:, GAIN] = W[:, POS] * money
    return W


def check_prior(precision_prior):
    """``precision_prior`` as a float >= 0 (ValueError naming it otherwise)."""
    try:
        prior = float(precision_prior)
    except (TypeError, ValueError):
        raise ValueError(f"precision_prior must be a finite number >= 0, got {precision_prior!r}") from None
    if not (np.isfinite(prior) and prior >= 0):
        raise ValueError(f"precision_prior must be a finite number >= 0, got {precision_prior!r}")
    return prior


def shrink_base(totals):
    """(g0, m0): the average gain and gain + negative weight per row, the pseudo-rows of the prior."""
    return totals[GAIN] / totals[ALL], (totals[GAIN] + totals[NEG]) / totals[ALL]


def greedy(S, totals, criterion, budget, max_rules, cover, precision_prior=0.0):
    """Select rules by (shrunk) precision on the uncovered rows until the budget is used.

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
        instead of ``G / (G + N)``.

    Returns
    -------
    order : list of int
        Chosen candidates, in order.
    prefix : array of shape (len(order), 4)
        Weight sums covered by each prefix of the order.
    rho : float
        Probability of the last rule (the budget is met exactly in expectation).
    """
    bcol = NEG if criterion == "fpr" else ALL
    limit = budget * totals[bcol]
    eps = 1e-12 * (totals[GAIN] + totals[NEG])
    g0, m0 = shrink_base(totals)
    chosen = np.zeros(S.shape[0], dtype=bool)
    order, used, prefix = [], np.zeros(4), []
    while used[bcol] < limit and (max_rules is None or len(order) < max_rules):
        mass = S[:, GAIN] + S[:, NEG]
        ok = ~chosen & (mass > eps)
        if not ok.any():
            break
        idx = np.flatnonzero(ok)
        if precision_prior:
            prec = (S[idx, GAIN] + precision_prior * g0) / (mass[idx] + precision_prior * m0)
        else:
            prec = S[idx, GAIN] / mass[idx]
        best = idx[prec == prec.max()]
        if len(best) > 1:
            g = S[best, GAIN]
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
    prefix = np.asarray(prefix).reshape(-1, 4)
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
        Whether rules were ranked by money (adds ``money_recall``).

    Returns
    -------
    dict
        ``fpr``, ``tpr``, ``alert_rate`` (and ``money_recall``) per prefix, their
        ``expected_*`` values, ``criterion``, ``budget``, ``n_candidates``, ``candidate_index``.
    """
    rates = {"fpr": prefix[:, NEG] / totals[NEG], "tpr": prefix[:, POS] / totals[POS],
             "alert_rate": prefix[:, ALL] / totals[ALL]}
    if money:
        rates["money_recall"] = prefix[:, GAIN] / totals[GAIN] if totals[GAIN] > 0 else prefix[:, GAIN] * 0
    sel = {"criterion": criterion, "budget": budget, "n_candidates": n_candidates,
           "candidate_index": np.asarray(order, dtype=np.int64)}
    for k, v in rates.items():
        sel[k] = v
        last = v[-1] if len(v) else 0.0
        prev = v[-2] if len(v) > 1 else 0.0
        sel["expected_" + k] = float((1 - rho) * prev + rho * last)
    return sel
