"""Rule sets as SQL (any dialect sqlglot writes) and pandas ``DataFrame.query`` strings.

The exported bounds are the exact float64 bounds of the rules (see ``_rule``), written as
shortest round-trip decimals by ``_basics.exact_decimal`` (as the rule text is), so a
database holding the original float64 values selects the rows the library routed,
ties at float32 thresholds included. SQL NULL plays the role of NaN (SQLite and
DuckDB's pandas scan store NaN as NULL).

SQL is built as a sqlglot expression tree and written by sqlglot's generator for the
requested dialect: identifiers are always quoted (a column or table name is never
pasted into the text), string literals escaped by the dialect's own rules.
"""

from __future__ import annotations

import math

import numpy as np

from .._sqlglot import sqlglot_exp
from ._basics import ZERO_THRESHOLD, exact_decimal

__all__ = ["where_expression", "select_statement", "condition_query", "rule_query", "SQL_DIALECTS"]

#: Dialects the tests run (duckdb, sqlite) or parse back with sqlglot (the others).
SQL_DIALECTS = ("spark", "snowflake", "bigquery", "postgres", "duckdb", "sqlite")

_DBL_MAX = float(np.finfo(np.float64).max)


def _exp():
    return sqlglot_exp("RuleSet.to_sql")


class _SQLBuilder:
    """sqlglot expressions for conditions, rules and rule sets (numbers as shortest round-trip decimals)."""

    def __init__(self, dialect=""):
        self.exp = _exp()
        self.dialect = dialect

    def col(self, name):
        exp = self.exp
        return exp.Column(this=exp.Identifier(this=str(name), quoted=True))

    def number(self, v: float):
        return self.exp.Literal.number(exact_decimal(v, point=False))  # as the rule text prints it ("7")

    def literal(self, v):
        exp = self.exp
        if isinstance(v, str):
            return exp.Literal.string(v)
        if isinstance(v, (bool, np.bool_)):
            return exp.Boolean(this=bool(v))
        if isinstance(v, (int, np.integer)):
            return exp.Literal.number(str(int(v)))
        if isinstance(v, (float, np.floating)) and math.isfinite(v):
            return self.number(v)
        raise TypeError(f"category value {v!r} ({type(v).__name__}) has no SQL literal; rules on such a column "
                        "can be exported as codes by converting the column to numbers before fitting")

    def compare(self, col, op: str, v: float):
        """``col op v`` for op in >=, >, <=, <; infinite v becomes the equivalent finite comparison."""
        exp = self.exp
        if math.isinf(v):
            lower = op in (">=", ">")
            if (lower and v < 0) or (not lower and v > 0):  # x > -inf / x < inf: every finite x and the other inf
                if op in (">=", "<="):
                    return exp.true()
                op, v = (">=", -_DBL_MAX) if lower else ("<=", _DBL_MAX)
            else:  # x >= inf / x <= -inf: only the infinity itself; x > inf / x < -inf: nothing
                if op in (">", "<"):
                    return exp.false()
                op, v = (">", _DBL_MAX) if lower else ("<", -_DBL_MAX)
        cls = {">=": exp.GTE, ">": exp.GT, "<=": exp.LTE, "<": exp.LT}[op]
        return cls(this=self.col(col.name), expression=self.number(v))

    def is_null(self, col):
        return self.col(col.name).is_(self.exp.null())

    def not_null(self, col):
        return self.exp.Not(this=self.is_null(col))

    def interval(self, c, col):
        exp = self.exp
        parts = []
        if not (c.lower == -math.inf and c.lower_closed):
            parts.append(self.compare(col, ">=" if c.lower_closed else ">", c.lower))
        if not (c.upper == math.inf and c.upper_closed):
            parts.append(self.compare(col, "<=" if c.upper_closed else "<", c.upper))
        zero = exp.and_(self.compare(col, ">=", -ZERO_THRESHOLD), self.compare(col, "<=", ZERO_THRESHOLD), copy=False)
        if c.missing:
            inside = exp.and_(*parts, copy=False) if parts else exp.true()
            return exp.or_(self.is_null(col), *([zero] if c.zero_missing else []), exp.paren(inside, copy=False),
                           copy=False)
        return exp.and_(self.not_null(col), *([exp.Not(this=exp.paren(zero, copy=False))] if c.zero_missing else []),
                        *parts, copy=False)

    def category(self, c, col, levels=None):
        exp = self.exp
        if levels is not None:  # the column holds the category values
            vals = [self.literal(levels[k]) for k in c.codes if k < len(levels)]
            inset = exp.In(this=self.col(col.name), expressions=vals) if vals else exp.false()
        else:  # numeric codes, truncated toward zero: trunc(x) == k  <=>  lo (<=|<) x < k + 1
            alts = [exp.and_(self.compare(col, ">=" if closed else ">", lo), self.compare(col, "<", k + 1.0),
                             copy=False)
                    for k, (lo, closed) in zip(c.codes, _code_intervals(c.codes, c.strict_negative))]
            inset = exp.or_(*alts, copy=False) if alts else exp.false()
        if c.negate:
            body = exp.Not(this=exp.paren(inset, copy=False)) if c.codes else exp.true()
        else:
            body = inset
        # a value outside the training categories is missing (predict recodes it to NaN): it matters
        # only where missing and "not in the set" part ways
        unknown = None
        if levels is not None and c.missing != c.negate:
            known = [self.literal(v) for v in levels]
            unknown = exp.Not(this=exp.paren(exp.In(this=self.col(col.name), expressions=known), copy=False)) \
                if known else exp.true()
        if c.missing:
            return exp.or_(self.is_null(col), *([unknown] if unknown is not None else []),
                           exp.and_(self.not_null(col), body, copy=False), copy=False)
        return exp.and_(self.not_null(col), *([exp.Not(this=exp.paren(unknown, copy=False))] if unknown is not None
                                              else []), body, copy=False)

    def rule(self, rule, names, levels):
        exp = self.exp
        if not rule.conditions:
            return exp.true()
        conds = []
        for c in rule.conditions:
            col = self.col(names[c.feature])
            conds.append(self.category(c, col, levels.get(c.feature)) if c.kind == "category"
                         else self.interval(c, col))
        return exp.and_(*conds, copy=False)

    def rules(self, rules, names, levels, labels=None):
        """The OR of the rules, each in parentheses followed by a ``/* rule: <name> */`` comment."""
        exp = self.exp
        if not rules:
            return exp.false()
        parts = []
        for i, r in enumerate(rules):
            e = r.to_expression(self.dialect, names=names, levels=levels)
            e = exp.paren(e, copy=False)
            if labels is not None:
                e.add_comments([f" rule: {labels[i]} "])
            parts.append(e)
        return exp.or_(*parts, copy=False)


    def case(self, rules, names, levels, actions, labels):
        """``CASE WHEN (rule) /* rule: <name> */ THEN '<action>' ... END``: the first WHEN that is TRUE gives the
        row's action (NULL where none is)."""
        exp = self.exp
        out = exp.Case()
        for i, r in enumerate(rules):
            e = r.to_expression(self.dialect, names=names, levels=levels)
            e = exp.paren(e, copy=False)
            e.add_comments([f" rule: {labels[i]} "])
            out = out.when(e, exp.Literal.string(actions[i]), copy=False)
        return out if rules else exp.Null()


