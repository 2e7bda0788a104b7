"""``sample_weight`` in csdt's estimators: one validation, one meaning.

A row of weight ``w`` counts as ``w`` copies of itself (scikit-learn's convention, checked by
``check_sample_weight_equivalence``): every money sum multiplies the row's costs by ``w``
(``sum_i w_i C_i``), every probability is a ``w``-weighted rate (``sum_i w_i y_i / sum_i w_i``), and a
row of weight 0 is as if it were not there.
"""

from __future__ import annotations

import numpy as np

from csboost_plugins._validation import check_sample_weight

__all__ = ["check_fit_sample_weight", "integer_copies", "scale_costs"]


def check_fit_sample_weight(sample_weight, X, rows=None):
    """float64 (n,) weights of the validated ``X``, or None when ``sample_weight`` is None.

    ``rows``: X's pandas index (:func:`csboost_plugins.costs.row_index`); a pandas
    ``sample_weight`` must carry the same one, as the costs must. Negative, NaN or infinite
    weights, a wrong length, and all-zero weights are ValueErrors naming ``sample_weight``
    (:func:`csboost_plugins._validation.check_sample_weight`).
    """
    if sample_weight is None:
        return None
    # imported here: the tree's kernel module imports this one, and the AOT build has no scikit-learn
    from sklearn.utils.validation import _num_samples

    return check_sample_weight(sample_weight, _num_samples(X), rows_of="X", index=rows, allow_all_zero=False)


def scale_costs(costs, w):
    """The (n, 4) cost matrix with row i multiplied by ``w_i`` (money of ``w_i`` copies); ``costs`` if w is None."""
    return costs if w is None else costs * w[:, None]


def integer_copies(w, what, max_rows=50_000_000):
    """(unit, copies): ``w = unit * copies`` with ``copies`` integers >= 0 and ``unit`` the smallest positive weight.

    For the parts of a model that count rows (not money) and so need the rows repeated:
    weights that are not integer multiples of one unit (relative 1e-9) are a ValueError naming
    ``sample_weight`` and ``what`` needs them.
    """
    unit = float(w[w > 0].min())
    k = w / unit
    copies = np.rint(k)
    if not np.allclose(k, copies, rtol=1e-9, atol=0.0):
        raise ValueError(f"sample_weight: {what} counts rows, so it takes weights that are integer multiples of "
                         f"one unit (e.g. 1, 2, 3 or 0.5, 1.5); got {w[np.abs(k - copies) > 1e-9 * k][:3]} with "
                         f"unit {unit:g}")
    if copies.sum() > max_rows:
        raise ValueError(f"sample_weight: {what} repeats each row w / {unit:g} times, {copies.sum():.0f} rows "
                         f"in all (more than {max_rows})")
    return unit, copies.astype(np.int64)
