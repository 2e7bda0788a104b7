"""AOT hygiene: the staleness hash covers what it must (walked kernel files, numba/numpy
versions) and nothing else, and an unrequested fall-back to the JIT warns once with its reason."""

import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from csboost_plugins._aot import PerformanceWarning
from csdt import CostSensitiveDecisionTreeClassifier as CSDT
from csdt import _aot

REPO = Path(__file__).resolve().parents[1]

_HASHES = textwrap.dedent("""
    from csdt import _aot
    from csboost_plugins.rules import _aot as r
    print(_aot.KERNELS.source_hash(), r.KERNELS.source_hash())
""")


def _hashes(root):
    out = subprocess.run([sys.executable, "-c", _HASHES], cwd=root, env={"PYTHONPATH": str(root), "PATH": ""},
                         capture_output=True, text=True, timeout=120, check=True)
    return tuple(int(v) for v in out.stdout.split())


def test_hash_follows_kernel_files_found_by_walking_calls(tmp_path):
    for pkg in ("csdt", "csboost_plugins"):
        shutil.copytree(REPO / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    base = _hashes(tmp_path)
    assert base == _hashes(REPO)  # relative paths: the same hash wherever the tree lies
    # a kernel reached only through calls (no export lives in it) invalidates the tree build
    crit = [p for p in _aot.KERNELS.kernel_files() if p.name == "_criterion.py"][0]
    rel = crit.relative_to(REPO)
    with open(tmp_path / rel, "a") as f:
        f.write("\n# edited\n")
    edited = _hashes(tmp_path)
    assert edited[0] != base[0] and edited[1] == base[1]
    # an estimator module holds no kernel: editing it leaves both builds current
    tree_py = Path(sys.modules[CSDT.__module__].__file__).relative_to(REPO)
    with open(tmp_path / tree_py, "a") as f:
        f.write("\n# edited\n")
    assert _hashes(tmp_path) == edited
    # the rule engine's kernels are in the rules build: editing them makes that build stale, not the tree's
    with open(tmp_path / "csboost_plugins" / "rules" / "_engine_kernels.py", "a") as f:
        f.write("\n# edited\n")
    engine_edited = _hashes(tmp_path)
    assert engine_edited[0] == edited[0] and engine_edited[1] != edited[1]


def test_hash_includes_numba_and_numpy_versions(monkeypatch):
    import numba

    before = _aot.KERNELS.source_hash()
    monkeypatch.setattr(_aot.KERNELS, "state", {})
    monkeypatch.setattr(numba, "__version__", "0.0.1")
    assert _aot.KERNELS.source_hash() != before
    monkeypatch.setattr(_aot.KERNELS, "state", {})
    monkeypatch.setattr(numba, "__version__", numba.__version__)
    monkeypatch.setattr(np, "__version__", "1.0.0")
    assert _aot.KERNELS.source_hash() != before


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    return X, y


def test_stale_extension_warns_once_naming_reason_and_cure(monkeypatch):
    monkeypatch.delenv("CSDT_JIT", raising=False)
    monkeypatch.setattr(_aot.KERNELS, "state", {"hash": 12345})  # as if a kernel were edited
    X, y = _data()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        CSDT(max_depth=2).fit(X, y, fp_cost=1.0, fn_cost=3.0)
        CSDT(max_depth=2).fit(X, y, fp_cost=1.0, fn_cost=3.0)
    perf = [w for w in rec if issubclass(w.category, PerformanceWarning)]
    assert len(perf) == 1, [str(w.message) for w in perf]
    msg = str(perf[0].message)
    assert perf[0].filename == __file__  # points at the caller's line, not into the library
    assert "stale" in msg and "CSDT_JIT=1" in msg and "build_ext --inplace" in msg


def test_jit_asked_for_is_silent(monkeypatch):
    monkeypatch.setenv("CSDT_JIT", "1")
    monkeypatch.setattr(_aot.KERNELS, "state", {"hash": 12345})
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        CSDT(max_depth=2).fit(X, y, fp_cost=1.0, fn_cost=3.0)


def test_wrong_argument_type_warns_naming_kernel_and_argument(monkeypatch):
    monkeypatch.delenv("CSDT_JIT", raising=False)
    if _aot.module() is None:
        pytest.skip("needs the built extension (pip install -e .)")
    monkeypatch.setattr(_aot.KERNELS, "state", dict(_aot.KERNELS.state, warned=set()))
    from csdt._cost_information import cost_transinformation_table

    table = np.asfortranarray(np.arange(1.0, 7.0).reshape(2, 3))  # the export takes C order
    with pytest.warns(PerformanceWarning, match=r"cost_transinformation_table: argument 0 is float64\[2d, F\]"):
        _aot.run("cost_transinformation_table", cost_transinformation_table, table)
