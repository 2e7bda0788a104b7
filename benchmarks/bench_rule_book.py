"""A team's rule book against RIFF's rules and against their combination, under FPR budgets on held-out rows.

Per data set and seed: a stratified 60/40 train/test split (the card file: its time order, first 60 %
for training; ``card_time``: first 80 %, every seed on the same split). On the training rows, as a
user calls them:

- ``book``: the analysts' book (benchmarks/rule_books.py) as written, every rule in force;
- ``book selected``: ``optimize_rule_book(book, ..., candidates=None, retune=False, cv=None)``;
- ``book retuned``: ``optimize_rule_book(book, ..., candidates=None, cv=None)``;
- ``RIFF``: ``RIFFClassifier(max_fpr=fpr, random_state=seed).fit(X, y, cost_matrix=cm)``;
- ``combined``: ``optimize_rule_book(book, X, y, cv=None, ...)``: the book with induced rules, no choice;
- ``induced``: the same with an empty book: the fourth candidate procedure alone;
- ``chosen``: ``optimize_rule_book(book, X, y, ...)``, the default: the candidate books judged by
  5-fold cross-fitting up to 300,000 training rows (no choice above: ``cv="auto"``; the card file:
  ``shuffle=False``, contiguous blocks in time order). Its row of the
  CSV (``--out``) also holds what the cross-fit saw: each candidate's held-out money (``ho_<candidate>``) and
  the paired standard error of its difference with the best (``hose_<candidate>``); with the test money of
  each candidate's own method (book selected, book retuned, combined, induced: the chosen book is the
  winner's ``cv=None`` run) any choice rule can be replayed on the same runs.

Each is scored as deployed (``predict``) on the test rows: recall, FPR, net money (money caught minus
the alerts' cost, in the costs' unit) and the number of rules; ``jaccard``: the mean over pairs of
seeds of the Jaccard similarity of the kept rule names. The paired table gives the chosen and the
combined book minus each baseline by seed, with two standard errors: over seeds, and over test rows
(per seed the standard error of the summed per-row difference, averaged over seeds).

    python benchmarks/bench_rule_book.py --datasets fraud,additive,card_raw --seeds 3
    CSBOOST_DATA_DIR=... python benchmarks/bench_rule_book.py --datasets card_time --seeds 5 \
        --fprs 0.001,0.003,0.01
    python benchmarks/bench_rule_book.py --speed            # from_sql, predict / evaluate, optimise at scale (3 runs)
    python benchmarks/bench_rule_book.py --speed --cross-fit-rows 100000   # the choice judged on fewer rows
"""

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from csboost_plugins.rules import RIFFClassifier, RuleSet, optimize_rule_book

from rule_books import BOOKS

FPR = 0.01


def load(name, seed, scale):
    from csdt import datasets as ds
    if name == "fraud":
        b = ds.make_fraud_transactions(int(200_000 * scale), random_state=seed)
    elif name == "fraud_confirm":  # a generator seed and size no book rule or default was written on
        b = ds.make_fraud_transactions(int(300_000 * scale), fraud_rate=0.005, random_state=1000 + seed)
    elif name == "additive":
        b = ds.make_additive_risk(int(200_000 * scale), positive_rate=0.02, random_state=seed)
    elif name == "card_stream":  # the Handbook's simulator, in time order (about 136,000 rows per scale 1)
        b = ds.make_card_transactions(int(1000 * scale), int(2000 * scale), random_state=seed)
    elif name in ("card_raw", "card_time"):
        b = ds.load_creditcard_fraud(None, admin_cost=5.0, raw=True)
    else:
        raise ValueError(name)
    return b.data, np.asarray(b.target), np.asarray(b.cost_matrix)


def split(name, y, seed):
    n = len(y)
    if name in ("card_raw", "card_time", "card_stream"):  # time order: train on the first 60 % (card_time: 80 %)
        cut = int((0.8 if name == "card_time" else 0.6) * n)
        return np.arange(cut), np.arange(cut, n)
    from sklearn.model_selection import train_test_split
    return train_test_split(np.arange(n), test_size=0.4, stratify=y, random_state=seed)


#: per (dataset, budget, seed, method): each test row's money (for standard errors over test rows)
ROW_MONEY = {}


def deployed(pred, y, cm):
    pred = np.asarray(pred).astype(bool)
    rows = np.where(pred, np.where(y == 1, cm[:, 1] - cm[:, 2], -(cm[:, 0] - cm[:, 3])), 0.0)
    return {"recall": (pred & (y == 1)).sum() / max((y == 1).sum(), 1),
            "fpr": (pred & (y == 0)).sum() / max((y == 0).sum(), 1), "net_money": rows.sum()}, rows


