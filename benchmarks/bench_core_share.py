"""The optimiser's pool tasks with a share of the cores among the tasks running (the library's ``CoreShare``)
against one thread per task (the share fixed at the pool's size): alternating pairs of the default
``optimize_rule_book`` call on the --speed frame of bench_rule_book.py, the same books checked.

    PYTHONPATH=.:benchmarks python benchmarks/bench_core_share.py --rows 3000000 --pairs 3
    PYTHONPATH=.:benchmarks python benchmarks/bench_core_share.py --rows 10000000 --pairs 2
"""

import argparse
import os
import statistics
import time
import warnings

from bench_rule_book import speed_frame

from csboost_plugins.rules import RuleSet, _book_choose, optimize_rule_book


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--book", type=int, default=200)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    X, y, amount, texts = speed_frame(a.rows)
    book = RuleSet.from_sql(dict(list(texts.items())[:a.book]))
    share = _book_choose.CoreShare.__call__
    fixed = lambda self: max(1, self.cores // max(1, _book_choose.FOLD_THREADS))
    runs, books = {"share": [], "one thread per task": []}, set()
    for i in range(a.pairs):
        order = [("share", share), ("one thread per task", fixed)]
        for name, call in (order if i % 2 == 0 else order[::-1]):
            _book_choose.CoreShare.__call__ = call
            t = time.perf_counter()
            rs = optimize_rule_book(book, X, y, max_fpr=0.01, fn_cost=amount, fp_cost=5.0, random_state=0)
            runs[name].append(time.perf_counter() - t)
            books.add((tuple(rs.names), tuple(map(str, rs.rules))))
    _book_choose.CoreShare.__call__ = share
    print(f"{a.rows:,} rows, {a.book}-rule book, load average {os.getloadavg()}; the same book every run: "
          f"{len(books) == 1}")
    print("| tasks' kernels | runs (s) | median (s) |\n|---|---|---|")
    for name, v in runs.items():
        print(f"| {name} | {', '.join(f'{x:.1f}' for x in v)} | {statistics.median(v):.2f} |")


if __name__ == "__main__":
    main()
