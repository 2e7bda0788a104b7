"""FIGS / FIGU: against imodels, against brute force, against scikit-learn CART, and behaviour."""

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import cross_validate
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from csboost_plugins.metrics import make_savings_scorer
from csboost_plugins.tree_protocol import apply_tree_arrays, get_tree_arrays
from csdt import FIGSClassifier, FIGUClassifier
from csdt.datasets import load_creditscoring1, make_fraud_transactions

from imodels.tree import figs as imodels_figs  # test-only anchor (dev extra); must not skip silently

SKLEARN_BEFORE_1_8 = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) < (1, 8)


def _toy(seed, n=300, d=4, decimals=2):
    """Rounded features (<= 255 distinct values, so the search is exact) and a nonlinear target."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), decimals)
    logit = X[:, 0] + X[:, 1] ** 2 - 0.8 * X[:, 2] * (X[:, 3] > 0) - 0.5
    y = (logit + 0.7 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _structure(tree, value=False):
    """Pre-order list of (feature, threshold) of the internal nodes (and leaf values)."""
    out = []

    def walk(node):
        if tree["left"](node) is None:
            if value:
                out.append(("leaf", round(tree["value"](node), 10)))
            return
        out.append((tree["feature"](node), tree["threshold"](node)))
        walk(tree["left"](node))
        walk(tree["right"](node))

    walk(tree["root"])
    return out


def _same_structure(a, b):
    """Same features and leaf values; thresholds equal up to scikit-learn's float32 rounding."""
    assert len(a) == len(b)
    for x, z in zip(a, b):
        assert x[0] == z[0]
        assert x[1] == pytest.approx(z[1], rel=1e-6, abs=1e-6)


def _ours(t):
    return {"root": 0, "left": lambda i: None if t.children_left[i] == -1 else t.children_left[i],
            "right": lambda i: t.children_right[i], "feature": lambda i: int(t.feature[i]),
            "threshold": lambda i: float(t.threshold[i]), "value": lambda i: float(t.value[i])}


def _imodels(root):
    return {"root": root, "left": lambda nd: nd.left, "right": lambda nd: nd.right,
            "feature": lambda nd: int(nd.feature), "threshold": lambda nd: float(nd.threshold),
            "value": lambda nd: float(nd.value[1])}


def _imodels_score(model, X):
    """Sum over imodels' trees of the positive-class output (its unclipped score)."""
    return sum(model._predict_tree(t, X)[:, 1] for t in model.trees_)