def _exact_sqlite_numbers(tree):
    """Rewrite the number literals this Python's sqlite3 reads wrongly as exact products.

    SQLite's own decimal parser (before 3.43) reads a few 16-17 digit literals one ulp
    off (-426164542.6770567 among them), which would move a cut by one float64 step.
    Such a literal becomes ``(CAST(m AS REAL) * 2^k)``: m an odd integer below 2^53, the
    power of two split into integer factors of at most 2^62; every step is exact in IEEE
    arithmetic, so the database gets the very float64 the rule holds.
    """
    import sqlite3

    exp = _exp()
    lits = {float(n.this) for n in tree.find_all(exp.Literal) if not n.is_string}
    vals, wrong = sorted(lits), set()
    con = sqlite3.connect(":memory:")
    try:
        for i in range(0, len(vals), 500):  # SQLite's default limit on result columns is 2000
            chunk = vals[i:i + 500]
            got = con.execute("SELECT " + ", ".join(exact_decimal(v) for v in chunk)).fetchone()
            wrong.update(v for v, g in zip(chunk, got) if g != v)
    finally:
        con.close()
    if not wrong:
        return tree

    def exact(node):
        if not (isinstance(node, exp.Literal) and not node.is_string and float(node.this) in wrong):
            return node
        m, e = math.frexp(float(node.this))  # literals are non-negative (a sign is an exp.Neg around them)
        mi, e = int(m * 2.0 ** 53), e - 53
        while mi % 2 == 0:
            mi, e = mi // 2, e + 1
        out = exp.cast(exp.Literal.number(str(mi)), "REAL")
        while e != 0:
            step = max(-62, min(62, e))
            factor = exp.Literal.number(str(2 ** abs(step)))
            out = exp.Mul(this=out, expression=factor) if step > 0 else exp.Div(this=out, expression=factor)
            e -= step
        return exp.paren(out)

    return tree.transform(exact)


