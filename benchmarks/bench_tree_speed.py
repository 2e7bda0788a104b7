"""Speed of the CSDT tree vs scikit-learn and empulse, measured side by side in one run.

Every (model, size) fit runs in a fresh subprocess; peak memory is the largest growth
of the resident set during the fit (sampled every 2 ms); each subprocess first fits a 2k-row tree so
numba compilation (cached) is excluded. Our trees are fitted twice and compared
array by array ("identical run to run").

Data: ``csdt.datasets.make_fraud_transactions`` (its first 10 columns, i.e. without
``noise_1``/``noise_2``; 2 % frauds; C_FN = amount, C_FP = C_TP = 10),
and creditscoring1's training half (50 % of the 112,915 rows, split with seed 0).

    python benchmarks/bench_tree_speed.py                       # 10k, 100k, 1M
    python benchmarks/bench_tree_speed.py --sizes 10000 5000000 # any sizes
    python benchmarks/bench_tree_speed.py --compile             # compile latency only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

MODELS = ["csdt_exact", "csdt_hist", "sklearn", "empulse"]


def make_data(n):
    import numpy as np

    from csdt.datasets import load_creditscoring1, make_fraud_transactions

    if n == "cs1":
        from sklearn.model_selection import train_test_split

        b = load_creditscoring1()
        X = b.data.to_numpy(np.float64)
        Xtr, _, ytr, _, ctr, _ = train_test_split(X, np.asarray(b.target), b.cost_matrix, test_size=0.5,
                                                  random_state=0)
        return np.ascontiguousarray(Xtr), ytr.astype(np.int64), np.ascontiguousarray(ctr)
    b = make_fraud_transactions(n_samples=int(n), fraud_rate=0.02, random_state=0)
    X = b.data.to_numpy(np.float64)[:, :10]
    return np.ascontiguousarray(X), b.target.astype(np.int64), np.ascontiguousarray(b.cost_matrix)


class _PeakRSS:
    """Samples this process's resident memory every 2 ms in a thread (fits release the GIL)."""

    def __enter__(self):
        import threading

        self._page = os.sysconf("SC_PAGE_SIZE")
        self.base = self.peak = self._now()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _now(self):
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * self._page / 2**20

    def _run(self):
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, self._now())

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, self._now())


