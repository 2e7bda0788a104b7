"""csboost_plugins.plot on the Agg backend: the arrays on the axes are the money the metrics compute
(brute-force flag-the-top-k sums, RuleSet.evaluate, savings_score, evals_result), not only a figure."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib", reason="pip install matplotlib (plot extra)")
matplotlib.use("Agg")
import lightgbm as lgb  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from csboost_plugins.lgb import CSLGBMClassifier  # noqa: E402
from csboost_plugins.metrics import bayes_minimum_risk, savings_score  # noqa: E402
from csboost_plugins.plot import (  # noqa: E402
    MoneyCurveDisplay,
    MoneyPerRoundDisplay,
    RuleWaterfallDisplay,
    ThresholdScalingDisplay,
)
from csboost_plugins.rules import extract_rules, riff_select  # noqa: E402
from csdt.datasets import make_fraud_transactions  # noqa: E402


@pytest.fixture(scope="module")
def fraud():
    d = make_fraud_transactions(9000, fraud_rate=0.03, random_state=2)
    X, y, amount = d.data, d.target, np.asarray(d.fn_cost, float)
    fit, sel, te = slice(0, 3000), slice(3000, 6000), slice(6000, None)
    gbm = lgb.LGBMClassifier(n_estimators=20, num_leaves=12, verbose=-1).fit(X[fit], y[fit])
    rules = riff_select(extract_rules(gbm), X[sel], y[sel], max_fpr=0.01, fp_cost=0.0, fn_cost=amount[sel])
    return gbm, rules, X[te].reset_index(drop=True), y[te], amount[te]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_money_curve_is_flag_the_top_k(fraud):
    gbm, rules, X, y, amount = fraud
    score = np.round(gbm.predict_proba(X)[:, 1], 3)  # ties: rows with one score are flagged together
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, rules=rules, X=X,
                                              rank_by="score", decisions=False)
    xs, ys = disp.line_.get_data()
    # brute force: flag every row with score >= each distinct score
    cuts = np.unique(score)[::-1]
    exp_rate = [0.0] + [np.mean(score >= t) for t in cuts]
    exp_net = [0.0] + [amount[(score >= t) & (y == 1)].sum() - 10.0 * ((score >= t) & (y == 0)).sum() for t in cuts]
    np.testing.assert_allclose(xs, exp_rate, atol=1e-12)
    np.testing.assert_allclose(ys, exp_net, rtol=1e-9, atol=1e-6)
    # the rule set's points: rules 1..i on the same axes, the last one is evaluate()'s set
    rx, ry = disp.rules_line_.get_data()
    s = rules.evaluate(X, y, fn_cost=amount, fp_cost=10.0)
    assert len(rx) == s["n_rules"]  # the rules deployed (evaluate's default, as predict)
    assert rx[-1] == pytest.approx(s["alert_rate"]) and ry[-1] == pytest.approx(s["net_money"])
    assert disp.ax_ is plt.gca() and disp.figure_ is disp.ax_.figure


def test_money_curve_fpr_savings_and_estimator(fraud):
    gbm, rules, X, y, amount = fraud
    fig, ax = plt.subplots()
    disp = MoneyCurveDisplay.from_estimator(gbm, X, y, fn_cost=amount, fp_cost=10.0, rules=rules, x_axis="fpr",
                                            y_axis="savings", ax=ax, rank_by="score")
    assert disp.ax_ is ax
    xs, ys = disp.line_.get_data()
    p = gbm.predict_proba(X)[:, 1]
    cuts = np.unique(p)[::-1]
    assert len(xs) == len(cuts) + 1
    for i in (0, 5, 40, 200, len(cuts)):  # point i flags the rows scoring at least the i-th highest score
        flag = (p >= cuts[i - 1]).astype(int) if i else np.zeros(len(p), int)
        assert xs[i] == pytest.approx(flag[y == 0].mean())
        assert ys[i] == pytest.approx(savings_score(y, flag, fn_cost=amount, fp_cost=10.0), abs=1e-12)
    rx, ry = disp.rules_line_.get_data()
    s = rules.evaluate(X, y, fn_cost=amount, fp_cost=10.0)
    assert rx[-1] == pytest.approx(s["fpr"]) and ry[-1] == pytest.approx(s["savings"])
    with pytest.raises(ValueError, match="y_axis must be one of"):
        MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=1.0, y_axis="profit")
    with pytest.raises(ValueError, match="need X"):
        MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=1.0, rules=rules)


def _flag_top(score, y, amount, fp_cost):
    """Brute force: alert rate, FPR and net money when every row scoring >= each distinct score is flagged."""
    cuts = np.unique(score)[::-1]
    rate = np.array([0.0] + [np.mean(score >= t) for t in cuts])
    fpr = np.array([0.0] + [np.mean(score[y == 0] >= t) for t in cuts])
    net = np.array([0.0] + [amount[(score >= t) & (y == 1)].sum() - fp_cost * ((score >= t) & (y == 0)).sum()
                            for t in cuts])
    return rate, fpr, net


def _fitted(v, lo, hi):
    inside = v[(v[:, 0] >= lo) & (v[:, 0] <= hi), 1]
    pad = 0.05 * (inside.max() - inside.min())
    return inside.min() - pad, inside.max() + pad


def _legend_covers_every_line(ax):
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert all(lab and not lab.startswith("_") for lab in labels), labels
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == sorted(labels)
    return labels


def test_money_curve_zooms_to_the_budget(fraud):
    """The default view spans alert rates 0..2x the larger of the budget and the rules' alert rate, the vertical
    range fitted to the curve there; every line (budget, rules' rate) is in the legend."""
    gbm, rules, X, y, amount = fraud
    score = np.round(gbm.predict_proba(X)[:, 1], 3)
    rate, fpr, net = _flag_top(score, y, amount, 10.0)
    rules_rate = rules.evaluate(X, y)["alert_rate"]
    rules_tab = rules.evaluate(X, y, fn_cost=amount, fp_cost=10.0, per_rule=True)
    rules_pts = np.c_[np.cumsum(rules_tab["new_tp"] + rules_tab["new_fp"]) / len(y), rules_tab["set_net_money"]]
    # the FPR budget (1 %) on the alert-rate axis: where the score's curve reaches that FPR
    budget_rate = np.interp(0.01, fpr, rate)
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, rules=rules, X=X, rank_by="score", decisions=False)
    hi = 2 * max(budget_rate, rules_rate)
    assert hi < 0.2  # far from the full range: the zoom is what is being tested
    np.testing.assert_allclose(disp.ax_.get_xlim(), (0.0, hi), rtol=1e-9)
    np.testing.assert_allclose(disp.ax_.get_ylim(), _fitted(np.r_[np.c_[rate, net], rules_pts], 0.0, hi), rtol=1e-9)
    assert disp.budget_line_.get_xdata()[0] == pytest.approx(budget_rate)
    assert disp.rules_rate_line_.get_xdata()[0] == pytest.approx(rules_rate)
    labels = _legend_covers_every_line(disp.ax_)
    assert len(labels) == 4 and any(lab.startswith("budget: FPR 1 %") for lab in labels)

    # on the FPR axis the budget line is the budget itself
    plt.figure()
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, rules=rules, X=X, x_axis="fpr",
                                              rank_by="score", decisions=False)
    assert disp.budget_line_.get_xdata()[0] == 0.01
    hi = 2 * max(0.01, rules.evaluate(X, y)["fpr"])
    np.testing.assert_allclose(disp.ax_.get_xlim(), (0.0, hi), rtol=1e-9)
    fpr_pts = np.c_[rules_tab["set_fpr"], rules_tab["set_net_money"]]
    np.testing.assert_allclose(disp.ax_.get_ylim(), _fitted(np.r_[np.c_[fpr, net], fpr_pts], 0.0, hi), rtol=1e-9)
    _legend_covers_every_line(disp.ax_)


