"""The prediction walk of every tree model of csdt, run AOT when built.

:func:`csboost_plugins.tree_protocol.apply_forest` (the project's one numba apply kernel,
GIL released) walks every row through every tree of a stacked
:class:`~csboost_plugins.tree_protocol.Forest`; CSDT (a forest of one), the ECSDT
ensembles, FIGS/FIGU and CAL5 all predict through :func:`apply`.
"""

from csboost_plugins.tree_protocol import Forest, TreeArrays, apply_forest, forest_args, stack_trees

from . import _aot

__all__ = ["apply", "apply_one", "apply_forest"]


def apply(trees, X):
    """(n, T) leaf id of every row of validated C-contiguous float64 ``X`` in every tree.

    ``trees``: a :class:`Forest`, one :class:`TreeArrays` or a list of them.
    """
    if not isinstance(trees, Forest):
        trees = stack_trees([trees] if isinstance(trees, TreeArrays) else trees)
    return _aot.run("apply_forest", apply_forest, *forest_args(trees, X))


def apply_one(tree, X):
    """Leaf id of every row in the single tree ``tree``, shape (n,)."""
    return apply(tree, X)[:, 0]
