"""Benchmark (issue 18): RIFF rule selection on data larger than the workers' memory (dask).

Data: ``--rows`` transactions x ``--features`` float32 features, generated on the workers
partition by partition (``dd.from_map``; the client never holds them), labels from a
logistic model (about 1 % fraud), amount ~ LogNormal(3.5, 1.2) as C_FN. Candidates:
about ``--rules`` rules, one per leaf of a random forest (``max_leaf_nodes=1000``) fitted
on a 100k-row sample of the first partition. Selection: ``riff_select(max_fpr=...,
fn_cost=amount)`` on a ``LocalCluster(n_workers=2, threads_per_worker=1,
memory_limit=...)``, then in memory (pandas, 2 kernel threads) on the first
``--inmem-rows`` rows of the same data, for the time per row. Each dask size gets its
own cluster; its memory limit per worker is ``--memory-fraction`` of the data (default
0.45: both workers together hold 90 % of it, the rest spills to disk); where that is below
``--min-memory-mb`` (about a worker's own footprint: the data is too small to exceed the
workers' memory) the limit is ``--roomy-memory-mb`` and nothing spills. The table says
whether the two workers' limits together are below the data.

Reported: wall time, passes over the data (1 + selected rules), peak worker memory
(RSS sampled every 0.5 s on each worker), partitions on disk at the end, partition passes
that had to recompute their uncovered-row mask (``selection["recomputed_partitions"]``),
and how many times the data-generating tasks ran (once per partition unless a worker
lost them); for in-memory, the peak RSS of this process.

    python benchmarks/bench_rules_dask.py --rows 1000000 10000000 --inmem-rows 1000000 10000000
    python benchmarks/bench_rules_dask.py --rows 50000000 --inmem-rows 1000000
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


def row_bytes(p):
    return 4 * p + 1 + 8 + 8  # float32 features, int8 label, float64 amount, int64 index


def make_part(i, rows, p, seed=0):
    """Partition i: ``rows`` rows of float32 features x0..x{p-1}, label y, amount (deterministic in (seed, i))."""
    rng = np.random.default_rng([seed, i])
    beta = np.random.default_rng(seed).normal(0, 0.7, p)
    X = rng.standard_normal((rows, p), dtype=np.float32)
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
    """Peak RSS of every worker, sampled every half second in a thread."""

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
            except Exception:  # a worker restarting: sample again next time
                pass
            self._stop.wait(0.5)

    def __enter__(self):
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def _install_counter(dask_scheduler):
    """Count, per key, the tasks of the data's graph that finish (processing -> memory) on the scheduler."""
    from distributed.diagnostics.plugin import SchedulerPlugin

    class Count(SchedulerPlugin):
        name = "bench-task-runs"

        def transition(self, key, start, finish, *args, **kwargs):
            if start == "processing" and finish == "memory":
                dask_scheduler._bench_runs[str(key)] = dask_scheduler._bench_runs.get(str(key), 0) + 1

    dask_scheduler._bench_runs = {}
    dask_scheduler.add_plugin(Count())


def _task_runs(dask_scheduler, keys):
    return sum(dask_scheduler._bench_runs.get(k, 0) for k in keys)


