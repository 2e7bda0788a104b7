"""make_card_transactions and card_transaction_features: the features against a per-row loop over the
definition, the generator's fraud patterns, label times, costs and determinism."""

import doctest

import numpy as np
import pandas as pd
import pytest

from csdt import datasets
from csdt.datasets import card_transaction_features, make_card_transactions

DAY = pd.Timedelta(days=1)


@pytest.fixture(scope="module")
def stream():
    return make_card_transactions(n_customers=300, n_terminals=400, n_days=60, random_state=3)


def _small_frame(seed=0, n=250):
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2018-04-01")
    # whole hours over 45 days: many rows share a time, so the window bounds' ties are exercised
    t = start + pd.to_timedelta(rng.integers(0, 45 * 24, n), unit="h")
    return pd.DataFrame({"time": t, "customer_id": rng.integers(0, 6, n), "terminal_id": rng.integers(0, 5, n),
                         "amount": np.round(rng.uniform(1, 300, n), 2),
                         "fraud": (rng.random(n) < 0.3).astype(int)}).sample(frac=1.0, random_state=1)


def _brute_features(frame, delay, windows):
    """The definition, one row and one other row at a time."""
    rows = list(frame.itertuples(index=False))
    out = []
    for r in rows:
        f = {"amount": r.amount, "during_weekend": float(r.time.day_of_week >= 5),
             "during_night": float(r.time.hour < 6)}
        for w in windows:
            mine = [o.amount for o in rows if o.customer_id == r.customer_id and r.time - w * DAY < o.time <= r.time]
            f[f"customer_nb_tx_{w}day"] = float(len(mine))
            f[f"customer_avg_amount_{w}day"] = sum(mine) / len(mine)
        for w in windows:
            lo, hi = r.time - delay - w * DAY, r.time - delay
            seen = [o.fraud for o in rows if o.terminal_id == r.terminal_id and lo <= o.time < hi]
            f[f"terminal_nb_tx_{w}day"] = float(len(seen))
            f[f"terminal_risk_{w}day"] = sum(seen) / len(seen) if seen else 0.0
        out.append(f)
    return pd.DataFrame(out, index=frame.index)


@pytest.mark.parametrize("delay, windows", [("7D", (1, 7, 30)), ("2D", (3, 0.5)), ("0D", (1,))])
def test_features_equal_a_loop_over_the_definition(delay, windows):
    frame = _small_frame()
    got = card_transaction_features(frame, delay=delay, windows=windows)
    want = _brute_features(frame, pd.Timedelta(delay), windows)
    assert list(got.columns) == list(want.columns)
    assert got.index.equals(frame.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-9, atol=1e-9)
    assert (got["terminal_nb_tx_1day" if 1 in windows else got.columns[-2]] > 0).any()  # windows not all empty


def test_terminal_risk_ignores_the_delay_and_reads_its_window_bounds():
    t0 = pd.Timestamp("2018-04-10 12:00")
    # the scored row at t0; earlier frauds at the same terminal exactly at t0 - 7d (excluded: the
    # delay's labels are unknown), at t0 - 8d (the window's closed start: included), just before it
    times = [t0, t0 - 7 * DAY, t0 - 8 * DAY, t0 - 8 * DAY - pd.Timedelta(seconds=1)]
    frame = pd.DataFrame({"time": times, "customer_id": [0, 1, 2, 3], "terminal_id": [9] * 4,
                          "amount": [1.0] * 4, "fraud": [0, 1, 1, 1]})
    f = card_transaction_features(frame, windows=(1,))
    assert f.loc[0, "terminal_nb_tx_1day"] == 1.0 and f.loc[0, "terminal_risk_1day"] == 1.0
    frame.loc[2, "fraud"] = 0
    assert card_transaction_features(frame, windows=(1,)).loc[0, "terminal_risk_1day"] == 0.0


