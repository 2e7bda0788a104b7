"""Decisions under an alert capacity that counts entities (cards, customers), not rows.

A review team that can look at ``k`` cards a day alerts cards: in each period at most ``k``
entities are alerted, every row of an alerted entity in that period is flagged, and an entity
is alerted at most once per period.

Value of alerting entity ``e`` in period ``t``. Row ``i`` has P(y=1) ``p_i`` and its own costs;
flagging it instead of letting it pass changes its expected cost by
``-v_i`` with ``v_i = p_i (C_FN_i - C_TP_i) - (1 - p_i)(C_FP_i - C_TN_i)``
(:func:`csboost_plugins.decision_costs.net_alert_value`, money per row). Expected costs add over
rows, so flagging all rows ``R(e, t)`` of ``e`` in ``t`` changes the period's expected cost by
exactly ``-V(e, t)`` with ``V(e, t) = sum_{i in R(e, t)} v_i``: each flagged row pays its own costs,
as in every money figure of the library, so the per-row money of
:func:`csboost_plugins.metrics.money_by_period` is the objective this decision maximises. With
at most ``k`` entities per period and values that add, the best set is the ``k`` entities with
the largest ``V(e, t)`` among those with ``V(e, t) > 0`` (an entity of value <= 0 never lowers the
expected cost). Ties at a period's cut go to the entity whose first row in the period comes
first (row order), so the same inputs always give the same alerts.

What blocking a card is worth after the period (the frauds it would stop once known) is not
counted: the decision reads only the period's rows. In a replay
(:func:`csboost_plugins.model_selection.walk_forward`) ``exclude_known=True`` removes the later
rows of a card once its fraud label is known instead.

A model deciding by its own score or margin (the AEC's s > 1/2, a tuned threshold) has no money
to add: there an entity is worth the largest score of its flagged rows (``combine="max"`` of
:func:`entity_groups`), its most suspicious transaction. The decision itself is
:func:`csboost_plugins._capacity.capped_decisions`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["entity_codes", "entity_groups", "entity_values", "group_rows"]

_COMBINE = ("sum", "max")


def entity_codes(entity, n, index=None, index_name="the rows"):
    """Integer code per row of ``entity`` (card or customer id; ValueError naming ``entity`` otherwise)."""
    from ._periods import period_codes
    from .costs import check_same_index

    check_same_index([("entity", entity)], index, index_name)
    return period_codes(entity, n, name="entity")[0]


def group_rows(period_codes, entity_codes):
    """``(group, group_period)``: each row's (period, entity) group, groups numbered by their first row."""
    from ._capacity_kernels import period_entity_groups, run

    period_codes = np.ascontiguousarray(period_codes, dtype=np.int64)
    entity_codes = np.ascontiguousarray(entity_codes, dtype=np.int64)
    if period_codes.shape != entity_codes.shape or period_codes.ndim != 1:
        raise ValueError(f"period and entity codes must be 1-D of one length, got shapes {period_codes.shape} "
                         f"and {entity_codes.shape}")
    if period_codes.min(initial=0) < 0 or entity_codes.min(initial=0) < 0:
        raise ValueError("period and entity codes must be >= 0")
    # tables indexed by code (codes are dense: positions among the distinct labels), no sort of the rows
    return run("period_entity_groups", period_entity_groups, period_codes, entity_codes,
               int(period_codes.max(initial=-1)) + 1, int(entity_codes.max(initial=-1)) + 1)


def entity_values(value, period_codes, entity_codes):
    """Alert value of each (period, entity) group, the groups in order of their first row.

    Parameters
    ----------
    value : ndarray of shape (n,)
        Expected net money of an alert per row, ``v_i``.
    period_codes, entity_codes : ndarray of int64, shape (n,)
        Period and entity code of each row.

    Returns
    -------
    group : ndarray of int64, shape (n,)
        Group of each row; groups are numbered by their first row (group 0 holds row 0).
    group_value : ndarray of float64, shape (n_groups,)
        ``V(e, t) = sum of v_i`` over the group's rows, added in row order.
    group_period : ndarray of int64, shape (n_groups,)
        Period code of each group.
    """
    group, group_period = group_rows(period_codes, entity_codes)
    group_value = np.bincount(group, weights=np.asarray(value, dtype=np.float64), minlength=group_period.shape[0])
    return group, group_value, group_period


def entity_groups(value, eligible, period_codes, entity_codes, combine="sum"):
    """The (period, entity) groups a capacity counting entities ranks, with their value and eligibility.

    Parameters
    ----------
    value : ndarray of shape (n,)
        Ranking value per row.
    eligible : ndarray of bool, shape (n,)
        Rows that would be flagged without a cap.
    period_codes, entity_codes : ndarray of int64, shape (n,)
        Period and entity code of each row.
    combine : {"sum", "max"}, default "sum"
        ``"sum"``: ``value`` is money (``v_i``, money per row) and a group is worth
        ``V(e, t) = sum of v_i`` over all its rows, eligible when ``V(e, t) > 0`` (``eligible``
        unread). ``"max"``: ``value`` is a score or margin (it does not add over rows) and a group
        is worth the largest value of its eligible rows, eligible when it has one.

    Returns
    -------
    group : ndarray of int64, shape (n,)
        Group of each row, groups numbered by their first row (so ties go to the entity seen first).
    group_value : ndarray of float64, shape (n_groups,)
    group_eligible : ndarray of bool, shape (n_groups,)
    group_period : ndarray of int64, shape (n_groups,)
    """
    if combine not in _COMBINE:
        raise ValueError(f"combine must be one of {_COMBINE}, got {combine!r}")
    if combine == "sum":
        group, group_value, group_period = entity_values(value, period_codes, entity_codes)
        return group, group_value, group_value > 0, group_period
    group, group_period = group_rows(period_codes, entity_codes)
    eligible = np.asarray(eligible, dtype=bool)
    group_value = np.full(group_period.shape[0], -np.inf)
    np.maximum.at(group_value, group[eligible], np.asarray(value, dtype=np.float64)[eligible])
    group_eligible = np.bincount(group[eligible], minlength=group_period.shape[0]) > 0
    return group, group_value, group_eligible, group_period
