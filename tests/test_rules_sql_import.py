"""RuleSet.from_sql: a team's SQL rules read into SQLRule, checked row by row against DuckDB and SQLite running
the same text on data with NULLs; round trips through every dialect the library writes and JSON; mixed sets of
induced and imported rules; every refusal."""

import json
import pickle
import sqlite3

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet, SQLRule
from csboost_plugins.rules._export import SQL_DIALECTS

duckdb = pytest.importorskip("duckdb")

N = 400


def _data(n=N, seed=0):
    """Columns with NULLs everywhere, zeros (division), ties, text with mixed case and wildcard characters."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 2, n).round(1)
    b = rng.normal(0, 2, n).round(1)
    b[rng.random(n) < 0.1] = 0.0
    a[rng.random(n) < 0.15] = np.nan
    b[rng.random(n) < 0.15] = np.nan
    k = pd.array(rng.integers(0, 6, n), dtype="Int64")
    k[rng.random(n) < 0.1] = pd.NA
    words = np.array(["web", "Web", "atm", "pos", "a%b", "a_b", "wax", "", "moto", "web shop"], dtype=object)
    ch = words[rng.integers(0, len(words), n)]
    ch[rng.random(n) < 0.1] = None
    cat = pd.Categorical(rng.choice(["x", "y", "z"], n))
    cat[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({"a": a, "b": b, "k": k, "ch": ch, "cat": cat})


DF = _data()


def _rows(df):
    out = []
    for i, r in enumerate(df.itertuples(index=False)):
        out.append((i, None if pd.isna(r.a) else float(r.a), None if pd.isna(r.b) else float(r.b),
                    None if pd.isna(r.k) else int(r.k), None if pd.isna(r.ch) else str(r.ch),
                    None if pd.isna(r.cat) else str(r.cat)))
    return out


@pytest.fixture(scope="module")
def engines():
    """The data as a typed table ``t`` with real NULLs in DuckDB and in SQLite."""
    rows = _rows(DF)
    dk = duckdb.connect()
    dk.execute("CREATE TABLE t (rid INTEGER, a DOUBLE, b DOUBLE, k INTEGER, ch VARCHAR, cat VARCHAR)")
    dk.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", rows)
    sq = sqlite3.connect(":memory:")
    sq.execute("CREATE TABLE t (rid INTEGER, a REAL, b REAL, k INTEGER, ch TEXT, cat TEXT)")
    sq.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", rows)
    yield {"duckdb": dk, "sqlite": sq}
    dk.close()
    sq.close()


def _flagged(con, where):
    """0/1 per row: what the engine's WHERE keeps."""
    out = np.zeros(N, np.int64)
    ids = [r[0] for r in con.execute(f"SELECT rid FROM t WHERE {where}").fetchall()]
    out[ids] = 1
    return out


def _flagged_select(con, select):
    sql = select.replace('FROM "t"', "FROM t").replace("SELECT *", "SELECT rid", 1)
    return _flagged_sql(con, sql)


def _flagged_sql(con, sql):
    out = np.zeros(N, np.int64)
    out[[r[0] for r in con.execute(sql).fetchall()]] = 1
    return out


