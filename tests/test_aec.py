"""Maths of the AEC objective (csboost_plugins.boosting._aec) against independent computations."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from csboost_plugins.boosting import _aec
from csboost_plugins.metrics import (
    bayes_minimum_risk,
    expected_cost_loss,
    expected_savings_score,
    savings_score,
)

MARGINS = np.linspace(-30.0, 30.0, 241)


def _random_costs(rng, n, negative=True):
    """Costs in money, with negative entries (benefits) when ``negative``."""
    lo = -50.0 if negative else 0.0
    return rng.uniform(lo, 200.0, size=(n, 4))


def _grid(seed=0, negative=True):
    rng = np.random.default_rng(seed)
    n = MARGINS.size
    y = rng.integers(0, 2, n).astype(np.float64)
    costs = _random_costs(rng, n, negative)
    return MARGINS.copy(), y, costs


def _ec_reference(m, y, costs):
    """Expected cost written from the paper's eq. 7 with mpmath-free float64 care: independent of _aec."""
    p1 = 1.0 / (1.0 + np.exp(-np.clip(m, -700, 700)))
    q1 = 1.0 / (1.0 + np.exp(np.clip(m, -700, 700)))  # 1 - s without cancellation
    c_pos_pred = np.where(y == 1, costs[:, 2], costs[:, 0])  # cost of predicting 1
    c_neg_pred = np.where(y == 1, costs[:, 1], costs[:, 3])  # cost of predicting 0
    # s c1 + (1-s) c0 = c0 + s (c1 - c0) for m<0, c1 - (1-s)(c1 - c0) for m>=0
    return np.where(m < 0, c_neg_pred + p1 * (c_pos_pred - c_neg_pred), c_pos_pred - q1 * (c_pos_pred - c_neg_pred))


@pytest.fixture(autouse=True)
def _no_float_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            yield


def _fd(f, m, eps):
    return (f(m + eps) - f(m - eps)) / (2 * eps)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("hessian", _aec.HESSIANS)
def test_gradient_matches_finite_differences(seed, hessian):
    m, y, costs = _grid(seed)
    d = _aec.regret_difference(y, costs)
    g, _ = _aec.aec_grad_hess(m, d, hessian=hessian)
    # FD of the model-dependent part, written on whichever of s, 1-s is exact at the centre
    # (EC = c0 + d s = c1 - d (1-s)); the constants c0, c1 drop out of the derivative
    neg = m < 0
    part = lambda t: np.where(neg, d / (1 + np.exp(-t)), -d / (1 + np.exp(t)))  # noqa: E731
    fd = _fd(part, m, 1e-5)
    # relative accuracy per row; absolute floor far below any gradient that matters
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-12 * np.abs(d).max())
    # the reference also agrees with _aec.expected_cost
    np.testing.assert_allclose(_aec.expected_cost(m, y, costs), _ec_reference(m, y, costs), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 3])
def test_exact_hessian_matches_finite_differences(seed):
    m, y, costs = _grid(seed)
    d = _aec.regret_difference(y, costs)
    _, h = _aec.aec_grad_hess(m, d, hessian="exact")
    # derivative of the (FD-checked) gradient, from the paper's form d s (1-s) with stable s(1-s)
    grad = lambda t: d / (np.exp(-np.clip(t, -700, 700) / 2) + np.exp(np.clip(t, -700, 700) / 2)) ** 2  # noqa: E731
    fd = _fd(grad, m, 1e-5)
    np.testing.assert_allclose(h, fd, rtol=1e-4, atol=1e-12 * np.abs(d).max())
    # second central difference of the expected cost itself where it is well conditioned
    inner = np.abs(m) <= 8
    eps = 1e-3
    neg = m < 0
    ec = lambda t: np.where(neg, d / (1 + np.exp(-t)), -d / (1 + np.exp(t)))  # noqa: E731
    fd2 = (ec(m + eps) - 2 * ec(m) + ec(m - eps)) / eps**2
    np.testing.assert_allclose(h[inner], fd2[inner], rtol=1e-3, atol=1e-6 * np.abs(d).max())


