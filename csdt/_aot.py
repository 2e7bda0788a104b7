"""Ahead-of-time compiled tree kernels: which kernel runs a call, the JIT or the AOT one.

Why: numba compiles the CSDT kernels on their first call in a fresh environment
(about 4 s on 2 cores, see ``benchmarks/bench_tree_compile.py``); a minimal exact-mode
tree alone costs about 2 s of numba typing, lowering and LLVM work. The install
(``setup.py``) therefore compiles the same Python kernels once with ``numba.pycc`` into
the C extension ``csdt._kernels_aot``; a fresh process then fits and predicts without
compiling anything. The numba JIT kernels (``cache=True``) stay the reference and
the fallback. A call runs the AOT kernel only when all of these hold:

* the extension exists and was built from exactly these kernel sources: the build
  bakes the SHA-256 of :data:`KERNEL_SOURCES` into it, so an edited checkout (or a
  failed build) silently uses the JIT kernels instead of stale code;
* the extension releases the GIL like the ``nogil`` JIT kernels (the build patches
  pycc's wrappers to, see ``_aot_spec._nogil_wrappers``), or the call comes from the
  main thread: wrappers that hold the GIL would serialise threads (ensembles fitting
  trees, the threaded binning of large X), which then get the JIT kernels;
* every argument has exactly the exported type (:data:`SIGNATURES`: pycc wrappers do
  not check types, and a wrong one would crash rather than raise);
* the environment variable ``CSDT_JIT`` is not ``"1"`` (forces the JIT, e.g. to compare).

Both paths compile the same source with the same LLVM settings (no fast-math), so
they give bit-identical trees; ``tests/test_tree_aot.py`` checks that.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

#: files whose numba code is compiled into the extension (hashed into it at build time)
KERNEL_SOURCES = ("_aot.py", "_aot_spec.py", "_builder.py", "_splitter.py", "_criterion.py",
                  "_cost_information.py", "_tree_apply.py", "_pruning.py", "_figs_binning.py",
                  "_figs_histogram.py", "_cal5_intervals.py")


# ----------------------------------------------------------------- exported signatures
# A small type grammar shared by the runtime check below and the build (``_aot_spec``):
# "i8" int, "f8" float, "b1" bool, "none" None, ("A", dtype, ndim) a C-contiguous
# writeable array, ("R", dtype, ndim) a C-contiguous array the kernel only reads (read-only
# ones too: joblib hands GridSearchCV workers read-only memmaps), ("T", *items) a tuple.
def _arr(dtype, ndim):
    return ("A", dtype, ndim)


def _read(dtype, ndim):
    return ("R", dtype, ndim)


F1, F2, F3, F4 = (_arr("float64", k) for k in (1, 2, 3, 4))
I1, I2 = _arr("int64", 1), _arr("int64", 2)
I32_1, I32_2 = _arr("int32", 1), _arr("int32", 2)
B1, B2, U8_1, U8_2, U64_1 = (_arr("bool", 1), _arr("bool", 2), _arr("uint8", 1), _arr("uint8", 2),
                             _arr("uint64", 1))
U16_2, I32_3 = _arr("uint16", 2), _arr("int32", 3)
RF1, RF2 = _read("float64", 1), _read("float64", 2)

_SRT = ("T", I32_2, I32_2, B1, I32_1)  # order, codes, flag, tmp_c
_EXACT = ("T", F1, F1, U8_1)  # g0, g1, gp
_HIST = ("T", U8_2, F2, I1, F3, F4, I1)  # bcodes, edges, nbins, hist, pool, free
_COSTCLA = ("T", F1, F1, F1, F1, F1, F1, B1)  # a0, a1, yv, suf0, suf1, sufp, selected


RU8_1, RI1 = _read("uint8", 1), _read("int64", 1)


def _grow_args(perm, srt, exact, hist, costcla):
    # see csdt._builder._grow; X and the cost matrix may be the caller's read-only arrays
    return (RF2, RF2, RU8_1, RF2, I32_1, I32_1, perm, U64_1, srt, exact, hist, costcla, "i8", "b1",
            "i8", "i8", "i8", "f8", "i8", "i8", RI1, "i8")


_GROW_RET = ("T", I2, F2, "i8")
_MODES = {"exact": (_SRT, _EXACT, "none", "none"), "hist": ("none", "none", _HIST, "none"),
          "costcla": (_SRT, "none", "none", _COSTCLA)}

#: exported name -> (module, function, return type, argument types)
SIGNATURES = {}
for _mode, _data in _MODES.items():
    SIGNATURES[f"grow_{_mode}"] = ("_builder", "_grow", _GROW_RET, _grow_args("none", *_data))
    SIGNATURES[f"grow_{_mode}_perm"] = ("_builder", "_grow", _GROW_RET, _grow_args(I1, *_data))
SIGNATURES["bin_codes_into"] = ("_builder", "_bin_codes_into", "none", (RF2, RF2, RI1, U8_2))
SIGNATURES["apply_rows"] = ("_tree_apply", "apply_rows", I1, (RF2, RI1, RI1, RI1, RF1, _read("bool", 1)))
SIGNATURES["prune_kernel"] = ("_pruning", "prune_kernel", "none", (I1, I1, F1, "i8", "f8", F1, I1, B1))

# FIGS / FIGU (csdt._figs_*): binned codes are uint8 (max_bins <= 255) or uint16
for _code, _CODES in (("u8", U8_2), ("u16", U16_2)):
    SIGNATURES[f"figs_assign_bins_{_code}"] = ("_figs_binning", "_assign_bins", "none",
                                               (RF2, F2, I1, _CODES, F2, F2))
    SIGNATURES[f"figs_build_histogram_{_code}"] = ("_figs_histogram", "build_histogram", "none",
                                                   (_CODES, I1, F1, RF1, B1, F3, F3, I32_3, "i8"))
    SIGNATURES[f"figs_update_residual_histograms_{_code}"] = (
        "_figs_histogram", "update_residual_histograms", "none", (_CODES, I1, F1, RF1, F1, I1, I32_2, I2, F3))
    SIGNATURES[f"figs_update_usable_histograms_{_code}"] = (
        "_figs_histogram", "update_usable_histograms", "none",
        (_CODES, I1, F1, RF1, "i8", I1, B2, I1, I1, I32_2, I2, F3, F3, I32_3))
SIGNATURES["figs_subtract_histogram"] = ("_figs_histogram", "subtract_histogram", "none",
                                         (F3, F3, I32_3, "i8", "i8"))
SIGNATURES["figs_shift_histogram"] = ("_figs_histogram", "shift_histogram", "none", (F3, F3, "i8", "f8"))
SIGNATURES["figs_best_splits"] = ("_figs_histogram", "best_splits", "none",
                                  (F3, F3, I32_3, I1, I1, F2, F2, F1, I1, F1, B1, F1, F1, F1, F1))
SIGNATURES["figs_predict_trees"] = ("_figs_histogram", "predict_trees", F1,
                                    (RF2, I1, I1, I1, I1, F1, B1, F1, "b1"))

# CAL5 / CAL5_OC (csdt._cal5_intervals) and the cost transinformation of csdt.cost_transinformation
SIGNATURES["cal5_meta_decision"] = ("_cal5_intervals", "meta_decision", "i8", (F1, F1, "f8", "f8"))
SIGNATURES["cal5_attribute_intervals"] = ("_cal5_intervals", "attribute_intervals", ("T", F1, I1, F2, F2, "f8"),
                                          (F1, I1, F1, "i8", "f8", "f8"))
SIGNATURES["cost_transinformation_table"] = ("_cost_information", "cost_transinformation_table", "f8", (F2,))


def _matches(spec, v) -> bool:
    if spec == "i8":
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
    if spec == "f8":
        return isinstance(v, (float, np.floating))
    if spec == "b1":
        return isinstance(v, (bool, np.bool_))
    if spec == "none":
        return v is None
    if spec[0] in ("A", "R"):
        return (isinstance(v, np.ndarray) and v.dtype == spec[1] and v.ndim == spec[2]
                and v.flags.c_contiguous and v.flags.aligned and (spec[0] == "R" or v.flags.writeable))
    return (isinstance(v, tuple) and len(v) == len(spec) - 1
            and all(_matches(s, x) for s, x in zip(spec[1:], v)))


# ----------------------------------------------------------------- loading
def source_hash() -> int:
    """SHA-256 of the kernel sources (:data:`KERNEL_SOURCES`), as a signed 64-bit int."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in KERNEL_SOURCES:
        h.update(name.encode())
        h.update((here / name).read_bytes().replace(b"\r\n", b"\n"))
    return int.from_bytes(h.digest()[:8], "little", signed=True)


_state = {}
#: kernel calls per path since import ({"aot": n, "jit": n}): lets tests see which one ran
calls = {"aot": 0, "jit": 0}


def module():
    """The AOT extension if it is built and current, else None (checked once)."""
    if "module" not in _state:
        try:
            from . import _kernels_aot as m
        except ImportError:
            m = None
        if m is not None and m.source_hash() != source_hash():
            m = None  # built from other sources: stale
        _state["module"] = m
    return _state["module"]


def use_aot() -> bool:
    """Whether a kernel call made now may run AOT code (see module doc)."""
    if os.environ.get("CSDT_JIT", "") == "1" or module() is None:
        return False
    if "nogil" not in _state:
        _state["nogil"] = bool(module().releases_gil())
    return _state["nogil"] or threading.current_thread() is threading.main_thread()


def run(name, jit, *args):
    """Call the AOT kernel ``name`` when allowed and the arguments match its exported
    types exactly, else the JIT dispatcher ``jit`` (same source, same result)."""
    if use_aot():
        spec = SIGNATURES[name][3]
        if len(args) == len(spec) and all(_matches(s, a) for s, a in zip(spec, args)):
            calls["aot"] += 1
            return getattr(module(), name)(*args)
    calls["jit"] += 1
    return jit(*args)
