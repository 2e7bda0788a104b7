"""End-to-end demo on bundled real data: ``python -m csdt.demo``.

Part 1 trains cost-blind and cost-sensitive models on creditscoring1 (Kaggle
"Give Me Some Credit", 112,915 loans, per-loan costs from the Correa Bahnsen
credit-scoring matrix), 50/25/25 split, and prints test savings and expected
savings. Part 2 extracts a short RIFF rule set from a lightgbm model on synthetic
card transactions, at a 1 % false-positive-rate budget on its selection rows (part
of the training rows), and checks it in SQL.
"""

from __future__ import annotations

import sqlite3
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def credit_table(random_state: int = 0) -> list:
    import xgboost as xgb

    from csboost_plugins.lgb import CSLGBMClassifier
    from csboost_plugins.xgb import CSXGBClassifier
    from csdt import (
        CostSensitiveDecisionTreeClassifier,
        CostSensitiveLogisticRegression,
        CostSensitiveRandomPatchesClassifier,
    )
    from csdt.datasets import load_creditscoring1

    data = load_creditscoring1()
    X, y, cm = data.data, data.target, data.cost_matrix
    idx = np.arange(len(y))
    tr, rest = train_test_split(idx, train_size=0.5, stratify=y, random_state=random_state)
    va, te = train_test_split(rest, train_size=0.5, stratify=y[rest], random_state=random_state)
    Xtr, Xva, Xte = X.iloc[tr], X.iloc[va], X.iloc[te]
    ytr, yva, yte = y[tr], y[va], y[te]
    ctr, cva, cte = cm[tr], cm[va], cm[te]
    rows = []

    def add(name, proba, decisions, seconds):
        es = float("nan") if proba is None else expected_savings_score(yte, proba, cost_matrix=cte)
        rows.append((name, savings_score(yte, decisions, cost_matrix=cte), es, seconds))

    lr, sec = _timed(lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(Xtr, ytr))
    p = lr.predict_proba(Xte)[:, 1]
    add("logistic regression, 0.5 threshold", p, (p > 0.5).astype(int), sec)
    add("logistic regression + Bayes minimum risk", p, bayes_minimum_risk(p, cost_matrix=cte), sec)

    xg, sec = _timed(lambda: xgb.XGBClassifier(n_estimators=200, max_depth=4, learning_rate=0.05, n_jobs=2,
                                               random_state=0).fit(Xtr, ytr))
    p = xg.predict_proba(Xte)[:, 1]
    add("xgboost logloss + Bayes minimum risk", p, bayes_minimum_risk(p, cost_matrix=cte), sec)

    cslr, sec = _timed(lambda: make_pipeline(StandardScaler(), CostSensitiveLogisticRegression()).fit(
        Xtr, ytr, costsensitivelogisticregression__cost_matrix=ctr))
    p = cslr.predict_proba(Xte)[:, 1]
    add("cost-sensitive logistic regression (cslogit, AEC)", p, bayes_minimum_risk(p, cost_matrix=cte), sec)

    # one thread: OpenMP spin-waits make 2 threads far slower on a busy 2-core machine at this size
    # the estimators as a user constructs them: the AEC and logloss boosters, the rule chosen on validation money
    for name, cls in [("CSXGBClassifier()", CSXGBClassifier), ("CSLGBMClassifier()", CSLGBMClassifier)]:
        m, sec = _timed(lambda cls=cls: cls(n_jobs=1).fit(
            Xtr, ytr, cost_matrix=ctr, eval_set=[(Xva, yva)], eval_costs=[cva]))
        p = m.predict_proba(Xte)[:, 1]
        add(f"{name}: AEC or logloss, chose {m.decision_}", p, m.predict(Xte, cost_matrix=cte), sec)

    tree, sec = _timed(lambda: CostSensitiveDecisionTreeClassifier(max_depth=10, pruning="cost", random_state=0).fit(
        Xtr, ytr, cost_matrix=ctr, X_val=Xva, y_val=yva, val_cost_matrix=cva))
    add(f"CSDT, cost-pruned on validation ({tree.tree_arrays()[0].is_leaf.sum()} leaves)",
        tree.predict_proba(Xte)[:, 1], tree.predict(Xte), sec)

    ens, sec = _timed(lambda: CostSensitiveRandomPatchesClassifier(
        n_estimators=50, combination="stacking", n_jobs=2, random_state=0).fit(Xtr, ytr, cost_matrix=ctr))
    add("ECSDT random patches x50, cost-sensitive stacking", ens.predict_proba(Xte)[:, 1], ens.predict(Xte), sec)

    print(f"creditscoring1: {len(tr)} train / {len(va)} validation / {len(te)} test rows, "
          f"{100 * y.mean():.2f} % defaults; money = Correa Bahnsen credit cost matrix\n")
    print("savings = share of the cost of the cheaper of 'flag no row' / 'flag every row' that the model's 0/1\n"
          "decisions save (1: no cost left, 0: no better, < 0: worse); exp.sav = expected savings, the same\n"
          "share for the expected cost p * cost(flag) + (1 - p) * cost(no flag) of each row, p the model's\n"
          "probability (no threshold)\n")
    print(f"{'model (test set)':58s} {'savings':>8s} {'exp.sav':>8s} {'fit s':>7s}")
    for name, s, es, sec in rows:
        print(f"{name:58s} {s:8.4f} {es:8.4f} {sec:7.2f}")
    return rows


