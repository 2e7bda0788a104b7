"""Text leaves in the bit-packed engine: ``col = 'a'``, ``col <> 'a'`` and ``col IN ('a', ...)`` on a column of text
(object, with or without NULLs, a category, pandas' string dtypes) become numeric atoms on the column's codes of the
book's literals (an object column: one hash lookup per row, no factorization); values the reference refuses keep the
reference's reading.
Masks are compared with the reference evaluator (``SQLRule.mask``) rule by rule and with a row-by-row brute force;
errors with the reference's errors.
"""

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet
from csboost_plugins.rules import _engine
from csboost_plugins.rules._sqlrule import Columns

pytestmark = pytest.mark.boundscheck  # the kernels combine the text atoms' masks

WORDS = ["web", "pos", "moto", "atm", "Web", ""]


def _reference(rs, X):
    cols = Columns(X, rs.feature_names)
    return np.column_stack([r.mask(X, columns=cols) for r in rs])


def _column(rng, n, kind):
    """n text values of a kind of column: plain str, str and np.str_, with NULLs of several kinds, a category,
    pandas' string dtypes."""
    v = rng.choice(WORDS, n)
    if kind == "object":
        return pd.Series([str(x) for x in v], dtype=object)
    if kind == "np_str":
        return pd.Series([np.str_(x) if i % 3 else str(x) for i, x in enumerate(v)], dtype=object)
    if kind == "nulls":
        nulls = [None, np.nan, pd.NA, np.float32("nan")]
        return pd.Series([nulls[i % 4] if rng.random() < 0.1 else str(x) for i, x in enumerate(v)], dtype=object)
    if kind == "category":
        return pd.Series(pd.Categorical(v))
    if kind.startswith("nulls "):  # NULLs in a category or a pandas string dtype
        out = _column(rng, n, "nulls")
        if kind == "nulls category":
            return pd.Series(pd.Categorical(out))
        if "arrow" in kind:  # older pyarrow refuses a numpy float NaN as a NULL of text: None
            out = out.where(out.map(lambda v: isinstance(v, str)), None)
        return out.astype(_dtype(kind[6:]))
    if kind == "chunked":  # an Arrow column of several chunks
        pa = pytest.importorskip("pyarrow")
        cut = n // 2
        chunks = pa.chunked_array([pa.array([str(x) for x in v[:cut]], pa.string()),
                                   pa.array([str(x) for x in v[cut:]], pa.string())])
        return pd.Series(pd.arrays.ArrowExtensionArray(chunks))
    return pd.Series(v).astype(_dtype(kind))  # "string" (default storage) and pandas 3's "str"


def _dtype(kind):
    """A pandas dtype by name; ``arrow`` / ``large arrow``: pd.ArrowDtype of pa.string() / pa.large_string()."""
    if kind in ("arrow", "large arrow", "string pyarrow"):
        pa = pytest.importorskip("pyarrow")
        return {"arrow": pd.ArrowDtype(pa.string()), "large arrow": pd.ArrowDtype(pa.large_string()),
                "string pyarrow": pd.StringDtype("pyarrow")}[kind]
    return pd.StringDtype("python") if kind == "string python" else kind


def _leaf(rng):
    w = lambda: repr(str(rng.choice(WORDS + ["zzz"])))  # noqa: E731  ('zzz' is in no row)
    lits = lambda: ", ".join(w() for _ in range(rng.integers(1, 4)))  # noqa: E731
    return [f"t = {w()}", f"{w()} = t", f"t <> {w()}", f"t IN ({lits()})", f"t NOT IN ({lits()})",
            f"t IN ({lits()}, NULL)", f"t NOT IN ({lits()}, NULL)", f"u = {w()}", f"u IN ({lits()})",
            f"LOWER(t) = {w()}", "t LIKE 'w%'", f"t < {w()}", "t IS NULL", f"a > {rng.normal():.1f}"
            ][rng.integers(0, 14)]


