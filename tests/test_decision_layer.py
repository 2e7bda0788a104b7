"""decision="auto" and the money guard of CSXGBClassifier / CSLGBMClassifier."""

import logging
import pickle
import warnings

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from sklearn.model_selection import train_test_split

import csboost_plugins
from csboost_plugins.boosting import _decision_layer as dl
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.metrics import bayes_minimum_risk, savings_score
from csboost_plugins.xgb import CSXGBClassifier
from csdt import datasets

ALERT = 5.0  # C_FP = C_TP: the cost of reviewing an alert


def issue_case(seed=0, n=20_000):
    """The issue's case: frauds ~3 %, amount ~300 (C_FN) NOT among the features, alert cost 5.

    The fraud probability depends on two of six features; the Bayes threshold
    5 / amount varies per row with the amount, which the trees cannot see.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (rng.random(n) < 1 / (1 + np.exp(-(-4.0 + X[:, 0] + 0.5 * X[:, 1])))).astype(int)
    amount = rng.lognormal(np.log(300) - 0.5, 1.0, n)
    idx = np.arange(n)
    tr, rest = train_test_split(idx, test_size=0.5, random_state=seed, stratify=y)
    va, te = train_test_split(rest, test_size=0.5, random_state=seed, stratify=y[rest])
    return X, y, amount, tr, va, te


def costs(amount, rows):
    return {"fp_cost": ALERT, "fn_cost": amount[rows], "tp_cost": ALERT}


def money(y, pred, amount, rows):
    return savings_score(y[rows], pred, **costs(amount, rows))


PARAMS = dict(n_estimators=200, learning_rate=0.1, n_jobs=1, random_state=0)


def _logloss_bmr(lib, X, y, amount, tr, va, te):
    """Plain logloss boosting (early stopping on validation logloss) + Bayes minimum risk, natively."""
    if lib == "xgboost":
        m = xgb.XGBClassifier(max_depth=6, early_stopping_rounds=30, eval_metric="logloss", **PARAMS)
        m.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], verbose=False)
    else:
        m = lgb.LGBMClassifier(verbose=-1, **PARAMS)
        m.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], callbacks=[lgb.early_stopping(30, verbose=False)])
    p = m.predict_proba(X[te])[:, 1]
    return money(y, bayes_minimum_risk(p, **costs(amount, te)), amount, te)


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
@pytest.mark.parametrize("cls,lib", [(CSXGBClassifier, "xgboost"), (CSLGBMClassifier, "lightgbm")])
def test_issue_case_recipe_saves_money(cls, lib):
    X, y, amount, tr, va, te = issue_case()
    fit_kw = dict(eval_set=[(X[va], y[va])], eval_costs=[costs(amount, va)])
    # the issue: the AEC decision s > 1/2 cannot see the amount and loses money; the guard says why
    with pytest.warns(csboost_plugins.MoneyLossWarning, match="not be among the features"):
        plain = cls(decision="0.5", **PARAMS).fit(X[tr], y[tr], **costs(amount, tr), **fit_kw)
    assert money(y, plain.predict(X[te]), amount, te) < 0
    # the recipe: decision="auto", deciding with the rows' costs
    with warnings.catch_warnings():
        warnings.simplefilter("error", dl.MoneyLossWarning)  # the recipe's own decision must not lose money
        est = cls(decision="auto", **PARAMS).fit(X[tr], y[tr], **costs(amount, tr), **fit_kw)
    got = money(y, est.predict(X[te], **costs(amount, te)), amount, te)
    ref = _logloss_bmr(lib, X, y, amount, tr, va, te)
    assert got > 0.1
    assert got >= ref - 0.02, (got, ref, est.decision_, est.validation_savings_)


def test_choose_rule_brute_force():
    rng = np.random.default_rng(1)
    n = 400
    y = (rng.random(n) < 0.2).astype(float)
    C = np.column_stack([np.full(n, 2.0), rng.uniform(1, 50, n), np.full(n, 2.0), np.zeros(n)])
    base = (rng.random(n) < 0.3).astype(int)
    for flips, z, want in ((0, 2.0, "logloss+bmr"), (n, 0.0, None)):
        # an AEC rule that agrees with logloss + BMR except on `flips` rows turned into the right decision
        better = base.copy()
        c0 = np.where(y == 1, C[:, 1], C[:, 3])
        c1 = np.where(y == 1, C[:, 2], C[:, 0])
        right = (c1 < c0).astype(int)
        better[:flips] = right[:flips]
        preds = {"logloss+bmr": base, "aec": better, "aec+bmr": base}
        got = dl.choose_rule(y, preds, C, z=z)
        # independent: paired per-row differences, written out
        diffs = [(c1[i] if base[i] else c0[i]) - (c1[i] if better[i] else c0[i]) for i in range(n)]
        gain, mean = sum(diffs), sum(diffs) / n
        se = (n * sum((d - mean) ** 2 for d in diffs) / n) ** 0.5
        # the tail trim: the gain without its ceil(sqrt(m)) largest rows, m the rows that differ
        k = int(np.ceil(np.sqrt(sum(d != 0 for d in diffs))))
        trimmed = gain - sum(sorted((d for d in diffs if d > 0), reverse=True)[:k])
        expect = "aec" if (gain > z * se and gain > 0 and trimmed > 0) else "logloss+bmr"
        assert got == expect == (want or expect)
    # a gain inside two standard errors does not switch; outside it does
    noisy = base.copy()
    noisy[:3] = right[:3]
    preds = {"logloss+bmr": base, "aec": noisy, "aec+bmr": base}
    d = np.array([(c1[i] if base[i] else c0[i]) - (c1[i] if noisy[i] else c0[i]) for i in range(n)])
    z_edge = d.sum() / (np.sqrt(n) * d.std())
    if d.sum() > 0:
        assert dl.choose_rule(y, preds, C, z=z_edge * 1.01, trim=False) == "logloss+bmr"
        assert dl.choose_rule(y, preds, C, z=z_edge * 0.99, trim=False) == "aec"


@pytest.mark.parametrize("cls", [CSXGBClassifier, CSLGBMClassifier])
def test_auto_on_churn_attributes_predict_pickle(cls, caplog, tmp_path):
    b = datasets.load_churn()
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix)
    tr, va = train_test_split(np.arange(len(y)), test_size=0.3, random_state=0, stratify=y)
    with caplog.at_level(logging.INFO, logger="csboost_plugins"):
        est = cls(decision="auto", n_estimators=60, n_jobs=1, random_state=0).fit(
            X[tr], y[tr], cost_matrix=C[tr], eval_set=[(X[va], y[va])], eval_costs=[C[va]])
    assert est.decision_ in dl.RULES
    assert f"using {est.decision_!r}" in caplog.text
    vs = est.validation_savings_
    assert set(vs) == set(dl.RULES) and vs[est.decision_] >= vs["logloss+bmr"]
    # validation_savings_ is the money of predict() on the validation set, recomputed independently
    pred = est.predict(X[va], cost_matrix=C[va])
    assert savings_score(y[va], pred, cost_matrix=C[va]) == pytest.approx(vs[est.decision_], abs=1e-12)
    # predict_proba holds the probability the chosen rule thresholds
    s = est.predict_proba(X[va])[:, 1]
    manual = (s > 0.5) if est.decision_ == "aec" else bayes_minimum_risk(s, cost_matrix=C[va])
    np.testing.assert_array_equal(pred, manual.astype(int))
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.predict(X[va], cost_matrix=C[va]), pred)
    assert est.logloss_booster_ is not None and est.aec_booster_ is not None
    assert est.booster_ is (est.logloss_booster_ if est.decision_ == "logloss+bmr" else est.aec_booster_)
    # the native file holds the deciding booster and the rule
    path = tmp_path / ("model.json" if cls is CSXGBClassifier else "model.txt")
    est.save_model(path)
    loaded = cls.load_model(path)
    assert loaded.decision_ == est.decision_
    np.testing.assert_allclose(loaded.predict_proba(X[va]), est.predict_proba(X[va]), atol=1e-6)


def test_auto_errors_and_unit_costs():
    X, y, amount, tr, va, te = issue_case(n=4000)
    # without eval_set: its own stratified validation rows, the rule chosen there
    held = CSXGBClassifier(decision="auto", n_estimators=10, n_jobs=1).fit(X[tr], y[tr], **costs(amount, tr))
    assert held.validation_savings_ is not None and held.decision_ in dl.RULES
    with pytest.raises(ValueError, match="decision must be one of"):
        CSXGBClassifier(decision="best").fit(X[tr], y[tr], **costs(amount, tr))
    est = CSLGBMClassifier(decision="auto", n_estimators=30, n_jobs=1, random_state=0).fit(
        X[tr], y[tr], **costs(amount, tr), eval_set=[(X[va], y[va])], eval_costs=[costs(amount, va)])
    if est.decision_ != "aec":
        with pytest.raises(ValueError, match="fp_cost=..., fn_cost=..."):
            est.predict(X[te])
    # fitted without costs (unit costs): predict(X) needs none
    est = CSXGBClassifier(decision="auto", n_estimators=20, n_jobs=1, random_state=0).fit(
        X[tr], y[tr], eval_set=[(X[va], y[va])])
    assert set(np.unique(est.predict(X[te]))) <= {0, 1}


def test_guard_names_swapped_costs():
    """Validation costs given the wrong way round (amount as C_FP, alert cost as C_FN): the guard says so."""
    X, y, amount, tr, va, _ = issue_case(n=8000)
    X = np.column_stack([X, np.log(amount)])  # the amount is a feature here: only the swap is wrong
    swapped = {"fp_cost": amount[va], "fn_cost": ALERT, "tn_cost": ALERT}
    with pytest.warns(dl.MoneyLossWarning) as rec:
        CSXGBClassifier(decision="0.5", n_estimators=60, n_jobs=1, random_state=0).fit(
            X[tr], y[tr], **costs(amount, tr), eval_set=[(X[va], y[va])], eval_costs=[swapped])
    msg = str(rec[0].message)
    assert "swapped" in msg and "validation set" in msg


def test_guard_silent_when_money_is_saved():
    b = datasets.load_creditscoring2()
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix)
    tr, va = train_test_split(np.arange(len(y)), test_size=0.3, random_state=0, stratify=y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dl.MoneyLossWarning)
        CSXGBClassifier(n_estimators=40, n_jobs=1, random_state=0).fit(
            X[tr], y[tr], cost_matrix=C[tr], eval_set=[(X[va], y[va])], eval_costs=[C[va]])
