"""Fit time of csdt FIGS/FIGU against imodels' FIGSClassifier (the baseline, same run).

    python benchmarks/bench_figs_speed.py [--sizes 20000x20,100000x20,1000000x30] [--max-rules 20]
        [--imodels-max-n 100000] [--repeats 3]

Data: sklearn make_classification (10 informative features, seed 0), 75/25
split; the table gives fit seconds (ours: best of --repeats after a warm-up fit
that compiles/loads the numba kernels; imodels: one fit), the speed-up, and
test ROC AUC of both so the speed is not bought with a worse model. imodels is
skipped above --imodels-max-n rows (its per-candidate stump refits and per-row
Python prediction loop make it take many minutes there).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score

from csdt import FIGSClassifier, FIGUClassifier


def _fit_time(make, X, y, repeats):
    best, model = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        model = make().fit(X, y)
        best = min(best, time.perf_counter() - t)
    return best, model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="20000x20,100000x20,1000000x30")
    ap.add_argument("--max-rules", type=int, default=20)
    ap.add_argument("--imodels-max-n", type=int, default=100000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    FIGSClassifier(max_rules=3).fit(np.random.default_rng(0).normal(size=(200, 3)), np.arange(200) % 2)
    FIGUClassifier(max_rules=3).fit(np.random.default_rng(0).normal(size=(200, 3)), np.arange(200) % 2)

    rows = []
    for size in args.sizes.split(","):
        n, d = (int(v) for v in size.split("x"))
        X, y = make_classification(n_samples=int(n / 0.75), n_features=d, n_informative=min(10, d),
                                   n_redundant=0 if d < 12 else 2, random_state=0)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
        t_figs, figs = _fit_time(lambda: FIGSClassifier(max_rules=args.max_rules), Xtr, ytr, args.repeats)
        t_figu, figu = _fit_time(lambda: FIGUClassifier(max_rules=args.max_rules), Xtr, ytr, args.repeats)
        auc_ours = roc_auc_score(yte, figs.decision_function(Xte))
        auc_figu = roc_auc_score(yte, figu.decision_function(Xte))
        t_ref = auc_ref = np.nan
        if n <= args.imodels_max_n:
            from imodels import FIGSClassifier as ImodelsFIGS

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                ref = ImodelsFIGS(max_rules=args.max_rules).fit(Xtr, ytr)
                t_ref = time.perf_counter() - t
                auc_ref = roc_auc_score(yte, ref.predict_proba(Xte)[:, 1])
        rows.append((n, d, t_ref, t_figs, t_ref / t_figs, t_figu, auc_ref, auc_ours, auc_figu))
        print(rows[-1], flush=True)

    print(f"\nmax_rules={args.max_rules}; fit seconds (ours: best of {args.repeats}); AUC on a 25 % test split\n")
    print("| n x d | imodels FIGS s | csdt FIGS s | speed-up | csdt FIGU s | AUC imodels | AUC csdt FIGS | AUC csdt FIGU |")
    print("|---|---|---|---|---|---|---|---|")
    fmt = lambda v, p: "n/a" if np.isnan(v) else f"{v:.{p}f}"
    for n, d, tr, tf, sp, tu, ar, ao, au in rows:
        print(f"| {n} x {d} | {fmt(tr, 2)} | {tf:.3f} | {fmt(sp, 0) + ('x' if np.isfinite(sp) else '')} | {tu:.3f} | {fmt(ar, 4)} | {ao:.4f} | {au:.4f} |")


if __name__ == "__main__":
    main()
