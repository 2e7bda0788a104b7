"""What dispatching on rule kinds costs: ``RuleSet.apply`` / ``coverage`` against the evaluators called directly.

    python benchmarks/bench_rule_kinds.py [--rows 200000] [--small 200] [--calls 200]

A set asks each rule's kind how the rules are evaluated together (``csboost_plugins/rules/_kind.py``):
induced rules by the interval kernels, SQL rules by the bit-packed engine, any other kind by its own masks.
Per set (induced rules from a depth-6 tree; the 14-rule SQL book of ``bench_rules_engine``; both mixed),
the baseline is the evaluator the set dispatches to, called directly in the same run on the same rows
(``first_match(*rs._prepare(X))``, ``_engine.first_match(_engine.rule_bits(rs, X))``, ...); the ratio
is the set's time over it (1.00: dispatch costs nothing). Large X: best of 5; small X (``--small`` rows):
``--calls`` calls, best of 5, where a per-call cost would show. The load average is printed: the machine
may be shared.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import RuleSet, extract_rules
from csboost_plugins.rules import _engine
from csboost_plugins.rules._evaluate import coverage_matrix, first_match

from bench_rules_engine import EXPERT, frame


def best(fn, repeat=5, calls=1):
    t_best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def sets(X, y):
    cols = [c for c in X.columns if c != "channel"]
    tree = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X[cols].fillna(-1.0), y)
    induced = RuleSet(extract_rules(tree, feature_names=cols)[:40])
    book = RuleSet.from_sql(EXPERT, dialect="duckdb")
    mixed = RuleSet(list(induced.rules) + list(book.rules))
    return {"induced (kernels)": induced, "SQL book (engine)": book, "mixed (engine)": mixed}


def direct(rs):
    """The evaluator the set dispatches to, called without the set: (apply, coverage)."""
    if rs.has_sql_rules:
        return (lambda X: _engine.first_match(_engine.rule_bits(rs, X)),
                lambda X: _engine.coverage(_engine.rule_bits(rs, X)))
    return lambda X: first_match(*rs._prepare(X)), lambda X: coverage_matrix(*rs._prepare(X))


def main(n, small, calls):
    X = frame(n)
    rng = np.random.default_rng(1)
    y = ((X["amount"].fillna(0) > 900) ^ (rng.random(n) < 0.05)).astype(int).to_numpy()
    Xs = X.iloc[:small].copy()
    print(f"rows {n:,} (small: {small} rows x {calls} calls), load average before "
          f"{tuple(round(v, 2) for v in os.getloadavg())}")
    rows = []
    for name, rs in sets(X, y).items():
        d_apply, d_cover = direct(rs)
        np.testing.assert_array_equal(rs.apply(X), d_apply(X))
        np.testing.assert_array_equal(rs.coverage(X), d_cover(X))
        for what, f_set, f_dir, data, k in (("apply", rs.apply, d_apply, X, 1),
                                            ("coverage", rs.coverage, d_cover, X, 1),
                                            ("apply, small X", rs.apply, d_apply, Xs, calls)):
            t_dir = best(lambda: f_dir(data), calls=k)
            t_set = best(lambda: f_set(data), calls=k)
            rows.append((name, len(rs), what, t_set, t_dir))
    print(f"load average after {tuple(round(v, 2) for v in os.getloadavg())}\n")
    print("| set | rules | what | seconds (RuleSet) | seconds (evaluator called directly) | ratio |\n"
          "|---|---|---|---|---|---|")
    for name, k, what, a, b in rows:
        print(f"| {name} | {k} | {what} | {a:.4f} | {b:.4f} | {a / b:.2f} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--small", type=int, default=200)
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    main(a.rows, a.small, a.calls)
