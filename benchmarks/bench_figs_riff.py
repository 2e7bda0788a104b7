"""RIFF paper Tables 2-3 on this project's data: recall at 1 % FPR and rule-set length.

    python benchmarks/bench_figs_riff.py [--seeds 5] [--fraud-n 200000] [--datasets fraud,cs1,cs2]

Protocol (RIFF paper, section 4), per data set and seed:

* random stratified split train 60 % / validation 20 % / test 20 %;
* the training rows are halved (stratified) into an induction and a selection
  part; from each a subset of ``sample_ratio`` of its rows is drawn with 30 %
  positives (all positives kept if they are too few, negatives under-sampled):
  ratio 10 % for the large sets (fraud, creditscoring1), 50 % for creditscoring2;
* CART (``DecisionTreeClassifier(max_leaf_nodes=k + 1)``, k splits), FIGS
  (csdt, ``max_rules=k``) and FIGU (csdt, ``max_rules=k``) are fitted on the
  induction subset for k in 10, 20, 30, 40, 50;
* "+ RIFF": one candidate rule per leaf (``csboost_plugins.rules.extract_rules``),
  greedy selection on the selection subset with FPR_max = 1 %
  (``riff_select``); the test recall is the expected TPR of the randomised
  rule set (``RuleSet.evaluate``), the length its number of rules;
* model rows (CART, FIGS): recall at exactly 1 % FPR on the ROC curve of the
  model's score (linear interpolation between ROC points = randomising the
  tie at the threshold, as RIFF does for its last rule);
* k is chosen per method on the validation split (the same measure), the
  table reports test mean +- std over seeds;
* LightGBM (200 trees, learning rate 0.05, 31 leaves, one thread) on the full
  training split, recall at 1 % FPR on test.

FIGU+RIFF(money) is our extension: FIGU grown with per-row costs as weights
(fit(..., cost_matrix=...)) and rules ranked by money precision
(``riff_select(..., fn_cost=...)``); its recall column is the same count
recall, plus a money-recall column for every RIFF row.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.metrics import roc_curve
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.costs import CostWarning
from csboost_plugins.rules import extract_rules, riff_select
from csboost_plugins.rules._riff import _subsample as subsample  # RIFFClassifier's own rebalancing
from csdt import FIGSClassifier, FIGUClassifier
from csdt.datasets import load_creditscoring1, load_creditscoring2, make_fraud_transactions

KS = (10, 20, 30, 40, 50)
MAX_FPR = 0.01


def recall_at_fpr(y, score, max_fpr=MAX_FPR):
    fpr, tpr, _ = roc_curve(y, score)
    return float(np.interp(max_fpr, fpr, tpr))


def load(name, fraud_n):
    if name == "fraud":
        b = make_fraud_transactions(fraud_n, fraud_rate=0.01, random_state=0)
        ratio = 0.1
    elif name == "cs1":
        b = load_creditscoring1()
        ratio = 0.1
    else:
        b = load_creditscoring2()
        ratio = 0.5
    X = b.data.to_numpy(dtype=np.float64)
    return X, np.asarray(b.target).astype(int), np.asarray(b.cost_matrix, dtype=np.float64), ratio


def run_seed(X, y, cm, ratio, seed):
    rng = np.random.default_rng(seed)
    idx = np.arange(len(y))
    tr, rest = train_test_split(idx, test_size=0.4, stratify=y, random_state=seed)
    va, te = train_test_split(rest, test_size=0.5, stratify=y[rest], random_state=seed)
    ind_part, sel_part = train_test_split(tr, test_size=0.5, stratify=y[tr], random_state=seed)
    ind = subsample(ind_part, y, ratio, 0.3, rng)
    sel = subsample(sel_part, y, ratio, 0.3, rng)
    fn_money = cm[:, 1] - cm[:, 2]  # loss prevented by catching a positive
    out = {}
    makers = {
        "CART": lambda k: DecisionTreeClassifier(max_leaf_nodes=k + 1, random_state=seed),
        "FIGS": lambda k: FIGSClassifier(max_rules=k),
        "FIGU": lambda k: FIGUClassifier(max_rules=k),
    }
    for name, make in makers.items():
        best_model = best_riff = None
        for k in KS:
            m = make(k).fit(X[ind], y[ind])
            score = (lambda Z: m.decision_function(Z)) if hasattr(m, "decision_function") \
                else (lambda Z: m.predict_proba(Z)[:, 1])
            v = recall_at_fpr(y[va], score(X[va]))
            if best_model is None or v > best_model[0]:
                best_model = (v, k, recall_at_fpr(y[te], score(X[te])))
            rules = extract_rules(m)
            rs = riff_select(rules, X[sel], y[sel], max_fpr=MAX_FPR)
            v = rs.evaluate(X[va], y[va])["tpr"]
            if best_riff is None or v > best_riff[0]:
                ev = rs.evaluate(X[te], y[te], cost_matrix=cm[te])
                best_riff = (v, k, ev["tpr"], len(rs), ev["money_recall"])
        if name != "FIGU":
            out[name] = {"recall": best_model[2], "k": best_model[1]}
        out[f"{name} + RIFF"] = {"recall": best_riff[2], "k": best_riff[1], "rules": best_riff[3],
                                 "money_recall": best_riff[4]}
    # our extension: money-weighted FIGU, rules ranked by money precision
    best = None
    for k in KS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # CostWarning on small frauds (C_FN < C_TP)
            m = FIGUClassifier(max_rules=k).fit(X[ind], y[ind], cost_matrix=cm[ind])
        rs = riff_select(extract_rules(m), X[sel], y[sel], max_fpr=MAX_FPR, fp_cost=0.0,
                         fn_cost=np.maximum(fn_money[sel], 0))
        v = rs.evaluate(X[va], y[va], cost_matrix=cm[va])["money_recall"]
        if best is None or v > best[0]:
            ev = rs.evaluate(X[te], y[te], cost_matrix=cm[te])
            best = (v, k, ev["tpr"], len(rs), ev["money_recall"])
    out["FIGU(money) + RIFF(money)"] = {"recall": best[2], "k": best[1], "rules": best[3], "money_recall": best[4]}
    try:
        from lightgbm import LGBMClassifier

        lgb = LGBMClassifier(n_estimators=200, learning_rate=0.05, num_leaves=31, n_jobs=1, verbose=-1,
                             random_state=seed).fit(X[tr], y[tr])
        out["LightGBM"] = {"recall": recall_at_fpr(y[te], lgb.predict_proba(X[te])[:, 1])}
    except ImportError:  # pragma: no cover
        pass
    return out, len(ind), len(sel)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--fraud-n", type=int, default=200000)
    ap.add_argument("--datasets", default="fraud,cs1,cs2")
    args = ap.parse_args()
    warnings.simplefilter("ignore", CostWarning)  # small frauds have C_FN < C_TP (admin cost); expected here
    labels = {"fraud": "make_fraud_transactions", "cs1": "creditscoring1", "cs2": "creditscoring2"}
    results = {}
    for ds in args.datasets.split(","):
        X, y, cm, ratio = load(ds, args.fraud_n)
        t = time.perf_counter()
        runs = []
        for seed in range(args.seeds):
            r, n_ind, n_sel = run_seed(X, y, cm, ratio, seed)
            runs.append(r)
        results[ds] = runs
        print(f"{labels[ds]}: {X.shape[0]} rows x {X.shape[1]}, positive rate {y.mean():.3f}, "
              f"induction/selection subsets {n_ind}/{n_sel} rows (30 % positives), "
              f"{time.perf_counter() - t:.0f} s", flush=True)

    methods = ["LightGBM", "CART", "CART + RIFF", "FIGS", "FIGS + RIFF", "FIGU + RIFF", "FIGU(money) + RIFF(money)"]
    dss = list(results)
    ms = lambda vals, p: f"{np.mean(vals):.{p}f} ± {np.std(vals, ddof=1) if len(vals) > 1 else 0:.{p}f}"

    def table(title, key, methods_, p):
        print(f"\n{title}\n")
        print("| method | " + " | ".join(labels[d] for d in dss) + " |")
        print("|---|" + "---|" * len(dss))
        for m in methods_:
            cells = []
            for d in dss:
                vals = [r[m][key] for r in results[d] if m in r and key in r[m]]
                cells.append(ms(vals, p) if vals else "-")
            print(f"| {m} | " + " | ".join(cells) + " |")

    table(f"Table 2 analogue: test recall at {MAX_FPR:.0%} FPR (mean ± std over {args.seeds} seeds)", "recall",
          methods, 3)
    riff = [m for m in methods if "RIFF" in m]
    table("Table 3 analogue: rule-set length", "rules", riff, 1)
    table("Money recall (share of C_FN - C_TP caught) of the RIFF rule sets (our addition)", "money_recall", riff, 3)
    table("Chosen k (splits) on validation", "k", [m for m in methods if m != "LightGBM"], 1)


if __name__ == "__main__":
    main()
