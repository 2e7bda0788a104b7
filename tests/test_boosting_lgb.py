"""lightgbm plugin: objective in params, money feval, callbacks, init score, CSLGBMClassifier."""

import pickle

import lightgbm as lgb
import numpy as np
import pytest
import sklearn
from scipy.special import expit
from sklearn.model_selection import KFold, cross_validate, train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from csboost_plugins import lgb as clgb
from csboost_plugins.metrics import (
    bayes_minimum_risk,
    expected_cost_loss,
    expected_savings_score,
    make_expected_savings_scorer,
    savings_score,
)
from csdt.datasets import load_churn, make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")

P = {"verbose": -1, "num_threads": 1, "num_leaves": 8, "learning_rate": 0.2, "deterministic": True,
     "force_row_wise": True}


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(6000, fraud_rate=0.05, random_state=1)
    return b.data.to_numpy(), np.asarray(b.target), b.cost_matrix


@pytest.fixture(scope="module")
def churn_split():
    b = load_churn()
    return train_test_split(b.data, np.asarray(b.target), b.cost_matrix, test_size=0.4, random_state=0,
                            stratify=b.target)


def _sets(fraud):
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:3000], y[:3000], cost_matrix=C[:3000])
    dva = clgb.cost_dataset(X[3000:4500], y[3000:4500], cost_matrix=C[3000:4500], reference=dtr)
    dte = clgb.cost_dataset(X[4500:], y[4500:], cost_matrix=C[4500:], reference=dtr)
    return dtr, dva, dte


def test_native_objective_in_params_and_feval(fraud):
    X, y, C = fraud
    dtr, dva, _ = _sets(fraud)
    res = {}
    bst = lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 30, valid_sets=[dtr, dva],
                    valid_names=["train", "val"], feval=clgb.money_metrics(),
                    callbacks=[lgb.record_evaluation(res)])
    clgb.bake_start_margin(bst, dtr)
    s = clgb.predict_proba(bst, X[3000:4500])
    yv, Cv = y[3000:4500], C[3000:4500]
    # default decision s > 1/2, the estimators' predict (one constant: _money_eval.DEFAULT_METRIC_DECISION)
    assert res["val"]["savings"][-1] == pytest.approx(
        savings_score(yv, (s > 0.5).astype(int), cost_matrix=Cv), abs=1e-9)
    bmr = clgb.money_metric("savings", decision="bmr")(bst.predict(X[3000:4500], raw_score=True), dva)
    assert bmr[1] == pytest.approx(savings_score(yv, bayes_minimum_risk(s, cost_matrix=Cv), cost_matrix=Cv), abs=1e-9)
    assert res["val"]["expected_savings"][-1] == pytest.approx(expected_savings_score(yv, s, cost_matrix=Cv), abs=1e-9)
    assert res["val"]["aec"][-1] == pytest.approx(expected_cost_loss(yv, s, cost_matrix=Cv, normalize=True), rel=1e-9)
    assert res["train"]["aec"][-1] < 0.8 * res["train"]["aec"][0]


def test_dataset_without_costs_is_a_clear_error(fraud):
    X, y, C = fraud
    dtr, _, _ = _sets(fraud)
    plain = lgb.Dataset(X[3000:3500], label=y[3000:3500], reference=dtr)
    with pytest.raises(ValueError, match="carries no costs.*cost_dataset"):
        lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[plain], feval=clgb.savings_metric)
    with pytest.raises(ValueError, match="carries no costs"):
        lgb.train({**P, "objective": clgb.aec_objective()}, lgb.Dataset(X, label=y), 1)
    with pytest.raises(ValueError, match="fp_cost has length"):
        clgb.cost_dataset(X[:10], y[:10], fp_cost=np.ones(9), fn_cost=1.0)


