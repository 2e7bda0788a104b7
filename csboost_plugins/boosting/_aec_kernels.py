"""numba kernels of the AEC objective and the money metrics, called every boosting round.

One pass over the rows computes what the numpy code of :mod:`csboost_plugins.boosting._aec`
computed with two ``expit`` calls and about eight full-length temporaries: the
gradient and hessian (every ``hessian=`` policy, the logloss blend, the sample weight)
written straight into preallocated float32 arrays (what xgboost and lightgbm keep),
and the sums behind every money metric. Each kernel takes a row range; threads run
disjoint ranges (the kernels release the GIL). Compiled ahead of time into
``csboost_plugins.boosting._aec_kernels_aot`` (see :mod:`csboost_plugins._aot`), with the
``cache=True`` JIT as the fallback and reference.

The float64 kernel is the numpy version's arithmetic, operation for operation (s =
1/(1+exp(-m)) and 1-s = 1/(1+exp(m)) like scipy's expit, the same products in the same
order, no fast-math), so float64 results equal it bit for bit (``tests/test_aec_kernels.py``).
The float32 kernel (the boosting path) works in blocks of rows that stay in the L1 cache,
in three loops LLVM vectorises: one exp per row from a polynomial (within one float64 ulp
of libm's, no libm call to block vectorisation), 2^k from its bits, then s = 1/(1+e),
1-s = e s, the same products, and the float32 stores; its float32 outputs are within 1
float32 ulp of the numpy version's float64 values rounded to float32, which is what the
libraries made of the numpy arrays.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit

from .._aot import KernelSet, arr, read, vector_target

__all__ = ["KERNELS", "POLICIES", "grad_hess", "money_sums"]

#: hessian policy name -> code passed to the kernel
POLICIES = {"fisher": 0, "abs": 1, "bound": 2, "exact": 3}

#: the sums of :func:`money_sums`, in this order
SUMS = ("w", "c0", "c1", "ec", "bmr", "half")


_BOUND = 1.0 / (6.0 * math.sqrt(3.0))  # max of |s (1-s) (1-2s)|: the "bound" policy's hessian factor


@njit(cache=True, nogil=True, inline="always")
def _row_grad_hess(di, s, ss, yi, wi, policy, floor, alpha, weighted):
    """(g, h) of one row from its scaled regret di, s and ss = s (1-s): the policy's hessian, the
    logloss blend (alpha, label yi) and the weight wi, in the numpy version's order of operations."""
    gi = di * ss
    if policy == 0:
        hi_ = abs(di) * ss
    elif policy == 1:
        hi_ = abs(di) * ss * max(abs(1.0 - 2.0 * s), floor)
    elif policy == 2:
        hi_ = abs(di) * _BOUND
    else:
        hi_ = gi * (1.0 - 2.0 * s)
    if alpha != 0.0:
        gi = gi + alpha * (s - yi)
        hi_ = hi_ + alpha * ss
    if weighted:
        gi = gi * wi
        hi_ = hi_ * wi
    return gi, hi_


@njit(cache=True, nogil=True)
def _grad_hess_range(m, d, y, w, policy, floor, alpha, g, h, lo, hi):
    """g[i], h[i] (float64) for rows lo..hi-1 (see :func:`csboost_plugins.boosting._aec.aec_grad_hess`).

    ``y`` is read only when alpha > 0 and ``w`` only when it is not empty. s = 1/(1+exp(-m))
    and 1-s = 1/(1+exp(m)) like scipy's expit: bit for bit the numpy version.
    """
    weighted = w.shape[0] > 0
    for i in range(lo, hi):
        mi = np.float64(m[i])
        s = 1.0 / (1.0 + math.exp(-mi))
        t = 1.0 / (1.0 + math.exp(mi))
        ss = s * t  # s (1-s) without the cancellation of 1 - s
        g[i], h[i] = _row_grad_hess(d[i], s, ss, y[i] if alpha != 0.0 else 0.0, w[i] if weighted else 1.0,
                                    policy, floor, alpha, weighted)


