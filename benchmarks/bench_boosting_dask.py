"""Benchmark 4 (issue 3): AEC boosting under dask (LocalCluster, 2 workers x 1 thread) vs one process.

Same synthetic card-fraud data as ``bench_boosting_speed.py`` (``--rows`` training
rows x 30 features, costs C_FP = C_TP = 10, C_FN = amount), a separate test set of
``--test-rows``; time of the fit and test savings (s > 1/2 and Bayes minimum risk)
and expected savings, for ``xgboost.dask.train`` and ``lightgbm.dask.DaskLGBMClassifier``
against the single-machine ``CSXGBClassifier`` / ``CSLGBMClassifier`` (2 threads).

    python benchmarks/bench_boosting_dask.py --rows 1000000 --rounds 50
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.costs import CostWarning
from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score

warnings.filterwarnings("ignore", category=CostWarning)
warnings.filterwarnings("ignore", category=UserWarning)


def make_data(n, p=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p), dtype=np.float32)
    beta = rng.normal(0, 0.6, p)
    amount = rng.lognormal(3.5, 1.2, n)
    # fraud more likely on larger amounts, so the money matters for the model
    logit = X @ beta - 6.0 + 0.5 * np.log(amount)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(np.float64)
    C = np.zeros((n, 4))
    C[:, 0] = 10.0
    C[:, 2] = 10.0
    C[:, 1] = amount
    return X, y, C


def money(y, s, C):
    return {
        "sav@.5": savings_score(y, (s > 0.5).astype(int), cost_matrix=C),
        "sav BMR": savings_score(y, bayes_minimum_risk(s, cost_matrix=C), cost_matrix=C),
        "E[sav]": expected_savings_score(y, s, cost_matrix=C),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--test-rows", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=50)
    a = ap.parse_args(argv)

    import dask.array as da
    from dask.distributed import Client, LocalCluster
    from lightgbm.dask import DaskLGBMClassifier
    from xgboost import dask as dxgb

    X, y, C = make_data(a.rows + a.test_rows)
    Xtr, ytr, Ctr = X[: a.rows], y[: a.rows], C[: a.rows]
    Xte, yte, Cte = X[a.rows:], y[a.rows:], C[a.rows:]
    print(f"train {a.rows} x {X.shape[1]}, test {a.test_rows}, positives {ytr.mean():.2%}, {a.rounds} rounds")
    rows = []

    t0 = time.perf_counter()
    sx = cxgb.CSXGBClassifier(n_estimators=a.rounds, max_depth=6, learning_rate=0.1, n_jobs=2, random_state=0)
    sx.fit(Xtr, ytr, cost_matrix=Ctr)
    rows.append(("xgboost", "single process, 2 threads", time.perf_counter() - t0,
                 money(yte, sx.predict_proba(Xte)[:, 1], Cte)))
    t0 = time.perf_counter()
    sl = clgb.CSLGBMClassifier(n_estimators=a.rounds, num_leaves=31, learning_rate=0.1, n_jobs=2, random_state=0)
    sl.fit(Xtr, ytr, cost_matrix=Ctr)
    rows.append(("lightgbm", "single process, 2 threads", time.perf_counter() - t0,
                 money(yte, sl.predict_proba(Xte)[:, 1], Cte)))

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=40) as cluster, \
            Client(cluster) as client:
        chunk = (a.rows + 1) // 2
        dX = da.from_array(Xtr, chunks=(chunk, X.shape[1])).persist()
        dy = da.from_array(ytr, chunks=chunk).persist()
        dC = [da.from_array(Ctr[:, j], chunks=chunk).persist() for j in range(3)]
        t0 = time.perf_counter()
        dtrain, info = cxgb.dask_cost_dmatrix(client, dX, dy, fp_cost=dC[0], fn_cost=dC[1], tp_cost=dC[2])
        out = dxgb.train(client, {"tree_method": "hist", "max_depth": 6, "eta": 0.1, "nthread": 1,
                                  "base_score": info["start_margin"], "disable_default_eval_metric": 1},
                         dtrain, num_boost_round=a.rounds, obj=cxgb.aec_objective(costs_in_weight=True))
        rows.append(("xgboost", "dask LocalCluster 2 x 1 thread", time.perf_counter() - t0,
                     money(yte, cxgb.predict_proba(out["booster"], Xte), Cte)))
        t0 = time.perf_counter()
        z, w, init, info = clgb.dask_cost_inputs(dy, fp_cost=dC[0], fn_cost=dC[1], tp_cost=dC[2])
        m = DaskLGBMClassifier(objective=clgb.aec_objective(costs_in_weight=True), n_estimators=a.rounds,
                               num_leaves=31, learning_rate=0.1, verbose=-1, client=client, random_state=0)
        m.fit(dX, z, sample_weight=w, init_score=init)
        bst = clgb.bake_start_margin(m.to_local().booster_, info["start_margin"])
        rows.append(("lightgbm", "dask LocalCluster 2 x 1 thread", time.perf_counter() - t0,
                     money(yte, clgb.predict_proba(bst, Xte), Cte)))

    print("| library | setting | fit seconds | test sav@.5 | test sav BMR | test E[sav] |")
    print("|---|---|---|---|---|---|")
    for lib, setting, sec, mo in rows:
        print(f"| {lib} | {setting} | {sec:.1f} | {mo['sav@.5']:.4f} | {mo['sav BMR']:.4f} | {mo['E[sav]']:.4f} |")


if __name__ == "__main__":
    main()
