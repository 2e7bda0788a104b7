"""Average expected cost (AEC) objective: the maths shared by the xgboost, lightgbm and CatBoost plugins.

Notation (csboost paper, sections 4-5). Row i has label y_i, margin eta_i,
score s_i = sigma(eta_i) = 1 / (1 + exp(-eta_i)) and costs C_FP, C_FN, C_TP, C_TN
(money). Its expected cost (paper eq. 7, before averaging) is

    EC_i(s) = y_i (s C_TP + (1-s) C_FN) + (1-y_i)(s C_FP + (1-s) C_TN)
            = c0_i + d_i s,

with c0_i = y_i C_FN + (1-y_i) C_TN the cost of predicting 0, c1_i the cost of
predicting 1, and the *regret difference* d_i = c1_i - c0_i
= y_i (C_TP - C_FN) + (1-y_i)(C_FP - C_TN) (money). Paper eq. 16:

    g_i = dEC_i/deta = d_i s (1-s)
    h_i = d^2EC_i/deta^2 = d_i s (1-s)(1-2s) = g_i (1-2s).

The exact h_i is zero at s = 1/2 and has the sign of -d_i where s > 1/2, so a
Newton leaf value -sum g / sum h is undefined or points uphill: xgboost#10105,
LightGBM#2239. :func:`aec_grad_hess` therefore offers hessian *policies*:

``"abs"`` (default: best mean expected savings of the variants in
    benchmarks/bench_boosting_money.py; see benchmarks/results/boosting.md)
    h_i = |d_i| s (1-s) max(|1-2s|, floor): the R csboost's |(1-2s) g| (floor 0,
    started at margin 0.51 to dodge the zero at s = 1/2); the floor (``hessian_floor``, default 0.1) keeps the
    step finite near s = 1/2 (at most 1/floor margin units per round); floor 0
    reproduces |(1-2s) g| exactly. Far from s = 1/2 it is the exact curvature's size.
``"fisher"``
    h_i = |d_i| s (1-s): the Bernoulli Fisher information in margin space, weighted
    by the row's regret. Always > 0 except where the gradient vanishes too
    (saturation), and |g_i| / h_i = 1, so a leaf's Newton step
    -sum g / sum h lies in [-1, 1] margin units (times the learning rate): a
    bounded natural-gradient step. It is the Gauss-Newton-type surrogate, and what
    empulse's CSBoostClassifier uses (benchmarks/bench_boosting_money.py reproduces its numbers exactly
    with ``hessian="fisher", start_margin=0``).
``"bound"``
    h_i = |d_i| / (6 sqrt 3): the global bound max |s(1-s)(1-2s)| = 1/(6 sqrt 3)
    on the curvature, a majorisation step that can never overshoot.
``"exact"``
    paper eq. 16 as printed; may be <= 0. For checking only: the boosters
    misbehave with it.

Every policy's gradient is the exact one. Costs are divided by a *cost scale*
(the sample-weighted mean |d_i|, :func:`cost_scale`) so that gradients and
hessians are O(s(1-s)) like logloss's, whatever the currency: the same learning
rate, min_child_weight / min_sum_hessian_in_leaf and lambda then work for costs in
cents or in millions, and multiplying every cost by a constant leaves the trained
model unchanged.

A blend ``logloss_weight = alpha`` adds alpha times the logloss of y (gradient
s - y, hessian s(1-s)) to the scaled expected cost: a calibrating pull that keeps
s away from the 0/1 extremes to which pure AEC drives it.
"""

from __future__ import annotations

import threading

import numpy as np
from scipy.special import expit

from . import _aec_kernels
from .._metric_names import MONEY_METRICS
from ..decision_costs import decision_costs, regret_difference, savings_from_costs

__all__ = [
    "HESSIANS",
    "GradHessBuffers",
    "aec_grad_hess",
    "cost_scale",
    "decision_costs",
    "encode_costs_as_weights",
    "expected_cost",
    "regret_difference",
    "sigmoid",
    "start_margin",
]

