"""WalkForwardDisplay on the Agg backend, with results built by hand after walk_forward's schema
(``periods`` and ``steps`` DataFrames): one line per result through the per-period net money, the
refits and label delays where the steps put them, and the scale of one artist per result."""


import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib", reason="pip install matplotlib (plot extra)")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.dates import date2num  # noqa: E402

from csboost_plugins.metrics import money_by_period  # noqa: E402
from csboost_plugins.plot import WalkForwardDisplay  # noqa: E402

DAY = pd.Timedelta(days=1)


class Result:
    """The two tables of a walk-forward result the display reads, and a name."""

    def __init__(self, periods, steps, name=None):
        self.periods, self.steps, self.name = periods, steps, name


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _schedule(n_steps, start, unit, train=7, delay=7, test=7):
    """Steps of the Handbook's protocol: train 7, skip a 7-period delay, test 7, move on by 7."""
    s = np.arange(n_steps)
    lo = start + s * 7 * unit
    return pd.DataFrame({"step": s, "train_start": lo, "train_end": lo + train * unit,
                         "test_start": lo + (train + delay) * unit, "test_end": lo + (train + delay + test) * unit,
                         "train_rows": 100, "test_rows": 100, "test_frauds": 3, "fit_seconds": 0.1})


def _stream_result(name, threshold, n_steps=6):
    """A rule (flag ``amount > threshold``) scored per day of each step's test week on a simulated stream."""
    from csdt.datasets import make_card_transactions

    b = make_card_transactions(n_customers=200, n_terminals=300, n_days=7 * (n_steps + 2), random_state=0)
    fr = b.frame
    steps = _schedule(n_steps, pd.Timestamp("2018-04-01"), DAY)
    parts = []
    for st in steps.itertuples():
        rows = fr[(fr["time"] >= st.test_start) & (fr["time"] < st.test_end)]
        t = money_by_period(rows["fraud"], (rows["amount"] > threshold).astype(int), rows["time"].dt.floor("D"),
                            fn_cost=rows["amount"], fp_cost=5.0)
        parts.append(t.reset_index().assign(step=st.step))
    return Result(pd.concat(parts, ignore_index=True), steps, name)


def _periods(steps, rng):
    """Seven daily periods per step from its test start, random net money."""
    start = np.repeat(steps["test_start"].to_numpy(), 7) + np.tile(np.arange(7), len(steps)) * DAY.to_timedelta64()
    return pd.DataFrame({"step": np.repeat(steps["step"].to_numpy(), 7), "period": start,
                         "net_money": rng.normal(50, 30, 7 * len(steps))})


def test_lines_are_the_per_period_net_money():
    rng = np.random.default_rng(0)
    steps = _schedule(5, pd.Timestamp("2018-04-01"), DAY)
    a, b = Result(_periods(steps, rng), steps, "model A"), Result(_periods(steps, rng), steps, "model B")
    d = WalkForwardDisplay.from_results([a, b])
    assert [line.get_label() for line in d.lines_] == ["model A", "model B"] == d.names
    for line, res in zip(d.lines_, (a, b)):
        want = {}
        for p, v in zip(res.periods["period"], res.periods["net_money"]):
            want.setdefault(p, []).append(v)
        days = sorted(want)
        np.testing.assert_allclose(line.get_xdata(), date2num(pd.DatetimeIndex(days).to_numpy()))
        np.testing.assert_allclose(line.get_ydata(), [np.mean(want[p]) for p in days])
    cum = WalkForwardDisplay.from_results([a, b], cumulative=True)
    np.testing.assert_allclose(cum.lines_[1].get_ydata(), np.cumsum(d.lines_[1].get_ydata()))
    assert cum.ax_.get_ylabel() == "cumulative net money"


