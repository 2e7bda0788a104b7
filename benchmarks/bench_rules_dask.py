"""Benchmark (issue 18): RIFF rule selection on data larger than the workers' memory (dask).

Data: ``--rows`` transactions x ``--features`` float64 features, generated on the workers
partition by partition (``dd.from_map``; the client never holds them), labels from a
logistic model (about 1 % fraud), amount ~ LogNormal(3.5, 1.2) as C_FN. Candidates:
about ``--rules`` rules, one per leaf of a random forest (``max_leaf_nodes=1000``) fitted
on a 100k-row sample of the first partition. Selection: ``riff_select(max_fpr=...,
fn_cost=amount)`` on a ``LocalCluster(n_workers=2, threads_per_worker=1,
memory_limit=...)`` whose total memory limit is below the data size (the persisted
partitions spill to disk), then in memory (pandas) on the first ``--inmem-rows`` rows
of the same data, for the time per row.

Reported: wall time, passes over the data (1 + selected rules), peak worker memory
(RSS sampled every second on each worker) and, for in-memory, the peak RSS of this process.

    python benchmarks/bench_rules_dask.py --rows 10000000 --inmem-rows 1000000 10000000 --rules 10000
"""

from __future__ import annotations

import argparse
import os
import resource
import threading
import time

import numpy as np
import pandas as pd

P_DEFAULT = 20
ROW_BYTES = 8  # per float64 feature


def make_part(i, rows, p, seed=0):
    """Partition i: ``rows`` rows of features x0..x{p-1}, label y, amount (deterministic in (seed, i))."""
    rng = np.random.default_rng([seed, i])
    beta = np.random.default_rng(seed).normal(0, 0.7, p)
    X = rng.standard_normal((rows, p))
    logit = X @ beta - 5.3 + 1.5 * (X[:, 0] > 1.2) * (X[:, 1] < -0.5)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    df["y"] = (rng.uniform(size=rows) < 1 / (1 + np.exp(-logit))).astype(np.int8)
    df["amount"] = rng.lognormal(3.5, 1.2, rows)
    df.index = pd.RangeIndex(i * rows, (i + 1) * rows)
    return df


def candidates(p, n_rules, seed=0):
    from sklearn.ensemble import RandomForestClassifier

    from csboost_plugins.rules import extract_rules

    df = make_part(0, 100_000, p, seed)
    n_trees = max(1, round(n_rules / 999))
    forest = RandomForestClassifier(n_estimators=n_trees, max_leaf_nodes=1000, min_samples_leaf=20,
                                    class_weight="balanced", random_state=seed, n_jobs=1)
    feats = [f"x{j}" for j in range(p)]
    forest.fit(df[feats], df["y"])
    return extract_rules(forest)


