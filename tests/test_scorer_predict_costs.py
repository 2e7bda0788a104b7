"""make_savings_scorer hands each fold's costs to a predict that decides with them (BMR, pipelines, boosters).

Reference: fit the same estimator on each training fold by hand, call
``predict(X_test, <the fold's costs>)`` and compute ``savings_score`` with those costs.
The unit-cost decisions (what the scorer scored before) save far less on the credit
scoring data, so every equality below would fail without the fix.
"""

import inspect
import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer
from sklearn.metrics._scorer import _Scorer
from sklearn.model_selection import GridSearchCV, KFold, TunedThresholdClassifierCV, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.metadata_routing import get_routing_for_object

from csboost_plugins._cost_scorer import CostRoutingScorer
from csboost_plugins.metrics import (
    expected_savings_score,
    make_expected_savings_scorer,
    make_savings_scorer,
    savings_score,
)
from csdt import BayesMinimumRiskClassifier

import _estimators
from csdt.datasets import load_creditscoring1

CV = KFold(3)
FOUR = ("fp_cost", "fn_cost", "tp_cost", "tn_cost")


@pytest.fixture(scope="module")
def credit():
    b = load_creditscoring1()
    idx = np.random.default_rng(0).permutation(len(b.target))[:9000]
    X, y = b.data.to_numpy()[idx], b.target[idx]
    return X, y, b.cost_matrix[idx], {k: np.asarray(b[k])[idx] for k in FOUR}


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _fold(params, te):
    return {k: v[te] for k, v in params.items()}


def _by_hand(make, X, y, params, *, costs_at_predict=True):
    """Savings of each fold's own decisions, the estimator fitted on the training fold by hand."""
    out = []
    for tr, te in CV.split(X):
        m = make().fit(X[tr], y[tr])
        kw = _fold(params, te)
        d = m.predict(X[te], **kw) if costs_at_predict else m.predict(X[te])
        out.append(savings_score(y[te], d, **kw))
    return np.array(out)


def _bmr(**kw):
    return BayesMinimumRiskClassifier(**kw).set_fit_request(**{k: False for k in (*FOUR, "cost_matrix")})


@pytest.mark.parametrize("how", ["cost_matrix", "four_keywords"])
def test_cross_val_score_scores_bmr_with_each_folds_own_costs(credit, routing, how):
    X, y, c, four = credit
    params = {"cost_matrix": c} if how == "cost_matrix" else four
    got = cross_val_score(_bmr(), X, y, scoring=make_savings_scorer(), params=params, cv=CV)
    want = _by_hand(BayesMinimumRiskClassifier, X, y, params)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # teeth: the unit-cost decisions (the scorer before the fix) save far less on every fold
    unit = _by_hand(BayesMinimumRiskClassifier, X, y, params, costs_at_predict=False)
    assert np.all(want - unit > 0.1), (want, unit)


def test_opting_out_with_set_predict_request_scores_unit_cost_decisions(credit, routing):
    X, y, c, _ = credit
    est = _bmr().set_predict_request(cost_matrix=False)
    got = cross_val_score(est, X, y, scoring=make_savings_scorer(), params={"cost_matrix": c}, cv=CV)
    want = _by_hand(BayesMinimumRiskClassifier, X, y, {"cost_matrix": c}, costs_at_predict=False)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_aliased_predict_request_is_resolved_by_the_scorer(credit, routing):
    X, y, _, four = credit
    # predict's fp_cost takes the routed fn_cost and vice versa: the scorer must swap them, as a router would
    est = _bmr().set_predict_request(fp_cost="fn_cost", fn_cost="fp_cost")
    got = cross_val_score(est, X, y, scoring=make_savings_scorer(), params=four, cv=CV)
    want = []
    for tr, te in CV.split(X):
        m = BayesMinimumRiskClassifier().fit(X[tr], y[tr])
        kw = _fold(four, te)
        d = m.predict(X[te], fp_cost=kw["fn_cost"], fn_cost=kw["fp_cost"], tp_cost=kw["tp_cost"],
                      tn_cost=kw["tn_cost"])
        want.append(savings_score(y[te], d, **kw))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert not np.allclose(got, _by_hand(BayesMinimumRiskClassifier, X, y, four))


def test_pipeline_routes_the_folds_costs_to_its_bmr_step(credit, routing):
    X, y, c, _ = credit
    pipe = make_pipeline(StandardScaler(), _bmr(estimator=LogisticRegression(max_iter=1000)))
    got = cross_val_score(pipe, X, y, scoring=make_savings_scorer(), params={"cost_matrix": c}, cv=CV)
    want, unit = [], []
    for tr, te in CV.split(X):
        sc = StandardScaler().fit(X[tr])
        m = BayesMinimumRiskClassifier(LogisticRegression(max_iter=1000)).fit(sc.transform(X[tr]), y[tr])
        want.append(savings_score(y[te], m.predict(sc.transform(X[te]), cost_matrix=c[te]), cost_matrix=c[te]))
        unit.append(savings_score(y[te], m.predict(sc.transform(X[te])), cost_matrix=c[te]))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert np.all(np.array(want) - np.array(unit) > 0.1)


