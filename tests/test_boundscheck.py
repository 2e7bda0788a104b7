"""Every family of numba kernels on edge-shaped inputs, checked against brute force.

Marked ``boundscheck``: ``.ci/boundscheck`` runs this module once more on the JIT kernels with
``NUMBA_BOUNDSCHECK=1`` (``CSDT_JIT=1``, a fresh ``NUMBA_CACHE_DIR``), so an out-of-bounds read
in a kernel raises IndexError and fails here instead of returning garbage. In the default run
the same tests check the AOT kernels' answers.
"""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.costs import FN, FP, TN, TP
from csboost_plugins.rules import RuleSet, extract_rules, riff_select
from csboost_plugins.rules import _aot as rules_aot
from csdt import (
    CAL5OCClassifier,
    CostSensitiveBaggingClassifier,
    CostSensitiveDecisionTreeClassifier,
    CostSensitiveRandomPatchesClassifier,
    FIGSClassifier,
    FIGUClassifier,
    cost_transinformation,
)
from csdt import _aot as csdt_aot

pytestmark = pytest.mark.boundscheck
CHECKED = os.environ.get("NUMBA_BOUNDSCHECK") == "1"


@pytest.fixture(autouse=True, scope="module")
def jit_really_ran():
    """Under .ci/boundscheck every kernel call must go through the (bounds-checked) JIT."""
    before = [dict(k.calls) for k in (csdt_aot.KERNELS, rules_aot.KERNELS)]
    yield
    after = [dict(k.calls) for k in (csdt_aot.KERNELS, rules_aot.KERNELS)]
    if CHECKED:
        import numba
        assert numba.config.BOUNDSCHECK and os.environ.get("CSDT_JIT") == "1"
        for b, a in zip(before, after):
            assert a["aot"] == b["aot"] and a["jit"] > b["jit"], (b, a)


def test_numba_boundscheck_turns_an_out_of_bounds_read_into_index_error():
    code = ("import numpy as np, numba\n"
            "f = numba.njit(lambda a, i: a[i])\n"
            "try:\n    f(np.zeros(3), 5)\nexcept IndexError:\n    print('IndexError')\n")
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", "/tmp"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "IndexError", out.stderr[-2000:]


def _data(n, p=3, seed=0, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, -1] = 1.0  # a constant column
    if nan:
        X[rng.random(n) < 0.2, 0] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(0, 0.7, n) > 0.3).astype(int)
    y[:2] = [0, 1]
    C = np.column_stack([np.full(n, 2.0), rng.uniform(1, 30, n), np.zeros(n), np.zeros(n)])
    return X, y, C


def _leaf_labels_minimise_leaf_cost(tree, X, y, C):
    leaf = tree.apply(X)
    pred = tree.predict(X)
    for v in np.unique(leaf):
        m = leaf == v
        cost0 = np.where(y[m] == 1, C[m, FN], C[m, TN]).sum()
        cost1 = np.where(y[m] == 1, C[m, TP], C[m, FP]).sum()
        assert len(set(pred[m])) == 1
        assert pred[m][0] == (1 if cost1 < cost0 else 0) or np.isclose(cost0, cost1)


@pytest.mark.parametrize("n", [2, 3, 7, 64])
@pytest.mark.parametrize("params", [{}, {"max_bins": 4}, {"num_pct": 10}, {"criterion": "gini_cost"},
                                    {"criterion": "entropy_cost", "max_depth": 2}])
def test_csdt_on_tiny_and_constant_data(n, params):
    X, y, C = _data(n, nan="max_bins" not in params and "num_pct" not in params)
    tree = CostSensitiveDecisionTreeClassifier(min_samples_leaf=1, **params).fit(X, y, cost_matrix=C)
    proba = tree.predict_proba(X)
    assert proba.shape == (n, 2) and np.all((proba >= 0) & (proba <= 1))
    if params.get("criterion", "direct_cost") == "direct_cost":
        _leaf_labels_minimise_leaf_cost(tree, X, y, C)
    # rules read from the tree route exactly like the tree (rule kernels, C and F order)
    rules = RuleSet(extract_rules(tree))
    if tree.get_n_leaves() == 1:  # the root is a leaf: no condition, no rule
        assert len(rules) == 0
        return
    fm = rules.apply(np.ascontiguousarray(X))
    np.testing.assert_array_equal(rules.coverage(pd.DataFrame(X)).argmax(1), fm)
    leaf_of_rule = np.array([r.sources[0]["node"] for r in rules])
    np.testing.assert_array_equal(leaf_of_rule[fm], tree.apply(X))


def test_csdt_pruning_and_ensembles():
    X, y, C = _data(300, p=4, seed=1)
    for pruning in ("cost", "error"):
        tree = CostSensitiveDecisionTreeClassifier(pruning=pruning).fit(
            X[:200], y[:200], cost_matrix=C[:200], X_val=X[200:], y_val=y[200:], val_cost_matrix=C[200:])
        full = CostSensitiveDecisionTreeClassifier().fit(X[:200], y[:200], cost_matrix=C[:200])
        assert tree.get_n_leaves() <= full.get_n_leaves()
        _leaf_labels_minimise_leaf_cost(full, X[:200], y[:200], C[:200])
    for est in (CostSensitiveBaggingClassifier(n_estimators=4, combination="weighted_voting", n_jobs=2,
                                               random_state=0),
                CostSensitiveRandomPatchesClassifier(n_estimators=4, combination="stacking", random_state=0)):
        est.fit(X, y, cost_matrix=C)
        p = est.predict_proba(X)
        assert np.all(np.isfinite(p)) and est.predict(X).shape == (300,)


@pytest.mark.parametrize("n", [3, 9, 80])
@pytest.mark.parametrize("est", [FIGSClassifier(max_rules=5, max_bins=3), FIGUClassifier(max_rules=5),
                                 FIGSClassifier(max_rules=8)])
def test_figs_figu_on_small_and_missing_data(n, est):
    X, y, C = _data(n, nan=True)
    est.fit(X, y, fp_cost=C[:, FP], fn_cost=C[:, FN])
    p = est.predict_proba(X)[:, 1]
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))
    rules = RuleSet(extract_rules(est))
    assert rules.coverage(X).shape[0] == n


def test_cal5oc_and_cost_transinformation():
    X, y, C = _data(150, seed=2)
    cost = np.where(y == 1, C[:, FN], C[:, FP])
    m = CAL5OCClassifier(alpha=0.3, s_max=0.7).fit(X, y, cost=cost)
    assert set(np.unique(m.predict(X))) <= {0, 1}
    t = cost_transinformation(np.digitize(X[:, 0], [-0.5, 0.5]), y, cost)
    assert np.isfinite(t) and t >= 0


def test_riff_select_and_rule_kernels_match_numpy_masks():
    X, y, C = _data(400, p=4, seed=3, nan=True)
    cands = extract_rules(DecisionTreeClassifier(max_depth=4, random_state=0).fit(np.nan_to_num(X), y),
                          nodes="all")
    sel = riff_select(cands, X, y, max_fpr=0.1, fp_cost=0.0, fn_cost=C[:, FN])
    cov = sel.coverage(X)
    for j, r in enumerate(sel):  # the kernels agree with each condition's numpy mask
        np.testing.assert_array_equal(cov[:, j], r.mask(X))
    assert sel.evaluate(X, y, last_rule="expected")["fpr"] <= 0.1 + 1e-12  # the randomised set meets the budget
