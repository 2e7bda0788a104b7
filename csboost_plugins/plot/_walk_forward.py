"""Net money per period of walk-forward evaluations, each refit and the label delay marked."""

from __future__ import annotations

import numpy as np

from ._common import _axes, _choice

__all__ = ["WalkForwardDisplay"]

_PERIOD_COLUMNS = ("step", "period", "net_money")
_STEP_COLUMNS = ("step", "train_end", "test_start")


def _table(result, attr, columns, who):
    table = getattr(result, attr, None)
    if not hasattr(table, "columns"):
        raise TypeError(f"{who} has no .{attr} DataFrame: pass walk_forward's results")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{who}.{attr} has no column(s) {missing}: pass walk_forward's results")
    return table


def _kind(values, what):
    """``"date"`` for datetimes, ``"number"`` for numbers; ValueError naming ``what`` otherwise."""
    import pandas as pd

    values = np.asarray(values)
    if values.dtype.kind == "M" or (values.dtype.kind == "O" and len(values)
                                    and all(isinstance(v, pd.Timestamp) for v in values[:100])):
        return "date"
    if values.dtype.kind in "iuf":
        return "number"
    raise ValueError(f"{what} must hold Timestamps or numbers of days, got dtype {values.dtype}")


def _x(values, kind):
    """Positions on the x axis: matplotlib's date numbers for datetimes, the numbers themselves otherwise."""
    import pandas as pd

    if kind == "number":
        return np.asarray(values, dtype=np.float64)
    from matplotlib.dates import date2num

    return date2num(pd.DatetimeIndex(values).tz_localize(None).to_numpy())


