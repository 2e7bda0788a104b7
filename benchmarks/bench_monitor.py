"""Rule monitoring over periods (RuleSet.monitor): false flags, detection and speed.

Detection: over seeds of csdt.datasets.make_drifting_fraud (12 periods, drift at period 6), a
hand-written RuleSet with known behaviour: the "fading" pattern's rule (precision halves at the
drift period, then keeps halving), the "emerging" pattern's rule (precision 0.02 -> 0.5), the
"stationary" pattern's rule and random stationary rules (boxes inside 10 <= amount <= 150, away
from both drifting patterns, so their precision and alert rate do not change). Reported: the
share of seeds where the fading rule is flagged at the first changed period (goal >= 90 %), and
the false flags on stationary (rule, period) cells, per cell and per seed (any false flag in
the table: goal <= alpha).

Power: the same at 20,000 and 50,000 rows per period (about 113 and 282 alerts of the fading rule
a period), against the first period alone and against periods 0-5 pooled: detection rate at the
first changed period (95 % Clopper-Pearson interval), seeds with any false flag, false flags per
stationary cell, and the normal-approximation power of an ideal two-proportion test at the same
Bonferroni level on the fading rule's expected counts (0.6 vs 0.3): what any level-alpha test
can reach with that many alerts.

Speed: monitor of 100 rules x 52 periods on --rows rows (goal < 30 s at 10M), against a baseline
measured in the same run: RuleSet.evaluate(per_rule=True) on each period's rows in a loop (what a
user writes today; it gives no unique money and no test).

    python benchmarks/bench_monitor.py detection [--seeds 20] [--rows-per-period 20000] [--reference both]
    python benchmarks/bench_monitor.py power [--seeds-20k 100] [--seeds-50k 50]
    python benchmarks/bench_monitor.py speed [--rows 10000000]
    python benchmarks/bench_monitor.py png [--out /tmp]   # the heat map at 50 rules x 52 weeks
    PYTHONPATH=. python benchmarks/bench_monitor.py duckdb [--rows 1000000] [--books 14,100] [--threads 2]

DuckDB: RuleSet.monitor over 52 periods (time-ordered rows) against DuckDB computing the same per-rule
per-period hit counts on the same pandas frame (``GROUP BY period`` with ``SUM(CASE WHEN (rule) IS TRUE THEN 1
ELSE 0 END)`` per rule), both with --threads threads; the books and rows of bench_rules_engine.py (the
14-rule expert book, generated books). Best of 3; the counts are asserted equal; ratio = monitor / DuckDB.
"""

import argparse
import os
import time

import numpy as np
import pandas as pd

from csboost_plugins.rules import Interval, Rule, RuleSet
from csdt.datasets import make_drifting_fraud

ALL = "(all rules)"


def pattern_rules(names):
    """The three rules matching the generator's patterns: fading, emerging, stationary."""
    col = {c: i for i, c in enumerate(names)}
    fading = Rule([Interval(col["amount"], upper=10.0, upper_closed=False), Interval(col["velocity_1h"], lower=3.0)])
    emerging = Rule([Interval(col["new_device"], lower=0.5), Interval(col["amount"], lower=150.0,
                                                                      lower_closed=False)])
    stationary = Rule([Interval(col["foreign"], lower=0.5), Interval(col["hour"], upper=5.0, upper_closed=False),
                       Interval(col["amount"], lower=10.0, upper=150.0)])
    return [fading, emerging, stationary]


def random_stationary_rules(names, k, rng, X):
    """k boxes inside 10 <= amount <= 150 (disjoint from the drifting patterns) on 1-2 other columns,
    each covering roughly 0.5-5 % of rows."""
    col = {c: i for i, c in enumerate(names)}
    others = ["hour", "account_age_days", "merchant_risk", "noise_0", "noise_1", "velocity_1h"]
    rules = []
    for _ in range(k):
        conds = [Interval(col["amount"], lower=10.0, upper=150.0)]
        for f in rng.choice(others, size=rng.integers(1, 3), replace=False):
            q = rng.uniform(0.0, 0.85)
            lo, hi = np.quantile(X[f].to_numpy()[:200_000], [q, min(1.0, q + rng.uniform(0.03, 0.15))])
            conds.append(Interval(col[f], lower=float(lo), upper=float(hi)))
        rules.append(Rule(conds))
    return rules


REFERENCES = (("first period", None), ("periods 0-5", list(range(6))))