# Conditions both engines read alike (the same text), on every construct the reader supports.
COMMON = {
    "cmp_col_lit": "a > 1",
    "cmp_le_cols": "a <= b",
    "cmp_eq": "a = 0.5",
    "cmp_ne": "a <> 0.5",
    "cmp_bang_ne": "a != 0.5",
    "lit_left": "1 < a",
    "add": "a + b > 0",
    "sub_mul": "a - 2 * b < 1",
    "mul": "a * b >= 0.5",
    "div_safe": "a / NULLIF(b, 0) > 1",
    "div_safe_lits": "(a + 1) / NULLIF(b - 0.5, 0) <= -1",
    "neg": "-a > 0",
    "neg_expr": "-(a + b) > 1",
    "abs": "ABS(a) > 1",
    "coalesce": "COALESCE(a, b, 0) > 0",
    "coalesce_null": "COALESCE(a, NULL, b) < 0",
    "cast": "CAST(a AS REAL) > 0.5",
    "nullif": "NULLIF(b, 0) IS NULL",
    "and": "a > 0 AND b > 0",
    "or": "a > 0 OR b > 0",
    "not": "NOT (a > 0)",
    "not_or": "NOT (a > 0 OR b < 0)",
    "deep": "NOT (NOT (a > 0) AND (b IS NULL OR NOT (b < 1 AND a < 3)))",
    "between": "a BETWEEN -1 AND 1",
    "not_between": "a NOT BETWEEN -1 AND 1",
    "between_exprs": "a BETWEEN b - 1 AND b + 1",
    "in_num": "k IN (1, 2, 3)",
    "not_in_num": "k NOT IN (1, 2)",
    "in_null": "k IN (1, NULL)",
    "not_in_null": "k NOT IN (1, NULL)",
    "in_neg": "a IN (-1.5, 0.3, 2)",
    "in_text": "ch IN ('web', 'atm')",
    "not_in_text": "ch NOT IN ('web', 'pos')",
    "in_cat": "cat IN ('x', 'y')",
    "cat_eq": "cat = 'z'",
    "is_null": "a IS NULL",
    "is_not_null": "a IS NOT NULL",
    "text_null": "ch IS NULL",
    "expr_null": "a + b IS NULL",
    "text_eq": "ch = 'web'",
    "text_ne": "ch <> 'web'",
    "text_lt": "ch < 'b'",
    "like_prefix": "ch LIKE 'a%'",  # no upper-case A in the data: SQLite's folding does not matter
    "like_one": "ch LIKE 'a_b'",
    "not_like": "ch NOT LIKE '%b'",
    "like_escape": "ch LIKE 'a!%%' ESCAPE '!'",
    "like_empty": "ch LIKE ''",
    "true": "TRUE",
    "false": "FALSE",
    "or_true": "a > 0 OR TRUE",
    "and_false": "a > 0 AND FALSE",
    "not_unknown": "NOT (a > b)",
    "mixed_text_num": "(ch = 'web' AND a > 0) OR (k >= 4 AND b < 0)",
}

# The same meaning spelt in each engine (scalar min/max, ILIKE) where they differ.
DUCKDB_ONLY = {
    "least": "LEAST(a, b) > 0",
    "greatest3": "GREATEST(a, b, 1) < 2",
    "least_lit": "LEAST(a, 100) >= 0.5",
    "ilike": "ch ILIKE 'W%'",
    "not_ilike": "ch NOT ILIKE 'WEB%'",
    "like_case": "ch LIKE 'W%'",
    "int_div": "k / 2 > 1",
    "div_zero": "a / b > 1",
    "div_lits": "(a + 1) / (b - 0.5) <= -1",
    "div_nan": "(a - a) / (b - b) > 1",
}
SQLITE_ONLY = {
    "min2": "MIN(a, b) > 0",
    "max3": "MAX(a, b, 1) < 2",
    "min_lit": "MIN(a, 100) >= 0.5",
    "like_folds": "ch LIKE 'W%'",
    "glob": "ch GLOB 'w*'",
    "glob_class": "ch GLOB 'a[%]b'",
    "int_div": "k / 2 > 1",
    "div_zero": "a / b > 1",
    "div_lits": "(a + 1) / (b - 0.5) <= -1",
}


