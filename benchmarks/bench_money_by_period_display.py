"""MoneyByPeriodDisplay over many periods: money_by_period's table and the drawing, at 1k, 10k and 100k periods.

    PYTHONPATH=. python benchmarks/bench_money_by_period_display.py [--periods 1000,10000,100000] [--rows 1000000]
        [--old-up-to 10000]

Rows: --rows transactions spread over the periods (integer period labels, time order), 2 % frauds, an alert
costing 5 and a miss its amount; decisions flag 3 % of rows. Per period count (seconds, one run each):
``money_by_period`` (the table), ``MoneyByPeriodDisplay.from_table`` plus a full ``canvas.draw()`` (the
drawing, Agg), the artists on the axes; and, up to --old-up-to periods, the same drawing with one bar per period
(the display's drawing before: matplotlib's ``ax.bar``, a Rectangle per period and series), the baseline of the
ratio, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _draw(table, bars_up_to):
    import matplotlib.pyplot as plt

    from csboost_plugins.plot import MoneyByPeriodDisplay

    old = MoneyByPeriodDisplay.MAX_BARS
    if bars_up_to is not None:
        MoneyByPeriodDisplay.MAX_BARS = bars_up_to
    try:
        t = time.perf_counter()
        d = MoneyByPeriodDisplay.from_table(table)
        d.figure_.canvas.draw()
        secs = time.perf_counter() - t
        artists = len(d.ax_.patches) + len(d.ax_.collections) + len(d.ax_.lines) + len(d.alerts_ax_.lines)
    finally:
        MoneyByPeriodDisplay.MAX_BARS = old
    plt.close(d.figure_)
    return secs, artists


def main(periods, n, old_up_to):
    from matplotlib import use

    use("Agg")
    from csboost_plugins.metrics import money_by_period

    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.02).astype(np.int64)
    amount = np.round(rng.lognormal(4, 1, n), 2)
    d = (rng.random(n) < 0.03).astype(np.int64)
    print(f"rows {n:,}; load average before {tuple(round(v, 2) for v in os.getloadavg())}")
    _draw(money_by_period(y[:1000], d[:1000], np.arange(1000) % 10, fp_cost=5.0, fn_cost=amount[:1000]), 10**9)
    out = []
    for k in periods:
        p = np.sort(rng.integers(0, k, n))
        p[:k] = np.arange(k)  # every period has a row
        p.sort()
        t = time.perf_counter()
        table = money_by_period(y, d, p, fp_cost=5.0, fn_cost=amount)
        t_table = time.perf_counter() - t
        t_draw, artists = _draw(table, None)
        t_old, old_artists = _draw(table, 10**9) if k <= old_up_to else (float("nan"), None)
        out.append((k, t_table, t_draw, artists, t_old, old_artists))
    print(f"load average after {tuple(round(v, 2) for v in os.getloadavg())}\n")
    print("| periods | money_by_period s | display + draw s | artists | one bar per period s (before) | artists "
          "| ratio |\n|---|---|---|---|---|---|---|")
    for k, t_table, t_draw, artists, t_old, old_artists in out:
        print(f"| {k:,} | {t_table:.3f} | {t_draw:.3f} | {artists} | {t_old:.3f} | {old_artists or '-'} | "
              f"{t_draw / t_old:.3f} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--periods", default="1000,10000,100000")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--old-up-to", type=int, default=10_000)
    a = ap.parse_args()
    main([int(v) for v in a.periods.split(",")], a.rows, a.old_up_to)
