"""A RuleSet on dask collections (data larger than memory): the entry points RuleSet calls.

- :func:`apply`, :func:`predict_proba`, :func:`predict`, :func:`coverage`, :func:`evaluate`,
  :func:`overlap_counts`
  (:mod:`._dask_evaluate`);
- :func:`is_dask`: whether an input is a dask collection (:mod:`csboost_plugins._dask_blocks`, which also
  reads the partitions for the selection).

Rule selection on dask collections is :mod:`._dask_select` (its simplification
:mod:`._dask_simplify`), called by :func:`csboost_plugins.rules.riff_select`.
"""

from ._dask_evaluate import apply, coverage, evaluate, overlap_counts, predict, predict_proba
from .._dask_blocks import is_dask

__all__ = ["apply", "coverage", "evaluate", "is_dask", "overlap_counts", "predict", "predict_proba"]
