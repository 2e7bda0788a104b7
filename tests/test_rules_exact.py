"""Exactness: every extracted leaf rule selects exactly the rows the library routes to that leaf,
on data with NaNs, ties at thresholds, float32 rounding and categorical features; and the JSON,
SQL (run in sqlite3) and pandas-query exports select the same rows."""

import json
import sqlite3

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from csboost_plugins.rules import RuleSet, extract_rules
from csboost_plugins.tree_protocol import TreeArrays, apply_tree_arrays


def _near(t):
    """float64 values around threshold t that probe float32 rounding and ties."""
    t = float(t)
    t32 = np.float32(t)
    vals = [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), float(t32)]
    for a in (np.nextafter(t32, np.float32(-np.inf)), t32, np.nextafter(t32, np.float32(np.inf))):
        b = np.nextafter(a, np.float32(np.inf))
        m = (float(a) + float(b)) / 2  # float32 midpoint: rounding ties to even
        vals += [float(a), m, np.nextafter(m, -np.inf), np.nextafter(m, np.inf)]
    return np.asarray(vals, dtype=np.float64)


def _probe(X, thresholds_by_feature, rng, nan_rate=0.1):
    """Copies of X's rows with one feature set to a value near one of its thresholds, plus NaNs."""
    rows = [X]
    for j, ts in thresholds_by_feature.items():
        for t in ts:
            vals = _near(t)
            block = X[rng.integers(0, len(X), len(vals))].copy()
            block[:, j] = vals
            rows.append(block)
    Z = np.vstack(rows)
    Z[rng.random(Z.shape) < nan_rate] = np.nan
    return Z


def _data(n=600, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 10.0, 0.001, 1e4])[:d]
    X[:, 0] = np.round(X[:, 0], 1)  # many ties
    y = ((X[:, 0] + X[:, 1] / 10 + rng.normal(size=n)) > 1).astype(int)
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, y, rng


def _check(rules, leaves, X):
    """leaves: (n_rows, n_trees) library leaf ids; every rule equals its leaf's rows, numba and numpy paths."""
    assert rules
    cov = RuleSet(rules).coverage(X)
    for k, r in enumerate(rules):
        (src,) = r.sources
        expect = leaves[:, src["tree"]] == src["node"]
        np.testing.assert_array_equal(cov[:, k], expect, err_msg=f"rule {r} tree {src['tree']} node {src['node']}")
        np.testing.assert_array_equal(r.mask(X), expect)
    # every row is in exactly one leaf rule per tree
    per_tree = {}
    for k, r in enumerate(rules):
        per_tree.setdefault(r.sources[0]["tree"], []).append(k)
    for t, ks in per_tree.items():
        np.testing.assert_array_equal(cov[:, ks].sum(axis=1), 1)


def _xgb_thresholds(booster):
    df = booster.trees_to_dataframe()
    df = df[df.Feature != "Leaf"]
    names = booster.feature_names
    out = {}
    for f, s in zip(df.Feature, df.Split):
        if np.isfinite(s):
            out.setdefault(names.index(f) if names else int(f[1:]), []).append(s)
    return out


@pytest.mark.parametrize("nan_in_train", [True, False])
def test_xgboost_booster_exact(nan_in_train):
    X, y, rng = _data()
    Xt = X if nan_in_train else np.nan_to_num(X)
    b = xgb.train({"max_depth": 4, "eta": 0.5, "tree_method": "hist", "max_bin": 16}, xgb.DMatrix(Xt, y), 6)
    Z = _probe(np.nan_to_num(X), _xgb_thresholds(b), rng)
    leaves = b.predict(xgb.DMatrix(Z), pred_leaf=True).astype(np.int64)
    _check(extract_rules(b, deduplicate=False), leaves, Z)


