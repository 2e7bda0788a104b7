"""Benchmark 6 (issue 15): which boosting recipe books the most money on the test set?

Every variant is fitted through the native ``xgb.train`` / ``lgb.train`` API with this
library's AEC objective, cost DMatrix / Dataset and money metrics, so the research does not
depend on the scikit-learn wrappers. Protocol of ``bench_boosting_money.py``: the four
bundled data sets and ``make_fraud_transactions(60_000)`` in stratified 50/25/25
train/validation/test splits (``--seeds``, 10 by default), and the real card-fraud file
(``$CSBOOST_DATA_DIR/creditcard.csv.gz``) in the csboost paper's 5 x 2-fold CV (stratified by
label x fraud-amount tercile; a stratified third of each training fold is the validation
set). xgboost ``hist`` depth 4 and lightgbm 15 leaves, learning rate 0.1, at most 200
rounds, early stopping after 30 rounds without improvement on the validation set, one
thread per fit.

Variants (``METHODS``):

``LL``                logloss boosting, early stopping on validation logloss; decisions by Bayes
                      minimum risk with each row's costs (the baseline "logloss + BMR").
``AEC``               AEC objective, the estimators' defaults (abs hessian, cost-prior start),
                      early stopping on validation AEC; decisions s > 1/2.
``AEC+cf``            ``AEC`` with cost features appended to X: log(1 + C_FN - C_TP),
                      log(1 + C_FP - C_TN) and the Bayes threshold's logit (clipped); the
                      trees can split on the money (costs needed at prediction).
``AEC|BMR``           warm start at the logloss model's Bayes decision: per-row start margin
                      logit p_LL(x) - logit t*(C) (t* the row's Bayes threshold), so s > 1/2 at
                      round 0 is exactly logloss + BMR, then AEC rounds; early stopping on
                      validation AEC. Costs needed at prediction.
``AEC+cf|BMR``        both of the above.
``AEC+cf|BMR fisher`` ``AEC+cf|BMR`` with the fisher hessian (bounded steps) at half the learning rate:
                      the rows start near their boundary, where the abs hessian's floor allows big steps.
``LL>AEC+cf``         schedule: logloss rounds (with cost features, as many as ``LL`` chose),
                      then AEC rounds continuing the same booster (``xgb_model=`` / ``init_model=``).
``empulse``           empulse's ``CSBoostClassifier`` (its ``predict``: s > 1/2).

Decision layers computed from the stored validation predictions (no refit): the best
validation round of ``AEC|BMR`` counting round 0 (= logloss + BMR), s > 1/2 vs BMR chosen on
validation, and an isotonic map of the AEC score fitted on the validation set followed by BMR.

Usage::

    CSBOOST_DATA_DIR=/path/to/data python benchmarks/bench_money_recipes.py --libs xgboost \
        --out benchmarks/results/money_recipes.json
    python benchmarks/bench_money_recipes.py --table benchmarks/results/money_recipes.json

Results go to the JSON after every fit (a partial run counts; reruns skip what is there).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from sklearn.isotonic import IsotonicRegression
from sklearn.model_selection import StratifiedKFold, train_test_split

from bench_boosting_money import DATASETS as BUNDLED  # same data, rounds, depth, leaves as benchmark 1
from bench_boosting_money import ES_ROUNDS, LGB_LEAVES, LR, ROUNDS, XGB_DEPTH, _split
from csboost_plugins.boosting import _aec
from csboost_plugins.boosting import _decision_layer as dl
from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.costs import CostWarning
from csboost_plugins.decision_costs import (bayes_thresholds, bmr_decisions, misclassification_costs, row_cost,
                                            savings_from_costs, trivial_policy_costs)
from csdt import datasets

warnings.filterwarnings("ignore", category=CostWarning)
warnings.filterwarnings("ignore", category=UserWarning)

CHECKPOINTS = (0, 10, 25, 50, 100, 150, 200)  # rounds at which AEC|BMR validation savings are recorded
CLIP = 10.0  # margins and threshold logits are clipped to +-CLIP (s(1-s) < 5e-5 beyond)

DATASETS = {**BUNDLED, "creditcard": lambda: datasets.load_creditcard_fraud(
    Path(os.environ.get("CSBOOST_DATA_DIR", "/nonexistent")) / "creditcard.csv.gz", raw=False)}
RECIPE = "recipe: decision='auto'"
METHODS = ["LL", "AEC", "AEC+cf", "AEC|BMR", "AEC+cf|BMR", "LL>AEC+cf", "empulse", "AEC+cf|BMR fisher", "recipe"]


# ----------------------------------------------------------------------------- money helpers
savings = dl.savings  # savings (paper eq. 5) of 0/1 decisions


def expected_savings(y, s, C):
    return savings_from_costs(float(row_cost(y, s, C).sum()), min(trivial_policy_costs(y, C)))


def threshold_logit(C):
    """logit of each row's Bayes threshold t*: predict 1 iff logit p > this (+-inf where t* >= 1 / <= 0)."""
    t = bayes_thresholds(C)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(t) - np.log1p(-t)
    out[t >= 1] = np.inf
    out[t <= 0] = -np.inf
    return out


