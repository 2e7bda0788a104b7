"""CSDT tests: split search, leaves, stopping, NaN routing, API behaviour.

The maths is checked against independent pure-Python computations written from the
papers' formulas (CSDT eqs. 7, 10, 11; CAL5_OC eq. 10), never against the kernels.
"""

import pickle
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from csboost_plugins.tree_protocol import apply_tree_arrays
from csdt import CostSensitiveDecisionTreeClassifier as CSDT

CRITERIA = ["direct_cost", "pi_cost", "gini_cost", "entropy_cost", "cost_entropy", "gini", "entropy"]


# ---------------------------------------------------------------- independent maths
def py_impurity(crit, y, C):
    """Impurity from the papers' formulas (C columns [FP, FN, TP, TN])."""
    n = len(y)
    if n == 0:
        return 0.0
    c0 = float(np.sum(np.where(y == 1, C[:, 1], C[:, 3])))  # Cost(f0(S))
    c1 = float(np.sum(np.where(y == 1, C[:, 2], C[:, 0])))  # Cost(f1(S))
    pi1 = y.mean()
    pi0 = 1 - pi1
    if crit == "direct_cost":
        return min(c0, c1)
    if crit == "pi_cost":
        return min(pi0 * c0, pi1 * c1)
    if crit == "gini_cost":
        return min(pi0**2 * c0, pi1**2 * c1)
    if crit == "entropy_cost":
        return 0.0 if pi0 == 0 or pi1 == 0 else min(-np.log(pi0) * c0, -np.log(pi1) * c1)
    if crit == "cost_entropy":
        m = np.where(y == 1, C[:, 1] - C[:, 2], C[:, 0] - C[:, 3])
        w = np.array([m[y == 0].sum(), m[y == 1].sum()])
        p = w[w > 0] / w.sum()
        return float(-(p * np.log2(p)).sum())
    p = np.array([pi0, pi1])
    if crit == "gini":
        return 1 - float((p**2).sum())
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def py_gain(crit, weighted, y, C, left):
    I = py_impurity(crit, y, C)
    if I == 0:
        return 0.0
    il = py_impurity(crit, y[left], C[left])
    ir = py_impurity(crit, y[~left], C[~left])
    if crit == "cost_entropy":
        m = np.where(y == 1, C[:, 1] - C[:, 2], C[:, 0] - C[:, 3])
        wl = m[left].sum() / m.sum()
        wr = 1 - wl
    elif crit in ("gini", "entropy") or weighted:
        wl, wr = left.mean(), 1 - left.mean()
    else:
        wl = wr = 1.0
    return (I - wl * il - wr * ir) / abs(I)


def brute_force_best(crit, weighted, X, y, C, min_leaf=1):
    """Max gain over every feature, every distinct threshold, NaN on either side."""
    best = -np.inf
    for j in range(X.shape[1]):
        x = X[:, j]
        nan = np.isnan(x)
        vals = np.unique(x[~nan])
        cands = [(v, False) for v in vals[:-1]] + [(v, True) for v in vals[:-1]]
        if nan.any() and vals.size:
            cands.append((np.inf, False))
        for t, nan_left in cands:
            left = np.where(nan, nan_left, x <= t)
            if left.sum() < min_leaf or (~left).sum() < min_leaf:
                continue
            best = max(best, py_gain(crit, weighted, y, C, left))
    return best


