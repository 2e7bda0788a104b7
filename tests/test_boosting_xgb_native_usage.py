"""What a user coming from xgboost does with the AEC plugin, in xgboost's own words.

Each test is a defect found by using ``csboost_plugins.xgb`` the way ``xgb.train`` /
``XGBClassifier`` users do; the expected values come from xgboost itself (its callbacks,
its ``Booster`` attributes) or from the estimator's own recorded history.
"""

import numpy as np
import pytest
import xgboost as xgb

from csboost_plugins import xgb as cxgb
from csboost_plugins.xgb import CSXGBClassifier
from csdt.datasets import make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(4000, fraud_rate=0.05, random_state=0)
    return b.data.to_numpy(), np.asarray(b.target), b.fn_cost


def _fit_kw(fraud):
    X, y, amount = fraud
    tr, va = slice(0, 3000), slice(3000, None)
    return dict(X=X[tr], y=y[tr], fp_cost=10.0, fn_cost=amount[tr], eval_set=[(X[va], y[va])],
                eval_costs=[{"fp_cost": 10.0, "fn_cost": amount[va]}])


# ------------------------------------------------------------------ native: aec_params
@pytest.mark.parametrize("objective", ["binary:logistic", "reg:logistic", "binary:hinge"])
def test_aec_params_refuses_a_native_objective_in_params(fraud, objective):
    """xgboost users keep ``"objective": "binary:logistic"`` in their params; with it xgboost reads
    base_score (our start margin) as a probability: a native 'base_score must be in (0,1)' crash,
    or, for a margin inside (0, 1), a silently different start."""
    X, y, amount = fraud
    dtrain = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount)
    with pytest.raises(ValueError, match=r"params\['objective'\]"):
        cxgb.aec_params(dtrain, {"objective": objective, "max_depth": 3})
    # the margin objective xgboost itself records with obj= stays accepted
    p = cxgb.aec_params(dtrain, {"objective": "reg:squarederror", "max_depth": 3})
    assert p["base_score"] == pytest.approx(cxgb.start_margin(dtrain))


# ------------------------------------------------------------------ CSXGBClassifier
@pytest.mark.parametrize("params", [{"objective": "binary:logistic"}, {"base_score": 0.3}])
def test_estimator_params_dict_cannot_replace_the_loss_or_start(fraud, params):
    """``params={"objective": ...}`` overrode the AEC's parameters after validation: xgboost then
    failed with 'invalid parameter is_valid'; ``params={"base_score": p}`` silently became the
    start margin (a margin, not XGBClassifier's probability) while ``start_margin_`` said otherwise."""
    kw = _fit_kw(fraud)
    est = CSXGBClassifier(n_estimators=5, max_depth=3, n_jobs=1, params=params)
    key = next(iter(params))
    with pytest.raises(ValueError, match=rf"params\['{key}'\]"):
        est.fit(kw["X"], kw["y"], fp_cost=10.0, fn_cost=kw["fn_cost"])


@pytest.mark.parametrize("save_best", [False, True])
def test_xgboost_early_stopping_callback_sets_best_iteration(fraud, save_best):
    """``callbacks=[xgb.callback.EarlyStopping(...)]`` (XGBClassifier's way) stopped the run, but
    ``best_iteration_`` stayed None and ``n_estimators_`` counted trees the booster no longer had."""
    kw = _fit_kw(fraud)
    cb = xgb.callback.EarlyStopping(rounds=5, metric_name="savings", maximize=True, save_best=save_best)
    est = CSXGBClassifier(decision="0.5", n_estimators=200, max_depth=3, n_jobs=1, callbacks=[cb]).fit(**kw)
    sav = est.evals_result_["validation_0"]["savings"]
    assert len(sav) < 200  # the callback stopped the run
    best = int(np.argmax(sav))  # xgboost keeps the first of equal maxima
    assert est.best_iteration_ == best
    assert est.n_estimators_ == est.get_booster().num_boosted_rounds() == best + 1


