"""
Operating over time: alert capacity, money per week, rule drift
===============================================================

The three figures of the user guide page "Operating over time", on the same data:

- ``capacity_curve.png``: net money against the alerts a team can review per day, ranking by
  the expected net money of an alert (``alert_value``) against ranking by score, and uncapped
  Bayes minimum risk; the red line marks the capacity beyond which the marginal alert stops
  paying. Data: synthetic card transactions (``csdt.datasets.make_fraud_transactions``), a
  logistic regression trained on the first half, the second half split into ten days.
- ``money_by_period.png``: money caught, alert cost and net money of three rules per week
  on ``csdt.datasets.make_drifting_fraud`` (a fraud pattern fades from week 4).
- ``rule_monitor.png``: the rules' precision per week, a cross where ``RuleSet.monitor`` flags
  a drift beyond sampling noise against weeks 0-3.

Run as ``python examples/operating_over_time.py [--out figures]`` to also save the PNG files.
"""

from __future__ import annotations

import argparse
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csboost_plugins.metrics import bayes_minimum_risk, money_by_period
from csboost_plugins.plot import CapacityCurveDisplay, MoneyByPeriodDisplay, RuleMonitorDisplay
from csboost_plugins.rules import Interval, Rule, RuleSet
from csdt.datasets import make_drifting_fraud, make_fraud_transactions


def capacity(figs):
    tx = make_fraud_transactions(40_000, random_state=0)
    half = 20_000
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(tx.data[:half], tx.target[:half])
    proba = model.predict_proba(tx.data[half:])[:, 1]
    y, C, day = tx.target[half:], tx.cost_matrix[half:], np.arange(half) // 2_000
    fig, ax = plt.subplots(figsize=(7, 4.5))
    disp = CapacityCurveDisplay.from_predictions(y, proba, periods=day, cost_matrix=C, ax=ax,
                                                 name="logistic regression")
    ax.set_title("Ten days of card transactions: which alerts to raise under a capacity")
    figs["capacity_curve"] = fig
    alerts = bayes_minimum_risk(proba, cost_matrix=C, max_alerts=disp.best_capacity, periods=day)
    print(f"marginal alert stops paying beyond {disp.best_capacity} alerts a day: "
          f"{alerts.sum()} alerts, net money {disp.net_money_value[disp.best_capacity]:,.0f} "
          f"(uncapped: {disp.net_money_bmr:,.0f})")


def weeks(figs):
    d = make_drifting_fraud(n_periods=8, rows_per_period=20_000, drift_period=4, random_state=0)
    X, y, amount, week = d.data, d.target, d.fn_cost, d.periods
    col = {c: j for j, c in enumerate(X.columns)}
    rules = RuleSet([
        Rule([Interval(col["amount"], upper=10.0, upper_closed=False), Interval(col["velocity_1h"], lower=3.0)]),
        Rule([Interval(col["foreign"], lower=0.5), Interval(col["hour"], upper=5.0, upper_closed=False),
              Interval(col["amount"], lower=10.0, upper=150.0)]),
        Rule([Interval(col["velocity_1h"], lower=4.0), Interval(col["merchant_risk"], lower=0.5)]),
    ], feature_names=list(X.columns), names=["card_testing", "foreign_night", "velocity_risk"])
    table = money_by_period(y, rules.predict(X), week, fn_cost=amount, fp_cost=10.0)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    MoneyByPeriodDisplay.from_table(table, ax=ax)
    figs["money_by_period"] = fig
    mon = rules.monitor(X, y, week, reference=[0, 1, 2, 3], alpha=0.01, fn_cost=amount, fp_cost=10.0)
    heat = RuleMonitorDisplay.from_monitor(mon)
    figs["rule_monitor"] = heat.figure_
    print("drift flagged:", [cell for cell in mon.index[mon["drift"]]])


def main(out_dir=None):
    figs = {}
    capacity(figs)
    weeks(figs)
    for name, fig in figs.items():  # left open: a gallery build shows them
        if out_dir is not None:
            os.makedirs(out_dir, exist_ok=True)
            path = os.path.join(out_dir, f"{name}.png")
            fig.savefig(path, dpi=110, bbox_inches="tight")
            print("wrote", path)
    return figs


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Operating over time: alert capacity, money per week, rule drift")
    ap.add_argument("--out", default=None, help="folder for the PNG files (default: do not save)")
    main(ap.parse_args().out)
