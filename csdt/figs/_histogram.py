"""numba kernels of the FIGS/FIGU split search: per-leaf histograms and their updates.

Every candidate leaf (a leaf of a grown tree, or the "new tree" candidate whose
single leaf holds all rows) owns a slot ``s`` of three histograms over
(feature, bin):

* ``G[s, f, b]`` = sum of ``w * target`` over the leaf's evaluated rows in bin b,
* ``H[s, f, b]`` = sum of ``w`` over the same rows,
* ``N[s, f, b]`` = their count (decides exactly whether a bin is empty).

Rows of zero weight are left out (as scikit-learn's splitter does), so they
neither create candidate thresholds nor count as a non-empty side.

The best split of a leaf is then one prefix-sum scan per feature (eq. of the
weighted squared-error decrease, FIGS' impurity reduction)::

    gain = S_L^2 / W_L + S_R^2 / W_R - S^2 / W

which equals ``sum w (t - mean)^2`` of the parent minus that of both children
(units: weight x target^2). Nothing is refitted per candidate: after a split
only the rows whose target or evaluation status changed are added to or
removed from the histograms they fall in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "build_histogram",
    "best_splits",
    "shift_histogram",
    "subtract_histogram",
    "update_residual_histograms",
    "update_usable_histograms",
]


@njit(cache=True, nogil=True)
def build_histogram(X_binned, rows, target, weight, usable, G, H, N, s):
    """Fill slot s from the rows ``rows`` whose ``usable`` flag is set."""
    d = X_binned.shape[1]
    G[s] = 0.0
    H[s] = 0.0
    N[s] = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        w = weight[r]
        if not usable[r] or w == 0.0:  # zero-weight rows are absent, as in scikit-learn
            continue
        g = w * target[r]
        for f in range(d):
            b = X_binned[r, f]
            G[s, f, b] += g
            H[s, f, b] += w
            N[s, f, b] += 1


@njit(cache=True, nogil=True)
def subtract_histogram(G, H, N, parent, child):
    """Slot ``parent`` becomes parent minus child (the sibling's histogram)."""
    G[parent] -= G[child]
    H[parent] -= H[child]
    N[parent] -= N[child]


@njit(cache=True, nogil=True)
def shift_histogram(G, H, s, delta):
    """Target of every row of slot s decreased by ``delta``: G -= delta * H."""
    G[s] -= delta * H[s]


@njit(cache=True, nogil=True)
def _best_split_one(G, H, N, s, n_bins, bin_min, bin_max):
    """Best (gain, feature, threshold, missing_left, left sums, totals) of slot s.

    Bin ``n_bins[f]`` holds the rows where feature f is missing. Every threshold
    is tried with the missing rows on the left and on the right, plus the split
    "all values left, missing right" (threshold +inf), as scikit-learn does.
    Without missing rows in the leaf they go to the child with more rows
    (ties right), where unseen missing values are sent at prediction.
    """
    d = G.shape[1]
    total_g = 0.0
    total_w = 0.0
    total_n = 0
    for b in range(n_bins[0] + 1):
        total_g += G[s, 0, b]
        total_w += H[s, 0, b]
        total_n += N[s, 0, b]
    best_gain = -np.inf
    best_f = -1
    best_thr = np.nan
    best_ml = False
    best_gl = 0.0
    best_wl = 0.0
    if total_n < 2 or total_w <= 0.0:
        return best_gain, best_f, best_thr, best_ml, best_gl, best_wl, total_g, total_w
    base = total_g * total_g / total_w
    for f in range(d):
        mb = n_bins[f]
        gm = G[s, f, mb]
        wm = H[s, f, mb]
        nm = N[s, f, mb]
        n_values = total_n - nm
        gl = 0.0
        wl = 0.0
        nl = 0
        prev = -1
        for b in range(mb + 1):
            if b < mb and N[s, f, b] == 0:
                continue
            if prev >= 0 and (b < mb or nm > 0):
                if b < mb:
                    a = bin_max[f, prev]
                    c = bin_min[f, b]
                    # scikit-learn's midpoint, falling back to the left value on rounding
                    thr = a / 2.0 + c / 2.0
                    if thr == c or thr == np.inf or thr == -np.inf:
                        thr = a
                    n_options = 2 if nm > 0 else 1
                else:  # all values left, missing right
                    thr = np.inf
                    n_options = 1
                for option in range(n_options):
                    ml = option == 1
                    g_left = gl + gm if ml else gl
                    w_left = wl + wm if ml else wl
                    w_right = total_w - w_left
                    if w_left > 0.0 and w_right > 0.0:
                        g_right = total_g - g_left
                        gain = g_left * g_left / w_left + g_right * g_right / w_right - base
                        if gain > best_gain:
                            best_gain = gain
                            best_f = f
                            best_thr = thr
                            best_ml = ml if nm > 0 else nl > n_values - nl
                            best_gl = g_left
                            best_wl = w_left
            if b < mb:
                gl += G[s, f, b]
                wl += H[s, f, b]
                nl += N[s, f, b]
                prev = b
    return best_gain, best_f, best_thr, best_ml, best_gl, best_wl, total_g, total_w


@njit(cache=True, nogil=True)
def best_splits(G, H, N, slots, n_bins, bin_min, bin_max, out_gain, out_feature, out_threshold,
                out_missing_left, out_left_g, out_left_w, out_g, out_w):
    """Best split of every slot in ``slots`` (gain -inf when the leaf cannot split)."""
    for i in range(slots.shape[0]):
        s = slots[i]
        gain, f, thr, ml, gl, wl, g, w = _best_split_one(G, H, N, s, n_bins, bin_min, bin_max)
        out_gain[s] = gain
        out_feature[s] = f
        out_threshold[s] = thr
        out_missing_left[s] = ml
        out_left_g[s] = gl
        out_left_w[s] = wl
        out_g[s] = g
        out_w[s] = w


@njit(cache=True, nogil=True)
def update_residual_histograms(X_binned, rows, delta, weight, residual, trees, leaf_of, slot_of, G):
    """FIGS: the residual of ``rows`` drops by ``delta[i]``; update the leaf of every tree in ``trees``."""
    d = X_binned.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        residual[r] -= delta[i]
        dw = weight[r] * delta[i]
        for k in range(trees.shape[0]):
            j = trees[k]
            s = slot_of[j, leaf_of[j, r]]
            for f in range(d):
                G[s, f, X_binned[r, f]] -= dw


@njit(cache=True, nogil=True)
def update_usable_histograms(X_binned, rows, target, weight, changed_tree, trees, covered, count_before,
                             count_after, leaf_of, slot_of, G, H, N):
    """FIGU: coverage of ``rows`` by ``changed_tree`` flipped; re-evaluate them for every other tree.

    A row is evaluated for tree j iff no tree other than j covers it (eq. 2),
    i.e. ``count - covered[j, row] == 0`` with ``count`` the number of covering trees.
    """
    d = X_binned.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        w = weight[r]
        if w == 0.0:
            continue
        g = w * target[r]
        for k in range(trees.shape[0]):
            j = trees[k]
            if j == changed_tree:
                continue
            own = 1 if covered[j, r] else 0
            before = count_before[i] - own == 0
            after = count_after[i] - own == 0
            if before == after:
                continue
            sign = 1.0 if after else -1.0
            isign = 1 if after else -1
            s = slot_of[j, leaf_of[j, r]]
            for f in range(d):
                b = X_binned[r, f]
                G[s, f, b] += sign * g
                H[s, f, b] += sign * w
                N[s, f, b] += isign
