"""``fit(X, y, sample_weight=...)`` of csdt's estimators: a row of weight w counts as w copies of itself.

Brute force throughout: integer weights against the rows repeated, weight 0 against the rows
dropped, on a small synthetic set and on a subsample of the bundled creditscoring1 data. The refusal
of bad weights and their metadata routing are checked for every public estimator of the registry
(tests/_estimators.py, CatBoost skipped without the extra).
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.metrics import get_scorer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import (
    check_classifiers_one_label_sample_weights,
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weights_list,
    check_sample_weights_not_an_array,
    check_sample_weights_not_overwritten,
    check_sample_weights_pandas_series,
    check_sample_weights_shape,
)

try:  # scikit-learn >= 1.8
    from sklearn.utils.estimator_checks import check_all_zero_sample_weights_error
except ImportError:  # older: the all-zero refusal is tested by hand in test_bad_weights_are_value_errors_naming_sample_weight
    check_all_zero_sample_weights_error = None

from csboost_plugins.metrics import savings_score
from csdt import (
    BayesMinimumRiskClassifier,
    CAL5Classifier,
    CAL5OCClassifier,
    CostSensitiveBaggingClassifier,
    CostSensitiveLogisticRegression,
    CostSensitiveLogisticRegressionCV,
    CostSensitivePastingClassifier,
    CostSensitiveRandomForestClassifier,
    CostSensitiveRandomPatchesClassifier,
    ThresholdingOptimization,
)
from csdt import (
    CostSensitiveDecisionTreeClassifier as CSDT,
)
from csdt.datasets import load_creditscoring1


# ----------------------------------------------------------------------------- data
def _synthetic(seed=0, n=300):
    """Rounded features (ties), one column with NaN, integer money (sums exact in any order), weights 0..3."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 1)
    X[rng.random(n) < 0.05, 3] = np.nan
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.4).astype(int)
    C = np.column_stack([np.full(n, 3.0), rng.integers(1, 40, n).astype(float), np.zeros(n), np.zeros(n)])
    w = rng.integers(0, 4, n)
    return X, y, C, w


def _real(n=1500, seed=0):
    """A subsample of creditscoring1 with weights 0..3; its cost matrix rounded to whole money units, so
    that w C and C + ... + C (w times) are the same float and near-ties between splits that separate the
    same rows cannot flip by rounding."""
    b = load_creditscoring1()
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(b.target), n, replace=False)
    X = b.data.to_numpy(np.float64)[idx]
    return X, np.asarray(b.target)[idx], np.round(np.asarray(b.cost_matrix)[idx]), rng.integers(0, 4, n)


DATA = {"synthetic": _synthetic, "creditscoring1": _real}


def _no_nan(X):
    return np.nan_to_num(X, nan=-9.0)


def _repeat(w):
    return np.repeat(np.arange(len(w)), w)


def _assert_same_tree(a, b, money_rtol=1e-9):
    """Same structure, thresholds and labels; counts, rates and money equal up to summation order."""
    for k in ("children_left", "children_right", "feature", "label", "missing_left"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_allclose(a.n_node_samples, b.n_node_samples, rtol=1e-12)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12)
    np.testing.assert_allclose(a.node_cost, b.node_cost, rtol=money_rtol, atol=1e-9)


def _assert_same_predictions(a, b, X, atol=0.0):
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=atol)


