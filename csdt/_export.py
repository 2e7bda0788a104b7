"""Text and matplotlib renderings of fitted trees (:class:`~csboost_plugins.tree_protocol.TreeArrays`),
shared by every tree model of csdt (CSDT, FIGS/FIGU, CAL5/CAL5_OC).

One text renderer (:func:`tree_lines`) and one drawing routine (:func:`layout_tree`, then
:func:`draw_layout`) read the fitted arrays; each model passes a :class:`NodeFormat`, its own
description of a node (what a leaf says, which colour it gets). CAL5's multiway view is drawn
from the same arrays by giving :func:`layout_tree` its interval children
(:func:`csdt.cal5._builder.multiway_view`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from csboost_plugins._docstrings import fill_doc

# leaf colours by class index (0 light blue, 1 light red, then a qualitative palette)
CLASS_COLORS = ("#cfe2f3", "#f4cccc", "#d9ead3", "#fff2cc", "#d9d2e9", "#fce5cd", "#d0e0e3", "#ead1dc")
INNER_COLOR = "#f3f3f3"


@dataclass(frozen=True)
class NodeFormat:
    """A model's description of its nodes, read by :func:`tree_lines` and :func:`plot_tree`.

    Parameters
    ----------
    leaf : callable
        ``leaf(t, node) -> str``: what a leaf says (one line; ``", "`` separates the items
        the plot puts on lines of their own).
    inner : callable, optional
        ``inner(t, node) -> str``: what the plot adds under an internal node's split
        (default nothing).
    color : callable, optional
        ``color(t, node) -> str``: the fill colour of a leaf's box (default by ``t.label``).
    """

    leaf: Callable
    inner: Callable | None = None
    color: Callable | None = None


def check_decimals(decimals):
    """ValueError unless ``decimals`` is an integer in [0, 17] (digits after the point)."""
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or not 0 <= decimals <= 17:
        raise ValueError(f"decimals must be an integer in [0, 17] (digits after the point), got {decimals!r}")


def feature_names_of(model, names=None) -> list:
    """The column names a fitted model's ``feature`` arrays index.

    ``names`` when given (a ValueError if its length is not ``n_features_in_``), else
    ``feature_names_in_``, else ``x0, x1, ...``.
    """
    d = model.n_features_in_
    if names is None:
        given = getattr(model, "feature_names_in_", None)
        return [str(f) for f in given] if given is not None else [f"x{j}" for j in range(d)]
    if isinstance(names, str) or not hasattr(names, "__len__"):
        raise TypeError(f"feature_names must be a list of {d} names, got {type(names).__name__}")
    if len(names) != d:
        raise ValueError(f"feature_names has {len(names)} names but the model was fitted on {d} features")
    return [str(f) for f in names]


def split_text(t, k, names, decimals) -> str:
    """``name <= threshold`` (``<`` when the tree's splits are strict) of internal node ``k``."""
    return f"{names[t.feature[k]]} {'<=' if t.left_inclusive else '<'} {t.threshold[k]:.{decimals}f}"


@fill_doc
def tree_lines(t, names, leaf_text, decimals=3) -> list:
    """One line per split side and per leaf, indented by depth (``sklearn.tree.export_text`` style).

    Parameters
    ----------
    %(tree_names)s
    leaf_text : callable
        ``leaf_text(t, node) -> str``, the model's description of a leaf.
    decimals : int
        Digits after the point of the thresholds.

    Returns
    -------
    list of str
        ``|--- name <= threshold`` / ``|--- name >  threshold`` with ``(NaN)`` on the side
        missing values take (``<`` / ``>=`` when the tree's splits are strict), then the leaves,
        in pre-order (left subtree first).
    """
    le, gt = ("<=", "> ") if t.left_inclusive else ("< ", ">=")
    lines = []

    def rec(k, depth):
        ind = "|   " * depth
        if t.children_left[k] == -1:
            lines.append(f"{ind}|--- {leaf_text(t, k)}")
            return
        name = names[t.feature[k]]
        thr = f"{t.threshold[k]:.{decimals}f}"
        nan_l, nan_r = (" (NaN)", "") if t.missing_left[k] else ("", " (NaN)")
        lines.append(f"{ind}|--- {name} {le} {thr}{nan_l}")
        rec(t.children_left[k], depth + 1)
        lines.append(f"{ind}|--- {name} {gt} {thr}{nan_r}")
        rec(t.children_right[k], depth + 1)

    rec(0, 0)
    return lines


def count_text(total):
    """A row count as text: an integer, or the weight sum when sample weights are fractional."""
    return str(int(total)) if float(total).is_integer() else f"{total:.6g}"


def _csdt_leaf(t, k, decimals, show_cost, classes):
    """CSDT's node text: cost-optimal class (its label in ``classes``), Laplace P(y=1), training rows and money."""
    label = int(t.label[k])
    parts = [f"class {label if classes is None else classes[label]}", f"p={t.value[k]:.{decimals}f}",
             f"n={count_text(t.n_node_samples[k])}"]
    if show_cost:
        parts.append(f"cost={t.node_cost[k]:.{decimals}f}")
    return ", ".join(parts)


def csdt_format(decimals, show_cost=True, classes=None) -> NodeFormat:
    """CSDT's nodes: class (``classes[label]`` when given, as scikit-learn's ``export_text`` prints ``classes_``),
    Laplace P(y=1), rows and (leaves, ``show_cost``) training money."""
    return NodeFormat(leaf=lambda t, k: _csdt_leaf(t, k, decimals, show_cost, classes),
                      inner=lambda t, k: _csdt_leaf(t, k, decimals, False, classes))


def check_plot_args(max_depth, fontsize):
    """ValueError naming ``max_depth`` (None or an integer >= 0) or ``fontsize`` (> 0)."""
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer))
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}")
    if isinstance(fontsize, bool) or not isinstance(fontsize, (int, float, np.number)) or not fontsize > 0:
        raise ValueError(f"fontsize must be a number > 0, got {fontsize!r}")