# ---------------------------------------------------------------------------------------
# FIGS == imodels FIGSClassifier
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,max_rules", [(0, 1), (0, 8), (1, 12), (2, 15), (3, 5)])
def test_figs_matches_imodels(seed, max_rules):
    X, y = _toy(seed)
    ours = FIGSClassifier(max_rules=max_rules).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = imodels_figs.FIGSClassifier(max_rules=max_rules).fit(X, y)
    assert ours.complexity_ == ref.complexity_ == max_rules
    assert len(ours.trees_) == len(ref.trees_)
    for t_ours, t_ref in zip(ours.trees_, ref.trees_):
        _same_structure(_structure(_ours(t_ours), value=True), _structure(_imodels(t_ref), value=True))
    np.testing.assert_allclose(ours.decision_function(X), _imodels_score(ref, X), atol=1e-9)
    # link="sigmoid" is imodels' default softmax; link="clip" its use_clipped_prediction
    np.testing.assert_allclose(ours.set_params(link="sigmoid").predict_proba(X), ref.predict_proba(X), atol=1e-9)
    np.testing.assert_allclose(ours.set_params(link="clip").predict_proba(X),
                               np.clip(ref.predict_proba(X, use_clipped_prediction=True), 0, 1), atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("seed", [2])
def test_figs_training_scores_match_imodels_despite_ties(seed):
    """Deep in the greedy run tiny leaves have tied splits (two features, same rows; imodels breaks
    ties with an unseeded permutation): the trees may name different features, but the training
    partition, hence the training scores, must be the same."""
    X, y = _toy(seed)
    ours = FIGSClassifier(max_rules=30).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = imodels_figs.FIGSClassifier(max_rules=30).fit(X, y)
    assert ours.complexity_ == ref.complexity_ == 30
    np.testing.assert_allclose(ours.decision_function(X), _imodels_score(ref, X), atol=1e-9)


def test_figs_matches_imodels_with_sample_weight_and_max_trees():
    X, y = _toy(5)
    w = np.random.default_rng(5).uniform(0.2, 3.0, size=len(y))
    ours = FIGSClassifier(max_rules=10, max_trees=2).fit(X, y, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = imodels_figs.FIGSClassifier(max_rules=10, max_trees=2).fit(X, y, sample_weight=w)
    assert len(ours.trees_) == len(ref.trees_) <= 2
    for t_ours, t_ref in zip(ours.trees_, ref.trees_):
        _same_structure(_structure(_ours(t_ours), value=True), _structure(_imodels(t_ref), value=True))
    np.testing.assert_allclose(ours.decision_function(X), _imodels_score(ref, X), atol=1e-9)


def test_figs_matches_imodels_on_creditscoring1():
    """Real data (a 1500-row sample of creditscoring1), exact search: same trees, same scores."""
    data = load_creditscoring1()
    rng = np.random.default_rng(0)
    idx = rng.choice(len(data.target), 1500, replace=False)
    X = data.data.to_numpy(dtype=float)[idx]
    y = np.asarray(data.target)[idx]
    ours = FIGSClassifier(max_rules=10, max_bins=65535).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = imodels_figs.FIGSClassifier(max_rules=10).fit(X, y)
    assert len(ours.trees_) == len(ref.trees_)
    for t_ours, t_ref in zip(ours.trees_, ref.trees_):
        _same_structure(_structure(_ours(t_ours)), _structure(_imodels(t_ref)))
    np.testing.assert_allclose(ours.decision_function(X), _imodels_score(ref, X), atol=1e-9)


def test_imodels_max_depth_differs_as_documented():
    """Documented difference: imodels' depth counter jumps by 2 after recomputation; ours is the tree depth."""
    X, y = _toy(0)
    ours = FIGSClassifier(max_rules=12, max_depth=1).fit(X, y)
    assert all(t.node_count == 3 for t in ours.trees_)  # only stumps
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = imodels_figs.FIGSClassifier(max_rules=12, max_depth=1).fit(X, y)
    depth = lambda nd: 0 if nd.left is None else 1 + max(depth(nd.left), depth(nd.right))
    assert max(depth(t) for t in ref.trees_) == 2  # its first tree grows two levels


# ---------------------------------------------------------------------------------------
# FIGU == brute-force covered-row rule (eq. 2)
# ---------------------------------------------------------------------------------------


def _brute_force_figu(X, y, w, max_rules, precision_threshold):
    """Direct FIGU: every candidate leaf and every threshold re-evaluated from scratch each step.

    A tree is a list of leaves, each a boolean support mask. Rows covered by
    another tree (leaf precision >= threshold, or that tree's best leaf, first
    on ties) are dropped; the gain is the weighted SSE decrease of y on the rest.
    """
    n, d = X.shape
    trees = []  # list of list of leaves; a leaf is [mask, node_order]

    def precision(mask):
        return float(w[mask] @ y[mask] / w[mask].sum())

    def covered_by(tree):
        precs = [precision(m) for m, _ in tree]
        order = sorted(range(len(tree)), key=lambda k: tree[k][1])
        best = max(order, key=lambda k: (precs[k], -tree[k][1]))
        cov = np.zeros(n, bool)
        for k, (m, _) in enumerate(tree):
            if precs[k] >= precision_threshold or k == best:
                cov |= m
        return cov

    def sse(mask):
        ww = w[mask]
        mu = ww @ y[mask] / ww.sum()
        return float(ww @ (y[mask] - mu) ** 2)

    def best_split(rows):
        best = (-np.inf, None, None)
        for f in range(d):
            vals = np.unique(X[rows, f])
            for a, b in zip(vals[:-1], vals[1:]):
                thr = a / 2 + b / 2
                left = rows & (X[:, f] <= thr)
                right = rows & (X[:, f] > thr)
                gain = sse(rows) - sse(left) - sse(right)
                if gain > best[0] + 1e-12:
                    best = (gain, f, thr)
        return best

    sequence = []
    node_counter = []
    for _ in range(max_rules):
        covs = [covered_by(t) for t in trees]
        cands = []  # (gain, f, thr, tree index or -1, leaf index)
        everyone = np.zeros(n, bool)
        for c in covs:
            everyone |= c
        if (~everyone).sum() >= 2:
            cands.append((*best_split(~everyone), -1, None))
        for i, tree in enumerate(trees):
            others = np.zeros(n, bool)
            for j, c in enumerate(covs):
                if j != i:
                    others |= c
            for k in sorted(range(len(tree)), key=lambda k: tree[k][1]):
                rows = tree[k][0] & ~others
                if rows.sum() >= 2:
                    cands.append((*best_split(rows), i, k))
        cands = [c for c in cands if c[1] is not None and c[0] > 1e-12]
        if not cands:
            break
        gain, f, thr, i, k = max(cands, key=lambda c: c[0])  # first maximum = candidate order
        if i == -1:
            trees.append([[np.ones(n, bool), 0]])
            node_counter.append(1)
            i, k = len(trees) - 1, 0
        mask, _ = trees[i].pop(k)
        trees[i].append([mask & (X[:, f] <= thr), node_counter[i]])
        trees[i].append([mask & (X[:, f] > thr), node_counter[i] + 1])
        node_counter[i] += 2
        sequence.append((i, f, thr))
    score = np.zeros(n)
    for tree in trees:
        for m, _ in tree:
            score[m] = np.maximum(score[m], precision(m))
    return sequence, score, len(trees)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("precision_threshold", [0.5, 0.8])
def test_figu_split_choice_equals_brute_force(seed, precision_threshold):
    rng = np.random.default_rng(100 + seed)
    n = 70
    X = rng.normal(size=(n, 3))
    y = ((X[:, 0] > 0.3) | (X[:, 1] < -0.6) | (rng.random(n) < 0.15)).astype(float)
    w = rng.integers(1, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    seq, score, n_trees = _brute_force_figu(X, y, w, 7, precision_threshold)
    model = FIGUClassifier(max_rules=7, precision_threshold=precision_threshold).fit(X, y, sample_weight=w)
    got = [(t, f, thr) for t, _, f, thr, _ in model.splits_]
    assert len(got) == len(seq)
    for (t1, f1, a), (t2, f2, b) in zip(got, seq):
        assert (t1, f1) == (t2, f2)
        assert a == pytest.approx(b, abs=1e-12)
    assert len(model.trees_) == n_trees
    np.testing.assert_allclose(model.decision_function(X), score, atol=1e-12)


def test_brute_force_cases_exercise_several_trees():
    """The brute-force comparison above is only meaningful if eq. 2 discards rows in it."""
    counts = []
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        X = rng.normal(size=(70, 3))
        y = ((X[:, 0] > 0.3) | (X[:, 1] < -0.6) | (rng.random(70) < 0.15)).astype(float)
        counts.append(len(FIGUClassifier(max_rules=7).fit(X, y).trees_))
    assert max(counts) >= 3


def _brute_force_figs(X, y, w, max_rules, thresholds):
    """Direct FIGS (eq. 1): every leaf re-evaluated against r_i = y - sum_{j != i} f_j each step.

    ``thresholds(f, rows)`` lists the admissible thresholds of feature f on a leaf's rows.
    Trees are lists of leaves [mask, value, node order]; the new-tree candidate comes first.
    """
    n = len(y)
    trees = []

    def predict(tree):
        out = np.zeros(n)
        for m, v, _ in tree:
            out[m] = v
        return out

    def wmean(v, m):
        return float(w[m] @ v[m] / w[m].sum())

    def sse(v, m):
        return float(w[m] @ (v[m] - wmean(v, m)) ** 2) if w[m].sum() > 0 else 0.0

    def best_split(r, rows):
        best = (-np.inf, None, None)
        for f in range(X.shape[1]):
            for thr in thresholds(f, rows):
                left, right = rows & (X[:, f] <= thr), rows & (X[:, f] > thr)
                if w[left].sum() == 0 or w[right].sum() == 0:
                    continue
                gain = sse(r, rows) - sse(r, left) - sse(r, right)
                if gain > best[0] + 1e-12:
                    best = (gain, f, thr)
        return best

    sequence = []
    for _ in range(max_rules):
        preds = [predict(t) for t in trees]
        total = np.sum(preds, axis=0) if preds else np.zeros(n)
        cands = [(*best_split(y - total, np.ones(n, bool)), -1, None)]
        for i, tree in enumerate(trees):
            r = y - (total - preds[i])
            for k in sorted(range(len(tree)), key=lambda k: tree[k][2]):
                cands.append((*best_split(r, tree[k][0]), i, k))
        cands = [c for c in cands if c[1] is not None and c[0] > 1e-12]
        if not cands:
            break
        gain, f, thr, i, k = max(cands, key=lambda c: c[0])
        if i == -1:
            trees.append([[np.ones(n, bool), 0.0, 0]])
            preds.append(np.zeros(n))
            i, k = len(trees) - 1, 0
        r = y - (total - preds[i])
        mask, _, order = trees[i].pop(k)
        nxt = 1 + max([o for *_, o in trees[i]] + [order])
        for j, part in enumerate((mask & (X[:, f] <= thr), mask & (X[:, f] > thr))):
            trees[i].append([part, wmean(r, part), nxt + j])
        sequence.append((i, f, thr))
    return sequence, (np.sum([predict(t) for t in trees], axis=0) if trees else np.zeros(n))


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5])
def test_figs_binned_equals_brute_force(seed):
    """Quantile-binned FIGS (max_bins=6) against a from-scratch FIGS restricted to the same
    bin-boundary thresholds: checks the incremental residual histograms over several trees
    (seed 1 grows one tree; the others 2-3)."""
    from csdt._binning import bin_features

    rng = np.random.default_rng(200 + seed)
    n = 120
    X = rng.normal(size=(n, 3))
    # additive in X0, X1, X2: FIGS spreads it over several trees
    y = (rng.random(n) < 0.05 + 0.3 * (X[:, 0] > 0) + 0.3 * (X[:, 1] > 0.3) + 0.3 * (X[:, 2] < -0.5)).astype(float)
    w = rng.uniform(0.5, 2.0, size=n)
    Xb, n_bins, lo, hi = bin_features(X, 6)

    def thresholds(f, rows):
        present = np.unique(Xb[rows, f])
        return [hi[f, a] / 2 + lo[f, b] / 2 for a, b in zip(present[:-1], present[1:])]

    seq, score = _brute_force_figs(X, y, w, 8, thresholds)
    model = FIGSClassifier(max_rules=8, max_bins=6).fit(X, y, sample_weight=w)
    got = [(t, f, thr) for t, _, f, thr, _ in model.splits_]
    assert len(got) == len(seq)
    assert len(model.trees_) >= (1 if seed == 1 else 2)
    for (t1, f1, a), (t2, f2, b) in zip(got, seq):
        assert (t1, f1) == (t2, f2)
        assert a == pytest.approx(b, abs=1e-12)
    np.testing.assert_allclose(model.decision_function(X), score, atol=1e-10)


def test_figu_differs_from_figs_when_trees_overlap():
    X, y = _toy(1, n=400)
    figs = FIGSClassifier(max_rules=10).fit(X, y)
    figu = FIGUClassifier(max_rules=10).fit(X, y)
    assert [s[:4] for s in figs.splits_] != [s[:4] for s in figu.splits_]


# ---------------------------------------------------------------------------------------
# One tree == best-first CART
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("model_cls", [FIGUClassifier, FIGSClassifier])
def test_one_tree_is_best_first_cart(seed, model_cls):
    rng = np.random.default_rng(seed)
    n = 200
    X = rng.normal(size=(n, 5))
    y = ((X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.8 * rng.normal(size=n)) > 0.5).astype(int)
    k = 9
    ours = model_cls(max_rules=k, max_trees=1).fit(X, y)
    cart = DecisionTreeClassifier(max_leaf_nodes=k + 1, random_state=seed).fit(X, y)
    assert cart.tree_.node_count == 2 * k + 1
    t = ours.trees_[0]
    sk = cart.tree_
    cart_struct = {"root": 0, "left": lambda i: None if sk.children_left[i] == -1 else sk.children_left[i],
                   "right": lambda i: sk.children_right[i], "feature": lambda i: int(sk.feature[i]),
                   "threshold": lambda i: float(sk.threshold[i]), "value": lambda i: 0.0}
    _same_structure(_structure(_ours(t)), _structure(cart_struct))
    np.testing.assert_allclose(ours.predict_proba(X), cart.predict_proba(X), atol=1e-12)
    # Gini decrease = 2 x squared-error decrease for 0/1 targets, so the normalised importances agree
    np.testing.assert_allclose(ours.feature_importances_, cart.feature_importances_, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("model_cls", [FIGUClassifier, FIGSClassifier])
@pytest.mark.skipif(SKLEARN_BEFORE_1_8, reason="scikit-learn < 1.8 sends missing values elsewhere at some ties; "
                    "FIGS follows the CART of scikit-learn >= 1.8")
def test_missing_values_one_tree_is_cart(seed, model_cls):
    """NaN handling equals scikit-learn's CART: each threshold tried with missing rows on both
    sides, plus "values left, missing right"; unseen NaN go to the child with more rows."""
    rng = np.random.default_rng(50 + seed)
    n = 300
    X = rng.normal(size=(n, 4))
    y = ((X[:, 0] + 0.5 * X[:, 1] + 0.8 * rng.normal(size=n)) > 0.3).astype(int)
    X[rng.random((n, 4)) < 0.15] = np.nan
    X[:, 3] = rng.normal(size=n)  # one complete feature
    y[np.isnan(X[:, 1]) & (rng.random(n) < 0.6)] = 1  # missingness carries signal
    k = 8
    ours = model_cls(max_rules=k, max_trees=1, max_bins=1000).fit(X, y)  # 300 distinct values: exact bins
    cart = DecisionTreeClassifier(max_leaf_nodes=k + 1, random_state=seed).fit(X, y)
    t, sk = ours.trees_[0], cart.tree_
    np.testing.assert_array_equal(t.missing_left[~t.is_leaf], sk.missing_go_to_left[sk.children_left != -1])
    assert sk.node_count == t.node_count == 2 * k + 1
    walk = lambda tr: {"root": 0, "left": lambda i: None if tr.children_left[i] == -1 else tr.children_left[i],
                       "right": lambda i: tr.children_right[i], "feature": lambda i: int(tr.feature[i]),
                       "threshold": lambda i: float(tr.threshold[i]), "value": lambda i: 0.0}
    _same_structure(_structure(walk(t)), _structure(walk(sk)))
    X_new = rng.normal(size=(500, 4))
    X_new[rng.random((500, 4)) < 0.3] = np.nan
    for Z in (X, X_new):
        np.testing.assert_allclose(ours.predict_proba(Z), cart.predict_proba(Z), atol=1e-12)


# ---------------------------------------------------------------------------------------
# Binned search, weights, costs
# ---------------------------------------------------------------------------------------


def test_binned_search_finds_best_boundary_split():
    """With few bins the first split is the brute-force best over the bin-boundary thresholds."""
    from csdt._binning import bin_features

    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 3))
    y = ((X[:, 1] > 0.4) ^ (rng.random(2000) < 0.2)).astype(float)
    model = FIGSClassifier(max_rules=1, max_bins=8).fit(X, y)
    _, n_bins, lo, hi = bin_features(X, 8)
    best = (-np.inf, None, None)
    for f in range(3):
        for b in range(n_bins[f] - 1):
            thr = hi[f, b] / 2 + lo[f, b + 1] / 2
            left = X[:, f] <= thr
            gain = ((y - y.mean()) ** 2).sum() - ((y[left] - y[left].mean()) ** 2).sum() \
                - ((y[~left] - y[~left].mean()) ** 2).sum()
            if gain > best[0]:
                best = (gain, f, thr)
    _, _, f, thr, gain = model.splits_[0]
    assert (f, thr) == (best[1], best[2])
    assert gain == pytest.approx(best[0], rel=1e-9)
    assert n_bins.max() <= 8


