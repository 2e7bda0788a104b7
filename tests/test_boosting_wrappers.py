"""CSXGBClassifier / CSLGBMClassifier as drop-ins for XGBClassifier / LGBMClassifier.

Each "What was seen" bullet about the wrappers is a test here: native keywords,
pandas category columns, importances / boosters / save and load, the money
scorer without metadata routing, native parameter errors, degenerate X.
"""

import inspect
import json
import pickle
import subprocess
import sys
import textwrap

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import sklearn
import xgboost as xgb
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.metrics import make_expected_savings_scorer, make_savings_scorer, savings_score
from csboost_plugins.xgb import CSXGBClassifier
from csdt.datasets import make_fraud_transactions

import _estimators

XGB_KW = dict(n_estimators=20, max_depth=3, n_jobs=1, random_state=0)
LGB_KW = dict(n_estimators=20, num_leaves=8, n_jobs=1, random_state=0, verbose=-1)
CAT_KW = dict(n_estimators=20, depth=3, thread_count=1, random_state=0)
WRAPPERS = [(CSXGBClassifier, XGB_KW), (CSLGBMClassifier, LGB_KW)]
if _estimators.HAS_CATBOOST:
    WRAPPERS.append((_estimators.BY_NAME["CSCatBoostClassifier"].cls, CAT_KW))


def _is_cat(cls):
    return cls.__name__ == "CSCatBoostClassifier"


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(4000, fraud_rate=0.05, random_state=1)
    return b.data, np.asarray(b.target), np.asarray(b.fn_cost)


def _categorical(n=3000, seed=0):
    """y depends on a 4-level category only through its level (not its code order)."""
    rng = np.random.default_rng(seed)
    level = rng.choice(["visa", "amex", "mc", "jcb"], n)
    p = np.select([level == "amex", level == "jcb"], [0.9, 0.8], 0.1)
    X = pd.DataFrame({"network": pd.Categorical(level), "amount": rng.lognormal(3, 1, n),
                      "noise": rng.normal(size=n)})
    return X, (rng.random(n) < p).astype(int), X["amount"].to_numpy()


# ---------------------------------------------------------------- native keywords
def _native_keywords(cls):
    names = set()
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            names |= {k for k, p in inspect.signature(klass.__init__).parameters.items()
                      if p.kind is p.KEYWORD_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD}
    return names - {"self"}


@pytest.mark.parametrize("ours, native", [(CSXGBClassifier, xgb.XGBClassifier), (CSLGBMClassifier, lgb.LGBMClassifier)])
def test_every_native_keyword_is_a_parameter(ours, native):
    missing = _native_keywords(native) - set(ours().get_params())
    assert not missing, f"{ours.__name__} lacks {sorted(missing)}"


def test_lightgbm_keywords_from_the_issue_and_kwargs_reach_the_booster(fraud):
    X, y, fn = fraud
    # the issue's call: TypeError: unexpected keyword argument 'verbose' before
    est = CSLGBMClassifier(n_estimators=30, num_leaves=15, verbose=-1, extra_trees=True, max_cat_to_onehot=8,
                           min_data_in_bin=5, random_state=0, n_jobs=1)
    params = est.get_params()
    assert params["verbose"] == -1 and params["extra_trees"] is True and params["min_data_in_bin"] == 5
    c = clone(est)
    assert c.get_params() == params
    c.set_params(num_leaves=4, extra_trees=False)
    assert c.extra_trees is False and c.num_leaves == 4
    est.fit(X, y, fp_cost=10.0, fn_cost=fn)
    text = est.booster_.model_to_string()  # the parameters lightgbm trained with
    assert "[extra_trees: 1]" in text and "[min_data_in_bin: 5]" in text and "[num_leaves: 15]" in text
    # num_leaves is honoured in the trees themselves
    small = clone(est).set_params(num_leaves=4).fit(X, y, fp_cost=10.0, fn_cost=fn)
    leaves = [t["num_leaves"] for t in small.booster_.dump_model()["tree_info"]]
    assert max(leaves) <= 4 and max(leaves) >= 2