def test_xgbclassifier_exact_and_float32_rounding_matters():
    X, y, rng = _data(seed=1)
    m = xgb.XGBClassifier(n_estimators=5, max_depth=3, tree_method="exact").fit(X, y)
    b = m.get_booster()
    Z = _probe(np.nan_to_num(X), _xgb_thresholds(b), rng, nan_rate=0.02)
    leaves = b.predict(xgb.DMatrix(Z), pred_leaf=True).astype(np.int64)
    rules = extract_rules(m, deduplicate=False)
    _check(rules, leaves, Z)
    # the naive float64 reading "x < t" disagrees with xgboost on the probe rows
    df = b.trees_to_dataframe()
    node = df[(df.Tree == 0) & (df.Node == 0)].iloc[0]
    j, t = int(node.Feature[1:]), float(node.Split)
    naive = Z[:, j] < t
    real = ~np.isnan(Z[:, j]) & (Z[:, j].astype(np.float32) < np.float32(t))
    assert (naive != real).sum() > 0


def test_xgboost_categorical_exact():
    rng = np.random.default_rng(3)
    n = 800
    df = pd.DataFrame({"a": rng.normal(size=n), "c": pd.Categorical(rng.choice(list("pqrstu"), n)),
                       "b": rng.normal(size=n)})
    y = (((df.c.isin(["q", "s"])) & (df.a > 0)) | (rng.random(n) < 0.1)).astype(int)
    df.loc[rng.random(n) < 0.1, "c"] = np.nan
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    b = xgb.train({"max_depth": 3, "max_cat_to_onehot": 1, "tree_method": "hist"},
                  xgb.DMatrix(df, y, enable_categorical=True), 4)
    rules = extract_rules(b, deduplicate=False)
    assert any("c in {" in str(r) or "c not in {" in str(r) for r in rules)
    # a test frame whose categories are listed in another order: xgboost re-codes by value, so must we
    dft = df.copy()
    dft["c"] = dft["c"].cat.reorder_categories(list("utsrqp"))
    leaves = b.predict(xgb.DMatrix(dft, enable_categorical=True), pred_leaf=True).astype(np.int64)
    _check(rules, leaves, dft)
    rs = RuleSet([r for r in rules if "c " in str(r)][:6])
    _check_sql_and_query(rs, dft.astype({"c": object}), rs.predict(dft, last_rule="include"))


def _lgb_thresholds(booster):
    df = booster.trees_to_dataframe()
    df = df[df.decision_type == "<="]
    names = booster.feature_name()
    out = {}
    for f, s in zip(df.split_feature, df.threshold):
        out.setdefault(names.index(f), []).append(float(s))
    return out


@pytest.mark.parametrize("mode", ["nan", "zero", "none"])
def test_lightgbm_missing_types_exact(mode):
    X, y, rng = _data(seed=2)
    params = {"objective": "binary", "num_leaves": 8, "min_data_in_leaf": 5, "verbose": -1, "max_bin": 32}
    if mode == "zero":
        params["zero_as_missing"] = True
        Xt = np.where(np.isnan(X), 0.0, X)
    elif mode == "none":
        Xt = np.nan_to_num(X)  # no NaN in training: missing_type 'None', NaN -> 0.0 at predict
    else:
        Xt = X
    b = lgb.train(params, lgb.Dataset(Xt, y), 6)
    types = {t for t in b.trees_to_dataframe().missing_type.dropna()}
    assert {"nan": "NaN", "zero": "Zero", "none": "None"}[mode] in types
    Z = _probe(np.nan_to_num(X), _lgb_thresholds(b), rng)
    Z[rng.random(len(Z)) < 0.05, 0] = 0.0
    Z[rng.random(len(Z)) < 0.02, 1] = 1e-36  # zero for missing_type 'Zero'
    leaves = b.predict(Z, pred_leaf=True).astype(np.int64)
    _check(extract_rules(b, deduplicate=False), leaves, Z)


