"""Rule books with actions: allow / block / review rules read top-down, first match wins.

Checked against DuckDB and SQLite running the same CASE text on tables with NULLs, and the money against a
brute-force re-run of the book without each rule."""

import pickle
import sqlite3

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet, optimize_rule_book

duckdb = pytest.importorskip("duckdb")

ACTIONS = ("allow", "block", "review")


def _data(seed, n=400):
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 1, n).round(2)
    b = rng.integers(0, 10, n).astype(float)
    c = rng.normal(5, 2, n).round(1)
    for col in (a, b, c):
        col[rng.random(n) < 0.15] = np.nan
    s = np.array(["x", "y", "z"], dtype=object)[rng.integers(0, 3, n)]
    s[rng.random(n) < 0.15] = None
    return pd.DataFrame({"rid": np.arange(n), "a": a, "b": b, "c": c, "s": s})


def _condition(rng):
    t = round(float(rng.normal(0, 1)), 2)
    k = int(rng.integers(0, 3))
    return [f"a > {t}", f"b <= {k + 3}", "c IS NULL", f"a + c > {t + 5}", f"NOT (a > {t})", f"s = '{'xyz'[k]}'",
            f"a > {t} OR b < {k}", f"c BETWEEN {4 + t} AND 7", f"s IN ('x', 'y') AND b > {k}",
            f"COALESCE(a, 0) < {t}", "s IS NOT NULL AND NOT (c > 5)"][int(rng.integers(0, 11))]


def _random_book(seed, k=None):
    rng = np.random.default_rng(seed)
    k = k or int(rng.integers(2, 7))
    return [(f"r{i}", _condition(rng), ACTIONS[int(rng.integers(0, 3))]) for i in range(k)]


def _case_text(entries):
    whens = " ".join(f"WHEN {cond} /* rule: {name} */ THEN '{act}'" for name, cond, act in entries)
    return f"CASE {whens} END"


def _engine_actions(engine, df, case_sql):
    """(each row's action, the rows flagged) of a CASE run by the engine itself on ``df``'s rows."""
    if engine == "duckdb":
        con, types = duckdb.connect(), "rid INTEGER, a DOUBLE, b DOUBLE, c DOUBLE, s VARCHAR"
    else:
        con, types = sqlite3.connect(":memory:"), "rid INTEGER, a REAL, b REAL, c REAL, s TEXT"
    con.execute(f"CREATE TABLE transactions ({types})")
    con.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?, ?)", _records(df))
    got = con.execute(f"SELECT rid, {case_sql} AS act FROM transactions ORDER BY rid").fetchall()
    flagged = con.execute(f"SELECT rid FROM transactions WHERE ({case_sql}) IN ('block', 'review')").fetchall()
    con.close()
    return [g[1] for g in got], sorted(r[0] for r in flagged)


def _records(df):
    def cell(v):
        return None if v is None or (isinstance(v, float) and np.isnan(v)) else v

    return [tuple(cell(v) for v in row) for row in df.astype(object).itertuples(index=False)]


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
@pytest.mark.parametrize("seed", range(12))
def test_actions_and_predict_equal_the_engines_case(engine, seed):
    df = _data(seed)
    entries = _random_book(100 + seed)
    text = _case_text(entries)
    book = RuleSet.from_sql(text, dialect=engine)
    assert book.names == [e[0] for e in entries] and book.actions_ == [e[2] for e in entries]
    want, flagged = _engine_actions(engine, df, text)
    assert list(book.actions(df)) == want
    assert np.flatnonzero(book.predict(df)).tolist() == flagged
    # the CASE written back by to_sql gives the same actions in the engine
    back, back_flagged = _engine_actions(engine, df, book.to_sql(dialect=engine, where_only=True))
    assert back == want and back_flagged == flagged


