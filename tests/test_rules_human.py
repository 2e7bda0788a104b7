"""Rules an analyst can read: human cuts that route every fit row as the model's cuts, ``or x is
missing`` only where the fit data had missing values, and no redundant condition; the SQL (DuckDB,
SQLite) and the pandas query select exactly ``predict``'s rows."""

import math
import re
import sqlite3
from decimal import Decimal

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb

from csboost_plugins.rules import (
    Interval,
    RIFFClassifier,
    Rule,
    RuleSet,
    extract_rules,
    riff_select,
    simplify_rules,
)
from csboost_plugins.rules._rule import exact_decimal
from csdt.datasets import load_creditscoring1, make_fraud_transactions

NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _digits(text):
    """Significant digits of a decimal number as printed."""
    d = Decimal(text).normalize()
    return max(len(d.as_tuple().digits), 1)


def _data(name):
    if name == "creditscoring1":
        b = load_creditscoring1()
        X, y = b.data.iloc[:40_000].reset_index(drop=True), np.asarray(b.target)[:40_000]
        X = X.copy()
        rng = np.random.default_rng(0)  # the public file's MonthlyIncome has gaps: give it some
        X.loc[rng.random(len(X)) < 0.1, "MonthlyIncome"] = np.nan
        return X, y, ["MonthlyIncome"]
    d = make_fraud_transactions(30_000, fraud_rate=0.03, random_state=1)
    return d.data, np.asarray(d.target), []


def _models(X, y):
    return [lgb.LGBMClassifier(n_estimators=20, num_leaves=16, verbose=-1, n_jobs=1, random_state=0).fit(X, y),
            xgb.XGBClassifier(n_estimators=10, max_depth=5, n_jobs=1, random_state=0).fit(X, y)]


@pytest.fixture(scope="module", params=["creditscoring1", "make_fraud_transactions"])
def case(request):
    X, y, nan_cols = _data(request.param)
    n = len(y) // 3
    fit, sel, test = slice(0, n), slice(n, 2 * n), slice(2 * n, None)
    cands = extract_rules(_models(X.iloc[fit], y[fit]))
    Xs, ys = X.iloc[sel].reset_index(drop=True), y[sel]
    model = riff_select(cands, Xs, ys, max_fpr=0.02, cuts="model")
    simple = riff_select(cands, Xs, ys, max_fpr=0.02)
    return dict(X=X, y=y, Xs=Xs, ys=ys, Xt=X.iloc[test].reset_index(drop=True), model=model, simple=simple,
                nan_cols=nan_cols, cands=cands)


def _bounds(rs):
    for r in rs.rules:
        for c in r.conditions:
            if isinstance(c, Interval):
                yield r, c


def test_printed_numbers_are_short_unless_the_gap_needs_more(case):
    rs, Xs = case["simple"], case["Xs"]
    text = str(rs)
    assert "e-35" not in text and "000000" not in text and "99999" not in text
    for r, c in _bounds(rs):
        x = Xs.iloc[:, c.feature].to_numpy(float)
        v = np.unique(x[~np.isnan(x)])
        for b in (c.lower, c.upper):
            if not math.isfinite(b):
                continue
            s = exact_decimal(b, point=False)
            if _digits(s) <= 6:
                continue
            # more digits only where no shorter number lies strictly between the neighbouring values
            lo, hi = v[v < b].max(initial=-np.inf), v[v > b].min(initial=np.inf)
            for p in range(1, _digits(s)):
                for cand in (float(f"{lo:.{p - 1}e}"), float(f"{hi:.{p - 1}e}")):
                    assert not lo < cand < hi, (s, lo, hi, cand)
    assert max(_digits(m) for m in NUM.findall(text.split("\n", 1)[1])) <= 6  # these sets need no more
    assert "e-35" in str(case["model"]) or "000000" in str(case["model"])  # the model's own cuts are long


def test_integer_columns_compare_integers(case):
    rs, Xs = case["simple"], case["Xs"]
    seen = 0
    for r, c in _bounds(rs):
        x = Xs.iloc[:, c.feature].to_numpy(float)
        x = x[~np.isnan(x)]
        if not np.all(x == np.round(x)):
            continue
        for b, closed in ((c.lower, c.lower_closed), (c.upper, c.upper_closed)):
            if math.isfinite(b):
                seen += 1
                assert b == round(b) and closed, str(r)
        s = c.to_str("col")
        assert "." not in s, s
        if c.lower == c.upper:
            assert s == f"col = {int(c.lower)}"
    assert seen