class WalkForwardDisplay:
    """Net money per period of one or several walk-forward results, with the refits and the label delay.

    One line per result through the net money of each period it tested (``net_money`` = money
    caught - alert cost over the period's rows, the money saved against raising no alert; with
    ``cumulative=True`` its running sum). A period tested by several steps (overlapping test
    windows) shows the mean of their net money. A vertical line marks each refit (a step's
    ``test_start``) and a shaded span the label delay ``[train_end, test_start)``: the days between
    the end of the training window and the first day scored, whose labels were not known yet.

    Reads only ``result.periods`` (columns ``step``, ``period``, ``net_money``) and ``result.steps``
    (``step``, ``train_end``, ``test_start``) of :func:`csboost_plugins.model_selection.walk_forward`'s
    results; periods are Timestamps or numbers of days, the same kind in every result.

    Parameters
    ----------
    results : WalkForwardResult or sequence of WalkForwardResult
        The results to draw.
    names : sequence of str, optional
        One legend name per result; default each result's ``name`` attribute, else ``"result i"``.
    cumulative : bool, default=False
        Draw the running sum of the net money over the periods.

    Attributes
    ----------
    names : list of str
        The legend names.
    periods : list of ndarray
        Per result, its tested periods, sorted.
    net_money : list of ndarray
        Per result, the net money of each period (money), or its running sum with ``cumulative``.
    refits : ndarray
        The distinct ``test_start`` of all results' steps, sorted.
    delays : ndarray of shape (n_steps, 2)
        The distinct ``(train_end, test_start)`` of all results' steps, sorted, as x positions.
    lines_ : list of matplotlib.lines.Line2D
        One line per result.
    refit_lines_ : matplotlib.collections.LineCollection
        The refit markers (one collection).
    delay_spans_ : matplotlib.collections.PolyCollection or None
        The shaded label delays (one collection), None with ``delays="none"``.
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Its figure.
    """

    def __init__(self, results, *, names=None, cumulative=False):
        if hasattr(results, "periods") and hasattr(results, "steps"):
            results = [results]
        results = list(results)
        if not results:
            raise ValueError("results is empty: pass one walk-forward result or a list of them")
        if names is None:
            names = [str(getattr(r, "name", None) or f"result {i}") for i, r in enumerate(results)]
        elif isinstance(names, str) or len(names) != len(results):
            raise ValueError(f"names must hold one name per result ({len(results)}), got {names!r}")
        if not isinstance(cumulative, (bool, np.bool_)):
            raise TypeError(f"cumulative must be True or False, got {cumulative!r}")
        self.names, self.cumulative = [str(n) for n in names], bool(cumulative)
        self.periods, self.net_money, bounds, kinds = [], [], [], set()
        for name, result in zip(self.names, results):
            who = f"result {name!r}"
            table = _table(result, "periods", _PERIOD_COLUMNS, who)
            steps = _table(result, "steps", _STEP_COLUMNS, who)
            if len(table) == 0:
                raise ValueError(f"{who}.periods is empty: no period was tested")
            per = table.groupby("period", sort=True)["net_money"].mean()  # mean over overlapping steps
            kinds |= {_kind(per.index.to_numpy(), f"{who}.periods['period']")}
            kinds |= {_kind(steps[c].to_numpy(), f"{who}.steps[{c!r}]") for c in _STEP_COLUMNS[1:] if len(steps)}
            money = per.to_numpy(dtype=np.float64)
            self.periods.append(per.index.to_numpy())
            self.net_money.append(np.cumsum(money) if self.cumulative else money)
            bounds.append(steps.sort_values("step")[list(_STEP_COLUMNS[1:])])
        if len(kinds) > 1:
            raise ValueError("the results mix Timestamp periods and numeric periods: draw them on separate axes")
        self._kind = kinds.pop()
        self._first = [b.iloc[:1] for b in bounds]
        self.delays = self._bounds(bounds)
        self.refits = np.unique(self.delays[:, 1])

    def _bounds(self, tables):
        """The distinct (train_end, test_start) x positions of the given step tables, sorted."""
        import pandas as pd

        both = pd.concat(tables, ignore_index=True)
        if len(both) == 0:
            return np.zeros((0, 2))
        xy = np.column_stack([_x(both["train_end"].to_numpy(), self._kind),
                              _x(both["test_start"].to_numpy(), self._kind)])
        return np.unique(xy, axis=0)

    def plot(self, ax=None, *, delays="first"):
        """Draw one line per result, the refits and the label delays.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure when None.
        delays : {"first", "all", "none"}, default="first"
            Which label delays to shade: each result's first step (clearer: with weekly refits and a
            week's delay, every step's delay covers the previous step's test week), every step, or none.

        Returns
        -------
        WalkForwardDisplay
            self.
        """
        from matplotlib.collections import PolyCollection

        _choice(delays, "delays", ("first", "all", "none"))
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(9.0, 4.0))
        ax, fig = _axes(ax)
        self.lines_ = [ax.plot(_x(p, self._kind), v, lw=1.2, label=name)[0]
                       for name, p, v in zip(self.names, self.periods, self.net_money)]
        ax.axhline(0, color="k", lw=0.5)
        # x in data units, y from the bottom (0) to the top (1) of the axes, whatever the money range
        band = ax.get_xaxis_transform()
        self.refit_lines_ = ax.vlines(self.refits, 0, 1, transform=band, colors="0.4", linestyles=":", lw=0.8,
                                      label="refit (test start)")
        self.delay_spans_ = None
        if delays != "none":
            spans = self.delays if delays == "all" else self._bounds(self._first)
            boxes = [[(a, 0.0), (a, 1.0), (b, 1.0), (b, 0.0)] for a, b in spans]
            self.delay_spans_ = ax.add_collection(PolyCollection(boxes, transform=band, facecolors="C1", alpha=0.15,
                                                                 edgecolors="none", label="label delay"),
                                                  autolim=False)
            # the x limits must show the shaded delays too (the first lies before any tested period)
            xs = np.concatenate([spans.ravel(), *(line.get_xdata() for line in self.lines_)])
            lo, hi = float(xs.min()), float(xs.max())
            pad = 0.02 * (hi - lo) if hi > lo else 0.5
            ax.set_xlim(lo - pad, hi + pad)
        if self._kind == "date":
            from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

            ax.xaxis_date()
            locator = AutoDateLocator()
            ax.xaxis.set_major_locator(locator)
            ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # full dates overlap at a week apart
        ax.set_xlabel("period")
        ax.set_ylabel("cumulative net money" if self.cumulative else "net money per period")
        # above the axes: inside, it would hide the first delay; a fixed place ("best" scans every point)
        n_items = len(self.lines_) + 1 + (self.delay_spans_ is not None)
        ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(4, n_items), frameon=False)
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_results(cls, results, *, names=None, ax=None, cumulative=False, delays="first"):
        """Draw walk-forward results (see the class).

        Parameters
        ----------
        results : WalkForwardResult or sequence of WalkForwardResult
            The results of :func:`csboost_plugins.model_selection.walk_forward`.
        names : sequence of str, optional
            One legend name per result.
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure when None.
        cumulative : bool, default=False
            Draw the running sum of the net money.
        delays : {"first", "all", "none"}, default="first"
            Which label delays to shade.

        Returns
        -------
        WalkForwardDisplay
        """
        return cls(results, names=names, cumulative=cumulative).plot(ax, delays=delays)
