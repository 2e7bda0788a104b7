"""Shared by the AOT tests: run a callable on the AOT kernels and again with ``CSDT_JIT=1``,
and find the numba kernels a kernel reaches."""

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


def dispatchers_reached(func, seen):
    """Every numba kernel's Python function reachable from ``func`` through its globals."""
    for name in func.__code__.co_names:
        obj = func.__globals__.get(name)
        if isinstance(obj, CPUDispatcher) and obj.py_func not in seen:
            seen.add(obj.py_func)
            dispatchers_reached(obj.py_func, seen)
    return seen
