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
"""

from __future__ import annotations

import numpy as np

from ._capacity import Capacity, capped_decisions

__all__ = ["entity_codes", "entity_decisions", "entity_values"]


def entity_codes(entity, n, index=None, index_name="the rows"):
    """Integer code per row of ``entity`` (card or customer id; ValueError naming ``entity`` otherwise)."""
    from ._periods import period_codes
    from .costs import check_same_index

    check_same_index([("entity", entity)], index, index_name)
    return period_codes(entity, n, name="entity")[0]


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
    keys = period_codes.astype(np.int64) * (int(entity_codes.max(initial=0)) + 1) + entity_codes
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])  # number groups by first row
    group = rank[inverse.reshape(-1)]
    group_value = np.bincount(group, weights=np.asarray(value, dtype=np.float64), minlength=first.shape[0])
    group_period = np.empty(first.shape[0], dtype=np.int64)
    group_period[group] = period_codes
    return group, group_value, group_period


def entity_decisions(value, entity_codes, capacity):
    """0/1 decisions: every row of the ``capacity.caps`` most valuable entities of each period.

    Parameters
    ----------
    value : ndarray of shape (n,)
        Expected net money of an alert per row (no NaN).
    entity_codes : ndarray of int64, shape (n,)
        Entity code of each row (from :func:`entity_codes`).
    capacity : Capacity
        Period codes and entities allowed per period (``caps``), from
        :func:`csboost_plugins._capacity.check_capacity` with ``max_alerts``.

    Returns
    -------
    ndarray of int64, shape (n,)
        1 on every row of an alerted entity in its period: in each period the entities with the
        largest summed value ``V(e, t) > 0``, at most ``caps`` of them, ties to the entity seen first.
    """
    group, group_value, group_period = entity_values(value, capacity.codes, entity_codes)
    groups = Capacity(group_period, capacity.caps, capacity.labels)
    return capped_decisions(group_value, group_value > 0, groups)[group]
