"""What ``optimize_rule_book``'s choice buys in money and costs in time above 300,000 rows, where ``cv="auto"``
(the default) skips it, and what fitting the choice on fewer rows would buy and cost.

``cv=5`` cross-fits four candidate procedures on at most ``_book_choose.CROSS_FIT_ROWS`` rows (300,000; the
other rows are judged by the folds' books) and runs the winner on all the rows; ``cv=None`` runs the one
procedure (the book with induced rules). A lower bound makes the choice cheaper; this script measures both
sides, each against a baseline in the same run:

- ``--speed``: the ``bench_rule_book.py --speed`` frame (1M rows, the 200-rule book); for each bound the
  ``cv=5`` call alternates with ``RIFFClassifier().fit`` on the same rows (``--repeat`` times), and
  ``cv=None`` (the winner's procedure alone, no choice) with them; ratios of medians to RIFF's fit.
- money (the default): ``fraud_confirm`` and ``additive`` (``bench_rule_book.load``: a generator seed and
  size no book rule or default was written on) at ``--train-rows`` training rows (a stratified 60/40 split),
  or ``card_stream`` (the Handbook's simulator, trained on its first 60 % in time, tested on the rest; also
  the ``cv=5`` call with ``shuffle=False``);
  per seed the net money on the test rows of the ``cv=5`` call under each bound, of the default call as a
  user writes it (no ``cv``) and of ``cv=None``, and the
  paired difference with the library's bound: mean and standard error over seeds (test rows are new to
  every book).

    PYTHONPATH=.:benchmarks python benchmarks/bench_choice_rows.py --speed --bounds 300000,100000,50000
    PYTHONPATH=.:benchmarks python benchmarks/bench_choice_rows.py --seeds 6 --bounds 300000,100000,50000
"""

import argparse
import os
import time
import warnings
from contextlib import contextmanager
from functools import partial

import numpy as np
import pandas as pd

from csboost_plugins.rules import RIFFClassifier, RuleSet, _book_choose, optimize_rule_book

from bench_rule_book import FPR, deployed, load, speed_frame, split
from rule_books import BOOKS

#: rows each generator makes at scale 1 (bench_rule_book.load)
BASE_ROWS = {"fraud_confirm": 300_000, "additive": 200_000, "card_stream": 136_000}
#: sets whose rows are in time order (trained on the first 60 %): also the ``cv=5`` call with ``shuffle=False``
TIME_ORDERED = {"card_stream"}


@contextmanager
def fitted_on(bound):
    """Within the block, the folds' runs are fitted on at most ``bound`` rows."""
    old = _book_choose.CROSS_FIT_ROWS
    _book_choose.CROSS_FIT_ROWS = bound
    try:
        yield
    finally:
        _book_choose.CROSS_FIT_ROWS = old


def choice_call(bound, book, X, y, **kw):
    """``optimize_rule_book(book, X, y, cv=5, **kw)`` (the choice, on any number of rows) with the folds fitted
    on at most ``bound`` rows."""
    with fitted_on(bound):
        return optimize_rule_book(book, X, y, cv=5, **kw)


def speed(bounds, repeat, n_rows):
    X, y, amount, texts = speed_frame(n_rows)
    book = RuleSet.from_sql(dict(list(texts.items())[:200]))
    kw = {"max_fpr": FPR, "fn_cost": amount, "fp_cost": 5.0, "random_state": 0}
    runs = {"RIFFClassifier().fit": lambda: RIFFClassifier(random_state=0).fit(X, y, fn_cost=amount, fp_cost=5.0),
            "cv=None": lambda: optimize_rule_book(book, X, y, cv=None, **kw),
            "default (cv='auto')": lambda: optimize_rule_book(book, X, y, **kw)}
    for b in bounds:
        runs[f"cv=5, folds fitted on {b:,}"] = partial(choice_call, b, book, X, y, **kw)
    times = {k: [] for k in runs}
    for r in range(repeat):
        for k in (list(runs) if r % 2 == 0 else list(runs)[::-1]):  # alternate the order: the machine drifts
            t = time.perf_counter()
            runs[k]()
            times[k].append(time.perf_counter() - t)
    base = float(np.median(times["RIFFClassifier().fit"]))
    print(f"load average: {os.getloadavg()}")
    print(f"| call ({n_rows:,} rows) | runs (s) | median (s) | ratio to RIFF's fit |\n|---|---|---|---|")
    for k, v in times.items():
        print(f"| {k} | {', '.join(f'{s:.1f}' for s in v)} | {np.median(v):.2f} | {np.median(v) / base:.2f} |")


