"""RuleSet.to_sql: generation time per dialect, and the SQL run in DuckDB / SQLite against RuleSet.predict
(rows that differ, time) on synthetic fraud with NaN.

    python benchmarks/bench_rules_sql.py [--n 200000]

Prints one table; the ratio column is the engine's time over ``RuleSet.predict`` in the same run.
"""

from __future__ import annotations

import argparse
import sqlite3
import time

import duckdb
import lightgbm as lgb
import numpy as np

from csboost_plugins.rules import RuleSet, extract_rules, riff_select
from csboost_plugins.rules._export import SQL_DIALECTS
from csdt.datasets import make_fraud_transactions


def _timed(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def main(n):
    d = make_fraud_transactions(n, fraud_rate=0.02, random_state=0)
    X, y, amount = d.data.copy(), d.target, d.fn_cost
    rng = np.random.default_rng(0)
    X = X.mask(rng.random(X.shape) < 0.03)  # NaN -> NULL in the engines
    k = n // 4
    gbm = lgb.LGBMClassifier(n_estimators=50, num_leaves=16, verbose=-1).fit(X[:k], y[:k])
    cands = extract_rules(gbm)
    sets = {"riff (1% FPR)": riff_select(cands, X[k:2 * k], y[k:2 * k], max_fpr=0.01, fp_cost=0.0,
                                         fn_cost=amount[k:2 * k]),
            "200 candidates": RuleSet(cands[:200])}
    frame = X.assign(rowid_=np.arange(n))
    con = duckdb.connect()
    con.register("frame_", frame)
    con.execute('CREATE TABLE "transactions" AS SELECT * FROM frame_')
    lite = sqlite3.connect(":memory:")
    frame.to_sql("transactions", lite, index=False)  # pandas writes NaN as NULL
    print(f"n = {n} rows, {X.isna().mean().mean():.1%} NaN")
    print(f"{'rule set':16} {'rules':>5} {'to_sql ms (6 dialects)':>24} {'engine':>7} {'rows differ':>11} "
          f"{'engine s':>9} {'predict s':>9} {'ratio':>6}")
    for name, rs in sets.items():
        gen = {}
        for dialect in SQL_DIALECTS:  # best of 2: the first call imports sqlglot's dialect module
            _, gen[dialect] = _timed(lambda rs=rs, d=dialect: rs.to_sql("transactions", dialect=d, last_rule="include"), 2)
        expect, t_pred = _timed(lambda rs=rs: rs.predict(X, last_rule="include").astype(bool))
        for engine in ("duckdb", "sqlite"):
            sql = rs.to_sql("transactions", dialect=engine, last_rule="include")
            q = f'SELECT "rowid_" FROM ({sql}) AS s'
            run = (lambda q=q: con.execute(q).fetchnumpy()["rowid_"]) if engine == "duckdb" else \
                (lambda q=q: np.array([r[0] for r in lite.execute(q)], dtype=np.int64))
            ids, t_eng = _timed(run)
            got = np.zeros(n, bool)
            got[np.asarray(ids, dtype=np.int64)] = True
            print(f"{name:16} {len(rs):5d} {1000 * sum(gen.values()):24.1f} {engine:>7} {int((got != expect).sum()):11d} "
                  f"{t_eng:9.3f} {t_pred:9.3f} {t_eng / t_pred:6.1f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    main(ap.parse_args().n)