def test_select_form_and_to_sql_select_run_in_the_engine():
    df = _data(3)
    entries = _random_book(7, k=5)
    book = RuleSet.from_sql(f"SELECT *, {_case_text(entries)} AS action FROM transactions", dialect="duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE transactions (rid INTEGER, a DOUBLE, b DOUBLE, c DOUBLE, s VARCHAR)")
    con.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?, ?)", _records(df))
    got = con.execute(f"SELECT rid, action FROM ({book.to_sql(dialect='duckdb')}) ORDER BY rid").fetchall()
    con.close()
    assert [g[1] for g in got] == list(book.actions(df))
    again = RuleSet.from_sql(book.to_sql(dialect="duckdb"), dialect="duckdb")
    assert again.names == book.names and again.actions_ == book.actions_
    assert list(again.actions(df)) == list(book.actions(df))


def test_null_condition_falls_through_to_the_next_when():
    df = pd.DataFrame({"a": [np.nan, 2.0, 0.0], "b": [1.0, 1.0, np.nan]})
    book = RuleSet.from_sql("CASE WHEN a > 1 THEN 'allow' WHEN b > 0 THEN 'block' END")
    # row 0: a is NULL, so the allow rule is unknown and the block rule is tried; row 2: neither is TRUE
    assert list(book.actions(df)) == [["block", "allow", None][i] for i in range(3)]
    assert book.predict(df).tolist() == [1, 0, 0]


def test_allow_rule_exempts_rows_from_every_rule_below():
    df = pd.DataFrame({"age": [2000.0, 10, 2000, 10], "amount": [600.0, 600, 50, 50]})
    book = RuleSet.from_sql({"trusted": ("age > 1000", "allow"), "big": ("amount > 500", "block"),
                             "any": "amount > 0"})
    assert list(book.actions(df)) == ["allow", "block", "allow", "review"]
    assert book.predict(df).tolist() == [0, 1, 0, 1]
    assert book.predict_proba(df).tolist() == [0.0, 1.0, 0.0, 1.0]
    # the same rules without the allow rule flag every row
    assert book[[1, 2]].predict(df).tolist() == [1, 1, 1, 1]
    q = book.to_pandas_query()
    assert df.eval(q, engine="python").astype(int).tolist() == book.predict(df).tolist()


def _brute_net(book, df, y, fp, fn, tp, tn, decline, w):
    """Net money, alert cost and counts of the book, row by row from each rule's own mask."""
    masks = [r.mask(df) for r in book.rules]
    net = alert = blocked = reviewed = 0.0
    for i in range(len(df)):
        act = next((book.actions_[j] for j, m in enumerate(masks) if m[i]), None)
        if act in ("block", "review"):
            blocked += w[i] * (act == "block")
            reviewed += w[i] * (act == "review")
            if y[i] == 1:
                net += w[i] * (fn[i] - tp[i])
            else:
                c = (decline[i] if act == "block" else fp[i]) - tn[i]
                net -= w[i] * c
                alert += w[i] * c
    return net, alert, blocked, reviewed


@pytest.mark.parametrize("seed", range(6))
def test_money_and_unique_money_equal_brute_force_removal(seed):
    rng = np.random.default_rng(seed)
    df = _data(seed, n=300)
    y = (rng.random(len(df)) < 0.3).astype(int)
    fp, fn = rng.uniform(1, 20, len(df)), rng.uniform(10, 500, len(df))
    tp, tn = rng.uniform(0, 5, len(df)), np.zeros(len(df))
    decline = rng.uniform(20, 80, len(df))
    w = rng.uniform(0.5, 2, len(df))
    entries = _random_book(200 + seed, k=6)
    entries[0] = (entries[0][0], entries[0][1], "allow")  # at least one allow rule
    book = RuleSet.from_sql(entries)
    kw = dict(fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn, decline_cost=decline, sample_weight=w)
    res = book.evaluate(df, y, **kw)
    net, alert, blocked, reviewed = _brute_net(book, df, y, fp, fn, tp, tn, decline, w)
    assert res["net_money"] == pytest.approx(net)
    assert res["alert_cost"] == pytest.approx(alert)
    assert (res["blocked"], res["reviewed"]) == pytest.approx((blocked, reviewed))
    assert res["cost"] == pytest.approx(res["cost_no_rules"] - net)
    table = book.evaluate(df, y, per_rule=True, **kw)
    assert list(table["action"]) == book.actions_
    for j in range(len(book)):
        without = _brute_net(book.drop(j), df, y, fp, fn, tp, tn, decline, w)[0]
        assert table["unique_net_money"].iloc[j] == pytest.approx(net - without, abs=1e-9)
    assert table["set_net_money"].iloc[-1] == pytest.approx(net)


