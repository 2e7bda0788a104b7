"""Alert capacity counting entities: the decision against a brute force over every subset of entities."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

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