def test_exact_hessian_sign_and_zero_at_half():
    d = np.array([5.0, 5.0, 5.0, -7.0, -7.0])  # y=0 rows (C_FP - C_TN > 0) and y=1 rows (C_TP - C_FN < 0)
    m = np.array([0.0, 1.0, -1.0, 1.0, -1.0])
    _, h = _aec.aec_grad_hess(m, d, hessian="exact")
    assert h[0] == 0.0  # s = 1/2
    assert h[1] < 0 < h[2]  # y=0: negative where s > 1/2
    assert h[3] > 0 > h[4]  # y=1: mirrored


@pytest.mark.parametrize("floor", [0.05, 0.1, 0.5])
def test_positive_policies(floor):
    m, y, costs = _grid(4)
    d = _aec.regret_difference(y, costs)
    g, hf = _aec.aec_grad_hess(m, d, hessian="fisher")
    _, ha = _aec.aec_grad_hess(m, d, hessian="abs", hessian_floor=floor)
    _, hb = _aec.aec_grad_hess(m, d, hessian="bound")
    _, he = _aec.aec_grad_hess(m, d, hessian="exact")
    nz = d != 0
    s = 1 / (1 + np.exp(-m))
    # fisher = |d| s (1-s) = |g|: bounded Newton step |g| / h = 1
    np.testing.assert_allclose(hf, np.abs(g), rtol=1e-12)
    # abs = max(|h_exact|, floor |g|), strictly positive while s(1-s) > 0 (|m| < 30 here)
    np.testing.assert_allclose(ha, np.maximum(np.abs(he), floor * np.abs(g)), rtol=1e-12, atol=0)
    assert np.all(ha[nz] > 0) and np.all(hf[nz] > 0)
    # bound majorises the exact curvature everywhere
    assert np.all(hb >= np.abs(he) * (1 - 1e-12))
    np.testing.assert_allclose(hb.max() / np.abs(d).max(), 1 / (6 * np.sqrt(3)), rtol=1e-12)
    # abs with floor 0 is Hoeppner's |(1 - 2s) g|
    _, h0 = _aec.aec_grad_hess(m, d, hessian="abs", hessian_floor=0.0)
    np.testing.assert_allclose(h0, np.abs((1 - 2 * s) * g), rtol=1e-9, atol=1e-300)


def test_logloss_blend_and_weights_finite_differences():
    m, y, costs = _grid(5)
    rng = np.random.default_rng(5)
    d = _aec.regret_difference(y, costs) / 37.0
    w = rng.uniform(0, 3, m.size)
    alpha = 0.3

    def loss(t):
        s_ref = _ec_reference(t, y, costs) / 37.0
        ll = np.logaddexp(0, -t) * y + np.logaddexp(0, t) * (1 - y)  # independent logloss
        return w * (s_ref + alpha * ll)

    g, h = _aec.aec_grad_hess(m, d, y=y, sample_weight=w, hessian="fisher", logloss_weight=alpha)
    np.testing.assert_allclose(g, _fd(loss, m, 1e-5), rtol=1e-5, atol=1e-9)
    g0, h0 = _aec.aec_grad_hess(m, d, hessian="fisher")
    ss = 1 / (2 + np.exp(m) + np.exp(-m))
    np.testing.assert_allclose(h, w * (h0 + alpha * ss), rtol=1e-10)
    np.testing.assert_allclose(_logloss(m, y), np.logaddexp(0, -m) * y + np.logaddexp(0, m) * (1 - y), rtol=1e-12)


def _logloss(margin, y):
    """Per-row logloss from the margin, written as the objective's blend computes it (overflow-free)."""
    return np.where(y == 1, np.logaddexp(0.0, -margin), np.logaddexp(0.0, margin))


def test_extreme_margins_no_warnings():
    m = np.array([-1e6, -745.0, -30.0, 0.0, 30.0, 745.0, 1e6, -np.inf, np.inf])
    d = np.linspace(-3, 3, m.size)
    for hessian in _aec.HESSIANS:
        g, h = _aec.aec_grad_hess(m, d, y=(d < 0).astype(float), hessian=hessian, logloss_weight=0.1)
        assert np.all(np.isfinite(g)) and np.all(np.isfinite(h))
    assert np.all(np.isfinite(_aec.sigmoid(m)))


