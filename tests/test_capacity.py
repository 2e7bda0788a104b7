"""Decisions under an alert capacity, checked against a brute-force top-k per period.

The brute force sorts each period's eligible rows in plain Python by (-value, row) and keeps
the first k: the kernel (counting sort + selection) must give exactly those rows, ties included.
"""

import math

import numpy as np
import pandas as pd
import pytest

from _estimators import boosting_classes

from csboost_plugins import _capacity
from csboost_plugins.metrics import alert_value, bayes_minimum_risk
from csdt import BayesMinimumRiskClassifier, ThresholdingOptimization


def brute_force(value, eligible, periods, max_alerts=None, max_alert_rate=None):
    """Top k of each period by (-value, row order) among eligible rows, in plain Python."""
    n = len(value)
    labels = [0] * n if periods is None else list(periods)
    rows_of = {}
    for i, g in enumerate(labels):
        rows_of.setdefault(g, []).append(i)
    out = np.zeros(n, dtype=np.int64)
    for rows in rows_of.values():
        k = max_alerts if max_alerts is not None else math.floor(round(max_alert_rate * len(rows), 6))
        ranked = sorted((i for i in rows if eligible[i]), key=lambda i: (-value[i], i))
        for i in ranked[:k]:
            out[i] = 1
    return out


def _case(rng):
    n = int(rng.integers(0, 300))
    kind = rng.integers(0, 4)
    if kind == 0:  # heavy ties: a few distinct values
        value = rng.integers(-3, 4, n).astype(float)
    elif kind == 1:  # every value negative: nothing to flag
        value = -rng.exponential(5, n)
    elif kind == 2:
        value = rng.normal(size=n)
    else:  # all tied
        value = np.full(n, 2.0)
    periods = None if rng.random() < 0.2 else rng.integers(0, int(rng.integers(1, 12)), n)
    if rng.random() < 0.5:
        cap = dict(max_alerts=int(rng.integers(1, 8)))
    else:
        cap = dict(max_alert_rate=float(rng.choice([0.01, 0.05, 0.1, 0.29, 0.5, 1.0])))
    return value, periods, cap


def test_capped_decisions_equal_brute_force_top_k_per_period():
    rng = np.random.default_rng(0)
    tied = 0
    for _ in range(300):
        value, periods, cap = _case(rng)
        eligible = value > 0
        want = brute_force(value, eligible, periods, **cap)
        sizes = np.unique(periods, return_counts=True)[1] if periods is not None else [len(value)]
        if "max_alert_rate" in cap and len(value) and max(sizes) * cap["max_alert_rate"] < 1:
            with pytest.raises(ValueError, match="max_alert_rate"):  # it allows no alert in any period
                _capacity.check_capacity(len(value), periods=periods, **cap)
            continue
        capacity = _capacity.check_capacity(len(value), periods=periods, **cap)
        got = _capacity.capped_decisions(value, eligible, capacity)
        np.testing.assert_array_equal(got, want)
        tied += len(value) > 0 and np.unique(value[eligible]).size < eligible.sum()
    assert tied > 50  # ties at the cut were exercised


def test_bayes_minimum_risk_capacity_equals_brute_force_on_alert_values():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 250))
        # few distinct probabilities and amounts: many rows share one alert value
        p = rng.choice([0.0, 0.02, 0.1, 0.25, 0.5, 0.9, 1.0], n)
        amount = rng.choice([10.0, 40.0, 200.0], n)
        periods = rng.choice(np.array(["mon", "tue", "wed"]), n)
        cap = dict(max_alerts=int(rng.integers(1, 6))) if rng.random() < 0.5 else dict(max_alert_rate=0.1)
        if "max_alert_rate" in cap and np.unique(periods, return_counts=True)[1].max() < 10:
            with pytest.raises(ValueError, match="max_alert_rate"):  # 0.1 allows no alert in any period
                bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, periods=periods, **cap)
            continue
        got = bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, periods=periods, **cap)
        v = alert_value(p, fp_cost=5.0, fn_cost=amount)
        np.testing.assert_array_equal(got, brute_force(v, v > 0, periods, **cap))
        # the cap only removes alerts of the uncapped decision
        assert np.all(got <= bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount))


