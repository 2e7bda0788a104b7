"""What a lightgbm user does with the AEC plugin, in lightgbm's own words (csboost_plugins.lgb).

Each test reproduces a defect found by using the plugin the way lightgbm is used
(``Dataset.create_valid``, ``init_model=``, ``init_score=``, ...) and checks the
result against an independent computation (metrics by hand, a run without the
feature under test).
"""

import lightgbm as lgb
import numpy as np
import pytest
from scipy.special import expit

from csboost_plugins import lgb as clgb
from csboost_plugins.metrics import expected_cost_loss
from csdt.datasets import make_fraud_transactions

from test_boosting_lgb import P  # the same quiet, single-thread, deterministic lightgbm parameters

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(4000, fraud_rate=0.05, random_state=3)
    return b.data.to_numpy(), np.asarray(b.target), b.cost_matrix


def _aec_by_hand(bst, X, y, C, margin0):
    """The validation AEC from the unbaked booster's trees plus the start margin, computed here."""
    return expected_cost_loss(y, expit(bst.predict(X, raw_score=True) + margin0), cost_matrix=C, normalize=True)


def test_create_valid_then_attach_costs_scores_from_the_start_margin(fraud):
    # lightgbm's own way to a validation set: dtrain.create_valid(X, label=y), then the costs
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    dva = clgb.attach_costs(dtr.create_valid(X[2000:], label=y[2000:]), cost_matrix=C[2000:])
    res = {}
    bst = lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 8, valid_sets=[dva], valid_names=["val"],
                    feval=clgb.aec_metric, callbacks=[lgb.record_evaluation(res)])
    m0 = dtr.csboost_start_margin
    assert abs(m0) > 0.1  # the test only means something when the start margin is not 0
    assert res["val"]["aec"][-1] == pytest.approx(_aec_by_hand(bst, X[2000:], y[2000:], C[2000:], m0), rel=1e-9)


def test_valid_set_without_the_start_margin_is_a_clear_error(fraud):
    # a hand-built Dataset gets reference=dtrain from lgb.train only, so it has no init score:
    # its raw scores lack the start margin and every money metric on it would be silently wrong
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    plain = clgb.attach_costs(lgb.Dataset(X[2000:], label=y[2000:]), cost_matrix=C[2000:])
    for kw in (dict(feval=clgb.money_metrics), dict(callbacks=[clgb.record_money({})])):
        with pytest.raises(ValueError, match="init_score.*start margin.*reference=dtrain"):
            lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[plain], **kw)


@pytest.mark.parametrize("weight, match", [
    (np.ones(3), "weight has length 3 but y has 4000 rows"),
    (np.full(4000, np.nan), "weight.*finite"),
    (-np.ones(4000), "weight.*non-negative"),
])
def test_cost_dataset_checks_weight(fraud, weight, match):
    # NaN weights gave start margin 0 silently; a wrong length a numpy broadcast error
    X, y, C = fraud
    with pytest.raises(ValueError, match=match):
        clgb.cost_dataset(X, y, cost_matrix=C, weight=weight)


def test_cost_dataset_checks_y_length_and_init_score(fraud):
    X, y, C = fraud
    with pytest.raises(ValueError, match="y has 3999 rows but X has 4000"):
        clgb.cost_dataset(X, y[:-1], cost_matrix=C[:-1])
    # lightgbm's init_score= would collide with the start margin (TypeError: multiple values)
    with pytest.raises(ValueError, match="init_score.*start_margin="):
        clgb.cost_dataset(X, y, cost_matrix=C, init_score=np.zeros(len(y)))


def test_continued_training_from_a_baked_booster_bakes_once(fraud, tmp_path):
    # lgb.train(..., init_model=baked) starts from the baked booster's raw scores (start margin included)
    # and keeps its trees: baking the Dataset's start margin again shifted every score by m0
    X, y, C = fraud
    p = {**P, "objective": clgb.aec_objective()}
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    straight = clgb.bake_start_margin(lgb.train(p, dtr, 12), dtr)
    first = clgb.bake_start_margin(lgb.train(p, dtr, 7), dtr)
    first.save_model(tmp_path / "first.txt")
    for init_model in (first, str(tmp_path / "first.txt")):
        dtr2 = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
        more = clgb.bake_start_margin(lgb.train(p, dtr2, 5, init_model=init_model), dtr2)
        assert more.num_trees() == 12
        np.testing.assert_allclose(more.predict(X[2000:], raw_score=True), straight.predict(X[2000:], raw_score=True),
                                   rtol=0, atol=1e-9)
        np.testing.assert_allclose(clgb.predict_proba(more, X[2000:]), straight.predict(X[2000:]), rtol=0, atol=1e-12)


