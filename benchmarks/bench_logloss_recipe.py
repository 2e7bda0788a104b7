"""Which recipe for the logloss booster of ``decision="auto"``? Test money of the estimators as constructed.

``CSXGBClassifier()`` / ``CSLGBMClassifier()`` with no keyword, fitted without ``eval_set`` on the
training + validation rows of a split (they hold out their own validation fifth, choose the rule
there, and decide the test rows with each row's costs). Only the logloss booster's recipe differs
between the columns; it is set through the module constants of
``csboost_plugins.boosting._decision_layer`` (the library's one place for it), so every column
is what a user gets from that library state:

``previous``        the default before this study: lightgbm with its own leaf regularisation
                    (``lambda_l2=0``, ``min_sum_hessian_in_leaf=1e-3``), early stopping on
                    validation logloss (patience 30) within ``n_estimators`` (100) rounds, no refit;
``floors``          ``previous`` with lightgbm's logloss booster at ``lambda_l2 >= 1``,
                    ``min_sum_hessian_in_leaf >= 1`` (xgboost's defaults; xgboost unchanged);
``money+refit``     ``floors``, early stopping on validation money (savings of BMR decisions,
                    patience 30) within 2 x ``n_estimators`` rounds, then refit on every row with the
                    kept round count when logloss + BMR decides;
``200@0.1+refit``   ``floors``, no early stopping: 2 x ``n_estimators`` rounds at the estimator's
                    learning rate (choice on the held-out fifth), refit on every row.

The machine was shared by six jobs (load average 10-13 on 2 cores) when this ran, so the study
was cut to these four columns (no "money stop without refit", no "400 rounds at 0.05"; the
constants allow them: ``LOGLOSS_LR``) and to the splits below.

Data and splits (size chosen so the study fits about 80 minutes on 2 shared cores, one thread
per fit, the two libraries as two processes): the four bundled sets (3 stratified 50/25/25
splits), both synthetic generators (``make_fraud_transactions`` and ``make_additive_risk``, 60,000
rows, 2 splits), the card file (``$CSBOOST_DATA_DIR``) in 2 repeats of the paper's stratified
2-fold CV (4 of its 10 folds), its time-ordered split (the first 80 % fits, the last 20 % tests)
with the loader's costs and with gains (``tp_cost = -(50 + amount)``, ``tn_cost = -0.02 amount``,
``fp_cost = 5``, ``fn_cost = amount``), and 2 stratified 50/50 splits with those gains
(scikit-learn's cost-sensitive fraud example; the estimator holds out its own validation fifth
of the training half, as everywhere here).

Tuning rows (decided on before the run): card CV repeat 0 and bundled seeds 0-1; every other
row (card CV repeat 1, the time split, the gains splits, the synthetic sets, bundled seed 2)
only confirms.

Usage::

    CSBOOST_DATA_DIR=/path/to/data python benchmarks/bench_logloss_recipe.py --libs xgboost \\
        --out benchmarks/results/logloss_recipe_xgboost.json
    python benchmarks/bench_logloss_recipe.py --table benchmarks/results/logloss_recipe_*.json

Results go to the JSON after every split (reruns skip what is there).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before xgboost / lightgbm load: one thread, no keyword

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.model_selection import StratifiedKFold, train_test_split  # noqa: E402

from csboost_plugins.boosting import _decision_layer as dl  # noqa: E402
from csboost_plugins.lgb import CSLGBMClassifier  # noqa: E402
from csboost_plugins.xgb import CSXGBClassifier  # noqa: E402
from csdt import datasets  # noqa: E402

warnings.filterwarnings("ignore")

FLOORS = dict(dl.LOGLOSS_FLOORS["lightgbm"])
# the lightgbm logloss booster without and with its floors (the recipes with a money stop, a larger round
# budget and a refit on every row, measured in results/logloss_recipe.md, were a prototype not kept)
VARIANTS = {
    "previous": {"lightgbm": {}},
    "floors": {"lightgbm": FLOORS},
}
ESTIMATORS = {"xgboost": CSXGBClassifier, "lightgbm": CSLGBMClassifier}


def _card():
    return datasets.load_creditcard_fraud(raw=False)


def gains(amount):
    """The gains variant: an alert costs 5, a caught fraud gains 50 + amount, an accepted legitimate row 2 %."""
    a = np.asarray(amount, dtype=np.float64)
    return np.column_stack([np.full_like(a, 5.0), a, -(50.0 + a), -0.02 * a])


DATASETS = {  # name: (loader, seeds)
    "creditcard": (_card, None),
    "creditcard_time": (_card, None),
    "creditcard_time_gains": (_card, None),
    "churn": (datasets.load_churn, range(3)),
    "creditscoring2": (datasets.load_creditscoring2, range(3)),
    "bankmarketing": (datasets.load_bankmarketing, range(3)),
    "creditscoring1": (datasets.load_creditscoring1, range(3)),
    "fraud_synth": (lambda: datasets.make_fraud_transactions(60_000, fraud_rate=0.01, random_state=0), range(2)),
    "additive_synth": (lambda: datasets.make_additive_risk(60_000, positive_rate=0.02, random_state=0), range(2)),
    "creditcard_gains": (_card, range(2)),
}


def tuning(name, split):
    """Rows the recipe was chosen on (fixed before the run); every other row confirms."""
    if name == "creditcard":
        return split.split(".")[0] == "0"
    if name in ("churn", "creditscoring1", "creditscoring2", "bankmarketing"):
        return split in ("0", "1")
    return False


def splits(name, y, seeds, bunch):
    """(split name, fit rows, test rows): the estimator gets the fit rows without eval_set."""
    idx = np.arange(len(y))
    if name == "creditcard":  # the paper's 2-fold CV stratified by label x fraud-amount tercile, 2 repeats
        strat = bunch.amount_tercile
        for rep in range(2):
            for k, (tr, te) in enumerate(StratifiedKFold(2, shuffle=True, random_state=rep).split(idx, strat)):
                yield f"{rep}.{k}", tr, te
        return
    if name.startswith("creditcard_time"):  # the file's order is time: the past fits, the last 20 % tests
        yield "time", idx[: int(0.8 * len(y))], idx[int(0.8 * len(y)):]
        return
    if name == "creditcard_gains":  # stratified 50/50, as scikit-learn's cost-sensitive fraud example
        for seed in seeds:
            tr, te = train_test_split(idx, test_size=0.5, random_state=seed, stratify=y)
            yield str(seed), tr, te
        return
    for seed in seeds:  # 50/25/25: the estimator fits on the 75 % (its own validation part inside)
        tr, rest = train_test_split(idx, test_size=0.5, random_state=seed, stratify=y)
        va, te = train_test_split(rest, test_size=0.5, random_state=seed, stratify=y[rest])
        yield str(seed), np.sort(np.concatenate([tr, va])), te


def set_recipe(v):
    dl.LOGLOSS_FLOORS.update(VARIANTS[v])


def run_split(lib, X, y, C, fit, te, variants):
    rec = {}
    for v in variants:
        set_recipe(v)
        t0 = time.perf_counter()
        est = ESTIMATORS[lib]().fit(X[fit], y[fit], cost_matrix=C[fit])
        t = time.perf_counter() - t0
        ll = est.logloss_booster_
        rounds = ll.num_boosted_rounds() if hasattr(ll, "num_boosted_rounds") else ll.current_iteration()
        rec[v] = {"savings": dl.savings(y[te].astype(float), est.predict(X[te], cost_matrix=C[te]), C[te]),
                  "decision": est.decision_, "logloss_rounds": int(rounds), "seconds": t}
    set_recipe("floors")
    return rec


def run(names, libs, out, variants=tuple(VARIANTS)):
    out = Path(out)
    res = json.loads(out.read_text()) if out.exists() else {}
    for name in names:
        load, seeds = DATASETS[name]
        b = load()
        X = np.asarray(b.data, dtype=np.float64)
        y = np.asarray(b.target)
        C = gains(b.amount) if name.endswith("_gains") else np.asarray(b.cost_matrix, dtype=np.float64)
        for split, fit, te in splits(name, y, seeds, b):
            for lib in libs:
                key = f"{name}|{split}|{lib}"
                if key in res:
                    continue
                t0 = time.perf_counter()
                res[key] = r = run_split(lib, X, y, C, fit, te, variants)
                print(f"{key} [{time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}]: " + "  ".join(
                    f"{v} {r[v]['savings']:.4f} ({r[v]['decision']}, {r[v]['logloss_rounds']})" for v in r),
                    flush=True)
                out.write_text(json.dumps(res, indent=1))
    return res


def _mean_se(d):
    d = np.asarray(d, dtype=float)
    return d.mean(), (d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan"))


def table(res, against="previous"):
    groups = {}
    for key, r in res.items():
        name, split, lib = key.split("|")
        groups.setdefault((name, lib), []).append((split, r))
    have = set.intersection(*(set(r) for r in res.values()))
    cols = [v for v in VARIANTS if v != against and v in have]
    lines = [f"| data set | library | splits (tuning) | {against} | " + " | ".join(f"{v} - {against}" for v in cols)
             + " | logloss rounds (" + " / ".join([against, *cols]) + ") |", "|---" * (5 + len(cols)) + "|"]
    for (name, lib), rs in sorted(groups.items()):
        cells = []
        for v in cols:
            m, se = _mean_se([r[v]["savings"] - r[against]["savings"] for _, r in rs])
            cells.append(f"{m:+.4f}" + ("" if np.isnan(se) else f" ± {se:.4f}"))
        nt = sum(tuning(name, s) for s, _ in rs)
        rounds = " / ".join(f"{np.mean([r[v]['logloss_rounds'] for _, r in rs]):.0f}" for v in [against, *cols])
        lines.append(f"| {name} | {lib} | {len(rs)} ({nt}) | {np.mean([r[against]['savings'] for _, r in rs]):.4f} | "
                     + " | ".join(cells) + f" | {rounds} |")
    for part, keep in (("tuning", True), ("confirming", False)):
        lines += ["", f"Pooled over the {part} rows (mean of per-split differences; splits where the variant is "
                  f"behind {against} by more than 0.005):", ""]
        for v in cols:
            d = [r[v]["savings"] - r[against]["savings"] for key, r in res.items()
                 if tuning(key.split("|")[0], key.split("|")[1]) == keep]
            if d:
                m, se = _mean_se(d)
                lines.append(f"* {v}: {m:+.4f} ± {se:.4f} over {len(d)}; {sum(x < -0.005 for x in d)} behind")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--libs", nargs="+", default=list(ESTIMATORS))
    ap.add_argument("--out", default="benchmarks/out/logloss_recipe.json")
    ap.add_argument("--table", nargs="+", help="print the tables of these result files and exit")
    ap.add_argument("--against", default="previous")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), help="columns to fit (first: previous)")
    a = ap.parse_args(argv)
    if a.table:
        res = {}
        for f in a.table:
            res.update(json.loads(Path(f).read_text()))
        print(table(res, a.against))
        return 0
    names = [n for n in a.datasets if not n.startswith("creditcard") or os.environ.get("CSBOOST_DATA_DIR")]
    skipped = sorted(set(a.datasets) - set(names))
    if skipped:
        print(f"skipping {skipped}: set CSBOOST_DATA_DIR to the folder of creditcard.csv.gz", file=sys.stderr)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    print(f"start load {os.getloadavg()}", flush=True)
    res = run(names, a.libs, a.out, a.variants)
    print(f"end load {os.getloadavg()}", flush=True)
    print(table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
