"""Feature binning for the FIGS/FIGU split search.

Each column is mapped once to small integer bins so that every candidate split
of every leaf is found from a per-leaf histogram by one prefix-sum scan
(O(bins) per feature) instead of refitting a stump per candidate.

* A column with at most ``max_bins`` distinct values gets one bin per value, so
  the search is exact: it sees the same candidate thresholds as scikit-learn's
  ``DecisionTreeRegressor`` (midpoints between adjacent distinct values).
* A column with more distinct values is cut at (at most ``max_bins - 1``)
  quantiles, so splits fall on bin boundaries only (as in lightgbm). The
  quantiles are taken from at most ``_SAMPLE`` rows (a fixed, seeded sample).

For every bin the smallest and largest training value in it are kept; a split
between the non-empty bins ``a < b`` of a leaf uses the threshold
``bin_max[a] / 2 + bin_min[b] / 2`` (scikit-learn's midpoint formula), so the
raw-value rule ``x <= threshold`` sends exactly the same training rows left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import _aot

__all__ = ["bin_features"]

_SAMPLE = 200_000  # rows used to place quantile cuts (as lightgbm's bin_construct_sample_cnt)


_BLOCK = 2048  # rows per block of the binning pass
_LUT_CELLS = 1024  # uniform cells between the first and last cut, each narrowing the binary search
_CODE_NAMES = {np.uint8: "u8", np.uint16: "u16"}  # suffix of the AOT kernels per bin-code dtype


@njit(cache=True, nogil=True)
def _cell_ranges(cuts, m):
    """For each uniform cell over [cuts[0], cuts[m-1]], the range of possible bin indices."""
    cell_lo = np.zeros(_LUT_CELLS + 1, np.int64)
    cell_hi = np.full(_LUT_CELLS + 1, m, np.int64)
    if m == 0:
        return cell_lo, cell_hi, 0.0
    first = cuts[0]
    span = cuts[m - 1] - first
    scale = _LUT_CELLS / span if span > 0 else 0.0
    if not (scale > 0.0 and scale < np.inf):
        # a subnormal span (scale = inf) or one past the float range (span = inf): no
        # table, every value gets the plain binary search over all cuts
        return cell_lo, cell_hi, 0.0
    k = 0
    for c in range(_LUT_CELLS + 1):
        edge = first + c / scale if scale > 0 else first
        while k < m and cuts[k] < edge:  # first cut >= the cell's left edge
            k += 1
        cell_lo[c] = k
    for c in range(_LUT_CELLS):
        cell_hi[c] = min(cell_lo[c + 1] + 1, m)
    return cell_lo, cell_hi, scale


@njit(cache=True, nogil=True)
def _assign_bins(X, cuts, n_cuts, X_binned, lo, hi):
    """One pass over the rows: bin k of feature f holds cuts[f, k-1] < x <= cuts[f, k].

    Records each bin's smallest and largest value in lo / hi; NaN gets code n_cuts[f] + 1.
    """
    n, d = X.shape
    cell_lo = np.zeros((d, _LUT_CELLS + 1), np.int64)
    cell_hi = np.zeros((d, _LUT_CELLS + 1), np.int64)
    scale = np.zeros(d)
    for f in range(d):
        cl, ch, sc = _cell_ranges(cuts[f], n_cuts[f])
        cell_lo[f] = cl
        cell_hi[f] = ch
        scale[f] = sc
    for start in range(0, n, _BLOCK):  # row blocks: the block and one feature's cells stay in cache
        stop = min(start + _BLOCK, n)
        for f in range(d):
            m = n_cuts[f]
            for i in range(start, stop):
                v = X[i, f]
                if v != v:  # NaN: the missing-value bin, one past the value bins
                    X_binned[i, f] = m + 1
                    continue
                if m == 0 or v <= cuts[f, 0]:
                    a = 0
                elif v > cuts[f, m - 1]:
                    a = m
                else:
                    a, b = 0, m
                    if scale[f] > 0.0:  # 0 < v - cuts[f, 0] <= span: the cell index is finite
                        c = int((v - cuts[f, 0]) * scale[f])
                        if c > _LUT_CELLS:
                            c = _LUT_CELLS
                        a = cell_lo[f, c]
                        b = cell_hi[f, c]
                        if a > 0:
                            a -= 1  # rounding of the cell index: widen by one
                    while a < b:  # first cut >= v
                        mid = (a + b) >> 1
                        if cuts[f, mid] < v:
                            a = mid + 1
                        else:
                            b = mid
                X_binned[i, f] = a
                if v < lo[f, a]:
                    lo[f, a] = v
                if v > hi[f, a]:
                    hi[f, a] = v


def bin_features(X: np.ndarray, max_bins: int):
    """Bin every column of a float64 matrix (NaN = missing, no infinities).

    Returns
    -------
    X_binned : (n, d) uint8 (max_bins <= 255) or uint16, C-ordered; a missing
        value of feature f has code ``n_bins[f]`` (one past its value bins).
    n_bins : (d,) int64, value bins used per feature.
    bin_min, bin_max : (d, max(n_bins)) float64, smallest / largest training
        value in each bin (NaN past ``n_bins[f]``).
    """
    n, d = X.shape
    dtype = np.uint8 if max_bins <= 255 else np.uint16  # room for the missing-value code
    sampled = n > _SAMPLE
    S = X[np.sort(np.random.default_rng(0).choice(n, _SAMPLE, replace=False))] if sampled else X
    all_cuts = []
    for f in range(d):
        part = np.sort(S[:, f])
        part = part[~np.isnan(part)]
        n_distinct = 1 + int(np.count_nonzero(part[1:] != part[:-1])) if part.shape[0] else 0
        if n_distinct <= max_bins:
            values = np.unique(X[:, f]) if sampled else np.unique(part)  # the sample may miss rare values
            values = values[~np.isnan(values)]
            n_distinct = values.shape[0]
        if n_distinct <= max_bins:
            cuts = values[:-1]  # one bin per distinct value
        else:
            idx = (np.arange(1, max_bins) * part.shape[0]) // max_bins
            cuts = np.unique(part[idx])
            cuts = cuts[cuts < part[-1]]
        all_cuts.append(cuts)
    n_cuts = np.array([c.shape[0] for c in all_cuts], dtype=np.int64)
    cuts = np.zeros((d, max(1, int(n_cuts.max()) if d else 1)))
    for f, c in enumerate(all_cuts):
        cuts[f, : c.shape[0]] = c
    X_binned = np.empty((n, d), dtype=dtype)
    lo = np.full((d, cuts.shape[1] + 1), np.inf)
    hi = np.full((d, cuts.shape[1] + 1), -np.inf)
    _aot.run("figs_assign_bins_" + _CODE_NAMES[X_binned.dtype.type], _assign_bins, X, cuts, n_cuts, X_binned,
             lo, hi)
    per_feature = []
    for f in range(d):
        keep = lo[f, : n_cuts[f] + 1] <= hi[f, : n_cuts[f] + 1]  # drop bins without training values
        if not keep.all():
            remap = np.append(np.cumsum(keep) - 1, keep.sum()).astype(dtype)  # last: the missing code
            X_binned[:, f] = remap[X_binned[:, f]]
        per_feature.append((lo[f, : n_cuts[f] + 1][keep], hi[f, : n_cuts[f] + 1][keep]))
    n_bins = np.array([b.shape[0] for b, _ in per_feature], dtype=np.int64)
    width = max(1, int(n_bins.max())) if d else 1
    bin_min = np.full((d, width), np.nan)
    bin_max = np.full((d, width), np.nan)
    for f, (a, b) in enumerate(per_feature):
        bin_min[f, : a.shape[0]] = a
        bin_max[f, : b.shape[0]] = b
    return X_binned, n_bins, bin_min, bin_max
