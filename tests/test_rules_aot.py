"""Ahead-of-time rule kernels (csboost_plugins.rules._aot): built by the install, used
when safe, and identical to the numba JIT kernels they are compiled from."""

import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from csboost_plugins.rules import RuleSet, extract_rules, riff_select
from csboost_plugins.rules import _aot as rules_aot

from _aot_paths import assert_extension_current, dispatchers_reached, fresh_process_calls, on_both_paths
from test_rules_engine import _book, _frame

REPO = Path(__file__).resolve().parents[1]


def test_extension_is_built_and_current():
    assert_extension_current(rules_aot.KERNELS, "csboost_plugins.rules._kernels_aot")


def _fraud(n, seed):
    from csdt.datasets import make_fraud_transactions
    d = make_fraud_transactions(n, fraud_rate=0.03, random_state=seed)
    X = d.data.copy()
    X.iloc[::11, 2] = np.nan
    return X, np.asarray(d.target), np.asarray(d.fn_cost)


@pytest.mark.parametrize("n", [3000, 45000])  # one block / several blocks in threads
def test_rules_aot_equals_jit(monkeypatch, n):
    X, y, amount = _fraud(n, seed=2)
    forest = RandomForestClassifier(n_estimators=4, max_depth=5, random_state=0).fit(X.fillna(-1)[:2000], y[:2000])
    pool = extract_rules(forest)

    Xn = X.to_numpy(np.float64)  # numpy input reaches apply / coverage in C order, pandas in F order

    def select_and_predict():
        rs = riff_select(pool, X, y, max_fpr=0.03, fp_cost=0.0, fn_cost=amount)
        whole = RuleSet(pool[:40])
        return (list(rs.selection["candidate_index"]), rs.predict(X, random_state=0), whole.apply(X),
                whole.apply(Xn), whole.coverage(X), whole.coverage(Xn))

    out = on_both_paths(monkeypatch, select_and_predict, calls=rules_aot.KERNELS.calls)
    (ra, ua), (rj, uj) = out["aot"], out["jit"]
    assert ua["jit"] == 0 and ua["aot"] >= 6, ua  # trie sums, masks, first match, coverage: all AOT
    assert uj["aot"] == 0 and uj["jit"] >= 6, uj
    np.testing.assert_array_equal(ra[2], ra[3])  # pandas and numpy input agree
    assert len(ra[0]) >= 2
    assert ra[0] == rj[0]
    for a, b in zip(ra[1:], rj[1:]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n,seed,dialect", [(1000, 5, "sqlite"), (40_003, 6, None), (50_000, 8, "duckdb")])
def test_engine_aot_equals_jit_on_random_books(monkeypatch, n, seed, dialect):
    """The bit-packed engine's kernels (masks, first match, hit and unique sums, overlap) give the same bits and
    the same sums on both paths: random books with NULLs, text, IN lists, arithmetic, NOT and OR."""
    X = _frame(n, seed)
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(int)
    amount = rng.exponential(50.0, n)
    rs = _book(40, seed, dialect)
    sparse = _book(12, seed, dialect, sparse=True)  # many rows flagged by one rule alone: unique sums

    def table(book):
        return book.evaluate(X, y, fp_cost=2.0, fn_cost=amount, per_rule=True).drop(columns=["name", "rule"])

    periods = np.arange(n) % 7

    def monitored(book):
        return book.monitor(X, y, periods, fp_cost=2.0, fn_cost=amount).select_dtypes("number").to_numpy(float)

    def engine_outputs():
        return (rs.coverage(X), rs.apply(X), rs.predict(X), rs.overlap(X).to_numpy(), table(rs).to_numpy(float),
                table(sparse).to_numpy(float), monitored(rs), monitored(sparse))

    out = on_both_paths(monkeypatch, engine_outputs, calls=rules_aot.KERNELS.calls)
    (ra, ua), (rj, uj) = out["aot"], out["jit"]
    # masks, first match, multi-hit rows, sums, pair counts, the monitor's cells: all AOT
    assert ua["jit"] == 0 and ua["aot"] >= 10, ua
    assert uj["aot"] == 0 and uj["jit"] >= 10, uj
    assert ra[0].any() and not ra[0].all()
    for a, b in zip(ra, rj):
        np.testing.assert_array_equal(a, b)  # NaN where a rule flags nothing, on both paths


def test_source_hash_covers_every_compiled_kernel():
    files = set()
    for mod, func, _, _ in rules_aot.SIGNATURES.values():
        root = getattr(importlib.import_module(f"csboost_plugins.rules.{mod}"), func).py_func
        for f in dispatchers_reached(root, {root}):
            files.add(Path(inspect.getsourcefile(f)).name)
    assert files == {"_evaluate.py", "_engine_kernels.py", "_period_kernels.py", "_book_kernels.py"}
    assert files <= {p.name for p in rules_aot.KERNELS.kernel_files()}


def test_fresh_process_compiles_no_rule_kernel(tmp_path):
    aot, jit, compiled = fresh_process_calls("""
        from sklearn.tree import DecisionTreeClassifier
        from csboost_plugins.rules import RuleSet, extract_rules, optimize_rule_book, riff_select
        rng = np.random.default_rng(0)
        X = rng.normal(size=(3000, 4)); X[::9, 1] = np.nan
        y = (np.nan_to_num(X[:, 0]) + rng.normal(size=3000) > 1.2).astype(int)
        rules = extract_rules(DecisionTreeClassifier(max_depth=4).fit(np.nan_to_num(X), y))
        rs = riff_select(rules, X, y, max_fpr=0.05)
        rs.predict(X); rs.coverage(X)
        book = RuleSet.from_sql({"a": "x0 + x1 > 1 OR x2 IS NULL", "b": "x3 IN (1, 2) AND NOT (x0 < -1)",
                                 "c": "x1 BETWEEN -1 AND 1"})
        book.feature_names = ["x0", "x1", "x2", "x3"]
        book.predict(X); book.overlap(X); book.evaluate(X, y, per_rule=True)
        rs.monitor(X, y, np.arange(3000) % 5); book.monitor(X, y, np.arange(3000) % 5)
        optimize_rule_book(book, X, y, max_fpr=0.2, candidates=None, cv=None, fp_cost=1.0, fn_cost=5.0,
                           random_state=0)
    """, "csboost_plugins.rules._aot", tmp_path)
    assert aot >= 3 and jit == 0, (aot, jit)
    assert compiled == "[]", compiled


def test_the_rule_and_capacity_kernels_target_the_vectorised_cpu_of_the_objective():
    """The rule engine's and the capacity's extensions are built for the same CPU level as the objective's (AVX2 on
    x86-64); a CPU lacking its features runs the JIT kernels (checked before the import)."""
    from csboost_plugins import _aot, _capacity_kernels
    from csboost_plugins.boosting import _aec_kernels
    from csboost_plugins.rules import _aot as rules_aot

    for ks in (rules_aot.KERNELS, _capacity_kernels.KERNELS):
        assert (ks.target_cpu, ks.cpu_features) == (_aec_kernels.KERNELS.target_cpu, _aec_kernels.KERNELS.cpu_features)
        assert ks.target_cpu == _aot.vector_target().get("target_cpu", "")
        assert ks.missing_cpu_features() == []  # this host runs it
