"""Money-complete rule selection: riff_select / RIFFClassifier with fp/fn/tp/tn costs or cost_matrix,
against an independent brute force in exact fractions (ranking by net money per budget unit, the stop
before a rule that loses money), the two cost forms, and bad costs."""

from fractions import Fraction

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from _fraud_rules import random_rules

from csboost_plugins.rules import RIFFClassifier, extract_rules, riff_select




def _data(seed, n=150, d=3):
    """Integer features with NaN, labels, integer weights and per-row integer costs (exact in fractions).
    Some positives cost more to review than they are worth (C_TP > C_FN), some alerts are cheap."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, size=(n, d)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (rng.random(n) < 0.3).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(1, 4, n).astype(float)
    fp = rng.integers(1, 12, n).astype(float)
    fn = rng.integers(0, 40, n).astype(float)
    tp = rng.integers(0, 6, n).astype(float)
    tn = rng.integers(0, 2, n).astype(float)
    if seed % 3 == 0:  # rules from a tree (trie path sharing), pooled with random ones
        rules = extract_rules(DecisionTreeClassifier(max_depth=3, random_state=seed).fit(np.nan_to_num(X), y))
        rules += random_rules(rng, d, 12)
    else:
        rules = random_rules(rng, d, 25)
    return X, y, w, (fp, fn, tp, tn), rules


def _net(rows, y, w, costs):
    """Net money of flagging ``rows``: sum of w (C_FN - C_TP) over positives minus w (C_FP - C_TN) over negatives."""
    fp, fn, tp, tn = costs
    return sum((Fraction(int(w[i])) * (Fraction(int(fn[i] - tp[i])) if y[i] == 1 else -Fraction(int(fp[i] - tn[i])))
                for i in rows), Fraction(0))


def _brute_money(masks, y, w, costs, budget_w, limit, stop=True):
    """Greedy by sets and fractions: the next rule maximises (net money / budget weight) of the rows it newly
    covers (budget weight 0: first if the net is > 0); ties: more net money, then the lower index; with
    ``stop`` a candidate whose net is <= 0 is never taken. Returns (order, per-step net, per-step budget)."""
    uncovered = set(range(len(y)))
    chosen, used, order, nets = set(), Fraction(0), [], []
    while used < limit:
        best = None
        for k, m in enumerate(masks):
            if k in chosen:
                continue
            rows = [i for i in uncovered if m[i]]
            if not any(w[i] > 0 for i in rows):
                continue
            net = _net(rows, y, w, costs)
            if stop and net <= 0:
                continue
            b = sum((Fraction(int(budget_w[i])) for i in rows), Fraction(0))
            # (is +/-inf, value) so that B = 0 compares exactly
            score = (1, 1) if b == 0 and net > 0 else (-1, -1) if b == 0 else (0, net / b)
            key = (score, net, -k)
            if best is None or key > best[0]:
                best = (key, k)
        if best is None:
            break
        k = best[1]
        chosen.add(k)
        order.append(k)
        newly = [i for i in uncovered if masks[k][i]]
        nets.append(_net(newly, y, w, costs))
        uncovered -= set(newly)
        used += sum((Fraction(int(budget_w[i])) for i in newly), Fraction(0))
    return order, nets, uncovered, chosen


def _limit(budget, budget_w):
    return Fraction(budget).limit_denominator(1000) * Fraction(int(budget_w.sum()))


@pytest.mark.parametrize("seed", range(10))
def test_money_greedy_equals_brute_force_and_never_keeps_a_losing_rule(seed):
    X, y, w, costs, rules = _data(seed)
    fp, fn, tp, tn = costs
    alert = seed % 4 == 3
    budget = [0.1, 0.3, 0.6, 0.9][seed % 4]
    kw = {"max_alert_rate": budget} if alert else {"max_fpr": budget}
    rs = riff_select(rules, X, y, sample_weight=w, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn, **kw)
    masks = [r.mask(X) for r in rules]  # numpy reference evaluation, independent of the numba trie
    budget_w = w if alert else w * (y == 0)
    limit = _limit(budget, budget_w)
    order, nets, uncovered, chosen = _brute_money(masks, y, w, costs, budget_w, limit)
    # the greedy choice at each step is the best marginal candidate by the documented criterion
    assert list(rs.selection["candidate_index"]) == order
    # every kept rule makes money on the rows it newly covers (recomputed from the returned rules)
    covered = np.zeros(len(y), bool)
    for r, net in zip(rs.rules, nets):
        new = r.mask(X) & ~covered
        assert _net(np.flatnonzero(new), y, w, costs) == net > 0
        covered |= new
    np.testing.assert_allclose(rs.selection["net_money"], np.cumsum([float(v) for v in nets]), rtol=1e-12)
    used = sum((Fraction(int(budget_w[i])) for i in np.flatnonzero(covered)), Fraction(0))
    if used < limit:  # stopped with budget left: no candidate would have made money
        for k, m in enumerate(masks):
            if k not in chosen:
                assert _net([i for i in uncovered if m[i]], y, w, costs) <= 0


@pytest.mark.parametrize("seed", range(4))
def test_without_the_stop_the_money_ranking_fills_the_budget(seed):
    X, y, w, costs, rules = _data(seed + 20)
    fp, fn, tp, tn = costs
    rs = riff_select(rules, X, y, sample_weight=w, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn, max_fpr=0.5,
                     stop_unprofitable=False)
    budget_w = w * (y == 0)
    order, *_ = _brute_money([r.mask(X) for r in rules], y, w, costs, budget_w, _limit(0.5, budget_w), stop=False)
    assert list(rs.selection["candidate_index"]) == order
    stopped = riff_select(rules, X, y, sample_weight=w, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn, max_fpr=0.5)
    n_stop = len(stopped)
    assert list(stopped.selection["candidate_index"]) == order[:n_stop]


@pytest.mark.parametrize("prior", [0.0, 3.0, 50.0])
def test_money_selection_with_prior_refine_prune_keeps_no_losing_rule(prior):
    """Pruned / refined rules (a budget-filling cut included) that would lose money give way to the candidate."""
    for seed in (1, 2, 12, 24, 40):
        X, y, w, costs, rules = _data(seed, n=300)
        fp, fn, tp, tn = costs
        for max_fpr in (0.1, 0.4):
            for extra in ({}, {"refine": True}, {"prune": True, "refine": True}):
                rs = riff_select(rules, X, y, sample_weight=w, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn,
                                 max_fpr=max_fpr, precision_prior=prior, **extra)
                covered = np.zeros(len(y), bool)
                for r in rs.rules:
                    new = r.mask(X) & ~covered
                    assert _net(np.flatnonzero(new), y, w, costs) > 0
                    covered |= new


def test_cost_matrix_equals_the_keywords_and_fn_cost_alone_is_refused():
    X, y, w, (fp, fn, tp, tn), rules = _data(5, n=400)
    kw = dict(sample_weight=w, max_fpr=0.2)
    a = riff_select(rules, X, y, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn, **kw)
    b = riff_select(rules, X, y, cost_matrix=np.column_stack([fp, fn, tp, tn]), **kw)
    assert len(a) >= 2
    np.testing.assert_array_equal(a.selection["candidate_index"], b.selection["candidate_index"])
    assert a.last_rule_probability == b.last_rule_probability
    np.testing.assert_array_equal(a.selection["net_money"], b.selection["net_money"])
    # scalars broadcast like per-row arrays
    c = riff_select(rules, X, y, fp_cost=5.0, fn_cost=fn, tp_cost=2.0, **kw)
    d = riff_select(rules, X, y, fp_cost=np.full(len(y), 5.0), fn_cost=fn, tp_cost=np.full(len(y), 2.0), **kw)
    np.testing.assert_array_equal(c.selection["candidate_index"], d.selection["candidate_index"])
    with pytest.raises(TypeError, match="pass fp_cost= the cost of an alert"):
        riff_select(rules, X, y, fn_cost=fn, **kw)


def test_the_alert_cost_changes_the_selection():
    """With free alerts every rule catching money is worth it; a review cost of 8 makes some lose money:
    the money selection drops them, the count selection keeps them."""
    X, y, w, (fp, fn, tp, tn), rules = _data(7, n=400)
    free = riff_select(rules, X, y, fp_cost=0.0, fn_cost=fn, max_fpr=0.6)
    paid = riff_select(rules, X, y, fn_cost=fn, fp_cost=8.0, tp_cost=8.0, max_fpr=0.6)
    costs = (np.full(len(y), 8.0), fn, np.full(len(y), 8.0), np.zeros(len(y)))
    covered, losing = np.zeros(len(y), bool), 0
    for r in free.rules:
        new = r.mask(X) & ~covered
        losing += _net(np.flatnonzero(new), y, np.ones(len(y)), costs) <= 0
        covered |= new
    assert losing >= 1
    assert paid.selection["net_money"][-1] > 0
    covered = np.zeros(len(y), bool)
    for r in paid.rules:
        new = r.mask(X) & ~covered
        assert _net(np.flatnonzero(new), y, np.ones(len(y)), costs) > 0
        covered |= new


def test_riff_classifier_money_uses_the_whole_cost_matrix():
    X, y, w, (fp, fn, tp, tn), _ = _data(11, n=600)
    X = np.nan_to_num(X)
    cm = np.column_stack([fp, fn, tp, tn])
    kw = dict(rank_by="money", max_fpr=0.3, random_state=0)
    a = RIFFClassifier.paper(**kw).fit(X, y, cost_matrix=cm)  # the paper's selection, as riff_select's defaults
    b = RIFFClassifier.paper(**kw).fit(X, y, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn)
    assert [str(r) for r in a.rule_set_] == [str(r) for r in b.rule_set_]
    sel = a.selection_index_
    ref = riff_select(a.candidates_, X[sel], y[sel], cost_matrix=cm[sel], max_fpr=0.3)
    np.testing.assert_array_equal(a.rule_set_.selection["candidate_index"], ref.selection["candidate_index"])
    covered = np.zeros(len(sel), bool)
    for r in a.rule_set_:
        new = r.mask(X[sel]) & ~covered
        assert _net(np.flatnonzero(new), y[sel], np.ones(len(sel)), tuple(c[sel] for c in (fp, fn, tp, tn))) > 0
        covered |= new
    full = RIFFClassifier.paper(stop_unprofitable=False, **kw).fit(X, y, cost_matrix=cm)
    assert full.rule_set_.selection["expected_fpr"] >= a.rule_set_.selection["expected_fpr"]


@pytest.mark.parametrize("kw, name", [
    ({"fp_cost": np.r_[np.nan, np.ones(149)], "fn_cost": 1.0}, "fp_cost"),
    ({"fp_cost": 1.0, "fn_cost": np.ones(10)}, "fn_cost"),
    ({"fp_cost": 1.0, "fn_cost": 1.0, "tp_cost": np.r_[np.inf, np.zeros(149)]}, "tp_cost"),
    ({"fp_cost": 1.0, "fn_cost": 1.0, "tn_cost": "a lot"}, "tn_cost"),
    ({"cost_matrix": np.ones((150, 3))}, "cost_matrix"),
    ({"cost_matrix": np.ones((150, 4)), "fp_cost": 1.0}, "cost_matrix"),
    ({"fp_cost": 1.0}, "fn_cost"),
    ({"tp_cost": 2.0}, "fn_cost"),
])
def test_bad_costs_are_refused_naming_the_argument(kw, name):
    X, y, w, _, rules = _data(1)
    with pytest.raises((ValueError, TypeError), match=name):
        riff_select(rules, X, y, **kw)


def test_nan_and_length_errors_are_value_errors():
    X, y, w, _, rules = _data(1)
    for kw in ({"fp_cost": np.r_[np.nan, np.ones(149)], "fn_cost": 1.0}, {"fp_cost": 1.0, "fn_cost": np.ones(3)},
               {"cost_matrix": np.ones((150, 4)), "fn_cost": 1.0}):
        with pytest.raises(ValueError):
            riff_select(rules, X, y, **kw)
    with pytest.raises(TypeError, match="stop_unprofitable"):
        riff_select(rules, X, y, fn_cost=1.0, fp_cost=1.0, stop_unprofitable="yes")


def test_dask_money_selection_equals_in_memory_and_refuses_row_costs_it_cannot_take():
    dd = pytest.importorskip("dask.dataframe")
    from _fraud_rules import fraud_rules_case

    X, y, amount, pool = fraud_rules_case(6000, max_depth=5)
    df = X.copy()
    df["_y"], df["_amount"] = y, amount
    ddf = dd.from_pandas(df, npartitions=4)
    Xd, yd, md = ddf[list(X.columns)], ddf["_y"], ddf["_amount"]
    for kw in ({"fp_cost": 40.0, "tp_cost": 40.0}, {"fp_cost": 3.0, "tn_cost": 1.0}):
        ref = riff_select(pool, X, y, fn_cost=amount, max_fpr=0.05, **kw)
        got = riff_select(pool, Xd, yd, fn_cost=md, max_fpr=0.05, **kw)
        assert len(ref) >= 2
        assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
        assert str(got) == str(ref)
        np.testing.assert_allclose(got.selection["net_money"], ref.selection["net_money"], rtol=1e-12)
        assert got.last_rule_probability == ref.last_rule_probability
    stopped = riff_select(pool, X, y, fn_cost=amount, fp_cost=40.0, tp_cost=40.0, max_fpr=0.05)
    assert stopped.selection["expected_fpr"] < 0.05  # the money stop ends it before the budget
    with pytest.raises(NotImplementedError, match="cost_matrix"):
        riff_select(pool, Xd, yd, cost_matrix=np.ones((len(y), 4)))
    with pytest.raises(NotImplementedError, match="fp_cost"):
        riff_select(pool, Xd, yd, fn_cost=md, fp_cost=np.ones(len(y)))
    with pytest.raises(ValueError, match="tp_cost"):
        riff_select(pool, Xd, yd, fn_cost=md, fp_cost=1.0, tp_cost=float("nan"))


def _precision_order(masks, y, w, limit_w, limit):
    """The paper's greedy by sets and fractions: highest positive share of the newly covered weight, ties to
    more positive weight, then the lower index; until the covered negative weight reaches the limit."""
    uncovered, chosen, used, order = set(range(len(y))), set(), Fraction(0), []
    while used < limit:
        best = None
        for k, m in enumerate(masks):
            rows = [i for i in uncovered if m[i]]
            pos = sum((Fraction(int(w[i])) for i in rows if y[i] == 1), Fraction(0))
            tot = sum((Fraction(int(w[i])) for i in rows), Fraction(0))
            if k in chosen or tot == 0:
                continue
            key = (pos / tot, pos)
            if best is None or key > best[0]:
                best = (key, k, rows)
        if best is None:
            break
        _, k, rows = best
        chosen.add(k)
        order.append(k)
        used += sum((Fraction(int(limit_w[i])) for i in rows), Fraction(0))
        uncovered -= set(rows)
    return order


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_by_chooses_the_score_whatever_costs_are_given(seed):
    X, y, w, (fp, fn, tp, tn), rules = _data(seed + 40)
    costs = dict(fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn)
    kw = dict(sample_weight=w, max_fpr=0.4, cuts="model")
    by_money = riff_select(rules, X, y, rank_by="money", **costs, **kw)
    by_precision = riff_select(rules, X, y, rank_by="precision", **costs, **kw)
    # None: money with costs, precision without (the inference riff_select always made)
    assert list(riff_select(rules, X, y, **costs, **kw).selection["candidate_index"]) == \
        list(by_money.selection["candidate_index"])
    counts = riff_select(rules, X, y, **kw)
    assert list(riff_select(rules, X, y, rank_by=None, **kw).selection["candidate_index"]) == \
        list(counts.selection["candidate_index"])
    # precision with costs ranks as the paper does (a brute force in fractions), costs or not
    budget_w = w * (y == 0)
    order = _precision_order([r.mask(X) for r in rules], y, w, budget_w, _limit(0.4, budget_w))
    assert list(by_precision.selection["candidate_index"]) == order
    assert list(counts.selection["candidate_index"]) == order
    # ... and still reports the money of its rules: net money of each prefix, summed by hand
    covered, nets = np.zeros(len(y), bool), []
    for r in by_precision.rules:
        covered |= r.mask(X)
        nets.append(float(_net(np.flatnonzero(covered), y, w, (fp, fn, tp, tn))))
    np.testing.assert_allclose(by_precision.selection["net_money"], nets, rtol=1e-12)
    assert "net_money" not in counts.selection


def test_rank_by_bad_values_are_refused_naming_it():
    X, y, w, (fp, fn, tp, tn), rules = _data(3)
    for bad in ("Money", "count", 1, True):
        with pytest.raises(ValueError, match="rank_by"):
            riff_select(rules, X, y, fp_cost=0.0, fn_cost=fn, rank_by=bad)
    with pytest.raises(ValueError, match="rank_by='money' needs costs"):
        riff_select(rules, X, y, rank_by="money")
