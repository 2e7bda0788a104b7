"""The fused AEC kernels (csboost_plugins.boosting._aec_kernels) against the numpy code they replace.

The numpy gradient/hessian and money metrics below are the library's implementation
before the kernels (kept here as the reference): float64 outputs must equal them bit
for bit, float32 outputs (what xgboost and lightgbm are handed) within 1 float32 ulp of
their float64 values rounded to float32; the AOT extension must equal the JIT.
"""

import math
import pickle
import threading

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from _aot_paths import on_both_paths
from scipy.special import expit

from csboost_plugins.boosting import _aec, _aec_kernels
from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.costs import FN, FP, TN, TP

_BOUND = 1.0 / (6.0 * np.sqrt(3.0))


def numpy_grad_hess(margin, d, *, y=None, sample_weight=None, hessian="abs", hessian_floor=0.1,
                    logloss_weight=0.0):
    """The numpy aec_grad_hess the kernel replaced, verbatim."""
    m = np.asarray(margin, dtype=np.float64)
    s = expit(m)
    ss = s * expit(-m)
    g = d * ss
    if hessian == "fisher":
        h = np.abs(d) * ss
    elif hessian == "abs":
        h = np.abs(d) * ss * np.maximum(np.abs(1.0 - 2.0 * s), hessian_floor)
    elif hessian == "bound":
        h = np.abs(d) * _BOUND
    else:
        h = g * (1.0 - 2.0 * s)
    if logloss_weight:
        g = g + logloss_weight * (s - y)
        h = h + logloss_weight * ss
    if sample_weight is not None:
        g = g * sample_weight
        h = h * sample_weight
    return g, h


def numpy_money_metric(kind, s, y, costs, w=None, decision="bmr"):
    """The numpy money_metric_value the kernel replaced (probabilities s)."""
    c0 = np.where(y == 1, costs[:, FN], costs[:, TN])
    c1 = np.where(y == 1, costs[:, TP], costs[:, FP])
    tot = (lambda v: float(v.sum())) if w is None else (lambda v: float(v @ w))
    if kind == "aec":
        return tot(c0 + (c1 - c0) * s) / (y.shape[0] if w is None else float(w.sum()))
    base = min(tot(c0), tot(c1))
    if kind == "expected_savings":
        return (base - tot(c0 + (c1 - c0) * s)) / base
    if decision == "bmr":
        pred = s * costs[:, TP] + (1 - s) * costs[:, FP] < s * costs[:, FN] + (1 - s) * costs[:, TN]
    else:
        pred = s > 0.5
    return (base - tot(np.where(pred, c1, c0))) / base


_EXTREMES = np.array([0.0, -0.0, 1e-300, -1e-300, 1e-8, -1e-8, 0.5, -0.5, 18.0, -18.0, 36.7, -36.7, 37.5, -37.5,
                      88.7, -88.7, 103.9, -103.9, 700.0, -700.0, 709.8, -709.8, 745.2, -745.2, 800.0, -800.0,
                      3.4e38, -3.4e38, np.inf, -np.inf, np.nan,
                      # edges of the float32 kernel: libm's exp below |m| = 2^-9, exp clamped beyond 708 / 709,
                      # libm's overflow at 709.7827
                      2.0 ** -9, -(2.0 ** -9), np.nextafter(2.0 ** -9, 0), -np.nextafter(2.0 ** -9, 0),
                      708.0, -708.0, 708.5, -708.5, 709.0, -709.0, 709.5, -709.5, 709.7827, -709.7827,
                      709.7828, -709.7828])


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    scale = rng.choice([1e-6, 0.3, 1.0, 4.0, 20.0, 60.0, 400.0], n)
    m = rng.standard_normal(n) * scale
    m[: _EXTREMES.size] = _EXTREMES
    d = rng.standard_normal(n) * rng.choice([1e-3, 1.0, 50.0], n)
    d[rng.uniform(size=n) < 0.05] = 0.0
    y = (rng.uniform(size=n) < 0.3).astype(np.float64)
    w = rng.uniform(0, 3, n)
    w[rng.uniform(size=n) < 0.05] = 0.0
    return m, d, y, w


def _f32_within_1ulp(a, ref64):
    """a (float32) is within 1 float32 ulp of ref64 rounded to float32 (NaN where ref is NaN)."""
    r = ref64.astype(np.float32)
    nan = np.isnan(r)
    assert np.array_equal(np.isnan(a), nan)
    a, r = a[~nan], r[~nan]
    ulp = np.spacing(np.maximum(np.abs(a), np.abs(r)))
    bad = ~((a == r) | (np.abs(a.astype(np.float64) - r) <= ulp))
    assert not bad.any(), (a[bad][:5], r[bad][:5])
    return int(np.sum(a != r))


