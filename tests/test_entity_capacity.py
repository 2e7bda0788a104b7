"""Alert capacity counting entities: the decision against a brute force over every subset of entities."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from _estimators import boosting_classes
from test_capacity import _net_money

from csboost_plugins.metrics import bayes_minimum_risk


def _brute_force(p, fp, fn, period, entity, k):
    """Decisions maximising each period's summed expected net money over every set of <= k entities;
    ties: fewest entities, then the set whose sorted first rows come first (the documented rule)."""
    n = len(p)
    v = [p[i] * fn[i] - (1 - p[i]) * fp[i] for i in range(n)]
    out = np.zeros(n, dtype=np.int64)
    for t in sorted(set(period)):
        rows = [i for i in range(n) if period[i] == t]
        ents = []
        for i in rows:  # entities in order of their first row in the period
            if entity[i] not in ents:
                ents.append(entity[i])
        first = {e: min(i for i in rows if entity[i] == e) for e in ents}
        value = {e: sum(v[i] for i in rows if entity[i] == e) for e in ents}
        best = None
        for size in range(min(k, len(ents)) + 1):
            for subset in combinations(ents, size):
                key = (sum(value[e] for e in subset), -size, [-x for x in sorted(first[e] for e in subset)])
                if best is None or key > best[0]:
                    best = (key, subset)
        for i in rows:
            out[i] = int(entity[i] in best[1])
    return out


@pytest.mark.parametrize("seed", range(40))
def test_entity_cap_maximises_the_period_money_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    # probabilities in eighths and integer costs: exact values, so ties happen and are exact
    p = rng.integers(0, 9, n) / 8.0
    fp = rng.integers(0, 4, n).astype(float)
    fn = rng.integers(0, 6, n).astype(float)
    period = rng.integers(0, 3, n)
    entity = rng.choice(["a", "b", "c", "d", "e", "f"], n)
    k = int(rng.integers(1, 4))
    got = bayes_minimum_risk(p, fp_cost=fp, fn_cost=fn, max_alerts=k, periods=period, entity=entity)
    assert got.tolist() == _brute_force(p, fp, fn, period, entity, k).tolist()


def test_every_row_of_an_alerted_entity_in_the_period_is_flagged_and_nothing_else():
    p = np.array([0.9, 0.0, 0.1, 0.9, 0.0])
    period = [0, 0, 1, 1, 1]
    entity = ["a", "a", "a", "b", "b"]
    d = bayes_minimum_risk(p, fp_cost=1.0, fn_cost=10.0, max_alerts=1, periods=period, entity=entity)
    # period 0: card a (9 - 1 = 8); period 1: card b (9 - 0.1 - 1 = 7.9) beats a (1 - 0.9 = 0.1)
    assert d.tolist() == [1, 1, 0, 1, 1]


def test_entity_without_a_cap_decides_each_row_by_itself():
    rng = np.random.default_rng(0)
    p, fn = rng.random(50), rng.random(50) * 10
    entity = rng.integers(0, 5, 50)
    assert np.array_equal(bayes_minimum_risk(p, fp_cost=1.0, fn_cost=fn, entity=entity),
                          bayes_minimum_risk(p, fp_cost=1.0, fn_cost=fn))


def test_ties_go_to_the_entity_seen_first():
    # two cards of equal value in one period, one alert: the card whose first row comes first
    d = bayes_minimum_risk([0.5, 0.5, 0.5, 0.5], fp_cost=1.0, fn_cost=3.0, max_alerts=1,
                           entity=["y", "x", "x", "y"])
    assert d.tolist() == [1, 0, 0, 1]


def test_entity_errors_name_the_argument():
    p = [0.5, 0.6]
    with pytest.raises(ValueError, match="entity has 3 labels but there are 2 rows"):
        bayes_minimum_risk(p, fp_cost=1.0, fn_cost=2.0, max_alerts=1, entity=[1, 2, 3])
    with pytest.raises(ValueError, match="entity has 1 missing label"):
        bayes_minimum_risk(p, fp_cost=1.0, fn_cost=2.0, max_alerts=1, entity=["a", None])
    with pytest.raises(ValueError, match="give max_alerts .* not max_alert_rate=0.5"):
        bayes_minimum_risk(p, fp_cost=1.0, fn_cost=2.0, max_alert_rate=0.5, entity=["a", "b"])
    with pytest.raises(ValueError, match="entity"):
        bayes_minimum_risk(pd.Series(p, index=[5, 6]), fp_cost=1.0, fn_cost=2.0, max_alerts=1,
                           entity=pd.Series(["a", "b"], index=[6, 5]))


# ------------------------------------------------------------------ the one decision, both ways of pooling rows
def _brute_force_by_score(value, eligible, period, entity, k):
    """k entities per period by their largest eligible value (a score does not add), ties to the entity seen first;
    only entities with an eligible row; every row of a chosen entity in the period flagged."""
    n = len(value)
    out = np.zeros(n, dtype=np.int64)
    for t in sorted(set(period)):
        rows = [i for i in range(n) if period[i] == t]
        first, best = {}, {}
        for i in rows:
            first.setdefault(entity[i], i)
            if eligible[i]:
                best[entity[i]] = max(best.get(entity[i], -np.inf), value[i])
        chosen = sorted(best, key=lambda e: (-best[e], first[e]))[:k]
        for i in rows:
            out[i] = int(entity[i] in chosen)
    return out


def _case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    value = rng.integers(-4, 5, n) / 4.0  # exact quarters: ties happen and are exact
    period = rng.integers(0, 3, n)
    entity = rng.choice(["a", "b", "c", "d", "e", "f"], n)
    return value, period, entity, int(rng.integers(1, 4))


@pytest.mark.parametrize("seed", range(40))
def test_capped_decisions_with_entities_equal_brute_force(seed):
    from csboost_plugins._capacity import capped_decisions, check_capacity

    value, period, entity, k = _case(seed)
    cap = check_capacity(len(value), max_alerts=k, periods=period, entity=entity)
    eligible = value > 0
    got = capped_decisions(value, eligible, cap, "max")
    assert got.tolist() == _brute_force_by_score(value, eligible, period, entity, k).tolist()
    # "sum": money adds, the eligibility mask is the entity's summed value > 0 (unit costs: p = (v + 1) / 2)
    p = (value + 1.0) / 2.0
    ones = np.ones(len(p))
    want = _brute_force(p, ones, ones, period, entity, k)
    assert capped_decisions(value, eligible, cap, "sum").tolist() == want.tolist()
    with pytest.raises(ValueError, match="combine"):
        capped_decisions(value, eligible, cap, "mean")


# ------------------------------------------------------------------ every caller of the capacity takes entity
def _fraud(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    amount = np.round(rng.exponential(100.0, n), 2)
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 1.5).astype(int)
    period = rng.integers(0, 6, n)
    card = rng.integers(0, 60, n)  # about 4 rows per card and day: an entity cap differs from a row cap
    return X, y, amount, period, card


@pytest.mark.parametrize("cls", boosting_classes())
def test_booster_predict_with_entity(cls):
    X, y, amount, period, card = _fraud()
    est = cls(n_estimators=10, random_state=0, decision="bmr").fit(X, y, fp_cost=5.0, fn_cost=amount)
    cap = dict(max_alerts=3, periods=period, entity=card)
    got = est.predict(X, fp_cost=5.0, fn_cost=amount, **cap)  # Bayes minimum risk: summed alert values
    want = bayes_minimum_risk(est.predict_proba(X), fp_cost=5.0, fn_cost=amount, **cap)
    np.testing.assert_array_equal(got, est.classes_[want])
    by_rows = bayes_minimum_risk(est.predict_proba(X), fp_cost=5.0, fn_cost=amount, max_alerts=3, periods=period)
    assert not np.array_equal(want, by_rows)  # the entity cap is not the row cap here
    # no costs: the AEC's own s > 1/2, an entity is worth its largest margin
    margin = est.decision_function(X)
    got = est.predict(X, **cap)
    want = _brute_force_by_score(margin, margin > 0, period, card, 3)
    np.testing.assert_array_equal(got, est.classes_[want])
    # entity without a cap changes nothing
    np.testing.assert_array_equal(est.predict(X, fp_cost=5.0, fn_cost=amount, entity=card),
                                  est.predict(X, fp_cost=5.0, fn_cost=amount))
    Xf = pd.DataFrame(X, index=np.arange(len(y)) + 7)
    with pytest.raises(ValueError, match="entity"):
        est.predict(Xf, fp_cost=5.0, fn_cost=amount, max_alerts=3, entity=pd.Series(card))
    with pytest.raises(ValueError, match="not max_alert_rate"):
        est.predict(X, fp_cost=5.0, fn_cost=amount, max_alert_rate=0.1, entity=card)


def test_csdt_classifiers_with_entity():
    from csdt import BayesMinimumRiskClassifier, ThresholdingOptimization

    X, y, amount, period, card = _fraud()
    cap = dict(max_alerts=2, periods=period, entity=card)
    bmr = BayesMinimumRiskClassifier().fit(X, y, fp_cost=5.0, fn_cost=amount)
    got = bmr.predict(X, fp_cost=5.0, fn_cost=amount, **cap)
    np.testing.assert_array_equal(got, bayes_minimum_risk(bmr.predict_proba(X), fp_cost=5.0, fn_cost=amount, **cap))
    thr = ThresholdingOptimization(cv=None).fit(X, y, fp_cost=5.0, fn_cost=amount)
    s = thr.predict_proba(X)[:, 1]
    got = thr.predict(X, **cap)  # a probability does not add: an entity is worth its largest
    np.testing.assert_array_equal(got, _brute_force_by_score(s, s >= thr.threshold_, period, card, 2))
    assert 0 < got.sum() < thr.predict(X).sum()
    np.testing.assert_array_equal(thr.predict(X, entity=card), thr.predict(X))
    Xf = pd.DataFrame(X, index=np.arange(len(y)) + 7)
    with pytest.raises(ValueError, match="entity"):  # a pandas entity in another row order than X
        bmr.predict(Xf, fp_cost=5.0, fn_cost=amount, max_alerts=2, entity=pd.Series(card))
    with pytest.raises(ValueError, match="entity"):
        thr.predict(Xf, max_alerts=2, entity=pd.Series(card))
    with pytest.raises(ValueError, match="not max_alert_rate"):
        thr.predict(X, max_alert_rate=0.1, entity=card)


def test_capacity_curve_counts_entities():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from csboost_plugins.plot import CapacityCurveDisplay

    rng = np.random.default_rng(4)
    n = 1200
    p = np.round(rng.beta(0.5, 6, n), 2)  # rounded: ties in the ranking
    y = (rng.random(n) < p).astype(int)
    amount = np.round(rng.exponential(80.0, n), 0)
    period = rng.choice(np.array(["d1", "d2", "d3"]), n)
    card = rng.integers(0, 150, n)
    score = np.round(p + rng.normal(0, 0.05, n), 2)
    disp = CapacityCurveDisplay.from_predictions(y, p, periods=period, y_score=score, fp_cost=4.0, fn_cost=amount,
                                                 entity=card)
    assert disp.unit == "entities" and "entities" in disp.ax_.get_xlabel()
    assert disp.net_money_value[0] == 0 and disp.net_money_score[0] == 0
    for k in range(1, int(disp.capacity[-1]) + 1):  # every capacity: the curve against the decisions
        dec = bayes_minimum_risk(p, fp_cost=4.0, fn_cost=amount, max_alerts=k, periods=period, entity=card)
        assert disp.net_money_value[k] == pytest.approx(_net_money(dec, y, amount, 4.0), abs=1e-6)
        by_score = _brute_force_by_score(score, np.ones(n, dtype=bool), period, card, k)
        assert disp.net_money_score[k] == pytest.approx(_net_money(by_score, y, amount, 4.0), abs=1e-6)
    uncapped = bayes_minimum_risk(p, fp_cost=4.0, fn_cost=amount)
    assert disp.net_money_bmr == pytest.approx(_net_money(uncapped, y, amount, 4.0))  # uncapped: per row
    flagged = pd.DataFrame({"t": period, "card": card})[uncapped == 1]
    assert disp.bmr_alerts_per_period == flagged.groupby("t")["card"].nunique().max()
    v = p * amount - (1 - p) * 4.0
    positive = pd.Series(v).groupby([period, card]).sum() > 0  # the entities worth alerting, per day
    assert disp.capacity[-1] == int(np.ceil(1.5 * positive.groupby(level=0).sum().max()))
    with pytest.raises(ValueError, match="entity"):
        CapacityCurveDisplay.from_predictions(y, p, fp_cost=4.0, fn_cost=amount, entity=card[:-1])
    with pytest.raises(ValueError, match="entity"):
        CapacityCurveDisplay.from_predictions(pd.Series(y, index=np.arange(n) + 3), p, fp_cost=4.0, fn_cost=amount,
                                              entity=pd.Series(card))


@pytest.mark.parametrize("cls", boosting_classes())
def test_walk_forward_decides_with_the_boosters_own_entity_cap(cls):
    import inspect

    from csboost_plugins.model_selection import walk_forward

    # walk_forward calls a predict that takes the costs and the whole cap, entity included, itself
    assert {"fp_cost", "max_alerts", "periods", "entity"} <= set(inspect.signature(cls.predict).parameters)
    rng = np.random.default_rng(2)
    n = 1500
    t = rng.uniform(0, 30, n)
    card = rng.integers(0, 50, n)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 1.2).astype(int)
    amount = np.round(rng.exponential(80.0, n), 2)
    est = cls(n_estimators=5, random_state=0, decision="bmr")
    res = walk_forward(est, X, y, times=t, entity=card, max_alerts=2, fp_cost=5.0, fn_cost=amount, n_steps=2)
    pred = res.predictions
    for step, rows in pred.groupby("step"):
        test_start = res.steps.loc[res.steps["step"] == step, "test_start"].iloc[0]
        day = np.floor(rows["time"].to_numpy() - test_start)
        want = bayes_minimum_risk(rows["y_score"].to_numpy(), fp_cost=5.0, fn_cost=amount[rows["row"]],
                                  max_alerts=2, periods=day, entity=card[rows["row"]])
        np.testing.assert_array_equal(rows["y_pred"].to_numpy(), want)
        assert pd.Series(card[rows["row"]][want == 1]).groupby(day[want == 1]).nunique().max() == 2


@pytest.mark.boundscheck  # .ci/boundscheck re-runs it on the JIT kernel with bounds checks
@pytest.mark.parametrize("seed,n,n_periods,n_entities", [(0, 0, 1, 1), (1, 1, 1, 1), (2, 500, 7, 30),
                                                         (3, 20_000, 40, 3000), (4, 2000, 1, 1)])
def test_group_rows_equals_a_dictionary_by_first_row(seed, n, n_periods, n_entities):
    """(period, entity) groups numbered by their first row, against a plain dictionary over the rows; periods in
    any order (not sorted), entities revisiting periods."""
    from csboost_plugins._entity_capacity import group_rows

    rng = np.random.default_rng(seed)
    periods = rng.integers(0, n_periods, n)
    entities = rng.integers(0, n_entities, n)
    seen = {}
    for p, e in zip(periods.tolist(), entities.tolist()):
        seen.setdefault((p, e), len(seen))
    group, group_period = group_rows(periods, entities)
    assert group.tolist() == [seen[(p, e)] for p, e in zip(periods.tolist(), entities.tolist())]
    assert group_period.tolist() == [p for p, _ in seen]
    with pytest.raises(ValueError, match=">= 0"):
        group_rows(np.array([0, -1]), np.array([0, 0]))
