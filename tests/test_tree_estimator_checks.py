"""scikit-learn's generic estimator checks (unit costs when none are passed)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from csdt import CostSensitiveDecisionTreeClassifier as CSDT


@parametrize_with_checks([CSDT(), CSDT(max_bins=32, min_gain=0.0), CSDT(criterion="gini", max_leaf_nodes=8)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
