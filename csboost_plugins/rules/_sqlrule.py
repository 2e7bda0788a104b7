"""SQLRule: a rule read from a SQL condition, evaluated in SQL's three-valued logic.

A condition is compiled (by :mod:`._sqlparse`) into a small expression tree of tuples and
evaluated with numpy, column at a time. A boolean node gives two masks, ``t`` (true) and
``f`` (false); unknown is neither. So ``NOT unknown`` is unknown (the masks swap),
``unknown OR true`` is true (``t = t1 | t2``), ``unknown AND false`` is false
(``f = f1 | f2``), and the rule flags a row iff its condition is *true*, as a WHERE clause.

Semantics (one documented choice where engines differ):

- NULL is SQL NULL; in a numeric column NaN is NULL (pandas, SQLite and DuckDB's pandas scan).
  A comparison, arithmetic or IN with NULL is unknown; ``IS [NOT] NULL`` is never unknown.
- ``a / b`` is real division. Where ``b = 0`` it is NULL (SQLite, Spark, MySQL; Postgres would
  raise), except in a rule read from DuckDB, which divides in IEEE arithmetic: ``x / 0`` is
  +-Infinity and ``0 / 0`` NaN, a value DuckDB orders above every number and equal to itself.
  Such a division is written only for DuckDB; ``a / NULLIF(b, 0)`` means the same everywhere.
  Read from a dialect whose ``/`` divides integers (SQLite, Postgres), integer operands
  divide as integers, truncated toward zero, as that engine does.
- An arithmetic result that is NaN (``inf - inf``) is NULL (SQLite), a NaN value in DuckDB.
- ``LEAST`` / ``GREATEST`` follow the dialect the rule was read in: DuckDB, Postgres and
  Spark ignore NULL arguments (NULL only when all are); SQLite (``MIN(a, b)``), MySQL,
  BigQuery and Snowflake return NULL when any argument is NULL. The export writes each
  meaning exactly in the target dialect (``COALESCE`` around the arguments or a ``CASE``).
- ``LIKE`` is case-sensitive, except read from SQLite, where it folds ASCII letters only;
  ``ILIKE`` folds case (Unicode). ``%`` and ``_`` match any characters (newlines too); the
  escape character is the ``ESCAPE`` clause's, or a backslash in the dialects whose LIKE
  escapes with one by default (Postgres, Spark, Snowflake, MySQL, BigQuery); none in DuckDB
  or SQLite. SQLite's ``GLOB`` (case-sensitive, ``*`` and ``?``) is read too.
- ``CAST(x AS DOUBLE | FLOAT | REAL)`` is the value itself; casts that round (to an
  integer or a decimal) differ between engines and are refused when the rule is read.
- Text compares by code point (the binary collation of SQLite and DuckDB).
- Numbers are float64, exact for integers up to 2**53; an integer column holding a value beyond
  (an identifier) is refused when a rule reads it, as is a literal in digits beyond 2**53 that
  float64 does not hold, since neighbouring integers would compare equal.

The numeric literals of a rule are *slots* (:attr:`SQLRule.literals`, in reading order);
:meth:`SQLRule.with_literals` gives the same rule with other numbers (re-tuning).
"""

from __future__ import annotations

import math
import re

import numpy as np

from .._docstrings import fill_doc
from ._kind import KIND_DOCS, RuleKind, register_kind
from ._rule import exact_decimal

__all__ = ["SQLRule", "MAX_DEPTH"]

#: deepest nesting of a condition (parentheses, NOT, arithmetic) read or built
MAX_DEPTH = 100
#: integers up to this magnitude are exact in float64 (the numbers rules compare); beyond it they are refused
BIG_INT = 2 ** 53

# dialects whose LIKE uses a backslash as escape character when no ESCAPE clause is given
BACKSLASH_LIKE = frozenset({"postgres", "redshift", "spark", "spark2", "databricks", "hive", "snowflake", "mysql",
                            "bigquery", "presto", "trino", "athena"})
# dialects whose LEAST / GREATEST ignore NULL arguments (the others return NULL if any argument is NULL)
LEAST_IGNORES_NULLS = frozenset({"", "duckdb", "postgres", "redshift", "spark", "spark2", "databricks", "tsql",
                                 "materialize", "risingwave"})
# dialects whose arithmetic is IEEE: x / 0 is +-inf, 0 / 0 NaN, and NaN a value above every number
IEEE_DIALECTS = frozenset({"duckdb"})
# dialects where ``/`` on two integers is integer division
INT_DIVISION = frozenset({"sqlite", "postgres", "redshift", "tsql", "materialize", "risingwave"})

_CMP = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "=": np.equal,
        "<>": np.not_equal}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}
_ARITH = ("add", "sub", "mul", "div")
_BOOL_OPS = frozenset({"cmp", "and", "or", "not", "between", "in", "isnull", "like", "bool"})


class _Val:
    """A value expression evaluated on rows: kind ("num", "str" or "null"), values, NULL mask, integer typed.

    A text column is held factorized (``fac = (codes, uniques)``, code -1 for NULL): equality, IN, LIKE and
    LOWER work on the distinct values and map back through the codes; ``v`` (one string per row, ``""`` for
    NULL) is built only when an operation needs it."""

    __slots__ = ("kind", "_v", "null", "is_int", "fac", "nan")

    def __init__(self, kind, v, null, is_int=False, fac=None, nan=False):
        self.kind, self._v, self.null, self.is_int, self.fac = kind, v, null, is_int, fac
        self.nan = nan  # may hold NaN values that are not NULL (DuckDB's IEEE arithmetic)

    @property
    def v(self):
        if self._v is None and self.fac is not None:
            codes, uniques = self.fac
            self._v = np.append(np.asarray(uniques, dtype=object), "")[codes]
        return self._v

    def per_row(self, fn_of_uniques, fill):
        """fn over the distinct values, mapped to rows (``fill`` on NULL rows); None without factorization."""
        if self.fac is None:
            return None
        codes, uniques = self.fac
        return np.append(np.asarray(fn_of_uniques(np.asarray(uniques, dtype=object))), fill)[codes]


class RuleTypeError(ValueError):
    """A rule applied to a column of the wrong type (a ValueError naming the rule)."""


def _text(node) -> str:
    """Short text of a node for messages."""
    op = node[0]
    if op == "col":
        return f"column {node[1]!r}"
    if op == "str":
        return f"the text {node[1]!r}"
    if op == "num":
        return "a number"
    return op.upper()