def test_unique_money_of_an_allow_rule_can_be_either_sign():
    df = pd.DataFrame({"t": [1.0, 1, 0, 0], "amount": [600.0, 50, 600, 50]})
    y = np.array([1, 0, 1, 0])
    book = RuleSet.from_sql([("trusted", "t = 1", "allow"), ("all", "amount > 0", "review")])
    table = book.evaluate(df, y, fp_cost=10.0, fn_cost=df["amount"], per_rule=True)
    # without the allow rule, row 0 (a fraud of 600) is caught and row 1 costs a false alert of 10
    assert table.loc[1, "unique_net_money"] == pytest.approx(-(600 - 10))
    y2 = np.array([0, 0, 1, 0])
    table = book.evaluate(df, y2, fp_cost=10.0, fn_cost=df["amount"], per_rule=True)
    assert table.loc[1, "unique_net_money"] == pytest.approx(20.0)  # it spares two false alerts


def test_decline_cost_default_costs_a_block_like_a_review():
    df = _data(5)
    rng = np.random.default_rng(5)
    y = (rng.random(len(df)) < 0.3).astype(int)
    review_book = RuleSet.from_sql([("r1", "a > 0", "review"), ("r2", "b < 4", "review")])
    block_book = RuleSet.from_sql([("r1", "a > 0", "block"), ("r2", "b < 4", "review")])
    kw = dict(fp_cost=5.0, fn_cost=100.0)
    plain, blocked = review_book.evaluate(df, y, **kw), block_book.evaluate(df, y, **kw)
    assert blocked["net_money"] == pytest.approx(plain["net_money"])
    assert blocked["blocked"] + blocked["reviewed"] == pytest.approx(plain["alert_rate"] * len(df))
    dear = block_book.evaluate(df, y, decline_cost=50.0, **kw)
    n_blocked_neg = int(((df["a"] > 0) & (y == 0)).sum())
    assert dear["alert_cost"] - blocked["alert_cost"] == pytest.approx(45.0 * n_blocked_neg)


def test_plain_book_keeps_predict_sql_and_json():
    df = _data(1)
    plain = RuleSet.from_sql({"r1": "a > 0.5", "r2": "s = 'x'"})
    pairs = RuleSet.from_sql({"r1": ("a > 0.5", "review"), "r2": ("s = 'x'", "review")})
    assert plain.actions_ == ["review", "review"] and not plain.has_actions
    assert pairs.to_sql(dialect="duckdb") == plain.to_sql(dialect="duckdb")
    assert plain.to_sql().startswith('SELECT * FROM "transactions" WHERE')
    assert plain.predict(df).tolist() == plain.coverage(df).any(axis=1).astype(int).tolist()
    assert all("action" not in r for r in plain.to_dict()["rules"])
    y = np.arange(len(df)) % 3 == 0
    assert plain.evaluate(df, y, fp_cost=1.0, fn_cost=9.0) == pairs.evaluate(df, y, fp_cost=1.0, fn_cost=9.0)


def test_json_pickle_and_slicing_keep_actions():
    df = _data(2)
    book = RuleSet.from_sql(_case_text(_random_book(11, k=5)))
    back = RuleSet.from_json(book.to_json())
    assert back.names == book.names and back.actions_ == book.actions_
    assert list(back.actions(df)) == list(book.actions(df))
    assert pickle.loads(pickle.dumps(book)).actions_ == book.actions_
    sub = book[[3, 0, 1]]
    assert sub.names == [book.names[i] for i in (3, 0, 1)]
    assert sub.actions_ == [book.actions_[i] for i in (3, 0, 1)]
    assert book.drop(0).actions_ == book.actions_[1:]


