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


class Budget:
    """What a selection's budget bounds and its rate: ``kind`` "fpr" (covered negative weight over
    all negative weight <= rate) or "alert_rate" (covered weight over all weight <= rate). The
    public ``selection["criterion"]`` / ``selection["budget"]`` keys hold ``kind`` / ``rate``.

    Parameters
    ----------
    kind : {"fpr", "alert_rate"}
        What the budget bounds.
    rate : float in (0, 1]
        The rate.
    """

    KINDS = ("fpr", "alert_rate")

    def __init__(self, kind, rate):
        if kind not in self.KINDS:
            raise ValueError(f"budget kind must be 'fpr' or 'alert_rate', got {kind!r}")
        self.kind, self.rate = kind, float(rate)

    @property
    def column(self):
        """The row-weight column the budget bounds: negatives (FPR) or all rows (alert rate)."""
        return NEG if self.kind == "fpr" else ALL

    def limit(self, totals):
        """The budget in weight: ``rate * totals[column]``."""
        return self.rate * totals[self.column]

    def __repr__(self):
        return f"Budget({self.kind!r}, {self.rate!r})"


def best_candidate(S, ok, score, totals):
    """Index of the eligible row of ``S`` (``ok`` True) with the highest ``score.rank``; ties go to
    the higher ``S[:, score.tie]``, then to the lower index. None when no row is eligible."""
    if not ok.any():
        return None
    idx = np.flatnonzero(ok)
    rank = score.rank(S[idx], totals)
    best = idx[rank == rank.max()]
    if len(best) > 1:
        g = S[best, score.tie]
        best = best[g == g.max()]
    return int(best[0])


def greedy(S, totals, budget, max_rules, cover, score, stop_unprofitable=True):
    """Select rules by ``score`` on the uncovered rows until the budget is used.

    The next rule is the eligible candidate (``score.eligible``) with the highest
    ``score.rank``; ties go to the larger ``score.tie`` column, then to the earlier
    candidate. :class:`._scores.PrecisionScore` is the paper's Algorithm 1;
    :class:`._scores.MoneyScore` ranks by net money per budget unit, and with
    ``stop_unprofitable`` only candidates whose net money on the uncovered rows is > 0
    are eligible, so selection also stops when no candidate makes money (without a prior
    the best-scored candidate makes money whenever any does).

    Parameters
    ----------
    S : array of shape (n_candidates, N_COLUMNS)
        Each candidate's weight sums over all rows; updated in place to the uncovered rows.
    totals : array of shape (N_COLUMNS,)
        The weight sums of all rows.
    budget : Budget
        What the budget bounds and its rate.
    max_rules : int or None
        Cap on the number of rules.
    cover : callable
        ``cover(r, remaining)`` takes the newly chosen rule r off the uncovered rows
        (``remaining``: budget weight left before r) and returns ``(sums of the rows it took
        (N_COLUMNS,), their per-candidate sums (n_candidates, N_COLUMNS) or None)``, optionally
        with a third item ``stop`` (True: the rule as taken spends the budget, e.g. a
        budget-filling refinement; selection ends after it).
    score : PrecisionScore or MoneyScore
        The ranking (:mod:`._scores`).
    stop_unprofitable : bool, default True
        Passed to ``score.eligible`` (money: never take a candidate whose net money on the
        uncovered rows is <= 0).

    Returns
    -------
    order : list of int
        Chosen candidates, in order.
    prefix : array of shape (len(order), N_COLUMNS)
        Weight sums covered by each prefix of the order.
    rho : float
        Probability of the last rule (the budget is met exactly in expectation).
    """
    bcol = budget.column
    limit = budget.limit(totals)
    chosen = np.zeros(S.shape[0], dtype=bool)
    order, used, prefix = [], np.zeros(S.shape[1]), []
    while used[bcol] < limit and (max_rules is None or len(order) < max_rules):
        r = best_candidate(S, ~chosen & score.eligible(S, totals, stop_unprofitable), score, totals)
        if r is None:
            break
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


def selection_stats(order, prefix, rho, totals, budget, n_candidates, money):
    """The ``selection`` dict of a RuleSet: per-prefix rates and their expectations under rho.

    Parameters
    ----------
    order, prefix, rho
        As returned by :func:`greedy`.
    totals : array of shape (N_COLUMNS,)
        The weight sums of all rows.
    budget : Budget
        What the budget bounds and its rate.
    n_candidates : int
        Number of candidates.
    money : bool
        Whether the selection had costs (adds ``money_recall`` and ``net_money``).

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
    sel = {"criterion": budget.kind, "budget": budget.rate, "n_candidates": n_candidates,
           "candidate_index": np.asarray(order, dtype=np.int64)}
    for k, v in rates.items():
        sel[k] = v
        last = v[-1] if len(v) else 0.0
        prev = v[-2] if len(v) > 1 else 0.0
        sel["expected_" + k] = float((1 - rho) * prev + rho * last)
    return sel
