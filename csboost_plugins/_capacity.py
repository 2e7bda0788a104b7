"""Decisions under an alert capacity: at most k alerts per period, the k most valuable rows.

A team that reviews at most ``k`` alerts per period (day, shift, hour) flags, in each period,
the ``k`` eligible rows with the largest ranking value; ties at the cut go to the earlier row
(row order), so the same inputs always give the same alerts. Values are compared rounded to 40
significant bits (a relative 2**-40, about 1e-12): two rows whose values are equal in real
arithmetic but not in floating point (44.0 and 43.99999999999999) are tied and go by row order. Which rows are eligible and what
ranks them is the caller's: Bayes minimum risk ranks by the expected net money of an alert
(:func:`csboost_plugins.decision_costs.net_alert_value`) among rows where it is positive; a model
deciding by its own margin ranks by that margin among positive margins.

The cap is ``max_alerts`` per period, or ``floor(max_alert_rate * rows of the period)`` (all rows of
the period count, flagged or not; the product is rounded to 6 decimals before the floor, so
``0.29 * 100`` gives 29, not 28), so a period of fewer than ``1 / max_alert_rate`` rows gets no alert;
a rate that allows no alert in any period is refused (ValueError), as ``max_alerts=0`` is. A
``max_alerts`` above the number of rows is no cap (it is clipped to the rows). Without ``periods``
all rows form one period.

With ``entity`` (card or customer id per row) the cap counts entities, not rows: in each period
the ``max_alerts`` most valuable (period, entity) groups are alerted and every row of an alerted
group is flagged (:mod:`csboost_plugins._entity_capacity` says what a group is worth); a rate
(``max_alert_rate``, a share of rows) is refused with ``entity``.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from .costs import check_costs, check_same_index
from .decision_costs import net_alert_value

__all__ = ["Capacity", "check_capacity", "capped_decisions", "period_ranks", "rank_value", "ranking_value",
           "UNIT_COSTS"]

#: the costs a model fitted without costs decides with (C_FP = C_FN = 1): its alert value is 2 s - 1
UNIT_COSTS = dict(fp_cost=1.0, fn_cost=1.0)
# significant bits a ranking value keeps: the money is a few float operations deep, so its rounding noise sits
# near 2**-50 relative; 2**-40 ties values equal in real arithmetic while keeping 12 significant digits
_RANK_BITS = 40


class Capacity(NamedTuple):
    """A validated cap: the period code of every row and the alerts allowed per period."""

    codes: np.ndarray  # int64 (n,), in [0, len(caps))
    caps: np.ndarray  # int64 (n_periods,), alerts allowed in each period (may be 0)
    labels: np.ndarray  # the period labels, in code order
    entities: np.ndarray | None = None  # int64 (n,) entity code per row: the cap counts entities; None: rows


def _check_caps(max_alerts, max_alert_rate):
    if max_alerts is not None and max_alert_rate is not None:
        raise ValueError(f"give max_alerts or max_alert_rate, not both (got max_alerts={max_alerts!r} and "
                         f"max_alert_rate={max_alert_rate!r})")
    if max_alerts is not None and (isinstance(max_alerts, (bool, np.bool_))
                                   or not isinstance(max_alerts, numbers.Integral) or max_alerts <= 0):
        raise ValueError(f"max_alerts must be an integer >= 1 (alerts per period), got {max_alerts!r}")
    if max_alert_rate is not None:
        ok = isinstance(max_alert_rate, numbers.Real) and not isinstance(max_alert_rate, (bool, np.bool_))
        if not (ok and 0 < float(max_alert_rate) <= 1):  # NaN fails both comparisons
            raise ValueError(f"max_alert_rate must lie in (0, 1] (share of a period's rows flagged), "
                             f"got {max_alert_rate!r}")


def _period_codes(periods, n, index, index_name):
    from ._periods import period_codes

    check_same_index([("periods", periods)], index, index_name)
    return period_codes(periods, n)


def check_capacity(n, max_alerts=None, max_alert_rate=None, periods=None, *, entity=None, index=None,
                   index_name="the rows"):
    """Validate a capacity; None when no cap is asked for (``entity`` is still validated then).

    Parameters
    ----------
    n : int
        Number of rows decided.
    max_alerts : int >= 1, optional
        Alerts allowed per period.
    max_alert_rate : float in (0, 1], optional
        Share of each period's rows that may be flagged: ``floor(max_alert_rate * rows)``.
    periods : array-like of shape (n,), optional
        Period label of each row (dates, integers, strings); no missing value.
    entity : array-like of shape (n,), optional
        Entity (card, customer) of each row, no missing value: the cap counts entities per period.
        Not with ``max_alert_rate``.
    index : pandas.Index, optional
        The rows' index: a pandas ``periods`` or ``entity`` must carry the same one (rows match by
        position).
    index_name : str
        What ``index`` belongs to, for the message.

    Returns
    -------
    Capacity or None

    Raises
    ------
    ValueError
        Naming ``max_alerts``, ``max_alert_rate``, ``periods`` or ``entity``.
    """
    from ._entity_capacity import entity_codes

    _check_caps(max_alerts, max_alert_rate)
    if entity is not None and max_alert_rate is not None:
        raise ValueError("entity counts alerted entities per period: give max_alerts (entities per period), "
                         f"not max_alert_rate={max_alert_rate!r} (a share of rows)")
    entities = None if entity is None else entity_codes(entity, n, index, index_name)
    if max_alerts is None and max_alert_rate is None:
        if periods is not None:
            raise ValueError("periods is given without max_alerts or max_alert_rate: the periods only say where "
                             "a capacity applies; give the capacity too (or drop periods)")
        return None
    if periods is None:
        codes, labels = np.zeros(n, dtype=np.int64), np.array([None], dtype=object)
    else:
        codes, labels = _period_codes(periods, n, index, index_name)
    rows = np.bincount(codes, minlength=labels.shape[0])
    if max_alerts is not None:  # a cap above the rows is no cap (and a huge one would overflow int64)
        caps = np.full(labels.shape[0], min(int(max_alerts), max(n, 1)), dtype=np.int64)
    else:
        caps = np.floor(np.round(float(max_alert_rate) * rows, 6)).astype(np.int64)
        if rows.max(initial=0) > 0 and not caps.any():
            raise ValueError(f"max_alert_rate={max_alert_rate!r} allows 0 alerts in {caps.shape[0]} of "
                             f"{caps.shape[0]} periods (largest period: {int(rows.max())} rows; the cap is "
                             "floor(max_alert_rate * rows)); use max_alerts= or a larger rate")
    return Capacity(codes, caps, labels, entities)


def rank_value(value):
    """``value`` (float64) rounded to :data:`_RANK_BITS` significant bits: what rows are ranked by, so that values
    equal up to rounding noise tie (and go by row order). Infinities stay infinite."""
    mantissa, exponent = np.frexp(np.asarray(value, dtype=np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        return np.ldexp(np.round(np.ldexp(mantissa, _RANK_BITS)), exponent - _RANK_BITS)


def capped_decisions(value, eligible, capacity, combine="sum"):
    """0/1 decisions under a capacity: the one place every capped decision of the library is taken.

    Without ``capacity.entities``: the eligible rows with the ``capacity.caps`` largest ``value``
    of each period. With them: the ``capacity.caps`` most valuable (period, entity) groups of each
    period, every row of a chosen group flagged; a group's value and eligibility come from its
    rows by ``combine`` (:func:`csboost_plugins._entity_capacity.entity_groups`).

    Parameters
    ----------
    value : ndarray of shape (n,)
        Ranking value per row (larger = alerted first); only eligible rows' values are read
        (every row's with ``combine="sum"`` and entities) and they must not be NaN.
    eligible : ndarray of bool, shape (n,)
        Rows that would be flagged without a cap.
    capacity : Capacity
        From :func:`check_capacity`.
    combine : {"sum", "max"}, default "sum"
        How an entity's rows make its value, when the cap counts entities. ``"sum"``: ``value``
        is money that adds over rows (the expected net money of an alert), the entity's value is
        the sum over all its rows in the period and it is eligible when that sum is > 0
        (``eligible`` is not read). ``"max"``: ``value`` is a score or margin that does not add,
        the entity's value is the largest over its eligible rows and it is eligible when any row is.

    Returns
    -------
    ndarray of int64, shape (n,)
        1 on the flagged rows; ties at a period's cut (values equal to 40 significant bits, see
        :func:`rank_value`) go to the earlier row, or to the entity whose first row in the period
        comes first.
    """
    from ._capacity_kernels import run, top_k_per_group  # numba only when a cap is asked for

    group = None
    if capacity.entities is not None:
        from ._entity_capacity import entity_groups

        group, value, eligible, codes = entity_groups(value, eligible, capacity.codes, capacity.entities, combine)
        capacity = Capacity(codes, capacity.caps, capacity.labels)
    idx = np.flatnonzero(eligible)
    keep = run("top_k_per_group", top_k_per_group, np.ascontiguousarray(rank_value(value[idx])),
               np.ascontiguousarray(capacity.codes[idx], dtype=np.int64),
               np.ascontiguousarray(capacity.caps, dtype=np.int64))
    out = np.zeros(eligible.shape[0], dtype=np.int64)
    out[idx[keep]] = 1
    return out if group is None else out[group]


def ranking_value(s, costs=None):
    """What a capacity ranks rows by: the expected net money of an alert, or the margin.

    Parameters
    ----------
    s : ndarray of shape (n,)
        P(y=1) per row.
    costs : dict or None
        The cost keywords (``fp_cost``, ``fn_cost``, ``tp_cost``, ``tn_cost``, ``cost_matrix``):
        the value is ``s (C_FN - C_TP) - (1 - s)(C_FP - C_TN)`` (money). None: the margin
        ``eta = log(s / (1 - s))`` of a model deciding s > 1/2 by itself (log-odds; +inf where
        s rounds to 1).

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    s = np.asarray(s, dtype=np.float64)
    if costs is None:
        with np.errstate(divide="ignore"):
            return np.log(s) - np.log1p(-s)
    return net_alert_value(s, check_costs(s.shape[0], **costs))


