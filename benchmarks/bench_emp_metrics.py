"""Expected maximum profit metrics against ``empulse`` on the bundled churn and credit sets.

``empulse`` is not a dependency of this project (not at run time, not in the tests): this script
saves each model's test scores to ``.npy`` files, computes ``csboost_plugins.metrics``'
``empc_score`` / ``mpc_score`` / ``empcs_score`` / ``mpcs_score`` (value and alert rate) in the
current environment, then runs itself with ``--empulse-python`` (an interpreter that has empulse,
e.g. a separate venv) on the saved files to compute ``empulse.metrics``' functions of the same
names (value and ``optimal_rate``), and prints both side by side with the time per call.

Models: a standardised logistic regression and scikit-learn's ``HistGradientBoostingClassifier``
on a stratified 50/50 split; churn metrics on ``load_churn``, credit metrics on
``load_creditscoring1`` and ``load_creditscoring2``. The ``ties`` rows round the scores to two
decimals (many tied scores), where implementations can differ in how a tie group is flagged.

Usage::

    python -m venv --system-site-packages /tmp/empulse_venv && /tmp/empulse_venv/bin/pip install empulse
    python benchmarks/bench_emp_metrics.py --empulse-python /tmp/empulse_venv/bin/python \\
        --out benchmarks/results/emp_metrics.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FUNCS = {"churn": ("empc_score", "mpc_score"), "credit": ("empcs_score", "mpcs_score")}


def _timed(f, *args, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = f(*args)
        best = min(best, time.perf_counter() - t)
    return out, best


def predict(folder):
    """Fit the models, save ``<case>.y.npy`` / ``<case>.s.npy``; return the cases and their kind."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import csdt.datasets as ds

    models = {"logreg": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
              "hgb": lambda: HistGradientBoostingClassifier(random_state=0)}
    cases = {}
    for kind, loader in [("churn", "load_churn"), ("credit", "load_creditscoring1"), ("credit", "load_creditscoring2")]:
        d = getattr(ds, loader)()
        X = d.data.select_dtypes("number")
        Xtr, Xte, ytr, yte = train_test_split(X, np.asarray(d.target), test_size=0.5, random_state=0,
                                              stratify=d.target)
        for name, make in models.items():
            s = make().fit(Xtr, ytr).predict_proba(Xte)[:, 1]
            for variant, scores in [("", s), (" ties", np.round(s, 2))]:
                case = f"{loader.removeprefix('load_')} {name}{variant}"
                np.save(folder / f"{case}.y.npy", yte.astype(np.int64))
                np.save(folder / f"{case}.s.npy", scores)
                cases[case] = kind
    return cases


def score(cases, folder, library):
    """Value, alert rate and seconds per call of each metric, with ``csboost_plugins`` or ``empulse``."""
    import importlib

    metrics = importlib.import_module("empulse.metrics" if library == "empulse" else "csboost_plugins.metrics")
    out = {}
    for case, kind in cases.items():
        y, s = np.load(folder / f"{case}.y.npy"), np.load(folder / f"{case}.s.npy")
        for fname in FUNCS[kind]:
            f = getattr(metrics, fname)
            if library == "empulse":
                value, sec = _timed(f, y, s)
                rate = f.optimal_rate(y, s)
            else:
                (value, rate), sec = _timed(lambda a, b, f=f: f(a, b, return_threshold=True), y, s)
            out[f"{case}|{fname}"] = {"value": float(value), "rate": float(rate), "seconds": sec}
    return out


def table(ours, theirs):
    lines = ["| case | metric | ours | empulse | rel. diff | alert rate ours / empulse | ms ours / empulse |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for key, a in ours.items():
        b = theirs[key]
        case, fname = key.split("|")
        rel = abs(a["value"] - b["value"]) / max(abs(b["value"]), 1e-300) if b["value"] or a["value"] else 0.0
        lines.append(f"| {case} | {fname} | {a['value']:.6g} | {b['value']:.6g} | {rel:.1e} | "
                     f"{a['rate']:.4f} / {b['rate']:.4f} | {1e3 * a['seconds']:.1f} / {1e3 * b['seconds']:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--empulse-python", help="interpreter with empulse installed")
    ap.add_argument("--out", help="JSON file for both sets of results")
    ap.add_argument("--empulse-on", help=argparse.SUPPRESS)  # internal: score the saved files with empulse
    args = ap.parse_args()
    if args.empulse_on:
        folder = Path(args.empulse_on)
        cases = json.loads((folder / "cases.json").read_text())
        print(json.dumps(score(cases, folder, "empulse")))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = predict(folder)
        (folder / "cases.json").write_text(json.dumps(cases))
        ours = score(cases, folder, "csboost_plugins")
        theirs = None
        if args.empulse_python:
            run = subprocess.run([args.empulse_python, __file__, "--empulse-on", tmp], capture_output=True, text=True,
                                 check=True)
            theirs = json.loads(run.stdout.strip().splitlines()[-1])
    if args.out:
        Path(args.out).write_text(json.dumps({"csboost_plugins": ours, "empulse": theirs}, indent=1))
    if theirs is None:
        print(json.dumps(ours, indent=1))
    else:
        print(table(ours, theirs))


if __name__ == "__main__":
    sys.exit(main())