def test_money_curve_full_range_window_and_no_rules(fraud):
    gbm, rules, X, y, amount = fraud
    score = np.round(gbm.predict_proba(X)[:, 1], 3)
    rate, _, net = _flag_top(score, y, amount, 10.0)
    # zoom=False: up to flagging every row, and down to its (large negative) net money
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, rules=rules, X=X, zoom=False,
                                              rank_by="score", decisions=False)
    lo, hi = disp.ax_.get_xlim()
    assert lo <= 0.0 and hi >= 1.0
    assert disp.ax_.get_ylim()[0] <= net.min() < 0
    _legend_covers_every_line(disp.ax_)
    # xlim: that window, the vertical range fitted to it
    plt.figure()
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, xlim=(0.0, 0.3), rank_by="score", decisions=False)
    np.testing.assert_allclose(disp.ax_.get_xlim(), (0.0, 0.3))
    np.testing.assert_allclose(disp.ax_.get_ylim(), _fitted(np.c_[rate, net], 0.0, 0.3), rtol=1e-9)
    # no rules, no budget: around the score's best flag-the-top-k; a given budget is drawn and zoomed to
    plt.figure()
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, rank_by="score", decisions=False)
    assert disp.budget_line_ is None and disp.rules_rate_line_ is None
    np.testing.assert_allclose(disp.ax_.get_xlim(), (0.0, 2 * rate[np.argmax(net)]), rtol=1e-9)
    plt.figure()
    disp = MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, budget=0.05, rank_by="score", decisions=False)
    np.testing.assert_allclose(disp.ax_.get_xlim(), (0.0, 0.1), rtol=1e-9)
    assert _legend_covers_every_line(disp.ax_)[-1] == "budget: alert rate 5 %"
    for bad, err in ((dict(budget=0.0), ValueError), (dict(budget="1%"), TypeError),
                     (dict(xlim=(0.2, 0.1)), ValueError), (dict(xlim=0.1), TypeError), (dict(zoom="no"), TypeError)):
        with pytest.raises(err, match=next(iter(bad))):
            MoneyCurveDisplay.from_predictions(y, score, fn_cost=amount, fp_cost=10.0, **bad)