@pytest.mark.parametrize("n", [5000, 230_000])  # the second takes the sampled-quantile path
def test_binning_bins_are_ordered_and_exact(n):
    from csdt._binning import bin_features

    rng = np.random.default_rng(n)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 5, n), np.round(rng.exponential(size=n), 1),
                         np.r_[np.zeros(n - 1), 7.0]])  # a rare value the quantile sample can miss
    X[rng.random(n) < 0.1, 0] = np.nan  # missing values get the code n_bins[f]
    Xb, n_bins, lo, hi = bin_features(X, 255)
    assert list(n_bins[1:]) == [5, len(np.unique(X[:, 2])), 2]  # <= 255 distinct values: one bin each
    assert 200 <= n_bins[0] <= 255
    miss = np.isnan(X[:, 0])
    assert np.all(Xb[miss, 0] == n_bins[0]) and np.all(Xb[~miss, 0] < n_bins[0])
    for f in range(X.shape[1]):
        ok = ~np.isnan(X[:, f])
        x, b = X[ok, f], Xb[ok, f].astype(np.int64)
        order = np.argsort(x, kind="stable")
        assert np.all(np.diff(b[order]) >= 0)  # bins are monotone in x
        mins = np.full(n_bins[f], np.inf)
        maxs = np.full(n_bins[f], -np.inf)
        np.minimum.at(mins, b, x)
        np.maximum.at(maxs, b, x)
        np.testing.assert_array_equal(mins, lo[f, : n_bins[f]])
        np.testing.assert_array_equal(maxs, hi[f, : n_bins[f]])


