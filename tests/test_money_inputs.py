"""Money on real inputs: savings, cost inputs and plots on the inputs a bank's data scientist really passes."""

import numpy as np
import pytest

from csboost_plugins import decision_costs as dc
from csboost_plugins.metrics import expected_savings_score, normalized_cost, savings_score


# ---------------------------------------------------------------------------------------------------------
# Savings keep "higher is better" when the cheaper trivial policy earns money (negative Cost_l)
# ---------------------------------------------------------------------------------------------------------
@pytest.fixture
def retention():
    """A retention campaign: a kept churner is a benefit (C_TP = -50), a wasted offer costs 5 (sound matrix)."""
    y = np.array([1, 1, 1, 0, 0])
    cm = np.tile([5.0, 0.0, -50.0, 0.0], (5, 1))  # [C_FP, C_FN, C_TP, C_TN]
    return y, cm


def _brute_total(y, d, cm):
    return sum(cm[i][2] if (y[i], d[i]) == (1, 1) else cm[i][1] if y[i] == 1 else cm[i][0] if d[i] else cm[i][3]
               for i in range(len(y)))


def test_savings_rank_decisions_by_money_when_the_trivial_policy_earns(retention):
    y, cm = retention
    perfect, everyone, worse = y, np.ones(5, int), np.array([1, 1, 0, 1, 1])
    totals = [_brute_total(y, d, cm) for d in (perfect, everyone, worse)]
    assert totals == [-150.0, -140.0, -90.0]  # Cost_l = -140 (offer everyone): perfect earns 10 more
    scores = [savings_score(y, d, cost_matrix=cm) for d in (perfect, everyone, worse)]
    assert scores[0] > 0 and scores[1] == 0 and scores[2] < 0, scores
    assert scores[0] == pytest.approx(10 / 140) and scores[2] == pytest.approx(-50 / 140)
    assert dc.savings_from_costs(-150.0, -140.0) == pytest.approx(10 / 140)
    # expected savings too: sharper correct probabilities save more
    assert expected_savings_score(y, y * 0.9 + 0.05, cost_matrix=cm) > expected_savings_score(y, np.full(5, .5),
                                                                                               cost_matrix=cm)


def test_normalized_cost_keeps_lower_is_better_with_benefits(retention):
    y, cm = retention
    cm = cm.copy()
    cm[:, 1] = -60.0  # a missed churner pays more back than a kept one: misclassifying everyone earns (-170)
    dearer, cheaper = y, 1 - y
    assert _brute_total(y, dearer, cm) == -150.0 and _brute_total(y, cheaper, cm) == -170.0
    with pytest.warns(UserWarning, match="C_FN < C_TP on every row"):
        ranked = [normalized_cost(y, d, cost_matrix=cm) for d in (dearer, cheaper)]
    assert ranked == pytest.approx([-150 / 170, -1.0])  # Cost / |cost of misclassifying every row|


def test_plotted_savings_are_savings_score_with_benefits(retention):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from csboost_plugins.plot import MoneyCurveDisplay, ThresholdScalingDisplay
    y, cm = retention
    p = np.array([0.9, 0.8, 0.3, 0.6, 0.1])
    disp = MoneyCurveDisplay.from_predictions(y, p, cost_matrix=cm, y_axis="savings")
    order = np.argsort(-p)
    for k in range(len(y) + 1):  # flag the k top-scored rows (scores are distinct)
        d = np.zeros(5, int)
        d[order[:k]] = 1
        assert disp.savings[k] == pytest.approx(savings_score(y, d, cost_matrix=cm))
    assert np.argmax(disp.savings) == 4 and disp.savings[4] == pytest.approx(5 / 140)  # the 3 churners + 1 wasted offer
    ts = ThresholdScalingDisplay.from_predictions(y, p, cost_matrix=cm, threshold="constant", scale=[0.2, 0.5])
    assert ts.savings == pytest.approx([savings_score(y, (p > t).astype(int), cost_matrix=cm) for t in (0.2, 0.5)])
    plt.close("all")


# ---------------------------------------------------------------------------------------------------------
# pandas inputs: rows are matched by position, so pandas objects whose indexes disagree are refused
# ---------------------------------------------------------------------------------------------------------
@pytest.fixture
def frame():
    import pandas as pd
    idx = [105, 101, 109, 102, 107, 103]
    return pd.DataFrame({"y": [1, 0, 1, 0, 0, 1], "amount": [100.0, 5, 300, 2, 40, 70],
                         "d": [1, 0, 0, 1, 0, 1], "p": [.9, .2, .3, .7, .1, .8]}, index=idx)


