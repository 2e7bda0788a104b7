"""Shared by the AOT tests: run a callable on the AOT kernels and again with ``CSDT_JIT=1``,
and find the numba kernels a kernel reaches."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from numba.core.registry import CPUDispatcher

from csdt import _aot


def on_both_paths(monkeypatch, fn, calls=None):
    """{"aot": (fn(), kernel calls per path), "jit": (...)}: the calls show which path really ran.

    ``calls``: the counters of the kernel set used (default csdt's)."""
    calls = _aot.calls if calls is None else calls
    out = {}
    for path in ("aot", "jit"):
        if path == "jit":
            monkeypatch.setenv("CSDT_JIT", "1")
        else:
            monkeypatch.delenv("CSDT_JIT", raising=False)
        before = dict(calls)
        res = fn()
        out[path] = (res, {k: calls[k] - before[k] for k in before})
    return out


def assert_extension_current(kernels, name):
    """The AOT extension ``name`` of the kernel set ``kernels`` is built from the current kernel sources,
    releases the GIL and exports every declared signature (the README install builds it; a silent build
    failure must not pass CI)."""
    m = kernels.module()
    assert m is not None, (f"{name} is missing or stale: reinstall with `pip install -e .` or run "
                           "`python setup.py build_ext --inplace`")
    assert m.source_hash() == kernels.source_hash() and m.releases_gil()
    assert set(kernels.signatures) <= set(dir(m))


def fresh_process_calls(body, kernels, tmp_path):
    """Run ``body`` (dedented source) in a fresh process on an empty numba cache; returns (AOT calls, JIT calls,
    the text of the sorted list of csboost_plugins kernels numba compiled) of the kernel set importable as
    ``kernels`` (e.g. "csboost_plugins.rules._aot")."""
    code = ("import sys\nimport numpy as np\nfrom numba.core.registry import CPUDispatcher\n"
            f"import {kernels} as _ks\n" + textwrap.dedent(body) + textwrap.dedent("""
        compiled = sorted(f"{mod}.{name}" for mod, m in list(sys.modules.items())
                          if mod.startswith("csboost_plugins")
                          for name, obj in vars(m).items() if isinstance(obj, CPUDispatcher) and obj.signatures)
        print(_ks.KERNELS.calls["aot"], _ks.KERNELS.calls["jit"], compiled)
    """))
    env = {k: v for k, v in os.environ.items() if k != "CSDT_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parents[1],
                         capture_output=True, text=True, check=True).stdout.split(maxsplit=2)
    return int(out[0]), int(out[1]), out[2].strip()


def dispatchers_reached(func, seen):
    """Every numba kernel's Python function reachable from ``func`` through its globals."""
    for name in func.__code__.co_names:
        obj = func.__globals__.get(name)
        if isinstance(obj, CPUDispatcher) and obj.py_func not in seen:
            seen.add(obj.py_func)
            dispatchers_reached(obj.py_func, seen)
    return seen