def cost_features(C):
    """log(1 + regret on a positive), log(1 + regret on a negative), logit of the Bayes threshold."""
    reg_pos, reg_neg = misclassification_costs(C)
    return np.column_stack([np.log1p(np.maximum(reg_pos, 0)), np.log1p(np.maximum(reg_neg, 0)),
                            np.clip(threshold_logit(C), -CLIP, CLIP)])


def sig(m):
    return _aec.sigmoid(m)


# ----------------------------------------------------------------------------- xgboost
def _xgb_base(seed):
    return {"tree_method": "hist", "max_depth": XGB_DEPTH, "eta": LR, "nthread": 1, "seed": seed, "verbosity": 0}


def _xgb_ll(Xtr, ytr, Xva, yva, seed, rounds=ROUNDS, es=True, **extra):
    dtr, dva = xgb.DMatrix(Xtr, label=ytr), xgb.DMatrix(Xva, label=yva)
    params = {**_xgb_base(seed), "objective": "binary:logistic", "eval_metric": "logloss", **extra}
    bst = xgb.train(params, dtr, rounds,
                    evals=[(dva, "val")], early_stopping_rounds=ES_ROUNDS if es else None, verbose_eval=False)
    return bst[: bst.best_iteration + 1] if es else bst


def _xgb_aec(Xtr, ytr, Ctr, Xva, yva, Cva, seed, margin_tr=None, margin_va=None, init=None, hessian="abs",
             lr=LR):
    """AEC rounds with early stopping on validation AEC; start at ``margin_*`` (per row) or the cost prior."""
    dtr = cxgb.cost_dmatrix(Xtr, ytr, cost_matrix=Ctr, base_margin=margin_tr)
    dva = cxgb.cost_dmatrix(Xva, yva, cost_matrix=Cva, base_margin=margin_va)
    params = {**_xgb_base(seed), "eta": lr}
    params = params if margin_tr is not None else cxgb.aec_params(dtr, params)
    params.setdefault("disable_default_eval_metric", 1)
    bst = xgb.train(params, dtr, ROUNDS, obj=cxgb.aec_objective(hessian=hessian), evals=[(dva, "val")],
                    custom_metric=cxgb.aec_metric, early_stopping_rounds=ES_ROUNDS, verbose_eval=False,
                    xgb_model=init)
    return bst


def _xgb_margin(bst, X, base=None, rounds=None):
    d = xgb.DMatrix(X, base_margin=base)
    if rounds == 0:
        return np.zeros(X.shape[0]) + (0.0 if base is None else base)
    rng = (0, 0) if rounds is None else (0, rounds)
    return bst.predict(d, output_margin=True, iteration_range=rng).astype(np.float64)


