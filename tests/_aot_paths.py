"""Run a callable on the AOT kernels and again with ``CSDT_JIT=1`` (shared by the AOT tests)."""

from csdt import _aot


def on_both_paths(monkeypatch, fn):
    """{"aot": (fn(), kernel calls per path), "jit": (...)}: the calls show which path really ran."""
    out = {}
    for path in ("aot", "jit"):
        if path == "jit":
            monkeypatch.setenv("CSDT_JIT", "1")
        else:
            monkeypatch.delenv("CSDT_JIT", raising=False)
        before = dict(_aot.calls)
        res = fn()
        out[path] = (res, {k: _aot.calls[k] - before[k] for k in before})
    return out