def _lgb_cat_data(n=1500, seed=4):
    rng = np.random.default_rng(seed)
    cats = [f"k{i}" for i in range(12)]
    df = pd.DataFrame({"a": rng.normal(size=n), "c": pd.Categorical(rng.choice(cats, n), categories=cats),
                       "code": rng.integers(0, 9, n).astype(float)})
    y = ((df.c.isin(["k1", "k3", "k7"]) & (df.a > -0.5)) | df.code.isin([2.0, 5.0]) | (rng.random(n) < 0.05))
    df.loc[rng.random(n) < 0.1, "c"] = np.nan
    df.loc[rng.random(n) < 0.05, "code"] = np.nan
    return df, y.astype(int).to_numpy(), rng


_LGB_CAT = dict(n_estimators=6, num_leaves=8, min_child_samples=5, cat_smooth=1, min_data_per_group=5,
                max_cat_threshold=8, verbose=-1)


def test_lightgbm_categorical_pandas_exact():
    df, y, rng = _lgb_cat_data()
    df = df[["a", "c"]]
    m = lgb.LGBMClassifier(**_LGB_CAT).fit(df, y)
    rules = extract_rules(m, deduplicate=False)
    assert any("c in {'k" in str(r) for r in rules)
    # test frame: categories listed in another order plus an unseen value (lightgbm re-codes by value,
    # unseen -> missing)
    dft = df.copy()
    dft["c"] = dft["c"].cat.add_categories(["unseen"]).cat.reorder_categories(
        ["unseen"] + [f"k{i}" for i in range(11, -1, -1)])
    dft.loc[101:150, "c"] = "unseen"
    leaves = m.booster_.predict(dft, pred_leaf=True).astype(np.int64)
    _check(rules, leaves, dft)
    rs = RuleSet(rules[:8], feature_names=list(df.columns))
    # SQL / pandas query over the category values
    _check_sql_and_query(rs, dft.astype({"c": object}), rs.predict(dft, last_rule="include"))


def test_lightgbm_categorical_numeric_codes_exact():
    df, y, rng = _lgb_cat_data(seed=5)
    X = df[["a", "code"]].to_numpy()
    b = lgb.train({"objective": "binary", "num_leaves": 8, "min_data_in_leaf": 5, "cat_smooth": 1,
                   "min_data_per_group": 5, "max_cat_threshold": 8, "verbose": -1},
                  lgb.Dataset(X, y, categorical_feature=[1]), 6)
    rules = extract_rules(b, deduplicate=False)
    assert any(" in {" in str(r) for r in rules)
    # non-integer and negative codes: lightgbm truncates toward zero; negative codes go right
    Z = X.copy()
    Z[:300, 1] = rng.choice([-3.0, -1.0, -0.5, 0.5, 0.99, 2.7, 5.99, 100.0, np.nan], 300)
    leaves = b.predict(Z, pred_leaf=True).astype(np.int64)
    _check(rules, leaves, Z)
    rs = RuleSet(rules[:8])
    _check_sql_and_query(rs, pd.DataFrame(Z, columns=b.feature_name()), rs.predict(Z, last_rule="include"))


def _sk_thresholds(ests):
    out = {}
    for e in ests:
        t = e.tree_
        for f, s in zip(t.feature[t.feature >= 0], t.threshold[t.feature >= 0]):
            if np.isfinite(s):  # inf: "only missing values go right" splits
                out.setdefault(int(f), []).append(float(s))
    return out


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(max_depth=5, random_state=0),
    lambda: DecisionTreeRegressor(max_depth=4, random_state=0),
    lambda: RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0),
    lambda: ExtraTreesClassifier(n_estimators=3, max_depth=4, random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=3, max_depth=3, random_state=0),
])
def test_sklearn_exact(make):
    X, y, rng = _data(seed=5)
    m = make()
    try:
        m.fit(X, y)
        nan_ok = True
    except ValueError:  # this estimator does not take NaN
        m.fit(np.nan_to_num(X), y)
        nan_ok = False
    ests = [m] if hasattr(m, "tree_") else list(np.asarray(m.estimators_, dtype=object).ravel())
    Z = _probe(np.nan_to_num(X), _sk_thresholds(ests), rng, nan_rate=0.1 if nan_ok else 0.0)
    leaves = np.column_stack([e.apply(Z.astype(np.float32)) for e in ests]).astype(np.int64)
    _check(extract_rules(m, deduplicate=False), leaves, Z)


