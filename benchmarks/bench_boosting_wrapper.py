"""Benchmark (issue 12): fit time of the scikit-learn wrappers against the native estimators.

``CSXGBClassifier`` vs ``xgboost.XGBClassifier`` (logloss) and ``CSLGBMClassifier``
vs ``lightgbm.LGBMClassifier`` (logloss), same keywords, same data, whole
``fit`` calls (validation, DMatrix / Dataset construction, boosting, and for the
wrappers the cost checks, the deployable booster). Runs alternate between the
two so machine load hits both alike; the table gives the median of
``--repeats`` fits and the ratio wrapper / native. Goal of the issue: <= 1.25.

Data: ``--rows`` x ``--cols`` float32 features, labels from a logistic model
(about 12 % positives), card-fraud costs C_FP = C_TP = 10, C_FN = amount.

    python benchmarks/bench_boosting_wrapper.py --rows 1000000 --cols 30 --rounds 50 --repeats 3 --threads 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import lightgbm as lgb
import numpy as np
import xgboost as xgb

from bench_boosting_speed import make_data  # same data as benchmark 3 (run from the repo root)
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.xgb import CSXGBClassifier


def pairs(rounds, threads):
    xkw = dict(n_estimators=rounds, max_depth=6, learning_rate=0.1, tree_method="hist", max_bin=256,
               n_jobs=threads, random_state=0)
    lkw = dict(n_estimators=rounds, num_leaves=31, learning_rate=0.1, max_bin=255, n_jobs=threads, random_state=0,
               verbose=-1, force_row_wise=True, deterministic=True)
    return [
        ("xgboost (hist, depth 6)", lambda: xgb.XGBClassifier(objective="binary:logistic", **xkw),
         lambda: CSXGBClassifier(**xkw)),
        ("lightgbm (31 leaves)", lambda: lgb.LGBMClassifier(objective="binary", **lkw),
         lambda: CSLGBMClassifier(**lkw)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    X, y, amount = make_data(a.rows, a.cols)
    y = y.astype(np.int64)
    print(f"{a.rows} x {a.cols} float32, positives {y.mean():.2%}, {a.rounds} rounds, {a.threads} threads, "
          f"median of {a.repeats} fits (alternating); load average {os.getloadavg()[0]:.1f} at start\n")
    print("| library | native logloss fit s | wrapper (AEC) fit s | ratio wrapper / native |")
    print("|---|---|---|---|")
    for name, native, ours in pairs(a.rounds, a.threads):
        t_nat, t_ours = [], []
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            native().fit(X, y)
            t_nat.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            ours().fit(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0)
            t_ours.append(time.perf_counter() - t0)
        n, o = statistics.median(t_nat), statistics.median(t_ours)
        print(f"| {name} | {n:.2f} | {o:.2f} | {o / n:.2f} |", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
