"""Continued training and user start margins in the scikit-learn boosting wrappers.

``CSXGBClassifier.fit(base_margin=, base_margin_eval_set=, xgb_model=)`` and
``predict(_proba)(base_margin=)``; ``CSLGBMClassifier.fit(init_score=, eval_init_score=,
init_model=)``, with XGBClassifier's / LGBMClassifier's meaning. Each result is checked
against an independent computation: a single longer fit, the host library's own
continuation through the native API (``csboost_plugins.xgb`` / ``csboost_plugins.lgb``),
sums of leaf values read from the trees, money metrics from :mod:`csboost_plugins.metrics`.
"""

import pickle

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from scipy.special import expit
from sklearn.exceptions import NotFittedError

from csboost_plugins import MoneyLossWarning
from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.decision_costs import trivial_policy_costs
from csboost_plugins.metrics import bayes_minimum_risk, expected_cost_loss, expected_savings_score, savings_score
from csdt.datasets import make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning",
                                        "ignore::csboost_plugins.MoneyLossWarning")

# per library: the estimator, its quiet single-thread keywords, the names of the three fit keywords
LIBS = {
    "xgb": dict(cls=cxgb.CSXGBClassifier, kw=dict(max_depth=3, n_jobs=1, random_state=0, decision="0.5"),
                model="xgb_model", init="base_margin", evals="base_margin_eval_set", atol=2e-6),
    "lgb": dict(cls=clgb.CSLGBMClassifier, kw=dict(num_leaves=7, n_jobs=1, random_state=0, decision="0.5"),
                model="init_model", init="init_score", evals="eval_init_score", atol=1e-9),
}
# the same trees through the native APIs (the estimators' defaults spelled natively)
XGB_NATIVE = {"tree_method": "hist", "max_depth": 3, "eta": 0.1, "nthread": 1, "seed": 0, "max_bin": 256,
              "disable_default_eval_metric": 1}
LGB_NATIVE = {"num_leaves": 7, "learning_rate": 0.1, "num_threads": 1, "seed": 0, "verbose": -1,
              "deterministic": True, "force_row_wise": True}


@pytest.fixture(scope="module")
def data():
    b = make_fraud_transactions(3000, fraud_rate=0.05, random_state=0)
    X, y, C = b.data.to_numpy(), np.asarray(b.target), b.cost_matrix
    return (X[:2000], y[:2000], C[:2000]), (X[2000:], y[2000:], C[2000:])


def _fit(lib, n, train, *, evals=None, **kw):
    L = LIBS[lib]
    X, y, C = train
    more = {} if evals is None else dict(eval_set=[(Xk, yk) for Xk, yk, _ in evals],
                                         eval_costs=[{"cost_matrix": Ck} for _, _, Ck in evals])
    est_kw = {**L["kw"], **{k: kw.pop(k) for k in ("decision", "early_stopping_rounds", "learning_rate") if k in kw}}
    return L["cls"](n_estimators=n, **est_kw).fit(X, y, cost_matrix=C, **more, **kw)


def _xgb_leaf_sum(bst, X, k=None):
    """Sum of the first ``k`` trees' leaf values at X (no base_score), read from the tree table."""
    leaves = bst.predict(xgb.DMatrix(X), pred_leaf=True)
    table = bst.trees_to_dataframe()
    total = np.zeros(X.shape[0])
    for t in range(leaves.shape[1] if k is None else k):
        values = table[(table.Tree == t) & (table.Feature == "Leaf")].set_index("Node")["Gain"]
        total += values.loc[leaves[:, t]].to_numpy()
    return total


def _lgb_leaf_sum(bst, X):
    leaves = bst.predict(X, pred_leaf=True)
    return sum(np.array([bst.get_leaf_output(t, int(v)) for v in leaves[:, t]]) for t in range(leaves.shape[1]))


def _n_trees(est):
    return est.booster_.num_boosted_rounds() if hasattr(est.booster_, "num_boosted_rounds") else \
        est.booster_.num_trees()


