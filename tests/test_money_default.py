"""The boosting estimators with no options: decision="auto" with its own validation rows.

What a user compares first: ``CSXGBClassifier()`` / ``CSLGBMClassifier()`` against plain
``XGBClassifier`` / ``LGBMClassifier`` (logloss, early-stopped) with Bayes-minimum-risk decisions.
"""

import pickle
import subprocess
import sys
import textwrap
import warnings

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from sklearn.model_selection import train_test_split

from csboost_plugins.boosting import _decision_layer as dl
from csboost_plugins.costs import CostWarning
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.metrics import bayes_minimum_risk, savings_score
from csboost_plugins.xgb import CSXGBClassifier
from csdt import datasets

pytestmark = pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")

CLASSES = [CSXGBClassifier, CSLGBMClassifier]


def _bundled(name, n=None):
    b = getattr(datasets, f"load_{name}")()
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix)
    return (X, y, C) if n is None else (X[:n], y[:n], C[:n])


def _native_logloss(cls, Xtr, ytr, Xva, yva, floors=True):
    """The plain host classifier with the estimators' default tree parameters, early-stopped on (Xva, yva);
    lightgbm with the logloss booster's leaf regularisation (``floors``) or its own defaults."""
    if cls is CSXGBClassifier:
        m = xgb.XGBClassifier(n_estimators=100, learning_rate=0.1, max_depth=6, max_bin=256, tree_method="hist",
                              early_stopping_rounds=dl.AUTO_PATIENCE, eval_metric="logloss", n_jobs=1,
                              random_state=0)
        return m.fit(Xtr, ytr, eval_set=[(Xva, yva)], verbose=False)
    # the logloss booster's leaf regularisation: xgboost's defaults, not lightgbm's (tiny hessians diverge)
    m = lgb.LGBMClassifier(n_estimators=100, learning_rate=0.1, num_leaves=31, n_jobs=1, verbose=-1,
                           deterministic=True, force_row_wise=True,
                           **(dict(reg_lambda=dl.LOGLOSS_FLOORS["lightgbm"]["lambda_l2"],
                                   min_child_weight=dl.LOGLOSS_FLOORS["lightgbm"]["min_sum_hessian_in_leaf"])
                              if floors else {}))
    return m.fit(Xtr, ytr, eval_set=[(Xva, yva)], callbacks=[lgb.early_stopping(dl.AUTO_PATIENCE, verbose=False)])