def test_rule_waterfall_bars_are_the_table(fraud):
    _, rules, X, y, amount = fraud
    disp = RuleWaterfallDisplay.from_estimator(rules, X, y, fn_cost=amount, fp_cost=10.0)
    t = rules.evaluate(X, y, fn_cost=amount, fp_cost=10.0, per_rule=True)
    up = np.array([b.get_height() for b in disp.caught_bars_])
    down = np.array([b.get_height() for b in disp.alert_bars_])
    np.testing.assert_allclose(up, t["new_money_caught"], rtol=1e-12)
    np.testing.assert_allclose(-down, t["new_alert_cost"], rtol=1e-12)
    # each rule starts where the previous one ended; the net bar is the set's net money
    tops = np.array([b.get_y() + b.get_height() for b in disp.alert_bars_])
    np.testing.assert_allclose(tops, t["set_net_money"], rtol=1e-9)
    starts = np.array([b.get_y() for b in disp.caught_bars_])
    np.testing.assert_allclose(starts[1:], tops[:-1], rtol=1e-9)
    (net,) = disp.net_bar_
    assert net.get_height() == pytest.approx(rules.evaluate(X, y, fn_cost=amount, fp_cost=10.0)["net_money"])
    with pytest.raises(ValueError, match="needs costs"):
        RuleWaterfallDisplay(rules.evaluate(X, y, per_rule=True))
    empty = RuleWaterfallDisplay.from_estimator(type(rules)([]), X, y, fn_cost=amount, fp_cost=10.0)
    assert len(empty.caught_bars_) == 0 and empty.net_bar_[0].get_height() == 0.0


