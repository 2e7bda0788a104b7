"""Replaying a model, a rule book or a cap the way a fraud team runs it: :func:`walk_forward`.

A fraud team lives a stream: it retrains every week on the labels known by then (a chargeback
arrives weeks after the transaction), reviews a fixed number of alerts a day and stops a card once
it is known to be compromised. :func:`walk_forward` books, period by period, the money such a
replay would have earned (prequential validation, "Reproducible Machine Learning for Credit Card
Fraud Detection - Practical Handbook", Le Borgne et al. 2022, ch. 3-5): train on ``train`` days,
skip ``delay`` days whose labels are not known yet, test on the next ``test`` days, move on by
``step`` and repeat.

Time. A label is *known at moment T* when its label time is before ``T`` (``label_time < T``);
the label time of a row is ``label_times`` (default: its time + ``delay``, the handbook's
chargeback delay). Step ``s`` (from 0) with ``a = start + s * step``:

- training window ``[a, a + train)`` (``expanding=True``: ``[start, a + train)``); a row of the
  window trains only if its label is known when the model is fitted, at the test start
  ``test_start = a + train + delay`` (with the default label times every row of the window is);
- test window ``[test_start, test_start + test)``, cut into periods of length ``periods`` from
  ``test_start`` (the last one shorter when ``periods`` does not divide ``test``); the alert
  capacity and every per-period figure use these periods;
- ``exclude_known=True``: a test row is removed when its entity (card) has a fraud (label 1) at a
  time ``t >= `` the training start whose label is known at the start ``D`` of the row's period.
  With the default label times this is the handbook's rule ``train start <= t < D - delay``.

Durations are absolute ("1D" is 24 hours): with time-zone aware times, periods after a
daylight-saving change start an hour off local midnight.

Money. Per period, with the rows' own costs (``money_by_period``): ``money_caught`` = sum over
flagged frauds of ``C_FN - C_TP``; ``alert_cost`` = sum over flagged legitimate rows of
``C_FP - C_TN``; ``net_money`` = money_caught - alert_cost (money saved against raising no alert).
"""

from __future__ import annotations

import inspect
import numbers
import time as _time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = ["walk_forward", "WalkForwardResult"]

_DAY_NS = 86_400 * 10**9
_COUNTS = ("rows", "alerts", "tp", "fp")
_MONEY = ("money_caught", "alert_cost", "net_money")


# ------------------------------------------------------------------------------------------- time
class _Clock:
    """Times as numbers: int64 nanoseconds for datetimes (UTC), float64 days for numbers."""

    def __init__(self, times, n, name="times"):
        import pandas as pd

        values = times.to_numpy() if hasattr(times, "to_numpy") else np.asarray(times)
        if values.ndim != 1 or values.shape[0] != n:
            raise ValueError(f"{name} must hold one time per row of X ({n}), got shape {values.shape}")
        self.tz = None
        if values.dtype.kind in "iuf":
            self.datetimes = False
            self.values = values.astype(np.float64)
            if not np.all(np.isfinite(self.values)):
                raise ValueError(f"{name} has missing or infinite values (NaN / inf): every row needs a time")
            return
        if values.dtype.kind not in "MO":
            raise TypeError(f"{name} must be datetimes (datetime64, pandas Timestamps) or numbers (days), "
                            f"got dtype {values.dtype}")
        try:
            index = pd.DatetimeIndex(pd.to_datetime(pd.Series(values), utc=False))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be datetimes (datetime64, pandas Timestamps) or numbers (days): "
                            f"{exc}") from None
        if index.hasnans:
            raise ValueError(f"{name} has {int(index.isna().sum())} missing value(s) (NaT): every row needs a time")
        self.datetimes, self.tz = True, index.tz
        self.values = (index.tz_convert("UTC") if index.tz is not None else index).as_unit("ns").asi8

    def duration(self, value, name, *, positive=True):
        """``value`` (a pandas offset string such as "7D", a Timedelta, or a number of days) in the clock's unit."""
        import pandas as pd

        if isinstance(value, (bool, np.bool_)) or value is None:
            raise TypeError(f"{name} must be a duration ('7D', a pandas Timedelta) or a number of days, got {value!r}")
        if isinstance(value, numbers.Real):
            days = float(value)
            out = days * _DAY_NS if self.datetimes else days
        else:
            try:
                ns = pd.Timedelta(value).value
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a duration ('7D', '12h', a pandas Timedelta) or a number of days, "
                                 f"got {value!r}") from None
            out = ns if self.datetimes else ns / _DAY_NS
        if not np.isfinite(out) or (out <= 0 if positive else out < 0):
            raise ValueError(f"{name} must be {'> 0' if positive else '>= 0'}, got {value!r}")
        return int(round(out)) if self.datetimes else float(out)

    def moment(self, value, name):
        """A moment (``start``): a Timestamp or date string for datetimes, a number of days for numbers."""
        import pandas as pd

        if self.datetimes:
            try:
                ts = pd.Timestamp(value)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a date ('2018-07-25', a Timestamp), got {value!r}") from None
            if ts is pd.NaT:
                raise ValueError(f"{name} must be a date, got {value!r}")
            if (ts.tz is None) != (self.tz is None):
                ts = ts.tz_localize(self.tz) if ts.tz is None else ts.tz_convert(None)
            return (ts.tz_convert("UTC") if ts.tz is not None else ts).as_unit("ns").value
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise TypeError(f"{name} must be a number of days when times are numbers, got {value!r}")
        return float(value)

    def day_floor(self, v):
        """``v`` floored to its day (the local day for time-zone aware times)."""
        if not self.datetimes:
            return float(np.floor(v))
        return self.moment(self.external(np.array([v]))[0].floor("D"), "start")

    def external(self, v):
        """Internal values as the user's kind: a DatetimeIndex (in the times' zone) or float days."""
        import pandas as pd

        v = np.asarray(v)
        if not self.datetimes:
            return v.astype(np.float64)
        index = pd.DatetimeIndex(v.astype("datetime64[ns]"))
        return index.tz_localize("UTC").tz_convert(self.tz) if self.tz is not None else index


