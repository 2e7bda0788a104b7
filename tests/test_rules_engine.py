"""The bit-packed rule engine (rules/_engine.py) against the reference evaluator (``SQLRule.truth``, row masks
in numpy) and a row-by-row brute force: random books with NULLs, text, IN lists, arithmetic, BETWEEN, NOT, OR.

Marked ``boundscheck``: ``.ci/boundscheck`` re-runs these on the JIT kernels with NUMBA_BOUNDSCHECK=1.
"""

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet
from csboost_plugins.rules import _engine
from csboost_plugins.rules._report import per_rule_sums, per_rule_table
from csboost_plugins.rules._ruleset import _first_of
from csboost_plugins.rules._sqlrule import Columns

pytestmark = pytest.mark.boundscheck

NUM = ["a", "b", "c", "d"]


def _frame(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({c: np.round(rng.normal(size=n), 1) for c in NUM})
    for c in NUM[:3]:
        X.loc[rng.random(n) < 0.15, c] = np.nan
    X["k"] = rng.integers(0, 5, n)  # integers: IN lists and equality hit
    X["t"] = pd.Series(rng.choice(["web", "pos", "moto", None], n), dtype=object)
    X["g"] = pd.Categorical(rng.choice(["x", "y"], n))
    return X


def _leaf(rng):
    c, d = rng.choice(NUM, 2, replace=False)
    v = lambda: f"{rng.choice([-1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 2.0]):g}"  # noqa: E731
    op = rng.choice(["<", "<=", ">", ">=", "=", "<>"])
    kind = rng.integers(0, 22)
    return [f"{c} {op} {v()}", f"{v()} {op} {c}", f"{c} {op} {d}", f"{c} BETWEEN {v()} AND {v()}",
            f"k IN ({', '.join(str(i) for i in rng.choice(5, rng.integers(1, 4), replace=False))})",
            f"{c} IN ({v()}, {v()}, NULL)", f"{c} IS NULL", f"{c} IS NOT NULL",
            f"{c} + {d} {op} {v()}", f"{c} / {d} > {v()}", "t = 'web'", "t IN ('pos', 'moto')",
            "t LIKE 'w%'", f"COALESCE({c}, 0) {op} {v()}", f"CAST({c} AS DOUBLE) {op} {v()}",
            rng.choice(["TRUE", "FALSE", "g = 'x'", f"{c} NOT IN ({v()}, 2)"]), f"ABS({c}) {op} {v()}",
            f"-{c} {op} {v()}", f"{c} * {d} {op} {c} - 2 * {d}", f"{c} / ({d} - {v()}) {op} {v()}",
            f"k / 2 {op} {v()}", f"{v()} / {c} {op} {d} + {v()}"][kind]


def _cond(rng, depth=0):
    r = rng.random()
    if depth >= 3 or r < 0.35:
        return _leaf(rng)
    if r < 0.5:
        return f"NOT ({_cond(rng, depth + 1)})"
    parts = [_cond(rng, depth + 1) for _ in range(rng.integers(2, 4))]
    return "(" + (" AND " if r < 0.75 else " OR ").join(parts) + ")"


def _book(n_rules, seed, dialect=None, sparse=False):
    """Random rules; ``sparse``: each limited to a band of column d, so that many rows have one rule alone."""
    rng = np.random.default_rng(seed)
    band = lambda: f" AND d BETWEEN {rng.uniform(-2, 1.5):.1f} AND {rng.uniform(1.5, 2.5):.1f}" if sparse else ""  # noqa: E731,E501
    return RuleSet.from_sql({f"r{i}": _cond(rng) + band() for i in range(n_rules)}, dialect=dialect)


def _reference(rs, X):
    cols = Columns(X, rs.feature_names)
    return np.column_stack([r.mask(X, columns=cols) for r in rs]) if len(rs) else np.zeros((len(X), 0), bool)


@pytest.mark.parametrize("n,seed,dialect", [(0, 0, None), (1, 1, None), (63, 2, None), (64, 3, "duckdb"),
                                            (65, 4, None), (1000, 5, "sqlite"), (5000, 8, "duckdb"),
                                            (40_003, 6, None)])
def test_engine_masks_equal_the_reference_rule_by_rule_and_as_sets(n, seed, dialect):
    X = _frame(n, seed)
    rs = _book(60, seed, dialect)
    ref = _reference(rs, X)
    bits = _engine.rule_bits(rs, X)
    assert bits.words.shape == (60, (n + 63) // 64)
    np.testing.assert_array_equal(_engine.coverage(bits), ref)
    np.testing.assert_array_equal(rs.coverage(X), ref)
    np.testing.assert_array_equal(rs.apply(X), _first_of(ref.T) if n else np.zeros(0, np.int64))
    np.testing.assert_array_equal(rs.predict(X), ref.any(axis=1).astype(np.int64))
    for k in (1, 7):
        np.testing.assert_array_equal(rs[:k].predict(X), ref[:, :k].any(axis=1).astype(np.int64))
    if n % 64:  # no bit past the last row in any mask
        assert not np.any(bits.words[:, -1] >> np.uint64(n % 64))


def _brute(node, row, lits):
    """SQL's three values of a node on one row (True / False / None), row by row in Python."""
    op = node[0]
    if op in ("and", "or"):
        vals = [_brute(p, row, lits) for p in node[1]]
        if op == "and":
            return False if False in vals else None if None in vals else True
        return True if True in vals else None if None in vals else False
    if op == "not":
        v = _brute(node[1], row, lits)
        return None if v is None else not v

    def val(x):
        return row[x[1]] if x[0] == "col" else lits[x[1]]

    if op == "isnull":
        return bool(np.isnan(val(node[1])))
    if op == "in":
        x = val(node[1])
        if np.isnan(x):
            return None
        return True if x in node[2] else (None if node[4] else False)
    if op == "between":
        x, lo, hi = val(node[1]), val(node[2]), val(node[3])
        return None if np.isnan(x) else lo <= x <= hi
    x, y = val(node[2]), val(node[3])
    if np.isnan(x) or np.isnan(y):
        return None
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "=": x == y, "<>": x != y}[node[1]]


def test_engine_native_atoms_against_a_row_by_row_brute_force():
    rng = np.random.default_rng(11)
    X = _frame(300, 11)[NUM + ["k"]].astype(float)
    texts = {}
    for i in range(80):  # only the leaves the kernels compute themselves
        c, d = rng.choice(NUM, 2, replace=False)
        v = rng.choice([-1.0, 0.0, 0.5, 1.0])
        leaves = [f"{c} < {v}", f"{v} >= {c}", f"{c} <> {d}", f"{c} = {v}", f"{c} BETWEEN {v} AND {v + 1}",
                  "k IN (1, 3)", f"{c} IN ({v}, NULL)", f"{c} IS NULL"]
        parts = rng.choice(leaves, 3)
        texts[f"r{i}"] = f"NOT ({parts[0]} OR {parts[1]}) OR ({parts[2]} AND NOT {parts[0]})"
    rs = RuleSet.from_sql(texts)
    cover = rs.coverage(X)
    rows = X.to_dict("records")
    for j, r in enumerate(rs):
        want = np.array([_brute(r.tree, row, r.literals) is True for row in rows])
        np.testing.assert_array_equal(cover[:, j], want, err_msg=str(r))


def test_a_condition_shared_by_several_rules_is_one_atom():
    X = _frame(100, 0)
    rs = RuleSet.from_sql({"r1": "a < -0.5", "r2": "a < -0.5 AND b > 0", "r3": "(a < -0.5 OR b > 0) AND -0.5 > a",
                           "r4": "CAST(a AS DOUBLE) < -0.5", "r5": "b > 0 AND c + d > 1 AND t = 'web'",
                           "r6": "c + d > 1"})
    comp = _engine._Compiler(Columns(X))
    for r, rule in enumerate(rs):
        comp.add_rule(r, rule)
    kinds = [a[0] for a in comp.atoms]
    # a < -0.5, b > 0, c + d > 1 (arithmetic in the kernels), t = 'web' (text: the reference evaluator, packed)
    assert len(comp.atoms) == 4 and kinds.count(_engine.K_EXPR) == 1 and kinds.count(_engine.K_PRE) == 1


@pytest.mark.parametrize("rho,last_rule", [(1.0, "round"), (0.4, "expected"), (0.7, "include")])
def test_evaluate_per_rule_equals_the_coverage_matrix_path(rho, last_rule):
    n = 30_011
    X = _frame(n, 3)
    rng = np.random.default_rng(3)
    y = (rng.random(n) < 0.2).astype(int)
    w = rng.uniform(0.5, 2.0, n)
    amount = rng.exponential(50.0, n)
    rs = _book(25, 3, sparse=True)
    rs.last_rule_probability = rho
    got = rs.evaluate(X, y, sample_weight=w, fp_cost=2.0, fn_cost=amount, per_rule=True, last_rule=last_rule)
    scored = rs._in_force(last_rule)
    cover = _reference(scored, X)
    first = _first_of(cover.T)
    costs = np.column_stack([np.full(n, 2.0), amount, np.zeros(n), np.zeros(n)])
    want = per_rule_table(scored, cover, first, y, w, costs)
    pd.testing.assert_frame_equal(got, want, rtol=1e-10)
    flagged = np.array([w[cover[:, j]].sum() for j in range(cover.shape[1])])  # brute force, rule by rule
    np.testing.assert_allclose(got["flagged"], flagged, rtol=1e-10)
    if rho == 1.0:
        alone = cover.sum(axis=1) == 1
        assert alone.sum() > 100
        unique_fp = np.array([(w * (y == 0))[cover[:, j] & alone].sum() for j in range(cover.shape[1])])
        np.testing.assert_allclose(got["unique_fp"], unique_fp, rtol=1e-10, atol=1e-9)
    s = rs.evaluate(X, y, sample_weight=w, fp_cost=2.0, fn_cost=amount, last_rule=last_rule)
    assert s["tpr"] == pytest.approx(got["set_recall"].iloc[-1], rel=1e-12)


@pytest.mark.parametrize("dialect", ["duckdb", None, "sqlite"])
def test_arithmetic_with_zero_division_infinities_and_nan_values(dialect):
    x = np.array([0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.0, 0.0, 3.0])
    X = pd.DataFrame({"x": x, "z": np.roll(x, 3), "k": np.arange(9)})
    texts = [f"{a} {op} {b}" for op in ["<", "<=", ">", ">=", "=", "<>"]
             for a, b in [("x / 0", "1"), ("0.0 / x", "z"), ("z", "x / z"), ("x - x", "z * 0"),
                          ("ABS(x) * z", "-z / x"), ("k / 2", "1"), ("-(x + z)", "k - 4")]]
    rs = RuleSet.from_sql({f"r{i}": t for i, t in enumerate(texts)}, dialect=dialect)
    np.testing.assert_array_equal(rs.coverage(X), _reference(rs, X))


def test_numpy_x_with_feature_names_and_a_strided_column():
    X = _frame(500, 7)[NUM]
    rs = RuleSet.from_sql({"r1": "a < 0 OR b IS NULL", "r2": "NOT (c BETWEEN -1 AND 1) AND d > a"})
    rs.feature_names = NUM
    ref = _reference(rs, X)
    np.testing.assert_array_equal(rs.coverage(X.to_numpy()), ref)  # C order: each column strided
    np.testing.assert_array_equal(rs.coverage(np.asfortranarray(X.to_numpy())), ref)


def test_errors_are_the_reference_errors_naming_the_rule():
    X = _frame(50, 0)
    for texts in ({"ok": "a < 1", "missing": "zz > 1"}, {"ok": "a < 1", "text_vs_num": "t > 1"},
                  {"num_vs_text": "a = 'web'"}, {"in_kind": "t IN (1, 2)"}):
        rs = RuleSet.from_sql(texts)
        bad = list(texts)[-1]
        with pytest.raises(ValueError, match=bad) as got:
            rs.predict(X)
        with pytest.raises(ValueError) as want:
            rs[-1:].rules[0].mask(X)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("numpy_x", [False, True])
def test_a_set_mixing_induced_and_sql_rules_equals_the_reference(numpy_x):
    from sklearn.tree import DecisionTreeClassifier

    from csboost_plugins.rules import extract_rules

    X = _frame(30_007, 1)[NUM]
    y = (X.a.fillna(0) + X.b.fillna(0) > 0.5).astype(int)
    induced = extract_rules(DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.fillna(0), y))
    sql = RuleSet.from_sql({"s1": "c > 0.5 OR a IS NULL", "s2": "NOT (b BETWEEN -1 AND 1)"}).rules
    rs = RuleSet([induced[0], sql[0], induced[1], sql[1], induced[2]], feature_names=NUM)
    Xin = X.to_numpy() if numpy_x else X
    ref = np.column_stack(list(rs._masks(Xin)))
    np.testing.assert_array_equal(_engine.coverage(_engine.rule_bits(rs, Xin)), ref)
    np.testing.assert_array_equal(rs.coverage(Xin), ref)
    np.testing.assert_array_equal(rs.apply(Xin), _first_of(ref.T))
    np.testing.assert_array_equal(rs.predict(Xin), ref.any(axis=1).astype(np.int64))


