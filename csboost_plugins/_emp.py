"""Expected maximum profit (EMP) metrics for churn (EMPC / MPC) and credit scoring (EMPCS / MPCS).

Both papers write the profit of flagging the rows with the highest scores as a line in ROC space:
``P = b * pi_pos * TPR - c * pi_neg * FPR`` with ``pi_pos`` / ``pi_neg`` the class rates, ``TPR`` the
fraction of positives flagged and ``FPR`` the fraction of negatives flagged. The papers number the
cases of interest (churners, defaulters) class 0 and flag the rows with the *lowest* scores, so their
``F0(t)`` is our ``TPR`` and their ``F1(t)`` our ``FPR`` when ``y = 1`` marks churners / defaulters and
higher scores mean more likely positive:

* churn (Verbraken, Verbeke, Baesens 2013): ``b = CLV (gamma (1 - delta) - phi)``,
  ``c = CLV (delta + phi)``, ``delta = incentive_cost / CLV``, ``phi = contact_cost / CLV``,
  acceptance rate ``gamma ~ Beta(alpha, beta)``.
* credit (Verbraken, Bravo, Weber, Baesens 2014): ``b = lambda`` (loss given default avoided by
  rejecting a defaulter), ``c = ROI`` (return lost by rejecting a good payer), ``lambda`` with mass
  ``success_rate`` at 0, ``default_rate`` at 1 and uniform density in between.

A linear profit is maximised at a vertex of the ROC convex hull; for a given ``gamma`` (or ``lambda``)
the best vertex is the one where the hull's slope crosses ``c pi_neg / (b pi_pos)``. Each vertex is
therefore best on one interval of the parameter, on which the profit is linear in it, and the
expectation is a sum of closed-form pieces (incomplete beta functions for churn, polynomials for the
uniform part of credit).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._validation import _BinaryLabels, _scores
from .costs import check_same_index

__all__ = [
    "empc_score",
    "mpc_score",
    "empcs_score",
    "mpcs_score",
    "make_empc_scorer",
    "make_mpc_scorer",
    "make_empcs_scorer",
    "make_mpcs_scorer",
]


# --------------------------------------------------------------------------------------
# input reading and the ROC convex hull
# --------------------------------------------------------------------------------------

def _read(y_true, y_score, pos_label):
    """y_true as 0/1 (1 = ``pos_label``) with both classes, and finite 1-D scores of the same length."""
    check_same_index([("y_true", y_true), ("y_score", y_score)])
    if hasattr(y_score, "to_numpy"):
        y_score = y_score.to_numpy()
    labels = _BinaryLabels(y_true, None, pos_label)
    y = labels.y01
    if y.min() == y.max():
        raise ValueError("y_true holds one class only: the expected maximum profit needs both classes "
                         "(the ROC curve is undefined otherwise)")
    s = _scores(y_score, "y_score", column=labels.proba_column)
    if s.shape[0] != y.shape[0]:
        raise ValueError(f"y_score has {s.shape[0]} rows but y_true has {y.shape[0]}")
    if not np.all(np.isfinite(s)):
        raise ValueError("y_score contains inf: scores must be finite")
    return y, s


def _roc_hull(y, s):
    """Vertices of the ROC convex hull from (0, 0) to (1, 1): TPR, FPR and the positive rate.

    Rows are flagged from the highest score down; tied scores are flagged together (one ROC point per
    distinct score). Integer counts keep the turn test exact.
    """
    order = np.argsort(-s, kind="stable")
    s_sorted, y_sorted = s[order], y[order]
    last_of_tie = np.r_[s_sorted[1:] != s_sorted[:-1], True]
    tp = np.r_[0, np.cumsum(y_sorted)[last_of_tie]]
    fp = np.r_[0, np.cumsum(1 - y_sorted)[last_of_tie]]
    fp, tp = _upper_hull(*_drop_inner_points(fp, tp))
    n_pos, n_neg = int(y_sorted.sum()), y.shape[0] - int(y_sorted.sum())
    return np.asarray(tp, np.float64) / n_pos, np.asarray(fp, np.float64) / n_neg, n_pos / y.shape[0]


def _no_right_turn(x0, z0, x1, z1, x2, z2):
    """Point 1 lies on or below the chord from point 0 to point 2 (points sorted by x)."""
    return (x1 - x0) * (z2 - z0) - (z1 - z0) * (x2 - x0) >= 0


def _drop_inner_points(x, z, passes=64):
    """Drop, a whole array at a time, points on or below the chord of their neighbours.

    Such a point is no hull vertex whatever else is dropped, so this only shrinks the input of
    :func:`_upper_hull` (from one point per distinct score to a few hundred) without a Python loop.
    """
    for _ in range(passes):
        inner = _no_right_turn(x[:-2], z[:-2], x[1:-1], z[1:-1], x[2:], z[2:])
        if not inner.any():
            break
        keep = np.r_[True, ~inner, True]
        x, z = x[keep], z[keep]
    return x.tolist(), z.tolist()


def _upper_hull(fp, tp):
    """Monotone-chain upper hull of ROC points sorted by (fp, tp), endpoints kept."""
    hull_fp, hull_tp = [fp[0]], [tp[0]]
    for x, z in zip(fp[1:], tp[1:]):
        while len(hull_fp) >= 2 and _no_right_turn(hull_fp[-2], hull_tp[-2], hull_fp[-1], hull_tp[-1], x, z):
            hull_fp.pop()
            hull_tp.pop()
        hull_fp.append(x)
        hull_tp.append(z)
    return hull_fp, hull_tp


def _crossings(tpr, fpr, ratio):
    """Parameter values where the best hull vertex changes: ``ratio * dFPR / dTPR`` per hull segment.

    For ``P = b pi_pos TPR - c pi_neg FPR`` vertex i beats vertex i+1 while
    ``b < c pi_neg dFPR / (pi_pos dTPR)``; ``ratio`` folds the constants in. A flat last segment
    (dTPR = 0) is never worth taking: +inf.
    """
    d_tpr, d_fpr = np.diff(tpr), np.diff(fpr)
    with np.errstate(divide="ignore"):
        return np.where(d_tpr > 0, ratio * d_fpr / np.where(d_tpr > 0, d_tpr, 1.0), np.inf)


# --------------------------------------------------------------------------------------
# parameter checks
# --------------------------------------------------------------------------------------

def _finite(name, value):
    # a string or a bool would convert silently ("200" -> 200.0, True -> 1.0): refuse them as mistakes
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def _churn_params(clv, incentive_cost, contact_cost):
    clv = _finite("clv", clv)
    d = _finite("incentive_cost", incentive_cost)
    f = _finite("contact_cost", contact_cost)
    if clv <= 0:
        raise ValueError(f"clv must be > 0, got {clv}")
    if d < 0 or f < 0:
        raise ValueError(f"incentive_cost and contact_cost must be >= 0, got {d} and {f}")
    if d >= clv:
        raise ValueError(f"incentive_cost must be below clv (an accepted offer must be worth making), got "
                         f"incentive_cost={d} and clv={clv}")
    return clv, d / clv, f / clv


def _rate(name, value):
    v = _finite(name, value)
    if not 0 <= v <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {v}")
    return v


def _result(value, rate, return_threshold):
    return (float(value), float(rate)) if return_threshold else float(value)


_RETURNS = """Returns
    -------
    score : float
        Profit per row (customer / applicant), in the money unit of the parameters.
    alert_rate : float
        Only with ``return_threshold=True``: the fraction of rows to flag (target / reject), the highest
        scores first, at which the profit is reached{expected}."""

_LABELS = """y_true : array-like of shape (n_samples,)
        Binary labels with both classes: {{0, 1}}, booleans, or any two values with ``pos_label`` among
        them. The positive class is the one the campaign is about ({what}).
    y_score : array-like of shape (n_samples,) or (n_samples, 2)
        Scores, higher = more likely ``pos_label`` (any finite values: only their order counts), or a
        ``predict_proba`` output whose ``pos_label`` column is read."""

_TAIL = """return_threshold : bool, default=False
        Also return the profit-maximising alert rate.
    pos_label : int, float, bool, str or None, default=None
        The positive class; None: 1 for labels {0, 1} / {-1, 1} / booleans (see
        :func:`csboost_plugins.metrics.savings_score`)."""


_CHURN_MONEY = """clv : float, default=200.0
        Customer lifetime value of a retained churner, > 0.
    incentive_cost : float, default=10.0
        Cost of the retention offer (``d``), paid by every customer who accepts it, in [0, clv).
    contact_cost : float, default=1.0
        Cost of contacting one customer (``f``), >= 0."""


def _doc(text, *, what, expected=""):
    return text.format(labels=_LABELS.format(what=what), tail=_TAIL, returns=_RETURNS.format(expected=expected),
                       churn_money=_CHURN_MONEY)


# --------------------------------------------------------------------------------------
# churn: EMPC / MPC
# --------------------------------------------------------------------------------------

def _churn_profits(tpr, fpr, pi_pos, clv, delta, phi, gamma):
    """Profit per customer at each hull vertex for acceptance rate ``gamma``."""
    return clv * ((gamma * (1 - delta) - phi) * pi_pos * tpr - (delta + phi) * (1 - pi_pos) * fpr)


def mpc_score(y_true, y_score, *, accept_rate=0.3, clv=200.0, incentive_cost=10.0, contact_cost=1.0,
              return_threshold=False, pos_label=None):
    y, s = _read(y_true, y_score, pos_label)
    gamma = _rate("accept_rate", accept_rate)
    clv, delta, phi = _churn_params(clv, incentive_cost, contact_cost)
    tpr, fpr, pi_pos = _roc_hull(y, s)
    profits = _churn_profits(tpr, fpr, pi_pos, clv, delta, phi, gamma)
    best = int(np.argmax(profits))  # the first maximum: the smallest alert rate among ties
    return _result(profits[best], pi_pos * tpr[best] + (1 - pi_pos) * fpr[best], return_threshold)


mpc_score.__doc__ = _doc("""Maximum profit for customer churn (MPC): the best profit per customer over all thresholds.

    Profit per customer of contacting the rows above a threshold (Verbraken et al. 2013, with their
    class 0, the churners, as our ``pos_label``):
    ``P = CLV (gamma (1 - delta) - phi) pi_pos TPR - CLV (delta + phi) pi_neg FPR`` with
    ``delta = incentive_cost / clv``, ``phi = contact_cost / clv`` and the acceptance rate
    ``gamma = accept_rate`` fixed. Contacting nobody is one choice, so the score is >= 0.

    Parameters
    ----------
    {labels}
    accept_rate : float, default=0.3
        Fraction of contacted churners who accept the offer and stay (``gamma``), in [0, 1].
    {churn_money}
    {tail}

    {returns}
    """, what="the churners")


def empc_score(y_true, y_score, *, alpha=6.0, beta=14.0, clv=200.0, incentive_cost=10.0, contact_cost=1.0,
               return_threshold=False, pos_label=None):
    from scipy.special import betainc

    y, s = _read(y_true, y_score, pos_label)
    a, b = _finite("alpha", alpha), _finite("beta", beta)
    if a <= 0 or b <= 0:
        raise ValueError(f"alpha and beta must be > 0, got alpha={a} and beta={b}")
    clv, delta, phi = _churn_params(clv, incentive_cost, contact_cost)
    tpr, fpr, pi_pos = _roc_hull(y, s)
    # vertex i is best for gamma in [edges[i], edges[i+1]]; vertex 0 (nobody contacted) below phi/(1-delta)
    cross = (phi + _crossings(tpr, fpr, (delta + phi) * (1 - pi_pos) / pi_pos)) / (1 - delta)
    edges = np.clip(np.r_[0.0, cross, np.inf], 0.0, 1.0)
    prob = np.diff(betainc(a, b, edges))  # P(gamma in the interval)
    mean_part = a / (a + b) * np.diff(betainc(a + 1, b, edges))  # E[gamma; gamma in the interval]
    value = clv * np.sum((1 - delta) * pi_pos * tpr * mean_part
                         - (phi * pi_pos * tpr + (delta + phi) * (1 - pi_pos) * fpr) * prob)
    rate = np.sum((pi_pos * tpr + (1 - pi_pos) * fpr) * prob)
    return _result(value, rate, return_threshold)


empc_score.__doc__ = _doc("""Expected maximum profit for churn (EMPC): the MPC averaged over a Beta acceptance rate.

    ``EMPC = integral over gamma of max_t P(t; gamma) h(gamma) d gamma`` with ``h`` the
    ``Beta(alpha, beta)`` density and ``P`` the profit per customer of :func:`mpc_score` (Verbraken et
    al. 2013, their class 0, the churners, being our ``pos_label``). Computed exactly from the ROC
    convex hull: each hull vertex is the best threshold on one interval of ``gamma``, where the profit
    is linear in ``gamma``. The score is >= 0 (contacting nobody is always a choice).

    Parameters
    ----------
    {labels}
    alpha, beta : float, default=6.0, 14.0
        Shape parameters of the Beta distribution of the acceptance rate ``gamma``, > 0.
    {churn_money}
    {tail}

    {returns}

    Examples
    --------
    >>> from csboost_plugins.metrics import empc_score
    >>> y = [0, 0, 1, 1]
    >>> # perfect ranking, half the customers churn: about clv / 2 (E[gamma] (1 - delta) - phi) = 28
    >>> round(empc_score(y, [0.1, 0.2, 0.8, 0.9]), 2)
    28.0
    """, what="the churners", expected=" (expected over ``gamma``)")


# --------------------------------------------------------------------------------------
# credit scoring: EMPCS / MPCS
# --------------------------------------------------------------------------------------

def _check_roi(roi):
    roi = _finite("roi", roi)
    if roi <= 0:
        raise ValueError(f"roi must be > 0, got {roi}")
    return roi


def mpcs_score(y_true, y_score, *, loan_lost_rate=0.275, roi=0.2644, return_threshold=False, pos_label=None):
    y, s = _read(y_true, y_score, pos_label)
    lam = _rate("loan_lost_rate", loan_lost_rate)
    roi = _check_roi(roi)
    tpr, fpr, pi_pos = _roc_hull(y, s)
    profits = lam * pi_pos * tpr - roi * (1 - pi_pos) * fpr
    best = int(np.argmax(profits))
    return _result(profits[best], pi_pos * tpr[best] + (1 - pi_pos) * fpr[best], return_threshold)


mpcs_score.__doc__ = _doc("""Maximum profit for credit scoring (MPCS): the best profit per applicant over thresholds.

    Profit per applicant, as a fraction of the loan, of rejecting the rows above a threshold
    (Verbraken et al. 2014, with their class 0, the defaulters, as our ``pos_label``):
    ``P = lambda pi_pos TPR - ROI pi_neg FPR`` with the loss given default ``lambda = loan_lost_rate``
    fixed. Its default 0.275 is the mean of the EMPCS distribution of ``lambda`` (0.1 at 1 plus half
    of the uniform mass 0.35), as ``empulse`` uses. Rejecting nobody is one choice, so the score is >= 0.

    Parameters
    ----------
    {labels}
    loan_lost_rate : float, default=0.275
        Fraction of a defaulter's loan that is lost (``lambda``), in [0, 1].
    roi : float, default=0.2644
        Return on investment of a loan to a good payer, lost when it is rejected, > 0.
    {tail}

    {returns}
    """, what="the defaulters")


def empcs_score(y_true, y_score, *, success_rate=0.55, default_rate=0.1, roi=0.2644, return_threshold=False,
                pos_label=None):
    y, s = _read(y_true, y_score, pos_label)
    p0, p1 = _rate("success_rate", success_rate), _rate("default_rate", default_rate)
    if p0 + p1 > 1:
        raise ValueError(f"success_rate + default_rate must be <= 1, got {p0} + {p1}")
    roi = _check_roi(roi)
    tpr, fpr, pi_pos = _roc_hull(y, s)
    # vertex i is best for lambda in [edges[i], edges[i+1]] (vertex 0, nobody rejected, at lambda = 0)
    edges = np.clip(np.r_[0.0, _crossings(tpr, fpr, roi * (1 - pi_pos) / pi_pos), np.inf], 0.0, 1.0)
    uniform = 1 - p0 - p1
    # uniform part: integral of (lambda pi_pos TPR - roi pi_neg FPR) over each interval
    value = uniform * np.sum(pi_pos * tpr * np.diff(edges ** 2) / 2 - roi * (1 - pi_pos) * fpr * np.diff(edges))
    rates = pi_pos * tpr + (1 - pi_pos) * fpr
    rate = uniform * np.sum(rates * np.diff(edges))
    # the mass at lambda = 1 takes the best vertex there (the first one whose interval reaches 1);
    # the mass at lambda = 0 rejects nobody: profit 0, rate 0
    at_one = int(np.argmax(edges[1:] >= 1.0))
    value += p1 * (pi_pos * tpr[at_one] - roi * (1 - pi_pos) * fpr[at_one])
    rate += p1 * rates[at_one]
    return _result(value, rate, return_threshold)


empcs_score.__doc__ = _doc("""Expected maximum profit for credit scoring (EMPCS): the MPCS averaged over the LGD.

    ``EMPCS = integral over lambda of max_t P(t; lambda) h(lambda) d lambda`` with ``P`` the profit
    per applicant of :func:`mpcs_score` and ``h`` the loss-given-default distribution of Verbraken et al.
    2014: mass ``success_rate`` (their ``p0``) at ``lambda = 0``, mass ``default_rate`` (their ``p1``) at
    ``lambda = 1``, uniform density ``1 - p0 - p1`` in between. Their class 0, the defaulters, is our
    ``pos_label``. Computed exactly from the ROC convex hull; the score is >= 0.

    Parameters
    ----------
    {labels}
    success_rate : float, default=0.55
        Probability that a defaulter's loan is fully recovered (``lambda = 0``), in [0, 1].
    default_rate : float, default=0.1
        Probability that a defaulter's loan is fully lost (``lambda = 1``), in [0, 1];
        ``success_rate + default_rate <= 1``.
    roi : float, default=0.2644
        Return on investment of a loan to a good payer, lost when it is rejected, > 0.
    {tail}

    {returns}
    """, what="the defaulters", expected=" (expected over ``lambda``)")


# --------------------------------------------------------------------------------------
# scorers
# --------------------------------------------------------------------------------------

def _scorer(score_func, params, pos_label):
    from sklearn.metrics import make_scorer

    # parameters are checked now rather than in the first fold of a search
    score_func([0, 1], [0.0, 1.0], **params)
    kw = {} if pos_label is None else {"pos_label": pos_label}
    return make_scorer(score_func, response_method=("predict_proba", "decision_function"), **params, **kw)


def _scorer_doc(name):
    return f"""A scikit-learn scorer computing :func:`{name}` of ``predict_proba`` (or ``decision_function``).

    No per-row costs are involved, so no metadata routing is needed: it is
    ``sklearn.metrics.make_scorer({name}, response_method=("predict_proba", "decision_function"), **params)``
    with the parameters checked when the scorer is built. Higher is better.

    Parameters
    ----------
    pos_label : int, float, bool, str or None, default=None
        The positive class; its ``predict_proba`` column is scored (None: the last of ``classes_``, and
        labels other than {{0, 1}} / {{-1, 1}} must name it).
    **params
        Keyword parameters of :func:`{name}` (e.g. ``clv=``), fixed for every fold.

    Returns
    -------
    callable
        A scorer for ``GridSearchCV(scoring=...)`` or ``cross_val_score``.
    """


def make_empc_scorer(*, pos_label=None, **params):
    return _scorer(empc_score, params, pos_label)


def make_mpc_scorer(*, pos_label=None, **params):
    return _scorer(mpc_score, params, pos_label)


def make_empcs_scorer(*, pos_label=None, **params):
    return _scorer(empcs_score, params, pos_label)


def make_mpcs_scorer(*, pos_label=None, **params):
    return _scorer(mpcs_score, params, pos_label)


for _f in (make_empc_scorer, make_mpc_scorer, make_empcs_scorer, make_mpcs_scorer):
    _f.__doc__ = _scorer_doc(_f.__name__.replace("make_", "").replace("_scorer", "_score"))
del _f
