"""Split search of the cost-sensitive decision tree (numba kernels).

Three searches share one contract: they scan the node's rows and return the best
``(gain, feature, threshold, missing_left, n_left)``; ties go to the lowest feature
index, then the lowest threshold (the first maximum, like ``np.argmax``).

* :func:`best_split_exact`: every distinct threshold. ``order[f, start:end]`` holds the
  node's rows sorted by feature ``f`` (NaN last; kept sorted by a stable partition
  after every split, so each feature is sorted once per tree), ``codes`` the dense
  rank of the value at each position. One pass of prefix sums of the per-row stats
  ``(s0, s1, y, 1)`` per feature gives the children's sums at every threshold:
  O(n) per feature per node. Thresholds are midpoints between consecutive distinct
  values, ``x <= threshold`` goes left.
* :func:`best_split_histogram`: the same scan over at most ``max_bins`` quantile bins
  per feature (LightGBM-style); O(n) to build the histogram, O(bins) to scan.
* :func:`best_split_costcla`: costcla 0.6's search, reproduced exactly: candidates are
  ``np.percentile(x_node, arange(0, 100, 100 / num_pct))`` (numpy <= 1.21 linear
  interpolation), a candidate equal to the previous one is skipped, the gain is
  rounded to 6 decimals, and the first maximum over (feature, percentile) wins.

Missing values (NaN): the exact and histogram searches try NaN rows on both sides of
every threshold and also the split "all non-missing left / missing right"
(threshold ``+inf``); the side that gains more is stored as ``missing_left``. A node
without NaN in the split feature sends future NaN to the larger child (as
scikit-learn >= 1.3 does).
"""

import numba as nb
import numpy as np

from ._criterion import _INTERNAL, DIRECT_COST, split_gain, weighted_cost_pair

