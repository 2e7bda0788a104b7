"""Rough edges found by probing: each test fails on the behaviour it guards against."""

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet
from csboost_plugins.rules._rule import CategorySet, Interval, Rule


# ------------------------------------------------------------------ RuleSet leaves its rules alone
def test_ruleset_does_not_rename_the_rules_it_is_given():
    rule = Rule([Interval(0, lower=1.0), CategorySet(1, codes=(0,), missing=True)])
    first = RuleSet([rule], feature_names=["amount", "channel"])
    before = str(first)
    second = RuleSet([first[0]], feature_names=["montant", "canal"], missing_columns=["canal"])
    assert "montant" in str(second) and "canal" in str(second)
    assert str(first) == before and "amount" in before
    assert str(rule) == "x0 >= 1 and " + str(rule).split(" and ")[1] and "x1" in str(rule)
    # both sets still flag by position, each under its own names
    X = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0]])
    assert first.predict(X).tolist() == second.predict(X).tolist() == [0, 1, 0]


# ------------------------------------------------------------------ from_sql: names and messages
@pytest.mark.parametrize("sql", [
    "SELECT * FROM t WHERE a > 1 /* rule: big_a */ OR b < 2 AND a > 0 /* rule: small_b */",
    "SELECT * FROM t WHERE a > 1 -- rule: big_a\n OR b < 2 AND a > 0 -- rule: small_b\n",
    "SELECT * FROM t WHERE (a > 1) /* rule: big_a */ OR (b < 2 AND a > 0) /* rule: small_b */",
])
def test_from_sql_reads_rule_names_of_bare_or_branches(sql):
    rs = RuleSet.from_sql(sql)
    assert rs.names == ["big_a", "small_b"]
    X = pd.DataFrame({"a": [2.0, 0.5, 0.5, -1.0], "b": [5.0, 1.0, 5.0, 1.0]})
    assert rs.coverage(X).tolist() == [[True, False], [False, True], [False, False], [False, False]]


def test_from_sql_refuses_a_repeated_name_on_bare_branches():
    with pytest.raises(ValueError, match="'dup' is given twice"):
        RuleSet.from_sql("SELECT * FROM t WHERE a > 1 /* rule: dup */ OR b > 2 /* rule: dup */")


def test_from_sql_says_a_condition_stands_where_a_value_belongs():
    with pytest.raises(ValueError) as info:
        RuleSet.from_sql("(a > 0) = (b > 0)")
    msg = str(info.value)
    assert "a > 0" in msg and "where a value belongs" in msg and "is not supported" not in msg
    with pytest.raises(ValueError, match="where a value belongs"):
        RuleSet.from_sql({"r": "(a > 0 AND b > 0) + 1 > 0"})


# ------------------------------------------------------------------ capacity
def test_max_alert_rate_that_allows_no_alert_anywhere_is_refused():
    from csboost_plugins.metrics import bayes_minimum_risk

    rng = np.random.default_rng(0)
    hour = np.repeat(np.arange(24), 37)
    p, amount = rng.uniform(0.2, 1.0, hour.size), rng.uniform(50, 500, hour.size)
    with pytest.raises(ValueError, match=r"max_alert_rate=1e-09 allows 0 alerts in 24 of 24 periods "
                                         r"\(largest period: 37 rows"):
        bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alert_rate=1e-9, periods=hour)
    # a rate that allows alerts in some period still runs: floor(0.03 * 37) = 1 alert in the 37-row hours,
    # floor(0.03 * 10) = 0 in the 10-row hour
    hour2 = np.concatenate([hour, np.full(10, 99)])
    p2, amount2 = np.append(p, np.full(10, 0.9)), np.append(amount, np.full(10, 400.0))
    got = bayes_minimum_risk(p2, fp_cost=5.0, fn_cost=amount2, max_alert_rate=0.03, periods=hour2)
    assert np.bincount(hour2, weights=got).tolist()[:24] == [1.0] * 24 and got[-10:].sum() == 0


