"""Rule sets as JSON, SQL WHERE clauses and pandas ``DataFrame.query`` strings.

The exported bounds are the exact float64 bounds of the rules (see ``_rule``), so a
database holding the original float64 values selects the rows the library routed,
ties at float32 thresholds included. SQL NULL plays the role of NaN (SQLite stores
NaN as NULL).
"""

from __future__ import annotations

import math

from ._rule import ZERO_THRESHOLD, CategorySet, Interval

__all__ = ["condition_sql", "condition_query"]


def _num(v: float) -> str:
    return repr(float(v))


def _sql_ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _sql_lit(v) -> str:
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return _num(v)


def _interval_parts(c: Interval, col: str, AND: str, ge=">=", le="<="):
    parts = []
    if not (c.lower == -math.inf and c.lower_closed):
        parts.append(f"{col} {ge if c.lower_closed else '>'} {_num(c.lower)}")
    if not (c.upper == math.inf and c.upper_closed):
        parts.append(f"{col} {le if c.upper_closed else '<'} {_num(c.upper)}")
    return parts


def _code_intervals(codes, strict_negative=False):
    """trunc(x) == k  <=>  k <= x < k+1 (k >= 1), -1 < x < 1 (k == 0; 0 <= x < 1 if x < 0 is in no set)."""
    out = []
    for k in codes:
        out.append((-1.0, False) if k == 0 and not strict_negative else (float(k), True))
    return out


def condition_sql(c, name: str, levels=None) -> str:
    col = _sql_ident(name)
    if isinstance(c, Interval):
        parts = _interval_parts(c, col, "AND")
        inside = " AND ".join(parts) if parts else "1 = 1"
        zero = f"({col} >= {_num(-ZERO_THRESHOLD)} AND {col} <= {_num(ZERO_THRESHOLD)})"
        if c.missing:
            alts = [f"{col} IS NULL"] + ([zero] if c.zero_missing else []) + [f"({inside})"]
            return "(" + " OR ".join(alts) + ")"
        conj = [f"{col} IS NOT NULL"] + ([f"NOT {zero}"] if c.zero_missing else []) + parts
        return "(" + " AND ".join(conj) + ")"
    if levels is not None:  # the column holds category values
        inset = f"{col} IN ({', '.join(_sql_lit(levels[k]) for k in c.codes if k < len(levels))})" \
            if c.codes else "1 = 0"
    else:  # numeric codes, truncated toward zero
        alts = []
        for k, (lo, closed) in zip(c.codes, _code_intervals(c.codes, c.strict_negative)):
            alts.append(f"({col} {'>=' if closed else '>'} {_num(lo)} AND {col} < {_num(k + 1.0)})")
        inset = "(" + " OR ".join(alts) + ")" if alts else "1 = 0"
    if c.negate:
        body = f"NOT {inset}" if c.codes else "1 = 1"
    else:
        body = inset
    if c.missing:
        return f"({col} IS NULL OR ({col} IS NOT NULL AND {body}))"
    return f"({col} IS NOT NULL AND {body})"


def _q_ident(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def condition_query(c, name: str, levels=None) -> str:
    col = _q_ident(name)
    isnan = f"({col} != {col})"
    if isinstance(c, Interval):
        parts = _interval_parts(c, col, "and")
        inside = " and ".join(parts) if parts else "True"
        zero = f"({col} >= {_num(-ZERO_THRESHOLD)} and {col} <= {_num(ZERO_THRESHOLD)})"
        if c.missing:
            alts = [isnan] + ([zero] if c.zero_missing else []) + [f"({inside})"]
            return "(" + " or ".join(alts) + ")"
        conj = [f"({col} == {col})"] + ([f"not {zero}"] if c.zero_missing else []) + parts
        return "(" + " and ".join(conj) + ")"
    if levels is not None:
        vals = [levels[k] for k in c.codes if k < len(levels)]
        inset = f"({col}.isin({vals!r}))" if vals else "False"
        notnan = f"({col}.notna())"
        isnan = f"({col}.isna())"
    else:
        alts = [f"({col} {'>=' if closed else '>'} {_num(lo)} and {col} < {_num(k + 1.0)})"
                for k, (lo, closed) in zip(c.codes, _code_intervals(c.codes, c.strict_negative))]
        inset = "(" + " or ".join(alts) + ")" if alts else "False"
        notnan = f"({col} == {col})"
    body = (f"not {inset}" if c.codes else "True") if c.negate else inset
    if c.missing:
        return f"({isnan} or {body})"
    return f"({notnan} and {body})"


def _rule_expr(rule, names, levels, condition, conj, true) -> str:
    """The conjunction ``conj`` of a rule's conditions rendered by ``condition``; ``(true)`` for no condition."""
    if not rule.conditions:
        return f"({true})"
    return "(" + f" {conj} ".join(condition(c, names[c.feature], levels.get(c.feature)
                                            if isinstance(c, CategorySet) else None)
                                  for c in rule.conditions) + ")"


def rule_sql(rule, names, levels) -> str:
    return _rule_expr(rule, names, levels, condition_sql, "AND", "1 = 1")


def rule_query(rule, names, levels) -> str:
    return _rule_expr(rule, names, levels, condition_query, "and", "True")