def test_xgboost_keywords_reach_the_booster(fraud):
    X, y, fn = fraud
    calls = []

    class Count(xgb.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            calls.append(epoch)
            return False

    est = CSXGBClassifier(decision="0.5", n_estimators=12, grow_policy="lossguide", max_leaves=3, max_depth=0, device="cpu",
                          tree_method="hist", interaction_constraints=[["amount", "hour"], ["n_tx_24h"]],
                          callbacks=[Count()], verbosity=0, n_jobs=1, random_state=0)
    est.fit(X, y, fp_cost=10.0, fn_cost=fn)
    assert calls == list(range(12))
    trees = est.get_booster().trees_to_dataframe()
    assert trees.groupby("Tree")["Feature"].apply(lambda f: (f == "Leaf").sum()).max() <= 3
    # interaction constraints: a tree splits on {amount, hour} or on {n_tx_24h}, never mixes them
    for _, t in trees[trees.Feature != "Leaf"].groupby("Tree"):
        used = set(t.Feature)
        assert used <= {"amount", "hour"} or used <= {"n_tx_24h"}, used
    cfg = json.loads(est.get_booster().save_config())
    assert cfg["learner"]["gradient_booster"]["tree_train_param"]["grow_policy"] == "lossguide"
    # a native parameter given as a keyword (**kwargs) gets to xgboost as well
    est2 = CSXGBClassifier(decision="0.5", n_estimators=3, max_depth=3, n_jobs=1, random_state=0, refresh_leaf=0)
    assert est2.get_params()["refresh_leaf"] == 0 and est2.refresh_leaf == 0
    est2.fit(X, y, fp_cost=10.0, fn_cost=fn)
    cfg = json.loads(est2.get_booster().save_config())
    assert cfg["learner"]["gradient_booster"]["tree_train_param"]["refresh_leaf"] == "0"


@pytest.mark.parametrize("cls, kw", WRAPPERS)
def test_grid_search_over_native_keywords(cls, kw, fraud):
    X, y, fn = fraud
    extra = {"colsample_bynode": [0.5, 1.0]} if cls is CSXGBClassifier else {"extra_trees": [False, True]}
    if _is_cat(cls):
        extra = {"l2_leaf_reg": [1.0, 3.0]}
    gs = GridSearchCV(cls(**kw), extra, cv=KFold(2), scoring="roc_auc").fit(X, y, fp_cost=10.0, fn_cost=fn)
    assert np.isfinite(gs.cv_results_["mean_test_score"]).all()
    assert set(gs.best_params_) == set(extra)


@pytest.mark.parametrize("cls, kw", WRAPPERS)
def test_objective_other_loss_is_refused(cls, kw, fraud):
    X, y, fn = fraud
    key = "loss_function" if _is_cat(cls) else "objective"  # each library's own name for the loss
    with pytest.raises(ValueError, match=f"{key}='binary:logistic'.*AEC.*logloss_weight"):
        cls(**{key: "binary:logistic"}, **kw).fit(X, y, fp_cost=10.0, fn_cost=fn)
    cls(objective="aec", **kw).fit(X, y, fp_cost=10.0, fn_cost=fn)  # naming our own loss is fine
    with pytest.raises(ValueError, match="eval_metric must be one of"):
        cls(eval_metric="auc", **kw).fit(X, y, fp_cost=10.0, fn_cost=fn)


def test_xgboost_base_score_and_scale_pos_weight_keep_their_native_meaning(fraud):
    X, y, fn = fraud
    est = CSXGBClassifier(decision="0.5", base_score=0.2, **XGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn)
    assert est.start_margin_ == pytest.approx(np.log(0.2 / 0.8))
    with pytest.raises(ValueError, match="base_score"):
        CSXGBClassifier(decision="0.5", base_score=2.0, **XGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn)
    # scale_pos_weight multiplies the positive rows' weight: same model as sample_weight
    w = np.where(y == 1, 3.0, 1.0)
    a = CSXGBClassifier(decision="0.5", scale_pos_weight=3.0, **XGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn)
    b = CSXGBClassifier(decision="0.5", **XGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn, sample_weight=w)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-6)


def test_lightgbm_class_weight_is_a_row_weight(fraud):
    X, y, fn = fraud
    a = CSLGBMClassifier(class_weight={0: 1.0, 1: 4.0}, **LGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn)
    b = CSLGBMClassifier(**LGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn, sample_weight=np.where(y == 1, 4.0, 1.0))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9)


