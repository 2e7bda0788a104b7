"""riff_select against an independent brute-force Algorithm 1, the randomised last rule, budgets,
weights and the money variant; RuleSet.evaluate against direct computation; RIFFClassifier."""

import pickle
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from _fraud_rules import random_rules

from csboost_plugins.rules import Interval, Rule, extract_rules, riff_select


def _brute(masks, y, w, gain, budget_w, limit, max_rules=None):
    """RIFF Algorithm 1 by sets and exact fractions: argmax precision on uncovered rows while budget < limit.
    Ties: more gain, then lower index. Returns (order, per-prefix budget used)."""
    n = len(y)
    uncovered = set(range(n))
    chosen, used, order, prefix = set(), Fraction(0), [], []
    while used < limit and (max_rules is None or len(order) < max_rules):
        best = None
        for k, m in enumerate(masks):
            if k in chosen:
                continue
            rows = [i for i in uncovered if m[i]]
            g = sum((Fraction(gain[i]) for i in rows if y[i] == 1), Fraction(0))
            b = sum((Fraction(w[i]) for i in rows if y[i] == 0), Fraction(0))
            if g + b == 0:
                continue
            key = (g / (g + b), g, -k)
            if best is None or key > best[0]:
                best = (key, k)
        if best is None:
            break
        k = best[1]
        chosen.add(k)
        order.append(k)
        newly = {i for i in uncovered if masks[k][i]}
        uncovered -= newly
        used += sum((Fraction(budget_w[i]) for i in newly), Fraction(0))
        prefix.append(used)
    return order, prefix




@pytest.mark.parametrize("seed", range(12))
def test_greedy_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, d = 120, 3
    X = rng.integers(0, 7, size=(n, d)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (rng.random(n) < 0.3).astype(int)
    y[:2] = [0, 1]
    variant = seed % 4
    w = np.ones(n) if variant in (0, 3) else rng.integers(1, 4, n).astype(float)
    fn_cost = rng.integers(1, 50, n).astype(float) if variant >= 2 else None
    if seed % 3 == 0:  # rules from trees (trie path sharing), pooled with random ones
        rules = extract_rules(DecisionTreeClassifier(max_depth=3, random_state=seed).fit(np.nan_to_num(X), y))
        rules += random_rules(rng, d, 10)
    else:
        rules = random_rules(rng, d, 25)
    alert = seed % 5 == 4
    budget = [0.05, 0.1, 0.2, 0.3][seed % 4]
    rs = riff_select(rules, X, y, sample_weight=None if variant in (0, 3) else w, fn_cost=fn_cost, cuts="model",
                     fp_cost=None if fn_cost is None else 0.0,
                     **({"max_alert_rate": budget} if alert else {"max_fpr": budget}))
    masks = [r.mask(X) for r in rules]  # numpy reference evaluation, independent of the numba trie
    gain = w * (fn_cost if fn_cost is not None else 1.0)
    budget_w = w if alert else w * (y == 0)
    total = Fraction(int(budget_w.sum())) if np.all(budget_w == np.round(budget_w)) else budget_w.sum()
    limit = Fraction(budget).limit_denominator(1000) * total
    order, prefix = _brute(masks, y, [int(v) for v in w], [int(v) for v in gain], [int(v) for v in budget_w], limit)
    assert list(rs.selection["candidate_index"]) == order
    assert [str(r) for r in rs.rules] == [str(rules[k]) for k in order]
    # rho makes the expected budget use equal the budget exactly (when the pool can reach it)
    if prefix and prefix[-1] > limit:
        prev = prefix[-2] if len(prefix) > 1 else 0
        rho = (limit - prev) / (prefix[-1] - prev)
        assert rs.last_rule_probability == pytest.approx(float(rho), rel=1e-12)
        ev = rs.evaluate(X, y, sample_weight=w, last_rule="expected")
        assert ev["alert_rate" if alert else "fpr"] == pytest.approx(budget, rel=1e-12)
        key = "expected_alert_rate" if alert else "expected_fpr"
        assert rs.selection[key] == pytest.approx(budget, rel=1e-12)
    else:
        assert rs.last_rule_probability == 1.0


def test_expected_tpr_and_evaluate_match_direct_computation():
    rng = np.random.default_rng(1)
    n = 3000
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 1.8).astype(int)
    amount = rng.gamma(2, 50, n)
    rules = extract_rules(DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(X, y))
    rs = riff_select(rules, X, y, max_fpr=0.02)
    cov = rs.coverage(X)
    S_prev, S_last = cov[:, :-1].any(axis=1), cov.any(axis=1)
    rho = rs.last_rule_probability
    assert 0 < rho <= 1
    fpr = lambda m: m[y == 0].mean()
    tpr = lambda m: m[y == 1].mean()
    assert fpr(S_prev) < 0.02 <= fpr(S_last)
    assert (1 - rho) * fpr(S_prev) + rho * fpr(S_last) == pytest.approx(0.02, rel=1e-12)
    exp_tpr = (1 - rho) * tpr(S_prev) + rho * tpr(S_last)
    assert rs.selection["expected_tpr"] == pytest.approx(exp_tpr, rel=1e-12)
    ev = rs.evaluate(X, y, fn_cost=amount, fp_cost=10.0, last_rule="expected")
    assert ev["tpr"] == pytest.approx(exp_tpr, rel=1e-12)
    p = np.where(S_prev, 1.0, np.where(S_last, rho, 0.0))
    assert ev["money_caught"] == pytest.approx((p * amount)[y == 1].sum(), rel=1e-12)
    cost = np.where(y == 1, (1 - p) * amount, p * 10.0).sum()
    assert ev["cost"] == pytest.approx(cost, rel=1e-12)
    # deterministic predictions: the first l-1 rules always keep the budget
    assert fpr(rs.predict(X, last_rule="exclude").astype(bool)) < 0.02
    np.testing.assert_array_equal(rs.predict(X, last_rule="include"), S_last)
    np.testing.assert_array_equal(rs.apply(X) >= 0, S_last)
    draws = np.array([rs.predict(X[:50], last_rule="random", random_state=s).sum() for s in range(400)])
    rng2 = np.random.RandomState
    on = np.array([rng2(s).random_sample() < rho for s in range(400)])
    np.testing.assert_array_equal(draws, np.where(on, S_last[:50].sum(), S_prev[:50].sum()))