def test_estimator_predict_takes_lgbmclassifier_keywords(fraud):
    # LGBMClassifier.predict / predict_proba take raw_score, num_iteration, start_iteration, pred_leaf,
    # pred_contrib (SHAP values); the drop-in raised TypeError on each
    X, y, C = fraud
    est = clgb.CSLGBMClassifier(decision="0.5", n_estimators=15, num_leaves=7, random_state=0, n_jobs=1)
    est.fit(X[:2000], y[:2000], cost_matrix=C[:2000])
    Xt, Ct = X[2000:], C[2000:]
    margin = est.decision_function(Xt)
    for f in (est.predict, est.predict_proba):
        np.testing.assert_array_equal(f(Xt, raw_score=True), margin)
        contrib = f(Xt, pred_contrib=True)
        assert contrib.shape == (len(Xt), X.shape[1] + 1)
        np.testing.assert_allclose(contrib.sum(axis=1), margin, rtol=0, atol=1e-9)
    leaves = est.predict(Xt, pred_leaf=True)
    assert leaves.shape == (len(Xt), 15)
    # margin of the first k trees summed from the leaf values by hand
    k = 4
    by_hand = sum(np.array([est.booster_.get_leaf_output(t, int(leaf)) for leaf in leaves[:, t]]) for t in range(k))
    s_k = expit(by_hand)
    np.testing.assert_allclose(est.predict_proba(Xt, num_iteration=k)[:, 1], s_k, rtol=0, atol=1e-12)
    later = sum(np.array([est.booster_.get_leaf_output(t, int(leaf)) for leaf in leaves[:, t]]) for t in range(k, 15))
    np.testing.assert_allclose(est.predict_proba(Xt, start_iteration=k)[:, 1], expit(later), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xt, num_iteration=k), (s_k > 0.5).astype(int))
    bmr = (s_k * Ct[:, 2] + (1 - s_k) * Ct[:, 0] < s_k * Ct[:, 1] + (1 - s_k) * Ct[:, 3]).astype(int)
    np.testing.assert_array_equal(est.predict(Xt, num_iteration=k, cost_matrix=Ct), bmr)


@pytest.mark.parametrize("watch", ["aec", "savings"])
def test_lightgbm_early_stopping_first_metric_only_watches_the_watched_metric(fraud, watch):
    # lightgbm's own early_stopping(first_metric_only=True) stops on the FIRST metric reported;
    # money_metrics(watch=...) reported it last (xgboost's convention), so lightgbm watched expected_savings
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    dva = clgb.cost_dataset(X[2000:], y[2000:], cost_matrix=C[2000:], reference=dtr)
    res = {}
    bst = lgb.train({**P, "objective": clgb.aec_objective(), "learning_rate": 0.5}, dtr, 150, valid_sets=[dva],
                    valid_names=["val"], feval=clgb.money_metrics(watch=watch),
                    callbacks=[lgb.early_stopping(5, first_metric_only=True, verbose=False),
                               lgb.record_evaluation(res)])
    assert list(res["val"])[0] == watch
    curve = np.asarray(res["val"][watch])
    best = int(np.argmin(curve) if watch == "aec" else np.argmax(curve)) + 1
    assert bst.best_iteration == best and len(curve) == best + 5


def test_cv_early_stopping_watches_the_validation_folds_with_eval_train_metric(fraud):
    # lgb.cv names the training folds "train" (lgb.train: "training"); with eval_train_metric=True the
    # callback watched the training folds' aec, which keeps falling, and never stopped
    X, y, C = fraud
    dtr = clgb.cost_dataset(X, y, cost_matrix=C)
    p = {**P, "objective": clgb.aec_objective(), "learning_rate": 0.5}
    kw = dict(nfold=3, seed=0, feval=clgb.money_metrics, callbacks=[clgb.early_stopping(4)])
    plain = lgb.cv(p, dtr, 120, **kw)
    with_train = lgb.cv(p, dtr, 120, eval_train_metric=True, **kw)
    best = int(np.argmin(plain["valid aec-mean"])) + 1
    assert best < 100  # it does stop early on the validation folds
    assert len(plain["valid aec-mean"]) == best == len(with_train["valid aec-mean"])