CASES = [(hs, floor, alpha, weighted) for hs in _aec.HESSIANS for floor in (0.0, 0.1) for alpha in (0.0, 0.4)
         for weighted in (False, True) if floor == 0.1 or hs == "abs"]


@pytest.mark.parametrize("hessian,floor,alpha,weighted", CASES)
@pytest.mark.parametrize("mdtype", [np.float64, np.float32])
def test_grad_hess_equals_numpy(hessian, floor, alpha, weighted, mdtype):
    for seed in range(3):
        m, d, y, w = _inputs(30000 if seed else 120000, seed)  # 120k rows: several thread blocks
        m = m.astype(mdtype)
        w = w if weighted else None
        kw = dict(y=y, sample_weight=w, hessian=hessian, hessian_floor=floor, logloss_weight=alpha)
        with np.errstate(all="ignore"):
            gr, hr = numpy_grad_hess(m, d, **kw)
        g, h = _aec.aec_grad_hess(m, d, **kw)  # float64 outputs: bit for bit
        assert g.dtype == h.dtype == np.float64
        np.testing.assert_array_equal(g, gr)
        np.testing.assert_array_equal(h, hr)
        g32, h32 = _aec.aec_grad_hess(m, d, out=_aec.GradHessBuffers().get(m.shape[0]), **kw)
        assert g32.dtype == h32.dtype == np.float32
        _f32_within_1ulp(g32, gr)
        _f32_within_1ulp(h32, hr)


def test_float32_path_rounds_like_the_numpy_arrays_on_realistic_margins():
    # margins a booster produces (|m| < 20): the one-exp float32 path matched numpy exactly on every row
    rng = np.random.default_rng(5)
    m = (rng.standard_normal(400000) * 4).astype(np.float32)
    d = rng.standard_normal(400000)
    gr, hr = numpy_grad_hess(m, d)
    g, h = _aec.aec_grad_hess(m, d, out=_aec.GradHessBuffers().get(m.shape[0]))
    assert _f32_within_1ulp(g, gr) + _f32_within_1ulp(h, hr) <= 2


@pytest.mark.parametrize("hessian,floor", [("exact", 0.1), ("abs", 0.0), ("abs", 0.003)])
@pytest.mark.parametrize("mdtype", [np.float64, np.float32])
def test_float32_path_near_the_decision_boundary(hessian, floor, mdtype):
    # 1 - 2s cancels near m = 0: without libm's exp there (as in expit) the float32 hessian drifts by many ulps
    m = np.concatenate([np.linspace(-0.02, 0.02, 200001), np.geomspace(1e-12, 0.02, 20000)]).astype(mdtype)
    m = np.concatenate([m, -m])
    d = np.random.default_rng(4).standard_normal(m.shape[0])
    kw = dict(hessian=hessian, hessian_floor=floor)
    gr, hr = numpy_grad_hess(m, d, **kw)
    g, h = _aec.aec_grad_hess(m, d, out=_aec.GradHessBuffers().get(m.shape[0]), **kw)
    _f32_within_1ulp(g, gr)
    _f32_within_1ulp(h, hr)


def test_aot_extension_is_built_and_current():
    mod = _aec_kernels.KERNELS.module()
    assert mod is not None, ("csboost_plugins.boosting._aec_kernels_aot is missing or stale: run "
                             "`python setup.py build_ext --inplace`")
    assert mod.releases_gil() and set(_aec_kernels.SIGNATURES) <= set(dir(mod))


def test_extension_for_a_cpu_this_host_lacks_is_not_loaded():
    from csboost_plugins._aot import KernelSet, PerformanceWarning

    ks = _aec_kernels.KERNELS
    assert ks.target_cpu in ("x86-64-v3", "") and ks.missing_cpu_features() == []  # this host runs it
    other = KernelSet(ks.extension, ks.declared_in, ks.signatures, target_cpu="x86-64-v9",
                      cpu_features=("avx2", "no-such-feature"))
    with pytest.warns(PerformanceWarning, match="targets x86-64-v9 and this CPU lacks no-such-feature"):
        assert other.module() is None
    m, d = np.zeros(10), np.ones(10)
    g, h = np.empty(10, np.float32), np.empty(10, np.float32)
    other.run("grad_hess_m8_o4", _aec_kernels._grad_hess32_range, m, d, _aec_kernels._EMPTY, _aec_kernels._EMPTY,
              0, 0.1, 0.0, g, h, 0, 10)
    assert other.calls == {"aot": 0, "jit": 1} and np.all(g == np.float32(0.25))