def _table(table):
    """sqlglot table from a name (one identifier, quoted as it is) or a (catalog, db, table) tuple."""
    exp = _exp()
    parts = [table] if isinstance(table, str) else list(table) if isinstance(table, (tuple, list)) else None
    if not parts or len(parts) > 3 or not all(isinstance(p, str) and p for p in parts):
        raise TypeError("table must be a non-empty string (one identifier, used verbatim and quoted) or a tuple "
                        f"of 1-3 non-empty strings (catalog, schema, table), got {table!r}")
    parts = [None] * (3 - len(parts)) + parts
    return exp.table_(parts[2], db=parts[1], catalog=parts[0], quoted=True)


def _dialect(dialect):
    if dialect is None:
        return ""
    if not isinstance(dialect, str):
        raise TypeError(f"dialect must be a string such as {SQL_DIALECTS}, got {type(dialect).__name__}")
    from sqlglot.dialects.dialect import Dialect
    try:
        Dialect.get_or_raise(dialect)
    except ValueError:
        raise ValueError(f"dialect {dialect!r} is not a sqlglot dialect; tested: {', '.join(SQL_DIALECTS)}") from None
    return dialect


_SQLITE_WRITER = []


def _writer(d):
    """The dialect the text is written in: ``d`` itself, except SQLite, whose identifiers are written in backticks.

    SQLite reads a double-quoted name it cannot resolve as a string literal (``"amount" > 0`` on a table without
    ``amount`` compares a text with 0 and flags every row); a backticked unknown name is an error ("no such
    column"), and a known one reads the same column. The dialect is SQLite's in every other respect."""
    if d != "sqlite":
        return d
    if not _SQLITE_WRITER:
        from sqlglot.dialects.sqlite import SQLite

        class _SQLiteBackticks(SQLite):
            class Tokenizer(SQLite.Tokenizer):
                IDENTIFIERS = ["`", '"', ("[", "]")]  # the first one is what names are written in

        _SQLITE_WRITER.append(_SQLiteBackticks())
    return _SQLITE_WRITER[0]


def where_expression(rules, names, levels, dialect=None, pretty=False, labels=None) -> str:
    """The SQL boolean expression (in ``dialect``, parenthesised) that is true on the rows some rule covers."""
    d = _dialect(dialect)
    b = _SQLBuilder(d)
    tree = b.exp.paren(b.rules(rules, names, levels, labels), copy=False)
    if d == "sqlite":
        tree = _exact_sqlite_numbers(tree)
    return tree.sql(dialect=_writer(d), pretty=pretty)


