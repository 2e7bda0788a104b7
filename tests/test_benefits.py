"""Savings with benefits (negative costs): the cheaper trivial policy's cost Cost_l can be negative, and
savings divide by |Cost_l| (ECSDT eq. 5 as csboost_plugins.metrics.savings_score computes it). The ensemble's
out-of-bag tree weights and the boosters' decision="auto" savings used to give 0 / NaN there."""

from __future__ import annotations

import numpy as np
import pytest

import csdt
from csboost_plugins.boosting import _decision_layer
from csboost_plugins.metrics import savings_score
from csdt.datasets import load_creditscoring1
from csdt.ensemble._inducers import draw_subset, out_of_bag_mask


@pytest.fixture(scope="module")
def benefit_data():
    d = load_creditscoring1()
    n = 1500
    X, y = np.nan_to_num(d.data[:n]), d.target[:n]
    # accepting a good customer (decision 0, y = 0) earns the margin: C_TN < 0, large enough that the
    # "accept everyone" policy earns money (Cost_l < 0)
    C = np.column_stack([d.fp_cost[:n], d.fn_cost[:n], np.zeros(n), np.full(n, -2000.0)])
    return X, y, C


def test_ensemble_oob_savings_are_savings_score_on_each_trees_oob_rows(benefit_data):
    X, y, C = benefit_data
    assert min(C[y == 1, 1].sum() + C[y == 0, 3].sum(), C[y == 1, 2].sum() + C[y == 0, 0].sum()) < 0
    m = csdt.CostSensitiveBaggingClassifier(n_estimators=4, combination="weighted_voting", random_state=0)
    m.fit(X, y, cost_matrix=C)
    n, dim = X.shape
    for t, (seed, tree, feats) in enumerate(zip(m._seeds, m.estimators_, m.estimators_features_)):
        rows, _ = draw_subset(int(seed), n, dim, m._n_rows, m._n_feats, m._bootstrap)
        oob = out_of_bag_mask(rows, n)
        pred = tree.predict(X[oob][:, feats])
        assert m.estimators_oob_savings_[t] == pytest.approx(savings_score(y[oob], pred, cost_matrix=C[oob]),
                                                             rel=1e-12)
    assert np.any(m.estimators_oob_savings_ != 0)


def test_decision_layer_savings_with_benefits_is_savings_score(benefit_data):
    X, y, C = benefit_data
    pred = (np.random.default_rng(0).random(y.shape[0]) < 0.2).astype(int)
    got = _decision_layer.savings(y, pred, C)
    assert np.isfinite(got)
    assert got == pytest.approx(savings_score(y, pred, cost_matrix=C), rel=1e-12)