def seed_rows(seed, rows_per_period, stationary_rules, alpha, refs):
    """One seed of the 12-period generator (drift at 6): per reference, what monitor flags."""
    b = make_drifting_fraud(n_periods=12, rows_per_period=rows_per_period, drift_period=6, random_state=seed)
    names = list(b.data.columns)
    rng = np.random.default_rng(1000 + seed)
    rs = RuleSet(pattern_rules(names) + random_stationary_rules(names, stationary_rules, rng, b.data),
                 feature_names=names)
    fading, emerging = rs.names[0], rs.names[1]
    stat_rules = rs.names[2:]  # the stationary pattern's rule and the random ones
    rows = []
    for ref_name, ref in refs:
        tab = rs.monitor(b.data, b.target, b.periods, reference=ref, alpha=alpha, fn_cost=b.fn_cost, fp_cost=10.0)
        drift = tab["drift"].unstack("rule")
        pv = tab["precision_pvalue"].unstack("rule")
        ref_periods = ref if ref is not None else [0]
        monitored = [p for p in drift.index if p not in ref_periods]
        pre = [p for p in monitored if p < 6]
        cells = drift.loc[monitored, stat_rules]
        cells_pre = drift.loc[pre, [fading, emerging, ALL]]  # drifting rules before the drift
        false = int(cells.to_numpy().sum() + cells_pre.to_numpy().sum())
        raw = pv.loc[monitored, stat_rules].to_numpy().ravel()
        raw = raw[~np.isnan(raw)]
        fading_alerts = tab.xs(fading, level="rule")["alerts"]
        rows.append({"seed": seed, "rows per period": rows_per_period, "reference": ref_name,
                     "fading flagged at drift": bool(drift.loc[6, fading]),
                     "emerging flagged at drift": bool(drift.loc[6, emerging]), "false flags": false,
                     "stationary cells": cells.size + cells_pre.size, "raw p<0.05 share": float((raw < 0.05).mean()),
                     "fading alerts at drift": float(fading_alerts.loc[6]),
                     "fading alerts in reference": float(fading_alerts.loc[ref_periods].sum()),
                     "fading p at drift": float(pv.loc[6, fading]), "level": tab.attrs["level"]})
    return rows


def detection(args):
    alpha = args.alpha
    refs = REFERENCES if args.reference == "both" else REFERENCES[:1] if args.reference == "first" else REFERENCES[1:]
    rows = []
    for seed in range(args.seeds):
        rows += seed_rows(seed, args.rows_per_period, args.stationary_rules, alpha, refs)
    df = pd.DataFrame(rows)
    summary = df.groupby("reference").agg(
        seeds=("seed", "size"),
        fading_detected=("fading flagged at drift", "mean"),
        emerging_detected=("emerging flagged at drift", "mean"),
        false_flags=("false flags", "sum"),
        stationary_cells=("stationary cells", "sum"),
        seeds_with_a_false_flag=("false flags", lambda v: float((v > 0).mean())),
        raw_p_below_005=("raw p<0.05 share", "mean"),
        bonferroni_level=("level", "first"),
    )
    summary["false_flag_rate_per_cell"] = summary["false_flags"] / summary["stationary_cells"]
    print(f"make_drifting_fraud(12 periods x {args.rows_per_period} rows, drift at 6), "
          f"{3 + args.stationary_rules} rules (fading, emerging, stationary + {args.stationary_rules} random "
          f"stationary), alpha={alpha}")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary.T)


def fading_alert_probability():
    """P(amount < 10 and velocity_1h >= 3) under the generator: amount = round(LogNormal(3.6, 1.1), 2) + 0.01,
    velocity_1h ~ Poisson(0.8), independent; the fading rule's expected alerts per row."""
    from scipy.stats import norm, poisson

    return float(norm.cdf((np.log(9.985) - 3.6) / 1.1) * poisson.sf(2, 0.8))


def ideal_power(n_ref, n_new, p_ref, p_new, level):
    """Normal-approximation power of the two-sided two-proportion z-test at ``level``: reference
    precision ``p_ref`` on ``n_ref`` alerts against ``p_new`` on ``n_new`` alerts, the null variance
    pooled, the alternative's unpooled (the textbook sample-size formula)."""
    from scipy.stats import norm

    z = norm.isf(level / 2)
    pbar = (n_ref * p_ref + n_new * p_new) / (n_ref + n_new)
    s0 = np.sqrt(pbar * (1 - pbar) * (1 / n_ref + 1 / n_new))
    s1 = np.sqrt(p_ref * (1 - p_ref) / n_ref + p_new * (1 - p_new) / n_new)
    d = abs(p_ref - p_new)
    return float(norm.cdf((d - z * s0) / s1) + norm.cdf((-d - z * s0) / s1))