# exp(x) without libm, so that LLVM vectorises the loop (a libm call per row cannot be): x = k ln2 + r,
# |r| <= ln2/2 (Cody-Waite: k LN2_HI is exact), exp(r) by its Taylor polynomial of degree 13 (truncation
# below 1e-17; Horner steps as fused multiply-adds), 2^k built in the exponent bits. At most one float64 ulp
# from libm's exp (on ~7 % of rows); s = 1/(1+e) equals expit's to the bit for |m| < 1e-5 and is within
# 3 ulp elsewhere, so 1 - 2s, which cancels near m = 0, keeps the float32 hessians within 1 ulp.
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's ln2 split: 32 leading bits, k * _LN2_HI exact for |k| < 2^20
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_SHIFT = 6755399441055744.0  # 1.5 * 2^52: y + _SHIFT rounds y to the integer k held in its low bits
_SHIFT_BITS = 0x4338000000000000  # the bits of _SHIFT
_X_MAX = 709.0  # exp(x) for 709 < x <= _X_OVERFLOW is taken as exp(709): s < 1e-307 either way
_X_OVERFLOW = 709.782712893384  # libm's exp overflows to inf above this
_X_MIN = -708.0  # 2^k stays normal
_TAYLOR = (1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
           1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0)
_BLOCK = 1024  # rows per block: the two float64 scratch arrays (16 KiB) stay in L1


@njit(cache=True, nogil=True, fastmath={"contract"})
def _exp_parts(m, a, nb, p_, sc):
    """p_[j] = exp(r) and sc[j] = the float holding k in its low bits, for x = -m[a+j] = k ln2 + r.

    Range reduction and Taylor polynomial in one vectorised loop; the only fast-math flag is
    "contract" (a * b + c as one fused multiply-add: one rounding instead of two, so each step is
    at least as exact), confined to this function. ``_two_to_the`` turns sc into 2^k.
    """
    c = _TAYLOR
    for j in range(nb):
        x = -np.float64(m[a + j])
        x = _X_MAX if x > _X_MAX else x  # NaN passes both tests unchanged
        x = _X_MIN if x < _X_MIN else x
        u = x * _INV_LN2 + _SHIFT
        k = u - _SHIFT
        r = (x - k * _LN2_HI) - k * _LN2_LO
        p = c[0]
        for q in range(1, len(c)):  # Horner; a constant trip count LLVM unrolls
            p = p * r + c[q]
        p_[j] = p
        sc[j] = u


@njit(cache=True, nogil=True)
def _two_to_the(sc, nb):
    """sc[j] (holding k in its low bits, from :func:`_exp_parts`) becomes 2^k: bits (k + 1023) << 52."""
    sci = sc.view(np.int64)
    for j in range(nb):
        sci[j] = (sci[j] - (_SHIFT_BITS - 1023)) << 52


@njit(cache=True, nogil=True, inline="always")
def _sigmoid_pair(mj, pj, scj):
    """(s, 1-s) of margin mj from e = exp(-mj) = pj scj: s = 1/(1+e), 1-s = e s; s = 0, 1-s = 1 where
    libm's exp(-mj) overflows to inf, as in expit."""
    e = pj * scj
    s = np.divide(1.0, 1.0 + e)  # not "/": its ZeroDivisionError check is a loop exit that blocks vectorising
    inf = -np.float64(mj) > _X_OVERFLOW
    return (0.0 if inf else s), (1.0 if inf else e * s)


@njit(cache=True, nogil=True)
def _sigmoid_block(m, a, nb, p_, sc, s_, t_):
    """s_[j] = 1/(1+e), t_[j] = e s_[j] = 1-s, e = exp(-m[a+j]) for j < nb (the money sums' sigmoid)."""
    _exp_parts(m, a, nb, p_, sc)
    _two_to_the(sc, nb)
    for j in range(nb):
        s_[j], t_[j] = _sigmoid_pair(m[a + j], p_[j], sc[j])


