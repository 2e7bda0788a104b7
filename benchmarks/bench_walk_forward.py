"""Speed of ``walk_forward`` against the same weekly replay written by hand.

A synthetic stream (generated here): ``--rows`` transactions over 70 days on ``--cards`` cards,
5 % of the cards compromised at a random moment and defrauded afterwards, amounts exponential
(mean 80), ``C_FP = 5``, ``C_FN = amount``. Eight weekly steps (train 7 days, delay 7, test 7).

* by hand: per step, boolean masks for the training and test windows, ``clone(model).fit`` (with
  the rows' costs for the booster), ``predict_proba`` and :func:`bayes_minimum_risk` (the booster:
  ``predict`` with the costs) and :func:`money_by_period` per day: the same models and figures
  ``walk_forward`` books (checked: "same money");
* ``walk_forward(model, ...)`` with the same settings (best of ``--repeats`` runs each);
* ``walk_forward(..., exclude_known=True, max_alerts=50, entity=card)``: the handbook's protocol
  with a cap of 50 cards a day (more work, shown for scale).

Goal: ``walk_forward`` at most 10 % slower than the loop by hand. Wall and CPU time (of this
process) are both shown: on a shared machine the CPU time is the steadier of the two.

    python benchmarks/bench_walk_forward.py --model lr
    python benchmarks/bench_walk_forward.py --model xgb --rows 200000
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from csboost_plugins.metrics import bayes_minimum_risk, money_by_period
from csboost_plugins.model_selection import walk_forward

DAYS, STEPS = 70, 8


def make_stream(rows, cards, seed=0):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, DAYS, rows))
    card = rng.integers(0, cards, rows)
    compromised_at = np.where(rng.random(cards) < 0.05, rng.uniform(0, DAYS, cards), np.inf)
    y = ((t >= compromised_at[card]) & (rng.random(rows) < 0.5)).astype(int)
    X = rng.normal(size=(rows, 8))
    X[:, :3] += y[:, None] * np.array([1.0, 0.5, 0.25])
    amount = rng.exponential(80.0, rows)
    return X, y, t, card, amount


def by_hand(model, X, y, t, amount, costs_to_fit):
    out = []
    for s in range(STEPS):
        a = 7.0 * s
        train = (t >= a) & (t < a + 7)
        test = (t >= a + 14) & (t < a + 21)
        kw = dict(fp_cost=5.0, fn_cost=amount[train]) if costs_to_fit else {}
        fitted = clone(model).fit(X[train], y[train], **kw)
        if costs_to_fit:  # the booster decides with the rows' costs itself (Bayes minimum risk, decision="bmr")
            d = fitted.predict(X[test], fp_cost=5.0, fn_cost=amount[test])
        else:
            d = bayes_minimum_risk(fitted.predict_proba(X[test])[:, 1], fp_cost=5.0, fn_cost=amount[test])
        out.append(money_by_period(y[test], d, np.floor(t[test] - a - 14), fp_cost=5.0, fn_cost=amount[test]))
    return out


def best_of(repeats, **runs):
    """Best wall and CPU time (this process, all threads) of each run over ``repeats`` rounds; the runs
    alternate within a round so that a change of load on a shared machine hits them alike."""
    wall, cpu = dict.fromkeys(runs, np.inf), dict.fromkeys(runs, np.inf)
    for _ in range(repeats):
        for name, f in runs.items():
            tic, tic_cpu = time.perf_counter(), time.process_time()
            f()
            wall[name] = min(wall[name], time.perf_counter() - tic)
            cpu[name] = min(cpu[name], time.process_time() - tic_cpu)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("lr", "xgb"), default="lr")
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--cards", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y, t, card, amount = make_stream(args.rows, args.cards)
    if args.model == "lr":
        model = LogisticRegression()
    else:
        from csboost_plugins.xgb import CSXGBClassifier
        model = CSXGBClassifier(n_estimators=50, max_depth=4, decision="bmr", n_jobs=1)
    kw = dict(times=t, fp_cost=5.0, fn_cost=amount, n_steps=STEPS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = best_of(args.repeats, hand=lambda: by_hand(model, X, y, t, amount, args.model == "xgb"),
                       walk=lambda: walk_forward(model, X, y, **kw),
                       handbook=lambda: walk_forward(model, X, y, entity=card, exclude_known=True, max_alerts=50,
                                                     **kw))
        wall, cpu = best
        check = walk_forward(model, X, y, **kw).periods["net_money"].to_numpy()
        hand_tables = by_hand(model, X, y, t, amount, args.model == "xgb")
        ref = np.concatenate([m["net_money"].to_numpy() for m in hand_tables])
    table = pd.DataFrame([{"model": args.model, "rows": args.rows, "steps": STEPS, "clock": clock,
                           "by hand (s)": round(t["hand"], 3), "walk_forward (s)": round(t["walk"], 3),
                           "ratio": round(t["walk"] / t["hand"], 3), "handbook protocol (s)": round(t["handbook"], 3),
                           "same money": bool(np.allclose(check, ref))}
                          for clock, t in (("wall", wall), ("CPU", cpu))])
    print(table.to_markdown(index=False) if _has_tabulate() else table.to_string(index=False))


def _has_tabulate():
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
