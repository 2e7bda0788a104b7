"""pos_label= on the money metrics, scorers and plots: the label whose miss costs C_FN, as scikit-learn's.

Before it, labels other than 0/1 were mapped as ``np.unique`` sorts them, so with {"fraud", "ok"}
the class "ok" silently became the positive one. Every metric below is checked against the cost
formula written out by hand on the 0/1 labels ``y == pos_label`` (CSDT paper eq. 2, csboost
paper eq. 7/8, ECSDT eq. 3/5), on a hand example and on a bundled real data set.
"""

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from csboost_plugins.metrics import (
    cost_loss,
    expected_cost_loss,
    expected_row_costs,
    expected_savings_score,
    make_expected_savings_scorer,
    make_savings_scorer,
    normalized_cost,
    row_costs,
    savings_score,
)
from csdt import BayesMinimumRiskClassifier, CostSensitiveDecisionTreeClassifier
from csdt.datasets import load_creditscoring1

import _estimators

CV = KFold(3)


# ------------------------------------------------------------------ the formulas, written out
def cost_by_formula(y01, s, C):
    """Per-row Cost_i = y (s C_TP + (1-s) C_FN) + (1-y)(s C_FP + (1-s) C_TN); C columns [FP, FN, TP, TN]."""
    out = []
    for yi, si, (fp, fn, tp, tn) in zip(y01, s, C):
        out.append(yi * (si * tp + (1 - si) * fn) + (1 - yi) * (si * fp + (1 - si) * tn))
    return np.array(out)


def savings_by_formula(y01, s, C):
    cost_l = min(cost_by_formula(y01, np.zeros(len(y01)), C).sum(), cost_by_formula(y01, np.ones(len(y01)), C).sum())
    return (cost_l - cost_by_formula(y01, s, C).sum()) / abs(cost_l)


def normalized_by_formula(y01, d, C):
    worst = sum(fn if yi else fp for yi, (fp, fn, _, _) in zip(y01, C))  # every row misclassified
    return cost_by_formula(y01, d, C).sum() / abs(worst)


# ------------------------------------------------------------------ hand example
Y = np.array(["fraud", "ok", "ok", "fraud", "ok", "ok"])
PRED = np.array(["fraud", "fraud", "ok", "ok", "ok", "fraud"])
P_FRAUD = np.array([0.9, 0.6, 0.1, 0.3, 0.2, 0.7])
# per row [C_FP, C_FN, C_TP, C_TN]: alert cost 2, a missed fraud loses its amount, a caught one costs the alert
AMOUNT = np.array([50.0, 20.0, 5.0, 80.0, 30.0, 10.0])
C = np.column_stack([np.full(6, 2.0), AMOUNT, np.full(6, 2.0), np.zeros(6)])
KW = dict(fp_cost=2.0, fn_cost=AMOUNT, tp_cost=2.0)


