"""RuleSet.evaluate: money against both baselines, and the per-rule holdout table (``per_rule=True``),
every column checked against a brute-force computation from each Rule's own numpy mask."""

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import CategorySet, Interval, Rule, RuleSet, extract_rules, riff_select
from csdt.datasets import make_fraud_transactions


@pytest.fixture(scope="module")
def fraud():
    d = make_fraud_transactions(12_000, fraud_rate=0.03, random_state=4)
    X, y, amount = d.data.copy(), d.target, d.fn_cost
    rng = np.random.default_rng(0)
    X["channel"] = pd.Categorical(rng.choice(["web", "pos", "atm"], len(y)))
    X.loc[rng.random(len(y)) < 0.05, "hour"] = np.nan
    fit, sel, test = slice(0, 4000), slice(4000, 8000), slice(8000, None)
    gbm = lgb.LGBMClassifier(n_estimators=15, num_leaves=12, verbose=-1).fit(X[fit], y[fit])
    rules = riff_select(extract_rules(gbm), X[sel], y[sel], max_fpr=0.01, fp_cost=0.0, fn_cost=amount[sel])
    assert len(rules) >= 3 and rules.last_rule_probability < 1
    Xt, yt, at = X[test].reset_index(drop=True), y[test], amount[test]
    w = rng.uniform(0.5, 2.0, len(yt))
    return rules, Xt, yt, at, w


def _brute(rules, X, y, w, fp, fn, tp_cost):
    """Every figure from the rules' numpy masks and Python sums."""
    masks = [r.mask(X) for r in rules]
    prob = [1.0] * (len(rules) - 1) + [rules.last_rule_probability]
    npos = sum(w[i] for i in range(len(y)) if y[i] == 1)
    nneg = sum(w[i] for i in range(len(y)) if y[i] == 0)
    caught_row = fn - tp_cost  # C_FN - C_TP per row
    alert_row = fp - 0.0  # C_FP - C_TN
    rows, seen = [], np.zeros(len(y), bool)
    cum = dict(tp=0.0, fp=0.0, caught=0.0, alert=0.0)
    for k, m in enumerate(masks):
        tp = sum(w[i] for i in np.flatnonzero(m) if y[i] == 1)
        fpv = sum(w[i] for i in np.flatnonzero(m) if y[i] == 0)
        new = m & ~seen
        seen |= m
        ntp = prob[k] * sum(w[i] for i in np.flatnonzero(new) if y[i] == 1)
        nfp = prob[k] * sum(w[i] for i in np.flatnonzero(new) if y[i] == 0)
        nc = prob[k] * sum(w[i] * caught_row[i] for i in np.flatnonzero(new) if y[i] == 1)
        na = prob[k] * sum(w[i] * alert_row[i] for i in np.flatnonzero(new) if y[i] == 0)
        cum = dict(tp=cum["tp"] + ntp, fp=cum["fp"] + nfp, caught=cum["caught"] + nc, alert=cum["alert"] + na)
        caught = sum(w[i] * caught_row[i] for i in np.flatnonzero(m) if y[i] == 1)
        alert = sum(w[i] * alert_row[i] for i in np.flatnonzero(m) if y[i] == 0)
        rows.append(dict(probability=prob[k], flagged=tp + fpv, tp=tp, fp=fpv, precision=tp / (tp + fpv),
                         recall=tp / npos, fpr=fpv / nneg, new_tp=ntp, new_fp=nfp, set_recall=cum["tp"] / npos,
                         set_fpr=cum["fp"] / nneg, set_precision=cum["tp"] / (cum["tp"] + cum["fp"]),
                         money_caught=caught, alert_cost=alert, net_money=caught - alert, new_money_caught=nc,
                         new_alert_cost=na, set_money_caught=cum["caught"], set_alert_cost=cum["alert"],
                         set_net_money=cum["caught"] - cum["alert"]))
    return pd.DataFrame(rows)


def test_per_rule_table_equals_brute_force(fraud):
    rules, X, y, amount, w = fraud
    fp, tp_cost = np.full(len(y), 7.5), np.minimum(2.0, 0.5 * np.asarray(amount, float))  # handling a true alert
    tab = rules.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=fp, tp_cost=tp_cost, per_rule=True,
                         last_rule="expected")
    ref = _brute(rules, X, y, w, fp, np.asarray(amount, float), tp_cost)
    assert list(tab.index) == list(range(1, len(rules) + 1)) and tab.index.name == "rule_no"
    assert list(tab["rule"]) == [str(r) for r in rules]
    for col in ref.columns:
        np.testing.assert_allclose(tab[col].to_numpy(), ref[col].to_numpy(), rtol=1e-10, atol=1e-9, err_msg=col)
    # the last row of the set columns is the set-level expectation of evaluate()
    s = rules.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=fp, tp_cost=tp_cost, last_rule="expected")
    last = tab.iloc[-1]
    for a, b in [("set_recall", "tpr"), ("set_fpr", "fpr"), ("set_precision", "precision"),
                 ("set_money_caught", "money_caught"), ("set_alert_cost", "alert_cost"),
                 ("set_net_money", "net_money")]:
        assert last[a] == pytest.approx(s[b], rel=1e-12), a
    assert tab["new_tp"].sum() == pytest.approx(s["tpr"] * (w * (y == 1)).sum(), rel=1e-12)