@pytest.mark.parametrize("left_inclusive", [True, False])
def test_protocol_tree_arrays_exact(left_inclusive):
    # root: x0 (<= or <) 1.0 ; left: x1 vs -2.5 (NaN right); right leaf. Ties land exactly on thresholds.
    t = TreeArrays(children_left=[1, 3, -1, -1, -1], children_right=[2, 4, -1, -1, -1], feature=[0, 1, -1, -1, -1],
                   threshold=[1.0, -2.5, np.nan, np.nan, np.nan], missing_left=[True, False, False, False, False],
                   value=[0.1, 0.2, 0.9, 0.05, 0.5], left_inclusive=left_inclusive, feature_names=["amount", "age"])

    class Model:
        def tree_arrays(self):
            return [t, t]

    rng = np.random.default_rng(0)
    Z = rng.choice([1.0, np.nextafter(1.0, 0), np.nextafter(1.0, 2), -2.5, -3.0, 0.0, 5.0, np.nan], size=(400, 2))
    rules = extract_rules(Model(), deduplicate=False)
    leaves = np.column_stack([apply_tree_arrays(t, Z)] * 2)
    _check(rules, leaves, Z)
    assert {str(r) for r in rules} == ({"(amount <= 1 or amount is missing) and age <= -2.5",
                                        "(amount <= 1 or amount is missing) and (age > -2.5 or age is missing)",
                                        "amount > 1"} if left_inclusive else
                                       {"(amount < 1 or amount is missing) and age < -2.5",
                                        "(amount < 1 or amount is missing) and (age >= -2.5 or age is missing)",
                                        "amount >= 1"})
    assert len(extract_rules(Model())) == 3  # the two identical trees pool into 3 deduplicated rules
    assert len(extract_rules(t, nodes="all")) == 4


PANDAS_MAJOR = int(pd.__version__.split(".")[0])


def _check_sql_and_query(rs, df, expect, categorical=False):
    con = sqlite3.connect(":memory:")
    cols = list(df.columns)
    con.execute("CREATE TABLE transactions (rowid_ INTEGER, " + ", ".join('"' + c.replace('"', '""') + '"' for c in cols) + ")")
    rows = [(i, *[None if (isinstance(v, float) and np.isnan(v)) or v is None else
                  (v if isinstance(v, str) else float(v)) for v in r]) for i, r in enumerate(df.itertuples(index=False))]
    con.executemany(f"INSERT INTO transactions VALUES ({', '.join('?' * (len(cols) + 1))})", rows)
    sql = rs.to_sql("transactions", last_rule="include").replace("SELECT *", "SELECT rowid_")
    got = np.zeros(len(df), bool)
    got[[r[0] for r in con.execute(sql)]] = True
    np.testing.assert_array_equal(got, expect.astype(bool))
    try:
        expr = rs.to_pandas_query(last_rule="include")
    except ValueError as e:  # pandas 2 cannot parse some quoted names: a clear error, never a wrong query
        assert PANDAS_MAJOR < 3 and "cannot parse a query on the columns" in str(e)
        return
    q = df.query(expr, engine="python")
    got = np.zeros(len(df), bool)
    got[df.index.get_indexer(q.index)] = True
    np.testing.assert_array_equal(got, expect.astype(bool))


