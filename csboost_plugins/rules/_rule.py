"""Conditions and rules: exact per-feature constraints in float64.

Every library compares differently (xgboost ``float32(x) < t``, scikit-learn
``float32(x) <= t``, lightgbm ``x <= t`` in float64, this project's trees either
way in float64). A condition stores the library's threshold for reference and an
*exact float64 bound* for evaluation: the set ``{x : float32(x) < t}`` equals
``{x : x < b}`` or ``{x : x <= b}`` for one float64 ``b`` (the midpoint between
two adjacent float32 numbers, closed or open by round-half-to-even). So the
rule evaluates to the same rows on the float64 data as the library does after
its own float32 cast, and a database running the SQL export routes ties alike.

Printed text (``str(rule)``, ``print(rule_set)``, the per-rule table of
``RuleSet.evaluate``) shows those exact bounds with their own ``<`` / ``<=``, each
number the shortest decimal that reads back as the bound in float64
(:func:`exact_decimal`, shared with the SQL and pandas exports). Read literally and
compared in float64 (Python, numpy, pandas, a SQL ``DOUBLE`` column), a printed
condition routes every float64 value as ``RuleSet.predict`` does. Short cuts stay
short (lightgbm's ``x <= 0.5`` prints ``x <= 0.5``); a cut that is no short decimal
prints all its digits (``x <= 6.500000000000001``); a float32 cut prints the float64
midpoint below it, because float64 values between that midpoint and the float32 round
to the cut (xgboost's ``float32(x) < 0.5`` prints ``x < 0.4999999850988388``: 0.49999999
rounds to 0.5 and goes right). ``Interval.lower_text`` / ``upper_text`` keep the
library's own comparison for reference (xgboost's ``< 0.5``, true of ``float32(x)``).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, replace

import numpy as np

from .._docstrings import fill_doc
from ._basics import _INT64_MAX, ZERO_THRESHOLD, check_feature_index, exact_decimal
from ._kind import KIND_DOCS, RuleKind, register_kind

__all__ = ["Interval", "CategorySet", "Rule", "MISSING_POLICY", "ZERO_THRESHOLD", "check_feature_index", "exact_decimal"]

#: how a rule set whose cuts were simplified reads a missing value, stated once in its text
MISSING_POLICY = "a missing value (NULL) satisfies only the conditions that say 'or <column> is missing'"
_F32_MAX = float(np.finfo(np.float32).max)


def _f32_floor(t: float) -> np.float32:
    """Largest float32 <= t."""
    with np.errstate(over="ignore"):
        c = np.float32(t)
    if float(c) > t:
        c = np.nextafter(c, np.float32(-np.inf), dtype=np.float32)
    return c


def float32_le_bound(t: float) -> tuple[float, bool]:
    """Return (b, closed) with ``{x: float32(x) <= t} == {x: x <= b if closed else x < b}``.

    ``float32(x)`` rounds to nearest, ties to even, so the boundary is the
    midpoint m between c = largest float32 <= t and its float32 successor; m
    itself rounds to c iff c's last mantissa bit is 0.
    """
    if math.isnan(t):
        raise ValueError("threshold is NaN")
    c = _f32_floor(float(t))
    if c == np.inf:  # t = +inf (scikit-learn's "only missing goes right" split): every number
        return math.inf, True
    if c == -np.inf:  # t < -float32 max: only x rounding to -inf (the tie rounds away from the odd max)
        return -_F32_MAX - 2.0 ** 103, True
    if float(c) == _F32_MAX:
        return _F32_MAX + 2.0 ** 103, False  # m rounds to inf (f32 max has an odd mantissa)
    n = np.nextafter(c, np.float32(np.inf), dtype=np.float32)
    m = (float(c) + float(n)) / 2.0  # exact in float64
    even = (int(np.array(c, dtype=np.float32).view(np.uint32)) & 1) == 0
    return m, even


def float32_lt_bound(t: float) -> tuple[float, bool]:
    """Return (b, closed) with ``{x: float32(x) < t} == {x: x <= b if closed else x < b}`` (t a float32)."""
    t32 = np.float32(t)
    if t32 == -np.inf:  # nothing is below -inf
        return -math.inf, False
    if float(t32) != float(t):
        return float32_le_bound(float(_f32_floor(float(t))))
    return float32_le_bound(float(np.nextafter(t32, np.float32(-np.inf), dtype=np.float32)))


def float32_lt_text(t: float) -> str:
    """Shortest decimal d (as text) with ``x < d`` iff ``x < float32(t)`` for every float32 x (display of
    xgboost's cut: a float32 datum AT the cut goes right, so d lies in [m, float32(t)], m the midpoint
    below it; the float32's own shortest repr may lie above the float32 and put that datum left)."""
    from decimal import ROUND_FLOOR, Context, Decimal

    t32 = np.float32(t)
    if not np.isfinite(t32):
        return str(t32)
    hi = float(t32)
    lo, _ = float32_lt_bound(hi)
    for p in range(1, 18):
        d = float(Context(prec=p, rounding=ROUND_FLOOR).create_decimal(Decimal(hi)))  # <= hi, p digits
        if d >= lo:
            return repr(d)
    return repr(hi)


# numpydoc text the two condition classes share (csboost_plugins._docstrings.fill_doc)
_DOCS = dict(
    mergeable="Parameters\n----------\nother : Interval or CategorySet\n    Another condition.\n\n"
              "Returns\n-------\nbool\n    Whether :meth:`merge` applies to the pair.",
    feature="feature : int\n    Column index.",
    from_dict="Parameters\n----------\nd : dict\n    As returned by :meth:`to_dict`.",
)


def _check_flags(cond, names):
    """Store the boolean fields of a condition as bool; anything but bool / numpy bool is a TypeError."""
    for name in names:
        v = getattr(cond, name)
        if type(v) is bool:  # the common case, nothing to convert
            continue
        if not isinstance(v, np.bool_):
            raise TypeError(f"{type(cond).__name__}.{name} must be a bool, got {type(v).__name__} {v!r}")
        object.__setattr__(cond, name, bool(v))


def _check_bound(cond, name):
    """Store a bound as float; a non-number or NaN is a TypeError."""
    v = getattr(cond, name)
    if type(v) is float and v == v:
        return
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) or math.isnan(v):
        raise TypeError(f"{type(cond).__name__}.{name} must be a number (not NaN), got {v!r}")
    object.__setattr__(cond, name, float(v))


