"""CostSensitiveLogisticRegression (cslogit): gradient, optimality, costs matter, sklearn conventions."""

import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from scipy.optimize import approx_fprime
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.utils.estimator_checks import parametrize_with_checks

from csboost_plugins.metrics import expected_cost_loss, make_savings_scorer, savings_score
from csdt import CostSensitiveLogisticRegression, CostSensitiveLogisticRegressionCV
from csdt.linear._objective import aec_and_gradient, cost_slope_and_offset
from csdt.datasets import load_creditscoring1


def _toy(n=400, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.8).astype(int)
    costs = np.column_stack([rng.uniform(1, 5, n), rng.uniform(1, 50, n),
                             rng.uniform(0, 1, n), np.zeros(n)])
    return X, y, costs


def _aec_direct(theta, X, y, c, fit_intercept):
    """Paper eq. 7/11 written out row by row (independent of the vectorised helper)."""
    b0, beta = (theta[0], theta[1:]) if fit_intercept else (0.0, theta)
    total = 0.0
    for i in range(X.shape[0]):
        s = 1.0 / (1.0 + np.exp(-(b0 + X[i] @ beta)))
        if y[i] == 1:
            total += s * c[i, 2] + (1 - s) * c[i, 1]
        else:
            total += s * c[i, 0] + (1 - s) * c[i, 3]
    return total / X.shape[0]


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_aec_and_gradient_match_formula_and_finite_differences(fit_intercept):
    X, y, c = _toy(120, 3, seed=1)
    d, e = cost_slope_and_offset(y, c)
    rng = np.random.default_rng(2)
    for _ in range(3):
        theta = rng.normal(size=X.shape[1] + int(fit_intercept))
        aec, g = aec_and_gradient(theta, X, d, e, fit_intercept)
        assert aec == pytest.approx(_aec_direct(theta, X, y, c, fit_intercept), rel=1e-12)
        fd = approx_fprime(theta, lambda t: aec_and_gradient(t, X, d, e, fit_intercept)[0], 1e-7)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


def _objective(model, X, y, c, lam):
    s = model.predict_proba(X)[:, 1]
    return expected_cost_loss(y, s, cost_matrix=c, normalize=True) + lam * np.abs(model.coef_std_).sum()


@pytest.mark.parametrize("lam", [0.0, 0.05, 0.5])
def test_fit_reaches_a_local_minimum_of_aec_plus_l1(lam):
    X, y, c = _toy()
    m = CostSensitiveLogisticRegression(lambda_l1=lam).fit(X, y, cost_matrix=c)
    q = _objective(m, X, y, c, lam)
    assert m.objective_ == pytest.approx(q, rel=1e-9)
    # no coordinate move of the standardised coefficients (or the intercept) lowers Q
    mean, std = X.mean(0), X.std(0)
    Xs = (X - mean) / std
    d, e = cost_slope_and_offset(y, c)
    theta = np.concatenate((m.intercept_ + m.coef_ @ mean, m.coef_std_.ravel()))

    def Q(t):
        return aec_and_gradient(t, Xs, d, e, True)[0] + lam * np.abs(t[1:]).sum()

    q0 = Q(theta)
    assert q0 == pytest.approx(q, rel=1e-9)
    for j in range(theta.size):
        for step in (1e-3, -1e-3):
            t = theta.copy()
            t[j] += step
            assert Q(t) >= q0 - 1e-7 * abs(q0)


def test_costs_change_the_weights_and_the_objective_is_not_flat():
    X, y, c = _toy()
    a = CostSensitiveLogisticRegression().fit(X, y, cost_matrix=c)
    c2 = c.copy()
    c2[:, 1] *= 0.1  # false negatives suddenly cheap
    c2[:, 2] = 0.0
    b = CostSensitiveLogisticRegression().fit(X, y, cost_matrix=c2)
    assert not np.allclose(a.coef_, b.coef_, rtol=1e-3)
    # cheaper misses -> fewer rows flagged
    assert b.predict(X).sum() < a.predict(X).sum()
    # and the fitted model is strictly cheaper (in expected cost) than its LR start
    lr = LogisticRegression(max_iter=1000).fit((X - X.mean(0)) / X.std(0), y)
    s_lr = lr.predict_proba((X - X.mean(0)) / X.std(0))[:, 1]
    assert expected_cost_loss(y, a.predict_proba(X)[:, 1], cost_matrix=c) < \
        expected_cost_loss(y, s_lr, cost_matrix=c) - 1.0


def test_intercept_is_not_penalised():
    X, y, c = _toy()
    m = CostSensitiveLogisticRegression(lambda_l1=1e6).fit(X, y, cost_matrix=c)
    assert np.all(m.coef_ == 0)
    # the intercept alone minimises AEC: brute force over a fine grid of b0
    d, e = cost_slope_and_offset(y, c)
    grid = np.linspace(-8, 8, 4001)
    vals = [(expit(b) * d.sum() + e.sum()) / len(y) for b in grid]
    best = min(vals)
    got = (expit(m.intercept_[0]) * d.sum() + e.sum()) / len(y)
    assert got <= best + 1e-9 * abs(best)


def test_deterministic_and_pickles():
    X, y, c = _toy()
    a = CostSensitiveLogisticRegression(lambda_l1=0.1).fit(X, y, cost_matrix=c)
    b = CostSensitiveLogisticRegression(lambda_l1=0.1).fit(X, y, cost_matrix=c)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    r = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(r.predict_proba(X), a.predict_proba(X))