def _check_rule_everywhere(rs, engines):
    """predict equals each engine running the rule set's own SQL for that engine."""
    pred = rs.predict(DF)
    for name, con in engines.items():
        try:
            sql = rs.to_sql("t", dialect=name)
        except ValueError as exc:  # DuckDB's IEEE division (x / 0 = inf) has no form in other engines
            assert "division read from" in str(exc) and name != rs[0].dialect
            assert all("/" in str(r) for r in rs)
            continue
        got = _flagged_select(con, sql)
        np.testing.assert_array_equal(got, pred, err_msg=f"{name}: {rs.to_sql('t', dialect=name)}")
    return pred


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite"])
@pytest.mark.parametrize("name", sorted(COMMON))
def test_each_construct_flags_what_both_engines_flag(engines, dialect, name):
    cond = COMMON[name]
    rs = RuleSet.from_sql({name: cond}, dialect=dialect)
    pred = rs.predict(DF)
    np.testing.assert_array_equal(pred, _flagged(engines[dialect], cond), err_msg=cond)
    np.testing.assert_array_equal(pred, _flagged(engines["sqlite" if dialect == "duckdb" else "duckdb"], cond))
    _check_rule_everywhere(rs, engines)
    assert rs.names == [name] and isinstance(rs[0], SQLRule)


@pytest.mark.parametrize("dialect,conds", [("duckdb", DUCKDB_ONLY), ("sqlite", SQLITE_ONLY)])
def test_engine_specific_constructs_keep_the_engine_meaning(engines, dialect, conds):
    """LEAST / MIN with NULL, LIKE's case, GLOB and integer division mean what the source engine says; the
    export writes that meaning exactly for the other engine too."""
    for name, cond in conds.items():
        rs = RuleSet.from_sql({name: cond}, dialect=dialect)
        pred = rs.predict(DF)
        np.testing.assert_array_equal(pred, _flagged(engines[dialect], cond), err_msg=f"{dialect}: {cond}")
        _check_rule_everywhere(rs, engines)


def test_the_engines_really_differ_where_the_dialect_matters(engines):
    """The data exercises the differences (else the test above proves nothing)."""
    for a, b in (("LEAST(a, b) > 0", "MIN(a, b) > 0"), ("ch LIKE 'W%'", "ch LIKE 'W%'"),
                 ("k / 2 > 1", "k / 2 > 1"), ("a / b > 1", "a / b > 1"), ("(a + 1) / (b - 0.5) <= -1",) * 2):
        assert (_flagged(engines["duckdb"], a) != _flagged(engines["sqlite"], b)).any(), (a, b)


def test_every_construct_as_one_set_and_as_one_select(engines):
    rs = RuleSet.from_sql(COMMON, dialect="duckdb")
    pred = rs.predict(DF)
    where = " OR ".join(f"({c})" for c in COMMON.values())
    for con in engines.values():
        np.testing.assert_array_equal(pred, _flagged(con, where))
    # per-rule coverage equals each rule run alone in the engine
    cover = rs.coverage(DF)
    for j, cond in enumerate(COMMON.values()):
        np.testing.assert_array_equal(cover[:, j], _flagged(engines["sqlite"], cond), err_msg=cond)
    first = rs.apply(DF)
    ref = np.where(cover.any(axis=1), cover.argmax(axis=1), -1)
    np.testing.assert_array_equal(first, ref)
    # one SELECT whose WHERE is an OR of rules: each top-level branch a rule
    sel = RuleSet.from_sql("SELECT * FROM t WHERE " + " OR ".join(f"({c})" for c in list(COMMON.values())[:6]),
                           dialect="sqlite")
    assert sel.names == [f"rule_{i}" for i in range(1, 7)]
    np.testing.assert_array_equal(sel.coverage(DF), cover[:, :6])
    lst = RuleSet.from_sql(list(COMMON.values())[:3])
    assert lst.names == ["rule_1", "rule_2", "rule_3"]


