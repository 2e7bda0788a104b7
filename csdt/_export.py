"""Text and matplotlib renderings of fitted trees (:class:`~csboost_plugins.tree_protocol.TreeArrays`),
shared by every tree model of csdt; each model passes its own leaf formatter."""

from __future__ import annotations

import numpy as np


def _names(model, feature_names):
    if feature_names is not None:
        return [str(f) for f in feature_names]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(f) for f in names]
    return [f"x{j}" for j in range(model.n_features_in_)]


def _node_text(t, k, decimals, show_cost):
    """CSDT's node text: cost-optimal class, Laplace P(y=1), training rows and money."""
    parts = [f"class {int(t.label[k])}", f"p={t.value[k]:.{decimals}f}", f"n={int(t.n_node_samples[k])}"]
    if show_cost:
        parts.append(f"cost={t.node_cost[k]:.{decimals}f}")
    return ", ".join(parts)


def tree_lines(t, names, leaf_text, threshold_format="{:.3f}") -> list:
    """One line per split side and per leaf, indented by depth (``sklearn.tree.export_text`` style).

    Parameters
    ----------
    t : TreeArrays
        The fitted tree.
    names : list of str
        Column names ``t.feature`` indexes.
    leaf_text : callable
        ``leaf_text(t, node) -> str``, the model's description of a leaf.
    threshold_format : str
        Format of the thresholds.

    Returns
    -------
    list of str
        ``|--- name <= threshold`` / ``|--- name >  threshold`` with ``(NaN)`` on the side
        missing values take (``<`` / ``>=`` when the tree's splits are strict), then the leaves.
    """
    le, gt = ("<=", "> ") if t.left_inclusive else ("< ", ">=")
    lines = []

    def rec(k, depth):
        ind = "|   " * depth
        if t.children_left[k] == -1:
            lines.append(f"{ind}|--- {leaf_text(t, k)}")
            return
        name = names[t.feature[k]]
        thr = threshold_format.format(t.threshold[k])
        nan_l, nan_r = (" (NaN)", "") if t.missing_left[k] else ("", " (NaN)")
        lines.append(f"{ind}|--- {name} {le} {thr}{nan_l}")
        rec(t.children_left[k], depth + 1)
        lines.append(f"{ind}|--- {name} {gt} {thr}{nan_r}")
        rec(t.children_right[k], depth + 1)

    rec(0, 0)
    return lines


def _check_decimals(decimals):
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or not 0 <= decimals <= 17:
        raise ValueError(f"decimals must be an integer in [0, 17] (digits after the point), got {decimals!r}")


def export_text(model, feature_names=None, decimals=3, show_cost=True) -> str:
    """One line per node of a fitted CSDT, indented by depth, like ``sklearn.tree.export_text``.

    Parameters
    ----------
    model : CostSensitiveDecisionTreeClassifier
        A fitted tree.
    feature_names : list of str, optional
        Column names (default: ``feature_names_in_`` or ``x0, x1, ...``).
    decimals : int
        Digits of thresholds, probabilities and money.
    show_cost : bool
        Whether leaves show their training money.

    Returns
    -------
    str
        Internal nodes read ``|--- name <= threshold`` / ``|--- name >  threshold``, with
        ``(NaN)`` on the side missing values take; leaves give the cost-optimal class, the
        Laplace P(y=1), the training rows and (``show_cost``) the leaf's training money.
    """
    _check_decimals(decimals)
    lines = tree_lines(model.tree_, _names(model, feature_names),
                       lambda t, k: _node_text(t, k, decimals, show_cost), f"{{:.{decimals}f}}")
    return "\n".join(lines) + "\n"


def plot_tree(model, ax=None, feature_names=None, max_depth=None, fontsize=8, decimals=3):
    """Draw the tree top-down with matplotlib; leaves coloured by their class. Returns the Axes."""
    _check_decimals(decimals)
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'csboost-plugins[plot]'") from exc
    t = model.tree_
    names = _names(model, feature_names)
    if ax is None:
        _, ax = plt.subplots(figsize=(12, 6))
    pos = {}
    counter = [0]

    def layout(k, depth):
        cut = max_depth is not None and depth >= max_depth
        if t.children_left[k] == -1 or cut:
            pos[k] = (counter[0], -depth)
            counter[0] += 1
            return
        layout(t.children_left[k], depth + 1)
        layout(t.children_right[k], depth + 1)
        pos[k] = ((pos[t.children_left[k]][0] + pos[t.children_right[k]][0]) / 2.0, -depth)

    layout(0, 0)
    width = max(counter[0] - 1, 1)
    colors = {0: "#cfe2f3", 1: "#f4cccc"}
    for k, (x, yy) in pos.items():
        if t.children_left[k] != -1 and t.children_left[k] in pos:
            for c in (t.children_left[k], t.children_right[k]):
                ax.plot([x / width, pos[c][0] / width], [yy, pos[c][1]], color="grey", lw=0.8)
        if t.children_left[k] != -1 and t.children_left[k] in pos:
            text = f"{names[t.feature[k]]} <= {t.threshold[k]:.{decimals}g}\n" + _node_text(t, k, decimals, False)
        else:
            text = _node_text(t, k, decimals, True).replace(", ", "\n")
        ax.text(x / width, yy, text, ha="center", va="center", fontsize=fontsize,
                bbox={"boxstyle": "round", "fc": colors.get(int(t.label[k]), "white"), "ec": "grey"})
    ax.set_axis_off()
    ax.set_ylim(min(p[1] for p in pos.values()) - 0.5, 0.5)
    ax.set_xlim(-0.1, 1.1)
    return ax
