"""Decision regions of CAL5 and CAL5_OC on NSEP and MULTI, like Figures 1-5 of the CAL5_OC paper.

Usage::

    python examples/cal5_decision_regions.py [--out benchmarks/results/cal5_figures]

Writes fig1_nsep_cal5.png, fig2_multi_cal5.png, fig3_nsep_costs.png,
fig4_nsep_oc_cal5oc.png and fig5_multi_oc_cal5oc.png (matplotlib, Agg backend).
Leaves where no class dominated (a Bayes-rule decision, the paper's "errors of
type 2" regions) are drawn in lighter colours. Marker area is proportional to
each example's misclassification cost in the cost-sensitive figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from csdt import CAL5Classifier, CAL5OCClassifier  # noqa: E402
from csdt.datasets import make_multi_oc, make_nsep_oc  # noqa: E402

# class 0 dominant, class 0 Bayes-only, class 1 Bayes-only, class 1 dominant
REGION_COLOURS = ListedColormap(["#6f9fd8", "#cfe0f5", "#f7d3c4", "#e07b54"])


def plot_regions(ax, model, X, y, cost=None, lim=4.0, title=""):
    g0, g1 = np.meshgrid(np.linspace(-lim, lim, 400), np.linspace(-lim, lim, 400))
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    leaf = model.apply(grid)
    label = model.tree_.binary.label[leaf]
    dominant = model.tree_.binary_leaf_kind[leaf] == "dominates"
    code = np.where(label == 0, np.where(dominant, 0, 1), np.where(dominant, 3, 2))
    ax.pcolormesh(g0, g1, code.reshape(g0.shape), cmap=REGION_COLOURS, vmin=-0.5, vmax=3.5, shading="auto")
    size = 6.0 if cost is None else 14.0 * cost
    for k, marker, colour in ((0, "o", "#1f4e8c"), (1, "s", "#8c2d0f")):
        sel = y == k
        ax.scatter(X[sel, 0], X[sel, 1], s=size if np.isscalar(size) else size[sel], marker=marker,
                   facecolors="none", edgecolors=colour, linewidths=0.5, label=f"class {k}")
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), xlabel="x1 (column 0)", ylabel="x2 (column 1)", title=title)
    ax.legend(loc="upper left", fontsize=7)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="cal5_figures")
    ap.add_argument("--n", type=int, default=4000, help="rows per data set (600 are drawn)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    X, y, c = make_nsep_oc(args.n, random_state=0)
    Xm, ym, cm = make_multi_oc(args.n, random_state=0)
    # keep every interval with its reason (merge_leaves=False) so undecided regions show
    cal5 = dict(alpha=0.3, s_max=0.6, merge_leaves=False)
    figures = {
        "fig1_nsep_cal5.png": (CAL5Classifier(**cal5).fit(X, y), X, y, None,
                               "Fig. 1: NSEP, CAL5 without costs (alpha 0.3, S_max 0.6)"),
        "fig2_multi_cal5.png": (CAL5Classifier(**cal5).fit(Xm, ym), Xm, ym, None,
                                "Fig. 2: MULTI, CAL5 without costs"),
        "fig4_nsep_oc_cal5oc.png": (CAL5OCClassifier(alpha=0.2, s_max=0.6, merge_leaves=False).fit(X, y, cost=c),
                                    X, y, c, "Fig. 4: NSEP_OC, CAL5_OC (alpha 0.2, S_max 0.6)"),
        "fig5_multi_oc_cal5oc.png": (CAL5OCClassifier(**cal5).fit(Xm, ym, cost=cm), Xm, ym, cm,
                                     "Fig. 5: MULTI_OC, CAL5_OC (alpha 0.3, S_max 0.6)"),
    }
    show = np.random.default_rng(0).choice(args.n, size=min(600, args.n), replace=False)
    for name, (model, XX, yy, cc, title) in figures.items():
        fig, ax = plt.subplots(figsize=(5.5, 5.5))
        plot_regions(ax, model, XX[show], yy[show], None if cc is None else cc[show], title=title)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        print(f"{out / name}: {model.get_n_leaves()} leaves\n{model.export_text(decimals=3)}\n")

    x1 = np.linspace(-4, 4, 200)
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    ax.plot(x1, 2.0 / (1.0 + np.exp(-x1)), label="class 0: 2 / (1 + exp(-x1))  (eq. 29)")
    ax.plot(x1, 2.0 / (1.0 + np.exp(x1)), label="class 1: 2 / (1 + exp(x1))  (eq. 30)")
    ax.set(xlabel="x1", ylabel="misclassification cost", title="Fig. 3: NSEP_OC cost functions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig3_nsep_costs.png", dpi=110)
    plt.close(fig)
    print(f"{out / 'fig3_nsep_costs.png'}")


if __name__ == "__main__":
    main()