def _book(rng, k):
    rules = {}
    for i in range(k):
        parts = [_leaf(rng) for _ in range(rng.integers(1, 4))]
        glue = rng.choice([" AND ", " OR "])
        text = glue.join(parts)
        rules[f"r{i}"] = f"NOT ({text})" if rng.random() < 0.3 else text
    return RuleSet.from_sql(rules)


@pytest.mark.parametrize("kind", ["object", "np_str", "nulls", "category", "string", "str", "string python",
                                  "string pyarrow", "arrow", "large arrow", "chunked", "nulls category",
                                  "nulls str", "nulls string python", "nulls string pyarrow", "nulls arrow",
                                  "nulls large arrow"])
@pytest.mark.parametrize("n", [1, 70, 3000])
def test_text_leaves_equal_the_reference_rule_by_rule(kind, n):
    if kind == "str" and not hasattr(pd, "StringDtype"):
        pytest.skip("no pandas string dtype")
    rng = np.random.default_rng(n + len(kind))
    X = pd.DataFrame({"a": rng.normal(size=n), "t": _column(rng, n, kind), "u": _column(rng, n, "object")})
    for _ in range(3):
        rs = _book(rng, 25)
        np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _reference(rs, X))


def _brute(texts, values):
    """Row by row in Python, on a column without NULL: =, <>, IN and NOT IN (a NULL in the list: UNKNOWN
    where the value is off the list)."""
    out = []
    for text in texts:
        rows = []
        for v in values:
            if " NOT IN " in text or " IN " in text:
                inner = text[text.index("(") + 1:-1].split(", ")
                hit = v in [s.strip("'") for s in inner if s != "NULL"]
                unknown = "NULL" in inner and not hit
                rows.append(not unknown and (hit != (" NOT IN " in text)))
            elif " <> " in text:
                rows.append(v != text.split(" <> ")[1].strip("'"))
            else:
                rows.append(v == text.split(" = ")[1].strip("'"))
        out.append(rows)
    return np.array(out, dtype=bool).T


def test_text_leaves_against_a_row_by_row_brute_force():
    rng = np.random.default_rng(5)
    values = [str(x) for x in rng.choice(WORDS, 500)]
    X = pd.DataFrame({"t": pd.Series(values, dtype=object)})
    texts = ["t = 'web'", "t <> 'pos'", "t = ''", "t IN ('web', 'moto')", "t NOT IN ('atm', 'zzz')",
             "t IN ('web', NULL)", "t NOT IN ('web', NULL)", "t = 'zzz'", "t IN ('Web', 'web', 'web')"]
    rs = RuleSet.from_sql({f"r{i}": t for i, t in enumerate(texts)})
    np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _brute(texts, values))


def test_an_object_column_of_text_is_looked_up_not_factorized():
    """The engine's text path is taken (the column never enters the reference's Columns), and its codes are the
    literals' positions."""
    X = pd.DataFrame({"t": pd.Series(["pos", "web", "atm", "web"], dtype=object), "a": [1.0, 2.0, 3.0, 4.0]})
    rs = RuleSet.from_sql({"r0": "t IN ('web', 'moto') AND a > 1", "r1": "NOT (t = 'pos')", "r2": "'web' = t"})
    literals = _engine._text_literals(rs.rules)
    assert literals == ["web", "moto", "pos"]
    comp = _engine._Compiler(Columns(X, rs.feature_names), literals)
    for r, rule in enumerate(rs.rules):
        comp.add_rule(r, rule)
    (pos, codes, read, holds_gil), = comp.readers  # the codes are read while the kernels run
    assert holds_gil  # an object column's lookup: in the calling thread, ahead of the kernels
    assert pos == 0 and codes is comp.arrays[comp.text_codes[0]]
    np.testing.assert_array_equal(read(0, 4), [2, 0, -1, 0])
    np.testing.assert_array_equal(read(1, 3), [0, -1])
    assert 0 not in comp.cols.cache  # no factorization of t
    assert not comp.pre_t  # the kernels compute the text atoms on the codes, no mask is precomputed
    text_atoms = [a for a in comp.atoms if a[2] == comp.text_codes[0]]
    assert len(text_atoms) == 3  # 'web' = t and t = 'web' would be one atom; here three distinct leaves
    np.testing.assert_array_equal(RuleSet.from_sql({"x": "t = 'web'", "y": "'web' = t"}).coverage(X)[:, 0],
                                  [False, True, False, True])


