"""The JSON schema of a rule set (``RuleSet.to_json`` / ``from_json``), checked field by field.

A rule set is an object::

    {"format": "csboost_plugins.rules.RuleSet/1",       # optional; if present exactly this
     "feature_names": null | [str | int, ...],           # optional; every feature index must name one
     "last_rule_probability": number in [0, 1],          # optional, default 1
     "selection": null | {...},                          # optional, statistics (not checked further,
                                                         # except the row positions below)
     "missing_columns": null | [str, ...],               # optional, columns with missing values in the fit data
     "rules": [rule, ...]}                               # required
    rule = {"kind": "tree",                               # optional (the default); other kinds below
            "name": null | str,                           # optional (induced rules get riff_1, ...)
            "action": "allow" | "block" | "review",      # optional, default "review" (any kind of rule)
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
    or a rule of any other registered kind (``_kind.register_kind``): {"kind": its tag, ...}, checked by
    the kind's ``check_dict`` and ``from_dict``. An unknown tag is a ValueError naming ``rules[k].kind``.

Row positions in ``selection`` (``selection_index``, ``retune_index``, ``induction_index``:
sorted positions of the rows a step read, a third of the rows each) are written as the rows'
boolean mask, bit-packed (``numpy.packbits``, first row in the high bit), zlib-compressed and
base64-encoded::

    {"row_positions": "packbits+zlib+base64", "length": L, "count": k, "data": str}

``L`` is the mask's length (last position + 1) and ``k`` the number of positions. A random
third of 1,000,000 rows takes 155 kB this way against 2.6 MB as a JSON list of integers; a
plain list (older files, or positions not strictly increasing) is read as well. Both read back
as int64 arrays.

Wrong types raise ``TypeError``, wrong values and missing fields ``ValueError``; both name
the field by its path (``rules[3].conditions[0].feature``).
"""

from __future__ import annotations

import base64
import binascii
import math
import zlib

import numpy as np

from ._kind import DEFAULT_KIND, rule_kind
from ._basics import check_feature_index

__all__ = ["FORMAT", "ROW_POSITION_KEYS", "check_ruleset_dict", "check_tree_rule", "decode_row_positions",
           "encode_row_positions"]

FORMAT = "csboost_plugins.rules.RuleSet/1"
#: ``selection`` keys holding row positions, written as a compressed mask (:func:`encode_row_positions`)
ROW_POSITION_KEYS = frozenset({"selection_index", "retune_index", "induction_index"})
ROW_POSITIONS = "packbits+zlib+base64"


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
    action = r.get("action", "review")
    if action not in ("allow", "block", "review"):
        raise ValueError(f"rule set JSON: {where}.action must be 'allow', 'block' or 'review', got {action!r:.80}")
    # the kind checks its own fields (an SQL rule's are checked as SQLRule.from_dict builds it)
    rule_kind(r.get("kind", DEFAULT_KIND), f"{where}.kind").check_dict(r, where, n_names)


def check_tree_rule(r: dict, where: str, n_names: int | None):
    """Check the fields of an induced rule (:class:`._rule.Rule`, kind ``"tree"``) in a set's JSON."""
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
    """Raise ``TypeError`` / ``ValueError`` naming the field unless ``d`` follows the module's schema (an SQL rule's
    fields past its name are checked as :meth:`SQLRule.from_dict` builds it)."""
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


# ------------------------------------------------------------------------------------------ row positions
def encode_row_positions(v):
    """JSON form of a ``selection`` row-position array: the compressed mask (module doc) when ``v`` is
    strictly increasing non-negative integers, else ``v`` as a plain list (or unchanged when not an array).

    The mask costs ``L / 8`` bytes before compression (``L`` = last position + 1), 4/3 of that in base64;
    zlib brings a random third of the rows to ~0.93 of it and sparser or contiguous positions far lower,
    where a JSON list costs ~7 characters per position."""
    if not isinstance(v, (list, tuple, np.ndarray)):
        return v
    a = np.asarray(v)
    if a.ndim != 1 or not (a.dtype.kind in "iu" or (a.size == 0 and not isinstance(v, np.ndarray))):
        return a.tolist() if isinstance(v, np.ndarray) else v
    a = a.astype(np.int64)
    if a.size and (a[0] < 0 or (a.size > 1 and np.any(np.diff(a) <= 0))):
        return a.tolist()  # not a set of positions in order: kept exactly as a list
    length = int(a[-1]) + 1 if a.size else 0
    mask = np.zeros(length, dtype=bool)
    mask[a] = True
    data = base64.b64encode(zlib.compress(np.packbits(mask).tobytes(), 6)).decode("ascii")
    return {"row_positions": ROW_POSITIONS, "length": length, "count": int(a.size), "data": data}


def decode_row_positions(v, where: str):
    """Inverse of :func:`encode_row_positions`: int64 positions from the mask object or a list of integers
    (``None`` and other values unchanged). TypeError / ValueError naming ``where`` when the object is broken."""
    if isinstance(v, list):
        if not all(_is_int(x) for x in v):
            return v  # not positions (statistics under the same name): as written
        if any(abs(x) >= 2 ** 63 for x in v):
            raise ValueError(f"rule set JSON: {where} holds a row position beyond int64")
        return np.asarray(v, dtype=np.int64)
    if not isinstance(v, dict):
        return v
    if v.get("row_positions") != ROW_POSITIONS:
        raise ValueError(f"rule set JSON: {where}.row_positions must be {ROW_POSITIONS!r}, got "
                         f"{v.get('row_positions')!r:.80}")
    length, count, data = _get(v, "length", where), _get(v, "count", where), _get(v, "data", where)
    _expect(_is_int(length) and length >= 0, f"{where}.length", "a non-negative integer", length)
    _expect(_is_int(count) and count >= 0, f"{where}.count", "a non-negative integer", count)
    _expect(isinstance(data, str), f"{where}.data", "a base64 string", data)
    n_bytes = (length + 7) // 8
    try:
        z = zlib.decompressobj()
        raw = z.decompress(base64.b64decode(data.encode("ascii"), validate=True), n_bytes + 1)
    except (binascii.Error, UnicodeEncodeError, ValueError, zlib.error) as exc:
        raise ValueError(f"rule set JSON: {where}.data is not a base64 zlib stream: {exc}") from None
    if len(raw) != n_bytes or not z.eof or z.unused_data:
        raise ValueError(f"rule set JSON: {where}.data holds {len(raw)}+ bytes, not the {n_bytes} of a "
                         f"{length}-row mask")
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8))
    out = np.flatnonzero(bits[:length]).astype(np.int64)
    if bits[length:].any() or len(out) != count:
        raise ValueError(f"rule set JSON: {where} does not hold {count} positions below {length} (the mask and "
                         "its counts disagree)")
    return out
