"""Defects found by the rules user's audit (a fraud analyst explaining decisions with rules): each test
failed before its fix."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import extract_rules, riff_select
from csdt.datasets import make_fraud_transactions


@pytest.fixture(scope="module")
def fraud():
    d = make_fraud_transactions(4000, fraud_rate=0.05, random_state=3)
    X, y = d.data, np.asarray(d.target)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[:2000], y[:2000])
    return X[2000:], y[2000:], np.asarray(d.fn_cost)[2000:], extract_rules(tree)


@pytest.mark.parametrize("max_rules,err", [(0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError),
                                           ("3", TypeError)])
def test_riff_select_refuses_a_bad_max_rules(fraud, max_rules, err):
    """max_rules=-1 used to give an empty rule set silently and 2.5 three rules."""
    X, y, _, pool = fraud
    with pytest.raises(err, match="max_rules"):
        riff_select(pool, X, y, max_fpr=0.05, max_rules=max_rules)


def test_riff_select_max_rules_numpy_integer_caps_the_rules(fraud):
    X, y, _, pool = fraud
    assert len(riff_select(pool, X, y, max_fpr=0.5, max_rules=np.int64(2))) == 2
