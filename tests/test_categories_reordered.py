"""pandas category columns whose categories are listed in another order score as the training rows.

A day's batch read from a file lists its categories in another order than training (strings
read back and made ``category`` get them sorted: ``['1-10', '10-100', ..., '<=1', '>1000']``).
Every model that takes pandas categories, cut at early stopping, saved and reloaded, or wrapped
(Bayes minimum risk, rule sets), must score such a batch by value: each test compares the
probabilities of the same rows in both orders, with plain xgboost / lightgbm (which re-code by
value) as the reference.
"""

import inspect
import subprocess
import sys
import textwrap

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from scipy.special import expit

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.rules import CategorySet, RIFFClassifier, extract_rules
from csdt.bmr import BayesMinimumRiskClassifier, ThresholdingOptimization

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")

BANDS = ["<=1", "1-10", "10-100", "100-1000", ">1000"]  # training order (by amount)
N, N_TRAIN = 900, 600
LGB_SMALL = dict(min_data_per_group=5, cat_smooth=1.0, min_child_samples=5, verbose=-1)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    band = rng.choice(BANDS, N)
    channel = rng.choice(["web", "pos", "atm"], N)
    x1 = rng.normal(size=N)
    # fraud depends on the band (not monotone in the training order) and on x1
    risk = np.select([band == "10-100", band == ">1000", band == "<=1"], [1.6, 1.2, 0.6], 0.0)
    y = (rng.random(N) < expit(-1.5 + risk + 0.8 * x1 + 0.5 * (channel == "web"))).astype(int)
    X = pd.DataFrame({"amount_band": pd.Categorical(band, categories=BANDS),
                      "channel": pd.Categorical(channel, categories=["web", "pos", "atm"]), "x1": x1})
    X.loc[::23, "amount_band"] = np.nan  # missing bands route to the default side in both orders
    fn = 10.0 + 20.0 * rng.random(N)
    return X, y, np.full(N, 10.0), fn


def batches(X):
    """The same rows with the categories in other orders: reversed, and read back from strings."""
    rev = X.copy()
    for c in ("amount_band", "channel"):
        rev[c] = rev[c].cat.reorder_categories(list(reversed(rev[c].cat.categories)))
    strings = X.copy()
    for c in ("amount_band", "channel"):
        strings[c] = strings[c].astype(object).astype("category")  # categories sorted as strings
    assert strings["amount_band"].cat.categories.tolist() == ["1-10", "10-100", "100-1000", "<=1", ">1000"]
    assert strings["amount_band"].isna().sum() == X["amount_band"].isna().sum() > 0
    return {"reversed": rev, "from strings": strings}


def assert_same_scores(score, X, atol=0.0):
    """``score`` of X's rows equals ``score`` of the same rows in each other category order, and of a
    subset read from strings (fewer categories present)."""
    ref = score(X)
    for name, Xb in batches(X).items():
        np.testing.assert_allclose(score(Xb), ref, rtol=0, atol=atol, err_msg=name)
    sub = X[X["amount_band"] != "<=1"].copy()  # a batch without one band, read back from strings
    keep = np.flatnonzero((X["amount_band"] != "<=1").to_numpy())
    for c in ("amount_band", "channel"):
        sub[c] = sub[c].astype(object).astype("category")
    np.testing.assert_allclose(score(sub), ref[keep], rtol=0, atol=atol, err_msg="subset from strings")


def split(data):
    X, y, fp, fn = data
    tr, va = slice(0, N_TRAIN), slice(N_TRAIN, N)
    return X.iloc[tr], y[tr], fp[tr], fn[tr], X.iloc[va], y[va], fp[va], fn[va]