def test_xgbclassifier_attribute_names_after_early_stopping(fraud):
    """``best_iteration``, ``best_score`` and ``evals_result()`` are how XGBClassifier users read an
    early-stopped fit."""
    kw = _fit_kw(fraud)
    est = CSXGBClassifier(decision="0.5", n_estimators=200, max_depth=3, n_jobs=1, early_stopping_rounds=5).fit(**kw)
    aec = est.evals_result_["validation_0"]["aec"]
    assert est.best_iteration == est.best_iteration_ == int(np.argmin(aec))
    assert est.best_score == pytest.approx(aec[est.best_iteration], abs=1e-6)
    assert est.evals_result() == est.evals_result_
    # the saved booster carries them for plain xgboost (XGBClassifier.load_model reads best_iteration)
    assert int(est.get_booster().attr("best_iteration")) == est.best_iteration
    plain = CSXGBClassifier(decision="0.5", n_estimators=3, n_jobs=1).fit(kw["X"], kw["y"], fp_cost=10.0, fn_cost=kw["fn_cost"])
    with pytest.raises(AttributeError, match="best_iteration"):  # not set without early stopping, as xgboost
        plain.best_iteration
    with pytest.raises(ValueError, match="eval_set"):  # xgboost's XGBoostError, a ValueError
        plain.evals_result()


@pytest.mark.parametrize("metric", [["aec"], ("aec", "savings"), None])
def test_eval_metric_not_a_name_is_a_value_error_naming_it(fraud, metric):
    """XGBClassifier takes a list of metrics; here one money-metric name is needed, and a list raised
    ``TypeError: unhashable type: 'list'`` from inside the check."""
    kw = _fit_kw(fraud)
    with pytest.raises(ValueError, match="eval_metric"):
        CSXGBClassifier(n_estimators=3, n_jobs=1, eval_metric=metric).fit(**kw)


def test_gblinear_feature_importances_as_xgboost(fraud):
    """``booster="gblinear"``: ``feature_importances_`` raised xgboost's 'gblinear only has weight'
    error; XGBClassifier defaults to the "weight" importance (the normalised coefficients) there."""
    X, y, amount = fraud
    trees_only = dict.fromkeys(["max_depth", "max_bin", "tree_method", "gamma", "min_child_weight", "subsample",
                                "colsample_bytree"])  # our tree defaults; xgboost warns they are unused
    est = CSXGBClassifier(decision="0.5", n_estimators=5, booster="gblinear", n_jobs=1, **trees_only)
    est.fit(X, y, fp_cost=10.0, fn_cost=amount)
    coef = np.array(list(est.get_booster().get_score(importance_type="weight").values()), dtype=np.float32)
    np.testing.assert_allclose(est.feature_importances_, coef / coef.sum(), rtol=1e-6)


# ------------------------------------------------------------------ xgboost.dask
def test_dask_objective_without_costs_in_weight_names_the_fix(fraud):
    """Under xgboost.dask the workers rebuild the DMatrix from label and weight, so the objective must
    read the folded costs; forgetting ``costs_in_weight=True`` told the user to build a
    ``cost_dmatrix``, which cannot reach the workers."""
    import dask.array as da
    import dask.distributed as distributed
    from xgboost import dask as dxgb

    X, y, amount = fraud
    chunks = 2000
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        Xd, yd = da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=chunks)
        dtrain, info = cxgb.dask_cost_dmatrix(client, Xd, yd, fp_cost=10.0, fn_cost=da.from_array(amount, chunks))
        params = {"max_depth": 3, "base_score": info["start_margin"], "disable_default_eval_metric": 1}
        with pytest.raises(ValueError, match=r"costs_in_weight=True"):
            dxgb.train(client, params, dtrain, 2, obj=cxgb.aec_objective())
        out = dxgb.train(client, params, dtrain, 2, obj=cxgb.aec_objective(costs_in_weight=True))
        assert out["booster"].num_boosted_rounds() == 2


