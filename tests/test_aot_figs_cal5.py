"""Ahead-of-time kernels of FIGS/FIGU and CAL5/CAL5_OC (csdt._aot): used, and identical to the JIT.

The numba JIT kernels are the reference: every configuration below is fitted once
through the AOT extension and once with ``CSDT_JIT=1``; the fitted trees, the split
lists, the scores and the predictions must be bit-identical, and the call counters of
:mod:`csdt._aot` must show that each path really ran (no silent JIT fallback).
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from csboost_plugins._aot import matches
from csdt import CAL5Classifier, CAL5OCClassifier, FIGSClassifier, FIGUClassifier, _aot, cost_transinformation
from csdt.datasets import make_multi_oc, make_nsep_oc
from csdt.datasets import load_creditscoring1

from _aot_paths import on_both_paths

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def _extension_built():
    # a missing or stale extension would make every comparison below JIT vs JIT
    assert _aot.module() is not None, ("csdt._kernels_aot is missing or stale: reinstall with "
                                       "`pip install -e .` or run `python setup.py build_ext --inplace`")


@pytest.fixture()
def names_run(monkeypatch):
    """The exported kernel names that ``_aot.run`` is asked for (whichever path runs them)."""
    seen = []
    real = _aot.run

    def recording(name, jit, *args):
        seen.append(name)
        return real(name, jit, *args)

    monkeypatch.setattr(_aot, "run", recording)
    return seen


def _both_paths(monkeypatch, fit_predict):
    """``fit_predict()`` once on the AOT path and once with CSDT_JIT=1; (result, calls) per path."""
    out = on_both_paths(monkeypatch, fit_predict)
    (_, ua), (_, uj) = out["aot"], out["jit"]
    assert ua["jit"] == 0 and ua["aot"] >= 1, ua  # every kernel call ran AOT, none fell back
    assert uj["aot"] == 0 and uj["jit"] >= 1, uj
    return out["aot"][0], out["jit"][0], ua


def _assert_same_tree_arrays(a, b):
    assert len(a) == len(b)
    for ta, tb in zip(a, b):
        assert (ta.left_inclusive, ta.feature_names) == (tb.left_inclusive, tb.feature_names)
        arrays_a, arrays_b = ta.arrays(), tb.arrays()
        assert arrays_a.keys() == arrays_b.keys()
        for f, v in arrays_a.items():
            np.testing.assert_array_equal(v, arrays_b[f], err_msg=f)


# ------------------------------------------------------------------------------ FIGS / FIGU
def _figs_data(seed=0, n=500, nan=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 1] = np.round(X[:, 1], 1)  # ties
    X[:, 3] = rng.integers(0, 600, n)  # many distinct values: quantile bins below 256+ bins
    if nan:
        X[rng.random(n) < 0.1, 0] = np.nan
    logit = np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 - 0.8 * X[:, 2] * (X[:, 3] > 300) - 0.5
    y = (logit + 0.7 * rng.normal(size=n) > 0).astype(int)
    fn = rng.uniform(1, 20, n)
    return X, y, fn


FIGS_CONFIGS = [
    (FIGSClassifier, dict(max_rules=12)),
    (FIGSClassifier, dict(max_rules=12, max_trees=2)),
    (FIGSClassifier, dict(max_rules=10, max_depth=2, max_bins=16)),
    (FIGSClassifier, dict(max_rules=10, max_bins=400)),  # uint16 bin codes
    (FIGUClassifier, dict(max_rules=12)),
    (FIGUClassifier, dict(max_rules=12, precision_threshold=0.7, max_bins=32)),
    (FIGUClassifier, dict(max_rules=10, max_bins=400, max_trees=3)),  # uint16 bin codes
]


@pytest.mark.parametrize("cls,params", FIGS_CONFIGS,
                         ids=[f"{c.__name__}-" + ",".join(f"{k}={v}" for k, v in p.items()) for c, p in FIGS_CONFIGS])
@pytest.mark.parametrize("frame", [False, True], ids=["numpy", "pandas"])
@pytest.mark.parametrize("costs", [False, True], ids=["unit", "costs"])
def test_figs_aot_equals_jit(monkeypatch, cls, params, frame, costs):
    X, y, fn = _figs_data(nan=not frame)  # NaN on the numpy runs, a plain frame on the pandas ones
    if frame:
        X = pd.DataFrame(X, columns=["amount", "age", "score", "days"])
    fit_kw = dict(fp_cost=3.0, fn_cost=fn) if costs else dict(sample_weight=np.linspace(0.5, 2.0, len(y)))

    def fit_predict():
        m = cls(**params).fit(X, y, **fit_kw)
        return m, m.decision_function(X), m.predict_proba(X), m.predict(X)

    (ma, *pa), (mj, *pj), used = _both_paths(monkeypatch, fit_predict)
    assert used["aot"] >= 2 * ma.complexity_ + 2  # binning, histograms per split, prediction
    assert ma.complexity_ >= 3
    assert ma.splits_ == mj.splits_
    _assert_same_tree_arrays(ma.tree_arrays(), mj.tree_arrays())
    for a, b in zip(pa, pj):
        np.testing.assert_array_equal(a, b)


def test_figs_aot_equals_jit_on_creditscoring1(monkeypatch):
    d = load_creditscoring1()
    n = 3000  # a real bundled data set, subsampled to keep the test fast
    X, y = d.data.iloc[:n], d.target[:n]

    def fit_predict():
        m = FIGSClassifier(max_rules=15).fit(X, y, fp_cost=d.fp_cost[:n], fn_cost=d.fn_cost[:n])
        return m, m.decision_function(X)

    (ma, sa), (mj, sj), _ = _both_paths(monkeypatch, fit_predict)
    assert ma.splits_ == mj.splits_ and len(ma.splits_) == 15
    _assert_same_tree_arrays(ma.tree_arrays(), mj.tree_arrays())
    np.testing.assert_array_equal(sa, sj)


def test_every_figs_kernel_is_exported_and_exercised(monkeypatch, names_run):
    # both bin-code widths and both models reach every exported FIGS kernel through _aot.run
    X, y, fn = _figs_data()
    monkeypatch.delenv("CSDT_JIT", raising=False)
    for cls in (FIGSClassifier, FIGUClassifier):
        for max_bins in (255, 400):
            cls(max_rules=6, max_bins=max_bins).fit(X, y, fp_cost=3.0, fn_cost=fn).predict(X)
    exported = {k for k in _aot.SIGNATURES if k.startswith("figs_")} | {"apply_forest"}  # the shared walk
    assert set(names_run) == exported


@pytest.mark.parametrize("cls", [FIGSClassifier, FIGUClassifier, CAL5OCClassifier])
def test_read_only_input_stays_on_the_aot_path(monkeypatch, cls):
    # joblib gives GridSearchCV / cross_validate workers read-only memmaps of X and the weights:
    # kernels that only read them are exported for read-only arrays ("R" in the grammar)
    X, y, fn = _figs_data(nan=cls is not CAL5OCClassifier)
    if cls is CAL5OCClassifier:
        X = np.nan_to_num(X)
    w = np.linspace(0.5, 2.0, len(y))
    X.flags.writeable = False
    w.flags.writeable = False
    kw = dict(max_rules=8) if cls is not CAL5OCClassifier else {}

    def fit_predict():
        m = cls(**kw).fit(X, y, **({"sample_weight": w} if cls is not CAL5OCClassifier else {"cost": w}))
        return m, m.predict_proba(X)

    (ma, pa), (mj, pj), _ = _both_paths(monkeypatch, fit_predict)
    _assert_same_tree_arrays(ma.tree_arrays(), mj.tree_arrays())
    np.testing.assert_array_equal(pa, pj)


def test_grammar_read_only_spec():
    a = np.zeros((3, 2))
    ro = a.copy()
    ro.flags.writeable = False
    assert matches(("R", "float64", 2), a) and matches(("R", "float64", 2), ro)
    assert matches(("A", "float64", 2), a) and not matches(("A", "float64", 2), ro)
    assert not matches(("R", "float64", 2), np.asfortranarray(np.zeros((3, 2))))  # layout
    assert not matches(("R", "float64", 2), a[:, 0:1][::2])
    assert not matches(("R", "float64", 1), a[:, 0])  # a column view is not C-contiguous
    assert not matches(("R", "float64", 2), a.astype(np.float32))
    from csboost_plugins._aot_build import numba_type as _numba_type
    assert _numba_type(("R", "float64", 2)).mutable is False
    assert _numba_type(("A", "float64", 2)).mutable is True


# ------------------------------------------------------------------------------ CAL5 / CAL5_OC
def _cal5_fit_predict(cls, params, X, y, fit_kw):
    def fit_predict():
        m = cls(**params).fit(X, y, **fit_kw)
        return m, m.predict_proba(X), m.predict(X), m.export_text()
    return fit_predict


def _assert_same_cal5(ma, mj):
    # the fitted tree_ (binary chain with every extra: counts, cost sums, info, leaf kinds, ...)
    _assert_same_tree_arrays([ma.tree_], [mj.tree_])
    _assert_same_tree_arrays(ma.tree_arrays(), mj.tree_arrays())


def _nsep(frame):
    X, y, cost = make_nsep_oc(600, random_state=1)
    return (pd.DataFrame(X, columns=["x1", "x2"]) if frame else X), y, cost


def _multi(frame):
    X, y, cost = make_multi_oc(600, random_state=2)
    return (pd.DataFrame(X, columns=["x1", "x2"]) if frame else X), y, cost


CAL5_CONFIGS = [
    ("nsep-oc", CAL5OCClassifier, dict(), _nsep, "cost"),
    ("nsep-oc-alpha", CAL5OCClassifier, dict(alpha=0.1, s_max=0.8), _nsep, "cost"),
    ("multi-oc-nomerge", CAL5OCClassifier, dict(merge_leaves=False), _multi, "cost"),
    ("multi-oc-depth", CAL5OCClassifier, dict(max_depth=2), _multi, "cost"),
    ("multi-cal5", CAL5Classifier, dict(), _multi, "cost"),
    ("nsep-cal5-unit", CAL5Classifier, dict(s_max=0.7), _nsep, None),
    ("nsep-oc-binary-costs", CAL5OCClassifier, dict(), _nsep, "binary"),
]


@pytest.mark.parametrize("case", CAL5_CONFIGS, ids=[c[0] for c in CAL5_CONFIGS])
@pytest.mark.parametrize("frame", [False, True], ids=["numpy", "pandas"])
def test_cal5_aot_equals_jit(monkeypatch, case, frame):
    _, cls, params, data, costs = case
    X, y, cost = data(frame)
    fit_kw = {"cost": dict(cost=cost), None: {},
              "binary": dict(fp_cost=1.0 + cost, fn_cost=2.0 * cost)}[costs]
    (ma, *pa), (mj, *pj), used = _both_paths(monkeypatch, _cal5_fit_predict(cls, params, X, y, fit_kw))
    assert ma.get_n_leaves() >= 2
    assert used["aot"] >= 1 + X.shape[1]  # root meta-decision + each attribute's intervals at the root
    _assert_same_cal5(ma, mj)
    for a, b in zip(pa, pj):
        np.testing.assert_array_equal(a, b)


def test_cal5_multiclass_aot_equals_jit(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3))
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0] + 0.3 * rng.normal(size=600), [-0.5, 0.5])]
    cost = rng.uniform(0.5, 3.0, 600)
    (ma, *pa), (mj, *pj), _ = _both_paths(monkeypatch, _cal5_fit_predict(CAL5OCClassifier, {}, X, y,
                                                                         dict(cost=cost)))
    assert ma.get_n_leaves() >= 3
    _assert_same_cal5(ma, mj)
    for a, b in zip(pa, pj):
        np.testing.assert_array_equal(a, b)


def test_cal5_aot_equals_jit_on_creditscoring1(monkeypatch):
    d = load_creditscoring1()
    n = 3000  # a real bundled data set, subsampled to keep the test fast
    X, y = d.data.iloc[:n], d.target[:n]
    fit_kw = dict(fp_cost=d.fp_cost[:n], fn_cost=d.fn_cost[:n])
    (ma, *pa), (mj, *pj), _ = _both_paths(monkeypatch, _cal5_fit_predict(CAL5OCClassifier, {}, X, y, fit_kw))
    _assert_same_cal5(ma, mj)
    for a, b in zip(pa, pj):
        np.testing.assert_array_equal(a, b)


def test_cost_transinformation_aot_equals_jit(monkeypatch):
    rng = np.random.default_rng(4)
    x = rng.integers(0, 5, 400)
    y = (x + rng.integers(0, 3, 400) > 3).astype(int)
    cost = rng.uniform(0.1, 9.0, 400)
    ia, ij, used = _both_paths(monkeypatch, lambda: cost_transinformation(x, y, cost))
    assert used == {"aot": 1, "jit": 0}
    assert ia > 0.0 and ia == ij


def test_every_cal5_kernel_is_exported_and_exercised(monkeypatch, names_run):
    monkeypatch.delenv("CSDT_JIT", raising=False)
    X, y, cost = make_nsep_oc(300, random_state=0)
    CAL5OCClassifier().fit(X, y, cost=cost).predict(X)
    cost_transinformation(np.round(X[:, 1]), y, cost)
    exported = {k for k in _aot.SIGNATURES if k.startswith(("cal5_", "cost_transinformation"))}
    assert set(names_run) == exported | {"apply_forest"}  # the shared walk predicts


# ------------------------------------------------------------------------------ fresh process
def test_fresh_process_compiles_no_figs_or_cal5_kernel(tmp_path):
    # the point of the AOT kernels: with an empty numba cache, fitting and predicting every
    # model compiles (or loads) no numba kernel of csdt at all
    code = textwrap.dedent("""
        import sys
        import numpy as np
        from numba.core.registry import CPUDispatcher
        from csdt import CAL5Classifier, CAL5OCClassifier, FIGSClassifier, FIGUClassifier, _aot
        from csdt import cost_transinformation
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 3)); X[::7, 0] = np.nan
        y = (X[:, 1] > 0).astype(int); fn = rng.uniform(1, 10, 300)
        for m in (FIGSClassifier(max_rules=5), FIGUClassifier(max_rules=5), FIGSClassifier(max_rules=5, max_bins=300)):
            m.fit(X, y, fp_cost=2.0, fn_cost=fn).predict(X)
        Xf = np.nan_to_num(X)
        for m in (CAL5OCClassifier(), CAL5Classifier()):
            m.fit(Xf, y, fp_cost=2.0, fn_cost=fn).predict(Xf)
        cost_transinformation(np.round(Xf[:, 1]), y, fn)
        compiled = sorted(f"{mod}.{name}" for mod, m in list(sys.modules.items()) if mod.startswith("csdt")
                          for name, obj in vars(m).items() if isinstance(obj, CPUDispatcher) and obj.signatures)
        print(_aot.calls["aot"], _aot.calls["jit"], compiled)
    """)
    env = {k: v for k, v in os.environ.items() if k != "CSDT_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True,
                         check=True).stdout.split(maxsplit=2)
    assert int(out[0]) > 30 and int(out[1]) == 0, out
    assert out[2].strip() == "[]", out[2]