def test_eval_sets_use_their_own_costs_and_early_stopping_on_named_set(fraud):
    X, y, C = fraud
    dtr, dva, dte = _sets(fraud)
    rec = {}
    bst = lgb.train({**P, "objective": clgb.aec_objective(), "learning_rate": 0.3}, dtr, 150,
                    valid_sets=[dte, dva], valid_names=["other", "val"], feval=clgb.money_metrics(),
                    callbacks=[clgb.early_stopping(15, data_name="val", metric="savings"), clgb.record_money(rec)])
    sav = np.asarray(rec["val"]["savings"])
    assert bst.best_iteration == int(np.argmax(sav)) + 1
    assert len(sav) == min(150, bst.best_iteration + 15)
    clgb.bake_start_margin(bst, dtr)
    # recorded money of every set equals the independent metric of that set at every 10th round
    for k in range(1, bst.best_iteration + 1, 10):  # lgb.train keeps the trees up to the best round
        for sl, name in ((slice(3000, 4500), "val"), (slice(4500, 6000), "other"), (slice(0, 3000), "training")):
            s = clgb.predict_proba(bst, X[sl], num_iteration=k)
            assert rec[name]["expected_savings"][k - 1] == pytest.approx(
                expected_savings_score(y[sl], s, cost_matrix=C[sl]), abs=1e-9)
            assert rec[name]["savings"][k - 1] == pytest.approx(
                savings_score(y[sl], (s > 0.5).astype(int), cost_matrix=C[sl]), abs=1e-9)
    with pytest.raises(ValueError, match="no metric 'aec' on eval set 'nope'"):
        lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 3, valid_sets=[dva], valid_names=["val"],
                  feval=clgb.money_metrics(), callbacks=[clgb.early_stopping(2, data_name="nope")])


def test_init_score_baked_into_model(fraud, tmp_path):
    X, y, C = fraud
    dtr, _, _ = _sets(fraud)
    bst = lgb.train({**P, "objective": clgb.aec_objective(), "learning_rate": 1e-12}, dtr, 3)
    raw_before = bst.predict(X, raw_score=True)
    np.testing.assert_allclose(raw_before, 0.0, atol=1e-9)  # lightgbm alone forgets the init score (#1778)
    clgb.bake_start_margin(bst, dtr)
    yt, Ct = y[:3000], C[:3000]
    d = np.where(yt == 1, Ct[:, 2] - Ct[:, 1], Ct[:, 0] - Ct[:, 3])
    rho = np.abs(d)[d < 0].sum() / np.abs(d).sum()  # default start: the regret share preferring 1
    np.testing.assert_allclose(bst.predict(X, raw_score=True), np.log(rho / (1 - rho)), atol=1e-9)
    np.testing.assert_allclose(bst.predict(X, raw_score=True, num_iteration=1), np.log(rho / (1 - rho)),
                               atol=1e-9)
    f = tmp_path / "m.txt"
    bst.save_model(f)
    np.testing.assert_allclose(lgb.Booster(model_file=str(f)).predict(X, raw_score=True),
                               bst.predict(X, raw_score=True))


def test_weights_multiply_gradient_hessian(fraud, weights_as_duplicates):
    # integer weights == duplicated rows (few distinct values: identical bins; min_data_in_leaf=1)
    X, y, C, w, idx = weights_as_duplicates(seed=2, levels=10, cut=5, fn_low=3)
    p = {**P, "objective": clgb.aec_objective(), "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": 0.0}
    dw = clgb.cost_dataset(X, y, cost_matrix=C, weight=w)
    dd = clgb.cost_dataset(X[idx], y[idx], cost_matrix=C[idx])
    bw = clgb.bake_start_margin(lgb.train(p, dw, 15), dw)
    bd = clgb.bake_start_margin(lgb.train(p, dd, 15), dd)
    np.testing.assert_allclose(bw.predict(X, raw_score=True), bd.predict(X, raw_score=True), rtol=1e-6, atol=1e-6)
    du = clgb.cost_dataset(X, y, cost_matrix=C)
    bu = clgb.bake_start_margin(lgb.train(p, du, 15), du)
    assert np.abs(bu.predict(X, raw_score=True) - bw.predict(X, raw_score=True)).max() > 1e-3
    # the scikit-learn wrapper path (f(y_true, y_pred, weight, group)) keeps the weights too (LightGBM#5027)
    obj = clgb.aec_objective(cost_matrix=C)
    m0 = float(np.full(1, bw.predict(X, raw_score=True)[0] * 0 + dw.csboost_start_margin)[0])
    sk = lgb.LGBMClassifier(objective=obj, n_estimators=15, learning_rate=0.2, num_leaves=8, min_child_samples=1,
                            min_child_weight=0.0, verbose=-1, n_jobs=1, deterministic=True, force_row_wise=True)
    sk.fit(X, y, sample_weight=w, init_score=np.full(len(y), m0))
    np.testing.assert_allclose(sk.predict(X, raw_score=True) + m0, bw.predict(X, raw_score=True), rtol=1e-6,
                               atol=1e-6)
    with pytest.raises(ValueError, match="holds costs for 400 rows"):
        lgb.LGBMClassifier(objective=obj, n_estimators=1, verbose=-1).fit(X[:100], y[:100])