# -------------------------------------------------------------- pandas categories
@pytest.mark.parametrize("cls, kw", [(CSXGBClassifier, dict(XGB_KW, enable_categorical=True, max_cat_to_onehot=1)),
                                     (CSLGBMClassifier, dict(LGB_KW, min_data_per_group=5, cat_smooth=1.0))])
def test_pandas_category_columns_work_as_natively(cls, kw):
    X, y, amount = _categorical()
    # before: ValueError: X must be numeric
    est = cls(decision="0.5", **kw).fit(X, y, fp_cost=5.0, fn_cost=amount)
    assert list(est.feature_names_in_) == ["network", "amount", "noise"]
    s = est.predict_proba(X)[:, 1]
    rate = pd.Series(y).groupby(X["network"].to_numpy()).mean()
    got = pd.Series(s).groupby(X["network"].to_numpy()).mean()
    # the fraud-heavy levels get the high probabilities: the trees split on the category
    assert set(got.nlargest(2).index) == set(rate.nlargest(2).index) == {"amex", "jcb"}
    if cls is CSXGBClassifier:
        bst = est.get_booster()
        assert bst.feature_names == ["network", "amount", "noise"] and bst.feature_types[0] == "c"
    else:
        assert est.booster_.feature_name() == ["network", "amount", "noise"]
        assert est.booster_.pandas_categorical == [sorted(["visa", "amex", "mc", "jcb"])]
    # early stopping on a categorical eval set
    Xv, yv, av = _categorical(1000, seed=1)
    es = cls(decision="0.5", **dict(kw, n_estimators=60), early_stopping_rounds=5).fit(
        X, y, fp_cost=5.0, fn_cost=amount, eval_set=[(Xv, yv)], eval_costs=[{"fp_cost": 5.0, "fn_cost": av}])
    assert len(es.evals_result_["validation_0"]["aec"]) >= es.n_estimators_
    # rows in another order give the same probabilities (categories matched by value)
    perm = np.random.default_rng(0).permutation(len(X))
    np.testing.assert_allclose(est.predict_proba(X.iloc[perm])[:, 1], s[perm], rtol=1e-6)


def test_xgboost_category_columns_need_enable_categorical_as_natively():
    X, y, amount = _categorical(500)
    with pytest.raises(ValueError, match="enable_categorical"):
        CSXGBClassifier(**XGB_KW).fit(X, y, fp_cost=5.0, fn_cost=amount)
    with pytest.raises(ValueError, match="enable_categorical"):
        xgb.XGBClassifier(n_estimators=2).fit(X, y)


def test_object_columns_are_a_clear_error():
    X, y, amount = _categorical(300)
    X = X.assign(city=np.where(y == 1, "a", "b"))
    for cls, kw in WRAPPERS:
        with pytest.raises(ValueError, match="city"):
            cls(**kw).fit(X, y, fp_cost=5.0, fn_cost=amount)


def test_lightgbm_booster_names_the_dataframe_columns(fraud, tmp_path):
    X, y, fn = fraud
    est = CSLGBMClassifier(**LGB_KW).fit(X, y, fp_cost=10.0, fn_cost=fn)
    # before: Column_0 ... Column_11
    assert est.booster_.feature_name() == list(X.columns)
    est.save_model(tmp_path / "m.txt")
    text = (tmp_path / "m.txt").read_text()
    assert "feature_names=" + " ".join(X.columns) in text