@pytest.mark.parametrize("dialect", SQL_DIALECTS + (None,))
def test_round_trip_through_every_dialect_keeps_rows_and_names(engines, dialect):
    book = dict(COMMON, **{k: v for k, v in DUCKDB_ONLY.items() if k not in ("int_div", "div_zero", "div_lits",
                                                                             "div_nan")})
    rs = RuleSet.from_sql(book, dialect="duckdb")
    back = RuleSet.from_sql(rs.to_sql("t", dialect=dialect), dialect=dialect)
    assert back.names == rs.names
    np.testing.assert_array_equal(back.coverage(DF), rs.coverage(DF))
    back_where = RuleSet.from_sql(rs.to_sql(dialect=dialect, where_only=True), dialect=dialect)
    np.testing.assert_array_equal(back_where.coverage(DF), rs.coverage(DF))
    # the SQLite-read book (MIN that returns NULL, LIKE folding ASCII) too
    rs2 = RuleSet.from_sql(SQLITE_ONLY, dialect="sqlite")
    if dialect not in ("sqlite", "postgres"):  # integer division is written only where the engine has it
        rs2 = rs2.drop([rs2.names.index(n) for n in ("int_div", "div_zero", "div_lits")])
    back2 = RuleSet.from_sql(rs2.to_sql("t", dialect=dialect), dialect=dialect)
    np.testing.assert_array_equal(back2.coverage(DF), rs2.coverage(DF))


def test_json_pickle_str_slicing_keep_name_and_meaning():
    rs = RuleSet.from_sql(dict(COMMON, **DUCKDB_ONLY), dialect="duckdb")
    cover = rs.coverage(DF)
    for other in (RuleSet.from_json(rs.to_json()), pickle.loads(pickle.dumps(rs))):
        assert other.names == rs.names
        np.testing.assert_array_equal(other.coverage(DF), cover)
    d = json.loads(rs.to_json())
    assert d["rules"][0]["kind"] == "sql" and d["rules"][0]["name"] == rs.names[0]
    text = str(rs)
    for i, n in enumerate(rs.names):
        assert f"{i + 1:>3}. {n}: IF " in text
    sub = rs[[3, 1]]
    assert sub.names == [rs.names[3], rs.names[1]]
    np.testing.assert_array_equal(sub.coverage(DF), cover[:, [3, 1]])
    dropped = rs.drop([0, 2])
    assert dropped.names == [n for i, n in enumerate(rs.names) if i not in (0, 2)]
    # str of a rule is SQL in its dialect that reads back to the same rows
    r = rs[5]
    again = RuleSet.from_sql({r.name: str(r)}, dialect=r.dialect)
    np.testing.assert_array_equal(again.predict(DF), rs[5:6].predict(DF))


def test_literal_slots_are_addressable_and_retuned_sql_runs_in_duckdb(engines):
    rs = RuleSet.from_sql({"big": "a > 1.5 AND b BETWEEN -2 AND 2 AND k IN (1, 2)"}, dialect="duckdb")
    r = rs[0]
    assert r.literals == (1.5, -2.0, 2.0) and r.columns == ["a", "b", "k"]
    r2 = r.with_literals([0.25, -1, 3])
    assert r2.name == "big" and r2.literals == (0.25, -1.0, 3.0)
    assert r2.to_sql("duckdb") == '"a" > 0.25 AND "b" BETWEEN -1 AND 3 AND "k" IN (1, 2)'
    np.testing.assert_array_equal(RuleSet([r2]).predict(DF), _flagged(engines["duckdb"], r2.to_sql("duckdb")))
    with pytest.raises(ValueError, match="3 literal slots"):
        r.with_literals([1.0])


PANDAS_OK = ["cmp_col_lit", "cmp_le_cols", "add", "sub_mul", "neg_expr", "and", "or", "not", "not_or", "deep",
             "between", "not_between", "in_num", "not_in_num", "in_text", "not_in_text", "is_null",
             "is_not_null", "text_eq", "not_unknown", "or_true", "and_false", "in_null", "not_in_null", "mixed_text_num"]