# ----------------------------------------------------------------------------- data access
class Columns:
    """Reads the columns rules name from X (a DataFrame by name; a numpy array through ``feature_names``).

    Each column is read once per call (shared by all rules): numbers as float64 with NaN -> NULL,
    text (object, string, or category of text) as an object array with NULL -> ``""`` plus a mask.
    """

    def __init__(self, X, feature_names=None):
        import pandas as pd

        self.X = X
        self.frame = isinstance(X, pd.DataFrame)
        if self.frame:
            names = [str(c) for c in X.columns]
            self.n = X.shape[0]
        else:
            if hasattr(X, "tocsr") or hasattr(X, "toarray"):
                raise TypeError("X must be dense (numpy or pandas)")
            raw = np.asarray(X) if not isinstance(X, np.ndarray) else X
            try:
                self.X = np.asarray(raw, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"X must be numeric or a DataFrame, got {type(X).__name__}") from exc
            if self.X.ndim != 2:
                raise ValueError(f"X must be 2-D (rows, features), got shape {self.X.shape}")
            # integer columns float64 does not hold exactly (checked when a rule reads them)
            self.big = set(np.flatnonzero(((raw > BIG_INT) | (raw < -BIG_INT)).any(axis=0)).tolist()) \
                if raw.dtype.kind in "iu" and raw.size else set()
            self.n = self.X.shape[0]
            names = None if feature_names is None else [str(c) for c in feature_names]
        self.names = names
        self.exact = {} if names is None else {c: i for i, c in enumerate(names)}
        lower: dict = {}
        for c, i in self.exact.items():
            lower.setdefault(c.lower(), []).append(i)
        self.lower = lower
        self.cache: dict = {}

    def position(self, name, quoted, rule):
        if self.names is None:
            raise ValueError(f"rule {rule!r} reads columns by name ({name!r}); pass X as a DataFrame, or a numpy "
                             "array with feature_names in the rule set")
        i = self.exact.get(name)
        if i is None and not quoted:  # an unquoted SQL identifier is case-insensitive
            hits = self.lower.get(name.lower(), [])
            i = hits[0] if len(hits) == 1 else None
        if i is None:
            raise ValueError(f"rule {rule!r} uses column {name!r}, which X lacks")
        return i

    def get(self, name, quoted, rule) -> _Val:
        i = self.position(name, quoted, rule)
        if i in self.cache:
            return self.cache[i]
        val = self._read(i, rule)
        self.cache[i] = val
        return val

    def _read(self, i, rule) -> _Val:
        import pandas as pd

        if not self.frame:
            if i in self.big:
                self._too_big(i, rule)
            v = self.X[:, i]
            return _Val("num", v, np.isnan(v))
        col = self.X.iloc[:, i]
        dt = col.dtype
        if isinstance(dt, pd.CategoricalDtype):
            cats = dt.categories
            if pd.api.types.is_integer_dtype(cats.dtype) and _beyond_float(pd.Series(cats)):
                self._too_big(i, rule)
            if pd.api.types.is_numeric_dtype(cats.dtype) and not pd.api.types.is_bool_dtype(cats.dtype):
                v = col.astype(np.float64).to_numpy()
                return _Val("num", v, np.isnan(v), pd.api.types.is_integer_dtype(cats.dtype))
            dt = np.dtype(object)
        if pd.api.types.is_bool_dtype(dt) or pd.api.types.is_numeric_dtype(dt):
            if pd.api.types.is_integer_dtype(dt) and _beyond_float(col):
                self._too_big(i, rule)
            v = col.to_numpy(dtype=np.float64, na_value=np.nan)
            return _Val("num", v, np.isnan(v), pd.api.types.is_integer_dtype(dt) or pd.api.types.is_bool_dtype(dt))
        if pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt):
            if isinstance(col.dtype, pd.CategoricalDtype):
                codes, uniques = col.cat.codes.to_numpy(), np.asarray(col.cat.categories, dtype=object)
            else:
                codes, uniques = pd.factorize(col, use_na_sentinel=True)
                uniques = np.asarray(uniques, dtype=object)
            bad = [x for x in uniques if not isinstance(x, str)]
            if bad:
                raise ValueError(f"rule {rule!r}: column {self.names[i]!r} holds {type(bad[0]).__name__} values; "
                                 "a text column must hold strings (NULL / NaN for missing)")
            codes = np.asarray(codes, dtype=np.int64)
            return _Val("str", None, codes < 0, fac=(codes, uniques))
        raise ValueError(f"rule {rule!r}: column {self.names[i]!r} has dtype {dt}, which SQL rules do not read "
                         "(numbers, booleans, text and categories)")


    def _too_big(self, i, rule):
        name = self.names[i] if self.names is not None else i
        raise ValueError(f"rule {rule!r}: column {name!r} holds integers beyond 2**53, which are not exact in "
                         "float64 (rules compare numbers as float64, so neighbouring values would compare equal); "
                         "compare such identifiers as text (a text column and quoted literals)")


def _beyond_float(col) -> bool:
    """Whether an integer Series holds a value of magnitude above 2**53 (missing values skipped)."""
    if not col.notna().any():
        return False
    return bool(col.max() > BIG_INT or col.min() < -BIG_INT)


