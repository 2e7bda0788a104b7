"""The CatBoost host: AEC objective and money metrics inside CatBoost fits, the deployable model,
``CSCatBoostClassifier`` with the shared default decision, named errors, pickling and cloning."""

import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

catboost = pytest.importorskip("catboost", reason="catboost not installed (the 'catboost' extra)")

from sklearn.base import clone  # noqa: E402

from csboost_plugins import catboost as ccb  # noqa: E402
from csboost_plugins.boosting import _decision_layer as dl  # noqa: E402
from csboost_plugins.metrics import bayes_minimum_risk, savings_score  # noqa: E402
from csdt import datasets  # noqa: E402

CSCatBoostClassifier = ccb.CSCatBoostClassifier
FAST = dict(thread_count=2, random_state=0)


def _fraud(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    amount = np.exp(rng.normal(3.0, 1.0, size=n))
    X[:, 4] = np.log(amount)
    y = (X[:, 0] + 0.5 * X[:, 4] + rng.normal(size=n) > 3.0).astype(int)
    return X, y, amount


def _bundled(name, n):
    b = getattr(datasets, f"load_{name}")()
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix)
    idx = np.random.default_rng(0).permutation(len(y))[:n]
    return X[idx], y[idx], C[idx]


def _expected_cost(m, y, C):
    """Per-row expected cost c0 + d s written out from the cost matrix (independent of the package)."""
    s = 1.0 / (1.0 + np.exp(-m))
    fp, fn, tp, tn = C.T
    return y * (s * tp + (1 - s) * fn) + (1 - y) * (s * fp + (1 - s) * tn)


class _Recorder(ccb.AECObjective):
    """The AEC objective that keeps what CatBoost gave it and what it returned (a few calls), in a class
    attribute: CatBoost fits a deep copy of the objective it is given."""

    calls = []

    def calc_ders_range(self, approxes, targets, weights):
        out = super().calc_ders_range(approxes, targets, weights)
        if len(self.calls) < 40:
            self.calls.append((np.array(approxes, dtype=np.float64), np.array(targets, dtype=np.float64),
                               np.array(weights, dtype=np.float64), np.array(out, dtype=np.float64)))
        return out


@pytest.mark.boundscheck  # the objective's kernel is JIT-only: .ci/boundscheck runs it with bounds checks
@pytest.mark.parametrize("hessian", ["exact", "abs"])
def test_derivatives_inside_a_catboost_fit_match_finite_differences(hessian):
    X, y, amount = _fraud()
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    C = np.column_stack([np.full(len(y), 5.0), amount, np.full(len(y), 5.0), np.zeros(len(y))])
    pool = ccb.cost_pool(X, y, cost_matrix=C, sample_weight=w)
    obj = _Recorder(hessian=hessian)
    _Recorder.calls.clear()
    params = ccb.aec_params({"iterations": 8, "verbose": 0, "thread_count": 2, "boosting_type": "Ordered"})
    params["loss_function"] = obj
    catboost.CatBoost(params).fit(pool)
    assert obj.calls
    d = (C[:, 2] - C[:, 1]) * y + (C[:, 0] - C[:, 3]) * (1 - y)
    scale = np.average(np.abs(d), weights=w)
    pool_labels = set(np.float32(d / scale).tolist())
    for m, t, wt, ders in obj.calls:
        assert set(t.astype(np.float32).tolist()) <= pool_labels  # the rows' own costs reach the objective
        # weighted expected cost of each row, in the pool's money unit: w t sigma(m); CatBoost maximises
        def loss(mm):
            return wt * t / (1.0 + np.exp(-mm))
        eps = 1e-4
        g = (loss(m + eps) - loss(m - eps)) / (2 * eps)
        np.testing.assert_allclose(-ders[:, 0], g, rtol=1e-5, atol=1e-6)
        s = 1.0 / (1.0 + np.exp(-m))
        if hessian == "exact":
            h = (loss(m + eps) - 2 * loss(m) + loss(m - eps)) / eps**2
            np.testing.assert_allclose(-ders[:, 1], h, rtol=1e-3, atol=1e-5)
        else:
            h = wt * np.abs(t) * s * (1 - s) * np.maximum(np.abs(1 - 2 * s), 0.1)
            np.testing.assert_allclose(-ders[:, 1], h, rtol=1e-5, atol=1e-7)