def test_refits_and_delays_are_where_the_steps_put_them():
    rng = np.random.default_rng(1)
    steps = _schedule(4, pd.Timestamp("2018-04-01"), DAY)
    d = WalkForwardDisplay.from_results(Result(_periods(steps, rng), steps), delays="all")
    assert d.names == ["result 0"]
    segments = d.refit_lines_.get_segments()
    assert len(segments) == 4  # one collection, one segment per refit
    np.testing.assert_allclose(sorted(s[0, 0] for s in segments), date2num(steps["test_start"].to_numpy()))
    assert all(s[0, 0] == s[1, 0] and (s[0, 1], s[1, 1]) == (0, 1) for s in segments)  # full height
    boxes = [p.vertices for p in d.delay_spans_.get_paths()]
    assert len(boxes) == 4
    got = sorted((box[:, 0].min(), box[:, 0].max()) for box in boxes)
    want = zip(date2num(steps["train_end"].to_numpy()), date2num(steps["test_start"].to_numpy()))
    np.testing.assert_allclose(got, list(want))
    first = WalkForwardDisplay.from_results(Result(_periods(steps, rng), steps))
    (box,) = [p.vertices for p in first.delay_spans_.get_paths()]
    np.testing.assert_allclose([box[:, 0].min(), box[:, 0].max()],
                               date2num(steps.loc[0, ["train_end", "test_start"]].to_numpy().astype("M8[ns]")))
    assert first.ax_.get_xlim()[0] < date2num(steps.loc[0, "train_end"])  # the first delay is in view
    assert WalkForwardDisplay.from_results(Result(_periods(steps, rng), steps), delays="none").delay_spans_ is None


def test_numeric_periods():
    steps = _schedule(3, 0.0, 1.0)
    periods = pd.DataFrame({"step": np.repeat(steps["step"], 7),
                            "period": (steps["test_start"].to_numpy()[:, None] + np.arange(7)).ravel(),
                            "net_money": np.arange(21.0)})
    d = WalkForwardDisplay.from_results(Result(periods, steps, "rule"), ax=plt.subplots()[1])
    np.testing.assert_allclose(d.lines_[0].get_xdata(), np.arange(14, 35))
    np.testing.assert_allclose(sorted(s[0, 0] for s in d.refit_lines_.get_segments()), [14, 21, 28])


def test_simulated_stream_figure(tmp_path):
    a, b = _stream_result("amount > 220", 220.0), _stream_result("amount > 100", 100.0)
    d = WalkForwardDisplay.from_results([a, b])
    assert len(d.lines_) == 2 and len(d.ax_.lines) == 3  # two results and the zero line
    assert len(d.lines_[0].get_xdata()) == 42  # six test weeks of seven days
    d.figure_.savefig(tmp_path / "walk_forward.png", dpi=80)


def test_one_artist_per_result_at_100000_periods():
    n = 100_000
    steps = _schedule(n // 7, 0.0, 1.0)
    periods = pd.DataFrame({"step": np.repeat(steps["step"].to_numpy(), 7),
                            "period": (steps["test_start"].to_numpy()[:, None] + np.arange(7)).ravel(),
                            "net_money": np.random.default_rng(0).normal(size=7 * len(steps))})
    d = WalkForwardDisplay.from_results([Result(periods, steps, "a"), Result(periods, steps, "b")], delays="all")
    d.figure_.canvas.draw()
    assert len(d.ax_.lines) == 3 and len(d.ax_.collections) == 2
    assert len(d.refit_lines_.get_segments()) == len(steps)



@pytest.mark.parametrize("make, kwargs, error, match", [
    (lambda r: [], {}, ValueError, "results is empty"),
    (lambda r: [r], {"names": ["a", "b"]}, ValueError, "one name per result"),
    (lambda r: [Result(r.periods.drop(columns="net_money"), r.steps, "x")], {}, ValueError,
     r"result 'x'.periods has no column\(s\) \['net_money'\]"),
    (lambda r: [Result(r.periods, r.steps.drop(columns="train_end"), "x")], {}, ValueError, "train_end"),
    (lambda r: [Result(r.periods, None, "x")], {}, TypeError, "no .steps DataFrame"),
    (lambda r: [Result(r.periods.iloc[:0], r.steps, "x")], {}, ValueError, "empty"),
    (lambda r: [r, Result(r.periods.assign(period=np.arange(len(r.periods)) * 1.0),
                          r.steps.assign(train_end=0.0, test_start=1.0), "n")], {}, ValueError, "mix Timestamp"),
    (lambda r: [Result(r.periods.assign(period="monday"), r.steps, "x")], {}, ValueError, "Timestamps or numbers"),
    (lambda r: [r], {"delays": "some"}, ValueError, "delays must be one of"),
    (lambda r: [r], {"cumulative": "yes"}, TypeError, "cumulative must be True or False"),
])
def test_bad_results_are_named(make, kwargs, error, match):
    steps = _schedule(2, pd.Timestamp("2018-04-01"), DAY)
    r = Result(_periods(steps, np.random.default_rng(0)), steps, "ok")
    with pytest.raises(error, match=match):
        WalkForwardDisplay.from_results(make(r), **kwargs)