def test_features_take_other_column_names():
    frame = _small_frame(n=40)
    renamed = frame.rename(columns={"time": "TX_DATETIME", "customer_id": "CUSTOMER_ID", "terminal_id": "TERMINAL_ID",
                                    "amount": "TX_AMOUNT", "fraud": "TX_FRAUD"})
    got = card_transaction_features(renamed, time_column="TX_DATETIME", customer_column="CUSTOMER_ID",
                                    terminal_column="TERMINAL_ID", amount_column="TX_AMOUNT", fraud_column="TX_FRAUD")
    pd.testing.assert_frame_equal(got, card_transaction_features(frame))


def _with(column, row, value):
    def change(frame):
        frame = frame.copy()
        if column in ("customer_id", "time"):
            frame[column] = frame[column].astype(object if column == "customer_id" else frame[column].dtype)
        frame.iloc[row, frame.columns.get_loc(column)] = value
        return frame
    return change


@pytest.mark.parametrize("change, kwargs, match", [
    (None, {"time_column": "when"}, "time_column='when'"),
    (_with("time", 3, pd.NaT), {}, "NaT"),
    (lambda f: f.assign(time=3.0), {}, "datetimes"),
    (_with("amount", 3, np.nan), {}, "'amount' has 1 NaN"),
    (lambda f: f.assign(amount="1"), {}, "'amount' must be numeric"),
    (_with("fraud", 3, 2), {}, "0/1"),
    (_with("customer_id", 3, None), {}, "missing id"),
    (None, {"windows": (0, 7)}, "positive numbers of days"),
    (None, {"windows": ()}, "non-empty"),
    (None, {"windows": (7, 7)}, "repeat"),
    (None, {"delay": "-1D"}, "delay must be a duration >= 0"),
    (None, {"delay": "soon"}, "delay must be a duration"),
])
def test_features_refuse_bad_input_naming_it(change, kwargs, match):
    frame = _small_frame(n=10)
    with pytest.raises(ValueError, match=match):
        card_transaction_features(change(frame) if change else frame, **kwargs)


def test_features_refuse_a_non_frame():
    with pytest.raises(TypeError, match="DataFrame"):
        card_transaction_features(_small_frame(n=10).to_numpy())


def test_generator_frame_and_bunch(stream):
    fr = stream.frame
    assert list(fr.columns) == ["transaction_id", "time", "customer_id", "terminal_id", "amount", "fraud",
                                "scenario", "label_time"]
    assert fr["time"].is_monotonic_increasing and (fr["transaction_id"].to_numpy() == np.arange(len(fr))).all()
    assert fr["time"].dtype.kind == "M" and fr["time"].min() >= pd.Timestamp("2018-04-01")
    assert fr["time"].max() < pd.Timestamp("2018-04-01") + 60 * DAY
    pd.testing.assert_frame_equal(stream.data, card_transaction_features(fr))
    assert stream.data.shape[1] == 15 and stream.feature_names == list(stream.data.columns)
    assert (stream.target == fr["fraud"].to_numpy()).all() and (stream.entity == fr["customer_id"].to_numpy()).all()
    assert (stream.times == fr["time"].to_numpy()).all() and (stream.label_times == fr["label_time"].to_numpy()).all()
    amount = fr["amount"].to_numpy()
    np.testing.assert_array_equal(stream.cost_matrix, np.column_stack([np.full_like(amount, 5.0), amount,
                                                                       np.full_like(amount, 5.0), 0 * amount]))
    assert (amount >= 0).all() and 0.005 < stream.target.mean() < 0.2


def test_generator_customers_use_terminals_within_the_radius(stream):
    fr, c, t = stream.frame, stream.customers, stream.terminals
    dx = c["x"].to_numpy()[fr["customer_id"]] - t["x"].to_numpy()[fr["terminal_id"]]
    dy = c["y"].to_numpy()[fr["customer_id"]] - t["y"].to_numpy()[fr["terminal_id"]]
    assert np.sqrt(dx ** 2 + dy ** 2).max() <= 5.0
    assert len(np.unique(fr["terminal_id"])) > 100  # not always the same few terminals


def _windows_hit(frame, table, column, days):
    """Per row: whether its (entity, day) falls in a compromise window of ``table`` (looped over the table)."""
    day = (frame["time"] - pd.Timestamp("2018-04-01")).dt.days.to_numpy()
    hit = np.zeros(len(frame), dtype=bool)
    for d, i in zip(table["day"], table["id"]):
        hit |= (frame[column].to_numpy() == i) & (day >= d) & (day < d + days)
    return hit


