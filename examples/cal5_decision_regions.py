"""
CAL5 and CAL5_OC decision regions
=================================

Decision regions of CAL5 (no costs) and CAL5_OC (one misclassification cost per
example) on the CAL5_OC paper's synthetic sets NSEP and MULTI, like its Figures 1-5,
and the money each model loses on fresh examples. Leaves where no class dominated (a
Bayes-rule decision, the paper's "errors of type 2" regions) are drawn in lighter
colours; marker area is proportional to each example's misclassification cost in the
cost-sensitive figures.

Run ``python examples/cal5_decision_regions.py`` to show the figures, or add
``--out DIR`` to also write them as PNG files (fig1_nsep_cal5.png ... fig5_multi_oc_cal5oc.png).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from csdt import CAL5Classifier, CAL5OCClassifier
from csdt.datasets import make_multi_oc, make_nsep_oc

# class 0 dominant, class 0 Bayes-only, class 1 Bayes-only, class 1 dominant
REGION_COLOURS = ListedColormap(["#6f9fd8", "#cfe0f5", "#f7d3c4", "#e07b54"])


def plot_regions(ax, model, X, y, cost=None, lim=4.0, title=""):
    g0, g1 = np.meshgrid(np.linspace(-lim, lim, 400), np.linspace(-lim, lim, 400))
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    leaf = model.apply(grid)
    label = model.tree_.label[leaf]
    dominant = model.tree_.leaf_kind[leaf] == "dominates"
    code = np.where(label == 0, np.where(dominant, 0, 1), np.where(dominant, 3, 2))
    ax.pcolormesh(g0, g1, code.reshape(g0.shape), cmap=REGION_COLOURS, vmin=-0.5, vmax=3.5, shading="auto")
    size = 6.0 if cost is None else 14.0 * cost
    for k, marker, colour in ((0, "o", "#1f4e8c"), (1, "s", "#8c2d0f")):
        sel = y == k
        ax.scatter(X[sel, 0], X[sel, 1], s=size if np.isscalar(size) else size[sel], marker=marker,
                   facecolors="none", edgecolors=colour, linewidths=0.5, label=f"class {k}")
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), xlabel="x1 (column 0)", ylabel="x2 (column 1)", title=title)
    ax.legend(loc="upper left", fontsize=7)


def error_cost(model, X, y, cost):
    """Money lost on (X, y): the summed cost of the misclassified examples."""
    return float(cost[model.predict(X) != y].sum())


def main():
    ap = argparse.ArgumentParser(description="Decision regions of CAL5 and CAL5_OC on NSEP and MULTI")
    ap.add_argument("--out", default=None, help="also save the figures as PNG files in this folder")
    ap.add_argument("--n", type=int, default=4000, help="training rows per data set (600 are drawn)")
    args, _ = ap.parse_known_args()
    out = None if args.out is None else Path(args.out)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)

    X, y, c = make_nsep_oc(args.n, random_state=0)
    Xm, ym, cm = make_multi_oc(args.n, random_state=0)
    # keep every interval with its reason (merge_leaves=False) so undecided regions show
    cal5 = dict(alpha=0.3, s_max=0.6, merge_leaves=False)
    nsep_cal5, multi_cal5 = CAL5Classifier(**cal5).fit(X, y), CAL5Classifier(**cal5).fit(Xm, ym)
    nsep_oc = CAL5OCClassifier(alpha=0.2, s_max=0.6, merge_leaves=False).fit(X, y, cost=c)
    multi_oc = CAL5OCClassifier(**cal5).fit(Xm, ym, cost=cm)
    figures = {
        "fig1_nsep_cal5.png": (nsep_cal5, X, y, None, "Fig. 1: NSEP, CAL5 without costs (alpha 0.3, S_max 0.6)"),
        "fig2_multi_cal5.png": (multi_cal5, Xm, ym, None, "Fig. 2: MULTI, CAL5 without costs"),
        "fig4_nsep_oc_cal5oc.png": (nsep_oc, X, y, c, "Fig. 4: NSEP_OC, CAL5_OC (alpha 0.2, S_max 0.6)"),
        "fig5_multi_oc_cal5oc.png": (multi_oc, Xm, ym, cm, "Fig. 5: MULTI_OC, CAL5_OC (alpha 0.3, S_max 0.6)"),
    }
    show = np.random.default_rng(0).choice(args.n, size=min(600, args.n), replace=False)
    for name, (model, XX, yy, cc, title) in figures.items():
        fig, ax = plt.subplots(figsize=(5.5, 5.5))
        plot_regions(ax, model, XX[show], yy[show], None if cc is None else cc[show], title=title)
        fig.tight_layout()
        if out is not None:
            fig.savefig(out / name, dpi=110)

    x1 = np.linspace(-4, 4, 200)
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    ax.plot(x1, 2.0 / (1.0 + np.exp(-x1)), label="class 0: 2 / (1 + exp(-x1))  (eq. 29)")
    ax.plot(x1, 2.0 / (1.0 + np.exp(x1)), label="class 1: 2 / (1 + exp(x1))  (eq. 30)")
    ax.set(xlabel="x1", ylabel="misclassification cost", title="Fig. 3: NSEP_OC cost functions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    if out is not None:
        fig.savefig(out / "fig3_nsep_costs.png", dpi=110)

    # money on fresh examples: the cost-blind tree against the one trained on each example's cost,
    # both with alpha 0.3 and S_max 0.9 (a large S_max lets CAL5_OC's cost-scaled thresholds act)
    print(f"{'test set':<10}{'model':<9}{'leaves':>7}{'errors':>8}{'cost of errors':>16}")
    for data, make in (("NSEP_OC", make_nsep_oc), ("MULTI_OC", make_multi_oc)):
        (Xa, ya, ca), (Xt, yt, ct) = make(args.n, random_state=0), make(args.n, random_state=1)
        for name, model in (("CAL5", CAL5Classifier(alpha=0.3, s_max=0.9).fit(Xa, ya)),
                            ("CAL5_OC", CAL5OCClassifier(alpha=0.3, s_max=0.9).fit(Xa, ya, cost=ca))):
            errors = int((model.predict(Xt) != yt).sum())
            print(f"{data:<10}{name:<9}{model.get_n_leaves():>7}{errors:>8}{error_cost(model, Xt, yt, ct):>16.1f}")


if __name__ == "__main__":
    main()