def test_record_money_in_cv_records_the_fold_means(fraud):
    # record_money inside lgb.cv raised "TypeError: 'function' object is not iterable"
    X, y, C = fraud
    dtr = clgb.cost_dataset(X, y, cost_matrix=C)
    rec = {}
    r = lgb.cv({**P, "objective": clgb.aec_objective()}, dtr, 6, nfold=3, seed=0, eval_train_metric=True,
               feval=clgb.money_metrics, callbacks=[clgb.record_money(rec)])
    for name in ("train", "valid"):
        for metric in ("savings", "expected_savings"):
            np.testing.assert_allclose(rec[name][metric], r[f"{name} {metric}-mean"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("kw", [dict(boosting_type="rf"), dict(boosting="random_forest")])
def test_estimator_rf_boosting_is_a_clear_error(fraud, kw):
    # lightgbm's rf mode refuses custom objectives; the estimator reported "invalid parameter train_data"
    X, y, C = fraud
    est = clgb.CSLGBMClassifier(n_estimators=5, subsample=0.5, subsample_freq=1, n_jobs=1, **kw)
    with pytest.raises(ValueError, match="boosting_type='rf'.*custom objective"):
        est.fit(X, y, cost_matrix=C)


def test_estimator_best_iteration_from_an_early_stopping_callback(fraud):
    # fit(callbacks=[lgb.early_stopping(...)]) cut the booster at the best round but left best_iteration_ None
    X, y, C = fraud
    est = clgb.CSLGBMClassifier(decision="0.5", n_estimators=300, num_leaves=7, learning_rate=0.5, n_jobs=1, random_state=0)
    est.fit(X[:2000], y[:2000], cost_matrix=C[:2000], eval_set=[(X[2000:], y[2000:])], eval_costs=[C[2000:]],
            callbacks=[lgb.early_stopping(5, first_metric_only=True, verbose=False)])
    curve = est.evals_result_["validation_0"]["aec"]  # the watched metric, reported first
    assert len(curve) < 300
    assert est.best_iteration_ == int(np.argmin(curve)) + 1 == est.booster_.num_trees() == est.n_estimators_
    unstopped = clgb.CSLGBMClassifier(decision="0.5", n_estimators=5, num_leaves=7, n_jobs=1).fit(X, y, cost_matrix=C)
    assert unstopped.best_iteration_ is None


def test_estimator_eval_names_and_best_score(fraud):
    # LGBMClassifier.fit(eval_names=...) and best_score_: TypeError / AttributeError before
    X, y, C = fraud
    est = clgb.CSLGBMClassifier(decision="0.5", n_estimators=300, num_leaves=7, learning_rate=0.5, n_jobs=1, random_state=0,
                                early_stopping_rounds=5)
    est.fit(X[:2000], y[:2000], cost_matrix=C[:2000], eval_set=[(X[:2000], y[:2000]), (X[2000:], y[2000:])],
            eval_costs=[C[:2000], C[2000:]], eval_names=["train", "val"])
    assert list(est.evals_result_) == ["train", "val"] == list(est.best_score_)
    curve = est.evals_result_["val"]["aec"]
    assert est.best_iteration_ == int(np.argmin(curve)) + 1 < 300  # stopped on the last set, by its name
    for name in ("train", "val"):
        for metric, values in est.evals_result_[name].items():
            assert est.best_score_[name][metric] == values[est.best_iteration_ - 1]
    with pytest.raises(ValueError, match="eval_names needs one name per eval set"):
        est.fit(X, y, cost_matrix=C, eval_set=[(X, y)], eval_costs=[C], eval_names=["a", "b"])


def test_money_metrics_as_lgbmclassifier_eval_metric_say_why_not(fraud):
    # LGBMClassifier's eval_metric calls f(y_true, y_pred[, weight, group]): the metrics said "this Dataset
    # carries no costs: build it with cost_dataset" (impossible there) or "takes 3 positional arguments"
    X, y, C = fraud
    obj = clgb.aec_objective(cost_matrix=C[:2000])
    for metric in (clgb.money_metrics, clgb.money_metrics(), clgb.savings_metric, clgb.money_metric("aec")):
        est = lgb.LGBMClassifier(objective=obj, n_estimators=2, verbose=-1, n_jobs=1)
        with pytest.raises(TypeError, match="LGBMClassifier's eval_metric.*CSLGBMClassifier"):
            est.fit(X[:2000], y[:2000], eval_set=[(X[2000:], y[2000:])], eval_metric=metric)


def test_estimator_fit_takes_lightgbm_47_eval_X_eval_y(fraud):
    # lightgbm 4.7 deprecates eval_set for eval_X / eval_y; CSLGBMClassifier.fit raised TypeError on them
    X, y, C = fraud
    kw = dict(n_estimators=300, num_leaves=7, learning_rate=0.5, n_jobs=1, random_state=0, early_stopping_rounds=5)
    a, b = slice(2000, 3000), slice(3000, 4000)
    ref = clgb.CSLGBMClassifier(decision="0.5", **kw).fit(X[:2000], y[:2000], cost_matrix=C[:2000],
                                          eval_set=[(X[a], y[a]), (X[b], y[b])], eval_costs=[C[a], C[b]])
    new = clgb.CSLGBMClassifier(decision="0.5", **kw).fit(X[:2000], y[:2000], cost_matrix=C[:2000], eval_X=(X[a], X[b]),
                                          eval_y=(y[a], y[b]), eval_costs=[C[a], C[b]])
    assert new.evals_result_ == ref.evals_result_ and new.best_iteration_ == ref.best_iteration_ < 300
    one = clgb.CSLGBMClassifier(decision="0.5", **kw).fit(X[:2000], y[:2000], cost_matrix=C[:2000], eval_X=X[b], eval_y=y[b],
                                          eval_costs=[C[b]])
    assert one.evals_result_["validation_0"] == ref.evals_result_["validation_1"]
    with pytest.raises(ValueError, match="not both"):
        clgb.CSLGBMClassifier(decision="0.5", **kw).fit(X, y, cost_matrix=C, eval_set=[(X, y)], eval_X=X, eval_y=y, eval_costs=[C])
    with pytest.raises(ValueError, match="eval_X and eval_y go together"):
        clgb.CSLGBMClassifier(decision="0.5", **kw).fit(X, y, cost_matrix=C, eval_X=X, eval_costs=[C])


def test_estimator_random_state_none_is_lightgbms_default_seed(fraud):
    # LGBMClassifier(random_state=None) uses lightgbm's default seeds (the same model every fit);
    # the drop-in drew a fresh seed each fit, so bagging runs differed by up to 0.6 in probability
    X, y, C = fraud
    kw = dict(n_estimators=10, num_leaves=7, subsample=0.5, subsample_freq=1, colsample_bytree=0.5, n_jobs=1)
    a, b = (clgb.CSLGBMClassifier(decision="0.5", **kw).fit(X, y, cost_matrix=C).predict_proba(X)[:, 1] for _ in range(2))
    np.testing.assert_array_equal(a, b)
    seeded = clgb.CSLGBMClassifier(decision="0.5", random_state=7, **kw).fit(X, y, cost_matrix=C).predict_proba(X)[:, 1]
    assert np.abs(seeded - a).max() > 1e-3  # the seed does reach the bagging
    gen = clgb.CSLGBMClassifier(decision="0.5", random_state=np.random.default_rng(0), **kw).fit(X, y, cost_matrix=C)
    assert gen.predict_proba(X).shape == (len(y), 2)


def _binary_sets(fraud):
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000], start_margin=None)
    dva = clgb.cost_dataset(X[2000:], y[2000:], cost_matrix=C[2000:], reference=dtr, start_margin=None)
    return dtr, dva