@pytest.mark.parametrize("lib", ["xgb", "lgb_zero", "sklearn"])
def test_json_sql_pandas_exports_select_same_rows(lib):
    X, y, rng = _data(seed=6)
    if lib == "xgb":
        m = xgb.XGBClassifier(n_estimators=4, max_depth=3).fit(X, y)
        th = _xgb_thresholds(m.get_booster())
    elif lib == "lgb_zero":
        m = lgb.LGBMClassifier(n_estimators=4, num_leaves=6, zero_as_missing=True, verbose=-1).fit(X, y)
        th = _lgb_thresholds(m.booster_)
    else:
        m = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
        th = _sk_thresholds([m])
    Z = _probe(np.nan_to_num(X), th, rng)
    Z[rng.random(len(Z)) < 0.05, 2] = 0.0
    names = ["amount", "age", "x y", 'q"uote']
    rules = extract_rules(m, feature_names=names)
    rs = RuleSet(rules[::3][:10], last_rule_probability=0.4)
    expect = rs.predict(Z, last_rule="include")
    assert 0 < expect.sum() < len(Z)
    rs2 = RuleSet.from_json(rs.to_json())
    np.testing.assert_array_equal(rs2.predict(Z, last_rule="include"), expect)
    np.testing.assert_array_equal(rs2.predict_proba(Z), rs.predict_proba(Z))
    assert rs2.last_rule_probability == 0.4 and [str(r) for r in rs2] == [str(r) for r in rs]
    json.loads(rs.to_json())
    _check_sql_and_query(rs, pd.DataFrame(Z, columns=names), expect)
    # DataFrame input with shuffled columns is matched by name
    df = pd.DataFrame(Z, columns=names)[names[::-1]]
    np.testing.assert_array_equal(rs.predict(df, last_rule="include"), expect)


def test_multi_model_pool_deduplicates_and_nodes_all():
    X, y, rng = _data(seed=7)
    X = np.nan_to_num(X)
    a = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    b = xgb.XGBClassifier(n_estimators=2, max_depth=2).fit(X, y)
    ra, rb = extract_rules(a), extract_rules(b)
    pool = extract_rules([a, a, b])
    assert len(pool) == len(ra) + len(rb)
    assert all(len(r.sources) == 2 for r in pool[:len(ra)])
    all_nodes = extract_rules(a, nodes="all")
    assert len(all_nodes) == a.tree_.node_count - 1
    leaves_all = extract_rules(a, nodes="all", deduplicate=False)
    # an internal node's rule covers exactly the union of its descendants' leaves
    path = a.decision_path(X.astype(np.float32)).toarray().astype(bool)
    for r in leaves_all:
        np.testing.assert_array_equal(r.mask(X), path[:, r.sources[0]["node"]])


def test_merging_and_str():
    from csboost_plugins.rules import Interval, Rule
    r = Rule([Interval(0, upper=5.0, upper_closed=False, upper_text="< 5"),
              Interval(0, upper=3.0, upper_closed=False, upper_text="< 3"),
              Interval(0, lower=1.0, lower_closed=True, lower_text=">= 1", missing=True)], feature_names=["x"])
    assert len(r.conditions) == 1 and str(r) == "1 <= x < 3"
    X = np.array([[0.5], [1.0], [2.9], [3.0], [4.0], [np.nan]])
    np.testing.assert_array_equal(r.mask(X), [False, True, True, False, False, False])


def test_bad_input_errors():
    with pytest.raises(TypeError, match="does not support"):
        extract_rules(object())
    with pytest.raises(ValueError, match="nodes"):
        extract_rules(DecisionTreeClassifier().fit([[0], [1]], [0, 1]), nodes="some")
    m = xgb.XGBClassifier(n_estimators=1, missing=0.0).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="missing"):
        extract_rules(m)
    rules = extract_rules(DecisionTreeClassifier(max_depth=2, random_state=0).fit(np.arange(20.0).reshape(10, 2),
                                                                                [0, 1] * 5))
    rs = RuleSet(rules)
    with pytest.raises(TypeError, match="non-numeric"):
        rs.predict(pd.DataFrame({"x0": ["a"] * 3, "x1": ["b"] * 3}))  # only used columns are read
    with pytest.raises(ValueError, match="columns"):
        rs.predict(np.zeros((3, 0)))