@pytest.mark.parametrize("name", PANDAS_OK)
def test_pandas_query_flags_the_same_rows_null_semantics_included(name):
    rs = RuleSet.from_sql({name: COMMON[name]}, dialect="duckdb")
    q = rs.to_pandas_query()
    got = np.zeros(N, np.int64)
    got[DF.reset_index(drop=True).query(q, engine="python").index] = 1
    np.testing.assert_array_equal(got, rs.predict(DF), err_msg=q)


@pytest.mark.parametrize("name,construct", [("div_safe", "division"), ("abs", "ABS"), ("coalesce", "COALESCE"),
                                            ("like_prefix", "LIKE"), ("cast", "CAST")])
def test_pandas_query_refuses_what_pandas_computes_differently(name, construct):
    rs = RuleSet.from_sql({name: COMMON[name]}, dialect="duckdb")
    with pytest.raises(ValueError, match=f"rule '{name}': {construct}"):
        rs.to_pandas_query()


# ------------------------------------------------------------------------------------------- refusals
REFUSED = [
    ("a IN (SELECT x FROM u)", "subquery"),
    ("EXISTS (SELECT 1 FROM u)", "subquery"),
    ("a > (SELECT MAX(x) FROM u)", "subquery"),
    ("my_udf(a) > 1", "MY_UDF"),
    ("SQRT(a) > 1", "SQRT"),
    ("SUM(a) > 1", "aggregate"),
    ("ROW_NUMBER() OVER (ORDER BY a) > 1", "window"),
    ("CAST(a AS INTEGER) > 1", "CAST to INT"),
    ("CAST(a AS DECIMAL(10, 2)) > 1", "CAST to DECIMAL"),
    ("a", "a column or literal used as a condition"),
    ("a + 1", "a value where a condition belongs"),
    ("NULL", "a value where a condition belongs"),
    ("CASE WHEN a > 1 THEN 1 ELSE 0 END = 1", "CASE"),
    ("a IN (b, 2)", "IN with something other than"),
    ("k IN (1, 'x')", "IN mixes numbers and text"),
    ("ch LIKE b", "pattern other than a text literal"),
    ("a IS TRUE", "IS other than"),
    ("a BETWEEN SYMMETRIC 1 AND 2", "SYMMETRIC"),
]


@pytest.mark.parametrize("cond,what", REFUSED)
def test_unsupported_constructs_are_refused_naming_rule_and_construct(cond, what):
    with pytest.raises(ValueError) as e:
        RuleSet.from_sql({"bad_rule": cond}, dialect="duckdb")
    msg = str(e.value)
    assert "'bad_rule'" in msg and what.lower() in msg.lower(), msg


@pytest.mark.parametrize("sql,what", [
    ("DROP TABLE t", "DROP"),
    ("DELETE FROM t WHERE a > 1", "DELETE"),
    ("SELECT * FROM t WHERE a > 1; SELECT * FROM t WHERE b > 1", "2 statements"),
    ("UPDATE t SET a = 1", "UPDATE"),
    ("SELECT * FROM t", "no WHERE"),
    ("SELECT a FROM t WHERE a > 1 GROUP BY a", "GROUP"),
    ("SELECT * FROM t JOIN u ON t.a = u.a WHERE a > 1", "JOINS"),
    ("SELECT * FROM t WHERE a > 1 LIMIT 5", "LIMIT"),
    ("SELECT * FROM (SELECT * FROM t) WHERE a > 1", "subquery"),
    ("a > ", "not valid SQL"),
    ("", "empty"),
    ("SELECT * FROM t WHERE (a > 1) /* rule: x */ OR (b > 1) /* rule: x */", "given twice"),
])
def test_statements_other_than_one_select_or_condition_are_refused(sql, what):
    with pytest.raises(ValueError, match=what):
        RuleSet.from_sql(sql)
    if sql and what != "given twice":  # (as one rule of a dict, the OR of the branches is the rule)
        with pytest.raises(ValueError):
            RuleSet.from_sql({"r": sql})


