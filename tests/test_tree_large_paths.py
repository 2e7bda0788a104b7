"""The threaded presort / binning paths (taken above 2M values) against plain numpy."""

import numpy as np

from csdt.tree._builder import NAN_BIN, NAN_CODE, bin_codes, bin_edges, presort


def _data():
    rng = np.random.default_rng(0)
    n, d = 210_000, 10  # n * d >= 2M: the threaded paths
    X = rng.normal(size=(n, d))
    X[:, 3] = rng.integers(0, 7, n)  # few distinct values, many ties
    X[rng.random((n, d)) < 0.05] = np.nan
    return np.ascontiguousarray(X)


def test_threaded_binning_equals_searchsorted():
    X = _data()
    edges, nbins = bin_edges(X, 255)
    codes = bin_codes(X, edges, nbins)
    for f in range(X.shape[1]):
        x = X[:, f]
        want = np.searchsorted(edges[f, : nbins[f] - 1], x, side="left").astype(np.int64)
        want[np.isnan(x)] = NAN_BIN
        np.testing.assert_array_equal(codes[:, f], want)


def test_threaded_presort_sorts_and_ranks_every_column():
    X = _data()
    order, codes = presort(X)
    n = X.shape[0]
    for f in range(X.shape[1]):
        x = X[:, f]
        assert np.array_equal(np.sort(order[f]), np.arange(n))  # a permutation of the rows
        xs = x[order[f]]
        nan = np.isnan(xs)
        k = int((~nan).sum())
        assert not nan[:k].any() and nan[k:].all()  # NaN last
        np.testing.assert_array_equal(xs[:k], np.sort(x[~np.isnan(x)]))  # ascending
        # codes run along the sorted order: dense ranks of the distinct values, NaN coded apart
        want = np.concatenate([[0], np.cumsum(xs[1:k] != xs[: k - 1])])
        np.testing.assert_array_equal(codes[f][:k], want)
        assert (codes[f][k:] == NAN_CODE).all()
