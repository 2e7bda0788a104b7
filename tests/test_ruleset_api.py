"""RuleSet as a container: indexing, slicing, drop, what a subset carries (rho, feature names, selection
statistics), JSON round trip of a subset, and evaluate(last_rule=...) scoring the rules deployed."""

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import Rule, RuleSet, extract_rules, riff_select


@pytest.fixture(scope="module")
def selected():
    rng = np.random.default_rng(3)
    n = 4000
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["amount", "hour", "risk", "age"])
    y = ((X.amount + 0.7 * rng.normal(size=n) > 1.6) | (rng.random(n) < 0.01)).astype(int).to_numpy()
    amount = np.exp(rng.normal(3, 1, n))
    cands = extract_rules(DecisionTreeClassifier(max_leaf_nodes=60, random_state=0).fit(X, y))
    rs = riff_select(cands, X, y, max_fpr=0.03, fn_cost=amount, fp_cost=5.0)
    assert len(rs) >= 5 and 0 < rs.last_rule_probability < 1
    return rs, X, y, amount


def _alerts(rules, X):
    """Rows flagged by a list of rules, all in force (numpy reference, independent of the RuleSet kernels)."""
    out = np.zeros(len(X), bool)
    for r in rules:
        out |= r.mask(X)
    return out


def test_int_gives_a_rule_slices_lists_and_masks_give_rule_sets(selected):
    rs, X, y, _ = selected
    assert isinstance(rs[1], Rule) and rs[1] is rs.rules[1] and rs[-1] is rs.rules[-1]
    assert isinstance(rs[np.int64(0)], Rule)
    assert len(rs) == len(rs.rules) and list(rs) == rs.rules
    for key, pos in (([0, 2], [0, 2]), (slice(None, 3), [0, 1, 2]), (np.array([1, 3]), [1, 3]),
                     ([-1], [len(rs) - 1]), (np.arange(len(rs)) % 2 == 0, list(range(0, len(rs), 2))),
                     (slice(None, None, -1), None)):
        if pos is None:  # reversed: the randomised last rule would move off the last place
            with pytest.raises(ValueError, match="must stay last"):
                rs[key]
            continue
        sub = rs[key]
        assert isinstance(sub, RuleSet) and [r for r in sub] == [rs.rules[i] for i in pos]
        assert sub.feature_names == rs.feature_names
        # the subset deploys exactly its rules (the original last rule only with its own rho)
        keep_last = pos[-1] == len(rs) - 1
        on = _alerts(sub.rules if not keep_last or rs.last_rule_probability > 0.5 else sub.rules[:-1], X)
        np.testing.assert_array_equal(sub.predict(X), on)


def test_rho_is_kept_only_with_the_original_last_rule(selected):
    rs, X, y, _ = selected
    rho = rs.last_rule_probability
    assert rs[:].last_rule_probability == rho
    assert rs[[0, len(rs) - 1]].last_rule_probability == rho
    assert rs[:3].last_rule_probability == 1.0  # rules that were always in force stay so
    assert rs.drop(-1).last_rule_probability == 1.0
    assert rs.drop(0).last_rule_probability == rho
    p = rs[[1, len(rs) - 1]].predict_proba(X)
    both = _alerts([rs.rules[1]], X)
    last = _alerts([rs.rules[-1]], X) & ~both
    np.testing.assert_array_equal(p, np.where(both, 1.0, np.where(last, rho, 0.0)))
    assert rs.last_rule_probability == rho and len(rs.rules) >= 5  # the original is untouched


def test_drop(selected):
    rs, X, y, _ = selected
    d = rs.drop([0, 2])
    assert d.rules == [r for i, r in enumerate(rs.rules) if i not in (0, 2)]
    assert rs.drop(1).rules == rs.rules[:1] + rs.rules[2:]
    assert rs.drop([]).rules == rs.rules and len(rs.drop(slice(None))) == 0
    mask = np.zeros(len(rs), bool)
    mask[1] = True
    assert rs.drop(mask).rules == rs.drop(1).rules
    np.testing.assert_array_equal(rs.drop(-1).predict(X), _alerts(rs.rules[:-1], X))


@pytest.mark.parametrize("key, exc", [("a", TypeError), (1.5, TypeError), ([0.5], TypeError), ([0, 0], ValueError),
                                      ([99], IndexError), (np.ones(2, bool), IndexError),
                                      (np.zeros((1, 2), int), TypeError)])
def test_bad_keys(selected, key, exc):
    rs = selected[0]
    with pytest.raises(exc):
        rs[key]
    with pytest.raises(exc):
        rs.drop(key)