def test_missing_said_only_for_columns_with_missing_values(case):
    rs, nan_cols = case["simple"], case["nan_cols"]
    said = set(re.findall(r"or (\S+) is missing\)", str(rs)))
    assert said <= set(nan_cols)
    assert rs.missing_columns == [c for c in rs.feature_names if c in nan_cols
                                  and any(c == rs.feature_names[f] for r in rs for f in r.features)]
    header = str(rs).splitlines()[0]
    assert header.startswith("Missing values:") and str(rs).count("Missing values:") == 1
    # the model's own rules say it for columns that never had a missing value
    assert set(re.findall(r"or (\S+) is missing\)", str(case["model"]))) - set(nan_cols)
    # the policy: a NULL where the fit data had none never satisfies a condition
    row = case["Xs"].iloc[:200].copy()
    for j in {f for r in rs for f in r.features} - {rs.feature_names.index(c) for c in nan_cols}:
        row.iloc[:, j] = np.nan
        cols = [f for r in rs for f in r.features]
        assert not rs.coverage(row)[:, [j in r.features for r in rs]].any(), cols
        row = case["Xs"].iloc[:200].copy()


def test_cuts_route_every_fit_row_as_the_models(case):
    model, Xs = case["model"], case["Xs"]
    cut_only = simplify_rules(model, Xs, drop_conditions=False)  # each condition moved, none dropped
    assert [len(r) for r in cut_only] == [len(r) for r in model]
    assert str(cut_only) != str(model)
    np.testing.assert_array_equal(cut_only.coverage(Xs), model.coverage(Xs))
    short = simplify_rules(model, Xs)  # without labels: every rule adds exactly the rows it added
    np.testing.assert_array_equal(short.apply(Xs), model.apply(Xs))
    np.testing.assert_array_equal(short.predict(Xs), model.predict(Xs))
    assert np.mean([len(r) for r in short]) <= np.mean([len(r) for r in model])


def test_riff_select_default_adds_no_false_alert_on_the_selection_rows(case):
    model, simple, Xs, ys = case["model"], case["simple"], case["Xs"], case["ys"]
    assert len(simple) == len(model) and simple.last_rule_probability == model.last_rule_probability
    a_new, a_old = simple.apply(Xs), model.apply(Xs)
    neg = ys == 0
    np.testing.assert_array_equal(a_new[neg], a_old[neg])  # every false alert as before, by the same rule
    pos = ys == 1
    assert np.all((a_old[pos] < 0) | (a_new[pos] >= 0))  # every true alert kept (perhaps by an earlier rule)
    assert np.mean([len(r) for r in simple]) <= np.mean([len(r) for r in model])
    # the statistics the text shows are the simplified set's own
    p = simple.predict(Xs, last_rule="include")
    assert simple.selection["tpr"][-1] == pytest.approx(p[pos].mean())
    assert simple.selection["fpr"][-1] == pytest.approx(model.selection["fpr"][-1])


def test_dropped_conditions_do_not_change_the_rows_a_rule_adds(case):
    """Brute force: put each dropped condition back; the rows the rule adds on the selection set stay."""
    model, Xs = case["model"], case["Xs"]
    short = simplify_rules(model, Xs)
    cut_only = simplify_rules(model, Xs, drop_conditions=False)
    free = np.ones(len(Xs), bool)
    dropped = 0
    Xf = Xs.to_numpy(float)
    for r_short, r_full in zip(short, cut_only):
        kept = {c.key for c in r_short.conditions}
        m_short = np.logical_and.reduce([c.mask(Xf[:, c.feature]) for c in r_short.conditions])
        for c in r_full.conditions:
            if c.key in kept:
                continue
            dropped += 1
            with_c = m_short & c.mask(Xf[:, c.feature])
            np.testing.assert_array_equal(with_c & free, m_short & free)
        free &= ~m_short
    assert dropped


def test_sql_and_pandas_select_predicts_rows(case):
    duckdb = pytest.importorskip("duckdb")
    rs = case["simple"]
    df = pd.concat([case["Xs"], case["Xt"]], ignore_index=True)
    df.insert(0, "row_id", np.arange(len(df)))
    want = np.flatnonzero(rs.predict(df.drop(columns="row_id")))
    assert len(want)
    con = duckdb.connect()
    con.register("transactions", df)
    got = np.sort(con.execute(rs.to_sql("transactions", dialect="duckdb").replace("*", "row_id", 1))
                  .fetchnumpy()["row_id"])
    np.testing.assert_array_equal(got, want)
    lite = sqlite3.connect(":memory:")
    df.to_sql("transactions", lite, index=False)  # NaN is stored as NULL
    got = np.sort([r[0] for r in lite.execute(rs.to_sql("transactions", dialect="sqlite")
                                              .replace("*", "row_id", 1))])
    np.testing.assert_array_equal(got, want)
    got = np.sort(df.query(rs.to_pandas_query(), engine="python")["row_id"].to_numpy())
    np.testing.assert_array_equal(got, want)
    # the SQL carries the printed numbers, not the model's
    sql = rs.to_sql("t", dialect="duckdb")
    assert "e-35" not in sql and "000000" not in sql