def test_hand_example_with_the_formula_written_out():
    y01 = np.array([1, 0, 0, 1, 0, 0])  # fraud = 1
    d = np.array([1, 1, 0, 0, 0, 1])
    # rows: TP 2, FP 2, TN 0, FN 80, TN 0, FP 2 -> 86
    assert cost_loss(Y, PRED, pos_label="fraud", **KW) == 86.0
    assert cost_by_formula(y01, d, C).sum() == 86.0
    # all 0: 50 + 80 = 130; all 1: 6 * 2 = 12 -> Cost_l = 12, savings (12 - 86) / 12
    assert savings_score(Y, PRED, pos_label="fraud", **KW) == pytest.approx((12 - 86) / 12)
    # worst: every row misclassified = 50 + 2 + 2 + 80 + 2 + 2 = 138
    assert normalized_cost(Y, PRED, pos_label="fraud", **KW) == pytest.approx(86 / 138)
    np.testing.assert_allclose(row_costs(Y, PRED, pos_label="fraud", **KW), [2, 2, 0, 80, 0, 2])
    # expected: fraud rows s C_TP + (1-s) C_FN, ok rows s C_FP
    want = [0.9 * 2 + 0.1 * 50, 0.6 * 2, 0.1 * 2, 0.3 * 2 + 0.7 * 80, 0.2 * 2, 0.7 * 2]
    np.testing.assert_allclose(expected_row_costs(Y, P_FRAUD, pos_label="fraud", **KW), want)
    assert expected_cost_loss(Y, P_FRAUD, pos_label="fraud", **KW) == pytest.approx(sum(want))
    assert expected_cost_loss(Y, P_FRAUD, pos_label="fraud", normalize=True, **KW) == pytest.approx(sum(want) / 6)
    assert expected_savings_score(Y, P_FRAUD, pos_label="fraud", **KW) == pytest.approx((12 - sum(want)) / 12)
    # predict_proba's two columns follow the sorted labels ("fraud", "ok"): column 0 is P(fraud)
    two = np.column_stack([P_FRAUD, 1 - P_FRAUD])
    assert expected_savings_score(Y, two, pos_label="fraud", **KW) == pytest.approx((12 - sum(want)) / 12)
    # y_pred as 0/1 decisions (1 = decide fraud) is the same money as the labels
    assert cost_loss(Y, d, pos_label="fraud", **KW) == 86.0


def test_swapping_the_positive_label_changes_the_answer_as_the_formula_says():
    y_ok, d_ok = (Y == "ok").astype(int), (PRED == "ok").astype(int)
    got = cost_loss(Y, PRED, pos_label="ok", **KW)
    assert got == pytest.approx(cost_by_formula(y_ok, d_ok, C).sum())
    assert got != cost_loss(Y, PRED, pos_label="fraud", **KW)  # 86 with fraud positive
    # "ok" positive costs what "fraud" positive costs with the roles of the cost columns swapped
    # (C_FP <-> C_FN, C_TP <-> C_TN) and the probabilities flipped: Cost_i is symmetric in that swap
    swapped = dict(fp_cost=AMOUNT, fn_cost=2.0, tn_cost=2.0)
    assert got == pytest.approx(cost_loss(Y, PRED, pos_label="fraud", **swapped))
    assert savings_score(Y, PRED, pos_label="ok", **KW) == pytest.approx(savings_by_formula(y_ok, d_ok, C))
    assert expected_savings_score(Y, 1 - P_FRAUD, pos_label="ok", **KW) == pytest.approx(
        expected_savings_score(Y, P_FRAUD, pos_label="fraud", **swapped))
    assert normalized_cost(Y, PRED, pos_label="ok", **KW) == pytest.approx(normalized_by_formula(y_ok, d_ok, C))


def test_zero_one_and_boolean_labels_work_as_before():
    y01 = (Y == "fraud").astype(int)
    d = (PRED == "fraud").astype(int)
    for y in (y01, y01.astype(bool), y01.astype(float)):
        assert cost_loss(y, d, **KW) == 86.0
        assert cost_loss(y, d, pos_label=1, **KW) == 86.0
    assert cost_loss(y01.astype(bool), d.astype(bool), pos_label=True, **KW) == 86.0
    # pos_label=0 on 0/1 labels: 0 is the positive class, as precision_score(pos_label=0)
    assert cost_loss(y01, d, pos_label=0, **KW) == pytest.approx(cost_by_formula(1 - y01, 1 - d, C).sum())
    # {-1, 1}: 1 is positive by default, as before
    assert cost_loss(np.where(y01 == 1, 1, -1), np.where(d == 1, 1, -1), **KW) == 86.0


