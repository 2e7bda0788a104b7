"""Text and matplotlib renderings of a fitted cost-sensitive tree."""

from __future__ import annotations


def _names(model, feature_names):
    if feature_names is not None:
        return [str(f) for f in feature_names]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(f) for f in names]
    return [f"x{j}" for j in range(model.n_features_in_)]


def _node_text(t, k, decimals, show_cost):
    parts = [f"class {int(t.label[k])}", f"p={t.value[k]:.{decimals}f}", f"n={int(t.n_samples[k])}"]
    if show_cost:
        parts.append(f"cost={t.node_cost[k]:.{decimals}f}")
    return ", ".join(parts)


def export_text(model, feature_names=None, decimals=3, show_cost=True) -> str:
    """One line per node, indented by depth, like ``sklearn.tree.export_text``.

    Internal nodes read ``|--- name <= threshold`` / ``|--- name >  threshold``, with
    ``(NaN)`` on the side missing values take; leaves give the cost-optimal class, the
    Laplace P(y=1), the training rows and (``show_cost``) the leaf's training money.
    """
    t = model.tree_
    names = _names(model, feature_names)
    lines = []

    def rec(k, depth):
        ind = "|   " * depth
        if t.children_left[k] == -1:
            lines.append(f"{ind}|--- {_node_text(t, k, decimals, show_cost)}")
            return
        name = names[t.feature[k]]
        thr = t.threshold[k]
        nan_l = " (NaN)" if t.missing_left[k] else ""
        nan_r = "" if t.missing_left[k] else " (NaN)"
        lines.append(f"{ind}|--- {name} <= {thr:.{decimals}f}{nan_l}")
        rec(t.children_left[k], depth + 1)
        lines.append(f"{ind}|--- {name} >  {thr:.{decimals}f}{nan_r}")
        rec(t.children_right[k], depth + 1)

    rec(0, 0)
    return "\n".join(lines) + "\n"


def plot_tree(model, ax=None, feature_names=None, max_depth=None, fontsize=8, decimals=3):
    """Draw the tree top-down with matplotlib; leaves coloured by their class. Returns the Axes."""
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
