"""Shared test fixtures."""

import numpy as np
import pytest


@pytest.fixture
def weights_as_duplicates():
    """Factory of ``(X, y, C, w, idx)``: integer weights ``w`` and ``idx`` repeating each row ``w`` times.

    Few distinct feature values, so histogram bins are exact and training on
    ``(X, w)`` must equal training on ``X[idx]`` (boosting weight tests).
    """

    def make(seed, levels, cut, fn_low, n=400):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, levels, size=(n, 3)).astype(float)
        y = (X[:, 0] + rng.normal(0, 3, n) > cut).astype(int)
        C = np.column_stack([np.full(n, 2.0), rng.uniform(fn_low, 20, n), np.zeros(n), np.zeros(n)])
        w = rng.integers(1, 4, n).astype(float)
        return X, y, C, w, np.repeat(np.arange(n), w.astype(int))

    return make