# ----------------------------------------------------------------------------- evaluation
def like_regex(pattern: str, escape, fold: str | None):
    """Compiled regex of a LIKE pattern (``%`` any run, ``_`` one character, ``escape`` quotes the next)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape:
            if i + 1 >= len(pattern):
                raise ValueError(f"LIKE pattern {pattern!r} ends with its escape character {escape!r}")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    flags = re.DOTALL
    if fold == "ascii":
        flags |= re.IGNORECASE | re.ASCII
    elif fold == "unicode":
        flags |= re.IGNORECASE
    return re.compile("".join(out), flags)


class _Evaluator:
    def __init__(self, rule, cols: Columns):
        self.rule, self.cols, self.n = rule, cols, cols.n
        self.lits, self.ints = rule.literals, rule._literal_is_int
        self.ieee = (rule.dialect or "") in IEEE_DIALECTS

    def fail(self, msg):
        raise RuleTypeError(f"rule {self.rule.name!r}: {msg}")

    def value(self, node) -> _Val:
        op = node[0]
        if op == "col":
            return self.cols.get(node[1], node[2], self.rule.name)
        if op == "num":
            return _Val("num", np.float64(self.lits[node[1]]), False, self.ints[node[1]])
        if op == "str":
            return _Val("str", node[1], False)
        if op == "null":
            return _Val("null", np.float64(0.0), True)
        if op == "neg":
            a = self.num(node[1], "unary minus")
            return _Val("num", -a.v, a.null, a.is_int, nan=a.nan)
        if op == "abs":
            a = self.num(node[1], "ABS")
            return _Val("num", np.abs(a.v), a.null, a.is_int, nan=a.nan)
        if op == "cast":
            a = self.num(node[1], "CAST")
            return _Val("num", a.v, a.null, False, nan=a.nan)
        if op in ("lower", "upper"):
            a = self.value(node[1])
            if a.kind == "num":
                self.fail(f"{op.upper()} of {_text(node[1])}, which holds numbers; it takes text")
            fn = _case_fn(op, node[2])
            if a.fac is not None:
                return _Val(a.kind, None, a.null, fac=(a.fac[0], np.asarray([fn(x) for x in a.fac[1]], dtype=object)))
            v = fn(a.v) if isinstance(a.v, str) else np.asarray([fn(x) for x in a.v], dtype=object)
            return _Val(a.kind, v, a.null)
        if op in _ARITH:
            return self.arith(node)
        if op == "coalesce":
            return self.coalesce(node)
        if op in ("least", "greatest"):
            return self.extreme(node)
        if op == "nullif":
            a, b = self.value(node[1]), self.value(node[2])
            self.same_kind(a, b, node[1], node[2], "NULLIF")
            t, _ = self.compare("=", a, b)
            return _Val(a.kind, a.v, np.logical_or(a.null, t), a.is_int)
        raise ValueError(f"rule {self.rule.name!r}: {op} is not a value")  # the parser never builds it

    def num(self, node, what) -> _Val:
        a = self.value(node)
        if a.kind == "str":
            self.fail(f"{what} of {_text(node)}, which is text; it takes numbers")
        return a

    def same_kind(self, a, b, na, nb, what):
        if "null" not in (a.kind, b.kind) and a.kind != b.kind:
            t, n = (na, nb) if a.kind == "str" else (nb, na)
            self.fail(f"{what} compares {_text(t)} (text) with {_text(n)} (a number)")

    def arith(self, node):
        op = node[0]
        a, b = self.num(node[1], op.upper()), self.num(node[2], op.upper())
        null = np.logical_or(a.null, b.null)
        with np.errstate(all="ignore"):
            if op == "add":
                v = a.v + b.v
            elif op == "sub":
                v = a.v - b.v
            elif op == "mul":
                v = a.v * b.v
            else:
                v = a.v / b.v
                if not self.ieee:
                    null = np.logical_or(null, b.v == 0)  # x / 0 is NULL
                if node[3] and a.is_int and b.is_int:  # the dialect divides integers as integers
                    v = np.trunc(v)
                    return _Val("num", v, np.logical_or(null, np.isnan(v)), True)
            if not self.ieee:
                null = np.logical_or(null, np.isnan(v))  # inf - inf: NULL (as SQLite)
                return _Val("num", v, null, a.is_int and b.is_int and op != "div")
            nan = bool(np.any(np.isnan(v) & ~np.asarray(null)))
        return _Val("num", v, null, a.is_int and b.is_int and op != "div", nan=nan)

    def coalesce(self, node):
        args = [self.value(a) for a in node[1]]
        kinds = {a.kind for a in args} - {"null"}
        if len(kinds) > 1:
            self.fail("COALESCE mixes text and numbers")
        kind = kinds.pop() if kinds else "null"
        v, null = args[0].v, args[0].null
        for a in args[1:]:
            v = np.where(null, a.v, v)
            null = np.logical_and(null, a.null)
        return _Val(kind, v, null, all(a.is_int for a in args if a.kind != "null"), nan=any(a.nan for a in args))

    def extreme(self, node):
        op, nodes, ignore = node[0], node[1], node[2]
        args = [self.num(a, op.upper()) for a in nodes]
        pick = np.minimum if op == "least" else np.maximum
        fill = np.inf if op == "least" else -np.inf
        if ignore:
            v = np.where(args[0].null, fill, args[0].v)
            null = args[0].null
            for a in args[1:]:
                v = pick(v, np.where(a.null, fill, a.v))
                null = np.logical_and(null, a.null)
        else:
            v, null = args[0].v, args[0].null
            for a in args[1:]:
                v = pick(v, a.v)
                null = np.logical_or(null, a.null)
        return _Val("num", v, null, all(a.is_int for a in args), nan=any(a.nan for a in args))

    def compare(self, op, a, b):
        known = np.logical_not(np.logical_or(a.null, b.null))
        if "null" in (a.kind, b.kind):
            return np.False_, np.False_
        with np.errstate(invalid="ignore"):
            if a.kind == "str" and a.fac is not None and b.fac is None and isinstance(b.v, str):
                r = a.per_row(lambda u: _CMP[op](u, b.v).astype(bool), False)
            elif b.kind == "str" and b.fac is not None and a.fac is None and isinstance(a.v, str):
                r = b.per_row(lambda u: _CMP[_FLIP[op]](u, a.v).astype(bool), False)
            elif a.nan or b.nan:
                r = _ieee_compare(op, a.v, b.v)
            else:
                r = _CMP[op](a.v, b.v)
        return np.logical_and(known, r), np.logical_and(known, np.logical_not(r))

    def cond(self, node):
        """(true mask, false mask) of a boolean node (scalars broadcast)."""
        op = node[0]
        if op == "and" or op == "or":
            parts = [self.cond(p) for p in node[1]]
            ts, fs = [p[0] for p in parts], [p[1] for p in parts]
            if op == "and":
                return _all(ts), _any(fs)
            return _any(ts), _all(fs)
        if op == "not":
            t, f = self.cond(node[1])
            return f, t
        if op == "bool":
            return np.bool_(node[1]), np.bool_(not node[1])
        if op == "cmp":
            a, b = self.value(node[2]), self.value(node[3])
            self.same_kind(a, b, node[2], node[3], node[1])
            return self.compare(node[1], a, b)
        if op == "between":
            a, lo, hi = self.value(node[1]), self.value(node[2]), self.value(node[3])
            self.same_kind(a, lo, node[1], node[2], "BETWEEN")
            self.same_kind(a, hi, node[1], node[3], "BETWEEN")
            t1, f1 = self.compare(">=", a, lo)
            t2, f2 = self.compare("<=", a, hi)
            return np.logical_and(t1, t2), np.logical_or(f1, f2)
        if op == "isnull":
            null = self.value(node[1]).null
            return null, np.logical_not(null)
        if op == "in":
            return self.isin(node)
        if op == "like":
            return self.like(node)
        raise ValueError(f"rule {self.rule.name!r}: {op} is not a condition")

    def isin(self, node):
        import pandas as pd

        a, values, kind, has_null = self.value(node[1]), node[2], node[3], node[4]
        if a.kind == "null" or (not values and not has_null):
            return (np.False_, np.bool_(a.kind != "null")) if not values and not has_null else (np.False_, np.False_)
        if kind is not None and a.kind != kind:
            self.fail(f"IN compares {_text(node[1])} ({'text' if a.kind == 'str' else 'a number'}) with "
                      f"{'text' if kind == 'str' else 'numbers'}")
        hit = a.per_row(lambda u: pd.Index(u, dtype=object).isin(values), False) if values else None
        if hit is None and a.kind == "num":
            hit = np.isin(np.broadcast_to(a.v, (self.n,)), np.asarray(values, dtype=np.float64))
        elif hit is None:
            v = np.broadcast_to(np.asarray(a.v, dtype=object), (self.n,))
            hit = pd.Series(v).isin(values).to_numpy() if values else np.zeros(self.n, bool)
        known = np.logical_not(a.null)
        t = np.logical_and(known, hit)
        f = np.logical_and(known, np.logical_not(hit)) if not has_null else np.False_
        return t, f

    def like(self, node):
        import pandas as pd

        a = self.value(node[1])
        if a.kind == "num":
            self.fail(f"LIKE on {_text(node[1])}, which holds numbers; LIKE takes text")
        if a.kind == "null":
            return np.False_, np.False_
        rx = like_regex(node[2], node[3], node[4])
        hit = a.per_row(lambda u: np.fromiter((rx.fullmatch(s) is not None for s in u), bool, len(u)), False)
        if hit is None:
            v = np.broadcast_to(np.asarray(a.v, dtype=object), (self.n,))
            hit = pd.Series(v, dtype=object).map(lambda s: rx.fullmatch(s) is not None).to_numpy(dtype=bool)
        known = np.logical_not(a.null)
        return np.logical_and(known, hit), np.logical_and(known, np.logical_not(hit))


def _may_be_int(node, rule) -> bool:
    """Whether a value may be integer-typed (a column may; a CAST to a float or a fractional literal is not)."""
    op = node[0]
    if op == "num":
        return rule._literal_is_int[node[1]]
    if op in ("cast", "str", "null"):
        return False
    if op == "div":
        return bool(node[3]) and _may_be_int(node[1], rule) and _may_be_int(node[2], rule)
    if op in ("add", "sub", "mul", "neg", "abs", "nullif"):
        return all(_may_be_int(c, rule) for c in children(node))
    if op in ("coalesce", "least", "greatest"):
        return all(_may_be_int(c, rule) for c in children(node))
    return True


def _ieee_compare(op, a, b):
    """DuckDB's comparison of doubles: NaN equals NaN and lies above every number (a total order)."""
    an, bn = np.isnan(a), np.isnan(b)
    av, bv = np.where(an, 0.0, a), np.where(bn, 0.0, b)
    lt = (~an & bn) | (~an & ~bn & (av < bv))
    eq = (an & bn) | (~an & ~bn & (av == bv))
    return {"<": lt, "<=": lt | eq, ">": ~(lt | eq), ">=": ~lt, "=": eq, "<>": ~eq}[op]


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _case_fn(op, ascii_only):
    """LOWER / UPPER of one string: ASCII letters only (SQLite) or Unicode."""
    if ascii_only:
        table = _ASCII_LOWER if op == "lower" else _ASCII_UPPER
        return lambda x: x.translate(table)
    return str.lower if op == "lower" else str.upper


