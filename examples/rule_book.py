"""
Your rule book: judge it in money, optimise it, run it in SQL
=============================================================

A team's book of 20 SQL rules for synthetic card transactions
(``csdt.datasets.make_fraud_transactions``; a missed fraud loses its amount, every alert costs
10) is read with ``RuleSet.from_sql``, judged rule by rule (``unique_net_money``: what the book
loses without the rule), optimised together with RIFF's induced rules at 1 % false alerts with
``optimize_rule_book``, compared with ``RuleSet.diff`` and exported to SQLite. Run as
``python examples/rule_book.py [--out figures]`` to also save two PNG files:

- ``book_unique_money.png``: each book rule's ``unique_net_money`` on the past rows (the far
  too loose rule left out, as its loss dwarfs the rest), coloured by what the optimiser did
  with it when optimising the book alone (``candidates=None``);
- ``new_book_waterfall.png``: the optimised book's money on new rows, rule by rule.
"""

from __future__ import annotations

import argparse
import os
import sqlite3

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Patch

from csboost_plugins.plot import RuleWaterfallDisplay
from csboost_plugins.rules import RuleSet, optimize_rule_book
from csdt.datasets import make_fraud_transactions

BOOK = {  # written by analysts over the years: good rules, column arithmetic, stale, redundant, loose, dead
    "night_velocity": "n_tx_24h >= 6 AND hour < 6",
    "big_vs_usual": "amount_vs_avg > 4 AND amount > 100",
    "over_customer_mean": "amount - amount / amount_vs_avg > 300",  # amount against the customer's mean
    "far_new_merchant": "dist_home_km > 100 AND new_merchant = 1",
    "foreign_risky_merchant": "foreign = 1 AND merchant_risk > 0.7",
    "card_testing": "amount < 5 AND n_tx_24h >= 5",
    "velocity_times_risk": "n_tx_24h * merchant_risk > 3",
    "distance_per_card_day": "dist_home_km / (card_age_days + 1) > 1",
    "night_foreign": "(hour < 5 OR hour > 23) AND foreign = 1",
    "risky_merchant_big": "merchant_risk > 0.8 AND amount > 200",
    "new_merchant_far_night": "new_merchant = 1 AND dist_home_km > 50 AND hour < 7",
    "high_ratio": "amount_vs_avg >= 8",
    "many_tx_new_merchant": "n_tx_24h >= 5 AND new_merchant = 1",
    "young_card_ratio": "NOT (card_age_days > 365) AND amount_vs_avg > 3",
    "top_risk_merchant": "COALESCE(merchant_risk, 0) > 0.9",
    "stale_noise": "noise_0 > 2.5",
    "stale_lunch_big": "hour BETWEEN 12 AND 13 AND amount > 1000",
    "redundant_night_velocity": "n_tx_24h >= 7 AND hour < 5",  # inside night_velocity
    "too_loose": "amount > 50",
    "never_fires": "amount > 100000",
}
FATE_COLOURS = {"kept": "tab:green", "retuned": "tab:blue", "dropped": "tab:gray"}


def main(out_dir=None):
    book = RuleSet.from_sql(BOOK)
    d = make_fraud_transactions(30_000, fraud_rate=0.02, random_state=0)
    X, y = d.data, d.target
    past, new = slice(0, 20_000), slice(20_000, None)

    def money(rows):  # the generator's own costs: C_FN = amount, C_FP = C_TP = 10
        return {"fp_cost": d.fp_cost[rows], "fn_cost": d.fn_cost[rows], "tp_cost": d.tp_cost[rows]}

    # judge the book without its far too loose rule: while it is in force no other rule has rows of its own
    rest = book.drop([book.names.index("too_loose")])
    judged = rest.evaluate(X[past], y[past], per_rule=True, last_rule="include", **money(past))
    print(judged[["name", "tp", "fp", "net_money", "unique_net_money"]].round(0).to_string(index=False))

    # optimise the whole book with RIFF's rules at 1 % false alerts, on the past rows only
    new_book = optimize_rule_book(book, X[past], y[past], max_fpr=0.01, random_state=0, **money(past))
    print(new_book)
    print(book.diff(new_book)["change"].value_counts().to_string())
    # the book optimised alone (no induced rules): which of the team's rules are kept, re-tuned or dropped
    own = optimize_rule_book(book, X[past], y[past], max_fpr=0.01, candidates=None, cv=None, random_state=0,
                             **money(past))
    diff = book.diff(own)
    fate = dict(zip(diff["name"], diff["change"]))
    print(diff["change"].value_counts().to_string())
    for label, rules in (("old book", book), ("new book", new_book), ("book alone", own)):
        res = rules.evaluate(X[new], y[new], **money(new))
        print(f"{label}: {len(rules)} rules, recall {res['tpr']:.2f}, FPR {res['fpr']:.3f}, "
              f"net money on new rows {res['net_money']:.0f}")

    # the new book as one SQLite query flags the rows predict flags
    con = sqlite3.connect(":memory:")
    X[new].reset_index(drop=True).to_sql("transactions", con, index_label="row_no")
    sql = new_book.to_sql("transactions", dialect="sqlite").replace("SELECT *", "SELECT row_no", 1)
    flagged = {row[0] for row in con.execute(sql)}
    print("SQLite flags the rows predict flags:", flagged == set(np.flatnonzero(new_book.predict(X[new])).tolist()))

    figs = {}
    fig, ax = plt.subplots(figsize=(7.5, 6))
    order = judged.sort_values("unique_net_money")
    colours = [FATE_COLOURS[fate[n]] for n in order["name"]]
    ax.barh(order["name"], order["unique_net_money"], color=colours)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.legend(handles=[Patch(color=c, label=f"{change} by optimize_rule_book(candidates=None)")
                       for change, c in FATE_COLOURS.items()
                       if change in fate.values()], loc="upper left", fontsize=8)
    ax.set_xlabel("unique_net_money on past rows (what the book loses without the rule)")
    ax.set_title("The team's book without too_loose: does each rule earn its alerts?", fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    figs["book_unique_money"] = fig

    fig, ax = plt.subplots(figsize=(8, 4.5))
    RuleWaterfallDisplay.from_estimator(new_book, X[new], y[new], ax=ax, **money(new))
    ticks = ax.get_xticks()
    if len(ticks) == len(new_book) + 1:  # name the bars: rules 1..n, then the net
        ax.set_xticks(ticks, new_book.names + ["net"], rotation=45, ha="right", fontsize=8)
    ax.set_title("Optimised book on new rows: each rule's added money", fontsize=10)
    figs["new_book_waterfall"] = fig

    for name, fig in figs.items():  # left open: a gallery build shows them
        fig.tight_layout()
        if out_dir is not None:
            os.makedirs(out_dir, exist_ok=True)
            path = os.path.join(out_dir, f"{name}.png")
            fig.savefig(path, dpi=110)
            print("wrote", path)
    return figs


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Your rule book: judge, optimise, run in SQL")
    ap.add_argument("--out", default=None, help="folder for the PNG files (default: do not save)")
    main(ap.parse_args().out)