# ----------------------------------------------------------------------------- (1) the tree
TREE_PARAMS = [
    {},  # direct_cost, exact search
    {"max_depth": 4, "min_gain": 0.0},
    {"max_bins": 16},  # histogram search: weighted quantile bins
    {"criterion": "cost_entropy", "max_depth": 4},
    {"max_leaf_nodes": 6},
    # the criteria that count rows: grown on repeated rows
    {"criterion": "gini", "max_depth": 4},
    {"criterion": "pi_cost", "max_depth": 4},
    {"criterion_weight": True, "max_depth": 4},
    {"num_pct": 20, "max_depth": 3},
]


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("params", TREE_PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_tree_integer_weights_equal_repeated_rows(data, params):
    X, y, C, w = DATA[data]()
    if "num_pct" in params:
        X = _no_nan(X)
    idx = _repeat(w)
    a = CSDT(**params, random_state=0).fit(X, y, sample_weight=w, cost_matrix=C)
    b = CSDT(**params, random_state=0).fit(X[idx], y[idx], cost_matrix=C[idx])
    assert a.tree_.node_count > 1
    _assert_same_tree(a.tree_, b.tree_)
    _assert_same_predictions(a, b, X)
    # n_node_samples / n_pos are weight sums, the leaf rate their Laplace ratio
    root = a.tree_
    assert root.n_node_samples[0] == w.sum()
    assert root.n_pos[0] == (w * y).sum()


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("params", [{}, {"max_bins": 16}, {"criterion": "gini", "max_depth": 4},
                                    {"num_pct": 20, "max_depth": 3}], ids=str)
def test_tree_zero_weight_equals_dropping_the_row(data, params):
    X, y, C, w = DATA[data]()
    if "num_pct" in params:
        X = _no_nan(X)
    w01 = (w > 0).astype(float)
    keep = w01 > 0
    a = CSDT(**params).fit(X, y, sample_weight=w01, cost_matrix=C)
    b = CSDT(**params).fit(X[keep], y[keep], cost_matrix=C[keep])
    _assert_same_tree(a.tree_, b.tree_, money_rtol=0)
    _assert_same_predictions(a, b, X)


def test_tree_weights_change_the_tree():
    # the comparisons above could pass with weights ignored if they changed nothing: they do change it
    X, y, C, w = _synthetic()
    a = CSDT(max_depth=4).fit(X, y, sample_weight=w, cost_matrix=C)
    b = CSDT(max_depth=4).fit(X, y, cost_matrix=C)
    assert not np.array_equal(a.tree_.node_cost, b.tree_.node_cost) or a.tree_.node_count != b.tree_.node_count


def test_tree_pruning_weights_equal_repeated_validation_rows():
    X, y, C, _ = _real()
    Xv, yv, Cv, wv = _real(seed=1)
    idx = _repeat(wv)
    a = CSDT(pruning="cost", min_gain=0.0).fit(X, y, cost_matrix=C, X_val=Xv, y_val=yv, val_cost_matrix=Cv,
                                               val_sample_weight=wv)
    b = CSDT(pruning="cost", min_gain=0.0).fit(X, y, cost_matrix=C, X_val=Xv[idx], y_val=yv[idx],
                                               val_cost_matrix=Cv[idx])
    _assert_same_tree(a.tree_, b.tree_)
    full = CSDT(min_gain=0.0).fit(X, y, cost_matrix=C)
    assert a.tree_.node_count < full.tree_.node_count
    # prune() takes them too, and errors are counted with weights
    c = clone(full).fit(X, y, cost_matrix=C).prune(Xv, yv, pruning="error", sample_weight=wv)
    d = clone(full).fit(X, y, cost_matrix=C).prune(Xv[idx], yv[idx], pruning="error")
    _assert_same_tree(c.tree_, d.tree_)


def test_tree_non_integer_weights_with_a_row_counting_criterion():
    X, y, C, _ = _synthetic()
    w = np.linspace(0.5, 2.0, len(y))
    CSDT().fit(X, y, sample_weight=w, cost_matrix=C)  # money criterion: any weights
    with pytest.raises(ValueError, match="sample_weight.*integer multiples"):
        CSDT(criterion="gini").fit(X, y, sample_weight=w, cost_matrix=C)
    # multiples of one unit are fine: 0.5 and 1.5 are 1 and 3 copies of 0.5
    w2 = np.where(np.arange(len(y)) % 2, 0.5, 1.5)
    a = CSDT(criterion="gini", max_depth=3).fit(X, y, sample_weight=w2, cost_matrix=C)
    idx = _repeat((w2 * 2).astype(int))
    b = CSDT(criterion="gini", max_depth=3).fit(X[idx], y[idx], cost_matrix=C[idx] / 2)
    for k in ("children_left", "feature", "threshold", "label"):
        np.testing.assert_array_equal(getattr(a.tree_, k), getattr(b.tree_, k))
    np.testing.assert_allclose(a.tree_.node_cost, b.tree_.node_cost)
    np.testing.assert_allclose(a.tree_.n_node_samples, b.tree_.n_node_samples / 2)


# ----------------------------------------------------------------------------- (1) cslogit
@pytest.mark.parametrize("data", DATA)
def test_cslogit_integer_weights_equal_repeated_rows(data):
    X, y, C, w = DATA[data]()
    X = _no_nan(X)
    idx = _repeat(w)
    # the same objective; L-BFGS-B stops within its tolerance of the same minimum (the L1 term's split
    # variables converge slowly: a tight tol keeps the two stopping points close; scipy 1.11's stopping
    # point moved 6e-4 on 2 of 3000 rows, so the objective's equality below is the sharp check there)
    for lam, atol in ((0.0, 1e-6), (0.05, 1e-3)):
        kw = dict(lambda_l1=lam, tol=1e-12, gtol=1e-9)
        a = CostSensitiveLogisticRegression(**kw).fit(X, y, cost_matrix=C, sample_weight=w)
        b = CostSensitiveLogisticRegression(**kw).fit(X[idx], y[idx], cost_matrix=C[idx])
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=atol)
        assert a.objective_ == pytest.approx(b.objective_, rel=1e-8)
        keep = w > 0  # weight 0 = the row dropped
        c = CostSensitiveLogisticRegression(**kw).fit(X, y, cost_matrix=C, sample_weight=keep * 1.0)
        d = CostSensitiveLogisticRegression(**kw).fit(X[keep], y[keep], cost_matrix=C[keep])
        np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-12)
        unweighted = CostSensitiveLogisticRegression(**kw).fit(X, y, cost_matrix=C)
        assert np.abs(unweighted.predict_proba(X) - a.predict_proba(X)).max() > 1e-3