def run_one(model, n, depth, path):
    """Child process: load the data, fit once (twice for ours), print a JSON line."""
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")
    d = np.load(path)
    X, y, C = d["X"], d["y"], d["C"]
    input_mb = X.nbytes / 2**20
    fit = _fitter(model, depth)
    fit(X[:2000], y[:2000], C[:2000])  # warm-up: numba compile (cached) / imports
    if X.size >= 2_000_000:  # and the threaded binning / presort of large X
        k = -(-2_000_000 // X.shape[1])
        fit(X[:k], y[:k], C[:k])
    import gc

    gc.collect()
    with _PeakRSS() as mem:
        t0 = time.perf_counter()
        m = fit(X, y, C)
        sec = time.perf_counter() - t0
    peak = mem.peak - mem.base
    out = {"model": model, "n": n, "sec": sec, "peak_mb": peak, "input_mb": input_mb}
    if model.startswith("csdt"):
        m2 = fit(X, y, C)
        a, b = m.tree_, m2.tree_
        out["identical"] = all(np.array_equal(v, b.arrays()[f], equal_nan=True) for f, v in a.arrays().items())
        out["nodes"] = a.node_count
    elif model == "sklearn":
        out["nodes"] = int(m.tree_.node_count)
    else:
        out["nodes"] = int(m.tree_.node_count) if hasattr(m, "tree_") else -1
    print(json.dumps(out))


def _fitter(model, depth):
    if model.startswith("csdt"):
        from csdt import CostSensitiveDecisionTreeClassifier

        kw = {"max_bins": 255} if model == "csdt_hist" else {}
        return lambda X, y, C: CostSensitiveDecisionTreeClassifier(max_depth=depth, **kw).fit(
            X, y, cost_matrix=C)
    if model == "sklearn":
        from sklearn.tree import DecisionTreeClassifier

        return lambda X, y, C: DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    from empulse.models import CSTreeClassifier

    return lambda X, y, C: CSTreeClassifier(max_depth=depth, random_state=0).fit(
        X, y, fp_cost=C[:, 0], fn_cost=C[:, 1], tp_cost=C[:, 2], tn_cost=C[:, 3])


def compile_latency():
    """First fit+predict of a tiny tree in a fresh process: empty cache vs warm cache."""
    code = (
        "import time; t=time.perf_counter(); import numpy as np; "
        "from csdt import CostSensitiveDecisionTreeClassifier as C; "
        "X=np.random.rand(200,3); y=(X[:,0]>.5).astype(int); t1=time.perf_counter(); "
        "C().fit(X,y,fp_cost=1.,fn_cost=2.).predict(X); "
        "C(max_bins=16).fit(X,y,fp_cost=1.,fn_cost=2.).predict(X); "
        "print(time.perf_counter()-t1)"
    )
    res = {}
    with tempfile.TemporaryDirectory() as cold:
        env = dict(os.environ, NUMBA_CACHE_DIR=cold, CSDT_JIT="0")  # the AOT kernels of the install
        res["aot"] = float(subprocess.check_output([sys.executable, "-c", code], env=env).decode().split()[-1])
    with tempfile.TemporaryDirectory() as cold:
        env = dict(os.environ, NUMBA_CACHE_DIR=cold, CSDT_JIT="1")  # numba JIT, empty then warm cache
        res["cold"] = float(subprocess.check_output([sys.executable, "-c", code], env=env).decode().split()[-1])
        res["cached"] = float(subprocess.check_output([sys.executable, "-c", code], env=env).decode().split()[-1])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", nargs="*", default=["10000", "100000", "1000000", "cs1"])
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--skip", nargs="*", default=[], help="model:size pairs to skip, e.g. sklearn:5000000")
    ap.add_argument("--compile", action="store_true", help="only the compile latency")
    ap.add_argument("--repeat", type=int, default=1,
                    help="fresh-process fits per (model, size), models interleaved; the table gives medians")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        run_one(args.child[0], args.child[1], args.depth, args.child[2])
        return
    lat = compile_latency()
    print(f"first fit+predict (exact + histogram) in a fresh process: AOT kernels {lat['aot']:.2f} s; "
          f"numba JIT (CSDT_JIT=1): cold cache {lat['cold']:.1f} s, warm cache {lat['cached']:.2f} s")
    if args.compile:
        return
    import numpy as np

    rows = []
    tmp = tempfile.mkdtemp()
    for n in args.sizes:
        path = os.path.join(tmp, f"data_{n}.npz")
        X, y, C = make_data(n)
        np.savez(path, X=X, y=y, C=C)  # children load exactly the input: RSS growth = the fit's
        del X, y, C
        runs = {}
        for _ in range(args.repeat):  # round-robin: load changes hit every model alike
            for model in args.models:
                if f"{model}:{n}" in args.skip:
                    continue
                p = subprocess.run([sys.executable, __file__, "--depth", str(args.depth), "--child", model,
                                    n, path], capture_output=True, text=True, check=False)
                if p.returncode:
                    print(f"{model} n={n} failed: {p.stderr.strip().splitlines()[-1:]}")
                    continue
                r = json.loads(p.stdout.strip().splitlines()[-1])
                runs.setdefault(model, []).append(r)
                print(json.dumps(r), flush=True)
        for model, rs in runs.items():
            r = dict(rs[0])
            r["sec"] = statistics.median(x["sec"] for x in rs)
            r["peak_mb"] = max(x["peak_mb"] for x in rs)
            r["identical"] = all(x.get("identical", True) for x in rs) if "identical" in r else "-"
            rows.append(r)
        os.remove(path)
    print()
    print(f"fit s = median of {args.repeat} fresh-process run(s); peak MB = the largest of them")
    print("| rows | model | fit s | x faster than empulse | x faster than sklearn | nodes | peak MB / input MB | identical |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        rs = {r["model"]: r for r in rows if r["n"] == n}
        for model in args.models:
            if model not in rs:
                continue
            r = rs[model]
            e = rs.get("empulse", {}).get("sec")
            s = rs.get("sklearn", {}).get("sec")
            fe = f"{e / r['sec']:.2f}" if e else "-"
            fs = f"{s / r['sec']:.2f}" if s else "-"
            label = "creditscoring1 train (56k x 10)" if n == "cs1" else f"{int(n):,} x 10"
            print(f"| {label} | {model} | {r['sec']:.2f} | {fe} | {fs} | {r['nodes']} | "
                  f"{r['peak_mb']:.0f} / {r['input_mb']:.0f} | {r.get('identical', '-')} |")


if __name__ == "__main__":
    main()
