"""scikit-learn's generic estimator checks (unit costs when none are passed)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from csdt import CostSensitiveDecisionTreeClassifier as CSDT


@parametrize_with_checks([CSDT(), CSDT(max_bins=32, min_gain=0.0), CSDT(criterion="gini", max_leaf_nodes=8)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ every registry estimator
import _estimators  # noqa: E402

_WEIGHTS = "integer sample weights are not repeated rows: bootstrap / cross-validation folds draw rows, not weight"
_CV_SPLITS = "the check passes cv= a list of splits; the estimator's cv takes an int, 'prefit' or None"
_RIFF_TINY = ("RIFF needs a split of its LightGBM / XGBoost pool to make a candidate rule; the check's handful of "
              "rows gives none (a ValueError saying so)")
# known failures of scikit-learn's generic checks, per class: reported, not hidden (xfail, named)
EXPECTED_FAILED = {
    "CSCatBoostClassifier": {"check_sample_weight_equivalence_on_dense_data": (
        "CatBoost scales l2_leaf_reg by the mean row weight and its default MVS bootstrap and random_strength draw "
        "per row: equal only without the draws and with the L2 rescaled (tests/test_boosting_catboost.py)")},
    "RIFFClassifier": {
        "check_n_features_in_after_fitting": _RIFF_TINY, "check_sample_weights_not_an_array": _RIFF_TINY,
        "check_sample_weight_equivalence_on_dense_data": _RIFF_TINY, "check_classifier_data_not_an_array": _RIFF_TINY,
        "check_fit2d_1feature": _RIFF_TINY,
        "check_sample_weights_pandas_series": "refuses a pandas Series sample_weight",
        "check_classifiers_classes": "string labels need pos_label= (the library's rule: money needs the positive class)",
        "check_classifiers_train": "predict (the rule set's decision) differs from the check's expected labels on 16 of 200 rows"},
    "ThresholdingOptimization": {"check_sample_weight_equivalence_on_dense_data": _CV_SPLITS,
                                 "check_classifiers_train": "predict (the tuned threshold) differs from the check's expected labels on 1 of 200 rows"},
    "BayesMinimumRiskClassifier": {"check_sample_weight_equivalence_on_dense_data": _CV_SPLITS},
    **{name: {"check_sample_weight_equivalence_on_dense_data": _WEIGHTS}
       for name in ("CostSensitiveBaggingClassifier", "CostSensitivePastingClassifier",
                    "CostSensitiveRandomForestClassifier", "CostSensitiveRandomPatchesClassifier")},
}

# CatBoost joins when the extra is installed (parametrize_with_checks needs instances at collection)
REGISTRY = [e.make() for e in _estimators.entries() if e.name != "CSCatBoostClassifier" or _estimators.HAS_CATBOOST]


@parametrize_with_checks(REGISTRY, expected_failed_checks=lambda est: EXPECTED_FAILED.get(type(est).__name__, {}))
def test_registry_estimators_pass_sklearns_checks(estimator, check):
    check(estimator)
