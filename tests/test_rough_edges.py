"""Rough edges found by probing: each test fails on the behaviour it guards against."""

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet
from csboost_plugins.rules._rule import CategorySet, Interval, Rule


# ------------------------------------------------------------------ RuleSet leaves its rules alone
def test_ruleset_does_not_rename_the_rules_it_is_given():
    rule = Rule([Interval(0, lower=1.0), CategorySet(1, codes=(0,), missing=True)])
    first = RuleSet([rule], feature_names=["amount", "channel"])
    before = str(first)
    second = RuleSet([first[0]], feature_names=["montant", "canal"], missing_columns=["canal"])
    assert "montant" in str(second) and "canal" in str(second)
    assert str(first) == before and "amount" in before
    assert str(rule) == "x0 >= 1 and " + str(rule).split(" and ")[1] and "x1" in str(rule)
    # both sets still flag by position, each under its own names
    X = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0]])
    assert first.predict(X).tolist() == second.predict(X).tolist() == [0, 1, 0]
