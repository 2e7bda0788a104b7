"""Human cuts (riff_select / RIFFClassifier ``cuts="simple"``, the default) beside the model's own cuts
(``cuts="model"``): rules, conditions per rule, holdout recall / FPR / precision, and whether the
selection rows' false alerts are unchanged.

    python benchmarks/bench_rules_cuts.py [--card]

Each set is split 70 / 30 (stratified, seed 0) into train and test; ``riff_select`` selects from the
leaves of a lightgbm model (30 trees, 16 leaves) fitted on half of train, on the other half, at
max_fpr=0.01; ``RIFFClassifier()`` runs with its defaults on train. ``--card`` adds the card file
(/work/shared/data/creditcard.csv.gz, raw columns).
"""

import sys

import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from csboost_plugins.rules import RIFFClassifier, extract_rules, riff_select
from csdt.datasets import load_creditscoring1, make_fraud_transactions


def sets(card):
    c = load_creditscoring1()
    yield "creditscoring1", c.data, np.asarray(c.target)
    d = make_fraud_transactions(60_000, fraud_rate=0.02, random_state=0)
    yield "make_fraud_transactions", d.data, np.asarray(d.target)
    if card:
        df = pd.read_csv("/work/shared/data/creditcard.csv.gz")
        yield "creditcard (raw)", df.drop(columns=["Class"]), df["Class"].to_numpy()


def figures(rs, X, y):
    p = rs.predict(X).astype(bool)
    tp, fp = (p & (y == 1)).sum(), (p & (y == 0)).sum()
    return tp / (y == 1).sum(), fp / (y == 0).sum(), tp / max(tp + fp, 1)


def row(name, pipe, cuts, rs, Xt, yt, same):
    r, f, pr = figures(rs, Xt, yt)
    k = np.mean([len(x) for x in rs]) if len(rs) else 0.0
    print(f"| {name} | {pipe} | {cuts} | {len(rs)} | {k:.2f} | {r:.4f} | {f:.5f} | {pr:.4f} | {same} |", flush=True)


def main():
    print("| set | pipeline | cuts | rules | conditions / rule | test recall | test FPR | test precision "
          "| selection false alerts unchanged |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, X, y in sets("--card" in sys.argv):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        Xi, Xs, yi, ys = train_test_split(Xtr, ytr, test_size=0.5, stratify=ytr, random_state=0)
        gbm = lgb.LGBMClassifier(n_estimators=30, num_leaves=16, verbose=-1, n_jobs=1, random_state=0).fit(Xi, yi)
        cands = extract_rules(gbm)
        rs = {c: riff_select(cands, Xs, ys, max_fpr=0.01, cuts=c) for c in ("model", "simple")}
        neg = ys == 0
        for c in ("model", "simple"):
            same = bool(np.array_equal(rs[c].predict(Xs)[neg], rs["model"].predict(Xs)[neg]))
            row(name, "lightgbm 30x16 + riff_select", c, rs[c], Xte, yte, same)
        clf = {c: RIFFClassifier(cuts=c, random_state=0).fit(Xtr, ytr) for c in ("model", "simple")}
        sel = clf["model"].selection_index_
        Xsel, neg = Xtr.iloc[sel], ytr[sel] == 0
        for c in ("model", "simple"):
            same = bool(np.array_equal(clf[c].rule_set_.predict(Xsel)[neg], clf["model"].rule_set_.predict(Xsel)[neg]))
            row(name, "RIFFClassifier()", c, clf[c].rule_set_, Xte, yte, same)


if __name__ == "__main__":
    main()