def fraud_rules(random_state: int = 0) -> dict:
    import lightgbm as lgb

    from csboost_plugins.rules import RIFFClassifier
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(200_000, fraud_rate=0.01, random_state=random_state)
    X, y = d.data, d.target
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=random_state)
    est = lgb.LGBMClassifier(n_estimators=30, num_leaves=8, learning_rate=0.1, verbose=-1, random_state=0)
    riff, sec = _timed(lambda: RIFFClassifier(estimator=est, max_fpr=0.01, random_state=0).fit(X.iloc[tr], y[tr]))
    rs = riff.rule_set_
    ev = rs.evaluate(X.iloc[te], y[te], fp_cost=0.0, fn_cost=d.fn_cost[te])
    sel = tr[riff.selection_index_]  # the training rows the rules were chosen on, where the budget holds
    sel_fpr = rs.evaluate(X.iloc[sel], y[sel])["fpr"]
    print(f"\nRIFF on synthetic card transactions ({len(tr)} train / {len(te)} test rows, "
          f"{100 * y.mean():.1f} % fraud): lightgbm -> {len(rs.rules)} rules, fit {sec:.1f} s")
    print(f"  budget: FPR <= 1 % on the selection rows ({len(sel)} of the training rows, where the rules are "
          f"chosen); FPR there {sel_fpr:.4f}")
    for i, rule in enumerate(rs.rules):
        print(f"  rule {i + 1}: {rule}")
    print(f"  test: recall {ev['tpr']:.3f} at FPR {ev['fpr']:.4f} (new rows: the FPR varies around the budget), "
          f"alert rate {ev['alert_rate']:.4f}, precision {ev['precision']:.3f}; fraud money caught "
          f"{ev['money_caught']:,.0f} of {ev['money_at_risk']:,.0f}")
    # the same rules as SQL, run by sqlite, flag the same rows as the library
    con = sqlite3.connect(":memory:")
    X.iloc[te].assign(rowid_=np.arange(len(te))).to_sql("transactions", con, index=False)
    sql = rs.to_sql(table="transactions").replace("SELECT *", "SELECT rowid_", 1)
    flagged = {r[0] for r in con.execute(sql)}
    lib = set(np.flatnonzero(rs.predict(X.iloc[te])).tolist())
    print(f"  the SQL export run in sqlite flags {len(flagged)} test rows; the library flags {len(lib)}; "
          f"identical: {flagged == lib}")
    return ev


def main(random_state: int = 0):
    warnings.simplefilter("ignore", UserWarning)
    t0 = time.perf_counter()
    rows = credit_table(random_state)
    ev = fraud_rules(random_state)
    print(f"\ndemo finished in {time.perf_counter() - t0:.0f} s")
    return rows, ev


if __name__ == "__main__":
    main()