def random_problem(seed, n=40, d=3, nan_frac=0.0, integer=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if integer:
        X = np.round(X * 2)  # many ties
    if nan_frac:
        X[rng.random((n, d)) < nan_frac] = np.nan
    y = (rng.random(n) < 0.35).astype(np.int64)
    y[:2] = [0, 1]
    C = np.column_stack([rng.uniform(1, 5, n), rng.uniform(2, 60, n), rng.uniform(0, 1, n),
                         np.zeros(n)])
    return X, y, C


# ---------------------------------------------------------------- split search
@pytest.mark.parametrize("crit", CRITERIA)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("nan_frac,integer", [(0.0, False), (0.0, True), (0.15, False)])
def test_root_split_equals_brute_force(crit, weighted, nan_frac, integer):
    for seed in range(3):
        X, y, C = random_problem(seed, nan_frac=nan_frac, integer=integer)
        best = brute_force_best(crit, weighted, X, y, C, min_leaf=2)
        m = CSDT(criterion=crit, criterion_weight=weighted, max_depth=1, min_gain=0.0,
                 min_samples_leaf=2).fit(X, y, cost_matrix=C)
        t = m.tree_
        if best <= 1e-12:
            assert t.node_count == 1
            continue
        assert t.node_count == 3
        assert t.gain[0] == pytest.approx(best, rel=1e-9, abs=1e-12)
        # the split the tree chose has the brute-force gain of the maximum
        x = X[:, t.feature[0]]
        left = np.where(np.isnan(x), t.missing_left[0], x <= t.threshold[0])
        assert py_gain(crit, weighted, y, C, left) == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert left.sum() == t.n_samples[1]


def first_best_direct_cost(X, y, C, weighted, min_leaf):
    """The split the exact and histogram searches must choose under direct_cost, by brute
    force in their documented order: features ascending, thresholds ascending, NaN right
    before NaN left, "all values left, NaN right" last, the first maximum winning. A
    feature without NaN in the node sends NaN to the larger child (ties left).

    With integer costs every sum is exact, and the gain is the kernel's association of
    paper eq. 7, (I - (w_l I_l + w_r I_r)) / |I|, so ties are exact ties.
    Returns (gain, feature, left mask, missing_left).
    """
    n = len(y)
    c0 = np.where(y == 1, C[:, 1], C[:, 3])  # Cost(f0) per row
    c1 = np.where(y == 1, C[:, 2], C[:, 0])  # Cost(f1) per row
    imp = min(c0.sum(), c1.sum())
    best = (-np.inf, -1, None, False)
    for j in range(X.shape[1]):
        x = X[:, j]
        nan = np.isnan(x)
        vals = np.unique(x[~nan])
        cands = [(t, side) for t in vals[:-1] for side in ((False, True) if nan.any() else (False,))]
        if nan.any() and vals.size:
            cands.append((np.inf, False))
        for t, nan_left in cands:
            left = np.where(nan, nan_left, x <= t)
            nl = int(left.sum())
            if nl < min_leaf or n - nl < min_leaf:
                continue
            il = min(c0[left].sum(), c1[left].sum())
            ir = min(c0[~left].sum(), c1[~left].sum())
            wl, wr = (nl / n, 1.0 - nl / n) if weighted else (1.0, 1.0)
            g = (imp - (wl * il + wr * ir)) / abs(imp) if imp != 0 else 0.0
            if g > best[0]:
                best = (g, j, left, nan_left if nan.any() else nl >= n - nl)
    return best


@pytest.mark.parametrize("max_bins", [None, 255])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("min_leaf", [1, 4])
def test_every_split_is_the_first_maximum_with_nan_on_either_side(max_bins, weighted, min_leaf):
    # integer features (many tied gains) with NaN in two of three features: the searches must
    # pick the same (feature, rows left, missing_left) as the brute force at every node
    checked = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        n = 150
        X = np.round(rng.normal(size=(n, 3)) * 1.5)
        X[:, :2][rng.random((n, 2)) < 0.2] = np.nan
        y = (rng.random(n) < 0.4).astype(np.int64)
        C = np.column_stack([rng.integers(1, 4, n), rng.integers(1, 12, n), rng.integers(0, 2, n),
                             np.zeros(n)]).astype(float)
        m = CSDT(max_depth=5, min_gain=0.0, min_samples_leaf=min_leaf, criterion_weight=weighted,
                 max_bins=max_bins).fit(X, y, cost_matrix=C)
        t = m.tree_
        visits = m.decision_path(X).toarray().astype(bool)
        for node in range(t.node_count):
            rows = visits[:, node]
            gain, feature, left, missing_left = first_best_direct_cost(X[rows], y[rows], C[rows], weighted,
                                                                       min_leaf)
            if t.is_leaf[node]:
                assert t.depth[node] == 5 or gain <= 1e-12, (seed, node)
                continue
            x = X[rows, t.feature[node]]
            chosen = np.where(np.isnan(x), t.missing_left[node], x <= t.threshold[node])
            assert (t.feature[node], t.gain[node]) == (feature, gain), (seed, node)
            np.testing.assert_array_equal(chosen, left)
            assert t.missing_left[node] == missing_left, (seed, node)
            checked += 1
    assert checked > 40  # enough internal nodes for the test to mean something


def test_histogram_mode_equals_exact_when_bins_cover_all_values():
    X, y, C = random_problem(7, n=200, d=4, integer=True, nan_frac=0.05)
    kw = {"max_depth": 4, "min_gain": 0.0}
    a = CSDT(**kw).fit(X, y, cost_matrix=C).tree_
    b = CSDT(max_bins=255, **kw).fit(X, y, cost_matrix=C).tree_
    for f in ("children_left", "feature", "threshold", "missing_left", "label", "n_samples"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))