def test_overlap_from_popcounts_equals_the_pairwise_brute_force():
    X = _frame(20_011, 9)
    rs = _book(12, 9, sparse=True)
    cover = _reference(rs, X)
    got = rs.overlap(X).to_numpy()
    for i in range(len(rs)):
        for j in range(len(rs)):
            both, mine = (cover[:, i] & cover[:, j]).sum(), cover[:, i].sum()
            assert (np.isnan(got[i, j]) and mine == 0) or got[i, j] == both / mine


def test_long_in_lists_are_searched_as_the_reference_matches():
    X = _frame(3000, 4)
    vals = ", ".join(f"{v:g}" for v in np.round(np.linspace(-2, 2, 41), 1))  # 41 values: the binary search
    rs = RuleSet.from_sql({"in": f"a IN ({vals})", "in_null": f"b IN ({vals}, NULL)",
                           "not_in": f"c NOT IN ({vals})", "not_in_null": f"NOT (a IN ({vals}, NULL))",
                           "k_in": "k IN (" + ", ".join(str(i) for i in range(3, 40)) + ")"})
    ref = _reference(rs, X)
    assert ref[:, 0].any() and not ref[:, 0].all()
    np.testing.assert_array_equal(rs.coverage(X), ref)


def test_integer_columns_beyond_2_53_are_refused_as_the_reference_refuses_them():
    X = pd.DataFrame({"id": np.array([1, 2 ** 53 + 1], dtype=np.int64), "k": np.array([1, 2], dtype=np.int64)})
    rs = RuleSet.from_sql({"small": "k > 1", "big": "id > 1"})
    np.testing.assert_array_equal(rs[:1].coverage(X)[:, 0], [False, True])
    with pytest.raises(ValueError, match="'big'.*beyond 2\\*\\*53"):
        rs.predict(X)