@pytest.mark.parametrize("model_cls", [FIGSClassifier, FIGUClassifier])
def test_integer_sample_weight_equals_repeated_rows(model_cls):
    X, y = _toy(4, n=150)
    w = np.random.default_rng(4).integers(0, 4, size=len(y))
    a = model_cls(max_rules=8).fit(X, y, sample_weight=w)
    b = model_cls(max_rules=8).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert [s[:4] for s in a.splits_] == [s[:4] for s in b.splits_]
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)


@pytest.mark.parametrize("model_cls", [FIGSClassifier, FIGUClassifier])
def test_costs_are_weights(model_cls):
    """Our extension: costs become weights |c1 - c0| on the cheaper decision t = [c1 < c0]
    (a fraud smaller than the admin cost is not worth flagging: t = 0)."""
    data = make_fraud_transactions(3000, fraud_rate=0.05, random_state=0)
    X, y = data.data, np.asarray(data.target)
    cm = np.asarray(data.cost_matrix)
    cost1 = np.where(y == 1, cm[:, 2], cm[:, 0])
    cost0 = np.where(y == 1, cm[:, 1], cm[:, 3])
    assert (cost1 > cost0).any()  # the relabelling case occurs in this data
    t = (cost1 < cost0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CostWarning: small frauds violate reasonableness
        a = model_cls(max_rules=6).fit(X, y, fp_cost=data.fp_cost, fn_cost=data.fn_cost, tp_cost=data.tp_cost,
                                       tn_cost=data.tn_cost)
        c = model_cls(max_rules=6).fit(X, y, cost_matrix=data.cost_matrix)
    b = model_cls(max_rules=6).fit(X, t, sample_weight=np.abs(cost1 - cost0))
    assert a.splits_ == c.splits_
    assert [s[:4] for s in a.splits_] == [s[:4] for s in b.splits_]
    # the cost weights are divided by their mean (unit-free): gains in money are mean x ours
    np.testing.assert_allclose([s[4] * np.abs(cost1 - cost0).mean() for s in a.splits_],
                               [s[4] for s in b.splits_], rtol=1e-7)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-7, atol=1e-12)
    unweighted = model_cls(max_rules=6).fit(X, y)
    assert [s[:4] for s in a.splits_] != [s[:4] for s in unweighted.splits_]