def test_costs_with_the_rows_index_are_used_row_by_row(frame):
    from csboost_plugins.metrics import cost_loss, row_costs
    f = frame
    hand = [10.0, 0.0, 300.0, 10.0, 0.0, 10.0]  # TP, TN, FN, FP, TN, TP at C_FP = C_TP = 10, C_FN = amount
    np.testing.assert_array_equal(row_costs(f["y"], f["d"], fp_cost=10.0, fn_cost=f["amount"], tp_cost=10.0), hand)
    assert cost_loss(f["y"], f["d"], fp_cost=10.0, fn_cost=f["amount"], tp_cost=10.0) == sum(hand)
    sub = f.iloc[[4, 0, 2]]  # a shuffled subset keeps working when every argument comes from it
    assert cost_loss(sub["y"], sub["d"], fp_cost=10.0, fn_cost=sub["amount"], tp_cost=10.0) == 0 + 10 + 300


@pytest.mark.parametrize("bad", ["fn_cost", "y_pred", "sample_weight", "cost_matrix"])
def test_a_misaligned_pandas_argument_is_refused_not_matched_by_position(frame, bad):
    from csboost_plugins.metrics import cost_loss
    f = frame
    other = f.sort_index()  # same rows, another order: by position every row would get another row's money
    kw = dict(y_true=f["y"], y_pred=f["d"], fp_cost=10.0, fn_cost=f["amount"], tp_cost=10.0,
              sample_weight=f["amount"] * 0 + 1)
    if bad == "cost_matrix":
        from csboost_plugins.costs import fraud_cost_matrix
        import pandas as pd
        kw.update(fp_cost=None, fn_cost=None, tp_cost=0.0,
                  cost_matrix=pd.DataFrame(fraud_cost_matrix(other["amount"].to_numpy()), index=other.index))
    elif bad == "fn_cost":
        kw["fn_cost"] = other["amount"]
    elif bad == "y_pred":
        kw["y_pred"] = other["d"]
    else:
        kw["sample_weight"] = other["amount"] * 0 + 1
    with pytest.raises(ValueError, match=rf"{bad}.*index.*to_numpy\(\)"):
        cost_loss(**kw)
    # .to_numpy() says "by position" explicitly and is accepted
    kw[bad] = kw[bad].to_numpy()
    assert np.isfinite(cost_loss(**kw))


def test_misaligned_costs_are_refused_everywhere_money_is_read(frame):
    import pandas as pd
    from csboost_plugins.costs import check_costs
    from csboost_plugins.metrics import bayes_minimum_risk, expected_savings_score
    from csboost_plugins.plot import MoneyCurveDisplay
    f, amount = frame, frame["amount"].sort_index()
    with pytest.raises(ValueError, match="fn_cost.*index"):
        check_costs(fp_cost=f["amount"] * 0 + 10, fn_cost=amount)
    with pytest.raises(ValueError, match="fn_cost.*index"):
        check_costs(6, fp_cost=10.0, fn_cost=amount, index=f.index)
    with pytest.raises(ValueError, match="fn_cost.*index"):
        expected_savings_score(f["y"], f["p"], fp_cost=10.0, fn_cost=amount)
    with pytest.raises(ValueError, match="fn_cost.*index"):
        bayes_minimum_risk(f["p"], fp_cost=10.0, fn_cost=amount)
    with pytest.raises(ValueError, match="fn_cost.*index"):
        MoneyCurveDisplay.from_predictions(f["y"], f["p"], fp_cost=10.0, fn_cost=amount, ax=_Ax())
    # a RangeIndex Series against numpy labels: nothing to compare, used by position
    assert check_costs(fp_cost=10.0, fn_cost=pd.Series([1.0, 2.0]))[:, 1].tolist() == [1.0, 2.0]


class _Ax:
    """Never reached: the costs are refused before anything is drawn."""


# ---------------------------------------------------------------------------------------------------------
# A DataFrame cost matrix is read by its column names when it has them
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("names", [["C_FP", "C_FN", "C_TP", "C_TN"], ["fp_cost", "fn_cost", "tp_cost", "tn_cost"],
                                   ["FP", "FN", "TP", "TN"]])
