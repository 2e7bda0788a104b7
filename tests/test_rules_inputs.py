"""Rules as a fraud analyst explaining decisions uses them: bad arguments refused by name, exact rule text
on float32 ties, many rules in DataFrame.query; each test failed before its fix."""

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


def test_xgboost_rule_text_is_exact_on_float32_data_ties_included():
    """xgboost cuts are data values: the text ``a < 0.31482098`` (the float32's shortest repr, which lies above
    the float32 cut 0.314820975...) read on the float32 data put the rows AT the cut on the left, where
    xgboost sends them right. Every displayed cut, compared as written, must select the rows the rule does."""
    import pandas as pd
    import xgboost as xgb

    from csboost_plugins.rules import Interval

    rng = np.random.default_rng(0)
    n = 5000
    X = pd.DataFrame({"a": rng.normal(size=n).astype(np.float32), "b": rng.uniform(0, 1, n).astype(np.float32)})
    y = ((X["a"] + X["b"] + rng.normal(scale=0.5, size=n)) > 0.8).astype(int)
    m = xgb.XGBClassifier(n_estimators=20, max_depth=3).fit(X, y)
    checked = 0
    for r in extract_rules(m):
        for c in r.conditions:
            x = X.iloc[:, c.feature].to_numpy().astype(np.float64)
            for text, bound in ((c.upper_text, Interval(0, upper=c.upper, upper_closed=c.upper_closed)),
                                (c.lower_text, Interval(0, lower=c.lower, lower_closed=c.lower_closed))):
                if text is None:
                    continue
                op, s = text.split(" ")
                as_written = x < float(s) if op == "<" else x >= float(s)
                np.testing.assert_array_equal(as_written, bound.mask(x), err_msg=f"{r.feature_names[c.feature]} "
                                                                                 f"{text}")
                checked += 1
    assert checked > 100
    digits = [len(t.split(" ")[1].split("e")[0].lstrip("-").replace(".", "").lstrip("0"))
              for r in extract_rules(m) for c in r.conditions for t in (c.upper_text, c.lower_text) if t]
    assert max(digits) <= 9  # still readable: no more digits than a float32 needs


def test_dask_selection_names_a_missing_column_and_non_numeric_labels(fraud):
    """On dask, a frame lacking a column the candidates use said "X has 12 columns but the candidates use column
    index 12" (its columns are matched by name, as in memory, which names the column), and string labels gave
    "could not convert string to float: 'fraud'" without naming y."""
    dd = pytest.importorskip("dask.dataframe")
    X, y, _, pool = fraud
    last = max(c.feature for r in pool for c in r.conditions)
    gone = X.columns[last]
    yd = dd.from_pandas(X.assign(y=y)["y"], npartitions=2)
    for frame in (X.iloc[:, :last], X.drop(columns=gone), X.drop(columns=gone).assign(extra=1.0)):
        with pytest.raises(ValueError, match=f"X lacks 1 column.*{gone}"):
            riff_select(pool, dd.from_pandas(frame, npartitions=2), yd, max_fpr=0.05)
    Xd = dd.from_pandas(X, npartitions=2)
    with pytest.raises(ValueError, match="y must hold 0/1 labels"):
        riff_select(pool, Xd, yd.map({0: "ok", 1: "fraud"}), max_fpr=0.05)
    with pytest.raises(ValueError, match="fn_cost must be numeric"):
        riff_select(pool, Xd, yd, max_fpr=0.05, fp_cost=0.0, fn_cost=yd.map({0: "a", 1: "b"}))


def test_dask_evaluate_refuses_in_memory_cost_arrays_by_name(fraud):
    """RuleSet.evaluate on a dask X with a numpy fn_cost said "fn_cost has length 2000 but there are 1000 rows
    (y / X)" (each partition got the whole array); riff_select says it must be partitioned like X."""
    dd = pytest.importorskip("dask.dataframe")
    X, y, amount, pool = fraud
    rs = riff_select(pool, X, y, max_fpr=0.05)
    Xd = dd.from_pandas(X, npartitions=2)
    yd = dd.from_pandas(X.assign(y=y)["y"], npartitions=2)
    for kw in ({"fn_cost": amount, "fp_cost": 0.0}, {"fp_cost": list(amount)}, {"cost_matrix": np.ones((len(y), 4))}):
        name = next(iter(kw))
        with pytest.raises(TypeError, match=f"{name} must be a dask collection partitioned like X"):
            rs.evaluate(Xd, yd, **kw)
    got = rs.evaluate(Xd, yd, fn_cost=dd.from_pandas(X.assign(m=amount)["m"], npartitions=2), fp_cost=10.0)
    want = rs.evaluate(X, y, fn_cost=amount, fp_cost=10.0)
    assert got.keys() == want.keys()
    assert all(np.isclose(got[k], want[k]) for k in want if k != "savings_baseline")


def test_pandas_query_of_many_rules_runs_in_dataframe_query():
    """``df.query(rs.to_pandas_query(), engine="python")`` hit RecursionError from about 400 rules (pandas folds
    a flat ``or`` chain one operand at a time); the query nests the ``or`` pairwise (depth log2 of the rules)."""
    d = make_fraud_transactions(20000, fraud_rate=0.05, random_state=0)
    X = d.data.mask(np.random.default_rng(0).random(d.data.shape) < 0.05)
    from sklearn.tree import DecisionTreeRegressor

    from csboost_plugins.rules import RuleSet

    tree = DecisionTreeRegressor(max_leaf_nodes=1200, random_state=0).fit(X, X["amount"].fillna(0) * d.target)

    rs = RuleSet(extract_rules(tree)[::2])
    assert len(rs) > 500
    got = X.eval(rs.to_pandas_query(), engine="python").to_numpy(dtype=bool)
    np.testing.assert_array_equal(got, rs.predict(X).astype(bool))


@pytest.mark.parametrize("names,err,match", [
    ("amount", TypeError, "feature_names must be a list"),  # was read as the names 'a', 'm', 'o', ...
    (["a", "b"], ValueError, "feature_names has 2 names but the model has 12 features"),  # text said x2, x3
    ([f"c{j}" for j in range(13)], ValueError, "feature_names has 13 names but the model has 12 features"),
])
def test_extract_rules_checks_feature_names(fraud, names, err, match):
    X, y, _, _ = fraud
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    with pytest.raises(err, match=match):
        extract_rules(tree, feature_names=names)
    renamed = extract_rules(tree.fit(X.to_numpy(), y), feature_names=[f"c{j}" for j in range(12)])
    assert "c" in str(renamed[0]) and "x" not in str(renamed[0])


@pytest.mark.parametrize("kwargs,err,match", [
    ({"rules": [1, 2]}, TypeError, "rules must be Rule objects"),  # was AttributeError: 'int' ... 'feature_names'
    ({"rules": "ab"}, TypeError, "rules must be"),
    ({"rules": [], "feature_names": "amount"}, TypeError, "feature_names must be a list"),  # was read per character
    ({"rules": [], "last_rule_probability": "x"}, ValueError, "last_rule_probability"),
])
def test_ruleset_constructor_names_the_bad_argument(kwargs, err, match):
    from csboost_plugins.rules import RuleSet

    with pytest.raises(err, match=match):
        RuleSet(**kwargs)
