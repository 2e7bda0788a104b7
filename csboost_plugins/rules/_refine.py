"""Refinement and pruning of a selected rule on the selection set.

Both steps change a rule's conditions, so the result is a *new* rule: it no longer
routes rows like the tree node it came from. Its ``sources`` keep the original
entries with ``"modified": "refined"`` / ``"pruned"`` added, so exports show that it
is not the model's own path.

A rule is scored on the rows D' it acts on (the rows no earlier rule covers) by the
selection's own score (:mod:`._scores`): the functions take that score's two per-row
columns (``score.columns(W)``) and the score object. Without one, ``prior, g0, m0`` give
the shrunk precision ``(G + prior * g0) / (G + N + prior * m0)`` of positive gain G and
negative weight N (prior = 0 is plain precision).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .._docstrings import fill_doc
from ._rule import ZERO_THRESHOLD, Interval, Rule
from ._scores import PrecisionScore

__all__ = ["conditions_mask", "prune_rule", "refine_rule", "rule_score"]

# numpydoc text of the three functions that score a rule on D' (csboost_plugins._docstrings.fill_doc)
_ROWS = ("Xf : ndarray of float64, shape (n_rows, n_features)\n"
         "    The rows D' (those no earlier rule covers), converted by ``as_float_matrix``.\n"
         "gain, neg : ndarray of float64, shape (n_rows,)\n"
         "    The score's two per-row columns (``score.columns``): positive gain and negative weight\n"
         "    (precision), net money and budget weight (money).\n"
         "prior, g0, m0 : float, default=0.0\n"
         "    Without ``score``: the shrunk precision's pseudo-rows, per-row average gain and gain +\n"
         "    negative weight (see the module docstring).\n"
         "score : PrecisionScore or MoneyScore, optional\n"
         "    The selection's score (:mod:`csboost_plugins.rules._scores`); replaces prior, g0, m0.")


def _the_score(score, prior, g0, m0):
    return PrecisionScore(prior, g0, m0) if score is None else score


def conditions_mask(conditions, Xf):
    """Rows of a float matrix that meet every condition.

    Parameters
    ----------
    conditions : list of Interval or CategorySet
        The conditions of a rule.
    Xf : ndarray of float64, shape (n_rows, n_features)
        Data already converted by ``as_float_matrix`` (categories re-coded).

    Returns
    -------
    ndarray of bool, shape (n_rows,)
    """
    out = np.ones(Xf.shape[0], dtype=bool)
    for c in conditions:
        out &= c.mask(Xf[:, c.feature])
    return out


@fill_doc(rows=_ROWS)
def rule_score(rule, Xf, gain, neg, prior=0.0, g0=0.0, m0=0.0, *, score=None):
    """Score of a rule on the rows D' of ``Xf``.

    Parameters
    ----------
    rule : Rule
        The rule.
    %(rows)s

    Returns
    -------
    tuple of float
        (score, covered ``gain``, covered ``neg``).
    """
    m = conditions_mask(rule.conditions, Xf)
    g, n = float(gain[m].sum()), float(neg[m].sum())
    return float(_the_score(score, prior, g0, m0)(g, n)), g, n


def _others_mask(conds, k, Xf):
    return conditions_mask(conds[:k] + conds[k + 1:], Xf)


def _cut_grid(x, side):
    """Cuts between consecutive distinct values of sorted x, plus the extreme value itself.

    An upper cut u keeps ``x <= u``, a lower cut l keeps ``x >= l``; the midpoint of two
    neighbours v_i < v_i+1 splits them, and where it rounds onto a neighbour the
    neighbour on the kept side is used instead.
    """
    v = np.unique(x)
    lo, hi = v[:-1], v[1:]
    mid = lo + (hi - lo) / 2.0
    bad = (mid <= lo) | (mid >= hi)
    if side == "upper":
        mid[bad] = lo[bad]
        return np.r_[mid, v[-1]]
    mid[bad] = hi[bad]
    return np.r_[v[0], mid]


def _side_mask(c, side, x):
    """Rows of x (no missing) inside the ``side`` bound of interval c."""
    if side == "upper":
        return (x < c.upper) | (c.upper_closed & (x == c.upper))
    return (x > c.lower) | (c.lower_closed & (x == c.lower))


def _bound_table(c, side, x, g, n, cost, fixed):
    """Covered sums for every cut of one side of interval c.

    Rows (x, g, n, cost) satisfy every other condition of the rule; ``fixed`` =
    (gain, neg, cost) of the covered rows that do not depend on the bound (missing
    values routed into the rule). Returns (grid, G, N, C) over the grid of cuts and
    (G, N, C) of the current bound.
    """
    ok = ~np.isnan(x)
    if c.zero_missing:
        ok &= ~(np.abs(x) <= ZERO_THRESHOLD)
    keep = ok.copy()
    keep[ok] = _side_mask(c, "lower" if side == "upper" else "upper", x[ok])
    x, g, n, cost = x[keep], g[keep], n[keep], cost[keep]
    cur = _side_mask(c, side, x)
    current = tuple(f + v[cur].sum() for f, v in zip(fixed, (g, n, cost)))
    if len(x) == 0:
        return np.empty(0), np.empty(0), np.empty(0), np.empty(0), current
    o = np.argsort(x, kind="stable")
    xs = x[o]
    grid = _cut_grid(xs, side)
    if side == "upper":  # rows with x <= cut
        k = np.searchsorted(xs, grid, side="right")
        sums = [np.r_[0.0, np.cumsum(v[o])][k] for v in (g, n, cost)]
    else:  # rows with x >= cut
        k = np.searchsorted(xs, grid, side="left")
        sums = [np.r_[np.cumsum(v[o][::-1])[::-1], 0.0][k] for v in (g, n, cost)]
    return (grid, *(f + v for f, v in zip(fixed, sums)), current)


def _modified(rule, conds, tag):
    sources = [dict(s, modified=(s["modified"] + "+" + tag) if "modified" in s else tag) for s in rule.sources] \
        or [{"modified": tag}]
    return Rule(conds, feature_names=rule.feature_names, sources=sources, value=rule.value,
                categories=rule.categories)


@fill_doc(rows=_ROWS)
def refine_rule(rule, Xf, gain, neg, prior=0.0, g0=0.0, m0=0.0, *, score=None, cost=None, max_cost=None,
                max_passes=2):
    """Move finite interval bounds of ``rule`` to better cuts on D' (coordinate ascent).

    One bound at a time (upper,
    then lower, per condition), the other conditions fixed, over the grid of
    midpoints between consecutive distinct values of the rows that satisfy the
    other conditions (:func:`_cut_grid`; a cut is a closed bound ``x <= u`` /
    ``x >= l``). A move is taken only if it strictly improves the objective:

    - ``max_cost`` None: the score (shrunk precision) over cuts that only widen the
      rule (it keeps every row it covered, so no caught positive is given up and the
      rule never becomes narrower: tightening pure rules would spend the rule budget
      ``max_rules`` on ever smaller rules; measured in ``benchmarks/results/rules.md``);
    - ``max_cost`` given (the rule that crosses the budget): the covered gain,
      subject to ``sum(cost over covered rows) <= max_cost`` (``cost`` = negative
      weight for an FPR budget, all weight for an alert-rate budget), ties by
      score. If no cut satisfies the budget, the rule is returned unchanged.

    At most ``max_passes`` sweeps. Missing-value routing is kept.

    Parameters
    ----------
    rule : Rule
        The rule to refine.
    %(rows)s
    cost : ndarray of float64, shape (n_rows,), optional
        Budget weight per row (default ``neg``).
    max_cost : float, optional
        Remaining budget; switches to the budget-filling objective.
    max_passes : int, default 2
        Sweeps over all bounds.

    Returns
    -------
    Rule
        ``rule`` itself if nothing moved, else a new rule whose sources are tagged
        ``"modified": "refined"``.
    """
    score = _the_score(score, prior, g0, m0)
    fill = max_cost is not None
    # widening mode: C counts covered rows, and a cut is allowed iff it covers at least as many
    cost = (neg if cost is None else cost) if fill else np.ones(Xf.shape[0])
    conds = list(rule.conditions)

    def key(G, N, C, c_now):  # larger is better (lexicographic)
        s = score(G, N)
        s = np.where(np.isnan(s), -np.inf, s)
        if fill:
            return (C <= max_cost) * 1.0, np.where(C <= max_cost, G, -C), s
        return (C >= c_now) * 1.0, s, np.zeros_like(s)

    moved = False
    for _ in range(max_passes):
        improved = False
        for k, c in enumerate(conds):
            if not isinstance(c, Interval):
                continue
            for side in ("upper", "lower"):
                c = conds[k]
                if not math.isfinite(c.upper if side == "upper" else c.lower):
                    continue
                rows = _others_mask(conds, k, Xf)
                x, g, n, co = Xf[rows, c.feature], gain[rows], neg[rows], cost[rows]
                special = np.isnan(x) | (c.zero_missing & (np.abs(x) <= ZERO_THRESHOLD))
                fixed = tuple(float(v[special].sum()) if c.missing else 0.0 for v in (g, n, co))
                grid, G, N, C, current = _bound_table(c, side, x, g, n, co, fixed)
                if not len(grid):
                    continue
                k1, k2, k3 = key(G, N, C, current[2])
                c1, c2, c3 = (float(np.ravel(v)[0]) for v in key(*(np.asarray([v]) for v in current), current[2]))
                best = np.lexsort((k3, k2, k1))[-1]
                if (k1[best], k2[best], k3[best]) <= (c1, c2, c3):
                    continue
                tie = np.flatnonzero((k1 == k1[best]) & (k2 == k2[best]) & (k3 == k3[best]))
                ref = c.upper if side == "upper" else c.lower
                j = tie[np.argmin(np.abs(grid[tie] - ref))]
                b = _readable_cut(grid[j], x[~special], side)
                conds[k] = replace(c, upper=b, upper_closed=True, upper_text=None) if side == "upper" \
                    else replace(c, lower=b, lower_closed=True, lower_text=None)
                improved = moved = True
        if not improved:
            break
    if not moved:
        return rule
    if fill and float(cost[conditions_mask(conds, Xf)].sum()) > max_cost:
        return rule
    return _modified(rule, conds, "refined")


def _readable_cut(b, x, side):
    """The shortest decimal that selects the same rows of x as cut b (display only; same rows)."""
    if side == "upper":  # x <= b: need max(x <= b) <= d < min(x > b)
        below, above = x[x <= b], x[x > b]
        lo = below.max() if len(below) else -math.inf
        hi = above.min() if len(above) else math.inf
        def ok(d):
            return lo <= d < hi
    else:  # x >= b: need max(x < b) < d <= min(x >= b)
        below, above = x[x < b], x[x >= b]
        lo = below.max() if len(below) else -math.inf
        hi = above.min() if len(above) else math.inf
        def ok(d):
            return lo < d <= hi
    for digits in range(1, 18):
        d = float(f"{b:.{digits}g}")
        if ok(d):
            return d
    return float(b)


#: ``prune=True``: the share of a rule's score on D' that shorter conditions may give up
PRUNE_TOLERANCE = 0.1


@fill_doc(rows=_ROWS)
def prune_rule(rule, Xf, gain, neg, prior=0.0, g0=0.0, m0=0.0, tolerance=0.0, *, score=None):
    """Drop conditions, best drop first, while the score on D' stays within ``tolerance`` of the rule's.

    Each step drops the condition whose removal leaves the highest score; it stops before a
    drop that would bring the score below ``s - tolerance * |s|``, ``s`` the score of the rule
    as given (``tolerance=0``: never below it). A rule keeps at least one condition.

    Parameters
    ----------
    rule : Rule
        The rule to prune.
    %(rows)s
    tolerance : float in [0, 1), default 0.0
        Share of the rule's score a shorter rule may give up.

    Returns
    -------
    Rule
        ``rule`` itself if no condition can go, else a new rule whose sources are
        tagged ``"modified": "pruned"``.
    """
    score = _the_score(score, prior, g0, m0)
    conds = list(rule.conditions)
    masks = [c.mask(Xf[:, c.feature]) for c in conds]
    full = np.logical_and.reduce(masks)
    s0 = score(gain[full].sum(), neg[full].sum())
    if not np.isfinite(s0):  # the rule covers nothing of D' (no prior): nothing to compare with
        return rule
    floor = s0 - tolerance * abs(s0)
    pruned = False
    while len(conds) > 1:
        best, best_s = None, -math.inf
        for k in range(len(conds)):
            m = np.logical_and.reduce([mk for i, mk in enumerate(masks) if i != k])
            s = score(gain[m].sum(), neg[m].sum())
            if s > best_s:
                best, best_s = k, s
        if not best_s >= floor:  # also a NaN score (a drop covering nothing) stops
            break
        del conds[best], masks[best]
        pruned = True
    return _modified(rule, conds, "pruned") if pruned else rule
