"""walk_forward against a hand-written replay loop on a small random stream made here."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from csboost_plugins.model_selection import WalkForwardResult, walk_forward

N_CARDS = 120


def _stream(seed=0, n=3000, days=60):
    """Times over ``days`` days (floats), cards, frauds clustered on compromised cards after their compromise."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, days, n)
    card = rng.integers(0, N_CARDS, n)
    compromised_at = np.where(rng.random(N_CARDS) < 0.15, rng.uniform(0, days, N_CARDS), np.inf)
    y = ((t >= compromised_at[card]) & (rng.random(n) < 0.6)).astype(int) | (rng.random(n) < 0.004)
    X = rng.normal(size=(n, 3))
    X[:, 0] += 1.5 * y
    X[:, 1] += 0.5 * y
    amount = np.round(rng.exponential(80.0, n), 2)
    return pd.DataFrame(X, columns=["x0", "x1", "x2"]), y.astype(int), t, card, amount


def _values(proba, fp, fn):
    return proba * fn - (1 - proba) * fp


def _capped(v, period, rows_entity, k):
    """Top-k per period by value (> 0), ties by first row; per entity: summed values, every row of the entity."""
    d = np.zeros(len(v), dtype=int)
    for p in sorted(set(period)):
        rows = [i for i in range(len(v)) if period[i] == p]
        if rows_entity is None:
            units = [(v[i], i, [i]) for i in rows]
        else:
            firsts = {}
            for i in rows:
                firsts.setdefault(rows_entity[i], []).append(i)
            units = [(sum(v[i] for i in members), members[0], members) for members in firsts.values()]
        units = sorted((u for u in units if u[0] > 0), key=lambda u: (-u[0], u[1]))[:k]
        for _, _, members in units:
            d[members] = 1
    return d