def test_bad_arguments_and_names():
    with pytest.raises(TypeError, match="rules must be a dict"):
        RuleSet.from_sql(3)
    with pytest.raises(TypeError, match="must be SQL text"):
        RuleSet.from_sql({"r": 3})
    with pytest.raises(TypeError, match="non-empty strings"):
        RuleSet.from_sql({"": "a > 1"})
    with pytest.raises(ValueError, match="not a sqlglot dialect"):
        RuleSet.from_sql(["a > 1"], dialect="nosuch")
    a, b = RuleSet.from_sql({"x": "a > 1"}), RuleSet.from_sql({"x": "b > 1"})
    with pytest.raises(ValueError, match="'x' is given twice"):
        RuleSet(list(a) + list(b))
    with pytest.raises(ValueError, match=r"\*/"):
        RuleSet.from_sql({"x */ DROP": "a > 1"})


def test_predict_errors_name_the_rule_and_column():
    rs = RuleSet.from_sql({"fine": "a > 1", "needs_zz": "zz > 1"})
    with pytest.raises(ValueError, match="rule 'needs_zz' uses column 'zz', which X lacks"):
        rs.predict(DF)
    for cond, what in (("ch > 1", "text"), ("a = 'web'", "text"), ("a LIKE 'w%'", "LIKE"),
                       ("k IN ('a', 'b')", "IN"), ("ch IN (1, 2)", "IN"), ("ch + 1 > 2", "ADD"),
                       ("ABS(ch) > 1", "ABS"), ("COALESCE(a, ch) = 'x'", "COALESCE")):
        with pytest.raises(ValueError, match="rule 'typed'") as e:
            RuleSet.from_sql({"typed": cond}).predict(DF)
        assert what in str(e.value), (cond, str(e.value))
    with pytest.raises(ValueError, match="reads columns by name"):
        rs.predict(DF[["a"]].to_numpy())
    np.testing.assert_array_equal(RuleSet.from_sql(["a > 1"]).predict(DF[["a"]].to_numpy()) if False else
                                  RuleSet.from_sql(["A > 1"]).predict(DF), (DF.a > 1).astype(int))
    with pytest.raises(ValueError, match="uses column 'A'"):  # a quoted name is matched exactly
        RuleSet.from_sql(['"A" > 1']).predict(DF)


def test_quoted_and_unicode_column_names(engines):
    df = pd.DataFrame({"montant €": [1.0, 600.0, np.nan], 'a"b': [1.0, 2.0, 3.0], "Größe": [5, 6, 7]})
    rs = RuleSet.from_sql({"unicode": '"montant €" > 500', "quote": '"a""b" >= 2', "umlaut": "Größe = 7"},
                          dialect="duckdb")
    np.testing.assert_array_equal(rs.coverage(df), [[0, 0, 0], [1, 1, 0], [0, 1, 1]])
    con = duckdb.connect()
    con.register("df", df)
    got = [r[0] for r in con.execute(rs.to_sql("df", dialect="duckdb").replace("SELECT *", 'SELECT "Größe"'))
           .fetchall()]
    assert sorted(got) == [6, 7]
    back = RuleSet.from_sql(rs.to_sql("df", dialect="sqlite"), dialect="sqlite")
    np.testing.assert_array_equal(back.coverage(df), rs.coverage(df))


