"""Benchmark 3 (issues 3, 18): cost of the plugin, seconds per boosting round of the AEC objective
against the built-in logistic objective, same parameters, same data, both libraries.

Data: ``--rows`` x 30 float32 features (default 1M), labels from a logistic model
(about 12 % positives), card-fraud costs C_FP = C_TP = 10, C_FN = amount.
The goal of issue 18 is a ratio of at most 1.10 per round at 1M and 10M rows, best of 3.
A first table times the objective's own work per round at the same size: the numpy
gradient/hessian the library used before issue 18 (float64 temporaries, then the
library's float32 copy) against the fused kernel writing float32 into reused arrays
(xgboost's float32 and lightgbm's float64 margins, all threads and one).
Per library the second table adds a "floor" objective returning the same precomputed
float32 arrays every round (the library's custom-objective path without our arithmetic:
margin fetch and hand-over) and the seconds per round spent inside each objective, so
AEC - floor - inside shows what the trees themselves change.

    python benchmarks/bench_boosting_speed.py --rows 1000000 --rounds 20 --repeats 3 --threads 2
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import lightgbm as lgb
import numba
import numpy as np
import xgboost as xgb
from scipy.special import expit

from csboost_plugins import _aec
from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.costs import CostWarning

warnings.filterwarnings("ignore", category=CostWarning)


def make_data(n, p=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p), dtype=np.float32)
    beta = rng.normal(0, 0.6, p)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(X @ beta - 4.5)))).astype(np.float64)
    amount = rng.lognormal(3.5, 1.2, n)
    return X, y, amount


class Timed:
    """An objective that adds up the seconds spent inside it (what the library's round waits for)."""

    def __init__(self, obj):
        self.obj, self.seconds, self.calls = obj, 0.0, 0

    def __call__(self, *args):
        t0 = time.perf_counter()
        out = self.obj(*args)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return out

    def __deepcopy__(self, memo):  # lgb.train deep-copies its params: keep counting here
        return self


def constant_objective(obj, margin, data):
    """The floor of a library's custom-objective path: returns the same precomputed float32 arrays every round
    (the AEC's at the start margin), so a round costs the margin fetch and the hand-over, not our arithmetic."""
    g, h = (a.copy() for a in obj(margin, data))
    return lambda *_: (g, h)


def _run(train, variants, rounds):
    """{name: (s / round, s / round inside the objective)}, each variant trained after a 1-round warm-up."""
    out = {}
    for name, params, obj in variants:
        timed = None if obj is None else Timed(obj)
        train(params, 1, timed)  # warm-up: sketch/bins built once per data set
        if timed is not None:
            timed.seconds, timed.calls = 0.0, 0
        t0 = time.perf_counter()
        train(params, rounds, timed)
        total = (time.perf_counter() - t0) / rounds
        out[name] = (total, float("nan") if timed is None else timed.seconds / max(timed.calls, 1))
    return out


def time_xgb(X, y, amount, rounds, threads, depth):
    d = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0, nthread=threads)
    base = {"tree_method": "hist", "max_depth": depth, "eta": 0.1, "nthread": threads, "max_bin": 256}
    aec = cxgb.aec_params(d, {**base, "base_score": 0.0})
    obj = cxgb.aec_objective()
    m0 = np.full(d.num_row(), aec["base_score"], np.float32)
    return _run(lambda params, n, o: xgb.train(params, d, n, obj=o), (
        ("built-in binary:logistic", {**base, "objective": "binary:logistic", "base_score": 0.5,
                                      "disable_default_eval_metric": 1}, None),
        ("AEC objective", aec, obj),
        ("floor: constant gradients", aec, constant_objective(obj, m0, d)),
    ), rounds)


