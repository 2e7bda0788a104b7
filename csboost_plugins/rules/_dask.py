"""RIFF on dask collections (data larger than memory): the entry points the public code calls.

- :func:`riff_select`: rule selection, one pass over the partitions per greedy step
  (:mod:`._dask_select`);
- :func:`apply`, :func:`predict_proba`, :func:`predict`, :func:`coverage`, :func:`evaluate`:
  a RuleSet on dask rows (:mod:`._dask_evaluate`);
- :func:`is_dask`: whether an input is a dask collection (:mod:`._dask_partitions`, which
  also reads the partitions for both).
"""

from ._dask_evaluate import apply, coverage, evaluate, predict, predict_proba
from ._dask_partitions import is_dask
from ._dask_select import riff_select

__all__ = ["apply", "coverage", "evaluate", "is_dask", "predict", "predict_proba", "riff_select"]