def _reference(est, X, y, t, fp, fn, *, card=None, train=7, delay=7, test=7, step=None, expanding=False,
               label_t=None, exclude_known=False, period=1.0, max_alerts=None, costs_to_model=False):
    """The replay written as a plain loop: (predictions, periods) DataFrames."""
    n, step = len(y), step or test
    start, end = math.floor(t.min()), math.floor(t.max()) + 1
    default_labels = label_t is None
    label_t = t + delay if default_labels else label_t
    preds, periods = [], []
    s = 0
    while start + s * step + train + delay + test <= end:
        a = start + s * step
        tr0, tr1 = (start if expanding else a), a + train
        te0, te1 = tr1 + delay, tr1 + delay + test
        tr = [i for i in range(n) if tr0 <= t[i] < tr1 and label_t[i] < te0]
        te, per = [], []
        for i in range(n):
            if not te0 <= t[i] < te1:
                continue
            p = int((t[i] - te0) // period)
            day = te0 + p * period
            if exclude_known:
                if default_labels:  # the handbook's rule: training start <= t < day - delay
                    known = any(y[j] == 1 and card[j] == card[i] and tr0 <= t[j] < day - delay for j in range(n))
                else:
                    known = any(y[j] == 1 and card[j] == card[i] and tr0 <= t[j] and label_t[j] < day
                                for j in range(n))
                if known:
                    continue
            te.append(i)
            per.append(p)
        te, per = np.array(te, dtype=int), np.array(per, dtype=int)
        model = clone(est)
        kw = dict(fp_cost=fp[tr], fn_cost=fn[tr], tp_cost=np.zeros(len(tr)), tn_cost=np.zeros(len(tr)))
        model.fit(X.iloc[tr], y[tr], **(kw if costs_to_model else {}))
        proba = model.predict_proba(X.iloc[te])[:, 1]
        if costs_to_model:
            d = np.asarray(model.predict(X.iloc[te], fp_cost=fp[te], fn_cost=fn[te], tp_cost=np.zeros(len(te)),
                                         tn_cost=np.zeros(len(te)))).astype(int)
        elif max_alerts is None:
            d = (_values(proba, fp[te], fn[te]) > 0).astype(int)
        else:
            d = _capped(_values(proba, fp[te], fn[te]), per, None if card is None else card[te], max_alerts)
        preds.append(pd.DataFrame({"step": s, "row": te, "y_true": y[te], "y_score": proba, "y_pred": d}))
        for p in range(int(math.ceil(test / period))):
            m = per == p
            yy, dd = y[te][m], d[m]
            caught = float(np.sum(fn[te][m] * (yy == 1) * dd))
            wasted = float(np.sum(fp[te][m] * (yy == 0) * dd))
            periods.append(dict(step=s, period=te0 + p * period, rows=int(m.sum()), alerts=int(dd.sum()),
                                tp=int(np.sum(dd * yy)), fp=int(np.sum(dd * (1 - yy))), money_caught=caught,
                                alert_cost=wasted, net_money=caught - wasted))
        s += 1
    return pd.concat(preds, ignore_index=True), pd.DataFrame(periods)


def _assert_equal(res, ref):
    ref_preds, ref_periods = ref
    got = res.predictions
    assert got[["step", "row", "y_true", "y_pred"]].to_numpy().tolist() == \
        ref_preds[["step", "row", "y_true", "y_pred"]].to_numpy().tolist()
    np.testing.assert_allclose(got["y_score"], ref_preds["y_score"], rtol=1e-12)
    p = res.periods
    assert p[["step", "rows", "alerts", "tp", "fp"]].to_numpy().tolist() == \
        ref_periods[["step", "rows", "alerts", "tp", "fp"]].to_numpy().tolist()
    np.testing.assert_allclose(p["period"], ref_periods["period"])
    for col in ("money_caught", "alert_cost", "net_money"):
        np.testing.assert_allclose(p[col], ref_periods[col], rtol=1e-12, atol=1e-9)


@pytest.fixture(scope="module")
def stream():
    return _stream()


def test_plain_replay_equals_the_hand_loop(stream):
    X, y, t, card, amount = stream
    fp = np.full(len(y), 5.0)
    res = walk_forward(LogisticRegression(), X, y, times=t, fp_cost=5.0, fn_cost=amount)
    ref = _reference(LogisticRegression(), X, y, t, fp, amount)
    _assert_equal(res, ref)
    assert res.steps["step"].tolist() == list(range(6))  # 60 days: 14 + 7 k <= 60
    assert res.steps["test_rows"].tolist() == res.predictions.groupby("step").size().tolist()
    assert res.predictions["entity"].isna().all()


def test_exclude_known_equals_the_handbook_rule(stream):
    X, y, t, card, amount = stream
    fp = np.full(len(y), 5.0)
    res = walk_forward(LogisticRegression(), X, y, times=t, entity=card, exclude_known=True, fp_cost=5.0,
                       fn_cost=amount)
    ref = _reference(LogisticRegression(), X, y, t, fp, amount, card=card, exclude_known=True)
    _assert_equal(res, ref)
    plain = walk_forward(LogisticRegression(), X, y, times=t, fp_cost=5.0, fn_cost=amount)
    assert len(res.predictions) < len(plain.predictions)  # the stream has known cards to remove
    assert res.predictions["entity"].tolist() == card[res.predictions["row"]].tolist()


def test_label_times_delay_training_and_exclusion(stream):
    X, y, t, card, amount = stream
    rng = np.random.default_rng(3)
    # investigated alerts are labelled within a day; chargebacks arrive 5 to 20 days later
    label_t = np.where(rng.random(len(y)) < 0.3, t + rng.uniform(0, 1, len(y)), t + rng.uniform(5, 20, len(y)))
    fp = np.full(len(y), 5.0)
    res = walk_forward(LogisticRegression(), X, y, times=t, entity=card, exclude_known=True, label_times=label_t,
                       fp_cost=fp, fn_cost=amount)
    ref = _reference(LogisticRegression(), X, y, t, fp, amount, card=card, exclude_known=True, label_t=label_t)
    _assert_equal(res, ref)
    window = res.steps.iloc[1]
    assert window["train_rows"] < np.sum((t >= window["train_start"]) & (t < window["train_end"]))


@pytest.mark.parametrize("per_entity", [False, True])
def test_capacity_per_row_and_per_entity(stream, per_entity):
    X, y, t, card, amount = stream
    fp = np.full(len(y), 5.0)
    kw = dict(entity=card) if per_entity else {}
    res = walk_forward(LogisticRegression(), X, y, times=t, max_alerts=2, fp_cost=5.0, fn_cost=amount, **kw)
    ref = _reference(LogisticRegression(), X, y, t, fp, amount, max_alerts=2, card=card if per_entity else None)
    _assert_equal(res, ref)
    if per_entity:
        alerted = res.predictions[res.predictions["y_pred"] == 1]
        day = (alerted["time"] // 1).to_numpy()
        assert alerted.groupby([alerted["step"], day])["entity"].nunique().max() == 2
    else:
        assert res.periods["alerts"].max() == 2


def test_expanding_window_and_half_day_periods(stream):
    X, y, t, card, amount = stream
    fp = np.full(len(y), 5.0)
    res = walk_forward(LogisticRegression(), X, y, times=t, expanding=True, periods=0.5, train=10, step=5,
                       fp_cost=5.0, fn_cost=amount)
    ref = _reference(LogisticRegression(), X, y, t, fp, amount, expanding=True, period=0.5, train=10, step=5)
    _assert_equal(res, ref)
    assert (res.steps["train_start"] == 0).all() and len(res.periods) == 14 * len(res.steps)


def test_a_cost_sensitive_booster_decides_with_its_own_predict(stream):
    from csboost_plugins.xgb import CSXGBClassifier

    X, y, t, card, amount = stream
    fp = np.full(len(y), 5.0)
    est = CSXGBClassifier(n_estimators=5, max_depth=2, decision="bmr")
    res = walk_forward(est, X, y, times=t, fp_cost=fp, fn_cost=amount, n_steps=2)
    ref_preds, ref_periods = _reference(est, X, y, t, fp, amount, costs_to_model=True)
    _assert_equal(res, (ref_preds[ref_preds["step"] < 2], ref_periods[ref_periods["step"] < 2]))
    # under a cap: the booster's own predict with the test rows' costs, max_alerts and day codes
    capped = walk_forward(est, X, y, times=t, fp_cost=fp, fn_cost=amount, n_steps=1, max_alerts=3).predictions
    train = (t < 7)
    model = clone(est).fit(X[train], y[train], fp_cost=fp[train], fn_cost=amount[train])
    rows = capped["row"].to_numpy()
    d = model.predict(X.iloc[rows], fp_cost=fp[rows], fn_cost=amount[rows], max_alerts=3,
                      periods=np.floor(t[rows] - 14).astype(int))
    assert capped["y_pred"].tolist() == d.tolist() and 0 < d.sum() <= 21


def test_a_fixed_rule_book_is_not_refitted(stream):
    from csboost_plugins.rules import RuleSet

    X, y, t, card, amount = stream
    book = RuleSet.from_sql({"big": "x0 > 1.5"})
    res = walk_forward(book, X, y, times=t, fp_cost=5.0, fn_cost=amount)
    got = res.predictions
    expected = (X["x0"].to_numpy()[got["row"]] > 1.5).astype(int)
    assert got["y_pred"].tolist() == expected.tolist() and got["y_score"].tolist() == expected.tolist()
    assert (res.steps["fit_seconds"] == 0).all()


def test_datetimes_replay_as_numbers(stream):
    X, y, t, card, amount = stream
    origin = pd.Timestamp("2018-04-01")
    times = pd.Series(origin + pd.to_timedelta(t, unit="D"))
    a = walk_forward(LogisticRegression(), X, y, times=times, entity=card, exclude_known=True, max_alerts=3,
                     fp_cost=5.0, fn_cost=amount)
    b = walk_forward(LogisticRegression(), X, y, times=t, entity=card, exclude_known=True, max_alerts=3,
                     fp_cost=5.0, fn_cost=amount, train=7.0, delay=7.0, test=7.0)
    cols = ["step", "row", "y_true", "y_pred"]
    assert a.predictions[cols].equals(b.predictions[cols])
    assert a.periods["net_money"].equals(b.periods["net_money"])
    assert (a.periods["period"] == origin + pd.to_timedelta(b.periods["period"], unit="D")).all()
    assert (a.predictions["time"] == times[a.predictions["row"]].to_numpy()).all()
    assert a.steps["test_start"].iloc[0] == pd.Timestamp("2018-04-15")


def _frames(res):
    return [res.predictions, res.periods, res.steps.drop(columns="fit_seconds")]


def test_parallel_and_dask_equal_one_process(stream):
    import joblib
    from distributed import Client, LocalCluster

    X, y, t, card, amount = stream
    kw = dict(times=t, entity=card, exclude_known=True, max_alerts=2, fp_cost=5.0, fn_cost=amount, n_steps=3)
    one = walk_forward(LogisticRegression(), X, y, **kw)
    two = walk_forward(LogisticRegression(), X, y, n_jobs=2, **kw)
    for a, b in zip(_frames(one), _frames(two)):
        pd.testing.assert_frame_equal(a, b)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster), joblib.parallel_backend("dask"):
        on_dask = walk_forward(LogisticRegression(), X, y, **kw)
    for a, b in zip(_frames(one), _frames(on_dask)):
        pd.testing.assert_frame_equal(a, b)


def test_compare_against_a_direct_computation(stream):
    from scipy import stats

    X, y, t, card, amount = stream
    a = walk_forward(LogisticRegression(), X, y, times=t, max_alerts=2, fp_cost=5.0, fn_cost=amount)
    b = walk_forward(LogisticRegression(), X, y, times=t, fp_cost=5.0, fn_cost=amount, n_steps=4)
    c = a.compare(b)
    d = [a.periods["net_money"][i] - b.periods["net_money"][i] for i in range(len(b.periods))]  # shared: 4 steps
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    assert c.n_periods == n == 28 and c.n_units == n and c.by == "period"
    assert c.mean_difference == pytest.approx(mean) and c.std_error == pytest.approx(sd / math.sqrt(n))
    assert (c.ci_low, c.ci_high) == pytest.approx((mean - half, mean + half))
    assert c.differences.tolist() == pytest.approx(d)
    by_step = a.compare(b, by="step")
    sums = [sum(d[7 * s: 7 * s + 7]) for s in range(4)]
    m = sum(sums) / 4
    se = math.sqrt(sum((x - m) ** 2 for x in sums) / 3) / 2
    assert by_step.mean_difference == pytest.approx(m) and by_step.std_error == pytest.approx(se)
    assert by_step.ci_high == pytest.approx(m + stats.t.ppf(0.975, 3) * se) and by_step.n_units == 4


def test_periods_add_up_to_the_predictions(stream):
    from csboost_plugins.metrics import money_by_period

    X, y, t, card, amount = stream
    res = walk_forward(LogisticRegression(), X, y, times=t, entity=card, exclude_known=True, fp_cost=5.0,
                       fn_cost=amount)
    p = res.predictions
    direct = money_by_period(p["y_true"], p["y_pred"], p["step"], fp_cost=5.0, fn_cost=amount[p["row"]])
    np.testing.assert_allclose(res.periods.groupby("step")["net_money"].sum(), direct["net_money"])
    assert isinstance(res, WalkForwardResult)


def test_verbose_prints_one_line_per_step(stream, capsys):
    X, y, t, card, amount = stream
    walk_forward(LogisticRegression(), X, y, times=t, fp_cost=5.0, fn_cost=amount, n_steps=2, verbose=True)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("step 1/2: ")


def test_errors_name_the_argument(stream):
    X, y, t, card, amount = stream
    lr = LogisticRegression()
    kw = dict(fp_cost=5.0, fn_cost=amount)
    bad_times = pd.Series(pd.Timestamp("2018-01-01") + pd.to_timedelta(t, unit="D"))
    bad_times[4] = pd.NaT
    cases = [
        (dict(times=bad_times), ValueError, "times has 1 missing value"),
        (dict(times=t[:-1]), ValueError, "times must hold one time per row"),
        (dict(times=t, train=0), ValueError, "train must be > 0"),
        (dict(times=t, test="-1D"), ValueError, "test must be > 0"),
        (dict(times=t, delay=-1), ValueError, "delay must be >= 0"),
        (dict(times=t, train="1 month"), ValueError, "train must be a duration"),
        (dict(times=t, exclude_known=True), ValueError, "exclude_known=True .* give entity"),
        (dict(times=t, train=50), ValueError, "no step fits in the data"),
        (dict(times=t, n_steps=7), ValueError, "n_steps=7 but the data hold 6 complete"),
        (dict(times=t, label_times=t - 1), ValueError, "label_times precede times"),
        (dict(times=t, entity=card[:5], max_alerts=1), ValueError, "entity has 5 labels"),
        (dict(times=t, max_alerts=0), ValueError, "max_alerts must be an integer >= 1"),
        (dict(times=np.array(["a"] * len(y))), TypeError, "times must be datetimes"),
        (dict(times=t, start="2018-01-01"), TypeError, "start must be a number of days"),
    ]
    for extra, exc, match in cases:
        with pytest.raises(exc, match=match):
            walk_forward(lr, X, y, **{**kw, **extra})
    with pytest.raises(TypeError, match="missing costs: fp_cost, fn_cost"):
        walk_forward(lr, X, y, times=t)
    with pytest.raises(ValueError, match="y must hold one label per row"):
        walk_forward(lr, X, y[:-1], times=t, **kw)
    y_late = y.copy()
    y_late[t < 20] = 0  # no fraud in the first training windows
    with pytest.raises(ValueError, match=r"step 0: the training window \[0.0, 7.0\) has only label 0"):
        walk_forward(lr, X, y_late, times=t, **kw)
    from csboost_plugins.rules import RuleSet
    with pytest.raises(ValueError, match="max_alerts needs a model that scores rows; RuleSet"):
        walk_forward(RuleSet.from_sql({"big": "x0 > 1.5"}), X, y, times=t, max_alerts=1, **kw)


class _CostRule(LogisticRegression):
    """A model whose predict takes the costs and the cap and decides unlike Bayes minimum risk."""

    def predict(self, X, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, max_alerts=None, periods=None):
        d = (self.predict_proba(X)[:, 1] * fn_cost > 10 * fp_cost).astype(int)
        if max_alerts is not None:  # the first max_alerts flagged rows of each period, in row order
            for p in np.unique(periods):
                d[np.flatnonzero((periods == p) & (d == 1))[max_alerts:]] = 0
        return d


def test_a_predict_taking_costs_and_the_cap_gets_the_test_rows_costs_and_periods(stream):
    X, y, t, card, amount = stream
    res = walk_forward(_CostRule(), X, y, times=t, max_alerts=1, fp_cost=5.0, fn_cost=amount, n_steps=3)
    p = res.predictions
    test_start = res.steps.set_index("step").loc[p["step"], "test_start"].to_numpy()
    period = np.floor(p["time"].to_numpy() - test_start)
    d = (p["y_score"].to_numpy() * amount[p["row"]] > 50).astype(int)
    for key in set(zip(p["step"], period)):
        rows = np.flatnonzero((p["step"] == key[0]).to_numpy() & (period == key[1]) & (d == 1))
        d[rows[1:]] = 0
    assert p["y_pred"].tolist() == d.tolist() and d.sum() > 0


def test_label_known_only_strictly_before_the_moment():
    # integer days: training [0, 7), delay 7, tests on [14, 21); card 1 defrauded on day 8.0, card 2 trains
    # with a label arriving exactly at the test start (not known then: the row does not train)
    t = np.array([0.5, 1.5, 2.5, 3.5, 8.0, 15.5, 16.5, 4.0, 20.9])
    y = np.array([0, 1, 0, 1, 1, 0, 0, 0, 0])
    card = np.array([0, 3, 4, 5, 1, 1, 1, 2, 6])
    label_t = t + 7
    label_t[7] = 14.0
    X = pd.DataFrame({"x0": np.arange(9.0)})
    res = walk_forward(LogisticRegression(), X, y, times=t, entity=card, exclude_known=True, label_times=label_t,
                       fp_cost=1.0, fn_cost=2.0)
    # the handbook: a fraud at t is known on day T when t < T - delay: 8 < 15 - 7 is false, 8 < 16 - 7 is true
    assert res.predictions["row"].tolist() == [5, 8]
    assert res.steps["train_rows"].tolist() == [4]


def test_a_gap_in_the_stream_gives_empty_periods():
    rng = np.random.default_rng(1)
    t = rng.uniform(0, 40, 2000)
    t = t[(t < 16) | (t > 24)]
    X = pd.DataFrame({"x0": rng.normal(size=t.shape[0])})
    y = (X["x0"].to_numpy() + rng.normal(size=t.shape[0]) > 1.5).astype(int)
    res = walk_forward(LogisticRegression(), X, y, times=t, fp_cost=1.0, fn_cost=5.0, train=10, delay=1, test=2,
                       step=2)
    assert res.periods.groupby("step")["rows"].sum().tolist() == res.steps["test_rows"].tolist()
    empty = res.periods[res.periods["rows"] == 0]
    assert len(empty) >= 6 and (empty["net_money"] == 0).all() and empty["precision"].isna().all()
    assert repr(res).startswith(f"WalkForwardResult({len(res.steps)} steps, {len(res.periods)} periods")


def test_text_labels_with_pos_label_replay_as_0_1(stream):
    X, y, t, card, amount = stream
    words = np.where(y == 1, "fraud", "ok")
    a = walk_forward(LogisticRegression(), X, words, times=t, pos_label="fraud", fp_cost=5.0, fn_cost=amount,
                     n_steps=2)
    b = walk_forward(LogisticRegression(), X, y, times=t, fp_cost=5.0, fn_cost=amount, n_steps=2)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    with pytest.raises(ValueError, match="pos_label"):
        walk_forward(LogisticRegression(), X, words, times=t, fp_cost=5.0, fn_cost=amount)
    with pytest.raises(ValueError, match="label_times has missing or infinite values"):
        lt = t + 7
        lt[3] = np.nan
        walk_forward(LogisticRegression(), X, y, times=t, label_times=lt, fp_cost=5.0, fn_cost=amount)