def time_lgb(X, y, amount, rounds, threads, leaves):
    base = {"num_leaves": leaves, "learning_rate": 0.1, "num_threads": threads, "verbose": -1, "max_bin": 255,
            "force_row_wise": True}
    d_plain = lgb.Dataset(X, label=y, params={"max_bin": 255, "verbose": -1}, free_raw_data=False).construct()
    d_cost = clgb.cost_dataset(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0,
                               params={"max_bin": 255, "verbose": -1}).construct()
    obj = clgb.aec_objective()
    floor = constant_objective(obj, d_cost.get_init_score().astype(np.float64), d_cost)

    def train(params, n, o):
        if o is None:
            return lgb.train(params, d_plain, n)
        return lgb.train({**params, "objective": o}, d_cost, n)

    return _run(train, (
        ("built-in binary", {**base, "objective": "binary", "metric": "None"}, None),
        ("AEC objective", base, obj),
        ("floor: constant gradients", base, floor),
    ), rounds)


def numpy_grad_hess(m, d, floor=0.1):
    """The pre-issue-18 objective ("abs" hessian): float64 temporaries, cast to float32 by the library."""
    m = np.asarray(m, dtype=np.float64)
    s = expit(m)
    ss = s * expit(-m)
    g = d * ss
    h = np.abs(d) * ss * np.maximum(np.abs(1.0 - 2.0 * s), floor)
    return g.astype(np.float32), h.astype(np.float32)


def time_objective(n, repeats, seed=1):
    """Seconds per call of the objective's arithmetic alone: xgboost's float32 and lightgbm's float64 margins,
    the kernel on every thread and on one."""
    rng = np.random.default_rng(seed)
    m = (rng.standard_normal(n) * 3).astype(np.float32)
    d = rng.standard_normal(n)
    buf = _aec.GradHessBuffers()
    threads = numba.get_num_threads()
    m64 = m.astype(np.float64)

    def one_thread(mm):
        numba.set_num_threads(1)
        try:
            return _aec.aec_grad_hess(mm, d, out=buf.get(n))
        finally:
            numba.set_num_threads(threads)

    out = {}
    for name, fn in (("numpy (before issue 18), float32 margins, incl. the cast to float32",
                      lambda: numpy_grad_hess(m, d)),
                     (f"fused kernel, float32 margins (xgboost), {threads} threads",
                      lambda: _aec.aec_grad_hess(m, d, out=buf.get(n))),
                     ("fused kernel, float32 margins, 1 thread", lambda: one_thread(m)),
                     (f"fused kernel, float64 margins (lightgbm), {threads} threads",
                      lambda: _aec.aec_grad_hess(m64, d, out=buf.get(n)))):
        fn()
        ts = []
        for _ in range(max(repeats, 5)):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        out[name] = min(ts)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="best of this many timings")
    a = ap.parse_args(argv)
    X, y, amount = make_data(a.rows)
    print(f"{a.rows} rows x {X.shape[1]} features, positives {y.mean():.3%}, {a.rounds} rounds, "
          f"{a.threads} threads, best of {a.repeats}; load average at start {os.getloadavg()[0]:.2f}")
    obj = time_objective(a.rows, a.repeats)
    print("\n| objective arithmetic per round | s |\n|---|---|")
    for k, v in obj.items():
        print(f"| {k} | {v:.4f} |")
    print("\n| library | objective | s / round | ratio vs built-in | s / round inside the objective |")
    print("|---|---|---|---|---|")
    for lib, fn, kw in (("xgboost (hist, depth 6)", time_xgb, {"depth": 6}),
                        ("lightgbm (31 leaves)", time_lgb, {"leaves": 31})):
        runs = [fn(X, y, amount, a.rounds, a.threads, **kw) for _ in range(a.repeats)]
        names = list(runs[0])
        best = {k: min(r[k][0] for r in runs) for k in names}
        inside = {k: min(r[k][1] for r in runs) for k in names}
        for k in names:
            print(f"| {lib} | {k} | {best[k]:.4f} | {best[k] / best[names[0]]:.3f} | {inside[k]:.4f} |")
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