def clopper_pearson(k, n, conf=0.95):
    from scipy.stats import beta

    lo = beta.ppf((1 - conf) / 2, k, n - k + 1) if k > 0 else 0.0
    hi = beta.isf((1 - conf) / 2, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def power(args):
    """Detection at the first changed period against the reference chosen, with the power any
    level-alpha test can reach on the fading rule's counts."""
    alpha, q = args.alpha, fading_alert_probability()
    rows = []
    t0 = time.perf_counter()
    for rows_per_period, n_seeds in ((20_000, args.seeds_20k), (50_000, args.seeds_50k)):
        for seed in range(n_seeds):
            rows += seed_rows(seed, rows_per_period, args.stationary_rules, alpha, REFERENCES)
    wall = time.perf_counter() - t0
    df = pd.DataFrame(rows)
    out = []
    for (rpp, ref), g in df.groupby(["rows per period", "reference"], sort=False):
        n, k = len(g), int(g["fading flagged at drift"].sum())
        lo, hi = clopper_pearson(k, n)
        n_ref_periods = 1 if ref == "first period" else 6
        expected = q * rpp  # the fading rule's expected alerts per period
        level = float(g["level"].iloc[0])
        out.append({"rows / period": rpp, "reference": ref, "seeds": n,
                    "fading alerts / period (expected)": round(expected, 1),
                    "fading alerts, reference (mean)": round(g["fading alerts in reference"].mean(), 1),
                    "fading alerts, period 6 (mean)": round(g["fading alerts at drift"].mean(), 1),
                    "Bonferroni level": f"{level:.2e}",
                    "detected at period 6": f"{k / n:.0%} [{lo:.0%}, {hi:.0%}]",
                    "median p at period 6": f"{g['fading p at drift'].median():.1e}",
                    "ideal test power (normal approx.)": f"{ideal_power(n_ref_periods * expected, expected, 0.6, 0.3, level):.0%}",
                    "emerging detected": f"{g['emerging flagged at drift'].mean():.0%}",
                    "seeds with any false flag": f"{(g['false flags'] > 0).mean():.0%} ({int((g['false flags'] > 0).sum())} of {n})",
                    "false flags per stationary cell": f"{g['false flags'].sum() / g['stationary cells'].sum():.1e} "
                                                      f"({int(g['false flags'].sum())} of {int(g['stationary cells'].sum()):,})"})
    table = pd.DataFrame(out)
    print(f"make_drifting_fraud(12 periods, drift at 6), {3 + args.stationary_rules} rules, alpha={alpha}; "
          f"fading rule: precision 0.6 -> 0.3 at period 6; {wall:.0f} s wall")
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 40):
        print(table.T.to_string())
    # alerts per period the ideal test needs for 90 % power, at each reference's own Bonferroni level
    for ref, n_ref_periods in (("first period", 1), ("periods 0-5", 6)):
        level = float(df.loc[df["reference"] == ref, "level"].iloc[0])
        need = next(n for n in range(10, 100_000) if ideal_power(n_ref_periods * n, n, 0.6, 0.3, level) >= 0.9)
        print(f"ideal two-proportion test, reference {ref} (level {level:.2e}), 0.6 vs 0.3: 90 % power needs "
              f"{need} alerts a period")
    print(f"load average {os.getloadavg()}")


def speed(args):
    n_periods = 52
    rows_per = args.rows // n_periods
    t0 = time.perf_counter()
    b = make_drifting_fraud(n_periods=n_periods, rows_per_period=rows_per, drift_period=30, random_state=0)
    t_gen = time.perf_counter() - t0
    names = list(b.data.columns)
    rs = RuleSet(pattern_rules(names) + random_stationary_rules(names, 97, np.random.default_rng(0), b.data),
                 feature_names=names)
    X, y, amount, periods = b.data, b.target, b.fn_cost, b.periods
    print(f"{len(y):,} rows x {n_periods} periods, {len(rs)} rules (data generated in {t_gen:.1f} s)")
    rs.monitor(X[:1000], y[:1000], periods[:1000])  # compiles (or loads) the kernels outside the timing
    t0, c0 = time.perf_counter(), time.process_time()
    tab = rs.monitor(X, y, periods, fn_cost=amount, fp_cost=10.0)
    t_mon, c_mon = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    base = []
    for p in np.unique(periods):
        m = periods == p
        base.append(rs.evaluate(X[m], y[m], fn_cost=amount[m], fp_cost=10.0, per_rule=True))
    t_base, c_base = time.perf_counter() - t0, time.process_time() - c0
    # the two agree on what both compute
    got = tab.xs(rs.names[0], level="rule")["alerts"].to_numpy()
    want = np.array([t.loc[1, "flagged"] for t in base])
    assert np.array_equal(got, want)
    print(pd.DataFrame({"wall s": [t_mon, t_base], "CPU s (both cores)": [c_mon, c_base],
                        "CPU ratio to monitor": [1.0, c_base / c_mon]},
                       index=["RuleSet.monitor (one pass, with tests)", "evaluate(per_rule=True) per period loop"]
                       ).round(2).to_string())
    print(f"drift flags: {int(tab['drift'].sum())} of {len(tab)} cells; load average {os.getloadavg()}")