# ------------------------------------------------------------------ native helpers: bad input
def test_early_stopping_takes_numpy_integers_and_refuses_bad_min_delta():
    """Rounds from a parameter grid are numpy integers; xgboost's own EarlyStopping takes them."""
    cb = cxgb.early_stopping(np.int64(5))
    assert cb.rounds == 5 and isinstance(cb, xgb.callback.EarlyStopping)
    for bad in (5.0, True, 0):
        with pytest.raises(ValueError, match="rounds"):
            cxgb.early_stopping(bad)
    with pytest.raises(ValueError, match="min_delta"):
        cxgb.early_stopping(5, min_delta=np.nan)


def test_predict_proba_of_an_estimator_is_a_type_error_naming_the_fix(fraud):
    X, y, amount = fraud
    est = CSXGBClassifier(n_estimators=2, n_jobs=1).fit(X, y, fp_cost=10.0, fn_cost=amount)
    with pytest.raises(TypeError, match="booster.*predict_proba"):
        cxgb.predict_proba(est, X)


def test_cost_scale_not_a_number_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="cost_scale"):
        cxgb.aec_objective(cost_scale="x")


@pytest.mark.parametrize("when", ["before", "after"])
def test_dmatrix_labels_must_be_0_1(fraud, when):
    """A DMatrix labelled 0/2 (or relabelled after ``attach_costs``) trained silently on regrets
    computed with y = 2; xgboost's own binary:logistic refuses such labels."""
    X, y, amount = fraud
    dm = xgb.DMatrix(X, label=np.where(y == 1, 2.0, 0.0) if when == "before" else y)
    cxgb.attach_costs(dm, fp_cost=10.0, fn_cost=amount)
    if when == "after":
        dm.set_label(np.where(y == 1, 2.0, 0.0))
    with pytest.raises(ValueError, match="label.*0 or 1"):
        xgb.train({}, dm, 2, obj=cxgb.aec_objective())
    with pytest.raises(ValueError, match="label.*0 or 1"):
        cxgb.aec_metric(np.zeros(len(y), np.float32), dm)


def test_random_state_none_is_repeatable_as_xgbclassifier(fraud):
    """XGBClassifier(random_state=None) uses xgboost's seed 0: two fits with row subsampling give
    the same model. Ours drew a fresh seed every fit, so a rerun gave another model."""
    X, y, amount = fraud
    kw = dict(n_estimators=10, subsample=0.5, colsample_bynode=0.5, n_jobs=1)
    native = [xgb.XGBClassifier(**kw).fit(X, y).predict_proba(X)[:, 1] for _ in range(2)]
    assert np.array_equal(*native)
    ours = [CSXGBClassifier(**kw).fit(X, y, fp_cost=10.0, fn_cost=amount).predict_proba(X)[:, 1] for _ in range(2)]
    assert np.array_equal(*ours)
    seeded = CSXGBClassifier(**kw, random_state=0).fit(X, y, fp_cost=10.0, fn_cost=amount).predict_proba(X)[:, 1]
    assert np.array_equal(ours[0], seeded)  # None is xgboost's default seed, 0
    other = CSXGBClassifier(**kw, random_state=1).fit(X, y, fp_cost=10.0, fn_cost=amount).predict_proba(X)[:, 1]
    assert not np.array_equal(ours[0], other)  # the seed reaches the row sampling