def test_a_meta_estimator_whose_predict_routes_nothing_is_named_in_a_warning(credit, routing):
    X, y, c, _ = credit
    tr, te = np.arange(6000), np.arange(6000, 9000)
    gs = GridSearchCV(_bmr(), {"calibration": [None]}, scoring=make_savings_scorer(), cv=CV)
    gs.fit(X[tr], y[tr], cost_matrix=c[tr])
    # GridSearchCV.predict(X) takes no metadata: the costs cannot reach the BMR inside, say so
    with pytest.warns(UserWarning, match=r"BayesMinimumRiskClassifier\.predict .*GridSearchCV\.predict routes no"):
        got = make_savings_scorer()(gs, X[te], y[te], cost_matrix=c[te])
    assert got == pytest.approx(savings_score(y[te], gs.predict(X[te]), cost_matrix=c[te]), rel=1e-12)
    # where the costs do arrive (the search's own best estimator, a Pipeline) nothing is said
    pipe = make_pipeline(StandardScaler(), _bmr(estimator=LogisticRegression())).fit(X[tr], y[tr])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*routes no metadata")
        make_savings_scorer()(gs.best_estimator_, X[te], y[te], cost_matrix=c[te])
        make_savings_scorer()(pipe, X[te], y[te], cost_matrix=c[te])
        make_savings_scorer()(make_pipeline(StandardScaler(), LogisticRegression()).fit(X[tr], y[tr]), X[te], y[te],
                              cost_matrix=c[te])


def test_grid_search_over_a_bmr_parameter_in_two_processes(credit, routing):
    X, y, c, _ = credit
    grid = {"calibration": [None, "isotonic"]}
    gs = GridSearchCV(_bmr(random_state=0), grid, scoring=make_savings_scorer(), cv=CV, n_jobs=2)
    gs.fit(X, y, cost_matrix=c)
    for k, cal in enumerate(gs.cv_results_["param_calibration"]):
        want = _by_hand(lambda cal=cal: BayesMinimumRiskClassifier(calibration=cal, random_state=0), X, y,
                        {"cost_matrix": c})
        got = [gs.cv_results_[f"split{i}_test_score"][k] for i in range(3)]
        np.testing.assert_allclose(got, want, rtol=1e-12)
    best = int(np.argmax(gs.cv_results_["mean_test_score"]))
    assert gs.best_params_["calibration"] == gs.cv_results_["param_calibration"][best]
    # GridSearchCV.score routes the test rows' costs to the refitted model's predict as well
    te = np.arange(3000)
    assert gs.score(X[te], y[te], cost_matrix=c[te]) == pytest.approx(
        savings_score(y[te], gs.best_estimator_.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te]), rel=1e-12)


def test_other_scorers_of_a_multimetric_call_keep_their_cost_free_predictions(credit, routing):
    X, y, c, _ = credit
    res = cross_validate(_bmr(), X, y, cv=CV, params={"cost_matrix": c},
                         scoring={"accuracy": "accuracy", "savings": make_savings_scorer()})
    np.testing.assert_allclose(res["test_savings"], _by_hand(BayesMinimumRiskClassifier, X, y, {"cost_matrix": c}),
                               rtol=1e-12)
    acc = [np.mean(BayesMinimumRiskClassifier().fit(X[tr], y[tr]).predict(X[te]) == y[te]) for tr, te in CV.split(X)]
    np.testing.assert_allclose(res["test_accuracy"], acc, rtol=1e-12)


@pytest.mark.parametrize("name,make", _estimators.params(kind="boosting"))
def test_boosters_deciding_by_bmr_request_the_costs_by_default(credit, routing, name, make):
    X, y, c, _ = credit
    cls = type(make())
    kw = dict(n_estimators=10, max_depth=3, n_jobs=1, random_state=0, decision="bmr")
    if name == "CSCatBoostClassifier":  # catboost's own names for depth and threads
        kw = dict(n_estimators=10, depth=3, thread_count=1, random_state=0, decision="bmr")
    got = cross_val_score(cls(**kw).set_fit_request(cost_matrix=True), X, y, cv=CV, scoring=make_savings_scorer(),
                          params={"cost_matrix": c})
    fits = [(cls(**kw).fit(X[tr], y[tr], cost_matrix=c[tr]), te) for tr, te in CV.split(X)]
    np.testing.assert_allclose(got, [savings_score(y[te], m.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te])
                                     for m, te in fits], rtol=1e-12)
    assert not np.allclose(got, [savings_score(y[te], m.predict(X[te]), cost_matrix=c[te]) for m, te in fits])
    # decision="auto": predict without the rows' costs refuses to decide by a BMR rule; the scorer passes them
    tr, va, te = np.arange(4000), np.arange(4000, 6000), np.arange(6000, 9000)
    auto = cls(**dict(kw, decision="auto")).fit(X[tr], y[tr], cost_matrix=c[tr], eval_set=[(X[va], y[va])],
                                                eval_costs=[c[va]])
    assert auto.decision_ == "logloss+bmr"  # kept on this data: no AEC rule beats it by 3 standard errors
    with pytest.raises(ValueError, match="pass the rows' costs"):
        auto.predict(X[te])
    want = savings_score(y[te], auto.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te])
    assert make_savings_scorer()(auto, X[te], y[te], cost_matrix=c[te]) == pytest.approx(want, rel=1e-12)
    # an explicit request wins over the decision's default
    off = cls(**kw).set_predict_request(cost_matrix=False, fp_cost=False, fn_cost=False, tp_cost=False,
                                         tn_cost=False)
    assert get_routing_for_object(off).consumes("predict", ["cost_matrix"]) == set()


