"""Recall of RIFF rule sets: the precision prior, rule refinement and pruning in riff_select, and
RIFFClassifier with several candidate sources; each against a brute-force computation."""

import json
import pickle
from fractions import Fraction

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import (
    CategorySet,
    Interval,
    RIFFClassifier,
    Rule,
    RuleSet,
    extract_rules,
    riff_select,
)
from csboost_plugins.rules._refine import prune_rule, refine_rule


def _score(g, n, prior, g0, m0):
    return (g + prior * g0) / (g + n + prior * m0)


def _data(seed, n=300, d=3, nan=0.1):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)  # ties in x on purpose
    X[rng.random(X.shape) < nan] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.normal(size=n)) > 1.5).astype(int)
    return rng, X, y


def _stats(rule, X, gain, neg, cost=None):
    m = rule.mask(X)
    return gain[m].sum(), neg[m].sum(), (neg if cost is None else cost)[m].sum(), m


@pytest.mark.parametrize("seed", range(8))
def test_refinement_finds_the_exhaustive_best_cut(seed):
    """One finite bound to move: the refined rule scores exactly the best of all widening cuts (x <= v
    for every observed v >= the old bound), covers every row it covered, and keeps missing routing."""
    rng, X, y = _data(seed)
    w = rng.integers(1, 4, len(y)).astype(float)
    gain, neg = w * (y == 1), w * (y == 0)
    prior = [0.0, 5.0, 50.0][seed % 3]
    g0, m0 = gain.sum() / w.sum(), (gain.sum() + neg.sum()) / w.sum()
    t = float(rng.choice(X[~np.isnan(X[:, 0]), 0]))
    other = CategorySet(2, codes=(0,), negate=True, missing=bool(seed % 2))  # |x2| >= 1; not refined
    def bound(v):  # odd seeds move a lower bound (widening it trades precision for recall)
        kw = {"lower": v, "lower_closed": True} if seed % 2 else {"upper": v, "upper_closed": True}
        return Interval(0, missing=bool(seed % 3 == 0), **kw)

    rule = Rule([bound(t), other])
    g0_, n0_, _, m_old = _stats(rule, X, gain, neg)
    refined = refine_rule(rule, X, gain, neg, prior, g0, m0)
    best = _score(g0_, n0_, prior, g0, m0)
    for v in np.unique(X[~np.isnan(X[:, 0]), 0]):
        g, n, _, m = _stats(Rule([bound(float(v)), other]), X, gain, neg)
        if m.sum() >= m_old.sum() and g + n > 0:
            best = max(best, _score(g, n, prior, g0, m0))
    g, n, _, m_new = _stats(refined, X, gain, neg)
    assert np.all(m_new[m_old])
    assert _score(g, n, prior, g0, m0) == pytest.approx(best, rel=1e-12)
    if refined is not rule:
        assert all(s.get("modified") == "refined" for s in refined.sources)
        assert refined.conditions[1] == other and refined.conditions[0].missing == rule.conditions[0].missing


@pytest.mark.parametrize("seed", range(8))
def test_budget_filling_refinement_is_the_exhaustive_best_within_budget(seed):
    """The rule that crosses the budget: the cut with the most gain whose cost fits max_cost (exhaustive)."""
    rng, X, y = _data(seed + 100)
    gain, neg = (y == 1) * 1.0, (y == 0) * 1.0
    cost = neg if seed % 2 else np.ones(len(y))  # FPR budget / alert-rate budget
    rule = Rule([Interval(0, lower=-1.0, lower_closed=False, missing=True)])
    max_cost = float(rng.integers(5, 30))
    refined = refine_rule(rule, X, gain, neg, cost=cost, max_cost=max_cost)
    best = -1.0
    for v in np.unique(X[~np.isnan(X[:, 0]), 0]):
        cand = Rule([Interval(0, lower=float(v), lower_closed=True, missing=True)])
        g, _, c, _ = _stats(cand, X, gain, neg, cost)
        if c <= max_cost:
            best = max(best, g)
    g, _, c, _ = _stats(refined, X, gain, neg, cost)
    if best < 0:  # no cut fits (the missing rows alone cost too much): unchanged
        assert refined is rule
    else:
        assert c <= max_cost and g == best


@pytest.mark.parametrize("seed", range(10))
def test_pruning_never_lowers_the_score_and_drops_redundant_conditions(seed):
    _, X, y = _data(seed + 200, d=4)
    gain, neg = (y == 1) * 1.0, (y == 0) * 1.0
    prior = [0.0, 20.0][seed % 2]
    g0, m0 = gain.mean(), 1.0
    rules = extract_rules(DecisionTreeClassifier(max_depth=4, random_state=seed).fit(np.nan_to_num(X), y))
    rules.append(Rule([Interval(0, lower=0.2, lower_closed=True), Interval(3, lower=-99.0, missing=True)]))
    for r in rules:
        g, n, _, _ = _stats(r, X, gain, neg)
        if g + n == 0:
            continue
        p = prune_rule(r, X, gain, neg, prior, g0, m0)
        gp, np_, _, _ = _stats(p, X, gain, neg)
        assert _score(gp, np_, prior, g0, m0) >= _score(g, n, prior, g0, m0) - 1e-15
        assert {c.key for c in p.conditions} <= {c.key for c in r.conditions} and len(p) >= 1
    # x3 >= -99 (or missing) holds for every row: always dropped
    assert [c.feature for c in prune_rule(rules[-1], X, gain, neg).conditions] == [0]


