"""Per-rule sums of ``evaluate(per_rule=True)``: can the engine add them in the coverage-matrix path's order?

    PYTHONPATH=. python benchmarks/bench_rule_sums_order.py [--rows 1000000]

The coverage-matrix path (``_report.per_rule_sums`` given a coverage matrix) sums each rule's rows by BLAS:
per block of 16,384 rows, the 0/1 block (as float64) times the money parts. The engine adds each rule's rows
in row order (``hit_sums``, the order of ``np.bincount``). Per book (1M rows of ``bench_rules_engine.py``,
2 numba threads), in one run:

- how many per-rule sums differ between the two orders (and between the matrix path on a C-ordered and an
  F-ordered coverage matrix of the same masks: BLAS's order depends on the operand's layout);
- the engine's sums (over the rows each rule flags and the rows it flags alone) against a replica of the
  matrix path fed from the engine's bits (each block unpacked to float64 by a kernel, then the same BLAS
  product), which would make the two paths agree wherever BLAS is deterministic for one layout.
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np
from numba import njit

from bench_rules_engine import EXPERT, frame, generated
from csboost_plugins.rules import RuleSet, _engine

BLOCK = 16384


@njit(cache=True, nogil=True)
def _unpack_block(words, w0, nrows, out):
    for r in range(words.shape[0]):
        for i in range(nrows):
            out[r, i] = np.float64((words[r, w0 + (i >> 6)] >> np.uint64(i & 63)) & np.uint64(1))


def matrix_path(cover, P):
    out = np.zeros((cover.shape[1], P.shape[1]))
    for a in range(0, cover.shape[0], BLOCK):
        out += cover[a:a + BLOCK].T.astype(np.float64) @ P[a:a + BLOCK]
    return out


def replica(bits, P):
    k, n = bits.words.shape[0], bits.n
    buf, out = np.empty((k, BLOCK)), np.zeros((k, P.shape[1]))
    for a in range(0, n, BLOCK):
        m = min(BLOCK, n - a)
        A = buf[:, :m] if m < BLOCK else buf
        _unpack_block(bits.words, a // 64, m, A)
        out += A @ P[a:a + m]
    return out


def main(n):
    numba.set_num_threads(2)
    X = frame(n)
    y = (np.random.default_rng(1).random(n) < 0.01).astype(int)
    amount = X["amount"].fillna(0.0).to_numpy()
    P = np.column_stack([(y == 1) * 1.0, (y == 0) * 1.0, (y == 1) * amount, (y == 0) * 5.0])
    print(f"rows {n:,}, load average before {tuple(round(v, 2) for v in os.getloadavg())}")
    print("| rules | sums differing: engine vs matrix path (F cover) | matrix path C vs F cover | engine sums (s) "
          "| replica of the matrix path (s) | ratio |\n|---|---|---|---|---|---|")
    for k in (14, 200, 1000):
        rs = RuleSet.from_sql(EXPERT if k == 14 else generated(k), dialect="duckdb")
        bits = _engine.rule_bits(rs, X)
        _engine._hit_and_unique_sums(bits, P[:1000])
        _unpack_block(bits.words, 0, 1, np.empty((k, 1)))
        t = time.perf_counter()
        alone, _ = _engine._hit_and_unique_sums(bits, P)
        t_engine = time.perf_counter() - t
        t = time.perf_counter()
        replica(bits, P)
        t_replica = time.perf_counter() - t
        cover = _engine.coverage(bits)
        f, c = matrix_path(np.asfortranarray(cover), P), matrix_path(np.ascontiguousarray(cover), P)
        print(f"| {k} | {int((alone != f).sum())} of {f.size} | {int((c != f).sum())} of {f.size} | {t_engine:.3f} "
              f"| {t_replica:.3f} | {t_replica / t_engine:.1f} |")
    print(f"load average after {tuple(round(v, 2) for v in os.getloadavg())}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    main(ap.parse_args().rows)