def test_rule_waterfall_labels_rules_by_name(fraud):
    _, rules, X, y, amount = fraud
    disp = RuleWaterfallDisplay.from_estimator(rules, X, y, fn_cost=amount, fp_cost=10.0)
    names = list(rules.evaluate(X, y, fn_cost=amount, fp_cost=10.0, per_rule=True)["name"])  # the rules in force
    assert len(names) > 1 and set(names) <= set(rules.names)
    assert [t.get_text() for t in disp.ax_.get_xticklabels()] == names + ["net"]
    table = _tall_first_rule_table()
    plain = RuleWaterfallDisplay(table).plot(plt.figure().gca())  # no names: the positions
    assert [t.get_text() for t in plain.ax_.get_xticklabels()] == ["1", "2", "3", "4", "5", "net"]
    table["name"] = ["big_amount", None, "", np.nan, "night"]
    mixed = RuleWaterfallDisplay(table).plot(plt.figure().gca())
    assert [t.get_text() for t in mixed.ax_.get_xticklabels()] == ["big_amount", "2", "3", "4", "night", "net"]
    plt.close("all")


def test_money_per_round_from_estimator(fraud):
    _, _, X, y, amount = fraud
    n = len(y) // 2
    est = CSLGBMClassifier(decision="0.5", n_estimators=25, early_stopping_rounds=5, eval_metric="savings", random_state=0)
    est.fit(X[:n], y[:n], fn_cost=amount[:n], fp_cost=10.0, eval_set=[(X[n:], y[n:])],
            eval_costs=[{"fn_cost": amount[n:], "fp_cost": 10.0}])
    disp = MoneyPerRoundDisplay.from_estimator(est, metric="savings")
    (name,) = est.evals_result_
    xs, ys = disp.lines_[name].get_data()
    np.testing.assert_array_equal(ys, est.evals_result_[name]["savings"])
    np.testing.assert_array_equal(xs, np.arange(1, len(ys) + 1))
    bx, _ = disp.best_line_.get_data()
    assert bx[0] == est.n_estimators_  # the fitted model's last round, 1-based on the axis


def test_money_per_round_from_record_money(fraud):
    """Native lightgbm with record_money: one line per set (training vs validation) and the early-stopping
    round marked; each plotted value is the savings_score of that set's decisions at that round."""
    from csboost_plugins import lgb as clgb
    from csboost_plugins.callback import early_stopping, record_money

    _, _, X, y, amount = fraud
    n = len(y) // 2
    C = dict(fn_cost=amount, fp_cost=10.0)
    dtr = clgb.cost_dataset(X[:n], y[:n], fn_cost=amount[:n], fp_cost=10.0)
    dva = clgb.cost_dataset(X[n:], y[n:], fn_cost=amount[n:], fp_cost=10.0, reference=dtr)
    rec = {}
    bst = lgb.train({"objective": clgb.aec_objective(), "verbose": -1, "num_leaves": 8, "learning_rate": 0.3}, dtr,
                    30, valid_sets=[dva], valid_names=["validation"], feval=clgb.money_metrics(),
                    callbacks=[record_money(rec), early_stopping(5, data_name="validation")])
    disp = MoneyPerRoundDisplay.from_evals_result(rec, metric="savings", best_iteration=bst.best_iteration - 1)
    assert set(disp.lines_) == {"training", "validation"}
    clgb.bake_start_margin(bst, dtr)
    for name, sl in (("training", slice(0, n)), ("validation", slice(n, None))):
        ys = disp.lines_[name].get_data()[1]
        np.testing.assert_array_equal(ys, rec[name]["savings"])
        # the recorded savings are the money of that round's decisions at the shared default s > 1/2
        k = min(3, bst.best_iteration)
        p = clgb.predict_proba(bst, X[sl], num_iteration=k)
        cs = {key: (v[sl] if np.ndim(v) else v) for key, v in C.items()}
        assert ys[k - 1] == pytest.approx(savings_score(y[sl], (p > 0.5).astype(int), **cs), abs=1e-9)
    assert disp.best_line_.get_data()[0][0] == bst.best_iteration