@pytest.mark.boundscheck
def test_money_metrics_equal_savings_score_and_expected_cost_on_the_eval_set():
    X, y, amount = _fraud(4000)
    tr, va = slice(0, 2500), slice(2500, None)
    kw = dict(fp_cost=5.0, tp_cost=5.0)
    dtr = ccb.cost_pool(X[tr], y[tr], fn_cost=amount[tr], **kw)
    dva = ccb.cost_pool(X[va], y[va], fn_cost=amount[va], reference=dtr, **kw)
    C = np.column_stack([np.full(1500, 5.0), amount[va], np.full(1500, 5.0), np.zeros(1500)])
    for metric, decision in [("savings", "0.5"), ("savings", "bmr"), ("aec", "0.5")]:
        params = ccb.aec_params({"iterations": 30, "verbose": 0, "thread_count": 2}, metric=metric,
                                decision=decision)
        model = catboost.CatBoost(params).fit(dtr, eval_set=dva)
        name = type(params["eval_metric"]).__name__
        value = model.get_evals_result()["validation"][name][-1]
        ccb.bake_start_margin(model, dtr)
        s = ccb.predict_proba(model, X[va])
        if metric == "aec":
            m = np.log(s) - np.log1p(-s)
            assert value == pytest.approx(_expected_cost(m, y[va], C).mean(), rel=1e-7)
            hist = model.get_evals_result()["learn"][name]
            assert hist[-1] < hist[0]  # the objective's sign: training lowers the expected cost
        else:
            pred = (s > 0.5).astype(int) if decision == "0.5" else bayes_minimum_risk(s, cost_matrix=C)
            assert value == pytest.approx(savings_score(y[va], pred, cost_matrix=C), abs=1e-12)


def test_a_pool_without_costs_is_refused_by_the_metric():
    X, y, amount = _fraud(500)
    dtr = ccb.cost_pool(X, y, fp_cost=5.0, fn_cost=amount)
    plain = catboost.Pool(X, label=np.zeros(len(y)), weight=np.ones(len(y)), baseline=np.zeros(len(y)))
    with pytest.raises(catboost.CatBoostError, match="no live cost pool"):
        catboost.CatBoost(ccb.aec_params({"iterations": 2, "verbose": 0})).fit(dtr, eval_set=plain)


def test_native_early_stopping_on_money_keeps_the_best_round():
    X, y, amount = _fraud(4000)
    dtr = ccb.cost_pool(X[:2500], y[:2500], fp_cost=5.0, fn_cost=amount[:2500])
    dva = ccb.cost_pool(X[2500:], y[2500:], fp_cost=5.0, fn_cost=amount[2500:], reference=dtr)
    params = ccb.aec_params({"iterations": 2000, "verbose": 0, "thread_count": 2, "learning_rate": 0.3})
    params.update(ccb.early_stopping(10, metric="savings"))
    model = catboost.CatBoost(params).fit(dtr, eval_set=dva)
    hist = np.asarray(model.get_evals_result()["validation"]["Savings"])
    assert len(hist) < 2000
    assert model.get_best_iteration() == int(np.argmax(hist))
    assert model.tree_count_ == model.get_best_iteration() + 1