def test_named_cost_matrix_columns_are_read_by_name_in_any_order(names):
    import pandas as pd
    from csboost_plugins.costs import check_costs
    from csboost_plugins.metrics import cost_loss
    cm = np.array([[10.0, 100.0, 10.0, 0.0], [10.0, 5.0, 10.0, 0.0], [3.0, 300.0, 1.0, 0.5]])
    df = pd.DataFrame(cm, columns=names)
    shuffled = df[[names[3], names[2], names[0], names[1]]]
    np.testing.assert_array_equal(check_costs(3, cost_matrix=shuffled), cm)
    y, d = np.array([1, 0, 1]), np.array([1, 1, 0])
    assert cost_loss(y, d, cost_matrix=shuffled) == 10.0 + 10.0 + 300.0


def test_unnamed_or_half_named_cost_matrix_columns():
    import pandas as pd
    from csboost_plugins.costs import check_costs
    cm = np.array([[10.0, 100.0, 10.0, 0.0]])
    np.testing.assert_array_equal(check_costs(1, cost_matrix=pd.DataFrame(cm)), cm)  # 0..3: by position
    np.testing.assert_array_equal(check_costs(1, cost_matrix=pd.DataFrame(cm, columns=list("abcd"))), cm)
    with pytest.raises(ValueError, match=r"cost_matrix.*'C_FP', 'amount'"):
        check_costs(1, cost_matrix=pd.DataFrame(cm, columns=["C_FP", "amount", "C_TP", "C_TN"]))
    with pytest.raises(ValueError, match=r"cost_matrix.*twice"):
        check_costs(1, cost_matrix=pd.DataFrame(cm, columns=["C_FP", "fp_cost", "C_TP", "C_TN"]))


# ---------------------------------------------------------------------------------------------------------
# Odd probabilities, predictions and weights: errors name the argument
# ---------------------------------------------------------------------------------------------------------
def test_non_numeric_inputs_name_the_argument():
    from csboost_plugins.metrics import bayes_minimum_risk, cost_loss, expected_savings_score
    y = np.array([1, 0, 1])
    with pytest.raises(TypeError, match="y_proba"):
        bayes_minimum_risk(["high", "low", "high"], fp_cost=1.0, fn_cost=5.0)
    with pytest.raises(TypeError, match="y_proba"):
        expected_savings_score(y, ["high", "low", "high"], fp_cost=1.0, fn_cost=5.0)
    with pytest.raises(TypeError, match="sample_weight"):
        cost_loss(y, [1, 0, 0], fp_cost=1.0, fn_cost=5.0, sample_weight=["a", "b", "c"])


def test_zero_total_weight_is_a_clear_error_where_the_average_divides_by_it():
    from csboost_plugins.metrics import expected_cost_loss
    y, p = np.array([1, 0, 1]), np.array([0.2, 0.4, 0.9])
    assert expected_cost_loss(y, p, fp_cost=1.0, fn_cost=5.0, sample_weight=[0, 0, 0]) == 0.0
    assert expected_cost_loss(y, p, fp_cost=1.0, fn_cost=5.0, sample_weight=[0, 2, 0], normalize=True) == \
        pytest.approx(0.4)  # only the negative row counts: 0.4 x C_FP
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        expected_cost_loss(y, p, fp_cost=1.0, fn_cost=5.0, sample_weight=[0, 0, 0], normalize=True)


def test_bayes_minimum_risk_takes_every_shape_the_other_metrics_take():
    from csboost_plugins.metrics import bayes_minimum_risk
    p = np.array([0.15, 0.2, 0.9])
    cm = np.array([[10.0, 100.0, 10.0, 0.0], [10.0, 20.0, 10.0, 0.0], [10.0, 12.0, 10.0, 0.0]])
    want = [int(p[i] * cm[i, 2] + (1 - p[i]) * cm[i, 0] < p[i] * cm[i, 1] + (1 - p[i]) * cm[i, 3]) for i in range(3)]
    assert want == [1, 0, 1]  # t* = 10/100, 10/20, 10/12
    assert bayes_minimum_risk(p, cost_matrix=cm).tolist() == want
    assert bayes_minimum_risk(p[:, None], cost_matrix=cm).tolist() == want          # a column vector
    assert bayes_minimum_risk(np.c_[1 - p, p], cost_matrix=cm).tolist() == want     # predict_proba output