def test_sklearn_hist_gradient_boosting_exact():
    from sklearn.ensemble import HistGradientBoostingClassifier
    X, y, rng = _data(seed=8)
    m = HistGradientBoostingClassifier(max_iter=5, max_leaf_nodes=8, random_state=0).fit(X, y)
    th = {}
    for it in m._predictors:
        for p in it:
            nd = p.nodes[~p.nodes["is_leaf"].astype(bool)]
            for f, t in zip(nd["feature_idx"], nd["num_threshold"]):
                if np.isfinite(t):
                    th.setdefault(int(f), []).append(float(t))
    Z = _probe(np.nan_to_num(X), th, rng)
    rules = extract_rules(m, deduplicate=False)
    cov = RuleSet(rules).coverage(Z)
    score = np.full(len(Z), float(np.ravel(m._baseline_prediction)[0]))
    for t in range(len(m._predictors)):
        ks = [k for k, r in enumerate(rules) if r.sources[0]["tree"] == t]
        np.testing.assert_array_equal(cov[:, ks].sum(axis=1), 1)
        score += np.array([rules[k].value for k in ks])[cov[:, ks].argmax(axis=1)]
    np.testing.assert_allclose(score, m.decision_function(Z), rtol=1e-12, atol=1e-12)


def test_early_stopping_uses_the_trees_the_wrapper_predicts_with():
    X, y, rng = _data(seed=9)
    Xtr, ytr, Xva, yva = X[:400], y[:400], X[400:], y[400:]
    m = xgb.XGBClassifier(n_estimators=200, max_depth=2, learning_rate=0.5, early_stopping_rounds=2)
    m.fit(Xtr, ytr, eval_set=[(Xva, yva)], verbose=False)
    assert m.best_iteration + 1 < 200
    trees = {r.sources[0]["tree"] for r in extract_rules(m, deduplicate=False)}
    assert trees == set(range(m.best_iteration + 1))
    g = lgb.LGBMClassifier(n_estimators=200, num_leaves=4, learning_rate=0.5, verbose=-1)
    g.fit(Xtr, ytr, eval_set=[(Xva, yva)], callbacks=[lgb.early_stopping(2, verbose=False)])
    assert 0 < g.best_iteration_ < 200
    trees = {r.sources[0]["tree"] for r in extract_rules(g, deduplicate=False)}
    assert trees == set(range(g.best_iteration_))


@settings(max_examples=300, deadline=None)
@given(t=st.floats(allow_nan=False, width=64), k=st.integers(-3, 3))
def test_float32_bounds_equal_the_float32_cast(t, k):
    """{x : float32(x) <= t} and {x : float32(x) < t32} are exactly the float64 half-lines we store."""
    from csboost_plugins.rules._rule import float32_le_bound, float32_lt_bound
    with np.errstate(over="ignore"):
        for bound_fn, t_used, cmp in ((float32_le_bound, t, np.less_equal),
                                      (float32_lt_bound, float(np.float32(t)), np.less)):
            b, closed = bound_fn(t_used)
            xs = [b, t, t_used]
            for _ in range(abs(k) + 1):
                xs += [np.nextafter(xs[-3], -np.inf), np.nextafter(xs[-3], np.inf)]
            xs = np.asarray([x for x in xs if np.isfinite(x)] or [0.0])
            lhs = cmp(xs.astype(np.float32), np.float32(t_used)) if bound_fn is float32_lt_bound \
                else xs.astype(np.float32).astype(np.float64) <= t_used
            rhs = xs <= b if closed else xs < b
            np.testing.assert_array_equal(lhs, rhs)
