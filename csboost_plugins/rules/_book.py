"""A team's rule book optimised together with RIFF's rules: :func:`optimize_rule_book`.

The rows given are split (stratified by label) into disjoint parts, as RIFFClassifier
splits induction from selection:

1. **induction** (only with ``candidates="riff"``): RIFFClassifier's default pool is fitted
   and :func:`riff_select` (RIFFClassifier's selection keywords, ranked by money when costs are
   given) turns its leaves into a rule set on the selection part;
2. **re-tuning** (only with ``retune=True``): each numeric literal of a book rule moves,
   one at a time, to the human number that maximises the rule's ranking score (ties: the
   number nearest the original), a literal compared with a column only within the column's
   observed range on these rows;
3. **selection**: a greedy pass over the book's rules (as written and re-tuned: at most
   one version of each) and the induced rules, ranked by net money per unit of budget
   (counts: shrunk precision) on the rows no rule taken so far flags, each rule taken only
   if it fits the budget that is left (a book has no randomised rule, so the selection
   never exceeds the budget on these rows). With ``candidates="riff"`` the budget the chosen
   rules leave is then filled by :func:`riff_select` over the pool's leaves on the selection
   rows none of them flags (a last rule crossing the budget is not kept).

The best of many rules on the selection rows looks better there than it is, so each rule is
also judged on the rows that neither fitted nor chose it (a book rule as written: the induction
and re-tuning parts; a re-tuned one: the induction part; an induced one: the re-tuning part). A
candidate whose net money alone is not positive there is not offered, and the greedy takes a
rule only if the rows it adds (those no rule taken before flags) earn money there too. Induced
rules come by the dozen, each small, so the re-tuning part judges them first as a group: the
selection runs with them ungated and keeps them if, together, they earn on the re-tuning rows
no other kept rule flags by more than ``GROUP_STANDARD_ERRORS`` standard errors of that sum;
otherwise it runs again with each induced rule gated on its own.

A last pass drops, one at a time, the rule whose leave-one-out net money on all the rows given
(``unique_net_money`` of :meth:`RuleSet.evaluate`; without costs ``unique_tp``) is lowest while
it is <= 0, so what remains earns its alerts on the rows given.

Those steps are one *procedure*. :func:`optimize_rule_book` runs several (the book's rules as
written, the book re-tuned alone, the book with induced rules, the induced rules alone) under
cross-fitting and keeps the simplest within 0.75 standard errors of the best held-out money
(``_book_choose``), then re-runs that procedure on all the rows.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _aot
from ._book_choose import check_cv, choose_and_fit, flagged_money
from ._book_choose import rows_of as _rows
from ._book_kernels import masked_column_sums, swept_column_sums
from ._greedy import NEG, NET, POS, best_candidate, row_weights
from ._scores import make_score, resolve_prior
from ._sqlrule import SQLRule, _Evaluator

__all__ = ["human_grid", "literal_ranges", "optimize_rule_book", "retune_rule", "select_fitting"]

#: share of the rows given to each part: induction, re-tuning, selection (parts not used are merged away).
#: Induction and selection get RIFFClassifier's even split of most rows; re-tuning moves a few literals
#: per rule and reads a tenth (at most RETUNE_ROWS)
PART_SHARES = {"induction": 0.45, "retune": 0.1, "selection": 0.45}
#: candidate values tried per literal when re-tuning (a multiplicative grid around the literal)
RETUNE_GRID = 24
#: induced rules are kept ungated when, as a group, they earn more than this many standard errors of
#: their sum on the re-tuning rows no other kept rule flags
GROUP_STANDARD_ERRORS = 1.0
#: the origins a rule can have, in the order of the held-out value columns
ORIGINS = ("book", "retuned", "added")
#: re-tuning reads at most this many rows (a uniform sample of the re-tuning part)
RETUNE_ROWS = 100_000


# ------------------------------------------------------------------------------------------ numbers
def _round_sig(v: float, digits: int) -> float:
    if v == 0 or not math.isfinite(v):
        return v
    return float(f"{v:.{digits}g}")


def _human_toward(v: float, down: bool, integer: bool) -> float:
    """The nearest human number (two significant digits; an integer if ``integer``) at or below ``v``
    (``down``) or at or above it; +-inf stays as is. Exact: the decimal digits of ``v`` are rounded."""
    from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

    if not math.isfinite(v):
        return v
    rounding = ROUND_FLOOR if down else ROUND_CEILING
    d = Decimal(repr(float(v)))
    if d != 0:
        d = d.quantize(Decimal(1).scaleb(d.adjusted() - 1), rounding=rounding)  # two significant digits
    if integer:
        d = d.to_integral_value(rounding=rounding)
    return float(d)  # float() of a decimal at or below (above) repr(v) is at or below (above) v


def human_grid(value: float, n: int = RETUNE_GRID, *, integer: bool = False, low=None, high=None) -> np.ndarray:
    """Human numbers around a literal: ``value * f`` for f log-spaced in [1/4, 4], each rounded
    to two significant digits (integers stay integers), sorted, without duplicates, ``value``
    itself included. A zero literal has no scale to move along: it is returned alone.

    With ``low`` / ``high`` (the observed range of the column the literal is compared with) the
    grid keeps only its numbers in [low, high]; the numbers cut off above are replaced by the
    largest human number <= high, those below by the smallest >= low ("just inside" the data),
    and ``value`` stays even when outside. A literal then never moves past the data, where its
    comparison would be always or never true (``hour > 96`` on a column running 0-24).
    """
    grid = {float(value)}
    if value != 0 and math.isfinite(value):
        for f in np.geomspace(0.25, 4.0, n):
            g = _round_sig(value * f, 2)
            if integer:
                g = float(round(g))
            grid.add(g)
    if low is None and high is None:
        return np.array(sorted(grid), dtype=np.float64)
    lo = -math.inf if low is None else float(low)
    hi = math.inf if high is None else float(high)
    inside = {g for g in grid if lo <= g <= hi}
    if any(g > hi for g in grid):
        edge = _human_toward(hi, True, integer)
        if math.isfinite(edge) and lo <= edge <= hi:
            inside.add(edge)
    if any(g < lo for g in grid):
        edge = _human_toward(lo, False, integer)
        if math.isfinite(edge) and lo <= edge <= hi:
            inside.add(edge)
    inside.add(float(value))
    return np.array(sorted(inside), dtype=np.float64)


# ------------------------------------------------------------------------------------------ rule kinds
def _literals(rule) -> list:
    """The numeric literals of a rule that re-tuning may move (none for induced rules)."""
    return list(rule.literals)


def _with_literals(rule, values):
    return rule.with_literals(list(values))


# ------------------------------------------------------------------------------------------ scores
class _RuleScore:
    """``f(sums) -> float``: the ranking score of one rule's weight sums (a row of N_COLUMNS); ``rows(S)``: the
    scores of every row of S at once (the formula is row by row, so each equals ``f`` of its row)."""

    def __init__(self, score, totals):
        self.score, self.totals = score, totals

    def __call__(self, sums):
        return float(self.score.rank(np.atleast_2d(sums), self.totals)[0])

    def rows(self, S):
        return self.score.rank(np.atleast_2d(S), self.totals)


def _rule_score(score, totals):
    """The :class:`_RuleScore` of ``score`` on rows with weight sums ``totals``."""
    return _RuleScore(score, totals)


def literal_ranges(rule, cols) -> list:
    """Per numeric literal of ``rule``, the observed range ``(low, high)`` of what it is compared with
    directly (a column, its negation or CAST: :meth:`SQLRule.literal_columns`) on the rows of ``cols``,
    NULLs ignored; None for a literal inside arithmetic or compared with text. ``(inf, -inf)`` when the
    column holds no value: every literal then gives the same rows. A slot used in several comparisons
    gets the intersection of their ranges."""
    spec = rule.literal_columns
    n = len(_literals(rule))
    if spec is None:
        return [None] * n
    out = []
    for uses in spec():
        if uses is None:
            out.append(None)
            continue
        lo, hi = -math.inf, math.inf
        for name, quoted, sign in uses:
            val = cols.get(name, quoted, rule.name)
            if val.kind != "num":
                lo = None  # text: the comparison is refused when the rule is evaluated
                break
            v = np.broadcast_to(val.v, (cols.n,))[~np.broadcast_to(val.null, (cols.n,))]
            if not v.size:
                lo, hi = math.inf, -math.inf
                continue
            a, b = float(v.min()), float(v.max())
            a, b = (a, b) if sign > 0 else (-b, -a)
            lo, hi = max(lo, a), min(hi, b)
        out.append(None if lo is None else (lo, hi))
    return out


def retune_rule(rule, X, W, score, *, passes: int = 8, feature_names=None):
    """The rule with its numeric literals moved to the human numbers (:func:`human_grid`) that
    maximise ``score`` of its weight sums on (X, W); the rule itself when nothing scores higher.

    A literal compared directly with a column (:func:`literal_ranges`) moves only among human
    numbers within the column's observed [min, max] on these rows (its original value kept);
    a literal inside arithmetic moves on the multiplicative grid. Coordinate search: each
    literal in turn over its grid, the others held, taking the best score and, among equal
    scores, the value nearest the original literal (so nothing moves without gain); repeated
    until no literal moves (at most ``passes`` times), so each literal ends at the best of its
    grid given the others. ``feature_names`` names a numpy X's columns.
    """
    lits = _literals(rule)
    if not lits:
        return rule
    from ._sqlrule import Columns

    cols = Columns(X, feature_names)  # each column read once for all the candidate versions
    masks = _VersionMasks(rule, X, feature_names, cols)
    Wc = np.ascontiguousarray(W, dtype=np.float64)  # W[mask].sum(axis=0) of every version, by the kernel
    grids = [human_grid(float(v), integer=float(v).is_integer(), **({} if r is None else {"low": r[0], "high": r[1]}))
             for v, r in zip(lits, literal_ranges(rule, cols))]
    seen = {}

    def value_of(vals):  # the score of the version with these literals (each version evaluated once)
        key = tuple(vals)
        if key not in seen:
            mask = np.ascontiguousarray(masks(vals), dtype=bool)  # a broadcast constant mask has stride 0
            seen[key] = score(_aot.run("masked_column_sums", masked_column_sums, mask, Wc))
        return seen[key]

    def sweep(i, vals):  # every version of literal i at once, when its comparison allows (same sums)
        keys = [tuple(vals[:i]) + (float(g),) + tuple(vals[i + 1:]) for g in grids[i]]
        if all(key in seen for key in keys):
            return
        sums = masks.sweep(i, vals, grids[i], Wc)
        if sums is not None:
            rows = getattr(score, "rows", None)  # a caller's score may score one row at a time only
            for key, v in zip(keys, rows(sums).tolist() if rows is not None else map(score, sums)):
                if key not in seen:
                    seen[key] = v

    def tol(s):
        return 1e-12 * (abs(s) + 1.0)

    best_vals = [float(v) for v in lits]
    start = best = value_of(best_vals)
    for _ in range(passes):
        moved = False
        for i, v0 in enumerate(lits):
            sweep(i, best_vals)
            head, tail = best_vals[:i], best_vals[i + 1:]
            scored = [(value_of(head + [g] + tail), g) for g in grids[i].tolist()]
            top = max(s for s, _ in scored)
            # the best value; among equal scores the nearest the original literal, then the current one
            s, g = min(((s, g) for s, g in scored if s >= top - tol(top)),
                       key=lambda sg: (abs(sg[1] - v0), sg[1] != best_vals[i], sg[1]))
            if g != best_vals[i]:
                best_vals[i], best, moved = g, s, True
        if not moved:
            break
    return rule if best <= start + tol(start) else _with_literals(rule, best_vals)


class _VersionMasks:
    """``f(literal values) -> mask``: :meth:`SQLRule.mask` of the rule's version with those literals, each node's
    value and truth kept per the values of the literal slots below it, so a version that moves one literal
    recomputes only the nodes above that literal (re-tuning moves one literal at a time). A rule of another
    kind is evaluated whole."""

    def __init__(self, rule, X, feature_names, cols):
        self.rule, self.X, self.feature_names, self.cols, self.memo = rule, X, feature_names, cols, {}
        self.slots, self.leaves = {}, {}
        if isinstance(rule, SQLRule):
            _subtree_slots(rule.tree, self.slots)
            self.leaves = _sweepable_leaves(rule.tree)

    def _evaluator(self, vals, cls=None, **kw):
        ev = (cls or _MemoEvaluator)(self.rule, self.cols, self.memo, self.slots, **kw)
        # the version's literals as SQLRule.with_literals sets them (an integer slot stays one if its value is)
        ev.lits = tuple(float(v) for v in vals)
        ev.ints = tuple(i and v.is_integer() for i, v in zip(self.rule._literal_is_int, ev.lits))
        return ev

    def __call__(self, vals):
        if not self.slots:
            return _with_literals(self.rule, vals).mask(self.X, self.feature_names, columns=self.cols)
        t, _ = self._evaluator(vals).cond(self.rule.tree)
        return np.broadcast_to(t, (self.cols.n,))

    def sweep(self, i, vals, grid, W):
        """(len(grid), k) ``W[mask].sum(axis=0)`` of the versions with literal ``i`` at each value of ``grid`` (the
        others at ``vals``), equal bit for bit to summing each version's mask; None when literal ``i`` is not one
        side of a single numeric comparison (:func:`_sweepable_leaves`) of a column without IEEE NaN values. The
        rule's truth at a row then depends on the versions only through that comparison's truth (TRUE, FALSE or
        unknown), so the rule is evaluated three times, with the comparison held at each."""
        grid = np.ascontiguousarray(grid, dtype=np.float64)
        if i not in self.leaves or not np.all(grid[1:] > grid[:-1]):  # the kernel bisects an increasing grid
            return None
        leaf, op, other = self.leaves[i]
        ev = self._evaluator(vals, _SweepEvaluator, leaf=leaf, slot=i)
        a = ev.value(other)
        n = self.cols.n
        if a.kind != "num" or a.nan or np.asarray(a.v).dtype != np.float64:
            return None  # text or NULL (refused or never true), DuckDB's NaN order, or another float width
        x = np.ascontiguousarray(np.broadcast_to(a.v, (n,)))
        null = np.ascontiguousarray(np.broadcast_to(a.null, (n,)), dtype=bool)
        if leaf[0] == "between":  # the bound that stays: its comparison is part of the rest of the rule
            bound = 3 if leaf[2] == ("num", i) else 2
            ev.fixed = ev.compare("<=" if bound == 3 else ">=", a, ev.value(leaf[bound]))
        masks = []
        for state in ((np.True_, np.False_), (np.False_, np.True_), (np.False_, np.False_)):
            ev.state = state
            t, _ = ev.cond(self.rule.tree)
            masks.append(np.ascontiguousarray(np.broadcast_to(t, (n,)), dtype=bool))
        return _aot.run("swept_column_sums", swept_column_sums, x, null, *masks, grid, _SWEEP_OPS.index(op), W)


def _subtree_slots(node, out):
    """Fill ``out`` {id(node): sorted tuple of the literal slots in its subtree}; returns the slots of ``node``."""
    if isinstance(node, tuple) and len(node) == 2 and node[0] == "num" and isinstance(node[1], int):
        out[id(node)] = (node[1],)
        return {node[1]}
    found = set()
    for child in node:
        if isinstance(child, (tuple, list)):
            found |= _subtree_slots(child, out)
    if isinstance(node, tuple):
        out[id(node)] = tuple(sorted(found))
    return found


#: the comparison operators of :func:`._book_kernels.swept_column_sums`, by code
_SWEEP_OPS = ("<", "<=", ">", ">=", "=", "<>")
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}


def _sweepable_leaves(tree) -> dict:
    """{literal slot: (leaf, op, other)} for the literals :meth:`_VersionMasks.sweep` can move at once: a slot
    used once, as one side of a comparison (``other op literal``, op turned when the literal is on the left) or
    a bound of BETWEEN (``other`` the value tested), under AND / OR / NOT only."""
    uses, found = {}, {}

    def walk(node, path):
        if isinstance(node, tuple) and len(node) == 2 and node[0] == "num" and isinstance(node[1], int):
            uses[node[1]] = uses.get(node[1], 0) + 1
            parent = path[-1] if path else None
            if parent is not None and all(p[0] in ("and", "or", "not") for p in path[:-1]):
                if parent[0] == "cmp" and parent[1] in _FLIPPED and (parent[2] is node or parent[3] is node):
                    left = parent[2] is node
                    found[node[1]] = (parent, _FLIPPED[parent[1]] if left else parent[1],
                                      parent[3] if left else parent[2])
                elif parent[0] == "between" and (parent[2] is node or parent[3] is node):
                    found[node[1]] = (parent, ">=" if parent[2] is node else "<=", parent[1])
            return
        if isinstance(node, (tuple, list)) and node and isinstance(node[0], str):  # a node: (op, ...)
            for child in node[1:]:
                if isinstance(child, (tuple, list)):
                    walk(child, path + [node])
        elif isinstance(node, (tuple, list)):  # the children of AND / OR / COALESCE ...
            for child in node:
                if isinstance(child, (tuple, list)):
                    walk(child, path)

    walk(tree, [])
    return {i: v for i, v in found.items() if uses[i] == 1}


class _MemoEvaluator(_Evaluator):
    """:class:`._sqlrule._Evaluator` whose node results are kept in ``memo`` under (node, the values of the
    literal slots below it); the evaluator never changes an array it returned, so sharing them is exact."""

    def __init__(self, rule, cols, memo, slots):
        super().__init__(rule, cols)
        self.memo, self.slot_of = memo, slots

    def _key(self, kind, node):
        slots = self.slot_of.get(id(node), ())
        return kind, id(node), (tuple([self.lits[i] for i in slots]) if slots else ())

    def cond(self, node):
        key = self._key("c", node)
        if key not in self.memo:
            self.memo[key] = super().cond(node)
        return self.memo[key]

    def value(self, node):
        key = self._key("v", node)
        if key not in self.memo:
            self.memo[key] = super().value(node)
        return self.memo[key]


class _SweepEvaluator(_MemoEvaluator):
    """:class:`_MemoEvaluator` with the comparison ``leaf`` held at the truth ``state`` (t, f) (a BETWEEN leaf:
    its moving bound's comparison, ANDed / ORed with the other bound's, ``fixed``); the nodes above it, which
    depend on ``state``, are not memoised."""

    def __init__(self, rule, cols, memo, slots, *, leaf, slot):
        super().__init__(rule, cols, memo, slots)
        self.leaf, self.slot, self.state, self.fixed = leaf, slot, None, None

    def cond(self, node):
        if node is self.leaf:
            t, f = self.state
            return (t, f) if self.fixed is None else (np.logical_and(t, self.fixed[0]), np.logical_or(f, self.fixed[1]))
        if self.slot in self.slot_of.get(id(node), ()):
            return _Evaluator.cond(self, node)
        return super().cond(node)


# ------------------------------------------------------------------------------------------ selection
def _column_sums(cover, W):
    """(k, W's columns) sums of W over each column's covered rows, ``W[cover[:, j]].sum(axis=0)`` bit for bit, each
    covered row added in row order (no copy of the covered rows, no float copy of ``cover``; each column of
    ``cover`` read contiguous)."""
    if not cover.shape[1]:
        return np.zeros((0, W.shape[1]))
    Wc, cf = np.ascontiguousarray(W, dtype=np.float64), np.asfortranarray(cover)
    return np.stack([_aot.run("masked_column_sums", masked_column_sums, cf[:, j], Wc) for j in range(cf.shape[1])])


def select_fitting(cover, W, totals, budget, score, *, groups, gate=None):
    """Greedy selection of columns of ``cover`` (n, k) that never exceeds the budget.

    Each step takes, among candidates whose newly flagged rows fit the budget left and add
    positive weight (money: net money > 0; counts: a positive row), the best ``score`` (ties:
    more net money / gain, then the earlier candidate). Taking a candidate excludes the others
    of its group (the versions of one book rule). With ``gate = (held_cover, held_value, col)``
    (held_cover (m, k) bool: the candidates on other rows; held_value (m, c); col (k,) int, -1:
    not gated) a candidate is eligible only if ``held_value[:, col]`` summed over the rows of
    held_cover it flags and no candidate taken before flags is > 0 (and some of those rows carry
    money: with none left the sum is 0, not the float residue of the running differences).
    Returns the chosen column indices in order and the weight sums they cover.
    """
    bcol = budget.column
    limit = budget.limit(totals)
    S = _column_sums(cover, W)
    uncovered = np.ones(cover.shape[0], dtype=bool)
    excluded = np.zeros(cover.shape[1], dtype=bool)
    used = np.zeros(W.shape[1])
    tol = 1e-9 * max(limit, 1e-300)
    order = []
    groups = np.asarray(groups)
    k = cover.shape[1]
    if gate is not None:
        H, V, col = gate
        # each candidate's held-out sums over the rows no taken rule flags, added in row order (no (k, m) float
        # copy of the coverage: the same sums on every machine)
        G = _column_sums(H, V)
        # ... and how many of those rows carry money (an exact count): a candidate left with none earns nothing
        # there, whatever float residue the running differences of G leave
        NZ = V != 0
        left = _column_sums(H, NZ.astype(np.float64))
        gated = np.asarray(col) >= 0
        pick = np.maximum(np.asarray(col), 0)
        h_unc = np.ones(H.shape[0], dtype=bool)
    while True:
        ok = ~excluded & (S[:, bcol] <= limit - used[bcol] + tol) & score.eligible(S, totals, True)
        if gate is not None:
            ok &= ~gated | ((left[np.arange(k), pick] > 0) & (G[np.arange(k), pick] > 0))
        r = best_candidate(S, ok, score, totals)
        if r is None:
            break
        order.append(r)
        excluded |= groups == groups[r]
        new = uncovered & cover[:, r]
        Wn = W[new]
        used += Wn.sum(axis=0)
        S -= cover[new].T.astype(np.float64) @ Wn
        uncovered &= ~new
        if gate is not None:
            h_new = h_unc & H[:, r]
            G -= H[h_new].T.astype(np.float64) @ V[h_new]
            left -= H[h_new].T.astype(np.float64) @ NZ[h_new]  # 0/1 products: exact counts
            h_unc &= ~h_new
    return order, used


# ------------------------------------------------------------------------------------------ the book
def _split(y, shares, rng):
    """Disjoint stratified parts of range(n) in the given proportions ({name: share}); names kept in order."""
    names = list(shares)
    total = sum(shares.values())
    parts = {k: [] for k in names}
    for cls in (0, 1):
        idx = rng.permutation(np.flatnonzero(y == cls))
        cuts = np.round(np.cumsum([shares[k] / total for k in names]) * len(idx)).astype(int)
        start = 0
        for k, stop in zip(names, cuts):
            parts[k].append(idx[start:stop])
            start = stop
    return {k: np.sort(np.concatenate(v)) for k, v in parts.items()}


def _subsample(idx, limit, rng):
    return idx if len(idx) <= limit else np.sort(rng.choice(idx, limit, replace=False))


def optimize_rule_book(book, X, y, *, max_fpr=None, max_alert_rate=None, candidates="riff", retune=True,
                       sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                       random_state=None, pos_label=None, decline_cost=None, cv="auto", shuffle=True):
    r"""Optimise a rule book together with induced rules, in money, under an alert budget.

    The optimiser chooses among candidate books rather than always combining: it compares
    the procedures that build (1) the book's rules as written, selected under the budget,
    (2) the book re-tuned alone, (3) the book with induced rules and (4) the induced rules
    alone, each by its money on rows that did not build it. The rows are cut into ``cv``
    folds (by default 5 on up to 300,000 rows, and no choice on more: see ``cv``); each
    procedure runs on all folds but one and its book is scored on the fold left out, every
    fold in turn, so each row is judged once by books that never read it. The
    held-out money of a candidate is

    .. math:: M = \sum_i v_i \, \mathbb{1}[\text{its book built without row } i\text{'s fold flags row } i]

    with :math:`v_i` the money a flagged row adds (a fraud: ``fn_cost - tp_cost``; a
    legitimate row: ``-(fp_cost - tn_cost)``; times its weight; in the costs' unit; without
    costs, its positive weight). The standard error of a difference :math:`M_b - M_c` is
    :math:`\sqrt{n}\,\mathrm{sd}_i(d_i)` over the paired per-row differences :math:`d_i`.
    Among the candidates within 0.75 standard errors of the best, the first of the order above
    is kept (the analysts' rules before induced ones, fewer changes first), so a choice that
    only fits noise gives way to the simpler, steadier one; that procedure is then re-run on
    all the rows. Only the candidates the keywords allow are compared (re-tuned ones with
    ``retune``, induced ones with ``candidates``). With an integer ``cv`` and more than 300,000 rows
    (``_book_choose.CROSS_FIT_ROWS``, a number of rows) the folds' runs read a stratified
    random sample of 300,000 of them (each class in its share of the rows), so the cost of the
    choice stops growing with the rows, and every other row is dealt to a fold (as the folds
    are dealt) and judged by that fold's books, so every row is still judged once; the winner
    still runs on all the rows.

    Each procedure splits the rows it is given (stratified) into disjoint parts: induction of RIFF's rules (45 %),
    re-tuning of the book's literals (10 %), and selection (45 %), where a greedy pass picks
    rules under the budget. The best of many rules on the selection rows looks better there than
    it is, so each rule is also judged on the rows that neither fitted nor chose it (a book rule
    as written: the induction and re-tuning parts; a re-tuned one: the induction part; an
    induced one: the re-tuning part): a candidate is offered only if its net money alone is
    positive there, and taken only if the rows it adds to the rules taken before earn money
    there. Induced rules are judged there first as a group: they are kept ungated when together
    they earn more than one standard error of that sum, else each is gated on its own. A last
    pass drops, the lowest first, every rule whose leave-one-out net money on all the rows given
    (``unique_net_money``; without costs ``unique_tp``) is <= 0.

    Parameters
    ----------
    book : RuleSet
        The team's rules (e.g. :meth:`RuleSet.from_sql`), each with a name.
    X : pandas DataFrame or array of shape (n_rows, n_features)
        Labelled rows the book runs on (every column a rule reads).
    y : array-like of shape (n_rows,)
        Labels in {0, 1} (1 = the event the rules alert on), booleans, {-1, 1}, or any two labels
        with ``pos_label``. A pandas y (weights, costs) must carry X's index.
    max_fpr, max_alert_rate : float in (0, 1], optional
        The budget (one of the two; default ``max_fpr=0.01``): false-alert rate or alert rate.
    candidates : "riff", RuleSet, list of rules or None, default "riff"
        Rules to combine with the book: ``"riff"`` induces them with RIFFClassifier's default
        pool on a part of the rows; a RuleSet or list uses those; None optimises the book alone.
    retune : bool, default True
        Offer each book rule also with its numeric literals moved to human numbers (the rule
        keeps its structure and name); the selection keeps at most one version.
    sample_weight : array-like of shape (n_rows,), optional
        Row weights.
    fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix
        Per-row money, as everywhere in this package (``fn_cost`` needs ``fp_cost``). With costs,
        rules are ranked by net money per unit of budget; without, by precision.
    random_state : int, RandomState or None
        Seeds the split of the rows and the induced pool.
    pos_label : int, float, bool, str or None, default=None
        The positive class: the label whose miss costs ``fn_cost``. None: 1 for labels
        {0, 1}, {-1, 1} or booleans; other labels need it, else a ``ValueError``.
    decline_cost : float or array-like of shape (n_rows,), optional
        Money per row of a ``"block"`` on a legitimate row (:meth:`RuleSet.evaluate`); books with actions.
    cv : "auto", int >= 2 or None, default "auto"
        Number of folds the candidate books are judged on (the folds run on one thread per core,
        and with more than one core the candidates with induced rules are built on all the rows
        beside them, kept if one wins; the result does not depend on the number of threads). None: no
        choice; the one procedure the other keywords name is run (the book with ``candidates``,
        re-tuned if ``retune``). ``"auto"``: 5 folds on up to 300,000 rows
        (``_book_choose.CHOICE_ROWS``), no choice (None) on more: there the folds' runs read a
        sample a fraction the size of the final run's rows, so they undervalue the rules the
        final run induces on all of them, and the choice takes a few times as long as the
        procedure alone; pass an integer to choose on any number of rows.
    shuffle : bool, default True
        True: folds stratified by label, rows dealt at random. False: ``cv`` contiguous blocks
        of rows in the order given; use it when the rows are in time order (a fraud file), so
        each block is a period judged by books built on the other periods, and a candidate that
        only holds on the periods it read does not win.

    Returns
    -------
    RuleSet
        The new book: the book's rules kept as written, re-tuned or dropped, plus induced rules
        (named ``riff_1``, ...), in selection order, all always in force. ``selection`` holds
        the budget, the parts' sizes, the rows of X the selection and the re-tuning read
        (``selection_index``, ``retune_index``: positions, None without re-tuning) and, per
        rule, where it came from (``origin``) and how the induced rules were judged on held-out
        rows (``induced_judged``: "group", "each" or None), all of the final run on all the rows.
        ``selection["choice"]`` (None without a choice: ``cv=None``, ``"auto"`` on more than
        300,000 rows, or a single candidate) reports the
        choice: ``candidates`` ({"book", "book_retuned", "book_and_induced", "induced"}: each
        one's ``held_out_money``, its ``standard_error``, ``difference_to_best`` and the
        paired ``difference_standard_error``, ``fold_money``, the held-out false-alert or alert
        rate and ``rules_per_fold``), ``chosen``, ``best``, ``reason`` (why the winner won),
        ``cv``, ``shuffle``, each row's ``fold``, the number of rows judged (``rows_judged``) and
        of rows the folds' runs read (``rows_fitted``; ``fitted_index``: their positions, None
        for every row) and the seeds of the fold runs (``fold_random_states``).
        The final run draws from ``random_state`` as the ``cv=None`` run of the winner's keywords
        does, so it returns the same book. A book with ``"allow"`` /
        ``"block"`` rules keeps its order and actions, each rule re-tuned in turn against the whole
        book's money; with ``candidates="riff"`` (the default; None or "riff" only) RIFF's rules are
        fitted on 45 % of the rows and added below the book as ``'review'`` rules, filling the budget
        the book leaves on the other rows none of its rules matches (so an allow rule above still
        exempts), each kept only if removing it loses money there. The choice compares the book as
        written, re-tuned and with the induced rules (never the induced rules alone), each row's
        held-out money booked under the action of the first rule matching it (a block on a legitimate
        row costing ``decline_cost``).
    """
    from sklearn.utils import check_random_state

    from .._rows import read_rows
    from ._ruleset import RuleSet
    from ._select import _check_budget, _cost_keywords

    if not isinstance(book, RuleSet):
        raise TypeError(f"book must be a RuleSet (e.g. RuleSet.from_sql(...)), got {type(book).__name__}")
    budget = _check_budget(max_fpr, max_alert_rate)
    cost_kw = _cost_keywords(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix)
    rows = read_rows(X, y, pos_label=pos_label, sample_weight=sample_weight,
                     costs="none" if cost_kw is None else "required", **(cost_kw or {}))
    y, w, costs = rows.y, rows.sample_weight, rows.costs
    rng = check_random_state(random_state)
    if book.has_actions:  # a rule book read top-down keeps its order: its literals alone are re-tuned
        return _book_in_order(book, X, y, w, costs, budget, rng, candidates, retune, decline_cost, cv, shuffle)
    induce = isinstance(candidates, str)
    if induce and candidates != "riff":
        raise ValueError(f"candidates must be 'riff', a RuleSet, a list of rules or None, got {candidates!r}")
    _check_candidates(candidates)
    if not isinstance(retune, (bool, np.bool_)):
        raise TypeError(f"retune must be True or False, got {type(retune).__name__}")
    k = check_cv(cv, shuffle, len(y))
    return choose_and_fit(_optimize_fixed, book, X, y, w, costs, budget, candidates, retune, rng, k, shuffle)


def _optimize_fixed(book, X, y, w, costs, budget, candidates, retune, rng, shared=None, rows=None):
    """One run of the optimisation (one candidate procedure of :func:`optimize_rule_book`) on rows already
    read (``y`` 0/1, ``w`` / ``costs`` arrays or None): split, re-tune, induce, select, last pass. ``shared``
    (a dict) keeps the induced rules for another run on the same rows with the same seed and parts, which
    induces the same ones (the induction reads neither the book nor its re-tuning). ``rows`` (the positions of
    a fold's rows among the caller's) is not read here."""
    from ._ruleset import RuleSet, _free_riff_names

    n = len(y)
    money = costs is not None
    induce = isinstance(candidates, str)
    shares = {k: v for k, v in PART_SHARES.items()
              if (k != "induction" or induce) and (k != "retune" or retune)}
    parts = _split(y, shares, rng)
    sel = parts["selection"]
    Xs = _rows(X, sel)
    W = row_weights(y[sel], None if w is None else w[sel], None if costs is None else costs[sel])
    totals = W.sum(axis=0)
    if totals[POS] <= 0 or totals[NEG] <= 0:
        raise ValueError("too few rows of one class to split into the parts the optimisation needs")
    rank_by = "money" if money else "precision"
    prior = resolve_prior("auto", totals, budget, None)
    score = make_score(rank_by, totals, budget, prior)

    pool, origin, groups, names = [], [], [], []
    for i, rule in enumerate(book.rules):
        pool.append(rule), origin.append("book"), groups.append(i), names.append(book.names[i])
    fnames = _feature_names(X, book)
    rt, retuned = None, _done([])
    induce_here = shared is None or "induced" not in shared
    if retune:
        rt = _subsample(parts["retune"], RETUNE_ROWS, rng)
        Xr = _rows(X, rt)
        Wr = row_weights(y[rt], None if w is None else w[rt], None if costs is None else costs[rt])
        tr = Wr.sum(axis=0)
        rscore = _rule_score(make_score(rank_by, tr, budget, resolve_prior("auto", tr, budget, None)), tr)
        # re-tuning reads neither the induction nor the generator: beside an induction, on a core of its own
        retuned = _beside(lambda: [retune_rule(rule, Xr, Wr, rscore, feature_names=fnames) for rule in book.rules],
                          isinstance(candidates, str) and induce_here)
    try:
        if induce_here:
            induced_out = _induced(candidates, X, y, w, costs, parts, budget, rng)
            if shared is not None:
                shared["induced"] = induced_out
    except BaseException:
        _settle(retuned)  # the re-tuning thread ends before the induction's error leaves
        raise
    versions = retuned.result()
    for i, (rule, new) in enumerate(zip(book.rules, versions)):
        if new is not rule:
            pool.append(new), origin.append("retuned"), groups.append(i), names.append(book.names[i])
    induced, induced_names, leaves = induced_out if shared is None else shared["induced"]
    taken = set(book.names)
    fresh = _free_riff_names(taken)
    base = len(book.rules)
    for j, (rule, nm) in enumerate(zip(induced, induced_names)):
        if nm is None or nm in taken:  # induced rules are riff_1, riff_2, ... after the book's names
            nm = next(fresh)
            rule = rule.renamed(nm)  # a candidate with a name of its own (SQL) keeps it equal to the set's
        taken.add(nm)
        pool.append(rule), origin.append("added"), groups.append(base + j), names.append(nm)
    # what a row adds to a rule's net money when flagged; without costs its positive weight (unique true positives)
    value = row_weights(y, w, costs)[:, NET if money else POS]
    checks = _check_rows(parts, n, induced=induce)
    held = _held_out(pool, origin, X, value, checks, fnames)
    # a candidate that loses money on the rows that neither fitted nor chose it is not offered
    offered = _earns_held_out(held)
    pool, origin, groups, names = ([v[i] for i in offered] for v in (pool, origin, groups, names))
    held = held._replace(cover=held.cover[:, offered], col=held.col[offered])
    cover = RuleSet(pool, feature_names=fnames, names=[f"c{i}" for i in range(len(pool))]).coverage(Xs) if pool \
        else np.zeros((len(sel), 0), bool)
    kept, kinds, judged = _select_gated(pool, origin, groups, cover, W, totals, budget, score, leaves, Xs, y[sel],
                                        None if w is None else w[sel], None if costs is None else costs[sel], X,
                                        value, checks, fnames, held)
    chosen, chosen_names = [], []
    for rule, tmp in zip(kept.rules, kept.names):
        if tmp.startswith("p"):
            nm = names[int(tmp[1:])]
        else:  # a rule of RIFF's filling selection: the next free riff_k
            nm = next(fresh)
        chosen.append(rule), chosen_names.append(nm)
    out = RuleSet(chosen, feature_names=fnames, names=chosen_names)
    # what the kept rules spend on the selection rows (the last pass may have dropped some the greedy took)
    spent = W[out.predict(Xs).astype(bool)].sum(axis=0) if len(out) else np.zeros(W.shape[1])
    out.selection = {"criterion": budget.kind, "budget": budget.rate, "precision_prior": prior, "rank_by": rank_by,
                     "parts": {k: int(len(v)) for k, v in parts.items()}, "selection_index": sel,
                     "retune_index": rt,
                     "origin": dict(zip(out.names, kinds)), "induced_judged": judged,
                     "selection_" + budget.kind: float(spent[budget.column] / totals[budget.column])}
    return out


def _beside(fn, wanted):
    """``fn()`` started on a thread of its own when ``wanted`` and this thread may use more than one core (a task of
    a pool that runs one task per core may not: :func:`._evaluate.threads_at_most`), its kernels on one thread;
    else run now. Returns what to call ``.result()`` on (which raises ``fn``'s error)."""
    from concurrent.futures import ThreadPoolExecutor

    from ._evaluate import _n_threads, threads_at_most

    if not wanted or _n_threads() < 2:
        return _done(fn())

    def one_thread():
        with threads_at_most(1):
            return fn()

    ex = ThreadPoolExecutor(1)
    try:
        return ex.submit(one_thread)
    finally:
        ex.shutdown(wait=False)  # the thread ends with fn


def _done(value):
    """A future already holding ``value``."""
    from concurrent.futures import Future

    out = Future()
    out.set_result(value)
    return out


def _settle(future):
    """Wait for ``future``, its error dropped (another error is on its way out)."""
    try:
        future.result()
    except BaseException:  # noqa: BLE001,S110 - the caller raises its own
        pass


def _book_in_order(book, X, y, w, costs, budget, rng, candidates, retune, decline_cost, cv, shuffle):
    """:func:`optimize_rule_book` for a book with actions after the checks of its keywords: the procedures of
    :func:`_fixed_in_order` (the book as written, re-tuned in its order, and with induced 'review' rules below it)
    chosen by cross-fitted money under the book's actions (:func:`._book_order.money_in_order`)."""
    from functools import partial

    from ._book_order import money_in_order
    from ._report import read_decline_cost

    if candidates is not None and not (isinstance(candidates, str) and candidates == "riff"):
        raise ValueError(f"candidates must be 'riff' or None for a book with 'allow' or 'block' rules (it is "
                         f"optimised in its own order; induced rules are added below it as 'review' rules), got "
                         f"{candidates if isinstance(candidates, str) else type(candidates).__name__!r}")
    if not isinstance(retune, (bool, np.bool_)):
        raise TypeError(f"retune must be True or False, got {type(retune).__name__}")
    decline = read_decline_cost(decline_cost, X, len(y))
    if decline is not None and costs is None:
        raise TypeError("decline_cost needs the other costs: give fp_cost= and fn_cost= (or cost_matrix=)")
    k = check_cv(cv, shuffle, len(y))
    # held-out money: per action with costs (a block may cost decline_cost); without, the positives flagged
    row_money = money_in_order(book, y, w, costs, decline) if costs is not None else \
        flagged_money(row_weights(y, w, None)[:, POS])
    return choose_and_fit(partial(_fixed_in_order, decline=decline), book, X, y, w, costs, budget, candidates,
                          retune, rng, k, shuffle, row_money=row_money, alone=False)


def _fixed_in_order(book, X, y, w, costs, budget, candidates, retune, rng, shared=None, *, decline, rows=None):
    """One procedure for a book with actions on rows already read: the book as written (``retune`` False), or
    re-tuned rule by rule in its order (:func:`._book_order.optimize_in_order`); with ``candidates`` ("riff"),
    RIFF's default pool is fitted on an induction part (``PART_SHARES``) and its rules fill, as 'review' rules
    below the book, the budget the book leaves on the other rows none of its rules matches (:func:`_fill`), each
    kept only if its leave-one-out money there is positive (:func:`_drop_unearning`). ``decline``: the decline
    cost of the rows of X (the cross-fit passes X's rows ``rows`` of the caller's)."""
    from ._book_order import optimize_in_order
    from ._riff_induce import induce_rules
    from ._riff_pool import default_estimators
    from ._ruleset import RuleSet, _free_riff_names

    del shared  # one procedure induces here: nothing to share
    if decline is not None and rows is not None:  # a fold's run: its rows' decline costs
        decline = decline[rows]
    fnames = _feature_names(X, book)

    def tuned(Xp, yp, wp, cp, dp):
        if not retune:
            out = book[:]
            out.selection = {"criterion": budget.kind, "budget": budget.rate, "order": "book",
                             "origin": dict.fromkeys(book.names, "book")}
            return out
        return optimize_in_order(book, Xp, yp, wp, cp, dp, budget, rng, fnames, _rows, _split, retune_rule)

    if candidates is None:
        return tuned(X, y, w, costs, decline)
    parts = _split(y, {"induction": PART_SHARES["induction"], "rest": 1 - PART_SHARES["induction"]}, rng)
    rest = parts["rest"]

    def sub(a):
        return None if a is None else a[rest]

    Xr, yr, wr, cr = _rows(X, rest), y[rest], sub(w), sub(costs)
    top = tuned(Xr, yr, wr, cr, sub(decline))
    _, leaves = induce_rules(default_estimators(rng), X, y, w, costs, parts["induction"], fnames if
                             getattr(X, "columns", None) is not None else None)
    W = row_weights(yr, wr, cr)
    flagged = top.predict(Xr).astype(bool) if len(top) else np.zeros(len(yr), bool)
    matched = top.apply(Xr) >= 0 if len(top) else np.zeros(len(yr), bool)  # an allow rule's rows are decided too
    fills = _fill(leaves or None, matched, Xr, yr, wr, cr, budget, W[flagged].sum(axis=0), W.sum(axis=0))
    added = []
    if fills:
        free = np.flatnonzero(~matched)
        value = row_weights(yr[free], None if wr is None else wr[free], None if cr is None else cr[free])
        value = value[:, NET if costs is not None else POS]
        kept, _, _ = _drop_unearning(RuleSet(fills, feature_names=fnames, names=[f"f{i}" for i in
                                                                                range(len(fills))]),
                                     ["added"] * len(fills), _rows(Xr, free), value)
        added = list(kept.rules)
    fresh = _free_riff_names(set(book.names))
    names = [next(fresh) for _ in added]
    out = RuleSet(list(top.rules) + added, feature_names=fnames, names=list(top.names) + names,
                  actions=list(top.actions_) + ["review"] * len(added))
    # the book's re-tuning read positions among the rows ``rest``: positions of X here
    moved = {k: rest[np.asarray(top.selection[k])] for k in ("selection_index", "retune_index")
             if (top.selection or {}).get(k) is not None}
    out.selection = dict(top.selection or {}, **moved, parts={k: int(len(v)) for k, v in parts.items()},
                         induction_index=parts["induction"],
                         origin=dict((top.selection or {}).get("origin", dict.fromkeys(top.names, "book")),
                                     **dict.fromkeys(names, "added")))
    return out


def _select_gated(pool, origin, groups, cover, W, totals, budget, score, leaves, Xs, ys, ws, cs, X, value,
                  checks, fnames, held):
    """The greedy selection over ``pool`` (coverage ``cover`` of the selection rows ``Xs``) and RIFF's filling
    rules, each rule gated on its origin's held-out rows (``held``, :func:`_held_out`), then the last pass
    (:func:`_drop_unearning`). Induced rules are first left ungated and kept if, as a group, they earn on their
    held-out rows (:func:`_group_earns`); otherwise the selection runs again with each one gated. Returns the kept
    RuleSet (pool rules named ``p<position>``, filling rules ``f<k>``), the origin of each kept rule and how the
    induced rules were judged ("group", "each" or None: not judged on held-out rows)."""
    args = (pool, origin, groups, cover, W, totals, budget, score, leaves, Xs, ys, ws, cs, X, value, fnames, held)
    if checks.get("added") is None or (leaves is None and "added" not in origin):  # no induced rule to judge
        kept, kinds, _ = _greedy_fill_drop(*args, held.col, gate_fills=False)
        return kept, kinds, None
    ungated = np.where(np.asarray(origin) == "added", -1, held.col)
    kept, kinds, kept_cover = _greedy_fill_drop(*args, ungated, gate_fills=False)
    if _group_earns(kept_cover, kinds, value, checks["added"]):
        return kept, kinds, "group"
    kept, kinds, _ = _greedy_fill_drop(*args, held.col, gate_fills=True)
    return kept, kinds, "each"


def _greedy_fill_drop(pool, origin, groups, cover, W, totals, budget, score, leaves, Xs, ys, ws, cs, X, value,
                      fnames, held, col, *, gate_fills):
    """:func:`select_fitting` gated by ``col`` (-1: not gated), RIFF's filling rules on the budget left (with
    ``gate_fills``: each kept, in RIFF's order, only if it adds money on the induced rules' held-out rows given
    the rules kept before it), then :func:`_drop_unearning` (whose result it returns)."""
    from ._ruleset import RuleSet

    H, V = held.cover, held.value
    order, used = select_fitting(cover, W, totals, budget, score, groups=groups, gate=(H, V, col))
    # the budget the chosen rules leave: RIFF's refined selection on the rows none of them flags
    fills = _fill(leaves, cover[:, order].any(axis=1) if order else np.zeros(len(ys), bool), Xs, ys, ws, cs,
                  budget, used, totals)
    if fills and gate_fills:
        Hf = RuleSet(fills, feature_names=fnames, names=[f"f{i}" for i in range(len(fills))]).coverage(held.X)
        taken = H[:, order].any(axis=1)
        a = ORIGINS.index("added")
        keep = []
        for i in range(len(fills)):
            new = Hf[:, i] & ~taken
            if V[new, a].sum() > 0:
                keep.append(i)
                taken |= Hf[:, i]
        fills = [fills[i] for i in keep]
    picked = RuleSet([pool[r] for r in order] + fills, feature_names=fnames,
                     names=[f"p{r}" for r in order] + [f"f{i}" for i in range(len(fills))])
    return _drop_unearning(picked, [origin[r] for r in order] + ["added"] * len(fills), X, value)


def _group_earns(cover, kinds, value, mask):
    """True when the kept induced rules (kinds "added"; ``cover``: the kept rules' coverage of the rows given),
    over the rows of ``mask`` they flag and no other kept rule flags, earn more than ``GROUP_STANDARD_ERRORS``
    standard errors of that sum (``value``: each row's money), or when no induced rule is kept."""
    added = np.array([k == "added" for k in kinds], dtype=bool)
    if not added.any():
        return True
    rows = cover[:, added].any(axis=1) & ~cover[:, ~added].any(axis=1) & mask
    v = value[rows]
    return bool(v.sum() > GROUP_STANDARD_ERRORS * np.sqrt((v * v).sum()))


def _check_candidates(candidates):
    """TypeError naming ``candidates`` unless it is None, a string (checked by the caller), a RuleSet or a list /
    tuple of rules."""
    from ._kind import RuleKind
    from ._ruleset import RuleSet

    if candidates is None or isinstance(candidates, (str, RuleSet)):
        return
    if not isinstance(candidates, (list, tuple)):
        raise TypeError(f"candidates must be 'riff', a RuleSet, a list of rules or None, got "
                        f"{type(candidates).__name__}")
    bad = [type(r).__name__ for r in candidates if not isinstance(r, RuleKind)]
    if bad:
        raise TypeError(f"candidates must be rules (Rule or SQLRule objects, e.g. a RuleSet's .rules); got a "
                        f"{bad[0]} among them")


def _feature_names(X, book):
    cols = getattr(X, "columns", None)
    return [str(c) for c in cols] if cols is not None else book.feature_names


def _induced(candidates, X, y, w, costs, parts, budget, rng):
    """The rules to combine with the book: RIFF's on the induction / selection parts, or the ones given."""
    from ._ruleset import RuleSet

    if candidates is None:
        return [], [], None
    if not isinstance(candidates, str):
        if isinstance(candidates, RuleSet):
            return list(candidates.rules), list(candidates.names), None
        rules = list(candidates)
        return rules, [r.name for r in rules], None
    from ._riff_induce import induce_rules
    from ._riff_pool import default_estimators as _default_estimators

    ind, sel = parts["induction"], parts["selection"]
    cols = getattr(X, "columns", None)
    names = [str(c) for c in cols] if cols is not None else None
    # RIFFClassifier's default pool, on the induction part only
    _, cands = induce_rules(_default_estimators(rng), X, y, w, costs, ind, names)
    if not cands:
        return [], [], None
    rs = _riff_defaults(cands, _rows(X, sel), y[sel], None if w is None else w[sel],
                        None if costs is None else costs[sel], budget.kind, budget.rate)
    return list(rs.rules), [None] * len(rs), cands


def _riff_defaults(cands, X, y, w, costs, kind, rate):
    """:func:`riff_select` with RIFFClassifier's default selection keywords, ranked by money when costs are given
    (the book keeps only rules that earn their alerts, so rules are chosen for money)."""
    from ._riff_pool import SELECTION_DEFAULTS as d  # RIFFClassifier's: prior, pruning, refinement, cap, cuts
    from ._select import riff_select

    budget_kw = {"max_fpr": rate} if kind == "fpr" else {"max_alert_rate": rate}
    return riff_select(cands, X, y, sample_weight=w, cost_matrix=costs, rank_by=None,
                       stop_unprofitable=d["stop_unprofitable"], precision_prior=d["precision_prior"],
                       refine=d["refine"], prune=d["prune"], max_rules=d["max_rules"], cuts=d["cuts"], **budget_kw)


def _fill(cands, cover_chosen, Xs, ys, ws, cs, budget, used, totals):
    """RIFF's rules (with its refinement) on the selection rows no chosen rule flags, within the budget left:
    the rules to add, all always in force (a last rule that crosses the budget left is not kept: the book never
    exceeds the budget on the selection rows)."""
    left = budget.limit(totals) - used[budget.column]
    free = ~cover_chosen
    if cands is None or left <= 0 or not free.any():
        return []
    yf = ys[free]
    wf = np.ones(len(yf)) if ws is None else ws[free]
    base = wf.sum() if budget.kind == "alert_rate" else wf[yf == 0].sum()
    if base <= 0 or yf.min() == yf.max():
        return []
    rate = min(1.0, left / base)
    rs = _riff_defaults(cands, _rows(Xs, np.flatnonzero(free)), yf, None if ws is None else wf,
                        None if cs is None else cs[free], budget.kind, rate)
    keep = len(rs) if rs.last_rule_probability >= 1.0 else len(rs) - 1
    return list(rs.rules[:keep])


def _check_rows(parts, n, *, induced):
    """{origin: boolean mask of the rows that neither fitted nor chose a rule of that origin} (None: no such rows).

    The selection part chose every rule; the re-tuning part also fitted the re-tuned versions and the induction
    part the induced rules, so a book rule as written is judged on both other parts, a re-tuned one on the
    induction part and an induced one on the re-tuning part. Rules given as candidates were fitted elsewhere.
    """
    def mask(names):
        idx = [parts[k] for k in names if k in parts]
        if not idx or not sum(len(i) for i in idx):
            return None
        m = np.zeros(n, dtype=bool)
        m[np.concatenate(idx)] = True
        return m

    return {"book": mask(["induction", "retune"]), "retuned": mask(["induction"]),
            "added": mask(["retune"] if induced else ["induction", "retune"])}


class _HeldOut(NamedTuple):
    """The rows some origin's rules are judged on (:func:`_check_rows`) and what the screen and the gate read."""

    X: object  # those rows of X
    cover: np.ndarray  # (m, k) bool: each candidate's coverage of them
    value: np.ndarray  # (m, len(ORIGINS)): a row's money where it is held out from rules of that origin, else 0
    col: np.ndarray  # (k,) int: each candidate's column of value; -1: its origin has no held-out rows


def _held_out(pool, origin, X, value, checks, fnames):
    """:class:`_HeldOut` for ``pool``: its coverage of the rows held out from any origin, computed once."""
    from ._ruleset import RuleSet

    held = np.zeros(len(value), dtype=bool)
    for m in checks.values():
        if m is not None:
            held |= m
    rows = np.flatnonzero(held)
    V = np.stack([value[rows] * checks[o][rows] if checks.get(o) is not None else np.zeros(len(rows))
                  for o in ORIGINS], axis=1)
    Xh = _rows(X, rows)
    H = RuleSet(pool, feature_names=fnames, names=[f"c{i}" for i in range(len(pool))]).coverage(Xh) if pool \
        else np.zeros((len(rows), 0), bool)
    col = np.array([ORIGINS.index(o) if checks.get(o) is not None else -1 for o in origin], dtype=np.int64)
    return _HeldOut(Xh, H, V, col)


def _earns_held_out(held):
    """Positions of the candidates whose net money alone (``value``: :func:`row_weights`' NET column; counts: POS)
    summed over the rows they flag among their origin's held-out rows is > 0, or whose origin has no such rows."""
    sums = _column_sums(held.cover, held.value)
    k = len(held.col)
    return np.flatnonzero((held.col < 0) | (sums[np.arange(k), np.maximum(held.col, 0)] > 0))


def _drop_unearning(rs, kinds, X, value):
    """The last pass: drop, one at a time, the rule whose leave-one-out net money over all rows of X (``value``:
    each row's money when flagged; without costs its positive weight) is lowest while it is <= 0, so every rule
    kept earns its alerts on the rows given. Each round recomputes only the sums over the rows one rule alone
    flags (:func:`._report.unique_sums`), which equal ``evaluate(per_rule=True)``'s unique columns. Returns the
    kept RuleSet, their kinds and their coverage of X."""
    from ._report import unique_sums

    cover = rs.coverage(X) if len(rs) else np.zeros((len(value), 0), dtype=bool)
    keep = list(range(len(rs)))
    while keep:
        u = unique_sums(cover[:, keep], np.ones(len(keep)), value[:, None])[:, 0]
        worst = int(np.argmin(u))
        if u[worst] > 0:
            break
        del keep[worst]
    if len(keep) < len(rs):
        rs = rs.drop([i for i in range(len(rs)) if i not in set(keep)])
        kinds = [kinds[i] for i in keep]
    return rs, kinds, cover[:, keep]
