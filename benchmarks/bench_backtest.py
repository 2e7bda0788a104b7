"""Backtesting week after week: the handbook's protocol, its card precision@100, and money.

The protocol of "Reproducible Machine Learning for Credit Card Fraud Detection - Practical
Handbook" (Le Borgne, Siblini, Lebichot, Bontempi, 2022, chapters 3-5): train on 7 days, skip a
7-day delay whose labels are not yet known, test on the next 7 days, remove the cards already known
to be compromised from each test day, and count card precision@100 per day (cards detected on an
earlier test day removed). Its published baseline on its simulated transactions (one step, training
from 2018-07-25, 15 features):

    logistic regression  AUC 0.871  AP 0.606  card precision@100 0.291
    random forest        AUC 0.867  AP 0.658  card precision@100 0.287
    xgboost              AUC 0.862  AP 0.639  card precision@100 0.273

Data:

- ``--handbook DIR``: a local copy of the handbook's simulated transactions (its daily pandas pickles,
  ``2018-04-01.pkl`` ...; raw columns ``TX_DATETIME``, ``CUSTOMER_ID``, ``TERMINAL_ID``,
  ``TX_AMOUNT``, ``TX_FRAUD``). The 15 features are recomputed here by
  ``csdt.datasets.card_transaction_features`` from the handbook's definitions, not read from the files.
  Only this script reads those pickles; the library never does.
- without it: ``csdt.datasets.make_card_transactions`` (the same fraud patterns, written from the
  handbook's description), at the size given by ``--customers`` / ``--terminals`` / ``--days``, with
  its label times (frauds known 1-14 days after, legitimate rows after 7) in the money runs.

Then, over ``--steps`` weekly steps (prequential, a week apart, each model refitted), money per test
day with paired standard errors against a plain logistic regression deciding by Bayes minimum risk:

- the cost-sensitive xgboost booster (``CSXGBClassifier``, Bayes minimum risk on the rows' costs);
- the same under a capacity of ``--cards`` cards a day ranked by expected money (``max_alerts`` per
  entity), and ranked by score (the top cards by their highest score that day);
- the plain logistic regression (Bayes minimum risk on its probabilities), the baseline.

Money: a missed fraud costs its amount, an alert costs ``--alert-cost`` (a reviewed fraud too).

Usage::

    python benchmarks/bench_backtest.py [--handbook DIR] [--steps 8] [--out results.json]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import time

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csboost_plugins.metrics import card_precision_at_k
from csboost_plugins.model_selection import walk_forward
from csboost_plugins.xgb import CSXGBClassifier
from csdt.datasets import card_transaction_features, make_card_transactions

PUBLISHED = {"logistic regression": (0.871, 0.606, 0.291), "random forest": (0.867, 0.658, 0.287),
             "xgboost": (0.862, 0.639, 0.273)}


def load_handbook(path, first="2018-04-01", last="2018-09-30"):
    """The handbook's daily pickles between two dates, raw columns renamed to the library's."""
    files = sorted(glob.glob(os.path.join(path, "*.pkl")))
    files = [f for f in files if first <= os.path.basename(f)[:10] <= last]
    if not files:
        raise SystemExit(f"no daily .pkl files between {first} and {last} in {path}")
    raw = pd.concat([pd.read_pickle(f) for f in files], ignore_index=True)
    frame = pd.DataFrame({"time": pd.to_datetime(raw["TX_DATETIME"]), "customer_id": raw["CUSTOMER_ID"].to_numpy(),
                          "terminal_id": raw["TERMINAL_ID"].to_numpy(), "amount": raw["TX_AMOUNT"].to_numpy(),
                          "fraud": raw["TX_FRAUD"].to_numpy().astype(np.int64)})
    return frame.sort_values("time", kind="stable").reset_index(drop=True)


def load(args):
    """(features, labels, times, entity, amounts, label times or None, source) of the stream."""
    t0 = time.perf_counter()
    if args.handbook:
        frame = load_handbook(args.handbook)
        X, label_times = card_transaction_features(frame), None
        source = f"handbook files in {args.handbook}"
    else:
        d = make_card_transactions(n_customers=args.customers, n_terminals=args.terminals, n_days=args.days,
                                   random_state=args.seed, alert_cost=args.alert_cost)
        frame, X, label_times = d.frame, d.data, d.label_times
        source = (f"make_card_transactions(n_customers={args.customers}, n_terminals={args.terminals}, "
                  f"n_days={args.days}, random_state={args.seed})")
    y = frame["fraud"].to_numpy()
    print(f"data: {source}: {len(y):,} transactions, {int(y.sum()):,} frauds, "
          f"{frame['customer_id'].nunique():,} cards ({time.perf_counter() - t0:.1f} s with features)")
    return (X, y, frame["time"].to_numpy(), frame["customer_id"].to_numpy(),
            frame["amount"].to_numpy(dtype=np.float64), label_times, source)


def logistic():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def _days(p):
    t = p["time"]
    return t.dt.floor("D") if np.issubdtype(t.dtype, np.datetime64) else np.floor(t)


def reproduction(X, y, times, entity, amount, args):
    """One step of the handbook's protocol from ``args.start``: AUC, AP and card precision@100 of three models."""
    from sklearn.ensemble import RandomForestClassifier
    from xgboost import XGBClassifier

    models = {"logistic regression": logistic(),
              "random forest": RandomForestClassifier(n_estimators=100, n_jobs=args.jobs, random_state=0),
              "xgboost": XGBClassifier(n_estimators=100, max_depth=6, learning_rate=0.3, n_jobs=args.jobs,
                                       random_state=0)}
    out = {}
    for name, model in models.items():
        r = walk_forward(model, X, y, times=times, entity=entity, start=args.start, n_steps=1, exclude_known=True,
                         fp_cost=args.alert_cost, fn_cost=amount, tp_cost=args.alert_cost)
        p = r.predictions
        cp = card_precision_at_k(p["y_true"], p["y_score"], entity=p["entity"], periods=_days(p), k=args.cards)
        out[name] = (roc_auc_score(p["y_true"], p["y_score"]), average_precision_score(p["y_true"], p["y_score"]),
                     cp)
    return out