# ------------------------------------------------------------------------------------------- rows
class _Rows(NamedTuple):
    n: int
    y: np.ndarray  # int64 0/1, 1 = pos_label
    costs: np.ndarray  # (n, 4) [C_FP, C_FN, C_TP, C_TN]
    clock: _Clock
    t: np.ndarray  # row times, clock unit
    label_t: np.ndarray  # label arrival times, clock unit
    entity: np.ndarray | None  # int64 codes
    entity_values: np.ndarray | None  # the ids as given


def _read_inputs(X, y, times, entity, label_times, costs_kw, pos_label, delay):
    """Every per-row input validated, positions matched (the one place rows are read).

    ``delay`` is the raw keyword (the default label time is time + delay).
    """
    from ._entity_capacity import entity_codes
    from ._rows import read_rows
    from .costs import check_same_index

    if X is None or not hasattr(X, "__len__") or np.ndim(X) != 2:
        raise ValueError(f"X must be 2-D (rows, features), got {type(X).__name__}")
    n = len(X)
    index = getattr(X, "index", None) if hasattr(X, "iloc") else None
    check_same_index([("times", times), ("label_times", label_times)], index, "X")
    y_values = y.to_numpy() if hasattr(y, "to_numpy") else np.asarray(y)
    if y_values.ndim != 1 or y_values.shape[0] != n:
        raise ValueError(f"y must hold one label per row of X ({n}), got shape {y_values.shape}")
    rows = read_rows(X if index is not None else None, y, pos_label=pos_label, require_both=False,
                     costs="required", entity=entity, **costs_kw)
    y01, costs = rows.y, rows.costs
    clock = _Clock(times, n)
    if label_times is None:
        label_t = clock.values + clock.duration(delay, "delay", positive=False)
    else:
        label_clock = _Clock(label_times, n, "label_times")
        if label_clock.datetimes != clock.datetimes:
            raise TypeError("label_times must be of the same kind as times (both datetimes or both numbers)")
        label_t = label_clock.values
        if np.any(label_t < clock.values):
            raise ValueError(f"label_times precede times on {int(np.sum(label_t < clock.values))} row(s), e.g. row "
                             f"{int(np.flatnonzero(label_t < clock.values)[0])}: a label arrives at or after its row")
    codes = None if entity is None else entity_codes(entity, n, index, "X")
    ent_values = None if entity is None else (entity.to_numpy() if hasattr(entity, "to_numpy")
                                              else np.asarray(entity))
    return _Rows(n, y01, costs, clock, clock.values, label_t, codes, ent_values)