def test_money_variant_catches_more_money():
    rng = np.random.default_rng(2)
    n = 6000
    X = rng.normal(size=(n, 3))
    amount = np.exp(rng.normal(3, 1.2, n))
    X[:, 2] = np.log(amount)
    y = ((X[:, 0] > 1.2) | (rng.random(n) < 0.02)).astype(int)
    rules = extract_rules(DecisionTreeClassifier(max_leaf_nodes=60, random_state=0).fit(X, y))
    a = riff_select(rules, X, y, max_fpr=0.01)
    b = riff_select(rules, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount)
    ea, eb = (r.evaluate(X, y, fn_cost=amount, fp_cost=0.0, last_rule="expected") for r in (a, b))
    assert eb["money_caught"] >= ea["money_caught"]
    assert eb["fpr"] == pytest.approx(0.01) and ea["fpr"] == pytest.approx(0.01)
    assert b.selection["expected_money_recall"] == pytest.approx(eb["money_recall"], rel=1e-9)


def test_pool_within_budget_keeps_every_useful_rule():
    X = np.arange(20.0).reshape(-1, 1)
    y = (X[:, 0] >= 15).astype(int)
    y[0] = 1
    r = Rule([Interval(0, lower=15.0)])
    useful = Rule([Interval(0, upper=2.0, upper_closed=False)])  # rows 0 and 1: one positive
    idle = Rule([Interval(0, lower=5.0, upper=8.0)])  # negatives only: it would only spend budget
    rs = riff_select([r, idle, useful], X, y, max_fpr=0.5)
    assert len(rs) == 2 and rs.last_rule_probability == 1.0
    assert list(rs.selection["candidate_index"]) == [0, 2]
    rs = riff_select([r], X, y, max_fpr=0.5, max_rules=1)
    assert len(rs) == 1


def test_selection_pandas_and_errors():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = (df.a > 1).astype(int)
    rules = extract_rules(DecisionTreeClassifier(max_depth=3).fit(df, y))
    rs = riff_select(rules, df[["b", "a"]], y, max_fpr=0.05)  # matched by column name
    ev = rs.evaluate(df, y, last_rule="expected")  # the pure leaf; the others catch nothing and stay out
    assert ev["tpr"] == 1.0 and ev["fpr"] == 0.0
    with pytest.raises(ValueError, match="not both"):
        riff_select(rules, df, y, max_fpr=0.1, max_alert_rate=0.1)
    with pytest.raises(ValueError, match="max_fpr"):
        riff_select(rules, df, y, max_fpr=0.0)
    with pytest.raises(ValueError, match="rows"):
        riff_select(rules, df, y[:-1])
    with pytest.raises(ValueError, match="empty"):
        riff_select([], df, y)
    with pytest.raises(ValueError):
        riff_select(rules, df, np.zeros(200))
    with pytest.raises(ValueError, match="sample_weight"):
        riff_select(rules, df, y, sample_weight=-np.ones(200))
    with pytest.raises(ValueError, match="fn_cost"):
        riff_select(rules, df, y, fp_cost=0.0, fn_cost=np.full(200, np.nan))
    s = pickle.loads(pickle.dumps(rs))
    np.testing.assert_array_equal(s.predict(df), rs.predict(df))
    assert "IF" in str(rs)


