"""RuleSet.to_sql in warehouse dialects (sqlglot): the generated SQL, run in real engines (DuckDB, SQLite)
on the rows ``predict`` / ``coverage`` see, selects exactly those rows (float32 ties of xgboost, NaN as
NULL, categorical values, hostile column / table / category names); the other dialects' output parses
back with sqlglot and, transpiled to DuckDB, still selects the same rows. Identifiers are quoted:
``to_sql("t; DROP TABLE users; --")`` cannot drop a table."""

import math
import sqlite3

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import sqlglot  # a base dependency: never skipped
import xgboost as xgb
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import CategorySet, Interval, Rule, RuleSet, extract_rules
from csboost_plugins.rules._export import SQL_DIALECTS

duckdb = pytest.importorskip("duckdb", reason="pip install duckdb (dev extra)")

HOSTILE = ['amount', 'x"; DROP TABLE users; --', "it's `odd`", "a\\b c", "ünï cøde"]


# ----------------------------------------------------------------------------- engines
def _sql_values(df):
    """Rows of df as Python tuples: NaN / None -> NULL, categoricals -> their values (text), numbers -> float."""
    out = []
    for r in df.itertuples(index=False):
        out.append(tuple(None if v is None or (isinstance(v, float) and np.isnan(v)) else
                         (v if isinstance(v, str) else float(v)) for v in r))
    return out


def _quote(name):
    return '"' + name.replace('"', '""') + '"'


def _sqlite_rows(df, table, sqls):
    """For each SELECT in sqls, the row numbers of df it selects, run in sqlite3 on a table named ``table``."""
    con = sqlite3.connect(":memory:")
    cols = ["rowid_"] + list(df.columns)
    con.execute(f"CREATE TABLE {_quote(table)} (" + ", ".join(_quote(c) for c in cols) + ")")
    con.executemany(f"INSERT INTO {_quote(table)} VALUES ({', '.join('?' * len(cols))})",
                    [(i, *r) for i, r in enumerate(_sql_values(df))])
    return [_selected(con.execute(f'SELECT "rowid_" FROM ({s}) AS s').fetchall(), len(df)) for s in sqls]


def _duckdb_rows(df, table, sqls):
    con = duckdb.connect()
    frame = df.copy()
    for c in frame.columns:  # a warehouse holds the category values as text
        if isinstance(frame[c].dtype, pd.CategoricalDtype):
            frame[c] = frame[c].astype(object)
    frame.insert(0, "rowid_", np.arange(len(frame)))
    con.register("frame_", frame)
    con.execute(f"CREATE TABLE {_quote(table)} AS SELECT * FROM frame_")  # pandas NaN arrives as NULL
    return [_selected(con.execute(f'SELECT "rowid_" FROM ({s}) AS s').fetchall(), len(df)) for s in sqls]


def _selected(rows, n):
    got = np.zeros(n, bool)
    got[[r[0] for r in rows]] = True
    return got


def _check_engines(rs, df, X_rules, table="transactions"):
    """The set and each rule alone select in DuckDB and SQLite the rows predict / coverage select."""
    expect = rs.predict(X_rules, last_rule="include").astype(bool)
    cov = rs.coverage(X_rules)
    assert 0 < expect.sum() < len(expect)
    singles = [RuleSet([r]) for r in rs]
    for dialect, run in (("duckdb", _duckdb_rows), ("sqlite", _sqlite_rows)):
        sqls = [s.to_sql(table, dialect=dialect, last_rule="include") for s in [rs, *singles]]
        got = run(df, table, sqls)
        np.testing.assert_array_equal(got[0], expect, err_msg=f"{dialect}: {sqls[0]}")
        for k, g in enumerate(got[1:]):
            np.testing.assert_array_equal(g, cov[:, k], err_msg=f"{dialect}, rule {rs[k]}: {sqls[k + 1]}")
    return expect