# ------------------------------------------------- attributes, save and load
@pytest.mark.parametrize("cls, kw", WRAPPERS)
def test_importances_booster_and_fit_attributes(cls, kw, fraud):
    X, y, fn = fraud
    Xtr, ytr, Xva, yva = X.iloc[:3000], y[:3000], X.iloc[3000:], y[3000:]
    est = cls(decision="0.5", **dict(kw, n_estimators=200, learning_rate=0.3), early_stopping_rounds=5).fit(
        Xtr, ytr, fp_cost=10.0, fn_cost=fn[:3000], eval_set=[(Xva, yva)],
        eval_costs=[{"fp_cost": 10.0, "fn_cost": fn[3000:]}])
    assert est.n_features_in_ == 12 and list(est.feature_names_in_) == list(X.columns)
    # best_iteration_ counts as natively: 0-based in xgboost and catboost, the number of iterations in lightgbm
    n_best = est.best_iteration_ if cls is CSLGBMClassifier else est.best_iteration_ + 1
    assert 0 < n_best < 199 and est.n_estimators_ == n_best
    # each host names the eval set as natively: xgboost / lightgbm "validation_0", CatBoost "validation"
    history = est.evals_result_["validation" if _is_cat(cls) else "validation_0"]
    assert set(history) == {"aec", "savings", "expected_savings"}
    assert len({len(v) for v in history.values()}) == 1 and len(history["aec"]) >= n_best
    imp = est.feature_importances_
    assert imp.shape == (12,) and (imp >= 0).all()
    # the pure-noise columns matter least: independent check of which column is which
    noise = [list(X.columns).index(f"noise_{j}") for j in range(3)]
    assert imp[noise].max() < imp.max()
    if cls is CSXGBClassifier:
        assert est.get_booster() is est.booster_
        gain = est.booster_.get_score(importance_type="gain")
        want = np.array([gain.get(c, 0.0) for c in X.columns])
        np.testing.assert_allclose(imp, want / want.sum(), rtol=1e-6)
        weight = clone(est).set_params(importance_type="weight", early_stopping_rounds=None, n_estimators=5)
        weight.fit(Xtr, ytr, fp_cost=10.0, fn_cost=fn[:3000])
        counts = weight.get_booster().trees_to_dataframe().Feature.value_counts()
        want = np.array([counts.get(c, 0) for c in X.columns], dtype=float)
        np.testing.assert_allclose(weight.feature_importances_, want / want.sum(), rtol=1e-6)
    elif _is_cat(cls):
        np.testing.assert_allclose(imp, _prediction_values_change(est.booster_, 12), rtol=1e-6, atol=1e-9)
    else:
        splits = est.booster_.trees_to_dataframe().split_feature.value_counts()
        np.testing.assert_array_equal(imp, [splits.get(c, 0) for c in X.columns])


def _prediction_values_change(model, n_features):
    """CatBoost's default importance recomputed from the model's JSON dump: for every split, over the leaf
    pairs that differ only by it, sum_side (v_side - v_pair)^2 c_side (leaf values v, leaf weights c, v_pair
    their c-weighted mean), added up per feature and scaled to sum to 100."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        model.save_model(str(Path(d) / "m.json"), format="json")
        dump = json.loads((Path(d) / "m.json").read_text())
    imp = np.zeros(n_features)
    for tree in dump["oblivious_trees"]:
        v, c = np.asarray(tree["leaf_values"]), np.asarray(tree["leaf_weights"])
        leaf = np.arange(len(v))
        for level, split in enumerate(tree["splits"]):
            bit = 1 << level  # leaf index bit `level` is the side of splits[level]
            for lo in leaf[(leaf & bit) == 0]:
                pair = np.array([lo, lo | bit])
                if c[pair].sum() > 0:
                    mean = (v[pair] * c[pair]).sum() / c[pair].sum()
                    imp[split["float_feature_index"]] += ((v[pair] - mean) ** 2 * c[pair]).sum()
    return 100 * imp / imp.sum()


def _same_params(a, b):
    """Equal parameter dicts, NaN (xgboost's ``missing``) equal to NaN."""
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (isinstance(a[k], float) and np.isnan(a[k]) and np.isnan(b[k])) for k in a)


_PLAIN_PREDICT = textwrap.dedent("""
    import sys, numpy as np
    kind, model, data = sys.argv[1:4]
    X = np.load(data)
    if kind == "xgb":
        import xgboost as xgb
        b = xgb.Booster(model_file=model)
        p = b.predict(xgb.DMatrix(X, feature_names=b.feature_names))
    else:
        import lightgbm as lgb
        p = lgb.Booster(model_file=model).predict(X)
    assert not any(m.startswith("csboost_plugins") or m.startswith("csdt") for m in sys.modules)
    np.save(sys.argv[4], p)
""")


@pytest.mark.parametrize("cls, kw, ext", [(CSXGBClassifier, XGB_KW, "json"), (CSXGBClassifier, XGB_KW, "ubj"),
                                          (CSLGBMClassifier, LGB_KW, "txt")])