# ------------------------------------------------------------------------------------------- plan
class _Step(NamedTuple):
    step: int
    train_start: float
    train_end: float
    test_start: float
    test_end: float
    train_rows: np.ndarray  # positions
    test_rows: np.ndarray  # positions, known cards removed
    period: np.ndarray  # period code of each test row
    n_periods: int
    period_len: float  # clock unit


def _windows(rows, start, train, delay, test, step, n_steps, expanding):
    """``[(train_start, train_end, test_start, test_end)]`` of every step (complete test windows only)."""
    clock = rows.clock
    start = clock.day_floor(rows.t.min()) if start is None else clock.moment(start, "start")
    data_end = clock.day_floor(rows.t.max()) + (_DAY_NS if clock.datetimes else 1.0)  # the data cover whole days
    available = 0
    while start + available * step + train + delay + test <= data_end:
        available += 1
    if available == 0:
        raise ValueError(f"no step fits in the data: a step needs train + delay + test from start "
                         f"{clock.external([start])[0]} but the data end at {clock.external([data_end])[0]}")
    if n_steps is None:
        n_steps = available
    elif isinstance(n_steps, (bool, np.bool_)) or not isinstance(n_steps, numbers.Integral) or n_steps < 1:
        raise ValueError(f"n_steps must be an integer >= 1 (or None: as many as the data hold), got {n_steps!r}")
    elif n_steps > available:
        raise ValueError(f"n_steps={n_steps} but the data hold {available} complete step(s) from start "
                         f"{clock.external([start])[0]}")
    out = []
    for s in range(int(n_steps)):
        a = start + s * step
        out.append((start if expanding else a, a + train, a + train + delay, a + train + delay + test))
    return out


def _known_compromised(rows, train_start, test_rows, period_start):
    """Mask of ``test_rows`` whose entity has a fraud at ``t >= train_start`` known at their period's start."""
    fraud = np.flatnonzero((rows.y == 1) & (rows.t >= train_start))
    never = np.iinfo(np.int64).max if rows.label_t.dtype.kind == "i" else np.inf  # exact nanoseconds kept
    first_known = np.full(int(rows.entity.max(initial=0)) + 1, never, dtype=rows.label_t.dtype)
    np.minimum.at(first_known, rows.entity[fraud], rows.label_t[fraud])
    return first_known[rows.entity[test_rows]] < period_start


