"""First-call latency of the csdt estimators in a fresh process: AOT kernels vs numba JIT.

For each configuration a new ``python -c`` process times the first
``Estimator(**params).fit`` (CSDT configurations, FIGS, FIGU, CAL5_OC; plus one ``predict_proba``) on a
300 x 3 random data set, after the imports. Two paths (see ``csdt/_aot.py``):

* "AOT": the kernels the install compiled ahead of time (``csdt._kernels_aot``), the
  default whenever the extension is built and current;
* "JIT": ``CSDT_JIT=1``, numba's JIT kernels. "cold" runs with an empty numba cache (a
  fresh temporary ``NUMBA_CACHE_DIR``, which is the same as deleting the
  ``csdt/__pycache__/*.nbi|*.nbc`` files but leaves the other engineers' caches alone);
  "cached" repeats the process with the cache the cold run wrote. Each configuration
  gets its own empty cache, so the cold numbers do not share compiled kernels.

The AOT column also uses an empty numba cache: nothing may be compiled on that path.

    python benchmarks/bench_tree_compile.py                 # all configurations
    python benchmarks/bench_tree_compile.py --configs default --repeat 3

Goal (issue 4): under 2 s cold, under 0.3 s from cache.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

# configuration -> (estimator, parameters, extra fit arguments); the CSDT ones first
CONFIGS = {
    "default": ("CostSensitiveDecisionTreeClassifier", "{}", ""),
    "histogram": ("CostSensitiveDecisionTreeClassifier", "{'max_bins': 32}", ""),
    "costcla": ("CostSensitiveDecisionTreeClassifier", "{'num_pct': 20}", ""),
    "pruning": ("CostSensitiveDecisionTreeClassifier", "{'pruning': 'cost'}",
                ", X_val=X, y_val=y, val_fp_cost=1.0, val_fn_cost=2.0"),
    "best_first": ("CostSensitiveDecisionTreeClassifier",
                   "{'max_leaf_nodes': 8, 'max_features': 2, 'random_state': 0}", ""),
    "figs": ("FIGSClassifier", "{'max_rules': 5}", ""),
    "figu": ("FIGUClassifier", "{'max_rules': 5}", ""),
    "cal5_oc": ("CAL5OCClassifier", "{}", ""),
}

CODE = """
import time
import numpy as np
from csdt import {estimator} as C
rng = np.random.default_rng(0)
X = rng.random((300, 3)); y = (X[:, 0] + 0.3 * rng.random(300) > 0.6).astype(np.int64)
t = time.perf_counter()
m = C(**{params}).fit(X, y, fp_cost=1.0, fn_cost=2.0{fit_extra})
t_fit = time.perf_counter() - t
m.predict_proba(X)
print(t_fit, time.perf_counter() - t)
"""


def run(config, cache_dir, jit=True):
    estimator, params, fit_extra = CONFIGS[config]
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, CSDT_JIT="1" if jit else "0")
    code = CODE.format(estimator=estimator, params=params, fit_extra=fit_extra)
    out = subprocess.check_output([sys.executable, "-c", code], env=env, text=True)
    fit_s, total_s = map(float, out.split()[-2:])
    return fit_s, total_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", nargs="*", default=list(CONFIGS))
    ap.add_argument("--repeat", type=int, default=1, help="cold runs per configuration (median)")
    args = ap.parse_args()
    from csdt import _aot

    if _aot.module() is None:
        print("NOTE: csdt._kernels_aot is not built or stale; the AOT column runs the JIT")
    print("| configuration | AOT cold fit+predict s | JIT cold fit s | JIT cold fit+predict s "
          "| JIT cached fit s | JIT cached fit+predict s |")
    print("|---|---|---|---|---|---|")
    for config in args.configs:
        cold, cached, aot = [], [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as d:
                aot.append(run(config, d, jit=False)[1])
            with tempfile.TemporaryDirectory() as d:
                cold.append(run(config, d))
                cached.append(run(config, d))
        med = [statistics.median(v[i] for v in cold) for i in (0, 1)]
        medc = [statistics.median(v[i] for v in cached) for i in (0, 1)]
        print(f"| {config} | {statistics.median(aot):.3f} | {med[0]:.2f} | {med[1]:.2f} | {medc[0]:.2f} "
              f"| {medc[1]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
