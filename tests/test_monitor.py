"""Operating over time: money_by_period, RuleSet.monitor (drift tests), make_drifting_fraud.

Figures are checked against independent computations: hand sums per period with pandas,
RuleSet.evaluate on each period's rows (and on the set without a rule), scipy's Fisher exact
test on hand-made tables, and the in-memory result for dask collections.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

from csboost_plugins.metrics import money_by_period
from csboost_plugins.rules import Interval, Rule, RuleSet
from csboost_plugins.rules._monitor import ALL_RULES, fisher_exact_pvalues, rule_names
from csdt.datasets import make_drifting_fraud


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.integers(0, 5, n).astype(float)})
    y = (rng.random(n) < 0.05 + 0.3 * (X["a"] > 1)).astype(int).to_numpy()
    amount = np.round(rng.lognormal(3, 1, n), 2)
    periods = rng.choice(["2026-W03", "2026-W01", "2026-W02", "2026-W04"], n)
    return X, y, amount, periods


def _rules():
    names = ["a", "b", "c"]
    return RuleSet([Rule([Interval(0, lower=1.0)], feature_names=names),
                    Rule([Interval(1, lower=1.2), Interval(2, upper=2.0)], feature_names=names),
                    Rule([Interval(0, lower=0.5), Interval(2, lower=3.0)], feature_names=names)], feature_names=names,
                   names=["rule_1", "rule_2", "rule_3"])


# ----------------------------------------------------------------- money_by_period
def test_money_by_period_matches_hand_sums_with_weights_and_costs():
    X, y, amount, periods = _data()
    rng = np.random.default_rng(1)
    d = (rng.random(len(y)) < 0.2).astype(int)
    w = rng.integers(1, 4, len(y)).astype(float)
    cm = np.column_stack([np.full(len(y), 7.0), amount, np.full(len(y), 2.0), np.full(len(y), 0.5)])
    got = money_by_period(y, d, periods, cost_matrix=cm, sample_weight=w)
    assert list(got.index) == sorted(set(periods)) and got.index.name == "period"
    df = pd.DataFrame({"p": periods, "y": y, "d": d, "w": w, "fp": cm[:, 0], "fn": cm[:, 1], "tp": cm[:, 2],
                       "tn": cm[:, 3]})
    for p, g in df.groupby("p"):
        flag_pos, flag_neg = g[(g.d == 1) & (g.y == 1)], g[(g.d == 1) & (g.y == 0)]
        caught = float((flag_pos.w * (flag_pos.fn - flag_pos.tp)).sum())
        alert = float((flag_neg.w * (flag_neg.fp - flag_neg.tn)).sum())
        cost = float((g.w * np.where(g.d == 1, np.where(g.y == 1, g.tp, g.fp), np.where(g.y == 1, g.fn, g.tn))).sum())
        none = float((g.w * np.where(g.y == 1, g.fn, g.tn)).sum())
        flag_all = float((g.w * np.where(g.y == 1, g.tp, g.fp)).sum())
        base = min(none, flag_all)
        row = got.loc[p]
        assert row["rows"] == g.w.sum() and row["alerts"] == (g.w * g.d).sum()
        assert row["tp"] == flag_pos.w.sum() and row["fp"] == flag_neg.w.sum()
        assert row["recall"] == pytest.approx(flag_pos.w.sum() / g.w[g.y == 1].sum())
        assert row["precision"] == pytest.approx(flag_pos.w.sum() / (g.w * g.d).sum())
        assert row["alert_rate"] == pytest.approx((g.w * g.d).sum() / g.w.sum())
        assert row["money_caught"] == pytest.approx(caught) and row["alert_cost"] == pytest.approx(alert)
        assert row["net_money"] == pytest.approx(caught - alert)
        assert row["savings"] == pytest.approx((base - cost) / abs(base))


def test_money_by_period_equals_rule_set_evaluate_on_each_period():
    X, y, amount, periods = _data()
    rs = _rules()
    got = money_by_period(y, rs.predict(X), periods, fn_cost=amount, fp_cost=5.0)
    for p in got.index:
        m = periods == p
        ev = rs.evaluate(X[m], y[m], fn_cost=amount[m], fp_cost=5.0)
        row = got.loc[p]
        for col, key in (("recall", "tpr"), ("precision", "precision"), ("alert_rate", "alert_rate"),
                         ("money_caught", "money_caught"), ("alert_cost", "alert_cost"),
                         ("net_money", "net_money"), ("savings", "savings")):
            assert row[col] == pytest.approx(ev[key], rel=1e-12), (p, col)
    total = rs.evaluate(X, y, fn_cost=amount, fp_cost=5.0)["net_money"]
    assert got["net_money"].sum() == pytest.approx(total, rel=1e-12)


def test_money_by_period_without_costs_counts_only():
    X, y, amount, periods = _data(500)
    got = money_by_period(y, _rules().predict(X), periods)
    assert list(got.columns) == ["rows", "alerts", "alert_rate", "tp", "fp", "recall", "precision"]


# ----------------------------------------------------------------- monitor: sums
def test_monitor_sums_match_evaluate_per_period_and_the_set_without_each_rule():
    X, y, amount, periods = _data()
    rs = _rules()
    w = np.random.default_rng(2).integers(1, 3, len(y)).astype(float)
    tab = rs.monitor(X, y, periods, fn_cost=amount, fp_cost=5.0, sample_weight=w)
    names = list(rs.names) + [ALL_RULES]
    assert list(tab.index.get_level_values("rule")[:4]) == names
    cover = rs.coverage(X)
    for p in sorted(set(periods)):
        m = periods == p
        full = rs.evaluate(X[m], y[m], fn_cost=amount[m], fp_cost=5.0, sample_weight=w[m])["net_money"]
        for j, name in enumerate(names):
            row = tab.loc[(p, name)]
            hit = (cover[m].any(axis=1) if name == ALL_RULES else cover[m, j])
            assert row["alerts"] == pytest.approx(w[m][hit].sum())
            assert row["alert_rate"] == pytest.approx(w[m][hit].sum() / w[m].sum())
            assert row["tp"] == pytest.approx((w[m] * y[m])[hit].sum())
            net = np.where(y[m] == 1, amount[m], -5.0) * w[m]
            assert row["net_money"] == pytest.approx(net[hit].sum())
            without = 0.0 if name == ALL_RULES else rs.drop(j).evaluate(
                X[m], y[m], fn_cost=amount[m], fp_cost=5.0, sample_weight=w[m])["net_money"]
            assert row["unique_net_money"] == pytest.approx(full - without)


# ----------------------------------------------------------------- monitor: the test
def test_fisher_pvalues_match_scipy_on_random_and_edge_tables():
    rng = np.random.default_rng(0)
    tables = [rng.integers(0, s, 4) for s in rng.choice([3, 10, 60, 400, 20000], 400)]
    tables += [np.array(t) for t in ([8, 2, 1, 5], [0, 0, 3, 4], [5, 5, 5, 5], [3, 0, 0, 3], [0, 10, 10, 0],
                                     [1, 1, 1, 1], [0, 5, 0, 7], [2000, 198000, 2100, 197000])]
    T = np.array(tables)
    want = [fisher_exact(t.reshape(2, 2)).pvalue for t in T]
    np.testing.assert_allclose(fisher_exact_pvalues(*T.T), want, rtol=1e-8, atol=1e-300)  # log-pmf start: ~1e-9


def test_monitor_pvalues_are_scipys_fisher_test_on_a_hand_made_table():
    # one rule (x >= 1); period "a": 1000 rows, 30 alerts of which 20 frauds; period "b": 800 rows, 25 alerts, 5 frauds
    def rows(n, alerts, frauds):
        x = np.r_[np.ones(alerts), np.zeros(n - alerts)]
        yy = np.r_[np.ones(frauds), np.zeros(n - frauds)]
        return x, yy

    xa, ya = rows(1000, 30, 20)
    xb, yb = rows(800, 25, 5)
    X = np.c_[np.r_[xa, xb]]
    y = np.r_[ya, yb]
    periods = np.r_[["a"] * 1000, ["b"] * 800]
    rs = RuleSet([Rule([Interval(0, lower=1.0)])], names=["rule_1"])
    tab = rs.monitor(X, y, periods, alpha=0.05)
    row = tab.loc[("b", "rule_1")]
    assert row["precision_pvalue"] == pytest.approx(fisher_exact([[5, 20], [20, 10]]).pvalue, rel=1e-9)
    assert row["alert_rate_pvalue"] == pytest.approx(fisher_exact([[25, 775], [30, 970]]).pvalue, rel=1e-9)
    level = 0.05 / (2 * 2 * 1)  # two tests x (one rule + the set) x one monitored period
    assert tab.attrs["level"] == pytest.approx(level)
    assert bool(row["drift"]) == (min(row["precision_pvalue"], row["alert_rate_pvalue"]) < level)
    assert np.isnan(tab.loc[("a", "rule_1"), "precision_pvalue"]) and not tab.loc[("a", "rule_1"), "drift"]
    # equal weights leave the effective counts, hence the p-values, unchanged
    tab3 = rs.monitor(X, y, periods, alpha=0.05, sample_weight=np.full(len(y), 3.0))
    assert tab3.loc[("b", "rule_1"), "precision_pvalue"] == pytest.approx(row["precision_pvalue"], rel=1e-12)
    assert tab3.loc[("b", "rule_1"), "alerts"] == 75.0


def test_monitor_pooled_reference_and_periods_without_alerts():
    rng = np.random.default_rng(3)
    n = 900
    X = np.c_[rng.normal(size=n)]
    y = (rng.random(n) < 0.3).astype(int)
    periods = np.repeat([1, 2, 3], 300)
    X[600:, 0] = -5.0  # period 3: the rule raises no alert
    rs = RuleSet([Rule([Interval(0, lower=1.0)])], names=["rule_1"])
    tab = rs.monitor(X, y, periods, reference=[1, 2])
    assert tab.attrs["reference"] == [1, 2]
    assert np.isnan(tab.loc[(3, "rule_1"), "precision_pvalue"])  # no alert, no precision to test
    hit = X[:600, 0] >= 1.0
    a, t = int(hit.sum()), int(y[:600][hit].sum())
    assert tab.loc[(3, "rule_1"), "alert_rate_pvalue"] == pytest.approx(
        fisher_exact([[0, 300], [a, 600 - a]]).pvalue, rel=1e-9)
    assert tab.loc[(1, "rule_1"), "tp"] + tab.loc[(2, "rule_1"), "tp"] == t


def test_rule_names_prefer_given_names():
    rs = _rules()
    assert rule_names(rs) == ["rule_1", "rule_2", "rule_3"]
    rs = RuleSet(rs.rules, feature_names=rs.feature_names, names=["rule_1", "velocity", "rule_3"])
    assert rule_names(rs) == ["rule_1", "velocity", "rule_3"]
    X, y, _, periods = _data(400)
    tab = rs.monitor(X, y, periods)
    assert list(tab.index.get_level_values("rule")[:4]) == ["rule_1", "velocity", "rule_3", ALL_RULES]


# ----------------------------------------------------------------- detection on the drifting generator
def _generator_rules(names):
    col = {c: i for i, c in enumerate(names)}
    fading = Rule([Interval(col["amount"], upper=10.0, upper_closed=False), Interval(col["velocity_1h"], lower=3.0)])
    stationary = Rule([Interval(col["foreign"], lower=0.5), Interval(col["hour"], upper=5.0, upper_closed=False),
                       Interval(col["amount"], lower=10.0, upper=150.0)])
    noise = Rule([Interval(col["merchant_risk"], lower=0.6), Interval(col["account_age_days"], upper=100.0)])
    return RuleSet([fading, stationary, noise], feature_names=names, names=["rule_1", "rule_2", "rule_3"])


def test_drift_detected_at_the_first_changed_period_and_no_false_flags_across_seeds():
    seeds, hits, false_flags, tested = range(8), 0, 0, 0
    for seed in seeds:
        b = make_drifting_fraud(n_periods=6, rows_per_period=20_000, drift_period=3, random_state=seed)
        rs = _generator_rules(list(b.data.columns))
        tab = rs.monitor(b.data, b.target, b.periods, reference=[0, 1, 2], fn_cost=b.fn_cost, fp_cost=10.0)
        hits += bool(tab.loc[(3, "rule_1"), "drift"])
        stationary = tab.xs("rule_2", level="rule").loc[[3, 4, 5], "drift"]
        stationary = pd.concat([stationary, tab.xs("rule_3", level="rule").loc[[3, 4, 5], "drift"]])
        false_flags += int(stationary.sum())
        tested += len(stationary)
    assert hits >= 7  # the fading rule's precision halves at period 3
    assert false_flags == 0, f"{false_flags} false flags on {tested} stationary (rule, period) cells"


def test_drifting_generator_story():
    b = make_drifting_fraud(n_periods=4, rows_per_period=30_000, drift_period=2, random_state=0)
    assert b.data.shape == (120_000, 9) and "period" not in b.data.columns
    assert np.array_equal(b.periods, np.repeat(np.arange(4), 30_000))
    df = pd.DataFrame({"t": b.periods >= 2, "pattern": b.pattern, "y": b.target})
    rate = df.groupby(["pattern", "t"])["y"].mean()
    assert rate[("fading", False)] == pytest.approx(0.6, abs=0.05)
    assert rate[("fading", True)] < 0.3 + 0.05
    assert rate[("emerging", False)] < 0.05 and rate[("emerging", True)] == pytest.approx(0.5, abs=0.06)
    assert abs(rate[("stationary", False)] - rate[("stationary", True)]) < 0.05
    np.testing.assert_array_equal(b.fn_cost, b.data["amount"].to_numpy())
    again = make_drifting_fraud(n_periods=4, rows_per_period=30_000, drift_period=2, random_state=0)
    np.testing.assert_array_equal(again.target, b.target)


# ----------------------------------------------------------------- dask
def test_dask_equals_memory():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y, amount, periods = _data(4000)
    w = np.random.default_rng(5).integers(1, 3, len(y)).astype(float)
    rs = _rules()
    d = rs.predict(X)
    df = X.assign(_y=y, _amount=amount, _w=w, _p=periods, _d=d)
    ddf = dd.from_pandas(df, npartitions=5)
    with dask.config.set(scheduler="synchronous"):
        mem = money_by_period(y, d, periods, fn_cost=amount, fp_cost=5.0, sample_weight=w)
        got = money_by_period(ddf["_y"], ddf["_d"], ddf["_p"], fn_cost=ddf["_amount"], fp_cost=5.0,
                              sample_weight=ddf["_w"])
        pd.testing.assert_frame_equal(got, mem, rtol=1e-12)
        mem = rs.monitor(X, y, periods, fn_cost=amount, fp_cost=5.0, sample_weight=w, reference=["2026-W01"])
        got = rs.monitor(ddf[list(X.columns)], ddf["_y"], ddf["_p"], fn_cost=ddf["_amount"], fp_cost=5.0,
                         sample_weight=ddf["_w"], reference=["2026-W01"])
    pd.testing.assert_frame_equal(got, mem, rtol=1e-12)
    assert got["drift"].dtype == bool


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad,match", [
    (lambda p: np.where(np.arange(len(p)) == 3, None, p), "periods has 1 missing"),
    (lambda p: pd.Series(p).where(np.arange(len(p)) != 5).to_numpy(), "periods has 1 missing"),
    (lambda p: p[:-1], "periods has 299 labels but there are 300 rows"),
    (lambda p: "2026-W01", "periods must hold one label per row"),
])
def test_bad_periods_are_refused_naming_the_argument(bad, match):
    X, y, amount, periods = _data(300)
    with pytest.raises(ValueError, match=match):
        money_by_period(y, y, bad(periods.astype(object)))
    with pytest.raises(ValueError, match=match):
        _rules().monitor(X, y, bad(periods.astype(object)))


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, float("nan"), "x", True, None])
def test_bad_alpha_is_refused(alpha):
    X, y, amount, periods = _data(300)
    with pytest.raises(ValueError, match="alpha"):
        _rules().monitor(X, y, periods, alpha=alpha)


@pytest.mark.parametrize("reference", ["2027-W01", ["2026-W01", "nope"], [], 3])
def test_reference_periods_not_in_the_data_are_refused(reference):
    X, y, amount, periods = _data(300)
    with pytest.raises(ValueError, match="reference"):
        _rules().monitor(X, y, periods, reference=reference)


# ----------------------------------------------------------------- displays
def test_displays_draw_the_tables_values():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from csboost_plugins.plot import MoneyByPeriodDisplay, RuleMonitorDisplay

    X, y, amount, periods = _data()
    rs = _rules()
    table = money_by_period(y, rs.predict(X), periods, fn_cost=amount, fp_cost=5.0)
    d = MoneyByPeriodDisplay.from_predictions(y, rs.predict(X), periods, fn_cost=amount, fp_cost=5.0)
    np.testing.assert_allclose(d.net_line_.get_ydata(), table["net_money"])
    np.testing.assert_allclose([b.get_height() for b in d.alert_bars_], -table["alert_cost"])
    np.testing.assert_allclose(d.alerts_line_.get_ydata(), table["alerts"])
    mon = rs.monitor(X, y, periods, fn_cost=amount, fp_cost=5.0, alpha=0.5)
    r = RuleMonitorDisplay.from_rule_set(rs, X, y, periods, fn_cost=amount, fp_cost=5.0, alpha=0.5,
                                         value="net_money")
    assert list(r.rules) == ["rule_1", "rule_2", "rule_3", ALL_RULES] and list(r.periods) == sorted(set(periods))
    np.testing.assert_allclose(r.values[1], mon.xs("rule_2", level="rule")["net_money"])
    marked = {(int(round(yy)), int(round(xx))) for xx, yy in r.drift_markers_.get_offsets()}
    assert marked == set(zip(*np.nonzero(r.drift)))
    assert r.drift.sum() == mon["drift"].sum()
    p = RuleMonitorDisplay.from_monitor(mon)
    np.testing.assert_array_equal(np.ma.filled(p.image_.get_array(), np.nan), p.values)
    with pytest.raises(ValueError, match="value must be one of"):
        RuleMonitorDisplay.from_monitor(mon, value="recall")
    with pytest.raises(ValueError, match="compute it with costs"):
        RuleMonitorDisplay.from_monitor(rs.monitor(X, y, periods), value="net_money")
    with pytest.raises(ValueError, match="fn_cost"):
        MoneyByPeriodDisplay.from_predictions(y, rs.predict(X), periods)
    plt.close("all")


def test_monitor_display_keeps_long_rule_names_inside_its_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from csboost_plugins.plot import RuleMonitorDisplay

    X, y, amount, periods = _data()
    rs = _rules()
    rs = RuleSet(rs.rules, feature_names=rs.feature_names, names=["a_rather_long_rule_name_" + str(i)
                                                                    for i in range(len(rs.rules))])
    d = RuleMonitorDisplay.from_monitor(rs.monitor(X, y, periods, alpha=0.5))
    fig = d.figure_
    fig.canvas.draw()
    box = fig.bbox  # the saved figure (no tight bbox): every tick label and the colour bar's label inside it
    texts = d.ax_.get_yticklabels() + d.ax_.get_xticklabels() + [d.colorbar_.ax.yaxis.label]
    for t in texts:
        ext = t.get_window_extent()
        assert ext.x0 >= box.x0 - 0.5 and ext.x1 <= box.x1 + 0.5, (t.get_text(), ext, box)
    plt.close("all")


def test_monitor_display_marks_which_test_fired():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.markers import MarkerStyle

    from csboost_plugins.plot import RuleMonitorDisplay

    rng = np.random.default_rng(0)
    n = 8000
    week = np.repeat(np.arange(4), n // 4)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    X.loc[week == 1, "b"] += 0.7  # week 1: big_b flags more rows, as precise as before
    X.loc[week == 3, "a"] += 1.0  # week 3: big_a flags more rows, and more of them fraud
    fraud_a = X.a + rng.normal(size=n) > 1.5
    fraud_b = rng.random(n) < np.where(week == 2, 0.9, 0.2)  # week 2: big_b's alerts far more precise
    y = (fraud_a | ((X.b > 1.5) & fraud_b)).astype(int).to_numpy()
    mon = RuleSet.from_sql({"big_a": "a > 1", "big_b": "b > 1.5"}).monitor(X, y, week)
    disp = RuleMonitorDisplay.from_monitor(mon)
    level = mon.attrs["level"]
    want = {}
    for (w, rule), row in mon[mon["drift"].astype(bool)].iterrows():
        prec, rate = row["precision_pvalue"] < level, row["alert_rate_pvalue"] < level
        want[(list(disp.rules).index(rule), w)] = "both" if prec and rate else "precision" if prec else "alert rate"
    assert want[(1, 1)] == "alert rate" and want[(1, 2)] == "precision" and want[(0, 3)] == "both"
    shapes = {k: MarkerStyle(m).get_path().transformed(MarkerStyle(m).get_transform()).vertices
              for k, m in (("precision", "X"), ("alert rate", "P"), ("both", "*"))}
    offsets, paths = disp.drift_markers_.get_offsets(), disp.drift_markers_.get_paths()
    assert len(offsets) == len(paths) == len(want)
    for (xx, yy), path in zip(offsets, paths):
        kind = want[(int(round(yy)), int(round(xx)))]
        assert disp.drift_tests[int(round(yy)), int(round(xx))] == kind
        np.testing.assert_allclose(path.vertices, shapes[kind])
    title = disp.ax_.get_title()
    assert "X = precision" in title and "+ = alert rate" in title and "* = both" in title and "alpha=0.01" in title
    bare = RuleMonitorDisplay.from_monitor(mon.drop(columns=["precision_pvalue", "alert_rate_pvalue"]))
    assert set(bare.drift_tests[bare.drift]) == {"drift"} and "X = drift" in bare.ax_.get_title()
    plt.close("all")


def test_dask_arrays_equal_memory_and_periods_must_be_partitioned_like_x():
    da = pytest.importorskip("dask.array")
    import dask

    X, y, amount, periods = _data(3000, seed=7)
    rs = _rules()
    Xa = X.to_numpy()
    codes = np.searchsorted(np.unique(periods), periods)  # integer labels for a dask array
    chunks = (700,)
    with dask.config.set(scheduler="synchronous"):
        got = rs.monitor(da.from_array(Xa, chunks=(700, 3)), da.from_array(y, chunks=chunks),
                         da.from_array(codes, chunks=chunks), fn_cost=da.from_array(amount, chunks=chunks),
                         fp_cost=5.0)
        with pytest.raises(TypeError, match="periods must be a dask collection"):
            rs.monitor(da.from_array(Xa, chunks=(700, 3)), da.from_array(y, chunks=chunks), codes)
        with pytest.raises(ValueError, match="periods has 3 partitions but X has 5"):
            rs.monitor(da.from_array(Xa, chunks=(700, 3)), da.from_array(y, chunks=chunks),
                       da.from_array(codes, chunks=(1000,)))
    pd.testing.assert_frame_equal(got, rs.monitor(Xa, y, codes, fn_cost=amount, fp_cost=5.0), rtol=1e-12)


def test_weighted_tests_use_kish_effective_counts():
    rng = np.random.default_rng(11)
    n = 2000
    X = np.c_[rng.normal(size=n)]
    y = (rng.random(n) < 0.2 + 0.3 * (X[:, 0] > 1)).astype(int)
    periods = np.repeat(["a", "b"], n // 2)
    w = rng.choice([1.0, 4.0], n)
    rs = RuleSet([Rule([Interval(0, lower=0.8)])], names=["rule_1"])
    tab = rs.monitor(X, y, periods, sample_weight=w)
    hit = X[:, 0] >= 0.8

    def effective(m):  # (effective alerts, effective true alerts) of the rows m the rule covers
        ww = w[m & hit]
        n_eff = ww.sum() ** 2 / (ww ** 2).sum()
        return round(n_eff), round((ww * y[m & hit]).sum() / ww.sum() * round(n_eff))

    na, ta = effective(periods == "a")
    nb, tb = effective(periods == "b")
    want = fisher_exact([[tb, nb - tb], [ta, na - ta]]).pvalue
    assert tab.loc[("b", "rule_1"), "precision_pvalue"] == pytest.approx(want, rel=1e-9)
    assert tab.loc[("b", "rule_1"), "alerts"] == pytest.approx(w[(periods == "b") & hit].sum())