# ------------------------------------------------------------------ (1) continuation = one longer fit
@pytest.mark.parametrize("form", ["estimator", "booster", "file"])
@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_continuation_equals_one_longer_fit(data, lib, form, tmp_path):
    train, (Xv, yv, Cv) = data
    straight = _fit(lib, 12, train)
    first = _fit(lib, 7, train)
    assert abs(first.start_margin_) > 0.1  # a start margin added twice would show
    path = str(tmp_path / ("first.json" if lib == "xgb" else "first.txt"))
    init = {"estimator": first, "booster": first.booster_, "file": path}[form]
    if form == "file":
        first.save_model(init)
    more = _fit(lib, 5, train, **{LIBS[lib]["model"]: init})
    assert more.n_estimators_ == _n_trees(more) == 12
    np.testing.assert_allclose(more.decision_function(Xv), straight.decision_function(Xv), rtol=0,
                               atol=LIBS[lib]["atol"])
    np.testing.assert_allclose(more.predict_proba(Xv), straight.predict_proba(Xv), rtol=0, atol=LIBS[lib]["atol"])
    if lib == "lgb" and form == "booster":
        assert more.start_margin_ is None  # a plain lightgbm booster does not say what its first tree holds
    else:
        assert more.start_margin_ == pytest.approx(first.start_margin_, abs=1e-6)
    # the init model is not changed by the continuation
    np.testing.assert_array_equal(first.decision_function(Xv), _fit(lib, 7, train).decision_function(Xv))


def test_xgb_continuation_equals_native_continuation(data):
    # an AEC booster of the native API (objective reg:squarederror, start margin as base_score) and an
    # XGBClassifier booster (binary:logistic): the estimator continues them as xgb.train(xgb_model=) does
    (X, y, C), (Xv, _, _) = data
    dtr = cxgb.cost_dmatrix(X, y, cost_matrix=C)
    raw = xgb.train(cxgb.aec_params(dtr, XGB_NATIVE), dtr, 7, obj=cxgb.aec_objective())
    host = xgb.XGBClassifier(n_estimators=6, max_depth=2, n_jobs=1).fit(X, y)
    for init in (raw, host):
        native = xgb.train(XGB_NATIVE, dtr, 5, obj=cxgb.aec_objective(),
                           xgb_model=init if isinstance(init, xgb.Booster) else init.get_booster())
        est = _fit("xgb", 5, (X, y, C), xgb_model=init)
        n_init = 7 if init is raw else 6
        assert est.n_estimators_ == native.num_boosted_rounds() == n_init + 5
        np.testing.assert_allclose(est.decision_function(Xv),
                                   native.predict(xgb.DMatrix(Xv), output_margin=True), rtol=0, atol=2e-6)
    # the host estimator's start: logit of its base_score, which the continuation keeps
    base = float(host.get_booster().save_config().split('"base_score":"')[1].split('"')[0].strip("[]"))
    assert est.start_margin_ == pytest.approx(np.log(base / (1 - base)), rel=1e-6)


def test_lgb_continuation_equals_native_continuation(data):
    # a baked AEC booster of the native API and an LGBMClassifier: as lgb.train(init_model=) + bake(dtrain)
    (X, y, C), (Xv, _, _) = data
    p = {**LGB_NATIVE, "objective": clgb.aec_objective()}
    dtr = clgb.cost_dataset(X, y, cost_matrix=C)
    baked = clgb.bake_start_margin(lgb.train(p, dtr, 7), dtr)
    host = lgb.LGBMClassifier(n_estimators=6, num_leaves=5, verbose=-1, n_jobs=1).fit(X, y)
    for init in (baked, host):
        dtr2 = clgb.cost_dataset(X, y, cost_matrix=C)
        native = clgb.bake_start_margin(lgb.train(p, dtr2, 5, init_model=getattr(init, "booster_", init)), dtr2)
        est = _fit("lgb", 5, (X, y, C), init_model=init)
        assert est.n_estimators_ == native.current_iteration() == (7 if init is baked else 6) + 5
        np.testing.assert_allclose(est.decision_function(Xv), native.predict(Xv, raw_score=True), rtol=0, atol=1e-9)
    assert est.start_margin_ is None  # an LGBMClassifier does not say what its first tree holds


