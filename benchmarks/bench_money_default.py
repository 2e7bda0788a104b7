"""Money of the boosting estimators as a user constructs them (no options) against logloss + BMR.

The comparison a careful user makes first: ``CSXGBClassifier()`` / ``CSLGBMClassifier()``
with costs given to ``fit`` and ``predict``, against what they had: ``XGBClassifier`` /
``LGBMClassifier`` (logloss, early-stopped after 30 rounds on the same validation rows,
the same tree parameters as the estimators' defaults: 100 rounds, learning rate 0.1,
xgboost depth 6 / 256 bins, lightgbm 31 leaves) with a per-row Bayes-minimum-risk
decision (:func:`csboost_plugins.metrics.bayes_minimum_risk`).

Columns (test savings, paper eq. 5, of 0/1 decisions):

``LL+BMR``        the native classifier + BMR (the anchor);
``default+eval``  the estimator with no options, ``fit(..., eval_set=[(X_val, y_val)], eval_costs=[C_val])``;
``default``       the estimator with no options and no ``eval_set``, fitted on training and
                  validation rows together (it holds out its own validation part);
``AEC 0.5``       ``decision="0.5"`` without ``eval_set`` (the AEC booster's own decision s > 1/2,
                  the estimators' earlier default), on training and validation rows.

Wrong-choice rate: over the splits, how often the rule ``decision="auto"`` chose on the
validation rows (an AEC rule instead of logloss + BMR) saves less on the test rows than
logloss + BMR from the same fit; for the shipped choice (z-test + tail trim) and for the
z-test alone (the earlier choice) on the same boosters.

Data: the four bundled sets and two synthetic generators of different structure
(``make_fraud_transactions(60_000, fraud_rate=0.01)``: class-conditional features, and
``make_additive_risk(60_000, positive_rate=0.02)``: risk additive in many weak features) in
stratified 50/25/25 train/validation/test splits (``--seeds``); the real card-fraud file
(``$CSBOOST_DATA_DIR/creditcard.csv.gz``) in the csboost paper's 5 x 2-fold CV (a stratified
third of each training fold validates) and in one time-ordered 60/20/20 split (the file's
own order). Every fit runs on one thread (``OMP_NUM_THREADS=1``, set before the libraries
load), so the estimators are constructed with no keyword at all.

Usage::

    CSBOOST_DATA_DIR=/path/to/data python benchmarks/bench_money_default.py \\
        --out benchmarks/results/money_default.json
    python benchmarks/bench_money_default.py --table benchmarks/results/money_default.json
    python benchmarks/bench_money_default.py --speed --rows 1000000    # fit time, default vs AEC only

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

import lightgbm as lgb  # noqa: E402
import numpy as np  # noqa: E402
import xgboost as xgb  # noqa: E402
from sklearn.model_selection import StratifiedKFold, train_test_split  # noqa: E402

from csboost_plugins.boosting import _aec  # noqa: E402
from csboost_plugins.boosting import _decision_layer as dl  # noqa: E402
from csboost_plugins.costs import CostWarning  # noqa: E402
from csboost_plugins.decision_costs import bmr_decisions  # noqa: E402
from csboost_plugins.lgb import CSLGBMClassifier  # noqa: E402
from csboost_plugins.xgb import CSXGBClassifier  # noqa: E402
from csdt import datasets  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_boosting_money import DATASETS as BUNDLED  # noqa: E402

warnings.filterwarnings("ignore", category=CostWarning)
warnings.filterwarnings("ignore", category=UserWarning)

PATIENCE = 30
DATASETS = {
    **BUNDLED,  # the four bundled sets and fraud_synth, as the other money benchmarks read them
    "additive_synth": lambda: datasets.make_additive_risk(60_000, positive_rate=0.02, random_state=0),
    "creditcard": lambda: datasets.load_creditcard_fraud(raw=False),
    "creditcard_time": lambda: datasets.load_creditcard_fraud(raw=False),
}
ESTIMATORS = {"xgboost": CSXGBClassifier, "lightgbm": CSLGBMClassifier}


def savings(y, pred, C):
    return dl.savings(np.asarray(y, dtype=float), np.asarray(pred), C)


def splits(name, y, seeds, bunch):
    idx = np.arange(len(y))
    if name == "creditcard":  # the csboost paper: 5 x 2-fold CV stratified by label x fraud-amount tercile
        strat = bunch.amount_tercile
        for rep in range(5):
            for k, (tr, te) in enumerate(StratifiedKFold(2, shuffle=True, random_state=rep).split(idx, strat)):
                tr, va = train_test_split(tr, test_size=1 / 3, random_state=rep, stratify=strat[tr])
                yield f"{rep}.{k}", tr, va, te
        return
    if name == "creditcard_time":  # the file's order is time: train on the past, test on the future
        a, b = int(0.6 * len(y)), int(0.8 * len(y))
        yield "time", idx[:a], idx[a:b], idx[b:]
        return
    for seed in seeds:
        tr, rest = train_test_split(idx, test_size=0.5, random_state=seed, stratify=y)
        va, te = train_test_split(rest, test_size=0.5, random_state=seed, stratify=y[rest])
        yield str(seed), tr, va, te


def baseline(lib, X, y, tr, va, te):
    """The native logloss classifier early-stopped on the validation rows: test probabilities."""
    if lib == "xgboost":
        m = xgb.XGBClassifier(n_estimators=100, learning_rate=0.1, max_depth=6, max_bin=256, tree_method="hist",
                              early_stopping_rounds=PATIENCE, eval_metric="logloss")
        m.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], verbose=False)
    else:
        m = lgb.LGBMClassifier(n_estimators=100, learning_rate=0.1, num_leaves=31, verbose=-1)
        m.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], callbacks=[lgb.early_stopping(PATIENCE, verbose=False)])
    return m.predict_proba(X[te])[:, 1]


def booster_proba(est, bst, X):
    """Probabilities of one of a fitted estimator's boosters (aec_booster_ / logloss_booster_)."""
    keep, est.booster_ = est.booster_, bst
    try:
        return est.predict_proba(X)[:, 1]
    finally:
        est.booster_ = keep