def test_generator_fraud_patterns(stream):
    fr = stream.frame
    fraud, scenario, amount = fr["fraud"].to_numpy(), fr["scenario"].to_numpy(), fr["amount"].to_numpy()
    assert (fraud[amount > 220] == 1).all()
    assert ((scenario > 0) == (fraud == 1)).all()
    assert (amount[scenario == 1] > 220).all()
    assert set(np.unique(scenario)) == {0, 1, 2, 3}
    tw = _windows_hit(fr, stream.compromised_terminals, "terminal_id", 28)
    assert (fraud[tw] == 1).all() and np.isin(scenario[tw], (2, 3)).all()
    assert tw[scenario == 2].all()
    cw = _windows_hit(fr, stream.compromised_customers, "customer_id", 14)
    assert cw[scenario == 3].all()
    share = (scenario[cw] == 3).mean()
    assert abs(share - 1 / 3) < 4 * np.sqrt(2 / 9 / cw.sum()), share  # Bernoulli(1/3) per row of the windows
    per_day = stream.compromised_terminals.groupby("day")["id"].nunique()
    assert (per_day == 2).all() and len(per_day) == 60
    assert (stream.compromised_customers.groupby("day")["id"].nunique() == 3).all()


def test_generator_label_times(stream):
    fr = stream.frame
    lag = (fr["label_time"] - fr["time"]) / DAY
    legit = fr["fraud"].to_numpy() == 0
    assert (lag[legit] == 7).all()
    assert lag[~legit].between(1, 14).all() and lag[~legit].std() > 2


def test_generator_is_deterministic():
    a = make_card_transactions(n_customers=50, n_terminals=80, n_days=20, random_state=7)
    b = make_card_transactions(n_customers=50, n_terminals=80, n_days=20, random_state=7)
    c = make_card_transactions(n_customers=50, n_terminals=80, n_days=20, random_state=8)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert len(a.frame) != len(c.frame) or not a.frame["amount"].equals(c.frame["amount"])


def test_generator_runs_with_one_customer_and_one_terminal():
    b = make_card_transactions(n_customers=1, n_terminals=1, n_days=3, radius=200.0, random_state=0)
    assert len(b.frame) > 0 and (b.frame["terminal_id"] == 0).all()
    assert (b.compromised_terminals.groupby("day")["id"].nunique() == 1).all()


def test_generator_start_date_and_alert_cost():
    b = make_card_transactions(n_customers=20, n_terminals=30, n_days=3, start_date="2020-02-03", random_state=0,
                               alert_cost=2.5)
    assert b.frame["time"].min().normalize() >= pd.Timestamp("2020-02-03")
    assert (b.fp_cost == 2.5).all() and (b.tp_cost == 2.5).all() and (b.fn_cost == b.frame["amount"]).all()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"n_customers": 0}, ValueError, "n_customers must be at least 1"),
    ({"n_terminals": 2.5}, TypeError, "n_terminals must be an integer"),
    ({"n_days": True}, TypeError, "n_days must be an integer"),
    ({"radius": 0}, ValueError, "radius must be a finite number > 0"),
    ({"alert_cost": np.nan}, ValueError, "alert_cost must be a finite number"),
    ({"alert_cost": -1.0}, ValueError, "alert_cost must be a finite number >= 0"),
    ({"start_date": "someday"}, ValueError, "start_date must be a date"),
    ({"n_terminals": 1, "radius": 1e-6, "random_state": 0}, ValueError, "0 of the 1000 customers have a terminal"),
])
def test_generator_refuses_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_card_transactions(**kwargs)


def test_generator_default_size_and_speed():

    b = make_card_transactions(random_state=0)
    assert 100_000 < len(b.frame) < 200_000



@pytest.mark.parametrize("func", [card_transaction_features, make_card_transactions])
def test_docstring_examples_run(func):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(func, globs=vars(datasets).copy()):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0