def test_save_model_is_deployable_and_loads_back(cls, kw, ext, fraud, tmp_path):
    X, y, fn = fraud
    labels = np.where(y == 1, "fraud", "ok")  # string classes (and the positive one) travel with the file
    est = cls(decision="0.5", pos_label="fraud", **kw).fit(X, labels, fp_cost=10.0, fn_cost=fn)
    path = tmp_path / f"model.{ext}"
    est.save_model(path)
    proba = est.predict_proba(X)[:, 1]
    # plain xgboost / lightgbm in a process that never imports csboost_plugins
    np.save(tmp_path / "X.npy", X.to_numpy())
    kind = "xgb" if cls is CSXGBClassifier else "lgb"
    r = subprocess.run([sys.executable, "-c", _PLAIN_PREDICT, kind, str(path), str(tmp_path / "X.npy"),
                        str(tmp_path / "p.npy")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(tmp_path / "p.npy"), proba, atol=1e-6)
    # back into the estimator: class method and xgboost's instance habit
    for loaded in (cls.load_model(path), cls(decision="0.5").load_model(path)):
        np.testing.assert_allclose(loaded.predict_proba(X), est.predict_proba(X), atol=1e-7)
        np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
        assert list(loaded.classes_) == ["ok", "fraud"] and list(loaded.feature_names_in_) == list(X.columns)
        assert _same_params(loaded.get_params(), est.get_params())
        assert loaded.start_margin_ == est.start_margin_ and loaded.n_features_in_ == 12
        np.testing.assert_allclose(loaded.feature_importances_, est.feature_importances_, rtol=1e-6)


@pytest.mark.parametrize("cls, kw", WRAPPERS)
def test_pickle_round_trip_keeps_kwargs_and_categories(cls, kw):
    X, y, amount = _categorical(800)
    kw = dict(kw, enable_categorical=True) if cls is CSXGBClassifier else dict(kw, min_data_per_group=5)
    if _is_cat(cls):
        kw = dict(CAT_KW)  # catboost reads pandas category columns as categorical features itself
    est = cls(**kw).fit(X, y, fp_cost=5.0, fn_cost=amount)
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.predict_proba(X), est.predict_proba(X))
    assert _same_params(est2.get_params(), est.get_params())


# ------------------------------------------------------- scorer without routing
def test_money_scorer_without_metadata_routing_is_an_error_not_nan(fraud):
    X, y, fn = fraud
    assert not sklearn.get_config()["enable_metadata_routing"]
    # before: every fold trained, a warning, best_score_ = nan
    with pytest.raises(ValueError, match=r"sklearn\.set_config\(enable_metadata_routing=True\)"):
        GridSearchCV(CSXGBClassifier(decision="0.5", **XGB_KW), {"max_depth": [2, 3]}, cv=KFold(2),
                     scoring=make_savings_scorer()).fit(X, y, fp_cost=10.0, fn_cost=fn)
    with pytest.raises(ValueError, match=r"make_expected_savings_scorer\(\).*enable_metadata_routing=True"):
        make_expected_savings_scorer()
    # with routing the same search scores each fold with its own rows' costs
    with sklearn.config_context(enable_metadata_routing=True):
        est = CSXGBClassifier(decision="0.5", **XGB_KW).set_fit_request(fp_cost=True, fn_cost=True)
        gs = GridSearchCV(est, {"max_depth": [2, 3]}, cv=KFold(2), scoring=make_savings_scorer(), refit=False)
        gs.fit(X, y, fp_cost=10.0, fn_cost=fn)
    assert np.isfinite(gs.best_score_)
    tr, te = next(KFold(2).split(X))
    m = CSXGBClassifier(decision="0.5", **dict(XGB_KW, max_depth=2)).fit(X.iloc[tr], y[tr], fp_cost=10.0, fn_cost=fn[tr])
    want = savings_score(y[te], m.predict(X.iloc[te]), fp_cost=10.0, fn_cost=fn[te])
    assert gs.cv_results_["split0_test_score"][0] == pytest.approx(want)


