"""What every tree reader of :func:`~csboost_plugins.rules.extract_rules` produces: a tree's
conditions in a library-neutral form (the readers import this, never ``_extract``)."""

from __future__ import annotations

import numpy as np

__all__ = ["TreeConditions", "check_output"]


def check_output(output, n_outputs: int, model_name: str):
    """Validate ``output`` (None or an integer in [0, n_outputs)); returns it as int or None."""
    if output is None:
        return None
    if isinstance(output, bool) or not isinstance(output, (int, np.integer)):
        raise TypeError(f"output must be None or an integer, got {type(output).__name__}")
    if not 0 <= int(output) < n_outputs:
        raise ValueError(f"output must lie in [0, {n_outputs}) for this {model_name} with {n_outputs} output(s), "
                         f"got {output}")
    return int(output)


class TreeConditions:
    """A binary tree with the condition each child adds, in a library-neutral form.

    ``left[i]`` / ``right[i]``: child positions (-1 at leaves); ``cond_left[i]`` /
    ``cond_right[i]``: the condition a row satisfies iff the library routes it from
    node i to that child; ``node_id[i]``: the library's own id (what ``apply`` /
    ``pred_leaf`` return for leaves); ``value[i]``: the node's output.
    """

    def __init__(self, left, right, cond_left, cond_right, node_id, value, categories=None):
        self.left, self.right = list(left), list(right)
        self.cond_left, self.cond_right = cond_left, cond_right
        self.node_id, self.value = list(node_id), list(value)
        self.categories = categories or {}