def test_keyword_costs_equal_cost_matrix_and_pandas_names():
    X, y, c = _toy()
    df = pd.DataFrame(X, columns=list("abcd"))
    a = CostSensitiveLogisticRegression().fit(df, y, fp_cost=c[:, 0], fn_cost=c[:, 1], tp_cost=c[:, 2])
    b = CostSensitiveLogisticRegression().fit(X, y, cost_matrix=c)
    np.testing.assert_allclose(a.coef_, b.coef_)
    assert list(a.feature_names_in_) == list("abcd") and a.n_features_in_ == 4


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        (dict(fp_cost=np.r_[np.nan, np.ones(399)], fn_cost=1.0), ValueError, "fp_cost"),
        (dict(fp_cost=np.ones(10), fn_cost=1.0), ValueError, "length"),
        (dict(cost_matrix=np.ones((400, 3))), ValueError, "cost_matrix"),
    ],
)
def test_bad_costs(kwargs, exc, msg):
    X, y, _ = _toy()
    with pytest.raises(exc, match=msg):
        CostSensitiveLogisticRegression().fit(X, y, **kwargs)


def test_bad_labels_and_params():
    X, y, c = _toy()
    with pytest.raises(ValueError, match="only one class"):
        CostSensitiveLogisticRegression().fit(X, np.zeros(len(y)), cost_matrix=c)
    with pytest.raises(ValueError, match="binary classification"):
        CostSensitiveLogisticRegression().fit(X, np.arange(len(y)) % 3, cost_matrix=c)
    with pytest.raises(ValueError, match="lambda_l1"):
        CostSensitiveLogisticRegression(lambda_l1=-1).fit(X, y, cost_matrix=c)
    with pytest.raises(ValueError):
        CostSensitiveLogisticRegression().fit(np.array([["a", "b"]] * 4), [0, 1, 0, 1])


def test_cv_scores_are_the_folds_held_out_aec_and_pick_the_best():
    X, y, c = _toy(300)
    cv = CostSensitiveLogisticRegressionCV(lambdas=[0.0, 0.1, 1.0], cv=3, random_state=0).fit(X, y, cost_matrix=c)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    tr, te = folds[1]
    m = CostSensitiveLogisticRegression(lambda_l1=0.1).fit(X[tr], y[tr], cost_matrix=c[tr])
    li = list(cv.lambdas_).index(0.1)
    want = expected_cost_loss(y[te], m.predict_proba(X[te])[:, 1], cost_matrix=c[te], normalize=True)
    assert cv.cv_scores_[li, 1] == pytest.approx(want, rel=1e-10)
    assert cv.lambda_ == cv.lambdas_[np.argmin(cv.cv_scores_.mean(1))]
    ref = CostSensitiveLogisticRegression(lambda_l1=cv.lambda_).fit(X, y, cost_matrix=c)
    np.testing.assert_allclose(cv.predict_proba(X), ref.predict_proba(X))


def test_cv_default_grid_starts_where_lasso_zeroes_everything():
    X, y, c = _toy(300)
    cv = CostSensitiveLogisticRegressionCV(lambdas=4, cv=2, random_state=0).fit(X, y, cost_matrix=c)
    assert len(cv.lambdas_) == 4 and cv.lambdas_[-1] == 0.0
    top = CostSensitiveLogisticRegression(lambda_l1=cv.lambdas_[0] * 1.01).fit(X, y, cost_matrix=c)
    assert np.abs(top.coef_).max() < 1e-6


def test_metadata_routing_gridsearch_and_cross_validate():
    X, y, c = _toy(300)
    with sklearn.config_context(enable_metadata_routing=True):
        est = CostSensitiveLogisticRegression().set_fit_request(fp_cost=True, fn_cost=True)
        gs = GridSearchCV(est, {"lambda_l1": [0.0, 10.0]}, scoring=make_savings_scorer(), cv=3)
        gs.fit(X, y, fp_cost=c[:, 0], fn_cost=c[:, 1])
        assert gs.best_params_["lambda_l1"] == 0.0  # lambda 10 zeroes every coefficient
        res = cross_validate(est, X, y, scoring=make_savings_scorer(), cv=3,
                             params={"fp_cost": c[:, 0], "fn_cost": c[:, 1]})
        assert np.all(res["test_score"] > 0)


def test_real_data_beats_cost_insensitive_logistic_regression():
    """creditscoring1: CSLR-t vs LR-t (ECSDT TABLE VII: 0.4554 vs 0.0177)."""
    b = load_creditscoring1()
    X, y, c = b.data.to_numpy(), b.target, b.cost_matrix
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))[:30000]
    tr, te = idx[:15000], idx[15000:]
    cs = CostSensitiveLogisticRegression(lambda_l1=0.1).fit(X[tr], y[tr], cost_matrix=c[tr])
    lr = LogisticRegression(max_iter=1000).fit((X[tr] - X[tr].mean(0)) / X[tr].std(0), y[tr])
    s_cs = savings_score(y[te], cs.predict(X[te]), cost_matrix=c[te])
    s_lr = savings_score(y[te], lr.predict((X[te] - X[tr].mean(0)) / X[tr].std(0)), cost_matrix=c[te])
    assert s_cs > 0.35 and s_cs > s_lr + 0.2


@parametrize_with_checks([CostSensitiveLogisticRegression(),
                          CostSensitiveLogisticRegressionCV(lambdas=[0.01], cv=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
