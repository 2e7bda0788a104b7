"""Rules from CatBoost: every leaf rule selects exactly the rows ``calc_leaf_indexes`` sends to its leaf
(symmetric and non-symmetric trees, numeric borders with ties and float32 rounding, NaN under every
``nan_mode``, one-hot splits on category / text / integer columns, unseen categories), the rule values
add up to ``RawFormulaVal``, CTR splits are refused by name, and CatBoost boosters join the candidate
pool of ``RIFFClassifier`` with SQL that selects the rows ``predict`` flags."""

import sqlite3

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import CategorySet, RIFFClassifier, RuleSet, extract_rules
from csboost_plugins.rules._data import as_float_matrix

catboost = pytest.importorskip("catboost", reason="pip install catboost to read CatBoost models")

# quiet, seeded, one thread, and no catboost_info/ directory written into the working directory
QUIET = dict(verbose=0, allow_writing_files=False, random_seed=0, thread_count=1)
HOSTILE = ["o'brien", "", "Zürich ünï", "日本 店", "web", "x'); DROP TABLE t; --"]


def _near(t):
    """float64 values around a float32 border t: t, its float32 neighbours and the midpoints between them."""
    t32 = np.float32(t)
    vals = [float(t), np.nextafter(float(t), -np.inf), np.nextafter(float(t), np.inf)]
    with np.errstate(over="ignore"):  # a border at the float32 maximum has +inf above it
        for a in (np.nextafter(t32, np.float32(-np.inf)), t32):
            b = np.nextafter(a, np.float32(np.inf))
            m = (float(a) + float(b)) / 2  # rounds to the even one of a, b in float32
            vals += [float(a), float(b), m, np.nextafter(m, -np.inf), np.nextafter(m, np.inf)]
    return np.asarray(vals, dtype=np.float64)


def _check(rules, leaves, X):
    """leaves: (n_rows, n_trees) from calc_leaf_indexes; each leaf rule equals its leaf's rows (kernel and
    numpy paths), and each row lies in exactly one leaf rule per tree."""
    assert rules
    cov = RuleSet(rules).coverage(X)
    Xf = as_float_matrix(X, rules, feature_names=rules[0].feature_names)  # once: per-rule conversion is slow
    per_tree = {}
    for k, r in enumerate(rules):
        (src,) = r.sources
        expect = leaves[:, src["tree"]] == src["node"]
        np.testing.assert_array_equal(cov[:, k], expect, err_msg=f"rule {r}, tree {src['tree']} leaf {src['node']}")
        np.testing.assert_array_equal(np.logical_and.reduce([c.mask(Xf[:, c.feature]) for c in r.conditions]),
                                      expect)
        if k < 5:
            np.testing.assert_array_equal(r.mask(X), expect)
        per_tree.setdefault(src["tree"], []).append(k)
    assert sorted(per_tree) == list(range(leaves.shape[1]))
    for ks in per_tree.values():
        np.testing.assert_array_equal(cov[:, ks].sum(axis=1), 1)


def _raw_from_rules(rules, X, bias):
    """bias + the values of the leaf rules covering each row."""
    return RuleSet(rules).coverage(X) @ np.array([r.value for r in rules]) + bias


def _credit(n=3000, seed=0, nan_rate=0.1):
    """A subsample of the bundled credit-scoring set with NaN injected into every column."""
    from csdt.datasets import load_creditscoring1
    b = load_creditscoring1()
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(b.target), n, replace=False)
    X = b.data.iloc[idx].reset_index(drop=True).astype(float)
    X = X.mask(rng.random(X.shape) < nan_rate)
    return X, np.asarray(b.target)[idx], rng


def _probe(model, X, rng):
    """X plus rows with one feature set next to each of the model's borders, then NaN in 10 % of the cells."""
    rows = [X.fillna(0.0).to_numpy()]
    for j, borders in model.get_borders().items():
        for t in borders[::3]:
            vals = _near(t)
            block = rows[0][rng.integers(0, len(X), len(vals))].copy()
            block[:, j] = vals
            rows.append(block)
    Z = np.vstack(rows)
    Z[rng.random(Z.shape) < 0.1] = np.nan
    return pd.DataFrame(Z, columns=X.columns)


@pytest.mark.parametrize("grow_policy", ["SymmetricTree", "Depthwise"])
@pytest.mark.parametrize("nan_mode, nan_in_training", [("Min", True), ("Max", True), ("Max", False),
                                                       ("Forbidden", False)])
