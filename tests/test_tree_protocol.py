import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.tree_protocol import TreeArrays, apply_tree_arrays, get_tree_arrays


def _from_sklearn(clf):
    t = clf.tree_
    leaf = t.children_left == -1
    return TreeArrays(
        children_left=t.children_left, children_right=t.children_right,
        feature=np.where(leaf, -1, t.feature), threshold=np.where(leaf, np.nan, t.threshold),
        missing_left=t.missing_go_to_left.astype(bool), value=t.value[:, 0, 1],
        n_samples=t.n_node_samples, left_inclusive=True,
    )


def test_reference_walk_equals_sklearn_apply_with_nans_and_ties():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(600, 3)).astype(float)  # many ties at thresholds
    X[rng.random(X.shape) < 0.1] = np.nan
    y = ((np.nan_to_num(X[:, 0], nan=4) + rng.normal(size=600)) > 2).astype(int)
    clf = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    ta = _from_sklearn(clf)
    np.testing.assert_array_equal(apply_tree_arrays(ta, X), clf.apply(X))


def test_strict_split_direction():
    ta = TreeArrays([1, -1, -1], [2, -1, -1], [0, -1, -1], [1.0, np.nan, np.nan], [False, False, False],
                    [0.5, 0.1, 0.9], left_inclusive=False)
    X = np.array([[0.5], [1.0], [np.nan]])
    np.testing.assert_array_equal(apply_tree_arrays(ta, X), [1, 2, 2])
    ta.left_inclusive = True
    np.testing.assert_array_equal(apply_tree_arrays(ta, X), [1, 1, 2])


def test_protocol_errors():
    with pytest.raises(ValueError, match="TreeArrays.feature has length 2, expected 3"):
        TreeArrays([1, -1, -1], [2, -1, -1], [0, -1], [1.0, 0, 0], [0, 0, 0], [0, 0, 0])
    with pytest.raises(TypeError, match="does not expose the tree array protocol"):
        get_tree_arrays(object())


# ----------------------------------------------------------------- validation (shapes, dtypes, child indices, cycles)
_GOOD = dict(children_left=[1, -1, -1], children_right=[2, -1, -1], feature=[0, -1, -1],
             threshold=[0.5, np.nan, np.nan], missing_left=[False] * 3, value=[0.5, 0.1, 0.9])


@pytest.mark.parametrize("change, message", [
    ({"children_left": [0, -1, -1]}, "children_left\\[0\\] = 0 is out of range"),  # points back to the root
    ({"children_left": [1, 0, -1], "children_right": [2, 2, -1], "feature": [0, 0, -1],
      "threshold": [0.5, 0.5, np.nan]}, "out of range"),
    ({"children_left": [1, 2, -1], "children_right": [2, 2, -1], "feature": [0, 0, -1],
      "threshold": [0.5, 0.5, np.nan]}, "node 2 is the child of 3 nodes"),
    ({"children_left": [7, -1, -1]}, "children_left\\[0\\] = 7 is out of range"),
    ({"children_right": [-1, -1, -1]}, "node 0 has exactly one child"),
    ({"feature": [-2, -1, -1]}, "feature\\[0\\] = -2"),
    ({"feature": [-(2**40), -1, -1]}, "feature\\[0\\] = -1099511627776"),
    ({"threshold": [np.nan, np.nan, np.nan]}, "threshold is NaN at internal node 0"),
])
def test_bad_structure_is_a_value_error_naming_the_node(change, message):
    with pytest.raises(ValueError, match=message):
        TreeArrays(**{**_GOOD, **change})


def test_cycle_away_from_the_root_is_found():
    # 3 -> (4, 5) and 4 -> (3, 6): every node has one parent, but 3..6 are not reached
    with pytest.raises(ValueError, match="node 3 is not reached from the root"):
        TreeArrays([1, -1, -1, 4, 3, -1, -1], [2, -1, -1, 5, 6, -1, -1], [0, -1, -1, 0, 0, -1, -1],
                   [0.5, np.nan, np.nan, 1.0, 1.0, np.nan, np.nan], [False] * 7, [0.0] * 7)


def test_feature_beyond_X_is_a_value_error():
    ta = TreeArrays(**{**_GOOD, "feature": [3, -1, -1]})
    with pytest.raises(ValueError, match="feature\\[0\\] = 3 but X has 2 columns"):
        apply_tree_arrays(ta, np.zeros((4, 2)))


def test_extract_rules_on_a_cyclic_tree_raises_instead_of_hanging():
    # a tree whose root is its own left child, built unchecked (validate=False) as a buggy model would hand it over;
    # run in a subprocess with a timeout so a regression fails instead of eating the machine's memory
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from csboost_plugins.tree_protocol import TreeArrays\n"
        "from csboost_plugins.rules import extract_rules\n"
        "t = TreeArrays([0, -1, -1], [2, -1, -1], [0, -1, -1], [0.5, np.nan, np.nan], [False] * 3,\n"
        "               [0.5, 0.1, 0.9], validate=False)\n"
        "try:\n"
        "    extract_rules(t)\n"
        "except ValueError as exc:\n"
        "    print('ValueError', exc)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ValueError") and "out of range" in r.stdout, r.stdout + r.stderr


def test_valid_trees_pass_and_depth_is_from_the_structure():
    ta = TreeArrays([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -1, -1, -1], [0.5, 1.0, np.nan, np.nan, np.nan],
                    [False] * 5, [0.0] * 5)
    np.testing.assert_array_equal(ta.node_depth, [0, 1, 1, 2, 2])
    assert ta.max_depth == 2 and ta.n_leaves == 3


def test_csdt_tree_is_the_public_form_and_pickles():
    import pickle

    from csdt import CostSensitiveDecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0.3).astype(int)
    m = CostSensitiveDecisionTreeClassifier(max_depth=3).fit(X, y, fp_cost=1.0, fn_cost=5.0)
    t = m.tree_
    assert isinstance(t, TreeArrays)
    # node_cost is money: the cost of deciding the node's label for its training rows
    c0, c1 = np.where(y == 1, 5.0, 0.0), np.where(y == 1, 0.0, 1.0)
    leaf = apply_tree_arrays(t, X)
    for k in np.flatnonzero(t.is_leaf):
        rows = leaf == k
        assert t.node_cost[k] == pytest.approx((c1 if t.label[k] == 1 else c0)[rows].sum())
    t2 = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(t2.gain, t.gain)
    np.testing.assert_array_equal(apply_tree_arrays(t2, X), m.apply(X))