# ----------------------------------------------------------------------------- data
def _fraud_frame(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        HOSTILE[0]: np.round(rng.lognormal(3, 1, n), 2),
        HOSTILE[1]: rng.normal(size=n),
        HOSTILE[2]: rng.integers(0, 6, n).astype(float),
        HOSTILE[3]: np.round(rng.uniform(0, 24, n), 1),
        HOSTILE[4]: pd.Categorical(rng.choice(["visa", "o'brien", 'say "hi"', "back\\slash", "x; --"], n)),
    })
    logit = (np.log(df[HOSTILE[0]]) - 3 + df[HOSTILE[1]] + (df[HOSTILE[3]] < 6)
             + 1.5 * (df[HOSTILE[4]] == "o'brien").to_numpy() - 2.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    for c in HOSTILE[:4]:
        df.loc[rng.random(n) < 0.07, c] = np.nan
    df.loc[rng.random(n) < 0.05, HOSTILE[4]] = np.nan
    return df, y


def _plain_names(df):
    """lightgbm refuses JSON special characters in feature names: it trains on f0, f1, ...; the rules get the
    hostile names through ``extract_rules(feature_names=...)``."""
    return df.set_axis([f"f{j}" for j in range(df.shape[1])], axis=1)


def _probe_bounds(df, rules, rng):
    """Rows of df with one numeric column set to a rule bound or its float64 / float32 neighbours (the ties)."""
    blocks = [df]
    for r in rules:
        for c in r.conditions:
            if not isinstance(c, Interval):
                continue
            for b in (c.lower, c.upper):
                if not math.isfinite(b):
                    continue
                vals = [b, np.nextafter(b, -np.inf), np.nextafter(b, np.inf), float(np.float32(b)),
                        float(np.nextafter(np.float32(b), np.float32(np.inf)))]
                block = df.iloc[rng.integers(0, len(df), len(vals))].copy()
                block[df.columns[c.feature]] = vals
                blocks.append(block)
    return pd.concat(blocks, ignore_index=True)


# ----------------------------------------------------------------------------- tests
@pytest.mark.parametrize("lib", ["xgb", "lgb", "lgb_zero", "sklearn"])
def test_sql_selects_predict_rows_in_duckdb_and_sqlite(lib):
    df, y = _fraud_frame()
    rng = np.random.default_rng(1)
    if lib == "xgb":
        m = xgb.XGBClassifier(n_estimators=6, max_depth=3, enable_categorical=True, tree_method="hist").fit(df, y)
    elif lib.startswith("lgb"):
        m = lgb.LGBMClassifier(n_estimators=6, num_leaves=8, verbose=-1, min_child_samples=5,
                               zero_as_missing=lib == "lgb_zero").fit(_plain_names(df), y)
    else:
        df = df.drop(columns=HOSTILE[4])
        m = DecisionTreeClassifier(max_depth=4, random_state=0).fit(df.fillna(-1.0), y)
    rules = extract_rules(m, feature_names=list(df.columns))
    rs = RuleSet(rules[::2][:12], last_rule_probability=0.4)
    Z = _probe_bounds(df, rs, rng)
    _check_engines(rs, Z, Z)
    if lib == "lgb":  # categorical sets reach the SQL as IN lists of the category values
        assert any(isinstance(c, CategorySet) for r in rules for c in r.conditions)


def test_sql_other_dialects_parse_and_select_the_same_rows():
    """spark / snowflake / bigquery / postgres output parses with sqlglot; transpiled to DuckDB it selects the
    rows predict selects (identifier quoting and string escapes survive each dialect's rules)."""
    df, y = _fraud_frame(seed=3)
    m = lgb.LGBMClassifier(n_estimators=5, num_leaves=8, verbose=-1, min_child_samples=5).fit(_plain_names(df), y)
    rs = RuleSet(extract_rules(m, feature_names=list(df.columns))[:10])
    expect = rs.predict(df, last_rule="include").astype(bool)
    sqls = {}
    for d in SQL_DIALECTS:
        sql = rs.to_sql(("analytics", "card tx"), dialect=d, last_rule="include")
        tree = sqlglot.parse_one(sql, read=d)
        assert isinstance(tree, sqlglot.exp.Select)
        assert [t.name for t in tree.find_all(sqlglot.exp.Table)] == ["card tx"]
        cols = {c.name for c in tree.find_all(sqlglot.exp.Column)}
        assert cols <= set(df.columns) and cols
        sqls[d] = tree.sql(dialect="duckdb")
    con = duckdb.connect()
    frame = df.assign(**{HOSTILE[4]: df[HOSTILE[4]].astype(object)})
    frame.insert(0, "rowid_", np.arange(len(frame)))
    con.register("frame_", frame)
    con.execute('CREATE SCHEMA analytics')
    con.execute('CREATE TABLE analytics."card tx" AS SELECT * FROM frame_')
    for d, sql in sqls.items():
        got = _selected(con.execute(f'SELECT "rowid_" FROM ({sql}) AS s').fetchall(), len(df))
        np.testing.assert_array_equal(got, expect, err_msg=f"{d}: {sql}")


def test_to_sql_table_name_cannot_inject():
    """``to_sql("t; DROP TABLE users; --")`` names a table; run by sqlite's executescript, users survives."""
    df = pd.DataFrame({"amount": [1.0, 5.0, np.nan, 9.0], HOSTILE[1]: [0.0, 1.0, 2.0, 3.0]})
    rs = RuleSet([Rule([Interval(0, lower=4.0)]), Rule([Interval(1, upper=0.5, missing=True)])],
                 feature_names=list(df.columns))
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE users (name TEXT)")
    con.execute("INSERT INTO users VALUES ('alice')")
    hostile = "t; DROP TABLE users; --"
    con.execute(f'CREATE TABLE {_quote(hostile)} ("amount" REAL, {_quote(HOSTILE[1])} REAL)')
    con.executemany(f"INSERT INTO {_quote(hostile)} VALUES (?, ?)", _sql_values(df))
    sql = rs.to_sql(hostile, dialect="sqlite")
    con.executescript(f"CREATE TABLE alerts AS {sql};")
    assert con.execute("SELECT name FROM users").fetchall() == [("alice",)]
    assert sorted(con.execute("SELECT amount FROM alerts").fetchall(), key=str) == [(5.0,), (9.0,), (None,)] \
        or len(con.execute("SELECT * FROM alerts").fetchall()) == int(rs.predict(df).sum())
    assert len(con.execute("SELECT * FROM alerts").fetchall()) == int(rs.predict(df).sum()) == 3
    with pytest.raises(sqlite3.OperationalError):  # the old verbatim paste ran the DROP; the quoted name cannot
        con.executescript(f"SELECT * FROM {hostile[:-4]}")  # (sanity: the unquoted name is an injection)
    for d in SQL_DIALECTS:  # every dialect: one statement, the name is one quoted identifier
        (stmt,) = sqlglot.parse(rs.to_sql(hostile, dialect=d), read=d)
        assert [t.name for t in stmt.find_all(sqlglot.exp.Table)] == [hostile]


def test_to_sql_bad_table_and_dialect():
    rs = RuleSet([Rule([Interval(0, lower=1.0)])])
    with pytest.raises(ValueError, match="dialect"):
        rs.to_sql("t", dialect="no_such_sql")
    with pytest.raises(TypeError, match="table"):
        rs.to_sql(42)
    with pytest.raises(TypeError, match="table"):
        rs.to_sql(("a", "b", "c", "d"))
    with pytest.raises(TypeError, match="table"):
        rs.to_sql("")


def test_float_literals_exact_in_duckdb_and_sqlite():
    """Cuts at awkward float64 values (including ones SQLite's decimal parser reads one ulp off, subnormals and
    huge magnitudes) split a column holding the cut and its two neighbours exactly as the rule does."""
    rng = np.random.default_rng(0)
    cuts = np.concatenate([rng.normal(size=60) * 10.0 ** rng.integers(-300, 300, 60),
                           [-426164542.6770567, 3.565424987061171e+29, 5.8837986702409856e-297, 5e-324,
                            -1.7976931348623157e308, 0.1, float(np.float32(0.3)), 2.0 ** 60 + 2.0 ** 8]])
    rules, cols = [], []
    with np.errstate(over="ignore"):  # the neighbour of -DBL_MAX is -inf
        cols = [np.array([b, np.nextafter(b, -np.inf), np.nextafter(b, np.inf), np.nan, -b]) for b in cuts]
    for j, b in enumerate(cuts):
        rules.append(Rule([Interval(j, lower=float(b), lower_closed=bool(j % 2), missing=bool(j % 3 == 0))]))
    names = [f"c{j}" for j in range(len(cuts))]
    df = pd.DataFrame(np.column_stack(cols), columns=names)
    for rule in rules:
        rule.feature_names = names
    cov = RuleSet(rules).coverage(df)
    sqls = [RuleSet([r], feature_names=names).to_sql("t", dialect=d) for d in ("duckdb", "sqlite") for r in rules]
    got = _duckdb_rows(df, "t", sqls[:len(rules)]) + _sqlite_rows(df, "t", sqls[len(rules):])
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g, cov[:, k % len(rules)], err_msg=sqls[k])
    assert "CAST(7149854584034199 AS REAL) / 16777216" in RuleSet([rules[60]], feature_names=names).to_sql(
        "t", dialect="sqlite") or sqlite3.sqlite_version_info >= (3, 43)


