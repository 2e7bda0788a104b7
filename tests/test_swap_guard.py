"""The fp/fn swap guard of the boosting estimators: silent with the right costs at fraud base rates (few
flags are normal there), a CostWarning when C_FP and C_FN are truly exchanged, both money figures of its
message under the one cost matrix the user gave."""

import re
import warnings

import numpy as np
import pytest

from _data import creditcard_path
from csboost_plugins.boosting import _decision_layer as dl
from csboost_plugins.costs import CostWarning
from csboost_plugins.decision_costs import bmr_decisions
from csboost_plugins.lgb import CSLGBMClassifier
from csboost_plugins.xgb import CSXGBClassifier
from csdt import datasets

SWAPPED = "fp_cost and fn_cost look swapped"


def _swap_warnings(fit):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est = fit()
    return est, [str(r.message) for r in rec if issubclass(r.category, CostWarning) and SWAPPED in str(r.message)]


def _money(y, d, C):
    """Money of 0/1 decisions under the cost matrix C, written out per cell."""
    fp, fn, tp, tn = C.T
    return float(np.sum(y * d * tp + y * (1 - d) * fn + (1 - y) * d * fp + (1 - y) * (1 - d) * tn))


# ------------------------------------------------------------------ the rule itself
def _calibrated(n=50_000, seed=0):
    """Probabilities s ~ Beta(0.02, 10) (mean 0.002) and labels drawn from them: a calibrated model."""
    rng = np.random.default_rng(seed)
    s = rng.beta(0.02, 10, n)
    return rng, s, (rng.random(n) < s).astype(np.float64)


def _matrix(fp, fn):
    fp, fn = np.broadcast_arrays(np.asarray(fp, dtype=float), np.asarray(fn, dtype=float))
    return np.column_stack([fp, fn, np.zeros_like(fp), np.zeros_like(fp)])


def test_fewer_flags_than_frauds_with_the_right_costs_are_not_evidence():
    """An alert costs 5, a missed fraud its amount (6 to 30): the decisions flag under half as many rows as
    there are frauds, which is normal, not a swap."""
    rng, s, y = _calibrated()
    C = _matrix(5.0, rng.uniform(6, 30, s.size))
    d = bmr_decisions(s, C)
    assert 0 < d.mean() < y.mean() / 2 and d.mean() < 0.001
    assert dl.swap_evidence(y, d, s, C) is None


def test_exchanged_costs_are_evidence_with_money_under_the_given_matrix():
    rng, s, y = _calibrated()
    C = _matrix(rng.uniform(20, 300, s.size), 5.0)  # a false alarm charged the amount, a miss the fee
    d = bmr_decisions(s, C)
    ev = dl.swap_evidence(y, d, s, C)
    assert ev is not None and ev["alarm"]
    d_sw = bmr_decisions(s, C[:, [1, 0, 2, 3]])
    assert ev["money"] == pytest.approx(_money(y, d, C)) and ev["money_swapped"] == pytest.approx(_money(y, d_sw, C))
    assert ev["money_swapped"] > ev["money"]
    assert ev["flagged"] == pytest.approx(d.mean()) and ev["base_rate"] == pytest.approx(y.mean())
    assert ev["trivial"] == pytest.approx(min(_money(y, np.zeros_like(y), C), _money(y, np.ones_like(y), C)))
    assert dl.swap_evidence(y, d_sw, s, C[:, [1, 0, 2, 3]]) is None  # the same model, costs the right way round


def test_a_weak_model_with_exchanged_costs_is_not_evidence():
    """Probabilities at the base rate: the exchanged decisions flag nothing either, so the costs pick nothing."""
    rng, s, y = _calibrated()
    C = _matrix(rng.uniform(20, 300, s.size), 5.0)
    flat = np.full(s.size, y.mean())
    assert dl.swap_evidence(y, bmr_decisions(flat, C), flat, C) is None


def test_rows_whose_costs_fix_the_decision_are_left_out():
    """A zero amount as C_FP flags the row whatever its probability: such rows do not count as flags."""
    rng, s, y = _calibrated()
    amount = rng.uniform(20, 300, s.size)
    amount[:750] = 0.0  # 1.5 % of the rows, many more than the frauds
    C = _matrix(amount, 5.0)
    d = bmr_decisions(s, C)
    assert d.mean() > y.mean()  # counting them, the decisions flag more rows than there are frauds
    assert dl.swap_evidence(y, d, s, C) is not None


# ------------------------------------------------------------------ estimators on a bundled set
def _bundled(name, n):
    b = getattr(datasets, f"load_{name}")()
    X, y, C = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.cost_matrix, dtype=float)
    idx = np.random.default_rng(0).permutation(len(y))[:n]
    return X[idx], y[idx], C[idx]


@pytest.mark.parametrize("cls", [CSXGBClassifier, CSLGBMClassifier])
@pytest.mark.parametrize("name", ["creditscoring1", "creditscoring2"])
def test_bundled_set_both_directions(cls, name):
    X, y, C = _bundled(name, 15_000)
    _, right = _swap_warnings(lambda: cls(n_jobs=1, n_estimators=40, random_state=0).fit(X, y, cost_matrix=C))
    assert right == []
    Cs = C[:, [1, 0, 2, 3]]  # C_FP and C_FN exchanged
    _, swapped = _swap_warnings(lambda: cls(n_jobs=1, n_estimators=40, random_state=0).fit(X, y, cost_matrix=Cs))
    assert len(swapped) == 1
    money = [float(v.replace(",", "")) for v in re.findall(r"cost (-?[\d,]+\.\d\d) against (-?[\d,]+\.\d\d)",
                                                          swapped[0])[0]]
    assert money[0] > money[1]  # under the costs as given, the exchanged decisions cost more


# ------------------------------------------------------------------ the card file
@pytest.fixture(scope="module")
def card60k():
    """The first 60,000 rows with money at stake (amount > 0) of the ULB card file, in time order, with the
    file's columns V1..V28 and Amount as features."""
    b = datasets.load_creditcard_fraud(creditcard_path())
    keep = np.flatnonzero(b.data["Amount"].to_numpy() > 0)[:60_000]
    X = b.data[[f"V{i}" for i in range(1, 29)] + ["Amount"]].to_numpy(float)[keep]
    return X, np.asarray(b.target)[keep], X[:, -1].copy()


def test_card_file_right_costs_do_not_warn(card60k):
    """A missed fraud costs its amount, an alert 5: the few flags of a 0.27 % fraud rate are normal."""
    X, y, a = card60k
    est, msgs = _swap_warnings(lambda: CSXGBClassifier(n_estimators=20, n_jobs=2, random_state=0).fit(
        X, y, fp_cost=5.0, fn_cost=a))
    assert msgs == []


def test_card_file_swapped_costs_warn(card60k):
    X, y, a = card60k
    est, msgs = _swap_warnings(lambda: CSXGBClassifier(n_estimators=100, n_jobs=2, random_state=0).fit(
        X, y, fp_cost=a, fn_cost=5.0))
    assert len(msgs) == 1 and "false alarm costs more than a missed positive" in msgs[0]


def test_card_file_gains_variant_does_not_warn(card60k):
    X, y, a = card60k
    _, msgs = _swap_warnings(lambda: CSLGBMClassifier(n_estimators=100, n_jobs=2, random_state=0).fit(
        X, y, fp_cost=5.0, fn_cost=a, tp_cost=-(50 + a), tn_cost=-0.02 * a))
    assert msgs == []
