"""How much the rules of a set flag the same rows: the overlap matrix behind ``RuleSet.overlap``."""

from __future__ import annotations

import numpy as np

__all__ = ["overlap_counts", "overlap_frame"]


def overlap_counts(cover) -> np.ndarray:
    """(k, k) float64: entry (i, j) = number of rows both rule i and rule j flag (additive over row blocks)."""
    c = np.asarray(cover, dtype=np.float32)  # exact counts up to 2**24 rows per block; summed in float64
    return (c.T @ c).astype(np.float64) if c.shape[0] < 2 ** 24 else cover.T.astype(np.float64) @ cover


def overlap_frame(names, counts):
    """The overlap DataFrame (rule names both ways) from summed :func:`overlap_counts`: entry (i, j) =
    counts[i, j] / counts[i, i]."""
    import pandas as pd

    flagged = np.diag(counts).copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(flagged[:, None] > 0, counts / flagged[:, None], np.nan)
    index = pd.Index(names, name="rule")
    return pd.DataFrame(share, index=index, columns=pd.Index(names, name="also_flagged_by"))