def test_decision_auto_docs_name_the_booster_predict_proba_uses(fraud):
    """With ``decision="auto"`` choosing logloss + BMR, ``predict_proba`` is the logloss booster's;
    ``booster_``'s docstring said plain xgboost's ``booster_.predict`` returned it (0.7 off here)."""
    X, y, amount = fraud
    tr, va, te = slice(0, 1500), slice(1500, 2200), slice(2200, None)
    est = CSXGBClassifier(n_estimators=50, max_depth=3, n_jobs=1, decision="auto")
    est.fit(X[tr], y[tr], fp_cost=10.0, fn_cost=amount[tr], eval_set=[(X[va], y[va])],
            eval_costs=[{"fp_cost": 10.0, "fn_cost": amount[va]}])
    assert est.decision_ == "logloss+bmr"
    p = est.predict_proba(X[te])[:, 1]
    assert np.abs(est.logloss_booster_.predict(xgb.DMatrix(X[te])) - p).max() < 1e-6
    entry = CSXGBClassifier.__doc__.split("    booster_ : xgboost.Booster")[1].split(" : ")[0]
    assert "logloss_booster_" in entry
    assert "logloss_booster_" in CSXGBClassifier.get_booster.__doc__


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_X_as_xgbclassifier(fraud, fmt):
    """XGBClassifier takes scipy sparse X (absent entries are missing values); ours refused it."""
    import scipy.sparse as sp

    X, y, amount = fraud
    Xd = np.where(np.random.RandomState(0).rand(*X.shape) < 0.3, 0.0, X)  # 30% absent
    Xs = sp.csr_matrix(Xd) if fmt == "csr" else sp.csc_matrix(Xd)
    kw = dict(n_estimators=10, max_depth=3, n_jobs=1)
    est = CSXGBClassifier(decision="0.5", **kw).fit(Xs, y, fp_cost=10.0, fn_cost=amount, eval_set=[(Xs, y)],
                                    eval_costs=[{"fp_cost": 10.0, "fn_cost": amount}])
    # xgboost's meaning of sparse input: an absent entry is a missing value, i.e. NaN in dense X
    Xnan = np.where(Xd == 0.0, np.nan, Xd)
    dense = CSXGBClassifier(decision="0.5", **kw).fit(Xnan, y, fp_cost=10.0, fn_cost=amount)
    np.testing.assert_array_equal(est.predict_proba(Xs), dense.predict_proba(Xnan))
    assert est.n_features_in_ == X.shape[1]


# ------------------------------------------------------------------ deploying
def test_onnx_of_a_dataframe_trained_model_as_documented(fraud):
    """onnxmltools reads only xgboost's default feature names (f0, f1, ...); a model fitted on a
    DataFrame (as in the README) failed with 'feature names should follow pattern f%d'.
    ``to_deployable``'s docstring now gives the one step that makes it work."""
    onnxmltools = pytest.importorskip("onnxmltools")  # dev extra, as tests/test_deploy_formats.py
    rt = pytest.importorskip("onnxruntime")
    from onnxmltools.convert.common.data_types import FloatTensorType

    b = make_fraud_transactions(3000, fraud_rate=0.05, random_state=0)
    X = b.data.astype(np.float32)
    est = CSXGBClassifier(n_estimators=20, max_depth=3, n_jobs=1).fit(X, b.target, fp_cost=10.0, fn_cost=b.fn_cost)
    types = [("X", FloatTensorType([None, X.shape[1]]))]
    with pytest.raises(RuntimeError, match="f%d"):  # onnxmltools' limitation, unchanged
        onnxmltools.convert_xgboost(est.get_booster(), initial_types=types, target_opset=15)
    assert "feature_names = None" in cxgb.to_deployable.__doc__
    dep = est.get_booster().copy()
    dep.feature_names = None  # the documented step
    onx = onnxmltools.convert_xgboost(dep, initial_types=types, target_opset=15)
    sess = rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    probs = np.asarray(sess.run(None, {"X": X.to_numpy()})[1])[:, 1]
    assert np.abs(probs - est.predict_proba(X)[:, 1]).max() <= 1e-5