def test_probability_metric_refuses_margins(fraud):
    # a custom objective hands feval margins; money_metric(preds="probability") read them as probabilities
    # (a reused Dataset keeps the objective of its first lgb.train in .params, so only the scores can tell)
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    dva = clgb.cost_dataset(X[2000:], y[2000:], cost_matrix=C[2000:], reference=dtr)
    for metric in (clgb.money_metrics(preds="probability"), clgb.money_metric("aec", preds="probability")):
        with pytest.raises(ValueError, match="preds='probability'.*outside.*use preds='margin'"):
            lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[dva], feval=metric)


def test_record_money_reads_probabilities_under_lightgbms_binary_objective(fraud):
    # a logloss baseline recorded with the same callback: savings of sigmoid(probability) before
    X, y, C = fraud
    dtr, dva = _binary_sets(fraud)
    lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[dva])  # the same Datasets first
    rec = {}
    bst = lgb.train({**P, "application": "binary"}, dtr, 6, valid_sets=[dva], valid_names=["val"],
                    callbacks=[clgb.record_money(rec)])
    from csboost_plugins.metrics import savings_score

    for k in (1, 6):
        s = bst.predict(X[2000:], num_iteration=k)
        assert rec["val"]["savings"][k - 1] == pytest.approx(
            savings_score(y[2000:], (s > 0.5).astype(int), cost_matrix=C[2000:]), abs=1e-12)


