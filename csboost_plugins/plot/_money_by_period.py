"""Money caught, alert cost and net money per period (week, day, ...), alerts on a second axis."""

from __future__ import annotations

import numpy as np

from ._common import _axes

__all__ = ["MoneyByPeriodDisplay"]

_NEEDED = ("alerts", "money_caught", "alert_cost", "net_money")


def _period_ticks(ax, labels, axis="x", max_ticks=26):
    """Label every k-th period so that at most ``max_ticks`` labels show (52 weeks stay legible)."""
    n = len(labels)
    step = max(1, int(np.ceil(n / max_ticks)))
    pos = np.arange(0, n, step)
    text = [str(labels[i]) for i in pos]
    if axis == "x":
        ax.set_xticks(pos, text, rotation=90 if max(map(len, text), default=0) > 4 else 0, fontsize=8)
    else:
        ax.set_yticks(pos, text, fontsize=8)


class MoneyByPeriodDisplay:
    """Money and alerts per period, from :func:`csboost_plugins.metrics.money_by_period`.

    Per period, a bar up by the money caught (``C_FN - C_TP`` over flagged positives), a bar
    down by the alert cost (``C_FP - C_TN`` over flagged negatives), and a line through the
    net money (their difference: money saved against raising no alert); the number of
    alerts is drawn on a second axis (right).

    Parameters
    ----------
    table : pandas.DataFrame
        ``money_by_period(...)`` computed with costs.

    Attributes
    ----------
    periods : ndarray
        The period labels (the table's index).
    caught_bars_, alert_bars_ : matplotlib.container.BarContainer or matplotlib.collections.PolyCollection
        The bars: one rectangle per period up to ``MAX_BARS`` periods; beyond, where a bar is narrower
        than a pixel, one step area per series (the bars side by side, one artist), so that drawing
        100,000 periods takes as long as drawing a few hundred.
    net_line_, alerts_line_ : matplotlib.lines.Line2D
        Net money; alerts (on ``alerts_ax_``).
    ax_, alerts_ax_ : matplotlib.axes.Axes
        The money axes and the alerts axes (twin).
    figure_ : matplotlib.figure.Figure
        Their figure.
    """

    #: periods drawn as separate bars; more periods are drawn as one step area per series
    MAX_BARS = 250

    def __init__(self, table):
        if not hasattr(table, "columns"):
            raise TypeError(f"table must be the DataFrame of money_by_period, got {type(table).__name__}")
        missing = [c for c in _NEEDED if c not in table.columns]
        if missing:
            raise ValueError(f"the table needs money_by_period's columns computed with costs ({missing} missing)")
        self.table = table
        self.periods = np.asarray(table.index)

    def plot(self, ax=None):
        """Draw the bars, the net money line and the alerts.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure (wider with more periods) when None.

        Returns
        -------
        MoneyByPeriodDisplay
            self.
        """
        t = self.table
        n = len(t)
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(max(6.0, min(16.0, 0.22 * n + 3)), 4.0))
        ax, fig = _axes(ax)
        x = np.arange(n)
        caught, alert = t["money_caught"].to_numpy(), t["alert_cost"].to_numpy()
        many = n > self.MAX_BARS
        if many:  # one artist per series: a Rectangle per period is what made 100,000 periods take minutes
            self.caught_bars_ = ax.fill_between(x, 0, caught, step="mid", color="C2", alpha=0.7, lw=0,
                                                label="money caught")
            self.alert_bars_ = ax.fill_between(x, 0, -alert, step="mid", color="C3", alpha=0.7, lw=0,
                                               label="alert cost")
        else:
            self.caught_bars_ = ax.bar(x, caught, 0.8, color="C2", alpha=0.7, label="money caught")
            self.alert_bars_ = ax.bar(x, -alert, 0.8, color="C3", alpha=0.7, label="alert cost")
        (self.net_line_,) = ax.plot(x, t["net_money"].to_numpy(), "-" if many else "o-", color="C0", ms=3, lw=1.5,
                                    label="net money (vs no alerts)")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_ylabel("money")
        ax.set_xlabel(str(t.index.name or "period"))
        ax.set_xlim(-0.6, n - 0.4)
        _period_ticks(ax, self.periods)
        self.alerts_ax_ = ax.twinx()
        (self.alerts_line_,) = self.alerts_ax_.plot(x, t["alerts"].to_numpy(), "--", color="0.35", lw=1,
                                                   label="alerts (right axis)")
        self.alerts_ax_.set_ylabel("alerts")
        self.alerts_ax_.set_ylim(0, max(1.0, float(np.nanmax(t["alerts"].to_numpy(), initial=0))) * 1.15)
        handles = [self.caught_bars_, self.alert_bars_, self.net_line_, self.alerts_line_]
        # above the axes: inside, it would hide the first periods' bars
        ax.legend(handles, [h.get_label() for h in handles], loc="lower center", bbox_to_anchor=(0.5, 1.0),
                  fontsize=8, ncol=4, frameon=False)
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_table(cls, table, *, ax=None):
        """Draw a table of :func:`csboost_plugins.metrics.money_by_period`.

        Parameters
        ----------
        table : pandas.DataFrame
            ``money_by_period(...)`` computed with costs.
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure when None.

        Returns
        -------
        MoneyByPeriodDisplay
        """
        return cls(table).plot(ax)

    @classmethod
    def from_predictions(cls, y_true, y_pred, periods, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                         cost_matrix=None, sample_weight=None, ax=None):
        """Money per period of 0/1 decisions (see :func:`csboost_plugins.metrics.money_by_period`).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            0/1 labels.
        y_pred : array-like of shape (n_samples,)
            0/1 decisions (1 = alert).
        periods : array-like of shape (n_samples,)
            The period of each row.
        fp_cost, fn_cost : float or array-like of shape (n_samples,), optional
            ``C_FP``, ``C_FN`` (money per row); needed unless ``cost_matrix`` is given.
        tp_cost, tn_cost : float or array-like of shape (n_samples,), default=0.0
            ``C_TP``, ``C_TN``.
        cost_matrix : array-like of shape (n_samples, 4), optional
            ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights.
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure when None.

        Returns
        -------
        MoneyByPeriodDisplay
        """
        from ..metrics import money_by_period

        if fn_cost is None and cost_matrix is None:
            raise ValueError("MoneyByPeriodDisplay draws money: give fn_cost= (and fp_cost=) or cost_matrix=")
        table = money_by_period(y_true, y_pred, periods, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost,
                                tn_cost=tn_cost, cost_matrix=cost_matrix, sample_weight=sample_weight)
        return cls(table).plot(ax)
