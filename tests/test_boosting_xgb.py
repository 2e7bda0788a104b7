"""xgboost plugin: native objective/metrics on cost-carrying DMatrix, and CSXGBClassifier."""

import pickle

import numpy as np
import pytest
import sklearn
import xgboost as xgb
from scipy.special import expit
from sklearn.model_selection import GridSearchCV, KFold, cross_validate, train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from csboost_plugins import xgb as cxgb
from csboost_plugins.metrics import (
    bayes_minimum_risk,
    expected_cost_loss,
    expected_savings_score,
    make_savings_scorer,
    savings_score,
)
from csdt.datasets import load_churn, make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(6000, fraud_rate=0.05, random_state=0)
    X = b.data.to_numpy()
    return X, np.asarray(b.target), b.cost_matrix


@pytest.fixture(scope="module")
def churn_split():
    b = load_churn()
    X, y, C = b.data, np.asarray(b.target), b.cost_matrix
    return train_test_split(X, y, C, test_size=0.4, random_state=0, stratify=y)


def _params(dtrain, **extra):
    return cxgb.aec_params(dtrain, {"tree_method": "hist", "max_depth": 3, "eta": 0.2, "nthread": 1, **extra})


# ------------------------------------------------------------------ native API

def test_native_train_metrics_match_metrics_module(fraud):
    X, y, C = fraud
    dtr = cxgb.cost_dmatrix(X[:3000], y[:3000], cost_matrix=C[:3000])
    dva = cxgb.cost_dmatrix(X[3000:], y[3000:], cost_matrix=C[3000:])
    res = {}
    bst = xgb.train(_params(dtr), dtr, 30, obj=cxgb.aec_objective(), evals=[(dtr, "train"), (dva, "val")],
                    custom_metric=cxgb.money_metrics(), evals_result=res, verbose_eval=False)
    margin = bst.predict(dva, output_margin=True)
    s = expit(margin.astype(np.float64))
    yv, Cv = y[3000:], C[3000:]
    # default decision s > 1/2, the estimators' predict (one constant: _money_eval.DEFAULT_METRIC_DECISION)
    assert res["val"]["savings"][-1] == pytest.approx(
        savings_score(yv, (s > 0.5).astype(int), cost_matrix=Cv), abs=1e-6)
    assert cxgb.money_metric("savings", decision="bmr")(margin, dva)[1] == pytest.approx(
        savings_score(yv, bayes_minimum_risk(s, cost_matrix=Cv), cost_matrix=Cv), abs=1e-6)
    assert res["val"]["expected_savings"][-1] == pytest.approx(expected_savings_score(yv, s, cost_matrix=Cv), abs=1e-6)
    assert res["val"]["aec"][-1] == pytest.approx(expected_cost_loss(yv, s, cost_matrix=Cv, normalize=True), rel=1e-5)
    # the objective minimises the training AEC
    aec = res["train"]["aec"]
    assert aec[-1] < 0.8 * aec[0]
    assert np.array_equal(cxgb.bayes_decisions(bst, dva), bayes_minimum_risk(s, cost_matrix=Cv))


def test_eval_sets_use_their_own_costs(fraud):
    X, y, C = fraud
    dtr = cxgb.cost_dmatrix(X[:3000], y[:3000], cost_matrix=C[:3000])
    bst = xgb.train(_params(dtr), dtr, 10, obj=cxgb.aec_objective())
    # two eval sets of the same length with different money: values differ and each matches its own costs
    a, b = slice(3000, 4500), slice(4500, 6000)
    da = cxgb.cost_dmatrix(X[a], y[a], cost_matrix=C[a])
    db = cxgb.cost_dmatrix(X[b], y[b], cost_matrix=C[b])
    res = {}
    xgb.train(_params(dtr), dtr, 1, obj=cxgb.aec_objective(), evals=[(da, "a"), (db, "b")],
              custom_metric=cxgb.expected_savings_metric, evals_result=res, verbose_eval=False)
    for sl, name in ((a, "a"), (b, "b")):
        dm = cxgb.cost_dmatrix(X[sl], y[sl], cost_matrix=C[sl])
        booster1 = xgb.train(_params(dtr), dtr, 1, obj=cxgb.aec_objective())
        s = expit(booster1.predict(dm, output_margin=True).astype(float))
        assert res[name]["expected_savings"][0] == pytest.approx(
            expected_savings_score(y[sl], s, cost_matrix=C[sl]), abs=1e-6)
    # permuting an eval set's rows (with their costs) leaves the metric unchanged
    perm = np.random.default_rng(0).permutation(1500)
    dp = cxgb.cost_dmatrix(X[a][perm], y[a][perm], cost_matrix=C[a][perm])
    v1 = cxgb.savings_metric(bst.predict(da, output_margin=True), da)[1]
    v2 = cxgb.savings_metric(bst.predict(dp, output_margin=True), dp)[1]
    assert v1 == pytest.approx(v2, abs=1e-12)