def test_costs_times_1000_same_model(fraud):
    X, y, C = fraud
    e1 = clgb.CSLGBMClassifier(n_estimators=20, n_jobs=1, random_state=0).fit(X, y, cost_matrix=C)
    e2 = clgb.CSLGBMClassifier(n_estimators=20, n_jobs=1, random_state=0).fit(X, y, cost_matrix=C * 1000.0)
    np.testing.assert_allclose(e1.decision_function(X), e2.decision_function(X), rtol=1e-5, atol=1e-5)


def _expected_failures(est):
    # lightgbm builds its histogram bins from row *counts* (min_data_in_bin, bin_construct_sample_cnt), so
    # duplicated rows get other bin edges than weighted rows; the weights themselves enter gradient and
    # hessian exactly (test_weights_multiply_gradient_hessian checks it with exact bins)
    return {"check_sample_weight_equivalence_on_dense_data": "lightgbm bins rows by count, not by weight"}


@parametrize_with_checks([clgb.CSLGBMClassifier(n_estimators=5, n_jobs=1, min_child_samples=1, random_state=0)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_estimator_contract_early_stopping_pickle_native(churn_split, tmp_path):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    est = clgb.CSLGBMClassifier(decision="0.5", n_estimators=300, learning_rate=0.2, num_leaves=8, early_stopping_rounds=15,
                                n_jobs=1, random_state=0)
    est.fit(Xtr, ytr, cost_matrix=Ctr, eval_set=[(Xte, yte)], eval_costs=[{"cost_matrix": Cte}])
    aec = np.asarray(est.evals_result_["validation_0"]["aec"])  # default eval_metric="aec"
    sav = np.asarray(est.evals_result_["validation_0"]["savings"])
    assert est.best_iteration_ == int(np.argmin(aec)) + 1 == est.n_estimators_
    proba = est.predict_proba(Xte)
    np.testing.assert_allclose(proba[:, 1], expit(est.decision_function(Xte)))
    assert savings_score(yte, est.predict(Xte), cost_matrix=Cte) == pytest.approx(sav[est.best_iteration_ - 1],
                                                                                  abs=1e-9)
    assert np.array_equal(est.predict(Xte), (proba[:, 1] > 0.5).astype(int))
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.predict_proba(Xte), proba)
    f = tmp_path / "cslgbm.txt"
    est.booster_.save_model(f)
    np.testing.assert_allclose(lgb.Booster(model_file=str(f)).predict(Xte.to_numpy(), raw_score=True),
                               est.decision_function(Xte), rtol=1e-9)


def test_estimator_beats_logloss_on_expected_savings_churn(churn_split):
    Xtr, Xte, ytr, yte, Ctr, Cte = churn_split
    est = clgb.CSLGBMClassifier(decision="0.5", n_estimators=100, num_leaves=8, n_jobs=1, random_state=0).fit(Xtr, ytr, cost_matrix=Ctr)
    base = lgb.LGBMClassifier(n_estimators=100, num_leaves=8, n_jobs=1, random_state=0, verbose=-1).fit(Xtr, ytr)
    es_aec = expected_savings_score(yte, est.predict_proba(Xte)[:, 1], cost_matrix=Cte)
    es_ll = expected_savings_score(yte, base.predict_proba(Xte)[:, 1], cost_matrix=Cte)
    assert es_aec > es_ll + 0.02, (es_aec, es_ll)


def test_metadata_routing_cross_validate(churn_split):
    Xtr, _, ytr, _, Ctr, _ = churn_split
    X, y, C = Xtr.to_numpy()[:2000], ytr[:2000], Ctr[:2000]
    fp, fn = C[:, 0], C[:, 1]
    tp = C[:, 2]
    with sklearn.config_context(enable_metadata_routing=True):
        est = clgb.CSLGBMClassifier(n_estimators=10, num_leaves=8, n_jobs=1, random_state=0)
        est.set_fit_request(fp_cost=True, fn_cost=True, tp_cost=True)
        got = cross_validate(est, X, y, cv=KFold(3), scoring=make_expected_savings_scorer(),
                             params={"fp_cost": fp, "fn_cost": fn, "tp_cost": tp})["test_score"]
    want = []
    for tr, te in KFold(3).split(X):
        m = clgb.CSLGBMClassifier(n_estimators=10, num_leaves=8, n_jobs=1, random_state=0).fit(
            X[tr], y[tr], fp_cost=fp[tr], fn_cost=fn[tr], tp_cost=tp[tr])
        want.append(expected_savings_score(y[te], m.predict_proba(X[te])[:, 1], fp_cost=fp[te], fn_cost=fn[te],
                                           tp_cost=tp[te]))
    np.testing.assert_allclose(got, want)


# ------------------------------------------------------------------ native helpers (best iteration, boosters)

def test_predict_proba_uses_best_iteration(fraud):
    X, y, C = fraud
    dtr, dva, _ = _sets(fraud)
    # 70 rounds with patience 70: every tree kept (keep_training_booster), best_iteration set
    bst = lgb.train({**P, "objective": clgb.aec_objective(), "learning_rate": 0.5}, dtr, 70, valid_sets=[dva],
                    valid_names=["val"], feval=clgb.money_metrics, keep_training_booster=True,
                    callbacks=[clgb.early_stopping(70, data_name="val")])
    best = bst.best_iteration
    assert bst.num_trees() == 70 and 1 < best < 60
    clgb.bake_start_margin(bst, dtr)
    Xt = X[4500:]
    best_p = expit(bst.predict(Xt, raw_score=True, num_iteration=best))
    np.testing.assert_allclose(clgb.predict_proba(bst, Xt), best_p, rtol=1e-12)
    assert np.abs(expit(bst.predict(Xt, raw_score=True, num_iteration=-1)) - best_p).max() > 0.05


def test_bake_start_margin_once_and_guarded(fraud):
    X, y, C = fraud
    dtr, _, _ = _sets(fraud)
    bst = lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 10)
    raw = bst.predict(X, raw_score=True)
    # forgotten: a clear error instead of probabilities without the start margin
    with pytest.raises(ValueError, match="bake_start_margin"):
        clgb.predict_proba(bst, X)
    assert not clgb.is_baked(bst)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="finite"):
            clgb.bake_start_margin(bst, bad)
    with pytest.raises(ValueError, match="not built by csboost_plugins.lgb.cost_dataset"):
        clgb.bake_start_margin(bst, lgb.Dataset(X, label=y))
    assert np.array_equal(bst.predict(X, raw_score=True), raw)  # refused bakes changed nothing
    m0 = dtr.csboost_start_margin
    clgb.bake_start_margin(bst, dtr)
    np.testing.assert_allclose(bst.predict(X, raw_score=True), raw + m0, rtol=0, atol=1e-12)
    clgb.bake_start_margin(bst, dtr)  # idempotent: not shifted again
    clgb.bake_start_margin(bst, m0)
    np.testing.assert_allclose(bst.predict(X, raw_score=True), raw + m0, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="already holds start margin"):
        clgb.bake_start_margin(bst, m0 + 1.0)
    # the mark survives save / load: a reloaded baked booster is not baked twice either
    re = lgb.Booster(model_str=bst.model_to_string())
    assert clgb.is_baked(re)
    clgb.bake_start_margin(re, dtr)
    np.testing.assert_allclose(re.predict(X, raw_score=True), raw + m0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(re.predict(X), expit(raw + m0), rtol=1e-12)  # plain predict: probabilities
    # a Dataset built without an init score bakes 0
    d0 = clgb.cost_dataset(X[:3000], y[:3000], cost_matrix=C[:3000], start_margin=None)
    b0 = lgb.train({**P, "objective": clgb.aec_objective()}, d0, 3)
    r0 = b0.predict(X, raw_score=True)
    np.testing.assert_allclose(clgb.bake_start_margin(b0, d0).predict(X, raw_score=True), r0, atol=1e-12)
    with pytest.raises(ValueError, match="finite"):
        clgb.cost_dataset(X[:10], y[:10], fp_cost=1.0, fn_cost=2.0, start_margin=np.nan)
    # lightgbm's own objective: nothing to bake, not an AEC booster
    builtin = lgb.train({**P, "objective": "regression"}, lgb.Dataset(X[:500], label=y[:500]), 2)
    with pytest.raises(ValueError, match="not the AEC objective"):
        clgb.bake_start_margin(builtin, 0.0)


def test_metric_factory_cannot_be_confused_with_a_metric(fraud):
    dtr, dva, _ = _sets(fraud)
    got = []
    for feval in (clgb.money_metrics, clgb.money_metrics()):
        res = {}
        lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 5, valid_sets=[dva], valid_names=["val"],
                  feval=feval, callbacks=[lgb.record_evaluation(res)])
        got.append(res)
    assert got[0] == got[1] and set(got[0]["val"]) == {"aec", "expected_savings", "savings"}
    with pytest.raises(TypeError, match="money_metric is a factory, not a metric"):
        lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 2, valid_sets=[dva], feval=clgb.money_metric)