def test_cslogit_objective_is_the_weighted_mean_expected_cost():
    # independent computation of AEC = sum w EC / sum w at the fitted coefficients (lambda 0)
    X, y, C, w = _real()
    m = CostSensitiveLogisticRegression().fit(X, y, cost_matrix=C, sample_weight=w)
    s = m.predict_proba(X)[:, 1]
    ec = y * (s * C[:, 2] + (1 - s) * C[:, 1]) + (1 - y) * (s * C[:, 0] + (1 - s) * C[:, 3])
    assert m.objective_ == pytest.approx((w * ec).sum() / w.sum(), rel=1e-6)


def test_cslogit_cv_takes_weights():
    X, y, C, w = _real(n=800)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    m = CostSensitiveLogisticRegressionCV(lambdas=[0.1, 0.01], cv=folds).fit(X, y, cost_matrix=C, sample_weight=w)
    direct = CostSensitiveLogisticRegression(lambda_l1=m.lambda_).fit(X, y, cost_matrix=C, sample_weight=w)
    np.testing.assert_allclose(m.coef_, direct.coef_)
    # each held-out score is the weighted AEC of the fold's own fit
    tr, te = folds[0]
    f = CostSensitiveLogisticRegression(lambda_l1=0.1).fit(X[tr], y[tr], cost_matrix=C[tr], sample_weight=w[tr])
    s = f.predict_proba(X[te])[:, 1]
    Ct, yt = C[te], y[te]
    ec = yt * (s * Ct[:, 2] + (1 - s) * Ct[:, 1]) + (1 - yt) * (s * Ct[:, 0] + (1 - s) * Ct[:, 3])
    assert m.cv_scores_[0, 0] == pytest.approx((w[te] * ec).sum() / w[te].sum(), rel=1e-9)