def test_names_from_comments_and_list_forms():
    text = """SELECT *, CASE
        WHEN customer_age_days > 1000 THEN 'allow'   -- rule: trusted
        WHEN amount > 5000 /* rule: huge */ THEN 'block'
        WHEN amount > 500 THEN 'review'
        ELSE NULL END AS action FROM t"""
    book = RuleSet.from_sql(text)
    assert book.names == ["trusted", "huge", "rule_3"]
    assert book.actions_ == ["allow", "block", "review"]
    lst = RuleSet.from_sql([("customer_age_days > 1000", "allow"), "amount > 500"])
    assert lst.names == ["rule_1", "rule_2"] and lst.actions_ == ["allow", "review"]
    named = RuleSet.from_sql([("trusted", "customer_age_days > 1000", "allow")])
    assert named.names == ["trusted"] and named.actions_ == ["allow"]


@pytest.mark.parametrize("text, match", [
    ("CASE WHEN a > 1 THEN 'allow' ELSE 'review' END", "leave ELSE out"),
    ("CASE WHEN a > 1 THEN 'deny' END", "unknown action 'deny'"),
    ("CASE WHEN a > 1 THEN 1 END", "THEN must be an action"),
    ("CASE a WHEN 1 THEN 'block' END", "searched CASE"),
    ("SELECT *, CASE WHEN a > 1 THEN 'block' END AS x FROM t WHERE b > 0", "no WHERE"),
])
def test_bad_case_is_a_value_error(text, match):
    with pytest.raises(ValueError, match=match):
        RuleSet.from_sql(text)


def test_bad_actions_are_named():
    with pytest.raises(ValueError, match="'deny'"):
        RuleSet.from_sql({"r": ("a > 1", "deny")})
    with pytest.raises(ValueError, match="'Block'"):
        RuleSet.from_sql([("r", "a > 1", "Block")])
    rules = RuleSet.from_sql({"r": "a > 1"}).rules
    with pytest.raises(ValueError, match="one action per rule"):
        RuleSet(rules, actions=["allow", "block"])
    with pytest.raises(ValueError, match="last_rule_probability"):
        RuleSet(rules, actions=["block"], last_rule_probability=0.5)
    with pytest.raises(ValueError, match="action"):
        RuleSet.from_dict(dict(RuleSet(rules).to_dict(), rules=[dict(rules[0].to_dict(), action="x")]))


def test_decline_cost_is_checked():
    df = _data(4, n=50)
    y = np.zeros(50, int)
    book = RuleSet.from_sql([("r", "a > 0", "block")])
    with pytest.raises(TypeError, match="decline_cost needs"):
        book.evaluate(df, y, decline_cost=3.0)
    with pytest.raises(ValueError, match="decline_cost"):
        book.evaluate(df, y, fp_cost=1.0, fn_cost=1.0, decline_cost=np.ones(3))
    shifted = pd.Series(np.ones(50), index=np.arange(50) + 7)
    with pytest.raises(ValueError, match="decline_cost"):
        book.evaluate(df, y, fp_cost=1.0, fn_cost=1.0, decline_cost=shifted)


def test_optimizer_keeps_order_and_actions_and_only_improves_held_out_money():
    rng = np.random.default_rng(0)
    n = 8000
    X = pd.DataFrame({"age": rng.integers(0, 3000, n).astype(float), "amount": rng.exponential(200, n)})
    y = (rng.random(n) < 0.002 + 0.3 * ((X.amount > 400) & (X.age < 1500))).astype(int)
    book = RuleSet.from_sql({"trusted": ("age > 2500", "allow"), "big": ("amount > 900", "block"),
                             "mid": "amount > 300"})
    kw = dict(fp_cost=10.0, fn_cost=X["amount"].to_numpy())
    new = optimize_rule_book(book, X, y, candidates=None, max_alert_rate=0.3, random_state=0, cv=None, **kw)
    assert new.names == book.names and new.actions_ == book.actions_
    assert new.selection["origin"]["trusted"] == "retuned"  # the allow rule's literal moves too
    sel = new.selection["selection_index"]
    assert new.evaluate(X.iloc[sel], y[sel], fp_cost=10.0, fn_cost=kw["fn_cost"][sel])["net_money"] >= \
        book.evaluate(X.iloc[sel], y[sel], fp_cost=10.0, fn_cost=kw["fn_cost"][sel])["net_money"]
    assert new.evaluate(X.iloc[sel], y[sel])["alert_rate"] <= 0.3
    with pytest.raises(ValueError, match="candidates must be 'riff' or None"):
        optimize_rule_book(book, X, y, random_state=0, candidates=RuleSet.from_sql(["age < 5"]), **kw)