# ------------------------------------------------------------------------------- mixed rule sets
@pytest.fixture(scope="module")
def mixed():
    lgb = pytest.importorskip("lightgbm")
    from csboost_plugins.rules import extract_rules, riff_select

    rng = np.random.default_rng(1)
    n = 6000
    X = pd.DataFrame({"amount": np.exp(rng.normal(4, 1, n)), "v1": rng.normal(size=n), "v2": rng.normal(size=n)})
    X.loc[rng.random(n) < 0.05, "v2"] = np.nan
    y = ((X.v1 > 1.2) & (X.amount > 80) | (rng.random(n) < 0.01)).astype(int).to_numpy()
    gbm = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, n_jobs=1).fit(X[:3000], y[:3000])
    induced = riff_select(extract_rules(gbm), X[3000:], y[3000:], max_fpr=0.02)
    book = RuleSet.from_sql({"big_amount_v2": "amount > 500 AND v2 < -1",
                             "ratio": "amount / NULLIF(ABS(v1), 0) > 2000",
                             "v2_missing": "v2 IS NULL AND v1 > 1"}, dialect="duckdb")
    mixed = RuleSet(list(induced.rules) + list(book.rules), feature_names=induced.feature_names,
                    names=induced.names + book.names)
    return mixed, induced, book, X, y


def test_mixed_set_predict_coverage_and_sql_agree(mixed):
    rs, induced, book, X, y = mixed
    k = len(induced)
    assert rs.names[:k] == [f"riff_{i}" for i in range(1, k + 1)] and rs.names[k:] == book.names
    cover = rs.coverage(X)
    np.testing.assert_array_equal(cover[:, :k], induced.coverage(X))
    np.testing.assert_array_equal(cover[:, k:], book.coverage(X))
    np.testing.assert_array_equal(rs.predict(X), cover.any(axis=1))
    np.testing.assert_array_equal(rs.apply(X), np.where(cover.any(axis=1), cover.argmax(axis=1), -1))
    # numpy input: the SQL rules find their columns through the set's feature names
    np.testing.assert_array_equal(rs.predict(X.to_numpy()), rs.predict(X))
    con = duckdb.connect()
    con.register("tx", X.reset_index().rename(columns={"index": "rid"}))
    sql = rs.to_sql("tx", dialect="duckdb").replace("SELECT *", "SELECT rid", 1)
    got = np.zeros(len(X), int)
    got[[r[0] for r in con.execute(sql).fetchall()]] = 1
    np.testing.assert_array_equal(got, rs.predict(X))
    for dialect in SQL_DIALECTS + (None,):  # induced rules read back from their own SQL flag the same rows
        back = RuleSet.from_sql(rs.to_sql("tx", dialect=dialect), dialect=dialect)
        assert back.names == rs.names and all(isinstance(r, SQLRule) for r in back)
        np.testing.assert_array_equal(back.coverage(X), cover, err_msg=str(dialect))
    again = RuleSet.from_json(rs.to_json())
    assert again.names == rs.names
    np.testing.assert_array_equal(again.coverage(X), cover)
    assert "riff_1: IF " in str(rs) and "ratio: IF " in str(rs)


def test_mixed_set_slicing_drop_and_evaluate(mixed):
    rs, induced, book, X, y = mixed
    cost = X.amount.to_numpy()
    sub = rs[[len(rs) - 1, 0]] if rs.last_rule_probability == 1.0 else rs[[0, len(rs) - 1]]
    np.testing.assert_array_equal(sub.coverage(X), rs.coverage(X)[:, [rs.names.index(n) for n in sub.names]])
    d = rs.drop([0])
    assert d.names == rs.names[1:]
    tab = rs.evaluate(X, y, per_rule=True, fn_cost=cost, fp_cost=5.0, last_rule="include")
    assert list(tab["name"]) == rs.names and tab.columns[0] == "name"
    cover = rs.coverage(X)
    for j in range(len(rs)):  # against hand sums
        assert tab["tp"].iloc[j] == ((y == 1) & cover[:, j]).sum()
        assert tab["fp"].iloc[j] == ((y == 0) & cover[:, j]).sum()
        assert np.isclose(tab["money_caught"].iloc[j], cost[(y == 1) & cover[:, j]].sum())
    flag = cover.any(axis=1)
    full = rs.evaluate(X, y, fn_cost=cost, fp_cost=5.0, last_rule="include")
    assert np.isclose(full["net_money"], cost[(y == 1) & flag].sum() - 5.0 * ((y == 0) & flag).sum())


