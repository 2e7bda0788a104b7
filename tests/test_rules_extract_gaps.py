"""The two formerly missing extraction cases, checked against the libraries' own routing and margins:

- xgboost ``multi_strategy="multi_output_tree"`` (vector leaves): every rule covers exactly the rows
  ``pred_leaf`` sends to its leaf, and base_score + the rule values for ``output=j`` reproduce
  ``predict(output_margin=True)[:, j]`` bit for bit (float32, tree order);
- scikit-learn HistGradientBoosting categorical splits: every rule covers exactly the rows the
  model's own Cython predictor routes to its leaf (NaN, unseen categories, reordered pandas
  categories, numeric category codes included), and the rule values sum to ``decision_function``;

plus the ``output`` argument on one-output-per-tree multi-class boosters (xgboost, lightgbm,
GradientBoosting) and single trees, JSON / SQL (sqlite3) / pandas-query exports, and bad input.
"""

import json
import pickle
import sqlite3

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from sklearn.ensemble._hist_gradient_boosting.predictor import TreePredictor
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import CategorySet, RuleSet, extract_rules


# ----------------------------------------------------------------------------- helpers
def _by_tree(rules):
    out = {}
    for k, r in enumerate(rules):
        (src,) = r.sources
        out.setdefault(src["tree"], []).append(k)
    return out


def _check_leaves(rules, leaves, X):
    """Rule k covers exactly the rows whose leaf in its tree (library ids, ``leaves[:, tree]``) is its node,
    on the numba path and the numpy reference path; each row is in exactly one rule per tree."""
    cov = RuleSet(rules).coverage(X)
    for k, r in enumerate(rules):
        src = r.sources[0]
        expect = leaves[:, src["tree"]] == src["node"]
        np.testing.assert_array_equal(cov[:, k], expect, err_msg=f"rule {r} tree {src['tree']} node {src['node']}")
        np.testing.assert_array_equal(r.mask(X), expect)
    for ks in _by_tree(rules).values():
        np.testing.assert_array_equal(cov[:, ks].sum(axis=1), 1)
    return cov


def _summed_values(rules, cov, n_trees, start, dtype=np.float64):
    """start + sum over trees (in tree order) of the value of the rule covering each row, in ``dtype``."""
    acc = np.array(start, dtype=dtype)
    groups = _by_tree(rules)
    assert sorted(groups) == list(range(n_trees))
    for t in range(n_trees):
        ks = groups[t]
        vals = np.array([rules[k].value for k in ks], dtype=dtype)
        acc = acc + vals[cov[:, ks].argmax(axis=1)]
    return acc


def _sqlite_rows(rule_sets, df):
    """For each rule set, the rows of df (an object/float frame, NaN/None -> NULL) its to_sql() selects in sqlite3."""
    con = sqlite3.connect(":memory:")
    cols = list(df.columns)
    con.execute("CREATE TABLE t (rowid_ INTEGER, " + ", ".join('"' + c + '"' for c in cols) + ")")
    rows = [(i, *[None if v is None or (isinstance(v, float) and np.isnan(v)) else
                  (v if isinstance(v, str) else float(v)) for v in r]) for i, r in enumerate(df.itertuples(index=False))]
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(cols) + 1))})", rows)
    out = []
    for rs in rule_sets:
        got = np.zeros(len(df), bool)
        sql = rs.to_sql("t", last_rule="include").replace("SELECT *", "SELECT rowid_")
        got[[r[0] for r in con.execute(sql)]] = True
        out.append(got)
    return out


def _query_rows(rs, df):
    q = df.query(rs.to_pandas_query(last_rule="include"), engine="python")
    got = np.zeros(len(df), bool)
    got[df.index.get_indexer(q.index)] = True
    return got