# ---------------------------------------------------------------------------------------------------------
# Bayes thresholds: "decide 1 iff p > t*" must be Bayes minimum risk on every row it is given for
# ---------------------------------------------------------------------------------------------------------
def test_bayes_thresholds_agree_with_bmr_on_one_sided_rows():
    from csboost_plugins.metrics import optimal_thresholds
    # [C_FP, C_FN, C_TP, C_TN]; regrets (C_FN - C_TP, C_FP - C_TN)
    cm = np.array([
        [10.0, 100.0, 10.0, 0.0],   # fraud row: (90, 10), t* = 0.1
        [10.0, 5.0, 30.0, 0.0],     # an alert dearer than the fraud by more than C_FP: (-25, 10), never flag
        [0.0, 30.0, 0.0, 40.0],     # flagging a legit row is cheaper than passing it by 40: (30, -40), always
        [10.0, 5.0, 12.0, 0.0],     # (-7, 10): never
    ])
    p = np.random.default_rng(0).uniform(0.001, 0.999, 500)
    t = dc.bayes_thresholds(cm)
    for i in range(len(cm)):
        c = np.repeat(cm[i:i + 1], len(p), axis=0)
        np.testing.assert_array_equal((p > t[i]).astype(int), dc.bmr_decisions(p, c), err_msg=f"row {i}, t*={t[i]}")
    assert t[1] == np.inf and t[2] == -np.inf
    with pytest.warns(UserWarning, match="both wrong decisions cheaper"):
        inverted = optimal_thresholds(cost_matrix=[[0.0, 0.0, 10.0, 10.0]])  # flag iff p < 1/2: no "p > t"
    assert np.isnan(inverted).all()


# ---------------------------------------------------------------------------------------------------------
# Cost-matrix builders validate every parameter (no silent NaN or negative losses)
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda b: b.direct_marketing_cost_matrix([1000.0, 50.0], admin_cost=np.nan), "admin_cost"),
    (lambda b: b.direct_marketing_cost_matrix([1000.0, 50.0], interest_spread=np.inf), "interest_spread"),
    (lambda b: b.direct_marketing_cost_matrix([1000.0, 50.0], balance_fraction=np.nan), "balance_fraction"),
    (lambda b: b.direct_marketing_cost_matrix([1000.0, 50.0], admin_cost=[1.0, 2.0, 3.0]), "admin_cost"),
    (lambda b: b.churn_cost_matrix([100.0, 50.0], gamma=1.5), "gamma"),
    (lambda b: b.churn_cost_matrix([100.0, 50.0], gamma=-0.1), "gamma"),
    (lambda b: b.credit_scoring_cost_matrix([5000.0, 3000.0], positive_rate=2.0), "positive_rate"),
    (lambda b: b.credit_scoring_cost_matrix([5000.0, 3000.0], positive_rate=np.nan), "positive_rate"),
    (lambda b: b.credit_scoring_cost_matrix([5000.0, 3000.0], [1.5, 0.2], positive_rate=0.07), "debt_ratio"),
    (lambda b: b.credit_scoring_cost_matrix([5000.0, 3000.0], [-0.1, 0.2], positive_rate=0.07), "debt_ratio"),
    (lambda b: b.credit_scoring_cost_matrix([5000.0, 3000.0], positive_rate=0.07, term=0), "term"),
])
def test_builders_refuse_parameters_that_give_nan_or_meaningless_money(call, name):
    from csboost_plugins import costs as b
    with pytest.raises(ValueError, match=name):
        call(b)


def test_builders_still_give_the_papers_matrices():
    from csboost_plugins import costs as b
    m = b.direct_marketing_cost_matrix([1000.0, 50.0])
    np.testing.assert_allclose(m, [[1, 0.25 * 1000 * 0.02463333, 1, 0], [1, 1, 1, 0]])
    cl = b.credit_scoring_cost_matrix([5000.0, 3000.0], [0.0, 1.0], positive_rate=0.07)[:, 1] / 0.75
    assert cl[1] == 0.0 and cl[0] == pytest.approx(15000.0)  # no capacity left at debt ratio 1; 3 x income otherwise


