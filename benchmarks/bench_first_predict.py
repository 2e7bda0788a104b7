"""First ``predict`` of a SQL rule book in a fresh process: what a user waits for after install.

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=. python benchmarks/bench_first_predict.py

Point ``NUMBA_CACHE_DIR`` at an empty directory so that no JIT cache from an earlier run hides a compile.
The book is the 14-rule expert book of ``bench_rules_engine.py`` (arithmetic, OR, NOT, IN, BETWEEN, text)
on 20,000 rows. Printed: the import, the first and the second ``predict`` (seconds), how many rule kernel
calls ran ahead-of-time compiled code and how many the JIT, any warning, and the load average.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

t0 = time.perf_counter()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rules_engine import EXPERT, frame  # noqa: E402

from csboost_plugins.rules import RuleSet, _aot  # noqa: E402

t1 = time.perf_counter()
X = frame(20_000)
rs = RuleSet.from_sql(EXPERT, dialect="duckdb")
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    t2 = time.perf_counter()
    rs.predict(X)
    t3 = time.perf_counter()
rs.predict(X)
t4 = time.perf_counter()
print(f"import {t1 - t0:.2f} s, first predict {t3 - t2:.2f} s, second {t4 - t3:.3f} s, rule kernel calls "
      f"{_aot.KERNELS.calls}, warnings {[str(w.message)[:100] for w in rec]}, load average "
      f"{tuple(round(v, 2) for v in os.getloadavg())}")