def test_cost_routing_through_cross_validate():
    data = make_fraud_transactions(2000, fraud_rate=0.1, random_state=1)
    X, y = data.data, np.asarray(data.target)
    with sklearn.config_context(enable_metadata_routing=True):
        est = FIGUClassifier(max_rules=5).set_fit_request(fp_cost=True, fn_cost=True)
        scorer = make_savings_scorer()
        res = cross_validate(est, X, y, cv=3, scoring=scorer,
                             params={"fp_cost": np.asarray(data.fp_cost), "fn_cost": np.asarray(data.fn_cost)})
    assert np.all(np.isfinite(res["test_score"]))


# ---------------------------------------------------------------------------------------
# Protocol, printing, limits, pickle, bad input
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("model_cls", [FIGSClassifier, FIGUClassifier])
def test_tree_arrays_protocol_reproduces_scores(model_cls):
    data = make_fraud_transactions(4000, fraud_rate=0.05, random_state=2)
    X, y = data.data, np.asarray(data.target)
    model = model_cls(max_rules=15).fit(X, y)
    trees = get_tree_arrays(model)
    assert sum(int((~t.is_leaf).sum()) for t in trees) == model.complexity_ == 15
    Xn = X.to_numpy(dtype=float)
    per_tree = np.column_stack([t.value[apply_tree_arrays(t, Xn)] for t in trees])
    expected = per_tree.max(axis=1) if model_cls is FIGUClassifier else per_tree.sum(axis=1)
    np.testing.assert_allclose(model.decision_function(X), expected, atol=1e-12)
    assert all(t.left_inclusive and t.feature_names == list(X.columns) for t in trees)
    # leaf n_samples add up to the training weight in every tree
    for t in trees:
        assert t.n_samples[t.is_leaf].sum() == pytest.approx(len(y))
    if model_cls is FIGUClassifier:  # every tree has exactly its covering leaves labelled 1
        for t in trees:
            leaves = t.is_leaf
            assert (t.label[leaves] == 1).sum() >= 1
            assert np.all(t.label[leaves & (t.value >= model.precision_threshold)] == 1)