#: Hessian policies accepted by :func:`aec_grad_hess`.
HESSIANS = ("fisher", "abs", "bound", "exact")

_BOUND = 1.0 / (6.0 * np.sqrt(3.0))  # max over s of |s (1-s)(1-2s)|


def sigmoid(margin):
    """s = 1 / (1 + exp(-margin)), overflow-free for any finite or infinite margin (scipy expit).

    Parameters
    ----------
    margin : array-like
        Margins (log-odds).

    Returns
    -------
    ndarray of float64
        Probabilities in [0, 1].
    """
    return expit(np.asarray(margin, dtype=np.float64))



def expected_cost(margin, y, costs):
    """Per-row expected cost EC_i = c0 + d s (money), computed from whichever of s, 1-s is exact.

    For margin >= 0 the form c1 - d (1-s) with 1-s = sigma(-margin) avoids the
    cancellation of 1 - s in float64, so finite differences of it are accurate.

    Parameters
    ----------
    margin : array of shape (n,)
        Margins.
    y : array of shape (n,)
        0/1 labels.
    costs : array of shape (n, 4)
        [C_FP, C_FN, C_TP, C_TN] per row (money).

    Returns
    -------
    ndarray of shape (n,)
        Expected cost per row (money).
    """
    m = np.asarray(margin, dtype=np.float64)
    c0, c1 = decision_costs(y, costs)
    d = c1 - c0
    return np.where(m < 0, c0 + d * expit(m), c1 - d * expit(-m))


def cost_scale(d, sample_weight=None) -> float:
    """Cost scale: sample-weighted mean of |d_i| (money per row); costs are divided by it.

    Raises ``ValueError`` when every row's regret is 0 (nothing to learn).

    Parameters
    ----------
    d : array of shape (n,)
        Regret differences (money).
    sample_weight : array of shape (n,), optional
        Row weights.

    Returns
    -------
    float
        The scale (money per row), > 0.
    """
    a = np.abs(np.asarray(d, dtype=np.float64))
    if sample_weight is None:
        scale = float(a.mean()) if a.size else 0.0
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        tot = float(w.sum())
        scale = float(a @ w) / tot if tot > 0 else 0.0
    if not scale > 0:
        raise ValueError(
            "cost scale is 0: every row has C_TP == C_FN (y=1) or C_FP == C_TN (y=0), "
            "so the expected cost does not depend on the model"
        )
    return scale


def start_margin(y, sample_weight=None, *, kind="prior", d=None) -> float:
    """Starting margin eta_0 of the boosting, chosen on purpose.

    ``kind="prior"``: logit of the (sample-weighted) positive rate, the margin
    logloss boosting starts from. ``kind="cost_prior"``: logit of the share of
    regret mass that prefers predicting 1, rho = sum_{d_i<0} w_i |d_i| / sum_i w_i |d_i|
    (needs ``d``): the logloss start of the cost-folded problem of
    :func:`encode_costs_as_weights`. A float is returned as is (0 puts every row at
    s = 1/2, the AEC decision boundary; fine for the "fisher" hessian, which is
    largest there, but where the "exact" hessian vanishes). Clipped to [-10, 10].

    Parameters
    ----------
    y : array of shape (n,)
        0/1 labels.
    sample_weight : array of shape (n,), optional
        Row weights.
    kind : {"prior", "cost_prior"} or float
        How to choose the margin.
    d : array of shape (n,), optional
        Regret differences (needed by "cost_prior").

    Returns
    -------
    float
        The start margin (log-odds).
    """
    if not isinstance(kind, str):
        v = float(kind)
        if not np.isfinite(v):
            raise ValueError(f"start_margin must be finite, got {kind!r}")
        return v
    if kind == "prior":
        y = np.asarray(y, dtype=np.float64)
        num, den = (float(y.sum()), float(y.shape[0])) if sample_weight is None else (
            float(y @ sample_weight), float(np.sum(sample_weight)))
    elif kind == "cost_prior":
        if d is None:
            raise ValueError("start_margin='cost_prior' needs the regret differences d")
        a = np.abs(np.asarray(d, dtype=np.float64))
        if sample_weight is not None:
            a = a * sample_weight
        num, den = float(a[np.asarray(d) < 0].sum()), float(a.sum())
    else:
        raise ValueError(f"start_margin must be 'prior', 'cost_prior' or a float, got {kind!r}")
    rate = num / den if den > 0 else 0.5
    rate = min(max(rate, 1e-6), 1 - 1e-6)
    return float(np.clip(np.log(rate) - np.log1p(-rate), -10.0, 10.0))


