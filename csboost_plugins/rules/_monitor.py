"""Rule monitoring over periods: each rule's alerts, precision and money per period, and whether its
precision or alert rate moved beyond sampling noise against reference periods (:meth:`RuleSet.monitor`).

One evaluation of the book gives each rule's rows as a bit mask (the rule engine's for SQL rules); per
(period, rule), weighted sums (alerts, true positives, net money, the net money of the rows only that rule
covers) come from a compiled walk over each mask's rows, in row order (:mod:`._period_kernels`), per period
from :func:`csboost_plugins._reduce.group_sums`; blocks and dask partitions add up through the one driver
(:func:`csboost_plugins._reduce.reduce_blocks`). The tests run on the summed table:
two-sided Fisher exact tests, vectorised over rules and periods (:func:`fisher_exact_pvalues`).
"""

from __future__ import annotations

import numpy as np

from .._periods import check_alpha, period_codes
from .._reduce import Block, dask_partitions, group_sums, reduce_blocks
from .._rows import check_cost_keywords, dask_labels, read_rows

__all__ = ["ALL_RULES", "fisher_exact_pvalues", "monitor", "rule_names"]

ALL_RULES = "(all rules)"
_BLOCK = 1 << 18  # rows of induced rules' coverage matrix at a time (a multiple of 64: whole mask words)
_RELATIVE_TIE = 1e-7  # tables whose probability is within this factor of the observed one count as as extreme (R's)
# per (period, rule) sums, then two per-period sums; a partition returns them flattened, one row per period
_CELL = ("alerts", "alerts_w2", "tp", "net_money", "unique_net_money")
_PERIOD = ("rows", "rows_w2")


def rule_names(rs):
    """One name per rule: ``rs.names`` (unique and non-empty by construction), with `` #<i+1>`` appended
    (1-based, and `` #<i+1>`` again while it is taken) to a name equal to the whole-set row label
    :data:`ALL_RULES`."""
    names = list(rs.names)
    for i, name in enumerate(names):
        if name == ALL_RULES:
            while name in names or name == ALL_RULES:
                name = f"{name} #{i + 1}"
            names[i] = name
    return names


# ----------------------------------------------------------------- the test
def _logpmf(x, M, n, N):
    from scipy.stats import hypergeom

    return hypergeom.logpmf(x, M, n, N)


