"""simplify_rules on dask collections: the rules riff_select picks on dask leave it as the in-memory
selection's do, with human cuts, missing values said only where they occur and short rules.

The in-memory simplification (:mod:`._simplify`) reads three things from the rows, each an additive
(or mergeable) summary of the partitions, so each is one pass:

1. **Columns** (:func:`_columns_pass`): per column a rule reads, its least and greatest value, the values
   next to and on every cut point (:func:`._simplify.cut_points`), whether it has a missing value and
   whether it is integer-valued. The human cut of a bound depends on nothing else, so the cuts are
   those of memory (:meth:`._simplify._Column.from_summary`).
2. **Failure patterns** (:func:`_patterns_pass`): for each rule, the distinct sets of its conditions
   failed by the rows that may not be added (rows no earlier rule covers and that count against the
   budget). A condition may go iff no such row fails it alone among the kept ones, so the client drops
   conditions exactly as :func:`._simplify._drop_redundant` does (:func:`._simplify._drop_by_patterns`).
   Cuts route every row as before and drops add no such row, so the rows that may not be added are
   known from the rules with human cuts, before any drop.
3. **Statistics** (:func:`_stats_pass`): the weight sums of the rows each final rule adds, which restate
   the selection statistics and find a rule whose caught rows all went to an earlier shorter rule
   (dropped as in memory; passes 2 and 3 then run again for the rules after it).
"""

from __future__ import annotations

import numpy as np

from .._dask_blocks import _BLOCK
from ._evaluate import compile_conditions, first_match
from ._greedy import ALL, GAIN, N_COLUMNS, NEG, NET, POS, Budget, selection_stats
from ._simplify import _Column, _cut_conditions, _drop_by_patterns, _finish, cut_points

__all__ = ["simplify_selection"]


class _Merge:
    """A per-partition summary that merges with ``+`` (the passes add their partitions' results)."""

    def __init__(self, parts):
        self.parts = parts

    def __add__(self, other):
        return _Merge([a.merge(b) for a, b in zip(self.parts, other.parts)])


class _ColumnSummary:
    """What pass 1 learns of one column: some of its values, a missing value seen, finite values seen and
    whether all of them are integers."""

    def __init__(self, values, has_missing, n_finite, integer):
        self.values, self.has_missing, self.n_finite, self.integer = values, has_missing, n_finite, integer

    def merge(self, o):
        return _ColumnSummary(np.union1d(self.values, o.values), self.has_missing or o.has_missing,
                              self.n_finite + o.n_finite, self.integer and o.integer)

    def column(self):
        return _Column.from_summary(self.values, self.has_missing, self.n_finite > 0 and self.integer)


def _column_summary(x, points):
    """The values of column x (float64, NaN missing) next to and on ``points``, its least and greatest."""
    nan = np.isnan(x)
    v = np.sort(x[~nan])
    fin = v[np.isfinite(v)]
    keep = [v[:1], v[-1:]]
    if len(v):
        lo = np.searchsorted(v, points, side="left")  # v[lo - 1] < p <= v[lo]
        hi = np.searchsorted(v, points, side="right")  # v[hi - 1] <= p < v[hi]
        keep += [v[lo[lo > 0] - 1], v[hi[hi < len(v)]], v[lo[lo < len(v)]]]
    integer = bool(np.all(fin == np.round(fin))) and bool(np.all(np.abs(fin) < 2.0 ** 53))
    return _ColumnSummary(np.unique(np.concatenate(keep)), bool(nan.any()), int(len(fin)), integer)


def _blocks_of(ctx, xb, used):
    n = len(xb)
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        part = xb.iloc[a:b] if hasattr(xb, "iloc") else xb[a:b]
        yield a, b, ctx.matrix(part, used) if used else np.zeros((b - a, 1), order="F")


def _columns_pass(xb, yb, wb, mb, ctx, sid, part, points):
    """Pass 1: per column of ``points`` (column -> cut points) its :class:`_ColumnSummary`."""
    xb, *_ = ctx.read(xb, yb, wb, mb)
    used = sorted(points)
    out = None
    for _, _, X in _blocks_of(ctx, xb, used):
        s = _Merge([_column_summary(X[:, k], points[j]) for k, j in enumerate(used)])
        out = s if out is None else out + s
    return out, 0


class _Patterns:
    """Pass 2's result for one rule: the distinct failure bit masks (Python ints) of the rows that may not
    be added."""

    def __init__(self, masks):
        self.masks = masks

    def merge(self, o):
        return _Patterns(self.masks | o.masks)


def _fixed(W, alert_rate, money):
    """Rows that may not be added to a rule (as in :func:`._simplify._simplify`): those that count against
    the budget and, with money statistics, those whose alert loses money."""
    out = W[:, ALL if alert_rate else NEG] > 0
    if money:
        out |= W[:, NET] < 0
    return out


