"""Why lightgbm's logloss booster diverges after round 1 on the card file, and which parameter cures it.

The card file (``$CSBOOST_DATA_DIR/creditcard.csv.gz``, ``load_creditcard_fraud(raw=False)``) in its
time order: the first 60 % trains, the next 20 % validates (the time split of
``bench_money_default.py``). ``lgb.train`` with ``objective="binary"``, 31 leaves, 100 rounds, one
thread, lightgbm's defaults except the parameter of the row; printed: validation logloss at rounds
1-5, the best round and its logloss, the logloss at round 100, and the largest leaf value of tree 1
with that leaf's row count and hessian sum H = sum p (1 - p) (the Newton step is -G / (H + lambda_l2),
times the learning rate; tree 1 also holds boost_from_average's start, about -6.4).

    CSBOOST_DATA_DIR=/path/to/data python benchmarks/bench_lgb_logloss_divergence.py
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import lightgbm as lgb  # noqa: E402
import numpy as np  # noqa: E402

from csdt import datasets  # noqa: E402

BASE = dict(objective="binary", metric="binary_logloss", num_leaves=31, learning_rate=0.1, verbose=-1, num_threads=1,
            deterministic=True, force_row_wise=True, seed=0)
VARIANTS = {
    "lightgbm defaults (lambda_l2 0, min_sum_hessian_in_leaf 1e-3, min_data_in_leaf 20)": {},
    "learning_rate 0.05": {"learning_rate": 0.05},
    "min_data_in_leaf 100": {"min_data_in_leaf": 100},
    "min_sum_hessian_in_leaf 0.1": {"min_sum_hessian_in_leaf": 0.1},
    "min_sum_hessian_in_leaf 1": {"min_sum_hessian_in_leaf": 1.0},
    "lambda_l2 1": {"lambda_l2": 1.0},
    "max_delta_step 0.7": {"max_delta_step": 0.7},
    "lambda_l2 1 + min_sum_hessian_in_leaf 1 (xgboost's defaults)": {"lambda_l2": 1.0, "min_sum_hessian_in_leaf": 1.0},
}


def _leaves(node, out):
    if "leaf_value" in node:
        out.append((node["leaf_value"], node.get("leaf_count"), node.get("leaf_weight")))
    else:
        _leaves(node["left_child"], out)
        _leaves(node["right_child"], out)
    return out


def main():
    b = datasets.load_creditcard_fraud(raw=False)
    X, y = np.asarray(b.data, dtype=np.float64), np.asarray(b.target)
    n = len(y)
    tr, va = np.arange(int(0.6 * n)), np.arange(int(0.6 * n), int(0.8 * n))
    print(f"{n} rows, positive rate {y.mean():.4%}; training {len(tr)} rows ({int(y[tr].sum())} positive), "
          f"validation {len(va)} ({int(y[va].sum())} positive); load {os.getloadavg()[0]:.2f}")
    dtr = lgb.Dataset(X[tr], y[tr], free_raw_data=False)
    dva = lgb.Dataset(X[va], y[va], reference=dtr)
    print("| parameters | validation logloss, rounds 1-5 | best round | best logloss | round 100 | "
          "largest leaf of tree 1 (rows, H) |")
    print("|---|---|---|---|---|---|")
    for label, v in VARIANTS.items():
        ev = {}
        bst = lgb.train({**BASE, **v}, dtr, 100, valid_sets=[dva], valid_names=["v"],
                        callbacks=[lgb.record_evaluation(ev)])
        ll = np.asarray(ev["v"]["binary_logloss"])
        top = max(_leaves(bst.dump_model()["tree_info"][0]["tree_structure"], []))
        print(f"| {label} | {', '.join(f'{x:.4f}' for x in ll[:5])} | {int(ll.argmin()) + 1} | {ll.min():.5f} | "
              f"{ll[-1]:.4f} | {top[0]:.1f} ({top[1]}, {top[2]:.3f}) |", flush=True)


if __name__ == "__main__":
    main()