@pytest.mark.parametrize("seed", range(4))
def test_book_money_is_linear_in_one_rules_matches(seed):
    # the optimiser's re-tuning objective: the book's net money and alerts with rule j matching the rows M equal
    # those with rule j matching nothing plus the sum over M of its marginal column (brute force on random M)
    from csboost_plugins.rules._book_order import _book_sums, _marginal, _row_values
    from csboost_plugins.rules._select import Budget

    rng = np.random.default_rng(seed)
    df = _data(seed, n=200)
    y = (rng.random(200) < 0.3).astype(int)
    costs = np.column_stack([rng.uniform(1, 9, 200), rng.uniform(5, 99, 200), np.zeros(200), np.zeros(200)])
    book = RuleSet.from_sql(_random_book(300 + seed, k=5))
    decline = rng.uniform(10, 30, 200)
    money, alerts, codes = _row_values(book, y, np.ones(200), costs, decline, Budget("alert_rate", 0.1).kind)
    cover = book.coverage(df)
    res = book.evaluate(df, y, cost_matrix=costs, decline_cost=decline)
    assert _book_sums(cover, money, alerts, codes) == pytest.approx((res["net_money"], res["alert_rate"] * 200))
    for j in range(len(book)):
        D = _marginal(cover, j, money, alerts, codes)
        empty = cover.copy()
        empty[:, j] = False
        base = _book_sums(empty, money, alerts, codes)
        M = rng.random(200) < 0.4
        other = cover.copy()
        other[:, j] = M
        got = _book_sums(other, money, alerts, codes)
        assert got == pytest.approx((base[0] + D[M, 0].sum(), base[1] + D[M, 1].sum()))


def test_dask_predict_and_evaluate_follow_the_actions():
    dd = pytest.importorskip("dask.dataframe")
    df = _data(8).drop(columns="s")
    book = RuleSet.from_sql([("ok", "a > 0", "allow"), ("any", "c > 3", "review")])
    ddf = dd.from_pandas(df, npartitions=3)
    assert book.predict(ddf).compute().tolist() == book.predict(df).tolist()
    assert book.predict(df).sum() < RuleSet.from_sql(["c > 3"]).predict(df).sum()  # the allow rule exempts rows
    y = (df["b"].fillna(0) > 5).astype(int)  # dask evaluate: the in-memory figures (tests/test_actions_reduce.py)
    assert book.evaluate(ddf, dd.from_pandas(y, npartitions=3)) == book.evaluate(df, y)


def test_induced_rules_with_actions_agree_with_sqlite():
    from sklearn.tree import DecisionTreeClassifier

    from csboost_plugins.rules import extract_rules

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    X.loc[rng.random(300) < 0.1, "a"] = np.nan
    y = ((X.a.fillna(0) > 0.3) ^ (X.b > 0.5)).astype(int)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.fillna(-9), y)
    rs = RuleSet(extract_rules(tree, feature_names=["a", "b"])[:4], actions=["allow", "block", "review", "block"])
    con = sqlite3.connect(":memory:")
    X.assign(rid=np.arange(300)).to_sql("transactions", con, index=False)
    sql = rs.to_sql(dialect="sqlite").replace("SELECT *", "SELECT rid", 1)
    got = [r[-1] for r in con.execute(sql + " ORDER BY rid")]
    con.close()
    assert got == list(rs.actions(X))
    assert set(got) >= {"allow", "block", "review"}


