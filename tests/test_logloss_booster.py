"""The logloss booster of ``decision="auto"`` on extremely imbalanced data.

At a positive rate of ~0.2 % a leaf holding mostly positives has a hessian sum H = sum p (1 - p) of
a few tenths, so an unregularised Newton step -G / H moves its log-odds by tens: lightgbm's own
defaults (lambda_l2 = 0, min_sum_hessian_in_leaf = 1e-3) then diverge after round 1 and early stopping
keeps a 1-round model. The estimators' logloss booster must stay sound there, and a deciding booster
that kept only a handful of rounds must say so.
"""

import warnings

import lightgbm as lgb
import numpy as np
import pytest

from csboost_plugins import FewRoundsWarning
from csboost_plugins.boosting import _decision_layer as dl
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.metrics import bayes_minimum_risk, savings_score
from csboost_plugins.xgb import CSXGBClassifier
from _data import creditcard_path


def _pocket(n=40_000, seed=0):
    """Tiny-hessian data: a pocket (x0 > 2.9, ~0.2 % of rows) where 3 of 4 rows are positive, ~0.03 % elsewhere;
    a missed positive costs its amount, an alert 5."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    y = (rng.uniform(size=n) < np.where(X[:, 0] > 2.9, 0.75, 0.0003)).astype(np.int64)
    return X, y, rng.lognormal(4.0, 1.0, n)


def _rounds(bst):
    return bst.num_boosted_rounds() if hasattr(bst, "num_boosted_rounds") else bst.current_iteration()


def test_plain_lightgbm_diverges_on_the_pocket_data():
    """The premise, with lightgbm alone: its defaults keep 1-2 rounds here, xgboost's leaf regularisation
    (lambda_l2 = 1, min_sum_hessian_in_leaf = 1) many more."""
    X, y, _ = _pocket()
    rng = np.random.default_rng(1)
    va = rng.uniform(size=len(y)) < 0.2
    kept = {}
    for label, extra in (("lightgbm", {}), ("floors", dict(dl.LOGLOSS_FLOORS["lightgbm"]))):
        m = lgb.LGBMClassifier(n_estimators=100, verbose=-1, n_jobs=1, **extra)
        m.fit(X[~va], y[~va], eval_set=[(X[va], y[va])], callbacks=[lgb.early_stopping(30, verbose=False)])
        kept[label] = m.best_iteration_
    assert kept["lightgbm"] < dl.FEW_ROUNDS <= kept["floors"], kept


@pytest.mark.parametrize("cls", [CSXGBClassifier, CSLGBMClassifier])
def test_default_logloss_booster_keeps_its_rounds_under_tiny_hessians(cls):
    X, y, amount = _pocket()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRoundsWarning)
        est = cls(random_state=0, n_jobs=1).fit(X, y, fp_cost=5.0, fn_cost=amount)
    assert _rounds(est.logloss_booster_) >= dl.FEW_ROUNDS
    # its decisions book money on the held-out rows (the diverged booster lost money there: savings < 0)
    assert est.validation_savings_["logloss+bmr"] > 0.5, est.validation_savings_
    _, va = dl.holdout(est, y)
    Xv, yv = X[va], y[va]
    s = 1.0 / (1.0 + np.exp(-est._booster_margin(est.logloss_booster_, Xv)))
    C = np.column_stack([np.full(len(va), 5.0), amount[va], np.zeros(len(va)), np.zeros(len(va))])
    # validation_savings_ recomputed independently
    assert est.validation_savings_["logloss+bmr"] == pytest.approx(
        savings_score(yv, bayes_minimum_risk(s, cost_matrix=C), cost_matrix=C), abs=1e-12)


def test_user_regularisation_above_the_floors_is_kept():
    X, y, amount = _pocket(20_000)
    est = CSLGBMClassifier(random_state=0, n_jobs=1, n_estimators=20, reg_lambda=7.0, min_child_weight=3.0)
    est.fit(X, y, fp_cost=5.0, fn_cost=amount)
    text = est.logloss_booster_.model_to_string()
    assert "[lambda_l2: 7]" in text and "[min_sum_hessian_in_leaf: 3]" in text
    low = CSLGBMClassifier(random_state=0, n_jobs=1, n_estimators=20).fit(X, y, fp_cost=5.0, fn_cost=amount)
    text = low.logloss_booster_.model_to_string()
    assert "[lambda_l2: 1]" in text and "[min_sum_hessian_in_leaf: 1]" in text


def test_a_booster_kept_after_a_handful_of_rounds_warns_cause_and_cure():
    """xgboost asked for no leaf regularisation diverges as lightgbm's defaults did: the kept 1-round model
    is named, with the cause and the cure."""
    X, y, amount = _pocket()
    with pytest.warns(FewRoundsWarning, match=r"kept \d of 100 rounds") as rec:
        est = CSXGBClassifier(random_state=0, n_jobs=1, reg_lambda=0.0, min_child_weight=0.0)
        est.fit(X, y, fp_cost=5.0, fn_cost=amount)
    msg = str(rec[0].message)
    assert "tiny hessians" in msg and "min_child_weight" in msg and "reg_lambda" in msg
    assert est.n_estimators_ < dl.FEW_ROUNDS


def test_card_file_default_lightgbm_keeps_more_than_a_handful_of_rounds():
    """The card file in time order, the first 80 % to fit: CSLGBMClassifier() kept a 1-round logloss booster
    (13 distinct probabilities) before its leaves were regularised."""
    from csdt.datasets import load_creditcard_fraud

    b = load_creditcard_fraud(creditcard_path(), raw=False)
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix)
    cut = int(0.8 * len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRoundsWarning)
        est = CSLGBMClassifier().fit(X[:cut], y[:cut], cost_matrix=C[:cut])
    assert _rounds(est.logloss_booster_) > 10
    assert np.unique(est.predict_proba(X[cut:])[:, 1]).size > 1000
    got = savings_score(y[cut:], est.predict(X[cut:], cost_matrix=C[cut:]), cost_matrix=C[cut:])
    assert got > 0.6, (got, est.decision_, est.validation_savings_)
