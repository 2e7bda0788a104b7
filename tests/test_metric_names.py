"""One registry of metric names and directions: the boosting plugins, cross-validated cslogit and the
plots read it, and each money metric's direction is the one its values show."""

import numpy as np
import pytest

from csboost_plugins._metric_names import HIGHER_IS_BETTER, MONEY_METRICS, lower_is_better
from csboost_plugins.boosting import _aec, _money_eval
from csboost_plugins.costs import fraud_cost_matrix


def test_every_reader_uses_the_one_registry():
    assert _aec.METRICS is MONEY_METRICS
    assert _money_eval.METRIC_NAMES == tuple(MONEY_METRICS) == ("aec", "expected_savings", "savings")
    assert set(MONEY_METRICS) <= set(HIGHER_IS_BETTER)
    assert [lower_is_better(n) for n in ("aec", "savings", "expected_savings", "logloss", "unknown")] == \
        [True, False, False, True, False]


@pytest.mark.parametrize("name", list(MONEY_METRICS))
def test_direction_matches_the_values(name):
    """A model that knows the labels scores better than one that inverts them, in the registry's direction."""
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.1).astype(np.int64)
    costs = fraud_cost_matrix(rng.lognormal(4, 1, 400), 5.0)
    good, bad = np.where(y == 1, 0.95, 0.05), np.where(y == 1, 0.05, 0.95)
    v_good, v_bad = (_aec.money_metric_value(name, s, y, costs, decision="bmr") for s in (good, bad))
    assert (v_good > v_bad) == MONEY_METRICS[name]