def by_score(result, cards, alert_cost, amount):
    """Net money per (step, day) of alerting the top ``cards`` cards by their highest score that day."""
    rows = []
    for s, p in result.predictions.groupby("step", sort=True):
        a = amount[p["row"].to_numpy()]
        _, per = card_precision_at_k(p["y_true"], p["y_score"], entity=p["entity"], periods=_days(p), k=cards,
                                     exclude_detected=False, fp_cost=alert_cost, fn_cost=a, tp_cost=alert_cost,
                                     return_periods=True)
        rows.append(pd.DataFrame({"step": s, "period": per["period"].to_numpy(),
                                  "net_money": per["net_money"].to_numpy()}))
    return pd.concat(rows, ignore_index=True)


def paired(a, b):
    """Mean and standard error of the paired per-(step, day) difference of net money, a - b."""
    m = a.merge(b, on=["step", "period"], suffixes=("_a", "_b"))
    d = m["net_money_a"].to_numpy() - m["net_money_b"].to_numpy()
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)), int(d.size)


def money(X, y, times, entity, amount, label_times, args):
    """Walk-forward money of the four decision policies over ``args.steps`` weekly steps."""
    kw = dict(times=times, entity=entity, label_times=label_times, n_steps=args.steps, start=args.money_start,
              exclude_known=True, fp_cost=args.alert_cost, fn_cost=amount, tp_cost=args.alert_cost,
              n_jobs=args.jobs)
    booster = CSXGBClassifier(n_estimators=100, max_depth=4, learning_rate=0.1, n_jobs=1, random_state=0)
    runs, seconds = {}, {}
    for name, est, extra in [("logistic regression, BMR", logistic(), {}),
                             ("CSXGB, BMR", booster, {}),
                             (f"CSXGB, {args.cards} cards/day by value", booster, {"max_alerts": args.cards})]:
        t0 = time.perf_counter()
        runs[name] = walk_forward(est, X, y, **kw, **extra)
        seconds[name] = time.perf_counter() - t0
    per = {name: r.periods[["step", "period", "net_money"]] for name, r in runs.items()}
    per[f"CSXGB, {args.cards} cards/day by score"] = by_score(runs["CSXGB, BMR"], args.cards, args.alert_cost,
                                                              amount)
    return runs, per, seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--handbook", help="folder of the handbook's daily .pkl files (read only here)")
    ap.add_argument("--customers", type=int, default=5000)
    ap.add_argument("--terminals", type=int, default=10000)
    ap.add_argument("--days", type=int, default=183)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", default="2018-07-25", help="first training day of the reproduction step")
    ap.add_argument("--money-start", default="2018-07-11", help="first training day of the weekly money steps")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--cards", type=int, default=100)
    ap.add_argument("--alert-cost", type=float, default=5.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="write the figures as JSON")
    args = ap.parse_args(argv)
    X, y, times, entity, amount, label_times, source = load(args)
    rep = reproduction(X, y, times, entity, amount, args)
    print(f"\nOne step from {args.start} (train 7 days, delay 7, test 7, known cards removed):")
    print(f"| model | AUC | AP | card precision@{args.cards} | published AUC / AP / CP@100 |\n|---|---|---|---|---|")
    for name, (auc, apr, cp) in rep.items():
        pub = PUBLISHED[name]
        print(f"| {name} | {auc:.3f} | {apr:.3f} | {cp:.3f} | {pub[0]:.3f} / {pub[1]:.3f} / {pub[2]:.3f} |")
    runs, per, seconds = money(X, y, times, entity, amount, label_times, args)
    base = per["logistic regression, BMR"]
    print(f"\n{args.steps} weekly steps from {args.money_start}: net money per test day (alert {args.alert_cost:g}, "
          "missed fraud its amount, known cards removed)")
    print("| decisions | net money / day | minus logistic regression (paired se, days) | seconds |\n"
          "|---|---|---|---|")
    out = {"source": source, "reproduction": rep, "money": {}}
    for name, table in per.items():
        m, se, n = paired(table, base)
        print(f"| {name} | {table['net_money'].mean():,.0f} | {m:+,.0f} ({se:,.0f}, {n}) | "
              f"{seconds.get(name, float('nan')):.1f} |")
        out["money"][name] = {"per_day": float(table["net_money"].mean()), "minus_lr": m, "se": se, "days": n}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