def test_alert_value_is_the_expected_money_of_an_alert():
    rng = np.random.default_rng(2)
    n = 500
    p = rng.random(n)
    cfp, cfn, ctp, ctn = rng.uniform(0, 10, n), rng.uniform(0, 300, n), rng.uniform(0, 5, n), rng.uniform(0, 2, n)
    v = alert_value(p, fp_cost=cfp, fn_cost=cfn, tp_cost=ctp, tn_cost=ctn)
    # expected cost of letting the row pass minus that of flagging it, summed by hand
    want = [(pi * fn + (1 - pi) * tn) - (pi * tp + (1 - pi) * fp) for pi, fp, fn, tp, tn in zip(p, cfp, cfn, ctp, ctn)]
    np.testing.assert_allclose(v, want, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(v, p * (cfn - ctp) - (1 - p) * (cfp - ctn), rtol=1e-12, atol=1e-9)
    bmr = bayes_minimum_risk(p, fp_cost=cfp, fn_cost=cfn, tp_cost=ctp, tn_cost=ctn)
    np.testing.assert_array_equal(bmr, (v > 0).astype(int))
    # a predict_proba output reads its column 1; cost_matrix gives the same values
    two = np.column_stack([1 - p, p])
    np.testing.assert_array_equal(alert_value(two, cost_matrix=np.column_stack([cfp, cfn, ctp, ctn])), v)


def test_capacity_counts_and_hand_example():
    p = np.array([0.1, 0.5, 0.9, 0.9, 0.3, 0.8])
    amount = np.array([100.0, 10.0, 50.0, 50.0, 20.0, 70.0])
    # alert values 5.5, 2.5, 44.5, 44.5, 2.5, 55: rows 2 and 3 tie, the earlier one goes first
    np.testing.assert_array_equal(bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=2), [0, 0, 1, 0, 0, 1])
    np.testing.assert_array_equal(
        bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=1, periods=[1, 1, 1, 2, 2, 2]),
        [0, 0, 1, 0, 0, 1])
    # 0.5 x 2 rows -> 1 alert on "a"; 0.5 x 4 rows -> 2 alerts on "b"
    np.testing.assert_array_equal(
        bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alert_rate=0.5, periods=list("aabbbb")),
        [1, 0, 1, 0, 0, 1])
    # a cap above the eligible rows changes nothing; a huge fp cost leaves nothing to flag
    np.testing.assert_array_equal(bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount, max_alerts=100),
                                  bayes_minimum_risk(p, fp_cost=5.0, fn_cost=amount))
    assert bayes_minimum_risk(p, fp_cost=1e6, fn_cost=amount, max_alerts=3).sum() == 0


def test_rate_rounds_before_the_floor_and_periods_of_any_label():
    n = 100
    p = np.full(n, 0.9)
    got = bayes_minimum_risk(p, fp_cost=1.0, fn_cost=10.0, max_alert_rate=0.29)
    assert got.sum() == 29  # 0.29 * 100 is 28.999999999999996 in float64
    days = pd.Series(pd.Timestamp("2024-03-01") + pd.to_timedelta(np.arange(n) % 4, unit="D"))
    by_day = bayes_minimum_risk(p, fp_cost=1.0, fn_cost=10.0, max_alerts=3, periods=days)
    assert by_day.sum() == 12
    assert pd.Series(by_day).groupby(days.to_numpy()).sum().tolist() == [3, 3, 3, 3]
    assert bayes_minimum_risk(p, fp_cost=1.0, fn_cost=10.0, max_alerts=3,
                              periods=pd.Categorical(np.arange(n) % 4)).sum() == 12