@pytest.mark.parametrize("values,rule", [
    (["web", 1.5, "pos"], "t = 'web'"),  # a number in a text column
    (["web", b"pos"], "t IN ('web')"),  # bytes
    (["web", "pos"], "t IN (1, 2)"),  # IN of numbers on text
    (["web", "pos"], "t > 1"),  # a number against text
])
def test_errors_are_the_reference_errors(values, rule):
    X = pd.DataFrame({"t": pd.Series(values, dtype=object)})
    rs = RuleSet.from_sql({"ok": "t = 'web'", "bad": rule})
    with pytest.raises(ValueError) as ref:
        _reference(rs, X)
    with pytest.raises(ValueError) as eng:
        _engine.rule_bits(rs, X)
    assert str(eng.value) == str(ref.value)  # the same error, naming the same rule


def test_a_text_literal_against_a_numeric_column_is_the_reference_error():
    X = pd.DataFrame({"a": [1.0, 2.0], "t": pd.Series(["x", "y"], dtype=object)})
    rs = RuleSet.from_sql({"ok": "t = 'x'", "bad": "a = 'web'"})
    with pytest.raises(ValueError) as ref:
        _reference(rs, X)
    with pytest.raises(ValueError, match="bad") as eng:
        _engine.rule_bits(rs, X)
    assert str(eng.value) == str(ref.value)


def test_the_hash_table_and_the_public_lookup_give_the_same_positions():
    rng = np.random.default_rng(9)
    values = np.array([str(x) for x in rng.choice(WORDS + ["zzz", "web "], 2000)], dtype=object)
    values[::7] = [np.str_(v) for v in values[::7]]
    keys = ["web", "", "zzz", "Web", "nowhere"]
    brute = np.array([keys.index(v) if v in keys else -1 for v in values.tolist()])
    for hashtable in (True, False):
        np.testing.assert_array_equal(_engine._positions(values, keys, hashtable), brute)


def _long_frame(n, rng):
    return pd.DataFrame({"a": rng.normal(size=n), "t": pd.Series([str(x) for x in rng.choice(WORDS, n)], dtype=object),
                         "u": pd.Series([str(x) for x in rng.choice(WORDS, n)], dtype=object)})


@pytest.fixture
def two_threads(monkeypatch):
    """The text columns are read in chunks ahead of the kernels (as on a machine with two cores or more)."""
    monkeypatch.setattr(_engine, "_n_threads", lambda: 2)


@pytest.mark.parametrize("late", [None, "null", "nan", "pd.NA"])
def test_text_read_in_chunks_ahead_of_the_kernels_equals_the_reference(two_threads, late):
    rng = np.random.default_rng(11)
    n = 5 * _engine.BLOCK_WORDS * 64 + 77  # several chunks, the last one short
    X = _long_frame(n, rng)
    if late is not None:  # a NULL in the last chunk only
        X.loc[n - 3, "t"] = {"null": None, "nan": np.nan, "pd.NA": pd.NA}[late]
    for _ in range(2):
        rs = _book(rng, 20)
        np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _reference(rs, X))