def test_boosters_opt_in_with_set_predict_request(credit, routing):
    from csboost_plugins.xgb import CSXGBClassifier

    X, y, c, _ = credit
    kw = dict(n_estimators=10, max_depth=3, n_jobs=1, random_state=0)
    scorer = make_savings_scorer()
    default = cross_val_score(CSXGBClassifier(decision="0.5", **kw).set_fit_request(cost_matrix=True), X, y, cv=CV, scoring=scorer,
                              params={"cost_matrix": c})
    opted = cross_val_score(CSXGBClassifier(decision="0.5", **kw).set_fit_request(cost_matrix=True).set_predict_request(
        cost_matrix=True), X, y, cv=CV, scoring=scorer, params={"cost_matrix": c})
    fits = [(CSXGBClassifier(decision="0.5", **kw).fit(X[tr], y[tr], cost_matrix=c[tr]), te) for tr, te in CV.split(X)]
    np.testing.assert_allclose(default, [savings_score(y[te], m.predict(X[te]), cost_matrix=c[te])
                                         for m, te in fits], rtol=1e-12)  # s > 1/2, as its decision="0.5" says
    np.testing.assert_allclose(opted, [savings_score(y[te], m.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te])
                                       for m, te in fits], rtol=1e-12)  # Bayes minimum risk with the fold's costs
    assert not np.allclose(default, opted)


def test_tuned_threshold_search_still_works(credit, routing):
    X, y, c, _ = credit
    tuned = TunedThresholdClassifierCV(make_pipeline(StandardScaler(), LogisticRegression()),
                                       scoring=make_savings_scorer(), cv=CV, thresholds=50).fit(X, y, cost_matrix=c)
    assert np.isfinite(tuned.best_score_) and 0.0 < tuned.best_threshold_ < 0.5  # defaults cost more than denials
    s = tuned.estimator_.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(tuned.predict(X), (s >= tuned.best_threshold_).astype(int))


def test_scorer_pickles_and_keeps_sklearns_scorer_contract(credit, routing):
    X, y, c, _ = credit
    scorer = make_savings_scorer()
    again = pickle.loads(pickle.dumps(scorer))
    assert type(again) is CostRoutingScorer
    assert repr(again) == repr(make_scorer(savings_score))
    assert again.get_metadata_routing().score.requests == {k: True for k in (*FOUR, "cost_matrix", "sample_weight")}
    m = BayesMinimumRiskClassifier().fit(X[:6000], y[:6000])
    te = slice(6000, None)
    want = savings_score(y[te], m.predict(X[te], cost_matrix=c[te]), cost_matrix=c[te])
    assert again(m, X[te], y[te], cost_matrix=c[te]) == pytest.approx(want, rel=1e-12)
    narrowed = make_savings_scorer().set_score_request(cost_matrix=False, fp_cost=True)
    assert narrowed.get_metadata_routing().score.requests["cost_matrix"] is False
    # the expected-savings scorer: no estimator here takes costs in predict_proba, so it is make_scorer's
    lr = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:6000], y[:6000])
    got = make_expected_savings_scorer()(lr, X[te], y[te], cost_matrix=c[te])
    ref = make_scorer(expected_savings_score, response_method="predict_proba")
    assert got == pytest.approx(ref(lr, X[te], y[te], cost_matrix=c[te]), rel=1e-12)


def test_the_private_sklearn_scorer_we_subclass_has_not_changed():
    # csboost_plugins/_cost_scorer.py overrides _Scorer._score and builds _Scorer(score_func, sign, kwargs,
    # response_method) itself: if scikit-learn changes either, this fails before users get wrong scores
    s = make_scorer(savings_score, response_method="predict")
    assert type(s) is _Scorer and issubclass(CostRoutingScorer, _Scorer)
    assert list(inspect.signature(_Scorer._score).parameters) == [
        "self", "method_caller", "estimator", "X", "y_true", "kwargs"]
    assert list(inspect.signature(_Scorer.__init__).parameters)[:5] == [
        "self", "score_func", "sign", "kwargs", "response_method"]
    assert (s._score_func, s._sign, s._kwargs, s._response_method) == (savings_score, 1, {}, "predict")
