"""One parameter validation for every csdt estimator (scikit-learn ``_parameter_constraints``),
and the ensembles' member protocol: any classifier as the stacking ``final_estimator``."""

import inspect

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from csboost_plugins.decision_costs import regret_difference
from csdt import (
    BayesMinimumRiskClassifier,
    CAL5Classifier,
    CAL5OCClassifier,
    CostSensitiveBaggingClassifier,
    CostSensitiveDecisionTreeClassifier,
    CostSensitiveLogisticRegression,
    CostSensitiveLogisticRegressionCV,
    CostSensitivePastingClassifier,
    CostSensitiveRandomForestClassifier,
    CostSensitiveRandomPatchesClassifier,
    FIGSClassifier,
    FIGUClassifier,
    ThresholdingOptimization,
)

import _estimators

# every csdt estimator (their constraints are scikit-learn's; the boosting hosts take their libraries')
ESTIMATORS = _estimators.classes(package="csdt")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.8).astype(int)
    fn = rng.uniform(5, 50, n)
    return X, y, fn


def test_the_registry_lists_every_public_csdt_estimator():
    import csdt
    from sklearn.base import BaseEstimator

    public = {getattr(csdt, n) for n in csdt.__all__}
    public = {c for c in public if isinstance(c, type) and issubclass(c, BaseEstimator)}
    assert public == set(ESTIMATORS)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_init_parameter_has_a_constraint(cls):
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert set(cls._parameter_constraints) == params


BAD = [
    (CostSensitiveDecisionTreeClassifier, "criterion_weight", "no"),
    (CostSensitiveDecisionTreeClassifier, "max_depth", 2 ** 63),
    (CostSensitiveDecisionTreeClassifier, "max_depth", True),
    (CostSensitiveDecisionTreeClassifier, "min_gain", float("inf")),
    (CostSensitiveDecisionTreeClassifier, "criterion", "money"),
    (CostSensitiveDecisionTreeClassifier, "max_bins", 256),
    (CostSensitiveRandomPatchesClassifier, "n_estimators", 0),
    (CostSensitiveRandomPatchesClassifier, "combination", "vote"),
    (CostSensitiveRandomPatchesClassifier, "criterion_weight", "yes"),
    (CostSensitiveBaggingClassifier, "final_estimator", "lr"),
    (FIGSClassifier, "max_rules", 0),
    (FIGSClassifier, "max_rules", 1.5),
    (FIGUClassifier, "precision_threshold", 2.0),
    (FIGSClassifier, "link", "logit"),
    (CostSensitiveLogisticRegression, "lambda_l1", -1.0),
    (CostSensitiveLogisticRegression, "fit_intercept", "yes"),
    (CostSensitiveLogisticRegressionCV, "scoring", "accuracy"),
    (BayesMinimumRiskClassifier, "calibration", "platt"),
    (ThresholdingOptimization, "cv", 1),
]


@pytest.mark.parametrize("cls,name,value", BAD, ids=lambda v: repr(v)[:30])
def test_bad_parameter_is_a_clear_error_naming_it(cls, name, value):
    X, y, fn = _data()
    with pytest.raises(InvalidParameterError, match=repr(name)) as info:
        cls(**{name: value}).fit(X, y, fp_cost=5.0, fn_cost=fn)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_random_forest_alone_draws_features_per_split():
    X, y, fn = _data()
    CostSensitiveRandomForestClassifier(n_estimators=3, max_features="sqrt", random_state=0).fit(
        X, y, fp_cost=5.0, fn_cost=fn)
    with pytest.raises(ValueError, match="per tree"):
        CostSensitiveBaggingClassifier(n_estimators=3, max_features="sqrt").fit(X, y, fp_cost=5.0, fn_cost=fn)


@pytest.mark.parametrize("final", [LogisticRegression(), HistGradientBoostingClassifier(max_iter=20)],
                         ids=["LogisticRegression", "HistGradientBoosting"])
