"""Reading dask collections partition by partition, shared by the rules' dask selection
(:mod:`csboost_plugins.rules._dask_select`), their dask evaluation (:mod:`csboost_plugins.rules._dask_evaluate`)
and the per-period tables (``money_by_period``, ``RuleSet.monitor``): the partitions of X and of the columns
partitioned like it, a partition's values checked, and per-partition results added on the workers. A top-level
module: the per-period tables read dask collections without importing the rules."""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["is_dask"]

_POS_LABEL = "pos_label= the label whose miss costs fn_cost"
_BLOCK = 1 << 18  # rows converted to float64 at a time: bounds a task's working memory at any partition size


def is_dask(X) -> bool:
    """Whether X is a dask collection (checked without importing dask when it is not loaded).

    Parameters
    ----------
    X : object
        Any input.

    Returns
    -------
    bool
        True for dask DataFrames, Series, arrays and other dask collections.
    """
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(X)

def _blocks(v, name, n_parts=None):
    """The partitions of v as a list of dask Delayed (2-D arrays: row blocks with all columns);
    a scalar or None is repeated for every partition."""
    if not is_dask(v):
        if v is None or np.ndim(v) == 0:
            return [v] * (n_parts or 1)
        raise TypeError(f"{name} must be a dask collection partitioned like X (or a scalar), got "
                        f"{type(v).__name__}: an in-memory array cannot be matched to X's partitions")
    if hasattr(v, "divisions"):  # dask DataFrame / Series
        parts = list(v.to_delayed())
    else:  # dask array: row blocks only
        if v.ndim == 2:
            v = v.rechunk({1: -1})
            parts = list(v.to_delayed()[:, 0])
        elif v.ndim == 1:
            parts = list(v.to_delayed())
        else:
            raise ValueError(f"{name} must be 1-D or 2-D, got {v.ndim}-D")
    if n_parts is not None and len(parts) != n_parts:
        raise ValueError(f"{name} has {len(parts)} partitions but X has {n_parts}; partition them alike")
    return parts

def _values(v, name, n):
    """A partition's 1-D float64 values (a scalar is broadcast), checked to have n rows."""
    if v is None:
        return None
    try:
        a = np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        what = f"hold 0/1 labels (or booleans), or pass {_POS_LABEL}" if name == "y" else "be numeric"
        raise ValueError(f"{name} must {what} when X is a dask collection: {exc}") from None
    if a.ndim == 0:
        return np.full(n, float(a))
    a = a.reshape(-1)
    if a.shape[0] != n:
        raise ValueError(f"a partition of {name} has {a.shape[0]} rows but the matching partition of X has {n}")
    return a


def _labels(yb, n):
    y = _values(yb, "y", n)
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"y must hold 0/1 labels (or booleans) when X is a dask collection, or pass {_POS_LABEL}")
    return y


def _weights_costs(wb, cost_parts, cost_scalars, n):
    """A partition's ``(weights, costs)``: weights checked (ones when None), costs checked by
    ``check_costs`` from the scalar costs and the partition's per-row ones (None without costs)."""
    from ._validation import check_sample_weight
    from .costs import check_costs

    w = _values(wb, "sample_weight", n)
    w = np.ones(n) if w is None else check_sample_weight(w, n)
    c = None
    if cost_scalars is not None:
        kw = dict(cost_scalars)
        for k, v in cost_parts.items():
            kw[k] = np.asarray(v, dtype=np.float64) if k == "cost_matrix" else _values(v, k, n)
        c = check_costs(n, **kw)
    return w, c


def _add(a, b):
    """Sum of two results of a partition function (tuples or dicts of arrays; None adds as zero)."""
    if isinstance(a, dict):
        return {k: a[k] + b[k] for k in a}
    return tuple(y if x is None else x if y is None else x + y for x, y in zip(a, b))


def cost_blocks(costs, k):
    """(dask costs by partition, scalar costs) of the cost keywords ``costs`` over ``k`` partitions
    (None: no costs, ``({}, None)``); an in-memory array is refused (TypeError naming it)."""
    if costs is None:
        return {}, None
    per_part = {name: _blocks(v, name, k) for name, v in costs.items() if is_dask(v) or np.ndim(v)}
    scalars = {name: v for name, v in costs.items() if not is_dask(v)}
    return per_part, scalars


def _tree_sum(parts, add=_add):
    """Pairwise ``add`` of per-partition results on the workers: only one small result reaches the client."""
    from dask import delayed

    add = delayed(add, pure=True)
    while len(parts) > 1:
        parts = [add(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0].compute()
