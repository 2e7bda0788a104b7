"""Native xgboost and lightgbm training on the average expected cost (AEC), with early stopping
on validation savings and a plot of savings per boosting round.

    python examples/boosting_native.py [--out boosting_savings.png]

Data: synthetic card transactions (``csdt.datasets.make_fraud_transactions``):
C_FN = amount (a missed fraud is lost), C_FP = C_TP = 10 (an alert costs 10).
"""

from __future__ import annotations

import argparse

import lightgbm as lgb
import matplotlib
import numpy as np
import xgboost as xgb
from sklearn.model_selection import train_test_split

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score
from csdt.datasets import make_fraud_transactions

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="boosting_savings.png")
    ap.add_argument("--n", type=int, default=40_000)
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
    params = cxgb.aec_params(dtrain, {"tree_method": "hist", "max_depth": 4, "eta": 0.1, "nthread": 2})
    hist_x = {}
    bst = xgb.train(params, dtrain, 400, obj=cxgb.aec_objective(), evals=[(dtrain, "train"), (dval, "val")],
                    custom_metric=cxgb.money_metrics,  # aec, expected_savings, savings (decision s > 1/2)
                    callbacks=[cxgb.early_stopping(40, data_name="val", metric="savings")],  # maximised
                    evals_result=hist_x, verbose_eval=False)
    s = cxgb.predict_proba(bst, Xte)  # expit(margin), trees up to best_iteration, start margin included
    print(f"xgboost : best round {bst.best_iteration + 1}, test savings (s > 1/2) "
          f"{savings_score(yte, (s > 0.5).astype(int), cost_matrix=Cte):.3f}, "
          f"BMR {savings_score(yte, bayes_minimum_risk(s, cost_matrix=Cte), cost_matrix=Cte):.3f}, "
          f"expected savings {expected_savings_score(yte, s, cost_matrix=Cte):.3f}")

    # ---------------------------------------------------------------- lightgbm
    ltrain = clgb.cost_dataset(Xtr, ytr, cost_matrix=Ctr)  # init_score = the same default start margin
    lval = clgb.cost_dataset(Xva, yva, cost_matrix=Cva, reference=ltrain)  # same start margin as training
    hist_l = {}
    lbst = lgb.train({"objective": clgb.aec_objective(), "num_leaves": 15, "learning_rate": 0.1, "verbose": -1,
                      "num_threads": 2}, ltrain, 400, valid_sets=[lval], valid_names=["val"],
                     callbacks=[clgb.record_money(hist_l), clgb.early_stopping(40, data_name="val", metric="savings")],
                     feval=clgb.money_metrics)
    clgb.bake_start_margin(lbst, ltrain)  # lightgbm forgets init scores at prediction: put it in the model, once
    sl = clgb.predict_proba(lbst, Xte)  # trees up to best_iteration
    print(f"lightgbm: best round {lbst.best_iteration}, test savings (s > 1/2) "
          f"{savings_score(yte, (sl > 0.5).astype(int), cost_matrix=Cte):.3f}, "
          f"BMR {savings_score(yte, bayes_minimum_risk(sl, cost_matrix=Cte), cost_matrix=Cte):.3f}, "
          f"expected savings {expected_savings_score(yte, sl, cost_matrix=Cte):.3f}")

    # ---------------------------------------------------------------- deploy: plain models, no csboost_plugins
    cxgb.to_deployable(bst).save_model(a.out.rsplit(".", 1)[0] + "_xgb.json")
    clgb.to_deployable(lbst).save_model(a.out.rsplit(".", 1)[0] + "_lgb.txt")

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
    fig.savefig(a.out, dpi=120)
    print(f"plot saved to {a.out}, deployable models next to it")


if __name__ == "__main__":
    main()