@pytest.mark.parametrize("tolerance", [0.0, 0.1, 0.3])
@pytest.mark.parametrize("seed", range(6))
def test_pruning_tolerance_floor_and_no_further_drop(seed, tolerance):
    """The pruned rule scores >= s - tolerance |s| (s: the rule's own score on D'), and no single further
    drop would keep it there (brute force over the remaining conditions)."""
    _, X, y = _data(seed + 300, d=4)
    gain, neg = (y == 1) * 1.0, (y == 0) * 1.0
    prior, g0, m0 = [0.0, 20.0][seed % 2], gain.mean(), 1.0
    rules = extract_rules(DecisionTreeClassifier(max_depth=5, random_state=seed).fit(np.nan_to_num(X), y))
    for r in rules:
        g, n, _, _ = _stats(r, X, gain, neg)
        if g + n == 0:
            continue
        s = _score(g, n, prior, g0, m0)
        floor = s - tolerance * abs(s)
        p = prune_rule(r, X, gain, neg, prior, g0, m0, tolerance=tolerance)
        gp, np_, _, _ = _stats(p, X, gain, neg)
        assert _score(gp, np_, prior, g0, m0) >= floor - 1e-15
        assert {c.key for c in p.conditions} <= {c.key for c in r.conditions} and len(p) >= 1
        for k in range(len(p) if len(p) > 1 else 0):
            shorter = Rule([c for i, c in enumerate(p.conditions) if i != k])
            gk, nk, _, _ = _stats(shorter, X, gain, neg)
            assert not _score(gk, nk, prior, g0, m0) >= floor - 1e-15


def _brute_prior(masks, y, gain, neg, limit, prior, max_rules):
    """Greedy by exact fractions with the shrunk precision (g + p g0) / (g + n + p m0)."""
    total = Fraction(len(y))
    g0 = sum((Fraction(int(v)) for v in gain), Fraction(0)) / total
    m0 = g0 + sum((Fraction(int(v)) for v in neg), Fraction(0)) / total
    p = Fraction(prior)
    unc, chosen, used, order = set(range(len(y))), set(), Fraction(0), []
    while used < limit and len(order) < max_rules:
        best = None
        for k, m in enumerate(masks):
            if k in chosen:
                continue
            rows = [i for i in unc if m[i]]
            g = sum((Fraction(int(gain[i])) for i in rows), Fraction(0))
            b = sum((Fraction(int(neg[i])) for i in rows), Fraction(0))
            if g + b == 0:
                continue
            key = ((g + p * g0) / (g + b + p * m0), g, -k)
            if best is None or key > best[0]:
                best = (key, k)
        if best is None:
            break
        k = best[1]
        chosen.add(k)
        order.append(k)
        new = {i for i in unc if masks[k][i]}
        unc -= new
        used += sum((Fraction(int(neg[i])) for i in new), Fraction(0))
    return order


@pytest.mark.parametrize("seed", range(6))
def test_precision_prior_greedy_equals_brute_force(seed):
    _, X, y = _data(seed + 300, n=200)
    rules = extract_rules(DecisionTreeClassifier(max_leaf_nodes=24, random_state=seed).fit(np.nan_to_num(X), y))
    prior = [1.0, 10.0, 40.0][seed % 3]
    rs = riff_select(rules, X, y, max_fpr=0.2, precision_prior=prior, max_rules=6)
    order = _brute_prior([r.mask(X) for r in rules], y, (y == 1) * 1, (y == 0) * 1,
                         Fraction(1, 5) * int((y == 0).sum()), prior, 6)
    assert list(rs.selection["candidate_index"]) == order


