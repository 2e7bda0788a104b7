"""Speed of rules read from SQL (RuleSet.from_sql), against baselines measured in the same run.

- ``from_sql`` of a 1,000-rule book (goal < 2 s) vs sqlglot parsing the same texts alone;
- ``predict`` and ``evaluate(per_rule=True)`` of a 200-rule book on 1M rows (goal < 5 s each) vs
  DuckDB running the book's own ``to_sql`` on the same DataFrame (the rows flagged, checked equal).

    python benchmarks/bench_rules_sql_import.py [--rows 1000000] [--book 200] [--parse 1000]

Prints a table; record it with the load average (``uptime``) in RESULTS.md.
"""

import argparse
import os
import time

import numpy as np
import pandas as pd


def book(k, seed=0):
    """k analyst-style rules: thresholds, ratios of columns, IN lists, LIKE, BETWEEN, COALESCE, NULL tests."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(k):
        t = i % 8
        a, b = rng.choice(["amount", "v1", "v2", "v3", "avg_amount"], 2, replace=False)
        x = round(float(rng.normal(1.5, 0.5)), 2)
        if t == 0:
            c = f"amount > {int(rng.integers(200, 2000))} AND v1 < {-x}"
        elif t == 1:
            c = f"amount / NULLIF(avg_amount, 0) > {x + 3} AND n_tx >= {int(rng.integers(2, 9))}"
        elif t == 2:
            c = f"channel IN ('web', 'moto') AND {a} > {x}"
        elif t == 3:
            c = f"merchant LIKE 'm{int(rng.integers(0, 9))}%' AND {b} BETWEEN {x} AND {x + 2}"
        elif t == 4:
            c = f"COALESCE(v3, 0) > {x + 1} OR (v2 IS NULL AND v1 > {x + 1.5})"
        elif t == 5:
            c = f"ABS({a} - {b}) > {x + 2.5} AND NOT (channel = 'pos')"
        elif t == 6:
            c = f"GREATEST(v1, v2) > {x + 1} AND amount < {int(rng.integers(50, 500))}"
        else:
            c = f"n_tx IN ({', '.join(str(int(v)) for v in rng.integers(5, 15, 4))}) AND v3 < {-x}"
        out[f"rule_{i:04d}"] = c
    return out


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"amount": np.exp(rng.normal(4, 1.2, n)), "avg_amount": np.exp(rng.normal(4, 0.5, n)),
                       "v1": rng.normal(size=n), "v2": rng.normal(size=n), "v3": rng.normal(size=n),
                       "n_tx": rng.integers(0, 15, n),
                       "channel": pd.Categorical(rng.choice(["web", "pos", "atm", "moto"], n)),
                       "merchant": pd.Series(rng.integers(0, 1000, n)).map(lambda v: f"m{v}").astype(object)})
    df.loc[rng.random(n) < 0.05, "v2"] = np.nan
    df.loc[rng.random(n) < 0.05, "v3"] = np.nan
    y = (rng.random(n) < 0.01).astype(int)
    return df, y


def timed(fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    import duckdb
    import sqlglot

    from csboost_plugins.rules import RuleSet

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--book", type=int, default=200)
    ap.add_argument("--parse", type=int, default=1000)
    args = ap.parse_args()
    rows = []

    texts = book(args.parse)
    t_sqlglot, _ = timed(lambda: [sqlglot.parse_one(c, read="duckdb") for c in texts.values()])
    t_ours, rs_big = timed(lambda: RuleSet.from_sql(texts, dialect="duckdb"))
    rows.append((f"from_sql, {args.parse} rules", t_ours, "sqlglot.parse_one alone", t_sqlglot, "< 2 s"))

    df, y = data(args.rows)
    rs = RuleSet.from_sql(book(args.book, seed=1), dialect="duckdb")
    cost = df.amount.to_numpy()
    t_pred, pred = timed(lambda: rs.predict(df))
    con = duckdb.connect()
    con.register("tx", df.assign(rid=np.arange(len(df))))
    sql = rs.to_sql("tx", dialect="duckdb").replace("SELECT *", "SELECT rid", 1)
    t_duck, ids = timed(lambda: con.execute(sql).fetchnumpy()["rid"])
    ref = np.zeros(len(df), np.int64)
    ref[ids] = 1
    assert (ref == pred).all(), "predict and DuckDB disagree"
    rows.append((f"predict, {args.book} rules x {args.rows:,} rows", t_pred, "DuckDB, same SQL", t_duck, "< 5 s"))
    t_eval, tab = timed(lambda: rs.evaluate(df, y, per_rule=True, fn_cost=cost, fp_cost=5.0))
    rows.append((f"evaluate(per_rule=True), {args.book} rules x {args.rows:,} rows", t_eval, "DuckDB, same SQL",
                 t_duck, "< 5 s"))

    print(f"load average: {os.getloadavg()}")
    print("| what | seconds | baseline | baseline s | ratio | goal |")
    print("|---|---|---|---|---|---|")
    for what, t, base, tb, goal in rows:
        print(f"| {what} | {t:.2f} | {base} | {tb:.2f} | {t / tb:.2f} | {goal} |")


if __name__ == "__main__":
    main()
