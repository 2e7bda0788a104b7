"""Each rule's added money caught and alert cost, down to the rule set's net money."""

from __future__ import annotations

import numpy as np

from .._docstrings import fill_doc
from ..metrics import _LABEL_DOCS, _BinaryLabels
from ._common import _Y_DOC, _axes

__all__ = ["RuleWaterfallDisplay"]


def _rule_labels(table):
    """Each rule's name (the table's ``name`` column), its position from 1 where it has none."""
    names = table["name"] if "name" in table.columns else [None] * len(table)
    missing = [n is None or n != n or not str(n).strip() for n in names]  # n != n: a NaN
    return [str(i) if m else str(n) for i, (n, m) in enumerate(zip(names, missing), start=1)]


class RuleWaterfallDisplay:
    """Waterfall of a rule set's money.

    Each rule is labelled by its name (by its position from 1 when it has none). For rule i,
    a bar up by the money it catches that no earlier rule catches
    (``new_money_caught``), then a bar down by its added alert cost
    (``new_alert_cost``); the last bar is the set's net money (money saved against
    no rules). The y-limits hold every bar end (the cumulative money caught included)
    with a 5 % margin of the money range, and headroom for the legend above the bars.

    Parameters
    ----------
    table : pandas.DataFrame
        ``RuleSet.evaluate(..., per_rule=True)`` computed with costs.

    Attributes
    ----------
    caught_bars_, alert_bars_, net_bar_ : matplotlib.container.BarContainer
        The bars.
    legend_ : matplotlib.legend.Legend
        One row across the top of the axes; the y-limits leave it free of bars.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, table):
        if not hasattr(table, "columns"):
            raise TypeError(f"table must be the DataFrame of RuleSet.evaluate(..., per_rule=True), got "
                            f"{type(table).__name__}")
        missing = {"new_money_caught", "new_alert_cost", "set_net_money"} - set(table.columns)
        if missing:
            raise ValueError(f"the per-rule table needs costs (columns {sorted(missing)} are missing)")
        self.table = table

    @fill_doc
    def plot(self, ax=None):
        """Draw the waterfall.

        %(Parameters, ax)s

        Returns
        -------
        RuleWaterfallDisplay
            self.
        """
        ax, fig = _axes(ax)
        t = self.table
        k = len(t)
        caught, alert = t["new_money_caught"].to_numpy(), t["new_alert_cost"].to_numpy()
        before = np.cumsum(np.concatenate([[0.0], caught - alert]))[:-1]  # net money of rules 1..i-1
        pos = np.arange(1, k + 1)
        self.caught_bars_ = ax.bar(pos - 0.2, caught, 0.4, bottom=before, color="C2", label="money caught")
        self.alert_bars_ = ax.bar(pos + 0.2, -alert, 0.4, bottom=before + caught, color="C3", label="alert cost")
        net = float(t["set_net_money"].iloc[-1]) if k else 0.0
        self.net_bar_ = ax.bar([k + 1], [net], 0.6, color="C0", label="net money")
        names = _rule_labels(t)
        long = max((len(n) for n in names), default=0) > 4  # names, not numbers: slanted so they do not overlap
        ax.set_xticks(list(pos) + [k + 1], names + ["net"], rotation=30 if long else 0,
                      ha="right" if long else "center")
        ax.set_xlabel("rule (in order; each bar counts only rows no earlier rule flags)")
        ax.set_ylabel("money")
        ax.axhline(0, color="k", lw=0.5)
        # one row of legend across the top, in headroom the y-limits leave free above every bar
        self.legend_ = ax.legend(loc="upper left", ncol=3, fontsize="small")
        ax.set_ylim(*self._ylim(ax, [before, before + caught, before + caught - alert, [0.0, net]]))
        self.ax_, self.figure_ = ax, fig
        return self

    MARGIN = 0.05  # share of the bars' money range left free below the lowest and above the highest bar end

    def _ylim(self, ax, ends):
        """y-limits holding every bar end (cumulative money caught included) with ``MARGIN`` of the range on
        both sides, the top raised so the highest bar end sits below the legend's lower edge."""
        v = np.concatenate([np.asarray(e, dtype=np.float64) for e in ends])
        v = v[np.isfinite(v)]
        lo, hi = min(v.min(initial=0.0), 0.0), max(v.max(initial=0.0), 0.0)
        pad = self.MARGIN * (hi - lo) if hi > lo else 1.0
        lo, hi = lo - pad, hi + pad
        # the legend is anchored to the axes' corner: its lower edge is a fixed share of the axes height
        box = self.legend_.get_window_extent().transformed(ax.transAxes.inverted())
        free = min(max(box.y0, 0.5), 1.0)  # a legend taller than half the axes: keep at least half for bars
        return lo, lo + (hi - lo) / free

    @classmethod
    @fill_doc(**_LABEL_DOCS, y_labels=_Y_DOC)
    def from_estimator(cls, rules, X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None,
                       sample_weight=None, ax=None, pos_label=None):
        """Waterfall of a rule set on (X, y) (a holdout set) with per-row costs.

        Parameters
        ----------
        rules : RuleSet
            The rule set.
        %(X, y_labels, costs, sample_weight, ax, pos_label)s

        Returns
        -------
        RuleWaterfallDisplay
        """
        y = _BinaryLabels(y, None, pos_label).y01  # the rule set counts y == 1 as caught: pos_label is that 1
        table = rules.evaluate(X, y, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                               cost_matrix=cost_matrix, sample_weight=sample_weight, per_rule=True)
        return cls(table).plot(ax)