def aec_grad_hess(margin, d, *, y=None, sample_weight=None, hessian="abs", hessian_floor=0.1,
                  logloss_weight=0.0, out=None):
    """Gradient and hessian of ``sum_i w_i [d_i s_i + alpha * logloss_i]`` w.r.t. each margin.

    Per row, with s = sigma(m) and ss = s (1-s)::

        g = w (d ss + alpha (s - y)),   h = w (H + alpha ss),

    H the policy's hessian (module doc). One fused pass of a compiled kernel
    (:mod:`csboost_plugins.boosting._aec_kernels`, threads over row blocks); no validation of
    values (callers validate once, outside the boosting loop).

    Parameters
    ----------
    margin : array of shape (n,), float32 or float64
        Margins eta, read as given (no copy).
    d : array of shape (n,)
        Regret differences already divided by the cost scale (unitless).
    y : array of shape (n,), optional
        0/1 labels; needed when ``logloss_weight`` > 0.
    sample_weight : array of shape (n,), optional
        Row weights w (default 1).
    hessian : {"abs", "fisher", "bound", "exact"}
        Hessian policy H (see :data:`HESSIANS`).
    hessian_floor : float
        Floor on abs(1 - 2s) of the "abs" policy.
    logloss_weight : float
        alpha >= 0, weight of the logloss blend.
    out : tuple of two arrays of shape (n,), optional
        Preallocated float32 or float64 (g, h) to write into (see :class:`GradHessBuffers`).
        Float64 outputs equal the former numpy implementation bit for bit; float32
        outputs take one exp per row and are within 1 float32 ulp of it.

    Returns
    -------
    g, h : arrays of shape (n,)
        ``out`` when given, else new float64 arrays.
    """
    if hessian not in HESSIANS:
        raise ValueError(f"hessian must be one of {HESSIANS}, got {hessian!r}")
    if logloss_weight and y is None:
        raise ValueError("logloss_weight > 0 needs the labels y")
    n = np.shape(margin)[0] if np.ndim(margin) else 1
    if out is None:
        out = (np.empty(n), np.empty(n))
    return _aec_kernels.grad_hess(margin, d, y if logloss_weight else None, sample_weight,
                                  _aec_kernels.POLICIES[hessian], hessian_floor, logloss_weight, *out)


class GradHessBuffers:
    """Gradient and hessian arrays reused across boosting rounds (one pair per thread).

    xgboost and lightgbm copy the arrays an objective returns before they call it
    again, so a round need not allocate: :meth:`get` returns the same two arrays every
    round, one pair per thread so that one objective may train several boosters at
    once. Pickles (and deep-copies) as empty buffers.

    Parameters
    ----------
    dtype : numpy dtype, default float32
        Element type of the arrays (both libraries keep float32 gradients).
    """

    def __init__(self, dtype=np.float32):
        self.dtype = np.dtype(dtype)
        self._local = threading.local()

    def get(self, n):
        """The calling thread's (g, h) pair of length ``n``.

        Parameters
        ----------
        n : int
            Number of rows.

        Returns
        -------
        g, h : arrays of shape (n,)
            Reused while ``n`` stays the same; their contents are overwritten by the next round.
        """
        pair = getattr(self._local, "pair", None)
        if pair is None or pair[0].shape[0] != n:
            pair = self._local.pair = (np.empty(n, self.dtype), np.empty(n, self.dtype))
        return pair

    def __reduce__(self):
        return (GradHessBuffers, (self.dtype,))