@pytest.mark.parametrize("bad", [1.5, b"web", 7])
def test_a_value_not_text_in_a_late_chunk_gives_the_reference_error(two_threads, bad):
    rng = np.random.default_rng(12)
    n = 4 * _engine.BLOCK_WORDS * 64
    X = _long_frame(n, rng)
    X.loc[n - 10, "t"] = bad
    rs = RuleSet.from_sql({"ok": "u = 'web'", "first": "t IN ('web', 'pos') AND a > 0", "second": "t <> 'atm'"})
    with pytest.raises(ValueError) as ref:
        _reference(rs, X)
    with pytest.raises(ValueError) as eng:
        _engine.rule_bits(rs, X)
    assert str(eng.value) == str(ref.value) and "'first'" in str(eng.value)


def test_an_earlier_rules_text_error_comes_before_a_later_rules_error():
    """The reference reads rule by rule: a text column holding a number fails at the first rule reading it, before
    a later rule's own error (a text literal against a numeric column)."""
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "t": pd.Series(["web", 2.5, "pos"], dtype=object)})
    rs = RuleSet.from_sql({"text": "t = 'web'", "numeric": "a = 'web'"})
    with pytest.raises(ValueError) as ref:
        _reference(rs, X)
    with pytest.raises(ValueError) as eng:
        _engine.rule_bits(rs, X)
    assert str(eng.value) == str(ref.value) and "'text'" in str(eng.value)


def test_integer_columns_converted_in_chunks_ahead_of_the_kernels_equal_the_reference(two_threads):
    rng = np.random.default_rng(13)
    n = 5 * _engine.BLOCK_WORDS * 64 + 5
    X = _long_frame(n, rng).assign(k=rng.integers(-20, 20, n), m=rng.integers(0, 3, n))
    rs = RuleSet.from_sql({"lit": "k > 3", "in": "m IN (0, 2) AND t = 'web'", "cols": "k < m OR a > 1",
                           "expr": "k * 2 + m > 7", "between": "NOT (k BETWEEN -5 AND 5)", "nul": "k IS NULL"})
    comp = _engine._Compiler(Columns(X, rs.feature_names), _engine._text_literals(rs.rules))
    for r, rule in enumerate(rs.rules):
        comp.add_rule(r, rule)
    assert sorted(pos for pos, _, _, _ in comp.readers) == [1, 3, 4]  # t (text), k and m (integers) read ahead
    np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _reference(rs, X))


@pytest.mark.parametrize("row", [0, -1])
def test_an_integer_beyond_2_53_in_any_chunk_gives_the_reference_error(two_threads, row):
    rng = np.random.default_rng(14)
    n = 4 * _engine.BLOCK_WORDS * 64 + 9
    X = _long_frame(n, rng).assign(k=rng.integers(-20, 20, n))
    X.loc[X.index[row], "k"] = 2**53 + 1
    rs = RuleSet.from_sql({"ok": "a > 0", "first": "k > 3 AND t = 'web'", "second": "k < 0"})
    with pytest.raises(ValueError) as ref:
        _reference(rs, X)
    with pytest.raises(ValueError) as eng:
        _engine.rule_bits(rs, X)
    assert str(eng.value) == str(ref.value) and "'first'" in str(eng.value) and "2**53" in str(eng.value)
    X.loc[X.index[row], "k"] = 2**53  # float64 holds it exactly
    np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _reference(rs, X))


@pytest.mark.parametrize("known", [_engine.KNOWN_TEXTS, 5])
def test_texts_first_met_in_a_late_chunk_and_many_distinct_texts_equal_the_reference(two_threads, monkeypatch, known):
    """Texts met off the literals join the reader's table (at most KNOWN_TEXTS): a text first met in the last
    chunk, NULLs after it, and a column of thousands of distinct texts read as the reference reads them."""
    monkeypatch.setattr(_engine, "KNOWN_TEXTS", known)
    rng = np.random.default_rng(15)
    n = 5 * _engine.BLOCK_WORDS * 64 + 3
    X = _long_frame(n, rng)
    X.loc[n - 2, "t"], X.loc[n - 1, "t"] = "late", None
    X["u"] = pd.Series([f"m{i}" for i in rng.integers(0, 5000, n)], dtype=object)  # thousands of distinct texts
    rs = RuleSet.from_sql({"a": "t <> 'web'", "b": "t NOT IN ('pos', 'atm')", "c": "u IN ('m1', 'm2') OR t = 'late'",
                           "d": "NOT (u = 'm7') AND t IN ('web', NULL)"})
    np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _reference(rs, X))