def test_numeric_borders_and_nan_modes_exact(nan_mode, nan_in_training, grow_policy):
    X, y, rng = _credit()
    Xt = X if nan_in_training else X.fillna(0.0)  # NaN only at predict time
    m = catboost.CatBoostClassifier(iterations=12, depth=4, border_count=32, nan_mode=nan_mode,
                                    grow_policy=grow_policy, **QUIET).fit(Xt, y)
    scale, bias = m.get_scale_and_bias()
    m.set_scale_and_bias(0.5 * scale, float(np.ravel(bias)[0]) + 0.25)  # rule values carry the model's scale
    Z = _probe(m, X, rng)
    leaves = m.calc_leaf_indexes(catboost.Pool(Z))
    rules = extract_rules(m, deduplicate=False)
    _check(rules, leaves, Z)
    raw = m.predict(Z, prediction_type="RawFormulaVal")
    np.testing.assert_allclose(_raw_from_rules(rules, Z, m.get_scale_and_bias()[1]), raw, rtol=0, atol=1e-10)
    # NaN goes to the "> border" side only under Max with NaN seen in training; else CatBoost compares it false
    sides = {c.missing for r in rules for c in r.conditions if np.isfinite(c.lower) and not np.isfinite(c.upper)}
    assert sides == {nan_mode == "Max" and nan_in_training}


def _cat_frame(n=3000, seed=1, unseen=False):
    """A numeric column with NaN, a pandas category column of hostile texts, a text (object) column and an
    integer column; ``unseen``: values the model never saw in some rows."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"amount": rng.normal(size=n), "merchant": pd.Categorical(rng.choice(HOSTILE, n)),
                      "channel": rng.choice(["pos", "web", "atm"], n).astype(object),
                      "mcc": rng.choice([5411, -7, 5999], n)})
    X.loc[rng.random(n) < 0.1, "amount"] = np.nan
    if unseen:
        X["merchant"] = X["merchant"].cat.add_categories(["new shop"])
        X.loc[rng.random(n) < 0.05, "merchant"] = "new shop"
        X.loc[rng.random(n) < 0.05, "channel"] = "phone"
        X.loc[rng.random(n) < 0.05, "mcc"] = 1234
    risk = dict(zip(HOSTILE, [2.0, 0.8, 1.5, -0.5, 0.0, -1.2]))
    logit = (X["amount"].fillna(0) + X["merchant"].map(risk).astype(float).fillna(0) + (X["channel"] == "web")
             - (X["mcc"] == 5999))
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * logit))).astype(int).to_numpy()
    return X, y


CAT = ["merchant", "channel", "mcc"]


@pytest.mark.parametrize("grow_policy", ["SymmetricTree", "Lossguide"])
def test_one_hot_categories_exact(grow_policy):
    X, y = _cat_frame()
    m = catboost.CatBoostClassifier(iterations=12, depth=4, cat_features=CAT, one_hot_max_size=255,
                                    grow_policy=grow_policy, **QUIET).fit(X, y)
    rules = extract_rules(m, deduplicate=False, X=X)
    used = {c.feature for r in rules for c in r.conditions if isinstance(c, CategorySet)}
    assert used == {1, 2, 3}, used
    test, _ = _cat_frame(seed=2, unseen=True)
    pool = catboost.Pool(test, cat_features=CAT)
    _check(rules, m.calc_leaf_indexes(pool), test)
    np.testing.assert_allclose(_raw_from_rules(rules, test, m.get_scale_and_bias()[1]),
                               m.predict(pool, prediction_type="RawFormulaVal"), rtol=0, atol=1e-10)
    # nodes="all": one rule per node, ids unique within a tree, its leaves the leaf rules'
    every = extract_rules(m, nodes="all", deduplicate=False, X=X)
    ids = [(r.sources[0]["tree"], r.sources[0]["node"], r.sources[0]["leaf"]) for r in every]
    assert len(set((t, n) for t, n, _ in ids)) == len(ids) > len(rules)
    assert sorted((t, n) for t, n, leaf in ids if leaf) == sorted((r.sources[0]["tree"], r.sources[0]["node"])
                                                                  for r in rules)
    # the rules name the categories, not CatBoost's hashes
    text = " ".join(map(str, rules))
    assert any(repr(v) in text for v in HOSTILE) and ("'web'" in text or "'pos'" in text or "'atm'" in text)


def test_multiclass_output_and_vector_leaves():
    X, _ = _cat_frame(n=1500)
    y = np.random.default_rng(3).integers(0, 3, len(X))
    m = catboost.CatBoostClassifier(iterations=5, depth=3, cat_features=CAT, one_hot_max_size=255, **QUIET).fit(X, y)
    raw = m.predict(catboost.Pool(X, cat_features=CAT), prediction_type="RawFormulaVal")
    bias = m.get_scale_and_bias()[1]
    for k in range(3):
        rules = extract_rules(m, deduplicate=False, X=X, output=k)
        np.testing.assert_allclose(_raw_from_rules(rules, X, bias[k]), raw[:, k], rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="3 outputs.*output=<0..2>"):
        extract_rules(m, X=X)
    with pytest.raises(ValueError, match="output must lie in"):
        extract_rules(m, X=X, output=3)


def test_ctr_split_is_refused_by_name():
    X, y = _cat_frame()
    m = catboost.CatBoostClassifier(iterations=5, depth=3, cat_features=CAT, one_hot_max_size=2, **QUIET).fit(X, y)
    for rows in (X, None):  # the CTR split is named whether or not rows are given
        with pytest.raises(ValueError, match=r"CTR split on feature\(s\) \['(merchant|channel|mcc)'.*one_hot_max_size"):
            extract_rules(m, X=rows)


def test_one_hot_split_needs_rows_naming_the_categories():
    X, y = _cat_frame()
    m = catboost.CatBoostClassifier(iterations=3, depth=3, cat_features=CAT, one_hot_max_size=255, **QUIET).fit(X, y)
    with pytest.raises(ValueError, match="only the hashes.*X="):
        extract_rules(m)
    with pytest.raises(ValueError, match="no value of feature"):  # rows without the split categories
        extract_rules(m, X=X.assign(channel="pos", mcc=1, merchant=pd.Categorical(["web"] * len(X))))


def _sqlite_selected(rs, df):
    """Rows the rule set's SQL selects, run in sqlite3 (category values as text, NaN as NULL)."""
    con = sqlite3.connect(":memory:")
    cols = list(df.columns)
    con.execute("CREATE TABLE t (rowid_ INTEGER, " + ", ".join('"' + c + '"' for c in cols) + ")")
    rows = [(i, *[None if pd.isna(v) else (v if isinstance(v, str) else float(v)) for v in r])
            for i, r in enumerate(df.itertuples(index=False))]
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(cols) + 1))})", rows)
    got = np.zeros(len(df), bool)
    got[[r[0] for r in con.execute(f"SELECT rowid_ FROM ({rs.to_sql('t', last_rule='include')}) AS s")]] = True
    return got