def test_any_classifier_stacks(final):
    X, y, fn = _data(600)
    ens = CostSensitiveRandomPatchesClassifier(n_estimators=8, combination="stacking", final_estimator=final,
                                              random_state=0).fit(X, y, fp_cost=5.0, fn_cost=fn)
    p = ens.predict_proba(X)
    assert p.shape == (600, 2) and np.allclose(p.sum(1), 1) and set(ens.predict(X)) <= {0, 1}
    assert type(ens.final_estimator_) is type(final) and ens.final_estimator_ is not final


def test_cost_blind_final_estimator_is_fitted_with_cost_proportionate_weights():
    X, y, fn = _data(600)
    ens = CostSensitiveRandomPatchesClassifier(n_estimators=8, combination="stacking",
                                              final_estimator=LogisticRegression(), random_state=0)
    ens.fit(X, y, fp_cost=5.0, fn_cost=fn)
    votes = ens.tree_votes(X).astype(np.float64)
    costs = np.column_stack([np.full(600, 5.0), fn, np.zeros(600), np.zeros(600)])
    ref = LogisticRegression().fit(votes, y, sample_weight=np.abs(regret_difference(y, costs)))
    np.testing.assert_allclose(ens.final_estimator_.coef_, ref.coef_)
    np.testing.assert_allclose(ens.predict_proba(X)[:, 1], ref.predict_proba(votes)[:, 1])


def test_export_decimals_and_missing_y_are_clear_errors():
    X, y, fn = _data()
    tree = CostSensitiveDecisionTreeClassifier(max_depth=2).fit(X, y, fp_cost=5.0, fn_cost=fn)
    for bad in (-1, 2.5, True, 40):
        with pytest.raises(ValueError, match="decimals"):
            tree.export_text(decimals=bad)
    assert tree.export_text(decimals=0)
    for cls in (CostSensitiveBaggingClassifier, CostSensitiveRandomPatchesClassifier):
        with pytest.raises(ValueError, match="requires y"):
            cls(n_estimators=2).fit(X, None, fp_cost=5.0, fn_cost=fn)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_init_records_every_argument_unchanged(cls):
    # store_init_args(self, locals()): each argument, by identity, and nothing else
    sig = inspect.signature(cls.__init__).parameters
    args = {name: object() for name in sig if name != "self"}
    est = cls(**args)
    assert vars(est).keys() == args.keys()
    assert all(getattr(est, name) is value for name, value in args.items())
    assert {k: v.default for k, v in sig.items() if k != "self"} == cls().get_params()


def test_inducers_share_the_base_init_with_their_own_defaults():
    from csdt.ensemble._classifiers import _base_init_with_defaults, _BaseECSDT

    defaults = {cls: (cls().max_samples, cls().max_features) for cls in ESTIMATORS[1:5]}
    assert defaults == {CostSensitiveBaggingClassifier: (0.5, 1.0), CostSensitivePastingClassifier: (0.5, 1.0),
                        CostSensitiveRandomForestClassifier: (1.0, "sqrt"),
                        CostSensitiveRandomPatchesClassifier: (0.5, 0.5)}
    for cls, (samples, features) in defaults.items():  # the class docstring states the same defaults
        assert f"max_samples : int or float, default={samples}" in cls.__doc__
        assert f"default={features!r}".replace("'", '"') in cls.__doc__ or f"default={features}" in cls.__doc__
    rf = CostSensitiveRandomForestClassifier(n_estimators=3, max_depth=2)
    assert rf.get_params()["max_features"] == "sqrt" and rf.n_estimators == 3 and rf.max_depth == 2
    # the copy is the base's code: same parameters in the same order, only the defaults differ
    assert list(inspect.signature(rf.__init__).parameters) == list(inspect.signature(_BaseECSDT.__init__).parameters)[1:]
    with pytest.raises(TypeError, match="max_feature"):
        _base_init_with_defaults(max_feature=0.5)