def encode_costs_as_weights(y, d, sample_weight=None, scale=None):
    """Fold the AEC into a weighted binary problem (for channels that carry only label and weight).

    EC_i = c0_i + d_i s_i, so the AEC gradient is that of rows with weight
    w_i |d_i| / scale and label z_i = [d_i < 0] (the label for which predicting 1
    is cheaper): g_i = w_i |d_i| (1 - 2 z_i) s (1-s) / scale. Under the
    reasonableness conditions z_i = y_i. Works on numpy and dask arrays alike.

    Parameters
    ----------
    y : array of shape (n,)
        0/1 labels (kept for the signature; z comes from d).
    d : array of shape (n,)
        Regret differences (money).
    sample_weight : array of shape (n,), optional
        Row weights.
    scale : float, optional
        Cost scale (default :func:`cost_scale` of d).

    Returns
    -------
    z : array of int64
        Folded labels [d < 0].
    weight : array
        w abs(d) / scale.
    scale : float
        The cost scale used (money per row).
    """
    a = abs(d)
    if scale is None:
        scale = cost_scale(np.asarray(d), sample_weight)
    w = a / scale if sample_weight is None else a * sample_weight / scale
    z = (d < 0).astype("int64")
    return z, w, scale


def fold_costs_dask(y, fp_cost, fn_cost, tp_cost=0.0, tn_cost=0.0, sample_weight=None, start_margin="cost_prior"):
    """:func:`encode_costs_as_weights` for dask arrays (chunk-wise), with global scale and start margin.

    Returns ``(z, weight, info)``: label z = [d < 0] and weight w |d| / scale as dask
    arrays partitioned like ``y``; ``info`` holds ``cost_scale`` and ``start_margin``
    computed over all partitions (one ``dask.compute``).

    Parameters
    ----------
    y : dask array of shape (n,)
        0/1 labels.
    fp_cost, fn_cost, tp_cost, tn_cost : float or dask array
        Costs (money).
    sample_weight : dask array, optional
        Row weights.
    start_margin : {"prior", "cost_prior"} or float
        Start margin (see :func:`start_margin`).

    Returns
    -------
    z : dask array of int64
        Folded labels.
    weight : dask array
        Folded weights.
    info : dict
        ``cost_scale`` and ``start_margin``.
    """
    import dask

    y = y.astype("float64")
    d = (y * tp_cost + (1 - y) * fp_cost) - (y * fn_cost + (1 - y) * tn_cost)
    a = abs(d) if sample_weight is None else abs(d) * sample_weight
    tot_w = y.shape[0] if sample_weight is None else sample_weight.sum()
    pos = y.sum() if sample_weight is None else (y * sample_weight).sum()
    tot_a, a_neg, tot_w, pos = dask.compute(a.sum(), (a * (d < 0)).sum(), tot_w, pos)
    scale = float(tot_a) / float(tot_w)
    if not scale > 0:
        raise ValueError("cost scale is 0: the expected cost does not depend on the model")
    if isinstance(start_margin, str):
        if start_margin not in ("prior", "cost_prior"):
            raise ValueError(f"start_margin must be 'prior', 'cost_prior' or a float, got {start_margin!r}")
        num, den = (float(pos), float(tot_w)) if start_margin == "prior" else (float(a_neg), float(tot_a))
        rate = min(max(num / den, 1e-6), 1 - 1e-6)
        margin = float(np.clip(np.log(rate) - np.log1p(-rate), -10.0, 10.0))
    else:
        margin = float(start_margin)
        if not np.isfinite(margin):
            raise ValueError(f"start_margin must be finite, got {start_margin!r}")
    return (d < 0).astype("int64"), a / scale, {"cost_scale": scale, "start_margin": margin}