def period_ranks(value, eligible, codes, n_periods, entities=None, combine="sum"):
    """Rank of each eligible row in its period (0 = alerted first), -1 elsewhere.

    The order :func:`capped_decisions` alerts in: larger ``value`` first (rounded by :func:`rank_value`),
    ties by row order, so
    ``ranks < k`` are the decisions under ``k`` alerts per period. With ``entities`` every row
    carries the rank of its (period, entity) group among the period's groups (values pooled by
    ``combine`` as in :func:`capped_decisions`), so ``ranks < k`` are the decisions under ``k``
    entities per period. A full sort (O(n log n)): meant for curves over every capacity at once,
    not for deciding.

    Parameters
    ----------
    value : ndarray of shape (n,)
        Ranking value per row.
    eligible : ndarray of bool, shape (n,)
        Rows that may be alerted.
    codes : ndarray of int64, shape (n,)
        Period code of each row, in ``[0, n_periods)``.
    n_periods : int
        Number of periods.
    entities : ndarray of int64, shape (n,), optional
        Entity code of each row: rank groups, not rows.
    combine : {"sum", "max"}, default "sum"
        How an entity's rows make its value (:func:`capped_decisions`).

    Returns
    -------
    ndarray of int64, shape (n,)
    """
    if entities is not None:
        from ._entity_capacity import entity_groups

        group, group_value, group_eligible, group_codes = entity_groups(value, eligible, codes, entities, combine)
        return period_ranks(group_value, group_eligible, group_codes, n_periods)[group]
    idx = np.flatnonzero(eligible)
    order = idx[np.lexsort((-rank_value(np.asarray(value)[idx]), codes[idx]))]  # stable: row order on ties
    starts = np.concatenate(([0], np.cumsum(np.bincount(codes[idx], minlength=n_periods))[:-1]))
    ranks = np.full(eligible.shape[0], -1, dtype=np.int64)
    ranks[order] = np.arange(order.shape[0]) - starts[codes[order]]
    return ranks