@njit(cache=True, nogil=True)
def _grad_hess32_range(m, d, y, w, policy, floor, alpha, g, h, lo, hi):
    """g[i], h[i] (float32) for rows lo..hi-1, the boosting path: block by block, vectorised.

    Same formulas and order of operations as :func:`_grad_hess_range`, in float64, rounded
    to float32 once at the end. e = exp(-m) once per row (:func:`_exp_parts`, within one
    float64 ulp of libm's), s = 1/(1+e), 1-s = e s: within 1 float32 ulp of the numpy
    version. Near m = 0, where 1 - 2s cancels (the "exact" hessian, "abs" with a small
    floor), k = 0, r = -m exactly and s is expit's to the bit for |m| < 1e-5
    (``test_float32_path_near_the_decision_boundary``). Per block: one loop for the
    polynomial, one for 2^k, one for everything else, writing float32 straight into g, h
    (the policy, alpha and weight tests are loop-invariant: LLVM hoists them out).
    """
    weighted = w.shape[0] > 0
    blend = alpha != 0.0
    p_, sc = np.empty(_BLOCK), np.empty(_BLOCK)
    for a in range(lo, hi, _BLOCK):
        nb = min(_BLOCK, hi - a)
        _exp_parts(m, a, nb, p_, sc)
        _two_to_the(sc, nb)
        mm, dd, gg, hh = m[a:a + nb], d[a:a + nb], g[a:a + nb], h[a:a + nb]
        yy = y[a:a + nb] if blend else y
        ww = w[a:a + nb] if weighted else w
        for j in range(nb):
            s, t = _sigmoid_pair(mm[j], p_[j], sc[j])
            ss = s * t  # s (1-s) without the cancellation of 1 - s
            gg[j], hh[j] = _row_grad_hess(dd[j], s, ss, yy[j] if blend else 0.0, ww[j] if weighted else 1.0,
                                          policy, floor, alpha, weighted)


@njit(cache=True, nogil=True)
def _money_sums_range(p, is_margin, y, costs, w, out, lo, hi):
    """out[:] = the sums of :data:`SUMS` over rows lo..hi-1 of scores ``p`` (margins or probabilities).

    With c0, c1 each row's cost of predicting 0 / 1 and s its probability: sum w,
    sum w c0, sum w c1, sum w (c0 + (c1 - c0) s) (expected cost), and the cost of the
    decisions: Bayes minimum risk (predict 1 iff s C_TP + (1-s) C_FP < s C_FN + (1-s) C_TN)
    and s > 1/2. Cost columns [C_FP, C_FN, C_TP, C_TN]; ``w`` empty means weight 1.
    Margins go through :func:`_sigmoid_block` a block at a time; the sums run in row order.
    """
    weighted = w.shape[0] > 0
    sw = sc0 = sc1 = sec = sbmr = shalf = 0.0
    p_, sc, s_, t_ = np.empty(_BLOCK), np.empty(_BLOCK), np.empty(_BLOCK), np.empty(_BLOCK)
    for a in range(lo, hi, _BLOCK):
        nb = min(_BLOCK, hi - a)
        if is_margin:
            _sigmoid_block(p, a, nb, p_, sc, s_, t_)
        else:
            for j in range(nb):
                s_[j] = p[a + j]
        for j in range(nb):
            i = a + j
            s = s_[j]
            fp, fn, tp, tn = costs[i, 0], costs[i, 1], costs[i, 2], costs[i, 3]
            if y[i] == 1:
                c0, c1 = fn, tp
            else:
                c0, c1 = tn, fp
            wi = w[i] if weighted else 1.0
            sw += wi
            sc0 += wi * c0
            sc1 += wi * c1
            sec += wi * (c0 + (c1 - c0) * s)
            sbmr += wi * (c1 if s * tp + (1 - s) * fp < s * fn + (1 - s) * tn else c0)
            shalf += wi * (c1 if s > 0.5 else c0)
    out[0], out[1], out[2], out[3], out[4], out[5] = sw, sc0, sc1, sec, sbmr, shalf


# ----------------------------------------------------------------- ahead-of-time build
RF8, RF4, F8, F4 = read("float64", 1), read("float32", 1), arr("float64", 1), arr("float32", 1)
_NAMES = {"float32": "4", "float64": "8"}

#: exported name -> (module, function, return type, argument types): margins as the library
#: hands them (xgboost float32, lightgbm float64), outputs float32 (both libraries) or float64
SIGNATURES = {
    f"grad_hess_m{_NAMES[mt[1]]}_o{_NAMES[ot[1]]}": (
        "_aec_kernels", "_grad_hess32_range" if ot is F4 else "_grad_hess_range", "none",
        (mt, RF8, RF8, RF8, "i8", "f8", "f8", ot, ot, "i8", "i8"))
    for mt in (RF4, RF8) for ot in (F4, F8)
}
SIGNATURES.update({
    f"money_sums_p{_NAMES[pt[1]]}": ("_aec_kernels", "_money_sums_range", "none",
                                     (pt, "b1", RF8, read("float64", 2), RF8, F8, "i8", "i8"))
    for pt in (RF4, RF8)
})

