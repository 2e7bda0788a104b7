"""Rule books at warehouse speed: the bit-packed engine against DuckDB on the same pandas frame, same threads.

    python benchmarks/bench_rules_engine.py [--rows 1000000] [--books 14,200,1000] [--threads 2] [--old]
        [--text object|str]

Books: a 14-rule expert book (arithmetic, OR, NOT, IN, BETWEEN, text), and generated books of 200 and 1,000
rules of 1-3 comparisons (thresholds from a short grid, so books share conditions as real ones do). Rows:
synthetic card transactions, 5 % NULLs in ``amount``. Per book (best of 3, seconds):

- ``predict`` against DuckDB computing the flag column ``(r1) OR (r2) OR ... IS TRUE`` into numpy;
- ``coverage`` (the per-rule hit matrix) against DuckDB's ``SELECT (r1) IS TRUE, (r2) IS TRUE, ...`` into numpy;
- ``evaluate(per_rule=True)`` (with costs) against the same DuckDB hit matrix;
- above ``MATRIX_CELLS`` rows x rules (10,000,000 rows of the 1,000-rule book: two 10 GB matrices), no
  ``coverage``: ``evaluate(per_rule=True)`` against DuckDB's hit matrix computed a slice of rows at a time
  (the slices' times added, once), its per-rule counts checked against ``evaluate``'s;
- with ``--old``, the reference evaluator (one rule at a time in numpy, the code before the engine).

Flagged rows are asserted equal to DuckDB's. Ratios are ours over DuckDB's (below 1: faster). The load
average is printed before and after: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import time

import duckdb
import numba
import numpy as np
import pandas as pd

from csboost_plugins.rules import RuleSet
from csboost_plugins.rules._ruleset import _first_of

EXPERT = {  # what an analyst writes: arithmetic, OR, NOT, IN, BETWEEN, text
    "big_v14": "amount > 500 AND V14 < -5",
    "v14_or_v17": "V14 < -8 OR V17 < -6",
    "v12_v10": "V12 < -6 AND V10 < -4",
    "v14_plus_v12": "V14 + V12 < -14",
    "v4_not_v11": "V4 > 5 AND NOT (V11 <= 3)",
    "night_burst": "n_tx IN (7, 8, 9, 10) AND hour BETWEEN 0 AND 5",
    "band_v3": "amount BETWEEN 1000 AND 2000 AND V3 < -5",
    "remote_big": "channel IN ('web', 'moto') AND amount > 800",
    "abs_v4": "ABS(V4) > 4",
    "v1_plus_v3": "V1 + V3 < -6",
    "per_tx": "amount / (n_tx + 1) > 300",
    "not_pos": "NOT (channel = 'pos') AND V9 < -3 AND V14 < -3",
    "odd_hours": "(hour < 5 OR hour > 22) AND amount > 300",
    "v14_v10_amount": "V14 < -5 AND V10 < -3 AND amount > 100",
}
V = [f"V{i}" for i in range(1, 21)]
#: above this many rows x rules the whole hit matrices (one byte per cell, ours and DuckDB's) are left out: DuckDB
#: computes its matrix a slice of rows at a time (timed once) as the baseline of evaluate
MATRIX_CELLS = 2_000_000_000


def frame(n, seed=0, text="object"):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(0, 2, size=(n, len(V))), columns=V)
    X["amount"] = np.round(np.exp(rng.normal(4, 1.2, n)), 2)
    X.loc[rng.random(n) < 0.05, "amount"] = np.nan  # 5 % NULLs
    X["n_tx"] = rng.integers(0, 12, n)
    X["hour"] = rng.integers(0, 24, n)
    # object: Python str per row; "str": pandas' default string dtype (Arrow-backed)
    X["channel"] = pd.Series(rng.choice(["pos", "web", "moto", "atm"], n), dtype=object if text == "object" else text)
    return X


def generated(k, seed=0):
    """k rules of 1-3 comparisons on the tails of the V columns and amount (thresholds from a short grid)."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(k):
        parts = []
        for c in rng.choice(V + ["amount"], rng.integers(1, 4), replace=False):
            if c == "amount":
                parts.append(f"amount > {rng.choice([200, 500, 1000, 2000])}")
            else:
                side = rng.choice(["<", ">"])
                t = rng.choice([3.0, 3.5, 4.0, 4.5, 5.0]) * (-1 if side == "<" else 1)
                parts.append(f"{c} {side} {t:g}")
        out[f"g{i}"] = " AND ".join(parts)
    return out