def pyplot():
    """``matplotlib.pyplot``, or an ImportError naming the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # depends on the environment
        raise ImportError("plotting trees needs matplotlib: pip install 'csboost-plugins[plot]'") from exc
    return plt


def binary_children(t):
    """``children(node)`` of a binary :class:`TreeArrays` (empty at leaves)."""
    return lambda k: [] if t.children_left[k] == -1 else [int(t.children_left[k]), int(t.children_right[k])]


def binary_box(t, names, fmt, decimals):
    """``box(node) -> (text, colour)`` of a binary tree: the split over the model's inner text, or the leaf's."""
    color = fmt.color or (lambda t_, k: CLASS_COLORS[int(t_.label[k]) % len(CLASS_COLORS)]
                          if t_.label[k] >= 0 else "white")

    def box(k):
        if t.children_left[k] == -1:
            return fmt.leaf(t, k).replace(", ", "\n"), color(t, k)
        nan = "NaN left" if t.missing_left[k] else "NaN right"
        extra = fmt.inner(t, k).replace(", ", "\n") if fmt.inner is not None else ""
        return "\n".join(s for s in (split_text(t, k, names, decimals), extra, nan) if s), INNER_COLOR

    return box


@dataclass(frozen=True)
class TreeLayout:
    """Where each node's box goes (:func:`layout_tree`), ready for :func:`draw_layout`.

    Parameters
    ----------
    pos : dict of int to (float, float)
        Box centre of every node drawn: x in leaf slots (0, 1, ...), y = -depth.
    boxes : dict of int to (str, str)
        Text and fill colour of every node drawn.
    edges : list of (int, int)
        (parent, child) pairs drawn.
    size : (float, float)
        Inches (width, height) in which no two boxes overlap.
    """

    pos: dict
    boxes: dict
    edges: list
    size: tuple


def layout_tree(children, box, edge_text=None, max_depth=None, fontsize=8) -> TreeLayout:
    """Place a tree top-down: leaves in slots left to right, each parent centred over its children.

    Parameters
    ----------
    children : callable
        ``children(node) -> list of node ids`` (empty at leaves); node 0 is the root.
    box : callable
        ``box(node) -> (text, colour)`` of a node's box.
    edge_text : callable, optional
        ``edge_text(parent, i) -> str``, put as the first line of the parent's i-th child's box.
    max_depth : int, optional
        Nodes deeper than this are not drawn; a cut node's box ends with ``(...)``.
    fontsize : float
        Font size the boxes will be drawn with (sets ``size``).

    Returns
    -------
    TreeLayout
    """
    pos, boxes, edges, slots, under = {}, {}, [], [0], {}

    def place(k, depth, head):
        kids = children(k)
        shown = kids if max_depth is None or depth < max_depth else []
        text, color = box(k)
        boxes[k] = ("\n".join(s for s in (head, text, "(...)" if kids and not shown else "") if s), color)
        if not shown:
            pos[k], under[k] = (float(slots[0]), -float(depth)), 1
            slots[0] += 1
            return
        for i, c in enumerate(shown):
            place(c, depth + 1, edge_text(k, i) if edge_text is not None else "")
            edges.append((k, c))
        pos[k] = ((pos[shown[0]][0] + pos[shown[-1]][0]) / 2.0, -float(depth))
        under[k] = sum(under[c] for c in shown)

    place(0, 0, "")
    # a box is about 0.6 fontsize wide per character and 1.25 fontsize high per line (points)
    char, line = 0.6 * fontsize / 72.0, 1.25 * fontsize / 72.0
    wide = {k: max(len(s) for s in text.splitlines()) * char + 0.3 for k, (text, _) in boxes.items()}
    slot = max(wide[k] / under[k] for k in boxes)
    level = max(len(text.splitlines()) for text, _ in boxes.values()) * line + 0.45
    depth = -min(y for _, y in pos.values())
    return TreeLayout(pos, boxes, edges, (slots[0] * slot + 0.2, (depth + 1) * level + 0.2))


def new_axes(layouts, title=None):
    """A figure with one Axes per layout side by side, each as wide as its tree needs (at most 150 in).

    Parameters
    ----------
    layouts : list of TreeLayout
        The trees to draw.
    title : str, optional
        Title of the figure.

    Returns
    -------
    (Figure, ndarray of Axes)
    """
    widths = [lay.size[0] for lay in layouts]
    height = max(lay.size[1] for lay in layouts) + (0.5 if title or len(layouts) > 1 else 0.0)
    fig, axes = pyplot().subplots(1, len(layouts), squeeze=False, gridspec_kw={"width_ratios": widths},
                                  figsize=(min(sum(widths), 150.0), min(height, 60.0)))
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1.0 - 0.4 / height if title else 0.99, wspace=0.02)
    if title:
        fig.suptitle(title)
    return fig, axes[0]


def draw_layout(ax, lay, fontsize=8, title=None):
    """Draw a :class:`TreeLayout` on ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to draw on.
    lay : TreeLayout
        The placed tree.
    fontsize : float
        Font size of the boxes.
    title : str, optional
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``: each box is a ``matplotlib.text.Text`` with gid ``"node <id>"``, each edge a line
        with gid ``"edge <parent> <child>"``.
    """
    for a, b in lay.edges:
        (line,) = ax.plot([lay.pos[a][0], lay.pos[b][0]], [lay.pos[a][1], lay.pos[b][1]], color="grey", lw=0.8,
                          zorder=1)
        line.set_gid(f"edge {a} {b}")
    for k, (text, color) in lay.boxes.items():
        artist = ax.text(*lay.pos[k], text, ha="center", va="center", fontsize=fontsize, zorder=3,
                         bbox={"boxstyle": "round", "fc": color, "ec": "grey"})
        artist.set_gid(f"node {k}")
    ax.set_axis_off()
    n_slots = 1 + max(x for x, _ in lay.pos.values())
    ax.set_xlim(-0.5, n_slots - 0.5)
    ax.set_ylim(min(y for _, y in lay.pos.values()) - 0.5, 0.5)
    if title is not None:
        ax.set_title(title, fontsize=fontsize + 2)
    return ax


@fill_doc
def plot_tree(t, names, fmt, ax=None, max_depth=None, fontsize=8, decimals=3, title=None):
    """Draw one binary :class:`TreeArrays` top-down with a model's :class:`NodeFormat`.

    Parameters
    ----------
    %(tree_names)s
    fmt : NodeFormat
        The model's node texts and leaf colours.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (a new figure when None).
    max_depth : int, optional
        Draw only the nodes up to this depth.
    fontsize : float
        Font size of the boxes.
    decimals : int
        Digits after the point of the thresholds.
    title : str, optional
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: an internal node's box reads ``name <= threshold``, the model's
        inner text and where NaN goes; a leaf's box the model's leaf text.
    """
    check_decimals(decimals)
    check_plot_args(max_depth, fontsize)
    lay = binary_layout(t, names, fmt, max_depth, fontsize, decimals)
    if ax is None:
        ax = new_axes([lay])[1][0]
    return draw_layout(ax, lay, fontsize, title)


def binary_layout(t, names, fmt, max_depth=None, fontsize=8, decimals=3) -> TreeLayout:
    """:func:`layout_tree` of a binary :class:`TreeArrays` with a model's :class:`NodeFormat`."""
    return layout_tree(binary_children(t), binary_box(t, names, fmt, decimals), max_depth=max_depth,
                       fontsize=fontsize)