def test_estimator_has_lgbmclassifier_fitted_attributes(fraud):
    import pandas as pd

    X, y, C = fraud
    Xf = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    est = clgb.CSLGBMClassifier(n_estimators=4, num_leaves=7, n_jobs=1)
    with pytest.raises(AttributeError):  # hasattr(est, "feature_name_") is False before fit
        est.feature_name_
    est.fit(Xf, y, cost_matrix=C)
    native = lgb.LGBMClassifier(n_estimators=4, num_leaves=7, n_jobs=1, verbose=-1).fit(Xf, y)
    for attr in ("feature_name_", "n_features_", "n_classes_", "n_iter_"):
        assert getattr(est, attr) == getattr(native, attr), attr


def test_bake_start_margin_reaches_linear_trees(fraud):
    # linear_tree=True: a linear leaf outputs leaf_const (+ coeff . x), not the leaf_value that
    # set_leaf_output changes, so the baked model silently lacked the start margin
    X, y, C = fraud
    X = X.copy()
    X[::7, 2] = np.nan  # rows with a missing feature take the leaf_value path
    dtr = clgb.cost_dataset(X, y, cost_matrix=C, params={"linear_tree": True})
    bst = lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 6)
    assert "is_linear=1" in bst.model_to_string()
    raw = bst.predict(X, raw_score=True)
    clgb.bake_start_margin(bst, dtr)
    np.testing.assert_allclose(bst.predict(X, raw_score=True) - raw, dtr.csboost_start_margin, rtol=0, atol=1e-12)
    served = lgb.Booster(model_str=clgb.to_deployable(bst).model_to_string()).predict(X)
    np.testing.assert_allclose(served, expit(raw + dtr.csboost_start_margin), rtol=0, atol=1e-12)
    # the estimator: with a vanishing learning rate every margin is the start margin
    est = clgb.CSLGBMClassifier(n_estimators=3, learning_rate=1e-12, linear_tree=True, n_jobs=1)
    est.fit(X, y, cost_matrix=C)
    np.testing.assert_allclose(est.decision_function(X), est.start_margin_, rtol=0, atol=1e-9)


def test_valid_set_built_without_reference_is_a_clear_error(fraud):
    # cost_dataset(Xv, yv, ...) without reference=dtrain starts the validation scores from the
    # validation rows' own cost prior (their labels!), not the training start margin: metrics and
    # early stopping were silently off by the difference
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    dva = clgb.cost_dataset(X[2000:], y[2000:], cost_matrix=C[2000:])
    assert dva.csboost_start_margin != dtr.csboost_start_margin
    with pytest.raises(ValueError, match="start margin.*reference=dtrain"):
        lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[dva], feval=clgb.money_metrics)


@pytest.mark.parametrize("shift", [lambda y: y + 1, lambda y: 2 * y - 1, lambda y: 0.5 * y])
def test_attach_costs_refuses_labels_other_than_0_1(fraud, shift):
    # a hand-built Dataset with labels {1, 2} or {-1, 1} trained silently on garbage regrets
    X, y, C = fraud
    with pytest.raises(ValueError, match="label must be 0/1"):
        clgb.attach_costs(lgb.Dataset(X, label=shift(y)), cost_matrix=C)
    clgb.attach_costs(lgb.Dataset(X, label=y.astype(float)), cost_matrix=C)  # 0.0 / 1.0 are fine