class PeakMemory:
    """Peak RSS of every worker, sampled every second in a thread."""

    def __init__(self, client):
        self.client, self.peak, self._stop = client, {}, threading.Event()

    @staticmethod
    def _rss():
        import psutil

        return psutil.Process().memory_info().rss

    def _loop(self):
        while not self._stop.is_set():
            try:
                for w, v in self.client.run(PeakMemory._rss).items():
                    self.peak[w] = max(self.peak.get(w, 0), v)
            except Exception:  # a worker restarting: sample again next second
                pass
            self._stop.wait(1.0)

    def __enter__(self):
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def run_dask(args, pool):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from csboost_plugins.rules import riff_select

    n_parts = -(-args.rows // args.partition_rows)
    rows = args.partition_rows
    data_bytes = args.rows * (args.features * ROW_BYTES + 1 + 8 + 8)  # features, y, amount, index
    limit = args.memory_limit or int(0.45 * data_bytes)  # per worker: 2 workers hold 90 % of the data at most
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=limit, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        meta = make_part(0, 1, args.features)
        ddf = dd.from_map(make_part, range(n_parts), rows=rows, p=args.features, meta=meta.iloc[:0],
                          divisions=[i * rows for i in range(n_parts)] + [n_parts * rows - 1])
        feats = [f"x{j}" for j in range(args.features)]
        with PeakMemory(client) as mem:
            t0 = time.perf_counter()
            ddf = ddf.persist()
            from distributed import wait

            wait(ddf)
            t_load = time.perf_counter() - t0
            t0 = time.perf_counter()
            rs = riff_select(pool, ddf[feats], ddf["y"], max_fpr=args.max_fpr, fn_cost=ddf["amount"])
            t_sel = time.perf_counter() - t0
        spilled = sum(client.run(lambda dask_worker: len(dask_worker.data.slow)
                                 if hasattr(dask_worker.data, "slow") else 0).values())
    return {"mode": "dask (2 workers)", "rows": n_parts * rows, "rules": len(rs), "passes": rs.selection["passes"],
            "seconds": t_sel, "load_s": t_load, "peak_mb": max(mem.peak.values()) / 2**20,
            "limit_mb": limit / 2**20, "data_mb": data_bytes / 2**20, "spilled_parts": spilled,
            "rho": rs.last_rule_probability, "order": list(rs.selection["candidate_index"])}


def run_memory(args, pool, n):
    from csboost_plugins.rules import riff_select

    rows = args.partition_rows
    n_parts = -(-n // rows)
    df = pd.concat([make_part(i, rows, args.features) for i in range(n_parts)])
    feats = [f"x{j}" for j in range(args.features)]
    t0 = time.perf_counter()
    rs = riff_select(pool, df[feats], df["y"].to_numpy(), max_fpr=args.max_fpr, fn_cost=df["amount"].to_numpy())
    t = time.perf_counter() - t0
    return {"mode": "in memory", "rows": len(df), "rules": len(rs), "passes": "-", "seconds": t, "load_s": 0.0,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "limit_mb": float("nan"),
            "data_mb": len(df) * (args.features * ROW_BYTES + 17) / 2**20, "spilled_parts": 0,
            "rho": rs.last_rule_probability, "order": list(rs.selection["candidate_index"])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows of the dask run")
    ap.add_argument("--inmem-rows", type=int, nargs="*", default=[1_000_000], help="rows of the in-memory runs")
    ap.add_argument("--features", type=int, default=P_DEFAULT)
    ap.add_argument("--rules", type=int, default=10_000, help="about this many candidate rules")
    ap.add_argument("--max-fpr", type=float, default=0.01)
    ap.add_argument("--partition-rows", type=int, default=250_000)
    ap.add_argument("--memory-limit", type=int, default=None, help="bytes per worker (default 45 %% of the data)")
    a = ap.parse_args(argv)
    print(f"load average at start {os.getloadavg()[0]:.2f}")
    t0 = time.perf_counter()
    pool = candidates(a.features, a.rules)
    print(f"{len(pool)} candidate rules ({time.perf_counter() - t0:.1f} s to fit and extract), "
          f"{a.features} float64 features, max_fpr={a.max_fpr}")
    print("| mode | rows | data MB | memory limit MB / worker | rules selected | passes | wall s | "
          "s per 1M rows | per-row ratio vs first | peak MB (per worker) |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    # the first in-memory size, the dask run, the other in-memory sizes: each row printed when done
    runs = [lambda n=n: run_memory(a, pool, n) for n in a.inmem_rows]
    runs.insert(1, lambda: run_dask(a, pool))
    results = []
    for run in runs if a.rows else runs[:1] + runs[2:]:
        r = run()
        results.append(r)
        base = results[0]["seconds"] / results[0]["rows"]
        print(f"| {r['mode']} | {r['rows']:,} | {r['data_mb']:.0f} | {r['limit_mb']:.0f} | {r['rules']} | "
              f"{r['passes']} | {r['seconds']:.1f} | {r['seconds'] / r['rows'] * 1e6:.2f} | "
              f"{r['seconds'] / r['rows'] / base:.2f} | {r['peak_mb']:.0f} |", flush=True)
        if r["mode"].startswith("dask"):
            print(f"dask: persisting the generated partitions took {r['load_s']:.1f} s; "
                  f"{r['spilled_parts']} partitions on disk at the end; load average {os.getloadavg()[0]:.2f}",
                  flush=True)
    for r in results:
        same = [q for q in results if q["rows"] == r["rows"] and q is not r]
        if r["mode"].startswith("dask") and same:
            print("same selection as in memory on the same rows:", same[0]["order"] == r["order"],
                  f"rho {same[0]['rho']:.12g} / {r['rho']:.12g}")
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
