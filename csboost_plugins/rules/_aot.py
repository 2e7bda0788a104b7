"""The rule kernels compiled ahead of time (``csboost_plugins.rules._kernels_aot``).

How a call picks the AOT or the JIT kernel, and why: :mod:`csboost_plugins._aot`. X
reaches the kernels in Fortran order (pandas input and rule selection: one column per
condition test) or, for numpy input to ``RuleSet.apply`` / ``coverage``, as given in C
order; those two kernels are exported in both layouts. The bit-packed engine's kernels
(``_engine_kernels``), the monitor's (``_period_kernels``) and the optimiser's (``_book_kernels``)
take C-ordered arrays only (the engine's columns reach it as addresses).
"""

from __future__ import annotations

from .._aot import KernelSet, arr, read, vector_target

XF, XC = read("float64", 2, order="F"), read("float64", 2)  # pandas / numpy X in RuleSet.apply
I1, F2, B1 = arr("int64", 1), arr("float64", 2), arr("bool", 1)
RI1, RF1, RI8_1, RB1, RF2 = (read("int64", 1), read("float64", 1), read("int8", 1), read("bool", 1),
                             read("float64", 2))
# CompiledConditions.args: feature, kind, lo, hi, lo_closed, hi_closed, missing, zero_missing, negate,
# cat_ptr, cats
_COND = (RI1, RI8_1, RF1, RF1, RB1, RB1, RB1, RB1, RB1, RI1, RF1)
RU2, RI2, U1, U2, I2 = read("uint64", 2), read("int64", 2), arr("uint64", 1), arr("uint64", 2), arr("int64", 2)
# eval_blocks: column addresses, atoms (kind, op, col, col2, a, b, IN list bounds and values), precomputed
# TRUE / FALSE masks, value program and literals, max value stack, rule program, max stack, out
_ENGINE = ("i8", "i8", "i8", RI1, RI1, RI1, RI1, RI1, RF1, RF1, RI1, RI1, RF1, RU2, RU2, RI2, RF1, "i8", RI2, "i8",
           U2)

#: exported name -> (module, function, return type, argument types)
SIGNATURES = {
    "first_match_block_f": ("_evaluate", "_first_match_block", "none", (XF, "i8", "i8", I1, RI1, RI1, *_COND)),
    "first_match_block_c": ("_evaluate", "_first_match_block", "none", (XC, "i8", "i8", I1, RI1, RI1, *_COND)),
    "coverage_block_f": ("_evaluate", "_coverage_block", "none",
                         (XF, "i8", "i8", arr("bool", 2), RI1, RI1, *_COND)),
    "coverage_block_c": ("_evaluate", "_coverage_block", "none",
                         (XC, "i8", "i8", arr("bool", 2), RI1, RI1, *_COND)),
    "rule_mask_rows": ("_evaluate", "_rule_mask_rows", B1, (XF, RI1, "i8", RI1, RI1, *_COND)),
    "trie_sums_range": ("_evaluate", "_trie_sums_range", "none",
                        (XF, RI1, RF2, F2, "i8", "i8", RI1, RI1, RI1, RI8_1, RI1, RI1, "i8", *_COND)),
    "eval_blocks": ("_engine_kernels", "eval_blocks", "none", _ENGINE),
    "first_match_words": ("_engine_kernels", "first_match_words", "none", (RU2, "i8", "i8", I1)),
    "multi_hit_words": ("_engine_kernels", "multi_hit_words", "none", (RU2, "i8", "i8", U1)),
    "hit_sums": ("_engine_kernels", "hit_sums", "none", (RU2, read("uint64", 1), RI1, RF1, RF2, "i8", "i8", F2)),
    "first_sums": ("_engine_kernels", "first_sums", "none", (RI1, RI1, RF1, RF2, F2)),
    "pair_counts": ("_engine_kernels", "pair_counts", "none", (RU2, "i8", "i8", I2)),
    # the monitor's: induced rules' coverage packed into masks, and per (period, mask) sums
    "pack_columns": ("_period_kernels", "pack_columns", "none", (read("bool", 2), "i8", "i8", "i8", U2)),
    "mask_cell_sums": ("_period_kernels", "mask_cell_sums", "none",
                       (RU2, RB1, RI1, RF1, RF1, RF1, "i8", "i8", arr("float64", 3))),
    # the rule book optimiser's re-tuning: W[mask].sum(axis=0) of each version of a rule
    "masked_column_sums": ("_book_kernels", "masked_column_sums", arr("float64", 1), (RB1, RF2)),
    # ... and of every value of one literal at once
    "swept_column_sums": ("_book_kernels", "swept_column_sums", F2, (RF1, RB1, RB1, RB1, RB1, RF1, "i8", RF2)),
}

KERNELS = KernelSet("csboost_plugins.rules._kernels_aot", __file__, SIGNATURES, **vector_target())
run = KERNELS.run
