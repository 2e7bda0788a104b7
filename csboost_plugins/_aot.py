"""Ahead-of-time compiled numba kernels: which kernel runs a call, the JIT or the AOT one.

Why: numba compiles kernels on their first call in a fresh environment (4-10 s for a tree,
FIGS or CAL5 fit on 2 cores; a minimal tree alone costs about 2 s of numba typing,
lowering and LLVM work, see ``benchmarks/results/tree.md``). The install (``setup.py``,
:mod:`csboost_plugins._aot_build`) therefore compiles the same Python kernels once with
``numba.pycc`` into C extensions, one per :class:`KernelSet` (``csdt._kernels_aot``,
``csboost_plugins.rules._kernels_aot``); a fresh process then runs without compiling.
The numba JIT kernels (``cache=True``) stay the reference and the fallback. A call runs
the AOT kernel only when all of these hold:

* the extension exists and was built from exactly the current kernel sources: the build
  bakes the SHA-256 of the set's ``kernel_sources`` into it, so an edited checkout (or a
  failed build) uses the JIT kernels instead of stale code;
* the extension releases the GIL like the ``nogil`` JIT kernels (the build patches
  pycc's wrappers to, see ``_aot_build.nogil_wrappers``), or the call comes from the
  main thread: wrappers that hold the GIL would serialise threads, which then get the JIT;
* every argument has exactly the exported type (pycc wrappers do not check types, and a
  wrong one would crash rather than raise);
* the environment variable ``CSDT_JIT`` is not ``"1"`` (forces the JIT for every kernel
  of this distribution, e.g. to compare).

Both paths compile the same source with the same LLVM settings (no fast-math), so they
give bit-identical results (``tests/test_tree_aot.py``, ``tests/test_aot_figs_cal5.py``,
``tests/test_rules_aot.py``).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from pathlib import Path

import numpy as np

__all__ = ["KernelSet", "matches", "arr", "read"]


# ----------------------------------------------------------------- type grammar
# Shared by the runtime check (:func:`matches`) and the build (``_aot_build.numba_type``):
# "i8" int, "f8" float, "b1" bool, "none" None, ("A", dtype, ndim) a C-contiguous
# writeable array, ("R", dtype, ndim) a C-contiguous array the kernel only reads (read-only
# ones too: joblib hands GridSearchCV workers read-only memmaps), ("RF", dtype, ndim) the
# same in Fortran order, ("T", *items) a tuple.
def arr(dtype, ndim):
    return ("A", dtype, ndim)


def read(dtype, ndim, order="C"):
    return ("R" if order == "C" else "RF", dtype, ndim)


def matches(spec, v) -> bool:
    """Whether the Python value ``v`` has exactly the exported type ``spec``."""
    if spec == "i8":
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
    if spec == "f8":
        return isinstance(v, (float, np.floating))
    if spec == "b1":
        return isinstance(v, (bool, np.bool_))
    if spec == "none":
        return v is None
    if spec[0] in ("A", "R", "RF"):
        if not (isinstance(v, np.ndarray) and v.dtype == spec[1] and v.ndim == spec[2]):
            return False
        contiguous = v.flags.f_contiguous if spec[0] == "RF" else v.flags.c_contiguous
        return contiguous and v.flags.aligned and (spec[0] != "A" or v.flags.writeable)
    return (isinstance(v, tuple) and len(v) == len(spec) - 1
            and all(matches(s, x) for s, x in zip(spec[1:], v)))


# ----------------------------------------------------------------- one extension
class KernelSet:
    """The kernels of one package compiled into one extension.

    Parameters
    ----------
    extension : import name of the extension, e.g. ``"csdt._kernels_aot"``.
    package_dir : directory of the package the kernel modules live in.
    kernel_sources : files (relative to ``package_dir``) whose code is compiled into the
        extension or decides how; their SHA-256 is baked into it.
    signatures : exported name -> (module of the package, function, return type,
        argument types), types in the grammar above.
    """

    def __init__(self, extension, package_dir, kernel_sources, signatures):
        self.extension = extension
        self.package = extension.rsplit(".", 1)[0]
        self.package_dir = Path(package_dir).resolve()
        self.kernel_sources = tuple(kernel_sources)
        self.signatures = signatures
        #: kernel calls per path since import: lets tests see which one ran
        self.calls = {"aot": 0, "jit": 0}
        self.state = {}

    def source_hash(self) -> int:
        """SHA-256 of the kernel sources, as a signed 64-bit int."""
        h = hashlib.sha256()
        for name in self.kernel_sources:
            h.update(name.encode())
            h.update((self.package_dir / name).read_bytes().replace(b"\r\n", b"\n"))
        return int.from_bytes(h.digest()[:8], "little", signed=True)

    def module(self):
        """The AOT extension if it is built and current, else None (checked once)."""
        if "module" not in self.state:
            try:
                m = importlib.import_module(self.extension)
            except ImportError:
                m = None
            if m is not None and m.source_hash() != self.source_hash():
                m = None  # built from other sources: stale
            self.state["module"] = m
        return self.state["module"]

    def use_aot(self) -> bool:
        """Whether a kernel call made now may run AOT code (see module doc)."""
        if os.environ.get("CSDT_JIT", "") == "1" or self.module() is None:
            return False
        if "nogil" not in self.state:
            self.state["nogil"] = bool(self.module().releases_gil())
        return self.state["nogil"] or threading.current_thread() is threading.main_thread()

    def run(self, name, jit, *args):
        """Call the AOT kernel ``name`` when allowed and the arguments match its exported
        types exactly, else the JIT dispatcher ``jit`` (same source, same result)."""
        if self.use_aot():
            spec = self.signatures[name][3]
            if len(args) == len(spec) and all(matches(s, a) for s, a in zip(spec, args)):
                self.calls["aot"] += 1
                return getattr(self.module(), name)(*args)
        self.calls["jit"] += 1
        return jit(*args)
