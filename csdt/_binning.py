"""Quantile binning of feature columns, for the histogram split searches of CSDT and FIGS / FIGU.

Both map each column once to small integer codes so a node's (or leaf's) best split is found from a
histogram by one prefix-sum scan over the bins. Both place their quantile cuts on the same fixed,
seeded sample of at most ``_SAMPLE`` rows (:func:`_sample_rows`: the same bins run to run) and give
a column with few distinct values one bin per value.

* CSDT (:func:`bin_edges`, :func:`bin_codes`), histogram mode of
  :class:`csdt.tree.CostSensitiveDecisionTreeClassifier`, LightGBM-style: at most 255 bins, uint8
  codes, NaN in bin :data:`NAN_BIN`; the edges are midpoints between consecutive distinct values of
  the column (a sample of it), cut at evenly spaced cumulative (weighted) counts when there are
  more of them than bins. The edges are the tree's thresholds.
* FIGS / FIGU (:func:`bin_features`): cuts are data values at evenly spaced row quantiles, up to
  65,535 bins (uint8 or uint16 codes, NaN one past the value bins). Each bin keeps its smallest
  and largest training value, so a split between the non-empty bins ``a < b`` of a leaf gets the
  threshold ``bin_max[a] / 2 + bin_min[b] / 2`` (scikit-learn's midpoint formula) and the raw-value
  rule ``x <= threshold`` sends exactly the training rows of those bins left. A column with at
  most ``max_bins`` distinct values then sees the same thresholds as scikit-learn's
  ``DecisionTreeRegressor`` (midpoints between the leaf's adjacent distinct values).
"""

# Cuts differ on purpose: CSDT's thresholds are fixed weighted edges, FIGS's per-leaf sklearn midpoints of bin min/max.

from __future__ import annotations

import numba as nb
import numpy as np

from . import _aot

__all__ = ["NAN_BIN", "bin_edges", "bin_codes", "bin_features"]

#: rows the quantile cuts are placed on (as lightgbm's bin_construct_sample_cnt)
_SAMPLE = 200_000
#: CSDT's bin code of a missing value (one past the 255 value bins of a uint8 code)
NAN_BIN = 255


def _sample_rows(n, sample=_SAMPLE, seed=0):
    """Sorted indices of a fixed random sample of ``sample`` of the ``n`` rows; None when ``n <= sample``."""
    if n <= sample:
        return None
    idx = np.random.default_rng(seed).choice(n, sample, replace=False)
    idx.sort()
    return idx


# ----------------------------------------------------------------- CSDT (histogram mode)
def bin_codes(X, edges, nbins):
    """uint8 bin of every value: the first edge >= x (lower bound) of edges[f, :nbins-1]; NaN -> 255.

    Two threads on the two halves of the rows for large X (the kernel releases the GIL).
    """
    n, d = X.shape
    out = np.empty((n, d), np.uint8)
    if n * d >= 2_000_000 and n > 1:
        from concurrent.futures import ThreadPoolExecutor

        h = n // 2
        with ThreadPoolExecutor(2) as ex:
            list(ex.map(lambda s: _aot.run("bin_codes_into", _bin_codes_into, X[s], edges, nbins,
                                           out[s]),
                        (slice(0, h), slice(h, n))))
    else:
        _aot.run("bin_codes_into", _bin_codes_into, X, edges, nbins, out)
    return out


@nb.njit(cache=True, nogil=True)
def _bin_codes_into(X, edges, nbins, out):
    n, d = X.shape
    for i in range(n):
        for f in range(d):
            x = X[i, f]
            if np.isnan(x):
                out[i, f] = NAN_BIN
                continue
            m = nbins[f] - 1  # number of edges
            if m == 0:
                out[i, f] = 0
                continue
            base = 0
            while m > 1:  # branch-free lower bound (compiles to conditional moves)
                half = m >> 1
                base = base + half if edges[f, base + half] < x else base
                m -= half
            out[i, f] = base + (1 if edges[f, base] < x else 0)


def bin_edges(X, max_bins, rng_seed=0, sample=_SAMPLE, sample_weight=None):
    """Quantile bin edges per feature (at most ``max_bins`` bins, LightGBM-style).

    Edges are midpoints between consecutive distinct values of (a sample of) the
    column; when a column has more distinct values than bins, the edges are the
    midpoints nearest to evenly spaced quantiles. Returns (edges (d, 255), nbins (d,)).
    With ``sample_weight`` the quantiles are weighted (a row of weight w counts w times).
    """
    n, d = X.shape
    idx = _sample_rows(n, sample, rng_seed)
    if idx is not None:
        Xs = X[idx]
        ws = None if sample_weight is None else sample_weight[idx]
    else:
        Xs, ws = X, sample_weight
    edges = np.full((d, NAN_BIN), np.inf)
    nbins = np.ones(d, np.int64)
    for f in range(d):
        v = Xs[:, f]
        ok = ~np.isnan(v)
        u, inv, cnt = np.unique(v[ok], return_inverse=True, return_counts=True)
        if ws is not None:
            cnt = np.bincount(inv, weights=ws[ok], minlength=u.size)
        if u.size <= 1:
            continue
        mids = u[:-1] / 2.0 + u[1:] / 2.0
        if mids.size > max_bins - 1:
            # counts of each distinct value -> cut at evenly spaced cumulative shares
            cum = np.cumsum(cnt) / cnt.sum()
            targets = np.arange(1, max_bins) / max_bins
            pos = np.unique(np.clip(np.searchsorted(cum[:-1], targets), 0, mids.size - 1))
            mids = mids[pos]
        edges[f, : mids.size] = mids
        nbins[f] = mids.size + 1
    return edges, nbins


# ----------------------------------------------------------------- FIGS / FIGU
_BLOCK = 2048  # rows per block of the binning pass
_LUT_CELLS = 1024  # uniform cells between the first and last cut, each narrowing the binary search
_CODE_NAMES = {np.uint8: "u8", np.uint16: "u16"}  # suffix of the AOT kernels per bin-code dtype


@nb.njit(cache=True, nogil=True)
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


@nb.njit(cache=True, nogil=True)
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
    idx = _sample_rows(n)
    sampled = idx is not None
    S = X[idx] if sampled else X
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
