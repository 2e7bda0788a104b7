"""Instruction counts of the library's heavy paths, for regression checks that do not depend on load.

Wall times on a shared 2-core VM swing by 20-40 %; callgrind counts instructions, the same whatever
else the machine does. Each workload runs in a fresh process; instrumentation is switched on only
around the fit (after imports and a warm-up fit) with ``callgrind_control``.

    python benchmarks/bench_instructions.py --compare OLD_TREE NEW_TREE [--workloads tree_exact ...]

runs every workload under ``valgrind --tool=callgrind`` with ``PYTHONPATH`` set to each source tree
(each with its own AOT build) and prints instructions, NEW / OLD and a checksum of the model (equal
checksums: same model). ``python benchmarks/bench_instructions.py WORKLOAD`` runs one workload
without valgrind and prints its CPU seconds.
"""

import os
import subprocess
import sys
import time

import numpy as np

_CG = os.environ.get("CG") == "1"


class _Clock:
    """process_time, and callgrind instrumentation switched on only around the timed region."""

    def process_time(self):
        if _CG:
            on = getattr(self, "_on", False)
            subprocess.run(
                ["callgrind_control", "-i", "off" if on else "on", str(os.getpid())],
                capture_output=True,
                check=True,
            )
            self._on = not on
        return time.process_time()


def run(name):
    time = _Clock()
    if name in ("tree_exact", "tree_hist"):
        from csdt import CostSensitiveDecisionTreeClassifier as T
        from csdt.datasets import make_fraud_transactions

        b = make_fraud_transactions(
            n_samples=1_000_000, fraud_rate=0.02, random_state=0
        )
        X = np.ascontiguousarray(b.data.to_numpy(np.float64)[:, :10])
        y = b.target.astype(np.int64)
        C = np.ascontiguousarray(b.cost_matrix)
        kw = {"max_bins": 255} if name == "tree_hist" else {}
        T(max_depth=10, **kw).fit(X[:2000], y[:2000], cost_matrix=C[:2000])
        t = time.process_time()
        m = T(max_depth=10, **kw).fit(X, y, cost_matrix=C)
        dt = time.process_time() - t
        return dt, m.tree_.node_count if hasattr(m.tree_, "node_count") else len(
            m.tree_.feature
        )
    if name == "figs":
        from csdt import FIGSClassifier

        rng = np.random.default_rng(0)
        X = rng.normal(size=(200_000, 20))
        y = (
            rng.random(200_000) < 1 / (1 + np.exp(-(X[:, 0] + X[:, 1] * X[:, 2] - 1)))
        ).astype(int)
        FIGSClassifier(max_rules=3).fit(X[:500], y[:500])
        t = time.process_time()
        m = FIGSClassifier(max_rules=20).fit(X, y)
        dt = time.process_time() - t
        return dt, float(m.predict_proba(X[:1000])[:, 1].sum())
    if name == "ecsdt":
        from csdt import CostSensitiveRandomPatchesClassifier as RP
        from csdt.datasets import load_creditscoring1

        d = load_creditscoring1()
        X, y, C = (
            np.asarray(d.data, float),
            np.asarray(d.target),
            np.asarray(d.cost_matrix),
        )
        RP(n_estimators=2, random_state=0).fit(X[:2000], y[:2000], cost_matrix=C[:2000])
        t = time.process_time()
        m = RP(n_estimators=100, random_state=0, n_jobs=1).fit(X, y, cost_matrix=C)
        dt = time.process_time() - t
        return dt, float(m.predict_proba(X[:1000])[:, 1].sum())
    if name == "riff":
        import lightgbm as lgb

        from csboost_plugins.rules import extract_rules, riff_select

        rng = np.random.default_rng(0)
        n = 1_000_000
        X = rng.normal(size=(n, 20))
        X[rng.random(X.shape) < 0.02] = np.nan
        logit = (
            -5
            + 1.5 * np.nan_to_num(X[:, 0])
            + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
            + np.nan_to_num(X[:, 3])
        )
        y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
        b = lgb.train(
            {
                "objective": "binary",
                "num_leaves": 64,
                "learning_rate": 0.05,
                "min_data_in_leaf": 20,
                "verbose": -1,
                "num_threads": 1,
                "feature_fraction": 0.7,
                "bagging_fraction": 0.5,
                "bagging_freq": 1,
                "seed": 0,
            },
            lgb.Dataset(X[:100_000], y[:100_000]),
            160,
        )
        rules = extract_rules(b)
        riff_select(rules[:50], X[:2000], y[:2000], max_fpr=0.01)
        t = time.process_time()
        rs = riff_select(rules, X, y, max_fpr=0.01)
        dt = time.process_time() - t
        return dt, len(rs)


WORKLOADS = ["tree_exact", "tree_hist", "figs", "ecsdt", "riff"]


def compare(old, new, workloads):
    import tempfile

    rows = []
    for w in workloads:
        counts = {}
        for side, tree in (("old", old), ("new", new)):
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "cg.out")
                env = dict(
                    os.environ,
                    CG="1",
                    NUMBA_NUM_THREADS="1",
                    OMP_NUM_THREADS="1",
                    PYTHONPATH=tree,
                )
                r = subprocess.run(
                    [
                        "valgrind",
                        "--tool=callgrind",
                        "--instr-atstart=no",
                        f"--callgrind-out-file={out}",
                        sys.executable,
                        os.path.abspath(__file__),
                        w,
                    ],
                    env=env,
                    cwd=tmp,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                with open(out) as f:
                    total = next(
                        int(line.split()[1]) for line in f if line.startswith("totals:")
                    )
                counts[side] = (total, r.stdout.split()[-1])
        rows.append((w, *counts["old"], *counts["new"]))
        print(f"{w}: {counts}", flush=True)
    print(
        "\n| workload | old instructions | new instructions | new / old | same checksum |\n|---|---|---|---|---|"
    )
    for w, a, ca, b, cb in rows:
        print(f"| {w} | {a:.4g} | {b:.4g} | {b / a:.3f} | {ca == cb} |")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("workload", nargs="?", choices=WORKLOADS)
    ap.add_argument("--compare", nargs=2, metavar=("OLD_TREE", "NEW_TREE"))
    ap.add_argument("--workloads", nargs="*", default=WORKLOADS, choices=WORKLOADS)
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare, args.workloads)
    else:
        dt, chk = run(args.workload)
        print(args.workload, f"{dt:.4f}", chk, flush=True)