def _tighter(a, ac, at, b, bc, bt, sign):
    """The tighter of two bounds (sign +1: lower bounds, -1: upper bounds); open beats closed on ties."""
    if sign * b > sign * a:
        return b, bc, bt
    if b == a and ac and not bc:
        return b, bc, bt
    return a, ac, at


@dataclass(frozen=True)
@fill_doc(**_DOCS)
class Interval:
    """Numerical condition ``lower (<|<=) x[feature] (<|<=) upper``.

    %(Parameters, feature)s
    lower, upper : float, default=-inf, inf
        Exact float64 bounds (in the column's own unit).
    lower_closed, upper_closed : bool, default=True
        Whether each bound is included.
    missing : bool, default=False
        Whether a missing value (NaN) satisfies the condition.
    zero_missing : bool, default=False
        lightgbm ``missing_type='Zero'``: ``|x| <= 1e-35`` is routed like a missing
        value (by ``missing``) instead of by the interval.
    lower_text, upper_text : str, optional
        The library's own comparison (xgboost's ``"< 0.5"``, true of ``float32(x)``), kept
        for reference; evaluation, the printed text and the exports use the exact float64
        bounds.
    """

    feature: int
    lower: float = -math.inf
    lower_closed: bool = True
    upper: float = math.inf
    upper_closed: bool = True
    missing: bool = False
    zero_missing: bool = False
    lower_text: str | None = field(default=None, compare=False)
    upper_text: str | None = field(default=None, compare=False)

    kind = "interval"

    def __post_init__(self):
        if type(self.feature) is not int or not 0 <= self.feature <= _INT64_MAX:
            object.__setattr__(self, "feature", check_feature_index(self.feature, "Interval.feature"))
        _check_flags(self, ("lower_closed", "upper_closed", "missing", "zero_missing"))
        _check_bound(self, "lower")
        _check_bound(self, "upper")

    @property
    def key(self):
        """Hashable identity of the condition (display texts excluded)."""
        return ("i", self.feature, self.lower, self.lower_closed, self.upper, self.upper_closed,
                self.missing, self.zero_missing)

    def is_empty_interval(self) -> bool:
        """True if no number lies in the interval (missing values aside).

        Returns
        -------
        bool
            Whether the interval is empty.
        """
        return self.lower > self.upper or (self.lower == self.upper and not (self.lower_closed and self.upper_closed))

    @fill_doc(**_DOCS)
    def mergeable(self, other) -> bool:
        """True if ``other`` constrains the same column the same way, so :meth:`merge` applies.

        %(mergeable)s
        """
        return isinstance(other, Interval) and other.feature == self.feature and other.zero_missing == self.zero_missing

    def merge(self, other: "Interval") -> "Interval":
        """Intersection with another interval on the same column.

        ``x < 3 and x < 5`` gives ``x < 3``; missing satisfies both or neither.

        Parameters
        ----------
        other : Interval
            An interval :meth:`mergeable` with this one.

        Returns
        -------
        Interval
            The intersection.
        """
        lo, lc, lt = _tighter(self.lower, self.lower_closed, self.lower_text,
                              other.lower, other.lower_closed, other.lower_text, +1)
        hi, hc, ht = _tighter(self.upper, self.upper_closed, self.upper_text,
                              other.upper, other.upper_closed, other.upper_text, -1)
        return replace(self, lower=lo, lower_closed=lc, upper=hi, upper_closed=hc, lower_text=lt, upper_text=ht,
                       missing=self.missing and other.missing)

    def mask(self, x: np.ndarray) -> np.ndarray:
        """Reference (numpy) evaluation on one column.

        Parameters
        ----------
        x : array-like of shape (n_samples,)
            The column's values (float64; NaN is missing).

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            Where the condition holds.
        """
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            inside = ((x > self.lower) | (self.lower_closed & (x == self.lower))) & \
                     ((x < self.upper) | (self.upper_closed & (x == self.upper)))
            special = np.isnan(x)
            if self.zero_missing:
                special |= np.abs(x) <= ZERO_THRESHOLD
        return np.where(special, self.missing, inside)

    def to_str(self, name: str) -> str:
        """Readable text, e.g. ``"(amount > 120.5 or amount is missing)"``, exact as written.

        Bounds print as :func:`exact_decimal` with their own ``<`` / ``<=``, so the text
        compared in float64 selects the rows :meth:`mask` does. lightgbm's zero band
        (``zero_missing``) prints as ``abs(x) <= 1.0000000180025095e-35`` (its
        ``kZeroThreshold`` as a float32), routed like a missing value.

        Parameters
        ----------
        name : str
            The column's name.

        Returns
        -------
        str
        """
        has_lo = not (self.lower == -math.inf and self.lower_closed)
        has_hi = not (self.upper == math.inf and self.upper_closed)
        lo, hi = exact_decimal(self.lower, point=False), exact_decimal(self.upper, point=False)
        if has_lo and has_hi and self.lower == self.upper and self.lower_closed and self.upper_closed:
            s = f"{name} = {lo}"  # one value (a count cut to a single integer)
        elif has_lo and has_hi:
            s = f"{lo} {'<=' if self.lower_closed else '<'} {name} {'<=' if self.upper_closed else '<'} {hi}"
        elif has_lo:
            s = f"{name} {'>=' if self.lower_closed else '>'} {lo}"
        elif has_hi:
            s = f"{name} {'<=' if self.upper_closed else '<'} {hi}"
        else:
            s = None
        if self.zero_missing:  # |x| <= kZeroThreshold goes where NaN goes, whatever the bounds say
            z = exact_decimal(ZERO_THRESHOLD, point=False)
            if self.missing:
                return "True" if s is None else f"({s} or abs({name}) <= {z} or {name} is missing)"
            return f"abs({name}) > {z}" if s is None else f"({s} and abs({name}) > {z})"
        if s is None:
            return "True" if self.missing else f"{name} is not missing"
        return f"({s} or {name} is missing)" if self.missing else s

    def to_dict(self) -> dict:
        """JSON-ready dict (infinite bounds as None).

        Keys ``kind`` ("interval"), ``feature``, the bounds, their flags and display texts.

        Returns
        -------
        dict
        """
        def num(v):
            return None if math.isinf(v) else v
        return {"kind": "interval", "feature": self.feature, "lower": num(self.lower),
                "lower_closed": self.lower_closed, "upper": num(self.upper), "upper_closed": self.upper_closed,
                "missing": self.missing, "zero_missing": self.zero_missing,
                "lower_text": self.lower_text, "upper_text": self.upper_text}

    @classmethod
    @fill_doc(**_DOCS)
    def from_dict(cls, d: dict) -> "Interval":
        """Inverse of :meth:`to_dict`: ``None`` bounds are the infinite ones.

        %(from_dict)s

        Returns
        -------
        Interval
        """
        return cls(feature=int(d["feature"]),
                   lower=-math.inf if d["lower"] is None else float(d["lower"]), lower_closed=bool(d["lower_closed"]),
                   upper=math.inf if d["upper"] is None else float(d["upper"]), upper_closed=bool(d["upper_closed"]),
                   missing=bool(d["missing"]), zero_missing=bool(d.get("zero_missing", False)),
                   lower_text=d.get("lower_text"), upper_text=d.get("upper_text"))