def run(name, seeds, scale, fprs=(FPR,)):
    book_sql = BOOKS[name.replace("_confirm", "").replace("card_time", "card_raw")]
    time_ordered = name.startswith("card")  # the card file's rows are in time order: contiguous folds
    rows = []
    for seed in seeds:
        X, y, cm = load(name, seed, scale)
        book = RuleSet.from_sql(book_sql)
        tr, te = split(name, y, seed)
        Xtr, ytr, cmtr = X.iloc[tr].reset_index(drop=True), y[tr], cm[tr]
        Xte, yte, cmte = X.iloc[te].reset_index(drop=True), y[te], cm[te]
        for fpr in fprs:
            kw = dict(max_fpr=fpr, cost_matrix=cmtr, random_state=seed)
            methods = {
                "book": lambda: book,
                "book selected": lambda: optimize_rule_book(book, Xtr, ytr, candidates=None, retune=False,
                                                            cv=None, **kw),
                "book retuned": lambda: optimize_rule_book(book, Xtr, ytr, candidates=None, cv=None, **kw),
                "RIFF": lambda: RIFFClassifier(max_fpr=fpr, random_state=seed).fit(Xtr, ytr, cost_matrix=cmtr),
                "combined": lambda: optimize_rule_book(book, Xtr, ytr, cv=None, **kw),
                # the fourth candidate procedure alone (what the choice re-runs when it picks "induced")
                "induced": lambda: optimize_rule_book(RuleSet([], feature_names=book.feature_names), Xtr, ytr,
                                                      cv=None, **kw),
                "chosen": lambda: optimize_rule_book(book, Xtr, ytr, shuffle=not time_ordered, **kw),
            }
            for method, make in methods.items():
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make()
                secs = time.perf_counter() - t
                rs = model.rule_set_ if hasattr(model, "rule_set_") else model
                r, ROW_MONEY[name, fpr, seed, method] = deployed(model.predict(Xte), yte, cmte)
                r.update(dataset=name, fpr_budget=fpr, seed=seed, method=method, n_rules=len(rs), secs=secs,
                         names=" ".join(sorted(rs.names)))
                choice = (getattr(rs, "selection", None) or {}).get("choice")
                if choice:
                    r.update(chose=choice["chosen"], best=choice["best"])
                    for proc, c in choice["candidates"].items():  # what the cross-fit saw, to set against test
                        r.update({f"ho_{proc}": c["held_out_money"], f"hose_{proc}": c["difference_standard_error"]})
                if method in ("combined", "chosen"):
                    origin = list(rs.selection.get("origin", {}).values())
                    r.update(from_book=sum(o in ("book", "retuned") for o in origin))
                rows.append(r)
                print(f"{name} fpr {fpr} seed {seed} {method:14s} recall {r['recall']:.3f} fpr {r['fpr']:.4f} "
                      f"net {r['net_money']:12.1f} rules {len(rs):3d} ({secs:.1f} s) {r.get('chose', '')}",
                      flush=True)
    return pd.DataFrame(rows)


def jaccard(names):
    """Mean Jaccard similarity of the kept rule names over all pairs of seeds (1: the same rules every seed)."""
    sets = [set(n.split()) for n in names]
    pairs = [(a, b) for i, a in enumerate(sets) for b in sets[i + 1:]]
    return float(np.mean([len(a & b) / len(a | b) if a | b else 1.0 for a, b in pairs])) if pairs else np.nan


def table(df):
    g = df.groupby(["dataset", "fpr_budget", "method"], sort=False)
    out = g[["recall", "fpr", "net_money", "n_rules", "secs"]].mean()
    out["net_money_se"] = g["net_money"].std(ddof=1) / np.sqrt(g.size())
    out["jaccard"] = g["names"].apply(jaccard)
    return out