def partitions(args, n):
    """(rows per partition, partitions) of an n-row data set."""
    rows = args.partition_rows or min(1_000_000, -(-n // 4))
    return rows, -(-n // rows)


def run_dask(args, pool, n):
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    from csboost_plugins.rules import riff_select

    rows, n_parts = partitions(args, n)
    data_bytes = n_parts * rows * row_bytes(args.features)
    limit = int(args.memory_fraction * data_bytes)
    if limit < args.min_memory_mb * 2**20:  # too little data to exceed a worker's own footprint: no spilling
        limit = int(args.roomy_memory_mb * 2**20)
    # the limit is close to a worker's own footprint: spill (target/spill fractions) but never pause
    # (both workers paused = a stalled run) nor restart a worker (it would lose its partitions)
    cfg = {"distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}
    with dask.config.set(cfg), LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=limit,
                                            dashboard_address=None, silence_logs=40) as cluster, \
            Client(cluster) as client:
        client.run_on_scheduler(_install_counter)
        meta = make_part(0, 1, args.features)
        ddf = dd.from_map(make_part, range(n_parts), rows=rows, p=args.features, meta=meta.iloc[:0],
                          divisions=[i * rows for i in range(n_parts)] + [n_parts * rows - 1])
        feats = [f"x{j}" for j in range(args.features)]
        with PeakMemory(client) as mem:
            t0 = time.perf_counter()
            ddf = ddf.persist()
            wait(ddf)
            t_load = time.perf_counter() - t0
            # the generated partitions' keys (the persisted frame reads them through aliases of its own)
            data_keys = [str(k) for k in ddf.expr.operand("keys")]
            t0 = time.perf_counter()
            rs = riff_select(pool, ddf[feats], ddf["y"], max_fpr=args.max_fpr, fp_cost=0.0, fn_cost=ddf["amount"])
            t_sel = time.perf_counter() - t0
        spilled = sum(client.run(lambda dask_worker: len(dask_worker.data.slow)
                                 if hasattr(dask_worker.data, "slow") else 0).values())
        data_runs = client.run_on_scheduler(_task_runs, keys=data_keys)
    return {"mode": "dask (2 workers x 1 thread)", "rows": n_parts * rows, "rules": len(rs),
            "passes": rs.selection["passes"], "seconds": t_sel, "load_s": t_load,
            "peak_mb": max(mem.peak.values()) / 2**20, "limit_mb": limit / 2**20, "data_mb": data_bytes / 2**20,
            "below": 2 * limit < data_bytes, "parts": n_parts, "spilled_parts": spilled,
            "recomputed": rs.selection["recomputed_partitions"], "data_runs": data_runs,
            "rho": rs.last_rule_probability, "order": list(rs.selection["candidate_index"])}


def run_memory(args, pool, n):
    from csboost_plugins.rules import riff_select

    rows, n_parts = partitions(args, n)
    df = pd.concat([make_part(i, rows, args.features) for i in range(n_parts)])  # the rows of the dask run
    feats = [f"x{j}" for j in range(args.features)]
    t0 = time.perf_counter()
    rs = riff_select(pool, df[feats], df["y"].to_numpy(), max_fpr=args.max_fpr, fp_cost=0.0,
                     fn_cost=df["amount"].to_numpy())
    t = time.perf_counter() - t0
    return {"mode": "in memory (2 threads)", "rows": len(df), "rules": len(rs), "passes": "-", "seconds": t,
            "load_s": 0.0, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "limit_mb": float("nan"), "data_mb": len(df) * row_bytes(args.features) / 2**20,
            "rho": rs.last_rule_probability, "order": list(rs.selection["candidate_index"])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="*", default=[10_000_000], help="rows of the dask runs")
    ap.add_argument("--inmem-rows", type=int, nargs="*", default=[1_000_000], help="rows of the in-memory runs")
    ap.add_argument("--features", type=int, default=P_DEFAULT)
    ap.add_argument("--rules", type=int, default=10_000, help="about this many candidate rules")
    ap.add_argument("--max-fpr", type=float, default=0.01)
    ap.add_argument("--partition-rows", type=int, default=None,
                    help="rows per partition (default: a quarter of the rows, at most 1M = 97 MB)")
    ap.add_argument("--memory-fraction", type=float, default=0.45,
                    help="memory limit per worker as a fraction of the data (default 0.45)")
    ap.add_argument("--min-memory-mb", type=float, default=400,
                    help="below this limit per worker (MiB) the data is too small to spill: the limit is then "
                         "--roomy-memory-mb")
    ap.add_argument("--roomy-memory-mb", type=float, default=2048)
    a = ap.parse_args(argv)
    print(f"load average at start {os.getloadavg()[0]:.2f}")
    t0 = time.perf_counter()
    pool = candidates(a.features, a.rules)
    print(f"{len(pool)} candidate rules ({time.perf_counter() - t0:.1f} s to fit and extract), "
          f"{a.features} float32 features, max_fpr={a.max_fpr}")
    print("| mode | rows | data MiB | limit MiB / worker (2 below data?) | rules | passes | wall s | "
          "s per 1M rows | per-row vs in memory, same rows | peak MiB per worker |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    runs = sorted([(n, 0) for n in a.inmem_rows] + [(n, 1) for n in a.rows])  # in memory first at each size
    results = []
    for n, on_dask in runs:
        r = run_dask(a, pool, n) if on_dask else run_memory(a, pool, n)
        results.append(r)
        ref = next((q for q in results if q["rows"] == r["rows"] and q["passes"] == "-"), None)
        ratio = f"{r['seconds'] / ref['seconds']:.2f}" if ref else "-"
        limit = f"{r['limit_mb']:.0f} ({'yes' if r['below'] else 'no'})" if on_dask else "-"
        print(f"| {r['mode']} | {r['rows']:,} | {r['data_mb']:.0f} | {limit} | {r['rules']} | {r['passes']} | "
              f"{r['seconds']:.1f} | {r['seconds'] / r['rows'] * 1e6:.2f} | {ratio} | {r['peak_mb']:.0f} |",
              flush=True)
        if on_dask:
            same = (f"same rules and order as in memory: {r['order'] == ref['order']}, rho {r['rho']:.12g} "
                    f"(in memory {ref['rho']:.12g})") if ref else "no in-memory run on these rows"
            print(f"  dask {r['rows']:,}: {r['parts']} partitions, persisting took {r['load_s']:.1f} s; "
                  f"{r['spilled_parts']} partitions on disk at the end; {r['recomputed']} partition passes "
                  f"recomputed their mask; data tasks run {r['data_runs']} times; {same}; "
                  f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
