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