def paired(df):
    """Per data set and budget: the chosen and the combined book minus each baseline and minus the better
    baseline (by mean) of book re-tuned and RIFF alone, paired by seed (mean and standard error)."""
    rows = []
    for (name, fpr), d in df.groupby(["dataset", "fpr_budget"], sort=False):
        p = d.pivot(index="seed", columns="method", values="net_money")
        better = max(("book retuned", "RIFF"), key=lambda m: p[m].mean())
        for method in ("chosen", "combined"):
            for base in ("book retuned", "RIFF", "combined"):
                if base == method:
                    continue
                diff = p[method] - p[base]
                se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
                # the test rows' noise: per seed, the standard error of the summed per-row difference
                row_se = np.mean([np.sqrt(len(d) * d.var(ddof=1)) for d in
                                  (ROW_MONEY[name, fpr, s, method] - ROW_MONEY[name, fpr, s, base] for s in p.index)])
                rows.append({"dataset": name, "fpr": f"{100 * fpr:g} %", "method": method,
                             "minus": base + (" (better)" if base == better else ""), "mean": diff.mean(),
                             "se over seeds": se, "se over test rows": row_se, "seeds": len(diff)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- speed
def speed_frame(n_rows):
    """The --speed data: 20 normal columns (1 % NULLs in c3), labels, amounts, and 1,000 SQL rules of 1-3
    comparisons ({name: text}) from which a book takes its first rules."""
    rng = np.random.default_rng(0)
    cols = [f"c{j}" for j in range(20)]
    X = pd.DataFrame(rng.normal(size=(n_rows, 20)), columns=cols)
    X.loc[rng.random(n_rows) < 0.01, "c3"] = np.nan
    y = (X.c0 + X.c1 * X.c2 + rng.normal(size=n_rows) > 3).astype(int).to_numpy()
    amount = np.exp(rng.normal(3, 1, n_rows))

    def rule(i):
        a, b, c = rng.choice(20, 3, replace=False)
        kind = i % 4
        if kind == 0:
            return f"c{a} > {rng.normal(1.5, .5):.2f} AND c{b} < {rng.normal(0, 1):.2f}"
        if kind == 1:
            return f"c{a} + c{b} > {rng.normal(2.5, .5):.2f} OR c{c} IS NULL"
        if kind == 2:
            return f"NOT (c{a} <= {rng.normal(1, .5):.2f}) AND c{b} BETWEEN -1 AND {rng.normal(1, .2):.2f}"
        return f"ABS(c{a}) > {rng.normal(2.5, .3):.2f} AND COALESCE(c{b}, 0) > {rng.normal(0, .5):.2f}"

    texts = {f"r{i}": rule(i) for i in range(1000)}
    return X, y, amount, texts


def speed(n_rows, n_book, repeat=1):
    """Times on 2 cores against baselines measured in the same run."""
    import sqlglot

    X, y, amount, texts = speed_frame(n_rows)
    res = []

    t = time.perf_counter()
    for v in texts.values():
        sqlglot.parse_one(f"SELECT * FROM t WHERE {v}")
    base = time.perf_counter() - t
    t = time.perf_counter()
    RuleSet.from_sql(texts)
    secs = time.perf_counter() - t
    res.append(("from_sql, 1,000 rules", secs, "sqlglot.parse_one of the same rules", base))

    book = RuleSet.from_sql(dict(list(texts.items())[:n_book]))
    import duckdb
    con = duckdb.connect()
    con.register("t", X)
    where = " OR ".join(f"({v})" for v in list(texts.values())[:n_book])
    from bench_rules_engine import best  # (last output, fastest of three runs), both engines warm

    _, count = best(lambda: con.execute(f"SELECT count(*) FROM t WHERE {where}").fetchall())
    duck, flag = best(lambda: con.execute(f"SELECT ({where}) IS TRUE AS f FROM t").fetchnumpy())
    ours, secs = best(lambda: book.predict(X))
    assert np.array_equal(duck["f"], ours.astype(bool)), "predict differs from DuckDB"
    res.append((f"predict, {n_book}-rule book, {n_rows:,} rows", secs, "DuckDB flag column of the book", flag))
    res.append((f"predict, {n_book}-rule book, {n_rows:,} rows", secs,
                "DuckDB count(*) WHERE the book (a filter: an OR stops at its first TRUE)", count))
    _, secs = best(lambda: book.evaluate(X, y, fn_cost=amount, fp_cost=5.0, per_rule=True))
    res.append((f"evaluate(per_rule=True), {n_book} rules, {n_rows:,} rows", secs,
                "DuckDB flag column of the book", flag))
    # RIFF's fit moves by a third from run to run on a quiet machine: the two alternate, the medians compared
    times = {"riff": [], "optimise": [], "cv=5": [], "cv=None": []}
    for _ in range(repeat):
        t = time.perf_counter()
        RIFFClassifier(random_state=0).fit(X, y, fn_cost=amount, fp_cost=5.0)
        times["riff"].append(time.perf_counter() - t)
        t = time.perf_counter()
        out = optimize_rule_book(book, X, y, max_fpr=FPR, fn_cost=amount, fp_cost=5.0, random_state=0)
        times["optimise"].append(time.perf_counter() - t)
        t = time.perf_counter()
        five = optimize_rule_book(book, X, y, max_fpr=FPR, fn_cost=amount, fp_cost=5.0, random_state=0, cv=5)
        times["cv=5"].append(time.perf_counter() - t)
        t = time.perf_counter()
        optimize_rule_book(book, X, y, max_fpr=FPR, fn_cost=amount, fp_cost=5.0, random_state=0, cv=None)
        times["cv=None"].append(time.perf_counter() - t)
    for what, o in (("the default call", out), ("cv=5", five)):
        choice = o.selection["choice"]
        print(f"{what}: " + ("no choice" if choice is None else
                             f"chose {choice['chosen']}, the choice judged {choice['rows_judged']:,} rows")
              + f" ({len(o)} rules)")
    import tracemalloc  # memory after the timed runs: tracing slows every allocation

    for what, fit in (("RIFFClassifier().fit", lambda: RIFFClassifier(random_state=0).fit(X, y, fn_cost=amount,
                                                                                           fp_cost=5.0)),
                      ("optimize_rule_book", lambda: optimize_rule_book(book, X, y, max_fpr=FPR, fn_cost=amount,
                                                                        fp_cost=5.0, random_state=0))):
        tracemalloc.start()
        fit()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"peak memory of {what} (numpy and Python allocations, the data excluded): {peak / 1e9:.2f} GB")
    print("runs (s): " + "; ".join(f"{k} " + ", ".join(f"{v:.1f}" for v in vs) for k, vs in times.items()))
    base = float(np.median(times["riff"]))
    res.append((f"optimize_rule_book, {n_book} rules, {n_rows:,} rows (median of {repeat})",
                float(np.median(times["optimise"])), "RIFFClassifier().fit, same rows (median)", base))
    res.append((f"optimize_rule_book(cv=5): the choice on any number of rows (median of {repeat})",
                float(np.median(times["cv=5"])), "RIFFClassifier().fit, same rows (median)", base))
    res.append((f"optimize_rule_book(cv=None): the procedure without the choice (median of {repeat})",
                float(np.median(times["cv=None"])), "RIFFClassifier().fit, same rows (median)", base))
    print(f"\nload average: {os.getloadavg()}")
    print("| what | seconds | baseline | baseline seconds | ratio |\n|---|---|---|---|---|")
    for what, secs, bname, b in res:
        print(f"| {what} | {secs:.2f} | {bname} | {b:.2f} | {secs / b:.2f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="fraud,additive,card_raw")
    ap.add_argument("--seeds", default="3", help="a count (seeds 0..n-1) or a comma list of seeds")
    ap.add_argument("--fprs", default="0.01", help="FPR budgets, comma separated")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--book", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3, help="--speed: RIFF's fit and the optimiser alternate this often")
    ap.add_argument("--out", default=None, help="write the per-seed rows to this CSV")
    ap.add_argument("--cross-fit-rows", type=int, default=None,
                    help="--speed: judge the candidates on at most this many rows (default: the library's bound)")
    a = ap.parse_args()
    if a.cross_fit_rows is not None:
        from csboost_plugins.rules import _book_choose
        _book_choose.CROSS_FIT_ROWS = a.cross_fit_rows
    if a.speed:
        speed(a.rows, a.book, a.repeat)
        return
    seeds = [int(v) for v in a.seeds.split(",")] if "," in a.seeds else list(range(int(a.seeds)))
    fprs = [float(v) for v in a.fprs.split(",")]
    frames = []
    for name in a.datasets.split(","):
        if name.startswith("card") and not (Path(os.environ.get("CSBOOST_DATA_DIR", "")) /
                                            "creditcard.csv.gz").exists():
            print(f"{name}: set CSBOOST_DATA_DIR to the folder holding creditcard.csv.gz; skipped")
            continue
        frames.append(run(name, [0] if name == "card_raw" else seeds, a.scale, fprs))
    print(f"\nload average: {os.getloadavg()}")
    df = pd.concat(frames)
    if a.out:  # written first: the tables below need the optional tabulate
        df.to_csv(a.out, index=False)
    print(table(df).to_markdown(floatfmt=".4g"))
    print(paired(df).to_markdown(index=False, floatfmt=".0f"))


if __name__ == "__main__":
    main()