def test_infinite_bounds_and_empty_sets():
    df = pd.DataFrame({"a": [-np.inf, -1.0, 0.0, 2.0, np.inf, np.nan]})
    rules = [Rule([Interval(0, lower=-math.inf, lower_closed=False)]),  # x > -inf
             Rule([Interval(0, upper=math.inf, upper_closed=False)]),  # x < inf
             Rule([Interval(0, lower=math.inf)]),  # x >= inf
             Rule([Interval(0, upper=-math.inf)]),  # x <= -inf
             Rule([Interval(0, lower=math.inf, lower_closed=False, missing=True)]),  # x > inf or missing
             Rule([CategorySet(0, codes=(), missing=False)]),
             Rule([CategorySet(0, codes=(), negate=True, missing=True)]),
             Rule([])]
    cov = RuleSet(rules, feature_names=["a"]).coverage(df)
    sqls = [RuleSet([r], feature_names=["a"]).to_sql("t", dialect="duckdb") for r in rules]
    for k, g in enumerate(_duckdb_rows(df, "t", sqls)):
        np.testing.assert_array_equal(g, cov[:, k], err_msg=sqls[k])
    assert RuleSet([]).to_sql("t", where_only=True) == "(FALSE)"


def test_where_only_and_pretty():
    rs = RuleSet([Rule([Interval(0, lower=1.5, upper=2.0, upper_closed=False)], feature_names=["x y"])])
    # integral cuts print as the rule text prints them
    # each rule in parentheses, followed by a comment naming it
    assert rs.to_sql(where_only=True) == '((NOT "x y" IS NULL AND "x y" >= 1.5 AND "x y" < 2) /* rule: riff_1 */)'
    assert rs.to_sql("t", dialect="spark", where_only=True).count("`x y`") == 3
    assert "\n" in rs.to_sql("t", pretty=True) and rs.to_sql("t").startswith('SELECT * FROM "t" WHERE ')


