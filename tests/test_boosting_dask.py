"""AEC objective under dask: xgboost.dask.train and lightgbm.dask.DaskLGBMClassifier on a LocalCluster.

Costs are partitioned with the data (folded into label and weight chunk by chunk);
the distributed models' test savings must be close to the single-machine models'.
"""

# dask, distributed and pyarrow are dev-extra dependencies: a missing one fails the run, never skips it
import dask.array as da
import dask.distributed as distributed
import numpy as np
import pyarrow  # noqa: F401  (xgboost.dask / lightgbm.dask import dask.dataframe, which needs it)
import pytest

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.metrics import expected_savings_score, savings_score
from csdt.datasets import make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning",
                                        "ignore::UserWarning", "ignore::DeprecationWarning")

N_TRAIN = 8000
# distributed hist/bin construction sees each worker's half of the data (other bin edges), so the models
# differ slightly; 0.05 is about one seed-to-seed std of test savings on this data (benchmarks/bench_boosting_money.py)
TOL = 0.05


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def data():
    b = make_fraud_transactions(12000, fraud_rate=0.03, random_state=3)
    X, y, C = b.data.to_numpy(), np.asarray(b.target), b.cost_matrix
    return X[:N_TRAIN], y[:N_TRAIN], C[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:], C[N_TRAIN:]


def _chunked(a):
    return da.from_array(a, chunks=(N_TRAIN // 2,) + a.shape[1:])


def _money(y, s, C):
    """Savings of the AEC decision s > 1/2 and expected savings."""
    return (savings_score(y, (s > 0.5).astype(int), cost_matrix=C), expected_savings_score(y, s, cost_matrix=C))


def test_xgboost_dask_train_matches_single_machine(client, data):
    from xgboost import dask as dxgb

    Xtr, ytr, Ctr, Xte, yte, Cte = data
    dtrain, info = cxgb.dask_cost_dmatrix(client, _chunked(Xtr), _chunked(ytr), fp_cost=_chunked(Ctr[:, 0]),
                                          fn_cost=_chunked(Ctr[:, 1]), tp_cost=_chunked(Ctr[:, 2]))
    params = {"tree_method": "hist", "max_depth": 4, "eta": 0.1, "base_score": info["start_margin"],
              "disable_default_eval_metric": 1}
    out = dxgb.train(client, params, dtrain, num_boost_round=60, obj=cxgb.aec_objective(costs_in_weight=True))
    s_dist = cxgb.predict_proba(out["booster"], Xte)

    single = cxgb.CSXGBClassifier(decision="0.5", n_estimators=60, max_depth=4, learning_rate=0.1, n_jobs=1, random_state=0)
    single.fit(Xtr, ytr, cost_matrix=Ctr)
    assert info["cost_scale"] == pytest.approx(single.cost_scale_, rel=1e-9)
    assert info["start_margin"] == pytest.approx(single.start_margin_, rel=1e-9)
    sav_d, es_d = _money(yte, s_dist, Cte)
    sav_s, es_s = _money(yte, single.predict_proba(Xte)[:, 1], Cte)
    assert es_d > 0.3 and sav_d > 0.3  # it learnt something
    assert abs(sav_d - sav_s) < TOL and abs(es_d - es_s) < TOL, (sav_d, sav_s, es_d, es_s)


def test_lightgbm_dask_classifier_matches_single_machine(client, data):
    from lightgbm.dask import DaskLGBMClassifier

    Xtr, ytr, Ctr, Xte, yte, Cte = data
    z, w, init, info = clgb.dask_cost_inputs(_chunked(ytr), fp_cost=_chunked(Ctr[:, 0]), fn_cost=_chunked(Ctr[:, 1]),
                                             tp_cost=_chunked(Ctr[:, 2]))
    model = DaskLGBMClassifier(objective=clgb.aec_objective(costs_in_weight=True), n_estimators=60, num_leaves=15,
                               learning_rate=0.1, min_child_weight=1e-3, verbose=-1, client=client, random_state=0)
    model.fit(_chunked(Xtr), z, sample_weight=w, init_score=init)
    booster = clgb.bake_start_margin(model.to_local().booster_, info["start_margin"])
    s_dist = clgb.predict_proba(booster, Xte)

    single = clgb.CSLGBMClassifier(decision="0.5", n_estimators=60, num_leaves=15, learning_rate=0.1, n_jobs=1, random_state=0)
    single.fit(Xtr, ytr, cost_matrix=Ctr)
    assert info["start_margin"] == pytest.approx(single.start_margin_, rel=1e-9)
    sav_d, es_d = _money(yte, s_dist, Cte)
    sav_s, es_s = _money(yte, single.predict_proba(Xte)[:, 1], Cte)
    assert es_d > 0.3 and sav_d > 0.3
    assert abs(sav_d - sav_s) < TOL and abs(es_d - es_s) < TOL, (sav_d, sav_s, es_d, es_s)