# ----------------------------------------------------------------------------- (1) CAL5
@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("cls", [CAL5OCClassifier, CAL5Classifier])
def test_cal5_integer_weights_equal_repeated_rows(data, cls):
    X, y, C, w = DATA[data]()
    X = _no_nan(X)
    idx = _repeat(w)
    a = cls().fit(X, y, cost_matrix=C, sample_weight=w)
    b = cls().fit(X[idx], y[idx], cost_matrix=C[idx])
    assert a.tree_.node_count > 1
    assert a.export_text() == b.export_text()
    _assert_same_tree(a.tree_, b.tree_)
    _assert_same_predictions(a, b, X, atol=1e-12)
    keep = w > 0
    c = cls().fit(X, y, cost_matrix=C, sample_weight=keep * 1.0)
    d = cls().fit(X[keep], y[keep], cost_matrix=C[keep])
    assert c.export_text() == d.export_text()
    _assert_same_predictions(c, d, X)


def test_cal5_per_example_cost_and_weights():
    # cost= (one misclassification cost per example) with weights: the same as the rows repeated
    X, y, C, w = _synthetic()
    X = _no_nan(X)
    cost = np.where(y == 1, C[:, 1], C[:, 0])
    idx = _repeat(w)
    a = CAL5OCClassifier().fit(X, y, cost=cost, sample_weight=w)
    b = CAL5OCClassifier().fit(X[idx], y[idx], cost=cost[idx])
    assert a.export_text() == b.export_text()


# ----------------------------------------------------------------------------- (1) ensembles, fixed subsets
COMBINATIONS = ["majority_voting", "weighted_voting", "stacking", "stacking_proba"]


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("combination", COMBINATIONS)
def test_pasting_all_rows_integer_weights_equal_repeated_rows(data, combination):
    # pasting every row (max_samples=1.0, no bootstrap): the subsets are fixed, so the model is deterministic
    X, y, C, w = DATA[data]()
    idx = _repeat(w)
    kw = dict(n_estimators=3, max_samples=1.0, max_depth=4, combination=combination, random_state=0)
    a = CostSensitivePastingClassifier(**kw).fit(X, y, cost_matrix=C, sample_weight=w)
    b = CostSensitivePastingClassifier(**kw).fit(X[idx], y[idx], cost_matrix=C[idx])
    for ta, tb in zip(a.estimators_, b.estimators_):
        _assert_same_tree(ta.tree_, tb.tree_)
    _assert_same_predictions(a, b, X, atol=1e-5)
    keep = w > 0
    c = CostSensitivePastingClassifier(**kw).fit(X, y, cost_matrix=C, sample_weight=keep * 1.0)
    d = CostSensitivePastingClassifier(**kw).fit(X[keep], y[keep], cost_matrix=C[keep])
    _assert_same_predictions(c, d, X, atol=1e-9)


@pytest.mark.parametrize("cls", [CostSensitiveBaggingClassifier, CostSensitiveRandomPatchesClassifier])
def test_oob_savings_are_weighted_money(cls):
    # each tree's out-of-bag savings (weighted voting's alpha) against savings_score with sample_weight
    X, y, C, w = _real()
    m = cls(n_estimators=4, combination="weighted_voting", max_depth=3, random_state=0).fit(
        X, y, cost_matrix=C, sample_weight=w)
    votes = m.tree_votes(X)
    for j, rows in enumerate(m.estimators_samples_):
        oob = np.ones(len(y), bool)
        oob[rows] = False
        ref = savings_score(y[oob], votes[oob, j], cost_matrix=C[oob], sample_weight=w[oob])
        assert m.estimators_oob_savings_[j] == pytest.approx(ref, rel=1e-9, abs=1e-12)
    unweighted = cls(n_estimators=4, combination="weighted_voting", max_depth=3, random_state=0).fit(
        X, y, cost_matrix=C)
    assert not np.allclose(unweighted.estimators_oob_savings_, m.estimators_oob_savings_)