def test_selection_statistics_follow_the_subset(selected):
    rs, X, y, amount = selected
    sel = rs.selection
    k = 3
    head = rs[:k].selection
    for key in ("fpr", "tpr", "alert_rate", "money_recall", "net_money"):
        np.testing.assert_array_equal(head[key], np.asarray(sel[key])[:k])
        assert head["expected_" + key] == pytest.approx(sel[key][k - 1])  # rho = 1: the prefix's own value
    np.testing.assert_array_equal(head["candidate_index"], sel["candidate_index"][:k])
    assert head["budget"] == sel["budget"] and head["criterion"] == sel["criterion"]
    # the full slice reproduces the expectations under rho
    for key in ("expected_fpr", "expected_tpr"):
        assert rs[:].selection[key] == pytest.approx(sel[key], rel=1e-12)
    # a non-prefix subset: per-prefix figures would describe other rules, so they go
    other = rs[[0, 2]].selection
    assert not any(key in other for key in ("fpr", "tpr", "expected_fpr", "net_money"))
    np.testing.assert_array_equal(other["candidate_index"], np.asarray(sel["candidate_index"])[[0, 2]])
    assert "+TPR" not in str(rs[[0, 2]]) and "+TPR" in str(rs[:2])
    # the prefix figures are the subset's own figures on the selection rows
    ev = rs[:k].evaluate(X, y)
    assert ev["tpr"] == pytest.approx(head["tpr"][-1], rel=1e-12) and ev["fpr"] == pytest.approx(head["fpr"][-1])


def test_json_round_trip_of_a_slice(selected):
    rs, X, y, _ = selected
    for sub in (rs[[0, 2]], rs[:3], rs.drop(0)):
        back = RuleSet.from_json(sub.to_json())
        assert back.last_rule_probability == sub.last_rule_probability
        assert back.feature_names == sub.feature_names and [str(r) for r in back] == [str(r) for r in sub]
        np.testing.assert_array_equal(back.predict_proba(X), sub.predict_proba(X))
        assert back.to_sql() == sub.to_sql()
        assert set(back.selection) == set(sub.selection)
    # a subset of the round-tripped set is the round trip of the subset
    back = RuleSet.from_json(rs.to_json())
    np.testing.assert_array_equal(back[:3].selection["tpr"], rs[:3].selection["tpr"])


def test_evaluate_scores_the_rules_deployed(selected):
    rs, X, y, amount = selected
    rho = rs.last_rule_probability
    costs = dict(fn_cost=amount, fp_cost=5.0)
    for last_rule, rules in (("include", rs.rules), ("exclude", rs.rules[:-1]),
                             ("round", rs.rules if rho > 0.5 else rs.rules[:-1])):
        flag = _alerts(rules, X)
        ev = rs.evaluate(X, y, last_rule=last_rule, **costs)
        assert ev["tpr"] == pytest.approx(flag[y == 1].mean(), rel=1e-12)
        assert ev["fpr"] == pytest.approx(flag[y == 0].mean(), rel=1e-12)
        net = amount[flag & (y == 1)].sum() - 5.0 * (flag & (y == 0)).sum()
        assert ev["net_money"] == pytest.approx(net, rel=1e-12) and ev["n_rules"] == len(rules)
        np.testing.assert_array_equal(rs.predict(X, last_rule=last_rule), flag)  # same default, same rows
        tab = rs.evaluate(X, y, last_rule=last_rule, per_rule=True, **costs)
        assert len(tab) == len(rules) and (tab["probability"] == 1.0).all()
        assert tab["set_net_money"].iloc[-1] == pytest.approx(net, rel=1e-12)
    assert rs.evaluate(X, y, **costs) == rs.evaluate(X, y, last_rule="round", **costs)
    # "expected": the randomised set, the last rule counted with probability rho
    p = rs.predict_proba(X)
    ev = rs.evaluate(X, y, last_rule="expected", **costs)
    assert ev["fpr"] == pytest.approx(p[y == 0].mean(), rel=1e-12)
    assert ev["fpr"] == pytest.approx(rs.selection["expected_fpr"], rel=1e-12)  # X is the selection set
    assert rs.evaluate(X, y, last_rule="expected", per_rule=True)["probability"].iloc[-1] == rho
    with pytest.raises(ValueError, match="last_rule"):
        rs.evaluate(X, y, last_rule="random")


def test_evaluate_default_matches_predict_for_rho_below_one_half():
    X = np.arange(20.0).reshape(-1, 1)
    y = (X[:, 0] >= 15).astype(int)
    rules = [Rule.from_dict({"conditions": [{"kind": "interval", "feature": 0, "lower": 17.5, "upper": None,
                                             "lower_closed": False, "upper_closed": False, "missing": False}]}),
             Rule.from_dict({"conditions": [{"kind": "interval", "feature": 0, "lower": 10.5, "upper": None,
                                             "lower_closed": False, "upper_closed": False, "missing": False}]})]
    rs = RuleSet(rules, last_rule_probability=0.3)
    ev = rs.evaluate(X, y)
    assert ev["tpr"] == pytest.approx(2 / 5) and ev["fpr"] == 0.0 and ev["n_rules"] == 1
    assert ev["tpr"] == pytest.approx(rs.predict(X)[y == 1].mean())
    assert rs.evaluate(X, y, last_rule="expected")["fpr"] == pytest.approx(0.3 * 4 / 15)