# ---------------------------------------------------------------------- estimators
def _fraud(n=2500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    amount = rng.exponential(100.0, n)
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 1.8).astype(int)
    periods = rng.integers(0, 12, n)
    return X, y, amount, periods


@pytest.fixture(scope="module")
def fraud():
    return _fraud()


@pytest.mark.parametrize("cls", boosting_classes())
@pytest.mark.parametrize("decision", ["auto", "bmr"])
def test_boosting_predict_with_capacity_equals_bayes_minimum_risk(cls, decision, fraud):
    X, y, amount, periods = fraud
    est = cls(n_estimators=15, random_state=0, decision=decision).fit(X, y, fp_cost=5.0, fn_cost=amount)
    proba, margin = est.predict_proba(X), est.decision_function(X)
    uncapped = est.predict(X, fp_cost=5.0, fn_cost=amount) == est.classes_[1]
    for cap in (dict(max_alerts=3, periods=periods), dict(max_alert_rate=0.01, periods=periods),
                dict(max_alerts=20)):
        got = est.predict(X, fp_cost=5.0, fn_cost=amount, **cap)
        if decision == "auto" and est.decision_ == "aec":  # the AEC's own rule was chosen: its margin ranks
            want = brute_force(margin, margin > 0, cap.get("periods"), cap.get("max_alerts"), cap.get("max_alert_rate"))
        else:
            want = bayes_minimum_risk(proba, fp_cost=5.0, fn_cost=amount, **cap)
        np.testing.assert_array_equal(got, est.classes_[want])
        assert 0 < want.sum() < uncapped.sum()
        assert not np.any(want.astype(bool) & ~uncapped)  # the cap only removes alerts


def _margin_top_k(margin, periods, k):
    return brute_force(margin, margin > 0, periods, max_alerts=k)


@pytest.mark.parametrize("cls", boosting_classes())
def test_aec_decision_ranks_by_margin(cls, fraud):
    X, y, amount, periods = fraud
    est = cls(n_estimators=15, random_state=0, decision="0.5").fit(X, y, fp_cost=5.0, fn_cost=amount)
    margin = est.decision_function(X)
    assert (margin > 0).sum() > 24  # the cap binds
    got = est.predict(X, max_alerts=2, periods=periods)  # no costs: the AEC's own decision s > 1/2
    np.testing.assert_array_equal(got, est.classes_[_margin_top_k(margin, periods, 2)])
    # a decision="auto" model whose chosen rule is the AEC's own ranks by the margin, whatever the costs
    auto = cls(n_estimators=15, random_state=0).fit(X, y, fp_cost=5.0, fn_cost=amount)
    auto.decision_ = "aec"  # as if the validation money had chosen it
    margin = auto.decision_function(X)
    got = auto.predict(X, fp_cost=5.0, fn_cost=amount, max_alerts=2, periods=periods)
    np.testing.assert_array_equal(got, auto.classes_[_margin_top_k(margin, periods, 2)])
    by_value = bayes_minimum_risk(auto.predict_proba(X), fp_cost=5.0, fn_cost=amount, max_alerts=2, periods=periods)
    assert not np.array_equal(got, by_value)  # the margin order is not the alert value's


def test_string_labels_and_pandas_periods_follow_x(fraud):
    from csboost_plugins.xgb import CSXGBClassifier

    X, y, amount, periods = fraud
    Xf = pd.DataFrame(X, columns=list("abcd"), index=np.arange(len(y)) + 1000)
    labels = np.where(y == 1, "fraud", "ok")
    est = CSXGBClassifier(n_estimators=10, random_state=0, decision="bmr", pos_label="fraud").fit(
        Xf, labels, fp_cost=5.0, fn_cost=amount)
    per = pd.Series(periods, index=Xf.index)
    got = est.predict(Xf, fp_cost=5.0, fn_cost=amount, max_alerts=2, periods=per)
    want = bayes_minimum_risk(est.predict_proba(Xf), fp_cost=5.0, fn_cost=amount, max_alerts=2, periods=periods)
    np.testing.assert_array_equal(got == "fraud", want == 1)  # classes_ = [ok, fraud]: column 1 is "fraud"
    with pytest.raises(ValueError, match="periods"):
        est.predict(Xf, fp_cost=5.0, fn_cost=amount, max_alerts=2, periods=pd.Series(periods))