def _check_exports(rules, X_rules, df_sql):
    """JSON round trip and pickle select the same rows; SQL in sqlite3 and the pandas query select the same
    rows, for each rule alone and for the rule set of up to 8 of ``rules`` whose union leaves some rows out."""
    cov = RuleSet(rules).coverage(X_rules)
    keep, union = [], np.zeros(len(cov), bool)
    for k in range(len(rules)):
        if len(keep) < 8 and (union | cov[:, k]).sum() < len(union):
            keep.append(k)
            union |= cov[:, k]
    rs = RuleSet([rules[k] for k in keep], last_rule_probability=0.5)
    expect = rs.predict(X_rules, last_rule="include")
    assert 0 < expect.sum() < len(expect)
    rs2 = RuleSet.from_json(rs.to_json())
    json.loads(rs.to_json())
    np.testing.assert_array_equal(rs2.predict(X_rules, last_rule="include"), expect)
    assert [str(r) for r in rs2] == [str(r) for r in rs]
    rs3 = pickle.loads(pickle.dumps(rs))
    np.testing.assert_array_equal(rs3.predict(X_rules, last_rule="include"), expect)
    singles = [RuleSet([rules[k]]) for k in keep]
    sql = _sqlite_rows([rs, *singles], df_sql)
    np.testing.assert_array_equal(sql[0], expect.astype(bool))
    np.testing.assert_array_equal(_query_rows(rs, df_sql), expect.astype(bool))
    for k, single, got in zip(keep, singles, sql[1:]):
        np.testing.assert_array_equal(got, cov[:, k], err_msg=f"SQL of rule {rules[k]}")
        np.testing.assert_array_equal(_query_rows(single, df_sql), cov[:, k], err_msg=f"query of rule {rules[k]}")


def _xgb_base(booster):
    """base_score vector from the model JSON (multi-class / multi-target intercepts are already margins)."""
    raw = json.loads(booster.save_raw("json"))
    return np.asarray(json.loads(raw["learner"]["learner_model_param"]["base_score"]), dtype=np.float32)