def _patterns_pass(xb, yb, wb, mb, ctx, sid, part, rules, alert_rate, money):
    """Pass 2: per rule of ``rules`` (the rules in force, human cuts, no drop yet), the failure patterns of
    the partition's rows that may not be added to it: no earlier rule covers them and they count against
    the budget."""
    xb, yb, wb, mb = ctx.read(xb, yb, wb, mb)
    used = sorted({c.feature for r in rules for c in r.conditions})
    pos = {j: k for k, j in enumerate(used)}
    cc = compile_conditions(rules, pos)
    out = [set() for _ in rules]
    W = ctx.weights(yb, wb, mb, len(xb))
    bad = _fixed(W, alert_rate, money)
    for a, b, X in _blocks_of(ctx, xb, used):
        fm = first_match(X, cc)
        for i, r in enumerate(rules):
            rows = bad[a:b] & ((fm < 0) | (fm >= i))
            if not rows.any() or not r.conditions:
                continue
            fails = np.column_stack([~c.mask(X[rows, pos[c.feature]]) for c in r.conditions])
            bits = np.unique(fails, axis=0)
            out[i].update(int(sum(1 << k for k in np.flatnonzero(row))) for row in bits)
    return _Merge([_Patterns(s) for s in out]), 0


def _stats_pass(xb, yb, wb, mb, ctx, sid, part, rules):
    """Pass 3: per rule, the weight sums of the partition's rows it adds (those no earlier rule covers)."""
    xb, yb, wb, mb = ctx.read(xb, yb, wb, mb)
    used = sorted({c.feature for r in rules for c in r.conditions})
    cc = compile_conditions(rules, {j: k for k, j in enumerate(used)})
    W = ctx.weights(yb, wb, mb, len(xb))
    out = np.zeros((len(rules), N_COLUMNS))
    for a, b, X in _blocks_of(ctx, xb, used):
        fm = first_match(X, cc)
        hit = fm >= 0
        np.add.at(out, fm[hit], W[a:b][hit])
    return out, 0


def simplify_selection(passes, rules, rho, sel, took, totals):
    """The in-memory :func:`._simplify._simplify` of a dask selection, with ``W`` (cuts, missing values and
    short rules).

    Parameters
    ----------
    passes : _Passes
        The selection's passes over the partitions (:mod:`._dask_select`).
    rules : list of Rule
        The selected rules, in order.
    rho : float
        The last rule's probability.
    sel : dict
        The selection statistics (``criterion``, ``budget``, ``rank_by``, ...).
    took : array of shape (len(rules), N_COLUMNS)
        The weight sums of the rows each rule added in the selection.
    totals : array of shape (N_COLUMNS,)
        The weight sums of all rows.

    Returns
    -------
    rules : list of Rule
        The simplified rules (the unchanged ones are the same objects).
    rho : float
    sel : dict
        Restated when a rule changed.
    missing : list of int
        The columns the rules read that have a missing value.
    """
    if not rules:
        return rules, rho, sel, []
    summary, = passes.run(_columns_pass, cut_points(rules))
    used = sorted(cut_points(rules))
    columns = {j: s.column() for j, s in zip(used, summary.parts)}
    cut = [_cut_conditions(r, columns, True) for r in rules]
    alert_rate, money = sel.get("criterion") == "alert_rate", "net_money" in sel
    gain = GAIN if sel.get("rank_by") == "money" else POS
    eps = 1e-12 * abs(totals[gain])  # as in memory: below it a rule adds nothing caught
    skipped = set()
    while True:
        live = [i for i in range(len(rules)) if i not in skipped]
        in_force = [_finish(rules[i], cut[i]) for i in live]
        patterns, = passes.run(_patterns_pass, in_force, alert_rate, money)
        out = [_finish(rules[i], _drop_by_patterns(list(r.conditions), p.masks))
               for i, r, p in zip(live, in_force, patterns.parts)]
        sums, = passes.run(_stats_pass, out)
        drop = next((k for k, i in enumerate(live) if sums[k, gain] <= eps < took[i, gain]), None)
        if drop is None:
            break
        skipped.add(live[drop])
    kept = live
    rho = rho if kept and kept[-1] == len(rules) - 1 else 1.0
    if out != rules:
        prefix = np.cumsum(sums, axis=0)
        sel = selection_stats(np.asarray(sel["candidate_index"])[kept], prefix, rho, totals,
                              Budget(sel["criterion"], sel["budget"]), sel["n_candidates"], "money_recall" in sel) \
            | {k: sel[k] for k in ("rank_by",) if k in sel}
    return out, rho, sel, [j for j in used if columns[j].has_missing]
