"""One reduction: per-row additive columns summed by group into a table, over in-memory rows or dask partitions.

Every figure of the rule reports (``RuleSet.evaluate``, ``RuleSet.monitor``), of ``money_by_period`` and of
the walk-forward's per-period table is a sum over rows, so the table of a data set split in blocks or dask
partitions is the sum of their tables. Two pieces serve them all:

- :func:`group_sums`: per-row terms (weights, TP / FP money, hit indicators, ...) summed per integer group
  code (a period, a rule x period cell) into an ``(n_groups, n_terms)`` table;
- :func:`reduce_blocks`: the one driver. A consumer writes one function from a :class:`Block` (the rows of a
  block, read and checked) to its partial table; the driver runs it on the in-memory rows, or on every
  partition of dask collections (each partition read by :func:`read_partition`, the partial tables added
  pairwise on the workers), and adds the partial tables: positionally, or over the union of their group
  labels (a partition holds only some periods) sorted at the end.

A top-level module: it imports nothing from :mod:`csboost_plugins.rules` (rule sets reach it as arguments).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

import numpy as np

from ._dask_blocks import _add, _blocks, _labels, _tree_sum, _values, _weights_costs, cost_blocks

__all__ = ["Block", "add_tables", "dask_partitions", "group_sums", "merge_label_sums", "period_codes", "read_partition", "reduce_blocks",
           "sorted_label_sums"]


@dataclass
class Block:
    """The rows of one block (all in-memory rows, or one dask partition), read and checked.

    Attributes
    ----------
    n : int
        Rows.
    x : object
        The block's X (None when the consumer reads no features).
    y : ndarray or None
        0/1 labels.
    w : ndarray
        Row weights (ones without ``sample_weight``).
    costs : ndarray of shape (n, 4) or None
        ``[C_FP, C_FN, C_TP, C_TN]`` per row (money), None without costs.
    codes, labels : ndarray or None
        Each row's group code, the position of its period among the sorted ``labels`` of the block.
    d : ndarray or None
        0/1 decisions (``money_by_period``'s ``y_pred``).
    extra : dict
        Further per-row columns (e.g. ``decline_cost``).
    """

    n: int
    x: object = None
    y: np.ndarray | None = None
    w: np.ndarray | None = None
    costs: np.ndarray | None = None
    codes: np.ndarray | None = None
    labels: np.ndarray | None = None
    d: np.ndarray | None = None
    extra: dict | None = None


def period_codes(periods, n, name="periods"):
    """``(codes, labels)``: each row's position among the sorted distinct ``labels`` of ``periods``.

    Parameters
    ----------
    periods : array-like of shape (n,)
        One label per row (int, str, date, ...).
    n : int
        The number of rows the labels must cover.
    name : str, default="periods"
        Argument name for the messages.

    Returns
    -------
    codes : ndarray of int64, shape (n,)
        ``labels[codes[i]]`` is row i's label.
    labels : ndarray
        The distinct labels, sorted.

    Raises
    ------
    ValueError
        Wrong length, a missing label (NaN, None, NaT), or labels that do not sort.
    """
    import pandas as pd

    if periods is None:
        raise ValueError(f"{name} is required: one period label per row")
    if isinstance(periods, (str, bytes)) or np.ndim(periods) == 0:
        raise ValueError(f"{name} must hold one label per row, got the scalar {periods!r}")
    values = periods.to_numpy() if hasattr(periods, "to_numpy") else np.asarray(periods)
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per row), got shape {values.shape}")
    if values.shape[0] != n:
        raise ValueError(f"{name} has {values.shape[0]} labels but there are {n} rows")
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(f"{name} has {int(missing.sum())} missing label(s) (NaN / None / NaT), e.g. at row "
                         f"{int(np.flatnonzero(missing)[0])}: every row needs a period")
    if values.dtype.kind in "iu" and values.dtype != np.uint64 and n:  # weeks or days: a bincount, no sort
        lo, hi = int(values.min()), int(values.max())
        if hi - lo <= 4 * n:
            shifted = values.astype(np.int64) - lo
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            rank = np.cumsum(present) - 1
            return rank[shifted].astype(np.int64), (np.flatnonzero(present) + lo).astype(values.dtype)
    try:
        codes, labels = pd.factorize(values, sort=True)
    except TypeError as exc:
        raise ValueError(f"{name} holds labels that cannot be sorted (mixed kinds?): {exc}") from None
    return codes.astype(np.int64), np.asarray(labels)


def group_sums(codes, n_groups, terms) -> np.ndarray:
    """Per-row terms summed per group: ``out[g, t] = sum over rows i with codes[i] = g of term_t[i]``.

    Parameters
    ----------
    codes : ndarray of int of shape (n,) or None
        Each row's group, in ``[0, n_groups)``; None: every row in group 0 (``n_groups`` must be 1).
    n_groups : int
        Groups (rows of the table; a group without rows sums to 0).
    terms : list of ndarray of shape (n,) or of pairs (a, b) of them
        The additive per-row columns (money, weights, 0/1 hit indicators times weights, ...); a pair
        ``(a, b)`` is the per-row product ``a_i b_i`` (e.g. weight times money).

    Returns
    -------
    ndarray of float64, shape (n_groups, len(terms))
        The table. Sums run over the rows in order (``np.bincount``); with one group (``codes`` None) a
        term is summed by ``np.sum`` and a pair by a dot product, the arithmetic the reports always used,
        so the figures are those of earlier versions bit for bit.

    Raises
    ------
    ValueError
        Codes outside ``[0, n_groups)`` or terms of another length than ``codes``.
    """
    out = np.zeros((n_groups, len(terms)))
    n = None if codes is None else codes.shape[0]
    if codes is None and n_groups != 1:
        raise ValueError(f"group_sums: no codes but {n_groups} groups")
    if codes is not None and n and (codes.min() < 0 or codes.max() >= n_groups):
        raise ValueError(f"group_sums: group codes outside [0, {n_groups})")
    for t, term in enumerate(terms):
        a, b = term if isinstance(term, tuple) else (term, None)
        if n is not None and (a.shape[0] != n or (b is not None and b.shape[0] != n)):
            raise ValueError(f"group_sums: term {t} has {a.shape[0]} rows but there are {n} codes")
        if codes is None:
            out[0, t] = a.sum() if b is None else a @ b
        else:
            out[:, t] = np.bincount(codes, weights=a if b is None else a * b, minlength=n_groups)
    return out


# ----------------------------------------------------------------- adding partial tables
def add_tables(a, b):
    """Sum of two partial tables added positionally: arrays, or tuples / dicts of arrays (None adds as zero)."""
    return a + b if isinstance(a, np.ndarray) else _add(a, b)


def merge_label_sums(a, b):
    """Sum of two ``(labels, sums)`` tables (rows of ``sums`` follow ``labels``), over the union of labels."""
    la, sa = a
    lb, sb = b
    if len(la) == 0:
        return b
    if len(lb) == 0:
        return a
    pos = {label: i for i, label in enumerate(la)}
    extra = [label for label in lb if label not in pos]
    labels = list(la) + extra
    out = np.zeros((len(labels),) + sa.shape[1:])
    out[:len(la)] += sa
    for label in extra:
        pos[label] = len(pos)
    out[[pos[label] for label in lb]] += sb
    return labels, out


def sorted_label_sums(result, name="periods"):
    """``(sorted labels as an array, their sums)`` from a merged ``(labels, sums)`` table."""
    import pandas as pd

    labels, S = result
    idx = pd.Index(list(labels))
    try:
        order = idx.argsort()
    except TypeError as exc:
        raise ValueError(f"{name} holds labels that cannot be sorted (mixed kinds?): {exc}") from None
    return idx[order].to_numpy(), S[order]


# ----------------------------------------------------------------- dask partitions
_ROLE_NAMES = {"x": "X", "y": "y", "periods": "periods", "w": "sample_weight", "d": "y_pred"}


def dask_partitions(columns, costs=None):
    """The per-partition inputs of dask collections, for :func:`reduce_blocks`.

    Parameters
    ----------
    columns : list of (role, name, value)
        ``role`` in ``x``, ``y``, ``periods``, ``w`` (weights), ``d`` (decisions) or any other key (an
        extra column, e.g. ``decline_cost``); ``name`` names the argument in messages; the first value is
        the dask collection whose partitions the others must follow (a scalar or None is repeated).
    costs : dict or None
        The cost keywords (dask collections partitioned alike, or scalars); None: no costs.

    Returns
    -------
    list of dict
        Per partition, the raw blocks by role, the dask cost blocks under ``"cost_parts"`` and the scalar
        costs under ``"cost_scalars"``.
    """
    (_, lead_name, lead), rest = columns[0], columns[1:]
    first = _blocks(lead, lead_name)
    k = len(first)
    blocks = {columns[0][0]: first, **{role: _blocks(v, name, k) for role, name, v in rest}}
    per_part, scalars = cost_blocks(costs, k)
    return [{**{role: b[i] for role, b in blocks.items()}, "cost_parts": {nm: b[i] for nm, b in per_part.items()},
             "cost_scalars": scalars} for i in range(k)]


def read_partition(raw) -> Block:
    """A partition's :class:`Block`: labels 0/1, decisions 0/1, weights and costs checked as in memory."""
    raw = dict(raw)
    xb, pb = raw.pop("x", None), raw.pop("periods", None)
    pv = None if pb is None else (pb.to_numpy() if hasattr(pb, "to_numpy") else np.asarray(pb)).reshape(-1)
    n = len(xb) if xb is not None else pv.shape[0]
    y = _labels(raw.pop("y"), n) if "y" in raw else None
    d = None
    if "d" in raw:
        d = _values(raw.pop("d"), "y_pred", n)
        if not np.all((d == 0) | (d == 1)):
            raise ValueError("y_pred must hold 0/1 decisions (1 = alert)")
    w, c = _weights_costs(raw.pop("w", None), raw.pop("cost_parts", {}), raw.pop("cost_scalars", None), n)
    codes = labels = None
    if pv is not None:
        codes, labels = period_codes(pv, n)
    extra = {role: _values(v, role, n) for role, v in raw.items()}
    return Block(n, xb, y, w, c, codes, labels, d, extra)


def _run_partition(raw, part, shared):
    return part(read_partition(raw), *shared)


# ----------------------------------------------------------------- the driver
def reduce_blocks(part, blocks, *, shared=(), by_label=False, name="periods"):
    """The sum of ``part(block, *shared)`` over blocks: in memory, or over dask partitions on the workers.

    Parameters
    ----------
    part : callable
        ``part(block, *shared)`` -> a partial table: an array, a tuple or dict of arrays (added
        positionally), or with ``by_label`` a ``(labels, sums)`` pair (rows of ``sums`` follow ``labels``).
    blocks : list of Block, or list of dict
        In-memory :class:`Block` objects (run here, in order), or the raw partitions of
        :func:`dask_partitions` (each read by :func:`read_partition` and run on a worker; the tables are
        added pairwise there, only the total reaches the client).
    shared : tuple, default ()
        Further arguments of ``part`` (a rule set: sent once to the workers).
    by_label : bool, default False
        Add tables over the union of their labels and return ``(sorted labels, sums)``.
    name : str, default "periods"
        The labels' argument name, for the message when they do not sort.

    Returns
    -------
    object
        The total table (``(labels, sums)`` with ``by_label``).
    """
    add = merge_label_sums if by_label else add_tables
    if blocks and isinstance(blocks[0], Block):
        if len(blocks) == 1:  # its labels are sorted already (period_codes): the table as computed
            return part(blocks[0], *shared)
        total = reduce(add, (part(b, *shared) for b in blocks))
    else:
        from dask import delayed

        f = delayed(_run_partition, pure=True)
        shared = tuple(delayed(s, traverse=False) for s in shared)
        total = _tree_sum([f(raw, part, shared) for raw in blocks], add=add)
    return sorted_label_sums(total, name) if by_label else total