@pytest.mark.parametrize("source", ["aec_booster", "xgbclassifier"])
def test_load_model_of_a_plain_early_stopped_file_predicts_with_best_iteration(fraud, tmp_path, source):
    """A plain xgboost file saved after early stopping keeps every tree and a best_iteration attribute;
    XGBClassifier.load_model (and cxgb.predict_proba) predict with the trees up to it, while
    CSXGBClassifier.load_model used all of them (0.16-0.23 off in probability) with best_iteration_ None."""
    X, y, amount = fraud
    tr, va = slice(0, 3000), slice(3000, None)
    path = tmp_path / "plain.json"
    if source == "aec_booster":
        dtr = cxgb.cost_dmatrix(X[tr], y[tr], fp_cost=10.0, fn_cost=amount[tr])
        dva = cxgb.cost_dmatrix(X[va], y[va], fp_cost=10.0, fn_cost=amount[va])
        bst = xgb.train(cxgb.aec_params(dtr, {"max_depth": 3, "eta": 0.3, "nthread": 1}), dtr, 200,
                        obj=cxgb.aec_objective(), evals=[(dva, "v")], custom_metric=cxgb.money_metrics,
                        early_stopping_rounds=5, verbose_eval=False)
        bst.save_model(path)
        want, best = cxgb.predict_proba(bst, X), bst.best_iteration
    else:
        clf = xgb.XGBClassifier(n_estimators=200, max_depth=3, early_stopping_rounds=5, n_jobs=1)
        clf.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], verbose=False)
        clf.save_model(path)
        want, best = clf.predict_proba(X)[:, 1], clf.best_iteration
    loaded = xgb.Booster(model_file=path)
    assert loaded.num_boosted_rounds() > best + 1  # the file holds the trees after the best round
    est = CSXGBClassifier.load_model(path)
    assert est.best_iteration_ == est.best_iteration == best
    assert est.n_estimators_ == best + 1
    np.testing.assert_allclose(est.predict_proba(X)[:, 1], want, rtol=0, atol=1e-6)
    # and it deploys: plain xgboost's predict of the (re)saved booster is predict_proba, not a margin
    est.save_model(tmp_path / "again.json")
    served = xgb.Booster(model_file=tmp_path / "again.json").predict(xgb.DMatrix(X))
    np.testing.assert_allclose(served, want, rtol=0, atol=1e-6)


def test_fit_takes_xgbclassifier_fit_keywords(fraud, capsys):
    """``fit(..., verbose=False)`` and ``sample_weight_eval_set=`` are XGBClassifier.fit's words; they
    were a TypeError (unexpected keyword)."""
    kw = _fit_kw(fraud)
    yv = kw["eval_set"][0][1]
    wv = np.random.RandomState(1).uniform(0.5, 2.0, len(yv))
    est = CSXGBClassifier(n_estimators=4, max_depth=3, n_jobs=1)
    ours = est.fit(**kw, eval_sample_weight=[wv]).evals_result_
    assert capsys.readouterr().out == ""  # silent by default
    xgb_words = est.fit(**kw, sample_weight_eval_set=[wv], verbose=True).evals_result_
    assert xgb_words == ours
    printed = capsys.readouterr().out.splitlines()
    rounds = [line for line in printed if line.startswith("[")]  # xgboost's per-round lines
    assert len(rounds) == 4 and rounds[0].startswith("[0]\tvalidation_0-") and "aec" in rounds[0]
    assert len(printed) == 4 + 3  # and decision="auto"'s stages: two boosters, the choice
    est.fit(**kw, verbose=False)
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="sample_weight_eval_set"):
        est.fit(**kw, eval_sample_weight=[wv], sample_weight_eval_set=[wv])


@pytest.mark.parametrize("native, ours", [
    ({"eta": 0.3}, {"learning_rate": 0.3}),
    ({"lambda": 5.0}, {"reg_lambda": 5.0}),
    ({"alpha": 2.0}, {"reg_alpha": 2.0}),
    ({"min_split_loss": 1.0}, {"gamma": 1.0}),
    ({"seed": 3}, {"random_state": 3}),
])
@pytest.mark.parametrize("where", ["kwargs", "params"])
def test_native_spelling_of_a_parameter_is_not_silently_ignored(fraud, native, ours, where):
    """``CSXGBClassifier(decision="0.5", eta=0.3)`` or ``params={"eta": 0.3}`` (xgboost's native names) lost to the
    default of the keyword they alias (learning_rate=0.1): the model was trained with 0.1."""
    X, y, amount = fraud
    kw = dict(n_estimators=10, max_depth=3, subsample=0.7, n_jobs=1)
    given = native if where == "kwargs" else {"params": native}

    def proba(**extra):
        return CSXGBClassifier(decision="0.5", **kw, **extra).fit(X, y, fp_cost=10.0, fn_cost=amount).predict_proba(X)[:, 1]

    want = proba(**ours)
    assert not np.array_equal(want, proba())  # the value matters on this data
    np.testing.assert_array_equal(proba(**given), want)


