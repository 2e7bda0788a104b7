"""The csdt kernels compiled ahead of time (``csdt._kernels_aot``): their signatures.

How a call picks the AOT or the JIT kernel, and why: :mod:`csboost_plugins._aot`. This
module declares what the extension exports (:data:`SIGNATURES`); the files it is built
from are found by walking those kernels' calls (``KERNELS.kernel_files()``). ``module``,
``use_aot``, ``run``, ``calls`` and ``source_hash`` are those of :data:`KERNELS`.
"""

from __future__ import annotations

from csboost_plugins._aot import KernelSet
from csboost_plugins._aot import arr as _arr
from csboost_plugins._aot import read as _read

# ----------------------------------------------------------------- exported signatures
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
    # see csdt.tree._builder._grow; X and the cost matrix may be the caller's read-only arrays
    return (RF2, RF2, RU8_1, RF2, I32_1, I32_1, perm, U64_1, srt, exact, hist, costcla, "i8", "b1",
            "i8", "i8", "i8", "f8", "i8", "i8", RI1, "i8")


_GROW_RET = ("T", I2, F2, "i8")
_MODES = {"exact": (_SRT, _EXACT, "none", "none"), "hist": ("none", "none", _HIST, "none"),
          "costcla": (_SRT, "none", "none", _COSTCLA)}

#: exported name -> (module, function, return type, argument types)
SIGNATURES = {}
for _mode, _data in _MODES.items():
    SIGNATURES[f"grow_{_mode}"] = ("tree._builder", "_grow", _GROW_RET, _grow_args("none", *_data))
    SIGNATURES[f"grow_{_mode}_perm"] = ("tree._builder", "_grow", _GROW_RET, _grow_args(I1, *_data))
SIGNATURES["bin_codes_into"] = ("_binning", "_bin_codes_into", "none", (RF2, RF2, RI1, U8_2))
SIGNATURES["apply_forest"] = ("_apply", "apply_forest", I2, (RF2, RI1, RI1, RI1, RI1, RF1, _read("bool", 1), "b1"))
SIGNATURES["prune_kernel"] = ("tree._pruning", "prune_kernel", "none", (I1, I1, F1, "i8", "f8", F1, I1, B1))

# FIGS / FIGU (csdt.figs._*): binned codes are uint8 (max_bins <= 255) or uint16
for _code, _CODES in (("u8", U8_2), ("u16", U16_2)):
    SIGNATURES[f"figs_assign_bins_{_code}"] = ("_binning", "_assign_bins", "none",
                                               (RF2, F2, I1, _CODES, F2, F2))
    SIGNATURES[f"figs_build_histogram_{_code}"] = ("figs._histogram", "build_histogram", "none",
                                                   (_CODES, I1, F1, RF1, B1, F3, F3, I32_3, "i8"))
    SIGNATURES[f"figs_update_residual_histograms_{_code}"] = (
        "figs._histogram", "update_residual_histograms", "none", (_CODES, I1, F1, RF1, F1, I1, I32_2, I2, F3))
    SIGNATURES[f"figs_update_usable_histograms_{_code}"] = (
        "figs._histogram", "update_usable_histograms", "none",
        (_CODES, I1, F1, RF1, "i8", I1, B2, I1, I1, I32_2, I2, F3, F3, I32_3))
SIGNATURES["figs_subtract_histogram"] = ("figs._histogram", "subtract_histogram", "none",
                                         (F3, F3, I32_3, "i8", "i8"))
SIGNATURES["figs_shift_histogram"] = ("figs._histogram", "shift_histogram", "none", (F3, F3, "i8", "f8"))
SIGNATURES["figs_best_splits"] = ("figs._histogram", "best_splits", "none",
                                  (F3, F3, I32_3, I1, I1, F2, F2, F1, I1, F1, B1, F1, F1, F1, F1))
# CAL5 / CAL5_OC (csdt.cal5._intervals) and the cost transinformation of csdt.cost_transinformation
SIGNATURES["cal5_meta_decision"] = ("cal5._intervals", "meta_decision", "i8", (F1, F1, "f8", "f8"))
SIGNATURES["cal5_weighted_attribute_intervals"] = ("cal5._intervals", "weighted_attribute_intervals",
                                                   ("T", F1, I1, F2, F2, "f8"), (F1, I1, F1, F1, "i8", "f8", "f8"))
SIGNATURES["cost_transinformation_table"] = ("_cost_information", "cost_transinformation_table", "f8", (F2,))


KERNELS = KernelSet("csdt._kernels_aot", __file__, SIGNATURES)
calls = KERNELS.calls
module, use_aot, run, source_hash = KERNELS.module, KERNELS.use_aot, KERNELS.run, KERNELS.source_hash