def test_money_per_round_from_evals_result():
    ev = {"training": {"savings": [0.1, 0.3, 0.5, 0.6], "expected_savings": [0.0, 0.1, 0.2, 0.3]},
          "validation_0": {"savings": [0.1, 0.25, 0.3, 0.28], "expected_savings": [0.0, 0.1, 0.15, 0.12]}}
    disp = MoneyPerRoundDisplay.from_evals_result(ev, metric="expected_savings", best_iteration=2)
    for name in ev:
        xs, ys = disp.lines_[name].get_data()
        np.testing.assert_array_equal(ys, ev[name]["expected_savings"])
        np.testing.assert_array_equal(xs, [1, 2, 3, 4])
    assert disp.best_line_.get_data()[0][0] == 3
    with pytest.raises(ValueError, match="recorded metrics: \\['expected_savings', 'savings'\\]"):
        MoneyPerRoundDisplay.from_evals_result(ev, metric="aec")
    with pytest.raises(ValueError, match="best_iteration"):
        MoneyPerRoundDisplay.from_evals_result(ev, best_iteration=4)
    with pytest.raises(TypeError, match="evals_result"):
        MoneyPerRoundDisplay.from_evals_result([0.1, 0.2])


def test_threshold_scaling_matches_savings_score(fraud):
    gbm, _, X, y, amount = fraud
    p = gbm.predict_proba(X)[:, 1]
    disp = ThresholdScalingDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0)
    xs, ys = disp.line_.get_data()
    np.testing.assert_array_equal(xs, np.logspace(-2, 2, 81))
    for k in (0, 20, 40, 60, 80):  # k = 1 is index 40: Bayes minimum risk
        # odds scaling is the Bayes rule with the false-alert regret multiplied by k
        d = (p * amount > (1 - p) * 10.0 * xs[k]).astype(int)
        assert ys[k] == pytest.approx(savings_score(y, d, fn_cost=amount, fp_cost=10.0), abs=1e-12)
    assert ys[40] == pytest.approx(savings_score(
        y, bayes_minimum_risk(p, fn_cost=amount, fp_cost=10.0), fn_cost=amount, fp_cost=10.0))
    assert disp.best == xs[np.argmax(ys)]
    disp = ThresholdScalingDisplay.from_estimator(gbm, X, y, fn_cost=amount, fp_cost=10.0, threshold="constant",
                                                  y_axis="net_money")
    xs, ys = disp.line_.get_data()
    for i in (0, 30, 50, 100):
        d = p > xs[i]
        assert ys[i] == pytest.approx(amount[d & (y == 1)].sum() - 10.0 * (d & (y == 0)).sum())
    with pytest.raises(ValueError, match="threshold must be one of"):
        ThresholdScalingDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=1.0, threshold="median")
    with pytest.raises(ValueError, match="y_proba must lie"):
        ThresholdScalingDisplay.from_predictions(y, p * 3, fn_cost=amount, fp_cost=1.0)