# ----------------------------------------------------------------------------- lightgbm
def _lgb_base(seed):
    return {"num_leaves": LGB_LEAVES, "learning_rate": LR, "num_threads": 1, "seed": seed, "verbose": -1,
            "deterministic": True, "force_row_wise": True}


def _lgb_ll(Xtr, ytr, Xva, yva, seed, rounds=ROUNDS, es=True):
    dtr = lgb.Dataset(Xtr, label=ytr, free_raw_data=False)
    dva = lgb.Dataset(Xva, label=yva, reference=dtr)
    cb = [lgb.early_stopping(ES_ROUNDS, verbose=False)] if es else []
    bst = lgb.train({**_lgb_base(seed), "objective": "binary", "metric": "binary_logloss"}, dtr, rounds,
                    valid_sets=[dva], callbacks=cb)
    if es:
        bst = lgb.Booster(model_str=bst.model_to_string(num_iteration=bst.best_iteration))
    return bst


class _LgbModel:
    """A lightgbm AEC booster with its start margin kept outside (per-row starts cannot be baked)."""

    def __init__(self, bst, const=0.0):
        self.bst, self.const = bst, const

    def margin(self, X, base=None, rounds=None):
        start = self.const + (0.0 if base is None else base)
        if rounds == 0:
            return np.zeros(X.shape[0]) + start
        return np.asarray(self.bst.predict(X, raw_score=True, num_iteration=rounds), dtype=np.float64) + start


def _lgb_aec(Xtr, ytr, Ctr, Xva, yva, Cva, seed, margin_tr=None, margin_va=None, init=None, hessian="abs",
             lr=LR):
    if margin_tr is None and init is None:
        const = cxgb.start_margin(cxgb.cost_dmatrix(np.zeros((len(ytr), 1)), ytr, cost_matrix=Ctr))
        margin_tr, margin_va = np.full(len(ytr), const), np.full(len(yva), const)
    else:
        const = 0.0
    dtr = clgb.cost_dataset(Xtr, ytr, cost_matrix=Ctr, start_margin=None)
    dtr.set_init_score(margin_tr)
    dva = clgb.cost_dataset(Xva, yva, cost_matrix=Cva, start_margin=None, reference=dtr)
    dva.set_init_score(margin_va)
    params = {**_lgb_base(seed), "learning_rate": lr, "objective": clgb.aec_objective(hessian=hessian)}
    bst = lgb.train(params, dtr, ROUNDS, valid_sets=[dva],
                    valid_names=["val"], feval=clgb.aec_metric, init_model=init,
                    callbacks=[clgb.early_stopping(ES_ROUNDS, data_name="val", metric="aec")])
    bst.best_iteration = bst.best_iteration or bst.current_iteration()
    return _LgbModel(bst, const)