@dataclass(frozen=True)
@fill_doc(**_DOCS)
class CategorySet:
    """Categorical condition: ``trunc(x[feature]) in codes`` (or ``not in`` when ``negate``).

    %(Parameters, feature)s
    codes : tuple of int, default=()
        The library's integer category codes (x is truncated toward zero as
        xgboost and lightgbm do); a negative code is in no set.
    negate : bool, default=False
        The condition is ``not in codes``.
    missing : bool, default=False
        Whether NaN satisfies the condition.
    values : tuple, optional
        Names of the codes (pandas training categories), for display and SQL.
    strict_negative : bool, default=False
        Every x < 0 is in no set (xgboost); otherwise -1 < x < 0 truncates to
        code 0 (lightgbm).
    """

    feature: int
    codes: tuple = ()
    negate: bool = False
    missing: bool = False
    values: tuple | None = field(default=None, compare=False)
    strict_negative: bool = False

    kind = "category"

    def __post_init__(self):
        if type(self.feature) is not int or not 0 <= self.feature <= _INT64_MAX:
            object.__setattr__(self, "feature", check_feature_index(self.feature, "CategorySet.feature"))
        _check_flags(self, ("negate", "missing", "strict_negative"))

    @property
    def key(self):
        """Hashable identity of the condition (display names excluded)."""
        return ("c", self.feature, self.codes, self.negate, self.missing, self.strict_negative)

    @fill_doc(**_DOCS)
    def mergeable(self, other) -> bool:
        """True if ``other`` is a category condition on the same column, so :meth:`merge` applies.

        %(mergeable)s
        """
        return (isinstance(other, CategorySet) and other.feature == self.feature
                and other.strict_negative == self.strict_negative)

    def merge(self, other: "CategorySet") -> "CategorySet":
        """Intersection with another category condition on the same column.

        Parameters
        ----------
        other : CategorySet
            A mergeable condition.

        Returns
        -------
        CategorySet
            Rows satisfying both (missing satisfies both or neither).
        """
        a, b = set(self.codes), set(other.codes)
        if not self.negate and not other.negate:
            codes, neg = a & b, False
        elif self.negate and other.negate:
            codes, neg = a | b, True
        else:
            codes, neg = (a - b, False) if not self.negate else (b - a, False)
        return replace(self, codes=tuple(sorted(codes)), negate=neg, missing=self.missing and other.missing)

    def mask(self, x: np.ndarray) -> np.ndarray:
        """Reference (numpy) evaluation on one column of category codes.

        Parameters
        ----------
        x : array-like of shape (n_samples,)
            Codes as floats (NaN is missing).

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            Where the condition holds.
        """
        x = np.asarray(x, dtype=np.float64)
        nan = np.isnan(x)
        with np.errstate(invalid="ignore"):
            code = np.trunc(np.where(nan, -1.0, x))
        inset = np.isin(code, np.asarray(self.codes, dtype=np.float64)) & (code >= 0)
        if self.strict_negative:
            inset &= ~(x < 0)
        return np.where(nan, self.missing, inset != self.negate)

    def code_names(self, level_names=None):
        """Display names of the codes.

        Parameters
        ----------
        level_names : list, optional
            The training categories (code k names ``level_names[k]``).

        Returns
        -------
        list of str
            ``repr`` of each category value, or the code itself when unnamed.
        """
        if level_names is None:
            return [str(c) for c in self.codes]
        return [repr(level_names[c]) if c < len(level_names) else str(c) for c in self.codes]

    def to_str(self, name: str, level_names=None, *, say_not_missing=True) -> str:
        """Readable text, e.g. ``"channel in {'web', 'atm'}"``.

        Parameters
        ----------
        name : str
            The column's name.
        level_names : list, optional
            The training categories, to show values instead of codes.
        say_not_missing : bool, default=True
            Write ``and x is not missing`` after a ``not in`` that excludes missing values;
            False where the rule set states once that a missing value satisfies no condition
            unless it says ``or x is missing``.

        Returns
        -------
        str
        """
        items = ", ".join(self.code_names(level_names))
        s = f"{name} {'not in' if self.negate else 'in'} {{{items}}}"
        if self.missing and not self.negate:
            s = f"({s} or {name} is missing)"
        elif not self.missing and self.negate and say_not_missing:
            s = f"({s} and {name} is not missing)"
        return s

    def to_dict(self) -> dict:
        """JSON-ready dict.

        Returns
        -------
        dict
        """
        return {"kind": "category", "feature": self.feature, "codes": [int(c) for c in self.codes],
                "negate": self.negate, "missing": self.missing, "strict_negative": self.strict_negative}

    @classmethod
    @fill_doc(**_DOCS)
    def from_dict(cls, d: dict) -> "CategorySet":
        """Inverse of :meth:`to_dict`.

        %(from_dict)s

        Returns
        -------
        CategorySet
            Equal to the condition :meth:`to_dict` saved.
        """
        return cls(feature=int(d["feature"]), codes=tuple(int(c) for c in d["codes"]), negate=bool(d["negate"]),
                   missing=bool(d["missing"]), strict_negative=bool(d.get("strict_negative", False)))


