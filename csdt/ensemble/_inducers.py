"""Random inducers of the ECSDT ensembles: which rows and features each tree sees.

ECSDT paper, section 3.2 / Algorithm 1: bagging (rows with replacement), pasting
(rows without replacement), random forests (rows with replacement, a random subset
of features at every split) and random patches (rows and features without
replacement). Every tree's draw comes from its own integer seed, itself drawn once
from the ensemble's ``random_state``, so the draws (and hence the model) do not
depend on how many threads or which backend fit the trees.
"""

from __future__ import annotations

import numbers

import numpy as np


def resolve_count(value, total: int, name: str) -> int:
    """An int count or a fraction of ``total`` (at least 1)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if not 1 <= value <= total:
            raise ValueError(f"{name} must be in [1, {total}] as an integer, got {value}")
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and 0.0 < value <= 1.0:
        return max(1, int(value * total))
    raise ValueError(f"{name} must be an int >= 1 or a float in (0, 1], got {value!r}")


def draw_subset(seed: int, n: int, d: int, n_rows: int, n_feats: int, bootstrap: bool):
    """Rows (sorted, with repeats if ``bootstrap``) and feature columns (sorted) of one tree."""
    rng = np.random.default_rng(seed)
    if bootstrap:
        rows = np.sort(rng.integers(0, n, size=n_rows))
    else:
        rows = np.sort(rng.choice(n, size=n_rows, replace=False))
    feats = np.arange(d) if n_feats >= d else np.sort(rng.choice(d, size=n_feats, replace=False))
    return rows.astype(np.int64), feats.astype(np.int64)


def out_of_bag_mask(rows: np.ndarray, n: int) -> np.ndarray:
    """True for the rows the tree never saw (S - S_j)."""
    mask = np.ones(n, dtype=bool)
    mask[rows] = False
    return mask