@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_continuation_from_an_early_stopped_model_keeps_every_new_tree(data, lib):
    # xgboost keeps the init booster's best_iteration attribute through xgb.train: the continued
    # booster would be cut back to the init model's best round, dropping the new trees
    train, ev = data
    first = _fit(lib, 300, train, evals=[ev], early_stopping_rounds=3)
    assert first.best_iteration_ is not None and first.n_estimators_ < 300
    more = _fit(lib, 4, train, **{LIBS[lib]["model"]: first})
    assert more.best_iteration_ is None
    assert more.n_estimators_ == _n_trees(more) == first.n_estimators_ + 4
    np.testing.assert_allclose(more.predict_proba(ev[0], **({"iteration_range": (0, first.n_estimators_)}
                                                            if lib == "xgb" else
                                                            {"num_iteration": first.n_estimators_})),
                               first.predict_proba(ev[0]), rtol=0, atol=1e-6)
    # early stopping while continuing: best_iteration_ counts the init model's rounds (as the hosts)
    cont = _fit(lib, 300, train, evals=[ev], early_stopping_rounds=3, **{LIBS[lib]["model"]: first})
    curve = np.asarray(cont.evals_result_["validation_0"]["aec"])
    best = int(np.argmin(curve))
    kept = cont.best_iteration_ + 1 if lib == "xgb" else cont.best_iteration_  # xgb 0-based, lgb a count
    assert kept == first.n_estimators_ + best + 1 == cont.n_estimators_


# ------------------------------------------------------------------ (2) start margins = continuation
@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_margins_of_a_previous_model_reproduce_continuation(data, lib):
    L = LIBS[lib]
    (X, y, C), (Xv, yv, Cv) = data
    first = _fit(lib, 7, (X, y, C))
    m_tr, m_v = first.decision_function(X), first.decision_function(Xv)
    cont = _fit(lib, 5, (X, y, C), evals=[(Xv, yv, Cv)], **{L["model"]: first})
    off = _fit(lib, 5, (X, y, C), evals=[(Xv, yv, Cv)], **{L["init"]: m_tr, L["evals"]: [m_v]})
    assert off.n_estimators_ == 5
    if lib == "xgb":
        assert off.start_margin_ == pytest.approx(first.start_margin_, abs=1e-12)  # base_score: rows without margins
        total = off.predict(Xv, output_margin=True, base_margin=m_v)
    else:
        assert off.start_margin_ == 0.0  # init_score is the start instead: the model holds none
        total = m_v + off.predict(Xv, raw_score=True)
    np.testing.assert_allclose(total, cont.decision_function(Xv), rtol=0, atol=1e-5)
    for name in ("aec", "savings", "expected_savings"):  # the eval set scored from the same margins every round
        np.testing.assert_allclose(off.evals_result_["validation_0"][name], cont.evals_result_["validation_0"][name],
                                   rtol=1e-5, atol=1e-6)


def test_lgb_init_score_is_the_start_instead_of_the_start_margin(data):
    # native lightgbm with the same init_score and no start margin: raw score = the trees alone
    (X, y, C), (Xv, _, _) = data
    m = np.random.default_rng(0).normal(-1.0, 0.5, X.shape[0])
    est = _fit("lgb", 6, (X, y, C), init_score=m)
    dtr = clgb.attach_costs(lgb.Dataset(X, label=y, init_score=m, free_raw_data=False), cost_matrix=C)
    native = lgb.train({**LGB_NATIVE, "objective": clgb.aec_objective()}, dtr, 6)
    np.testing.assert_allclose(est.predict(Xv, raw_score=True), native.predict(Xv, raw_score=True), rtol=0, atol=1e-9)
    np.testing.assert_allclose(est.predict(Xv, raw_score=True), _lgb_leaf_sum(est.booster_, Xv), rtol=0, atol=1e-9)