def test_cost_scale_makes_objective_unit_free():
    m, y, costs = _grid(6, negative=False)
    w = np.random.default_rng(6).uniform(0.5, 2, m.size)
    d = _aec.regret_difference(y, costs)
    scale = _aec.cost_scale(d, w)
    np.testing.assert_allclose(scale, np.sum(w * np.abs(d)) / w.sum(), rtol=1e-13)
    d2 = _aec.regret_difference(y, costs * 1000.0)
    g1, h1 = _aec.aec_grad_hess(m, d / scale, sample_weight=w)
    g2, h2 = _aec.aec_grad_hess(m, d2 / _aec.cost_scale(d2, w), sample_weight=w)
    np.testing.assert_allclose(g1, g2, rtol=1e-10)  # rounding of the two means only
    np.testing.assert_allclose(h1, h2, rtol=1e-10)
    with pytest.raises(ValueError, match="cost scale is 0"):
        _aec.cost_scale(np.zeros(5))


def test_start_margin_is_logloss_optimal_constant():
    rng = np.random.default_rng(7)
    y = (rng.uniform(size=500) < 0.07).astype(float)
    w = rng.uniform(0.1, 2.0, 500)
    m0 = _aec.start_margin(y, w)
    best = minimize_scalar(lambda c: np.sum(w * (np.logaddexp(0, -c) * y + np.logaddexp(0, c) * (1 - y))),
                           bounds=(-10, 10), method="bounded", options={"xatol": 1e-9})
    assert abs(m0 - best.x) < 1e-5
    assert m0 != 0.0
    assert _aec.start_margin(y, kind=0.51) == 0.51
    with pytest.raises(ValueError, match="start_margin"):
        _aec.start_margin(y, kind="zero")


def test_costs_folded_into_weights_give_the_same_gradient():
    m, y, costs = _grid(8)  # negative costs: some rows violate reasonableness, their z flips
    d = _aec.regret_difference(y, costs)
    w = np.random.default_rng(8).uniform(0, 2, m.size)
    z, wz, scale = _aec.encode_costs_as_weights(y, d, w)
    assert np.any(z != y)  # the flip is exercised
    for hessian in _aec.HESSIANS:
        g1, h1 = _aec.aec_grad_hess(m, d / scale, sample_weight=w, hessian=hessian)
        g2, h2 = _aec.aec_grad_hess(m, 1.0 - 2.0 * z, sample_weight=wz, hessian=hessian)
        np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(h1, h2, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("seed", [0, 1])
def test_money_metric_values_match_metrics_module(seed):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.integers(0, 2, n).astype(float)
    costs = rng.uniform(0, 100, size=(n, 4))
    costs[:, 2:] *= 0.1  # reasonable costs (C_TP < C_FN, C_TN < C_FP): no CostWarning
    costs[:, :2] += 10.5
    s = rng.uniform(size=n)
    w = rng.uniform(0, 2, n)
    kw = dict(cost_matrix=costs, sample_weight=w)
    assert _aec.money_metric_value("aec", s, y, costs, w) == pytest.approx(
        expected_cost_loss(y, s, normalize=True, **kw), rel=1e-12)
    assert _aec.money_metric_value("expected_savings", s, y, costs, w) == pytest.approx(
        expected_savings_score(y, s, **kw), rel=1e-12)
    assert _aec.money_metric_value("savings", s, y, costs, w) == pytest.approx(
        savings_score(y, bayes_minimum_risk(s, cost_matrix=costs), **kw), rel=1e-12)
    assert _aec.money_metric_value("savings", s, y, costs, w, decision="0.5") == pytest.approx(
        savings_score(y, (s > 0.5).astype(int), **kw), rel=1e-12)


def test_parameter_validation():
    with pytest.raises(ValueError, match="hessian must be one of"):
        _aec.check_hessian_params("newton", 0.1, 0.0)
    with pytest.raises(ValueError, match="hessian_floor"):
        _aec.check_hessian_params("abs", -0.1, 0.0)
    with pytest.raises(ValueError, match="logloss_weight"):
        _aec.check_hessian_params("abs", 0.1, -1.0)
    with pytest.raises(ValueError, match="metric must be one of"):
        _aec.check_metric_params("auc", "bmr", "margin")