def test_mixed_set_on_dask_matches_pandas(mixed):
    dd = pytest.importorskip("dask.dataframe")
    rs, induced, book, X, y = mixed
    ddf = dd.from_pandas(X, npartitions=3)
    dy = dd.from_pandas(pd.Series(y, index=X.index), npartitions=3)
    np.testing.assert_array_equal(rs.predict(ddf).compute(), rs.predict(X))
    np.testing.assert_array_equal(rs.coverage(ddf).compute(), rs.coverage(X))
    cost = dd.from_pandas(X.amount, npartitions=3)
    a = rs.evaluate(ddf, dy, per_rule=True, fn_cost=cost, fp_cost=5.0)
    b = rs.evaluate(X, y, per_rule=True, fn_cost=X.amount.to_numpy(), fp_cost=5.0)
    pd.testing.assert_frame_equal(a, b)
    s1 = rs.evaluate(ddf, dy, fn_cost=cost, fp_cost=5.0)
    s2 = rs.evaluate(X, y, fn_cost=X.amount.to_numpy(), fp_cost=5.0)
    assert s1.keys() == s2.keys() and all(np.isclose(s1[k], s2[k]) for k in s2 if not isinstance(s2[k], str))


def test_mixed_set_money_curve_display(mixed):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from csboost_plugins.plot import MoneyCurveDisplay

    rs, induced, book, X, y = mixed
    scores = X.v1.to_numpy()
    disp = MoneyCurveDisplay.from_predictions(y, scores, fn_cost=X.amount.to_numpy(), fp_cost=5.0, rules=rs, X=X)
    tab = rs.evaluate(X, y, per_rule=True, fn_cost=X.amount.to_numpy(), fp_cost=5.0)
    assert len(disp.rule_x) == len(rs) and np.allclose(disp.rule_y, tab["set_net_money"])


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgres"])
def test_a_single_rule_that_is_an_or_reads_back_as_one_rule(dialect):
    rs = RuleSet.from_sql({"one": "a > 0 OR b > 0 OR ch = 'web'"}, dialect=dialect)
    for text in (rs.to_sql("t", dialect=dialect), rs.to_sql(dialect=dialect, where_only=True)):
        back = RuleSet.from_sql(text, dialect=dialect)
        assert back.names == ["one"], text
        np.testing.assert_array_equal(back.predict(DF), rs.predict(DF))
    # without a naming comment, each top-level OR branch of a SELECT is a rule
    assert len(RuleSet.from_sql("SELECT * FROM t WHERE (a > 0 OR b > 0)")) == 2
    assert len(RuleSet.from_sql("a > 0 OR b > 0")) == 1  # a bare condition is one rule


def test_rule_interface_truth_masks_and_numpy_input(engines):
    """SQLRule on its own: mask (TRUE rows), truth (TRUE and FALSE, UNKNOWN neither) against the engine's
    WHERE cond and WHERE NOT cond; numpy input through feature names."""
    r = RuleSet.from_sql({"r": "a > 0 AND (b < 1 OR k IN (1, NULL))"}, dialect="duckdb")[0]
    t, f = r.truth(DF)
    np.testing.assert_array_equal(t, _flagged(engines["duckdb"], str(r)).astype(bool))
    np.testing.assert_array_equal(f, _flagged(engines["duckdb"], f"NOT ({r})").astype(bool))
    assert not (t & f).any() and (~t & ~f).any()  # some rows are UNKNOWN
    np.testing.assert_array_equal(r.mask(DF), t)
    X = DF[["b", "a", "k"]].astype(float).to_numpy()
    np.testing.assert_array_equal(r.mask(X, feature_names=["b", "a", "k"]), t)
    assert SQLRule.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    assert pickle.loads(pickle.dumps(r)) == r and r.columns == ["a", "b", "k"]
