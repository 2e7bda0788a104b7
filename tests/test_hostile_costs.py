"""Costs, metrics, data generators and linear models on hostile input: clear errors, no silent NaN."""

import numpy as np
import pytest

from csboost_plugins.costs import MAX_TOTAL_COST, check_costs, fraud_cost_matrix
from csboost_plugins.metrics import cost_loss, savings_score
from csdt import (
    BayesMinimumRiskClassifier,
    CostSensitiveDecisionTreeClassifier,
    CostSensitiveLogisticRegression,
    CostSensitiveLogisticRegressionCV,
    ThresholdingOptimization,
)
from csdt.datasets import load_creditscoring1, make_fraud_transactions


@pytest.fixture(scope="module")
def credit():
    b = load_creditscoring1()
    return b.data.to_numpy()[:2000], b.target[:2000], b.cost_matrix[:2000]


# ------------------------------------------------------------------ costs near the float64 limit
def test_costs_whose_sums_overflow_are_refused_with_the_unit_advice(credit):
    X, y, C = credit
    scale = 1e307 / C.max()  # every cost finite, the total is not
    assert np.isfinite(C * scale).all() and not np.isfinite((C * scale).sum())
    with pytest.raises(ValueError, match="costs are too large.*larger unit"):
        check_costs(cost_matrix=C * scale)
    with pytest.raises(ValueError, match="costs are too large"):
        CostSensitiveDecisionTreeClassifier(max_depth=3).fit(X, y, cost_matrix=C * scale)
    with pytest.raises(ValueError, match="costs are too large"):
        savings_score(y, y, cost_matrix=C * scale)
    with pytest.raises(ValueError, match="costs are too large"):
        cost_loss(y, y, fp_cost=1e306, fn_cost=1.0)


def test_costs_just_inside_the_limit_give_the_same_tree_and_savings(credit):
    X, y, C = credit
    scale = MAX_TOTAL_COST / (C.max() * len(y)) / 4
    base = CostSensitiveDecisionTreeClassifier(max_depth=4).fit(X, y, cost_matrix=C)
    big = CostSensitiveDecisionTreeClassifier(max_depth=4).fit(X, y, cost_matrix=C * scale)
    assert base.predict(X).sum() > 0
    np.testing.assert_array_equal(big.predict(X), base.predict(X))
    s = savings_score(y, big.predict(X), cost_matrix=C * scale)
    assert np.isfinite(s) and s == pytest.approx(savings_score(y, base.predict(X), cost_matrix=C), rel=1e-9)
    assert np.isfinite(cost_loss(y, big.predict(X), cost_matrix=C * scale))


@pytest.mark.parametrize("n, err", [(-1, ValueError), (2.5, TypeError), ("3", TypeError), (True, TypeError)])
def test_check_costs_n_is_a_row_count(n, err):
    with pytest.raises(err, match=r"n \(the number of rows\)"):
        check_costs(n, fp_cost=1.0, fn_cost=2.0)
    assert check_costs(np.int64(3), fp_cost=1.0, fn_cost=2.0).shape == (3, 4)


# ------------------------------------------------------------------ generators
@pytest.mark.parametrize("kwargs, err, name", [
    (dict(admin_cost=float("nan")), ValueError, "admin_cost"),
    (dict(admin_cost=float("inf")), ValueError, "admin_cost"),
    (dict(admin_cost="10"), ValueError, "admin_cost"),
    (dict(n_samples="100"), TypeError, "n_samples"),
    (dict(n_samples=100.0), TypeError, "n_samples"),
    (dict(fraud_rate="0.1"), TypeError, "fraud_rate"),
    (dict(fraud_rate=float("nan")), ValueError, "fraud_rate"),
])
def test_make_fraud_transactions_refuses_bad_arguments(kwargs, err, name):
    args = dict(n_samples=100, fraud_rate=0.1, random_state=0) | kwargs
    with pytest.raises(err, match=name):
        make_fraud_transactions(**args)


def test_fraud_cost_matrix_validates_the_admin_cost():
    with pytest.raises(ValueError, match="admin_cost"):
        fraud_cost_matrix([1.0, 2.0], admin_cost=float("nan"))
    np.testing.assert_array_equal(fraud_cost_matrix([5.0], admin_cost=2.0), [[2.0, 5.0, 2.0, 0.0]])


# ------------------------------------------------------------------ labels of y_pred
@pytest.mark.parametrize("labels", [(-1, 1), (1, 2), ("no", "yes"), (False, True)])
def test_savings_accepts_predictions_in_y_trues_own_labels(credit, labels):
    X, y, C = credit
    lab = np.asarray(labels, dtype=object if isinstance(labels[0], str) else None)
    yl = lab[y]
    tree = CostSensitiveDecisionTreeClassifier(max_depth=3, pos_label=lab[1]).fit(X, yl, cost_matrix=C)
    pred = tree.predict(X)
    assert set(np.unique(pred)) <= set(labels)
    decisions = (pred == lab[1]).astype(int)  # pos_label: the larger label is the positive class
    want = savings_score(y, decisions, cost_matrix=C)
    pos = dict(pos_label=lab[1])  # the metrics read the positive class from pos_label, as scikit-learn's
    assert savings_score(yl, pred, cost_matrix=C, **pos) == pytest.approx(want)
    assert cost_loss(yl, pred, cost_matrix=C, **pos) == pytest.approx(cost_loss(y, decisions, cost_matrix=C))
    assert savings_score(yl, decisions, cost_matrix=C, **pos) == pytest.approx(want)  # 0/1 decisions still work


def test_predictions_in_foreign_labels_are_an_error():
    with pytest.raises(ValueError, match="neither y_true's classes"):
        savings_score(["no", "yes"], ["a", "b"], fp_cost=1.0, fn_cost=1.0)
    with pytest.raises(ValueError, match="0/1 decisions"):
        savings_score([0, 1], [2, 3], fp_cost=1.0, fn_cost=1.0)


# ------------------------------------------------------------------ X near the float64 limit
@pytest.mark.parametrize("make", [CostSensitiveLogisticRegression, CostSensitiveLogisticRegressionCV,
                                  BayesMinimumRiskClassifier, ThresholdingOptimization])
def test_huge_finite_x_says_overflow_not_nan(make):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(120, 3))
    X[:, 1] *= 1e308
    y = (rng.random(120) < 0.4).astype(int)
    est = make(lambdas=3) if make is CostSensitiveLogisticRegressionCV else make()
    with pytest.raises(ValueError, match="X column 1 is too large to standardise.*rescale"):
        est.fit(X, y, fp_cost=1.0, fn_cost=3.0)
    X[:, 1] /= 1e300  # the advice works
    assert est.fit(X, y, fp_cost=1.0, fn_cost=3.0).predict(X).shape == (120,)