# ------------------------------------------------------------------ (3) predict with base_margin
def test_xgb_predict_with_base_margin_is_margin_plus_leaf_values(data):
    (X, y, C), (Xv, yv, Cv) = data
    est = _fit("xgb", 8, (X, y, C))
    b = np.random.default_rng(1).normal(-0.5, 1.0, Xv.shape[0])
    leaves = _xgb_leaf_sum(est.booster_, Xv)
    np.testing.assert_allclose(est.predict(Xv, output_margin=True, base_margin=b), b + leaves, rtol=0, atol=1e-5)
    # without base_margin the rows start from start_margin_ (base_score)
    np.testing.assert_allclose(est.predict(Xv, output_margin=True), est.start_margin_ + leaves, rtol=0, atol=1e-5)
    s = expit(b + leaves)
    np.testing.assert_allclose(est.predict_proba(Xv, base_margin=b)[:, 1], s, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(est.predict(Xv, base_margin=b), (s > 0.5).astype(int))
    np.testing.assert_array_equal(est.predict(Xv, base_margin=b, cost_matrix=Cv),
                                  (s * Cv[:, 2] + (1 - s) * Cv[:, 0] < s * Cv[:, 1] + (1 - s) * Cv[:, 3]).astype(int))
    s3 = expit(b + _xgb_leaf_sum(est.booster_, Xv, k=3))
    np.testing.assert_allclose(est.predict_proba(Xv, base_margin=b, iteration_range=(0, 3))[:, 1], s3,
                               rtol=0, atol=1e-6)
    # a model fit with base_margin: its trees are corrections to the rows' own margins
    m = np.random.default_rng(2).normal(-1.0, 0.5, X.shape[0])
    off = _fit("xgb", 4, (X, y, C), base_margin=m)
    np.testing.assert_allclose(off.predict(Xv, output_margin=True, base_margin=b),
                               b + _xgb_leaf_sum(off.booster_, Xv), rtol=0, atol=1e-5)


# ------------------------------------------------------------------ (4) money metrics from the right margins
@pytest.mark.parametrize("train_margins", [True, False])
@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_eval_set_start_margins_score_the_money_metrics(data, lib, train_margins):
    L = LIBS[lib]
    (X, y, C), (Xv, yv, Cv) = data
    rng = np.random.default_rng(3)
    m_tr, m_v = rng.normal(-1.0, 0.7, X.shape[0]), rng.normal(-1.0, 0.7, Xv.shape[0])
    kw = {L["init"]: m_tr} if train_margins else {}
    est = _fit(lib, 6, (X, y, C), evals=[(Xv, yv, Cv), (Xv, yv, Cv)], **kw, **{L["evals"]: [None, m_v]})
    if lib == "xgb":  # host arithmetic: xgboost's own margin with the set's base_margin, then without
        with_m = est.booster_.predict(xgb.DMatrix(Xv, base_margin=m_v), output_margin=True).astype(np.float64)
        without = est.booster_.predict(xgb.DMatrix(Xv), output_margin=True).astype(np.float64)
        np.testing.assert_allclose(with_m, m_v + _xgb_leaf_sum(est.booster_, Xv), rtol=0, atol=1e-5)
    else:  # the set's init score replaces the start the model holds (0 after init_score, else baked m0)
        without = np.asarray(est.booster_.predict(Xv, raw_score=True))
        assert est.start_margin_ == (0.0 if train_margins else pytest.approx(_fit(lib, 1, (X, y, C)).start_margin_))
        with_m = m_v + without - est.start_margin_
    for k, margin in enumerate((without, with_m)):
        s = expit(margin)
        res = est.evals_result_[f"validation_{k}"]
        assert res["aec"][-1] == pytest.approx(expected_cost_loss(yv, s, cost_matrix=Cv, normalize=True), rel=1e-5)
        assert res["expected_savings"][-1] == pytest.approx(expected_savings_score(yv, s, cost_matrix=Cv), abs=1e-5)
        assert res["savings"][-1] == pytest.approx(savings_score(yv, (s > 0.5).astype(int), cost_matrix=Cv),
                                                   abs=1e-5)
    assert abs(est.evals_result_["validation_0"]["aec"][-1] - est.evals_result_["validation_1"]["aec"][-1]) > 1e-3


# ------------------------------------------------------------------ (5) bad input
def _bad_cases(lib):
    L = LIBS[lib]
    i, e, m = L["init"], L["evals"], L["model"]
    other = cxgb.CSXGBClassifier() if lib == "lgb" else clgb.CSLGBMClassifier()
    return [
        ({i: np.zeros(5)}, ValueError, f"{i} has 5 values but X has 2000 rows"),
        ({i: np.r_[np.nan, np.zeros(1999)]}, ValueError, f"{i} contains 1 NaN"),
        ({i: np.zeros((2000, 2))}, ValueError, rf"{i} must have shape \(2000,\)"),
        ({i: ["a"] * 2000}, ValueError, f"{i} must be numeric"),
        ({e: [np.zeros(1000)]}, ValueError, f"{e} given without eval_set"),
        ({e: np.zeros(1000), "eval": True}, ValueError, f"{e} must be a list"),
        ({e: [np.zeros(1000), None], "eval": True}, ValueError, f"{e} has 2 entries but eval_set has 1"),
        ({e: [np.zeros(3)], "eval": True}, ValueError, rf"{e}\[0\] has 3 values but X has 1000 rows"),
        ({e: [np.full(1000, np.inf)], "eval": True}, ValueError, rf"{e}\[0\] contains 1000 NaN or infinite"),
        ({m: {"trees": 1}}, TypeError, f"{m} must be a model file path"),
        ({m: other}, TypeError, f"{m} must be a model file path"),
        ({m: type(LIBS[lib]["cls"]())()}, NotFittedError, f"{m}: .*not fitted"),
        ({m: "/nonexistent/model.json"}, ValueError, f"{m}: no model file"),
        ({i: np.zeros(2000), "decision": "auto", "eval": True}, ValueError, f"decision='auto'.*{i}="),
    ]


@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_bad_start_keywords_raise_naming_the_argument(data, lib):
    train, ev = data
    for kw, exc, match in _bad_cases(lib):
        kw = dict(kw)
        evals = [ev] if kw.pop("eval", False) else None
        with pytest.raises(exc, match=match):
            _fit(lib, 2, train, evals=evals, **kw)
    # a model of another feature count
    X, y, C = train
    narrow = LIBS[lib]["cls"](n_estimators=2, **LIBS[lib]["kw"]).fit(X[:, :3], y, cost_matrix=C)
    m = LIBS[lib]["model"]
    with pytest.raises(ValueError, match=f"{m} was trained on 3 features but X has {X.shape[1]}"):
        _fit(lib, 2, train, **{m: narrow})


@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_pandas_start_margins_are_matched_by_position_with_the_same_index(data, lib):
    L = LIBS[lib]
    (X, y, C), (Xv, yv, Cv) = data
    frame = pd.DataFrame(X, index=np.arange(X.shape[0]) + 100)
    frame_v = pd.DataFrame(Xv, index=np.arange(Xv.shape[0]) + 7)
    m, m_v = np.linspace(-2, 1, X.shape[0]), np.linspace(1, -2, Xv.shape[0])
    numpy_fit = _fit(lib, 3, (X, y, C), evals=[(Xv, yv, Cv)], **{L["init"]: m, L["evals"]: [m_v]})
    series_fit = _fit(lib, 3, (frame, y, C), evals=[(frame_v, yv, Cv)],
                      **{L["init"]: pd.Series(m, index=frame.index), L["evals"]: [pd.Series(m_v, index=frame_v.index)]})
    np.testing.assert_array_equal(series_fit.predict_proba(Xv), numpy_fit.predict_proba(Xv))
    shuffled = pd.Series(m, index=frame.index[::-1])
    with pytest.raises(ValueError, match=f"{L['init']} is a pandas object whose index differs from X's"):
        _fit(lib, 3, (frame, y, C), **{L["init"]: shuffled})
    with pytest.raises(ValueError, match=rf"{L['evals']}\[0\] is a pandas object whose index differs"):
        _fit(lib, 3, (frame, y, C), evals=[(frame_v, yv, Cv)], **{L["evals"]: [pd.Series(m_v)]})
    if lib == "xgb":
        with pytest.raises(ValueError, match="base_margin is a pandas object whose index differs from X's"):
            numpy_fit.predict_proba(frame_v, base_margin=pd.Series(m_v))


def test_xgb_bad_init_model_and_predict_base_margin(data):
    (X, y, C), (Xv, _, _) = data
    multi = xgb.XGBClassifier(n_estimators=2, n_jobs=1).fit(X, np.arange(X.shape[0]) % 3)
    with pytest.raises(ValueError, match="xgb_model: a booster with objective 'multi:softprob'"):
        _fit("xgb", 2, (X, y, C), xgb_model=multi)
    named = _fit("xgb", 2, (pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])]), y, C))
    with pytest.raises(ValueError, match="xgb_model: its features are not X's"):
        _fit("xgb", 2, (X, y, C), xgb_model=named)
    est = _fit("xgb", 3, (X, y, C))
    for f in (est.predict, est.predict_proba):
        with pytest.raises(ValueError, match="base_margin has 3 values but X has 1000 rows"):
            f(Xv, base_margin=np.zeros(3))
        with pytest.raises(ValueError, match="base_margin contains 1 NaN"):
            f(Xv, base_margin=np.r_[np.nan, np.zeros(999)])


