"""CatBoost host: (a) AEC fit time per round against CatBoost's own Logloss, (b) money of the default
``CSCatBoostClassifier()`` against CatBoost logloss + Bayes minimum risk on the bundled sets.

(a) Synthetic rows x 30 features (amount-driven fraud costs), both pools quantized before the clock
starts, the same trees (depth 6, Plain boosting, thread_count as given); time per round of
``catboost.CatBoost(aec_params(...))`` on a cost pool and of ``CatBoostClassifier`` (Logloss) with its
defaults (leaf_estimation_iterations=10 for Logloss on CPU) and with leaf_estimation_iterations=1 (the
AEC's: CatBoost takes one Newton step per leaf for a custom objective). Ratio AEC / Logloss.

(b) Each bundled set: 70/30 split stratified (seeded); ``CSCatBoostClassifier()`` (decision="auto")
on the 70 % against ``CatBoostClassifier`` with the same iterations / learning rate / depth,
early-stopped on the validation rows the default held out (the same 20 % of the 70 %), BMR decisions
with each test row's costs. Savings on the 30 %.

    python benchmarks/bench_catboost.py --rows 1000000 --rounds 50 --out benchmarks/results/catboost.json
    CSBOOST_DATA_DIR=/path/to/data python benchmarks/bench_catboost.py --skip-speed --seeds 3 --card
    python benchmarks/bench_catboost.py --rows 50000 --rounds 20 --max-bundled 5000   # a quick look
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import catboost
import numpy as np
from sklearn.model_selection import train_test_split

from csboost_plugins import catboost as ccb
from csboost_plugins.boosting import _decision_layer as dl
from csboost_plugins.costs import CostWarning
from csboost_plugins.metrics import bayes_minimum_risk, savings_score
from csdt import datasets

warnings.filterwarnings("ignore", category=CostWarning)
BUNDLED = ("churn", "creditscoring1", "creditscoring2", "bankmarketing")


def synthetic(n, p=30, seed=0):
    """n x p normal features, fraud driven by three of them and the log amount (column 0)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).astype(np.float32)
    amount = np.exp(3.0 + X[:, 0])
    logit = -4.0 + 1.5 * X[:, 1] - X[:, 2] + 0.8 * X[:, 3] + 0.5 * X[:, 0]
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(int)
    return X, y, amount


def _timed_fit(model, pool):
    t = time.perf_counter()
    model.fit(pool)
    return time.perf_counter() - t


def speed(rows, rounds, threads, repeats):
    """Seconds per round of the AEC and of CatBoost's Logloss on the same quantized data."""
    X, y, amount = synthetic(rows)
    aec_pool = ccb.cost_pool(X, y, fp_cost=10.0, fn_cost=amount, tp_cost=10.0)
    ll_pool = catboost.Pool(X, label=y)
    aec_pool.quantize()
    ll_pool.quantize()
    common = {"iterations": rounds, "depth": 6, "learning_rate": 0.1, "thread_count": threads, "verbose": 0,
              "boosting_type": "Plain", "random_seed": 0, "allow_writing_files": False}
    runs = {
        "aec": lambda: catboost.CatBoost(ccb.aec_params(common)),
        "logloss (defaults)": lambda: catboost.CatBoostClassifier(**common),
        "logloss (leaf_estimation_iterations=1)": lambda: catboost.CatBoostClassifier(
            **common, leaf_estimation_iterations=1),
    }
    pools = {name: aec_pool if name == "aec" else ll_pool for name in runs}
    for name, make in runs.items():
        _timed_fit(make(), pools[name])  # warm-up: kernel load, thread pools
    times = {name: [] for name in runs}
    for _ in range(repeats):  # interleaved, so that a change of machine load hits every model alike
        for name, make in runs.items():
            times[name].append(_timed_fit(make(), pools[name]))
    out = {name: min(t) / rounds for name, t in times.items()}
    out["ratio aec / logloss (defaults)"] = out["aec"] / out["logloss (defaults)"]
    out["ratio aec / logloss (leaf_estimation_iterations=1)"] = out["aec"] / out[
        "logloss (leaf_estimation_iterations=1)"]
    return out