FRONTIER = False  # --frontier: also score the candidates that combine the two boosters


def _margins(est, rows, X):
    """(AEC margin, logloss margin) of a fitted default's two boosters on ``X[rows]``."""
    from scipy.special import logit

    return (logit(np.clip(booster_proba(est, est.aec_booster_, X[rows]), 1e-15, 1 - 1e-15)),
            logit(np.clip(booster_proba(est, est.logloss_booster_, X[rows]), 1e-15, 1 - 1e-15)))


def frontier(est, X, y, C, va, te):
    """Test savings of candidates fitted on the validation rows over the two boosters' margins.

    ``stack``: the ECSDT paper's cost-sensitive stacking, a cost-sensitive logistic regression
    (cslogit, trained on the validation rows' average expected cost) over both margins and the
    row's log cost ratio, deciding s > 1/2; ``platt+bmr``: the logloss margin recalibrated by a
    logistic regression on the validation rows, then BMR; ``money platt+bmr``: the same weighted by
    each validation row's regret (money), then BMR.
    """
    from sklearn.linear_model import LogisticRegression

    from csdt import CostSensitiveLogisticRegression

    def meta(rows):
        a, ll = _margins(est, rows, X)
        d0, d1 = C[rows, 0] - C[rows, 3], C[rows, 1] - C[rows, 2]  # regrets of a wrong 1 / a wrong 0
        ratio = np.log(np.maximum(d0, 1e-9)) - np.log(np.maximum(d1, 1e-9))
        return np.column_stack([a, ll, ratio]), ll, np.where(y[rows] == 1, np.abs(d1), np.abs(d0))

    Mv, llv, regret_v = meta(va)
    Mt, llt, _ = meta(te)
    out = {}
    cs = CostSensitiveLogisticRegression().fit(Mv, y[va], cost_matrix=C[va])
    out["stack"] = savings(y[te], cs.predict(Mt), C[te])
    for name, w in (("platt+bmr", None), ("money platt+bmr", regret_v)):
        lr = LogisticRegression(C=1e6).fit(llv[:, None], y[va], sample_weight=w)
        out[name] = savings(y[te], bmr_decisions(lr.predict_proba(llt[:, None])[:, 1], C[te]), C[te])
    return out