# ------------------------------------------------------------------ errors name pos_label
def test_string_labels_without_pos_label_are_refused_naming_it():
    for call in (lambda: cost_loss(Y, PRED, **KW), lambda: savings_score(Y, PRED, **KW),
                 lambda: expected_savings_score(Y, P_FRAUD, **KW), lambda: normalized_cost(Y, PRED, **KW),
                 lambda: expected_cost_loss(Y, P_FRAUD, **KW), lambda: row_costs(Y, PRED, **KW),
                 lambda: expected_row_costs(Y, P_FRAUD, **KW)):
        with pytest.raises(ValueError, match=r"holds the labels "
                                             r"\['fraud', 'ok'\]"):
            call()
    with pytest.raises(ValueError, match=r"pos_label=fraud  is not a valid label.*\['fraud', 'ok'\]"):
        savings_score(Y, PRED, pos_label="fraud ", **KW)
    with pytest.raises(ValueError, match=r"pos_label=2 is not a valid label.*\[0, 1\]"):
        cost_loss([0, 1, 1], [0, 1, 0], fp_cost=1.0, fn_cost=1.0, pos_label=2)
    # a fold holding one text label is not silently a negative under the default pos_label=None
    with pytest.raises(ValueError, match=r"holds the labels .*\['ok'\]"):
        expected_cost_loss(["ok", "ok"], [0.2, 0.1], fp_cost=1.0, fn_cost=5.0)
    # ... but with pos_label named it is: all negatives, the column of "fraud" is 0 in sorted order
    assert expected_cost_loss(["ok", "ok"], [[0.2, 0.8], [0.1, 0.9]], fp_cost=1.0, fn_cost=5.0,
                              pos_label="fraud") == pytest.approx(0.3)


def test_more_than_two_labels_and_bad_pos_label_types_are_refused():
    with pytest.raises(ValueError, match="y_true must be binary; found 3 classes"):
        cost_loss(["a", "b", "c"], [1, 0, 1], fp_cost=1.0, fn_cost=1.0, pos_label="a")
    with pytest.raises(ValueError, match="more than two labels"):  # y_true one label, y_pred two others
        cost_loss(["a", "a", "a"], ["b", "c", "a"], fp_cost=1.0, fn_cost=1.0, pos_label="a")
    with pytest.raises(ValueError, match="neither y_true's classes"):
        cost_loss(Y, np.where(PRED == "ok", "legit", "fraud"), pos_label="fraud", **KW)
    # a lone 0 is not silently the negative of a text pos_label: the labels are numbers, pos_label is not
    with pytest.raises(ValueError, match=r"pos_label=fraud is not a valid label.*\[0\]"):
        cost_loss([0, 0], [0, 1], fp_cost=1.0, fn_cost=1.0, pos_label="fraud")
    # text in an object column is a label, never parsed as a 0/1 decision
    with pytest.raises(ValueError, match="neither y_true's classes"):
        cost_loss(Y, np.array(["1", "0", "1", "0", "1", "0"], dtype=object), pos_label="fraud", **KW)
    for bad in (["fraud"], float("nan")):
        with pytest.raises(TypeError, match="pos_label must be one label"):
            cost_loss(Y, PRED, pos_label=bad, **KW)
    # None (the default) reads 1 of {0, 1} / {-1, 1} and asks for any other labels, {1, 2} included
    with pytest.raises(ValueError, match=r"holds the labels \[1, 2\]: pass pos_label="):
        cost_loss([1, 2, 2], [1, 2, 1], fp_cost=1.0, fn_cost=5.0, pos_label=None)
    assert cost_loss([1, 2, 2], [1, 2, 1], fp_cost=1.0, fn_cost=5.0, pos_label=2) == 5.0  # TN, TP, FN


# ------------------------------------------------------------------ a bundled real data set
@pytest.fixture(scope="module")
def credit():
    b = load_creditscoring1()
    idx = np.random.default_rng(1).permutation(len(b.target))[:6000]
    X, y = b.data.to_numpy()[idx], b.target[idx]
    return X, y, b.cost_matrix[idx]