def test_diff_reports_a_change_of_action():
    # the same text under another action books other money (a block declines, a review only alerts): not "kept"
    old = RuleSet.from_sql({"trusted": ("age > 2500", "allow"), "big": ("amount > 900", "review"),
                            "mid": ("amount > 300", "review"), "gone": ("age < 1", "block")})
    new = RuleSet.from_sql({"trusted": ("age > 2500", "allow"), "big": ("amount > 900", "block"),
                            "mid": ("amount > 350", "block"), "fresh": ("age < 2", "review")})
    tab = old.diff(new)
    assert list(tab["name"]) == ["trusted", "big", "mid", "gone", "fresh"]
    assert list(tab["change"]) == ["kept", "action changed", "retuned, action changed", "dropped", "added"]
    assert [None if pd.isna(a) else a for a in tab["old_action"]] == ["allow", "review", "review", "block", None]
    assert [None if pd.isna(a) else a for a in tab["new_action"]] == ["allow", "block", "block", None, "review"]
    # a plain book (every rule 'review') keeps the four columns
    plain = RuleSet.from_sql({"big": "amount > 900"}).diff(RuleSet.from_sql({"big": "amount > 900"}))
    assert list(plain.columns) == ["name", "change", "old_rule", "new_rule"] and list(plain["change"]) == ["kept"]


def _priority_case(n=6000, seed=0):
    """An allow list of trusted customers above a block and a review; the fraud also sits where no book rule
    looks (``v`` high and ``u`` low), so induced rules have money to find below the book."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(0, 3000, n).astype(float), "amount": rng.exponential(200, n),
                      "u": rng.normal(size=n), "v": rng.normal(size=n)})
    hidden = (X.v > 1.3) & (X.u < -0.3)
    y = (rng.random(n) < 0.002 + 0.3 * ((X.amount > 600) & (X.age < 1500)) + 0.6 * hidden).astype(int)
    book = RuleSet.from_sql({"trusted": ("age > 2700", "allow"), "big": ("amount > 900", "block"),
                             "mid": "amount > 600 AND age < 1500"})
    return X, y, book, dict(fp_cost=10.0, fn_cost=X["amount"].to_numpy() + 50.0)


def _first_match_money(rs, X, y, fp, fn):
    """Brute force: each row's money under the action of the first rule matching it, rule masks one by one."""
    out = np.zeros(len(y))
    decided = np.zeros(len(y), bool)
    for rule, act in zip(rs.rules, rs.actions_):
        m = RuleSet([rule], feature_names=rs.feature_names).predict(X).astype(bool) & ~decided
        if act != "allow":
            out[m] = np.where(y[m] == 1, fn[m], -fp)
        decided |= m
    return out


def test_in_order_optimiser_adds_induced_review_rules_below_the_book():
    X, y, book, kw = _priority_case()
    new = optimize_rule_book(book, X, y, max_fpr=0.05, random_state=0, cv=None, **kw)
    k = len(book)
    assert new.names[:k] == book.names and new.actions_[:k] == book.actions_
    added = new.names[k:]
    assert added and all(nm.startswith("riff_") for nm in added)
    assert new.actions_[k:] == ["review"] * len(added)
    assert [new.selection["origin"][nm] for nm in added] == ["added"] * len(added)
    # the allow rule above still exempts: no row it matches is flagged, though induced rules match some of them
    trusted = RuleSet([new.rules[0]], feature_names=new.feature_names).predict(X).astype(bool)
    induced = RuleSet(new.rules[k:], feature_names=new.feature_names).predict(X).astype(bool)
    assert (trusted & induced).any() and not new.predict(X)[trusted].any()
    # the rows the book's procedure read besides the induction part: within the FPR budget there (brute force)
    rest = np.setdiff1d(np.arange(len(y)), new.selection["induction_index"])
    flagged = new.predict(X.iloc[rest]).astype(bool)
    assert (flagged & (y[rest] == 0)).sum() <= 0.05 * (y[rest] == 0).sum() + 1e-9
    # each induced rule earns on those rows: removing it loses money (brute-force first-match money)
    fp, fn = kw["fp_cost"], kw["fn_cost"]
    full = _first_match_money(new, X.iloc[rest], y[rest], fp, fn[rest]).sum()
    for j in range(k, len(new)):
        assert full > _first_match_money(new.drop([j]), X.iloc[rest], y[rest], fp, fn[rest]).sum()


