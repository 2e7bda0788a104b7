"""Heat map of each rule's precision (or net money) per period, drift marked (:meth:`RuleSet.monitor`)."""

from __future__ import annotations

import numpy as np

from .._docstrings import fill_doc
from ._common import _axes, _choice
from ._money_by_period import _period_ticks

__all__ = ["RuleMonitorDisplay"]

_VALUES = ("precision", "net_money", "alert_rate", "unique_net_money")
_DOCS = {"value_ax": 'value : {"precision", "net_money", "alert_rate", "unique_net_money"}, default="precision"\n'
                     "    What colours the cells.\n"
                     "ax : matplotlib.axes.Axes, optional\n"
                     "    Axes to draw on; a new figure when None."}
# the drift marker of each test that fired (matplotlib marker, words in the title)
_MARKERS = {"precision": ("X", "X = precision"), "alert rate": ("P", "+ = alert rate"), "both": ("*", "* = both"),
            "drift": ("X", "X = drift")}
_LABELS = {"precision": "precision (true alerts / alerts)", "net_money": "net money of the rule alone",
           "alert_rate": "alert rate", "unique_net_money": "net money only this rule adds"}


class RuleMonitorDisplay:
    """Rules (rows) x periods (columns), coloured by precision or money; drift cells marked.

    Rates are coloured on a square-root scale (low precisions stay apart), money on a scale
    centred on 0 fitted to the rules (the set's row, larger, saturates). A cell is grey where
    the value is undefined (no alert: no precision). A black cross
    with a white edge marks a cell whose precision differs from the reference periods beyond
    sampling noise, a plus one whose alert rate does, a star both (``drift``, two-sided
    Fisher exact tests, Bonferroni-corrected; see :meth:`RuleSet.monitor`; a table without
    the p-value columns gets crosses); reference periods are underlined
    with a bar below the map. The whole set (``"(all rules)"``) is the last row, below a line.

    Parameters
    ----------
    table : pandas.DataFrame
        ``RuleSet.monitor(...)``: indexed by (period, rule), with ``drift``.
    value : {"precision", "net_money", "alert_rate", "unique_net_money"}, default="precision"
        What colours the cells (money needs the table computed with costs).

    Attributes
    ----------
    values : ndarray of shape (n_rules + 1, n_periods)
        The coloured values (rules in order, then the set).
    drift : ndarray of bool, same shape
        The drift flags.
    drift_tests : ndarray of str, same shape
        The test that fired in each drift cell: ``"precision"``, ``"alert rate"``, ``"both"``
        (``"drift"`` when the table has no p-values); ``""`` elsewhere.
    rules, periods : ndarray
        Row and column labels.
    image_ : matplotlib.image.AxesImage
        The heat map.
    drift_markers_ : matplotlib.collections.PathCollection
        The drift markers, one path per drift cell (its test's marker).
    colorbar_ : matplotlib.colorbar.Colorbar
        Its colour bar.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, table, value="precision"):
        if not hasattr(table, "index") or getattr(table.index, "nlevels", 1) != 2:
            raise TypeError("table must be the DataFrame of RuleSet.monitor (indexed by period and rule), got "
                            f"{type(table).__name__}")
        self.value = _choice(value, "value", _VALUES)
        for col in (value, "drift"):
            if col not in table.columns:
                raise ValueError(f"the monitor table has no column {col!r}" +
                                 (" (compute it with costs)" if "money" in col else ""))
        self.periods = np.asarray(table.index.get_level_values(0).unique())
        self.rules = np.asarray(table.index.get_level_values(1).unique())
        self.values = table[value].unstack(0).reindex(index=self.rules, columns=self.periods).to_numpy(float)
        self.drift = table["drift"].unstack(0).reindex(index=self.rules, columns=self.periods).to_numpy(
            bool, na_value=False)  # NA: nothing was tested there, nothing to mark
        self.drift_tests = self._tests(table)
        self.reference = list(table.attrs.get("reference", []))
        self.alpha = table.attrs.get("alpha")

    def _tests(self, table):
        """Which test fired in each drift cell, from the p-values below the table's Bonferroni level."""
        tests = np.where(self.drift, "drift", "").astype(object)
        level = table.attrs.get("level")
        if level is None or not {"precision_pvalue", "alert_rate_pvalue"} <= set(table.columns):
            return tests
        fired = [table[c].unstack(0).reindex(index=self.rules, columns=self.periods).to_numpy(float) < level
                 for c in ("precision_pvalue", "alert_rate_pvalue")]
        both = np.select([fired[0] & fired[1], fired[0], fired[1]], ["both", "precision", "alert rate"], "drift")
        return np.where(self.drift, both, "").astype(object)

    def _drift_markers(self, ax, n_rules, n_periods):
        """One marker per drift cell, its shape the test that fired; the words for the title."""
        from matplotlib.markers import MarkerStyle

        r, c = np.nonzero(self.drift)
        size = float(np.clip(2400.0 / max(n_rules, n_periods), 12, 120))
        coll = ax.scatter(c, r, marker="X", s=size, c="k", edgecolors="w", linewidths=0.7, label="drift")
        kinds = [self.drift_tests[i, j] for i, j in zip(r, c)]
        paths = {k: MarkerStyle(_MARKERS[k][0]) for k in set(kinds)}
        if kinds:
            coll.set_paths([paths[k].get_path().transformed(paths[k].get_transform()) for k in kinds])
            coll.set_sizes([size * (2.0 if k == "both" else 1.0) for k in kinds])  # a star is thin: larger
        words = [_MARKERS[k][1] for k in _MARKERS if k in paths]
        return coll, ", ".join(words) if words else "none"

    def _figure(self):
        import matplotlib.pyplot as plt

        n_rules, n_periods = self.values.shape
        width = min(18.0, max(6.0, 0.2 * n_periods + 3.5))
        height = min(16.0, max(3.0, 0.19 * n_rules + 2.0))
        # constrained: long rule names on the y axis and the colour bar stay inside the saved figure
        return plt.subplots(figsize=(width, height), layout="constrained")[1]

    def plot(self, ax=None, *, cmap=None):
        """Draw the heat map.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure sized to the table (legible at 50 rules x 52
            periods) when None.
        cmap : str or matplotlib.colors.Colormap, optional
            Colour map; default ``"viridis"`` for rates, ``"RdBu"`` centred on 0 for money.

        Returns
        -------
        RuleMonitorDisplay
            self.
        """
        import matplotlib as mpl

        ax, fig = _axes(ax if ax is not None else self._figure())
        v = self.values
        n_rules, n_periods = v.shape
        money = "money" in self.value
        rules_only = v[:-1] if n_rules > 1 else v  # the set's row (far larger money) saturates instead
        if money:
            top = float(np.nanmax(np.abs(rules_only), initial=0.0)) or 1.0
            norm = mpl.colors.Normalize(-top, top)
        else:  # square-root scale: low precisions (most rules) stay distinguishable
            top = 1.0 if self.value == "precision" else max(float(np.nanmax(rules_only, initial=0.0)), 1e-12)
            norm = mpl.colors.PowerNorm(0.5, 0.0, top)
        cm = mpl.colormaps[cmap] if isinstance(cmap, str) else cmap or mpl.colormaps["RdBu" if money else "viridis"]
        cm = cm.with_extremes(bad="0.85")
        self.image_ = ax.imshow(np.ma.masked_invalid(v), aspect="auto", cmap=cm, norm=norm, interpolation="nearest")
        self.drift_markers_, marks = self._drift_markers(ax, n_rules, n_periods)
        if n_rules > 1:
            ax.axhline(n_rules - 1.5, color="k", lw=1.2)  # the set's row below the rules
        ref_set = set(self.reference)
        ref = [j for j, p in enumerate(self.periods) if p in ref_set]
        for j in ref:  # reference periods: a bar under their column
            ax.plot([j - 0.45, j + 0.45], [n_rules - 0.5, n_rules - 0.5], color="C1", lw=4, clip_on=False,
                    solid_capstyle="butt", zorder=5)
        ax.set_ylim(n_rules - 0.5, -0.5)
        _period_ticks(ax, self.periods, "x", max_ticks=26)
        step = max(1, int(np.ceil(n_rules / 60)))
        rows = np.arange(0, n_rules, step)
        if rows[-1] != n_rules - 1:
            rows = np.append(rows, n_rules - 1)
        ax.set_yticks(rows, [str(self.rules[i]) for i in rows], fontsize=7 if n_rules > 25 else 9)
        ax.set_xlabel("period" + ("  (orange bar: reference periods)" if len(ref) else ""))
        self.colorbar_ = fig.colorbar(self.image_, ax=ax, fraction=0.04, pad=0.02,
                                      extend="both" if money and n_rules > 1 else "neither")
        self.colorbar_.set_label(_LABELS[self.value])
        level = f", family-wise alpha={self.alpha:g}" if self.alpha is not None else ""
        ax.set_title(f"{self.value} per rule and period; grey = no alert\ndrift: {marks}\n(Fisher exact, "
                     f"Bonferroni{level})", fontsize=9)
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    @fill_doc(**_DOCS)
    def from_monitor(cls, table, *, value="precision", ax=None):
        """Draw a table of :meth:`RuleSet.monitor`.

        Parameters
        ----------
        table : pandas.DataFrame
            ``RuleSet.monitor(...)``.
        %(value_ax)s

        Returns
        -------
        RuleMonitorDisplay
        """
        return cls(table, value=value).plot(ax)

    @classmethod
    @fill_doc(**_DOCS)
    def from_rule_set(cls, rules, X, y, periods, *, reference=None, alpha=0.01, sample_weight=None, fp_cost=None,
                      fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, value="precision", ax=None):
        """Monitor ``rules`` on (X, y) over ``periods`` (:meth:`RuleSet.monitor`) and draw it.

        Parameters
        ----------
        rules : RuleSet
            The rules.
        X : array-like or DataFrame of shape (n_samples, n_features)
            The rows.
        y : array-like of shape (n_samples,)
            0/1 labels.
        periods : array-like of shape (n_samples,)
            The period of each row.
        reference : label or list of labels, optional
            Reference periods (default: the first).
        alpha : float in (0, 1), default=0.01
            Family-wise level of the drift flags.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights.
        fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n_samples,), optional
            Money per row (needed for the money values).
        cost_matrix : array-like of shape (n_samples, 4), optional
            ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
        %(value_ax)s

        Returns
        -------
        RuleMonitorDisplay
        """
        _choice(value, "value", _VALUES)
        table = rules.monitor(X, y, periods, reference=reference, alpha=alpha, sample_weight=sample_weight,
                              fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                              cost_matrix=cost_matrix)
        return cls(table, value=value).plot(ax)