NAN_CODE = np.int32(2147483647)
NAN_BIN = 255


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf, l0, l1, lp, nl):
    """split_gain of a candidate with left sums (l0, l1, lp, nl); -inf if a child has
    fewer than ``min_leaf`` rows. Shared by the exact and histogram scans (one compiled
    copy of the criterion code rather than one per call site).
    """
    if nl < min_leaf or m - nl < min_leaf:
        return -np.inf
    return split_gain(crit, weighted, parent_imp, s0, s1, sp, n, l0, l1, lp, float(nl))


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def best_split_exact(X, stats, yb, order, codes, start, end, feats, crit, weighted, min_leaf,
                     s0, s1, sp, parent_imp, g0, g1, gp):
    """Exact search over all distinct thresholds of the features ``feats``.

    ``stats`` (n, 2) holds the rows' (s0, s1), ``yb`` their uint8 labels.
    ``g0``/``g1``/``gp`` are scratch arrays (length >= node size): the rows' stats are
    first gathered in sorted order (independent loads, so the CPU overlaps the cache
    misses), then scanned sequentially. ``direct_cost`` never reads the positive counts,
    so its search gathers no labels.
    Returns (gain, feature, threshold, missing_left, n_left); feature -1 if none.
    """
    m = end - start
    n = float(m)
    direct = crit == DIRECT_COST and not weighted and parent_imp != 0.0
    need_p = crit != DIRECT_COST
    abs_imp = abs(parent_imp)
    best_gain = -np.inf
    best_f = -1
    best_k = -1  # position of the last non-missing left row; -2 = threshold +inf
    best_ml = False
    best_nl = 0
    for fi in range(feats.shape[0]):
        f = feats[fi]
        nv = m
        while nv > 0 and codes[f, start + nv - 1] == NAN_CODE:
            nv -= 1
        if nv == 0:
            continue
        ns0 = 0.0
        ns1 = 0.0
        nsp = 0.0
        for k in range(start + nv, end):
            r = order[f, k]
            ns0 += stats[r, 0]
            ns1 += stats[r, 1]
            nsp += yb[r]
        nn = m - nv
        for k in range(nv - 1):
            r = order[f, start + k]
            g0[k] = stats[r, 0]
            g1[k] = stats[r, 1]
        if need_p:
            for k in range(nv - 1):
                gp[k] = yb[order[f, start + k]]
        l0 = 0.0
        l1 = 0.0
        lp = 0.0
        for k in range(nv - 1):
            l0 += g0[k]
            l1 += g1[k]
            if need_p:
                lp += gp[k]
            if codes[f, start + k + 1] == codes[f, start + k]:
                continue
            nl = k + 1
            if not direct:
                g = _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf, l0, l1, lp,
                                nl)
            elif nl >= min_leaf and m - nl >= min_leaf:
                # the default criterion, inlined: (I - I_c(S_l) - I_c(S_r)) / |I|
                r0 = s0 - l0
                r1 = s1 - l1
                g = (parent_imp - ((min(l1, l0)) + (min(r1, r0)))) / abs_imp
            else:
                g = -np.inf
            if g > best_gain:
                best_gain = g
                best_f = f
                best_k = k
                best_nl = nl
                best_ml = nn == 0 and nl >= m - nl
            if nn > 0:  # the same cut with the NaN rows on the left
                g = _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf,
                                l0 + ns0, l1 + ns1, lp + nsp, nl + nn)
                if g > best_gain:
                    best_gain = g
                    best_f = f
                    best_k = k
                    best_nl = nl + nn
                    best_ml = True
        if nn > 0:  # every non-missing row left, NaN right (threshold +inf)
            g = _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf,
                            s0 - ns0, s1 - ns1, sp - nsp, nv)
            if g > best_gain:
                best_gain = g
                best_f = f
                best_k = -2
                best_nl = nv
                best_ml = False
    thr = np.nan
    if best_f >= 0:
        if best_k == -2:
            thr = np.inf
        else:
            # midpoint between the two consecutive distinct values, with a <= t < b
            a = X[order[best_f, start + best_k], best_f]
            b = X[order[best_f, start + best_k + 1], best_f]
            thr = a / 2.0 + b / 2.0
            if thr >= b or thr < a or not np.isfinite(thr):
                thr = a
    return best_gain, best_f, thr, best_ml, best_nl


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def build_histogram(hist, bcodes, stats, samples, start, end, feats):
    """hist[f, bin, :] = sums of (s0, s1, y, 1) of the node's rows per bin (NaN bin 255)."""
    for fi in range(feats.shape[0]):
        f = feats[fi]
        for b in range(hist.shape[1]):
            for s in range(4):
                hist[f, b, s] = 0.0
    for k in range(start, end):
        r = samples[k]
        for fi in range(feats.shape[0]):
            f = feats[fi]
            b = bcodes[r, f]
            for s in range(4):
                hist[f, b, s] += stats[r, s]


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def subtract_histogram(parent, child, feats):
    """parent -= child on the features ``feats`` (the larger sibling's histogram)."""
    for fi in range(feats.shape[0]):
        f = feats[fi]
        for b in range(parent.shape[1]):
            for s in range(4):
                parent[f, b, s] -= child[f, b, s]


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def best_split_histogram(hist, edges, nbins, feats, crit, weighted, min_leaf, s0, s1, sp, m,
                         parent_imp):
    """Search the bin edges of ``feats`` on a node histogram (see build_histogram)."""
    n = float(m)
    best_gain = -np.inf
    best_f = -1
    best_b = -1  # -2 = threshold +inf (missing right, everything else left)
    best_ml = False
    best_nl = 0
    for fi in range(feats.shape[0]):
        f = feats[fi]
        ns0 = hist[f, NAN_BIN, 0]
        ns1 = hist[f, NAN_BIN, 1]
        nsp = hist[f, NAN_BIN, 2]
        nn = int(hist[f, NAN_BIN, 3] + 0.5)
        nv = m - nn
        if nv == 0:
            continue
        l0 = 0.0
        l1 = 0.0
        lp = 0.0
        nl = 0
        for b in range(nbins[f] - 1):
            cnt = int(hist[f, b, 3] + 0.5)
            if cnt == 0:
                continue
            l0 += hist[f, b, 0]
            l1 += hist[f, b, 1]
            lp += hist[f, b, 2]
            nl += cnt
            if nl == nv:
                break
            g = _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf, l0, l1, lp, nl)
            if g > best_gain:
                best_gain = g
                best_f = f
                best_b = b
                best_nl = nl
                best_ml = nn == 0 and nl >= m - nl
            if nn > 0:  # the same cut with the NaN rows on the left
                g = _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf,
                                l0 + ns0, l1 + ns1, lp + nsp, nl + nn)
                if g > best_gain:
                    best_gain = g
                    best_f = f
                    best_b = b
                    best_nl = nl + nn
                    best_ml = True
        if nn > 0:  # every non-missing row left, NaN right (threshold +inf)
            g = _valid_gain(crit, weighted, parent_imp, s0, s1, sp, n, m, min_leaf,
                            s0 - ns0, s1 - ns1, sp - nsp, nv)
            if g > best_gain:
                best_gain = g
                best_f = f
                best_b = -2
                best_nl = nv
                best_ml = False
    thr = np.nan
    if best_f >= 0:
        thr = np.inf if best_b == -2 else edges[best_f, best_b]
    return best_gain, best_f, thr, best_ml, best_nl


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def round6(x):
    """numpy's ``np.round(x, 6)``: rint(x * 1e6) / 1e6 (costcla rounds every gain)."""
    return np.rint(x * 1e6) / 1e6


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def _pct_value(X, order, f, start, m, q):
    """np.percentile(x_node, q) with numpy <= 1.21's linear rule v_lo (1 - w) + v_hi w."""
    idx = (q / 100.0) * (m - 1)
    lo = int(np.floor(idx))
    hi = lo + 1
    hi = min(hi, m - 1)
    w = idx - lo
    return X[order[f, start + lo], f] * (1.0 - w) + X[order[f, start + hi], f] * w


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def best_split_costcla(X, a0, a1, yv, order, start, end, selected, crit, weighted, num_pct,
                       cost_base, suf0, suf1, sufp):
    """costcla 0.6's ``_best_split`` (see module doc). Returns (gain, feature, threshold, n_left).

    ``selected[f]`` marks the features drawn for this node; costcla leaves the gain of
    an unselected feature at 0 with split value 0.0, and so do we (it can win a tie at 0).
    ``suf*`` are scratch arrays (length >= n + 1) for the right-hand sums.
    """
    m = end - start
    n = float(m)
    d = X.shape[1]
    step = 100.0 / num_pct
    best_gain = -np.inf
    best_f = 0
    best_t = 0.0
    for f in range(d):
        if not selected[f]:
            if 0.0 > best_gain:
                best_gain = 0.0
                best_f = f
                best_t = 0.0
            continue
        # right-hand sums, accumulated from the end as costcla's separate np.sum would
        suf0[m] = 0.0
        suf1[m] = 0.0
        sufp[m] = 0.0
        for k in range(m - 1, -1, -1):
            r = order[f, start + k]
            suf0[k] = suf0[k + 1] + a0[r]
            suf1[k] = suf1[k + 1] + a1[r]
            sufp[k] = sufp[k + 1] + yv[r]
        p = 0
        l0 = 0.0
        l1 = 0.0
        lp = 0.0
        prev = 0.0
        for li in range(num_pct):
            t = _pct_value(X, order, f, start, m, li * step)
            g = 0.0
            if li == 0 or t != prev:
                while p < m and X[order[f, start + p], f] <= t:
                    r = order[f, start + p]
                    l0 += a0[r]
                    l1 += a1[r]
                    lp += yv[r]
                    p += 1
                if cost_base != 0.0 and p != 0 and p != m:
                    w0, w1 = weighted_cost_pair(crit, l0, l1, lp, float(p))
                    cl = min(w0, w1)
                    w0, w1 = weighted_cost_pair(crit, suf0[p], suf1[p], sufp[p], float(m - p))
                    cr = min(w0, w1)
                    if weighted:
                        wl = p * 1.0 / n
                        g = round6((cost_base - (wl * cl + (1.0 - wl) * cr)) / cost_base)
                    else:
                        g = round6((cost_base - (cl + cr)) / cost_base)
            prev = t
            if g > best_gain:
                best_gain = g
                best_f = f
                best_t = t
    # rows going left under the chosen rule
    nl = 0
    for k in range(start, end):
        if X[order[best_f, k], best_f] <= best_t:
            nl += 1
    return best_gain, best_f, best_t, nl


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def partition_sorted(X, order, codes, start, end, feature, threshold, missing_left, flag,
                     tmp_o, tmp_c):
    """Stable partition of every feature's sorted segment into left rows then right rows.

    Keeps ``order[f, start:start + n_left]`` sorted by feature f for the left child and
    the rest for the right child. Returns n_left.
    """
    for k in range(start, end):
        r = order[0, k]
        x = X[r, feature]
        flag[r] = missing_left if np.isnan(x) else x <= threshold
    nl = 0
    for f in range(order.shape[0]):
        w = start
        t = 0
        for k in range(start, end):
            r = order[f, k]
            if flag[r]:
                order[f, w] = r
                codes[f, w] = codes[f, k]
                w += 1
            else:
                tmp_o[t] = r
                tmp_c[t] = codes[f, k]
                t += 1
        for k in range(t):
            order[f, w + k] = tmp_o[k]
            codes[f, w + k] = tmp_c[k]
        nl = w - start
    return nl


@nb.njit(cache=True, nogil=True, **_INTERNAL)
def partition_samples(X, samples, start, end, feature, threshold, missing_left, tmp_o):
    """Stable partition of ``samples[start:end]`` by the split; returns n_left."""
    w = start
    t = 0
    for k in range(start, end):
        r = samples[k]
        x = X[r, feature]
        left = missing_left if np.isnan(x) else x <= threshold
        if left:
            samples[w] = r
            w += 1
        else:
            tmp_o[t] = r
            t += 1
    for k in range(t):
        samples[w + k] = tmp_o[k]
    return w - start