def _plan(rows, windows, period, exclude_known):
    """The rows of every step: trained (label known at the test start), tested (known cards removed)."""
    steps = []
    for s, (tr0, tr1, te0, te1) in enumerate(windows):
        train_rows = np.flatnonzero((rows.t >= tr0) & (rows.t < tr1) & (rows.label_t < te0))
        test_rows = np.flatnonzero((rows.t >= te0) & (rows.t < te1))
        codes = ((rows.t[test_rows] - te0) // period).astype(np.int64)
        n_periods = int(-(-(te1 - te0) // period))
        if exclude_known:
            keep = ~_known_compromised(rows, tr0, test_rows, te0 + codes * period)
            test_rows, codes = test_rows[keep], codes[keep]
        steps.append(_Step(s, tr0, tr1, te0, te1, train_rows, test_rows, codes, n_periods, period))
    return steps


def _check_training(estimator, rows, steps):
    if not hasattr(estimator, "fit"):
        return
    for st in steps:
        classes = np.unique(rows.y[st.train_rows])
        if classes.shape[0] < 2:
            w = rows.clock.external([st.train_start, st.train_end])
            what = "no row" if classes.shape[0] == 0 else f"only label {'1 (positive)' if classes[0] else '0'}"
            raise ValueError(f"step {st.step}: the training window [{w[0]}, {w[1]}) has {what} with a known label; "
                             "a classifier needs both classes (move start, lengthen train, or use expanding=True)")


# ------------------------------------------------------------------------------------------- one step
def _take(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _accepts(method, *names):
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return all(name in params for name in names)


def _as01(pred, pos_label, who):
    pred = np.asarray(pred)
    if pos_label is not None and not np.all((pred == 0) | (pred == 1)):
        return (pred == pos_label).astype(np.int64)
    if not np.all((pred == 0) | (pred == 1)):
        raise ValueError(f"{who}.predict returned values other than 0/1 ({np.unique(pred)[:5].tolist()}); "
                         "give pos_label to say which value is an alert")
    return pred.astype(np.int64)


def _decides_from_proba(model):
    """Whether ``model`` is one of the library's boosters, whose ``predict`` is ``_decide(predict_proba(X)[:, 1])``."""
    if not hasattr(model, "_decide"):
        return False
    from .boosting._sklearn_base import CostSensitiveBoostingMixin

    return isinstance(model, CostSensitiveBoostingMixin)


def _decide(model, X_te, costs, period, entity, max_alerts, pos_label):
    """``(y_score, y_pred)`` of a fitted model (or a fixed rule book) on the test rows."""
    from .costs import split_costs
    from .metrics import bayes_minimum_risk

    who = type(model).__name__
    if not hasattr(model, "fit"):  # a fixed rule book: its decisions, no probability
        d = _as01(model.predict(X_te), pos_label, who)
        return d.astype(np.float64), d
    proba = model.predict_proba(X_te)[:, 1] if hasattr(model, "predict_proba") else None
    cap = {} if max_alerts is None else dict(max_alerts=max_alerts, periods=period)
    if entity is not None and cap:
        cap["entity"] = entity
    if _accepts(model.predict, "fp_cost", *cap):  # decides with the rows' costs (and the cap) itself
        if _decides_from_proba(model) and proba is not None:  # its predict, without scoring the rows twice
            d = _as01(model._decide(proba, **split_costs(costs), **cap), None, who)
        else:
            d = _as01(model.predict(X_te, **split_costs(costs), **cap), None, who)
    elif proba is not None:
        d = bayes_minimum_risk(proba, cost_matrix=costs, **cap)
    elif not cap:
        d = _as01(model.predict(X_te), None, who)
    else:
        raise ValueError(f"max_alerts needs predict_proba or a predict taking the costs and the capacity "
                         f"({', '.join(cap)}); {who} has neither")
    if proba is not None:
        score = proba
    elif hasattr(model, "decision_function"):
        score = np.asarray(model.decision_function(X_te), dtype=np.float64)
    else:
        score = d.astype(np.float64)
    return np.asarray(score, dtype=np.float64), d


def _run_step(model, X_tr, y_tr, costs_tr, X_te, costs_te, period, entity, max_alerts, pos_label):
    """Fit (a clone) on the step's training rows and decide its test rows: ``(y_score, y_pred, fit_seconds)``."""
    from .costs import split_costs

    seconds = 0.0
    if hasattr(model, "fit"):
        kw = split_costs(costs_tr) if _accepts(model.fit, "fp_cost") else {}
        tic = _time.perf_counter()
        model.fit(X_tr, y_tr, **kw)
        seconds = _time.perf_counter() - tic
    if period.shape[0] == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64), seconds
    score, d = _decide(model, X_te, costs_te, period, entity, max_alerts, pos_label)
    return score, d, seconds


# ------------------------------------------------------------------------------------------- result
class WalkForwardComparison(NamedTuple):
    """Paired difference of two replays' net money (:meth:`WalkForwardResult.compare`).

    ``mean_difference``, ``std_error``, ``ci_low``, ``ci_high`` are money per period (``by="period"``)
    or per step (``by="step"``); ``n_periods`` counts the paired periods, ``n_units`` the units the
    interval is over; ``differences`` is self minus other per (step, period).
    """

    mean_difference: float
    std_error: float
    ci_low: float
    ci_high: float
    n_periods: int
    n_units: int
    by: str
    differences: object  # pandas Series indexed by (step, period)


@dataclass(frozen=True)
class WalkForwardResult:
    """What :func:`walk_forward` booked: one row per test row, per (step, period) and per step.

    Attributes
    ----------
    predictions : pandas.DataFrame
        One row per test row per step: ``step``, ``row`` (position in X), ``time`` (as given),
        ``entity`` (None without entities), ``y_true`` (0/1), ``y_score`` (P(positive), or the
        model's score, or the rule book's decision), ``y_pred`` (0/1 decision).
    periods : pandas.DataFrame
        One row per (step, period), every period of every test window (empty ones with 0 rows):
        ``step``, ``period`` (its start), ``rows``, ``alerts``, ``tp``, ``fp``, ``money_caught``,
        ``alert_cost``, ``net_money`` (money, the costs' unit), ``recall``, ``precision`` (NaN
        where the denominator is 0); sorted by step then period.
    steps : pandas.DataFrame
        One row per step: ``step``, ``train_start``, ``train_end``, ``test_start``, ``test_end``
        (half-open windows), ``train_rows``, ``test_rows``, ``test_frauds``, ``fit_seconds``.
    """

    predictions: object
    periods: object
    steps: object

    def __repr__(self):
        return (f"WalkForwardResult({len(self.steps)} steps, {len(self.periods)} periods, "
                f"{len(self.predictions)} decided rows, net money {self.periods['net_money'].sum():.2f})")

    def compare(self, other, *, by="period"):
        """Paired difference of ``net_money``, self minus ``other``, over the periods both booked.

        ``by="period"``: the differences ``d_j`` of the ``n`` shared (step, period) pairs;
        ``mean = sum d_j / n``, ``std_error = sd(d) / sqrt(n)`` (``sd`` with ``n - 1``) and the 95 %
        interval ``mean +- t(0.975, n - 1) std_error``. Periods are treated as independent: money
        of neighbouring days is correlated, so this interval is optimistic. ``by="step"`` first sums
        the differences per step and treats the steps as the independent units (money per step).

        Parameters
        ----------
        other : WalkForwardResult
            Another replay, usually on the same data with the same windows.
        by : {"period", "step"}, default="period"
            The independent unit of the interval.

        Returns
        -------
        WalkForwardComparison
            ``mean_difference``, ``std_error``, ``ci_low``, ``ci_high`` (NaN with fewer than two
            units), ``n_periods``, ``n_units``, ``by``, ``differences``.
        """
        from scipy import stats

        if not isinstance(other, WalkForwardResult):
            raise TypeError(f"other must be a WalkForwardResult, got {type(other).__name__}")
        if by not in ("period", "step"):
            raise ValueError(f"by must be 'period' or 'step', got {by!r}")
        a = self.periods.set_index(["step", "period"])["net_money"]
        b = other.periods.set_index(["step", "period"])["net_money"]
        shared = a.index.intersection(b.index, sort=False)
        if len(shared) == 0:
            raise ValueError("the two results share no (step, period): compare replays of the same windows")
        diff = (a.loc[shared] - b.loc[shared]).sort_index()
        units = diff.groupby(level="step").sum() if by == "step" else diff
        n = len(units)
        mean = float(units.mean())
        se = float(units.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
        half = float(stats.t.ppf(0.975, n - 1)) * se if n > 1 else np.nan
        return WalkForwardComparison(mean, se, mean - half, mean + half, len(diff), n, by, diff)


def _period_columns(rows, st, y_pred):
    """The (step, period) columns of one step, every period of its window (numpy arrays)."""
    from ._periods import money_by_period

    k = st.n_periods
    cols = {name: np.zeros(k) for name in (*_COUNTS, *_MONEY)}
    cols.update(recall=np.full(k, np.nan), precision=np.full(k, np.nan))
    if st.test_rows.shape[0]:
        got = money_by_period(rows.y[st.test_rows], y_pred, st.period, cost_matrix=rows.costs[st.test_rows])
        at = got.index.to_numpy().astype(np.int64)  # period codes present
        for name in cols:
            cols[name][at] = got[name].to_numpy()
    for name in _COUNTS:
        cols[name] = np.round(cols[name]).astype(np.int64)
    return {"step": np.full(k, st.step, dtype=np.int64), "period": st.test_start + np.arange(k) * st.period_len,
            **cols}


def _concat(parts, name):
    return np.concatenate([part[name] for part in parts])


def _assemble(rows, steps, outputs):
    """The three tables of :class:`WalkForwardResult` from every step's ``(y_score, y_pred, seconds)``."""
    import pandas as pd

    tables, info = [], []
    for st, (_, d, seconds) in zip(steps, outputs):
        tables.append(_period_columns(rows, st, d))
        w = rows.clock.external([st.train_start, st.train_end, st.test_start, st.test_end])
        info.append({"step": st.step, "train_start": w[0], "train_end": w[1], "test_start": w[2], "test_end": w[3],
                     "train_rows": st.train_rows.shape[0], "test_rows": st.test_rows.shape[0],
                     "test_frauds": int(rows.y[st.test_rows].sum()), "fit_seconds": seconds})
    idx = np.concatenate([st.test_rows for st in steps]).astype(np.int64)
    predictions = pd.DataFrame({
        "step": np.repeat(np.arange(len(steps), dtype=np.int64), [st.test_rows.shape[0] for st in steps]),
        "row": idx,
        "time": rows.clock.external(rows.t[idx]),  # the given times (in their zone) or float days
        "entity": rows.entity_values[idx] if rows.entity is not None else np.full(idx.shape[0], None, dtype=object),
        "y_true": rows.y[idx],
        "y_score": np.concatenate([out[0] for out in outputs]).astype(np.float64),
        "y_pred": np.concatenate([out[1] for out in outputs]).astype(np.int64),
    })
    periods = pd.DataFrame({name: _concat(tables, name) for name in tables[0]})
    periods["period"] = rows.clock.external(periods["period"].to_numpy())
    return WalkForwardResult(predictions, periods, pd.DataFrame(info))


def walk_forward(estimator, X, y, *, times, entity=None, train="7D", delay="7D", test="7D", step=None, start=None,
                 n_steps=None, expanding=False, label_times=None, exclude_known=False, periods="1D", max_alerts=None,
                 fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, pos_label=None, n_jobs=None,
                 verbose=False):
    """Replay ``estimator`` on a stream: retrain every ``step``, decide the next ``test`` days, book the money.

    Step ``s`` (from 0) fits a clone of ``estimator`` on the rows of ``[start + s step,
    start + s step + train)`` (``expanding=True``: from ``start``) whose label is known at the test
    start (``label_time < test_start``, ``test_start = start + s step + train + delay``), then decides
    the rows of ``[test_start, test_start + test)``; see :mod:`csboost_plugins.model_selection` for
    the clock, the label delay and ``exclude_known``. Decisions, in this order:

    1. an object without ``fit`` (a fixed :class:`csboost_plugins.rules.RuleSet`): its ``predict``,
       no refit; ``y_score`` is the decision;
    2. a ``predict`` taking the cost keywords (the library's boosters, csdt's
       ``BayesMinimumRiskClassifier``) and, when a cap is asked for, ``max_alerts`` and ``periods``
       (and ``entity`` with ``entity``): that ``predict`` with the test rows' costs and cap (a
       booster deciding by the AEC's own s > 1/2 ranks an entity by its largest margin);
    3. else Bayes minimum risk on ``predict_proba(X)[:, 1]``
       (:func:`csboost_plugins.metrics.bayes_minimum_risk`, with the periods, ``max_alerts`` and,
       given ``entity``, the cap counting entities);
    4. else (no cap) ``predict``.

    ``fit`` receives the training rows' costs when it takes ``fp_cost``, and 0/1 labels
    (1 = ``pos_label``). Money per period is :func:`csboost_plugins.metrics.money_by_period`'s.

    Parameters
    ----------
    estimator : classifier or fixed rule book
        Cloned and refitted every step when it has ``fit``.
    X : array-like or DataFrame of shape (n_samples, n_features)
        All rows of the stream, in any order.
    y : array-like of shape (n_samples,)
        Labels: {0, 1}, {-1, 1}, booleans, or two values with ``pos_label``.
    times : array-like of shape (n_samples,)
        Row times: datetime64 / pandas Timestamps, or numbers (days). No missing value.
    entity : array-like of shape (n_samples,), optional
        Card or customer id per row: needed by ``exclude_known``; with ``max_alerts`` the cap
        counts entities (all rows of an alerted entity in a period are flagged).
    train, delay, test : str, Timedelta or float, default="7D"
        Window lengths: pandas offset strings ("7D", "12h"), Timedeltas, or numbers of days.
        ``train``, ``test`` > 0, ``delay`` >= 0.
    step : same kinds, optional
        Time between two steps' windows; default ``test``.
    start : Timestamp, date string or float, optional
        First training moment; default the earliest time floored to its day (numbers: ``floor``).
    n_steps : int, optional
        Number of steps; default as many as the data hold. Only complete test windows count: the
        data are taken to cover whole days, up to the day after the last time's day.
    expanding : bool, default=False
        Train on every known row since ``start`` instead of a sliding window.
    label_times : array-like of shape (n_samples,), optional
        When each row's label became known (same kind as ``times``, not before them); default
        ``times + delay``. Give investigated alerts earlier label times than chargebacks.
    exclude_known : bool, default=False
        Remove from each test period the rows of entities with a fraud at ``t >=`` the training
        start whose label is known at the period's start. Needs ``entity``.
    periods : str, Timedelta or float, default="1D"
        Length of the test periods (capacity and money periods), cut from each test start.
    max_alerts : int >= 1, optional
        Alerts per period (entities per period with ``entity``).
    fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n_samples,)
        The rows' costs (money); required (or ``cost_matrix``), ``fn_cost`` with ``fp_cost``.
    cost_matrix : array-like of shape (n_samples, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
    pos_label : int, float, bool, str or None, default=None
        The positive class of ``y`` (and of a fixed rule book's ``predict`` when not 0/1).
    n_jobs : int, optional
        Steps run in parallel through joblib (``with joblib.parallel_backend("dask")`` runs them on
        a dask cluster); the results do not depend on it (but ``fit_seconds``).
    verbose : bool, default=False
        Print one line per step as it finishes.

    Returns
    -------
    WalkForwardResult
        ``predictions``, ``periods``, ``steps`` and :meth:`WalkForwardResult.compare`.

    Raises
    ------
    ValueError
        Naming the argument: lengths, missing times, durations <= 0 (``delay`` < 0), no costs,
        ``exclude_known`` without ``entity``, no complete step in the data, a training window
        with one class (naming the step and window), a cap the estimator cannot apply.
    TypeError
        Times that are neither datetimes nor numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from csboost_plugins.model_selection import walk_forward
    >>> rng = np.random.default_rng(0)
    >>> t = np.sort(rng.uniform(0, 28, 2000))  # 28 days of transactions, times in days
    >>> X = rng.normal(size=(2000, 2))
    >>> y = (X[:, 0] + rng.normal(size=2000) > 2).astype(int)
    >>> res = walk_forward(LogisticRegression(), X, y, times=t, fp_cost=1.0, fn_cost=20.0)
    >>> res.steps[["step", "train_start", "test_start", "test_end"]]
       step  train_start  test_start  test_end
    0     0          0.0        14.0      21.0
    1     1          7.0        21.0      28.0
    >>> res.periods.shape
    (14, 11)
    """
    import joblib

    from ._capacity import check_capacity

    costs_kw = dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
    X = np.asarray(X) if isinstance(X, (list, tuple)) else X  # rows are taken by position
    rows = _read_inputs(X, y, times, entity, label_times, costs_kw, pos_label, delay)
    if exclude_known and rows.entity is None:
        raise ValueError("exclude_known=True removes the rows of cards known to be compromised: give entity "
                         "(the card or customer id of each row)")
    check_capacity(0, max_alerts)
    if max_alerts is not None and not hasattr(estimator, "fit"):
        raise ValueError(f"max_alerts needs a model that scores rows; {type(estimator).__name__} has no fit: its "
                         "decisions are fixed")
    clock = rows.clock
    lengths = {name: clock.duration(v, name) for name, v in (("train", train), ("test", test), ("periods", periods))}
    step_len = lengths["test"] if step is None else clock.duration(step, "step")
    windows = _windows(rows, start, lengths["train"], clock.duration(delay, "delay", positive=False),
                       lengths["test"], step_len, n_steps, bool(expanding))
    steps = _plan(rows, windows, lengths["periods"], bool(exclude_known))
    _check_training(estimator, rows, steps)
    tasks = (joblib.delayed(_run_step)(_fresh(estimator), _take(X, st.train_rows), rows.y[st.train_rows],
                                        rows.costs[st.train_rows], _take(X, st.test_rows), rows.costs[st.test_rows],
                                        st.period, None if rows.entity is None else rows.entity[st.test_rows],
                                        max_alerts, pos_label) for st in steps)
    outputs = []
    for st, out in zip(steps, joblib.Parallel(n_jobs=n_jobs, return_as="generator")(tasks)):
        outputs.append(out)
        if verbose:
            print(f"step {st.step + 1}/{len(steps)}: {st.train_rows.shape[0]} training rows, "
                  f"{st.test_rows.shape[0]} test rows, {int(out[1].sum())} alerts, fit {out[2]:.2f} s", flush=True)
    return _assemble(rows, steps, outputs)


def _fresh(estimator):
    """An unfitted copy for one step (the object itself when it is never fitted)."""
    from sklearn.base import clone

    return clone(estimator, safe=False) if hasattr(estimator, "fit") else estimator
