"""End-to-end demo on bundled real data: ``python -m csdt.demo``.

Trains cost-blind and cost-sensitive models on creditscoring1 (Kaggle "Give Me
Some Credit", 112,915 loans, per-loan costs from the Correa Bahnsen credit
scoring matrix), 50/25/25 split, and prints test savings and expected savings.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score, savings_score
from csdt.datasets import load_creditscoring1


def _row(name, proba, decisions, y, cm, seconds):
    es = expected_savings_score(y, proba, cost_matrix=cm) if proba is not None else float("nan")
    return name, savings_score(y, decisions, cost_matrix=cm), es, seconds


def main(random_state: int = 0) -> list:
    warnings.simplefilter("ignore", UserWarning)
    data = load_creditscoring1()
    X, y, cm = data.data, data.target, data.cost_matrix
    idx = np.arange(len(y))
    tr, rest = train_test_split(idx, train_size=0.5, stratify=y, random_state=random_state)
    va, te = train_test_split(rest, train_size=0.5, stratify=y[rest], random_state=random_state)
    Xtr, Xva, Xte = X.iloc[tr], X.iloc[va], X.iloc[te]
    rows = []

    t0 = time.perf_counter()
    lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(Xtr, y[tr])
    p = lr.predict_proba(Xte)[:, 1]
    dt = time.perf_counter() - t0
    rows.append(_row("logistic regression, 0.5 threshold", p, (p > 0.5).astype(int), y[te], cm[te], dt))
    rows.append(_row("logistic regression + Bayes minimum risk", p, bayes_minimum_risk(p, cost_matrix=cm[te]),
                     y[te], cm[te], dt))

    print(f"creditscoring1: {len(tr)} train / {len(va)} validation / {len(te)} test rows, "
          f"{100 * y.mean():.2f} % defaults; money = Correa Bahnsen credit cost matrix\n")
    print(f"{'model':58s} {'savings':>8s} {'exp.sav':>8s} {'fit s':>7s}")
    for name, s, es, sec in rows:
        print(f"{name:58s} {s:8.4f} {es:8.4f} {sec:7.2f}")
    return rows


if __name__ == "__main__":
    main()