def test_deployable_file_in_a_process_without_this_package(tmp_path):
    X, y, amount = _fraud(3000)
    est = CSCatBoostClassifier(n_estimators=60, decision="0.5", pos_label="fraud", **FAST).fit(
        X, np.where(y == 1, "fraud", "ok"), fp_cost=5.0, fn_cost=amount)
    assert est.classes_.tolist() == ["ok", "fraud"]  # [negative, positive]: column 1 is P(fraud)
    p = est.predict_proba(X)
    path, xpath = tmp_path / "m.cbm", tmp_path / "X.npy"
    est.save_model(path)
    np.save(xpath, X)
    code = textwrap.dedent(f"""
        import sys, numpy as np
        from catboost import CatBoostClassifier
        m = CatBoostClassifier().load_model({str(path)!r})
        assert not any(k.startswith("csboost") for k in sys.modules)
        np.save({str(tmp_path / "p.npy")!r}, m.predict_proba(np.load({str(xpath)!r})))
        print(m.classes_.tolist())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert out.stdout.strip() == str(est.classes_.tolist())
    np.testing.assert_allclose(np.load(tmp_path / "p.npy"), p, rtol=0, atol=1e-6)
    s = 1.0 / (1.0 + np.exp(-est.decision_function(X)))  # the margin holds the start margin
    np.testing.assert_allclose(s, p[:, 1], rtol=0, atol=1e-12)
    back = CSCatBoostClassifier.load_model(path)
    np.testing.assert_array_equal(back.predict_proba(X), p)
    assert back.classes_.tolist() == est.classes_.tolist() and back.start_margin_ == est.start_margin_
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_constant_X_gives_the_start_margin_model(tmp_path):
    # CatBoost itself refuses X without a splittable feature; xgboost and lightgbm keep the start margin
    y = np.array([0, 1] * 30)
    amount = np.linspace(1.0, 60.0, len(y))
    X = np.ones((len(y), 3))
    with pytest.raises(catboost.CatBoostError, match="constant"):
        catboost.CatBoostClassifier(iterations=3, verbose=0, allow_writing_files=False).fit(X, y)
    est = CSCatBoostClassifier(n_estimators=20, decision="0.5", pos_label="fraud", **FAST).fit(
        X, np.where(y == 1, "fraud", "ok"), fp_cost=5.0, fn_cost=amount)
    # the cost-prior start margin by hand: log(sum over positives of C_FN / sum over negatives of C_FP)
    m0 = np.log(amount[y == 1].sum() / (5.0 * (y == 0).sum()))
    assert est.start_margin_ == pytest.approx(m0, rel=1e-12)
    s = 1.0 / (1.0 + np.exp(-m0))
    np.testing.assert_allclose(est.predict_proba(X), np.tile([1 - s, s], (len(y), 1)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.decision_function(X), m0, rtol=0, atol=1e-12)
    assert (est.predict(X) == ("fraud" if s > 0.5 else "ok")).all()
    assert est.n_estimators_ == 1 and not est.feature_importances_.any()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict_proba(X), est.predict_proba(X))
    path = tmp_path / "c.cbm"
    est.save_model(path)
    back = CSCatBoostClassifier.load_model(path)
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.start_margin_ == est.start_margin_ and back.classes_.tolist() == ["ok", "fraud"]
    plain = catboost.CatBoostClassifier()
    plain.load_model(str(path))
    np.testing.assert_allclose(plain.predict_proba(X), est.predict_proba(X), rtol=0, atol=1e-12)
    # decision="auto": the logloss model's constant is the log-odds of the class rate (here 1/2)
    auto = CSCatBoostClassifier(n_estimators=20, **FAST).fit(X, y, fp_cost=5.0, fn_cost=amount)
    assert np.ptp(auto.predict_proba(X)[:, 1]) == 0.0
    if auto.decision_ == "logloss+bmr":
        np.testing.assert_allclose(auto.logloss_booster_.predict_proba(X)[:, 1], 0.5, atol=1e-12)


def test_too_little_hessian_to_split_keeps_the_start_like_xgboost():
    # plain CatBoost splits two rows 1 + 1 (symmetric trees have no minimum leaf weight); xgboost's default
    # min_child_weight=1 needs 1 unit of hessian on each side, so it cannot split a root holding less than 2
    from csboost_plugins.xgb import CSXGBClassifier

    rng = np.random.default_rng(0)
    for n, splits in ((2, False), (6, False), (100, True)):
        X, y, fn = rng.normal(size=(n, 3)), np.arange(n) % 2, np.linspace(1.0, 50.0, n)
        pool = ccb.cost_pool(X, y, fp_cost=5.0, fn_cost=fn)
        h = -ccb.AECObjective().calc_ders_range(np.full(n, ccb.start_margin(pool)),
                                                np.asarray(pool.get_label(), np.float32),
                                                np.asarray(pool.get_weight(), np.float32))[:, 1]
        xgb_est = CSXGBClassifier(n_estimators=20, max_depth=3, n_jobs=1, random_state=0, decision="0.5").fit(
            X, y, fp_cost=5.0, fn_cost=fn)
        trees = xgb_est.booster_.trees_to_dataframe()
        assert trees[trees.Node == 0].Cover.iloc[0] == pytest.approx(h.sum(), rel=1e-6)  # the same hessians
        assert (h.sum() >= 2.0) == splits and (trees.Feature != "Leaf").any() == splits
        est = CSCatBoostClassifier(n_estimators=20, depth=3, decision="0.5", **FAST).fit(X, y, fp_cost=5.0, fn_cost=fn)
        assert (np.ptp(est.predict_proba(X)[:, 1]) > 0) == splits
    plain = catboost.CatBoostClassifier(iterations=20, depth=3, verbose=0, allow_writing_files=False, **FAST)
    assert np.ptp(plain.fit(X[:2], y[:2]).predict_proba(X[:2])[:, 1]) > 0.01


def test_default_decision_auto_like_the_other_hosts():
    X, y, C = _bundled("creditscoring2", 6000)
    est = CSCatBoostClassifier(n_estimators=150, **FAST).fit(X, y, cost_matrix=C)
    assert est.decision == "auto" and est.decision_ in dl.RULES
    assert est.booster_ is (est.logloss_booster_ if est.decision_ == "logloss+bmr" else est.aec_booster_)
    tr, va = dl.holdout(est, y)  # seeded by random_state
    other = dl.holdout(CSCatBoostClassifier(random_state=1), y)[1]
    assert not np.array_equal(va, other)
    # the logloss booster is CatBoost's own Logloss on the training part, early-stopped on the held-out rows,
    # started from the class rate as the other hosts' logloss boosters are (CatBoost's default starts from 0)
    ref = catboost.CatBoostClassifier(iterations=150, learning_rate=0.1, depth=6, thread_count=2, random_seed=0,
                                      verbose=0, allow_writing_files=False, early_stopping_rounds=dl.AUTO_PATIENCE,
                                      use_best_model=True, boost_from_average=True)
    ref.fit(X[tr], y[tr], eval_set=(X[va], y[va]))
    p_ll = est.logloss_booster_.predict_proba(X)[:, 1]
    np.testing.assert_allclose(p_ll, ref.predict_proba(X)[:, 1], rtol=0, atol=1e-6)
    rate = y[tr].mean()
    assert ref.get_scale_and_bias()[1] == pytest.approx(np.log(rate / (1 - rate)), rel=1e-6)
    want = savings_score(y[va], bayes_minimum_risk(p_ll[va], cost_matrix=C[va]), cost_matrix=C[va])
    assert est.validation_savings_["logloss+bmr"] == pytest.approx(want, abs=1e-12)
    s_aec = est.aec_booster_.predict_proba(X[va])[:, 1]
    assert est.validation_savings_["aec"] == pytest.approx(
        savings_score(y[va], (s_aec > 0.5).astype(int), cost_matrix=C[va]), abs=1e-12)
    with pytest.raises(ValueError, match="cost"):
        if est.decision_ != "aec":
            est.predict(X)
        else:
            raise ValueError("cost: the AEC rule needs none")


def test_early_stopping_on_money_stops():
    X, y, amount = _fraud(4000)
    est = CSCatBoostClassifier(n_estimators=1000, learning_rate=0.3, decision="0.5", early_stopping_rounds=10,
                               eval_metric="savings", **FAST)
    est.fit(X[:2500], y[:2500], fp_cost=5.0, fn_cost=amount[:2500], eval_set=[(X[2500:], y[2500:])],
            eval_costs=[{"fp_cost": 5.0, "fn_cost": amount[2500:]}])
    hist = np.asarray(est.evals_result_["validation"]["savings"])
    assert len(hist) < 1000 and est.n_estimators_ < 1000
    assert est.best_iteration_ == int(np.argmax(hist)) and est.n_estimators_ == est.best_iteration_ + 1


@pytest.mark.parametrize("kwargs,fit_kw,match", [
    ({}, {"fn_cost": np.ones(10)}, "fn_cost"),
    ({}, {"fn_cost": np.r_[np.nan, np.ones(299)]}, "fn_cost"),
    ({}, {"fn_cost": np.r_[np.inf, np.ones(299)]}, "fn_cost"),
    ({"loss_function": "Logloss"}, {}, "loss_function"),
    ({"objective": "Logloss"}, {}, "loss_function"),
    ({"task_type": "GPU"}, {}, "task_type"),
    ({"depth": 40}, {}, "depth"),
    ({"l2_leaf_reg": -1.0}, {}, "l2_leaf_reg"),
    ({"not_a_catboost_option": 1}, {}, "not_a_catboost_option"),
])
def test_named_errors(kwargs, fit_kw, match):
    X, y, amount = _fraud(300)
    fit_kw = {"fp_cost": 5.0, "fn_cost": amount, **fit_kw}
    with pytest.raises(ValueError, match=match):
        CSCatBoostClassifier(n_estimators=5, decision="0.5", **FAST, **kwargs).fit(X, y, **fit_kw)


def test_labels_must_be_two_classes():
    X, y, amount = _fraud(300)
    with pytest.raises(ValueError, match="class"):
        CSCatBoostClassifier(n_estimators=5).fit(X, np.zeros(300), fp_cost=5.0, fn_cost=amount)
    with pytest.raises(ValueError, match="binary"):
        CSCatBoostClassifier(n_estimators=5).fit(X, np.arange(300) % 3, fp_cost=5.0, fn_cost=amount)


def _frame(n=2000, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    shop = rng.choice(["a", "b", "c", "d"], size=n)
    X = pd.DataFrame({"x": rng.normal(size=n), "shop": pd.Categorical(shop), "noise": rng.normal(size=n)})
    X.loc[rng.choice(n, 50, replace=False), "shop"] = np.nan
    y = ((shop == "d") & (rng.random(n) < 0.8) | (rng.random(n) < 0.05)).astype(int)
    return X, y


def test_category_column_pickle_and_clone_round_trip():
    X, y = _frame()
    est = CSCatBoostClassifier(n_estimators=40, decision="0.5", cat_features=["shop"], **FAST)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin.get_params()["cat_features"] == ["shop"]
    est.fit(X, y, fp_cost=1.0, fn_cost=10.0)
    imp = est.feature_importances_
    assert imp.shape == (3,) and int(np.argmax(imp)) == 1  # the category drives y
    assert list(est.feature_names_in_) == ["x", "shop", "noise"]
    p = est.predict_proba(X)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict_proba(X), p)
    np.testing.assert_array_equal(clone(est).fit(X, y, fp_cost=1.0, fn_cost=10.0).predict_proba(X), p)
    # without cat_features the pandas category column is categorical all the same
    auto = CSCatBoostClassifier(n_estimators=40, decision="0.5", **FAST).fit(X, y, fp_cost=1.0, fn_cost=10.0)
    np.testing.assert_allclose(auto.predict_proba(X), p, atol=1e-12)


def test_sample_weight_is_repeated_rows_in_money():
    X, y, amount = _fraud(1500)
    w = np.ones(len(y))
    w[::3] = 2.0
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    C = np.column_stack([np.full(len(y), 5.0), amount, np.zeros(len(y)), np.zeros(len(y))])
    # the money metric and the objective: a weight of 2 is the row twice
    a = ccb.cost_pool(X, y, cost_matrix=C, sample_weight=w)
    b = ccb.cost_pool(X[rep], y[rep], cost_matrix=C[rep])
    m = np.random.default_rng(2).normal(size=len(y))
    for kind in ("aec", "savings", "expected_savings"):
        metric = ccb.money_metric(kind)
        va = metric.evaluate([m], a.get_label(), a.get_weight())[0]
        vb = metric.evaluate([m[rep]], b.get_label(), b.get_weight())[0]
        assert va == pytest.approx(vb, rel=1e-12)
    obj = ccb.AECObjective()
    da = obj.calc_ders_range(m, np.asarray(a.get_label(), np.float32), np.asarray(a.get_weight(), np.float32))
    db = obj.calc_ders_range(m[rep], np.asarray(b.get_label(), np.float32), np.ones(len(rep), np.float32))
    np.testing.assert_allclose(np.add.reduceat(db, np.r_[0, np.cumsum(w.astype(int))[:-1]]), da, rtol=1e-6)
    # the fitted estimators: same money on fresh rows
    kw = dict(n_estimators=40, decision="0.5", bootstrap_type="No", **FAST)
    ea = CSCatBoostClassifier(**kw).fit(X, y, cost_matrix=C, sample_weight=w)
    eb = CSCatBoostClassifier(**kw).fit(X[rep], y[rep], cost_matrix=C[rep])
    Xt, yt, at = _fraud(2000, seed=5)
    Ct = np.column_stack([np.full(len(yt), 5.0), at, np.zeros(len(yt)), np.zeros(len(yt))])
    sa = savings_score(yt, ea.predict(Xt), cost_matrix=Ct)
    sb = savings_score(yt, eb.predict(Xt), cost_matrix=Ct)
    assert sa == pytest.approx(sb, abs=0.02)


def test_integer_weights_are_repeated_rows_up_to_catboosts_own_randomness_and_l2_scale():
    """What holds of sklearn's weights-equal-repeated-rows check, and why the rest cannot with CatBoost's
    defaults: it multiplies l2_leaf_reg by the mean weight of the training rows (weights are relative to
    each other), and its default MVS bootstrap and random_strength draw per row."""
    rng = np.random.default_rng(0)
    n = 400
    X = np.round(rng.normal(size=(n, 4)), 1)
    amount = np.round(np.exp(rng.normal(3.0, 1.0, n)))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 1.0).astype(int)
    w = rng.integers(0, 3, n).astype(float)  # 0, 1 or 2 copies
    rep, kept = np.repeat(np.arange(n), w.astype(int)), w > 0

    def proba(sample_weight=None, rows=slice(None), **kw):
        est = CSCatBoostClassifier(n_estimators=30, depth=3, decision="0.5", thread_count=1, random_state=0, **kw)
        est.fit(X[rows], y[rows], fp_cost=5.0, fn_cost=amount[rows], sample_weight=sample_weight)
        return est.predict_proba(X)

    # weight 0 is the row left out, with every default (CatBoost would still place borders by its values)
    np.testing.assert_array_equal(proba(w * kept), proba(w[kept], rows=kept))
    exact = dict(bootstrap_type="No", random_strength=0)
    scale = w[kept].mean()  # CatBoost's L2 is l2_leaf_reg * sum(w) / rows: 1 for the repeated rows
    np.testing.assert_allclose(proba(w, l2_leaf_reg=3.0 / scale, **exact), proba(rows=rep, l2_leaf_reg=3.0, **exact),
                               rtol=0, atol=1e-8)
    # each of the three takes the equality away
    assert np.abs(proba(w, **exact) - proba(rows=rep, **exact)).max() > 1e-3
    for default in ("bootstrap_type", "random_strength"):
        kw = {k: v for k, v in exact.items() if k != default}
        assert np.abs(proba(w, l2_leaf_reg=3.0 / scale, **kw) - proba(rows=rep, l2_leaf_reg=3.0, **kw)).max() > 1e-3
    # the weights scale-free, as CatBoost means them: all weights times 3 give the same model
    np.testing.assert_allclose(proba(3 * w, **exact), proba(w, **exact), rtol=0, atol=1e-8)


def test_import_error_names_the_extra(tmp_path):
    code = textwrap.dedent("""
        import sys
        sys.modules["catboost"] = None  # as if catboost were not installed
        import csboost_plugins
        try:
            import csboost_plugins.catboost
        except ImportError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parent.parent))
    assert 'pip install "csboost-plugins[catboost]"' in out.stdout