def test_unseen_category_values_are_missing_in_sql_and_pandas_query_as_in_predict():
    """A category value not among the training categories is a missing value for the rules (predict recodes it
    to NaN, as HistGradientBoosting and lightgbm do); the SQL and the pandas query must route it the same way,
    also when missing goes to the in-set side (xgboost's default child) or a negated set excludes missing."""
    rng = np.random.default_rng(0)
    n = 2000
    X = pd.DataFrame({"a": rng.normal(size=n)})
    X["chan"] = pd.Categorical(rng.choice(["web", "pos", "atm", "moto"], n))
    X.loc[rng.random(n) < 0.1, "chan"] = np.nan
    p = X["chan"].map({"web": 0.1, "pos": 0.2, "atm": 0.6, "moto": 0.9}).astype(float).fillna(0.26).to_numpy()
    y = (rng.random(n) < p).astype(int)
    m = xgb.XGBClassifier(n_estimators=3, max_depth=1, enable_categorical=True, max_cat_to_onehot=1).fit(X, y)
    rules = extract_rules(m)
    assert any(isinstance(c, CategorySet) and not c.negate and c.missing for r in rules for c in r.conditions)
    levels = {1: ["atm", "moto", "pos", "web"]}
    rules += [Rule([CategorySet(1, codes=(1,), negate=True, missing=False)], categories=levels),
              Rule([CategorySet(1, codes=(0, 2), negate=False, missing=True)], categories=levels)]
    rs = RuleSet(rules, feature_names=["a", "chan"])
    df = pd.DataFrame({"a": np.linspace(-1, 1, 8),
                       "chan": pd.Categorical(["web", "pos", "atm", "moto", None, "zzz", "new", "zzz"])})
    cov = rs.coverage(df)
    np.testing.assert_array_equal(cov[5:], cov[[4, 4, 4]])  # unseen values are routed like NaN
    sqls = [RuleSet([r], feature_names=["a", "chan"]).to_sql("t", dialect=d) for d in ("duckdb", "sqlite")
            for r in rs]
    got = _duckdb_rows(df, "t", sqls[:len(rs)]) + _sqlite_rows(df, "t", sqls[len(rs):])
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g, cov[:, k % len(rs)], err_msg=sqls[k])
    for k, r in enumerate(rs):
        q = RuleSet([r], feature_names=["a", "chan"]).to_pandas_query()
        np.testing.assert_array_equal(df.eval(q, engine="python").to_numpy(dtype=bool), cov[:, k], err_msg=q)
