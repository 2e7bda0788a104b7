"""What blocking a card is worth: a cap of k rows per day against a cap of k cards per day.

On ``csdt.datasets.make_card_transactions(random_state=seed)`` (entity = ``customer_id``,
C_FN = amount, C_FP = C_TP = the alert cost, C_TN = 0), a StandardScaler + LogisticRegression on
``data`` is trained on days 7-41 (the first week only warms the features up) and scores days 49-69
(a week's gap: the last training labels arrive before the test starts). On each test day, three
policies, net money = money saved against flagging nothing
(``sum over flagged rows of y (C_FN - C_TP) - (1 - y)(C_FP - C_TN)``):

* per row: ``bayes_minimum_risk(p, costs, max_alerts=k, periods=day)``, the k rows of largest
  expected net money of an alert ``v`` (among ``v > 0``);
* per card: ``bayes_minimum_risk(..., entity=customer_id)``, the k cards of largest summed ``v``
  (among positive sums), every transaction of an alerted card that day flagged;
* per card, upper bound: the per-card decisions, and a card's later frauds (after its first
  alerted fraud, on any later test day) also count as stopped, worth ``C_FN`` each (no review
  cost; legitimate transactions of a blocked card are not charged): what the decision itself
  does not count (it reads only the day's rows).

Each flagged row pays the alert cost (``C_FP = C_TP`` per row), as in every money figure of the
library: alerting a card flags all its rows of the day, the ones of negative value included. The
seeds' lines also give uncapped Bayes minimum risk (every row with ``v > 0``), the per-row optimum
once the cap stops binding.

For k in (25, 50, 100) alerts (rows or cards) per day; means per day over the test days of 3 seeds,
with the standard error of the paired per-day differences (same day, two policies).

    python benchmarks/bench_entity_capacity.py
    python benchmarks/bench_entity_capacity.py --seeds 0 1 2 --ks 25 50 100
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csboost_plugins.metrics import bayes_minimum_risk
from csdt.datasets import make_card_transactions

TRAIN_DAYS, TEST_DAYS = (7, 42), (49, 70)


def _split(seed):
    d = make_card_transactions(random_state=seed)
    day = ((d.frame["time"] - d.frame["time"].dt.normalize().min()).dt.days).to_numpy()
    train = (day >= TRAIN_DAYS[0]) & (day < TRAIN_DAYS[1])
    test = (day >= TEST_DAYS[0]) & (day < TEST_DAYS[1])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    model.fit(d.data[train], d.target[train])
    p = model.predict_proba(d.data[test])[:, 1]
    frame = d.frame[test].reset_index(drop=True)
    return frame, p, d.cost_matrix[test], day[test]


def _blocked_frauds(frame, flagged):
    """Fraud rows after their card's first alerted fraud that the policy did not flag itself."""
    fraud = frame["fraud"].to_numpy() == 1
    t = frame["time"].to_numpy()
    first = pd.Series(t[fraud & (flagged == 1)]).groupby(frame["customer_id"].to_numpy()[fraud & (flagged == 1)]).min()
    block = frame["customer_id"].map(first).to_numpy()  # NaT: never blocked
    return fraud & (flagged == 0) & (t > block)


def _day_money(frame, p, costs, day, k):
    """Net money per test day of the three policies at k alerts (rows or cards) per day."""
    y = frame["fraud"].to_numpy()
    gain = np.where(y == 1, costs[:, 1] - costs[:, 2], -(costs[:, 0] - costs[:, 3]))  # of flagging the row
    per_row = bayes_minimum_risk(p, cost_matrix=costs, max_alerts=k, periods=day)
    per_card = bayes_minimum_risk(p, cost_matrix=costs, max_alerts=k, periods=day,
                                  entity=frame["customer_id"].to_numpy())
    stopped = _blocked_frauds(frame, per_card)
    out = pd.DataFrame({"day": day, "row": per_row * gain, "card": per_card * gain,
                        "upper": per_card * gain + stopped * (costs[:, 1] - costs[:, 3])})
    return out.groupby("day").sum(), int(per_row.sum()), int(per_card.sum())


def _paired(a, b):
    d = np.asarray(b) - np.asarray(a)
    return d.mean(), d.std(ddof=1) / np.sqrt(d.shape[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--ks", type=int, nargs="+", default=[25, 50, 100])
    args = ap.parse_args(argv)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    data = []
    for seed in args.seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame, p, costs, day = _split(seed)
        data.append((frame, p, costs, day))
        bmr = bayes_minimum_risk(p, cost_matrix=costs)
        gain = np.where(frame["fraud"].to_numpy() == 1, costs[:, 1] - costs[:, 2], -(costs[:, 0] - costs[:, 3]))
        print(f"seed {seed}: {len(frame)} test rows over {np.unique(day).size} days, "
              f"{int(frame['fraud'].sum())} frauds on {frame.loc[frame['fraud'] == 1, 'customer_id'].nunique()} cards; "
              f"uncapped Bayes minimum risk: {bmr.sum() / np.unique(day).size:.0f} rows/day, "
              f"{np.sum(bmr * gain) / np.unique(day).size:,.0f} net money/day")
    rows = []
    for k in args.ks:
        days, n_row, n_card = [], 0, 0
        for frame, p, costs, day in data:
            per_day, a, b = _day_money(frame, p, costs, day, k)
            days.append(per_day)
            n_row, n_card = n_row + a, n_card + b
        m = pd.concat(days)
        d_card, se_card = _paired(m["row"], m["card"])
        d_up, se_up = _paired(m["card"], m["upper"])
        rows.append({"k per day": k, "days": len(m), "per row": m["row"].mean(), "per card": m["card"].mean(),
                     "card - row": f"{d_card:+,.0f} ± {se_card:,.0f}", "card/row": m["card"].mean() / m["row"].mean(),
                     "upper bound": m["upper"].mean(), "upper - card": f"{d_up:+,.0f} ± {se_up:,.0f}",
                     "rows flagged/day (row, card)": f"{n_row / len(m):.0f}, {n_card / len(m):.0f}"})
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:,.2f}".format):
        print("\nNet money per test day (money saved vs no alerts); ± = standard error of the paired daily difference")
        print(table.to_string(index=False))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