@pytest.mark.parametrize("model_cls", [FIGSClassifier, FIGUClassifier])
def test_extract_rules_reads_the_trees(model_cls):
    """RIFF integration: one rule per leaf, covering exactly the rows our trees route there
    (missing values included)."""
    import csboost_plugins.rules as rules_mod
    data = make_fraud_transactions(3000, fraud_rate=0.05, random_state=3)
    X, y = data.data.copy(), np.asarray(data.target)
    X = X.mask(np.random.default_rng(3).random(X.shape) < 0.1)  # 10 % missing values
    model = model_cls(max_rules=12).fit(X, y)
    assert any(t.missing_left[~t.is_leaf].any() for t in model.tree_arrays())
    rules = rules_mod.extract_rules(model, deduplicate=False)
    trees = model.tree_arrays()
    assert len(rules) == sum(int(t.is_leaf.sum()) for t in trees)
    leaves = [apply_tree_arrays(t, X.to_numpy(dtype=float)) for t in trees]
    for r in rules:
        src = r.sources[0]
        np.testing.assert_array_equal(r.mask(X), leaves[src["tree"]] == src["node"])
        assert r.value == pytest.approx(trees[src["tree"]].value[src["node"]])


def test_print_shows_trees():
    X, y = _toy(0)
    model = FIGSClassifier(max_rules=4).fit(X, y)
    text = str(model)
    assert "Tree #0" in text and text.count("<=") == 4
    assert "FIGUClassifier(" in str(FIGUClassifier())  # unfitted: the usual repr