def _dense_greedy(C, y, max_fpr):
    """Algorithm 1 on a dense coverage matrix (numpy), same tie-break as riff_select."""
    unc = np.ones(len(y), bool)
    neg_total = (y == 0).sum()
    chosen, fp = [], 0
    while fp < max_fpr * neg_total:
        cu = C & unc[:, None]
        tp_c, fp_c = cu[y == 1].sum(axis=0), cu[y == 0].sum(axis=0)
        mass = tp_c + fp_c
        prec = np.where(mass > 0, tp_c / np.maximum(mass, 1), -1.0)
        prec[chosen] = -1
        if prec.max() < 0:
            break
        best = np.flatnonzero(prec == prec.max())
        k = int(best[np.argmax(tp_c[best])])
        chosen.append(k)
        fp += fp_c[k]
        unc &= ~C[:, k]
    return chosen


def test_parallel_trie_path_on_pooled_boosters_matches_dense_greedy():
    import lightgbm as lgb
    import xgboost as xgb

    from csboost_plugins.rules._data import as_float_matrix
    from csboost_plugins.rules._evaluate import ConditionTrie
    rng = np.random.default_rng(5)
    n = 30000  # above the serial threshold: the initial counts take the parallel trie walk
    X = rng.normal(size=(n, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2]) + rng.normal(size=n)) > 2.2)
    y = y.astype(int)
    pool = extract_rules([lgb.LGBMClassifier(n_estimators=8, num_leaves=12, verbose=-1).fit(X[:5000], y[:5000]),
                          xgb.XGBClassifier(n_estimators=4, max_depth=3).fit(X[:5000], y[:5000])])
    C = np.column_stack([r.mask(X) for r in pool])  # numpy reference evaluation
    trie = ConditionTrie(pool)
    assert (trie.node_comp > 0).any()  # complementary siblings are partitioned in one pass
    W = np.column_stack([y, 1 - y]).astype(float)
    S = trie.sums(as_float_matrix(X, pool, order="F"), np.arange(n), W)
    np.testing.assert_array_equal(S, C.T.astype(float) @ W)
    rs = riff_select(pool, X, y, max_fpr=0.02)
    assert list(rs.selection["candidate_index"]) == _dense_greedy(C, y, 0.02)


def test_threaded_first_match_and_coverage_equal_numpy_masks():
    # above the thread threshold the rows are split into blocks (each of several 16k-row
    # chunks) run in threads: every row's first rule and coverage must equal Rule.mask
    from csboost_plugins.rules._evaluate import (_THREAD_MIN_ROWS, compile_conditions, coverage_matrix,
                                                 first_match)
    rng = np.random.default_rng(11)
    n = 45000
    assert n >= 2 * _THREAD_MIN_ROWS
    X = rng.normal(size=(n, 5))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=n) > 1.5).astype(int)
    from sklearn.ensemble import RandomForestClassifier  # overlapping rules: the first match matters
    forest = RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0)
    rules = extract_rules(forest.fit(np.nan_to_num(X[:5000]), y[:5000]))
    C = np.column_stack([r.mask(X) for r in rules])
    cc = compile_conditions(rules)
    Xc = np.ascontiguousarray(X)
    np.testing.assert_array_equal(coverage_matrix(Xc, cc), C)
    first = np.where(C.any(axis=1), C.argmax(axis=1), -1)
    assert (C.sum(axis=1) > 1).all()  # every row is covered by one rule per tree
    np.testing.assert_array_equal(first_match(Xc, cc), first)