@pytest.mark.parametrize("kind", ["aec", "expected_savings", "savings"])
def test_metric_on_permuted_rows_of_a_pool(kind):
    """Under ordered boosting CatBoost scores the learn set with its rows permuted: metrics that depend on
    a row only through its regret difference give the in-order value; savings with BMR refuse."""
    X, y, amount = _fraud(800)
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(y))
    pool = ccb.cost_pool(X, y, fp_cost=5.0, fn_cost=amount, tn_cost=1.0, sample_weight=w)
    t, wt = np.asarray(pool.get_label(), np.float32), np.asarray(pool.get_weight(), np.float32)
    m = np.random.default_rng(4).normal(size=len(y))
    perm = np.random.default_rng(5).permutation(len(y))
    metric = ccb.money_metric(kind)
    assert metric.evaluate([m[perm]], t[perm], wt[perm])[0] == pytest.approx(
        metric.evaluate([m], t, wt)[0], rel=1e-6)  # the targets are float32: d to 7 digits
    with pytest.raises(ValueError, match="no live cost pool"):
        ccb.money_metric("savings", decision="bmr").evaluate([m[perm]], t[perm], wt[perm])


from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


def _expected_failures(est):
    # CatBoost multiplies l2_leaf_reg by the mean row weight and its default MVS bootstrap and random_strength
    # draw per row, so repeated rows differ from weighted ones; what holds (weight 0 = row left out, equality
    # without the draws and with the L2 rescaled) is test_integer_weights_are_repeated_rows_up_to_catboosts_own_...
    return {"check_sample_weight_equivalence_on_dense_data": (
        "CatBoost scales l2_leaf_reg by the mean weight and draws rows (MVS bootstrap, random_strength)")}


