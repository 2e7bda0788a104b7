import numpy as np
import pandas as pd
import pytest

from csdt.datasets import load_bankmarketing, load_churn, load_creditscoring1
from csdt.sampling import (
    cost_proportionate_over_sampling,
    cost_proportionate_rejection_sampling,
    under_sampling,
)


def _toy(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": np.arange(n, dtype=float)})
    y = (rng.random(n) < 0.1).astype(int)
    cm = np.column_stack([rng.uniform(1, 5, n), rng.uniform(5, 50, n), np.zeros(n), np.zeros(n)])
    return X, y, cm


def test_under_sampling_share_determinism_and_no_mutation():
    X, y, cm = _toy()
    X0, y0, cm0 = X.copy(), y.copy(), cm.copy()
    Xs, ys, cs = under_sampling(X, y, cm, random_state=1)
    Xs2, ys2, cs2 = under_sampling(X, y, cm, random_state=1)
    pd.testing.assert_frame_equal(Xs, Xs2)
    assert ys.sum() == y.sum() and abs(ys.mean() - 0.5) < 0.01
    # rows stay aligned: column b is the original row number
    idx = Xs["b"].to_numpy().astype(int)
    np.testing.assert_array_equal(ys, y[idx])
    np.testing.assert_array_equal(cs, cm[idx])
    pd.testing.assert_frame_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(cm, cm0)


def test_rejection_sampling_keeps_rows_with_probability_proportional_to_cost():
    X, y, cm = _toy(4000, 2)
    c = np.where(y == 1, cm[:, 1], cm[:, 0])
    w = np.minimum(c / np.quantile(c, 0.975), 1)
    kept = np.zeros(len(y))
    reps = 200
    for s in range(reps):
        Xs, ys, cs = cost_proportionate_rejection_sampling(X, y, cm, random_state=s)
        kept[Xs["b"].to_numpy().astype(int)] += 1
    # empirical keep rate per cost decile matches w
    order = np.argsort(w)
    for chunk in np.array_split(order, 10):
        assert kept[chunk].mean() / reps == pytest.approx(w[chunk].mean(), abs=0.02)
    a = cost_proportionate_rejection_sampling(X, y, cm, random_state=5)
    b = cost_proportionate_rejection_sampling(X, y, cm, random_state=5)
    pd.testing.assert_frame_equal(a[0], b[0])


def test_over_sampling_repeats_ceil_w_over_norm():
    X, y, cm = _toy()
    c = np.where(y == 1, cm[:, 1], cm[:, 0])
    for kw, M in [({"max_cost_quantile": 1.0}, c.max()), ({}, np.quantile(c, 0.975)), ({"max_cost": 20.0}, 20.0)]:
        Xs, ys, cs = cost_proportionate_over_sampling(X, y, cm, oversampling_norm=0.1, **kw)
        reps = np.bincount(Xs["b"].to_numpy().astype(int), minlength=len(y))
        np.testing.assert_array_equal(reps, np.ceil(np.minimum(c / M, 1) / 0.1 - 1e-9))
        assert reps.max() == 10 and reps.min() >= 1


def test_sampling_errors():
    X, y, cm = _toy()
    with pytest.raises(TypeError, match="costs are required"):
        cost_proportionate_rejection_sampling(X, y)
    with pytest.raises(ValueError, match="X has 399 rows but y has 400"):
        under_sampling(X.iloc[1:], y)
    with pytest.raises(ValueError, match="only one class"):
        under_sampling(X, np.zeros(len(y)))


@pytest.mark.parametrize("loader, r_frac, r_pos, o_frac, o_pos", [
    (load_creditscoring1, 5271 / 45264, 0.4381, 66123 / 45264, 0.3616),
    (load_bankmarketing, 1644 / 15346, 0.5243, 22625 / 15346, 0.4069),
    (load_churn, 428 / 3758, 0.4135, 5767 / 3758, 0.3124),
])
def test_paper_set_sizes_on_training_half(loader, r_frac, r_pos, o_frac, o_pos):
    """TABLE VI of the ECSDT paper: sizes and positive shares of the u, r and o sets."""
    b = loader()
    rng = np.random.default_rng(0)
    t = rng.permutation(len(b.target))[: len(b.target) // 2]
    X, y, cm = b.data.iloc[t], b.target[t], b.cost_matrix[t]
    _, yu, _ = under_sampling(X, y, cm, random_state=0)
    _, yr, _ = cost_proportionate_rejection_sampling(X, y, cm, random_state=0)
    _, yo, _ = cost_proportionate_over_sampling(X, y, cm)
    n = len(y)
    assert yu.mean() == pytest.approx(0.5, abs=0.01)
    assert len(yr) / n == pytest.approx(r_frac, rel=0.15)
    assert yr.mean() == pytest.approx(r_pos, abs=0.04)
    assert len(yo) / n == pytest.approx(o_frac, rel=0.05)
    assert yo.mean() == pytest.approx(o_pos, abs=0.03)