def test_max_alerts_beyond_int64_is_no_cap():
    from csboost_plugins.metrics import bayes_minimum_risk
    from csboost_plugins.plot import CapacityCurveDisplay

    rng = np.random.default_rng(1)
    p, amount = rng.uniform(0, 1, 50), rng.uniform(1, 100, 50)
    days = np.arange(50) % 5
    uncapped = bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount)
    for k in (2 ** 63, 2 ** 70, np.uint64(2 ** 64 - 1)):
        np.testing.assert_array_equal(bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=k), uncapped)
        np.testing.assert_array_equal(
            bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=k, periods=days), uncapped)
    y = (rng.uniform(size=50) < p).astype(int)
    from csdt import BayesMinimumRiskClassifier

    X = np.column_stack([p, rng.normal(size=50)])
    bmr = BayesMinimumRiskClassifier().fit(X, y, fp_cost=5.0, fn_cost=amount)
    np.testing.assert_array_equal(bmr.predict(X, fp_cost=5.0, fn_cost=amount, max_alerts=2 ** 63),
                                  bmr.predict(X, fp_cost=5.0, fn_cost=amount))
    disp = CapacityCurveDisplay.from_predictions(y, p, periods=days, fp_cost=5.0, fn_cost=amount,
                                                 max_capacity=2 ** 64)
    assert disp.capacity[-1] == 10  # the largest period's rows: beyond them the curve is flat
    gain = np.where(y == 1, amount, -5.0)
    assert disp.net_money_value[-1] == pytest.approx(gain[uncapped == 1].sum())


def _tied_in_reals_pair():
    """Two (p, amount) rows whose alert values p * amount - (1 - p) * 5 are equal in exact arithmetic
    (fractions of the decimal inputs) but not in float64: the first one computes smaller."""
    from fractions import Fraction

    from csboost_plugins.decision_costs import net_alert_value
    from csboost_plugins.costs import check_costs

    seen = {}
    for tenth in range(1, 10):
        for amount in range(1, 400):
            p = tenth / 10
            exact = Fraction(str(p)) * amount - (1 - Fraction(str(p))) * 5
            got = float(net_alert_value(np.array([p]), check_costs(1, fp_cost=5.0, fn_cost=np.array([amount * 1.0]))
                                        )[0])
            if exact <= 0:  # only rows worth an alert are ranked
                continue
            for q, a, g in seen.get(exact, []):
                if g != got:
                    return (p, amount, got, q, a, g) if got < g else (q, a, g, p, amount, got)
            seen.setdefault(exact, []).append((p, amount, got))
    raise AssertionError("no pair found")


def test_values_equal_up_to_rounding_noise_go_by_row_order_at_the_cut():
    from csboost_plugins.metrics import bayes_minimum_risk

    p1, a1, v1, p2, a2, v2 = _tied_in_reals_pair()
    assert 0 < v1 < v2 <= v1 + 4 * np.spacing(v1)  # ulp-level noise
    p, amount = np.array([p1, p2]), np.array([a1, a2], dtype=float)
    assert bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=1).tolist() == [1, 0]
    assert bayes_minimum_risk(p[::-1], fp_cost=5.0, fn_cost=amount[::-1], max_alerts=1).tolist() == [1, 0]
    # genuinely different values still rank by value, whatever the row order
    p3, amount3 = np.array([p1, p1]), np.array([a1, a1 + 0.01])
    assert bayes_minimum_risk(p3, fp_cost=5.0, fn_cost=amount3, max_alerts=1).tolist() == [0, 1]
    from csboost_plugins._capacity import period_ranks

    v = np.array([v1, v2, v2 + 1e-6])
    assert period_ranks(v, np.ones(3, bool), np.zeros(3, np.int64), 1).tolist() == [1, 2, 0]