def test_bmr_classifier_and_thresholding_with_capacity(fraud):
    X, y, amount, periods = fraud
    bmr = BayesMinimumRiskClassifier().fit(X, y, fp_cost=5.0, fn_cost=amount)
    got = bmr.predict(X, fp_cost=5.0, fn_cost=amount, max_alerts=3, periods=periods)
    want = bayes_minimum_risk(bmr.predict_proba(X), fp_cost=5.0, fn_cost=amount, max_alerts=3, periods=periods)
    np.testing.assert_array_equal(got, want)
    assert 0 < got.sum() < bmr.predict(X, fp_cost=5.0, fn_cost=amount).sum()
    thr = ThresholdingOptimization(cv=None).fit(X, y, fp_cost=5.0, fn_cost=amount)
    s = thr.predict_proba(X)[:, 1]
    got = thr.predict(X, max_alert_rate=0.01, periods=periods)
    np.testing.assert_array_equal(got, brute_force(s, s >= thr.threshold_, periods, max_alert_rate=0.01))
    assert 0 < got.sum() < thr.predict(X).sum()


# ---------------------------------------------------------------------- bad input
BAD = [
    (dict(max_alerts=3, periods=[1.0, np.nan] * 3), "periods"),
    (dict(max_alerts=3, periods=[1, None] * 3), "periods"),
    (dict(max_alerts=3, periods=[1, 2, 3]), "periods"),
    (dict(max_alerts=3, periods=np.zeros((6, 2))), "periods"),
    (dict(periods=[1] * 6), "periods"),
    (dict(max_alerts=0), "max_alerts"),
    (dict(max_alerts=-2), "max_alerts"),
    (dict(max_alerts=2.5), "max_alerts"),
    (dict(max_alerts=2.0), "max_alerts"),
    (dict(max_alerts=True), "max_alerts"),
    (dict(max_alerts="2"), "max_alerts"),
    (dict(max_alerts=2, max_alert_rate=0.1), "max_alert_rate"),
    (dict(max_alert_rate=0.0), "max_alert_rate"),
    (dict(max_alert_rate=1.01), "max_alert_rate"),
    (dict(max_alert_rate=-0.5), "max_alert_rate"),
    (dict(max_alert_rate=np.nan), "max_alert_rate"),
]


@pytest.mark.parametrize("kw, name", BAD)
def test_bad_capacity_is_a_value_error_naming_the_argument(kw, name, fraud):
    p = np.linspace(0.1, 0.9, 6)
    with pytest.raises(ValueError, match=name):
        bayes_minimum_risk(p, fp_cost=1.0, fn_cost=10.0, **kw)
    X, y, amount, _ = fraud
    bmr = BayesMinimumRiskClassifier().fit(X[:200], y[:200], fp_cost=5.0, fn_cost=amount[:200])
    with pytest.raises(ValueError, match=name):
        bmr.predict(X[:6], fp_cost=1.0, fn_cost=10.0, **kw)
    thr = ThresholdingOptimization(cv=None).fit(X[:200], y[:200], fp_cost=5.0, fn_cost=amount[:200])
    with pytest.raises(ValueError, match=name):
        thr.predict(X[:6], **kw)


def test_alert_value_bad_input_names_proba():
    for bad in ([0.2, 1.5], [0.2, np.nan], np.zeros((2, 3))):
        with pytest.raises(ValueError, match="proba"):
            alert_value(bad, fp_cost=1.0, fn_cost=10.0)
    with pytest.raises(ValueError, match="fn_cost"):
        alert_value([0.2, 0.3], fp_cost=1.0, fn_cost=[10.0, np.nan])