def test_lgb_bad_init_model(data):
    (X, y, C), _ = data
    dtr = clgb.cost_dataset(X, y, cost_matrix=C)
    unbaked = lgb.train({**LGB_NATIVE, "objective": clgb.aec_objective()}, dtr, 3)  # raw scores lack the start
    with pytest.raises(ValueError, match="init_model: .*start margin is not in the model"):
        _fit("lgb", 2, (X, y, C), init_model=unbaked)
    reg = lgb.LGBMRegressor(n_estimators=2, verbose=-1).fit(X, y.astype(float))
    with pytest.raises(ValueError, match="init_model: .*objective=regression"):
        _fit("lgb", 2, (X, y, C), init_model=reg)
    first = _fit("lgb", 2, (X, y, C))
    with pytest.raises(ValueError, match="give init_model or init_score"):
        _fit("lgb", 2, (X, y, C), init_model=first, init_score=np.zeros(X.shape[0]))


# ------------------------------------------------------------------ (6) pickle, save / load
@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_continued_model_pickles_and_deploys(data, lib, tmp_path):
    train, (Xv, _, Cv) = data
    more = _fit(lib, 5, train, **{LIBS[lib]["model"]: _fit(lib, 7, train)})
    back = pickle.loads(pickle.dumps(more))
    np.testing.assert_array_equal(back.predict_proba(Xv), more.predict_proba(Xv))
    np.testing.assert_array_equal(back.predict(Xv, cost_matrix=Cv), more.predict(Xv, cost_matrix=Cv))
    assert back.n_estimators_ == 12 and back.start_margin_ == more.start_margin_
    path = str(tmp_path / ("more.json" if lib == "xgb" else "more.txt"))
    more.save_model(path)
    loaded = LIBS[lib]["cls"].load_model(path)
    np.testing.assert_allclose(loaded.predict_proba(Xv), more.predict_proba(Xv), rtol=0, atol=1e-7)
    # plain host library, no csboost_plugins: the deployable file predicts our probabilities
    plain = xgb.Booster(model_file=path).predict(xgb.DMatrix(Xv)) if lib == "xgb" else \
        lgb.Booster(model_file=path).predict(Xv)
    np.testing.assert_allclose(plain, more.predict_proba(Xv)[:, 1], rtol=0, atol=1e-6)
    if lib == "xgb":  # a base-margin model keeps taking base_margin after the round trip
        b = np.linspace(-2, 1, Xv.shape[0])
        off = pickle.loads(pickle.dumps(_fit(lib, 3, train, base_margin=np.zeros(train[0].shape[0]))))
        np.testing.assert_allclose(off.predict(Xv, output_margin=True, base_margin=b),
                                   b + _xgb_leaf_sum(off.booster_, Xv), rtol=0, atol=1e-5)