def best(fn, repeat=3):
    t_best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t)
    return out, t_best


def main(n, books, threads, old, text="object"):
    numba.set_num_threads(threads)
    X = frame(n, text=text)
    rng = np.random.default_rng(1)
    y = (rng.random(n) < 0.01).astype(int)
    amount = X["amount"].fillna(0.0).to_numpy()
    con = duckdb.connect()
    con.execute(f"SET threads TO {threads}")
    con.register("t", X)
    print(f"rows {n:,}, threads {threads} (numba and DuckDB {duckdb.__version__}), text column "
          f"{X['channel'].dtype!r}, load average before "
          f"{tuple(round(v, 2) for v in os.getloadavg())}")
    rows = []
    for k in books:
        texts = EXPERT if k == 14 else generated(k)
        rs = RuleSet.from_sql(texts, dialect="duckdb")
        rs.predict(X.iloc[:1000])  # compiles the kernels once (cached on disk afterwards)
        conds = [f"({r.to_sql('duckdb')}) IS TRUE" for r in rs]
        flag_sql = "SELECT (" + " OR ".join(f"({r.to_sql('duckdb')})" for r in rs) + ") IS TRUE AS f FROM t"
        hits_sql = "SELECT " + ", ".join(f"{c} AS h{j}" for j, c in enumerate(conds)) + " FROM t"
        duck_flag, t_dflag = best(lambda: con.execute(flag_sql).fetchnumpy()["f"])
        pred, t_pred = best(lambda: rs.predict(X))
        assert np.array_equal(pred.astype(bool), np.asarray(duck_flag, dtype=bool)), "predict differs from DuckDB"
        rows.append((k, "predict", t_pred, "DuckDB flag column", t_dflag))
        if n * k > MATRIX_CELLS:  # two hit matrices would not fit: DuckDB's, a slice of rows at a time (once)
            step = max(1, MATRIX_CELLS // (4 * k))
            t_dhits, counts = 0.0, np.zeros(k, np.int64)
            for a in range(0, n, step):
                con.register("s", X.iloc[a:a + step])
                part, secs = best(lambda: con.execute(hits_sql.replace(" FROM t", " FROM s")).fetchnumpy(), 1)
                t_dhits += secs
                counts += [np.count_nonzero(part[f"h{j}"]) for j in range(k)]
                del part
            table, t_eval = best(lambda: rs.evaluate(X, y, fp_cost=5.0, fn_cost=amount, per_rule=True))
            assert np.array_equal(table["flagged"].to_numpy(), counts)
            rows.append((k, "evaluate(per_rule=True)", t_eval, "DuckDB hit matrix, by slices of rows", t_dhits))
            continue
        duck_hits, t_dhits = best(lambda: con.execute(hits_sql).fetchnumpy())
        cover, t_cover = best(lambda: rs.coverage(X))
        for j in range(len(rs)):
            assert np.array_equal(cover[:, j], np.asarray(duck_hits[f"h{j}"], dtype=bool)), f"rule {j} differs"
        del duck_hits
        _, t_eval = best(lambda: rs.evaluate(X, y, fp_cost=5.0, fn_cost=amount, per_rule=True))
        rows.append((k, "coverage (hit matrix)", t_cover, "DuckDB per-rule hit matrix", t_dhits))
        rows.append((k, "evaluate(per_rule=True)", t_eval, "DuckDB per-rule hit matrix", t_dhits))
        if old:
            _, t_old = best(lambda: _first_of(rs._masks(X)), 1)
            rows.append((k, "predict, reference evaluator (before)", t_old, "DuckDB flag column", t_dflag))
        del cover
    print(f"load average after {tuple(round(v, 2) for v in os.getloadavg())}\n")
    print("| rules | what | seconds | DuckDB baseline | DuckDB seconds | ratio |\n|---|---|---|---|---|---|")
    for k, what, secs, base, b in rows:
        print(f"| {k} | {what} | {secs:.3f} | {base} | {b:.3f} | {secs / b:.2f} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--books", default="14,200,1000")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--old", action="store_true")
    ap.add_argument("--text", default="object", help="dtype of the text column: object or str (pandas' default)")
    a = ap.parse_args()
    main(a.rows, [int(b) for b in a.books.split(",")], a.threads, a.old, a.text)