# ----------------------------------------------------------------------------- (2) uniform weights
@pytest.mark.parametrize("c", [1.0, 0.25, 4.0])
def test_uniform_weights_tree(c):
    # powers of two scale the money exactly (another c can flip an exact tie between two splits by rounding)
    X, y, C, _ = _real()
    w = np.full(len(y), c)
    for params in ({}, {"max_bins": 16}, {"criterion": "gini", "max_depth": 4}):
        a = CSDT(**params).fit(X, y, cost_matrix=C, sample_weight=w)
        b = CSDT(**params).fit(X, y, cost_matrix=C)
        for k in ("children_left", "children_right", "feature", "threshold", "label"):
            np.testing.assert_array_equal(getattr(a.tree_, k), getattr(b.tree_, k))
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
        np.testing.assert_allclose(a.tree_.node_cost, c * b.tree_.node_cost, rtol=1e-12)
        # the Laplace rate counts weight as copies: (c n_pos + 1) / (c n + 2); c = 1 is the unweighted tree
        np.testing.assert_allclose(a.tree_.value, (c * b.tree_.n_pos + 1) / (c * b.tree_.n_node_samples + 2),
                                   rtol=1e-12)
        if c == 1.0:
            np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("c", [1.0, 2.5])
def test_uniform_weights_other_estimators(c):
    # cslogit: the same AEC (a weighted mean), so the same minimum; its logistic-regression start counts weights
    # as copies (as scikit-learn's does), so the search is compared where the AEC has one clear minimum
    Xs, ys, Cs, _ = _synthetic()
    Xs = _no_nan(Xs)
    kw = dict(lambda_l1=0.1, tol=1e-12, gtol=1e-9)
    a = CostSensitiveLogisticRegression(**kw).fit(Xs, ys, cost_matrix=Cs, sample_weight=np.full(len(ys), c))
    b = CostSensitiveLogisticRegression(**kw).fit(Xs, ys, cost_matrix=Cs)
    np.testing.assert_allclose(a.predict_proba(Xs), b.predict_proba(Xs), atol=1e-5)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-8)
    X, y, C, _ = _real()
    X = _no_nan(X)
    w = np.full(len(y), c)
    for combination in ("majority_voting", "weighted_voting"):  # vote shares and savings ratios: scale-free
        kw = dict(n_estimators=4, combination=combination, max_depth=3, random_state=0)
        a = CostSensitiveBaggingClassifier(**kw).fit(X, y, cost_matrix=C, sample_weight=w)
        b = CostSensitiveBaggingClassifier(**kw).fit(X, y, cost_matrix=C)
        _assert_same_predictions(a, b, X, atol=1e-12)
        assert a.oob_score_ == pytest.approx(b.oob_score_, rel=1e-9)
    for cls in (CAL5OCClassifier, CAL5Classifier):
        a = cls().fit(X, y, cost_matrix=C, sample_weight=w)
        b = cls().fit(X, y, cost_matrix=C)
        if c == 1.0:
            assert a.export_text() == b.export_text()
        else:  # the confidence bounds see c times the evidence: the same as the rows repeated (c copies)
            idx = np.repeat(np.arange(len(y)), 2)
            a = cls().fit(X, y, cost_matrix=C, sample_weight=np.full(len(y), 2.0))
            assert a.export_text() == cls().fit(X[idx], y[idx], cost_matrix=C[idx]).export_text()


# ----------------------------------------------------------------------------- (3) bootstrap ensembles
@pytest.mark.parametrize("cls", [CostSensitiveBaggingClassifier, CostSensitiveRandomForestClassifier,
                                 CostSensitiveRandomPatchesClassifier])