def money(name, max_rows, threads, seed=1):
    """Test savings of CSCatBoostClassifier() and of CatBoost logloss + BMR on one bundled set."""
    b = datasets.load_creditcard_fraud(None, admin_cost=5.0) if name == "card" else getattr(datasets, f"load_{name}")()
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix)
    if max_rows and len(y) > max_rows:
        keep = train_test_split(np.arange(len(y)), train_size=max_rows, stratify=y, random_state=seed)[0]
        X, y, C = X[keep], y[keep], C[keep]
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=seed)
    est = ccb.CSCatBoostClassifier(thread_count=threads, random_state=seed)
    t = time.perf_counter()
    est.fit(X[tr], y[tr], cost_matrix=C[tr])
    fit_s = time.perf_counter() - t
    ours = savings_score(y[te], est.predict(X[te], cost_matrix=C[te]), cost_matrix=C[te])
    # the rows the default held out (dl.holdout), so both arms early-stop on the same validation rows
    split = dl.holdout(est, y[tr])
    a, v = (tr[split[0]], tr[split[1]]) if split is not None else (tr, tr[:0])
    ref = catboost.CatBoostClassifier(iterations=est.n_estimators, learning_rate=est.learning_rate, depth=est.depth,
                                      thread_count=threads, random_seed=seed, verbose=0, allow_writing_files=False,
                                      early_stopping_rounds=dl.AUTO_PATIENCE, use_best_model=True,
                                      **dl.LOGLOSS_PARAMS["catboost"])  # started from the class rate, as ours
    ref.fit(X[a], y[a], eval_set=(X[v], y[v]) if len(v) else None)
    base = savings_score(y[te], bayes_minimum_risk(ref.predict_proba(X[te])[:, 1], cost_matrix=C[te]),
                         cost_matrix=C[te])
    return {"rows": int(len(y)), "CSCatBoostClassifier()": ours, "decision_": est.decision_,
            "catboost logloss + BMR": base, "fit seconds": fit_s}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the speed data (30 features)")
    ap.add_argument("--rounds", type=int, default=50, help="boosting rounds timed")
    ap.add_argument("--repeats", type=int, default=2, help="timed fits per model (the fastest counts)")
    ap.add_argument("--threads", type=int, default=-1, help="CatBoost thread_count")
    ap.add_argument("--max-bundled", type=int, default=0, help="subsample each bundled set to this many rows (0: all)")
    ap.add_argument("--seeds", type=int, default=1, help="70/30 splits per set (seeds 1..N)")
    ap.add_argument("--card", action="store_true", help="also the card file (needs CSBOOST_DATA_DIR)")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-money", action="store_true")
    ap.add_argument("--out", type=Path, help="write the results as JSON")
    args = ap.parse_args()
    result = {"catboost": catboost.__version__, "rows": args.rows, "rounds": args.rounds}
    if not args.skip_speed:
        result["seconds per round"] = speed(args.rows, args.rounds, args.threads, args.repeats)
        print(f"speed, {args.rows} x 30, {args.rounds} rounds:")
        for k, v in result["seconds per round"].items():
            print(f"  {k}: {v:.4f}")
    if not args.skip_money:
        result["test savings"] = {}
        print("| data set | rows | splits | CSCatBoostClassifier() | decision_ (per split) | catboost logloss + BMR "
              "| difference (± sd) |")
        print("|---|---|---|---|---|---|---|")
        for name in BUNDLED + (("card",) if args.card else ()):
            runs = [money(name, args.max_bundled, args.threads, seed=s) for s in range(1, args.seeds + 1)]
            result["test savings"][name] = runs
            ours = np.array([r["CSCatBoostClassifier()"] for r in runs])
            base = np.array([r["catboost logloss + BMR"] for r in runs])
            d = ours - base
            print(f"| {name} | {runs[0]['rows']} | {len(runs)} | {ours.mean():.4f} | "
                  f"{', '.join(r['decision_'] for r in runs)} | {base.mean():.4f} | {d.mean():+.4f} ± {d.std():.4f} |",
                  flush=True)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
