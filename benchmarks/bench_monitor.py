"""Rule monitoring over periods (RuleSet.monitor): false flags, detection and speed.

Detection: over seeds of csdt.datasets.make_drifting_fraud (12 periods, drift at period 6), a
hand-written RuleSet with known behaviour: the "fading" pattern's rule (precision halves at the
drift period, then keeps halving), the "emerging" pattern's rule (precision 0.02 -> 0.5), the
"stationary" pattern's rule and random stationary rules (boxes inside 10 <= amount <= 150, away
from both drifting patterns, so their precision and alert rate do not change). Reported: the
share of seeds where the fading rule is flagged at the first changed period (goal >= 90 %), and
the false flags on stationary (rule, period) cells, per cell and per seed (any false flag in
the table: goal <= alpha).

Speed: monitor of 100 rules x 52 periods on --rows rows (goal < 30 s at 10M), against a baseline
measured in the same run: RuleSet.evaluate(per_rule=True) on each period's rows in a loop (what a
user writes today; it gives no unique money and no test).

    python benchmarks/bench_monitor.py detection [--seeds 20] [--rows-per-period 20000] [--reference both]
    python benchmarks/bench_monitor.py speed [--rows 10000000]
    python benchmarks/bench_monitor.py png [--out /tmp]   # the heat map at 50 rules x 52 weeks
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


def detection(args):
    alpha = args.alpha
    rows = []
    for seed in range(args.seeds):
        b = make_drifting_fraud(n_periods=12, rows_per_period=args.rows_per_period, drift_period=6,
                                random_state=seed)
        names = list(b.data.columns)
        rng = np.random.default_rng(1000 + seed)
        rs = RuleSet(pattern_rules(names) + random_stationary_rules(names, args.stationary_rules, rng, b.data),
                     feature_names=names)
        k = len(rs)
        refs = (("first period", None), ("periods 0-5", list(range(6))))
        for ref_name, ref in refs if args.reference == "both" else refs[:1] if args.reference == "first" else refs[1:]:
            tab = rs.monitor(b.data, b.target, b.periods, reference=ref, alpha=alpha, fn_cost=b.fn_cost, fp_cost=10.0)
            drift = tab["drift"].unstack("rule")
            pv = tab["precision_pvalue"].unstack("rule")
            monitored = [p for p in drift.index if p not in (ref if ref is not None else [0])]
            fading, emerging = rs.names[0], rs.names[1]
            stat_rules = rs.names[2:]  # the stationary pattern's rule and the random ones
            pre = [p for p in monitored if p < 6]
            cells = drift.loc[monitored, stat_rules]
            cells_pre = drift.loc[pre, [fading, emerging, ALL]]  # drifting rules before the drift
            false = int(cells.to_numpy().sum() + cells_pre.to_numpy().sum())
            n_cells = cells.size + cells_pre.size
            raw = pv.loc[monitored, stat_rules].to_numpy().ravel()
            raw = raw[~np.isnan(raw)]
            rows.append({"seed": seed, "reference": ref_name, "fading flagged at drift": bool(drift.loc[6, fading]),
                         "emerging flagged at drift": bool(drift.loc[6, emerging]), "false flags": false,
                         "stationary cells": n_cells, "raw p<0.05 share": float((raw < 0.05).mean()),
                         "fading alerts at drift": float(tab.loc[(6, fading), "alerts"]),
                         "level": tab.attrs["level"]})
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
    print(f"make_drifting_fraud(12 periods x {args.rows_per_period} rows, drift at 6), {len(rs)} rules "
          f"(fading, emerging, stationary + {args.stationary_rules} random stationary), alpha={alpha}")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary.T)


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("part", choices=["detection", "speed", "png"])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rows-per-period", type=int, default=20_000)
    ap.add_argument("--stationary-rules", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--reference", choices=["both", "first", "pooled"], default="both")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--out", default="/tmp")
    args = ap.parse_args()
    {"detection": detection, "speed": speed, "png": png}[args.part](args)


if __name__ == "__main__":
    main()