def test_dmatrix_without_costs_is_a_clear_error(fraud):
    X, y, C = fraud
    plain = xgb.DMatrix(X[:100], label=y[:100])
    with pytest.raises(ValueError, match="carries no costs.*cost_dmatrix"):
        cxgb.savings_metric(np.zeros(100), plain)
    with pytest.raises(ValueError, match="carries no costs"):
        xgb.train({"base_score": 0.0}, plain, 1, obj=cxgb.aec_objective())
    with pytest.raises(ValueError, match="fn_cost has length 99"):
        cxgb.cost_dmatrix(X[:100], y[:100], fp_cost=1.0, fn_cost=np.ones(99))
    with pytest.raises(ValueError, match="NaN"):
        cxgb.cost_dmatrix(X[:3], y[:3], fp_cost=1.0, fn_cost=np.array([1.0, np.nan, 2.0]))
    with pytest.raises(TypeError, match="DMatrix"):
        cxgb.attach_costs(X, fp_cost=1.0, fn_cost=1.0)


def test_weights_multiply_gradient_hessian_and_metrics(weights_as_duplicates):
    # few distinct feature values: hist bins are exact, so weights == duplicated rows exactly
    X, y, C, w, idx = weights_as_duplicates(seed=1, levels=12, cut=6, fn_low=1)
    dw = cxgb.cost_dmatrix(X, y, cost_matrix=C, weight=w)
    dd = cxgb.cost_dmatrix(X[idx], y[idx], cost_matrix=C[idx])
    p = {"tree_method": "hist", "max_depth": 3, "eta": 0.3, "nthread": 1}
    bw = xgb.train(cxgb.aec_params(dw, p), dw, 15, obj=cxgb.aec_objective())
    bd = xgb.train(cxgb.aec_params(dd, p), dd, 15, obj=cxgb.aec_objective())
    Xt = xgb.DMatrix(X)
    np.testing.assert_allclose(bw.predict(Xt, output_margin=True), bd.predict(Xt, output_margin=True), rtol=1e-5,
                               atol=1e-5)
    # unweighted training differs (the test can fail)
    du = cxgb.cost_dmatrix(X, y, cost_matrix=C)
    bu = xgb.train(cxgb.aec_params(du, p), du, 15, obj=cxgb.aec_objective())
    assert np.abs(bu.predict(Xt, output_margin=True) - bw.predict(Xt, output_margin=True)).max() > 1e-3
    m = bw.predict(dw, output_margin=True)
    assert cxgb.aec_metric(m, dw)[1] == pytest.approx(cxgb.aec_metric(bw.predict(dd, output_margin=True), dd)[1],
                                                      rel=1e-6)


def test_costs_times_1000_same_model(fraud):
    X, y, C = fraud
    d1 = cxgb.cost_dmatrix(X, y, cost_matrix=C)
    d2 = cxgb.cost_dmatrix(X, y, cost_matrix=C * 1000.0)
    b1 = xgb.train(_params(d1), d1, 20, obj=cxgb.aec_objective())
    b2 = xgb.train(_params(d2), d2, 20, obj=cxgb.aec_objective())
    np.testing.assert_allclose(b1.predict(d1, output_margin=True), b2.predict(d2, output_margin=True), rtol=1e-5,
                               atol=1e-5)
    # estimator too, with the default min_child_weight / reg_lambda
    e1 = cxgb.CSXGBClassifier(n_estimators=20, n_jobs=1, random_state=0).fit(X, y, cost_matrix=C)
    e2 = cxgb.CSXGBClassifier(n_estimators=20, n_jobs=1, random_state=0).fit(X, y, cost_matrix=C * 1000.0)
    np.testing.assert_allclose(e1.decision_function(X), e2.decision_function(X), rtol=1e-5, atol=1e-5)
    assert e2.cost_scale_ == pytest.approx(1000 * e1.cost_scale_)