KERNELS = KernelSet("csboost_plugins.boosting._aec_kernels_aot", __file__, SIGNATURES, **vector_target())


# ----------------------------------------------------------------- threads over row blocks
_THREAD_MIN_ROWS = 50000  # below this a second thread costs more than it saves
_POOL: dict = {}
_POOL_LOCK = threading.Lock()


def _n_threads() -> int:
    return max(1, min(numba.get_num_threads(), os.cpu_count() or 1))


def _pool(k):
    """One persistent pool per process (a fresh one per round would cost ~0.1 ms of thread start)."""
    with _POOL_LOCK:
        ex = _POOL.get(os.getpid())
        if ex is None or ex._max_workers < k:
            ex = _POOL[os.getpid()] = ThreadPoolExecutor(k, thread_name_prefix="csboost-aec")
        return ex


def _blocks(n):
    k = _n_threads() if n >= _THREAD_MIN_ROWS else 1
    cuts = np.linspace(0, n, k + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:])]


def _in_blocks(fn, n):
    """fn(lo, hi) over row blocks, in threads for large n; returns the results in block order."""
    blocks = _blocks(n)
    if len(blocks) == 1:
        return [fn(*blocks[0])]
    # the calling thread takes the last block itself: one thread hand-off fewer per round
    futures = [_pool(len(blocks) - 1).submit(fn, *ab) for ab in blocks[:-1]]
    last = fn(*blocks[-1])
    return [f.result() for f in futures] + [last]


_EMPTY = np.empty(0, np.float64)


def _f8(a):
    return _EMPTY if a is None else np.ascontiguousarray(a, dtype=np.float64).reshape(-1)


def _scores(a):
    """Margins / probabilities as the kernels read them: float32 or float64, 1-D, no copy if possible."""
    a = np.asarray(a)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    return np.ascontiguousarray(a).reshape(-1)


def grad_hess(margin, d, y, w, policy, floor, alpha, g, h):
    """Fill g, h with the AEC gradient and hessian (threads over row blocks).

    Parameters
    ----------
    margin : array of shape (n,), float32 or float64
        Margins, read as given.
    d : array of shape (n,)
        Scaled regret differences.
    y : array of shape (n,) or None
        0/1 labels (read when ``alpha`` > 0).
    w : array of shape (n,) or None
        Row weights.
    policy : int
        Hessian policy code, a value of :data:`POLICIES`.
    floor : float
        Floor of the "abs" policy.
    alpha : float
        Logloss blend weight.
    g, h : arrays of shape (n,), float32 or float64
        Outputs, written in place.

    Returns
    -------
    g, h : arrays of shape (n,)
        The outputs.
    """
    m = _scores(margin)
    d, y, w = _f8(d), _f8(y), _f8(w)
    name = f"grad_hess_m{_NAMES[m.dtype.name]}_o{_NAMES[g.dtype.name]}"
    kernel = _grad_hess32_range if g.dtype == np.float32 else _grad_hess_range
    _in_blocks(lambda lo, hi: KERNELS.run(name, kernel, m, d, y, w, int(policy), float(floor),
                                          float(alpha), g, h, lo, hi), m.shape[0])
    return g, h


def money_sums(p, is_margin, y, costs, w) -> dict:
    """The totals behind every money metric, in one pass over the rows.

    Parameters
    ----------
    p : array of shape (n,), float32 or float64
        Probabilities, or margins when ``is_margin``.
    is_margin : bool
        Apply the sigmoid to ``p``.
    y : array of shape (n,)
        0/1 labels.
    costs : array of shape (n, 4)
        [C_FP, C_FN, C_TP, C_TN] per row (money).
    w : array of shape (n,) or None
        Row weights.

    Returns
    -------
    dict
        Keys :data:`SUMS`: total weight, weighted money of all-0 and all-1 decisions,
        of the expected cost, and of the BMR and s > 1/2 decisions (see
        :func:`_money_sums_range`).
    """
    p = _scores(p)
    y, w = _f8(y), _f8(w)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    name = f"money_sums_p{_NAMES[p.dtype.name]}"

    def part(lo, hi):
        out = np.zeros(len(SUMS))
        KERNELS.run(name, _money_sums_range, p, bool(is_margin), y, costs, w, out, lo, hi)
        return out

    return dict(zip(SUMS, np.sum(_in_blocks(part, p.shape[0]), axis=0).tolist()))
