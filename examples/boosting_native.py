"""
Boosting on money with native xgboost and lightgbm
==================================================

Native ``xgb.train`` and ``lgb.train`` on the average expected cost (AEC) of synthetic
card transactions (``csdt.datasets.make_fraud_transactions``): a missed fraud loses its
amount (C_FN = amount), an alert costs 10 (C_FP = C_TP = 10). Early stopping watches the
validation savings; the test rows are scored with the trees up to the best round, and
the deployable boosters (:func:`csboost_plugins.xgb.to_deployable`,
:func:`csboost_plugins.lgb.to_deployable`) give the same probabilities from plain
``Booster.predict``. The figure shows savings and expected savings per boosting round.

Run ``python examples/boosting_native.py [--out boosting_savings.png] [--n 20000]``;
with ``--out`` the figure and the deployable models are saved next to it.
"""

from __future__ import annotations

import argparse

import lightgbm as lgb
import matplotlib.pyplot as plt
import numpy as np
import xgboost as xgb
from sklearn.model_selection import train_test_split

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score
from csdt.datasets import make_fraud_transactions


def main(argv=None):
    ap = argparse.ArgumentParser(description="AEC boosting with native xgboost and lightgbm")
    ap.add_argument("--out", default=None, help="save the figure here (and the deployable models next to it)")
    ap.add_argument("--n", type=int, default=20_000, help="transactions (half train, a quarter validation, test)")
    a = ap.parse_args(argv)

    b = make_fraud_transactions(a.n, fraud_rate=0.02, random_state=0)
    X, y, C = b.data.to_numpy(), np.asarray(b.target), b.cost_matrix
    Xtr, Xrest, ytr, yrest, Ctr, Crest = train_test_split(X, y, C, test_size=0.5, random_state=0, stratify=y)
    Xva, Xte, yva, yte, Cva, Cte = train_test_split(Xrest, yrest, Crest, test_size=0.5, random_state=0,
                                                    stratify=yrest)

    # ---------------------------------------------------------------- xgboost
    dtrain = cxgb.cost_dmatrix(Xtr, ytr, cost_matrix=Ctr)  # each DMatrix carries its own rows' costs
    dval = cxgb.cost_dmatrix(Xva, yva, cost_matrix=Cva)
    # start margin (base_score): logit of the share of regret money preferring "fraud" (default)
    # one thread: the Python objective runs every round, and 10k rows gain little from more
    params = cxgb.aec_params(dtrain, {"tree_method": "hist", "max_depth": 4, "eta": 0.1, "nthread": 1})
    hist_x = {}
    bst = xgb.train(params, dtrain, 400, obj=cxgb.aec_objective(), evals=[(dtrain, "train"), (dval, "val")],
                    custom_metric=cxgb.money_metrics,  # aec, expected_savings, savings (decision s > 1/2)
                    callbacks=[cxgb.early_stopping(40, data_name="val", metric="savings")],  # maximised
                    evals_result=hist_x, verbose_eval=False)
    s_x = cxgb.predict_proba(bst, Xte)  # expit(margin), trees up to best_iteration, start margin included
    dep_x = cxgb.to_deployable(bst)  # binary:logistic, base_score as a probability, cut at the best round
    plain_x = dep_x.predict(xgb.DMatrix(Xte))

    # ---------------------------------------------------------------- lightgbm
    ltrain = clgb.cost_dataset(Xtr, ytr, cost_matrix=Ctr)  # init_score = the same default start margin
    lval = clgb.cost_dataset(Xva, yva, cost_matrix=Cva, reference=ltrain)  # same start margin as training
    hist_l = {}
    lbst = lgb.train({"objective": clgb.aec_objective(), "num_leaves": 15, "learning_rate": 0.1, "verbose": -1,
                      "num_threads": 1}, ltrain, 400, valid_sets=[lval], valid_names=["val"], feval=clgb.money_metrics,
                     callbacks=[clgb.record_money(hist_l), clgb.early_stopping(40, data_name="val", metric="savings")])
    clgb.bake_start_margin(lbst, ltrain)  # lightgbm forgets init scores at prediction: put it in the model, once
    s_l = clgb.predict_proba(lbst, Xte)  # trees up to best_iteration
    dep_l = clgb.to_deployable(lbst)  # objective=binary sigmoid:1 in the model text
    plain_l = dep_l.predict(Xte)

    # ---------------------------------------------------------------- money table
    print(f"{'test set':10s} {'best round':>10s} {'savings s>1/2':>14s} {'savings BMR':>12s} "
          f"{'expected savings':>17s} {'|plain - ours|':>15s}")
    for name, best, s, plain in (("xgboost", bst.best_iteration + 1, s_x, plain_x),
                                 ("lightgbm", lbst.best_iteration, s_l, plain_l)):
        print(f"{name:10s} {best:10d} {savings_score(yte, (s > 0.5).astype(int), cost_matrix=Cte):14.3f} "
              f"{savings_score(yte, bayes_minimum_risk(s, cost_matrix=Cte), cost_matrix=Cte):12.3f} "
              f"{expected_savings_score(yte, s, cost_matrix=Cte):17.3f} {np.abs(plain - s).max():15.1e}")

    # ---------------------------------------------------------------- plot
    fig, ax = plt.subplots(figsize=(7, 4))
    for data, label, style, color in ((hist_x["train"], "xgboost train", ":", "C0"),
                                      (hist_x["val"], "xgboost val", "-", "C0"),
                                      (hist_l["training"], "lightgbm train", ":", "C2"),
                                      (hist_l["val"], "lightgbm val", "-", "C2")):
        ax.plot(np.arange(1, len(data["savings"]) + 1), data["savings"], style, color=color, label=f"{label} savings")
        ax.plot(np.arange(1, len(data["expected_savings"]) + 1), data["expected_savings"], style, color=color,
                alpha=0.35, label=f"{label} expected savings")
    ax.axvline(bst.best_iteration + 1, color="C0", lw=0.8)
    ax.axvline(lbst.best_iteration, color="C2", lw=0.8)
    ax.set_xlabel("boosting round")
    ax.set_ylabel("savings (fraction of the cheaper trivial policy's cost)")
    ax.set_title("AEC boosting on card fraud: savings per round")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    if a.out:
        fig.savefig(a.out, dpi=120)
        stem = a.out.rsplit(".", 1)[0]
        dep_x.save_model(stem + "_xgb.json")  # plain xgboost: Booster.predict == our predict_proba
        dep_l.save_model(stem + "_lgb.txt")  # plain lightgbm, ONNX, treelite read it the same way
        print(f"figure saved to {a.out}, deployable models to {stem}_xgb.json and {stem}_lgb.txt")
    return fig


if __name__ == "__main__":
    main()