@parametrize_with_checks([CSCatBoostClassifier(n_estimators=5, thread_count=1, random_state=0)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_string_cat_features_and_their_deployable_model(tmp_path):
    """String columns named in cat_features are categorical; the deployed model, fed the same strings
    (a missing value as "nan") by plain CatBoost in another process, gives our probabilities."""
    X, y = _frame(1500, seed=2)
    X = X.assign(shop=X["shop"].astype(object).where(X["shop"].notna(), None))  # plain strings with gaps
    est = CSCatBoostClassifier(n_estimators=30, decision="0.5", cat_features=["shop"], **FAST)
    est.fit(X, y, fp_cost=1.0, fn_cost=10.0)
    assert int(np.argmax(est.feature_importances_)) == 1
    p = est.predict_proba(X)[:, 1]
    rows = np.empty((len(X), 3), dtype=object)
    rows[:, 0], rows[:, 2] = X["x"].to_numpy(), X["noise"].to_numpy()
    rows[:, 1] = X["shop"].fillna("nan").to_numpy()
    path, xpath = tmp_path / "m.cbm", tmp_path / "rows.npy"
    est.to_deployable().save_model(str(path))
    np.save(xpath, rows, allow_pickle=True)
    code = textwrap.dedent(f"""
        import numpy as np
        from catboost import CatBoostClassifier, Pool
        m = CatBoostClassifier().load_model({str(path)!r})
        rows = np.load({str(xpath)!r}, allow_pickle=True)
        np.save({str(tmp_path / "p.npy")!r}, m.predict_proba(Pool(rows.tolist(), cat_features=[1]))[:, 1])
    """)
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    np.testing.assert_allclose(np.load(tmp_path / "p.npy"), p, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="cat_features"):
        CSCatBoostClassifier(n_estimators=3, cat_features=["shop_typo"]).fit(X, y)


def test_module_recipe_runs_and_books_money(tmp_path, monkeypatch):
    """The native recipe of ``csboost_plugins.catboost``'s docstring runs as written."""
    doc = ccb.__doc__
    lines = []
    for line in doc.split("::\n", 1)[1].splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        lines.append(line)
    code = textwrap.dedent("\n".join(lines))
    monkeypatch.chdir(tmp_path)
    ns = {}
    exec(compile(code, "csboost_plugins.catboost recipe", "exec"), ns)  # noqa: S102
    assert ns["test"] > 0 and (tmp_path / "fraud.cbm").exists()
    plain = catboost.CatBoostClassifier().load_model(str(tmp_path / "fraud.cbm"))
    np.testing.assert_allclose(plain.predict_proba(ns["X"][ns["te"]])[:, 1], ns["proba"], atol=1e-6)


@pytest.mark.parametrize("kw", [{"scale_pos_weight": 3.0}, {"class_weights": {"no": 1.0, "yes": 3.0}},
                                {"class_weights": [1.0, 3.0]}])
def test_class_weights_are_row_weights(kw):
    """CatBoost's class weighting keywords weight the rows, as sample_weight = 3 on the positives does."""
    X, y, amount = _fraud(1500)
    labels = np.where(y == 1, "yes", "no")
    base = dict(n_estimators=20, decision="0.5", pos_label="yes", **FAST)
    got = CSCatBoostClassifier(**base, **kw).fit(X, labels, fp_cost=5.0, fn_cost=amount)
    want = CSCatBoostClassifier(**base).fit(X, labels, fp_cost=5.0, fn_cost=amount,
                                            sample_weight=np.where(y == 1, 3.0, 1.0))
    np.testing.assert_array_equal(got.predict_proba(X), want.predict_proba(X))
    with pytest.raises(ValueError, match="one of"):
        CSCatBoostClassifier(**base, scale_pos_weight=2.0, auto_class_weights="Balanced").fit(
            X, labels, fp_cost=5.0, fn_cost=amount)