def test_histogram_mode_on_many_values_is_close_to_exact():
    X, y, C = random_problem(3, n=3000, d=5)
    y = (X[:, 0] + X[:, 1] + np.random.default_rng(0).normal(size=3000) > 1.5).astype(np.int64)
    exact = CSDT(max_depth=6).fit(X, y, cost_matrix=C)
    hist = CSDT(max_depth=6, max_bins=64).fit(X, y, cost_matrix=C)
    # the histogram search only sees 63 thresholds per feature: root gain within 5 %
    assert hist.tree_.gain[0] <= exact.tree_.gain[0] + 1e-12
    assert hist.tree_.gain[0] >= 0.95 * exact.tree_.gain[0]


# ---------------------------------------------------------------- leaves and stopping
@pytest.mark.parametrize("crit", ["direct_cost", "pi_cost", "cost_entropy", "gini"])
def test_leaves_take_cost_optimal_label_and_laplace_probability(crit):
    X, y, C = random_problem(11, n=400, d=4)
    m = CSDT(criterion=crit, max_depth=5, min_gain=0.0).fit(X, y, cost_matrix=C)
    leaf = m.apply(X)
    t = m.tree_
    for k in np.unique(leaf):
        r = leaf == k
        c0 = np.where(y[r] == 1, C[r, 1], C[r, 3]).sum()
        c1 = np.where(y[r] == 1, C[r, 2], C[r, 0]).sum()
        if crit == "gini":  # the plain DT baseline: majority label
            assert t.label[k] == int(2 * y[r].sum() > r.sum())
        else:
            assert t.label[k] == int(c1 < c0)
        assert t.node_cost[k] == pytest.approx(c1 if t.label[k] else c0)
        assert t.value[k] == pytest.approx((y[r].sum() + 1) / (r.sum() + 2))
        assert t.n_samples[k] == r.sum()
    np.testing.assert_array_equal(m.predict(X), t.label[leaf])
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], t.value[leaf])


