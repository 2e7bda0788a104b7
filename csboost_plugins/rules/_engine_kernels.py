"""numba kernels of :mod:`._engine`: a rule book on bit-packed row masks.

Bit ``j`` of word ``w`` of a mask is row ``64 w + j``; bits past the last row are 0 in every mask.
An atom (one distinct leaf condition) gives two masks per block of rows, ``t`` (TRUE) and ``f``
(FALSE), SQL's three values (UNKNOWN is neither). A rule is a postfix program over the atoms:
``PUSH a``, ``AND n`` / ``OR n`` (the top n entries), ``NOT`` (swap t and f), ``STORE r``.

Callers validate every index (columns, atoms, value ranges, rules) before a kernel sees it. The exported
kernels are compiled ahead of time with the other rule kernels (their types: ``rules/_aot.py``) and called
through ``_aot.run``.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["eval_blocks", "first_match_words", "first_sums", "hit_sums", "multi_hit_words", "pair_counts",
           "BLOCK_WORDS"]

#: words per block of rows (256 x 64 = 16,384 rows: one float64 column block is 128 KiB, cache-sized)
BLOCK_WORDS = 256

# atom kinds: column op literal, column op column, BETWEEN, IS NULL, IN (op 1: the list holds NULL),
# precomputed masks (evaluated by the reference evaluator, packed), and a comparison of two arithmetic values
# (a postfix value program vprog[in_lo:in_hi]; col2 = 1 for DuckDB's IEEE arithmetic)
K_LIT, K_COLS, K_BETWEEN, K_ISNULL, K_IN, K_PRE, K_EXPR = 0, 1, 2, 3, 4, 5, 6
# value program codes: a column, a literal (vlit), + - * /, unary minus, ABS, COALESCE of the top two values
V_COL, V_LIT, V_ADD, V_SUB, V_MUL, V_DIV, V_NEG, V_ABS, V_COAL = 0, 1, 2, 3, 4, 5, 6, 7, 8
# comparison codes
LT, LE, GT, GE, EQ, NE = 0, 1, 2, 3, 4, 5
# program codes
P_PUSH, P_AND, P_OR, P_NOT, P_STORE = 0, 1, 2, 3, 4

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1, _S2, _S4, _S56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)
_MAGIC = np.uint64(0x0102040810204080)  # 8 bytes of 0/1, times this, >> 56: byte i becomes bit i


@intrinsic
def _as_pointer(typingctx, address):  # pragma: no cover - compiled
    """An int64 address as a void pointer (the start of a column's float64 data)."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))
    return types.voidptr(types.int64), codegen


@njit(cache=True, nogil=True, inline="always")
def _column(cols, c, n):  # pragma: no cover - compiled
    """Column c as an array of n float64: cols[c] is the address of its contiguous data, which the caller keeps
    alive (no list of arrays: numba's typed list compiles anew in every process)."""
    return numba.carray(_as_pointer(cols[c]), (n,), np.float64)


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):  # pragma: no cover - compiled
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return (x * _H01) >> _S56


@njit(cache=True, nogil=True, inline="always")
def _cmp(op, x, y):  # pragma: no cover - compiled
    if op == LT:
        return x < y
    if op == LE:
        return x <= y
    if op == GT:
        return x > y
    if op == GE:
        return x >= y
    if op == EQ:
        return x == y
    return x != y