def calls(name, bounds):
    """The calls compared on data set ``name``: cv=5 under each bound, shuffle=False in time order, the default
    as a user calls it (no cv, no shuffle) and cv=None."""
    return [*bounds, *(["shuffle=False"] if name in TIME_ORDERED else []), "default", "cv=None"]


def money(names, seeds, bounds, train_rows):
    rows = []
    for name in names:
        scale = train_rows / 0.6 / BASE_ROWS[name]
        for seed in seeds:
            X, y, cm = load(name, seed, scale)
            tr, te = split(name, y, seed)
            Xtr, ytr = X.iloc[tr].reset_index(drop=True), y[tr]
            book = RuleSet.from_sql(BOOKS[name.replace("_confirm", "")])
            kw = {"max_fpr": FPR, "cost_matrix": cm[tr], "random_state": seed}
            for what in calls(name, bounds):
                t = time.perf_counter()
                if what == "cv=None":
                    out = optimize_rule_book(book, Xtr, ytr, cv=None, **kw)
                elif what == "default":
                    out = optimize_rule_book(book, Xtr, ytr, **kw)
                elif what == "shuffle=False":  # contiguous folds in time order, under the library's bound
                    out = choice_call(bounds[0], book, Xtr, ytr, shuffle=False, **kw)
                else:
                    out = choice_call(what, book, Xtr, ytr, **kw)
                secs = time.perf_counter() - t
                res, _ = deployed(out.predict(X.iloc[te]), y[te], cm[te])
                choice = (out.selection or {}).get("choice") or {}
                rows.append({"dataset": name, "seed": seed, "call": what, "net_money": res["net_money"],
                             "fpr": res["fpr"], "rules": len(out), "chosen": choice.get("chosen"),
                             "seconds": secs})
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    ref = bounds[0]
    print(f"\nload average: {os.getloadavg()}; {train_rows:,} training rows; differences against cv=5 "
          f"fitted on {ref:,} rows, paired by seed")
    print("| data set | call | test net money (mean) | minus the reference: mean | s.e. over seeds | chosen "
          "| seconds (mean) |\n|---|---|---|---|---|---|---|")
    for name, d in df.groupby("dataset", sort=False):
        m = d.pivot(index="seed", columns="call", values="net_money")
        for what in calls(name, bounds):
            diff = m[what] - m[ref]
            se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
            sub = d[d.call == what]
            picks = ", ".join(f"{k} {v}" for k, v in sub.chosen.fillna("-").value_counts().items())
            label = {"cv=None": "cv=None (no choice)", "shuffle=False": "shuffle=False (folds in time order)",
                     "default": "default (no cv, no shuffle)"}.get(what) or f"cv=5, folds fitted on {what:,}"
            print(f"| {name} | {label} | {m[what].mean():.0f} | {diff.mean():.0f} | {se:.0f} | {picks} "
                  f"| {sub.seconds.mean():.1f} |")
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--bounds", default="300000,100000,50000", help="rows the folds' runs read, the reference first")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", type=int, default=1_000_000, help="--speed: rows of the frame")
    ap.add_argument("--datasets", default="fraud_confirm,additive")
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--train-rows", type=int, default=1_000_000)
    ap.add_argument("--out", default=None, help="write the per-seed rows to this CSV")
    a = ap.parse_args()
    bounds = [int(v) for v in a.bounds.split(",")]
    warnings.simplefilter("ignore")
    if a.speed:
        speed(bounds, a.repeat, a.rows)
        return
    df = money(a.datasets.split(","), list(range(a.seeds)), bounds, a.train_rows)
    if a.out:
        df.to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