def test_per_rule_table_without_costs_and_names(fraud):
    rules, X, y, _, _ = fraud
    tab = rules.evaluate(X, y, per_rule=True)
    assert "money_caught" not in tab.columns and {"tp", "fp", "set_recall"} <= set(tab.columns)
    np.testing.assert_array_equal(tab["flagged"], rules.coverage(X).sum(axis=0))
    # the table speaks the data's language: column names, category values; lightgbm's zero cut prints exactly
    # (it printed "amount > 0", which read literally puts 0 < amount <= 1e-35 on the wrong side)
    rs = RuleSet([Rule([CategorySet(1, codes=(0, 2))], feature_names=["amount", "channel"],
                       categories={1: ["atm", "pos", "web"]}),
                  Rule([Interval(0, lower=1.0000000180025095e-35, lower_closed=False, lower_text="> 1e-35")],
                       feature_names=["amount", "channel"])])
    df = pd.DataFrame({"amount": [0.0, 5.0, 0.0], "channel": pd.Categorical(["atm", "pos", "pos"])})
    tab = rs.evaluate(df, [1, 0, 0], per_rule=True)
    assert list(tab["rule"]) == ["channel in {'atm', 'web'}", "amount > 1.0000000180025095e-35"]
    assert str(rs).splitlines()[1].endswith("IF amount > 1.0000000180025095e-35")  # hand-built: no policy line
    # print(rules) of a money-ranked selection: each rule's share of the selection set's money at risk
    rules_printed = str(fraud[0]).splitlines()[1:]  # below the missing-value policy line
    money = np.diff(np.concatenate([[0.0], fraud[0].selection["money_recall"]]))
    assert len(rules_printed) == len(money) and all(f"+money recall {m:.3f})" in line for line, m in zip(rules_printed, money))


def test_set_money_against_both_baselines(fraud):
    """net_money = money caught - alert cost = Cost(no rules) - cost; savings names its baseline."""
    rules, X, y, amount, w = fraud
    a = np.asarray(amount, float)
    s = rules.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=10.0, last_rule="expected")
    p = rules.predict_proba(X)
    no_rules = float(np.sum(w * y * a))
    flag_all = float(np.sum(w * np.where(y == 1, 0.0, 10.0)))
    cost = float(np.sum(w * np.where(y == 1, (1 - p) * a, p * 10.0)))
    assert s["cost_no_rules"] == pytest.approx(no_rules) and s["cost_flag_all"] == pytest.approx(flag_all)
    assert s["cost"] == pytest.approx(cost)
    assert s["net_money"] == pytest.approx(no_rules - cost)
    assert s["money_caught"] - s["alert_cost"] == pytest.approx(s["net_money"])
    assert s["savings_vs_no_rules"] == pytest.approx((no_rules - cost) / no_rules)
    base = min(no_rules, flag_all)
    assert s["savings"] == pytest.approx((base - cost) / base)
    assert s["savings_baseline"] == ("no rules" if no_rules <= flag_all else "flag all")
    # with alerts cheap and fraud expensive, flagging everything is the cheaper trivial policy: the baseline says so
    s2 = rules.evaluate(X, y, fn_cost=np.asarray(amount) * 100, fp_cost=0.01)
    assert s2["savings_baseline"] == "flag all" and s2["savings"] < 0 < s2["savings_vs_no_rules"]


def test_dask_evaluate_reports_the_same_money(fraud):
    """Partitioned (dask) evaluation sums the same additive parts: every key equal, the per-rule table too."""
    dd = pytest.importorskip("dask.dataframe", reason="pip install 'dask[dataframe]' (dask extra)")
    rules, X, y, amount, w = fraud
    Xd = dd.from_pandas(X, npartitions=3)
    yd, ad, wd = (dd.from_pandas(pd.Series(np.asarray(v), index=X.index), npartitions=3) for v in (y, amount, w))
    ref = rules.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=10.0)
    got = rules.evaluate(Xd, yd, sample_weight=wd, fn_cost=ad, fp_cost=10.0)
    assert got.keys() == ref.keys() and got["savings_baseline"] == ref["savings_baseline"]
    for k in ref:
        if k != "savings_baseline":
            assert got[k] == pytest.approx(ref[k], rel=1e-10), k
    ref = rules.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=10.0, per_rule=True)
    got = rules.evaluate(Xd, yd, sample_weight=wd, fn_cost=ad, fp_cost=10.0, per_rule=True)
    pd.testing.assert_frame_equal(got, ref, check_exact=False, rtol=1e-10)
