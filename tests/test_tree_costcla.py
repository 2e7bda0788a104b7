"""costcla-compatible mode reproduces costcla 0.6's trees exactly (reference outputs vendored in tests/data/costcla)."""

import json

import numpy as np
import pytest

from _data import COSTCLA
from csboost_plugins.metrics import savings_score
from csdt import CostSensitiveDecisionTreeClassifier as CSDT

REF = COSTCLA


@pytest.fixture(scope="module")
def ref():
    data = np.load(REF / "cs1_sub.npz")
    trees = json.loads((REF / "csdt_reference.json").read_text())["trees"]
    return data, trees


def _costcla_tree(t, out):
    """Pre-order list of costcla's nested tree: (feature, threshold, y_pred, y_prob, n)."""
    if t["split"] in (-1, None):
        out.append((None, None, t["y_pred"], t["y_prob"], t["n_samples"]))
        return out
    out.append((t["split"][0], t["split"][1], t["y_pred"], t["y_prob"], t["n_samples"]))
    _costcla_tree(t["sl"], out)
    _costcla_tree(t["sr"], out)
    return out


def _our_tree(tree):
    out = []

    def rec(k):
        if tree.children_left[k] == -1:
            out.append((None, None, int(tree.label[k]), float(tree.value[k]), int(tree.n_samples[k])))
            return
        out.append((int(tree.feature[k]), float(tree.threshold[k]), int(tree.label[k]),
                    float(tree.value[k]), int(tree.n_samples[k])))
        rec(tree.children_left[k])
        rec(tree.children_right[k])

    rec(0)
    return out


def _assert_same_tree(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a[0] == b[0] and a[2] == b[2] and a[4] == b[4], (a, b)
        if a[1] is not None:
            assert a[1] == b[1], (a, b)  # thresholds bit-equal (same percentile arithmetic)
        assert a[3] == pytest.approx(b[3], abs=1e-12)


def _params(p):
    return {"criterion": p.get("criterion", "direct_cost"),
                "criterion_weight": p.get("criterion_weight", False),
                "max_depth": p.get("max_depth"), "min_samples_split": p.get("min_samples_split", 2),
                "min_samples_leaf": p.get("min_samples_leaf", 1), "min_gain": p.get("min_gain", 0.001),
                "num_pct": p.get("num_pct", 100)}


CONFIGS = ["default_unpruned", "default_pruned_in_fit", "pi_cost", "pi_cost_pruned_in_fit",
           "gini_cost", "entropy_cost", "direct_weighted", "max_depth3", "min_samples_leaf20",
           "num_pct10", "min_gain0"]


@pytest.mark.parametrize("name", CONFIGS)
def test_same_tree_predictions_and_probabilities_as_costcla(ref, name):
    d, trees = ref
    c = trees[name]
    m = CSDT(**_params(c["params"])).fit(d["X_train"], d["y_train"], cost_matrix=d["cost_mat_train"])
    if c["params"].get("pruned"):
        # costcla's pruned=True prunes on the training data inside fit
        m.prune(d["X_train"], d["y_train"], cost_matrix=d["cost_mat_train"])
    assert int((~m.tree_.is_leaf).sum()) == (c["n_internal_nodes_pruned"] if c["params"].get("pruned")
                                              else c["n_internal_nodes"])
    if not c["params"].get("pruned"):
        _assert_same_tree(_our_tree(m.tree_), _costcla_tree(c["tree"], []))
    np.testing.assert_array_equal(m.predict(d["X_train"]), c["pred_train"])
    np.testing.assert_array_equal(m.predict(d["X_holdout"]), c["pred_holdout"])
    np.testing.assert_allclose(m.predict_proba(d["X_holdout"])[:, 1], c["proba1_holdout"], atol=1e-11)
    assert savings_score(d["y_holdout"], m.predict(d["X_holdout"]),
                         cost_matrix=d["cost_mat_holdout"]) == pytest.approx(c["savings_holdout"], abs=1e-9)


def test_cost_pruning_on_holdout_matches_costcla(ref):
    d, trees = ref
    c = trees["default_unpruned"]
    m = CSDT(num_pct=100).fit(d["X_train"], d["y_train"], cost_matrix=d["cost_mat_train"])
    m.prune(d["X_holdout"], d["y_holdout"], cost_matrix=d["cost_mat_holdout"])
    after = c["after_pruning_on_holdout"]
    assert int((~m.tree_.is_leaf).sum()) == after["n_internal_nodes_pruned"]
    _assert_same_tree(_our_tree(m.tree_), _costcla_tree(after["tree"], []))
    np.testing.assert_array_equal(m.predict(d["X_holdout"]), after["pred_holdout"])
