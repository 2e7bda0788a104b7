"""Rules on pandas ``category`` columns, from lightgbm (pandas categorical), xgboost (``enable_categorical``,
also the early-stopped ``CSXGBClassifier``) and ``RIFFClassifier`` over a boosting estimator: the text
names the category values (not the library's codes), and the SQL (DuckDB on an ENUM and on a VARCHAR
column, SQLite text, Snowflake text parsed back by sqlglot) and the pandas query select exactly the rows
``predict`` flags. The category values need quoting: a quote, spaces, SQL syntax, unicode, the empty
string, and missing values in the column."""

import ast
import re
import sqlite3

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import sqlglot
import xgboost as xgb

from csboost_plugins.rules import CategorySet, RIFFClassifier, Rule, RuleSet, extract_rules
from csboost_plugins.xgb import CSXGBClassifier

duckdb = pytest.importorskip("duckdb", reason="pip install duckdb (dev extra)")

# xgboost stores non-ASCII category names garbled (extract_rules refuses them by name,
# tests/test_rules_xgb_non_ascii.py): its models get the ASCII values only
ASCII = ["o'brien", "card present", "x'); DROP TABLE t; --", 'say "hi"', "web", ""]
UNICODE = ["Zürich ünï", "日本 店"]
RISK = {"o'brien": 2.0, "card present": -1.5, "x'); DROP TABLE t; --": 1.2, 'say "hi"': 0.3, "web": 0.0, "": 0.8,
        "Zürich ünï": 1.5, "日本 店": -0.5}


def _frame(levels, n=4000, seed=0, unseen=()):
    """Transactions; ``unseen``: values the model never saw, in 3 % of the rows (predict treats them as
    missing, and so must the SQL and the query)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"amount": np.round(rng.lognormal(3, 1, n), 2),
                       "merchant": pd.Categorical(rng.choice(levels, n), categories=list(levels) + list(unseen)),
                       "hour": rng.integers(0, 24, n).astype(float)})
    if unseen:
        df.loc[rng.random(n) < 0.03, "merchant"] = unseen[0]
    df.loc[rng.random(n) < 0.08, "merchant"] = np.nan
    risk = df["merchant"].map(RISK).astype(float).fillna(1.0).to_numpy()
    logit = risk + np.log(df["amount"].to_numpy()) - 4.5 + 0.8 * (df["hour"].to_numpy() < 6)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return df, y


def _models():
    """(name, levels, fit(df, y) -> RuleSet): each library's rules on the frame, at least one categorical."""
    def lgb_rules(df, y):
        m = lgb.LGBMClassifier(n_estimators=8, num_leaves=8, min_child_samples=10, verbose=-1, random_state=0)
        return RuleSet(extract_rules(m.fit(df, y))[::3][:14], last_rule_probability=0.6)

    def xgb_rules(df, y):
        m = xgb.XGBClassifier(n_estimators=6, max_depth=3, enable_categorical=True, max_cat_to_onehot=1,
                              tree_method="hist", random_state=0)
        return RuleSet(extract_rules(m.fit(df, y))[::2][:14], last_rule_probability=0.6)

    def csxgb_rules(df, y):
        half = len(y) // 2
        amount = df["amount"].to_numpy()
        m = CSXGBClassifier(n_estimators=200, learning_rate=0.5, max_depth=4, enable_categorical=True,
                            max_cat_to_onehot=1, early_stopping_rounds=3, random_state=0)
        m.fit(df[:half], y[:half], fn_cost=amount[:half], fp_cost=5.0, eval_set=[(df[half:], y[half:])],
              eval_costs=[{"fn_cost": amount[half:], "fp_cost": 5.0}])
        assert m.n_estimators_ < 200  # early-stopped: the rules come from the kept rounds
        return RuleSet(extract_rules(m)[:14])

    def riff(estimator):
        def fit(df, y):
            return RIFFClassifier(estimator=estimator, max_fpr=0.05, random_state=0).fit(df, y).rule_set_
        return fit

    return [("lightgbm", ASCII + UNICODE, lgb_rules),
            ("xgboost", ASCII, xgb_rules),
            ("csxgb_early_stopped", ASCII, csxgb_rules),
            ("riff_lightgbm", ASCII + UNICODE,
             riff(lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, random_state=0))),
            ("riff_xgboost", ASCII,
             riff(xgb.XGBClassifier(n_estimators=10, max_depth=3, enable_categorical=True, max_cat_to_onehot=1,
                                    random_state=0)))]


MODELS = {name: (levels, fit) for name, levels, fit in _models()}


@pytest.fixture(scope="module", params=list(MODELS))
def fitted(request):
    levels, fit = MODELS[request.param]
    df, y = _frame(levels)
    rs = fit(df, y)
    assert any(isinstance(c, CategorySet) for r in rs for c in r.conditions), f"{request.param}: no category rule"
    test, _ = _frame(levels, n=3000, seed=1, unseen=("new shop",))  # fresh rows, NaN and an unseen value
    expect = rs.predict(test).astype(bool)
    assert 0 < expect.sum() < len(expect)
    return request.param, rs, test, expect


# ----------------------------------------------------------------------------- engines
def _quote(name):
    return '"' + name.replace('"', '""') + '"'


