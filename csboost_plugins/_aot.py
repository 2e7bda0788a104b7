"""Ahead-of-time compiled numba kernels: which kernel runs a call, the JIT or the AOT one.

Why: numba compiles kernels on their first call in a fresh environment (4-10 s for a tree,
FIGS or CAL5 fit on 2 cores; a minimal tree alone costs about 2 s of numba typing,
lowering and LLVM work, see ``benchmarks/results/tree.md``). The install (``setup.py``,
:mod:`csboost_plugins._aot_build`) therefore compiles the same Python kernels once with
``numba.pycc`` into C extensions, one per :class:`KernelSet` (``csdt._kernels_aot``,
``csboost_plugins.rules._kernels_aot``, ``csboost_plugins.boosting._aec_kernels_aot``,
``csboost_plugins._capacity_kernels_aot``); a fresh process then runs without compiling.
The numba JIT kernels (``cache=True``) stay the reference and the fallback. A call runs
the AOT kernel only when all of these hold:

* the extension exists and was built from exactly the current kernel sources with the
  installed numba, llvmlite and numpy: the build bakes a SHA-256 of those versions and of
  every file holding a compiled kernel (found by walking the exported kernels' calls, see
  :meth:`KernelSet.kernel_files`) into it, so an edited checkout, an upgraded numba or a
  failed build uses the JIT kernels instead of stale code;
* the extension releases the GIL like the ``nogil`` JIT kernels (the build patches
  pycc's wrappers to, see ``_aot_build.nogil_wrappers``), or the call comes from the
  main thread: wrappers that hold the GIL would serialise threads, which then get the JIT;
* every argument has exactly the exported type (pycc wrappers do not check types, and a
  wrong one would crash rather than raise);
* the environment variable ``CSDT_JIT`` is not ``"1"`` (forces the JIT for every kernel
  of this distribution, e.g. to compare).

Both paths compile the same source with the same LLVM settings (no fast-math), so they
give bit-identical results (``tests/test_tree_aot.py``, ``tests/test_aot_figs_cal5.py``,
``tests/test_rules_aot.py``). A fall-back to the JIT that the user did not ask for costs
4-10 s of compile in a fresh process, so it is never silent: the first one of each kind
per extension emits a :class:`PerformanceWarning` naming the reason and the cure.

``numba.pycc`` is pending deprecation; the plan for its removal (and what the fallback
then does) is in ``benchmarks/results/tree.md``, "AOT and numba.pycc".
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import threading
import warnings
from pathlib import Path

import numpy as np

__all__ = ["KernelSet", "PerformanceWarning", "matches", "arr", "read"]


class PerformanceWarning(UserWarning):
    """A kernel runs on numba's JIT although compiled (AOT) code was expected.

    Results are the same; the first call in a fresh process compiles for 4-10 s. The
    message names why (extension not built, stale, wrong argument type, GIL-holding build
    in a thread) and the cure: rebuild (``pip install -e .`` or ``python setup.py
    build_ext --inplace``), or set ``CSDT_JIT=1`` to choose the JIT (no warning).
    """


#: x86-64-v3 (AVX2, 2013 on): vectorised loops run 4 float64 lanes wide instead of generic x86-64's 2 (30-45 %
#: less time per row in the rule and objective kernels); a CPU without these features runs the JIT kernels instead
#: (:meth:`KernelSet.module`). Without fastmath flags LLVM neither fuses nor reorders float operations, so a
#: kernel without them gives the generic build's results bit for bit.
X86_64_V3 = ("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "popcnt", "sse4.1", "sse4.2", "ssse3",
             "cx16", "xsave")


def vector_target() -> dict:
    """``target_cpu`` / ``cpu_features`` keywords of :class:`KernelSet` for x86-64-v3 on x86-64 hosts (elsewhere
    pycc's generic target)."""
    import platform

    if platform.machine().lower() in ("x86_64", "amd64"):
        return {"target_cpu": "x86-64-v3", "cpu_features": X86_64_V3}
    return {}


_CURE = ("rebuild it (pip install -e . or python setup.py build_ext --inplace), or set CSDT_JIT=1 "
         "to choose the JIT and silence this warning")


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
def describe(v) -> str:
    """A short type description of a kernel argument, for the fallback warning."""
    if isinstance(v, np.ndarray):
        flags = "C" if v.flags.c_contiguous else "F" if v.flags.f_contiguous else "strided"
        return f"{v.dtype}[{v.ndim}d, {flags}{'' if v.flags.writeable else ', read-only'}]"
    return type(v).__name__


def describe_spec(spec) -> str:
    """The type-grammar spec in :func:`describe`'s words."""
    if isinstance(spec, str):
        return {"i8": "int", "f8": "float", "b1": "bool", "none": "NoneType"}[spec]
    if spec[0] in ("A", "R", "RF"):
        order = "F" if spec[0] == "RF" else "C"
        return f"{spec[1]}[{spec[2]}d, {order}{'' if spec[0] == 'A' else ', read-only allowed'}]"
    return "tuple(" + ", ".join(describe_spec(s) for s in spec[1:]) + ")"


def _kernels_reached(func, seen):
    """Python functions of every numba kernel reachable from ``func`` through its globals."""
    from numba.core.registry import CPUDispatcher

    for name in func.__code__.co_names:
        obj = func.__globals__.get(name)
        if isinstance(obj, CPUDispatcher) and obj.py_func not in seen:
            seen.add(obj.py_func)
            _kernels_reached(obj.py_func, seen)
    return seen


class KernelSet:
    """The kernels of one package compiled into one extension.

    Parameters
    ----------
    extension : import name of the extension, e.g. ``"csdt._kernels_aot"``; its package
        holds the kernel modules.
    declared_in : ``__file__`` of the module declaring this set (hashed: it decides the
        exported types).
    signatures : exported name -> (module of the package, function, return type,
        argument types), types in the grammar above. This table is the one declaration:
        the build exports it and :meth:`run` checks arguments against it.
    """

    def __init__(self, extension, declared_in, signatures, target_cpu="", cpu_features=()):
        self.extension = extension
        self.package = extension.rsplit(".", 1)[0]
        self.declared_in = Path(declared_in).resolve()
        self.signatures = signatures
        #: LLVM CPU the build compiles for ("": pycc's generic x86-64) and the host CPU features it needs
        self.target_cpu, self.cpu_features = target_cpu, tuple(cpu_features)
        #: kernel calls per path since import: lets tests see which one ran
        self.calls = {"aot": 0, "jit": 0}
        self.state = {}

    def kernel_files(self) -> list[Path]:
        """Every file whose code is compiled into the extension or decides how: the files of
        the exported kernels and of every kernel they call (walked, not listed by hand), the
        declaring module and this AOT machinery."""
        seen = set()
        for mod, func, _, _ in self.signatures.values():
            root = getattr(importlib.import_module(f"{self.package}.{mod}"), func).py_func
            seen |= _kernels_reached(root, {root})
        files = {Path(inspect.getsourcefile(f)).resolve() for f in seen}
        here = Path(__file__).resolve()
        files |= {self.declared_in, here, here.with_name("_aot_build.py")}
        return sorted(files)

    def source_hash(self) -> int:
        """SHA-256 of the kernel files and the numba / llvmlite / numpy versions, as a signed
        64-bit int (a new compiler or numpy ABI makes an old build stale too)."""
        if "hash" not in self.state:
            import llvmlite
            import numba

            h = hashlib.sha256(f"numba {numba.__version__} llvmlite {llvmlite.__version__} "
                               f"numpy {np.__version__}".encode())
            # paths relative to the distribution root: the same hash wherever it is installed
            root = Path(importlib.util.find_spec(self.package.split(".")[0]).origin).resolve().parent.parent
            for path in self.kernel_files():
                h.update(path.relative_to(root).as_posix().encode() if path.is_relative_to(root)
                         else path.name.encode())
                h.update(path.read_bytes().replace(b"\r\n", b"\n"))
            self.state["hash"] = int.from_bytes(h.digest()[:8], "little", signed=True)
        return self.state["hash"]

    def _fallback(self, reason, detail, cure=_CURE):
        """Warn once per reason that the JIT runs instead of the extension."""
        warned = self.state.setdefault("warned", set())
        if reason not in warned:
            warned.add(reason)
            warnings.warn(f"{self.extension}: {detail}; numba JIT-compiles its kernels instead (same results, "
                          f"4-10 s on first use in a process). To fix: {cure}.", PerformanceWarning,
                          stacklevel=_user_stacklevel())

    def module(self):
        """The AOT extension if it is built and current, else None (checked once)."""
        if "module" not in self.state:
            missing = self.missing_cpu_features()
            if missing:  # checked before the import: the extension's code may not run on this CPU
                m, why = None, (f"the compiled extension targets {self.target_cpu} and this CPU lacks "
                                f"{', '.join(missing)}")
            else:
                try:
                    m = importlib.import_module(self.extension)
                except ImportError:
                    m, why = None, "the compiled extension is not built"
                else:
                    if m.source_hash() != self.source_hash():
                        m, why = None, ("the compiled extension is stale (built from other kernel sources or "
                                        "another numba/numpy)")
            self.state["module"] = m
            if m is None and not _jit_requested():
                self._fallback("module", why)
        return self.state["module"]

    def missing_cpu_features(self) -> list:
        """The features of :attr:`cpu_features` the host CPU lacks (LLVM's names), [] if none."""
        if not self.cpu_features:
            return []
        import llvmlite.binding as llvm

        host = llvm.get_host_cpu_features()
        return [f for f in self.cpu_features if not host.get(f, False)]

    def use_aot(self) -> bool:
        """Whether a kernel call made now may run AOT code (see module doc)."""
        if _jit_requested() or self.module() is None:
            return False
        if "nogil" not in self.state:
            self.state["nogil"] = bool(self.module().releases_gil())
        if self.state["nogil"] or threading.current_thread() is threading.main_thread():
            return True
        self._fallback("gil", "the compiled extension holds the GIL, so calls from threads use the JIT")
        return False

    def run(self, name, jit, *args):
        """Call the AOT kernel ``name`` when allowed and the arguments match its exported
        types exactly, else the JIT dispatcher ``jit`` (same source, same result)."""
        if self.use_aot():
            spec = self.signatures[name][3]
            if len(args) == len(spec) and all(matches(s, a) for s, a in zip(spec, args)):
                self.calls["aot"] += 1
                return getattr(self.module(), name)(*args)
            bad = next((i for i, (s, a) in enumerate(zip(spec, args)) if not matches(s, a)), None)
            got = (f"{len(args)} arguments for {len(spec)}" if bad is None
                   else f"argument {bad} is {describe(args[bad])}, the export takes {describe_spec(spec[bad])}")
            self._fallback(f"types:{name}", f"kernel {name}: {got}",
                           "convert the argument where the kernel is called (a library bug if you did not "
                           "call the kernel yourself: please report it), or set CSDT_JIT=1")
        self.calls["jit"] += 1
        return jit(*args)


def _user_stacklevel() -> int:
    """``warnings.warn`` stacklevel of the first frame outside this distribution's packages
    (the user's line), however deep the library's own call chain is."""
    ours = (str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent / "csdt"))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(ours):
        frame, level = frame.f_back, level + 1
    return level


def _jit_requested() -> bool:
    return os.environ.get("CSDT_JIT", "") == "1"
