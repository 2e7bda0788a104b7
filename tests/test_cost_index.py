"""Every estimator reads pandas costs by position and refuses those whose index differs from X's.

A cost Series taken from another frame (re-sorted, or X re-indexed after the split) would give one
row's money to another without a word; the metrics already refuse it (tests/test_money_inputs.py),
and fit must too. The same costs as numpy, or with X's own index, train the same model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import csdt
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.xgb import CSXGBClassifier
from csdt.datasets import load_creditscoring1

import _estimators


@pytest.fixture(scope="module")
def data():
    ds = load_creditscoring1()
    X = pd.DataFrame(np.nan_to_num(ds.data[:600]), columns=ds.feature_names, index=np.arange(600) + 10_000)
    C = ds.cost_matrix[:600]
    return X, pd.Series(ds.target[:600], index=X.index), pd.Series(C[:, 0], index=X.index), \
        pd.Series(C[:, 1], index=X.index)


ESTIMATORS = _estimators.params()  # every public estimator; CatBoost skipped without the extra


@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_fit_refuses_pandas_costs_with_another_index(name, make, data):
    X, y, fp, fn = data
    shuffled = fn.sample(frac=1.0, random_state=0)  # the same money, other rows' labels
    with pytest.raises(ValueError, match="fn_cost"):
        make().fit(X, y, fp_cost=fp, fn_cost=shuffled)
    with pytest.raises(ValueError, match="fn_cost"):
        make().fit(X, y, fp_cost=fp.to_numpy(), fn_cost=fn.reset_index(drop=True))
    # X's own index, or numpy by position: the same model
    a = make().fit(X, y, fp_cost=fp, fn_cost=fn).predict_proba(X)
    b = make().fit(X, y, fp_cost=fp.to_numpy(), fn_cost=fn.to_numpy()).predict_proba(X)
    np.testing.assert_array_equal(a, b)


def test_bmr_predict_and_cal5_cost_and_eval_sets_refuse_another_index(data):
    X, y, fp, fn = data
    bmr = csdt.BayesMinimumRiskClassifier().fit(X, y, fp_cost=fp, fn_cost=fn)
    with pytest.raises(ValueError, match="fn_cost"):
        bmr.predict(X, fp_cost=fp, fn_cost=fn.reset_index(drop=True))
    np.testing.assert_array_equal(bmr.predict(X, fp_cost=fp, fn_cost=fn),
                                  bmr.predict(X, fp_cost=fp.to_numpy(), fn_cost=fn.to_numpy()))
    with pytest.raises(ValueError, match="cost"):
        csdt.CAL5OCClassifier().fit(X, y, cost=fn.reset_index(drop=True))
    est = CSXGBClassifier(n_estimators=3, max_depth=2)
    with pytest.raises(ValueError, match="fn_cost"):
        est.fit(X, y, fp_cost=fp, fn_cost=fn, eval_set=[(X, y)],
                eval_costs=[{"fp_cost": fp, "fn_cost": fn.reset_index(drop=True)}])