def test_in_order_choice_money_equals_brute_force_and_induced_rules_win_when_better():
    X, y, book, kw = _priority_case(seed=1)
    fp, fn = kw["fp_cost"], kw["fn_cost"]
    res = optimize_rule_book(book, X, y, max_fpr=0.05, random_state=3, cv=3, **kw)
    choice = res.selection["choice"]
    assert list(choice["candidates"]) == ["book", "book_retuned", "book_and_induced"]  # the book is never dropped
    fold, seeds = np.asarray(choice["fold"]), choice["fold_random_states"]
    procs = {"book": dict(candidates=None, retune=False), "book_retuned": dict(candidates=None, retune=True),
             "book_and_induced": dict(candidates="riff", retune=True)}
    for name, pk in procs.items():
        m = np.zeros(len(y))
        for f in range(3):
            tr, te = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            rs = optimize_rule_book(book, X.iloc[tr], y[tr], max_fpr=0.05, random_state=seeds[f], cv=None,
                                    fp_cost=fp, fn_cost=fn[tr], **pk)
            m[te] = _first_match_money(rs, X.iloc[te], y[te], fp, fn[te])
        assert choice["candidates"][name]["held_out_money"] == pytest.approx(m.sum(), abs=1e-6)
        assert choice["candidates"][name]["fold_money"] == pytest.approx([m[fold == f].sum() for f in range(3)],
                                                                         abs=1e-6)
    assert choice["chosen"] == "book_and_induced", choice["reason"]
    again = optimize_rule_book(book, X, y, max_fpr=0.05, random_state=3, cv=None, **kw)
    assert again.names == res.names and np.array_equal(again.predict(X), res.predict(X))


def test_in_order_choice_money_reads_the_decline_cost():
    # a block declining a legitimate customer costs decline_cost: the held-out money books it per row
    X, y, book, kw = _priority_case(n=3000, seed=2)
    decline = np.full(len(y), 40.0)
    res = optimize_rule_book(book, X, y, max_fpr=0.02, random_state=1, cv=2, candidates=None, retune=False,
                             decline_cost=decline, **kw)
    fold = np.asarray(res.selection["choice"]["fold"]) if res.selection["choice"] else None
    assert fold is None  # a single candidate (the book as written): no choice
    res = optimize_rule_book(book, X, y, max_fpr=0.02, random_state=1, cv=2, candidates=None,
                             decline_cost=decline, **kw)
    c = res.selection["choice"]["candidates"]["book"]
    # the book as written on each fold: a block on a legitimate row costs 40, a review 10 (brute force)
    first = _first_match_money(book, X, y, kw["fp_cost"], kw["fn_cost"])
    blocked_legit = (book.actions(X) == "block") & (y == 0)
    first[blocked_legit] = -40.0
    assert c["held_out_money"] == pytest.approx(first.sum(), abs=1e-6)


def test_riff_classifier_with_a_book_with_actions_and_its_row_positions():
    # RIFFClassifier(rule_book=) optimises a book with actions as optimize_rule_book does (induced 'review' rules
    # below it); the rows the book's re-tuning read are positions of X, outside the induction part
    from csboost_plugins.rules import RIFFClassifier

    X, y, book, kw = _priority_case(n=4000)
    model = RIFFClassifier(rule_book=book, max_fpr=0.05, random_state=0).fit(X, y, **kw)
    direct = optimize_rule_book(book, X, y, max_fpr=0.05, random_state=0, **kw)
    assert model.rule_set_.names == direct.names and model.rule_set_.actions_ == direct.actions_
    assert np.array_equal(model.predict(X), direct.predict(X))
    assert np.isnan(model.precision_prior_)
    want = direct.selection.get("selection_index", np.zeros(0, dtype=np.intp))  # none for the book as written
    np.testing.assert_array_equal(model.selection_index_, want)
    # the book with induced rules (cv=None): the re-tuning's halves are rows of X outside the induction part
    sel = optimize_rule_book(book, X, y, max_fpr=0.05, random_state=0, cv=None, **kw).selection
    for key in ("selection_index", "retune_index"):
        idx = np.asarray(sel[key])
        assert idx.max() < len(y) and not np.isin(idx, sel["induction_index"]).any()
    assert len(np.union1d(sel["selection_index"], sel["retune_index"])) + len(sel["induction_index"]) == len(y)