# ------------------------------------------------------------------ (7) decision layer on continued models
@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_decision_layer_on_continued_models(data, lib):
    train, (Xv, yv, Cv) = data
    m = LIBS[lib]["model"]
    first = _fit(lib, 7, train)
    # decision="auto" early-stops on the validation rows (patience 30): so does the "bmr" model here
    bmr = _fit(lib, 5, train, evals=[(Xv, yv, Cv)], early_stopping_rounds=30, decision="bmr", **{m: first})
    s = bmr.predict_proba(Xv)[:, 1]
    np.testing.assert_array_equal(bmr.predict(Xv, cost_matrix=Cv), bayes_minimum_risk(s, cost_matrix=Cv))
    auto = _fit(lib, 5, train, evals=[(Xv, yv, Cv)], decision="auto", **{m: first})
    keep, auto.booster_ = auto.booster_, auto.aec_booster_
    m_aec = auto._margin(Xv)  # the continued AEC booster's validation margins
    auto.booster_ = keep
    np.testing.assert_allclose(m_aec, bmr._margin(Xv), rtol=0, atol=1e-9)
    s_aec = expit(m_aec)
    assert auto.validation_savings_["aec"] == pytest.approx(
        savings_score(yv, (s_aec > 0.5).astype(int), cost_matrix=Cv), abs=1e-9)
    assert auto.validation_savings_["aec+bmr"] == pytest.approx(
        savings_score(yv, bayes_minimum_risk(s_aec, cost_matrix=Cv), cost_matrix=Cv), abs=1e-9)
    s_auto = auto.predict_proba(Xv)[:, 1]
    expected = (s_auto > 0.5).astype(int) if auto.decision_ == "aec" else bayes_minimum_risk(s_auto, cost_matrix=Cv)
    np.testing.assert_array_equal(auto.predict(Xv, cost_matrix=Cv), expected)