# ------------------------------------------------------------------ monitor
def _monitor_data():
    rs = RuleSet.from_sql({"pos": "a > 0", "big": "a > 8"})
    X = pd.DataFrame({"a": np.arange(-5, 15.0)})
    y = (np.arange(20) % 3 == 0).astype(int)
    return rs, X, y


@pytest.mark.parametrize("periods, reference", [(np.zeros(20), None), (np.arange(20) % 2, [0, 1]),
                                                (np.arange(20) % 3, [2, 0, 1])])
def test_monitor_that_tests_nothing_warns_and_leaves_drift_na(periods, reference):
    from csboost_plugins.plot import RuleMonitorDisplay

    rs, X, y = _monitor_data()
    with pytest.warns(UserWarning, match="no period is tested for drift"):
        tab = rs.monitor(X, y, periods, reference=reference)
    assert tab["drift"].isna().all() and len(tab) == 3 * len(np.unique(periods))
    assert tab["precision_pvalue"].isna().all() and tab["alert_rate_pvalue"].isna().all()
    # the counts are still there, and the heat map marks no drift
    assert tab.xs("pos", level="rule")["alerts"].sum() == 14
    assert RuleMonitorDisplay(tab).drift.sum() == 0


def test_monitor_that_tests_a_period_keeps_boolean_drift_and_no_warning():
    import warnings

    rs, X, y = _monitor_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        tab = rs.monitor(X, y, np.arange(20) % 2)
    assert tab["drift"].dtype == bool and tab.loc[1, "precision_pvalue"].notna().any()


@pytest.mark.parametrize("reference, what", [({"a": 0}, "got a dict"), ({0}, "got a set"),
                                             ([[0]], "holds a list"), ([[0], [1, 2]], "holds a list"),
                                             (np.zeros((1, 1)), "holds a ndarray")])
def test_monitor_reference_of_the_wrong_kind_is_a_type_error_naming_it(reference, what):
    rs, X, y = _monitor_data()
    with pytest.raises(TypeError, match=f"reference must be a period label.*{what}"):
        rs.monitor(X, y, np.arange(20) % 2, reference=reference)


# ------------------------------------------------------------------ empty rule sets read any table SQL rules read
@pytest.mark.parametrize("make", [lambda: RuleSet.from_sql({}), lambda: RuleSet.from_sql({"r": "t = 'x'"})[[]],
                                  lambda: RuleSet([])])
def test_empty_rule_set_flags_nothing_on_a_table_with_text(make):
    rs = make()
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "t": ["x", "y", "z", None]})
    y = np.array([0, 1, 0, 1])
    assert rs.predict(X).tolist() == [0, 0, 0, 0]
    assert rs.predict_proba(X).tolist() == [0.0] * 4 and rs.apply(X).tolist() == [-1] * 4
    assert rs.coverage(X).shape == (4, 0) and rs.overlap(X).shape == (0, 0)
    fn = np.array([5.0, 7.0, 11.0, 13.0])
    res = rs.evaluate(X, y, fn_cost=fn, fp_cost=1.0)
    assert res["tpr"] == 0.0 and res["alert_rate"] == 0.0 and res["net_money"] == 0.0
    assert res["money_at_risk"] == fn[y == 1].sum()
    assert len(rs.evaluate(X, y, per_rule=True)) == 0
    with pytest.raises(ValueError, match="2-D"):  # other input is still checked
        rs.predict(np.array([1.0, 2.0]))