def test_nullable_categorical_boolean_and_int32_columns_equal_the_reference():
    rng = np.random.default_rng(5)
    n = 500
    X = pd.DataFrame({"a": pd.array(np.where(rng.random(n) < 0.2, None, rng.integers(0, 4, n)), dtype="Int64"),
                      "b": pd.array(np.where(rng.random(n) < 0.2, None, rng.normal(size=n)), dtype="Float64"),
                      "c": pd.Categorical(rng.choice([1.0, 2.0, np.nan], n)), "f": rng.random(n) < 0.5,
                      "i": rng.integers(-3, 3, n).astype(np.int32)})
    rs = RuleSet.from_sql({"r1": "a > 1", "r2": "b < 0.5 OR a IS NULL", "r3": "c = 2", "r4": "a + b > 2",
                           "r5": "f = 1 AND i BETWEEN -1 AND 1", "r6": "NOT (i IN (0, 2)) AND c IS NOT NULL"})
    np.testing.assert_array_equal(rs.coverage(X), _reference(rs, X))


@pytest.mark.parametrize("seed,sparse,kind", [(3, True, "fp fn"), (5, False, "all four"), (12, True, "fp fn"),
                                              (7, True, "none")])
def test_engine_sums_are_row_order_sums_of_the_reference_masks_bit_for_bit(seed, sparse, kind):
    """Per-rule sums add each rule's rows in row order: equal (==) to a sequential sum (np.cumsum) over the
    reference evaluator's mask; first-to-cover and unique sums equal the reference's (np.bincount, row order)."""
    n = 30_011
    X = _frame(n, seed)
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(int)
    w = rng.uniform(0.5, 2.0, n)  # non-integer weights and money: any other order changes last bits
    costs = np.column_stack([np.full(n, 2.0), rng.exponential(50.0, n), np.zeros(n), np.zeros(n)])
    if kind == "all four":  # a true positive and a true negative cost too
        costs[:, 2], costs[:, 3] = rng.uniform(0.0, 1.0, n), rng.uniform(0.0, 0.5, n)
    costs = None if kind == "none" else costs
    rs = _book(25, seed, sparse=sparse)
    cover = _reference(rs, X)
    first = _first_of(cover.T)
    got = _engine.per_rule_sums(_engine.rule_bits(rs, X), first, y, w, costs, np.ones(len(rs)))
    want = per_rule_sums(cover, first, y, w, costs)
    parts = {"tp": w * (y == 1), "fp": w * (y == 0)}
    if costs is not None:
        parts.update(money_caught=w * (y == 1) * (costs[:, 1] - costs[:, 2]),
                     alert_cost=w * (y == 0) * (costs[:, 0] - costs[:, 3]))
    assert set(got) == set(want) and all(np.array_equal(got[k], want[k]) for k in ("npos", "nneg"))
    assert (cover.sum(axis=0) > 100).sum() >= 15 and (not sparse or (cover.sum(axis=1) == 1).sum() > 100)
    for name, v in parts.items():
        row_order = np.array([np.cumsum(v[cover[:, j]])[-1] if cover[:, j].any() else 0.0 for j in range(len(rs))])
        assert np.array_equal(got[name], row_order), name
        for prefix in ("first_", "unique_"):
            assert np.array_equal(got[prefix + name], want[prefix + name]), prefix + name


