"""Decisions under an alert capacity: money of ranking by alert value vs by score, and speed.

Money (``--data card`` / ``fraud`` / ``drifting``): a ``CSXGBClassifier`` is trained on the first
part of the rows in time order and scores the rest; each period (hour or 6-hour block of the card
file, day of the synthetic sets) allows ``floor(rate * rows of the period)`` alerts for rate in
0.1 %, 0.5 %, 1 %, 2 %. Three policies on the scored rows, net money = money caught minus
alert cost (money saved against flagging nothing):

* alert value: ``bayes_minimum_risk(proba, costs, max_alert_rate=rate, periods=...)``, the top
  expected net money of an alert ``p (C_FN - C_TP) - (1 - p)(C_FP - C_TN)`` among positive ones;
* score: the top ``floor(rate * rows)`` probabilities of each period, whatever their money (what
  teams do today); also "score, v > 0 only": BMR's alerts queued by probability instead of value;
* uncapped BMR: every row with a positive alert value (not bound by the capacity).

Goal: alert value >= score at every capacity and on every set.

Speed (``--data speed``): capacity decisions on 10M rows with 365 periods (goal < 3 s), against
a plain ``np.argsort`` of the alert values measured in the same run.

    python benchmarks/bench_capacity.py --data card --period hour
    python benchmarks/bench_capacity.py --data card --period 6h
    python benchmarks/bench_capacity.py --data fraud
    python benchmarks/bench_capacity.py --data drifting
    python benchmarks/bench_capacity.py --data speed --rows 10000000 --periods 365
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from csboost_plugins import _capacity
from csboost_plugins.metrics import alert_value, bayes_minimum_risk
from csboost_plugins.xgb import CSXGBClassifier

RATES = (0.001, 0.005, 0.01, 0.02)
SHARED = Path("/work/shared/data")


def _card_path():
    root = os.environ.get("CSBOOST_DATA_DIR")
    path = Path(root) / "creditcard.csv.gz" if root else SHARED / "creditcard.csv.gz"
    if not path.exists():
        raise SystemExit(f"card file not found at {path}: set CSBOOST_DATA_DIR")
    return path


def load_card(period):
    """The ULB card file in time order (zero amounts dropped, as ``load_creditcard_fraud``), with its periods."""
    df = pd.read_csv(_card_path())
    df = df[df["Amount"] > 0].reset_index(drop=True)
    seconds = {"hour": 3600, "6h": 6 * 3600}[period]
    periods = (df["Time"] // seconds).astype(np.int64).to_numpy()
    X = df[[f"V{i}" for i in range(1, 29)] + ["Amount"]]
    amount = df["Amount"].to_numpy()
    C = np.column_stack([np.full(len(df), 10.0), amount, np.full(len(df), 10.0), np.zeros(len(df))])
    return X, df["Class"].to_numpy().astype(np.int64), C, periods


def load_fraud(n, n_periods):
    from csdt.datasets import make_fraud_transactions

    b = make_fraud_transactions(n, random_state=0)
    periods = np.arange(n) * n_periods // n  # rows in order, split into equal "days"
    return b.data, np.asarray(b.target), b.cost_matrix, periods


def load_drifting():
    try:
        from csdt.datasets import make_drifting_fraud
    except ImportError:
        return None
    b = make_drifting_fraud(random_state=0)
    periods = getattr(b, "periods", None)
    data = b.data
    if periods is None:
        col = next((c for c in ("period", "week", "day") if c in data.columns), None)
        if col is None:
            raise SystemExit("make_drifting_fraud returned no periods (bunch.periods or a period/week/day column)")
        periods, data = data[col].to_numpy(), data.drop(columns=[col])
    return data, np.asarray(b.target), b.cost_matrix, np.asarray(periods)


def net_money(decisions, y, C):
    gain = np.where(y == 1, C[:, 1] - C[:, 2], -(C[:, 0] - C[:, 3]))
    return float(decisions @ gain)


def money_table(X, y, C, periods, train_share, train_periods=None, seed=0):
    if train_periods is not None:  # the first periods train, the rest are scored
        labels = np.unique(periods)
        tr = np.isin(periods, labels[:train_periods])
    else:
        tr = np.arange(len(y)) < int(train_share * len(y))
    te = ~tr
    Xtr, Xte = X[tr], X[te]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CSXGBClassifier(n_estimators=200, learning_rate=0.1, max_depth=4, n_jobs=2,
                              random_state=seed).fit(Xtr, y[tr], cost_matrix=C[tr])
    p = est.predict_proba(Xte)[:, 1]
    yt, Ct, pt = y[te], C[te], periods[te]
    n_periods = np.unique(pt).size
    uncapped = bayes_minimum_risk(p, cost_matrix=Ct)
    rows = []
    for rate in RATES:
        cap = _capacity.check_capacity(len(p), max_alert_rate=rate, periods=pt)
        by_value = bayes_minimum_risk(p, cost_matrix=Ct, max_alert_rate=rate, periods=pt)
        by_score = _capacity.capped_decisions(p, np.ones(len(p), dtype=bool), cap)
        v = alert_value(p, cost_matrix=Ct)
        by_score_bmr = _capacity.capped_decisions(p, v > 0, cap)  # BMR's alerts, queued by score
        rows.append({"capacity": f"{100 * rate:g} % of rows per period", "alerts allowed": int(cap.caps.sum()),
                     "alerts (value)": int(by_value.sum()), "net money (value)": net_money(by_value, yt, Ct),
                     "alerts (score)": int(by_score.sum()), "net money (score)": net_money(by_score, yt, Ct),
                     "value - score": net_money(by_value, yt, Ct) - net_money(by_score, yt, Ct),
                     "net money (score, v > 0 only)": net_money(by_score_bmr, yt, Ct)})
    table = pd.DataFrame(rows)
    info = (f"train rows {int(tr.sum())}, scored rows {int(te.sum())} in {n_periods} periods "
            f"({int(yt.sum())} frauds), decision_ = {est.decision_}; uncapped BMR: {int(uncapped.sum())} alerts, "
            f"net money {net_money(uncapped, yt, Ct):,.0f}")
    return table, info


def speed(n, n_periods, repeats, eligible_all):
    from csboost_plugins.costs import check_costs

    rng = np.random.default_rng(0)
    p = rng.beta(0.3, 30.0, n)
    amount = rng.lognormal(3.5, 1.2, n)
    fp = 0.0 if eligible_all else 10.0  # fp = 0: every row with p > 0 has a positive alert value
    periods = np.sort(rng.integers(0, n_periods, n))  # rows in time order, as a day column would be
    v = alert_value(p, fp_cost=fp, fn_cost=amount)
    times = {k: [] for k in ("argsort", "total", "costs", "periods", "value", "selection")}

    def timed(key, f):
        t0 = time.perf_counter()
        out = f()
        times[key].append(time.perf_counter() - t0)
        return out

    for _ in range(repeats):
        timed("argsort", lambda: np.argsort(v))
        d = timed("total", lambda: bayes_minimum_risk(p, fp_cost=fp, fn_cost=amount, max_alert_rate=0.01,
                                                      periods=periods))
        c = timed("costs", lambda: check_costs(n, fp_cost=fp, fn_cost=amount))
        cap = timed("periods", lambda: _capacity.check_capacity(n, max_alert_rate=0.01, periods=periods))
        vv = timed("value", lambda: _capacity.ranking_value(p, dict(cost_matrix=c)))
        timed("selection", lambda: _capacity.capped_decisions(vv, vv > 0, cap))
    best = {k: min(t) for k, t in times.items()}
    return {"rows": n, "periods": n_periods, "eligible rows": int((v > 0).sum()), "alerts": int(d.sum()),
            "np.argsort(values) s": best["argsort"], "bayes_minimum_risk(capacity) s": best["total"],
            "ratio to argsort": best["total"] / best["argsort"], "of which: check_costs s": best["costs"],
            "period codes s": best["periods"], "alert value s": best["value"], "selection s": best["selection"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", choices=["card", "fraud", "drifting", "speed"], default="card")
    ap.add_argument("--period", choices=["hour", "6h"], default="hour", help="card file periods")
    ap.add_argument("--rows", type=int, default=10_000_000, help="speed: rows")
    ap.add_argument("--periods", type=int, default=365, help="speed: periods")
    ap.add_argument("--repeats", type=int, default=3, help="speed: best of this many runs")
    ap.add_argument("--fraud-rows", type=int, default=400_000)
    a = ap.parse_args(argv)
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", lambda v: f"{v:,.0f}")
    if a.data == "speed":
        _capacity.capped_decisions(np.ones(3), np.ones(3, dtype=bool),
                                   _capacity.check_capacity(3, max_alerts=1))  # compile (or load) the kernel first
        pd.set_option("display.float_format", lambda v: f"{v:.3f}")
        rows = [speed(a.rows, a.periods, a.repeats, eligible_all) for eligible_all in (False, True)]
        print(pd.DataFrame(rows).to_string(index=False))
        return
    if a.data == "card":
        X, y, C, periods = load_card(a.period)
        table, info = money_table(X, y, C, periods, train_share=0.5)
        print(f"card file, periods = {a.period}: {info}")
    elif a.data == "fraud":
        X, y, C, periods = load_fraud(a.fraud_rows, 56)
        table, info = money_table(X, y, C, periods, train_share=0.5)
        print(f"make_fraud_transactions({a.fraud_rows}), 56 equal periods in row order (the first 28 train): {info}")
    else:
        loaded = load_drifting()
        if loaded is None:
            print("skipped: csdt.datasets.make_drifting_fraud is not importable in this tree")
            return
        X, y, C, periods = loaded
        table, info = money_table(X, y, C, periods, train_share=None, train_periods=2)
        print(f"make_drifting_fraud(random_state=0), first 2 periods train: {info}")
    print(table.to_string(index=False))
    ok = (table["value - score"] >= 0).all()
    ok_bmr = (table["net money (value)"] >= table["net money (score, v > 0 only)"]).all()
    print(f"alert value >= score at every capacity: {ok}; >= score among positive alert values: {ok_bmr}")


if __name__ == "__main__":
    main()