# ------------------------------------------------------------------------ the compiled reader of object columns
TEXTS = ["web", "pos", "", "a" * 8, "a" * 9, "a\x00", "a\x00\x00", "café", "cafe", "ça", "日本", "日本語の", "😀x",
         "x😀", "\x00", "ÿ" * 8, "ÿ" * 4, "long text beyond eight bytes"]
compiled = pytest.mark.skipif(_engine._text_codes is None,
                              reason="the compiled reader is built by `pip install -e .` (setup.py)")


def _brute_codes(values, keys):
    """Each value's position among keys, -1 for other text, NaN for None and a float NaN (the reference's NULL)."""
    return np.array([np.nan if v is None or (isinstance(v, float) and v != v) else
                     (keys.index(v) if v in keys else -1) for v in values.tolist()], dtype=np.float64)


@compiled
@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_reader_equals_a_brute_force_on_text_of_every_width(seed):
    """ASCII, Latin-1, two- and four-byte text, NUL characters, texts of 0-28 bytes (around the 8-byte word the
    reader compares at once), None and NaN; strings shared and made row by row."""
    rng = np.random.default_rng(seed)
    pool = TEXTS + [None, np.nan]
    keys = [TEXTS[i] for i in rng.choice(len(TEXTS), rng.integers(1, 10), replace=False)]
    values = np.array([("" + v + "!")[:-1] if isinstance(v, str) and rng.random() < 0.5 else v  # a new object
                       for v in (pool[i] for i in rng.integers(0, len(pool), 3000))], dtype=object)
    reader = _engine._ObjectCodes(values, keys)
    assert reader.compiled is not None
    out = np.empty(len(values))
    assert _engine._text_codes.codes(values.ctypes.data, 0, len(values), tuple(keys), out.ctypes.data)
    np.testing.assert_array_equal(out, _brute_codes(values, keys))
    np.testing.assert_array_equal(reader(100, 2900), _brute_codes(values[100:2900], keys))
    np.testing.assert_array_equal(reader.lookup(values), _brute_codes(values, keys))  # the hash lookup agrees


@compiled
@pytest.mark.parametrize("odd", [np.str_("web"), pd.NA, 1.5, np.inf, 7, b"web", np.float32("nan"), ("web",)])
def test_the_compiled_reader_leaves_any_other_value_to_the_hash_lookup(odd):
    """A value that is not a str, None or a float NaN stops the compiled reader; the chunk is read by the hash lookup,
    which gives the same codes, or None (the reference then reads the column, with its errors)."""
    values = np.array(["web", None, "pos", odd, "atm"], dtype=object)
    out = np.empty(5)
    assert not _engine._text_codes.codes(values.ctypes.data, 0, 5, ("web", "pos"), out.ctypes.data)
    assert _engine._text_codes.codes(values.ctypes.data, 0, 3, ("web", "pos"), out.ctypes.data)
    X = pd.DataFrame({"t": pd.Series(values, dtype=object)})
    rs = RuleSet.from_sql({"r": "t IN ('web', 'pos')", "s": "NOT (t = 'atm')"})
    try:
        ref = _reference(rs, X)
    except ValueError as exc:
        with pytest.raises(ValueError) as eng:
            _engine.rule_bits(rs, X)
        assert str(eng.value) == str(exc)
    else:
        np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), ref)