def test_real_data_metrics_with_string_labels_equal_the_formula_on_0_1(credit):
    X, y, c = credit
    # "default" sorts before "repaid": the old mapping made "repaid" the positive class
    lab = np.where(y == 1, "default", "repaid")
    lr = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, lab)
    assert list(lr.classes_) == ["default", "repaid"]
    proba, pred = lr.predict_proba(X), lr.predict(X)
    p_def, d = proba[:, 0], (pred == "default").astype(int)
    kw = dict(cost_matrix=c, pos_label="default")
    assert cost_loss(lab, pred, **kw) == pytest.approx(cost_by_formula(y, d, c).sum(), rel=1e-12)
    assert savings_score(lab, pred, **kw) == pytest.approx(savings_by_formula(y, d, c), rel=1e-12)
    assert normalized_cost(lab, pred, **kw) == pytest.approx(normalized_by_formula(y, d, c), rel=1e-12)
    want = savings_by_formula(y, p_def, c)
    assert expected_savings_score(lab, p_def, **kw) == pytest.approx(want, rel=1e-12)
    assert expected_savings_score(lab, proba, **kw) == pytest.approx(want, rel=1e-12)  # the "default" column
    assert expected_cost_loss(lab, proba, **kw) == pytest.approx(cost_by_formula(y, p_def, c).sum(), rel=1e-12)
    # the old silent answer ("repaid" positive, P(repaid)) is a different number
    assert abs(expected_savings_score(1 - y, proba[:, 1], cost_matrix=c) - want) > 0.05
    with pytest.raises(ValueError, match=r"holds the labels .*\['default', 'repaid'\]"):
        savings_score(lab, pred, cost_matrix=c)


# ------------------------------------------------------------------ scorers in cross_val_score
@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _by_hand(make, X, y01, lab, c, pos, *, proba, fit_costs=False, predict_costs=False):
    out = []
    for tr, te in CV.split(X):
        m = make().fit(X[tr], lab[tr], **(dict(cost_matrix=c[tr]) if fit_costs else {}))
        if proba:
            s = m.predict_proba(X[te])[:, list(m.classes_).index(pos)]
        else:
            s = (m.predict(X[te], **(dict(cost_matrix=c[te]) if predict_costs else {})) == pos).astype(int)
        out.append(savings_by_formula(y01[te], s, c[te]))
    return np.array(out)


def test_expected_savings_scorer_reads_the_pos_label_column_of_string_classes(credit, routing):
    X, y, c = credit
    lab = np.where(y == 1, "default", "repaid")

    def make():
        return make_pipeline(StandardScaler(), LogisticRegression())

    got = cross_val_score(make(), X, lab, cv=CV, scoring=make_expected_savings_scorer(pos_label="default"),
                          params={"cost_matrix": c})
    want = _by_hand(make, X, y, lab, c, "default", proba=True)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # teeth: column 1 (P(repaid)) read as P(default) is far off
    blind = [savings_by_formula(y[te], make().fit(X[tr], lab[tr]).predict_proba(X[te])[:, 1], c[te])
             for tr, te in CV.split(X)]
    assert np.all(np.abs(np.array(blind) - want) > 0.02), (blind, want)
    with pytest.raises(ValueError, match=r"holds the labels .*: pass pos_label="):
        cross_val_score(make(), X, lab, cv=CV, scoring=make_expected_savings_scorer(), params={"cost_matrix": c},
                        error_score="raise")
    with pytest.raises(ValueError, match=r"pos_label=fraud is not a valid label"):
        cross_val_score(make(), X, lab, cv=CV, scoring=make_expected_savings_scorer(pos_label="fraud"),
                        params={"cost_matrix": c}, error_score="raise")