def test_odd_inputs_are_plotted_or_refused_by_name():
    import warnings

    from sklearn.svm import LinearSVC
    y, p, amount = np.array([1, 0, 1, 0, 0, 1]), np.array([.9, .2, .3, .7, .1, .8]), np.array([100., 5, 300, 2, 40, 70])
    kw = dict(fp_cost=10.0, fn_cost=amount, tp_cost=10.0)
    one = MoneyCurveDisplay.from_predictions(y, p, **kw)
    # predict_proba output is P(y=1), as in the metrics
    np.testing.assert_array_equal(MoneyCurveDisplay.from_predictions(y, np.c_[1 - p, p], **kw).net_money,
                                  one.net_money)
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        MoneyCurveDisplay.from_predictions(y, p, sample_weight=np.zeros(6), **kw)
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        ThresholdScalingDisplay.from_predictions(y, p, sample_weight=np.zeros(6), **kw)
    # positives only: the alert-rate curve draws without a RuntimeWarning; an FPR axis is refused by name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        only = MoneyCurveDisplay.from_predictions(np.ones(6, int), p, **kw)
    assert np.isnan(only.fpr).all() and only.net_money[-1] == pytest.approx((amount - 10).sum())
    with pytest.raises(ValueError, match="x_axis='fpr'.*negatives"):
        MoneyCurveDisplay.from_predictions(np.ones(6, int), p, x_axis="fpr", **kw)
    with pytest.raises(TypeError, match="table must be the DataFrame of RuleSet.evaluate"):
        RuleWaterfallDisplay(np.zeros((2, 3)))
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(TypeError, match="LinearSVC has no predict_proba"):
        ThresholdScalingDisplay.from_estimator(LinearSVC().fit(X, y), X, y, **kw)


def _drawn(disp):
    disp.figure_.canvas.draw()
    return disp


def _waterfall_ends(disp):
    bars = [*disp.caught_bars_, *disp.alert_bars_, *disp.net_bar_]
    ends = np.array([[b.get_y(), b.get_y() + b.get_height()] for b in bars])
    return bars, ends.min(), ends.max()


def _tall_first_rule_table():
    """A first rule catching most of the money (the legend's corner is where its bar is tallest)."""
    import pandas as pd
    t = pd.DataFrame({"new_money_caught": [4300.0, 420.0, 300.0, 60.0, 30.0],
                      "new_alert_cost": [20.0, 10.0, 12.0, 4.0, 0.0]})
    t["set_net_money"] = np.cumsum(t["new_money_caught"] - t["new_alert_cost"])
    return t


def test_rule_waterfall_shows_every_bar_end_with_a_margin(fraud):
    """The y-limits hold the cumulative money caught (the top of the highest bar) and the lowest bar end with
    a margin, instead of stopping at (or below) the tallest bar."""
    _, rules, X, y, amount = fraud
    for disp in (RuleWaterfallDisplay.from_estimator(rules, X, y, fn_cost=amount, fp_cost=10.0),
                 RuleWaterfallDisplay(_tall_first_rule_table()).plot(plt.figure().gca())):
        _, lo, hi = _waterfall_ends(_drawn(disp))
        bottom, top = disp.ax_.get_ylim()
        top_caught = max(b.get_y() + b.get_height() for b in disp.caught_bars_)
        assert top_caught == pytest.approx(hi)
        assert top >= hi + 0.04 * (hi - lo) and bottom <= lo - 0.04 * (hi - lo)


def test_rule_waterfall_legend_covers_no_bar(fraud):
    """Measured in display coordinates after drawing: the legend's box overlaps no bar."""
    _, rules, X, y, amount = fraud
    fig, axes = plt.subplots(1, 2, figsize=(9, 3))  # a short, narrow axes leaves little free space
    for disp in (RuleWaterfallDisplay.from_estimator(rules, X, y, fn_cost=amount, fp_cost=10.0, ax=axes[0]),
                 RuleWaterfallDisplay(_tall_first_rule_table()).plot(axes[1]),
                 RuleWaterfallDisplay(_tall_first_rule_table()).plot()):
        bars, _, _ = _waterfall_ends(_drawn(disp))
        legend = disp.ax_.get_legend()
        assert legend is disp.legend_
        box = legend.get_window_extent()
        hits = [i for i, b in enumerate(bars) if b.get_height() and box.overlaps(b.get_window_extent())]
        assert not hits, hits
        assert sorted(t.get_text() for t in legend.get_texts()) == ["alert cost", "money caught", "net money"]