def test_start_margin_in_base_score_is_applied_at_prediction(fraud, tmp_path):
    X, y, C = fraud
    d = cxgb.cost_dmatrix(X, y, cost_matrix=C)
    p = _params(d, eta=1e-12)
    bst = xgb.train(p, d, 2, obj=cxgb.aec_objective())
    # default start: logit of the regret share preferring 1 (frauds: amount - 10, legit: 10)
    regret1 = np.where(y == 1, np.maximum(C[:, 1] - C[:, 2], 0), 0).sum()
    regret_all = np.abs(np.where(y == 1, C[:, 2] - C[:, 1], C[:, 0] - C[:, 3])).sum()
    rho = regret1 / regret_all
    np.testing.assert_allclose(bst.predict(xgb.DMatrix(X), output_margin=True), np.log(rho / (1 - rho)),
                               atol=1e-5)
    prior = y.mean()
    assert cxgb.aec_params(d, start_margin="prior")["base_score"] == pytest.approx(np.log(prior / (1 - prior)))
    f = tmp_path / "m.json"
    bst.save_model(f)
    np.testing.assert_allclose(xgb.Booster(model_file=str(f)).predict(xgb.DMatrix(X), output_margin=True),
                               bst.predict(xgb.DMatrix(X), output_margin=True))


def test_hessian_policies_all_train(fraud):
    X, y, C = fraud
    dtr = cxgb.cost_dmatrix(X[:4000], y[:4000], cost_matrix=C[:4000])
    dte = cxgb.cost_dmatrix(X[4000:], y[4000:], cost_matrix=C[4000:])
    es = {}
    for h in ("fisher", "abs", "bound"):
        bst = xgb.train(_params(dtr), dtr, 40, obj=cxgb.aec_objective(hessian=h))
        es[h] = cxgb.expected_savings_metric(bst.predict(dte, output_margin=True), dte)[1]
    assert min(es.values()) > 0.2, es


# ------------------------------------------------------------------ estimator

