"""Ahead-of-time capacity kernels (csboost_plugins._capacity_kernels): built by the install, used when safe, and
identical to the numba JIT kernels they are compiled from."""

import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest

from csboost_plugins import _capacity_kernels as cap_kernels
from csboost_plugins.metrics import bayes_minimum_risk

from _aot_paths import assert_extension_current, dispatchers_reached, fresh_process_calls, on_both_paths

REPO = Path(__file__).resolve().parents[1]


def test_extension_is_built_and_current():
    assert_extension_current(cap_kernels.KERNELS, "csboost_plugins._capacity_kernels_aot")


@pytest.mark.parametrize("seed,n", [(0, 50), (1, 5000), (2, 60_000)])
def test_capacity_aot_equals_jit(monkeypatch, seed, n):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** 3
    amount = rng.exponential(80.0, n)
    periods = rng.integers(0, 9, n)  # not sorted: rows of a period interleave
    cards = rng.integers(0, max(n // 20, 2), n)

    def decide():
        return (bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=7, periods=periods, entity=cards),
                bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=7, periods=periods),
                bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alert_rate=0.05))

    out = on_both_paths(monkeypatch, decide, calls=cap_kernels.KERNELS.calls)
    (ra, ua), (rj, uj) = out["aot"], out["jit"]
    assert ua["jit"] == 0 and ua["aot"] == 4, ua  # groups, then the top k, for the entity cap; the top k twice
    assert uj["aot"] == 0 and uj["jit"] == 4, uj
    assert ra[0].sum() > 0
    for a, b in zip(ra, rj):
        np.testing.assert_array_equal(a, b)


def test_source_hash_covers_every_compiled_kernel():
    files = set()
    for mod, func, _, _ in cap_kernels.SIGNATURES.values():
        root = getattr(importlib.import_module(f"csboost_plugins.{mod}"), func).py_func
        files |= {Path(inspect.getsourcefile(f)).name for f in dispatchers_reached(root, {root})}
    assert files == {"_capacity_kernels.py"}
    assert files <= {p.name for p in cap_kernels.KERNELS.kernel_files()}


def test_fresh_process_compiles_no_capacity_kernel(tmp_path):
    aot, jit, compiled = fresh_process_calls("""
        from csboost_plugins.metrics import bayes_minimum_risk
        rng = np.random.default_rng(0)
        p = rng.random(3000)
        bayes_minimum_risk(p, fp_cost=1.0, fn_cost=5.0, max_alerts=3, periods=rng.integers(0, 5, 3000),
                           entity=rng.integers(0, 90, 3000))
    """, "csboost_plugins._capacity_kernels", tmp_path)
    assert aot == 2 and jit == 0, (aot, jit)
    assert compiled == "[]", compiled