# ------------------------------------------------------------------ SQLite export refuses a missing column
def test_sqlite_export_fails_on_a_missing_column_and_matches_predict_on_a_full_table():
    import sqlite3

    book = RuleSet.from_sql({"big": "amount > 100 AND hour < 6", "odd name": "\"odd col\" <= 2 OR amount IS NULL",
                             "text": "channel = 'web' AND amount > 10"})
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"amount": np.where(rng.random(n) < 0.1, np.nan, rng.uniform(0, 300, n)),
                      "hour": rng.integers(0, 24, n).astype(float), "odd col": rng.uniform(0, 10, n),
                      "channel": rng.choice(["web", "pos"], n)})
    sql = book.to_sql("tx", dialect="sqlite")
    con = sqlite3.connect(":memory:")
    X.to_sql("tx", con, index_label="row_no")
    flagged = sorted(r[0] for r in con.execute(sql.replace("SELECT *", "SELECT row_no", 1)))
    assert flagged == np.flatnonzero(book.predict(X)).tolist() and 0 < len(flagged) < n
    where = book.to_sql(dialect="sqlite", where_only=True)
    assert sorted(r[0] for r in con.execute(f"SELECT row_no FROM tx WHERE {where}")) == flagged
    for lacking in ("amount", "odd col", "channel"):
        X.drop(columns=lacking).to_sql(f"tx_{lacking.replace(' ', '_')}", con, index_label="row_no")
        for text in (sql.replace('`tx`', f'`tx_{lacking.replace(" ", "_")}`'),
                     f"SELECT * FROM tx_{lacking.replace(' ', '_')} WHERE {where}"):
            with pytest.raises(sqlite3.OperationalError, match="no such column"):
                con.execute(text).fetchall()
    # the export reads back as the same book
    back = RuleSet.from_sql(sql, dialect="sqlite")
    assert back.names == book.names and back.predict(X).tolist() == book.predict(X).tolist()


def test_sqlite_export_of_induced_rules_fails_on_a_missing_column():
    import sqlite3

    rs = RuleSet([Rule([Interval(0, lower=1.0), Interval(1, upper=5.0, missing=True)])], feature_names=["a", "b"])
    con = sqlite3.connect(":memory:")
    pd.DataFrame({"a": [0.0, 2.0, 3.0], "b": [1.0, np.nan, 9.0]}).to_sql("t", con, index=False)
    assert len(con.execute(rs.to_sql("t", dialect="sqlite")).fetchall()) == 1 == rs.predict(
        np.array([[0.0, 1.0], [2.0, np.nan], [3.0, 9.0]])).sum()
    pd.DataFrame({"a": [0.0, 2.0, 3.0]}).to_sql("t_no_b", con, index=False)
    with pytest.raises(sqlite3.OperationalError, match="no such column: b"):
        con.execute(rs.to_sql("t_no_b", dialect="sqlite")).fetchall()


# ------------------------------------------------------------------ integers beyond 2**53
def test_sql_literal_beyond_2_53_is_refused_naming_it():
    for cond in ("big = 9007199254740993", "big IN (1, 9007199254740993)", "big > -9007199254740993",
                 "big = 9007199254740993.0", "big IN (" + ", ".join(["1"] * 70 + ["9007199254740995"]) + ")"):
        with pytest.raises(ValueError, match=r"rule 'r': the number 900719925474099\d(\.0)? is beyond 2\*\*53.*"
                                             r"not exact in float64"):
            RuleSet.from_sql({"r": cond})
    # exact ones and doubles written with an exponent read as before
    for cond in ("big = 9007199254740992", "big = 18014398509481984", "big < 1e300"):
        assert RuleSet.from_sql({"r": cond}).names == ["r"]