@pytest.mark.parametrize("seed", range(6))
def test_refined_selection_holds_the_budget_on_the_selection_set(seed):
    """With prune and refine, evaluate() on the selection set reproduces the selection statistics and the
    expected FPR (alert rate) is at most the budget; unmodified rules are still the model's own paths."""
    _, X, y = _data(seed + 400, n=2000, d=4)
    model = DecisionTreeClassifier(max_leaf_nodes=40, random_state=seed).fit(np.nan_to_num(X[:1000]), y[:1000])
    cands = extract_rules(model)
    alert = seed % 3 == 2
    budget = 0.03
    kw = {"max_alert_rate": budget} if alert else {"max_fpr": budget}
    rs = riff_select(cands, X[1000:], y[1000:], precision_prior=[0.0, 20.0][seed % 2], refine=True, prune=True,
                     max_rules=[None, 5][seed % 2], **kw)
    ev = rs.evaluate(X[1000:], y[1000:])
    rate = "alert_rate" if alert else "fpr"
    assert ev[rate] <= budget + 1e-12
    assert ev[rate] == pytest.approx(rs.selection["expected_" + rate], abs=1e-12)
    assert ev["tpr"] == pytest.approx(rs.selection["expected_tpr"], abs=1e-12)
    leaf = {r.key: r for r in cands}
    for r, k in zip(rs.rules, rs.selection["candidate_index"]):
        if any("modified" in s for s in r.sources):
            assert r.key != cands[k].key or r is not cands[k]
        else:
            assert leaf[r.key] is cands[k]
            # exact: the rule covers the rows the tree sends to its leaf
            node = r.sources[0]["node"]
            X0 = np.nan_to_num(X)
            assert np.array_equal(r.mask(X0), model.apply(X0) == node)
    back = RuleSet.from_json(rs.to_json())
    assert np.array_equal(back.predict_proba(X), rs.predict_proba(X))
    assert all(s1 == s2 for a, b in zip(rs.rules, back.rules) for s1, s2 in zip(a.sources, b.sources))


def test_refinement_recovers_recall_a_coarse_rule_set_loses():
    """One big leaf crossing a tight budget: the paper keeps it with probability rho (expected TPR
    rho * TPR); the budget-filling cut keeps its best part whole, so the selection-set TPR is higher."""
    rng = np.random.default_rng(5)
    n = 4000
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < 1 / (1 + np.exp(-(3 * X[:, 0] - 4)))).astype(int)
    stump = extract_rules(DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y))
    plain = riff_select(stump, X, y, max_fpr=0.01)
    refined = riff_select(stump, X, y, max_fpr=0.01, refine=True)
    assert plain.last_rule_probability < 1
    assert refined.selection["expected_fpr"] <= 0.01 + 1e-12
    assert refined.selection["expected_tpr"] > plain.selection["expected_tpr"] + 0.05


def test_riff_classifier_pooled_sources_and_new_keywords():
    import lightgbm as lgb

    from csdt.datasets import make_fraud_transactions
    b = make_fraud_transactions(20_000, random_state=1)
    X, y = b.data, np.asarray(b.target)
    ests = [lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, random_state=0),
            DecisionTreeClassifier(max_leaf_nodes=16, random_state=0)]
    clf = RIFFClassifier(estimator=ests, positive_rate=None, precision_prior=50.0, prune=True, refine=True,
                         max_rules=5, random_state=0).fit(X, y)
    assert isinstance(clf.estimator_, list) and len(clf.estimator_) == 2
    assert {s["model"] for r in clf.candidates_ for s in r.sources} == {0, 1}
    assert 1 <= len(clf.rule_set_) <= 5
    assert clf.rule_set_.selection["expected_fpr"] <= 0.01 + 1e-12
    clf2 = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(clf2.predict_proba(X), clf.predict_proba(X))
    json.loads(clf.rule_set_.to_json())
    for bad in ({"precision_prior": -1.0}, {"max_rules": 0}, {"refine": "yes"}, {"estimator": []}):
        with pytest.raises(ValueError):
            RIFFClassifier(**bad).fit(X, y)


def test_riff_select_rejects_bad_prior():
    _, X, y = _data(0)
    rules = extract_rules(DecisionTreeClassifier(max_depth=2).fit(np.nan_to_num(X), y))
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="precision_prior"):
            riff_select(rules, X, y, precision_prior=bad)


def test_precision_prior_on_dask_equals_in_memory_and_refine_is_refused():
    """The prior lives in the shared greedy loop, so dask input selects the same rules; prune / refine
    need the uncovered rows in memory and say so."""
    import dask.dataframe as dd
    import pandas as pd
    from dask import distributed
    _, X, y = _data(7, n=3000, d=4)
    pool = extract_rules(DecisionTreeClassifier(max_leaf_nodes=30, random_state=0).fit(np.nan_to_num(X[:1000]),
                                                                                       y[:1000]))
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(4)])
    df["_y"] = y
    ddf = dd.from_pandas(df, npartitions=3)
    Xd, yd = ddf[[f"x{j}" for j in range(4)]], ddf["_y"]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster):
        ref = riff_select(pool, X, y, max_fpr=0.05, precision_prior=20.0, max_rules=6)
        got = riff_select(pool, Xd, yd, max_fpr=0.05, precision_prior=20.0, max_rules=6)
        assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
        assert got.last_rule_probability == ref.last_rule_probability
        assert str(got) == str(ref)
        plain = riff_select(pool, X, y, max_fpr=0.05, max_rules=6)
        assert list(plain.selection["candidate_index"]) != list(ref.selection["candidate_index"])
        for opt in ("refine", "prune"):
            with pytest.raises(NotImplementedError, match=opt):
                riff_select(pool, Xd, yd, max_fpr=0.05, **{opt: True})