# ------------------------------------------------------------------ the money guard sees the start margins
@pytest.mark.parametrize("where", ["training", "validation", "validation only"])
@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_money_guard_scores_rows_from_their_start_margins(data, lib, where):
    # margins +6 flag every row, which costs more than flagging none here: the guard (savings < 0)
    # must score the rows from their start margins, not from the model's own start
    L = LIBS[lib]
    (X, y, C), _ = data
    c_none, c_all = trivial_policy_costs(y, C)
    assert c_all > c_none
    up, down = np.full(X.shape[0], 6.0), np.full(X.shape[0], -6.0)
    # validation: the eval set is the training array itself with other margins (flag none in training);
    # "validation only": margins just above 0 for the eval set alone, which a start margin m0 < 0 added
    # to them would turn into "flag none"
    if where == "validation only":
        up = np.full(X.shape[0], 0.3)
    kw = {"training": {L["init"]: up}, "validation": {L["init"]: down, L["evals"]: [up]},
          "validation only": {L["evals"]: [up]}}[where]
    with pytest.warns(MoneyLossWarning) as rec:
        est = _fit(lib, 1, (X, y, C), evals=None if where == "training" else [(X, y, C)], learning_rate=0.01, **kw)
    if lib == "xgb":
        margin = est.predict(X, output_margin=True, base_margin=up)
    else:
        margin = up + est.predict(X, raw_score=True) - est.start_margin_
    by_hand = savings_score(y, (expit(margin) > 0.5).astype(int), cost_matrix=C)
    assert by_hand < 0
    assert f"lose money on the {where.split()[0]} set: savings {by_hand:.4f}" in str(rec[0].message)


def test_xgb_base_margin_refused_when_the_logloss_booster_decides(data):
    train, (Xv, yv, Cv) = data
    auto = _fit("xgb", 5, train, evals=[(Xv, yv, Cv)], decision="auto")
    auto.decision_ = "logloss+bmr"  # the rule validation savings may choose: the logloss booster decides
    with pytest.raises(ValueError, match="base_margin is a start margin of the AEC booster"):
        auto.predict_proba(Xv, base_margin=np.zeros(Xv.shape[0]))


def test_xgb_continuation_with_base_margin_starts_from_margin_plus_init_trees(data):
    # xgboost's rule: with xgb_model and base_margin a row starts from base_margin + the init model's trees
    (X, y, C), (Xv, _, _) = data
    first = _fit("xgb", 6, (X, y, C))
    rng = np.random.default_rng(4)
    b, bv = rng.normal(-1.0, 0.5, X.shape[0]), rng.normal(-1.0, 0.5, Xv.shape[0])
    cont = _fit("xgb", 4, (X, y, C), xgb_model=first, base_margin=b)
    off = _fit("xgb", 4, (X, y, C), base_margin=b + _xgb_leaf_sum(first.booster_, X))
    assert cont.n_estimators_ == 10
    np.testing.assert_allclose(cont.predict(Xv, output_margin=True, base_margin=bv),
                               off.predict(Xv, output_margin=True, base_margin=bv + _xgb_leaf_sum(first.booster_, Xv)),
                               rtol=0, atol=1e-5)