def test_direct_cost_splits_only_when_children_disagree():
    # unweighted I_c: a split with both children taking the parent's label saves nothing
    X, y, C = random_problem(5, n=500, d=4)
    t = CSDT(min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    inner = np.flatnonzero(~t.is_leaf)
    cost = t.node_cost
    assert np.all(cost[inner] - cost[t.children_left[inner]] - cost[t.children_right[inner]] > 0)


def test_stopping_rules():
    X, y, C = random_problem(2, n=600, d=5)
    t = CSDT(max_depth=3, min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    assert t.depth.max() <= 3
    t = CSDT(min_samples_leaf=25, min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    assert t.n_samples[t.is_leaf].min() >= 25
    t = CSDT(min_samples_split=80, min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    assert np.all(t.n_samples[~t.is_leaf] >= 80)
    g = CSDT(min_gain=0.05).fit(X, y, cost_matrix=C).tree_
    assert np.all(g.gain[~g.is_leaf] >= 0.05)
    m = CSDT(max_leaf_nodes=6, min_gain=0.0, criterion="gini").fit(X, y, cost_matrix=C)
    assert m.get_n_leaves() <= 6
    # best-first: the first splits are the largest-gain ones of the unlimited tree
    full = CSDT(min_gain=0.0, criterion="gini").fit(X, y, cost_matrix=C).tree_
    assert m.tree_.feature[0] == full.feature[0] and m.tree_.threshold[0] == full.threshold[0]


def test_feature_importances_are_money_saved_per_feature():
    X, y, C = random_problem(4, n=500, d=4)
    m = CSDT(max_depth=4, min_gain=0.0).fit(X, y, cost_matrix=C)
    t = m.tree_
    paths = m.decision_path(X).toarray().astype(bool)
    money = {}
    for k in range(t.node_count):
        r = paths[:, k]
        money[k] = (np.where(y[r] == 1, C[r, 2], C[r, 0]).sum() if t.label[k]
                    else np.where(y[r] == 1, C[r, 1], C[r, 3]).sum())
    imp = np.zeros(4)
    for k in np.flatnonzero(~t.is_leaf):
        imp[t.feature[k]] += max(money[k] - money[t.children_left[k]] - money[t.children_right[k]], 0)
    np.testing.assert_allclose(m.feature_importances_, imp / imp.sum())


# ---------------------------------------------------------------- missing values
def test_nan_routing_learned_and_used_at_predict():
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 0.1).astype(int)
    X[y == 1, 0] = np.where(rng.random((y == 1).sum()) < 0.8, np.nan, X[y == 1, 0])  # NaN flags fraud
    m = CSDT(max_depth=3).fit(X, y, fp_cost=1.0, fn_cost=20.0)
    assert m.tree_.feature[0] == 0
    Xt = rng.normal(size=(200, 3))
    Xt[:100, 0] = np.nan
    pred = m.predict(Xt)
    assert pred[:100].mean() > 0.9 and pred[100:].mean() < 0.5
    # the protocol's reference walk agrees row by row
    ta = m.tree_arrays()[0]
    np.testing.assert_array_equal(apply_tree_arrays(ta, Xt), m.apply(Xt))


def test_nan_unseen_in_training_goes_to_larger_child():
    X, y, C = random_problem(1, n=300, d=2)
    m = CSDT(max_depth=1, min_gain=0.0).fit(X, y, cost_matrix=C)
    t = m.tree_
    big_left = t.n_samples[1] >= t.n_samples[2]
    assert t.missing_left[0] == big_left
    leaf = m.apply(np.array([[np.nan, np.nan]]))[0]
    assert leaf == (1 if big_left else 2)


# ---------------------------------------------------------------- determinism and threads
def test_random_state_reproducible_and_effective():
    X, y, C = random_problem(9, n=800, d=8)
    a = CSDT(max_features="sqrt", random_state=3, min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    b = CSDT(max_features="sqrt", random_state=3, min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    c = CSDT(max_features="sqrt", random_state=4, min_gain=0.0).fit(X, y, cost_matrix=C).tree_
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    assert a.node_count != c.node_count or not np.array_equal(a.feature, c.feature)


@pytest.mark.parametrize("max_bins", [None, 32])
def test_fit_validated_matches_fit_and_runs_in_threads(max_bins):
    X, y, C = random_problem(12, n=3000, d=6, nan_frac=0.02)
    ref = [CSDT(max_features=3, random_state=s, max_depth=6, max_bins=max_bins).fit(X, y, cost_matrix=C)
           for s in range(4)]
    out = [None] * 4

    def work(s):
        out[s] = CSDT(max_features=3, random_state=s, max_depth=6, max_bins=max_bins)._fit_validated(
            np.ascontiguousarray(X), y, np.ascontiguousarray(C))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r, o in zip(ref, out):
        np.testing.assert_array_equal(r.tree_.feature, o.tree_.feature)
        np.testing.assert_array_equal(r.predict(X), o._predict_label_validated(X))
        np.testing.assert_allclose(r.predict_proba(X)[:, 1], o._predict_proba_validated(X))
    # feature_subset restricts the candidate columns
    sub = CSDT(min_gain=0.0)._fit_validated(X, y, C, feature_subset=np.array([1, 4]))
    assert set(sub.tree_.feature[~sub.tree_.is_leaf]) <= {1, 4}


# ---------------------------------------------------------------- API
def test_pandas_input_pickle_protocol_and_decision_path():
    X, y, C = random_problem(6, n=300, d=3)
    df = pd.DataFrame(X, columns=["amount", "age", "score"])
    m = CSDT(max_depth=4, min_gain=0.0).fit(df, pd.Series(y), fp_cost=C[:, 0], fn_cost=C[:, 1])
    np.testing.assert_array_equal(m.feature_names_in_, df.columns)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m.predict_proba(df), m2.predict_proba(df))
    ta = m.tree_arrays()[0]
    assert ta.left_inclusive and ta.feature_names == ["amount", "age", "score"]
    np.testing.assert_array_equal(apply_tree_arrays(ta, X), m.apply(df))
    np.testing.assert_array_equal(ta.label[m.apply(df)], m.predict(df))
    P = m.decision_path(df)
    leaf = m.apply(df)
    t = m.tree_
    for i in range(0, 300, 37):
        path = P[i].indices
        assert path[0] == 0 and leaf[i] in path
        assert len(path) == t.depth[leaf[i]] + 1
    txt = m.export_text()
    assert "amount" in txt or "age" in txt or "score" in txt
    assert txt.count("class") == t.n_leaves


def test_decision_path_equals_a_walk_of_the_tree_arrays():
    """Every row's CSR path is the node sequence of a plain walk (root first), NaN included."""
    X, y, C = random_problem(11, n=400, d=3, nan_frac=0.1)
    m = CSDT(max_depth=6, min_gain=0.0).fit(X, y, cost_matrix=C)
    Xv, yv, Cv = random_problem(12, n=300, d=3, nan_frac=0.1)
    for model in (m, clone(m).fit(X, y, cost_matrix=C).prune(Xv, yv, cost_matrix=Cv)):
        t = model.tree_
        P = model.decision_path(X)
        assert P.shape == (X.shape[0], t.node_count)
        for i in range(X.shape[0]):
            node, walk = 0, [0]
            while t.children_left[node] != -1:
                x = X[i, t.feature[node]]
                left = t.missing_left[node] if np.isnan(x) else x <= t.threshold[node]
                node = t.children_left[node] if left else t.children_right[node]
                walk.append(node)
            np.testing.assert_array_equal(P.indices[P.indptr[i]:P.indptr[i + 1]], walk)


def test_plot_runs():
    import matplotlib as mpl  # dev extra: must not skip silently
    mpl.use("Agg")
    X, y, C = random_problem(6, n=200, d=3)
    ax = CSDT(max_depth=3, min_gain=0.0).fit(X, y, cost_matrix=C).plot()
    assert len(ax.texts) == CSDT(max_depth=3, min_gain=0.0).fit(X, y, cost_matrix=C).tree_.node_count


def test_unit_costs_when_none_given_and_string_labels():
    X, y, _ = random_problem(8, n=300, d=3)
    labels = np.array(["good", "bad"])[y]  # "bad" < "good": bad -> 0
    m = CSDT(max_depth=3).fit(X, labels)
    assert set(m.predict(X)) <= {"good", "bad"}
    # with costs the positive class must be named: "good" is classes_[1] of the cost-free fit
    with pytest.raises(ValueError, match=r"y has labels \['bad', 'good'\]; pass pos_label="):
        CSDT(max_depth=3).fit(X, labels, fp_cost=1.0, fn_cost=1.0)
    m1 = CSDT(max_depth=3, pos_label="good").fit(X, labels, fp_cost=1.0, fn_cost=1.0)
    np.testing.assert_array_equal(m.predict(X), m1.predict(X))


def test_bad_inputs_raise_clear_errors():
    X, y, C = random_problem(0, n=50, d=3)
    with pytest.raises(ValueError, match="fp_cost has length"):
        CSDT().fit(X, y, fp_cost=np.ones(49), fn_cost=1.0)
    bad = C.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CSDT().fit(X, y, cost_matrix=bad)
    with pytest.raises(ValueError, match="one class"):
        CSDT().fit(X, np.zeros(50), cost_matrix=C)
    with pytest.raises(ValueError, match="binary"):
        CSDT().fit(X, np.arange(50) % 3, cost_matrix=C)
    df = pd.DataFrame({"a": X[:, 0], "city": ["x", "y"] * 25})
    with pytest.raises(TypeError, match="OrdinalEncoder"):
        CSDT().fit(df, y, cost_matrix=C)
    with pytest.raises(TypeError, match="numeric"):
        CSDT().fit(np.array([["a", "b"]] * 50, dtype=object), y, cost_matrix=C)
    with pytest.raises(ValueError, match="criterion"):
        CSDT(criterion="money").fit(X, y, cost_matrix=C)
    with pytest.raises(ValueError, match="max_bins"):
        CSDT(max_bins=1000).fit(X, y, cost_matrix=C)
    with pytest.raises(ValueError, match="validation set"):
        CSDT(pruning="cost").fit(X, y, cost_matrix=C)
    with pytest.raises(ValueError, match="rows"):
        CSDT().fit(X, y[:40], cost_matrix=C[:40])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CSDT(num_pct=10).fit(Xn, y, cost_matrix=C)
    m = CSDT().fit(X, y, cost_matrix=C)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])


def test_metadata_routing_cross_validate():
    import sklearn
    from sklearn.model_selection import cross_validate

    from csboost_plugins.metrics import make_savings_scorer

    X, y, C = random_problem(10, n=400, d=3)
    with sklearn.config_context(enable_metadata_routing=True):
        est = CSDT(max_depth=3).set_fit_request(fp_cost=True, fn_cost=True)
        scorer = make_savings_scorer().set_score_request(fp_cost=True, fn_cost=True)
        res = cross_validate(est, X, y, cv=3, scoring=scorer,
                             params={"fp_cost": C[:, 0], "fn_cost": C[:, 1]})
    assert np.all(np.isfinite(res["test_score"]))
    unit = CSDT(max_depth=3)
    assert clone(unit).get_params() == unit.get_params()


def test_creditscoring1_csdt_saves_more_with_a_much_smaller_tree_than_dt():
    # the paper's claims (section 6) on the bundled real data, one split
    from sklearn.model_selection import train_test_split

    from csboost_plugins.metrics import savings_score
    from csdt.datasets import load_creditscoring1

    b = load_creditscoring1()
    X = b.data.to_numpy(np.float64)
    Xtr, Xte, ytr, yte, Ctr, Cte = train_test_split(X, np.asarray(b.target), b.cost_matrix, train_size=0.5,
                                                    stratify=b.target, random_state=0)
    cs = CSDT().fit(Xtr, ytr, cost_matrix=Ctr)
    dt = CSDT(criterion="gini", min_gain=0.0).fit(Xtr, ytr, cost_matrix=Ctr)
    s_cs = savings_score(yte, cs.predict(Xte), cost_matrix=Cte)
    s_dt = savings_score(yte, dt.predict(Xte), cost_matrix=Cte)
    assert s_cs > 0.3 and s_cs > s_dt + 0.1
    assert cs.tree_.node_count * 5 < dt.tree_.node_count