def png(args):
    from matplotlib import use

    use("Agg")
    from csboost_plugins.metrics import money_by_period
    from csboost_plugins.plot import MoneyByPeriodDisplay, RuleMonitorDisplay

    b = make_drifting_fraud(n_periods=52, rows_per_period=20_000, drift_period=30, random_state=0)
    names = list(b.data.columns)
    rs = RuleSet(pattern_rules(names) + random_stationary_rules(names, 47, np.random.default_rng(0), b.data),
                 feature_names=names)
    weeks = np.array([f"2026-W{w + 1:02d}" for w in range(52)])[b.periods]
    tab = rs.monitor(b.data, b.target, weeks, reference=[f"2026-W{w:02d}" for w in range(1, 14)],
                     fn_cost=b.fn_cost, fp_cost=10.0)
    for value in ("precision", "net_money"):
        d = RuleMonitorDisplay.from_monitor(tab, value=value)
        path = os.path.join(args.out, f"rule_monitor_{value}.png")
        d.figure_.savefig(path, dpi=110, bbox_inches="tight")
        print(path)
    d = MoneyByPeriodDisplay.from_table(money_by_period(b.target, rs.predict(b.data), weeks, fn_cost=b.fn_cost,
                                                        fp_cost=10.0))
    path = os.path.join(args.out, "money_by_period.png")
    d.figure_.savefig(path, dpi=110, bbox_inches="tight")
    print(path)


def duck(args):
    import duckdb
    import numba

    from bench_rules_engine import EXPERT, best, frame, generated

    numba.set_num_threads(args.threads)
    n = args.rows
    X = frame(n)
    rng = np.random.default_rng(1)
    y = (rng.random(n) < 0.01).astype(int)
    periods = np.sort(rng.integers(0, 52, n))  # weeks, rows in time order
    con = duckdb.connect()
    con.execute(f"SET threads TO {args.threads}")
    con.register("t", X.assign(period=periods))
    print(f"rows {n:,} x 52 periods, threads {args.threads} (numba and DuckDB {duckdb.__version__}), load average "
          f"before {tuple(round(v, 2) for v in os.getloadavg())}")
    rows = []
    for k in (int(b) for b in args.books.split(",")):
        rs = RuleSet.from_sql(EXPERT if k == 14 else generated(k), dialect="duckdb")
        rs.monitor(X.iloc[::1000], y[::1000], periods[::1000])  # compiles (or loads) the kernels outside the timing
        sums = ", ".join(f"SUM(CASE WHEN ({r.to_sql('duckdb')}) IS TRUE THEN 1 ELSE 0 END) AS h{j}"
                         for j, r in enumerate(rs))
        sql = f"SELECT period, {sums} FROM t GROUP BY period ORDER BY period"
        counts, t_duck = best(lambda: con.execute(sql).fetchnumpy())
        tab, t_mon = best(lambda: rs.monitor(X, y, periods))
        alerts = tab["alerts"].to_numpy().reshape(52, k + 1)
        for j in range(k):
            assert np.array_equal(alerts[:, j], np.asarray(counts[f"h{j}"], dtype=np.float64)), f"rule {j} differs"
        rows.append((k, t_mon, t_duck))
    print(f"load average after {tuple(round(v, 2) for v in os.getloadavg())}\n")
    print("| rules | rows | RuleSet.monitor s (52 periods, with tests) | DuckDB GROUP BY s | ratio |\n|---|---|---|---|---|")
    for k, t_mon, t_duck in rows:
        print(f"| {k} | {n:,} | {t_mon:.3f} | {t_duck:.3f} | {t_mon / t_duck:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("part", choices=["detection", "power", "speed", "png", "duckdb"])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rows-per-period", type=int, default=20_000)
    ap.add_argument("--seeds-20k", type=int, default=100, help="power: seeds at 20,000 rows per period")
    ap.add_argument("--seeds-50k", type=int, default=50, help="power: seeds at 50,000 rows per period")
    ap.add_argument("--stationary-rules", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--reference", choices=["both", "first", "pooled"], default="both")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--out", default="/tmp")
    ap.add_argument("--books", default="14,100")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    {"detection": detection, "power": power, "speed": speed, "png": png, "duckdb": duck}[args.part](args)


if __name__ == "__main__":
    main()