def test_int64_column_beyond_2_53_is_refused_and_smaller_ones_match_duckdb():
    duckdb = pytest.importorskip("duckdb")
    rs = RuleSet.from_sql({"r": "big >= 9007199254740992 OR big = -9007199254740992 OR big IN (5, 7)"})
    big = pd.DataFrame({"big": np.array([2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, 5], dtype=np.int64)})
    for X in (big, big.astype("Int64"), big.astype("uint64"), big.astype("category")):
        with pytest.raises(ValueError, match="column 'big' holds integers beyond 2\\*\\*53, which are not exact"):
            rs.predict(X)
    with pytest.raises(ValueError, match="column 'big' holds integers beyond 2\\*\\*53"):
        RuleSet(rs.rules, feature_names=["big"]).predict(big.to_numpy())
    ok = pd.DataFrame({"big": np.array([2 ** 53 - 1, 2 ** 53, -2 ** 53, 5, 6, -(2 ** 53 - 1)], dtype=np.int64)})
    want = duckdb.sql("SELECT (big >= 9007199254740992 OR big = -9007199254740992 OR big IN (5, 7)) AS f "
                      "FROM ok").df()["f"].astype(int).tolist()
    assert rs.predict(ok).tolist() == want == [0, 1, 1, 1, 0, 0]
    # the refusal is about the columns rules read: another big column is fine
    assert rs.predict(ok.assign(other=big["big"])).tolist() == want


# ------------------------------------------------------------------ the card-fraud loader on odd files
def _card_table(n, seed=0):
    """A tiny table with the card file's columns; V3 constant."""
    rng = np.random.default_rng(seed)
    cols = {"Time": np.arange(n, dtype=float)}
    cols.update({f"V{i}": (np.full(n, 0.5) if i == 3 else rng.normal(size=n)) for i in range(1, 29)})
    cols.update(Amount=rng.uniform(1, 300, n).round(2), Class=np.arange(n) % 2)
    return pd.DataFrame(cols)


def test_creditcard_standardised_columns_stay_finite_on_constant_columns_and_one_row(tmp_path):
    from csdt.datasets import load_creditcard_fraud

    t = _card_table(6)
    t.to_csv(tmp_path / "six.csv", index=False)
    b = load_creditcard_fraud(tmp_path / "six.csv", raw=False)
    assert np.isfinite(b.data.to_numpy()).all()
    assert (b.data["V3"] == 0.0).all()  # constant: centred, scale 1
    v1 = t["V1"].to_numpy()
    np.testing.assert_allclose(b.data["V1"], (v1 - v1.mean()) / v1.std(), rtol=1e-12)
    t.iloc[:1].to_csv(tmp_path / "one.csv", index=False)
    one = load_creditcard_fraud(tmp_path / "one.csv", raw=False)
    assert one.data.shape == (1, 29) and (one.data.to_numpy() == 0.0).all()


def test_creditcard_loader_names_the_file_on_corrupt_truncated_empty_or_ambiguous_input(tmp_path):
    import gzip

    from csdt.datasets import load_creditcard_fraud

    t = _card_table(400)
    good = tmp_path / "cc.csv.gz"
    t.to_csv(good, index=False)
    data = good.read_bytes()
    bad = {"truncated.csv.gz": data[:len(data) // 2], "not_gzip.csv.gz": b"this is no gzip file" * 20,
           "corrupt.csv.gz": data[:len(data) // 2] + bytes(40) + data[len(data) // 2 + 40:]}
    for name, content in bad.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError, match=f"{name}' cannot be read as a CSV file"):
            load_creditcard_fraud(tmp_path / name)
    t.iloc[:0].to_csv(tmp_path / "header_only.csv", index=False)
    with pytest.raises(ValueError, match="header_only.csv' holds no data row"):
        load_creditcard_fraud(tmp_path / "header_only.csv")
    twice = t.assign(Amount2=t["Amount"] * 2)
    twice.to_csv(tmp_path / "twice.csv", index=False, header=list(t.columns) + ["Amount"])
    with pytest.raises(ValueError, match=r"twice.csv' names the column\(s\) \['Amount'\] twice"):
        load_creditcard_fraud(tmp_path / "twice.csv")
    with gzip.open(tmp_path / "ok.csv.gz", "wt") as fh:  # a good gzip still loads
        t.to_csv(fh, index=False)
    assert load_creditcard_fraud(tmp_path / "ok.csv.gz").data.shape == (400, 29)