def test_aot_equals_jit(monkeypatch):
    m, d, y, w = _inputs(80000, 7)
    costs = np.abs(np.random.default_rng(8).standard_normal((m.shape[0], 4))) * 10

    def run():
        out = []
        for mm in (m, m.astype(np.float32)):
            for dt in (np.float64, np.float32):
                for hs in _aec.HESSIANS:
                    buf = (np.empty(m.shape[0], dt), np.empty(m.shape[0], dt))
                    with np.errstate(all="ignore"):
                        out.append(_aec.aec_grad_hess(mm, d, y=y, sample_weight=w, hessian=hs, logloss_weight=0.2,
                                                      out=buf))
            out.append(_aec_kernels.money_sums(mm, True, y, costs, w))
        return out

    res = on_both_paths(monkeypatch, run, calls=_aec_kernels.KERNELS.calls)
    (ra, ca), (rj, cj) = res["aot"], res["jit"]
    assert ca["jit"] == 0 and ca["aot"] >= 34, ca
    assert cj["aot"] == 0 and cj["jit"] >= 34, cj
    for a, j in zip(ra, rj):
        if isinstance(a, dict):
            np.testing.assert_equal(a, j)  # NaN margin row: NaN sums on both paths
        else:
            np.testing.assert_array_equal(a[0], j[0])
            np.testing.assert_array_equal(a[1], j[1])


@pytest.mark.parametrize("kind", ["aec", "expected_savings", "savings"])
@pytest.mark.parametrize("decision", ["bmr", "0.5"])
@pytest.mark.parametrize("weighted", [False, True])
def test_money_metrics_equal_numpy(kind, decision, weighted):
    rng = np.random.default_rng(3)
    n = 90000
    y = (rng.uniform(size=n) < 0.2).astype(np.float64)
    costs = np.column_stack([np.full(n, 5.0), rng.lognormal(3, 1, n), np.full(n, 5.0), np.zeros(n)])
    w = rng.uniform(0, 2, n) if weighted else None
    m = rng.standard_normal(n) * 3
    m[:8] = [0.0, -0.0, 40, -40, 800, -800, np.inf, -np.inf]
    for p, is_margin in ((m, True), (m.astype(np.float32), True), (expit(m), False)):
        s = expit(np.asarray(p, np.float64)) if is_margin else p
        got = _aec.money_metric_value(kind, p, y, costs, w, decision, is_margin=is_margin)
        assert got == pytest.approx(numpy_money_metric(kind, s, y, costs, w, decision), rel=1e-11, abs=1e-12)


def test_buffers_are_reused_per_thread_and_pickle_empty():
    buf = _aec.GradHessBuffers()
    g, h = buf.get(1000)
    assert buf.get(1000)[0] is g and buf.get(999)[0] is not g
    other = []
    t = threading.Thread(target=lambda: other.append(buf.get(999)[0]))
    t.start()
    t.join()
    assert other[0] is not buf.get(999)[0]  # one pair per thread: two boosters may train at once
    clone = pickle.loads(pickle.dumps(buf))
    assert clone.dtype == np.float32 and getattr(clone._local, "pair", None) is None


def _fraud(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6)).astype(np.float32)
    y = (rng.uniform(size=n) < expit(X[:, 0] * 1.5 - 2.5)).astype(np.float64)
    amount = rng.lognormal(3.5, 1.2, n)
    return X, y, amount


class _NumpyObjective:
    """The pre-kernel objective path: float64 margins, numpy gradients, float64 arrays handed to the library."""

    def __init__(self, y, d, w, **kw):
        self.y, self.d, self.w, self.kw = y, d, w, kw

    def grad_hess(self, preds):
        return numpy_grad_hess(np.asarray(preds, dtype=np.float64).reshape(-1), self.d, y=self.y,
                               sample_weight=self.w, **self.kw)