@pytest.mark.parametrize("combination", COMBINATIONS)
def test_bootstrap_ensembles_zero_weight_rows_never_influence(cls, combination):
    X, y, C, w = _real(n=1000)
    kw = dict(n_estimators=4, combination=combination, max_depth=4)
    a = cls(**kw, random_state=0).fit(X, y, cost_matrix=C, sample_weight=w)
    again = cls(**kw, random_state=0).fit(X, y, cost_matrix=C, sample_weight=w)
    _assert_same_predictions(a, again, X)  # random_state fixes the model
    other = cls(**kw, random_state=1).fit(X, y, cost_matrix=C, sample_weight=w)
    assert [e.tree_.node_count for e in other.estimators_] != [e.tree_.node_count for e in a.estimators_] or \
        not np.array_equal(other.predict_proba(X), a.predict_proba(X))
    # rows of weight 0 with other features, labels and money: the same model
    rng = np.random.default_rng(5)
    zero = w == 0
    X2, y2, C2 = X.copy(), y.copy(), C.copy()
    X2[zero] = rng.normal(size=X2[zero].shape) * 1e3
    y2[zero] = 1 - y2[zero]
    C2[zero] *= 100.0
    b = cls(**kw, random_state=0).fit(X2, y2, cost_matrix=C2, sample_weight=w)
    _assert_same_predictions(a, b, X)
    for ta, tb in zip(a.estimators_, b.estimators_):
        _assert_same_tree(ta.tree_, tb.tree_, money_rtol=0)
    assert a.oob_score_ == b.oob_score_ or (np.isnan(a.oob_score_) and np.isnan(b.oob_score_))
    # ... while the same change on rows of weight 1 changes it
    c = cls(**kw, random_state=0).fit(X2, y2, cost_matrix=C2, sample_weight=np.ones(len(y)))
    d = cls(**kw, random_state=0).fit(X, y, cost_matrix=C, sample_weight=np.ones(len(y)))
    assert not np.array_equal(c.predict_proba(X), d.predict_proba(X))


def test_bootstrap_tree_gets_its_draw_times_the_weight():
    # a tree of a bagging ensemble = a CSDT fitted on its drawn rows with their weights (repeats add up)
    X, y, C, w = _real(n=800)
    m = CostSensitiveBaggingClassifier(n_estimators=2, max_depth=4, random_state=3).fit(
        X, y, cost_matrix=C, sample_weight=w)
    rows = m.estimators_samples_[0]
    draws = np.bincount(rows, minlength=len(y))
    ref = CSDT(max_depth=4, random_state=m.estimators_[0].random_state).fit(
        X, y, cost_matrix=C, sample_weight=draws * w)
    _assert_same_tree(m.estimators_[0].tree_, ref.tree_)


# ----------------------------------------------------------------------------- (4) bad weights
import _estimators  # noqa: E402

ESTIMATORS = _estimators.params()  # every public estimator (CatBoost skipped without the extra)


@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_bad_weights_are_value_errors_naming_sample_weight(name, make):
    X, y, C, _ = _synthetic(n=120)
    X = _no_nan(X)
    n = len(y)
    bad = {"negative": np.where(np.arange(n) == 3, -1.0, 1.0), "nan": np.where(np.arange(n) == 3, np.nan, 1.0),
           "inf": np.where(np.arange(n) == 3, np.inf, 1.0), "short": np.ones(n - 1), "2-D": np.ones((n, 2)),
           "all zero": np.zeros(n)}
    for kind, w in bad.items():
        with pytest.raises(ValueError, match="sample_weight") as info:
            make().fit(X, y, sample_weight=w, cost_matrix=C)
        assert "sample_weight" in str(info.value), kind
    # pandas: the index must be X's, as for the costs
    Xd = pd.DataFrame(X, index=np.arange(n) + 1000)
    make().fit(Xd, y, sample_weight=pd.Series(np.ones(n), index=Xd.index), cost_matrix=C)
    with pytest.raises(ValueError, match="sample_weight.*index"):
        make().fit(Xd, y, sample_weight=pd.Series(np.ones(n)), cost_matrix=C)