def test_json_round_trip_keeps_the_policy(case):
    rs = case["simple"]
    back = RuleSet.from_json(rs.to_json())
    assert back.missing_columns == rs.missing_columns and str(back) == str(rs)
    np.testing.assert_array_equal(back.predict(case["Xt"]), rs.predict(case["Xt"]))


def test_lightgbm_zero_threshold_becomes_a_human_cut():
    rng = np.random.default_rng(0)
    n = 6000
    X = pd.DataFrame({"card_present": rng.integers(0, 2, n).astype(float), "amount": rng.gamma(2, 50, n).round(2),
                      "n_tx_24h": rng.poisson(2, n).astype(float)})
    y = ((X.card_present == 0) & (X.n_tx_24h >= 4) | (rng.random(n) < 0.01)).astype(int).to_numpy()
    gbm = lgb.LGBMClassifier(n_estimators=5, num_leaves=8, verbose=-1, n_jobs=1).fit(X[:3000], y[:3000])
    model = riff_select(extract_rules(gbm), X[3000:], y[3000:], max_fpr=0.05, cuts="model")
    assert "card_present <= 1.0000000180025095e-35" in str(model)
    assert re.search(r"n_tx_24h > \d\.\d{10,}", str(model))
    simple = simplify_rules(model, X[3000:], drop_conditions=False)
    text = str(simple)
    assert "card_present = 0" in text and "e-35" not in text
    assert re.search(r"n_tx_24h (>=|<=) \d+\b(?!\.)", text)
    np.testing.assert_array_equal(simple.coverage(X[3000:]), model.coverage(X[3000:]))


def test_simplest_number_in_the_gap_brute_force():
    """The cut has the fewest significant digits of any number between the neighbours, the neighbours
    included: the upper one keeps ``x < d``, the lower one turns it to ``x <= d``."""
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(300):
        scale = 10.0 ** rng.integers(-4, 5)
        v = np.unique(np.round(rng.normal(0, 1, 6) * scale, rng.integers(1, 9)))
        if len(v) < 3 or np.all(v == np.round(v)):
            continue
        k = rng.integers(0, len(v) - 1)
        a, b = v[k], v[k + 1]
        cut = a + (b - a) * rng.uniform(0.01, 0.99)
        rs = RuleSet([Rule([Interval(0, upper=cut)], feature_names=["x"])])
        c = simplify_rules(rs, v.reshape(-1, 1)).rules[0].conditions[0]
        d = c.upper
        assert a <= d <= b and float(exact_decimal(d)) == d and c.upper_closed == (d == a)
        p = _digits(exact_decimal(d))
        grid = np.linspace(a, b, 4001)  # every short number in [a, b] is what some grid point rounds to
        for q in range(1, p):
            shorter = [float(f"{x:.{q - 1}e}") for x in grid]
            assert not any(a <= t <= b for t in shorter), (a, b, d, q)
        checked += 1
    assert checked > 100


def test_data_needing_digits_keeps_them():
    X = np.array([[1.0000001], [1.0000002], [3.0]])
    rs = RuleSet([Rule([Interval(0, lower=1.00000015, lower_closed=False)], feature_names=["x"])])
    c = simplify_rules(rs, X).rules[0].conditions[0]
    assert c.lower == 1.0000002 and c.lower_closed and exact_decimal(c.lower) == "1.0000002"  # 8 digits, the gap's end
    rs = RuleSet([Rule([Interval(0, lower=1.00000015, lower_closed=False)], feature_names=["x"])])
    c = simplify_rules(rs, np.array([[1.0000001], [1.0000004], [3.0]])).rules[0].conditions[0]
    assert 1.0000001 < c.lower < 1.0000004 and exact_decimal(c.lower) == "1.0000002"  # inside, nearest the cut


def test_cuts_model_keeps_the_models_cuts_and_validates():
    X, y, _ = _data("make_fraud_transactions")
    X, y = X.iloc[:6000], y[:6000]
    # the paper's protocol: no pruning or refinement, so the selected rules are the model's leaves
    a = RIFFClassifier.paper(cuts="model", random_state=0).fit(X, y)
    b = RIFFClassifier.paper(random_state=0).fit(X, y)
    cands = {r.key for r in a.candidates_}
    assert all(r.key in cands for r in a.rule_set_)  # the model's own leaves
    assert a.rule_set_.missing_columns is None and b.rule_set_.missing_columns == []
    sel = X.iloc[b.selection_index_]
    ys = y[b.selection_index_]
    assert np.array_equal(a.rule_set_.predict(sel)[ys == 0], b.rule_set_.predict(sel)[ys == 0])
    with pytest.raises(ValueError, match="cuts"):
        riff_select(a.candidates_, sel, ys, cuts="round")
    with pytest.raises(ValueError, match="cuts"):
        RIFFClassifier(cuts="round").fit(X, y)
    with pytest.raises(ValueError, match="rows"):
        simplify_rules(b.rule_set_, sel, ys[:-1])
    with pytest.raises(TypeError, match="cuts"):
        simplify_rules(b.rule_set_, sel, cuts="yes")