def _net_money_of(decisions, y, amount, fp_cost):
    """Money saved against no alerts by 0/1 decisions, from cost_loss (independent of the display)."""
    from csboost_plugins.metrics import cost_loss
    kw = dict(fn_cost=amount, fp_cost=fp_cost)
    return cost_loss(y, np.zeros_like(y), **kw) - cost_loss(y, decisions, **kw)


def test_money_curve_ranks_rows_by_expected_net_money_of_an_alert(fraud):
    """With per-row costs and a probability, the curve flags rows in decreasing
    p (C_FN - C_TP) - (1 - p)(C_FP - C_TN) (brute force); at the BMR decisions' alert count it books at
    least their money, where ranking by probability books less on these rows."""
    gbm, _, X, y, amount = fraud
    p = gbm.predict_proba(X)[:, 1]
    disp = MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0)
    assert disp.ranked_by == "expected_money"
    e = p * amount - (1 - p) * 10.0
    rate, _, net = _flag_top(e, y, amount, 10.0)
    np.testing.assert_allclose(disp.alert_rate, rate, atol=1e-12)
    np.testing.assert_allclose(disp.net_money, net, rtol=1e-9, atol=1e-6)
    bmr = bayes_minimum_risk(p, fn_cost=amount, fp_cost=10.0)
    bmr_money = _net_money_of(bmr, y, amount, 10.0)
    k = bmr.mean()
    at_k = disp.net_money[np.isclose(disp.alert_rate, k, rtol=0, atol=1e-12)]
    assert len(at_k) == 1 and at_k[0] >= bmr_money - 1e-6
    by_score = MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0, rank_by="score",
                                                  ax=plt.figure().gca())
    assert by_score.ranked_by == "score"
    assert np.interp(k, by_score.alert_rate, by_score.net_money) < bmr_money - 500  # what the issue saw
    # equal costs on every row: both orders are the probability's, so "auto" keeps the score
    flat = MoneyCurveDisplay.from_predictions(y, p, fn_cost=50.0, fp_cost=10.0, ax=plt.figure().gca())
    assert flat.ranked_by == "score"
    with pytest.raises(ValueError, match="rank_by='expected_money' needs y_score to be the probability"):
        MoneyCurveDisplay.from_predictions(y, 3 * p, fn_cost=amount, fp_cost=10.0, rank_by="expected_money")
    with pytest.raises(ValueError, match="rank_by must be one of"):
        MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0, rank_by="money")


def test_money_curve_marks_the_bmr_decisions(fraud):
    """The marker sits at the alert rate (or FPR) and money of bayes_minimum_risk's decisions, under every
    y_axis; it is in the legend; a non-probability score gets none, unless decisions are given."""
    from csboost_plugins.metrics import savings_score
    gbm, _, X, y, amount = fraud
    p = gbm.predict_proba(X)[:, 1]
    bmr = bayes_minimum_risk(p, fn_cost=amount, fp_cost=10.0)
    disp = _drawn(MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0))
    assert disp.decision_x == pytest.approx(bmr.mean(), abs=1e-12)
    assert disp.decision_y == pytest.approx(_net_money_of(bmr, y, amount, 10.0), rel=1e-9)
    assert disp.decision_line_.get_xydata().tolist() == [[disp.decision_x, disp.decision_y]]
    assert _legend_covers_every_line(disp.ax_)[1] == f"BMR decisions (alert rate {100 * bmr.mean():.3g} %)"
    lo, hi = disp.ax_.get_ylim()
    assert lo <= disp.decision_y <= hi and disp.ax_.get_xlim()[1] >= disp.decision_x
    sav = MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0, x_axis="fpr", y_axis="savings",
                                             ax=plt.figure().gca())
    assert sav.decision_x == pytest.approx(bmr[y == 0].mean(), abs=1e-12)
    assert sav.decision_y == pytest.approx(savings_score(y, bmr, fn_cost=amount, fp_cost=10.0), abs=1e-12)
    # weights count in the marker as in the curve
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    wd = MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0, sample_weight=w,
                                            ax=plt.figure().gca())
    assert wd.decision_x == pytest.approx(w @ bmr / w.sum())
    assert wd.decision_y == pytest.approx(w @ (bmr * np.where(y == 1, amount, -10.0)))
    # a score outside [0, 1] is no probability: no BMR marker; given decisions are drawn; bad ones refused
    margin = np.log(p / (1 - p))
    assert MoneyCurveDisplay.from_predictions(y, margin, fn_cost=amount, fp_cost=10.0,
                                              ax=plt.figure().gca()).decision_line_ is None
    given = MoneyCurveDisplay.from_predictions(y, margin, fn_cost=amount, fp_cost=10.0, decisions=bmr == 1,
                                               ax=plt.figure().gca())
    assert given.decision_y == pytest.approx(disp.decision_y)
    assert MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0, decisions=False,
                                              ax=plt.figure().gca()).decision_line_ is None
    for bad, msg in ((bmr[:-1], "one 0/1 decision per row"), (2 * bmr, "0/1 decisions"), ("bmr", "decisions must be")):
        with pytest.raises(ValueError, match=msg):
            MoneyCurveDisplay.from_predictions(y, p, fn_cost=amount, fp_cost=10.0, decisions=bad)


