"""The JSON schema of a rule set (``RuleSet.to_json`` / ``from_json``), checked field by field.

A rule set is an object::

    {"format": "csboost_plugins.rules.RuleSet/1",       # optional; if present exactly this
     "feature_names": null | [str | int, ...],           # optional; every feature index must name one
     "last_rule_probability": number in [0, 1],          # optional, default 1
     "selection": null | {...},                          # optional, statistics (not checked further)
     "missing_columns": null | [str, ...],               # optional, columns with missing values in the fit data
     "rules": [rule, ...]}                               # required
    rule = {"name": null | str,                           # optional (induced rules get riff_1, ...)
            "conditions": [condition, ...],              # required
            "sources": null | [{...}, ...], "value": null | number,
            "categories": {"<feature index>": [value, ...]}}       # all optional
    condition = {"kind": "interval", "feature": int >= 0,
                 "lower": null | finite number, "upper": null | finite number,   # null: unbounded
                 "lower_closed": bool, "upper_closed": bool, "missing": bool,
                 "zero_missing": bool (optional), "lower_text": null | str, "upper_text": null | str}
              | {"kind": "category", "feature": int >= 0, "codes": [int, ...],
                 "negate": bool, "missing": bool, "strict_negative": bool (optional)}
    or a rule read from SQL (``SQLRule.to_dict``):
         {"kind": "sql", "name": str, "dialect": null | str, "tree": [op, ...],
          "literals": [number, ...], "literal_is_int": [bool, ...], "sql": str (for reading only)}

Wrong types raise ``TypeError``, wrong values and missing fields ``ValueError``; both name
the field by its path (``rules[3].conditions[0].feature``).
"""

from __future__ import annotations

import math

from ._rule import check_feature_index

__all__ = ["FORMAT", "check_ruleset_dict"]

FORMAT = "csboost_plugins.rules.RuleSet/1"


def _kind(v) -> str:
    return "null" if v is None else type(v).__name__


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _get(d: dict, key: str, where: str, required: bool = True, default=None):
    if key not in d:
        if required:
            raise ValueError(f"rule set JSON: {where} lacks the required field {key!r}")
        return default
    return d[key]


def _expect(ok: bool, where: str, what: str, v):
    if not ok:
        raise TypeError(f"rule set JSON: {where} must be {what}, got {_kind(v)} {v!r:.80}")


def _check_bool(d, key, where, required=True):
    v = _get(d, key, where, required, False)
    _expect(isinstance(v, bool), f"{where}.{key}", "true or false", v)


def _check_condition(c, where: str, n_names: int | None):
    _expect(isinstance(c, dict), where, "an object", c)
    kind = _get(c, "kind", where)
    if kind not in ("interval", "category"):
        raise ValueError(f"rule set JSON: {where}.kind must be 'interval' or 'category', got {kind!r:.80}")
    f = _get(c, "feature", where)
    check_feature_index(f, f"rule set JSON: {where}.feature")
    if n_names is not None and f >= n_names:
        raise ValueError(f"rule set JSON: {where}.feature is {f} but feature_names has {n_names} names")
    if kind == "interval":
        for key in ("lower", "upper"):
            v = _get(c, key, where)
            _expect(v is None or _is_num(v), f"{where}.{key}", "a number or null", v)
            if v is not None and not math.isfinite(v):
                raise ValueError(f"rule set JSON: {where}.{key} must be finite (null for unbounded), got {v!r}")
        for key in ("lower_closed", "upper_closed", "missing"):
            _check_bool(c, key, where)
        _check_bool(c, "zero_missing", where, required=False)
        for key in ("lower_text", "upper_text"):
            v = c.get(key)
            _expect(v is None or isinstance(v, str), f"{where}.{key}", "a string or null", v)
    else:
        codes = _get(c, "codes", where)
        _expect(isinstance(codes, list), f"{where}.codes", "a list of integers", codes)
        for k, v in enumerate(codes):
            _expect(_is_int(v) and abs(v) < 2 ** 53, f"{where}.codes[{k}]", "an integer below 2**53", v)
        for key in ("negate", "missing"):
            _check_bool(c, key, where)
        _check_bool(c, "strict_negative", where, required=False)


def _check_rule(r, where: str, n_names: int | None):
    _expect(isinstance(r, dict), where, "an object", r)
    name = r.get("name")
    _expect(name is None or isinstance(name, str), f"{where}.name", "a string or null", name)
    if r.get("kind") == "sql":  # a rule read from SQL: its tree is checked node by node by SQLRule.from_dict
        from ._sqlrule import SQLRule

        SQLRule.from_dict(r)
        return
    conds = _get(r, "conditions", where)
    _expect(isinstance(conds, list), f"{where}.conditions", "a list", conds)
    for k, c in enumerate(conds):
        _check_condition(c, f"{where}.conditions[{k}]", n_names)
    sources = r.get("sources")
    _expect(sources is None or (isinstance(sources, list) and all(isinstance(s, dict) for s in sources)),
            f"{where}.sources", "a list of objects or null", sources)
    value = r.get("value")
    _expect(value is None or _is_num(value), f"{where}.value", "a number or null", value)
    cats = r.get("categories", {})
    _expect(isinstance(cats, dict), f"{where}.categories", "an object", cats)
    for key, v in cats.items():
        if not (isinstance(key, str) and key.isdigit()):
            raise ValueError(f"rule set JSON: {where}.categories keys must be feature indices, got {key!r:.80}")
        _expect(isinstance(v, list), f"{where}.categories[{key!r}]", "a list of category values", v)


def check_ruleset_dict(d) -> None:
    """Raise ``TypeError`` / ``ValueError`` naming the field unless ``d`` follows the module's schema."""
    _expect(isinstance(d, dict), "the top level", "an object", d)
    fmt = d.get("format", FORMAT)
    if fmt != FORMAT:
        raise ValueError(f"rule set JSON: format must be {FORMAT!r}, got {fmt!r:.80}")
    names = d.get("feature_names")
    _expect(names is None or (isinstance(names, list) and all(isinstance(n, str) or _is_int(n) for n in names)),
            "feature_names", "a list of strings or null", names)
    rho = d.get("last_rule_probability", 1.0)
    _expect(_is_num(rho), "last_rule_probability", "a number", rho)
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"rule set JSON: last_rule_probability must lie in [0, 1], got {rho!r}")
    sel = d.get("selection")
    _expect(sel is None or isinstance(sel, dict), "selection", "an object or null", sel)
    mc = d.get("missing_columns")
    _expect(mc is None or (isinstance(mc, list) and all(isinstance(n, str) for n in mc)),
            "missing_columns", "a list of strings or null", mc)
    rules = _get(d, "rules", "the top level")
    _expect(isinstance(rules, list), "rules", "a list", rules)
    n_names = None if names is None else len(names)
    for k, r in enumerate(rules):
        _check_rule(r, f"rules[{k}]", n_names)
