"""The two scores RIFF ranks rules by on the uncovered rows D', one formula each.

Greedy selection (:func:`._greedy.greedy`), refinement and pruning (:mod:`._refine`) all ask a
score object for its two per-row columns (:meth:`columns`), sum them over a rule's rows and
call the object on the sums:

- :class:`PrecisionScore` (the paper): columns (positive weight G, negative weight N),
  score ``(G + p g0) / (G + N + p m0)``, with p the prior's pseudo-rows and g0, m0 the
  selection set's positive weight and weight of both classes per row;
- :class:`MoneyScore`: columns (net money M, budget weight B), score
  ``(M + p g0) / (B + p m0)`` (money per unit of budget), with g0, m0 the selection set's
  net money and budget weight per row.

p = 0 is plain precision / money per budget unit. :func:`make_score` builds either from
``rank_by`` and the selection set's totals.
"""

from __future__ import annotations

import numpy as np

from ._greedy import ALL, GAIN, NEG, NET, POS

__all__ = ["AUTO_PRIOR_RULES", "MoneyScore", "PrecisionScore", "RANK_BY", "check_prior", "check_rank_by",
           "make_score", "resolve_prior"]

#: the values of ``rank_by``
RANK_BY = ("precision", "money")

#: rules the "auto" prior spreads the budget over when ``max_rules`` is None
AUTO_PRIOR_RULES = 20


def check_rank_by(rank_by, has_costs):
    """``rank_by`` resolved: "precision" or "money" (None: "money" iff costs were given)."""
    if rank_by is None:
        return "money" if has_costs else "precision"
    if not isinstance(rank_by, str) or rank_by not in RANK_BY:
        raise ValueError(f"rank_by must be 'precision', 'money' or None, got {rank_by!r}")
    if rank_by == "money" and not has_costs:
        raise ValueError("rank_by='money' needs costs: give fn_cost= (and fp_cost=) or cost_matrix=")
    return rank_by


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


def resolve_prior(prior, totals, budget, max_rules):
    """The number of pseudo-rows of a checked ``precision_prior`` (:func:`check_prior`).

    "auto": one rule's share of the budget, ``budget.rate * totals[budget.column] / k`` with
    ``k = max_rules`` (:data:`AUTO_PRIOR_RULES` when None) and ``totals[budget.column]`` the
    selection set's negative weight (FPR budget) or all its weight (alert-rate budget), at least 1.
    A rule that covers that much is pulled halfway to the base rate, so the greedy prefers rules
    that can carry their share of the budget. Numbers are returned as they are.

    Parameters
    ----------
    prior : float or "auto"
        The checked prior.
    totals : array of shape (N_COLUMNS,)
        Sums over the selection rows (:func:`._greedy.row_weights`).
    budget : Budget
        What the budget bounds and its rate (:class:`._greedy.Budget`).
    max_rules : int or None
        Cap on the number of rules.

    Returns
    -------
    float
    """
    if prior != "auto":
        return float(prior)
    k = AUTO_PRIOR_RULES if max_rules is None else int(max_rules)
    return max(1.0, float(budget.rate * totals[budget.column] / k))


class _Score:
    """What both scores share: the prior (p, g0, m0) and the formula ``(A + p g0) / (D + p m0)``."""

    name = ""

    def __init__(self, prior=0.0, g0=0.0, m0=0.0):
        self.prior, self.g0, self.m0 = float(prior), float(g0), float(m0)

    def _shrunk(self, a, d):
        with np.errstate(invalid="ignore", divide="ignore"):
            return (a + self.prior * self.g0) / (d + self.prior * self.m0)

    def __repr__(self):
        return f"{type(self).__name__}(prior={self.prior!r}, g0={self.g0!r}, m0={self.m0!r})"