def test_record_money_uses_valid_names_and_the_shared_decision(fraud):
    from csboost_plugins.boosting._money_eval import DEFAULT_METRIC_DECISION

    X, y, C = fraud
    dtr, dva, _ = _sets(fraud)
    rec, res = {}, {}
    bst = lgb.train({**P, "objective": clgb.aec_objective()}, dtr, 40, valid_sets=[dtr, dva],
                    valid_names=["train", "val"], feval=clgb.money_metrics,
                    callbacks=[clgb.record_money(rec), lgb.record_evaluation(res),
                               clgb.early_stopping(10)])
    assert set(rec) == {"train", "val"}
    # early stopping watched "val" (not the training set, although it came first) and the aec by default
    assert bst.best_iteration == int(np.argmin(res["val"]["aec"])) + 1 > 1
    # record_money, the feval and the estimator's default decide the same way
    assert rec["val"]["savings"] == pytest.approx(res["val"]["savings"], abs=1e-12)
    assert clgb.CSLGBMClassifier(decision="0.5").decision == clgb.money_metric("savings").decision == DEFAULT_METRIC_DECISION
    est = clgb.CSLGBMClassifier(decision="0.5", n_estimators=20, num_leaves=8, n_jobs=1, random_state=0)
    est.fit(X[:3000], y[:3000], cost_matrix=C[:3000], eval_set=[(X[3000:4500], y[3000:4500])],
            eval_costs=[{"cost_matrix": C[3000:4500]}])
    assert est.evals_result_["validation_0"]["savings"][-1] == pytest.approx(
        savings_score(y[3000:4500], est.predict(X[3000:4500]), cost_matrix=C[3000:4500]), abs=1e-9)


