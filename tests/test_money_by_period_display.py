"""MoneyByPeriodDisplay at many periods: a bounded number of artists (one per series beyond MAX_BARS periods),
drawing the values of money_by_period."""

import numpy as np
import pytest

from csboost_plugins.metrics import money_by_period

N_PERIODS = 100_000


def _table(n_periods, seed=0):
    rng = np.random.default_rng(seed)
    n = 3 * n_periods
    y = (rng.random(n) < 0.1).astype(np.int64)
    d = (rng.random(n) < 0.3).astype(np.int64)
    amount = np.round(rng.lognormal(3, 1, n), 2)
    periods = np.repeat(np.arange(n_periods), 3)
    return money_by_period(y, d, periods, fp_cost=5.0, fn_cost=amount), (y, d, periods, amount)


def _heights(area):
    """The distinct non-zero heights of a step area's outline."""
    v = np.concatenate([p.vertices[:, 1] for p in area.get_paths()])
    return np.unique(v[v != 0])


@pytest.mark.parametrize("n_periods", [N_PERIODS, 300])
def test_many_periods_draw_a_bounded_number_of_artists_with_the_table_values(n_periods):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from csboost_plugins.plot import MoneyByPeriodDisplay

    table, _ = _table(n_periods)
    d = MoneyByPeriodDisplay.from_table(table)
    d.figure_.canvas.draw()
    assert n_periods > MoneyByPeriodDisplay.MAX_BARS
    assert len(d.ax_.patches) == 0 and len(d.ax_.collections) == 2  # two step areas, not a bar per period
    assert len(d.ax_.lines) + len(d.alerts_ax_.lines) <= 3
    np.testing.assert_array_equal(d.net_line_.get_ydata(), table["net_money"])
    np.testing.assert_array_equal(d.alerts_line_.get_ydata(), table["alerts"])
    caught, alert = table["money_caught"].to_numpy(), table["alert_cost"].to_numpy()
    np.testing.assert_array_equal(_heights(d.caught_bars_), np.unique(caught[caught != 0]))
    np.testing.assert_array_equal(_heights(d.alert_bars_), np.unique(-alert[alert != 0]))
    plt.close("all")


def test_few_periods_keep_one_bar_per_period():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from csboost_plugins.plot import MoneyByPeriodDisplay

    table, (y, d, periods, amount) = _table(52)
    disp = MoneyByPeriodDisplay.from_predictions(y, d, periods, fp_cost=5.0, fn_cost=amount)
    np.testing.assert_array_equal([b.get_height() for b in disp.caught_bars_], table["money_caught"])
    np.testing.assert_array_equal([b.get_height() for b in disp.alert_bars_], -table["alert_cost"])
    plt.close("all")