def test_scorers_on_csdt_estimators_with_string_classes(credit, routing):
    X, y, c = credit
    # csdt estimators fit the later-sorting label as the positive class: "default" after "current"
    lab = np.where(y == 1, "default", "current")

    def tree():  # the costs charge C_FN on "default": pos_label names it (refused without, as strings)
        return CostSensitiveDecisionTreeClassifier(max_depth=4, pos_label="default").set_fit_request(cost_matrix=True)

    for pos, y01 in (("default", y), ("current", 1 - y)):  # column 1 and column 0 of classes_
        got = cross_val_score(tree(), X, lab, cv=CV, scoring=make_expected_savings_scorer(pos_label=pos),
                              params={"cost_matrix": c})
        np.testing.assert_allclose(got, _by_hand(tree, X, y01, lab, c, pos, proba=True, fit_costs=True),
                                   rtol=1e-12)
    # predict's labels, decided with each fold's costs (BayesMinimumRiskClassifier requests them)
    def bmr():
        return BayesMinimumRiskClassifier(pos_label="default").set_fit_request(cost_matrix=False)

    got = cross_val_score(bmr(), X, lab, cv=CV,
                          scoring=make_savings_scorer(pos_label="default"), params={"cost_matrix": c})
    want = _by_hand(bmr, X, y, lab, c, "default", proba=False, predict_costs=True)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match=r"holds the labels .*\['current', 'default'\]"):
        cross_val_score(bmr(), X, lab, cv=CV, scoring=make_savings_scorer(),
                        params={"cost_matrix": c}, error_score="raise")


class CostAwareProbaLR(LogisticRegression):
    """A classifier whose predict_proba takes the rows' costs (as a cost-aware calibrator would): the scorer
    calls it itself with the fold's costs, outside scikit-learn's column picking."""

    def predict_proba(self, X, cost_matrix=None):
        if cost_matrix is not None and len(cost_matrix) != len(X):
            raise ValueError("one cost row per row")
        return super().predict_proba(X)


def test_scorer_picks_the_pos_label_column_when_it_calls_predict_proba_with_costs(credit, routing):
    X, y, c = credit
    X = StandardScaler().fit_transform(X)
    lab = np.where(y == 1, "default", "repaid")

    def make():
        return CostAwareProbaLR().set_predict_proba_request(cost_matrix=True)

    scorer = make_expected_savings_scorer(pos_label="default")
    got = cross_val_score(make(), X, lab, cv=CV, scoring=scorer, params={"cost_matrix": c})
    np.testing.assert_allclose(got, _by_hand(make, X, y, lab, c, "default", proba=True), rtol=1e-12)
    m = make().fit(X, lab)
    with pytest.raises(ValueError, match=r"holds the labels "
                                         r"\['default', 'repaid'\]"):
        make_expected_savings_scorer()(m, X, lab, cost_matrix=c)


def test_scorer_factories_keep_make_scorers_form(routing):
    from sklearn.metrics import make_scorer
    assert repr(make_savings_scorer(pos_label="fraud")) == repr(make_scorer(savings_score, pos_label="fraud"))
    assert repr(make_savings_scorer()) == repr(make_scorer(savings_score))
    assert repr(make_savings_scorer(pos_label=1)) == repr(make_scorer(savings_score, pos_label=1))
    with pytest.raises(TypeError, match="pos_label must be one label"):
        make_expected_savings_scorer(pos_label=["fraud"])


# ------------------------------------------------------------------ plots
@pytest.fixture(scope="module")
def plot_data(credit):
    pytest.importorskip("matplotlib", reason="pip install matplotlib (plot extra)")
    import matplotlib
    matplotlib.use("Agg")
    X, y, c = credit
    X = StandardScaler().fit_transform(X)
    lab = np.where(y == 1, "default", "repaid")
    return X, y, c, lab


def _close():
    import matplotlib.pyplot as plt
    plt.close("all")