def test_bad_validation_weights_name_val_sample_weight():
    X, y, C, _ = _synthetic(n=120)
    with pytest.raises(ValueError, match="val_sample_weight"):
        CSDT(pruning="cost").fit(X, y, cost_matrix=C, X_val=X, y_val=y, val_cost_matrix=C,
                                 val_sample_weight=-np.ones(len(y)))


# ----------------------------------------------------------------------------- (5) metadata routing
def _prediction(model, X):
    return model.predict_proba(X)


def _a_parameter(est):
    """A parameter of ``est`` with a plain value, for a one-candidate grid."""
    return next(k for k, v in sorted(est.get_params(deep=False).items())
                if v is None or isinstance(v, (bool, int, float, str)))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_sample_weight_routed_through_pipeline_and_cross_validate(name, make):
    X, y, C, w = _real(n=900)
    X = _no_nan(X)
    est = make()
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    params = {"sample_weight": w, "cost_matrix": C}
    with sklearn.config_context(enable_metadata_routing=True):
        routed = clone(est).set_fit_request(sample_weight=True, cost_matrix=True).set_score_request(
            sample_weight=True)
        pipe = Pipeline([("same", FunctionTransformer()), ("model", routed)])
        pipe.set_score_request(sample_weight=True)  # scikit-learn < 1.8 asks the Pipeline itself
        res = cross_validate(pipe, X, y, cv=folds, params=params, return_estimator=True)
        tr = folds[0][0]
        direct = clone(est).fit(X[tr], y[tr], cost_matrix=C[tr], sample_weight=w[tr])
        unweighted = clone(est).fit(X[tr], y[tr], cost_matrix=C[tr])
        got = _prediction(res["estimator"][0], X)
        np.testing.assert_allclose(got, _prediction(direct, X), atol=1e-9)
        assert not np.allclose(got, _prediction(unweighted, X), atol=1e-9)  # the weights did something
        # GridSearchCV: every candidate fitted and refitted with the weights (one candidate: the refit is it);
        # scored on probabilities (a booster deciding by BMR predicts only with the rows' costs)
        key = _a_parameter(est)
        search = GridSearchCV(pipe, {f"model__{key}": [est.get_params()[key]]}, cv=folds,
                              scoring=get_scorer("neg_log_loss").set_score_request(sample_weight=True)).fit(
            X, y, **params)
        assert np.isfinite(search.best_score_)
        full = clone(est).fit(X, y, cost_matrix=C, sample_weight=w)
        np.testing.assert_allclose(_prediction(search.best_estimator_, X), _prediction(full, X), atol=1e-9)


def test_bmr_passes_weights_to_its_estimator_and_calibrator():
    X, y, C, w = _real(n=900)
    X = _no_nan(X)
    bmr = BayesMinimumRiskClassifier(estimator=CSDT(max_depth=3), calibration="isotonic", cv=None).fit(
        X, y, cost_matrix=C, sample_weight=w)
    inner = CSDT(max_depth=3).fit(X, y, cost_matrix=C, sample_weight=w)
    _assert_same_tree(bmr.estimator_.tree_, inner.tree_)
    idx = _repeat(w)
    rep = BayesMinimumRiskClassifier(estimator=CSDT(max_depth=3), calibration="isotonic", cv=None).fit(
        X[idx], y[idx], cost_matrix=C[idx])
    np.testing.assert_allclose(bmr.predict_proba(X), rep.predict_proba(X), atol=1e-12)
    # rocch calibration and the tuned threshold: weighted = repeated
    for make in (lambda: BayesMinimumRiskClassifier(estimator=CSDT(max_depth=3), calibration="rocch", cv=None),
                 lambda: ThresholdingOptimization(estimator=CSDT(max_depth=3), cv=None)):
        a = make().fit(X, y, cost_matrix=C, sample_weight=w)
        b = make().fit(X[idx], y[idx], cost_matrix=C[idx])
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
    # the default pipeline weights its scaler too (weighted mean / std)
    a = BayesMinimumRiskClassifier().fit(X, y, cost_matrix=C, sample_weight=w)
    b = BayesMinimumRiskClassifier().fit(X[idx], y[idx], cost_matrix=C[idx])
    np.testing.assert_allclose(a.estimator_[0].mean_, b.estimator_[0].mean_, rtol=1e-9)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-4)
    # an estimator that takes neither weights nor costs
    from sklearn.neighbors import KNeighborsClassifier

    with pytest.raises(ValueError, match="sample_weight"):
        BayesMinimumRiskClassifier(estimator=KNeighborsClassifier()).fit(X, y, sample_weight=w)