# ------------------------------------------------------------------- every registry estimator
import _estimators  # noqa: E402


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", _estimators.params())
def test_every_estimator_scores_reordered_categories_as_training_or_names_them(data, name, make):
    X, y, fp, fn = data
    try:
        est = make().fit(X, y, fp_cost=fp, fn_cost=fn)
    except ValueError as exc:  # an estimator that takes no category column says which ones
        assert "amount_band" in str(exc) and "channel" in str(exc), str(exc)
        return
    assert_same_scores(lambda Z: est.predict_proba(Z)[:, 1], X)
    fp, fn = pd.Series(fp, index=X.index), pd.Series(fn, index=X.index)  # each batch row's own costs
    if "fn_cost" in inspect.signature(est.predict).parameters:  # decided with the rows' costs where it takes them
        assert_same_scores(lambda Z: est.predict(Z, fp_cost=fp[Z.index], fn_cost=fn[Z.index]).astype(float), X)
    else:
        assert_same_scores(lambda Z: est.predict(Z).astype(float), X)


# --------------------------------------------------------------------------- xgboost

@pytest.fixture(scope="module")
def cs_xgb(data):
    Xt, yt, fpt, fnt, Xv, yv, fpv, fnv = split(data)
    est = cxgb.CSXGBClassifier(n_estimators=80, max_depth=3, learning_rate=0.3, n_jobs=1, enable_categorical=True,
                               early_stopping_rounds=3, random_state=0)
    est.fit(Xt, yt, fp_cost=fpt, fn_cost=fnt, eval_set=[(Xv, yv)], eval_costs=[dict(fp_cost=fpv, fn_cost=fnv)])
    assert est.best_iteration_ + 1 < 80  # early stopping cut the booster
    assert est.get_booster().get_score(importance_type="weight").get("amount_band", 0) > 0
    return est


def test_csxgb_early_stopped_scores_reordered_categories_as_training(cs_xgb, data):
    X, _, fp, fn = data
    assert_same_scores(lambda Z: cs_xgb.predict_proba(Z)[:, 1], X)
    fp, fn = pd.Series(fp, index=X.index), pd.Series(fn, index=X.index)  # each batch row's own costs
    assert_same_scores(lambda Z: cs_xgb.predict(Z, fp_cost=fp[Z.index], fn_cost=fn[Z.index]).astype(float), X)
    assert not cs_xgb.get_booster().get_categories().empty()  # the category encoder survived the cut


def test_csxgb_auto_decision_logloss_booster_scores_reordered_categories(data):
    # decision="auto" fits a second, logloss booster, also cut at its best iteration
    Xt, yt, fpt, fnt, Xv, yv, fpv, fnv = split(data)
    est = cxgb.CSXGBClassifier(n_estimators=80, max_depth=3, learning_rate=0.3, n_jobs=1, enable_categorical=True,
                               early_stopping_rounds=3, random_state=0, decision="auto")
    est.fit(Xt, yt, fp_cost=fpt, fn_cost=fnt, eval_set=[(Xv, yv)], eval_costs=[dict(fp_cost=fpv, fn_cost=fnv)])
    assert est.decision_ == "logloss+bmr"  # predict_proba comes from the logloss booster
    assert est.logloss_booster_.num_boosted_rounds() < 80
    assert_same_scores(lambda Z: est.predict_proba(Z)[:, 1], data[0])


def test_plain_xgbclassifier_reference_is_order_free(data):
    # what a user compares with: plain xgboost predicts with iteration_range and re-codes by value
    Xt, yt, _, _, Xv, yv, _, _ = split(data)
    ref = xgb.XGBClassifier(n_estimators=80, max_depth=3, learning_rate=0.3, n_jobs=1, enable_categorical=True,
                            early_stopping_rounds=3, random_state=0).fit(Xt, yt, eval_set=[(Xv, yv)], verbose=False)
    assert_same_scores(lambda Z: ref.predict_proba(Z)[:, 1], data[0])