def test_money_curve_and_threshold_plots_read_pos_label(plot_data):
    from csboost_plugins.plot import MoneyCurveDisplay, ThresholdScalingDisplay
    X, y, c, lab = plot_data
    lr = LogisticRegression().fit(X, lab)
    p_def = lr.predict_proba(X)[:, 0]
    try:
        got = MoneyCurveDisplay.from_estimator(lr, X, lab, cost_matrix=c, pos_label="default")
        want = MoneyCurveDisplay.from_predictions(y, p_def, cost_matrix=c)
        np.testing.assert_allclose(got.net_money, want.net_money, rtol=1e-12)
        np.testing.assert_allclose(got.alert_rate, want.alert_rate, rtol=1e-12)
        # the last point flags every row: its net money is Cost(all 0) - Cost(all 1), by the formula
        all0 = cost_by_formula(y, np.zeros(len(y)), c).sum()
        assert got.net_money[-1] == pytest.approx(all0 - cost_by_formula(y, np.ones(len(y)), c).sum())
        # a decision function ranks for classes_[1]: pos_label = classes_[0] flips its sign
        svc = LinearSVC().fit(X, lab)
        got = MoneyCurveDisplay.from_estimator(svc, X, lab, cost_matrix=c, pos_label="default")
        want = MoneyCurveDisplay.from_predictions(y, -svc.decision_function(X), cost_matrix=c)
        np.testing.assert_allclose(got.net_money, want.net_money, rtol=1e-12)
        got = ThresholdScalingDisplay.from_estimator(lr, X, lab, cost_matrix=c, pos_label="default")
        want = ThresholdScalingDisplay.from_predictions(y, p_def, cost_matrix=c)
        np.testing.assert_allclose(got.savings, want.savings, rtol=1e-12)
        k1 = int(np.argmin(np.abs(got.scale - 1.0)))  # k = 1: Bayes minimum risk decisions
        d = (p_def > c[:, 0] / (c[:, 0] + c[:, 1])).astype(int)  # t* = C_FP / (C_FP + C_FN) here
        assert got.savings[k1] == pytest.approx(savings_by_formula(y, d, c), rel=1e-9)
        with pytest.raises(ValueError, match=r"holds the labels .*: pass pos_label="):
            ThresholdScalingDisplay.from_estimator(lr, X, lab, cost_matrix=c)
        with pytest.raises(ValueError, match=r"holds the labels .*\['default', 'repaid'\]"):
            MoneyCurveDisplay.from_predictions(lab, p_def, cost_matrix=c)
    finally:
        _close()


def test_rule_waterfall_reads_pos_label():
    pytest.importorskip("matplotlib", reason="pip install matplotlib (plot extra)")
    import lightgbm as lgb

    from csboost_plugins.plot import RuleWaterfallDisplay
    from csboost_plugins.rules import extract_rules, riff_select
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(6000, fraud_rate=0.03, random_state=2)
    X, y, amount = d.data, d.target, np.asarray(d.fn_cost, float)
    gbm = lgb.LGBMClassifier(n_estimators=20, num_leaves=12, verbose=-1).fit(X[:3000], y[:3000])
    rules = riff_select(extract_rules(gbm), X[:3000], y[:3000], max_fpr=0.01, fp_cost=0.0, fn_cost=amount[:3000])
    Xte, yte, ate = X[3000:].reset_index(drop=True), y[3000:], amount[3000:]
    lab = np.where(yte == 1, "fraud", "ok")
    try:
        got = RuleWaterfallDisplay.from_estimator(rules, Xte, lab, fn_cost=ate, fp_cost=10.0, pos_label="fraud")
        want = RuleWaterfallDisplay.from_estimator(rules, Xte, yte, fn_cost=ate, fp_cost=10.0)
        assert len(got.table) == len(rules) > 0
        np.testing.assert_allclose(got.table["set_net_money"], want.table["set_net_money"], rtol=1e-12)
        s = rules.evaluate(Xte, yte, fn_cost=ate, fp_cost=10.0)
        assert got.table["set_net_money"].iloc[-1] == pytest.approx(s["net_money"], rel=1e-12) and s["net_money"] > 0
        # the strings name no positive class: evaluate asks for pos_label rather than take "ok" (sorted last)
        with pytest.raises(ValueError, match="pos_label='fraud'"):
            rules.evaluate(Xte, lab, fn_cost=ate, fp_cost=10.0)
        assert rules.evaluate(Xte, lab, fn_cost=ate, fp_cost=10.0, pos_label="fraud") == s
        with pytest.raises(ValueError, match=r"holds the labels .*\['fraud', 'ok'\]"):
            RuleWaterfallDisplay.from_estimator(rules, Xte, lab, fn_cost=ate, fp_cost=10.0)
    finally:
        _close()