# --------------------------------------------- native errors and degenerate X
@pytest.mark.parametrize("cls, bad, name", [
    (CSXGBClassifier, {"max_depth": -1}, "max_depth"),
    (CSXGBClassifier, {"subsample": 0.0}, "subsample"),
    (CSXGBClassifier, {"max_bin": 1}, "max_bin"),
    (CSLGBMClassifier, {"num_leaves": 1}, "num_leaves"),
    (CSLGBMClassifier, {"subsample": 0.0}, "subsample"),
    (CSLGBMClassifier, {"max_bin": 1}, "max_bin"),
    (CSLGBMClassifier, {"params": {"bagging_fraction": 0.0, "bagging_freq": 1}}, "subsample"),
    (CSLGBMClassifier, {"min_data_in_bin": 0}, "min_data_in_bin"),
])
def test_native_parameter_errors_are_value_errors_naming_the_parameter(cls, bad, name, fraud):
    X, y, fn = fraud
    kw = dict(XGB_KW if cls is CSXGBClassifier else LGB_KW, **bad)
    with pytest.raises(ValueError, match=name) as info:
        cls(**kw).fit(X, y, fp_cost=10.0, fn_cost=fn)
    # a plain ValueError (XGBoostError subclasses ValueError; LightGBMError does not)
    assert type(info.value) is ValueError


def _degenerate():
    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 25)
    yield "constant", np.ones((50, 3)), y
    yield "all-NaN", np.full((50, 3), np.nan), y
    yield "2 rows", rng.normal(size=(2, 3)), np.array([0, 1])


@pytest.mark.parametrize("cls, kw", WRAPPERS)
@pytest.mark.parametrize("case", [c[0] for c in _degenerate()])
def test_degenerate_X_gives_a_constant_model(cls, kw, case):
    _, X, y = next(c for c in _degenerate() if c[0] == case)
    fn = np.linspace(1, 50, X.shape[0])
    # before (lightgbm): LightGBMError: Check failed: (train_data->num_features()) > (0)
    est = cls(**kw).fit(X, y, fp_cost=5.0, fn_cost=fn)
    s = est.predict_proba(X)[:, 1]
    assert np.isfinite(s).all() and np.ptp(s) < 1e-12
    # the constant is where the boosting starts: the start margin (no split was possible)
    from scipy.special import expit
    assert s[0] == pytest.approx(expit(est.start_margin_), abs=0.25)


# --------------------------------------------------------- scikit-learn checks
@parametrize_with_checks([
    CSXGBClassifier(n_estimators=5, n_jobs=1, random_state=0, verbosity=0, max_cat_to_onehot=4,
                    grow_policy="lossguide", seed_per_iteration=True),
    CSLGBMClassifier(n_estimators=5, n_jobs=1, min_child_samples=1, random_state=0, verbose=-1, extra_trees=True),
], expected_failed_checks=lambda est: (
    {"check_sample_weight_equivalence_on_dense_data": "lightgbm bins with unweighted counts"}
    if isinstance(est, CSLGBMClassifier) else {}))
def test_sklearn_compatible_with_native_kwargs(estimator, check):
    check(estimator)


def test_load_model_reads_a_plain_native_booster(fraud, tmp_path):
    # a booster trained with the native helpers (no wrapper metadata in the file) loads as an estimator
    from csboost_plugins import lgb as clgb
    from csboost_plugins import xgb as cxgb

    X, y, fn = fraud
    Xn = X.to_numpy()
    d = cxgb.cost_dmatrix(Xn, y, fp_cost=10.0, fn_cost=fn)
    bst = xgb.train(cxgb.aec_params(d, {"max_depth": 3, "nthread": 1}), d, 10, obj=cxgb.aec_objective())
    cxgb.to_deployable(bst).save_model(tmp_path / "n.json")
    est = CSXGBClassifier.load_model(tmp_path / "n.json")
    np.testing.assert_allclose(est.predict_proba(Xn)[:, 1], cxgb.predict_proba(bst, Xn), atol=1e-6)
    assert list(est.classes_) == [0, 1] and est.n_features_in_ == 12

    ds = clgb.cost_dataset(Xn, y, fp_cost=10.0, fn_cost=fn)
    lb = lgb.train({"objective": clgb.aec_objective(), "num_leaves": 8, "verbose": -1, "num_threads": 1}, ds, 10)
    clgb.bake_start_margin(lb, ds)
    clgb.to_deployable(lb).save_model(tmp_path / "n.txt")
    est = CSLGBMClassifier.load_model(tmp_path / "n.txt")
    np.testing.assert_allclose(est.predict_proba(Xn)[:, 1], clgb.predict_proba(lb, Xn), atol=1e-12)
    assert est.n_features_in_ == 12 and not hasattr(est, "feature_names_in_")
