"""RIFF recall at 1 % FPR from CatBoost candidates beside xgboost / lightgbm ones.

Same protocol, splits, scorer and columns as ``bench_rules_recall.py --suite defaults`` (stratified
60/20/20 per seed, a 300-tree LightGBM read at 1 % test FPR, every rule set scored as deployed with
``RuleSet.predict``). Every row uses the same RIFF keywords (natural-rate induction, at most 20 rules,
precision prior, pruning, refinement) and changes only the candidate pool: LightGBM (30 trees, 16
leaves), XGBoost (30 trees, depth 6), CatBoost (30 oblivious trees, depth 6; numeric columns, so
every split is a border), each alone and pooled.

    CSBOOST_DATA_DIR=/path/to/data python benchmarks/bench_rules_catboost.py \
        --datasets fraud,credit1,card_raw --seeds 3 --scale 0.3
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rules_recall import FPR, at_fpr, deployed, documented_kw, load, riff_conditions, split  # noqa: E402

from csboost_plugins.rules import RIFFClassifier  # noqa: E402

RIFF_KW = dict(positive_rate=None, max_rules=20, precision_prior=50.0, prune=True, refine=True)


def pools(seed):
    import catboost
    lgbm, xgbm = documented_kw(seed)["estimator"]  # the benchmark's LightGBM and XGBoost (RIFF clones them)
    cat = catboost.CatBoostClassifier(iterations=30, depth=6, learning_rate=0.1, thread_count=1, verbose=0,
                                      random_seed=seed, allow_writing_files=False)
    return {
        "LightGBM candidates": [lgbm],
        "XGBoost candidates": [xgbm],
        "CatBoost candidates": [cat],
        "LightGBM + XGBoost": [lgbm, xgbm],
        "LightGBM + XGBoost + CatBoost": [lgbm, xgbm, cat],
    }


def run(name, seeds, scale, prior):
    import lightgbm as lgb
    X, y, cm = load(name, scale)
    money = cm[:, 1] - cm[:, 2]
    res = {}
    for seed in range(seeds):
        tr, _, te = split(y, seed)
        Xtr, Xte = X.iloc[tr], X.iloc[te]
        gbm = lgb.LGBMClassifier(n_estimators=300, learning_rate=0.02, num_leaves=31, n_jobs=1, verbose=-1,
                                 random_state=seed).fit(Xtr, y[tr])
        btpr = at_fpr(gbm.predict_proba(Xte)[:, 1], y[te], money[te])[0]
        for method, est in pools(seed).items():
            t = time.perf_counter()
            clf = RIFFClassifier(estimator=est, max_fpr=FPR, random_state=seed,
                                 **dict(RIFF_KW, precision_prior=prior)).fit(Xtr, y[tr])
            ev = deployed(clf.rule_set_.predict(Xte), y[te], cm[te])
            conds = riff_conditions(clf.rule_set_)
            row = (ev[0] / btpr, ev[1], ev[2], len(conds), float(np.mean(conds)) if conds else 0.0,
                   time.perf_counter() - t)
            res.setdefault(method, []).append(row)
            print(f"  {name} seed {seed} {method:32s} ratio {row[0]:.3f} FPR {ev[1]:.4f} rules {row[3]} "
                  f"conds {row[4]:.1f} ({row[5]:.1f}s)", flush=True)
    return res


def table(name, res, seeds, scale):
    lines = [f"\n#### {name} ({seeds} seeds, scale {scale})\n",
             "| candidates | recall ratio to booster at 1% FPR (min) | test FPR (max) | net money | rules | "
             "conditions per rule | seconds |", "|---|---|---|---|---|---|---|"]
    for method, rows in res.items():
        a = np.asarray(rows, dtype=float)
        m = a.mean(axis=0)
        lines.append(f"| {method} | {m[0]:.3f} ({a[:, 0].min():.3f}) | {m[1]:.4f} ({a[:, 1].max():.4f}) "
                     f"| {m[2]:,.0f} | {m[3]:.1f} | {m[4]:.1f} | {m[5]:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="fraud,credit1,card_raw")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=0.3)
    ap.add_argument("--precision-prior", type=float, default=50.0)
    a = ap.parse_args()
    out = []
    for name in a.datasets.split(","):
        out.append(table(name, run(name, a.seeds, a.scale, a.precision_prior), a.seeds, a.scale))
    print("\n".join(out))


if __name__ == "__main__":
    main()
