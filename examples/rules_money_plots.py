"""
Money plots for fraud rules
===========================

What the rules give up against the model, where each rule's money comes from, how money
evolves per boosting round, and how the decision threshold moves savings.

Data: synthetic card transactions (``csdt.datasets.make_fraud_transactions``): C_FN = amount
(a missed fraud is lost), C_FP = 10 (a false alert costs 10). Run as
``python examples/rules_money_plots.py [--out figures]`` to also save four PNG files:

- ``money_curve.png``: net money saved (vs no alerts) against the alert rate when the
  lightgbm model's top scores are flagged, with the RIFF rule set's points (rules 1..i) and
  its budget, zoomed to the alert rates around the budget;
- ``rule_waterfall.png``: each rule's added money caught and alert cost, down to the net;
- ``money_per_round.png``: validation savings per round of the cost-sensitive booster;
- ``threshold_scaling.png``: savings as the Bayes minimum risk thresholds are scaled.
"""

from __future__ import annotations

import argparse
import os

import lightgbm as lgb
import matplotlib.pyplot as plt

from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.plot import (
    MoneyCurveDisplay,
    MoneyPerRoundDisplay,
    RuleWaterfallDisplay,
    ThresholdScalingDisplay,
)
from csboost_plugins.rules import extract_rules, riff_select
from csdt.datasets import make_fraud_transactions

ALERT_COST = 10.0


def main(out_dir=None):
    d = make_fraud_transactions(30_000, fraud_rate=0.025, random_state=0)
    X, y, amount = d.data, d.target, d.fn_cost
    fit, sel, test = slice(0, 10_000), slice(10_000, 18_000), slice(18_000, None)

    # a scorer, and RIFF rules from it selected at 1 % FPR on a separate set
    gbm = lgb.LGBMClassifier(n_estimators=40, num_leaves=16, verbose=-1, random_state=0).fit(X[fit], y[fit])
    rules = riff_select(extract_rules(gbm), X[sel], y[sel], max_fpr=0.01, fn_cost=amount[sel], fp_cost=ALERT_COST)
    Xt, yt, at = X[test], y[test], amount[test]
    costs = dict(fn_cost=at, fp_cost=ALERT_COST)
    print(rules.evaluate(Xt, yt, per_rule=True, **costs)[["new_money_caught", "new_alert_cost", "set_recall",
                                                          "set_net_money"]].round(3).to_string())

    figs = {}
    fig, ax = plt.subplots(figsize=(7, 4.5))
    # zoomed by default to the budget (the rules' 1 % FPR); zoom=False shows up to flagging every row
    disp = MoneyCurveDisplay.from_estimator(gbm, Xt, yt, rules=rules, ax=ax, name="lightgbm", **costs)
    figs["money_curve"] = fig
    print(f"rules: alert rate {disp.rule_x[-1]:.4f}, net money {disp.rule_y[-1]:.0f}; "
          f"model at the same alert rate: {disp.net_money[disp.alert_rate <= disp.rule_x[-1]][-1]:.0f}")

    fig, ax = plt.subplots(figsize=(7, 4.5))
    RuleWaterfallDisplay.from_estimator(rules, Xt, yt, ax=ax, **costs)
    figs["rule_waterfall"] = fig

    # a cost-sensitive booster with a validation set: savings per round, best iteration marked
    half = slice(18_000, 24_000)
    cs = CSLGBMClassifier(decision="0.5", n_estimators=80, early_stopping_rounds=10, eval_metric="savings",
                          random_state=0)
    cs.fit(X[fit], y[fit], fn_cost=amount[fit], fp_cost=ALERT_COST, eval_set=[(X[half], y[half])],
           eval_costs=[{"fn_cost": amount[half], "fp_cost": ALERT_COST}])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    MoneyPerRoundDisplay.from_estimator(cs, metric="savings", ax=ax)
    figs["money_per_round"] = fig

    fig, ax = plt.subplots(figsize=(7, 4.5))
    disp = ThresholdScalingDisplay.from_estimator(gbm, Xt, yt, ax=ax, name="lightgbm", **costs)
    figs["threshold_scaling"] = fig
    print(f"savings at Bayes minimum risk (k = 1): {disp.savings[disp.scale == 1.0][0]:.3f}; "
          f"best k = {disp.best:.3g}: {disp.savings.max():.3f}")

    for name, fig in figs.items():  # left open: a gallery build shows them
        fig.tight_layout()
        if out_dir is not None:
            os.makedirs(out_dir, exist_ok=True)
            path = os.path.join(out_dir, f"{name}.png")
            fig.savefig(path, dpi=110)
            print("wrote", path)
    return figs


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Money plots for fraud rules")
    ap.add_argument("--out", default=None, help="folder for the PNG files (default: do not save)")
    main(ap.parse_args().out)
