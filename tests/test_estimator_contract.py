"""What every public estimator promises (tests/_estimators.py lists them; CatBoost skipped without
the extra): clone keeps the parameters and drops the fit, a fitted model pickles and predicts the same
probabilities after the round trip, and per-row costs reach fit through scikit-learn's metadata routing."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import KFold, cross_validate

import _estimators

ESTIMATORS = _estimators.params()


@pytest.fixture(scope="module")
def card():
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(2000, fraud_rate=0.05, random_state=5)
    return d.data.to_numpy(), np.asarray(d.target), np.asarray(d.fn_cost, dtype=np.float64)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_clone_keeps_parameters_and_drops_the_fit(card, name, make):
    X, y, amount = card
    fitted = make().fit(X, y, fp_cost=10.0, fn_cost=amount)
    twin = clone(fitted)
    assert type(twin) is type(fitted)
    assert twin.get_params(deep=False).keys() == fitted.get_params(deep=False).keys()
    for key, value in fitted.get_params(deep=False).items():
        assert repr(twin.get_params(deep=False)[key]) == repr(value), key
    assert not hasattr(twin, "classes_")


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_fitted_model_pickles_and_predicts_the_same(card, name, make):
    X, y, amount = card
    fitted = make().fit(X, y, fp_cost=10.0, fn_cost=amount)
    back = pickle.loads(pickle.dumps(fitted))
    assert type(back) is type(fitted)
    np.testing.assert_array_equal(back.classes_, fitted.classes_)
    np.testing.assert_array_equal(back.predict_proba(X), fitted.predict_proba(X))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_costs_reach_fit_through_metadata_routing(card, name, make):
    # each fold is fitted with its own rows' costs: the routed fit equals a fit by hand on the fold
    X, y, amount = card
    cv = KFold(2)
    with sklearn.config_context(enable_metadata_routing=True):
        est = make().set_fit_request(fp_cost=True, fn_cost=True)
        res = cross_validate(est, X, y, cv=cv, params={"fp_cost": np.full(len(y), 10.0), "fn_cost": amount},
                             return_estimator=True, scoring="neg_log_loss", error_score="raise")
    for model, (tr, te) in zip(res["estimator"], cv.split(X)):
        want = make().fit(X[tr], y[tr], fp_cost=np.full(len(tr), 10.0), fn_cost=amount[tr])
        np.testing.assert_allclose(model.predict_proba(X[te]), want.predict_proba(X[te]), rtol=1e-12, atol=1e-15)
