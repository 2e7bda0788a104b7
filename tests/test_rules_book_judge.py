"""Judging a rule book: evaluate(per_rule=True)'s leave-one-out columns (unique_*) and RuleSet.overlap,
each against a brute-force computation over rows, in memory and on dask."""

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import RuleSet, extract_rules, riff_select


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(11)
    n = 5000
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["amount", "hour", "risk", "age"])
    X.loc[rng.random(n) < 0.05, "risk"] = np.nan
    y = ((X.amount + 0.8 * rng.normal(size=n) > 1.5) | (rng.random(n) < 0.02)).astype(int).to_numpy()
    amount = np.exp(rng.normal(3, 1, n))
    cands = extract_rules(DecisionTreeClassifier(max_leaf_nodes=80, random_state=0).fit(X.fillna(0), y))
    rs = riff_select(cands, X, y, max_fpr=0.05, fn_cost=amount, fp_cost=5.0)
    assert len(rs) >= 4
    # overlapping rules on purpose: a copy-like widened rule and a rule of the first two ANDed
    wide = RuleSet(list(rs.rules[:3]) + list(cands[:6]), feature_names=list(X.columns))
    return rs, wide, X, y, amount


def _brute_unique(rules, prob, X, y, w, caught, alert):
    """Per rule, sums over rows of P(rule flags and no other rule flags) (independent loops over rows)."""
    masks = np.array([r.mask(X) for r in rules])  # (k, n), each rule's own numpy mask
    k, n = masks.shape
    out = {key: np.zeros(k) for key in ("tp", "fp", "money_caught", "alert_cost")}
    for j in range(k):
        for i in range(n):
            if not masks[j, i]:
                continue
            p = prob[j]
            for m in range(k):
                if m != j and masks[m, i]:
                    p *= 1.0 - prob[m]
            if y[i] == 1:
                out["tp"][j] += w[i] * p
                out["money_caught"][j] += w[i] * p * caught[i]
            else:
                out["fp"][j] += w[i] * p
                out["alert_cost"][j] += w[i] * p * alert[i]
    return out


@pytest.mark.parametrize("which", ["selected", "overlapping"])
@pytest.mark.parametrize("last_rule", ["include", "expected"])
def test_unique_columns_equal_brute_force(case, which, last_rule):
    rs, wide, X, y, amount = case
    rules = rs if which == "selected" else wide
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    tab = rules.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=5.0, per_rule=True, last_rule=last_rule)
    prob = rules.rule_probabilities if last_rule == "expected" else np.ones(len(rules))
    ref = _brute_unique(rules.rules, prob, X, y, w, amount, np.full(len(y), 5.0))
    for key in ("tp", "fp", "money_caught", "alert_cost"):
        np.testing.assert_allclose(tab["unique_" + key].to_numpy(), ref[key], rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(tab.unique_net_money, ref["money_caught"] - ref["alert_cost"], rtol=1e-10, atol=1e-9)


def test_unique_net_money_is_what_the_set_loses_without_the_rule(case):
    """Deterministic set: unique_net_money(i) = net money of the set - net money of the set without rule i."""
    _, wide, X, y, amount = case
    tab = wide.evaluate(X, y, fn_cost=amount, fp_cost=5.0, per_rule=True)
    full = wide.evaluate(X, y, fn_cost=amount, fp_cost=5.0)["net_money"]
    for i in range(len(wide)):
        without = wide.drop(i).evaluate(X, y, fn_cost=amount, fp_cost=5.0)["net_money"]
        assert tab.unique_net_money.iloc[i] == pytest.approx(full - without, rel=1e-9, abs=1e-6)
    assert (tab.unique_tp <= tab.tp + 1e-12).all() and (tab.unique_fp <= tab.fp + 1e-12).all()


def test_unique_counts_without_costs(case):
    _, wide, X, y, _ = case
    tab = wide.evaluate(X, y, per_rule=True)
    assert {"unique_tp", "unique_fp"} <= set(tab.columns) and "unique_net_money" not in tab.columns
    cover = np.array([r.mask(X) for r in wide.rules])
    alone = cover & (cover.sum(axis=0) == 1)
    np.testing.assert_array_equal(tab.unique_tp.to_numpy(), (alone & (y == 1)).sum(axis=1))
    np.testing.assert_array_equal(tab.unique_fp.to_numpy(), (alone & (y == 0)).sum(axis=1))


def test_overlap_equals_brute_force(case):
    _, wide, X, _, _ = case
    ov = wide.overlap(X)
    masks = [r.mask(X) for r in wide.rules]
    k = len(masks)
    assert ov.shape == (k, k) and list(ov.index) == list(ov.columns)
    for i in range(k):
        for j in range(k):
            ni = masks[i].sum()
            expect = np.nan if ni == 0 else (masks[i] & masks[j]).sum() / ni
            if np.isnan(expect):
                assert np.isnan(ov.iloc[i, j])
            else:
                assert ov.iloc[i, j] == pytest.approx(expect, rel=1e-12)
    # a rule flagging a subset of another's rows: its row has 1.0 in that column
    sub = [(i, j) for i in range(k) for j in range(k) if i != j and masks[i].any() and not (masks[i] & ~masks[j]).any()]
    for i, j in sub:
        assert ov.iloc[i, j] == 1.0


def test_overlap_of_a_rule_that_flags_nothing_is_nan(case):
    rs, _, X, _, _ = case
    ov = rs.overlap(X.iloc[:0])
    assert ov.isna().all().all()


def test_dask_unique_and_overlap_equal_memory(case):
    dd = pytest.importorskip("dask.dataframe")
    _, wide, X, y, amount = case
    Xd = dd.from_pandas(X, npartitions=4)
    yd = dd.from_pandas(pd.Series(y), npartitions=4)
    ad = dd.from_pandas(pd.Series(amount), npartitions=4)
    mem = wide.evaluate(X, y, fn_cost=amount, fp_cost=5.0, per_rule=True)
    got = wide.evaluate(Xd, yd, fn_cost=ad, fp_cost=5.0, per_rule=True)
    for col in ("unique_tp", "unique_fp", "unique_money_caught", "unique_alert_cost", "unique_net_money"):
        np.testing.assert_allclose(got[col].to_numpy(), mem[col].to_numpy(), rtol=1e-10, atol=1e-8)
    pd.testing.assert_frame_equal(wide.overlap(Xd), wide.overlap(X))