@pytest.mark.parametrize("n", [1, 63, 64, 65, 30_011])
def test_any_of_the_first_rules_is_a_first_match_below_the_limit(n):
    rs = _book(12, n % 97, sparse=True)
    X = _frame(n, 4)
    bits = _engine.rule_bits(rs, X)
    first = _engine.first_match(bits)
    for limit in (0, 1, 5, len(rs)):
        got = _engine.any_of(bits, limit)
        assert got.dtype == np.int64 and got.shape == (n,)
        np.testing.assert_array_equal(got, (first >= 0) & (first < limit))
    np.testing.assert_array_equal(rs.predict(X), (first >= 0).astype(np.int64))


@pytest.mark.parametrize("dialect", [None, "duckdb", "sqlite", "tsql"])
def test_coalesce_of_numbers_is_computed_by_the_kernels_and_equals_the_reference(dialect):
    """COALESCE of numeric columns, literals and arithmetic (two or more arguments, NULLs in every column, x / 0
    inside) is a value program of the kernels, not a precomputed mask; COALESCE of text or NULL stays the
    reference's."""
    rng = np.random.default_rng(21)
    n = 3_000
    X = pd.DataFrame({c: np.where(rng.random(n) < 0.3, np.nan, rng.normal(0, 2, n)) for c in "abc"})
    X["z"] = np.where(rng.random(n) < 0.2, 0.0, rng.normal(0, 1, n))
    X["t"] = pd.Series(rng.choice(["x", "y"], n), dtype=object)
    texts = {"two": "COALESCE(a, 0) > 0.5", "three": "COALESCE(a, b, c) < -1", "lit_first": "COALESCE(1, a) = 1",
             "arith": "COALESCE(a + b, c * 2, -3) >= 0", "nested": "ABS(COALESCE(a, b)) + COALESCE(c, z) > 2",
             "div": "COALESCE(a / z, b) > 1", "not": "NOT (COALESCE(b, a) BETWEEN -1 AND 1)",
             "null_arg": "COALESCE(a, NULL, 2) > 1", "text": "COALESCE(t, 'x') = 'y'"}
    rs = RuleSet.from_sql(texts, dialect=dialect)
    np.testing.assert_array_equal(rs.coverage(X), _reference(rs, X))
    comp = _engine._Compiler(Columns(X, rs.feature_names), _engine._text_literals(rs.rules))
    for r, rule in enumerate(rs.rules):
        comp.add_rule(r, rule)
    # precomputed masks: only the NULL argument, the text COALESCE, BETWEEN on a value that is not a column and,
    # where / may divide integers (SQLite, T-SQL), the division
    assert len(comp.pre_t) == (4 if dialect in ("sqlite", "tsql") else 3)