def check_hessian_params(hessian, hessian_floor, logloss_weight):
    """Validate the objective's parameters once (ValueError naming the argument).

    Parameters
    ----------
    hessian : str
        Hessian policy, one of :data:`HESSIANS`.
    hessian_floor : float
        In [0, 1].
    logloss_weight : float
        Finite, >= 0.
    """
    if hessian not in HESSIANS:
        raise ValueError(f"hessian must be one of {HESSIANS}, got {hessian!r}")
    if not (np.isfinite(hessian_floor) and 0 <= hessian_floor <= 1):
        raise ValueError(f"hessian_floor must lie in [0, 1], got {hessian_floor!r}")
    if not (np.isfinite(logloss_weight) and logloss_weight >= 0):
        raise ValueError(f"logloss_weight must be finite and >= 0, got {logloss_weight!r}")


# --------------------------------------------------------------------------------------
# money metrics on (margin or probability, label, costs), shared by both plugins
# --------------------------------------------------------------------------------------

#: metric name -> higher is better (the library's one registry of metric names)
METRICS = MONEY_METRICS


def money_metric_value(kind, s, y, costs, sample_weight=None, decision="bmr", *, is_margin=False):
    """Value of a money metric (called every boosting round; no validation).

    ``"aec"``: sum_i w_i EC_i / sum_i w_i (money per row, paper eq. 7);
    ``"expected_savings"``: paper eq. 8; ``"savings"``: eq. 5 of the 0/1 decisions,
    Bayes minimum risk with each row's own costs (``decision="bmr"``, paper eq. 2)
    or s > 1/2 (``decision="0.5"``). One fused pass of a compiled kernel over the rows
    (:func:`csboost_plugins.boosting._aec_kernels.money_sums`).

    Parameters
    ----------
    kind : {"aec", "expected_savings", "savings"}
        The metric.
    s : array of shape (n,), float32 or float64
        Probabilities, or margins when ``is_margin`` (read as given, no copy).
    y : array of shape (n,)
        0/1 labels.
    costs : array of shape (n, 4)
        Per-row [C_FP, C_FN, C_TP, C_TN] (money).
    sample_weight : array of shape (n,), optional
        Row weights (default 1).
    decision : {"bmr", "0.5"}
        Decision rule of ``"savings"``.
    is_margin : bool
        ``s`` holds margins; the kernel applies the sigmoid.

    Returns
    -------
    float
        Money per row for ``"aec"``, a unitless share for the savings.
    """
    return money_metric_from_sums(kind, _aec_kernels.money_sums(s, is_margin, y, costs, sample_weight), decision)


def money_metric_from_sums(kind, sums, decision="bmr"):
    """A money metric from the totals of :func:`csboost_plugins.boosting._aec_kernels.money_sums`.

    Parameters
    ----------
    kind : {"aec", "expected_savings", "savings"}
        The metric.
    sums : dict
        Totals keyed by :data:`csboost_plugins.boosting._aec_kernels.SUMS` (money, weight).
    decision : {"bmr", "0.5"}
        Decision rule of ``"savings"``.

    Returns
    -------
    float
        The metric (see :func:`money_metric_value`).
    """
    if kind == "aec":
        return sums["ec"] / sums["w"]
    base = min(sums["c0"], sums["c1"])
    if base == 0:
        raise ValueError("savings are undefined on this eval set: a trivial policy already costs 0")
    cost = sums["ec"] if kind == "expected_savings" else sums["bmr" if decision == "bmr" else "half"]
    return savings_from_costs(cost, base)


def check_metric_params(kind, decision, preds):
    """Validate a money metric's parameters (ValueError naming the argument).

    Parameters
    ----------
    kind : str
        One of :data:`METRICS`.
    decision : {"bmr", "0.5"}
        Decision rule of "savings".
    preds : {"margin", "probability"}
        What the library passes.
    """
    if kind not in METRICS:
        raise ValueError(f"metric must be one of {tuple(METRICS)}, got {kind!r}")
    if decision not in ("bmr", "0.5"):
        raise ValueError(f"decision must be 'bmr' or '0.5', got {decision!r}")
    if preds not in ("margin", "probability"):
        raise ValueError(f"preds must be 'margin' or 'probability', got {preds!r}")