@pytest.mark.parametrize("kw", [{}, {"hessian": "fisher", "logloss_weight": 0.3}, {"hessian": "bound"}])
def test_boosters_train_the_same_models_as_with_the_numpy_objective(kw):
    X, y, amount = _fraud(6000, 1)
    w = np.random.default_rng(2).uniform(0.5, 2, y.shape[0]).astype(np.float32).astype(np.float64)  # as stored
    d = _aec.regret_difference(y, np.column_stack([np.full_like(amount, 10.0), amount, np.full_like(amount, 10.0),
                                                   np.zeros_like(amount)]))
    ref = _NumpyObjective(y, d / _aec.cost_scale(d, w), w, **kw)

    dm = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0, weight=w)
    params = {"tree_method": "hist", "max_depth": 4, "eta": 0.3, "nthread": 1, "base_score": 0.0,
              "disable_default_eval_metric": 1}
    b_new = xgb.train(params, dm, 8, obj=cxgb.aec_objective(**kw))
    b_ref = xgb.train(params, dm, 8, obj=lambda p, _: ref.grad_hess(p))
    np.testing.assert_array_equal(b_new.predict(dm, output_margin=True), b_ref.predict(dm, output_margin=True))

    ds = clgb.cost_dataset(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0, weight=w, start_margin=None,
                           params={"verbose": -1})
    lp = {"num_leaves": 15, "learning_rate": 0.3, "num_threads": 1, "verbose": -1, "deterministic": True}
    l_new = lgb.train({**lp, "objective": clgb.aec_objective(**kw)}, ds, 8)
    l_ref = lgb.train({**lp, "objective": lambda p, _: ref.grad_hess(p)}, ds, 8)
    np.testing.assert_array_equal(l_new.predict(X, raw_score=True), l_ref.predict(X, raw_score=True))


@pytest.mark.parametrize("lib", ["xgboost", "lightgbm"])
def test_money_metrics_share_one_pass_and_follow_reattached_costs(lib):
    X, y, amount = _fraud(4000, 3)
    m = np.random.default_rng(0).standard_normal(y.shape[0]).astype(np.float32) - 1.0
    s = expit(m.astype(np.float64))
    plug = cxgb if lib == "xgboost" else clgb
    if lib == "xgboost":
        data = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount)
    else:
        data = clgb.cost_dataset(X, y, fp_cost=10.0, fn_cost=amount, params={"verbose": -1}).construct()
    for fp in (10.0, 25.0):  # re-attached costs: the metrics must not reuse what they read from the old ones
        if fp != 10.0:
            plug.attach_costs(data, fp_cost=fp, fn_cost=amount)
        costs = np.column_stack([np.full_like(amount, fp), amount, np.zeros_like(amount), np.zeros_like(amount)])
        got = {r[0]: r[1] for r in plug.money_metrics()(m, data)}
        want = {k: numpy_money_metric(k, s, y, costs, decision="0.5") for k in ("aec", "expected_savings", "savings")}
        assert got == pytest.approx(want, rel=1e-10)
        for k in want:  # the one-pass MoneyMetrics equals each metric on its own
            assert plug.money_metric(k)(m, data)[1] == got[k]


def _sigmoid_of(m):
    """(exp(-m), s, 1-s) from the float32 path's block helpers, block by block."""
    n, b = m.shape[0], _aec_kernels._BLOCK
    p_, sc, s_, t_ = np.empty(b), np.empty(b), np.empty(b), np.empty(b)
    e, s, t = np.empty(n), np.empty(n), np.empty(n)
    for a in range(0, n, b):
        nb = min(b, n - a)
        _aec_kernels._sigmoid_block(m, a, nb, p_, sc, s_, t_)
        s[a:a + nb], t[a:a + nb] = s_[:nb], t_[:nb]
        _aec_kernels._exp_parts(m, a, nb, p_, sc)
        _aec_kernels._two_to_the(sc, nb)
        e[a:a + nb] = p_[:nb] * sc[:nb]
    return e, s, t


def test_polynomial_exp_and_sigmoid_against_libm_and_expit():
    from scipy.special import expit

    # what the kernel's comments promise: exp within 1 float64 ulp of libm's, s within 3 ulp of
    # expit's, and s to the bit for |m| < 1e-5 (where the hessians' 1 - 2s cancels)
    wide = np.concatenate([np.random.default_rng(5).standard_normal(300000) * 8,
                           np.linspace(-700, 700, 100001)])
    e, s, _ = _sigmoid_of(wide)
    ref_e = np.array([math.exp(-x) for x in wide])  # libm itself: numpy's own exp differs between versions
    assert np.max(np.abs(e - ref_e) / np.spacing(ref_e)) <= 1
    assert np.max(np.abs(s - expit(wide)) / np.spacing(expit(wide))) <= 3
    tiny = np.geomspace(1e-300, 1e-5, 200000)
    tiny = np.concatenate([tiny, -tiny, [0.0]])
    _, s, t = _sigmoid_of(tiny)
    np.testing.assert_array_equal(s, expit(tiny))
    assert np.max(np.abs(t - expit(-tiny)) / np.spacing(expit(-tiny))) <= 3
