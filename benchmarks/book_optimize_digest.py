"""Every output of ``optimize_rule_book`` on seven runs, to compare two trees: the books' rule names, rules,
actions, printed text and ``selection`` (with the choice report), written to a pickle; ``--compare`` says which
runs differ and in which fields. A speed-up of the optimiser that must leave the books unchanged is checked by
running this script on the tree before and after and comparing:

    PYTHONPATH=/path/to/before python benchmarks/book_optimize_digest.py --out before.pkl
    PYTHONPATH=. python benchmarks/book_optimize_digest.py --out after.pkl
    python benchmarks/book_optimize_digest.py --compare before.pkl after.pkl

Runs: ``make_fraud_transactions(60_000)`` with the fraud book (``cv=5``; ``cv=None``; counts with ``cv=3``; the
book with block / allow / review actions, ``cv=3``), ``make_additive_risk(60_000)`` with its book (``cv=5``;
``cv=None`` under ``max_alert_rate``) and the ``--speed`` frame of bench_rule_book.py at 100,000 rows with its
200-rule book (``cv=5``). ``selection["choice"]``'s ``rows_judged``, ``rows_fitted`` and ``fitted_index`` are
left out (newer trees only).
"""

import argparse
import os
import pickle
import sys
import time
import warnings

import numpy as np

from csboost_plugins.rules import RuleSet, optimize_rule_book

from bench_rule_book import speed_frame
from rule_books import BOOKS


def _plain(v):
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.tolist())
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items() if k not in ("rows_judged", "rows_fitted", "fitted_index")}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v.item() if isinstance(v, np.generic) else v


def digest(rs):
    return {"names": list(rs.names), "rules": [str(r) for r in rs.rules], "text": str(rs),
            "actions": list(rs.actions_) if rs.has_actions else None, "selection": _plain(rs.selection)}


def runs():
    from csdt import datasets as ds

    b = ds.make_fraud_transactions(60_000, random_state=0)
    fX, fy, fc, fbook = b.data, np.asarray(b.target), np.asarray(b.cost_matrix), RuleSet.from_sql(BOOKS["fraud"])
    b = ds.make_additive_risk(60_000, positive_rate=0.02, random_state=1)
    aX, ay, ac, abook = b.data, np.asarray(b.target), np.asarray(b.cost_matrix), RuleSet.from_sql(BOOKS["additive"])
    acted = RuleSet.from_sql({n: (str(r), ("block", "allow", "review")[i % 3])
                              for i, (n, r) in enumerate(zip(fbook.names, fbook.rules))})
    sX, sy, amount, texts = speed_frame(100_000)
    sbook = RuleSet.from_sql(dict(list(texts.items())[:200]))
    return {
        "fraud_cv5": lambda: optimize_rule_book(fbook, fX, fy, max_fpr=0.01, cost_matrix=fc, random_state=0),
        "fraud_none": lambda: optimize_rule_book(fbook, fX, fy, max_fpr=0.01, cost_matrix=fc, random_state=1,
                                                 cv=None),
        "additive_cv5": lambda: optimize_rule_book(abook, aX, ay, max_fpr=0.01, cost_matrix=ac, random_state=2),
        "additive_none_rate": lambda: optimize_rule_book(abook, aX, ay, max_alert_rate=0.02, cost_matrix=ac,
                                                         random_state=3, cv=None),
        "fraud_counts_cv3": lambda: optimize_rule_book(fbook, fX, fy, max_fpr=0.01, random_state=4, cv=3),
        "fraud_actions_cv3": lambda: optimize_rule_book(acted, fX, fy, max_fpr=0.01, cost_matrix=fc,
                                                        random_state=5, cv=3),
        "speed100k_cv5": lambda: optimize_rule_book(sbook, sX, sy, max_fpr=0.01, fn_cost=amount, fp_cost=5.0,
                                                    random_state=0),
    }


def compare(a_path, b_path):
    with open(a_path, "rb") as f:
        a = pickle.load(f)
    with open(b_path, "rb") as f:
        b = pickle.load(f)
    differ = 0
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            print(f"{name}: only in {'the first' if name in a else 'the second'}")
            differ += 1
            continue
        fields = [k for k in a[name] if a[name][k] != b[name][k]]
        print(f"{name}: {'equal' if not fields else 'DIFFERENT in ' + ', '.join(fields)}")
        differ += bool(fields)
    return differ


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2)
    a = ap.parse_args()
    if a.compare:
        sys.exit(1 if compare(*a.compare) else 0)
    out = {}
    for name, make in runs().items():
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rs = make()
        out[name] = digest(rs)
        print(f"{name}: {len(rs)} rules, chose {(rs.selection.get('choice') or {}).get('chosen')}, "
              f"{time.perf_counter() - t:.1f} s, load {os.getloadavg()}", flush=True)
    with open(a.out, "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main()
