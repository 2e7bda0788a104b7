"""simplify_rules: human cuts, missing values said only where they occur, short rules.

The model's cuts are exact but unreadable (``n_tx_24h > 4.500000000000001``,
``card_present <= 1.0000000180025095e-35``). On data the rules were fitted to (the
selection set of :func:`~csboost_plugins.rules.riff_select`) every cut lies in a gap
between two neighbouring values of its column, and any number in that gap (either end too,
with the comparison that excludes the value outside) routes those rows alike.
:func:`simplify_rules` moves each cut to the simplest such number, says ``or x is missing``
only for columns that had missing values, and drops the conditions that do not change a
rule's rows; every row of the data routes as before.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Context, Decimal

import numpy as np

from ._data import as_float_matrix
from ._refine import conditions_mask
from ._rule import MISSING_POLICY, ZERO_THRESHOLD, CategorySet, Interval, Rule

__all__ = ["simplify_rules", "MISSING_POLICY"]

#: What the rule-set text says once about a missing value (NULL) in a column the rules read.

_CTX = Context(prec=80)


def _simplest_between(a: float, b: float, ref: float) -> float | None:
    """The float64 with the fewest significant digits in [a, b] (finite ends included), a < b: among
    those, one other than a first (a cut at b keeps the rule's comparison, one at a turns it), then the
    one nearest ``ref``. None when a and b are not ordered."""
    if not a < b:
        return None
    if a <= 0.0 <= b and a != 0.0:
        return 0.0
    if a == -math.inf:  # nothing below: mirror the search (only the end b counts)
        d = _simplest_between(-b, math.inf, -ref)
        return None if d is None else -d
    hi = b
    if b == math.inf:  # no value above: the next power of ten's multiple above a
        hi = max(abs(a) * 10.0, 1.0) + abs(a)

    def key(d):
        return d == a, abs(d - ref) if math.isfinite(ref) else 0.0, d

    da, dh = Decimal(a), Decimal(hi)
    e = math.floor(math.log10(max(abs(a), abs(hi)))) + 1
    for _ in range(400):  # exponents from above the magnitude down; a float64's own digits are reached by ~330
        q = Decimal(1).scaleb(e)
        # one quantum wider than [a, b] on each side: the short decimal of an end may lie a hair outside the
        # end's exact binary value and still be that float64
        k_lo = _CTX.divide(da, q).to_integral_value(rounding="ROUND_FLOOR")
        k_hi = _CTX.divide(dh, q).to_integral_value(rounding="ROUND_CEILING")
        # the short decimal's own float64 (it prints as that decimal); the first exponent with one in the
        # gap has the fewest significant digits (a coarser multiple would be there otherwise)
        ok = [d for d in (float(_CTX.multiply(k_lo + i, q)) for i in range(int(k_hi - k_lo) + 1))
              if a <= d <= b and math.isfinite(d)]
        if ok:
            return min(ok, key=key)
        e -= 1
    return None


class _Column:
    """Sorted distinct non-missing values of one column of the fit data, and what they allow."""

    def __init__(self, x):
        nan = np.isnan(x)
        self.has_missing = bool(nan.any())
        self.values = np.unique(x[~nan])
        v = self.values[np.isfinite(self.values)]
        self.integer = bool(len(v)) and bool(np.all(v == np.round(v))) and bool(np.all(np.abs(v) < 2.0 ** 53))
        self.non_negative = bool(len(self.values)) and bool(self.values[0] >= 0)

    @classmethod
    def from_summary(cls, values, has_missing, integer):
        """The column known only through some of its values: those :func:`_interval` reads (the data's
        least and greatest value, and around every bound and the zero band the values next to it and
        on it; :func:`cut_points`), whether it has a missing value and whether it is integer-valued
        (the dask path, which never holds a column)."""
        col = cls(np.zeros(0))
        col.has_missing, col.values, col.integer = bool(has_missing), np.unique(values), bool(integer)
        col.non_negative = bool(len(col.values)) and bool(col.values[0] >= 0)
        return col


def cut_points(rules):
    """Per column the values :func:`_interval` compares data with: every finite bound of the rules'
    interval conditions on it, and the zero band's ends and 0 (lightgbm's missing-value band). The data's
    values next to (and on) these, with its least and greatest, are all the cuts need of a column."""
    pts = {}
    for r in rules:
        for c in r.conditions:
            p = pts.setdefault(c.feature, {-ZERO_THRESHOLD, 0.0, ZERO_THRESHOLD})
            if isinstance(c, Interval):
                p.update(b for b in (c.lower, c.upper) if math.isfinite(b))
    return {j: np.array(sorted(p)) for j, p in pts.items()}


def _interval(c: Interval, col: _Column):
    """The condition with human cuts routing every value of ``col`` as ``c`` does; None when it holds for
    every value there (it then says nothing about the fit data)."""
    v = col.values
    # a column without missing values says nothing about them; but lightgbm's zero band routes like a
    # missing value, so where the data hold values in that band the flag still routes them
    zero_rows = c.zero_missing and bool(np.any(np.abs(v) <= ZERO_THRESHOLD))
    missing = c.missing if col.has_missing or zero_rows else False
    nan_missing = c.missing if col.has_missing else False  # once the zero band is an ordinary bound
    if not len(v):
        return replace(c, missing=missing)
    sat = c.mask(v)
    if sat.all():
        return None if not (col.has_missing and not nan_missing) else \
            Interval(c.feature, missing=False)  # "x is not missing" is all it says
    idx = np.flatnonzero(sat)
    if not len(idx):  # covers no value of the data: keep the model's cut
        return replace(c, missing=missing)
    zero_missing = False
    if idx[-1] - idx[0] + 1 != len(idx):  # lightgbm's zero band makes a hole: keep it, simplify the rest
        zero_missing = True
        keep = np.abs(v) > ZERO_THRESHOLD
        v = v[keep]
        inside = replace(c, zero_missing=False, missing=False).mask(v)
        idx = np.flatnonzero(inside)
        if not len(idx) or idx[-1] - idx[0] + 1 != len(idx):
            return replace(c, missing=missing)
    i, k = idx[0], idx[-1]
    lo, lo_closed, hi, hi_closed = -math.inf, True, math.inf, True
    if i > 0:  # the first value in is v[i], the last one out v[i-1]: x >= d for d in (v[i-1], v[i]], x > v[i-1]
        d = None if col.integer else _simplest_between(v[i - 1], v[i], c.lower)
        lo, lo_closed = (v[i], True) if d is None else (d, d != v[i - 1])
    if k < len(v) - 1:  # the last value in is v[k], the first one out v[k+1]: x < d for d in (v[k], v[k+1]], x <= v[k]
        d = None if col.integer else _simplest_between(v[k], v[k + 1], c.upper)
        hi, hi_closed = (v[k], True) if d is None else (d, d == v[k])
    if col.integer and col.non_negative and lo == -math.inf and hi == 0.0:
        lo = 0.0  # a count's lowest value: "x = 0"
    lo_same = lo == c.lower and lo_closed == c.lower_closed
    hi_same = hi == c.upper and hi_closed == c.upper_closed
    return replace(c, lower=float(lo), lower_closed=lo_closed, upper=float(hi), upper_closed=hi_closed,
                   missing=missing if zero_missing else nan_missing, zero_missing=zero_missing,
                   lower_text=c.lower_text if lo_same else None, upper_text=c.upper_text if hi_same else None)


def _drop_redundant(conds, Xf, rows, fixed):
    """Drop conditions (last first) whose removal adds no row of ``Xf[rows]`` (``rows``: a boolean mask) to the
    rule (with ``fixed`` given: no row where ``fixed`` is True, i.e. no row that counts against the budget)."""
    m = int(np.count_nonzero(rows))
    masks = [c.mask(Xf[:, c.feature][rows]) for c in conds]  # only the rule's columns of those rows
    full = np.logical_and.reduce(masks) if masks else np.ones(m, bool)
    bad = np.ones(m, bool) if fixed is None else fixed[rows]
    k = len(conds) - 1
    while k >= 0 and len(conds) > 1:
        rest = np.logical_and.reduce([m for i, m in enumerate(masks) if i != k])
        if not (rest & ~full & bad).any():
            del conds[k], masks[k]
            full = rest
        k -= 1
    return conds


def _cut_conditions(rule: Rule, columns, cuts: bool):
    """Steps 1 and 2 of :func:`simplify_rules` on one rule: its conditions with human cuts (``cuts``) and
    missing values said only where the column has some, the bounds on one column merged."""
    conds = []
    for c in rule.conditions:
        col = columns[c.feature]
        if isinstance(c, CategorySet) or not cuts:
            new = replace(c, missing=c.missing if col.has_missing else False)
        else:
            new = _interval(c, col)
        if new is not None:
            conds.append(new)
    return list(Rule(conds).conditions)  # merges the bounds on one column into one interval


def _drop_by_patterns(conds, patterns):
    """:func:`_drop_redundant` from the rows' failure patterns: ``patterns`` holds, for every row that may
    not be added (free and counting against the budget), the set of ``conds`` it fails as a bit mask (bit
    k: condition k). Dropping k adds such a row iff the row fails k and no other kept condition."""
    kept = (1 << len(conds)) - 1
    k = len(conds) - 1
    while k >= 0 and bin(kept).count("1") > 1:
        if not any(p & kept == 1 << k for p in patterns):
            kept &= ~(1 << k)
        k -= 1
    return [c for k, c in enumerate(conds) if kept >> k & 1]


def _finish(rule: Rule, conds) -> Rule:
    """``rule`` itself when ``conds`` are its conditions, else the new rule (sources marked simplified)."""
    if [c.key for c in conds] == [c.key for c in rule.conditions]:
        return rule
    sources = [dict(s, modified=(s["modified"] + "+simplified") if "modified" in s else "simplified")
               for s in rule.sources] or [{"modified": "simplified"}]
    return Rule(conds, feature_names=rule.feature_names, sources=sources, value=rule.value,
                categories=rule.categories)


def _simplify_rule(rule: Rule, Xf, columns, cuts: bool, drop: bool, rows, fixed) -> Rule:
    conds = _cut_conditions(rule, columns, cuts)
    if drop:
        conds = _drop_redundant(conds, Xf, rows, fixed)
    return _finish(rule, conds)


def simplify_rules(rule_set, X, y=None, *, sample_weight=None, cuts=True, drop_conditions=True, pos_label=None):
    """Human cuts, missing values said only where they occur, and short rules, on the fit data.

    Every row of ``X`` is routed by each simplified rule exactly as by the rule it replaces
    (so ``predict`` on ``X`` is unchanged); rows with values the data never showed (a new
    value inside a gap, a missing value in a column that had none) may route differently.

    1. **Human cuts** (``cuts=True``): each finite bound moves to the simplest number in the
       gap between the two neighbouring values of its column in ``X``: on an
       integer-valued column the integer on the rule's side (``n_tx_24h >= 5`` for the
       model's ``n_tx_24h > 4.500000000000001``; ``x = 0`` when a non-negative count is cut
       below 1), else the number with the fewest significant digits in the gap, its ends
       included (``Amount < 315`` between the values 314.99 and 315; the lower end turns the
       comparison: ``Amount <= 315`` between 315 and 315.01), the one that keeps the
       comparison and then the one nearest the model's cut among them, stored as the float64
       that prints as that short decimal, so
       the text, ``predict``, ``to_sql`` and ``to_pandas_query`` use the same number. A bound
       no value of ``X`` lies beyond is dropped; lightgbm's zero band
       (``abs(x) <= 1e-35`` routed like a missing value) becomes an ordinary bound wherever
       the data allow.
    2. **Missing values** (always): ``or x is missing`` is kept only for columns with a
       missing value in ``X``; on every other column a missing value satisfies no condition
       (:data:`MISSING_POLICY`, stated once in the rule-set text).
    3. **Short rules** (``drop_conditions=True``): conditions on one column are merged into
       one interval, and a condition is dropped (tested one by one, the last first) when its
       removal adds no row of ``X`` to the rows the rule adds (those no earlier rule covers).
       So every rule adds the same rows as before and the rule set flags the same rows of
       ``X``; the ``+TPR`` / ``+FPR`` the rule-set text shows stay true. With ``y`` the
       tolerance is the budget: the removal may also add positive rows (true alerts; rows of
       any class under an alert-rate budget, ``selection["criterion"] == "alert_rate"``, are
       never added), so the rule set's false alerts on ``X`` are the same and its recall can
       only rise; the selection statistics are restated. A rule whose caught rows (positive
       weight; money caught for a money ranking) all went to an earlier, shorter rule is
       dropped: it would only spend budget (a dropped last rule leaves the new last rule
       always in force, rho = 1).

    Parameters
    ----------
    rule_set : RuleSet or list of Rule
        The rules (e.g. from :func:`riff_select` or :func:`extract_rules`).
    X : array-like or DataFrame of shape (n_samples, n_features)
        The data the rules were fitted to (the selection set); NaN is missing.
    y : array-like of shape (n_samples,), optional
        0/1 labels of X (booleans, {-1, 1}, or any two labels with ``pos_label``): lets a
        dropped condition add true alerts (see step 3). A pandas y must carry X's index.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights of X (with ``y``; a row of weight 0 counts against no budget).
    cuts : bool, default=True
        Move cuts to human numbers; False keeps the model's cuts (steps 2 and 3 still run).
    drop_conditions : bool, default=True
        Drop conditions that do not change a rule's rows of ``X``.
    pos_label : int, float, bool, str or None, default=None
        The positive class of ``y``: the label whose miss costs ``fn_cost``. None: 1 for labels
        {0, 1}, {-1, 1} or booleans; other labels need it, else a ``ValueError``.

    Returns
    -------
    RuleSet or list of Rule
        Of the type given: a new RuleSet (same probabilities and selection statistics, with
        ``missing_columns`` set) or a new list. Changed rules are new rules whose ``sources``
        carry ``"modified": "simplified"``; unchanged ones are the same objects.

    Examples
    --------
    >>> import numpy as np
    >>> from csboost_plugins.rules import Interval, Rule, RuleSet, simplify_rules
    >>> X = np.array([[1.0], [4.0], [5.0], [9.0]])
    >>> rs = RuleSet([Rule([Interval(0, lower=4.500000000000001, lower_closed=False, missing=True)],
    ...                    feature_names=["n_tx_24h"])])
    >>> print(simplify_rules(rs, X).rules[0])
    n_tx_24h >= 5
    """
    from ._ruleset import RuleSet

    is_set = isinstance(rule_set, RuleSet)
    rules = list(rule_set.rules if is_set else rule_set)
    if not all(isinstance(r, Rule) for r in rules):
        raise TypeError("rule_set must be a RuleSet or a list of Rule objects")
    for name, v in (("cuts", cuts), ("drop_conditions", drop_conditions)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {type(v).__name__} {v!r}")
    names = rule_set.feature_names if is_set else next((r.feature_names for r in rules if r.feature_names), None)
    Xf = as_float_matrix(X, rules, feature_names=names, order="F")
    used = sorted({c.feature for r in rules for c in r.conditions})
    if used and used[-1] >= Xf.shape[1]:
        raise ValueError(f"X has {Xf.shape[1]} columns but the rules use column index {used[-1]}")
    W = None
    if y is not None:
        from .._rows import read_rows
        from ._greedy import row_weights
        rows = read_rows(X, y, pos_label=pos_label, require_both=False, sample_weight=sample_weight, costs="none")
        if rows.n != Xf.shape[0]:
            raise ValueError(f"X has {Xf.shape[0]} rows but y has {rows.n}")
        W = row_weights(rows.y, rows.sample_weight, None)
    elif sample_weight is not None:
        raise ValueError("sample_weight was given without y")
    return _simplify(rule_set, rules, Xf, names, bool(cuts), bool(drop_conditions), W)


def _simplify(rule_set, rules, Xf, names, cuts, drop, W=None):
    """simplify_rules on a float matrix already converted for the rules (riff_select's own); ``W``: the
    selection's per-row weights (``_greedy.row_weights``), which let a drop add rows that cost no budget
    and restate the selection statistics."""
    from ._greedy import ALL, GAIN, NEG, NET, POS, Budget, selection_stats
    from ._ruleset import RuleSet

    is_set = isinstance(rule_set, RuleSet)
    sel = rule_set.selection if is_set else {}
    fixed = None
    if W is not None:  # rows that count against the budget may not be added
        fixed = W[:, ALL if sel.get("criterion") == "alert_rate" else NEG] > 0
        if "net_money" in sel:  # money selection: nor rows whose alert loses money (a fraud below the alert's cost)
            fixed |= W[:, NET] < 0
    used = sorted({c.feature for r in rules for c in r.conditions})
    columns = {j: _Column(Xf[:, j]) for j in used}
    gain = GAIN if sel.get("rank_by") == "money" else POS  # what a selected rule must add (riff_select)
    eps = None if W is None else 1e-12 * abs(W[:, gain].sum())
    out, kept, prefix = [], [], []
    free, free0 = np.ones(Xf.shape[0], bool), np.ones(Xf.shape[0], bool)  # rows no earlier rule covers
    for i, r in enumerate(rules):
        new_rule = _simplify_rule(r, Xf, columns, cuts, drop, free, fixed)
        new = free & conditions_mask(new_rule.conditions, Xf)
        if W is not None:
            new0 = free0 & conditions_mask(r.conditions, Xf)
            free0 &= ~new0
            if W[new, gain].sum() <= eps < W[new0, gain].sum():
                continue  # the rows it caught went to an earlier shorter rule: it would only spend budget
        out.append(new_rule)
        kept.append(i)
        free &= ~new
        if W is not None:
            prefix.append(W[new].sum(axis=0) + (prefix[-1] if prefix else 0.0))
    if not is_set:
        return out
    rho = rule_set.last_rule_probability if kept and kept[-1] == len(rules) - 1 else 1.0
    if W is not None and "candidate_index" in sel and out != rules:  # rows a drop added (budget-free ones)
        sel = selection_stats(np.asarray(sel["candidate_index"])[kept], np.reshape(prefix, (len(out), W.shape[1])),
                              rho, W.sum(axis=0), Budget(sel["criterion"], sel["budget"]), sel["n_candidates"],
                              "money_recall" in sel) | {k: sel[k] for k in ("rank_by",) if k in sel}
    missing = [j for j in used if columns[j].has_missing]
    label = (lambda j: names[j] if names is not None and j < len(names) else f"x{j}")
    return RuleSet(out, last_rule_probability=rho, feature_names=names,
                   selection=sel, missing_columns=[str(label(j)) for j in missing])
