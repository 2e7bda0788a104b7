"""Card precision@k per period (the Fraud Detection Handbook's daily review of k cards):
:func:`card_precision_at_k`."""

from __future__ import annotations

import numbers

import numpy as np

from ._periods import _SUMS, period_codes, period_sums
from ._validation import _scores
from .costs import check_same_index

__all__ = ["card_precision_at_k"]


def _check_k(k):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (numbers.Integral, np.integer)):
        raise TypeError(f"k must be an integer (cards reviewed per period), got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1 (cards reviewed per period), got {k}")
    return int(k)


def _cards(y, s, entity, period, n_entities):
    """One card per (period, entity): ``(row_card, card_period, card_entity, card_score, card_label)``,
    the card's score being its rows' highest and its label 1 when any of its rows is positive."""
    key = period * np.int64(n_entities) + entity
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    first = np.r_[True, sorted_key[1:] != sorted_key[:-1]]
    starts = np.flatnonzero(first)
    row_card = np.empty(key.size, dtype=np.int64)
    row_card[order] = np.cumsum(first) - 1
    card_key = sorted_key[starts]
    return (row_card, card_key // n_entities, card_key % n_entities, np.maximum.reduceat(s[order], starts),
            np.maximum.reduceat(y[order], starts))


def _review(card_period, card_entity, card_score, card_label, n_periods, n_entities, k, exclude_detected):
    """Period by period (sorted), the top ``k`` cards (score descending, entity ascending) among those not
    detected before: ``(alerted cards mask, cards ranked per period, frauds in the top k per period)``."""
    rank = np.lexsort((card_entity, -card_score, card_period))
    bounds = np.searchsorted(card_period[rank], np.arange(n_periods + 1))
    detected = np.zeros(n_entities, dtype=bool)
    alerted = np.zeros(card_period.size, dtype=bool)
    cards = np.zeros(n_periods, dtype=np.int64)
    frauds = np.zeros(n_periods, dtype=np.int64)
    for p in range(n_periods):  # sequential: a card detected today leaves the later periods
        ranked = rank[bounds[p]:bounds[p + 1]]
        if exclude_detected:
            ranked = ranked[~detected[card_entity[ranked]]]
        top = ranked[:k]
        alerted[top] = True
        hit = top[card_label[top] == 1]
        cards[p], frauds[p] = ranked.size, hit.size
        detected[card_entity[hit]] = True
    return alerted, cards, frauds