_PLAIN = textwrap.dedent("""
    import sys
    import numpy as np
    import pandas as pd
    frames = pd.read_pickle(sys.argv[2])
    if sys.argv[1].endswith(".txt"):
        import lightgbm as lgb
        bst = lgb.Booster(model_file=sys.argv[1])
        out = {k: bst.predict(v) for k, v in frames.items()}
    else:
        import xgboost as xgb
        bst = xgb.Booster(model_file=sys.argv[1])
        out = {k: bst.predict(xgb.DMatrix(v, enable_categorical=True)) for k, v in frames.items()}
    assert not [m for m in sys.modules if m.startswith(("csboost_plugins", "csdt"))]
    pd.to_pickle(out, sys.argv[3])
""")


def plain_process_scores(model_path, X, tmp_path):
    """A saved model's ``Booster.predict`` of X in each category order, in a process that imports only
    pandas and xgboost / lightgbm."""
    frames = {"training order": X, **batches(X)}
    pd.to_pickle(frames, tmp_path / "frames.pkl")
    subprocess.run([sys.executable, "-c", _PLAIN, str(model_path), str(tmp_path / "frames.pkl"),
                    str(tmp_path / "out.pkl")], check=True, cwd=tmp_path, capture_output=True, text=True)
    return pd.read_pickle(tmp_path / "out.pkl")


def test_csxgb_saved_model_scores_reordered_categories(cs_xgb, data, tmp_path):
    X = data[0]
    ours = cs_xgb.predict_proba(X)[:, 1]
    path = tmp_path / "model.json"
    cs_xgb.save_model(path)
    plain = xgb.Booster(model_file=path)
    assert_same_scores(lambda Z: plain.predict(xgb.DMatrix(Z, enable_categorical=True)), X)
    np.testing.assert_allclose(plain.predict(xgb.DMatrix(X, enable_categorical=True)), ours, atol=1e-6)
    loaded = cxgb.CSXGBClassifier.load_model(path)
    assert_same_scores(lambda Z: loaded.predict_proba(Z)[:, 1], X)
    for name, p in plain_process_scores(path, X, tmp_path).items():
        np.testing.assert_allclose(p, ours, rtol=0, atol=1e-6, err_msg=name)


@pytest.fixture(scope="module")
def xgb_native(data):
    Xt, yt, fpt, fnt, Xv, yv, fpv, fnv = split(data)
    dtr = cxgb.cost_dmatrix(Xt, yt, fp_cost=fpt, fn_cost=fnt, enable_categorical=True)
    dva = cxgb.cost_dmatrix(Xv, yv, fp_cost=fpv, fn_cost=fnv, enable_categorical=True)
    params = cxgb.aec_params(dtr, {"tree_method": "hist", "max_depth": 3, "eta": 0.3, "nthread": 1})
    bst = xgb.train(params, dtr, 80, obj=cxgb.aec_objective(), evals=[(dva, "val")], verbose_eval=False,
                    custom_metric=cxgb.money_metrics, callbacks=[cxgb.early_stopping(3, metric="aec")])
    assert bst.best_iteration + 1 < bst.num_boosted_rounds()
    assert bst.get_score(importance_type="weight").get("amount_band", 0) > 0
    return bst


def test_xgb_native_to_deployable_scores_reordered_categories(xgb_native, data, tmp_path):
    X = data[0]
    # reference: the uncut booster scored up to best_iteration (iteration_range, its encoder intact)
    ours = cxgb.predict_proba(xgb_native, X)
    assert_same_scores(lambda Z: cxgb.predict_proba(xgb_native, Z), X)
    dep = cxgb.to_deployable(xgb_native)
    assert_same_scores(lambda Z: dep.predict(xgb.DMatrix(Z, enable_categorical=True)), X)
    dep.save_model(tmp_path / "dep.ubj")
    for name, p in plain_process_scores(tmp_path / "dep.ubj", X, tmp_path).items():
        np.testing.assert_allclose(p, ours, rtol=0, atol=1e-6, err_msg=name)


def _rule_margin(rules, Z):
    """Sum of the values of the leaf rules covering each row: the margin up to the start margin."""
    return sum(r.value * r.mask(Z) for r in rules)