def run_split(lib, X, y, C, tr, va, te):
    cls = ESTIMATORS[lib]
    rec = {}
    t0 = time.perf_counter()
    rec["LL+BMR"] = savings(y[te], bmr_decisions(baseline(lib, X, y, tr, va, te), C[te]), C[te])
    rec["t_LL"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    est = cls().fit(X[tr], y[tr], cost_matrix=C[tr], eval_set=[(X[va], y[va])], eval_costs=[C[va]])
    rec["t_default+eval"] = time.perf_counter() - t0
    rec["default+eval"] = savings(y[te], est.predict(X[te], cost_matrix=C[te]), C[te])
    rec["chosen"] = est.decision_
    # every rule's test money from the same two boosters, and the choices of the earlier criterion
    s_te = {"aec": booster_proba(est, est.aec_booster_, X[te]), "logloss": booster_proba(est, est.logloss_booster_,
                                                                                          X[te])}
    s_va = {"aec": booster_proba(est, est.aec_booster_, X[va]), "logloss": booster_proba(est, est.logloss_booster_,
                                                                                          X[va])}
    prob = {"logloss+bmr": "logloss", "aec": "aec", "aec+bmr": "aec"}
    rec["test_by_rule"] = {r: savings(y[te], dl.rule_decisions(r, s_te[prob[r]], C[te]), C[te]) for r in dl.RULES}
    rec["val_by_rule"] = {r: savings(y[va], dl.rule_decisions(r, s_va[prob[r]], C[va]), C[va]) for r in dl.RULES}
    preds = {r: dl.rule_decisions(r, s_va[prob[r]], C[va]) for r in dl.RULES}
    for z in (1.0, 2.0, 3.0):  # every strictness from the same boosters: the choice is all that differs
        for trim in (False, True):
            rec[f"chosen_z{z:g}{'_trim' if trim else ''}"] = dl.choose_rule(y[va].astype(float), preds, C[va],
                                                                          z=z, trim=trim)

    if FRONTIER:
        rec["frontier"] = frontier(est, X, y, C, va, te)
    trva = np.concatenate([tr, va])
    t0 = time.perf_counter()
    est = cls().fit(X[trva], y[trva], cost_matrix=C[trva])
    rec["t_default"] = time.perf_counter() - t0
    rec["default"] = savings(y[te], est.predict(X[te], cost_matrix=C[te]), C[te])
    rec["chosen_holdout"] = est.decision_
    # the same for its own two boosters: logloss + BMR early-stopped on the same held-out rows is the anchor
    s_te = {"aec": booster_proba(est, est.aec_booster_, X[te]), "logloss": booster_proba(est, est.logloss_booster_,
                                                                                          X[te])}
    rec["holdout_test_by_rule"] = {r: savings(y[te], dl.rule_decisions(r, s_te[prob[r]], C[te]), C[te])
                                   for r in dl.RULES}
    hva = trva[dl.holdout(est, y[trva])[1]]
    s_va = {"aec": booster_proba(est, est.aec_booster_, X[hva]),
            "logloss": booster_proba(est, est.logloss_booster_, X[hva])}
    preds = {r: dl.rule_decisions(r, s_va[prob[r]], C[hva]) for r in dl.RULES}
    for z in (1.0, 2.0, 3.0):
        for trim in (False, True):
            rec[f"holdout_chosen_z{z:g}{'_trim' if trim else ''}"] = dl.choose_rule(
                y[hva].astype(float), preds, C[hva], z=z, trim=trim)

    t0 = time.perf_counter()
    est = cls(decision="0.5").fit(X[trva], y[trva], cost_matrix=C[trva])
    rec["t_AEC 0.5"] = time.perf_counter() - t0
    rec["AEC 0.5"] = savings(y[te], est.predict(X[te]), C[te])
    return rec


def run(names, seeds, libs, out):
    out = Path(out)
    res = json.loads(out.read_text()) if out.exists() else {}
    for name in names:
        b = DATASETS[name]()
        X = np.asarray(b.data, dtype=np.float64)
        y, C = np.asarray(b.target), np.asarray(b.cost_matrix, dtype=np.float64)
        for split, tr, va, te in splits(name, y, seeds, b):
            for lib in libs:
                key = f"{name}|{split}|{lib}"
                if key in res:
                    continue
                t0 = time.perf_counter()
                res[key] = run_split(lib, X, y, C, tr, va, te)
                r = res[key]
                print(f"{key}: LL+BMR {r['LL+BMR']:.4f}  default+eval {r['default+eval']:.4f} ({r['chosen']})  "
                      f"default {r['default']:.4f} ({r['chosen_holdout']})  AEC 0.5 {r['AEC 0.5']:.4f}  "
                      f"[{time.perf_counter() - t0:.0f} s]", flush=True)
                out.write_text(json.dumps(res, indent=1))
    return res


def _mean_se(d):
    d = np.asarray(d, dtype=float)
    return d.mean(), (d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan"))


def _choice(r, z, trim=True, holdout=False):
    """The rule a criterion chose in record ``r`` (records of the first run name z = 2 differently)."""
    key = f"{'holdout_' if holdout else ''}chosen_z{z:g}{'_trim' if trim else ''}"
    if key not in r and not holdout and z == 2:
        key = "chosen_trim" if trim else "chosen_ztest"
    return r[key]


def _lost(rs, z, trim, holdout):
    """(AEC choices that saved less than logloss + BMR on test, AEC choices) of a criterion over ``rs``."""
    test = "holdout_test_by_rule" if holdout else "test_by_rule"
    took = [(r, _choice(r, z, trim, holdout)) for r in rs]
    took = [(r, c) for r, c in took if c != "logloss+bmr"]
    return sum(r[test][c] < r[test]["logloss+bmr"] for r, c in took), len(took)


CRITERIA = {"z 3 + tail trim (shipped)": (3.0, True), "z 3": (3.0, False), "z 2 + tail trim": (2.0, True),
            "z 2": (2.0, False), "z 1 + tail trim": (1.0, True)}


def table(res, z=dl.AUTO_Z):
    """Markdown tables: the defaults (choice with ``z`` + tail trim, from the records) against logloss + BMR."""
    groups = {}
    for key, r in res.items():
        name, _split, lib = key.split("|")
        groups.setdefault((name, lib), []).append(r)
    lines = ["| data set | library | splits | LL+BMR | default+eval | default | AEC 0.5 | default+eval - LL+BMR "
             "(± se) | default - its own LL+BMR (± se) | AEC rule chosen (eval / holdout) | of them lost on test |",
             "|---" * 11 + "|"]
    for (name, lib), rs in sorted(groups.items()):
        ev = [r["test_by_rule"][_choice(r, z)] for r in rs]
        ho = [r["holdout_test_by_rule"][_choice(r, z, holdout=True)] for r in rs]
        d1 = _mean_se([a - r["LL+BMR"] for a, r in zip(ev, rs)])
        d2 = _mean_se([a - r["holdout_test_by_rule"]["logloss+bmr"] for a, r in zip(ho, rs)])
        le, lh = _lost(rs, z, True, False), _lost(rs, z, True, True)
        lines.append(f"| {name} | {lib} | {len(rs)} | {np.mean([r['LL+BMR'] for r in rs]):.4f} | {np.mean(ev):.4f} | "
                     f"{np.mean(ho):.4f} | {np.mean([r['AEC 0.5'] for r in rs]):.4f} | {d1[0]:+.4f} ± {d1[1]:.4f} | "
                     f"{d2[0]:+.4f} ± {d2[1]:.4f} | {le[1]} / {lh[1]} | {le[0]} / {lh[0]} |")
    lines += ["", "Wrong choices over all (data set x split x library) fits, eval_set and holdout together: AEC rules "
              "chosen on the validation rows, and how many of them saved less than logloss + BMR from the same fit "
              "on the test rows; the lowest per-cell mean difference to logloss + BMR.", "",
              "| criterion | AEC rules chosen | lost on test | lowest cell mean vs logloss + BMR |", "|---|---|---|---|"]
    for label, (zc, trim) in CRITERIA.items():
        bad = took = 0
        worst = np.inf
        for rs in groups.values():
            for holdout in (False, True):
                b, t = _lost(rs, zc, trim, holdout)
                bad, took = bad + b, took + t
                test = "holdout_test_by_rule" if holdout else "test_by_rule"
                worst = min(worst, np.mean([r[test][_choice(r, zc, trim, holdout)] - r[test]["logloss+bmr"]
                                            for r in rs]))
        lines.append(f"| {label} | {took} | {bad} | {worst:+.4f} |")
    return "\n".join(lines)


def frontier_table(res):
    """Mean test savings difference to logloss + BMR of each frontier candidate (records with them)."""
    groups = {}
    for key, r in res.items():
        if "frontier" in r:
            name, _split, lib = key.split("|")
            groups.setdefault((name, lib), []).append(r)
    names = ("stack", "platt+bmr", "money platt+bmr")
    lines = ["| data set | library | splits | LL+BMR | " + " | ".join(f"{n} - LL+BMR (± se)" for n in names) + " |",
             "|---" * (4 + len(names)) + "|"]
    for (name, lib), rs in sorted(groups.items()):
        cells = []
        for n in names:
            m, se = _mean_se([r["frontier"][n] - r["LL+BMR"] for r in rs])
            cells.append(f"{m:+.4f} ± {se:.4f}")
        lines.append(f"| {name} | {lib} | {len(rs)} | {np.mean([r['LL+BMR'] for r in rs]):.4f} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def speed(rows, repeats):
    """Fit seconds of the default (no eval_set: holdout, two boosters) against the AEC booster alone."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((rows, 30), dtype=np.float32)
    beta = rng.normal(0, 0.6, 30)
    y = (rng.uniform(size=rows) < 1 / (1 + np.exp(-(X @ beta - 4.5)))).astype(np.int64)
    amount = rng.lognormal(3.5, 1.2, rows)
    kw = dict(fp_cost=5.0, fn_cost=amount, tp_cost=5.0)
    print(f"{rows} x 30, {os.environ['OMP_NUM_THREADS']} thread(s), best of {repeats}, load "
          f"{os.getloadavg()[0]:.2f}")
    print("| library | default fit (s) | AEC-only fit (s) | ratio | default's choice |")
    print("|---|---|---|---|---|")
    for lib, cls in ESTIMATORS.items():
        t = {"default": [], "aec": []}
        choice = None
        for _ in range(repeats):  # interleaved: both see the same machine
            t0 = time.perf_counter()
            est = cls().fit(X, y, **kw)
            t["default"].append(time.perf_counter() - t0)
            choice = est.decision_
            t0 = time.perf_counter()
            cls(decision="0.5").fit(X, y, **kw)
            t["aec"].append(time.perf_counter() - t0)
        a, b = min(t["default"]), min(t["aec"])
        print(f"| {lib} | {a:.1f} | {b:.1f} | {a / b:.2f} | {choice} |", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--libs", nargs="+", default=list(ESTIMATORS))
    ap.add_argument("--out", default="benchmarks/out/money_default.json")
    ap.add_argument("--table", nargs="+", help="print the table of these result files and exit")
    ap.add_argument("--speed", action="store_true", help="time the default fit against the AEC-only fit")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--frontier", action="store_true", help="also score the candidates combining the boosters")
    ap.add_argument("--frontier-table", nargs="+", help="print the frontier table of these result files and exit")
    a = ap.parse_args(argv)
    global FRONTIER
    FRONTIER = a.frontier
    if a.frontier_table:
        res = {}
        for f in a.frontier_table:
            res.update(json.loads(Path(f).read_text()))
        print(frontier_table(res))
        return 0
    if a.table:
        res = {}
        for f in a.table:
            res.update(json.loads(Path(f).read_text()))
        print(table(res))
        return 0
    if a.speed:
        speed(a.rows, a.repeats)
        return 0
    names = [n for n in a.datasets if not n.startswith("creditcard") or os.environ.get("CSBOOST_DATA_DIR")]
    skipped = sorted(set(a.datasets) - set(names))
    if skipped:
        print(f"skipping {skipped}: set CSBOOST_DATA_DIR to the folder of creditcard.csv.gz", file=sys.stderr)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    print(table(run(names, a.seeds, a.libs, a.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