@njit(cache=True, nogil=True, inline="always")
def _in_sorted(vals, lo, hi, x):  # pragma: no cover - compiled
    """Whether x is among the sorted vals[lo:hi] (binary search)."""
    end = hi
    while lo < hi:
        mid = (lo + hi) // 2
        if vals[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < end and vals[lo] == x


@njit(cache=True, nogil=True)
def _lit_bytes(o, x, r0, nr, c, tb, fb):  # pragma: no cover - compiled
    """tb[i] / fb[i] = x[r0 + i] op c TRUE / FALSE (NaN is NULL: neither), one simple loop per operator."""
    x = x[r0:r0 + nr]  # indices from 0: the loops vectorise (no wrap-around test per row)
    if o == LT:
        for i in range(nr):
            tb[i] = x[i] < c
            fb[i] = x[i] >= c
    elif o == LE:
        for i in range(nr):
            tb[i] = x[i] <= c
            fb[i] = x[i] > c
    elif o == GT:
        for i in range(nr):
            tb[i] = x[i] > c
            fb[i] = x[i] <= c
    elif o == GE:
        for i in range(nr):
            tb[i] = x[i] >= c
            fb[i] = x[i] < c
    elif o == EQ:
        for i in range(nr):
            tb[i] = x[i] == c
            fb[i] = (x[i] < c) | (x[i] > c)
    else:
        for i in range(nr):
            tb[i] = (x[i] < c) | (x[i] > c)
            fb[i] = x[i] == c


@njit(cache=True, nogil=True)
def _in_bytes(x, r0, nr, vals, lo, hi, can_be_false, tb, fb):  # pragma: no cover - compiled
    """tb[i] / fb[i] = x[r0 + i] IN vals[lo:hi] TRUE / FALSE; never FALSE when the list holds NULL (NOT IN a
    list holding NULL is never TRUE). A short list is scanned, a long one searched."""
    x = x[r0:r0 + nr]  # indices from 0: the loops vectorise (no wrap-around test per row)
    for i in range(nr):
        tb[i] = 0
    if hi - lo <= 16:
        for q in range(lo, hi):
            c = vals[q]
            for i in range(nr):
                tb[i] = tb[i] | (x[i] == c)
    else:
        for i in range(nr):
            tb[i] = _in_sorted(vals, lo, hi, x[i])
    for i in range(nr):
        fb[i] = (x[i] == x[i]) & (tb[i] == 0) & can_be_false


@njit(cache=True, nogil=True)
def _cols_bytes(o, x, y, r0, nr, tb, fb):  # pragma: no cover - compiled
    """tb[i] / fb[i] = x op y TRUE / FALSE on rows r0 + i (NaN on either side is NULL: neither)."""
    x, y = x[r0:r0 + nr], y[r0:r0 + nr]  # indices from 0: the loops vectorise
    if o == LT:
        for i in range(nr):
            tb[i] = x[i] < y[i]
            fb[i] = x[i] >= y[i]
    elif o == LE:
        for i in range(nr):
            tb[i] = x[i] <= y[i]
            fb[i] = x[i] > y[i]
    elif o == GT:
        for i in range(nr):
            tb[i] = x[i] > y[i]
            fb[i] = x[i] <= y[i]
    elif o == GE:
        for i in range(nr):
            tb[i] = x[i] >= y[i]
            fb[i] = x[i] < y[i]
    elif o == EQ:
        for i in range(nr):
            tb[i] = x[i] == y[i]
            fb[i] = (x[i] < y[i]) | (x[i] > y[i])
    else:
        for i in range(nr):
            tb[i] = (x[i] < y[i]) | (x[i] > y[i])
            fb[i] = x[i] == y[i]


@njit(cache=True, nogil=True)
def _has_nan_value(vs, ns, nr):  # pragma: no cover - compiled
    """Whether a compared value is NaN without being NULL on some row (only IEEE arithmetic makes one)."""
    bad = False
    for s in range(2):
        for i in range(nr):  # no early exit: the loop vectorises
            bad |= (vs[s, i] != vs[s, i]) & (not ns[s, i])
    return bad


@njit(cache=True, nogil=True, inline="always")
def _ieee_cmp(o, x, y):  # pragma: no cover - compiled
    """DuckDB's order of doubles: NaN equals NaN and lies above every number."""
    xn = x != x
    yn = y != y
    if not xn and not yn:
        return _cmp(o, x, y)
    lt = yn and not xn
    eq = xn and yn
    if o == LT:
        return lt
    if o == LE:
        return lt or eq
    if o == GT:
        return not (lt or eq)
    if o == GE:
        return not lt
    if o == EQ:
        return eq
    return not eq


@njit(cache=True, nogil=True, error_model="numpy")
def _values(vprog, vlit, lo, hi, ieee, cols, n, r0, nr, vs, ns):  # pragma: no cover - compiled
    """Run the value program vprog[lo:hi] on rows r0 .. r0 + nr - 1: values vs[s], NULL flags ns[s] per stack
    slot s (the two compared values end in slots 0 and 1). As the reference: NULL in, NULL out; x / 0 NULL and
    a NaN result NULL, except in IEEE arithmetic (x / 0 is +-inf, NaN a value)."""
    sp = 0
    for q in range(lo, hi):  # rows of vs / ns as 1-d views, indices from 0: the loops vectorise
        code = vprog[q, 0]
        if code == V_COL:
            x = _column(cols, vprog[q, 1], n)[r0:r0 + nr]
            u, m = vs[sp], ns[sp]
            for i in range(nr):
                u[i] = x[i]
                m[i] = x[i] != x[i]
            sp += 1
            continue
        if code == V_LIT:
            c = vlit[q]
            u, m = vs[sp], ns[sp]
            for i in range(nr):
                u[i] = c
                m[i] = 0
            sp += 1
            continue
        if code == V_NEG or code == V_ABS:
            u = vs[sp - 1]
            if code == V_NEG:
                for i in range(nr):
                    u[i] = -u[i]
            else:
                for i in range(nr):
                    u[i] = abs(u[i])
            continue
        a, b = sp - 2, sp - 1
        if code == V_COAL:  # the first value where it is not NULL, else the second (NULL if both are)
            u, m, d, e = vs[a], ns[a], vs[b], ns[b]
            for i in range(nr):
                if m[i]:
                    u[i] = d[i]
                    m[i] = e[i]
            sp -= 1
            continue
        _binary(code, vs[a], vs[b], ns[a], ns[b], nr)  # one simple loop per operator
        if not ieee:
            u, m, d = vs[a], ns[a], vs[b]
            div = code == V_DIV
            for i in range(nr):
                m[i] = m[i] | (u[i] != u[i]) | (div & (d[i] == 0))
        sp -= 1


@njit(cache=True, nogil=True, error_model="numpy")
def _binary(code, u, v, nu, nv, nr):  # pragma: no cover - compiled
    """u[i] = u[i] op v[i], nu[i] |= nv[i] (NULL in, NULL out)."""
    if code == V_ADD:
        for i in range(nr):
            u[i] = u[i] + v[i]
    elif code == V_SUB:
        for i in range(nr):
            u[i] = u[i] - v[i]
    elif code == V_MUL:
        for i in range(nr):
            u[i] = u[i] * v[i]
    else:
        for i in range(nr):
            u[i] = u[i] / v[i]
    for i in range(nr):
        nu[i] = nu[i] | nv[i]


@njit(cache=True, nogil=True, inline="always")
def _pack_bytes(b, nw, out, a):  # pragma: no cover - compiled
    """out[a, w] = the bits of the 0/1 bytes b[64 w .. 64 w + 63] (8 bytes at a time by one multiplication)."""
    q = b.view(np.uint64)
    for w in range(nw):
        word = _ZERO
        for k in range(8):
            word |= ((q[w * 8 + k] * _MAGIC) >> _S56) << np.uint64(8 * k)
        out[a, w] = word


@njit(cache=True, nogil=True)
def _atom_block(a, cols, kind, op, col, col2, va, vb, in_lo, in_hi, in_vals, pre_t, pre_f, vprog, vlit, st, sf,
                tb, fb, vs, ns, w0, nw, n):  # pragma: no cover - compiled
    """Masks of atom a on words w0 .. w0 + nw - 1 into st[a, :nw], sf[a, :nw] (tb, fb: byte scratch)."""
    k = kind[a]
    if k == K_PRE:
        p = col[a]
        for w in range(nw):
            st[a, w] = pre_t[p, w0 + w]
            sf[a, w] = pre_f[p, w0 + w]
        return
    r0 = w0 * 64
    nr = min(nw * 64, n - r0)
    o, c = op[a], va[a]
    if k == K_EXPR:  # reads its columns itself (it may read none)
        ieee = col2[a] == 1
        lo, hi = in_lo[a], in_hi[a]
        last = hi - 1
        if hi - lo >= 2 and vprog[last, 0] == V_LIT and vlit[last] == vlit[last]:
            # value op literal: compared as a column with a literal is, with no array of the literal (in IEEE
            # arithmetic unless a value is NaN without being NULL: DuckDB's order, below)
            _values(vprog, vlit, lo, last, ieee, cols, n, r0, nr, vs, ns)
            u, m = vs[0], ns[0]
            nan = False
            for i in range(nr):
                nan |= (u[i] != u[i]) & (not m[i])
                u[i] = np.nan if m[i] else u[i]
            if not (ieee and nan):
                _lit_bytes(o, u, 0, nr, vlit[last], tb, fb)
                _finish(tb, fb, nr, nw, st, sf, a)
                return
        _values(vprog, vlit, lo, hi, ieee, cols, n, r0, nr, vs, ns)
        if ieee and _has_nan_value(vs, ns, nr):  # a NaN value (0 / 0) compares in DuckDB's order
            for i in range(nr):
                known = not (ns[0, i] | ns[1, i])
                hit = _ieee_cmp(o, vs[0, i], vs[1, i])
                tb[i] = known and hit
                fb[i] = known and not hit
        else:  # NaN is NULL here: a plain comparison of the known rows
            for i in range(nr):
                vs[0, i] = np.nan if ns[0, i] | ns[1, i] else vs[0, i]
            _cols_bytes(o, vs[0], vs[1], 0, nr, tb, fb)
        _finish(tb, fb, nr, nw, st, sf, a)
        return
    x = _column(cols, col[a], n)
    if k == K_LIT:
        _lit_bytes(o, x, r0, nr, c, tb, fb)
    elif k == K_COLS:
        _cols_bytes(o, x, _column(cols, col2[a], n), r0, nr, tb, fb)
    elif k == K_BETWEEN:
        d = vb[a]
        xs = x[r0:r0 + nr]
        for i in range(nr):
            v = xs[i]
            tb[i] = (v >= c) & (v <= d)
            fb[i] = (v < c) | (v > d)
    elif k == K_ISNULL:
        xs = x[r0:r0 + nr]
        for i in range(nr):
            tb[i] = xs[i] != xs[i]
            fb[i] = xs[i] == xs[i]
    else:
        _in_bytes(x, r0, nr, in_vals, in_lo[a], in_hi[a], o == 0, tb, fb)
    _finish(tb, fb, nr, nw, st, sf, a)


@njit(cache=True, nogil=True, inline="always")
def _finish(tb, fb, nr, nw, st, sf, a):  # pragma: no cover - compiled
    """Pack the atom's TRUE / FALSE bytes into st[a], sf[a]; bits past the last row stay 0."""
    for i in range(nr, nw * 64):
        tb[i] = 0
        fb[i] = 0
    _pack_bytes(tb, nw, st, a)
    _pack_bytes(fb, nw, sf, a)


@njit(cache=True, nogil=True)
def eval_blocks(b0, b1, n, cols, kind, op, col, col2, va, vb, in_lo, in_hi, in_vals, pre_t, pre_f, vprog, vlit,
                max_values, prog, max_stack, out):  # pragma: no cover - compiled
    """Rule masks (out[r], TRUE rows of rule r) on the word blocks b0 .. b1 - 1.

    Every atom is computed once per block, column by column (the caller orders atoms by column), then
    each rule's program combines the atoms' words. Threads given disjoint block ranges write disjoint
    words of one out.
    """
    n_atoms = kind.shape[0]
    n_words = out.shape[1]
    st = np.zeros((max(n_atoms, 1), BLOCK_WORDS), np.uint64)
    sf = np.zeros((max(n_atoms, 1), BLOCK_WORDS), np.uint64)
    kt = np.zeros((max(max_stack, 1), BLOCK_WORDS), np.uint64)
    kf = np.zeros((max(max_stack, 1), BLOCK_WORDS), np.uint64)
    tb = np.zeros(BLOCK_WORDS * 64, np.uint8)
    fb = np.zeros(BLOCK_WORDS * 64, np.uint8)
    vs = np.zeros((max(max_values, 2), BLOCK_WORDS * 64))
    ns = np.zeros((max(max_values, 2), BLOCK_WORDS * 64), np.bool_)
    for blk in range(b0, b1):
        w0 = blk * BLOCK_WORDS
        nw = min(BLOCK_WORDS, n_words - w0)
        for a in range(n_atoms):
            _atom_block(a, cols, kind, op, col, col2, va, vb, in_lo, in_hi, in_vals, pre_t, pre_f, vprog, vlit, st,
                        sf, tb, fb, vs, ns, w0, nw, n)
        sp = 0
        for pc in range(prog.shape[0]):
            code = prog[pc, 0]
            arg = prog[pc, 1]
            if code == P_PUSH:
                for w in range(nw):
                    kt[sp, w] = st[arg, w]
                    kf[sp, w] = sf[arg, w]
                sp += 1
            elif code == P_AND or code == P_OR:
                top = sp - arg
                for w in range(nw):
                    t = kt[top, w]
                    f = kf[top, w]
                    for q in range(top + 1, sp):
                        if code == P_AND:  # true if all true, false if any false
                            t &= kt[q, w]
                            f |= kf[q, w]
                        else:
                            t |= kt[q, w]
                            f &= kf[q, w]
                    kt[top, w] = t
                    kf[top, w] = f
                sp = top + 1
            elif code == P_NOT:
                for w in range(nw):
                    t = kt[sp - 1, w]
                    kt[sp - 1, w] = kf[sp - 1, w]
                    kf[sp - 1, w] = t
            else:
                sp -= 1
                for w in range(nw):
                    out[arg, w0 + w] = kt[sp, w]


@njit(cache=True, nogil=True)
def first_match_words(bits, w0, w1, first):  # pragma: no cover - compiled
    """first[i] = the lowest r with bit i set in bits[r] (left as it is where none), words w0 .. w1 - 1."""
    k = bits.shape[0]
    for w in range(w0, w1):
        rem = ~_ZERO
        for r in range(k):
            b = bits[r, w] & rem
            if b == _ZERO:
                continue
            rem &= ~b
            while b != _ZERO:
                low = b & (~b + _ONE)
                first[w * 64 + np.int64(_popcount(low - _ONE))] = r
                b ^= low
            if rem == _ZERO:
                break


@njit(cache=True, nogil=True)
def multi_hit_words(bits, w0, w1, multi):  # pragma: no cover - compiled
    """multi[w] = the rows of word w set in at least two of the masks bits[r]."""
    for w in range(w0, w1):
        once = _ZERO
        twice = _ZERO
        for r in range(bits.shape[0]):
            b = bits[r, w]
            twice |= once & b
            once |= b
        multi[w] = twice


@njit(cache=True, nogil=True, inline="always")
def _add_parts(out, r, i, y, w, costs):  # pragma: no cover - compiled
    """out[r] += row i's parts: its weight as a positive (tp) and as a negative (fp) and, with costs (n, 4)
    [C_FP, C_FN, C_TP, C_TN], the money a flagged positive catches (C_FN - C_TP) and a flagged negative's
    alert cost (C_FP - C_TN), each weighted; the same float operations as the matrix path's parts."""
    pos = w[i] * np.float64(y[i] == 1)
    neg = w[i] * np.float64(y[i] == 0)
    out[r, 0] += pos
    out[r, 1] += neg
    if costs.shape[0]:
        out[r, 2] += pos * (costs[i, 1] - costs[i, 2])
        out[r, 3] += neg * (costs[i, 0] - costs[i, 3])


@njit(cache=True, nogil=True)
def hit_sums(bits, exclude, y, w, costs, r0, r1, out):  # pragma: no cover - compiled
    """out[r] += the parts (:func:`_add_parts`) of the rows set in bits[r] and not in exclude, in row order,
    for rules r0 .. r1 - 1."""
    for r in range(r0, r1):
        for wd in range(bits.shape[1]):
            b = bits[r, wd] & ~exclude[wd]
            while b != _ZERO:
                low = b & (~b + _ONE)
                _add_parts(out, r, wd * 64 + np.int64(_popcount(low - _ONE)), y, w, costs)
                b ^= low


@njit(cache=True, nogil=True)
def first_sums(first, y, w, costs, out):  # pragma: no cover - compiled
    """out[first[i]] += row i's parts (:func:`_add_parts`) in row order, for the rows with first[i] >= 0."""
    for i in range(first.shape[0]):
        if first[i] >= 0:
            _add_parts(out, first[i], i, y, w, costs)


@njit(cache=True, nogil=True)
def pair_counts(bits, start, step, out):  # pragma: no cover - compiled
    """out[i, j] = out[j, i] = rows set in both bits[i] and bits[j], for i = start, start + step, ... and j >= i
    (threads given different starts write different entries)."""
    k, nw = bits.shape
    for i in range(start, k, step):
        for j in range(i, k):
            s = 0
            for w in range(nw):
                s += np.int64(_popcount(bits[i, w] & bits[j, w]))
            out[i, j] = s
            out[j, i] = s
