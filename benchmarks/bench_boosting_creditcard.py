"""Benchmark 2 (issue 3): the csboost paper's own experiment (section 7) on the real card-fraud file.

``load_creditcard_fraud(raw=False)`` (284,807 rows minus zero amounts; V1..V28 + log amount,
standardised; C_FN = amount, C_FP = C_TP = 10). R x 2-fold cross-validation
stratified by label and fraud-amount tercile (the paper uses R = 5). For each fold:
expected savings, savings, precision, recall, F1 and fit time of logistic regression,
xgboost, csboost-xgboost (``CSXGBClassifier``), lightgbm and csboost-lightgbm
(``CSLGBMClassifier``); decisions with the instance-dependent thresholds of eq. 2
(Bayes minimum risk), and for the AEC models also s > 1/2.

    python benchmarks/bench_boosting_creditcard.py --repeats 5 --out benchmarks/results/boosting_creditcard.json
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import RepeatedStratifiedKFold

from csboost_plugins.costs import CostWarning
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score
from csboost_plugins.xgb import CSXGBClassifier
from csdt.datasets import load_creditcard_fraud

warnings.filterwarnings("ignore", category=CostWarning)
warnings.filterwarnings("ignore", category=UserWarning)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ROUNDS, LR, DEPTH, LEAVES = 200, 0.1, 4, 15


def models(seed):
    return {
        "logistic regression": lambda: LogisticRegression(max_iter=2000),
        "xgboost": lambda: xgb.XGBClassifier(n_estimators=ROUNDS, learning_rate=LR, max_depth=DEPTH, n_jobs=1,
                                             random_state=seed, tree_method="hist"),
        "csboost-xgboost (AEC)": lambda: CSXGBClassifier(n_estimators=ROUNDS, learning_rate=LR, max_depth=DEPTH,
                                                         n_jobs=1, random_state=seed),
        "lightgbm": lambda: lgb.LGBMClassifier(n_estimators=ROUNDS, learning_rate=LR, num_leaves=LEAVES, n_jobs=1,
                                               random_state=seed, verbose=-1),
        "csboost-lightgbm (AEC)": lambda: CSLGBMClassifier(n_estimators=ROUNDS, learning_rate=LR, num_leaves=LEAVES,
                                                           n_jobs=1, random_state=seed),
    }


def scores(y, s, C, pred):
    return {
        "expected_savings": expected_savings_score(y, s, cost_matrix=C),
        "savings": savings_score(y, pred, cost_matrix=C),
        "precision": precision_score(y, pred, zero_division=0.0),
        "recall": recall_score(y, pred),
        "f1": f1_score(y, pred),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--path", default=str(SHARED / "data" / "creditcard.csv.gz"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default="benchmarks/results/boosting_creditcard.json")
    a = ap.parse_args(argv)
    b = load_creditcard_fraud(a.path, raw=False)  # the paper's standardised columns
    X, y, C = b.data.to_numpy(), np.asarray(b.target), b.cost_matrix
    strata = b.amount_tercile + 1  # 0 = legitimate, 1..3 = fraud-amount tercile
    out = Path(a.out)
    res = json.loads(out.read_text()) if out.exists() else {}
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=a.repeats, random_state=0)
    for k, (tr, te) in enumerate(cv.split(X, strata)):
        for name, make in models(k).items():
            key = f"{k}|{name}"
            if key in res:
                continue
            est = make()
            t0 = time.perf_counter()
            if name.startswith("csboost"):
                est.fit(X[tr], y[tr], cost_matrix=C[tr])
            else:
                est.fit(X[tr], y[tr])
            fit_s = time.perf_counter() - t0
            s = est.predict_proba(X[te])[:, 1]
            r = {"fit_seconds": fit_s, "bmr": scores(y[te], s, C[te], bayes_minimum_risk(s, cost_matrix=C[te]))}
            if name.startswith("csboost"):
                r["half"] = scores(y[te], s, C[te], (s > 0.5).astype(int))
            res[key] = r
            print(key, round(fit_s, 1), {m: round(v, 4) for m, v in r["bmr"].items()}, flush=True)
            out.write_text(json.dumps(res, indent=1))
    print(table(res))


def table(res):
    folds = sorted({int(k.split("|")[0]) for k in res})
    lines = [f"{len(folds)} folds (2-fold CV x {len(folds) // 2} repeats, stratified by label x fraud-amount tercile). "
             "Mean ± std over folds.", "",
             "| model | decision | expected savings | savings | precision | recall | F1 | fit s |",
             "|---|---|---|---|---|---|---|---|"]
    for name in models(0):
        for dec, label in (("bmr", "BMR (eq. 2)"), ("half", "s > 1/2")):
            rows = [res[f"{k}|{name}"] for k in folds if f"{k}|{name}" in res and dec in res[f"{k}|{name}"]]
            if not rows:
                continue
            cells = []
            for m in ("expected_savings", "savings", "precision", "recall", "f1"):
                v = np.array([r[dec][m] for r in rows])
                cells.append(f"{v.mean():.3f} ± {v.std():.3f}")
            t = np.array([r["fit_seconds"] for r in rows])
            lines.append(f"| {name} | {label} | " + " | ".join(cells) + f" | {t.mean():.1f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