def fisher_exact_pvalues(a, b, c, d):
    """Two-sided Fisher exact p-values of the 2 x 2 tables ``[[a, b], [c, d]]``, elementwise.

    As :func:`scipy.stats.fisher_exact`: with the margins fixed, ``a`` is hypergeometric; the
    p-value sums the probabilities of the tables no more probable than the observed one (within
    a relative 1e-7, as R's ``fisher.test``). Vectorised: the far tail's end is found by
    bisection on the hypergeometric log-probability, which is unimodal. A table with an empty
    row or column gets 1.

    Parameters
    ----------
    a, b, c, d : array-like of int
        The cells (non-negative counts), broadcast together.

    Returns
    -------
    ndarray of float64
        The p-values, in [0, 1].
    """
    a, b, c, d = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64) for v in (a, b, c, d)))
    shape = a.shape
    a, b, c, d = (v.ravel() for v in (a, b, c, d))
    n1, n2, k = a + b, c + d, a + c
    M = n1 + n2
    p = np.ones(a.shape[0])
    live = (n1 > 0) & (n2 > 0) & (k > 0) & (k < M)
    if not live.any():
        return p.reshape(shape)
    x, n1, k, M = a[live], n1[live], k[live], M[live]
    lo, hi = np.maximum(0, k - (M - n1)), np.minimum(n1, k)
    mode = ((k + 1) * (n1 + 1)) // (M + 2)
    thr = _logpmf(x, M, n1, k) + np.log1p(_RELATIVE_TIE)
    left = x < mode
    # x left of the mode: the smallest y in [mode, hi + 1] with pmf(y) <= pmf(x) (hi + 1: none);
    # x right of it: the largest y in [lo - 1, mode] with pmf(y) <= pmf(x) (lo - 1: none)
    s_lo = np.where(left, mode, lo - 1)
    s_hi = np.where(left, hi + 1, mode)
    while np.any(s_lo < s_hi):
        go = s_lo < s_hi
        mid = np.where(left, (s_lo + s_hi) // 2, (s_lo + s_hi + 1) // 2)  # within [lo, hi] where go
        ok = _logpmf(np.clip(mid, lo, hi), M, n1, k) <= thr
        new_lo = np.where(left, np.where(ok, s_lo, mid + 1), np.where(ok, mid, s_lo))
        new_hi = np.where(left, np.where(ok, mid, s_hi), np.where(ok, s_hi, mid - 1))
        s_lo, s_hi = np.where(go, new_lo, s_lo), np.where(go, new_hi, s_hi)
    y = s_lo
    step = np.where(left, -1, 1)  # away from the mode on the observed side; the far side goes the other way
    pv = _tail(x, step, lo, hi, M, n1, k) + _tail(y, -step, lo, hi, M, n1, k)
    pv = np.where(x == mode, 1.0, pv)
    p[live] = np.minimum(pv, 1.0)
    return p.reshape(shape)


def _tail(start, step, lo, hi, M, n1, k):
    """Sum of the hypergeometric probabilities from ``start`` outwards (``step`` = -1: down to ``lo``, +1: up to
    ``hi``); 0 where ``start`` is outside [lo, hi]. Away from the mode the terms shrink (the pmf is log-concave), so
    the sum stops once the rest, bounded by a geometric series, is below 1e-16 of it: O(spread) steps, where the
    library's cdf / sf sum the whole support."""
    n2 = M - n1
    out = np.zeros(start.shape[0])
    idx = np.flatnonzero((start >= lo) & (start <= hi))
    j = start[idx].astype(np.float64)
    term = np.exp(_logpmf(start[idx], M[idx], n1[idx], k[idx]))
    total = term.copy()
    N1, N2, K, LO, HI, S = (v[idx].astype(np.float64) for v in (n1, n2, k, lo, hi, step))
    while idx.size:
        up = S > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(up, (N1 - j) * (K - j) / ((j + 1) * (N2 - K + j + 1)),
                             j * (N2 - K + j) / ((N1 - j + 1) * (K - j + 1)))
        edge = np.where(up, j >= HI, j <= LO)
        ratio = np.where(edge, 0.0, ratio)
        term = term * ratio
        total += term
        j += S
        with np.errstate(divide="ignore", invalid="ignore"):
            done = edge | (term == 0) | ((ratio < 1) & (term * ratio / (1 - ratio) <= 1e-16 * total))
        if done.any():
            out[idx[done]] = total[done]
            keep = ~done
            idx, j, term, total = idx[keep], j[keep], term[keep], total[keep]
            N1, N2, K, LO, HI, S = (v[keep] for v in (N1, N2, K, LO, HI, S))
    return out


# ----------------------------------------------------------------- the sums
def _cell_terms(rows, w, y, net):
    """The per-row terms of a (period, rule) cell over ``rows``: w, w^2, w y, w net."""
    wr = w[rows]
    return [wr, (wr, wr), (wr, y[rows]), (wr, net[rows])]


def _second_match(bits, first):
    """Each row's second matching rule (-1: none): the first match once each row's first rule is cleared."""
    from ._engine import Bits, first_match

    words, n = bits.words.copy(), bits.n
    mask = np.zeros(words.shape[1] * 64, bool)
    for j in range(words.shape[0]):
        mask[:n] = first == j
        words[j] &= ~np.packbits(mask, bitorder="little").view("<u8").astype(np.uint64, copy=False)
    return first_match(Bits(words, n))


def _book_cells(rs, bits, codes, n_periods, w, y, net):
    """The (n_periods, k + 1, len(_CELL)) cells of a rule book read top-down (first match wins): rule j's rows
    are those it matches first (its action decides them); their money is ``net`` under block or review, 0 under
    allow; its unique money, on those rows, that money minus the money of the row's next matching rule's action
    (what the book loses without j); the set's rows are those it flags (block or review)."""
    from ._engine import first_match
    from ._report import ACTION_CODES

    k = len(rs.rules)
    first = first_match(bits)
    second = _second_match(bits, first)
    books = np.append([ACTION_CODES[a] != ACTION_CODES["allow"] for a in rs.actions_], False)
    m1, m2 = np.where(books[first], net, 0.0), np.where(books[second], net, 0.0)
    hit = np.flatnonzero(first >= 0)
    cell_codes = codes[hit] * (k + 1) + first[hit]
    wr = w[hit]
    rules = group_sums(cell_codes, n_periods * (k + 1),
                       [wr, (wr, wr), (wr, y[hit]), (wr, m1[hit]), (wr, m1[hit] - m2[hit])])
    out = rules.reshape(n_periods, k + 1, len(_CELL))
    flagged = np.flatnonzero(books[first])
    out[:, k, :4] = group_sums(codes[flagged], n_periods, _cell_terms(flagged, w, y, net))
    out[:, k, 4] = out[:, k, 3]
    return out


def _bits(rs, X, n):
    """The rules' TRUE masks (:class:`._engine.Bits`): the engine's for a book with SQL rules; induced rules'
    coverage matrix, computed by their kernels, packed rule by rule in one compiled sweep."""
    from . import _aot, _engine
    from ._period_kernels import pack_columns

    if rs._uses_engine:
        bits = _engine.rule_bits(rs, X)
    else:
        m = X.shape[0] if hasattr(X, "shape") else len(X)
        words = np.zeros((len(rs.rules), (m + 63) // 64), np.uint64)
        for a in range(0, m, _BLOCK):  # blocks of rows: the coverage kernel runs faster in cache
            cover = np.ascontiguousarray(rs.coverage(X.iloc[a:a + _BLOCK] if hasattr(X, "iloc") else X[a:a + _BLOCK]))
            if cover.shape != (min(m, a + _BLOCK) - a, len(rs.rules)):
                raise ValueError(f"monitor: the coverage of rows {a}.. has shape {cover.shape}")
            nw = (cover.shape[0] + 63) // 64
            _engine._in_threads(lambda w0, w1, c=cover, a=a: _aot.run("pack_columns", pack_columns, c, a // 64, w0,
                                                                      w1, words),
                                _engine._ranges(nw, cover.shape[0]))
        bits = _engine.Bits(words, m)
    if bits.n != n:
        raise ValueError(f"monitor: X has {bits.n} rows but y has {n}")
    return bits


def _rule_cells(bits, codes, n_periods, w, y, net):
    """(n_periods, k + 1, len(_CELL)) cells of the k masks and of their union (the set), walking each mask's set
    bits in a compiled kernel, in threads over masks; the rows no other rule flags from the masks' overlaps,
    word by word (the set's unique money is its money)."""
    from . import _aot, _engine
    from ._period_kernels import mask_cell_sums

    n, k = codes.shape[0], bits.words.shape[0]
    seen, multi = np.zeros_like(bits.words[0]), np.zeros_like(bits.words[0])
    for word in bits.words:  # rows flagged by any rule, and by two or more
        multi |= seen & word
        seen |= word
    words = np.vstack([bits.words, seen[None, :]])
    alone = np.unpackbits((~multi).view(np.uint8), count=n, bitorder="little").view(bool)
    out = np.zeros((n_periods, k + 1, len(_CELL)))
    _engine._in_threads(lambda r0, r1: _aot.run("mask_cell_sums", mask_cell_sums, words, alone, codes, w, y, net,
                                                r0, r1, out),
                        _engine._ranges(k, n))
    any_alone = np.ones(n, bool)  # the set: every flagged row counts for its unique money
    _aot.run("mask_cell_sums", mask_cell_sums, words, any_alone, codes, w, y, net, k, k + 1, out)
    return out


def monitor_sums(rs, X, y, codes, n_periods, w, costs):
    """(n_periods, (k + 1) * len(_CELL) + len(_PERIOD)) additive sums of the k rules in force and their set.

    From one evaluation of the book (:func:`_bits`): per rule, the sums over its rows by period
    (:func:`_rule_cells`, rows in order, so each cell adds its rows as a row-by-row sweep would); a book with
    actions: :func:`_book_cells`; per period: :func:`csboost_plugins._reduce.group_sums`."""
    from ..decision_costs import misclassification_costs

    k, n = len(rs.rules), y.shape[0]
    if not (codes.shape[0] == w.shape[0] == n and (n == 0 or 0 <= codes.min() <= codes.max() < n_periods)):
        raise ValueError("monitor: period codes, weights and labels do not match the rows")
    cell = np.zeros((n_periods, k + 1, len(_CELL)))
    net = np.zeros(n)
    if costs is not None:
        caught, alert = misclassification_costs(costs)
        net = np.where(y == 1, caught, -alert)
    yf, w = y.astype(np.float64), np.ascontiguousarray(w, dtype=np.float64)
    per = group_sums(codes, n_periods, [w, (w, w)])
    bits = _bits(rs, X, n) if k else None
    if k and rs.has_actions:
        cell[:] = _book_cells(rs, bits, codes, n_periods, w, yf, net)
    elif k:
        cell[:] = _rule_cells(bits, np.ascontiguousarray(codes, dtype=np.int64), n_periods, w, yf, net)
    return np.hstack([cell.reshape(n_periods, (k + 1) * len(_CELL)), per])


# ----------------------------------------------------------------- the table
def _reference_codes(reference, labels):
    """Positions of the reference periods among ``labels`` (default: the first)."""
    import pandas as pd

    if reference is None:
        return np.array([0])
    ref = _reference_labels(reference)
    if not ref:
        raise ValueError("reference must name at least one period (or be None: the first period)")
    pos = pd.Index(labels).get_indexer(pd.Index(ref))
    if (pos < 0).any():
        missing = [r for r, q in zip(ref, pos) if q < 0]
        raise ValueError(f"reference period(s) {missing[:5]} are not in periods (its periods: "
                         f"{list(labels[:5])}{' ...' if len(labels) > 5 else ''})")
    return np.unique(pos)


def _reference_labels(reference) -> list:
    """``reference`` as a list of period labels; a TypeError naming it for a dict, a set or a label that is not
    hashable (a nested list), which no period can carry."""
    import pandas as pd

    accepts = "a period label (text, number, date) or a list of them"
    if isinstance(reference, (dict, set, frozenset)):
        raise TypeError(f"reference must be {accepts}, got a {type(reference).__name__}")
    if isinstance(reference, np.ndarray):
        ref = list(reference) if reference.ndim else [reference.item()]
    else:
        ref = list(reference) if isinstance(reference, (list, tuple, pd.Index, pd.Series)) else [reference]
    for r in ref:
        try:
            hash(r)
        except TypeError:
            raise TypeError(f"reference must be {accepts}; it holds a {type(r).__name__} ({r!r:.60}), which is "
                            "not a period label") from None
    return ref


def _effective(total, total_w2):
    """Kish's effective number of rows ``(sum w)^2 / sum w^2`` (the count itself with unit weights)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total_w2 > 0, total * total / total_w2, 0.0)


def _pvalues(hit, n_eff, ref_hit, ref_n_eff):
    """Fisher p-values of rate ``hit`` on ``n_eff`` effective rows against the reference; NaN without rows."""
    n, m = np.round(n_eff), np.round(ref_n_eff)
    a, c = np.round(np.nan_to_num(hit) * n), np.round(np.nan_to_num(ref_hit) * m)
    p = fisher_exact_pvalues(a, n - a, c, m - c)
    return np.where((n >= 1) & (m >= 1), p, np.nan)


def table_from_sums(names, labels, S, reference, alpha, has_costs):
    """The DataFrame of :meth:`RuleSet.monitor` from :func:`monitor_sums` (rows: sorted labels)."""
    import pandas as pd

    n_periods, kk = len(labels), len(names) + 1
    cell = S[:, :kk * len(_CELL)].reshape(n_periods, kk, len(_CELL))
    rows, rows_w2 = S[:, -2][:, None], S[:, -1][:, None]
    alerts, alerts_w2, tp = cell[..., 0], cell[..., 1], cell[..., 2]
    ref = _reference_codes(reference, labels)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(rows > 0, alerts / rows, np.nan)
        precision = np.where(alerts > 0, tp / alerts, np.nan)
        r_rows, r_alerts, r_tp = rows[ref].sum(0), alerts[ref].sum(0), tp[ref].sum(0)
        r_rate = np.where(r_rows > 0, r_alerts / r_rows, np.nan)
        r_prec = np.where(r_alerts > 0, r_tp / r_alerts, np.nan)
    monitored = np.ones(n_periods, bool)
    monitored[ref] = False
    shape = (n_periods, kk)
    r_alerts_eff = np.broadcast_to(_effective(r_alerts, alerts_w2[ref].sum(0)), shape)
    p_prec = _pvalues(precision, _effective(alerts, alerts_w2), np.broadcast_to(r_prec, shape), r_alerts_eff)
    p_prec = np.where(alerts > 0, p_prec, np.nan)
    p_rate = _pvalues(rate, np.broadcast_to(_effective(rows, rows_w2), shape), np.broadcast_to(r_rate, shape),
                      np.broadcast_to(_effective(r_rows, rows_w2[ref].sum(0)), shape))
    p_prec[~monitored], p_rate[~monitored] = np.nan, np.nan
    m = 2 * kk * int(monitored.sum())  # Bonferroni: two tests per rule (and the set) and monitored period
    level = alpha / m if m else 0.0
    with np.errstate(invalid="ignore"):
        drift = (p_prec < level) | (p_rate < level)
    if not m:  # nothing was compared: "no drift" would be a claim no test made
        import warnings

        warnings.warn(f"RuleSet.monitor: every period ({n_periods}) is a reference period, so no period is tested "
                      "for drift and the drift column is NA; give several periods and a reference that leaves some "
                      "out", UserWarning, stacklevel=4)
        drift = pd.array(np.full(drift.size, pd.NA), dtype="boolean")
    cols = {"alerts": alerts, "alert_rate": rate, "tp": tp, "precision": precision}
    if has_costs:
        cols.update(net_money=cell[..., 3], unique_net_money=cell[..., 4])
    cols.update(precision_pvalue=p_prec, alert_rate_pvalue=p_rate, drift=drift)
    index = pd.MultiIndex.from_product([pd.Index(labels, name="period"),
                                        pd.Index([*names, ALL_RULES], name="rule")])
    out = pd.DataFrame({k: v if isinstance(v, pd.api.extensions.ExtensionArray) else np.asarray(v).reshape(-1)
                        for k, v in cols.items()}, index=index)
    out.attrs.update(alpha=alpha, level=level, reference=pd.Index(labels)[ref].tolist(), test="Fisher exact, two-sided")
    return out


# ----------------------------------------------------------------- entry point
def monitor(rs, X, y, periods, *, reference=None, alpha=0.01, sample_weight=None, fp_cost=None, fn_cost=None,
            tp_cost=0.0, tn_cost=0.0, cost_matrix=None, pos_label=None):
    """:meth:`RuleSet.monitor` (documented there)."""
    from . import _dask

    alpha = check_alpha(alpha)
    rs = rs._in_force("round")
    names = rule_names(rs)
    has_costs = fp_cost is not None or fn_cost is not None or cost_matrix is not None
    check_cost_keywords(fp_cost, fn_cost, cost_matrix, tp_cost, tn_cost)
    costs = dict(fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
    if any(_dask.is_dask(v) for v in (X, y, periods)):
        blocks = dask_partitions([("x", "X", X), ("y", "y", dask_labels(y, pos_label)), ("periods", "periods", periods),
                                  ("w", "sample_weight", sample_weight)], costs if has_costs else None)
    else:
        rows = read_rows(X, y, pos_label=pos_label, require_both=False, sample_weight=sample_weight,
                         periods=periods, costs="required" if has_costs else "none", **costs)
        codes, labels = period_codes(periods, rows.n)
        _reference_codes(reference, labels)  # refused before the pass over the rows
        w = np.ones(rows.n) if rows.sample_weight is None else rows.sample_weight
        if not isinstance(X, np.ndarray) and not hasattr(X, "iloc"):
            X = np.asarray(X)
        blocks = [Block(rows.n, x=X, y=rows.y, w=w, costs=rows.costs, codes=codes, labels=labels)]
    labels, S = reduce_blocks(_part, blocks, shared=(rs,), by_label=True)
    return table_from_sums(names, labels, S, reference, alpha, has_costs)


def _part(b, rs):
    """A block's ``(labels, sums)`` for :func:`monitor`."""
    return b.labels, monitor_sums(rs, b.x, b.y, b.codes, len(b.labels), b.w, b.costs)