def _assert_rules_are_the_model(rules, margin, X, atol):
    """The leaf rules add up to the model's margin (a constant start margin apart), in every category order,
    and print category names."""
    text = " ".join(map(str, rules))
    assert any(f"amount_band {op} {{'" in text for op in ("in", "not in")), text[:300]  # printed by value
    assert not any(f"amount_band {op} {{{d}" in text for op in ("in", "not in") for d in range(5)), text[:300]
    gap = margin - _rule_margin(rules, X)
    assert np.ptp(gap) < atol
    assert_same_scores(lambda Z: _rule_margin(rules, Z), X, atol=atol)


def test_rules_of_early_stopped_xgboost_models_print_names_and_match_the_model(cs_xgb, data):
    X, y = data[0], data[1]
    rules = extract_rules(cs_xgb, deduplicate=False)
    _assert_rules_are_the_model(rules, cs_xgb.predict(X, output_margin=True), X, atol=1e-4)
    Xt, yt, _, _, Xv, yv, _, _ = split(data)
    plain = xgb.XGBClassifier(n_estimators=80, max_depth=3, learning_rate=0.3, n_jobs=1, enable_categorical=True,
                              early_stopping_rounds=3, random_state=0).fit(Xt, yt, eval_set=[(Xv, yv)], verbose=False)
    assert plain.best_iteration + 1 < plain.get_booster().num_boosted_rounds()
    _assert_rules_are_the_model(extract_rules(plain, deduplicate=False), plain.predict(X, output_margin=True), X,
                                atol=1e-4)


# -------------------------------------------------------------------------- lightgbm

@pytest.fixture(scope="module")
def cs_lgb(data):
    Xt, yt, fpt, fnt, Xv, yv, fpv, fnv = split(data)
    est = clgb.CSLGBMClassifier(n_estimators=80, num_leaves=7, learning_rate=0.3, n_jobs=1, random_state=0,
                                early_stopping_rounds=3, **LGB_SMALL)
    est.fit(Xt, yt, fp_cost=fpt, fn_cost=fnt, eval_set=[(Xv, yv)], eval_costs=[dict(fp_cost=fpv, fn_cost=fnv)])
    assert est.best_iteration_ is not None and est.best_iteration_ < 80
    assert est.booster_.feature_importance()[0] > 0  # splits on amount_band
    return est


def test_cslgbm_early_stopped_scores_reordered_categories_as_training(cs_lgb, data, tmp_path):
    X = data[0]
    ours = cs_lgb.predict_proba(X)[:, 1]
    assert_same_scores(lambda Z: cs_lgb.predict_proba(Z)[:, 1], X)
    path = tmp_path / "model.txt"
    cs_lgb.save_model(path)
    plain = lgb.Booster(model_file=path)
    assert_same_scores(plain.predict, X)
    np.testing.assert_allclose(plain.predict(X), ours, atol=1e-12)
    for name, p in plain_process_scores(path, X, tmp_path).items():
        np.testing.assert_allclose(p, ours, rtol=0, atol=1e-12, err_msg=name)
    rules = extract_rules(cs_lgb, deduplicate=False)
    _assert_rules_are_the_model(rules, cs_lgb.predict(X, raw_score=True), X, atol=1e-9)