# ------------------------------------------------------------------ every cost-sensitive estimator
ESTIMATORS = _estimators.params()  # every public estimator; CatBoost skipped without the extra


@pytest.fixture(scope="module")
def card():
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(3000, fraud_rate=0.05, random_state=3)
    return d.data.to_numpy(), np.asarray(d.target), np.asarray(d.fn_cost, dtype=np.float64)


def _predict(model, X, costs):
    """predict, with the rows' costs where predict takes them (Bayes minimum risk decisions)."""
    import inspect

    return model.predict(X, **costs) if "fp_cost" in inspect.signature(model.predict).parameters \
        else model.predict(X)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_estimators_refuse_string_labels_without_pos_label_and_equal_0_1_with_it(card, name, make):
    X, y, amount = card
    costs = dict(fp_cost=10.0, fn_cost=amount)
    lab = np.where(y == 1, "fraud", "ok")  # the positive class sorts first: classes_[1] would be "ok"
    with pytest.raises(ValueError, match=r"y has labels \['fraud', 'ok'\]; pass pos_label='fraud'"):
        make().fit(X, lab, **costs)
    got = make().set_params(pos_label="fraud").fit(X, lab, **costs)
    ref = make().fit(X, y, **costs)
    assert got.classes_.tolist() == ["ok", "fraud"] and ref.classes_.tolist() == [0, 1]
    # the same model: column 1 is P(fraud), predict gives the user's labels, the money is the 0/1 fit's
    np.testing.assert_array_equal(got.predict_proba(X), ref.predict_proba(X))
    pred, pred01 = _predict(got, X, costs), _predict(ref, X, costs)
    np.testing.assert_array_equal(pred, np.where(pred01 == 1, "fraud", "ok"))
    assert 0 < (pred == "fraud").sum() < len(y)
    money = savings_score(lab, pred, pos_label="fraud", **costs)
    assert money == savings_score(y, pred01, **costs)
    assert money == pytest.approx(savings_by_formula(y, (pred == "fraud").astype(int),
                                                     np.column_stack([np.full(len(y), 10.0), amount,
                                                                      np.zeros(len(y)), np.zeros(len(y))])))
    # pos_label names a label of y
    with pytest.raises(ValueError, match=r"pos_label='fraud ' is not a label of y"):
        make().set_params(pos_label="fraud ").fit(X, lab, **costs)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_zero_one_and_boolean_labels_need_no_pos_label(card, name, make):
    X, y, amount = card
    costs = dict(fp_cost=10.0, fn_cost=amount)
    a = make().fit(X, y.astype(bool), **costs)
    b = make().set_params(pos_label=1).fit(X, y, **costs)
    assert a.classes_.tolist() == [False, True] and b.classes_.tolist() == [0, 1]
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("sample", ["cost_proportionate_rejection_sampling", "cost_proportionate_over_sampling"])
def test_cost_proportionate_sampling_reads_pos_label(card, sample):
    import csdt.sampling

    X, y, amount = card
    draw = getattr(csdt.sampling, sample)
    lab = np.where(y == 1, "fraud", "ok")
    with pytest.raises(ValueError, match=r"y has labels \['fraud', 'ok'\]; pass pos_label='fraud'"):
        draw(X, lab, fp_cost=10.0, fn_cost=amount, random_state=0)
    Xs, ys, cs = draw(X, lab, fp_cost=10.0, fn_cost=amount, random_state=0, pos_label="fraud")
    X0, y0, c0 = draw(X, y, fp_cost=10.0, fn_cost=amount, random_state=0)
    np.testing.assert_array_equal(Xs, X0)
    np.testing.assert_array_equal(ys, np.where(y0 == 1, "fraud", "ok"))
    np.testing.assert_array_equal(cs, c0)
    # the frauds (cost = amount) are kept far more often than the alerts' 10: the positive class is "fraud"
    assert (ys == "fraud").mean() > 2 * (lab == "fraud").mean()