def _all(ms):
    out = ms[0]
    for m in ms[1:]:
        out = np.logical_and(out, m)
    return out


def _any(ms):
    out = ms[0]
    for m in ms[1:]:
        out = np.logical_or(out, m)
    return out


# ----------------------------------------------------------------------------- SQL writing
class _Writer:
    """sqlglot expression of a tree for a dialect (meaning kept: NULLs, division, LIKE case)."""

    def __init__(self, rule, dialect):
        from sqlglot import exp

        self.exp, self.rule, self.d = exp, rule, dialect or ""

    def paren(self, e):
        exp = self.exp
        if isinstance(e, (exp.Binary, exp.Connector, exp.Not, exp.Neg, exp.Between, exp.In, exp.Is, exp.Like,
                          exp.ILike, exp.Escape, exp.Glob)) and not isinstance(e, exp.Paren):
            return exp.Paren(this=e)
        return e

    def value(self, node):
        exp, op = self.exp, node[0]
        if op == "col":
            return exp.Column(this=exp.Identifier(this=node[1], quoted=True))
        if op == "num":
            v, is_int = self.rule.literals[node[1]], self.rule._literal_is_int[node[1]]
            lit = exp.Literal.number(exact_decimal(abs(v), point=not is_int))
            return exp.Neg(this=lit) if math.copysign(1.0, v) < 0 else lit
        if op == "str":
            return exp.Literal.string(node[1])
        if op == "null":
            return exp.Null()
        if op == "neg":
            return exp.Neg(this=self.paren(self.value(node[1])))
        if op == "abs":
            return exp.Abs(this=self.value(node[1]))
        if op == "cast":
            return exp.Cast(this=self.value(node[1]), to=exp.DataType.build("DOUBLE"))
        if op in ("lower", "upper"):
            return (exp.Lower if op == "lower" else exp.Upper)(this=self.value(node[1]))
        if op in _ARITH:
            a, b = self.paren(self.value(node[1])), self.paren(self.value(node[2]))
            if op == "div":
                ieee = (self.rule.dialect or "") in IEEE_DIALECTS
                guarded = node[2][0] == "nullif" and node[2][2][0] == "num" and \
                    self.rule.literals[node[2][2][1]] == 0  # a / NULLIF(b, 0): never divides by zero
                if ieee and not guarded and self.d not in IEEE_DIALECTS:
                    raise ValueError(
                        f"rule {self.rule.name!r}: division read from {self.rule.dialect} gives +-Infinity for x / 0 "
                        f"there, NULL or an error in {self.d or 'generic SQL'}; write it as a / NULLIF(b, 0) to "
                        "flag the same rows in every engine")
                if node[3] and self.d not in INT_DIVISION and _may_be_int(node[1], self.rule) \
                        and _may_be_int(node[2], self.rule):
                    raise ValueError(
                        f"rule {self.rule.name!r}: division read from {self.rule.dialect} divides integers as "
                        f"integers there, not in {self.d or 'generic SQL'}; write CAST(a AS REAL) / b (real "
                        "division) to flag the same rows in every engine")
                return exp.Div(this=a, expression=b, typed=bool(node[3]), safe=not ieee and not guarded)
            return {"add": exp.Add, "sub": exp.Sub, "mul": exp.Mul}[op](this=a, expression=b)
        if op == "coalesce":
            args = [self.value(a) for a in node[1]]
            return exp.Coalesce(this=args[0], expressions=args[1:])
        if op == "nullif":
            return exp.Nullif(this=self.value(node[1]), expression=self.value(node[2]))
        if op in ("least", "greatest"):
            return self.extreme(node)
        raise ValueError(f"cannot write {op}")

    def extreme(self, node):
        exp = self.exp
        cls = exp.Least if node[0] == "least" else exp.Greatest
        args = [self.value(a) for a in node[1]]
        native_ignore = self.d in LEAST_IGNORES_NULLS
        if node[2] == native_ignore or len(args) == 1:
            e = cls(this=args[0], expressions=args[1:], ignore_nulls=native_ignore)
            return e
        if node[2]:  # ignore NULLs where the engine returns NULL: each argument falls back on the others
            co = [exp.Coalesce(this=args[i], expressions=[a.copy() for k, a in enumerate(args) if k != i])
                  for i in range(len(args))]
            return cls(this=co[0], expressions=co[1:], ignore_nulls=False)
        # NULL if any argument is NULL, where the engine ignores them
        any_null = exp.or_(*[exp.Is(this=a.copy(), expression=exp.Null()) for a in args], copy=False)
        inner = cls(this=args[0], expressions=args[1:], ignore_nulls=True)
        return exp.Case(ifs=[exp.If(this=any_null, true=exp.Null())], default=inner)

    def cond(self, node):
        exp, op = self.exp, node[0]
        if op in ("and", "or"):
            parts = [self.paren(self.cond(p)) if p[0] in ("and", "or") else self.cond(p) for p in node[1]]
            return (exp.and_ if op == "and" else exp.or_)(*parts, copy=False)
        if op == "not":
            return exp.Not(this=exp.Paren(this=self.cond(node[1])))
        if op == "bool":
            return exp.Boolean(this=bool(node[1]))
        if op == "cmp":
            cls = {"<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE, "=": exp.EQ, "<>": exp.NEQ}[node[1]]
            return cls(this=self.value(node[2]), expression=self.value(node[3]))
        if op == "between":
            return exp.Between(this=self.paren(self.value(node[1])), low=self.value(node[2]),
                               high=self.value(node[3]))
        if op == "isnull":
            return exp.Is(this=self.paren(self.value(node[1])), expression=exp.Null())
        if op == "in" and len(node[2]) >= 64:  # long lists written as text at once (sqlglot: ~10k items a second)
            parts = [_fast_string(v, self.d) if isinstance(v, str) else
                     ("-" if v < 0 else "") + exact_decimal(abs(v), point=False) for v in node[2]]
            if node[4]:
                parts.append("NULL")
            return exp.In(this=self.paren(self.value(node[1])), expressions=[exp.Var(this=", ".join(parts))])
        if op == "in":
            vals = [exp.Literal.string(v) if isinstance(v, str) else self._number(v) for v in node[2]]
            if node[4]:
                vals.append(exp.Null())
            if not vals:
                return exp.false()
            return exp.In(this=self.paren(self.value(node[1])), expressions=vals)
        if op == "like":
            return self.like(node)
        raise ValueError(f"cannot write {op}")

    def _number(self, v):
        exp = self.exp
        lit = exp.Literal.number(exact_decimal(abs(v), point=False))
        return exp.Neg(this=lit) if v < 0 else lit

    def like(self, node):
        exp = self.exp
        a = self.paren(self.value(node[1]))
        pattern, escape, fold = node[2], node[3], node[4]
        if self.d == "sqlite" and fold is None:  # SQLite's LIKE folds case; GLOB does not
            return exp.Glob(this=a, expression=exp.Literal.string(like_to_glob(pattern, escape)))
        if escape is None and "\\" in pattern and self.d in BACKSLASH_LIKE:
            pattern, escape = pattern.replace("\\", "\\\\"), "\\"
        cls = exp.Like if fold is None or self.d == "sqlite" else exp.ILike
        e = cls(this=a, expression=exp.Literal.string(pattern))
        if escape is not None:
            e = exp.Escape(this=e, expression=exp.Literal.string(escape))
        return e


_PLAIN = re.compile(r"[\w .,:;@#%&()+=/*?!<>\[\]{}|^~$-]*")


def _fast_string(v, dialect):
    """A string literal for ``dialect``: quoted directly when it holds no quote or backslash, else by sqlglot."""
    if _PLAIN.fullmatch(v) and v.isprintable():
        return f"'{v}'"
    from sqlglot import exp

    return exp.Literal.string(v).sql(dialect=dialect or None)


def like_to_glob(pattern, escape) -> str:
    """A LIKE pattern as a SQLite GLOB pattern (``*``, ``?``; a literal ``*``, ``?`` or ``[`` in brackets)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape and i + 1 < len(pattern):
            lit = pattern[i + 1]
            out.append(f"[{lit}]" if lit in "*?[" else lit)
            i += 2
            continue
        out.append("*" if ch == "%" else "?" if ch == "_" else f"[{ch}]" if ch in "*?[" else ch)
        i += 1
    return "".join(out)


# ----------------------------------------------------------------------------- the rule
def children(node) -> tuple:
    """The sub-nodes of a node, in order."""
    op = node[0]
    if op in ("and", "or", "coalesce", "least", "greatest"):
        return node[1]
    if op in ("not", "neg", "abs", "cast", "isnull", "in", "like", "lower", "upper"):
        return (node[1],)
    if op in ("add", "sub", "mul", "div", "nullif"):
        return (node[1], node[2])
    if op == "cmp":
        return (node[2], node[3])
    if op == "between":
        return (node[1], node[2], node[3])
    return ()


def _bare(node):
    """``(node, sign)`` of a column or literal under unary minus / CAST (sign -1 for an odd number of minus
    signs); None for anything else."""
    sign = 1
    while node[0] in ("neg", "cast"):
        sign = -sign if node[0] == "neg" else sign
        node = node[1]
    return (node, sign) if node[0] in ("col", "num") else None


def _walk(tree):
    """Every node of the tree (iterative, preorder)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


_NODE_OPS = frozenset({"col", "num", "str", "null", "neg", "abs", "cast", "add", "sub", "mul", "div", "coalesce",
                       "least", "greatest", "nullif", "lower", "upper"}) | _BOOL_OPS


@register_kind
class SQLRule(RuleKind):
    """A rule read from a SQL condition (:meth:`RuleSet.from_sql`), flagging the rows where it is TRUE.

    Parameters
    ----------
    name : str
        The rule's name.
    tree : tuple
        The compiled condition (built by :meth:`RuleSet.from_sql`; see the module doc).
    literals : sequence of float
        The numeric literals, addressed by the tree's ``("num", slot)`` nodes.
    literal_is_int : sequence of bool
        Whether each literal was written as an integer (integer division in some dialects).
    dialect : str or None
        The dialect the rule was read in; it fixes the meaning of ``LIKE`` and ``LEAST``.

    Attributes
    ----------
    name : str
    columns : list of str
        The columns the rule reads, in order of first use.
    literals : tuple of float
        The numeric literal slots (re-tuning moves them: :meth:`with_literals`).
    """

    kind = "sql"
    evaluator = "engine"  # compiled by the rule engine, bit-packed with the set's other rules

    def __init__(self, name, tree, literals=(), literal_is_int=None, dialect=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"a rule's name must be a non-empty string, got {name!r}")
        self.name = name
        self.tree = tree
        self.literals = tuple(float(v) for v in literals)
        if any(not math.isfinite(v) for v in self.literals):
            raise ValueError(f"rule {name!r}: a numeric literal is not finite")
        self._literal_is_int = tuple(bool(b) for b in (literal_is_int if literal_is_int is not None
                                                       else [float(v).is_integer() for v in self.literals]))
        if len(self._literal_is_int) != len(self.literals):
            raise ValueError(f"rule {name!r}: literal_is_int has {len(self._literal_is_int)} entries for "
                             f"{len(self.literals)} literals")
        self.dialect = dialect or None
        cols = []
        for node in _walk(tree):
            if node[0] == "col" and node[1] not in cols:
                cols.append(node[1])
        self._columns = cols
        self._sql_cache: dict = {}

    # -- identity
    @property
    def key(self):
        """Hashable identity: tree, literal values and dialect (equal keys flag equal rows)."""
        return ("sql", self.tree, self.literals, self.dialect)

    @property
    def columns(self) -> list:
        """The columns the rule reads, in order of first use."""
        return list(self._columns)

    def __str__(self):
        return self.to_sql(self.dialect)

    def __repr__(self):
        return f"SQLRule({self.name!r}: {self})"

    def with_literals(self, values) -> "SQLRule":
        """The same rule (structure, name, dialect) with other numeric literals.

        Parameters
        ----------
        values : sequence of float
            One finite number per slot of :attr:`literals`.

        Returns
        -------
        SQLRule
        """
        values = [float(v) for v in values]
        if len(values) != len(self.literals):
            raise ValueError(f"rule {self.name!r} has {len(self.literals)} literal slots, got {len(values)} values")
        ints = [i and v.is_integer() for i, v in zip(self._literal_is_int, values)]
        return SQLRule(self.name, self.tree, values, ints, self.dialect)

    def literal_columns(self) -> tuple:
        """Per literal slot, the columns it is compared with directly, or None.

        A literal is compared directly with a column in ``column op literal`` (either side),
        ``column BETWEEN literal AND literal``, the column or the literal possibly under unary
        minus or ``CAST``. A slot used anywhere else (arithmetic such as ``3 * avg_amount``,
        ``COALESCE``, ``NULLIF``, ...) gives None.

        Returns
        -------
        tuple
            One entry per slot of :attr:`literals`: None, or a tuple of ``(column, quoted, sign)``
            per place the slot is used, ``sign`` = -1 when the literal compares with ``-column``
            (its values then span ``[-max, -min]`` of the column).
        """
        direct: dict = {}
        for node in _walk(self.tree):
            if node[0] == "cmp":
                pairs = [(node[2], node[3]), (node[3], node[2])]
            elif node[0] == "between":
                pairs = [(node[2], node[1]), (node[3], node[1])]
            else:
                continue
            for lit, other in pairs:
                a, b = _bare(lit), _bare(other)
                if a is not None and b is not None and a[0][0] == "num" and b[0][0] == "col":
                    direct.setdefault(a[0][1], []).append((b[0][1], b[0][2], a[1] * b[1]))
        uses = [0] * len(self.literals)
        for node in _walk(self.tree):
            if node[0] == "num":
                uses[node[1]] += 1
        return tuple(tuple(direct[i]) if i in direct and len(direct[i]) == uses[i] else None
                     for i in range(len(self.literals)))

    def renamed(self, name) -> "SQLRule":
        """The same rule under another name.

        Parameters
        ----------
        name : str
            The new name.

        Returns
        -------
        SQLRule
        """
        return SQLRule(name, self.tree, self.literals, self._literal_is_int, self.dialect)

    # -- evaluation
    def truth(self, X, feature_names=None, columns=None):
        """Where the condition is TRUE and where it is FALSE (UNKNOWN is neither), SQL's three values.

        Parameters
        ----------
        X : DataFrame, or array of shape (n_samples, n_features) with ``feature_names``
            The rows.
        feature_names : list of str, optional
            Names of a numpy X's columns.
        columns : Columns, optional
            Columns already read from X (shared by the rules of a set).

        Returns
        -------
        true, false : ndarray of bool, shape (n_samples,)
            Disjoint masks; rows in neither are UNKNOWN.
        """
        cols = columns if columns is not None else Columns(X, feature_names)
        t, f = _Evaluator(self, cols).cond(self.tree)
        return (np.broadcast_to(t, (cols.n,)).copy(), np.broadcast_to(f, (cols.n,)).copy())

    def mask(self, X, feature_names=None, *, columns=None) -> np.ndarray:
        """Rows where the condition is TRUE (those a SQL ``WHERE`` keeps).

        Parameters
        ----------
        X : DataFrame, or array of shape (n_samples, n_features) with ``feature_names``
            The rows; columns matched by name (an unquoted SQL name also case-insensitively).
        feature_names : list of str, optional
            Names of a numpy X's columns.

        Returns
        -------
        ndarray of bool, shape (n_samples,)

        Raises
        ------
        ValueError
            A column X lacks, or text compared with numbers (the message names the rule).
        """
        return self.truth(X, feature_names, columns)[0]

    # -- export
    @fill_doc(**KIND_DOCS)
    def to_expression(self, dialect=None, *, names=None, levels=None):
        """The condition as a sqlglot expression written for ``dialect`` (the same rows there).

        %(Parameters, dialect, names_levels, returns_expression)s

        Raises
        ------
        ValueError
            A construct whose meaning ``dialect`` cannot state (DuckDB's IEEE ``x / 0`` elsewhere,
            integer division where ``/`` divides reals); the message names the rule.
        """
        return _Writer(self, dialect).cond(self.tree)

    def _sql_text(self, d) -> str:
        """:meth:`to_sql` in the checked dialect ``d``, written once per dialect (the text is the rule's str)."""
        if d not in self._sql_cache:
            self._sql_cache[d] = super()._sql_text(d)
        return self._sql_cache[d]

    def to_dict(self) -> dict:
        """JSON-ready dict of the rule.

        Returns
        -------
        dict
            ``kind`` ("sql"), ``name``, ``dialect``, ``tree`` (nested lists), ``literals``,
            ``literal_is_int`` and ``sql`` (the text, for reading only).
        """
        return {"kind": self.kind, "name": self.name, "dialect": self.dialect, "tree": _to_lists(self.tree),
                "literals": list(self.literals), "literal_is_int": list(self._literal_is_int), "sql": str(self)}

    @classmethod
    def from_dict(cls, d: dict, feature_names=None) -> "SQLRule":
        """Inverse of :meth:`to_dict` (the tree is checked node by node; ValueError naming the rule).

        Parameters
        ----------
        d : dict
            As returned by :meth:`to_dict`.
        feature_names : list of str, optional
            Ignored: an SQL rule names its own columns (the rule-kind signature).

        Returns
        -------
        SQLRule
        """
        name = d.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"rule set JSON: an SQL rule needs a non-empty string name, got {name!r:.80}")
        lits = d.get("literals", [])
        ints = d.get("literal_is_int")
        if not isinstance(lits, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for v in lits):
            raise ValueError(f"rule set JSON: rule {name!r}: literals must be a list of numbers")
        if ints is not None and (not isinstance(ints, list) or not all(isinstance(v, bool) for v in ints)):
            raise ValueError(f"rule set JSON: rule {name!r}: literal_is_int must be a list of booleans")
        dialect = d.get("dialect")
        if dialect is not None and not isinstance(dialect, str):
            raise ValueError(f"rule set JSON: rule {name!r}: dialect must be a string or null")
        tree = _from_lists(d.get("tree"), name, len(lits))
        return cls(name, tree, lits, ints, dialect)

    def __reduce__(self):
        return (SQLRule, (self.name, self.tree, self.literals, self._literal_is_int, self.dialect))

    # -- pandas
    @fill_doc(**KIND_DOCS)
    def to_pandas_query(self, *, names=None, levels=None) -> str:
        """The rule as a ``DataFrame.query(engine="python")`` expression flagging the same rows.

        Three-valued logic is kept by writing, for each condition, when it is true (NULL
        comparisons are false in pandas) and, under NOT, when it is false. Constructs pandas
        evaluates differently (division, ABS, COALESCE, LEAST / GREATEST, CAST, NULLIF,
        LIKE) raise a ValueError naming the construct.

        %(Parameters, names_levels, returns_text)s
        """
        return _PandasWriter(self).true(self.tree)