def test_riff_with_catboost_candidates_sql_equals_predict():
    X, y, _ = _credit(n=4000, seed=4)
    est = catboost.CatBoostClassifier(iterations=30, depth=4, **QUIET)
    clf = RIFFClassifier(estimator=[est], max_fpr=0.05, random_state=0).fit(X, y)
    assert all(s["model"] == 0 for r in clf.candidates_ for s in r.sources) and len(clf.rule_set_) >= 1
    test, _, _ = _credit(n=3000, seed=5)
    expect = clf.rule_set_.predict(test, last_rule="include").astype(bool)
    assert 0 < expect.sum() < len(expect)
    np.testing.assert_array_equal(_sqlite_selected(clf.rule_set_, test), expect)


def test_riff_pool_of_catboost_and_lightgbm_on_categories():
    lgb = pytest.importorskip("lightgbm")
    X, y = _cat_frame(n=4000, seed=6)
    X["channel"] = X["channel"].astype("category")  # RIFFClassifier takes category (not text) columns
    X = X.drop(columns="mcc")
    ests = [catboost.CatBoostClassifier(iterations=20, depth=4, cat_features=["merchant", "channel"],
                                        one_hot_max_size=255, **QUIET),
            lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, random_state=0, n_jobs=1)]
    clf = RIFFClassifier(estimator=ests, max_fpr=0.05, random_state=0).fit(X, y)
    assert {s["model"] for r in clf.candidates_ for s in r.sources} == {0, 1}
    cb_rules = [r for r in clf.candidates_ if any(s["model"] == 0 for s in r.sources)]
    assert any(isinstance(c, CategorySet) for r in cb_rules for c in r.conditions)
    test, _ = _cat_frame(n=3000, seed=7, unseen=True)
    test = test.drop(columns="mcc").astype({"channel": "category"})
    # the catboost candidates route the test rows as catboost does, pooled with lightgbm's categories
    cb = clf.estimator_[0]
    leaves = cb.calc_leaf_indexes(catboost.Pool(test, cat_features=["merchant", "channel"]))
    cov = RuleSet(clf.candidates_).coverage(test)
    for k, r in enumerate(clf.candidates_):
        for s in r.sources:
            if s["model"] == 0 and s["leaf"]:
                np.testing.assert_array_equal(cov[:, k], leaves[:, s["tree"]] == s["node"], err_msg=str(r))
    expect = clf.rule_set_.predict(test, last_rule="include").astype(bool)
    np.testing.assert_array_equal(_sqlite_selected(clf.rule_set_, test), expect)


def test_cscatboost_classifier_rules_route_as_its_booster():
    """extract_rules on the cost-sensitive estimator reads its chosen CatBoost model: rules keep the
    DataFrame's column names, route rows as the booster's calc_leaf_indexes, and bias + rule values give
    the estimator's margins (its start margin is baked into the saved model's bias)."""
    from csboost_plugins.catboost import CSCatBoostClassifier
    X, y, rng = _credit(n=2000)
    fn = rng.uniform(50, 500, len(y))
    est = CSCatBoostClassifier(n_estimators=15, depth=3, decision="0.5", random_state=0,
                               allow_writing_files=False, thread_count=1).fit(X, y, fp_cost=20.0, fn_cost=fn)
    rules = extract_rules(est, deduplicate=False)
    assert {c for r in rules for c in r.feature_names} <= set(X.columns)
    leaves = est.booster_.calc_leaf_indexes(catboost.Pool(X))
    _check(rules, leaves, X)
    margin = _raw_from_rules(rules, X, est.booster_.get_scale_and_bias()[1])
    np.testing.assert_allclose(margin, est.decision_function(X), rtol=0, atol=1e-9)