@pytest.mark.filterwarnings("ignore")
def test_predict_with_costs_needs_the_positive_class_fit_did_not_name(card):
    # without costs a fit is symmetric in the labels (unit costs), so string labels fit as scikit-learn's
    # (classes_ sorted); deciding with the rows' money then needs the positive class: named, not guessed
    from csboost_plugins.xgb import CSXGBClassifier

    X, y, amount = card
    lab = np.where(y == 1, "fraud", "ok")
    for model in (CSXGBClassifier(n_estimators=5, n_jobs=1, random_state=0, decision="bmr").fit(X, lab),
                  BayesMinimumRiskClassifier().fit(X, lab)):
        assert model.classes_.tolist() == ["fraud", "ok"]
        with pytest.raises(ValueError, match=r"the training y has labels \['fraud', 'ok'\]; pass pos_label="):
            model.predict(X, fp_cost=10.0, fn_cost=amount)
        assert set(model.predict(X)) <= {"fraud", "ok"}  # s > 1/2 needs no positive class


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", _estimators.params(kind="boosting"))
def test_saved_model_keeps_pos_label_and_classes(card, tmp_path, name, make):
    X, y, amount = card
    lab = np.where(y == 1, "fraud", "ok")
    m = make().set_params(pos_label="fraud").fit(X, lab, fp_cost=10.0, fn_cost=amount)
    path = tmp_path / ("m.json" if name != "CSLGBMClassifier" else "m.txt")
    m.save_model(path)
    back = type(m).load_model(path)
    assert back.classes_.tolist() == ["ok", "fraud"] and back.pos_label == "fraud"
    np.testing.assert_allclose(back.predict_proba(X), m.predict_proba(X), rtol=1e-6)
    np.testing.assert_array_equal(back.predict(X, fp_cost=10.0, fn_cost=amount),
                                  m.predict(X, fp_cost=10.0, fn_cost=amount))


@pytest.mark.filterwarnings("ignore")
def test_card_file_string_labels_book_the_money_of_0_1_labels():
    """The card file, time-ordered 60/20 (train / test; the middle fifth unused here): "fraud" / "ok"
    labels are refused without pos_label, and with pos_label="fraud" CSXGBClassifier and RIFFClassifier
    make the decisions, hence book the money, of the 0/1 labels (before: "ok" was the positive class)."""
    import pandas as pd

    from _data import creditcard_path
    from csboost_plugins.rules import RIFFClassifier
    from csboost_plugins.xgb import CSXGBClassifier

    df = pd.read_csv(creditcard_path()).sort_values("Time", kind="stable")
    X, y, amount = df.drop(columns=["Time", "Class"]), df["Class"].to_numpy(), df["Amount"].to_numpy()
    n = len(y)
    tr, te = slice(0, int(0.6 * n)), slice(int(0.8 * n), n)
    lab = np.where(y == 1, "fraud", "ok")
    costs = dict(fp_cost=5.0, fn_cost=amount[tr])
    for make in (lambda **kw: CSXGBClassifier(n_estimators=50, n_jobs=1, random_state=0, **kw),
                 lambda **kw: RIFFClassifier(random_state=0, **kw)):
        with pytest.raises(ValueError, match=r"pass pos_label='fraud'"):
            make().fit(X[tr], lab[tr], **costs)
        got = make(pos_label="fraud").fit(X[tr], lab[tr], **costs)
        ref = make().fit(X[tr], y[tr], **costs)
        kw = dict(fp_cost=5.0, fn_cost=amount[te])
        pred = _predict(got, X[te], kw)
        pred01 = _predict(ref, X[te], kw)
        np.testing.assert_array_equal(pred, np.where(pred01 == 1, "fraud", "ok"))
        money = savings_score(lab[te], pred, pos_label="fraud", **kw)
        assert money == savings_score(y[te], pred01, **kw) > 0.3, money
