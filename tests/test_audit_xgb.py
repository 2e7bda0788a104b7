"""What a user coming from xgboost does with the AEC plugin, in xgboost's own words (audit findings).

Each test is a defect found by using ``csboost_plugins.xgb`` the way ``xgb.train`` /
``XGBClassifier`` users do; the expected values come from xgboost itself (its callbacks,
its ``Booster`` attributes) or from the estimator's own recorded history.
"""

import numpy as np
import pytest
import xgboost as xgb

from csboost_plugins import xgb as cxgb
from csboost_plugins.xgb import CSXGBClassifier
from csdt.datasets import make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(4000, fraud_rate=0.05, random_state=0)
    return b.data.to_numpy(), np.asarray(b.target), b.fn_cost


def _fit_kw(fraud):
    X, y, amount = fraud
    tr, va = slice(0, 3000), slice(3000, None)
    return dict(X=X[tr], y=y[tr], fp_cost=10.0, fn_cost=amount[tr], eval_set=[(X[va], y[va])],
                eval_costs=[{"fp_cost": 10.0, "fn_cost": amount[va]}])


# ------------------------------------------------------------------ native: aec_params
@pytest.mark.parametrize("objective", ["binary:logistic", "reg:logistic", "binary:hinge"])
def test_aec_params_refuses_a_native_objective_in_params(fraud, objective):
    """xgboost users keep ``"objective": "binary:logistic"`` in their params; with it xgboost reads
    base_score (our start margin) as a probability: a native 'base_score must be in (0,1)' crash,
    or, for a margin inside (0, 1), a silently different start."""
    X, y, amount = fraud
    dtrain = cxgb.cost_dmatrix(X, y, fp_cost=10.0, fn_cost=amount)
    with pytest.raises(ValueError, match=r"params\['objective'\]"):
        cxgb.aec_params(dtrain, {"objective": objective, "max_depth": 3})
    # the margin objective xgboost itself records with obj= stays accepted
    p = cxgb.aec_params(dtrain, {"objective": "reg:squarederror", "max_depth": 3})
    assert p["base_score"] == pytest.approx(cxgb.start_margin(dtrain))
