"""Benchmark 1 (issue 3): money of AEC boosting vs logloss boosting and empulse's CSBoost.

On each bundled data set and on ``make_fraud_transactions``: stratified 50/25/25
train/validation/test splits over several seeds; test savings (Bayes minimum risk
decisions with each row's own costs, and the plain s > 1/2 decision) and test
expected savings, mean and std over seeds, for xgboost and lightgbm with

* logloss (+ 0.5 threshold, + BMR, + BMR with early stopping on validation savings),
* logloss with cost weights w_i = |C_i(1|y_i) - C_i(0|y_i)| (0.5 threshold),
* AEC with each hessian policy (fisher / abs / bound), start margin at the prior and at 0,
  with and without early stopping on validation savings (for AEC the savings of the
  s > 1/2 decision: the AEC minimiser already holds the costs), and an AEC + 0.1 logloss blend,
* empulse's ``CSBoostClassifier`` (anchor; its own |g| p(1-p) hessian, no money early stopping).

Usage::

    python benchmarks/bench_boosting_money.py --seeds 0 1 2 --out benchmarks/results/boosting_money.json
    python benchmarks/bench_boosting_money.py --table benchmarks/results/boosting_money.json

Results are cached per (data set, seed, library, method) in the JSON file, so a run
can be split or resumed. Everything runs single-threaded (shared 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from sklearn.model_selection import train_test_split

from csboost_plugins.boosting import _aec
from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.costs import CostWarning
from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score
from csdt import datasets

warnings.filterwarnings("ignore", category=CostWarning)
warnings.filterwarnings("ignore", category=UserWarning)

ROUNDS = 200
LR = 0.1
XGB_DEPTH = 4
LGB_LEAVES = 15
ES_ROUNDS = 30

DATASETS = {
    "churn": datasets.load_churn,
    "creditscoring1": datasets.load_creditscoring1,
    "creditscoring2": datasets.load_creditscoring2,
    "bankmarketing": datasets.load_bankmarketing,
    "fraud_synth": lambda: datasets.make_fraud_transactions(60_000, fraud_rate=0.01, random_state=0),
}

AEC_VARIANTS = {
    # name: (hessian, start_margin, logloss_weight)
    "AEC fisher, start prior": ("fisher", "prior", 0.0),
    "AEC fisher, start 0": ("fisher", 0.0, 0.0),
    "AEC abs (floor 0.1), start prior": ("abs", "prior", 0.0),
    "AEC abs (floor 0.1), start 0": ("abs", 0.0, 0.0),
    "AEC bound, start prior": ("bound", "prior", 0.0),
    "AEC fisher + 0.1 logloss, start prior": ("fisher", "prior", 0.1),
    "AEC fisher, start cost-prior": ("fisher", "cost_prior", 0.0),
    "AEC abs (floor 0.1), start cost-prior": ("abs", "cost_prior", 0.0),
}
ES_SUFFIX = {" + ES(val savings)": "savings", " + ES(val AEC)": "aec"}
METHODS = (["logloss", "logloss + ES(val savings)", "logloss cost-weighted"]
           + [f"{k}{es}" for k in AEC_VARIANTS for es in ("", " + ES(val savings)")]
           + [f"{k} + ES(val AEC)" for k in ("AEC fisher, start 0", "AEC fisher, start cost-prior",
                                              "AEC abs (floor 0.1), start cost-prior")]
           + ["empulse CSBoost"])


def _aec_variant(method):
    for suffix, metric in ES_SUFFIX.items():
        if method.endswith(suffix):
            return AEC_VARIANTS[method[: -len(suffix)]], metric
    return AEC_VARIANTS[method], None


def _split(y, seed):
    idx = np.arange(len(y))
    tr, rest = train_test_split(idx, test_size=0.5, random_state=seed, stratify=y)
    va, te = train_test_split(rest, test_size=0.5, random_state=seed, stratify=y[rest])
    return tr, va, te


def _weights(y, C):
    d = np.abs(_aec.regret_difference(y, C))
    return d / d.mean()


def _fit_xgb(method, Xtr, ytr, Ctr, Xva, yva, Cva, Xte, seed):
    base = {"tree_method": "hist", "max_depth": XGB_DEPTH, "eta": LR, "nthread": 1, "seed": seed, "verbosity": 0}
    if method.startswith("logloss"):
        w = _weights(ytr, Ctr) if "cost-weighted" in method else None
        dtr = xgb.DMatrix(Xtr, label=ytr, weight=w)
        kw = {}
        if "ES" in method:
            dva = cxgb.cost_dmatrix(Xva, yva, cost_matrix=Cva)
            kw = dict(evals=[(dva, "val")], custom_metric=cxgb.money_metric("savings", preds="probability"),
                      maximize=True, early_stopping_rounds=ES_ROUNDS, verbose_eval=False)
        bst = xgb.train({**base, "objective": "binary:logistic", "disable_default_eval_metric": 1}, dtr, ROUNDS, **kw)
        rng = (0, bst.best_iteration + 1) if "ES" in method else (0, 0)
        return bst.predict(xgb.DMatrix(Xte), iteration_range=rng)
    if method == "empulse CSBoost":
        from empulse.models import CSBoostClassifier

        est = CSBoostClassifier(xgb.XGBClassifier(n_estimators=ROUNDS, max_depth=XGB_DEPTH, learning_rate=LR,
                                                  n_jobs=1, random_state=seed, tree_method="hist"))
        est.fit(Xtr, ytr, fp_cost=Ctr[:, 0], fn_cost=Ctr[:, 1], tp_cost=Ctr[:, 2], tn_cost=Ctr[:, 3])
        return est.predict_proba(Xte)[:, 1]
    (hess, start, alpha), es = _aec_variant(method)
    est = cxgb.CSXGBClassifier(n_estimators=ROUNDS, learning_rate=LR, max_depth=XGB_DEPTH, hessian=hess,
                               start_margin=start, logloss_weight=alpha, early_stopping_rounds=ES_ROUNDS if es else None,
                               eval_metric=es or "savings", decision="0.5", n_jobs=1, random_state=seed)
    kw = dict(eval_set=[(Xva, yva)], eval_costs=[{"cost_matrix": Cva}]) if es else {}
    est.fit(Xtr, ytr, cost_matrix=Ctr, **kw)
    return est.predict_proba(Xte)[:, 1]


def _fit_lgb(method, Xtr, ytr, Ctr, Xva, yva, Cva, Xte, seed):
    base = {"num_leaves": LGB_LEAVES, "learning_rate": LR, "num_threads": 1, "seed": seed, "verbose": -1,
            "deterministic": True, "force_row_wise": True}
    if method.startswith("logloss"):
        w = _weights(ytr, Ctr) if "cost-weighted" in method else None
        dtr = lgb.Dataset(Xtr, label=ytr, weight=w)
        kw = {}
        if "ES" in method:
            dva = clgb.cost_dataset(Xva, yva, cost_matrix=Cva, start_margin=None, reference=dtr)
            kw = dict(valid_sets=[dva], valid_names=["val"], feval=clgb.money_metric("savings", preds="probability"),
                      callbacks=[clgb.early_stopping(ES_ROUNDS, data_name="val", metric="savings")])
        bst = lgb.train({**base, "objective": "binary", "metric": "None"}, dtr, ROUNDS, **kw)
        return bst.predict(Xte, num_iteration=bst.best_iteration if "ES" in method else None)
    if method == "empulse CSBoost":
        from empulse.models import CSBoostClassifier

        est = CSBoostClassifier(lgb.LGBMClassifier(n_estimators=ROUNDS, num_leaves=LGB_LEAVES, learning_rate=LR,
                                                   n_jobs=1, random_state=seed, verbose=-1))
        est.fit(Xtr, ytr, fp_cost=Ctr[:, 0], fn_cost=Ctr[:, 1], tp_cost=Ctr[:, 2], tn_cost=Ctr[:, 3])
        return est.predict_proba(Xte)[:, 1]
    (hess, start, alpha), es = _aec_variant(method)
    est = clgb.CSLGBMClassifier(n_estimators=ROUNDS, learning_rate=LR, num_leaves=LGB_LEAVES, hessian=hess,
                                start_margin=start, logloss_weight=alpha,
                                early_stopping_rounds=ES_ROUNDS if es else None, eval_metric=es or "savings",
                                decision="0.5", n_jobs=1, random_state=seed)
    kw = dict(eval_set=[(Xva, yva)], eval_costs=[{"cost_matrix": Cva}]) if es else {}
    est.fit(Xtr, ytr, cost_matrix=Ctr, **kw)
    return est.predict_proba(Xte)[:, 1]


def run(names, seeds, libs, methods, out):
    out = Path(out)
    res = json.loads(out.read_text()) if out.exists() else {}
    for name in names:
        b = DATASETS[name]()
        X = np.asarray(b.data, dtype=np.float64)
        y = np.asarray(b.target)
        C = np.asarray(b.cost_matrix)
        for seed in seeds:
            tr, va, te = _split(y, seed)
            for lib in libs:
                fit = _fit_xgb if lib == "xgboost" else _fit_lgb
                for method in methods:
                    key = f"{name}|{seed}|{lib}|{method}"
                    if key in res:
                        continue
                    t0 = time.perf_counter()
                    s = np.asarray(fit(method, X[tr], y[tr], C[tr], X[va], y[va], C[va], X[te], seed), dtype=float)
                    dt = time.perf_counter() - t0
                    yt, Ct = y[te], C[te]
                    res[key] = {
                        "savings_bmr": savings_score(yt, bayes_minimum_risk(s, cost_matrix=Ct), cost_matrix=Ct),
                        "savings_05": savings_score(yt, (s > 0.5).astype(int), cost_matrix=Ct),
                        "expected_savings": expected_savings_score(yt, s, cost_matrix=Ct),
                        "fit_seconds": dt,
                    }
                    print(key, {k: round(v, 4) for k, v in res[key].items()}, flush=True)
                    out.write_text(json.dumps(res, indent=1))
    return res


def table(res):
    keys = [k.split("|") for k in res]
    names = [n for n in DATASETS if any(k[0] == n for k in keys)]
    seeds = sorted({int(k[1]) for k in keys})
    lines = [f"Seeds: {seeds}; 50/25/25 stratified splits; {ROUNDS} rounds, learning rate {LR}, xgboost depth "
             f"{XGB_DEPTH}, lightgbm {LGB_LEAVES} leaves, early stopping {ES_ROUNDS} rounds on validation savings "
             "(BMR decisions for logloss, s > 1/2 for AEC). Cells: mean ± std over seeds. sav = test savings with Bayes-minimum-risk decisions (each "
             "row's own costs), sav@.5 = savings with s > 1/2, E[sav] = test expected savings.", ""]
    for name in names:
        lines += [f"### {name}", "",
                  "| method | xgb sav | xgb sav@.5 | xgb E[sav] | lgb sav | lgb sav@.5 | lgb E[sav] |",
                  "|---|---|---|---|---|---|---|"]
        for method in METHODS:
            cells = []
            for lib in ("xgboost", "lightgbm"):
                rows = [res.get(f"{name}|{s}|{lib}|{method}") for s in seeds]
                rows = [r for r in rows if r is not None]
                for m in ("savings_bmr", "savings_05", "expected_savings"):
                    if not rows:
                        cells.append("")
                        continue
                    v = np.array([r[m] for r in rows])
                    cells.append(f"{v.mean():.3f} ± {v.std():.3f}")
            if any(cells):
                lines.append(f"| {method} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


DEFAULT = "AEC abs (floor 0.1), start cost-prior"  # the estimators' defaults


def summary(res):
    """Mean over every data set, library and seed per method; and the default against the anchors."""
    agg = {}
    for k, v in res.items():
        method = k.split("|")[3]
        agg.setdefault(method, []).append(v)
    lines = ["### Mean over all data sets x libraries x seeds", "",
             "| method | runs | sav (BMR) | sav@.5 | E[sav] |", "|---|---|---|---|---|"]
    for method in sorted(agg, key=lambda m: -np.mean([r["savings_05"] for r in agg[m]])):
        rows = agg[method]
        lines.append(f"| {method} | {len(rows)} | " + " | ".join(
            f"{np.mean([r[m] for r in rows]):.3f}" for m in ("savings_bmr", "savings_05", "expected_savings")) + " |")
    lines += ["", f"### Default ({DEFAULT}) against logloss + BMR and empulse CSBoost (means over seeds)", "",
              "| data set | library | default sav@.5 | logloss+BMR sav | default E[sav] | logloss E[sav] | "
              "empulse sav@.5 | empulse E[sav] | default sav BMR | empulse sav BMR |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    seeds = sorted({int(k.split("|")[1]) for k in res})

    def mean(name, lib, method, key):
        v = [res[f"{name}|{s}|{lib}|{method}"][key] for s in seeds if f"{name}|{s}|{lib}|{method}" in res]
        return float(np.mean(v)) if v else float("nan")

    for name in DATASETS:
        for lib in ("xgboost", "lightgbm"):
            a, b = mean(name, lib, DEFAULT, "savings_05"), mean(name, lib, "logloss", "savings_bmr")
            c, d = mean(name, lib, DEFAULT, "expected_savings"), mean(name, lib, "logloss", "expected_savings")
            if np.isnan(a):
                continue
            e, f = mean(name, lib, "empulse CSBoost", "savings_05"), mean(name, lib, "empulse CSBoost", "expected_savings")
            g, h = mean(name, lib, DEFAULT, "savings_bmr"), mean(name, lib, "empulse CSBoost", "savings_bmr")
            lines.append(f"| {name} | {lib} | {a:.3f} | {b:.3f} | {c:.3f} | {d:.3f} | {e:.3f} | {f:.3f} | "
                         f"{g:.3f} | {h:.3f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    ap.add_argument("--libs", nargs="*", default=["xgboost", "lightgbm"])
    ap.add_argument("--methods", nargs="*", default=METHODS)
    ap.add_argument("--out", default="benchmarks/results/boosting_money.json")
    ap.add_argument("--table", default=None, help="only print the table of a results JSON")
    a = ap.parse_args(argv)
    if a.table:
        res = json.loads(Path(a.table).read_text())
        print(table(res) + "\n" + summary(res))
        return
    res = run(a.datasets, a.seeds, a.libs, a.methods, a.out)
    print(table(res) + "\n" + summary(res))


if __name__ == "__main__":
    sys.exit(main())
