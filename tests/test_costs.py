import warnings

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.costs import (
    CostWarning,
    check_binary_labels,
    check_costs,
    check_fit_costs,
    churn_cost_matrix,
    cost_characteristic,
    credit_scoring_cost_matrix,
    direct_marketing_cost_matrix,
    fraud_cost_matrix,
)


def test_scalars_arrays_series_lists_broadcast_to_n_by_4():
    fp = pd.Series([1.0, 2.0, 3.0])
    c = check_costs(3, fp_cost=fp, fn_cost=[10, 20, 30], tp_cost=0.5, tn_cost=np.zeros(3))
    assert c.shape == (3, 4) and c.dtype == np.float64
    np.testing.assert_array_equal(c[:, 0], [1, 2, 3])
    np.testing.assert_array_equal(c[:, 1], [10, 20, 30])
    np.testing.assert_array_equal(c[:, 2], 0.5)
    # n inferred from the first array
    assert check_costs(fp_cost=[1, 2], fn_cost=5).shape == (2, 4)


def test_cost_matrix_form_equals_keywords():
    rng = np.random.default_rng(0)
    cm = rng.uniform(1, 5, (6, 4))
    cm[:, 2:] = 0
    a = check_costs(6, cost_matrix=cm)
    b = check_costs(6, fp_cost=cm[:, 0], fn_cost=cm[:, 1])
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        (dict(fp_cost=[1, 2], fn_cost=[1, 2, 3]), ValueError, "fp_cost has length 2 but there are 3 rows"),
        (dict(fp_cost=[1, np.nan, 2], fn_cost=1.0), ValueError, "fp_cost contains 1 NaN"),
        (dict(fp_cost=1.0, fn_cost=[1, np.inf, 2]), ValueError, "fn_cost contains 1 infinite"),
        (dict(fp_cost=1.0, fn_cost=1.0, tn_cost=np.inf), ValueError, "tn_cost must be finite"),
        (dict(fp_cost=1.0), TypeError, "missing costs: fn_cost"),
        (dict(fp_cost=["a", "b", "c"], fn_cost=1.0), TypeError, "fp_cost must be numeric"),
        (dict(fp_cost=np.ones((3, 2)), fn_cost=1.0), ValueError, "fp_cost must be a scalar or 1-D"),
        (dict(cost_matrix=np.ones((3, 3))), ValueError, r"cost_matrix must have shape \(n, 4\)"),
        (dict(cost_matrix=np.ones((2, 4))), ValueError, "cost_matrix has 2 rows but there are 3"),
        (dict(cost_matrix=np.ones((3, 4)), fp_cost=1.0), ValueError, "not both"),
    ],
)
def test_bad_costs_raise_clear_errors(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        check_costs(3, **kwargs)


def test_nan_in_cost_matrix():
    cm = np.ones((3, 4))
    cm[1, 1] = np.nan
    with pytest.raises(ValueError, match="cost_matrix contains 1 NaN"):
        check_costs(3, cost_matrix=cm)


def test_reasonableness_warning_counts_rows_and_negative_costs_allowed():
    # one-sided rows (a wrong decision cheaper than the right one for one class only) are sound:
    # no warning, the counts come from cost_characteristic
    kw = dict(fp_cost=[1, -2, -1, 5], fn_cost=[5, 5, 5, 0.5], tp_cost=1.0, tn_cost=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_costs(4, **kw)
    cc = cost_characteristic(**kw)
    assert (cc.n_fp_below_tn, cc.n_fn_below_tp, cc.n_inverted) == (2, 1, 0)
    # a row where both wrong decisions are cheaper than both right ones warns, with its count
    with pytest.warns(CostWarning, match="1 of 4 row\\(s\\) make both wrong decisions cheaper"):
        check_costs(4, fp_cost=[1, -2, -1, 5], fn_cost=[5, 5, 5, 0.5], tp_cost=1.0, tn_cost=[0, 0, 0, 6])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # equality is indifference, not a violation
        check_costs(2, fp_cost=[0.0, 1.0], fn_cost=[1.0, 1.0], tp_cost=1.0, tn_cost=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = check_costs(2, fp_cost=[1, 2], fn_cost=[3, 4], tp_cost=-10.0, tn_cost=-1.0)  # benefits
    assert c[0, 2] == -10


def test_labels_binary_mapping_and_errors():
    np.testing.assert_array_equal(check_binary_labels([0, 1, 1]), [0, 1, 1])
    np.testing.assert_array_equal(check_binary_labels([-1, 1, -1]), [0, 1, 0])
    np.testing.assert_array_equal(check_binary_labels(["no", "yes", "no"]), [0, 1, 0])
    np.testing.assert_array_equal(check_binary_labels(pd.Series([True, False])), [1, 0])
    with pytest.raises(ValueError, match="must be binary; found 3 classes"):
        check_binary_labels([0, 1, 2])
    with pytest.raises(ValueError, match="only one class"):
        check_binary_labels([1, 1, 1])
    with pytest.raises(ValueError, match="is empty"):
        check_binary_labels([])
    with pytest.raises(ValueError, match="NaN labels"):
        check_binary_labels([0.0, np.nan, 1.0])
    # a single class is allowed where the caller says so, and keeps its meaning
    np.testing.assert_array_equal(check_binary_labels([1, 1], require_both=False), [1, 1])


def test_fraud_and_marketing_builders():
    cm = fraud_cost_matrix([5.0, 100.0], admin_cost=10)
    np.testing.assert_array_equal(cm, [[10, 5, 10, 0], [10, 100, 10, 0]])
    cm = direct_marketing_cost_matrix([10.0, 10000.0])
    np.testing.assert_allclose(cm[:, 1], [1.0, 10000 * 0.25 * 0.02463333])
    np.testing.assert_array_equal(cm[:, [0, 2, 3]], [[1, 1, 0], [1, 1, 0]])


def test_churn_builder_formula():
    cm = churn_cost_matrix([100.0, 1000.0], gamma=0.3, offer_cost=20.0, admin_cost=5.0)
    np.testing.assert_allclose(cm[:, 0], 25.0)
    np.testing.assert_allclose(cm[:, 1], [100, 1000])
    np.testing.assert_allclose(cm[:, 2], 0.3 * 20 + 0.7 * (np.array([100, 1000]) + 5))


def test_credit_scoring_builder_hand_computed_row():
    # one row computed by hand from the Correa Bahnsen formulas
    r, rcf, n, k, clmax, lgd = 0.05 / 12, 0.02 / 12, 12, 2.0, 10_000.0, 0.5
    inc = np.array([1000.0, 8000.0])
    debt = np.array([0.9, 0.1])
    cm = credit_scoring_cost_matrix(inc, debt, interest_rate=r, cost_of_funds=rcf, term=n, income_multiple=k,
                                    max_credit_line=clmax, loss_given_default=lgd, positive_rate=0.2)

    def A(cl, q):
        return cl * q / (1 - (1 + q) ** -n)

    def PV(a, q):
        return a * (1 - (1 + q) ** -n) / q

    cl = [min(k * i, clmax, PV(i * min(A(k * i, r) / i, 1 - d), r)) for i, d in zip(inc, debt)]
    cl = np.array(cl)
    assert cl[0] < k * inc[0]  # the debt constraint binds for the first row
    assert cl[1] == clmax
    np.testing.assert_allclose(cm[:, 1], lgd * cl)
    cbar = cl.mean()
    rbar = PV(A(cbar, r), rcf) - cbar
    fp = np.maximum(0, PV(A(cl, r), rcf) - cl - 0.8 * rbar + 0.2 * lgd * cbar)
    np.testing.assert_allclose(cm[:, 0], fp)
    np.testing.assert_array_equal(cm[:, 2:], 0)


def test_cost_characteristic_kinds():
    n = 50
    rng = np.random.default_rng(1)
    ci = cost_characteristic(fp_cost=1.0, fn_cost=1.0, n=n)
    assert ci.kind == "cost-insensitive" and ci.mu_b == 1 and ci.sigma_b == 0
    cd = cost_characteristic(fp_cost=1.0, fn_cost=5.0, n=n)
    assert cd.kind == "class-dependent" and cd.mu_b == pytest.approx(5.0)
    # non-constant matrix that is still cost-insensitive in the paper's sense (C_FP = C_FN = z_i)
    z = rng.uniform(1, 10, n)
    assert cost_characteristic(fp_cost=z, fn_cost=z).kind == "cost-insensitive"
    assert cost_characteristic(fp_cost=z, fn_cost=3 * z).kind == "class-dependent"
    ed = cost_characteristic(fp_cost=1.0, fn_cost=z, tp_cost=0.5)
    b = (z - 0.5) / 1.0
    assert ed.kind == "example-dependent"
    assert ed.mu_b == pytest.approx(b.mean()) and ed.sigma_b == pytest.approx(b.std())


def test_cost_characteristic_rows_with_fp_equal_tn():
    # b_i = (C_FN - C_TP) / (C_FP - C_TN) is undefined where C_FP == C_TN: counted, left out of mu_b / sigma_b
    z = np.random.default_rng(2).uniform(1, 10, 40)
    fp = np.where(np.arange(40) % 4 == 0, 0.0, 2.0)  # 10 rows with C_FP == C_TN == 0
    cc = cost_characteristic(fp_cost=fp, fn_cost=z)
    b = z[fp != 0] / 2.0
    assert cc.n_b_undefined == 10 and cc.kind == "example-dependent"
    assert cc.mu_b == pytest.approx(b.mean()) and cc.sigma_b == pytest.approx(b.std())
    assert cost_characteristic(fp_cost=fp, fn_cost=3.0).kind == "class-dependent"  # b = 1.5 on every defined row
    assert cost_characteristic(fp_cost=1.0, fn_cost=z).n_b_undefined == 0
    with pytest.raises(ValueError, match="C_FP == C_TN .*on all 40 rows"):
        cost_characteristic(fp_cost=0.5, tn_cost=0.5, fn_cost=z)


def test_check_fit_costs_unit_without_costs_else_check_costs():
    np.testing.assert_array_equal(check_fit_costs(3), np.tile([1.0, 1.0, 0.0, 0.0], (3, 1)))
    np.testing.assert_array_equal(check_fit_costs(2, tp_cost=0.5)[:, 2], 0.5)
    fn = np.array([5.0, 7.0])
    np.testing.assert_array_equal(check_fit_costs(2, fp_cost=1.0, fn_cost=fn),
                                  check_costs(2, fp_cost=1.0, fn_cost=fn))
    with pytest.raises(TypeError, match="fn_cost"):
        check_fit_costs(2, fp_cost=1.0)  # one of the two is not "no costs"
    with pytest.raises(ValueError, match="length 2 but there are 3"):
        check_fit_costs(3, fp_cost=1.0, fn_cost=fn)