def _to_lists(node):
    """A tree as nested JSON lists: ``[op, field, ...]``, a list of sub-nodes as a JSON list."""
    op = node[0]
    if op in ("and", "or", "coalesce"):
        return [op, [_to_lists(c) for c in node[1]]]
    if op in ("least", "greatest"):
        return [op, [_to_lists(c) for c in node[1]], node[2]]
    if op == "in":
        return [op, _to_lists(node[1]), list(node[2]), node[3], node[4]]
    if op == "like":
        return [op, _to_lists(node[1]), node[2], node[3], node[4]]
    if op == "cmp":
        return [op, node[1], _to_lists(node[2]), _to_lists(node[3])]
    if op == "div" or op in ("lower", "upper"):
        return [op] + [_to_lists(c) for c in children(node)] + [node[-1]]
    if op in ("col", "num", "str", "bool", "null"):
        return list(node)
    return [op] + [_to_lists(c) for c in node[1:]]


_ARITY = {"col": 2, "num": 1, "str": 1, "null": 0, "neg": 1, "abs": 1, "cast": 1, "add": 2, "sub": 2, "mul": 2,
          "div": 3, "coalesce": 1, "least": 2, "greatest": 2, "nullif": 2, "cmp": 3, "and": 1, "or": 1, "not": 1,
          "between": 3, "in": 4, "isnull": 1, "like": 4, "bool": 1, "lower": 2, "upper": 2}