# ----------------------------------------------------------------------------- the recipe, as an API
def _recipe(lib, Xtr, ytr, Ctr, Xva, yva, Cva, Xte, yte, Cte, seed):
    """``CS*Classifier(decision="auto")`` fitted and used as a user would; every rule's money recorded."""
    from csboost_plugins.lgb import CSLGBMClassifier
    from csboost_plugins.xgb import CSXGBClassifier

    t0 = time.perf_counter()
    kw = dict(n_estimators=ROUNDS, learning_rate=LR, early_stopping_rounds=ES_ROUNDS, decision="auto", n_jobs=1,
              random_state=seed)
    est = (CSXGBClassifier(max_depth=XGB_DEPTH, **kw) if lib == "xgboost" else
           CSLGBMClassifier(num_leaves=LGB_LEAVES, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(Xtr, ytr, cost_matrix=Ctr, eval_set=[(Xva, yva)], eval_costs=[Cva])
    rec = {"seconds": time.perf_counter() - t0, "decision": est.decision_,
           "test": savings(yte, est.predict(Xte, cost_matrix=Cte), Cte),
           "rounds_aec": int(est.n_estimators_)}
    preds = {}
    for part, X, y, C in (("val", Xva, yva, Cva), ("test", Xte, yte, Cte)):
        s = {"aec": sig(est._margin(X)), "logloss": sig(dl.logloss_margin(est, X))}
        p = {r: dl.rule_decisions(r, s["logloss" if r == "logloss+bmr" else "aec"], C) for r in dl.RULES}
        preds[part] = p
        rec[f"{part}_by_rule"] = {r: savings(y, p[r], C) for r in dl.RULES}
    for z in (0.0, 1.0, 2.0):  # the choice at other thresholds, for the table
        rec[f"chosen_z{z:g}"] = dl.choose_rule(yva.astype(float), preds["val"], Cva, z=z)
    return rec


# ----------------------------------------------------------------------------- one split
def run_split(lib, methods, Xtr, ytr, Ctr, Xva, yva, Cva, Xte, yte, Cte, seed, done):
    """Fit each method not in ``done`` on one split; yields (method, record)."""
    tl_tr, tl_va, tl_te = threshold_logit(Ctr), threshold_logit(Cva), threshold_logit(Cte)
    cf = [np.column_stack([X, cost_features(C)]) for X, C in ((Xtr, Ctr), (Xva, Cva), (Xte, Cte))]
    need_ll = any(m not in done for m in methods if m in ("LL", "AEC|BMR", "AEC+cf|BMR", "LL>AEC+cf"))
    ll = None
    if need_ll:
        t0 = time.perf_counter()
        if lib == "xgboost":
            ll = _xgb_ll(Xtr, ytr, Xva, yva, seed)
            mll = [_xgb_margin(ll, X) for X in (Xtr, Xva, Xte)]
            ll_rounds = ll.num_boosted_rounds()
        else:
            ll = _lgb_ll(Xtr, ytr, Xva, yva, seed)
            mll = [np.asarray(ll.predict(X, raw_score=True), dtype=np.float64) for X in (Xtr, Xva, Xte)]
            ll_rounds = ll.current_iteration()
        ll_sec = time.perf_counter() - t0
    for method in methods:
        if method in done:
            continue
        t0 = time.perf_counter()
        rec = {}
        if method == "LL":
            pva, pte = sig(mll[1]), sig(mll[2])
            rec = {"rounds": ll_rounds,
                   "val_bmr": savings(yva, bmr_decisions(pva, Cva), Cva),
                   "test_bmr": savings(yte, bmr_decisions(pte, Cte), Cte),
                   "test_05": savings(yte, (pte > 0.5).astype(int), Cte),
                   "test_esav": expected_savings(yte, pte, Cte)}
            yield method, {**rec, "seconds": ll_sec}
            continue
        if method == "recipe":
            yield method, _recipe(lib, Xtr, ytr, Ctr, Xva, yva, Cva, Xte, yte, Cte, seed)
            continue
        if method == "empulse":
            from empulse.models import CSBoostClassifier

            base = (xgb.XGBClassifier(n_estimators=ROUNDS, max_depth=XGB_DEPTH, learning_rate=LR, n_jobs=1,
                                      random_state=seed, tree_method="hist") if lib == "xgboost" else
                    lgb.LGBMClassifier(n_estimators=ROUNDS, num_leaves=LGB_LEAVES, learning_rate=LR, n_jobs=1,
                                       random_state=seed, verbose=-1))
            est = CSBoostClassifier(base).fit(Xtr, ytr, fp_cost=Ctr[:, 0], fn_cost=Ctr[:, 1], tp_cost=Ctr[:, 2],
                                              tn_cost=Ctr[:, 3])
            sva, ste = est.predict_proba(Xva)[:, 1], est.predict_proba(Xte)[:, 1]
            rec = {"val_05": savings(yva, (sva > 0.5).astype(int), Cva),
                   "test_05": savings(yte, (ste > 0.5).astype(int), Cte),
                   "test_bmr": savings(yte, bmr_decisions(ste, Cte), Cte),
                   "test_esav": expected_savings(yte, ste, Cte)}
            yield method, {**rec, "seconds": time.perf_counter() - t0}
            continue
        use_cf = "+cf" in method
        Xs = cf if use_cf else [Xtr, Xva, Xte]
        fit_aec = _xgb_aec if lib == "xgboost" else _lgb_aec
        if "|BMR" in method:
            starts = [np.clip(m - t, -CLIP, CLIP) for m, t in zip(mll, (tl_tr, tl_va, tl_te))]
            kw = dict(hessian="fisher", lr=LR / 2) if method.endswith("fisher") else {}
            model = fit_aec(Xs[0], ytr, Ctr, Xs[1], yva, Cva, seed, margin_tr=starts[0], margin_va=starts[1], **kw)
        elif method == "LL>AEC+cf":
            starts = [np.zeros(len(ytr)), np.zeros(len(yva)), np.zeros(len(yte))]  # intercept in the trees
            if lib == "xgboost":
                init = _xgb_ll(Xs[0], ytr, Xs[1], yva, seed, rounds=ll_rounds, es=False, base_score=0.5)
            else:
                init = _lgb_ll(Xs[0], ytr, Xs[1], yva, seed, rounds=ll_rounds, es=False)
            model = fit_aec(Xs[0], ytr, Ctr, Xs[1], yva, Cva, seed, margin_tr=np.zeros(len(ytr)),
                            margin_va=np.zeros(len(yva)), init=init)
        else:
            starts = [None, None, None]
            model = fit_aec(Xs[0], ytr, Ctr, Xs[1], yva, Cva, seed)
        if lib == "xgboost":
            best = model.best_iteration + 1
            marg = lambda X, b, r=best, m=model: _xgb_margin(m, X, b, r)  # noqa: E731
        else:
            best = model.bst.best_iteration
            marg = lambda X, b, r=best, m=model: m.margin(X, b, r)  # noqa: E731
        mva, mte = marg(Xs[1], starts[1]), marg(Xs[2], starts[2])
        sva, ste = sig(mva), sig(mte)
        rec = {"rounds": int(best),
               "val_05": savings(yva, (mva > 0).astype(int), Cva),
               "val_bmr": savings(yva, bmr_decisions(sva, Cva), Cva),
               "test_05": savings(yte, (mte > 0).astype(int), Cte),
               "test_bmr": savings(yte, bmr_decisions(ste, Cte), Cte),
               "test_esav": expected_savings(yte, ste, Cte)}
        # isotonic map of the AEC score fitted on validation, then BMR with the rows' costs
        iso = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(mva, yva)
        rec["test_iso"] = savings(yte, bmr_decisions(iso.predict(mte), Cte), Cte)
        if "|BMR" in method:
            total = model.num_boosted_rounds() if lib == "xgboost" else model.bst.current_iteration()
            cps = sorted({c for c in CHECKPOINTS if c <= total} | {int(best)})
            rec["curve"] = {str(c): [savings(yva, (marg(Xs[1], starts[1], c) > 0).astype(int), Cva),
                                     savings(yte, (marg(Xs[2], starts[2], c) > 0).astype(int), Cte)] for c in cps}
        yield method, {**rec, "seconds": time.perf_counter() - t0}


# ----------------------------------------------------------------------------- driver
def splits(name, y, seeds, bunch):
    idx = np.arange(len(y))
    if name == "creditcard":  # paper: 5 x 2-fold CV stratified by label x fraud-amount tercile
        strat = bunch.amount_tercile
        for rep in range(5):
            for k, (tr, te) in enumerate(StratifiedKFold(2, shuffle=True, random_state=rep).split(idx, strat)):
                tr, va = train_test_split(tr, test_size=1 / 3, random_state=rep, stratify=strat[tr])
                yield f"{rep}.{k}", rep, tr, va, te
        return
    for seed in seeds:  # benchmark 1's stratified 50/25/25 splits
        yield (str(seed), seed, *_split(y, seed))


def run(names, seeds, libs, methods, out):
    out = Path(out)
    res = json.loads(out.read_text()) if out.exists() else {}
    for name in names:
        b = DATASETS[name]()
        X = np.asarray(b.data, dtype=np.float64)
        y = np.asarray(b.target).astype(np.int64)
        C = np.asarray(b.cost_matrix, dtype=np.float64)
        for split, seed, tr, va, te in splits(name, y, seeds, b):
            for lib in libs:
                # re-read: another process may be writing other libraries' results to the same file
                res = json.loads(out.read_text()) if out.exists() else {}
                done = {m for m in methods if f"{name}|{split}|{lib}|{m}" in res}
                for method, rec in run_split(lib, methods, X[tr], y[tr], C[tr], X[va], y[va], C[va], X[te], y[te],
                                             C[te], seed, done):
                    key = f"{name}|{split}|{lib}|{method}"
                    res = json.loads(out.read_text()) if out.exists() else {}
                    res[key] = rec
                    print(key, {k: (round(v, 4) if isinstance(v, float) else v) for k, v in rec.items()
                                if k != "curve"}, flush=True)
                    tmp = out.with_suffix(".tmp")
                    tmp.write_text(json.dumps(res, indent=0))
                    tmp.replace(out)
    return res


# ----------------------------------------------------------------------------- tables
def _collect(res):
    """{(name, lib): {split: {method: record}}}"""
    out = {}
    for k, v in res.items():
        name, split, lib, method = k.split("|", 3)
        out.setdefault((name, lib), {}).setdefault(split, {})[method] = v
    return out


def _label(method):
    """Method name for a markdown cell (no "|")."""
    return method.replace("|BMR", " from LL+BMR start")


def derived(recs):
    """Test savings of every recipe (fitted methods and decision layers) of one split; None if missing."""
    r = {}
    ll = recs.get("LL")
    if ll:
        r["logloss + BMR"] = ll["test_bmr"]
    for m in ("AEC", "AEC+cf", "AEC|BMR", "AEC+cf|BMR", "AEC+cf|BMR fisher", "LL>AEC+cf"):
        v = recs.get(m)
        if not v:
            continue
        lab = _label(m)
        r[f"{lab} s>1/2"] = v["test_05"]
        if m in ("AEC", "AEC+cf", "LL>AEC+cf"):
            r[f"{m} BMR"] = v["test_bmr"]
            r[f"{m} isotonic+BMR"] = v["test_iso"]
            # decision layer: s > 1/2 or BMR, whichever saves more on validation
            r[f"{m} rule by val"] = v["test_05"] if v["val_05"] >= v["val_bmr"] else v["test_bmr"]
        if "curve" in v:  # rounds chosen by validation savings, round 0 (= logloss + BMR) included
            best = max(v["curve"], key=lambda c: (v["curve"][c][0], -int(c)))
            r[f"{lab} rounds by val sav"] = v["curve"][best][1]
    if recs.get("empulse"):
        r["empulse CSBoost"] = recs["empulse"]["test_05"]
    rc = recs.get("recipe")
    if rc and not ll:  # sets run with the API only: its own logloss + BMR and AEC (same protocol)
        r["logloss + BMR"] = rc["test_by_rule"]["logloss+bmr"]
        r["AEC s>1/2"] = rc["test_by_rule"]["aec"]
        r["AEC BMR"] = rc["test_by_rule"]["aec+bmr"]
    if rc:
        r["API: decision='auto' (z=2)"] = rc["test"]
        for z in ("0", "1"):
            r[f"API: decision='auto' (z={z})"] = rc["test_by_rule"][rc[f"chosen_z{z}"]]
        r["API: its logloss + BMR"] = rc["test_by_rule"]["logloss+bmr"]
    # the recipe of decision="auto" with z = 0: the rule with the best validation savings among logloss + BMR,
    # AEC s > 1/2 and AEC + BMR (ties: that order), as csboost_plugins.boosting._decision_layer does
    a = recs.get("AEC")
    if ll and a:
        cands = [(ll["val_bmr"], ll["test_bmr"]), (a["val_05"], a["test_05"]), (a["val_bmr"], a["test_bmr"])]
        r[RECIPE] = max(enumerate(cands), key=lambda kv: (kv[1][0], -kv[0]))[1][1]
    return r


def table(res):
    col = _collect(res)
    lines = []
    names = [n for n in DATASETS if any(k[0] == n for k in col)]
    summary = []
    for name in names:
        for lib in ("xgboost", "lightgbm"):
            if (name, lib) not in col:
                continue
            per = {s: derived(m) for s, m in col[(name, lib)].items()}
            recipes = []
            for d in per.values():
                recipes += [k for k in d if k not in recipes]
            lines += [f"### {name}, {lib} ({len(per)} splits)", "",
                      "| recipe | test savings | vs logloss+BMR: wins | mean diff ± se | vs empulse: wins | mean diff ± se |",
                      "|---|---|---|---|---|---|"]
            for rc in recipes:
                v = np.array([d[rc] for d in per.values() if rc in d])
                cells = [f"{v.mean():.3f} ± {v.std(ddof=1) if len(v) > 1 else 0:.3f}"]
                for anchor in ("logloss + BMR", "empulse CSBoost"):
                    pairs = [(d[rc], d[anchor]) for d in per.values() if rc in d and anchor in d]
                    if rc == anchor or len(pairs) < 2:
                        cells += ["", ""]
                        continue
                    diff = np.array([a - b for a, b in pairs])
                    cells += [f"{int((diff > 0).sum())}/{len(diff)}",
                              f"{diff.mean():+.4f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.4f}"]
                    if anchor == "logloss + BMR":
                        summary.append((name, lib, rc, v.mean(), diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))))
                lines.append(f"| {rc} | " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines), summary