def case_sql(rules, names, levels, actions, labels, table=None, dialect=None, pretty=False) -> str:
    """The rule book's ``CASE`` (in ``dialect``), alone or (``table`` given) as the ``action`` column of
    ``SELECT *, CASE ... END AS action FROM table``."""
    d = _dialect(dialect)
    b = _SQLBuilder(d)
    tree = b.case(rules, names, levels, actions, labels)
    if table is not None:
        tree = b.exp.select("*", b.exp.alias_(tree, "action", quoted=True)).from_(_table(table), copy=False)
    if d == "sqlite":
        tree = _exact_sqlite_numbers(tree)
    return tree.sql(dialect=_writer(d), pretty=pretty)


def select_statement(rules, names, levels, table, dialect=None, pretty=False, labels=None) -> str:
    """``SELECT * FROM table WHERE <rules>`` in ``dialect`` (each rule followed by a comment naming it)."""
    d = _dialect(dialect)
    b = _SQLBuilder(d)
    tree = b.exp.select("*").from_(_table(table), copy=False).where(b.rules(rules, names, levels, labels),
                                                                    copy=False)
    if d == "sqlite":
        tree = _exact_sqlite_numbers(tree)
    return tree.sql(dialect=_writer(d), pretty=pretty)


def _code_intervals(codes, strict_negative=False):
    """trunc(x) == k  <=>  k <= x < k+1 (k >= 1), -1 < x < 1 (k == 0; 0 <= x < 1 if x < 0 is in no set)."""
    out = []
    for k in codes:
        out.append((-1.0, False) if k == 0 and not strict_negative else (float(k), True))
    return out


def _interval_parts(c, col: str):
    parts = []
    if not (c.lower == -math.inf and c.lower_closed):
        parts.append(f"{col} {'>=' if c.lower_closed else '>'} {exact_decimal(c.lower, point=False)}")
    if not (c.upper == math.inf and c.upper_closed):
        parts.append(f"{col} {'<=' if c.upper_closed else '<'} {exact_decimal(c.upper, point=False)}")
    return parts


def _q_ident(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def condition_query(c, name: str, levels=None) -> str:
    col = _q_ident(name)
    isnan = f"({col} != {col})"
    if c.kind == "interval":
        parts = _interval_parts(c, col)
        inside = " and ".join(parts) if parts else "True"
        zero = f"({col} >= {exact_decimal(-ZERO_THRESHOLD)} and {col} <= {exact_decimal(ZERO_THRESHOLD)})"
        if c.missing:
            alts = [isnan] + ([zero] if c.zero_missing else []) + [f"({inside})"]
            return "(" + " or ".join(alts) + ")"
        conj = [f"({col} == {col})"] + ([f"not {zero}"] if c.zero_missing else []) + parts
        return "(" + " and ".join(conj) + ")"
    if levels is not None:
        vals = [levels[k] for k in c.codes if k < len(levels)]
        inset = f"({col}.isin({vals!r}))" if vals else "False"
        # a value outside the training categories is missing, as in predict (see _SQLBuilder.category)
        notnan = f"({col}.isin({list(levels)!r}))"
        isnan = f"(~{notnan})"
    else:
        alts = [f"({col} {'>=' if closed else '>'} {exact_decimal(lo)} and {col} < {exact_decimal(k + 1.0)})"
                for k, (lo, closed) in zip(c.codes, _code_intervals(c.codes, c.strict_negative))]
        inset = "(" + " or ".join(alts) + ")" if alts else "False"
        notnan = f"({col} == {col})"
    body = (f"not {inset}" if c.codes else "True") if c.negate else inset
    if c.missing:
        return f"({isnan} or {body})"
    return f"({notnan} and {body})"


def rule_query(rule, names, levels) -> str:
    """A rule as a pandas query: the ``and`` of its conditions, ``(True)`` for none."""
    if not rule.conditions:
        return "(True)"
    return "(" + " and ".join(condition_query(c, names[c.feature], levels.get(c.feature)
                                              if c.kind == "category" else None)
                              for c in rule.conditions) + ")"
