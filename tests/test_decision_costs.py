"""decision_costs: every formula against a brute-force loop over rows and the 2x2 cost table."""

import numpy as np
import pytest

from csboost_plugins import decision_costs as dc


@pytest.fixture
def case():
    rng = np.random.default_rng(0)
    n = 200
    costs = rng.uniform(-1, 10, size=(n, 4))  # [C_FP, C_FN, C_TP, C_TN]
    y = rng.integers(0, 2, n)
    p = rng.uniform(0, 1, n)
    return y, costs, p


def _table(row):
    fp, fn, tp, tn = row
    return {(1, 1): tp, (1, 0): fn, (0, 1): fp, (0, 0): tn}  # (label, decision) -> money


def test_decision_costs_and_row_cost_match_the_table(case):
    y, costs, p = case
    c0, c1 = dc.decision_costs(y, costs)
    for i in range(len(y)):
        t = _table(costs[i])
        assert c0[i] == t[(y[i], 0)] and c1[i] == t[(y[i], 1)]
    d = (p > 0.5).astype(int)
    np.testing.assert_array_equal(dc.row_cost(y, d, costs), [_table(costs[i])[(y[i], d[i])] for i in range(len(y))])
    exp = [p[i] * _table(costs[i])[(y[i], 1)] + (1 - p[i]) * _table(costs[i])[(y[i], 0)] for i in range(len(y))]
    np.testing.assert_allclose(dc.row_cost(y, p, costs), exp, rtol=1e-12)
    np.testing.assert_array_equal(dc.regret_difference(y, costs), c1 - c0)


def test_bmr_is_the_cheaper_expected_decision_and_matches_thresholds(case):
    y, costs, p = case
    dec = dc.bmr_decisions(p, costs)
    for i in range(len(p)):
        t = _table(costs[i])
        r0 = p[i] * t[(1, 0)] + (1 - p[i]) * t[(0, 0)]
        r1 = p[i] * t[(1, 1)] + (1 - p[i]) * t[(0, 1)]
        assert dec[i] == int(r1 < r0)
    t = dc.bayes_thresholds(costs)
    ok = ~np.isnan(t)  # NaN only where both regrets are negative: no "p > t" rule exists
    reg_pos, reg_neg = costs[:, 1] - costs[:, 2], costs[:, 0] - costs[:, 3]
    np.testing.assert_array_equal(np.isnan(t), (reg_pos < 0) & (reg_neg < 0))
    assert (reg_pos + reg_neg <= 0)[ok].any()  # the case has rows where t* = reg_neg / den would be wrong
    np.testing.assert_array_equal(dec[ok], (p[ok] > t[ok]).astype(int))


def test_trivial_policies_and_savings(case):
    y, costs, _ = case
    w = np.linspace(0.5, 2, len(y))
    all0, all1 = dc.trivial_policy_costs(y, costs, w)
    assert all0 == pytest.approx(sum(w[i] * _table(costs[i])[(y[i], 0)] for i in range(len(y))))
    assert all1 == pytest.approx(sum(w[i] * _table(costs[i])[(y[i], 1)] for i in range(len(y))))
    assert dc.savings_from_costs(25.0, 100.0) == 0.75
    with pytest.raises(ValueError, match="undefined"):
        dc.savings_from_costs(1.0, 0.0)
