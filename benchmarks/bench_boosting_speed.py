"""Benchmark 3 (issues 3, 18): cost of the plugin, seconds per boosting round of the AEC objective
against the built-in logistic objective, same parameters, same data, both libraries.

Data: ``--rows`` x 30 float32 features (default 1M), labels from a logistic model
(about 12 % positives), card-fraud costs C_FP = C_TP = 10, C_FN = amount.
The goal of issue 18 is a ratio of at most 1.10 per round at 1M and 10M rows, best of 3.
A first table times the objective's own work per round at the same size: the numpy
gradient/hessian the library used before issue 18 (float64 temporaries, then the
library's float32 copy) against the fused kernel writing float32 into reused arrays
(xgboost's float32 and lightgbm's float64 margins, all threads and one).
Per library the second table adds the logistic loss through the same custom-objective path and
the same kernel (``logloss_weight=1`` with zero regret: g = s - y, h = s(1-s)), which grows the
built-in objective's own trees (checked: same first trees). Its ratio is the price of the library's
``obj=`` path itself (margin fetch, our kernel, hand-over); AEC minus it is what the AEC's own trees
change (they split money, not rows: a few percent more rows in the histograms' smaller children).
Then the seconds per round spent inside each objective; for xgboost the round is split into
xgboost's own three steps of ``Booster.update(fobj=...)``: the margin fetch
(``predict(output_margin=True, training=True)``, a copy), our objective, and ``boost`` (the
gradient hand-over and the tree). ``boost`` plus the fetch over the built-in's whole round is what
no objective can win back: 1.05-1.11 for the AEC trees at 1M rows (7 quiet runs, RESULTS.md). The three boosters of a library
train side by side, one round each in turn (see ``_run``): this VM's speed drifts by 10-30 % over
seconds, which made variants timed one after the other differ by that much between runs.

    python benchmarks/bench_boosting_speed.py --rows 1000000 --rounds 20 --repeats 3 --threads 2
"""

from __future__ import annotations

import argparse
import os
import re
import time
import warnings

import lightgbm as lgb
import numba
import numpy as np
import xgboost as xgb
from scipy.special import expit

from csboost_plugins.boosting import _aec
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
        self.obj = obj
        self.reset()

    def reset(self):
        # fetch / boost: the margin copy out of the library and the library's own round after the objective
        self.seconds, self.calls, self.fetch, self.boost = 0.0, 0, 0.0, 0.0

    def __call__(self, *args):
        t0 = time.perf_counter()
        out = self.obj(*args)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return out