def test_max_trees_max_depth_min_impurity_decrease():
    X, y = _toy(2, n=400)
    m = FIGSClassifier(max_rules=20, max_trees=1).fit(X, y)
    assert len(m.trees_) == 1 and m.complexity_ == 20
    depth = FIGUClassifier(max_rules=20, max_depth=2).fit(X, y)
    for t in depth.trees_:
        d = np.zeros(t.node_count, int)
        for i in range(t.node_count):
            if t.children_left[i] != -1:
                d[t.children_left[i]] = d[t.children_right[i]] = d[i] + 1
        assert d.max() <= 2
    full = FIGSClassifier(max_rules=20).fit(X, y)
    gains = [g for *_, g in full.splits_]
    cut = sorted(gains)[len(gains) // 2]
    stopped = FIGSClassifier(max_rules=20, min_impurity_decrease=cut).fit(X, y)
    assert stopped.complexity_ < 20
    assert all(g >= cut for *_, g in stopped.splits_)


def test_constant_features_give_single_leaf():
    X = np.ones((20, 2))
    y = np.r_[np.zeros(14), np.ones(6)]
    m = FIGSClassifier().fit(X, y)
    assert m.complexity_ == 0 and len(m.trees_) == 1
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], 0.3)


@pytest.mark.parametrize("model_cls", [FIGSClassifier, FIGUClassifier])
def test_pickle_round_trip(model_cls):
    X, y = _toy(7)
    m = model_cls(max_rules=9).fit(X, y)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m.predict_proba(X), m2.predict_proba(X))
    assert str(m) == str(m2)