def _duckdb_rows(frame, sql, *, enum):
    """Row numbers DuckDB selects with ``sql`` on ``frame`` as table t: the category column as ENUM (pandas
    category registered as is) or as VARCHAR (the values as text)."""
    con = duckdb.connect()
    f = frame.copy() if enum else frame.assign(merchant=frame["merchant"].astype(object))
    f.insert(0, "rowid_", np.arange(len(f)))
    con.register("frame_", f)
    con.execute("CREATE TABLE t AS SELECT * FROM frame_")
    kind = dict((r[0], r[1]) for r in con.execute("DESCRIBE t").fetchall())["merchant"]
    assert kind.startswith("ENUM(") if enum else kind == "VARCHAR"
    return _selected(con.execute(f'SELECT "rowid_" FROM ({sql}) AS s').fetchall(), len(frame))


def _sqlite_rows(frame, sql):
    con = sqlite3.connect(":memory:")
    cols = ["rowid_", *frame.columns]
    kinds = {"rowid_": "INTEGER", "merchant": "TEXT"}
    con.execute("CREATE TABLE t (" + ", ".join(f"{_quote(c)} {kinds.get(c, 'REAL')}" for c in cols) + ")")
    rows = [(i, a, None if pd.isna(m) else str(m), h) for i, (a, m, h) in enumerate(frame.itertuples(index=False))]
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    assert con.execute("SELECT count(*) FROM t WHERE merchant IS NULL").fetchone()[0] == frame["merchant"].isna().sum()
    return _selected(con.execute(f'SELECT "rowid_" FROM ({sql}) AS s').fetchall(), len(frame))


def _selected(rows, n):
    got = np.zeros(n, bool)
    got[[r[0] for r in rows]] = True
    return got


# ----------------------------------------------------------------------------- tests
def test_rule_text_names_the_category_values(fitted):
    """Each printed category set, read back as a Python set of values, is the condition: on every row with a
    training value, ``merchant in {...}`` holds iff the value is in the printed set (``not in``: iff not)."""
    name, rs, test, _ = fitted
    values = test["merchant"].astype(object).to_numpy()
    n_sets = 0
    for rule in rs:
        conds = [c for c in rule.conditions if isinstance(c, CategorySet)]
        shown = re.findall(r"merchant (not in|in) (\{[^}]*\})", str(rule))  # the test's values hold no brace
        assert len(shown) == len(conds), f"{name}: {rule}"
        known = np.isin(values, list(rule.categories[1]))
        for c, (op, items) in zip(conds, shown):
            printed = ast.literal_eval(items) if items != "{}" else set()
            assert printed <= set(rule.categories[1]), f"{name}: printed {printed!r} are not category values"
            alone = RuleSet([Rule([c], feature_names=rule.feature_names, categories=rule.categories)])
            holds = alone.coverage(test)[:, 0]
            want = np.isin(values[known], list(printed)) != (op == "not in")
            np.testing.assert_array_equal(holds[known], want, err_msg=f"{name}: {rule}")
            n_sets += 1
    assert n_sets


def test_sql_in_duckdb_enum_and_varchar_and_sqlite_selects_predict_rows(fitted):
    name, rs, test, expect = fitted
    for last_rule, want in (("round", expect), ("include", rs.predict(test, last_rule="include").astype(bool))):
        duck = rs.to_sql("t", dialect="duckdb", last_rule=last_rule)
        np.testing.assert_array_equal(_duckdb_rows(test, duck, enum=True), want, err_msg=f"{name} ENUM: {duck}")
        np.testing.assert_array_equal(_duckdb_rows(test, duck, enum=False), want, err_msg=f"{name} VARCHAR: {duck}")
        lite = rs.to_sql("t", dialect="sqlite", last_rule=last_rule)
        np.testing.assert_array_equal(_sqlite_rows(test, lite), want, err_msg=f"{name} SQLite: {lite}")


def test_snowflake_sql_names_the_values_and_selects_predict_rows(fitted):
    """No Snowflake engine here: the Snowflake text parses back (sqlglot, read='snowflake') to IN lists of
    exactly the category values of the rules' sets, and transpiled to DuckDB selects predict's rows."""
    name, rs, test, expect = fitted
    sql = rs.to_sql(("analytics", "card tx"), dialect="snowflake")
    tree = sqlglot.parse_one(sql, read="snowflake")
    assert [t.name for t in tree.find_all(sqlglot.exp.Table)] == ["card tx"]
    in_lists = {lit.this for node in tree.find_all(sqlglot.exp.In) for lit in node.expressions}
    levels = set(test["merchant"].cat.categories) - {"new shop"}
    printed = {rule.categories[c.feature][k] for rule in rs for c in rule.conditions
               if isinstance(c, CategorySet) for k in c.codes}
    assert printed <= in_lists <= levels | {str(v) for v in levels}
    assert any("'" in v for v in in_lists) or "o'brien" not in printed
    got = _duckdb_rows(test, tree.sql(dialect="duckdb").replace('"analytics"."card tx"', '"t"'), enum=False)
    np.testing.assert_array_equal(got, expect, err_msg=f"{name}: {sql}")


def test_pandas_query_selects_predict_rows(fitted):
    name, rs, test, expect = fitted
    q = rs.to_pandas_query()
    np.testing.assert_array_equal(test.index.isin(test.query(q, engine="python").index), expect, err_msg=q)
    np.testing.assert_array_equal(test.index.isin(test.query(q).index), expect, err_msg=q)  # pandas' default engine
    # the same query on the values as plain strings (a frame read from a warehouse)
    plain = test.assign(merchant=test["merchant"].astype(object))
    np.testing.assert_array_equal(plain.index.isin(plain.query(q, engine="python").index), expect, err_msg=q)