def logistic_objective(y):
    """The logistic loss through the library's custom-objective path and the AEC kernel: g = s - y,
    h = s (1 - s) (``logloss_weight=1`` with zero regret), i.e. the built-in objective's gradients."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    zero, buf = np.zeros_like(y), _aec.GradHessBuffers()

    def obj(preds, _data):
        m = np.asarray(preds).reshape(-1)
        return _aec.aec_grad_hess(m, zero, y=y, logloss_weight=1.0, out=buf.get(m.shape[0]))

    return obj


def _run(variants, rounds):
    """{name: (s / round, s / round inside the objective)}.

    ``variants`` are (name, make_booster, step, objective). The boosters train side by side, one round
    each in turn with the order rotating every round, so a change of machine speed during the run (this
    VM's speed drifts by 10-30 % over seconds) hits every variant alike; each booster's first round
    (bins, caches) is not timed. ``step(booster, i, objective)`` is what the library's train loop does
    in round i.
    """
    state = []
    for name, make, step, obj in variants:
        timed = None if obj is None else Timed(obj)
        bst = make()
        step(bst, 0, timed)
        if timed is not None:
            timed.reset()
        state.append({"name": name, "bst": bst, "step": step, "obj": timed, "s": 0.0})
    for i in range(1, rounds + 1):
        for j in range(len(state)):
            v = state[(i + j) % len(state)]
            t0 = time.perf_counter()
            v["step"](v["bst"], i, v["obj"])
            v["s"] += time.perf_counter() - t0
    nan = float("nan")
    return {v["name"]: (v["s"] / rounds, nan if v["obj"] is None else v["obj"].seconds / max(v["obj"].calls, 1),
                        nan if v["obj"] is None or not v["obj"].boost else v["obj"].fetch / rounds,
                        nan if v["obj"] is None or not v["obj"].boost else v["obj"].boost / rounds)
            for v in state}


def time_xgb(X, y, amount, rounds, threads, depth):
    d = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0, nthread=threads)
    base = {"tree_method": "hist", "max_depth": depth, "eta": 0.1, "nthread": threads, "max_bin": 256}
    aec = cxgb.aec_params(d, {**base, "base_score": 0.0})
    obj = cxgb.aec_objective()
    builtin = {**base, "objective": "binary:logistic", "base_score": 0.5, "disable_default_eval_metric": 1}
    logistic = {**base, "base_score": 0.0, "disable_default_eval_metric": 1}  # margin 0 = probability 0.5
    def splits(b):  # the trees without their leaf values (float32 built-in vs float64 kernel arithmetic)
        return [re.sub(r"leaf=[^\n]*", "", t) for t in b.get_dump()]

    same = splits(xgb.train(builtin, d, 3)) == splits(xgb.train(logistic, d, 3, obj=logistic_objective(y)))
    def booster(params):
        return lambda: xgb.Booster(params, [d])

    def step(bst, i, o):  # one round of xgb.train: Booster.update(d, i, fobj=o), its three phases timed apart
        if o is None:
            bst.update(d, i)
            return
        t0 = time.perf_counter()
        margin = bst.predict(d, output_margin=True, training=True)
        t1 = time.perf_counter()
        grad, hess = o(margin, d)
        t2 = time.perf_counter()
        bst.boost(d, i, grad=grad, hess=hess)
        o.fetch += t1 - t0
        o.boost += time.perf_counter() - t2

    return _run((
        ("built-in binary:logistic", booster(builtin), step, None),
        ("AEC objective", booster(aec), step, obj),
        (f"logistic through obj= and the kernel (same trees: {same})", booster(logistic), step,
         logistic_objective(y)),
    ), rounds)


def time_lgb(X, y, amount, rounds, threads, leaves):
    base = {"num_leaves": leaves, "learning_rate": 0.1, "num_threads": threads, "verbose": -1, "max_bin": 255,
            "force_row_wise": True}
    d_plain = lgb.Dataset(X, label=y, params={"max_bin": 255, "verbose": -1}, free_raw_data=False).construct()
    d_cost = clgb.cost_dataset(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0,
                               params={"max_bin": 255, "verbose": -1}).construct()
    # the built-in objective boosts from the average: the same start margin for the logistic one
    p1 = np.average(y)
    d_logit = lgb.Dataset(X, label=y, init_score=np.full(len(y), np.log(p1 / (1 - p1))),
                          params={"max_bin": 255, "verbose": -1}, free_raw_data=False).construct()
    obj = clgb.aec_objective()
    builtin = {**base, "objective": "binary", "metric": "None"}

    def walk(node):
        if "leaf_index" in node or "leaf_value" in node:
            return []
        return [(node["split_feature"], node["threshold"])] + walk(node["left_child"]) + walk(node["right_child"])

    def splits(b):
        return [walk(t["tree_structure"]) for t in b.dump_model()["tree_info"]]

    same = (splits(lgb.train(builtin, d_plain, 3))
            == splits(lgb.train({**base, "objective": logistic_objective(y)}, d_logit, 3)))
    def booster(params, data):
        return lambda: lgb.Booster(params=params, train_set=data)

    def step(bst, _i, o):  # one round of lgb.train (a callable objective: params "objective": "none")
        bst.update(fobj=o)

    custom = {**base, "objective": "none"}
    return _run((
        ("built-in binary", booster(builtin, d_plain), step, None),
        ("AEC objective", booster(custom, d_cost), step, obj),
        (f"logistic through objective= and the kernel (same trees: {same})", booster(custom, d_logit), step,
         logistic_objective(y)),
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
    print("\n| library | objective | s / round | ratio vs built-in | s / round inside the objective "
          "| xgboost: margin fetch s / round | xgboost: boost after the objective, s / round (ratio vs built-in round) |")
    print("|---|---|---|---|---|---|---|")
    for lib, fn, kw in (("xgboost (hist, depth 6)", time_xgb, {"depth": 6}),
                        ("lightgbm (31 leaves)", time_lgb, {"leaves": 31})):
        runs = [fn(X, y, amount, a.rounds, a.threads, **kw) for _ in range(a.repeats)]
        names = list(runs[0])
        best = {k: min(r[k][0] for r in runs) for k in names}
        inside = {k: min(r[k][1] for r in runs) for k in names}
        fetch = {k: min(r[k][2] for r in runs) for k in names}
        boost = {k: min(r[k][3] for r in runs) for k in names}
        for k in names:
            b = "" if np.isnan(boost[k]) else f"{boost[k]:.4f} ({boost[k] / best[names[0]]:.3f})"
            f = "" if np.isnan(fetch[k]) else f"{fetch[k]:.4f}"
            print(f"| {lib} | {k} | {best[k]:.4f} | {best[k] / best[names[0]]:.3f} | {inside[k]:.4f} | {f} | {b} |")
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
