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


# ------------------------------------------------------------------ from_sql: names and messages
@pytest.mark.parametrize("sql", [
    "SELECT * FROM t WHERE a > 1 /* rule: big_a */ OR b < 2 AND a > 0 /* rule: small_b */",
    "SELECT * FROM t WHERE a > 1 -- rule: big_a\n OR b < 2 AND a > 0 -- rule: small_b\n",
    "SELECT * FROM t WHERE (a > 1) /* rule: big_a */ OR (b < 2 AND a > 0) /* rule: small_b */",
])
def test_from_sql_reads_rule_names_of_bare_or_branches(sql):
    rs = RuleSet.from_sql(sql)
    assert rs.names == ["big_a", "small_b"]
    X = pd.DataFrame({"a": [2.0, 0.5, 0.5, -1.0], "b": [5.0, 1.0, 5.0, 1.0]})
    assert rs.coverage(X).tolist() == [[True, False], [False, True], [False, False], [False, False]]


def test_from_sql_refuses_a_repeated_name_on_bare_branches():
    with pytest.raises(ValueError, match="'dup' is given twice"):
        RuleSet.from_sql("SELECT * FROM t WHERE a > 1 /* rule: dup */ OR b > 2 /* rule: dup */")


def test_from_sql_says_a_condition_stands_where_a_value_belongs():
    with pytest.raises(ValueError) as info:
        RuleSet.from_sql("(a > 0) = (b > 0)")
    msg = str(info.value)
    assert "a > 0" in msg and "where a value belongs" in msg and "is not supported" not in msg
    with pytest.raises(ValueError, match="where a value belongs"):
        RuleSet.from_sql({"r": "(a > 0 AND b > 0) + 1 > 0"})