@pytest.mark.parametrize("cls", CLASSES)
def test_default_is_auto_and_its_logloss_booster_is_the_hosts(cls):
    """No options, no eval_set: a stratified, seeded holdout; the logloss booster trained on the shared data
    set equals the host's own classifier on the same rows, early-stopped on the held-out ones."""
    X, y, C = _bundled("creditscoring2")
    est = cls(n_jobs=1).fit(X, y, cost_matrix=C)
    assert est.decision == "auto" and est.decision_ in dl.RULES
    tr, va = dl.holdout(est, y)
    assert len(va) == pytest.approx(dl.VALIDATION_FRACTION * len(y), abs=2)
    assert abs(y[va].mean() - y.mean()) < 2 / len(va)  # stratified
    np.testing.assert_array_equal(np.sort(np.concatenate([tr, va])), np.arange(len(y)))
    ref = _native_logloss(cls, X[tr], y[tr], X[va], y[va])
    keep, est.booster_ = est.booster_, est.logloss_booster_
    try:
        p = est.predict_proba(X)[:, 1]
    finally:
        est.booster_ = keep
    np.testing.assert_allclose(p, ref.predict_proba(X)[:, 1], rtol=0, atol=1e-6)
    # each host's own best-iteration convention (xgboost 0-based, lightgbm 1-based) when logloss decides
    if est.decision_ == "logloss+bmr":
        assert est.best_iteration_ == (ref.best_iteration if cls is CSXGBClassifier else ref.best_iteration_)
        assert est.booster_ is est.logloss_booster_
    # validation_savings_ is the money of each rule on the held-out rows, recomputed independently
    s_ll = p[va]
    want = savings_score(y[va], bayes_minimum_risk(s_ll, cost_matrix=C[va]), cost_matrix=C[va])
    assert est.validation_savings_["logloss+bmr"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("cls,name", [(CSXGBClassifier, "bankmarketing"), (CSLGBMClassifier, "creditscoring2")])
def test_default_never_below_logloss_bmr_on_bundled_sets(cls, name):
    """The defaults book at least what plain logloss + BMR books (same tree parameters, early-stopped on
    validation rows) on bundled data, with and without an eval_set."""
    X, y, C = _bundled(name)
    idx = np.arange(len(y))
    trva, te = train_test_split(idx, test_size=0.3, random_state=1, stratify=y)
    tr, va = train_test_split(trva, test_size=0.3, random_state=1, stratify=y[trva])
    ref = _native_logloss(cls, X[tr], y[tr], X[va], y[va], floors=False)  # what the user had
    base = savings_score(y[te], bayes_minimum_risk(ref.predict_proba(X[te])[:, 1], cost_matrix=C[te]),
                         cost_matrix=C[te])
    with_eval = cls(n_jobs=1).fit(X[tr], y[tr], cost_matrix=C[tr], eval_set=[(X[va], y[va])],
                                  eval_costs=[C[va]])
    got = savings_score(y[te], with_eval.predict(X[te], cost_matrix=C[te]), cost_matrix=C[te])
    assert got >= base - 0.01, (name, got, base, with_eval.decision_, with_eval.validation_savings_)
    alone = cls(n_jobs=1).fit(X[trva], y[trva], cost_matrix=C[trva])
    got = savings_score(y[te], alone.predict(X[te], cost_matrix=C[te]), cost_matrix=C[te])
    assert got >= base - 0.01, (name, got, base, alone.decision_, alone.validation_savings_)
    # the earlier default, the AEC booster's own decision, books less here
    old = cls(decision="0.5", n_jobs=1).fit(X[trva], y[trva], cost_matrix=C[trva])
    assert savings_score(y[te], old.predict(X[te]), cost_matrix=C[te]) < got


@pytest.mark.parametrize("cls", CLASSES)
def test_predict_without_needed_costs_names_them(cls):
    X, y, C = _bundled("creditscoring2", 6000)
    est = cls(n_jobs=1, n_estimators=20).fit(X, y, cost_matrix=C)
    assert est.decision_ in ("logloss+bmr", "aec+bmr")
    with pytest.raises(ValueError, match=r"fp_cost=\.\.\., fn_cost=\.\.\."):
        est.predict(X)
    # predict_proba is the probability the chosen rule thresholds
    s = est.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(est.predict(X, cost_matrix=C), bayes_minimum_risk(s, cost_matrix=C))
    # the rule that needs no costs still predicts without them
    plain = cls(decision="0.5", n_jobs=1, n_estimators=20).fit(X, y, cost_matrix=C)
    np.testing.assert_array_equal(plain.predict(X), (plain.predict_proba(X)[:, 1] > 0.5).astype(int))


@pytest.mark.parametrize("cls", CLASSES)
def test_swapped_costs_warn_with_the_cure(cls):
    """A fraud set whose fp/fn costs are given the wrong way round: the model flags nothing, no money is
    lost (savings 0), yet the swap is named."""
    b = datasets.make_fraud_transactions(20_000, fraud_rate=0.02, random_state=0)
    X, y = b.data.to_numpy(float), np.asarray(b.target)
    with pytest.warns(CostWarning, match="fp_cost and fn_cost look swapped") as rec:
        est = cls(n_jobs=1, n_estimators=40).fit(X, y, fp_cost=b.fn_cost, fn_cost=b.fp_cost, tp_cost=b.tp_cost)
    assert "false alarm" in str(rec[0].message)
    assert est.predict(X, fp_cost=b.fn_cost, fn_cost=b.fp_cost, tp_cost=b.tp_cost).mean() < 0.001
    with warnings.catch_warnings():  # the right way round: silent
        warnings.simplefilter("error", CostWarning)
        warnings.simplefilter("error", dl.MoneyLossWarning)
        cls(n_jobs=1, n_estimators=40).fit(X, y, cost_matrix=b.cost_matrix)


@pytest.mark.parametrize("name", ["churn", "creditscoring1", "bankmarketing"])
def test_right_costs_do_not_warn_on_bundled_sets(name):
    X, y, C = _bundled(name, 20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CostWarning)
        CSLGBMClassifier(n_jobs=1, n_estimators=40).fit(X, y, cost_matrix=C)


def test_holdout_fallback_and_validation_fraction():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (rng.random(300) < 0.1).astype(int)  # ~30 positives: a 0.2 holdout would hold ~6 < MIN_VALIDATION_CLASS
    est = CSXGBClassifier(n_estimators=10, n_jobs=1).fit(X, y, fp_cost=1.0, fn_cost=5.0)
    assert dl.holdout(est, y) is None
    assert est.decision_ == "logloss+bmr" and est.validation_savings_ is None
    assert est.booster_.num_boosted_rounds() == 10  # every row, no early stopping
    # a larger fraction makes room for one
    est = CSXGBClassifier(n_estimators=10, n_jobs=1, validation_fraction=0.4).fit(X, y, fp_cost=1.0, fn_cost=5.0)
    assert est.validation_savings_ is not None
    for bad in (0.0, 1.0, -0.1, "0.2", True):
        with pytest.raises(ValueError, match="validation_fraction"):
            CSLGBMClassifier(validation_fraction=bad).fit(X, y, fp_cost=1.0, fn_cost=5.0)
    # seeded by random_state: the same split, the same model; another seed, another split
    ya = (rng.random(3000) < 0.2).astype(int)
    e1, e2, e3 = (CSXGBClassifier(random_state=s) for s in (None, 0, 7))
    np.testing.assert_array_equal(dl.holdout(e1, ya)[1], dl.holdout(e2, ya)[1])
    assert not np.array_equal(dl.holdout(e1, ya)[1], dl.holdout(e3, ya)[1])


def test_choose_rule_refuses_a_gain_carried_by_a_few_rows():
    """Heavy-tailed money: two expensive frauds caught by the AEC rule pass the z-test, not the tail trim."""
    n = 2000
    y = np.zeros(n)
    y[:40] = 1
    C = np.column_stack([np.full(n, 5.0), np.full(n, 20.0), np.full(n, 5.0), np.zeros(n)])
    C[:2, 1] = 50_000.0  # two frauds of 50,000
    base = np.zeros(n, dtype=int)
    base[2:40] = 1  # logloss + BMR catches every fraud but the two expensive ones
    aec = base.copy()
    aec[:2] = 1  # the AEC rule catches those two ...
    aec[2:20] = 0  # ... and misses 18 ordinary ones
    preds = {"logloss+bmr": base, "aec": aec, "aec+bmr": base}
    d = np.where(y == 1, np.where(base == 1, 5.0, C[:, 1]), np.where(base == 1, 5.0, 0.0)) \
        - np.where(y == 1, np.where(aec == 1, 5.0, C[:, 1]), np.where(aec == 1, 5.0, 0.0))
    assert d.sum() > 0
    z = d.sum() / (np.sqrt(n) * d.std())
    assert dl.choose_rule(y, preds, C, z=0.9 * z, trim=False) == "aec"
    assert dl.choose_rule(y, preds, C, z=0.9 * z) == "logloss+bmr"
    # brute force of the trim: the gain without its ceil(sqrt(m)) largest rows
    m = int(np.count_nonzero(d))
    k = int(np.ceil(np.sqrt(m)))
    assert d.sum() - np.sort(d)[::-1][:k].sum() <= 0
    # a gain spread over many rows survives the trim
    wide = base.copy()
    y2 = y.copy()
    y2[40:400] = 1
    C2 = C.copy()
    C2[:2, 1] = 20.0
    wide[40:400] = 1
    preds = {"logloss+bmr": base, "aec": wide, "aec+bmr": base}
    assert dl.choose_rule(y2, preds, C2) == "aec"


@pytest.mark.parametrize("cls,ext", [(CSXGBClassifier, "json"), (CSLGBMClassifier, "txt")])
def test_default_saves_the_deciding_booster(cls, ext, tmp_path):
    """save_model of the default holds the chosen rule's booster: plain xgboost / lightgbm in a process
    without this package predict predict_proba; load_model restores the rule."""
    X, y, C = _bundled("creditscoring2", 8000)
    est = cls(n_jobs=1, n_estimators=30).fit(X, y, cost_matrix=C)
    path = tmp_path / f"model.{ext}"
    est.save_model(path)
    np.save(tmp_path / "X.npy", X[:500])
    code = textwrap.dedent(f"""
        import sys, numpy as np
        X = np.load({str(tmp_path / 'X.npy')!r})
        if {ext!r} == "json":
            import xgboost as xgb
            p = xgb.Booster(model_file={str(path)!r}).predict(xgb.DMatrix(X))
        else:
            import lightgbm as lgb
            p = lgb.Booster(model_file={str(path)!r}).predict(X)
        assert "csboost_plugins" not in sys.modules
        np.save({str(tmp_path / 'p.npy')!r}, p)
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
    np.testing.assert_allclose(np.load(tmp_path / "p.npy"), est.predict_proba(X[:500])[:, 1], atol=1e-6)
    loaded = cls.load_model(path)
    assert loaded.decision_ == est.decision_
    np.testing.assert_array_equal(loaded.predict(X[:500], cost_matrix=C[:500]), est.predict(X[:500],
                                                                                           cost_matrix=C[:500]))
    with pytest.raises(ValueError, match="fp_cost"):
        loaded.predict(X[:500])
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X, cost_matrix=C), est.predict(X, cost_matrix=C))


def test_make_additive_risk():
    b = datasets.make_additive_risk(50_000, positive_rate=0.05, random_state=3)
    assert b.data.shape == (50_000, 21) and abs(b.target.mean() - 0.05) < 0.005
    np.testing.assert_array_equal(b.cost_matrix[:, 1], b.data["amount"])
    np.testing.assert_allclose(b.cost_matrix[:, 0], 10.0 + 0.02 * b.data["amount"])
    again = datasets.make_additive_risk(50_000, positive_rate=0.05, random_state=3)
    np.testing.assert_array_equal(again.target, b.target)
    # additive in many weak features: no single feature separates, all of them together do better
    from sklearn.metrics import roc_auc_score

    auc_one = max(roc_auc_score(b.target, np.abs(b.data[c])) for c in b.data.columns)
    m = xgb.XGBClassifier(n_estimators=60, max_depth=2, n_jobs=1).fit(b.data, b.target)
    assert auc_one < 0.62 < roc_auc_score(b.target, m.predict_proba(b.data)[:, 1])
    with pytest.raises(ValueError, match="positive_rate"):
        datasets.make_additive_risk(100, positive_rate=1.5)


@pytest.mark.parametrize("cls,verbose_kw", [(CSXGBClassifier, {"fit": {"verbose": True}}),
                                            (CSLGBMClassifier, {"init": {"verbose": 1}})])
def test_each_stage_is_printed_at_the_verbose_level(cls, verbose_kw, capsys):
    X, y, C = _bundled("creditscoring2", 6000)
    cls(n_jobs=1, n_estimators=10).fit(X, y, cost_matrix=C)
    assert "booster fitted" not in capsys.readouterr().out  # quiet by default
    est = cls(n_jobs=1, n_estimators=10, **verbose_kw.get("init", {})).fit(X, y, cost_matrix=C,
                                                                           **verbose_kw.get("fit", {}))
    out = capsys.readouterr().out
    assert "AEC booster fitted" in out and "logloss booster fitted" in out
    assert f"using {est.decision_!r}" in out