HEADLINE = ("logloss + BMR", "AEC s>1/2", "empulse CSBoost", "AEC+cf from LL+BMR start rounds by val sav",
            "API: decision='auto' (z=2)")


def headline(res):
    """One row per data set x library: mean test savings of the headline recipes, and the recipe's paired
    difference to logloss + BMR (mean ± standard error, wins)."""
    col = _collect(res)
    lines = ["| data set | library | splits | " + " | ".join(HEADLINE) + " | recipe - logloss+BMR (wins) |",
             "|---|---|---|" + "---|" * (len(HEADLINE) + 1)]
    for name in DATASETS:
        for lib in ("xgboost", "lightgbm"):
            if (name, lib) not in col:
                continue
            per = [derived(m) for m in col[(name, lib)].values()]
            cells = []
            for h in HEADLINE:
                v = [d[h] for d in per if h in d]
                cells.append(f"{np.mean(v):.3f}" if v else "")
            pairs = np.array([d[HEADLINE[-1]] - d["logloss + BMR"] for d in per
                              if HEADLINE[-1] in d and "logloss + BMR" in d])
            diff = (f"{pairs.mean():+.4f} ± {pairs.std(ddof=1) / np.sqrt(len(pairs)):.4f} "
                    f"({int((pairs > 0).sum())}/{len(pairs)}, ties {int((pairs == 0).sum())})"
                    if len(pairs) > 1 else "")
            lines.append(f"| {name} | {lib} | {len(per)} | " + " | ".join(cells) + f" | {diff} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--seeds", nargs="*", type=int, default=list(range(10)))
    ap.add_argument("--libs", nargs="*", default=["xgboost", "lightgbm"])
    ap.add_argument("--methods", nargs="*", default=METHODS)
    ap.add_argument("--out", default="benchmarks/results/money_recipes.json")
    ap.add_argument("--table", nargs="*", default=None, help="only print the tables of these results JSONs")
    a = ap.parse_args(argv)
    if not a.table:
        names = [n for n in a.datasets if n != "creditcard" or "CSBOOST_DATA_DIR" in os.environ]
        run(names, a.seeds, a.libs, a.methods, a.out)
    res = {}
    for f in a.table or [a.out]:
        res.update(json.loads(Path(f).read_text()))
    print(table(res)[0])
    print("### Headline (mean test savings)\n")
    print(headline(res))


if __name__ == "__main__":
    sys.exit(main())
