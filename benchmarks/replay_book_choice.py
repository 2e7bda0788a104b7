"""Replay choice rules of ``optimize_rule_book`` on saved runs of ``bench_rule_book.py --out``.

Each CSV row of method ``chosen`` holds what the cross-fit saw on that seed (``ho_<candidate>``: held-out
money; ``hose_<candidate>``: standard error of its paired difference with the best), and the rows of
methods ``book selected``, ``book retuned``, ``combined`` and ``induced`` hold each candidate's money on the
test rows (the final run of a candidate equals that method's ``cv=None`` run). So the rule "keep the first
candidate, in the order of simplicity, whose held-out money is within c standard errors of the best" can be
replayed for any c without refitting. Per (data set, budget) and c, the table gives the replayed choice's
test money minus the better (by mean) of the book re-tuned alone and RIFF alone, mean over seeds (s.e. over
seeds) and that mean in standard errors, and J, the Jaccard similarity of the kept rule names over pairs of
seeds; ``pick`` is the c with the best worst case over the sets given
(ties to the larger c: the simpler book).

    python benchmarks/replay_book_choice.py benchmarks/results/rule_book_runs/fraud_confirm150k.csv \
        benchmarks/results/rule_book_runs/additive150k.csv
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

CANDIDATES = ("book", "book_retuned", "book_and_induced", "induced")  # optimize_rule_book's order (simplest first)
TEST_METHOD = {"book": "book selected", "book_retuned": "book retuned", "book_and_induced": "combined",
               "induced": "induced"}


def jaccard(names):
    """Mean Jaccard similarity of the kept rule names over all pairs of seeds (1: the same rules every seed)."""
    sets = [set(str(n).split()) if isinstance(n, str) else set() for n in names]
    pairs = [(a, b) for i, a in enumerate(sets) for b in sets[i + 1:]]
    return float(np.mean([len(a & b) / len(a | b) if a | b else 1.0 for a, b in pairs])) if pairs else np.nan


def replay(df, c):
    """{(data set, budget): (per-seed test money of the candidate the rule with c standard errors keeps, minus
    the better baseline; the Jaccard similarity over seeds of its rule names)}."""
    out = {}
    for (name, fpr), d in df.groupby(["dataset", "fpr_budget"], sort=False):
        money = d.pivot(index="seed", columns="method", values="net_money")
        names = d.pivot(index="seed", columns="method", values="names")
        seen = d[d.method == "chosen"].set_index("seed")
        better = max(("book retuned", "RIFF"), key=lambda m: money[m].mean())
        diff, kept = [], []
        for seed in seen.index:
            held = {q: seen.loc[seed, f"ho_{q}"] for q in CANDIDATES}
            se = {q: seen.loc[seed, f"hose_{q}"] for q in CANDIDATES}
            best = max(held.values())
            winner = next(q for q in CANDIDATES if held[q] >= best - c * se[q])
            diff.append(money.loc[seed, TEST_METHOD[winner]] - money.loc[seed, better])
            kept.append(names.loc[seed, TEST_METHOD[winner]])
        out[name, fpr] = np.array(diff), jaccard(kept)
    return out


def main(paths, cs):
    from pathlib import Path

    # a file is one run (data set size, seeds): its stem keeps runs of one data set at two sizes apart
    df = pd.concat([pd.read_csv(p).assign(dataset=lambda d, p=p: Path(p).stem + ": " + d["dataset"]) for p in paths],
                   ignore_index=True)
    print("| set, budget | seeds | " + " | ".join(f"c = {c:g}" for c in cs) + " |")
    print("|---|---|" + "---|" * len(cs))
    by_c = {c: replay(df, c) for c in cs}
    worst = {}
    for key in by_c[cs[0]]:
        cells = []
        for c in cs:
            d, jac = by_c[c][key]
            se = d.std(ddof=1) / np.sqrt(len(d))
            z = d.mean() / se if se > 0 else 0.0
            worst[c] = min(worst.get(c, np.inf), z)
            cells.append(f"{d.mean():+,.0f} ({se:,.0f}; {z:+.2f} s.e.), J {jac:.2f}")
        print(f"| {key[0]}, {100 * key[1]:g} % | {len(by_c[cs[0]][key][0])} | " + " | ".join(cells) + " |")
    pick = max(cs, key=lambda c: (round(worst[c], 2), c))
    print("\nworst case over the sets, in standard errors: "
          + ", ".join(f"c = {c:g}: {worst[c]:+.2f}" for c in cs) + f"; pick c = {pick:g}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+", help="CSVs written by bench_rule_book.py --out")
    ap.add_argument("--c", default="0,0.25,0.5,0.75,1", help="standard errors to replay, comma separated")
    a = ap.parse_args()
    main(a.csv, [float(v) for v in a.c.split(",")])