class PrecisionScore(_Score):
    """Shrunk precision ``(G + p g0) / (G + N + p m0)`` (G: covered positive weight, N: covered
    negative weight; g0, m0: the selection set's positive weight and weight per row).

    Parameters
    ----------
    prior : float, default 0
        p pseudo-rows (0: plain precision G / (G + N)).
    g0, m0 : float, default 0
        The pseudo-row's positive weight and weight of both classes.
    """

    name = "precision"
    tie = POS  # equal scores: more positive weight first

    @classmethod
    def from_totals(cls, totals, prior=0.0):
        """The score whose pseudo-row is the selection set's average row (``totals``: row-weight sums)."""
        return cls(prior, totals[POS] / totals[ALL], (totals[POS] + totals[NEG]) / totals[ALL])

    def columns(self, W):
        """The per-row columns the score sums: (positive weight, negative weight)."""
        return W[..., POS], W[..., NEG]

    def __call__(self, G, N):
        """The score of rules covering positive weight G and negative weight N (arrays or floats)."""
        return self._shrunk(G, G + N)

    gain = POS  # the column a rule must add some of to be taken

    def eligible(self, S, totals, stop_unprofitable=True):
        """Candidates (rows of the sums table S) the greedy may take: those adding positive weight (a rule
        that adds none would only spend budget)."""
        return S[:, POS] > 1e-12 * totals[POS]

    def rank(self, S, totals):
        """The ranking score of eligible candidates (rows of S)."""
        return self(S[:, POS], S[:, NEG])


class MoneyScore(_Score):
    """Shrunk net money per unit of budget ``(M + p g0) / (B + p m0)`` (M: covered net money
    ``sum_{cov+} w (C_FN - C_TP) - sum_{cov-} w (C_FP - C_TN)``; B: covered budget weight,
    negative weight for an FPR budget, all weight for an alert-rate budget; g0, m0: the
    selection set's net money and budget weight per row).

    Parameters
    ----------
    budget_column : int
        The row-weight column the budget bounds (:attr:`._greedy.Budget.column`).
    prior : float, default 0
        p pseudo-rows (0: M / B).
    g0, m0 : float, default 0
        The pseudo-row's net money and budget weight.
    """

    name = "money"
    tie = NET  # equal scores: more net money first

    def __init__(self, budget_column, prior=0.0, g0=0.0, m0=0.0):
        super().__init__(prior, g0, m0)
        self.budget_column = budget_column

    @classmethod
    def from_totals(cls, totals, budget_column, prior=0.0):
        """The score whose pseudo-row is the selection set's average row."""
        return cls(budget_column, prior, totals[NET] / totals[ALL], totals[budget_column] / totals[ALL])

    def columns(self, W):
        """The per-row columns the score sums: (net money, budget weight)."""
        return W[..., NET], W[..., self.budget_column]

    def __call__(self, M, B):
        """The score of rules covering net money M and budget weight B (arrays or floats)."""
        return self._shrunk(M, B)

    gain = GAIN  # the column a rule must add some of to be taken

    def eligible(self, S, totals, stop_unprofitable=True):
        """Candidates the greedy may take: those adding money caught (column GAIN, above the float noise
        of the running sums, :func:`money_eps`; a rule that adds none would only spend budget) and, with
        ``stop_unprofitable``, making money."""
        ok = (S[:, ALL] > 1e-12 * totals[ALL]) & (S[:, GAIN] > money_eps(totals))
        if stop_unprofitable:
            ok &= S[:, NET] > money_eps(totals)
        return ok

    def rank(self, S, totals):
        """The ranking score of eligible candidates: the formula; without a prior a candidate with
        B = 0 scores +inf if it makes money, -inf otherwise (so the score is positive exactly when the
        net money is)."""
        M, B = S[:, NET], S[:, self.budget_column]
        if self.prior:
            return self(M, B)
        eps_b = 1e-12 * totals[self.budget_column]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(B > eps_b, M / np.where(B > eps_b, B, 1.0), np.where(M > 0, np.inf, -np.inf))


def money_eps(totals):
    """Net money below which a candidate counts as not making money (float noise of the running sums)."""
    return 1e-12 * (abs(totals[GAIN]) + abs(totals[NET] - totals[GAIN]))


def make_score(rank_by, totals, budget, prior=0.0):
    """The score of a selection: :class:`PrecisionScore` or :class:`MoneyScore` (``rank_by``) with
    its pseudo-row from the selection set's ``totals`` and p = ``prior`` (resolved,
    :func:`resolve_prior`)."""
    if rank_by == "money":
        return MoneyScore.from_totals(totals, budget.column, prior)
    return PrecisionScore.from_totals(totals, prior)