def card_precision_at_k(y_true, y_score, *, entity, periods, k=100, exclude_detected=True, fp_cost=None,
                        fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, pos_label=None,
                        return_periods=False):
    """Card precision@k: the share of frauds among the k cards reviewed each period, averaged over periods.

    The Fraud Detection Handbook's measure (Le Borgne et al., 2022, chapter 4) of a team that
    reviews ``k`` cards a day. In period ``t`` (in sorted order) each card (``entity``) counts once,
    with the highest score of its rows in ``t``, and is a fraud card when any of its rows in ``t`` is
    positive. The cards are ordered by that score, descending, ties by entity id ascending; the
    first ``k`` are reviewed, and

        ``CP@k(t) = (fraud cards among the top k) / k``

    (divided by ``k`` even when fewer than ``k`` cards exist in ``t``). With ``exclude_detected``, a
    card found fraudulent (a fraud card in the top k) is blocked: it leaves every later period.
    The result is the mean of ``CP@k(t)`` over the periods present in ``periods``.

    With costs, every row of a reviewed card in ``t`` counts as flagged, and per period (money, the
    costs' unit, as :func:`csboost_plugins.metrics.money_by_period`): ``money_caught`` = sum over
    flagged positive rows of ``C_FN - C_TP``, ``alert_cost`` = sum over flagged negative rows of
    ``C_FP - C_TN``, ``net_money`` = money_caught - alert_cost.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels of the rows (transactions): {0, 1}, booleans, or two values with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores (higher = more suspicious), e.g. P(fraud); no NaN.
    entity : array-like of shape (n_samples,)
        The card (customer) of each row; ids that sort (ints, strings), no missing id.
    periods : array-like of shape (n_samples,)
        The period (day) of each row, e.g. ``times.floor("D")``; labels that sort, none missing.
    k : int >= 1, default=100
        Cards reviewed per period.
    exclude_detected : bool, default=True
        Remove cards detected in an earlier period from the later ones.
    fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix : float or array-like, optional
        Per-row costs (``C_FP``, ``C_FN``, ``C_TP``, ``C_TN`` or an (n_samples, 4) matrix) for the money
        columns (``fn_cost`` needs ``fp_cost``: see the costs guide's cost keywords).
    pos_label : int, float, bool, str or None, default=None
        The fraud label; needed for labels other than {0, 1}, {-1, 1} or booleans.
    return_periods : bool, default=False
        Also return the table per period.

    Returns
    -------
    float
        The mean over periods of ``CP@k(t)``, in [0, 1].
    pandas.DataFrame
        Only with ``return_periods=True``: one row per period (sorted), columns ``period``, ``cards``
        (cards ranked, after removing detected ones), ``frauds_in_top_k``, ``precision`` and, with costs,
        ``money_caught``, ``alert_cost``, ``net_money``.

    Raises
    ------
    ValueError
        Lengths that differ, NaN scores, a missing entity or period, pandas arguments with another
        index, or labels that do not name the fraud class.
    TypeError
        ``k`` not an integer, ``exclude_detected`` or ``return_periods`` not a bool.

    Examples
    --------
    >>> from csboost_plugins.metrics import card_precision_at_k
    >>> y = [1, 0, 0, 1, 0, 1]
    >>> score = [0.9, 0.8, 0.1, 0.7, 0.6, 0.2]
    >>> card = ["a", "b", "c", "a", "b", "c"]
    >>> day = [1, 1, 1, 2, 2, 2]
    >>> card_precision_at_k(y, score, entity=card, periods=day, k=1)  # day 2: card a is blocked
    0.5
    >>> card_precision_at_k(y, score, entity=card, periods=day, k=1, exclude_detected=False)
    1.0
    """
    for name, flag in (("exclude_detected", exclude_detected), ("return_periods", return_periods)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    k = _check_k(k)
    from ._rows import read_rows

    check_same_index([("y_true", y_true), ("y_score", y_score)])
    rows = read_rows(None, y_true, pos_label=pos_label, require_both=False, fp_cost=fp_cost, fn_cost=fn_cost,
                     tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix, periods=periods, entity=entity,
                     y_name="y_true")
    y, n, c = rows.y, rows.n, rows.costs
    s = _scores(y_score.to_numpy() if hasattr(y_score, "to_numpy") else y_score, "y_score", column=None)
    if s.shape[0] != n:
        raise ValueError(f"y_score has {s.shape[0]} rows but y_true has {n}")
    ent, ent_labels = period_codes(entity, n, "entity")
    per, per_labels = period_codes(periods, n, "periods")
    row_card, card_period, card_entity, card_score, card_label = _cards(y, s, ent, per, len(ent_labels))
    alerted, cards, frauds = _review(card_period, card_entity, card_score, card_label, len(per_labels),
                                     len(ent_labels), k, bool(exclude_detected))
    precision = frauds / k
    mean = float(precision.mean())
    if not return_periods:
        return mean
    import pandas as pd

    table = pd.DataFrame({"period": per_labels, "cards": cards, "frauds_in_top_k": frauds, "precision": precision})
    if c is not None:
        sums = period_sums(per, len(per_labels), y, alerted[row_card].astype(np.float64), np.ones(n), c)
        table["money_caught"] = sums[:, _SUMS.index("money_caught")]
        table["alert_cost"] = sums[:, _SUMS.index("alert_cost")]
        table["net_money"] = table["money_caught"] - table["alert_cost"]
    return mean, table