_VALUE_OPS = frozenset({"col", "num", "str", "null", "neg", "abs", "cast", "add", "sub", "mul", "div", "coalesce",
                        "least", "greatest", "nullif", "lower", "upper"})


def _from_lists(x, name, n_lits, want="bool", depth=0):
    """Inverse of :func:`_to_lists`, checking every node (ValueError naming the rule)."""
    def bad(msg):
        return ValueError(f"rule set JSON: rule {name!r}: {msg}")

    def sub(y, kind="value"):
        return _from_lists(y, name, n_lits, kind, depth + 1)

    def subs(ys, kind="value"):
        if not isinstance(ys, list) or not ys:
            raise bad(f"{op} needs a non-empty list of operands")
        return tuple(sub(y, kind) for y in ys)

    if depth > 2 * MAX_DEPTH + 10:
        raise bad("the condition is nested too deeply")
    if not isinstance(x, list) or not x or not isinstance(x[0], str):
        raise bad(f"a tree node must be a list starting with its operator, got {x!r:.80}")
    op = x[0]
    if op not in _ARITY or len(x) - 1 != _ARITY[op]:
        raise bad(f"unknown node {op!r:.40} or wrong number of fields")
    if (op in _VALUE_OPS) != (want == "value"):
        raise bad(f"{op} where a {'value' if want == 'value' else 'condition'} belongs")
    a = x[1:]
    if op == "col":
        if not isinstance(a[0], str) or not isinstance(a[1], bool):
            raise bad("a column node is ['col', name, quoted]")
        return ("col", a[0], a[1])
    if op == "num":
        if not (isinstance(a[0], int) and not isinstance(a[0], bool) and 0 <= a[0] < n_lits):
            raise bad(f"literal slot {a[0]!r:.40} out of range")
        return ("num", a[0])
    if op == "str" or op == "bool":
        if not isinstance(a[0], str if op == "str" else bool):
            raise bad(f"a {op} node holds a {'string' if op == 'str' else 'boolean'}")
        return (op, a[0])
    if op == "null":
        return ("null",)
    if op in ("and", "or"):
        return (op, subs(a[0], "bool"))
    if op == "coalesce":
        return (op, subs(a[0]))
    if op in ("least", "greatest"):
        return (op, subs(a[0]), bool(a[1]))
    if op == "cmp":
        if a[0] not in _CMP:
            raise bad(f"unknown comparison {a[0]!r:.20}")
        return ("cmp", a[0], sub(a[1]), sub(a[2]))
    if op == "div":
        return ("div", sub(a[0]), sub(a[1]), bool(a[2]))
    if op in ("lower", "upper"):
        return (op, sub(a[0]), bool(a[1]))
    if op == "in":
        vals, kind = a[1], a[2]
        if kind not in ("num", "str", None) or not isinstance(vals, list) or not all(
                isinstance(v, str) if kind == "str" else isinstance(v, (int, float)) and not isinstance(v, bool)
                for v in vals):
            raise bad("IN holds a kind ('num' or 'str') and values of that kind")
        return ("in", sub(a[0]), tuple(vals) if kind == "str" else tuple(float(v) for v in vals), kind, bool(a[3]))
    if op == "like":
        if not isinstance(a[1], str) or not (a[2] is None or (isinstance(a[2], str) and len(a[2]) == 1)) \
                or a[3] not in (None, "ascii", "unicode"):
            raise bad("LIKE holds a pattern, an escape character or null, and case folding null/'ascii'/'unicode'")
        try:
            like_regex(a[1], a[2], a[3])
        except ValueError as exc:
            raise bad(str(exc)) from None
        return ("like", sub(a[0]), a[1], a[2], a[3])
    if op in ("not",):
        return (op, sub(a[0], "bool"))
    return (op,) + tuple(sub(y) for y in a)