@pytest.mark.parametrize(
    "kwargs,fit_kwargs,exc,match",
    [
        ({}, {"X": np.array([[np.inf, 1.0], [2.0, 3.0], [1.0, 1.0], [0.0, 2.0]])}, ValueError,
         r"X column 0 contains an infinite value \(inf\) in 1 of 4 rows"),
        ({}, {"X": np.array([["a", "b"], ["c", "d"]])}, ValueError, "float|convert"),
        ({}, {"y": [0, 1, 2, 1]}, ValueError, "binary"),
        ({}, {"y": [1, 1, 1, 1]}, ValueError, "one class"),
        ({}, {"y": [0, 1, 0]}, ValueError, "inconsistent numbers of samples"),
        ({}, {"sample_weight": [1, -1, 1, 1]}, ValueError, "[Nn]egative"),
        ({}, {"fp_cost": [1, np.nan, 1, 1], "fn_cost": 1.0}, ValueError, "fp_cost.*NaN"),
        ({}, {"fp_cost": 1.0}, TypeError, "fn_cost"),
        ({}, {"fp_cost": 1.0, "fn_cost": 1.0, "tp_cost": 1.0, "tn_cost": 1.0}, ValueError, "sums to zero"),
        ({"max_rules": 0}, {}, ValueError, "max_rules"),
        ({"max_rules": 2.5}, {}, TypeError, "max_rules"),
        ({"max_bins": 1}, {}, ValueError, "max_bins"),
        ({"min_impurity_decrease": -1}, {}, ValueError, "min_impurity_decrease"),
        ({"link": "probit"}, {}, ValueError, "link"),
    ],
)
def test_bad_input(kwargs, fit_kwargs, exc, match):
    args = {"X": np.arange(8, dtype=float).reshape(4, 2), "y": [0, 1, 0, 1]}
    args.update(fit_kwargs)
    X, y = args.pop("X"), args.pop("y")
    with pytest.raises(exc, match=match), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        FIGSClassifier(**kwargs).fit(X, y, **args)


def test_bad_precision_threshold_and_predict_shape():
    X, y = _toy(0, n=50)
    with pytest.raises(ValueError, match="precision_threshold"):
        FIGUClassifier(precision_threshold=1.5).fit(X, y)
    m = FIGUClassifier(max_rules=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])


@parametrize_with_checks([FIGSClassifier(), FIGUClassifier()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.slow
def test_riff_claim_on_creditscoring1():
    """RIFF paper, Tables 2-3: FIGU+RIFF reaches recall close to FIGS+RIFF with fewer rules.

    Real data (creditscoring1), the paper's protocol at one k (30 splits), 3 seeds:
    induction / selection subsets of 10 % of each training half with 30 % positives,
    FPR_max = 1 %, expected test recall of the selected rule set.
    """
    import csboost_plugins.rules as rules_mod
    from sklearn.model_selection import train_test_split

    data = load_creditscoring1()
    X, y = data.data.to_numpy(dtype=float), np.asarray(data.target).astype(int)
    res = {"FIGS": [], "FIGU": []}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        tr, te = train_test_split(np.arange(len(y)), test_size=0.2, stratify=y, random_state=seed)
        ind_part, sel_part = train_test_split(tr, test_size=0.5, stratify=y[tr], random_state=seed)

        def sub(idx):
            pos, neg = idx[y[idx] == 1], idx[y[idx] == 0]
            n_pos = min(len(pos), int(0.3 * 0.1 * len(idx)))
            return np.r_[rng.choice(pos, n_pos, replace=False),
                         rng.choice(neg, int(n_pos * 7 / 3), replace=False)]

        ind, sel = sub(ind_part), sub(sel_part)
        for name, cls in (("FIGS", FIGSClassifier), ("FIGU", FIGUClassifier)):
            model = cls(max_rules=30).fit(X[ind], y[ind])
            rs = rules_mod.riff_select(rules_mod.extract_rules(model), X[sel], y[sel], max_fpr=0.01)
            res[name].append((rs.evaluate(X[te], y[te])["tpr"], len(rs)))
    figs, figu = np.mean(res["FIGS"], axis=0), np.mean(res["FIGU"], axis=0)
    assert figu[1] <= figs[1]  # fewer (or as many) rules
    assert figu[0] >= figs[0] - 0.03  # recall close to FIGS+RIFF
