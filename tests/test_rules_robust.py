"""Rule sets on hostile input: feature indices, DataFrame columns, JSON schema, weights, unfitted models."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import RuleSet, extract_rules, riff_select
from csboost_plugins.rules._rule import CategorySet, Interval, Rule


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + X[:, 2] + rng.normal(0, 0.5, n) > 1).astype(int)
    return X, y


def _ruleset():
    X, y = _data()
    df = pd.DataFrame(X, columns=["amount", "hour", "risk", "age"])
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(df, y)
    return RuleSet(extract_rules(tree)), df, y


# ------------------------------------------------------------------ feature indices
@pytest.mark.parametrize("feature", [-1, -3, -1_000_000, -2 ** 40, 2 ** 63, 10 ** 30])
def test_negative_feature_index_is_refused_when_the_condition_is_built(feature):
    with pytest.raises(ValueError, match="feature must be a column index >= 0"):
        Interval(feature, upper=0.5)
    with pytest.raises(ValueError, match="feature must be a column index >= 0"):
        CategorySet(feature, codes=(1,))
    if feature < 0:  # numpy integers too
        with pytest.raises(ValueError, match="feature must be a column index >= 0"):
            Interval(np.int64(feature), upper=0.5)


@pytest.mark.parametrize("feature", [1.7, 1.0, "1", True, None])
def test_non_integer_feature_index_is_a_type_error(feature):
    with pytest.raises(TypeError, match="feature must be an integer column index"):
        Interval(feature, upper=0.5)


def test_condition_flags_and_bounds_are_typed():
    with pytest.raises(TypeError, match="upper_closed must be a bool"):
        Interval(0, upper=1.0, upper_closed="false")
    with pytest.raises(TypeError, match="lower must be a number"):
        Interval(0, lower=float("nan"))
    c = Interval(np.int64(2), upper=np.float32(0.5), missing=np.bool_(True))
    assert type(c.feature) is int and type(c.upper) is float and c.missing is True


def test_feature_beyond_x_raises_before_any_kernel_reads():
    X, y = _data()
    huge = RuleSet([Rule([Interval(2 ** 40, upper=0.0)])])
    for call in (huge.predict, huge.coverage, huge.apply, lambda A: riff_select(list(huge), A, y, max_fpr=0.1)):
        with pytest.raises(ValueError, match="column"):
            call(X)
        with pytest.raises(ValueError, match="column"):
            call(pd.DataFrame(X))
    # the SQL export names the column without materialising 2**40 names
    assert '"x1099511627776"' in huge.to_sql("t")


# ------------------------------------------------------------------ DataFrame columns by name
def test_dataframe_columns_are_matched_by_name_not_position():
    rs, df, _ = _ruleset()
    want = rs.predict(df)
    shuffled = df[["age", "risk", "amount", "hour"]].assign(extra=1.0)
    np.testing.assert_array_equal(rs.predict(shuffled), want)
    np.testing.assert_array_equal(rs.coverage(shuffled), rs.coverage(df))
    # renamed and reordered: positions would give other alerts; a missing name is an error
    renamed = df.rename(columns={"amount": "amt"})[["risk", "amt", "hour", "age"]]
    with pytest.raises(ValueError, match=r"X lacks 1 column.*'amount'"):
        rs.predict(renamed)
    with pytest.raises(ValueError, match="lacks"):
        rs.predict(pd.DataFrame(df.to_numpy()))  # unnamed frame for a rule set with names
    np.testing.assert_array_equal(rs.predict(df.to_numpy()), want)  # numpy: by position


def test_only_the_columns_the_rules_use_must_be_present():
    rs, df, _ = _ruleset()
    used = sorted({rs.feature_names[c.feature] for r in rs for c in r.conditions})
    unused = [c for c in df.columns if c not in used]
    assert unused  # depth 3 on 4 columns where two carry signal
    np.testing.assert_array_equal(rs.predict(df.drop(columns=unused)), rs.predict(df))


# ------------------------------------------------------------------ JSON schema
def _good():
    rs, _, _ = _ruleset()
    return json.loads(rs.to_json())


def _broken(edit):
    d = _good()
    edit(d)
    return json.dumps(d)


@pytest.mark.parametrize("text, err, field", [
    ('{"x": 1}', ValueError, "'rules'"),
    ('{"rules": 5}', TypeError, "rules must be a list"),
    ('{"rules": [5]}', TypeError, r"rules\[0\] must be an object"),
    ('{"rules": [{"conditions": 3}]}', TypeError, r"rules\[0\].conditions must be a list"),
    ("[1, 2]", TypeError, "top level must be an object"),
    ("", ValueError, "not valid JSON"),
    ("no such file.json", ValueError, "not the path of an existing file"),
    ("[" * 100_000 + "]" * 100_000, ValueError, "nested too deeply|top level"),
    ('{"rules": [], "last_rule_probability": 2}', ValueError, "last_rule_probability"),
    ('{"rules": [], "format": "other/2"}', ValueError, "format"),
])
def test_from_json_malformed_text_names_the_problem(text, err, field):
    with pytest.raises(err, match=field):
        RuleSet.from_json(text)


@pytest.mark.parametrize("edit, err, field", [
    (lambda d: d["rules"][0]["conditions"][0].update(feature=1e30), TypeError, r"conditions\[0\].feature"),
    (lambda d: d["rules"][0]["conditions"][0].update(feature=10 ** 30), ValueError, "feature"),
    (lambda d: d["rules"][0]["conditions"][0].update(feature=1.7), TypeError, "feature must be an integer"),
    (lambda d: d["rules"][0]["conditions"][0].update(feature=-1_000_000), ValueError, "feature"),
    (lambda d: d["rules"][0]["conditions"][0].update(feature=7), ValueError, "feature_names has 4 names"),
    (lambda d: d["rules"][0]["conditions"][0].update(upper_closed="false"), TypeError, "upper_closed"),
    (lambda d: d["rules"][0]["conditions"][0].pop("missing"), ValueError, "'missing'"),
    (lambda d: d["rules"][0]["conditions"][0].update(kind="box"), ValueError, "kind"),
    (lambda d: d["rules"][0]["conditions"][0].update(lower="0.3"), TypeError, "lower must be a number"),
    (lambda d: d["rules"][0].update(value="high"), TypeError, "value"),
    (lambda d: d.update(feature_names="amount"), TypeError, "feature_names"),
])
def test_from_json_schema_violations_name_the_field(edit, err, field):
    with pytest.raises(err, match=field):
        RuleSet.from_json(_broken(edit))


def test_from_json_reads_paths_and_round_trips(tmp_path):
    rs, df, _ = _ruleset()
    p = tmp_path / "rules.json"
    rs.to_json(p)
    for src in (p, str(p), rs.to_json()):
        back = RuleSet.from_json(src)
        np.testing.assert_array_equal(back.predict(df), rs.predict(df))
    assert [str(r) for r in back] == [str(r) for r in rs]


# ------------------------------------------------------------------ weights, unfitted models
@pytest.mark.parametrize("w", [-1.0, math.nan, math.inf])
def test_evaluate_refuses_negative_or_nan_weights(w):
    rs, df, y = _ruleset()
    weights = np.ones(len(y))
    weights[3] = w
    with pytest.raises(ValueError, match="sample_weight"):
        rs.evaluate(df, y, sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight"):
        rs.evaluate(df, y, sample_weight=w)
    ok = rs.evaluate(df, y, sample_weight=np.ones(len(y)))
    assert ok == rs.evaluate(df, y)


def test_extract_rules_on_an_unfitted_model_says_fit_it():
    from csboost_plugins.xgb import CSXGBClassifier
    for model in (CSXGBClassifier(), DecisionTreeClassifier()):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            extract_rules(model)