def test_lgb_native_to_deployable_scores_reordered_categories(data, tmp_path):
    Xt, yt, fpt, fnt, Xv, yv, fpv, fnv = split(data)
    X = data[0]
    dtr = clgb.cost_dataset(Xt, yt, fp_cost=fpt, fn_cost=fnt)
    dva = clgb.cost_dataset(Xv, yv, fp_cost=fpv, fn_cost=fnv, reference=dtr)
    params = {"objective": clgb.aec_objective(), "num_leaves": 7, "learning_rate": 0.3, "num_threads": 1,
              "deterministic": True, "force_row_wise": True, **LGB_SMALL}
    bst = lgb.train(params, dtr, 80, valid_sets=[dva], valid_names=["val"], feval=clgb.money_metrics,
                    callbacks=[clgb.early_stopping(3, data_name="val")])
    clgb.bake_start_margin(bst, dtr)
    ours = clgb.predict_proba(bst, X)
    assert_same_scores(lambda Z: clgb.predict_proba(bst, Z), X)
    dep = clgb.to_deployable(bst)
    dep.save_model(tmp_path / "dep.txt")
    for name, p in plain_process_scores(tmp_path / "dep.txt", X, tmp_path).items():
        np.testing.assert_allclose(p, ours, rtol=0, atol=1e-12, err_msg=name)


# ----------------------------------------------------------- wrappers: BMR, thresholds, RIFF

INNER = {
    "xgboost": lambda: xgb.XGBClassifier(n_estimators=15, max_depth=3, n_jobs=1, enable_categorical=True,
                                         random_state=0),
    "lightgbm": lambda: lgb.LGBMClassifier(n_estimators=15, num_leaves=7, n_jobs=1, random_state=0, **LGB_SMALL),
}


@pytest.mark.parametrize("inner", list(INNER))
@pytest.mark.parametrize("wrapper", [BayesMinimumRiskClassifier, ThresholdingOptimization])
def test_decision_wrappers_pass_categories_to_the_inner_model(data, inner, wrapper):
    X, y, fp, fn = data
    m = wrapper(INNER[inner](), cv=None).fit(X, y, fp_cost=fp, fn_cost=fn)
    ref = INNER[inner]().fit(X, y)  # the same model fitted plainly
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], ref.predict_proba(X)[:, 1])
    assert_same_scores(lambda Z: m.predict_proba(Z)[:, 1], X)
    if wrapper is BayesMinimumRiskClassifier:
        fp, fn = pd.Series(fp, index=X.index), pd.Series(fn, index=X.index)  # each batch row's own costs
        assert_same_scores(lambda Z: m.predict(Z, fp_cost=fp[Z.index], fn_cost=fn[Z.index]).astype(float), X)
    else:
        assert_same_scores(lambda Z: m.predict(Z).astype(float), X)
    with pytest.raises(ValueError, match="feature names"):  # X is still checked against training
        m.predict_proba(X[["x1", "channel", "amount_band"]].rename(columns={"x1": "x9"}))


@pytest.mark.parametrize("inner", list(INNER))
def test_riff_rules_print_category_names_and_select_the_same_rows(data, inner):
    X, y = data[0], data[1]
    m = RIFFClassifier(INNER[inner](), max_fpr=0.1, positive_rate=None, random_state=0).fit(X, y)
    text = str(m.rule_set_)
    assert "amount_band" in text and any(f"'{b}'" in text for b in BANDS), text
    assert_same_scores(lambda Z: m.predict_proba(Z)[:, 1], X)
    # each selected rule is a leaf of the fitted model: its rows are the library's own leaf rows
    for rule in m.rule_set_.rules:
        assert_same_scores(lambda Z, r=rule: r.mask(Z).astype(float), X)


def test_riff_paper_tree_refuses_category_columns_by_name(data):
    X, y = data[0], data[1]
    with pytest.raises(ValueError, match=r"category columns \['amount_band', 'channel'\].*estimator="):
        RIFFClassifier.paper(random_state=0).fit(X, y)


def test_riff_default_pool_reads_category_columns(data):
    X, y = data[0], data[1]
    m = RIFFClassifier(max_fpr=0.1, random_state=0).fit(X, y)
    assert {type(e).__name__ for e in m.estimator_} == {"LGBMClassifier", "XGBClassifier"}
    assert any(isinstance(c, CategorySet) for r in m.candidates_ for c in r.conditions)
    assert_same_scores(lambda Z: m.predict_proba(Z)[:, 1], X)