def test_mean_conditions_at_most_four_without_losing_recall(case):
    model, simple, Xt, y = case["model"], case["simple"], case["Xt"], case["y"]
    yt = y[len(y) - len(Xt):]
    assert np.mean([len(r) for r in simple]) <= 4
    pm, ps = model.predict(Xt), simple.predict(Xt)
    assert ps[yt == 1].sum() >= pm[yt == 1].sum() - 2  # holdout: near-identical or better


def _fewer_digits_in(a, b, p):
    """Numbers k 10^e with fewer than p significant digits in [a, b] (all exponents from 1e-12 to 1e6),
    each the float64 its decimal text gives (k / 10^-e is correctly rounded, as float("k e e") is)."""
    found = []
    top = 10 ** (p - 1) - 1  # |k| of p - 1 digits at most
    for e in range(-12, 7):
        q = 10.0 ** abs(e)
        lo, hi = (math.floor(a * q), math.ceil(b * q)) if e < 0 else (math.floor(a / q), math.ceil(b / q))
        lo, hi = lo - 1, hi + 1
        ks = np.arange(max(lo, -top), min(hi, top) + 1, dtype=np.float64)
        t = ks / q if e < 0 else ks * q
        found += [x for x in t[(t >= a) & (t <= b)].tolist() if x != 0.0 or a <= 0.0 <= b]
    return found


@pytest.mark.parametrize("seed", range(6))
def test_human_cuts_on_decimal_columns_are_the_fewest_digits_brute_force(seed):
    """Amount-like columns (2 or 3 decimals, some negative): every bound of the simplified rules lies in the
    gap between its neighbouring fit values, routes every fit row as the model's cut, and no number with
    fewer significant digits lies in that gap, its ends included (the comparison turns to allow them)."""
    rng = np.random.default_rng(seed)
    n = 300
    X = np.column_stack([np.round(rng.lognormal(3, 1.5, n), 2),          # amounts: 314.99, 315.0, ...
                         np.round(rng.uniform(0, 1, n), 2),             # rates: 0.76, 0.77, ...
                         np.round(rng.normal(0, 5, n), 3)])             # signed, 3 decimals
    X[:4, 0], X[:4, 1] = [314.99, 315.0, 99.99, 100.01], [0.76, 0.77, 0.3, 0.31]
    rules = []
    for _ in range(40):
        conds = []
        for j in rng.choice(3, size=rng.integers(1, 3), replace=False):
            v = np.unique(X[:, j])
            i, k = np.sort(rng.choice(len(v) - 1, 2, replace=False))
            lo = v[i] + (v[i + 1] - v[i]) * rng.uniform(0.05, 0.95)
            hi = v[k] + (v[k + 1] - v[k]) * rng.uniform(0.05, 0.95)
            conds.append(Interval(int(j), lower=lo if rng.random() < 0.7 else -math.inf,
                                  lower_closed=bool(rng.integers(2)), upper=hi if rng.random() < 0.7 else math.inf,
                                  upper_closed=bool(rng.integers(2))))
        rules.append(Rule(conds, feature_names=["amount", "rate", "delta"]))
    rules.append(Rule([Interval(0, upper=314.999)], feature_names=["amount", "rate", "delta"]))
    rules.append(Rule([Interval(1, upper=0.765)], feature_names=["amount", "rate", "delta"]))
    simple = simplify_rules(rules, X, drop_conditions=False)
    checked = 0
    for r, s in zip(rules, simple):
        np.testing.assert_array_equal(s.mask(X), r.mask(X), err_msg=str(s))  # every fit row routes as before
        for c in s.conditions:
            v = np.unique(X[:, c.feature])
            for side, d in (("lower", c.lower), ("upper", c.upper)):
                if not math.isfinite(d):
                    continue
                if side == "lower":
                    inside = v[(v >= d) if c.lower_closed else (v > d)]
                else:
                    inside = v[(v <= d) if c.upper_closed else (v < d)]
                outside = np.setdiff1d(v, inside)
                a, b = (outside.max(), inside.min()) if side == "lower" else (inside.max(), outside.min())
                assert a <= d <= b and float(exact_decimal(d)) == d
                p = _digits(exact_decimal(d))
                shorter = [] if d == 0.0 else _fewer_digits_in(a, b, p)
                assert not shorter, (str(s), side, a, b, d, shorter[:3])
                checked += 1
    assert checked > 40
    text = [str(s) for s in simple[-2:]]
    assert text == ["amount < 315", "rate < 0.77"]