def condition_from_dict(d: dict):
    return (Interval if d["kind"] == "interval" else CategorySet).from_dict(d)


def merge_conditions(conditions) -> list:
    """Merge redundant conditions on the same feature (keeps first-occurrence order)."""
    out: list = []
    for c in conditions:
        for j, o in enumerate(out):
            if o.mergeable(c):
                out[j] = o.merge(c)
                break
        else:
            out.append(c)
    return out


@register_kind
class Rule(RuleKind):
    """A conjunction of conditions predicting the positive class (rule kind ``"tree"``: induced from trees).

    Parameters
    ----------
    conditions : list of Interval or CategorySet
        The conditions (conditions on one column are merged on creation).
    feature_names : list of str, optional
        Names indexed by the conditions' ``feature``.
    sources : list of dict, optional
        Where the rule came from, e.g. ``[{"model": 0, "tree": 3, "node": 17}]``;
        ``node`` is the library's own node / leaf id (``apply`` / ``pred_leaf``).
    value : float, optional
        The source node's output (leaf value, score or P(y=1)), for information.
    categories : dict, optional
        ``{feature: list of category values}`` (the model's training categories),
        used to recode pandas ``category`` columns, and numeric columns whose
        training categories are numbers (HistGradientBoosting), by value; and to
        display / export values.
    path : list, optional
        The unmerged root-to-node conditions (speeds selection up by sharing
        prefixes; not serialised).
    """

    kind = "tree"
    evaluator = "kernels"  # compiled with the set's other induced rules into the interval kernels

    def __init__(self, conditions, feature_names=None, sources=None, value=None, categories=None, path=None):
        self.conditions = merge_conditions(conditions)
        self.feature_names = None if feature_names is None else list(feature_names)
        self.sources = list(sources or [])
        self.value = value
        self.categories = dict(categories or {})
        self.path = None if path is None else list(path)
        # set by RuleSet: its text states the missing-value policy once (see RuleSet.missing_columns)
        self.missing_policy = False

    @property
    def key(self):
        """Hashable identity: the sorted condition keys (equal rules select equal rows)."""
        return tuple(sorted(c.key for c in self.conditions))

    def __len__(self):
        return len(self.conditions)

    @property
    def features(self) -> list:
        """Sorted column indices the rule reads."""
        return sorted({c.feature for c in self.conditions})

    @property
    def columns(self) -> list:
        """Names of the columns the rule reads (``x<j>`` beyond ``feature_names``), in column order."""
        return [self._name(j) for j in self.features]

    def for_set(self, feature_names, missing_policy) -> "Rule":
        """The rule under a set's column names and missing-value policy: itself when they agree, else a
        shallow copy (the caller's rule, perhaps in another set, keeps its own text).

        Parameters
        ----------
        feature_names : list of str or None
            The set's column names.
        missing_policy : bool
            Whether the set's text states the missing-value policy once.

        Returns
        -------
        Rule
        """
        if self.feature_names == feature_names and self.missing_policy == missing_policy:
            return self
        rule = copy.copy(self)
        rule.feature_names, rule.missing_policy = feature_names, missing_policy
        return rule

    def _name(self, j: int) -> str:
        if self.feature_names is not None and j < len(self.feature_names):
            return str(self.feature_names[j])
        return f"x{j}"

    def is_empty(self) -> bool:
        """True if no row can satisfy the rule (e.g. x < 3 and x >= 5, missing excluded).

        Returns
        -------
        bool
        """
        for c in self.conditions:
            if isinstance(c, Interval) and c.is_empty_interval() and not c.missing:
                return True
            if isinstance(c, CategorySet) and not c.negate and not c.codes and not c.missing:
                return True
        return False

    def __str__(self):
        if not self.conditions:
            return "True"
        parts = []
        for c in self.conditions:
            if isinstance(c, CategorySet):
                parts.append(c.to_str(self._name(c.feature), self.categories.get(c.feature),
                                      say_not_missing=not self.missing_policy))
            else:
                parts.append(c.to_str(self._name(c.feature)))
        return " and ".join(parts)

    def __repr__(self):
        return f"Rule({self})"

    def mask(self, X) -> np.ndarray:
        """Rows of X selected by the rule (reference numpy evaluation; see RuleSet for the fast path).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to test (pandas columns matched by ``feature_names``).

        Returns
        -------
        ndarray of bool, shape (n_samples,)
        """
        from ._data import as_float_matrix
        Xf = as_float_matrix(X, [self], feature_names=self.feature_names)
        out = np.ones(Xf.shape[0], dtype=bool)
        for c in self.conditions:
            out &= c.mask(Xf[:, c.feature])
        return out

    def truth(self, X, feature_names=None, columns=None):
        """Where the rule holds and where it does not (never UNKNOWN: each condition routes a missing value).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to test (pandas columns matched by ``feature_names``, the rule's own).
        feature_names : list of str, optional
            Unused: the rule reads columns by index, named by its own ``feature_names``.
        columns : Columns, optional
            Unused (the reader of kinds that name their columns).

        Returns
        -------
        true, false : ndarray of bool, shape (n_samples,)
            :meth:`mask` and its complement.
        """
        m = self.mask(X)
        return m, ~m

    def _names_levels(self, names, levels):
        """The column names and training categories to write: the set's, else the rule's own."""
        if names is None:
            names = {j: self._name(j) for j in self.features}
        return names, dict(self.categories) if levels is None else levels

    @fill_doc(**KIND_DOCS)
    def to_expression(self, dialect=None, *, names=None, levels=None):
        """The rule as a sqlglot expression (the AND of its conditions; TRUE without any).

        %(Parameters, dialect, names_levels, returns_expression)s
        """
        from ._export import _SQLBuilder

        names, levels = self._names_levels(names, levels)
        return _SQLBuilder(dialect or "").rule(self, names, levels)

    @fill_doc(**KIND_DOCS)
    def to_pandas_query(self, *, names=None, levels=None) -> str:
        """The rule as a ``DataFrame.query(engine="python")`` expression: the ``and`` of its conditions'
        queries (``(True)`` without conditions).

        %(Parameters, names_levels, returns_text)s
        """
        from ._export import rule_query

        return rule_query(self, *self._names_levels(names, levels))

    def to_dict(self) -> dict:
        """JSON-ready dict (``kind`` "tree", conditions, sources, value, categories).

        Returns
        -------
        dict
        """
        return {"kind": self.kind, "conditions": [c.to_dict() for c in self.conditions],
                "sources": self.sources, "value": None if self.value is None else float(self.value),
                "categories": {str(k): list(v) for k, v in self.categories.items()}}

    @classmethod
    def from_dict(cls, d: dict, feature_names=None) -> "Rule":
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            As returned by :meth:`to_dict`.
        feature_names : list of str, optional
            Column names.

        Returns
        -------
        Rule
        """
        return cls([condition_from_dict(c) for c in d["conditions"]], feature_names=feature_names,
                   sources=d.get("sources"), value=d.get("value"),
                   categories={int(k): v for k, v in d.get("categories", {}).items()})

    @classmethod
    def check_dict(cls, d: dict, where: str, n_names) -> None:
        """Check the rule's dict field by field (``_schema``: conditions, sources, value, categories).

        Parameters
        ----------
        d : dict
            The rule's dict in a set's JSON.
        where : str
            Its path (``rules[3]``), named by the errors.
        n_names : int or None
            How many feature names the set has (a condition's feature must name one).
        """
        from ._schema import check_tree_rule

        check_tree_rule(d, where, n_names)