def _numeric_data(n=700, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * np.array([1.0, 10.0, 0.001, 1e4])
    X[:, 0] = np.round(X[:, 0], 1)  # ties at thresholds
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, rng


# ------------------------------------------------------------------ xgboost vector leaves
@pytest.mark.parametrize("task", ["multiclass", "multitarget"])
def test_xgboost_multi_output_tree_exact_per_output(task):
    X, rng = _numeric_data()
    if task == "multiclass":
        y = np.where(np.nan_to_num(X[:, 0]) > 0.5, 2, rng.integers(0, 3, len(X)))
        params = {"objective": "multi:softprob", "num_class": 3}
        k = 3
    else:
        y = np.column_stack([np.nan_to_num(X[:, 0]) > 0, np.nan_to_num(X[:, 1]) > 3]).astype(float)
        params = {"objective": "reg:squarederror"}
        k = 2
    b = xgb.train({**params, "multi_strategy": "multi_output_tree", "tree_method": "hist", "max_depth": 3,
                   "eta": 0.5}, xgb.DMatrix(X, y), 5)
    raw = json.loads(b.save_raw("json"))
    assert raw["learner"]["gradient_booster"]["model"]["trees"][0]["tree_param"]["size_leaf_vector"] == str(k)
    # probe: training rows, exact float32 thresholds and their neighbours, NaNs
    Z = X.copy()
    for t in raw["learner"]["gradient_booster"]["model"]["trees"]:
        for i in np.flatnonzero(np.asarray(t["left_children"]) != -1):
            f, thr = t["split_indices"][i], np.float32(t["split_conditions"][i])
            block = Z[rng.integers(0, len(X), 3)].copy()
            block[:, f] = [float(thr), float(np.nextafter(thr, np.float32(-np.inf))), np.nextafter(float(thr), np.inf)]
            Z = np.vstack([Z, block])
    leaves = b.predict(xgb.DMatrix(Z), pred_leaf=True).astype(np.int64)
    margin = b.predict(xgb.DMatrix(Z), output_margin=True)
    base = _xgb_base(b)
    assert margin.shape == (len(Z), k)
    conditions = None
    for j in range(k):
        rules = extract_rules(b, output=j, deduplicate=False)
        cov = _check_leaves(rules, leaves, Z)
        acc = _summed_values(rules, cov, b.num_boosted_rounds(), np.full(len(Z), base[j], np.float32), np.float32)
        np.testing.assert_array_equal(acc, margin[:, j])  # bit-exact, float32 in tree order
        # the paths do not depend on the output, only the values do
        keys = [r.key for r in rules]
        assert conditions is None or keys == conditions
        conditions = keys
    with pytest.raises(ValueError, match="multi_output_tree.*output="):
        extract_rules(b)
    with pytest.raises(ValueError, match=rf"output must lie in \[0, {k}\)"):
        extract_rules(b, output=k)
    with pytest.raises(TypeError, match="output must be None or an integer"):
        extract_rules(b, output=True)
    # exports of vector-leaf rules
    names = ["amount", "age", "x y", "balance"]
    rules = extract_rules(b, output=0, feature_names=names)
    _check_exports(rules[::2][:10], Z, pd.DataFrame(Z, columns=names))


def test_xgboost_multi_output_tree_binary_has_scalar_leaves():
    """With one output the leaf vector has one element: output=None works and the values give the margin."""
    X, rng = _numeric_data(seed=1)
    y = ((np.nan_to_num(X[:, 0]) + rng.normal(size=len(X))) > 0.5).astype(int)
    m = xgb.XGBClassifier(n_estimators=4, max_depth=3, multi_strategy="multi_output_tree", tree_method="hist")
    m.fit(X, y)
    b = m.get_booster()
    rules = extract_rules(m, deduplicate=False)
    assert all(np.isfinite(r.value) for r in rules)
    leaves = b.predict(xgb.DMatrix(X), pred_leaf=True).astype(np.int64)
    cov = _check_leaves(rules, leaves, X)
    acc = _summed_values(rules, cov, 4, np.full(len(X), np.log(_xgb_base(b)[0] / (1 - _xgb_base(b)[0])),
                                                np.float32), np.float32)
    np.testing.assert_allclose(acc, m.predict(X, output_margin=True), rtol=0, atol=2e-6)
    assert extract_rules(m, output=0, deduplicate=False)[0].value == rules[0].value
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        extract_rules(m, output=1)


# ------------------------------------------------- one output per tree: the output argument
def _multiclass_data(n=600, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, y


def test_xgboost_one_output_per_tree_output_values_give_each_class_margin():
    X, y = _multiclass_data()
    b = xgb.train({"objective": "multi:softprob", "num_class": 3, "max_depth": 2, "tree_method": "hist"},
                  xgb.DMatrix(X, y), 3)
    leaves = b.predict(xgb.DMatrix(X), pred_leaf=True).astype(np.int64)
    margin = b.predict(xgb.DMatrix(X), output_margin=True)
    base = _xgb_base(b)
    for j in range(3):
        rules = extract_rules(b, output=j, deduplicate=False)
        cov = _check_leaves(rules, leaves, X)
        acc = _summed_values(rules, cov, 9, np.full(len(X), base[j], np.float32), np.float32)
        np.testing.assert_array_equal(acc, margin[:, j])
        assert all(r.value == 0.0 for r in rules if r.sources[0]["tree"] % 3 != j)


def test_lightgbm_multiclass_output_values_give_each_class_margin():
    X, y = _multiclass_data(seed=3)
    m = lgb.LGBMClassifier(n_estimators=3, num_leaves=4, verbose=-1).fit(X, y)
    raw = m.predict(X, raw_score=True)
    leaves = m.booster_.predict(X, pred_leaf=True).astype(np.int64)
    for j in range(3):
        rules = extract_rules(m, output=j, deduplicate=False)
        cov = _check_leaves(rules, leaves, X)
        np.testing.assert_allclose(_summed_values(rules, cov, 9, np.zeros(len(X))), raw[:, j], rtol=1e-12,
                                   atol=1e-12)
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        extract_rules(m, output=-1)


def test_gradient_boosting_values_are_margin_contributions():
    X, y = _multiclass_data(seed=4)
    for yy, k in ((y == 2).astype(int), 1), (y, 3):
        m = GradientBoostingClassifier(n_estimators=4, max_depth=2, learning_rate=0.3, random_state=0).fit(X, yy)
        init = m._raw_predict_init(X)
        df = m.decision_function(X).reshape(len(X), -1)
        ests = np.asarray(m.estimators_, dtype=object).ravel()
        leaves = np.column_stack([e.apply(X.astype(np.float32)) for e in ests]).astype(np.int64)
        for j in range(k):
            rules = extract_rules(m, output=j if k > 1 else None, deduplicate=False)
            cov = _check_leaves(rules, leaves, X)
            np.testing.assert_allclose(_summed_values(rules, cov, len(ests), init[:, j]), df[:, j], rtol=1e-12,
                                       atol=1e-12)


def test_decision_tree_output_is_class_probability():
    X, y = _multiclass_data(seed=5)
    m = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    proba = m.predict_proba(X)
    for j in range(3):
        rules = extract_rules(m, output=j, deduplicate=False)
        cov = _check_leaves(rules, m.apply(X.astype(np.float32))[:, None], X)
        vals = np.array([r.value for r in rules])
        np.testing.assert_allclose(vals[cov.argmax(axis=1)], proba[:, j], rtol=1e-12)
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        extract_rules(m, output=3)


# ------------------------------------------------- scikit-learn HistGradientBoosting categorical splits
def _hgb_leaves(model, X):
    """(n_rows, n_trees) leaf node index of every tree by the model's own Cython predictor: a copy of each
    tree whose leaf values are the node indices, fed the model's own preprocessing of X."""
    Xp = model._preprocess_X(X, reset=False)
    known, f_idx_map = model._bin_mapper.make_known_categories_bitsets()
    cols = []
    for it in model._predictors:
        for p in it:
            nodes = p.nodes.copy()
            nodes["value"] = np.arange(len(nodes))
            tp = TreePredictor(nodes, p.binned_left_cat_bitsets, p.raw_left_cat_bitsets)
            cols.append(tp.predict(Xp, known, f_idx_map, n_threads=1))
    return np.column_stack(cols).astype(np.int64)


def _hgb_frame(n=1500, seed=6):
    rng = np.random.default_rng(seed)
    levels = [f"m{i:02d}" for i in range(40)]  # > 32 codes: the bitsets use more than one 32-bit word
    df = pd.DataFrame({
        "amount": np.round(rng.exponential(100, n), 1),
        "merchant": pd.Categorical(rng.choice(levels, n), categories=levels),
        "mcc": rng.choice([0.0, 3.0, 5.0, 7.0, 11.0, 20.0], n),  # numeric category codes
        "hour": rng.integers(0, 24, n).astype(float),
    })
    y = ((df.merchant.isin(["m01", "m04", "m07", "m09", "m33", "m36", "m38"]) & (df.amount > 50)) | df.mcc.isin([5.0, 20.0])
         | (rng.random(n) < 0.05)).astype(int).to_numpy()
    df.loc[rng.random(n) < 0.1, "merchant"] = np.nan
    df.loc[rng.random(n) < 0.05, "mcc"] = np.nan
    df.loc[rng.random(n) < 0.05, "amount"] = np.nan
    return df, y, rng


def _hgb_test_frame(df, rng):
    """Reordered categories, an unseen category, unseen and odd numeric codes, NaN."""
    t = df.copy()
    t["merchant"] = t["merchant"].cat.add_categories(["new"]).cat.reorder_categories(
        ["new"] + list(df.merchant.cat.categories[::-1]))
    t.loc[t.index[:60], "merchant"] = "new"
    t.loc[t.index[60:200], "mcc"] = rng.choice([1.0, 5.5, -0.5, -3.0, 300.0, 4.999, np.nan], 140)
    return t


@pytest.mark.parametrize("missing_in_train", [True, False])
def test_hist_gradient_boosting_categorical_exact(missing_in_train):
    df, y, rng = _hgb_frame()
    if not missing_in_train:  # no NaN in training: unknowns still go to a side chosen by the model
        df = df.dropna().reset_index(drop=True)
        y = y[: len(df)]
    m = HistGradientBoostingClassifier(max_iter=6, max_leaf_nodes=8, categorical_features=["merchant", "mcc"],
                                       learning_rate=0.3, random_state=0).fit(df, y)
    nodes = np.concatenate([p.nodes for it in m._predictors for p in it])
    cat = nodes[(nodes["is_leaf"] == 0) & (nodes["is_categorical"] == 1)]
    assert len(cat) > 3 and {0, 1} <= set(cat["missing_go_to_left"].tolist())  # both missing directions occur
    rules = extract_rules(m, deduplicate=False)
    assert any(isinstance(c, CategorySet) and c.feature == 1 for r in rules for c in r.conditions)
    assert any(isinstance(c, CategorySet) and c.feature == 2 for r in rules for c in r.conditions)
    assert any("merchant in {'m" in str(r) for r in rules)
    assert any(isinstance(c, CategorySet) and c.feature == 1 and max(c.codes, default=0) >= 32
               for r in rules for c in r.conditions)
    test = _hgb_test_frame(df, rng)
    cov = _check_leaves(rules, _hgb_leaves(m, test), test)
    score = _summed_values(rules, cov, len(m._predictors), np.full(len(test), m._baseline_prediction[0, 0]))
    np.testing.assert_allclose(score, m.decision_function(test), rtol=1e-12, atol=1e-12)
    # the numeric category column given as plain numpy (columns in the model's order) selects the same rows
    Xnum = test.assign(merchant=test.merchant.cat.codes.astype(float)).to_numpy(dtype=float)
    np.testing.assert_array_equal(RuleSet([r for r in rules if 1 not in r.features]).coverage(Xnum),
                                  RuleSet([r for r in rules if 1 not in r.features]).coverage(test))
    # exports: JSON round trip, SQL in sqlite3 over category values, pandas query
    _check_exports([r for r in rules if {1, 2} & set(r.features)][:10], test,
                   test.astype({"merchant": object}))


def test_hist_gradient_boosting_categorical_numpy_multiclass_per_output():
    """numpy input with categorical_features by index, 3 classes: rule values for output j sum to
    decision_function[:, j]; numeric codes that the model never saw go to the missing side, like NaN."""
    rng = np.random.default_rng(7)
    n = 1200
    X = np.column_stack([rng.normal(size=n), rng.choice([0.0, 1.0, 2.0, 4.0, 6.0, 9.0], n), rng.normal(size=n)])
    y = np.where(np.isin(X[:, 1], [1.0, 6.0]), 2, (X[:, 0] > 0).astype(int))
    X[rng.random(n) < 0.07, 1] = np.nan
    m = HistGradientBoostingClassifier(max_iter=4, max_leaf_nodes=6, categorical_features=[1],
                                       random_state=0).fit(X, y)
    Z = X.copy()
    Z[:150, 1] = rng.choice([3.0, 5.0, 6.5, -1.0, 1e6, np.nan], 150)
    leaves = _hgb_leaves(m, Z)
    dfun = m.decision_function(Z)
    for j in range(3):
        rules = extract_rules(m, output=j, deduplicate=False)
        cov = _check_leaves(rules, leaves, Z)
        score = _summed_values(rules, cov, 12, np.full(len(Z), m._baseline_prediction[0, j]))
        np.testing.assert_allclose(score, dfun[:, j], rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        extract_rules(m, output=3)
    rules = extract_rules(m, output=0, feature_names=["amount", "mcc", "age"])
    _check_exports([r for r in rules if 1 in r.features][:8], Z, pd.DataFrame(Z, columns=["amount", "mcc", "age"]))
    # the caller's array is not modified by re-coding
    Z0 = Z.copy()
    RuleSet(rules).coverage(Z)
    np.testing.assert_array_equal(Z, Z0)


def test_hist_gradient_boosting_regressor_only_numeric_splits_with_categorical_columns():
    """Categorical columns move to the front of the model's internal matrix: numeric split features must be
    mapped back to the user's columns even in trees without a categorical split."""
    df, _, rng = _hgb_frame(seed=8)
    target = np.nan_to_num(df.amount.to_numpy()) / 100 + rng.normal(size=len(df)) * 0.1
    m = HistGradientBoostingRegressor(max_iter=3, max_leaf_nodes=4, categorical_features=["merchant"],
                                      random_state=0).fit(df, target)
    rules = extract_rules(m, deduplicate=False)
    test = _hgb_test_frame(df, rng)
    cov = _check_leaves(rules, _hgb_leaves(m, test), test)
    score = _summed_values(rules, cov, 3, np.full(len(test), m._baseline_prediction[0, 0]))
    np.testing.assert_allclose(score, m.predict(test), rtol=1e-12, atol=1e-12)
    assert {c.feature for r in rules for c in r.conditions} <= {0, 1, 2, 3}
    assert any("amount" in str(r) for r in rules)


# ------------------------------------------------- xgboost numeric category codes: x < 0 is no category
def test_xgboost_numeric_category_codes_negative_values_exact():
    """xgboost sends every x < 0 to the not-in-set (left) child, -1 < x < 0 included (lightgbm truncates that
    to code 0); with code 0 in a split's set the two readings differ, so the rules must follow xgboost."""
    rng = np.random.default_rng(9)
    n = 900
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n).astype(float)])
    nan_rows = rng.random(n) < 0.15
    y = (np.isin(X[:, 1], [0.0, 3.0]) | nan_rows | (rng.random(n) < 0.05)).astype(int)
    X[nan_rows, 1] = np.nan
    dm = xgb.DMatrix(X, y, feature_types=["q", "c"], enable_categorical=True)
    b = xgb.train({"max_depth": 2, "max_cat_to_onehot": 10, "tree_method": "hist"}, dm, 4)
    raw = json.loads(b.save_raw("json"))
    sets = [t["categories"][s:s + z] for t in raw["learner"]["gradient_booster"]["model"]["trees"]
            for s, z in zip(t["categories_segments"], t["categories_sizes"])]
    assert any(0 in s for s in sets)  # the case where -1 < x < 0 matters
    Z = X.copy()
    Z[:300, 1] = rng.choice([-0.5, -0.999, -0.0, -1.0, -3.0, 0.5, 2.7, 5.99, 1e9, np.nan], 300)
    leaves = b.predict(xgb.DMatrix(Z, feature_types=["q", "c"], enable_categorical=True),
                       pred_leaf=True).astype(np.int64)
    rules = extract_rules(b, deduplicate=False, feature_names=["amount", "code"])
    _check_leaves(rules, leaves, Z)
    with_zero = [r for r in rules if any(isinstance(c, CategorySet) and 0 in c.codes for c in r.conditions)]
    assert with_zero
    _check_exports(with_zero, Z, pd.DataFrame(Z, columns=["amount", "code"]))