@pytest.mark.parametrize("cls", boosting_classes())
def test_boosting_bad_capacity_names_the_argument(cls, fraud):
    X, y, amount, _ = fraud
    est = cls(n_estimators=3, random_state=0, decision="bmr").fit(X[:300], y[:300], fp_cost=5.0, fn_cost=amount[:300])
    for kw, name in BAD:
        with pytest.raises(ValueError, match=name):
            est.predict(X[:6], fp_cost=1.0, fn_cost=10.0, **kw)


# ---------------------------------------------------------------------- capacity curve
def _net_money(decisions, y, amount, fp_cost):
    return float(np.sum(decisions * np.where(y == 1, amount, -fp_cost)))


def test_capacity_curve_equals_capped_decisions(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from csboost_plugins.plot import CapacityCurveDisplay

    rng = np.random.default_rng(5)
    n = 3000
    p = np.round(rng.beta(0.5, 8, n), 3)  # rounded: ties in the ranking
    y = (rng.random(n) < p).astype(int)
    amount = np.round(rng.exponential(80.0, n), 0)
    periods = rng.choice(np.array(["d1", "d2", "d3", "d4", "d5"]), n)
    score = p + rng.normal(0, 0.01, n)
    disp = CapacityCurveDisplay.from_predictions(y, p, periods=periods, y_score=score, fp_cost=4.0, fn_cost=amount)
    assert disp.capacity[0] == 0 and disp.net_money_value[0] == 0 and disp.net_money_score[0] == 0
    for k in (1, 3, 10, int(disp.capacity[-1])):
        dec = bayes_minimum_risk(p, fp_cost=4.0, fn_cost=amount, max_alerts=k, periods=periods)
        assert disp.net_money_value[k] == pytest.approx(_net_money(dec, y, amount, 4.0), abs=1e-6)
        by_score = brute_force(score, np.ones(n, dtype=bool), periods, max_alerts=k)
        assert disp.net_money_score[k] == pytest.approx(_net_money(by_score, y, amount, 4.0), abs=1e-6)
    uncapped = bayes_minimum_risk(p, fp_cost=4.0, fn_cost=amount)
    assert disp.net_money_bmr == pytest.approx(_net_money(uncapped, y, amount, 4.0))
    assert disp.bmr_alerts_per_period == pd.Series(uncapped).groupby(periods).sum().max()
    assert disp.best_capacity == int(np.argmax(disp.net_money_value))
    # past the last eligible row of every period, ranking by alert value is uncapped BMR
    assert disp.net_money_value[disp.bmr_alerts_per_period] == pytest.approx(disp.net_money_bmr)
    assert disp.best_line_.get_xdata()[0] == disp.best_capacity
    disp.figure_.savefig(tmp_path / "capacity.png")
    assert (tmp_path / "capacity.png").stat().st_size > 10_000


def test_capacity_curve_from_estimator_and_bad_input(fraud):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from csboost_plugins.plot import CapacityCurveDisplay

    X, y, amount, periods = fraud
    bmr = BayesMinimumRiskClassifier().fit(X, y, fp_cost=5.0, fn_cost=amount)
    disp = CapacityCurveDisplay.from_estimator(bmr, X, y, periods=periods, fp_cost=5.0, fn_cost=amount,
                                               max_capacity=7)
    np.testing.assert_array_equal(disp.capacity, np.arange(8))
    dec = bmr.predict(X, fp_cost=5.0, fn_cost=amount, max_alerts=4, periods=periods)
    assert disp.net_money_value[4] == pytest.approx(_net_money(dec, y, amount, 5.0))
    with pytest.raises(ValueError, match="periods"):
        CapacityCurveDisplay.from_estimator(bmr, X, y, periods=periods[:-1], fp_cost=5.0, fn_cost=amount)
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="max_capacity"):
            CapacityCurveDisplay.from_estimator(bmr, X, y, fp_cost=5.0, fn_cost=amount, max_capacity=bad)