@parametrize_with_checks([cxgb.CSXGBClassifier(n_estimators=5, n_jobs=1, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_estimator_predict_contract(churn_split):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    labels = np.where(ytr == 1, "churn", "stay")  # string labels: pos_label names the churners
    est = cxgb.CSXGBClassifier(decision="0.5", n_estimators=30, max_depth=3, n_jobs=1, random_state=0)
    est.fit(Xtr, ytr, cost_matrix=Ctr)
    proba = est.predict_proba(Xte)
    assert proba.shape == (len(yte), 2) and np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(1), 1.0)
    np.testing.assert_allclose(proba[:, 1], expit(est.decision_function(Xte)))
    assert np.array_equal(est.predict(Xte), (proba[:, 1] > 0.5).astype(int))
    assert np.array_equal(est.predict(Xte, cost_matrix=Cte), bayes_minimum_risk(proba[:, 1], cost_matrix=Cte))
    kw = dict(fp_cost=Cte[:, 0], fn_cost=Cte[:, 1], tp_cost=Cte[:, 2], tn_cost=Cte[:, 3])
    assert np.array_equal(est.predict(Xte, **kw), est.predict(Xte, cost_matrix=Cte))
    assert list(est.feature_names_in_) == list(Xtr.columns) and est.n_features_in_ == Xtr.shape[1]
    s_labels = cxgb.CSXGBClassifier(decision="0.5", n_estimators=5, n_jobs=1, pos_label="churn").fit(
        Xtr, labels, cost_matrix=Ctr)
    assert set(s_labels.predict(Xte)) <= {"churn", "stay"}


def test_estimator_beats_logloss_on_expected_savings_churn(churn_split):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    est = cxgb.CSXGBClassifier(decision="0.5", n_estimators=100, max_depth=3, n_jobs=1, random_state=0).fit(Xtr, ytr, cost_matrix=Ctr)
    base = xgb.XGBClassifier(n_estimators=100, max_depth=3, learning_rate=0.1, n_jobs=1, random_state=0).fit(Xtr, ytr)
    es_aec = expected_savings_score(yte, est.predict_proba(Xte)[:, 1], cost_matrix=Cte)
    es_ll = expected_savings_score(yte, base.predict_proba(Xte)[:, 1], cost_matrix=Cte)
    assert es_aec > es_ll + 0.02, (es_aec, es_ll)


def test_early_stopping_and_eval_costs(churn_split):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    est = cxgb.CSXGBClassifier(decision="0.5", n_estimators=200, learning_rate=0.3, max_depth=3, early_stopping_rounds=10,
                               n_jobs=1, random_state=0)
    est.fit(Xtr, ytr, cost_matrix=Ctr, eval_set=[(Xte, yte)], eval_costs=[{"cost_matrix": Cte}])
    aec = np.asarray(est.evals_result_["validation_0"]["aec"])  # default eval_metric="aec"
    sav = np.asarray(est.evals_result_["validation_0"]["savings"])
    assert est.best_iteration_ == int(np.argmin(aec))
    assert est.n_estimators_ == est.best_iteration_ + 1 < 200
    got = savings_score(yte, est.predict(Xte), cost_matrix=Cte)  # decision='0.5' by default
    assert got == pytest.approx(sav[est.best_iteration_], abs=1e-6)
    est.set_params(eval_metric="savings").fit(Xtr, ytr, cost_matrix=Ctr, eval_set=[(Xte, yte)],
                                              eval_costs=[{"cost_matrix": Cte}])
    sav = np.asarray(est.evals_result_["validation_0"]["savings"])
    assert est.best_iteration_ == int(np.argmax(sav))
    with pytest.raises(ValueError, match="eval_costs is required"):
        est.fit(Xtr, ytr, cost_matrix=Ctr, eval_set=[(Xte, yte)])
    with pytest.raises(ValueError, match="cost_matrix has"):
        est.fit(Xtr, ytr, cost_matrix=Ctr, eval_set=[(Xte, yte)], eval_costs=[Ctr])
    with pytest.raises(ValueError, match="needs an eval_set"):
        cxgb.CSXGBClassifier(decision="0.5", early_stopping_rounds=3).fit(Xtr, ytr, cost_matrix=Ctr)


def test_estimator_bad_input(fraud):
    X, y, C = fraud
    est = cxgb.CSXGBClassifier(n_estimators=2, n_jobs=1)
    with pytest.raises(ValueError, match="only one class"):
        est.fit(X[:50], np.ones(50), cost_matrix=C[:50])
    with pytest.raises(ValueError, match="Only binary"):
        est.fit(X[:60], np.arange(60) % 3)
    with pytest.raises(ValueError, match="fn_cost has length"):
        est.fit(X, y, fp_cost=1.0, fn_cost=C[:10, 1])
    with pytest.raises(ValueError, match="infinite"):
        est.fit(X, y, fp_cost=np.r_[np.inf, C[1:, 0]], fn_cost=C[:, 1])
    with pytest.raises(TypeError, match="missing costs: fn_cost"):
        est.fit(X, y, fp_cost=C[:, 0])
    with pytest.raises(ValueError, match="numeric"):
        est.fit(np.array([["a", "b"]] * 10), np.arange(10) % 2)
    with pytest.raises(ValueError, match="hessian must be one of"):
        cxgb.CSXGBClassifier(hessian="newton").fit(X, y, cost_matrix=C)


def test_pickle_and_native_save_load(churn_split, tmp_path):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    est = cxgb.CSXGBClassifier(n_estimators=20, max_depth=3, n_jobs=1, random_state=0).fit(Xtr, ytr, cost_matrix=Ctr)
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.predict_proba(Xte), est.predict_proba(Xte))
    f = tmp_path / "csxgb.ubj"
    est.booster_.save_model(f)
    loaded = xgb.Booster(model_file=str(f))
    np.testing.assert_allclose(loaded.predict(xgb.DMatrix(Xte), output_margin=True),
                               est.decision_function(Xte), rtol=1e-6)


def test_metadata_routing_cross_validate(churn_split):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    X, y, C = Xtr.to_numpy()[:2000], ytr[:2000], Ctr[:2000]
    with sklearn.config_context(enable_metadata_routing=True):
        est = cxgb.CSXGBClassifier(decision="0.5", n_estimators=10, max_depth=3, n_jobs=1, random_state=0)
        est.set_fit_request(cost_matrix=True)
        cv = KFold(3)
        scorer = make_savings_scorer()
        got = cross_validate(est, X, y, cv=cv, scoring=scorer, params={"cost_matrix": C})["test_score"]
        gs = GridSearchCV(est, {"max_depth": [2, 3]}, cv=cv, scoring=scorer).fit(X, y, cost_matrix=C)
    want = []
    for tr, te in cv.split(X):
        m = cxgb.CSXGBClassifier(decision="0.5", n_estimators=10, max_depth=3, n_jobs=1, random_state=0).fit(
            X[tr], y[tr], cost_matrix=C[tr])
        want.append(savings_score(y[te], m.predict(X[te]), cost_matrix=C[te]))
    np.testing.assert_allclose(got, want)
    assert gs.best_params_["max_depth"] in (2, 3)


# ------------------------------------------------------------------ native helpers (best iteration, boosters)

def _split(fraud):
    X, y, C = fraud
    dtr = cxgb.cost_dmatrix(X[:3000], y[:3000], cost_matrix=C[:3000])
    dva = cxgb.cost_dmatrix(X[3000:4500], y[3000:4500], cost_matrix=C[3000:4500])
    return dtr, dva


def test_predict_proba_uses_best_iteration(fraud):
    X, y, C = fraud
    dtr, dva = _split(fraud)
    # 70 rounds, early stopping watching the validation AEC with patience 70: all trees kept, best set
    bst = xgb.train(_params(dtr, eta=0.5, max_depth=4), dtr, 70, obj=cxgb.aec_objective(), evals=[(dva, "val")],
                    custom_metric=cxgb.money_metrics, callbacks=[cxgb.early_stopping(70, data_name="val")],
                    verbose_eval=False)
    best = bst.best_iteration
    assert bst.num_boosted_rounds() == 70 and 0 < best < 60
    Xt = X[4500:]
    best_margin = bst.predict(xgb.DMatrix(Xt), output_margin=True, iteration_range=(0, best + 1))
    all_margin = bst.predict(xgb.DMatrix(Xt), output_margin=True)
    np.testing.assert_allclose(cxgb.predict_proba(bst, Xt), expit(best_margin.astype(np.float64)), rtol=1e-12)
    assert np.abs(expit(all_margin) - expit(best_margin)).max() > 0.05  # the fix matters on this data
    np.testing.assert_allclose(cxgb.predict_proba(bst, Xt, iteration_range=(0, 0)), expit(all_margin.astype(float)))
    # bayes_decisions follows the same trees
    dte = cxgb.cost_dmatrix(Xt, y[4500:], cost_matrix=C[4500:])
    assert np.array_equal(cxgb.bayes_decisions(bst, dte),
                          bayes_minimum_risk(expit(best_margin.astype(float)), cost_matrix=C[4500:]))


def test_metric_factory_cannot_be_confused_with_a_metric(fraud):
    dtr, dva = _split(fraud)
    res_uncalled, res_called = {}, {}
    for metric, res in ((cxgb.money_metrics, res_uncalled), (cxgb.money_metrics(), res_called)):
        xgb.train(_params(dtr), dtr, 5, obj=cxgb.aec_objective(), evals=[(dva, "val")], custom_metric=metric,
                  evals_result=res, verbose_eval=False)
    assert res_uncalled == res_called and list(res_called["val"]) == ["expected_savings", "savings", "aec"]
    with pytest.raises(TypeError, match="money_metric is a factory, not a metric.*savings_metric"):
        xgb.train(_params(dtr), dtr, 2, obj=cxgb.aec_objective(), evals=[(dva, "val")],
                  custom_metric=cxgb.money_metric, verbose_eval=False)
    with pytest.raises(ValueError, match="watch must be one of"):
        cxgb.money_metrics(watch="auc")


def test_one_decision_default_estimator_agrees_with_recorded_history(fraud):
    from csboost_plugins.boosting._money_eval import DEFAULT_METRIC_DECISION

    X, y, C = fraud
    assert DEFAULT_METRIC_DECISION == "0.5"
    assert cxgb.money_metric("savings").decision == cxgb.savings_metric.decision == DEFAULT_METRIC_DECISION
    assert cxgb.money_metrics().decision == cxgb.CSXGBClassifier(decision="0.5").decision == DEFAULT_METRIC_DECISION
    # the estimator's predict and the money metric's history agree on the same data (issue: 0.137 vs 0.191)
    est = cxgb.CSXGBClassifier(decision="0.5", n_estimators=25, max_depth=3, n_jobs=1, random_state=0)
    est.fit(X[:3000], y[:3000], cost_matrix=C[:3000], eval_set=[(X[3000:], y[3000:])],
            eval_costs=[{"cost_matrix": C[3000:]}])
    dte = cxgb.cost_dmatrix(X[3000:], y[3000:], cost_matrix=C[3000:])
    metric = cxgb.money_metric("savings")(est.decision_function(X[3000:]), dte)[1]
    predicted = savings_score(y[3000:], est.predict(X[3000:]), cost_matrix=C[3000:])
    assert metric == pytest.approx(predicted, abs=1e-9)
    assert est.evals_result_["validation_0"]["savings"][-1] == pytest.approx(predicted, abs=1e-6)


@pytest.mark.parametrize("metric", ["aec", "savings"])
def test_early_stopping_callback_direction_and_not_round_zero(fraud, metric):
    dtr, dva = _split(fraud)
    res = {}
    bst = xgb.train(_params(dtr), dtr, 120, obj=cxgb.aec_objective(), evals=[(dva, "val")],
                    custom_metric=cxgb.money_metrics, evals_result=res, verbose_eval=False,
                    callbacks=[cxgb.early_stopping(20, metric=metric)])
    hist = np.asarray(res["val"][metric])
    want = int(np.argmin(hist)) if metric == "aec" else int(np.argmax(hist))
    assert bst.best_iteration == want > 0
    # xgboost's own early_stopping_rounds with money_metrics (aec watched last, minimised): no round-0 stop
    res2 = {}
    b2 = xgb.train(_params(dtr), dtr, 120, obj=cxgb.aec_objective(), evals=[(dva, "val")],
                   custom_metric=cxgb.money_metrics, early_stopping_rounds=20, evals_result=res2, verbose_eval=False)
    assert b2.best_iteration == int(np.argmin(res2["val"]["aec"])) > 0
    with pytest.raises(ValueError, match="metric must be one of"):
        cxgb.early_stopping(5, metric="auc")


def test_xgb_cv_folds_keep_their_costs(fraud):
    X, y, C = fraud
    X, y, C = X[:3000], y[:3000], C[:3000]
    dall = cxgb.cost_dmatrix(X, y, cost_matrix=C)
    params = _params(dall)
    perm = np.random.default_rng(0).permutation(3000)
    folds = [(np.setdiff1d(np.arange(3000), perm[k::3]), perm[k::3]) for k in range(3)]
    res = xgb.cv(params, dall, 8, folds=folds, obj=cxgb.aec_objective(), custom_metric=cxgb.money_metrics,
                 as_pandas=False)
    by_hand = {k: [] for k in ("aec", "savings", "expected_savings")}
    for tr, te in folds:  # each fold's model and metrics from scratch, on that fold's own rows and costs
        dtr = cxgb.cost_dmatrix(X[tr], y[tr], cost_matrix=C[tr])
        dte = cxgb.cost_dmatrix(X[te], y[te], cost_matrix=C[te])
        bst = xgb.train(params, dtr, 8, obj=cxgb.aec_objective())
        s = expit(bst.predict(dte, output_margin=True).astype(np.float64))
        by_hand["aec"].append(expected_cost_loss(y[te], s, cost_matrix=C[te], normalize=True))
        by_hand["savings"].append(savings_score(y[te], (s > 0.5).astype(int), cost_matrix=C[te]))
        by_hand["expected_savings"].append(expected_savings_score(y[te], s, cost_matrix=C[te]))
    for k, v in by_hand.items():
        assert res[f"test-{k}-mean"][-1] == pytest.approx(np.mean(v), rel=1e-5)
    # slices of slices keep them too
    sub = dall.slice(np.arange(10, 20)).slice(np.array([3, 1]))
    np.testing.assert_array_equal(cxgb.get_costs(sub), C[[13, 11]])