class _PandasWriter:
    """pandas query text of a tree: ``true(node)`` / ``false(node)`` never hold for unknown."""

    def __init__(self, rule):
        self.rule = rule

    def refuse(self, what):
        raise ValueError(f"rule {self.rule.name!r}: {what} has no exact pandas query (pandas computes it with NaN "
                         "differently); use RuleSet.predict or to_sql")

    def value(self, node):
        op = node[0]
        if op == "col":
            return "`" + node[1].replace("`", "``") + "`"
        if op == "num":
            return f"({exact_decimal(self.rule.literals[node[1]])})"
        if op == "str":
            return repr(node[1])
        if op == "neg":
            return f"(-{self.value(node[1])})"
        if op in ("add", "sub", "mul"):
            sym = {"add": "+", "sub": "-", "mul": "*"}[op]
            return f"({self.value(node[1])} {sym} {self.value(node[2])})"
        self.refuse({"div": "division", "null": "NULL"}.get(op, op.upper()))

    def known(self, node):
        """Text true where the value is not NULL."""
        v = self.value(node)
        return "True" if node[0] in ("num", "str") else f"({v} == {v})"

    def true(self, node):
        op = node[0]
        if op == "and" or op == "or":
            return "(" + f" {op} ".join(self.true(p) for p in node[1]) + ")"
        if op == "not":
            return self.false(node[1])
        if op == "bool":
            return str(bool(node[1]))
        if op == "cmp":
            sym = "==" if node[1] == "=" else "!=" if node[1] == "<>" else node[1]
            return f"({self.known(node[2])} and {self.known(node[3])} and ({self.value(node[2])} {sym} " \
                   f"{self.value(node[3])}))"
        if op == "between":
            a, lo, hi = node[1], node[2], node[3]
            return self.true(("and", (("cmp", ">=", a, lo), ("cmp", "<=", a, hi))))
        if op == "isnull":
            v = self.value(node[1])
            return f"({v} != {v})"
        if op == "in":
            if node[4] and not node[2]:
                return f"({self.known(node[1])} and False)"
            return f"({self.known(node[1])} and {self.value(node[1])}.isin({list(node[2])!r}))"
        self.refuse(op.upper())

    def false(self, node):
        op = node[0]
        if op == "and" or op == "or":
            return "(" + f" {'or' if op == 'and' else 'and'} ".join(self.false(p) for p in node[1]) + ")"
        if op == "not":
            return self.true(node[1])
        if op == "bool":
            return str(not node[1])
        if op == "cmp":
            inv = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "<>", "<>": "="}[node[1]]
            return self.true(("cmp", inv, node[2], node[3]))
        if op == "between":
            a, lo, hi = node[1], node[2], node[3]
            return self.false(("and", (("cmp", ">=", a, lo), ("cmp", "<=", a, hi))))
        if op == "isnull":
            v = self.value(node[1])
            return f"({v} == {v})"
        if op == "in":
            if node[4]:  # x NOT IN (..., NULL) is never true
                return f"({self.known(node[1])} and False)"
            return f"({self.known(node[1])} and ~{self.value(node[1])}.isin({list(node[2])!r}))"
        self.refuse(op.upper())