# ---------------------------------------------------------------------------------------------------------
# One class only (a fold of positives): its label is read with y_pred's, never guessed
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pos, neg", [("yes", "no"), (2, 1), (1, -1), (True, False)])
def test_a_fold_of_positives_only_is_scored_as_positives(pos, neg):
    from csboost_plugins.metrics import cost_loss, savings_score
    y_true = np.array([pos, pos, pos])
    y_pred = np.array([pos, pos, neg])
    # positives: TP, TP, FN at C_TP = 1, C_FN = 5 -> 7; all 0 -> 15, all 1 -> 3: savings (3 - 7) / 3
    assert cost_loss(y_true, y_pred, fp_cost=1.0, fn_cost=5.0, tp_cost=1.0, pos_label=pos) == 7.0
    assert savings_score(y_true, y_pred, fp_cost=1.0, fn_cost=5.0, tp_cost=1.0, pos_label=pos) == pytest.approx(-4 / 3)


@pytest.mark.parametrize("label", ["yes", 2, -1])
def test_a_single_label_that_is_not_0_or_1_is_not_guessed(label):
    from csboost_plugins.metrics import cost_loss, expected_cost_loss
    y_true = np.array([label] * 3)
    kw = dict(fp_cost=1.0, fn_cost=5.0, tp_cost=1.0)
    if label == -1:  # -1 of {-1, 1}: the default pos_label (None -> 1) makes it a negative (FP, FP, TN)
        assert cost_loss(y_true, [1, 1, 0], **kw) == 2.0
    else:  # "yes" or 2 could be either class: never guessed (scikit-learn's roc_curve rule)
        with pytest.raises(ValueError, match=r"holds the labels .*: pass pos_label="):
            cost_loss(y_true, [1, 1, 0], **kw)
        with pytest.raises(ValueError, match=r"holds the labels .*: pass pos_label="):
            expected_cost_loss(y_true, [0.9, 0.9, 0.1], **kw)
    assert cost_loss(y_true, [1, 1, 0], pos_label=label, **kw) == 7.0  # named positive: TP, TP, FN
    if label != -1:  # named, of pos_label's kind, and not it: a negative
        other = "no" if isinstance(label, str) else 1
        assert cost_loss(y_true, [1, 1, 0], pos_label=other, **kw) == 2.0
    # 0/1 single classes keep their meaning
    assert cost_loss(np.ones(3, int), [1, 1, 0], fp_cost=1.0, fn_cost=5.0, tp_cost=1.0) == 7.0
    assert cost_loss(np.zeros(3), [1, 1, 0], fp_cost=1.0, fn_cost=5.0, tp_cost=1.0) == 2.0


def test_boolean_costs_are_refused_by_name():
    from csboost_plugins.costs import check_costs
    with pytest.raises(TypeError, match="fp_cost.*bool"):
        check_costs(3, fp_cost=True, fn_cost=5.0)
    with pytest.raises(TypeError, match="fn_cost.*bool"):
        check_costs(fp_cost=1.0, fn_cost=np.array([True, False]))
    with pytest.raises(TypeError, match="fp_cost is complex"):
        check_costs(1, fp_cost=1 + 2j, fn_cost=5.0)
    with pytest.raises(TypeError, match="cost_matrix is boolean"):
        check_costs(cost_matrix=np.ones((2, 4), bool))
    with pytest.raises(TypeError, match="tp_cost.*bool"):
        check_costs(fp_cost=1.0, fn_cost=[2.0, 3.0], tp_cost=[True, False])


def test_builders_refuse_per_row_inputs_from_differently_indexed_series():
    import pandas as pd
    from csboost_plugins.costs import churn_cost_matrix, credit_scoring_cost_matrix
    income = pd.Series([5000.0, 3000.0, 8000.0], index=[3, 1, 2])
    debt = pd.Series([0.1, 0.5, 0.2], index=[3, 1, 2])
    ok = credit_scoring_cost_matrix(income, debt, positive_rate=0.07)
    np.testing.assert_array_equal(ok, credit_scoring_cost_matrix(income.to_numpy(), debt.to_numpy(),
                                                                 positive_rate=0.07))
    with pytest.raises(ValueError, match="debt_ratio.*index"):
        credit_scoring_cost_matrix(income, debt.sort_index(), positive_rate=0.07)
    with pytest.raises(ValueError, match="gamma.*index"):
        churn_cost_matrix(income, gamma=debt.sort_index())