def _catching_data(seed, n=120, d=3):
    """Small integer data with NaN, few positives (so late candidates cover negatives only), integer weights
    and integer per-row costs; some positives are worth nothing to catch (C_FN = C_TP)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, size=(n, d)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (rng.random(n) < 0.12).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(1, 4, n).astype(float)
    fn = rng.integers(0, 30, n).astype(float)
    fn[rng.random(n) < 0.3] = 2.0  # = tp_cost: such a positive adds no money when caught
    return X, y, w, dict(fp_cost=rng.integers(1, 6, n).astype(float), fn_cost=fn, tp_cost=2.0), \
        random_rules(rng, d, 30)


def _added(rs, X, y, w, fn=None, tp=0.0):
    """Per rule of rs, in order: (positive weight, money caught) of the rows it adds, from Rule.mask."""
    covered, out = np.zeros(len(y), bool), []
    for r in rs.rules:
        new = r.mask(X) & ~covered
        pos = float((w * (y == 1))[new].sum())
        money = None if fn is None else float((w * (y == 1) * (fn - tp))[new].sum())
        out.append((pos, money))
        covered |= new
    return out


_MODES = [dict(), dict(precision_prior=5.0), dict(prune=True), dict(refine=True),
          dict(money=True), dict(money=True, stop_unprofitable=False),
          dict(money=True, stop_unprofitable=False, precision_prior=5.0),
          dict(money=True, stop_unprofitable=False, refine=True, prune=True)]


@pytest.mark.parametrize("mode", range(len(_MODES)))
@pytest.mark.parametrize("cuts", ["simple", "model"])
def test_no_selected_rule_adds_nothing_caught(mode, cuts):
    """A rule that adds no positive weight on the rows no earlier rule covers (ranked by money: no money
    caught) is never selected, even with budget left and ``stop_unprofitable=False``; checked rule by rule
    from the returned rules' own masks on wide budgets, where the candidates that catch something run out."""
    kw = dict(_MODES[mode])
    money = kw.pop("money", False)
    seen_short = 0
    for seed in range(10):
        X, y, w, costs, rules = _catching_data(seed)
        for budget in ({"max_fpr": 0.6}, {"max_fpr": 1.0}, {"max_alert_rate": 0.9}):
            rs = riff_select(rules, X, y, sample_weight=w, cuts=cuts, **(costs if money else {}), **budget, **kw)
            added = _added(rs, X, y, w, costs["fn_cost"], costs["tp_cost"])
            for k, (pos, caught) in enumerate(added):
                assert pos > 0, (seed, budget, k)
                if money:
                    assert caught > 0, (seed, budget, k)
            seen_short += rs.selection["expected_fpr" if "max_fpr" in budget else "expected_alert_rate"] < \
                list(budget.values())[0] - 1e-9
    assert seen_short  # some selections stopped for want of a rule that catches anything


@pytest.mark.parametrize("money", [False, True])
@pytest.mark.parametrize("stop", [True, False])
def test_no_rule_adding_nothing_caught_on_dask_either(money, stop):
    import dask.array as da
    X, y, w, costs, rules = _catching_data(3, n=300)
    kw = dict(sample_weight=w, max_fpr=1.0, stop_unprofitable=stop)
    if money:
        kw |= dict(fp_cost=3.0, fn_cost=costs["fn_cost"], tp_cost=2.0)
    ref = riff_select(rules, X, y, **kw)
    dkw = {k: (da.from_array(v, chunks=100) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    got = riff_select(rules, da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100), **dkw)
    assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
    assert str(got) == str(ref)
    for pos, caught in _added(got, X, y, w, costs["fn_cost"], 2.0):
        assert pos > 0 and (not money or caught > 0)


def test_a_rule_whose_catch_went_to_an_earlier_shorter_rule_is_dropped():
    """Short rules: dropping x1 >= 3 from the first rule adds the one positive the second rule caught (no
    negative, so the budget allows it); the second rule would then add a false alert only, and goes."""
    X = np.array([[5, 5], [5, 0], [0, 0], [0, 5]], dtype=float)
    y = np.array([1, 1, 0, 0])
    first = Rule([Interval(0, lower=3), Interval(1, lower=3)])
    second = Rule([Interval(1, upper=1)])
    model = riff_select([first, second], X, y, max_fpr=1.0, cuts="model")
    assert len(model) == 2 and list(model.selection["fpr"]) == [0.0, 0.5]
    rs = riff_select([first, second], X, y, max_fpr=1.0)
    assert len(rs) == 1 and list(rs.selection["candidate_index"]) == [0]
    np.testing.assert_array_equal(rs.predict(X), [1, 1, 0, 0])
    assert list(rs.selection["tpr"]) == [1.0] and list(rs.selection["fpr"]) == [0.0]
    assert rs.last_rule_probability == 1.0