def test_attach_costs_to_a_dataset_read_from_a_binary_file(fraud, tmp_path):
    # lgb.Dataset("train.bin"): attach_costs raised lightgbm's bare "Cannot get label before construct Dataset"
    X, y, C = fraud
    lgb.Dataset(X, label=y, params={"verbose": -1}).save_binary(tmp_path / "d.bin")
    ds = lgb.Dataset(str(tmp_path / "d.bin"), params={"verbose": -1})
    with pytest.raises(ValueError, match=r"construct\(\)"):
        clgb.attach_costs(ds, cost_matrix=C)
    clgb.attach_costs(ds.construct(), cost_matrix=C)
    ref = clgb.attach_costs(lgb.Dataset(X, label=y), cost_matrix=C)
    p = {**P, "objective": clgb.aec_objective()}
    np.testing.assert_allclose(lgb.train(p, ds, 5).predict(X, raw_score=True),
                               lgb.train(p, ref, 5).predict(X, raw_score=True), rtol=0, atol=1e-12)


def test_uncalled_objective_factory_says_call_it(fraud):
    # params["objective"] = clgb.aec_objective (uncalled, as feval=clgb.money_metrics may be):
    # "aec_objective() takes 0 positional arguments but 2 were given"
    X, y, C = fraud
    with pytest.raises(TypeError, match=r"factory.*aec_objective\(\)"):
        lgb.train({**P, "objective": clgb.aec_objective}, clgb.cost_dataset(X, y, cost_matrix=C), 2)


def test_valid_set_of_a_training_set_without_start_margin(fraud):
    # dtrain built with start_margin=None: cost_dataset(..., reference=dtrain) computed the validation
    # rows' own cost prior as their init score, so they were scored from a start training never had
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000], start_margin=None)
    dva = clgb.cost_dataset(X[2000:], y[2000:], cost_matrix=C[2000:], reference=dtr)
    res = {}
    bst = lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 5, valid_sets=[dva], valid_names=["val"],
                    feval=clgb.aec_metric, callbacks=[lgb.record_evaluation(res)])
    assert res["val"]["aec"][-1] == pytest.approx(_aec_by_hand(bst, X[2000:], y[2000:], C[2000:], 0.0), rel=1e-9)
    own = clgb.cost_dataset(X[2000:], y[2000:], cost_matrix=C[2000:])  # no reference: its own start margin
    with pytest.raises(ValueError, match="own start margin.*reference=dtrain"):
        lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[own], feval=clgb.money_metrics)


def test_set_weight_and_set_label_after_training_are_used(fraud):
    # the objective and the metrics cached (y, d, w) on the Dataset: after ds.set_weight(w) / set_label
    # a second lgb.train silently used the old weights (raw scores 2.3 away from a fresh Dataset)
    X, y, C = fraud
    p = {**P, "objective": clgb.aec_objective()}
    w = np.linspace(0.5, 2.0, len(y))
    flipped = y.copy()
    flipped[:300] = 1 - flipped[:300]
    ds = clgb.cost_dataset(X, y, cost_matrix=C, start_margin=None)
    lgb.train(p, ds, 3, valid_sets=[ds], feval=clgb.aec_metric)
    for change, fresh_kw in ((lambda: ds.set_weight(w), dict(weight=w)), (lambda: ds.set_label(flipped), None)):
        change()
        res = {}
        got = lgb.train(p, ds, 3, valid_sets=[ds], valid_names=["train"], feval=clgb.aec_metric,
                        callbacks=[lgb.record_evaluation(res)])
        fresh = clgb.cost_dataset(X, flipped if fresh_kw is None else y, cost_matrix=C, start_margin=None, weight=w)
        ref = {}
        want = lgb.train(p, fresh, 3, valid_sets=[fresh], valid_names=["train"], feval=clgb.aec_metric,
                         callbacks=[lgb.record_evaluation(ref)])
        np.testing.assert_allclose(got.predict(X, raw_score=True), want.predict(X, raw_score=True), rtol=0,
                                   atol=1e-9)
        assert res["train"]["aec"] == pytest.approx(ref["train"]["aec"], rel=1e-12)