def test_lgb_cv_folds_keep_their_costs(fraud):
    X, y, C = fraud
    X, y, C = X[:3000], y[:3000], C[:3000]
    dall = clgb.cost_dataset(X, y, cost_matrix=C)
    p = {**P, "objective": clgb.aec_objective()}
    perm = np.random.default_rng(0).permutation(3000)
    folds = [(np.setdiff1d(np.arange(3000), perm[k::3]), np.sort(perm[k::3])) for k in range(3)]
    res = lgb.cv(p, dall, 8, folds=folds, feval=clgb.money_metrics)
    by_hand = {k: [] for k in ("aec", "savings", "expected_savings")}
    m0 = dall.csboost_start_margin
    for tr, te in folds:  # the fold's rows and costs, binned like the full set, same start margin
        dtr = clgb.cost_dataset(X[tr], y[tr], cost_matrix=C[tr], reference=dall)
        bst = clgb.bake_start_margin(lgb.train(p, dtr, 8), m0)
        s = clgb.predict_proba(bst, X[te])
        by_hand["aec"].append(expected_cost_loss(y[te], s, cost_matrix=C[te], normalize=True))
        by_hand["savings"].append(savings_score(y[te], (s > 0.5).astype(int), cost_matrix=C[te]))
        by_hand["expected_savings"].append(expected_savings_score(y[te], s, cost_matrix=C[te]))
    for k, v in by_hand.items():
        assert res[f"valid {k}-mean"][-1] == pytest.approx(np.mean(v), rel=1e-9)
    sub = dall.subset([30, 10, 20]).construct()
    np.testing.assert_array_equal(clgb.get_costs(sub), C[[10, 20, 30]])
    assert sub.csboost_start_margin == m0


def test_no_import_cycles_in_boosting_modules():
    """No boosting module of csboost_plugins imports, even inside a function, a module that imports it back.

    (A module-level ``__getattr__``, PEP 562 lazy re-export, would run only after both
    modules are initialised, so its imports are not counted.)
    """
    import ast
    from pathlib import Path

    root = Path(clgb.__file__).resolve().parent
    modules = {".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in root.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        lazy = {id(n) for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "__getattr__"
                for n in ast.walk(f)}
        edges = set()
        for node in ast.walk(tree):
            if id(node) in lazy:
                continue
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
                for alias in node.names:  # "from . import x" imports the module x
                    edges.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
            elif isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name in modules)
        graph[name] = edges & set(modules) - {name}

    def reaches(start, goal, seen):
        return any(n == goal or (n not in seen and not seen.add(n) and reaches(n, goal, seen)) for n in graph[start])

    boosting = {f"csboost_plugins.{m}" for m in ("xgb", "lgb", "callback", "costs", "metrics", "decision_costs")}
    boosting |= {f"csboost_plugins.boosting.{m}" for m in ("_xgb_native", "_lgb_native", "_lgb_callback", "_money_eval",
                                                          "_lgb_data", "_aec", "_sklearn_base", "_xgb_sklearn",
                                                          "_lgb_sklearn", "_decision_layer", "_native_input")}
    assert boosting <= set(graph)
    cycles = sorted((a, b) for a in boosting for b in graph[a] if b != "csboost_plugins" and reaches(b, a, set()))
    assert not cycles, f"import cycles (module -> module that imports it back): {cycles}"