@compiled
def test_the_compiled_reader_refuses_bad_arguments():
    values = np.array(["web", "pos"], dtype=object)
    out = np.empty(2)
    with pytest.raises(ValueError, match="row range"):
        _engine._text_codes.codes(values.ctypes.data, 1, 0, ("web",), out.ctypes.data)
    with pytest.raises(ValueError, match="row range"):
        _engine._text_codes.codes(values.ctypes.data, -1, 1, ("web",), out.ctypes.data)
    with pytest.raises(ValueError, match="address"):
        _engine._text_codes.codes(0, 0, 2, ("web",), out.ctypes.data)
    with pytest.raises(TypeError, match="literals must be str"):
        _engine._text_codes.codes(values.ctypes.data, 0, 2, ("web", np.str_("pos")), out.ctypes.data)
    with pytest.raises(ValueError, match="too many literals"):
        _engine._text_codes.codes(values.ctypes.data, 0, 2, tuple(f"k{i}" for i in range(65)), out.ctypes.data)
    with pytest.raises(ValueError, match="rows 0 .. 3"):
        _engine._ObjectCodes(values, ["web"])(0, 3)  # the reader checks the range before C sees it


@compiled
def test_which_object_columns_the_compiled_reader_reads():
    """Up to C_LITERALS distinct literals; a strided column is copied to contiguous pointers first; beyond that the
    hash lookup, with the same codes."""
    rng = np.random.default_rng(3)
    values = np.array([str(x) for x in rng.choice(WORDS, 2000)], dtype=object)
    strided = values[::2]
    reader = _engine._ObjectCodes(strided, ["web", "atm"])
    assert reader.compiled == ("web", "atm") and reader.values.flags.c_contiguous
    np.testing.assert_array_equal(reader(0, len(strided)), _brute_codes(strided, ["web", "atm"]))
    many = [f"k{i}" for i in range(_engine.C_LITERALS)] + ["web"]
    reader = _engine._ObjectCodes(values, many)
    assert reader.compiled is None
    np.testing.assert_array_equal(reader(0, 2000), _brute_codes(values, many))


def test_text_of_every_width_in_rules_equals_the_reference(two_threads):
    """Rules over non-ASCII, long and NUL-holding text, in chunks ahead of the kernels, rule by rule."""
    rng = np.random.default_rng(21)
    n = 3 * _engine.BLOCK_WORDS * 64 + 11
    pool = TEXTS + [None]
    X = pd.DataFrame({"a": rng.normal(size=n),
                      "t": pd.Series([pool[i] for i in rng.integers(0, len(pool), n)], dtype=object)})
    rs = RuleSet.from_sql({"u": "t IN ('café', '日本', '😀x', 'aaaaaaaa') AND a > 0",
                           "long": "t = 'long text beyond eight bytes' OR t = 'ÿÿÿÿ'",
                           "not": "NOT (t IN ('web', 'aaaaaaaaa', ''))", "ne": "t <> 'ça'"})
    np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, X)), _reference(rs, X))


@compiled
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_reader_against_a_brute_force_on_random_text(seed):
    """Random texts of 0-12 characters from ASCII, Latin-1, the BMP and beyond, with near misses of each literal
    (one character changed, cut short, a NUL added)."""
    rng = np.random.default_rng(100 + seed)
    ranges = [(0, 128), (128, 256), (256, 0xD800), (0x10000, 0x10FFFF)]

    def text():
        lo, hi = ranges[rng.integers(len(ranges))]
        return "".join(chr(c) for c in rng.integers(lo, hi, rng.integers(0, 13)))

    keys = list(dict.fromkeys(text() for _ in range(rng.integers(1, 12))))
    near = [k[:-1] for k in keys if k] + [k + "\x00" for k in keys] + \
        [k[:-1] + chr(ord(k[-1]) ^ 1) for k in keys if k and ord(k[-1]) ^ 1 < 0xD800]
    pool = keys + near + [text() for _ in range(50)] + [None, np.nan]
    values = np.array([pool[i] for i in rng.integers(0, len(pool), 5000)], dtype=object)
    out = np.empty(len(values))
    assert _engine._text_codes.codes(values.ctypes.data, 0, len(values), tuple(keys), out.ctypes.data)
    np.testing.assert_array_equal(out, _brute_codes(values, keys))