def test_money_curve_from_estimator_marks_its_own_decisions(fraud):
    """A plain classifier: BMR on its probabilities. A cost-sensitive one: its predict with the rows' costs
    (here decision="bmr", so again bayes_minimum_risk's decisions); string labels with pos_label alike."""
    gbm, _, X, y, amount = fraud
    disp = MoneyCurveDisplay.from_estimator(gbm, X, y, fn_cost=amount, fp_cost=10.0)
    bmr = bayes_minimum_risk(gbm.predict_proba(X)[:, 1], fn_cost=amount, fp_cost=10.0)
    assert disp.decision_y == pytest.approx(_net_money_of(bmr, y, amount, 10.0), rel=1e-9)
    assert disp.decision_point["label"] == "BMR decisions"

    half = len(y) // 2
    cs = CSLGBMClassifier(n_estimators=15, decision="bmr", random_state=0).fit(
        X[:half], y[:half], fn_cost=amount[:half], fp_cost=10.0)
    Xt, yt, at = X[half:], y[half:], amount[half:]
    own = MoneyCurveDisplay.from_estimator(cs, Xt, yt, fn_cost=at, fp_cost=10.0, ax=plt.figure().gca())
    pred = cs.predict(Xt, fn_cost=at, fp_cost=10.0)
    np.testing.assert_array_equal(pred, bayes_minimum_risk(cs.predict_proba(Xt), fn_cost=at, fp_cost=10.0))
    assert own.decision_point["label"] == "CSLGBMClassifier.predict"
    assert own.decision_x == pytest.approx(pred.mean(), abs=1e-12)
    assert own.decision_y == pytest.approx(_net_money_of(pred, yt, at, 10.0), rel=1e-9)

    labels = np.where(y == 1, "fraud", "ok")
    text = lgb.LGBMClassifier(n_estimators=20, num_leaves=12, verbose=-1).fit(X, labels)
    named = MoneyCurveDisplay.from_estimator(text, X, labels, fn_cost=amount, fp_cost=10.0, pos_label="fraud",
                                             ax=plt.figure().gca())
    p_fraud = text.predict_proba(X)[:, list(text.classes_).index("fraud")]
    bmr_text = bayes_minimum_risk(p_fraud, fn_cost=amount, fp_cost=10.0)
    assert named.decision_y == pytest.approx(_net_money_of(bmr_text, y, amount, 10.0), rel=1e-9)
    with pytest.raises(TypeError, match="unexpected keyword"):
        MoneyCurveDisplay.from_estimator(gbm, X, y, fn_cost=amount, fp_cost=10.0, colour="k")