def test_load_model_of_a_plain_dataframe_model_keeps_its_feature_names(tmp_path):
    """XGBClassifier.load_model sets feature_names_in_ from the booster; ours dropped them, so
    predicting the same DataFrame warned 'X has feature names, but ... fitted without'."""
    import warnings

    b = make_fraud_transactions(2000, fraud_rate=0.05, random_state=0)
    clf = xgb.XGBClassifier(n_estimators=5, max_depth=3, n_jobs=1).fit(b.data, b.target)
    clf.save_model(tmp_path / "plain.ubj")
    est = CSXGBClassifier.load_model(tmp_path / "plain.ubj")
    np.testing.assert_array_equal(est.feature_names_in_, clf.feature_names_in_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = est.predict_proba(b.data)[:, 1]
    np.testing.assert_allclose(p, clf.predict_proba(b.data)[:, 1], rtol=0, atol=1e-6)


@pytest.mark.parametrize("change", ["weight", "label"])
def test_set_weight_or_label_after_training_is_used_by_the_next_training(change):
    # the objective caches labels, weights and regrets on the DMatrix; aec_params (called once per
    # training) drops them, so a set_weight / set_label between trainings is used. tree_method="exact":
    # "hist" keeps xgboost's own quantile sketch of the first training (built-in objectives too)
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 1).astype(float)
    amount = rng.lognormal(3, 1, n)
    w2, y2 = rng.uniform(0.2, 3, n), (X[:, 1] + rng.normal(size=n) > 0.5).astype(float)
    kw = dict(fp_cost=5.0, fn_cost=amount)

    def margins(dm):
        bst = xgb.train(cxgb.aec_params(dm, {"max_depth": 3, "tree_method": "exact"}), dm, 5,
                        obj=cxgb.aec_objective())
        return bst.predict(xgb.DMatrix(X), output_margin=True)

    fresh = cxgb.cost_dmatrix(X, y2 if change == "label" else y, weight=w2 if change == "weight" else None, **kw)
    reused = cxgb.cost_dmatrix(X, y, **kw)
    margins(reused)
    if change == "weight":
        reused.set_weight(w2)
    else:
        reused.set_label(y2)
    np.testing.assert_array_equal(margins(reused), margins(fresh))


def test_predict_takes_xgbclassifier_iteration_range_and_output_margin(fraud):
    X, y, amount = fraud
    kw = dict(max_depth=3, random_state=0)
    full = CSXGBClassifier(decision="0.5", n_estimators=12, **kw).fit(X, y, fp_cost=10.0, fn_cost=amount)
    first5 = CSXGBClassifier(decision="0.5", n_estimators=5, **kw).fit(X, y, fp_cost=10.0, fn_cost=amount)
    # the first 5 rounds of a 12-round model are the 5-round model (xgboost grows the same trees)
    np.testing.assert_allclose(full.predict_proba(X, iteration_range=(0, 5)), first5.predict_proba(X),
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(full.predict(X, iteration_range=(0, 5)), first5.predict(X))
    np.testing.assert_array_equal(full.predict_proba(X, iteration_range=None), full.predict_proba(X))
    np.testing.assert_array_equal(full.predict(X, output_margin=True), full.decision_function(X))
    assert not np.allclose(full.predict_proba(X), first5.predict_proba(X))