# ----------------------------------------------------------------------------- (6) scikit-learn's checks
SW_CHECKS = [check_sample_weights_pandas_series, check_sample_weights_not_an_array, check_sample_weights_list,
             check_sample_weights_shape, check_sample_weights_not_overwritten, check_all_zero_sample_weights_error,
             check_classifiers_one_label_sample_weights, check_sample_weight_equivalence_on_dense_data]
SW_CHECKS = [c for c in SW_CHECKS if c is not None]
#: estimators whose fit with weights is deterministic given the rows (no draws that depend on n)
SW_ESTIMATORS = [CSDT(), CSDT(max_bins=32, min_gain=0.0), CSDT(criterion="gini", max_leaf_nodes=8),
                 CSDT(criterion="cost_entropy"), CAL5OCClassifier(), CAL5Classifier(),
                 CostSensitivePastingClassifier(n_estimators=3, max_samples=1.0, random_state=0),
                 CostSensitivePastingClassifier(n_estimators=3, max_samples=1.0, combination="weighted_voting",
                                                random_state=0),
                 CostSensitiveLogisticRegression(lambda_l1=0.01)]


@pytest.mark.parametrize("est", SW_ESTIMATORS, ids=repr)
@pytest.mark.parametrize("check", SW_CHECKS, ids=lambda c: c.__name__)
def test_sklearn_sample_weight_checks(est, check):
    check(type(est).__name__, est)


# ----------------------------------------------------------------------------- kernels on edge shapes
@pytest.mark.boundscheck
@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_cal5_weighted_intervals_kernel_on_tiny_data(n):
    # .ci/boundscheck reruns this under NUMBA_BOUNDSCHECK=1: the weighted grouping stays inside its arrays
    from csdt.cal5._intervals import weighted_attribute_intervals

    rng = np.random.default_rng(n)
    x = np.round(rng.normal(size=n), 0)
    k = (np.arange(n) % 2).astype(np.int64)
    c = rng.uniform(0.5, 3.0, n)
    w = rng.uniform(0.1, 2.0, n)
    thresholds, status, counts, cost_sums, info = weighted_attribute_intervals(x, k, c, w, 2, 0.3, 0.6)
    # the intervals' statistics sum to the weighted class totals
    np.testing.assert_allclose(counts.sum(axis=0), np.bincount(k, weights=w, minlength=2))
    np.testing.assert_allclose(cost_sums.sum(axis=0), np.bincount(k, weights=w * c, minlength=2))
    assert thresholds.shape[0] == status.shape[0] - 1 and np.isfinite(info)
    # and the estimators fit such data with weights
    X = np.column_stack([x, x[::-1]])
    y = np.where(k == 1, 1, 0)
    if n >= 2:
        CAL5OCClassifier().fit(X, y, cost=c, sample_weight=w).predict(X)
        CSDT().fit(X, y, sample_weight=w, fp_cost=1.0, fn_cost=c).predict(X)
        CSDT(max_bins=4).fit(X, y, sample_weight=w, fp_cost=1.0, fn_cost=c).predict(X)
