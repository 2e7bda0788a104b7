"""Input a new user meets on real data: each gets an error (or warning) naming the argument, the
column and the cause, never a raw xgboost / lightgbm error or a silent wrong answer.

Every expectation is checked against the host library itself (which characters lightgbm refuses,
which values xgboost cannot store) or an independent computation, not against hard-coded results.
"""

import tracemalloc
import warnings

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csboost_plugins.rules import extract_rules
from csdt.cal5 import CAL5OCClassifier, cost_transinformation

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")
P = {"verbose": -1, "num_threads": 1, "seed": 0, "deterministic": True}
FLT_MAX = float(np.finfo(np.float32).max)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0).astype(int)
    return X, y


# ------------------------------------------------------------------ 1. lightgbm rules on category columns
def _cat_frame(n=1500):
    rng = np.random.default_rng(1)
    return pd.DataFrame({
        "a": rng.normal(size=n),
        "b": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
        "d": rng.integers(0, 6, n),
    })


def _lgb_rules(X, y, **dataset_kw):
    bst = lgb.train({**P, "objective": "binary", "num_leaves": 7, "min_data_in_leaf": 5},
                    lgb.Dataset(X, y, **dataset_kw), 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rules = extract_rules(bst)
    return bst, rules, [str(w.message) for w in caught]


def test_lgb_rules_name_the_category_column_lightgbm_split_as_numbers():
    # an ordered pandas category: lightgbm's categorical_feature="auto" leaves it numeric (codes)
    X = _cat_frame()
    y = ((X["b"] == "hi") ^ (X["a"] > 0)).astype(int)
    bst, rules, msgs = _lgb_rules(X.drop(columns="d"), y)
    assert bst.pandas_categorical == [["lo", "mid", "hi"]]  # lightgbm kept b's categories ...
    assert "b" not in [n for n, info in bst.dump_model()["feature_infos"].items() if info["values"]]  # ... numeric
    assert len(msgs) == 1, msgs
    assert "ordered pandas category" in msgs[0] and "['b']" in msgs[0] and "as numeric" in msgs[0]


def test_lgb_rules_refuse_to_pair_categories_with_another_column():
    # categorical_feature names an integer column, the category column is left numeric: as many
    # categorical features as pandas category columns, but not the same ones
    X = _cat_frame()
    y = ((X["d"] >= 3) ^ (X["a"] > 0)).astype(int)
    bst, rules, msgs = _lgb_rules(X, y, categorical_feature=["d"])
    d = list(bst.feature_name()).index("d")
    codes = bst.dump_model()["feature_infos"]["d"]["values"]
    assert max(codes) >= len(bst.pandas_categorical[0])  # d's codes do not index b's categories
    assert len(msgs) == 1 and "'d'" in msgs[0] and "categorical_feature=" in msgs[0], msgs
    assert all(d not in r.categories for r in rules)  # no rule shows b's categories as d's values


# ------------------------------------------------------------------ 2. names lightgbm / xgboost refuse
PRINTABLE = [chr(c) for c in range(32, 127)]


def test_cost_dataset_refuses_exactly_the_names_lightgbm_refuses(data):
    X, y = data
    for ch in PRINTABLE:
        name = f"a{ch}b"
        try:
            lgb.Dataset(X[:, :1], y, feature_name=[name], params={"verbose": -1}).construct()
            lightgbm_refuses = False
        except lgb.basic.LightGBMError:
            lightgbm_refuses = True
        try:
            clgb.cost_dataset(pd.DataFrame({name: X[:, 0]}), y, fp_cost=1.0, fn_cost=3.0)
            we_refuse = False
        except ValueError as exc:
            we_refuse = True
            assert repr(name) in str(exc) and "rename" in str(exc)
        assert we_refuse == lightgbm_refuses, repr(ch)


def test_cost_dmatrix_names_exactly_the_names_xgboost_refuses(data):
    X, y = data
    for ch in PRINTABLE:
        name = f"a{ch}b"
        try:
            xgb.DMatrix(X[:, :1], feature_names=[name])
            xgboost_refuses = False
        except ValueError:
            xgboost_refuses = True
        try:
            cxgb.cost_dmatrix(pd.DataFrame({name: X[:, 0]}), y, fp_cost=1.0, fn_cost=3.0)
            we_refuse = False
        except ValueError as exc:
            we_refuse = repr(name) in str(exc) and "rename" in str(exc)
        assert we_refuse == xgboost_refuses, repr(ch)


@pytest.mark.parametrize("name", ['amount"eur', "a{b}", "x[1]", "a:b", ","])
def test_lgbm_classifier_names_the_column_lightgbm_refuses(data, name):
    X, y = data
    df = pd.DataFrame(X, columns=[name, "ok", "fine"])
    with pytest.raises(ValueError, match="rename") as info:
        clgb.CSLGBMClassifier(n_estimators=2).fit(df, y, fp_cost=1.0, fn_cost=3.0)
    assert repr(name) in str(info.value) and '" , : [ ] { }' in str(info.value)
    with pytest.raises(ValueError, match="rename") as info:  # the native builder, before lgb.train constructs it
        clgb.cost_dataset(df, y, fp_cost=1.0, fn_cost=3.0)
    assert repr(name) in str(info.value)


def test_cost_dataset_checks_feature_name_and_dmatrix_names(data):
    X, y = data
    with pytest.raises(ValueError, match=r"feature_name has 1 column name\(s\) lightgbm refuses: 'b:c'"):
        clgb.cost_dataset(X, y, fp_cost=1.0, fn_cost=3.0, feature_name=["a", "b:c", "d"])
    with pytest.raises(ValueError, match=r"X has 1 column name\(s\) xgboost refuses: 'x<1'"):
        cxgb.cost_dmatrix(pd.DataFrame(X, columns=["x<1", "b", "c"]), y, fp_cost=1.0, fn_cost=3.0)
    # names both libraries take still train
    ok = pd.DataFrame(X, columns=["amount eur", "ü", "a<b"])
    clgb.CSLGBMClassifier(n_estimators=2).fit(ok, y)


# ------------------------------------------------------------------ 3. cost_transinformation in any unit
def test_cost_transinformation_is_the_same_in_any_cost_unit():
    rng = np.random.default_rng(2)
    x, n = rng.integers(0, 4, 300), 300
    y = (rng.random(n) < 0.2 + 0.15 * x).astype(int)
    c = rng.uniform(1.0, 10.0, n)
    ref = cost_transinformation(x, y, cost=c)
    assert 0 < ref < 1
    for k in 10.0 ** np.arange(-300, 308, 25):  # up to max cost ~1e308: its sum overflows float64
        assert cost_transinformation(x, y, cost=c * (k / 10.0)) == pytest.approx(ref, rel=1e-12), k
    # equal costs, however large, give Shannon's transinformation (Proposition 1a)
    assert cost_transinformation(x, y, cost=np.full(n, 1e308)) == pytest.approx(cost_transinformation(x, y))


def test_cal5oc_refuses_costs_whose_sums_overflow():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="cost is too large.*larger unit"):
        CAL5OCClassifier().fit(X, y, cost=np.full(200, 1e306))


# ------------------------------------------------------------------ 4. X values the host cannot store
@pytest.mark.parametrize("value", [FLT_MAX, np.nextafter(FLT_MAX, np.inf), 3.4028236e38, 3.5e38, 1e308, -1e308])
def test_xgb_classifier_refuses_exactly_the_values_xgboost_refuses(data, value):
    X, y = data
    X = X.copy()
    X[1, 1] = value
    try:
        xgb.DMatrix(X)
        xgboost_refuses = False
    except xgb.core.XGBoostError:
        xgboost_refuses = True
    try:
        cxgb.CSXGBClassifier(n_estimators=2).fit(X, y)
        we_refuse = False
    except ValueError as exc:
        we_refuse = "X column 1 contains" in str(exc) and "float32" in str(exc)
    assert we_refuse == xgboost_refuses


def test_xgb_classifier_names_the_column_too_large_for_float32(data):
    X, y = data
    df = pd.DataFrame(X, columns=["amount", "balance", "age"])
    bad = df.copy()
    bad.loc[5, "balance"] = 1e308
    with pytest.raises(ValueError, match=r"X column 'balance' contains 1e\+308, a value too large for float32"):
        cxgb.CSXGBClassifier(n_estimators=2).fit(bad, y)
    est = cxgb.CSXGBClassifier(n_estimators=2).fit(df, y)
    with pytest.raises(ValueError, match="X column 'balance' contains 1e"):
        est.predict_proba(bad)
    with pytest.raises(ValueError, match=r"eval_set\[0\] X column 'balance'"):
        cxgb.CSXGBClassifier(n_estimators=2).fit(df, y, eval_set=[(bad, y)])
    with pytest.raises(ValueError, match="X column 1 contains"):
        cxgb.cost_dmatrix(bad.to_numpy(), y, fp_cost=1.0, fn_cost=3.0)


def test_lgbm_classifier_takes_float64_values_as_lightgbm_does(data):
    # lightgbm keeps float64 (it clamps |x| to 1e300): nothing to refuse, as plain lightgbm
    X, y = data
    bad = X.copy()
    bad[5, 1] = 1e308
    lgb.train({**P, "objective": "binary"}, lgb.Dataset(bad, y), 2)
    est = clgb.CSLGBMClassifier(n_estimators=2).fit(bad, y)
    assert np.isfinite(est.predict_proba(bad)).all()


def test_x_value_check_does_not_copy_x():
    from csboost_plugins.boosting import _native_input

    X = np.random.default_rng(4).normal(size=(500_000, 8))  # 32 MB
    tracemalloc.start()
    _native_input.check_feature_values(X, "xgboost")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < X.nbytes / 20


# ------------------------------------------------------------------ 5. y of the data builders
import _estimators  # noqa: E402


def _cost_pool(*args, **kw):
    from csboost_plugins import catboost as ccb

    return ccb.cost_pool(*args, **kw)


def _labels(ds):
    """0/1 labels a builder stored: xgboost's and lightgbm's label; a cost pool's label is the scaled regret
    difference d = c1 - c0, negative exactly on the rows whose cheaper decision is 1 (here the positives)."""
    label = np.asarray(ds.get_label(), dtype=np.float64)
    return (label < 0).astype(int) if type(ds).__module__.startswith("catboost") else label


# the native builder of each host in the registry (CatBoost's skipped without the extra)
BUILDERS = [pytest.param("cost_dmatrix", cxgb.cost_dmatrix, id="cost_dmatrix"),
            pytest.param("cost_dataset", clgb.cost_dataset, id="cost_dataset"),
            pytest.param("cost_pool", _cost_pool, id="cost_pool", marks=_estimators.NEEDS_CATBOOST)]


@pytest.mark.parametrize("name,build", BUILDERS)
def test_builders_name_y_and_both_lengths(data, name, build):
    X, y = data
    with pytest.raises(ValueError, match=rf"{name}: y has 395 rows but X has 400"):
        build(X, y[:-5], fp_cost=1.0, fn_cost=3.0)
    with pytest.raises(ValueError, match=rf"{name}: y \(the label of each row\) is required"):
        build(X, None, fp_cost=1.0, fn_cost=3.0)
    with pytest.raises(ValueError, match="y contains NaN labels"):
        build(X, np.where(np.arange(400) == 3, np.nan, y), fp_cost=1.0, fn_cost=3.0)
    with pytest.raises(ValueError, match="y must be binary; found 3 classes"):
        build(X, np.where(np.arange(400) % 3 == 0, 2, y), fp_cost=1.0, fn_cost=3.0)


@pytest.mark.parametrize("name,build", BUILDERS)
def test_builders_refuse_a_lone_label_that_is_not_0_or_1(data, name, build):
    X, y = data
    with pytest.raises(ValueError, match=rf"{name}: y holds the single label 7"):
        build(X, np.full(400, 7), fp_cost=1.0, fn_cost=3.0)
    # a one-class validation fold in 0/1 keeps its meaning, as the two-class mapping gives it
    ones = build(X, np.ones(400, int), fp_cost=1.0, fn_cost=3.0)
    assert np.all(_labels(ones) == 1)
    assert np.array_equal(_labels(build(X, y, fp_cost=1.0, fn_cost=3.0)), y)  # what _labels reads is y


@pytest.mark.parametrize("name,make", _estimators.params(kind="boosting"))
def test_eval_set_labels_are_read_as_the_training_classes(data, name, make):
    X, y = data
    y37 = np.where(y == 1, 7, 3)
    with pytest.raises(ValueError, match=r"eval_set\[0\] y has label\(s\) \[5\] that the training y"):
        make(decision="0.5").fit(X, y37, eval_set=[(X, np.where(y == 1, 7, 5))])
    with pytest.raises(ValueError, match=r"eval_set\[0\] y has label\(s\) \[0, 1\]"):
        make(decision="0.5").fit(X, y37, eval_set=[(X, y)])
    # the same labels as training give the eval metrics of the 0/1 fit (an independent run)
    a = make(decision="0.5", n_estimators=3).fit(X, y37, eval_set=[(X, y37)]).evals_result_
    b = make(decision="0.5", n_estimators=3).fit(X, y, eval_set=[(X, y)]).evals_result_
    assert a == b and a


# ------------------------------------------------------------------ 6. cross-validation reports money
def test_xgb_cv_reports_the_money_metrics(data):
    X, y = data
    dm = cxgb.cost_dmatrix(X, y, fp_cost=1.0, fn_cost=5.0)
    params = cxgb.aec_params(dm, {"max_depth": 3, "nthread": 1})
    # plain xgboost.cv on the AEC objective has no metric to report
    assert xgb.cv(params, dm, 3, nfold=3, obj=cxgb.aec_objective(), seed=1).empty
    ours = cxgb.cv({"max_depth": 3, "nthread": 1}, dm, 3, nfold=3, seed=1)
    plain = xgb.cv(params, dm, 3, nfold=3, obj=cxgb.aec_objective(), custom_metric=cxgb.money_metrics, seed=1)
    assert {"test-aec-mean", "test-savings-mean", "test-expected_savings-mean"} <= set(ours.columns)
    pd.testing.assert_frame_equal(ours, plain)


def test_lgb_cv_reports_the_money_metrics(data):
    X, y = data
    ds = clgb.cost_dataset(X, y, fp_cost=1.0, fn_cost=5.0)
    assert lgb.cv({**P, "objective": clgb.aec_objective()}, ds, 3, nfold=3, seed=1) == {}
    ours = clgb.cv(P, ds, 3, nfold=3, seed=1)
    plain = lgb.cv({**P, "objective": clgb.aec_objective()}, ds, 3, nfold=3, seed=1, feval=clgb.money_metrics)
    assert {"valid aec-mean", "valid savings-mean", "valid expected_savings-mean"} <= set(ours)
    assert ours == plain


@pytest.mark.parametrize("plugin,build", [(cxgb, xgb.DMatrix), (clgb, lgb.Dataset)])
def test_cv_on_data_without_costs_names_the_fix(data, plugin, build):
    X, y = data
    with pytest.raises(ValueError, match="carries no costs"):
        plugin.cv({}, build(X, label=y), 2, nfold=2)


# ------------------------------------------------------------------ 7. X every estimator refuses, named where X enters

ESTIMATORS = _estimators.params()  # every public estimator, small settings (CatBoost skipped without it)

NAN_TAKEN = {"CSXGBClassifier", "CSLGBMClassifier", "CSCatBoostClassifier", "RIFFClassifier", "CSDT",
             "ECSDT-forest", "ECSDT-bagging-stacking", "ECSDT-pasting", "ECSDT-patches", "FIGS", "FIGU"}


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(7)
    n = 1200
    X = pd.DataFrame({"amount": rng.lognormal(3, 1, n), "velocity": rng.normal(size=n), "age": rng.normal(size=n)})
    y = (X["velocity"] + rng.normal(size=n) > 1.2).astype(int).to_numpy()
    return X, y


def _named(exc, column, what):
    """The message names the column, the cause and the row count, and is no host library's error."""
    msg = str(exc)
    assert type(exc).__module__.split(".")[0] not in ("xgboost", "lightgbm", "catboost", "numpy"), type(exc)
    assert repr(column) in msg and what in msg, msg
    assert "numeric, bool or pandas category" not in msg, msg  # a float column is never blamed for its dtype


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan], ids=["inf", "-inf", "nan"])
def test_every_estimator_names_a_non_finite_value_or_takes_nan(frame, name, make, value):
    X, y = frame
    bad = X.copy()
    bad.loc[[3, 17], "velocity"] = value
    if np.isnan(value) and name in NAN_TAKEN:  # a missing value: trees and boosters route it
        p = make().fit(bad, y, fp_cost=1.0, fn_cost=5.0).predict_proba(bad)
        assert np.isfinite(p).all()
        return
    what = "NaN in 2 of 1200 rows" if np.isnan(value) else "infinite value"
    with pytest.raises(ValueError) as info:
        make().fit(bad, y, fp_cost=1.0, fn_cost=5.0)
    _named(info.value, "velocity", what)
    assert "in 2 of 1200 rows" in str(info.value)
    # predict too (with the rows' costs where predict takes them)
    model = make().fit(X, y, fp_cost=1.0, fn_cost=5.0)
    with pytest.raises(ValueError) as info:
        model.predict_proba(bad)
    _named(info.value, "velocity", what)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
def test_every_estimator_takes_or_names_values_beyond_float32(frame, name, make):
    X, y = frame
    bad = X.copy()
    bad.loc[[9], "amount"] = 1e308  # finite in float64, inf in float32 (xgboost, scikit-learn's trees)
    try:
        p = make().fit(bad, y, fp_cost=1.0, fn_cost=5.0).predict_proba(bad)
    except ValueError as exc:
        msg = str(exc)
        assert "'amount'" in msg or "column 0" in msg, msg
        assert ("float32" in msg and "in 1 of 1200 rows" in msg) or "too large" in msg, msg
        assert "infinity" not in msg.lower(), msg  # not "contains inf" on data with none
    else:
        assert np.isfinite(p).all()


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name,make", ESTIMATORS)
@pytest.mark.parametrize("kind", ["datetime", "timedelta", "text"])
def test_every_estimator_names_a_column_it_cannot_read_as_numbers(frame, name, make, kind):
    X, y = frame
    n = len(y)
    col = {"datetime": pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(n), "s"),
           "timedelta": pd.to_timedelta(np.arange(n), "s"),
           "text": np.where(np.arange(n) % 2, "web", "pos")}[kind]
    with pytest.raises(ValueError) as info:
        make().fit(X.assign(when=col), y, fp_cost=1.0, fn_cost=5.0)
    msg = str(info.value)
    assert type(info.value).__module__.split(".")[0] not in ("xgboost", "lightgbm", "catboost", "numpy")
    assert "'when'" in msg, msg
    assert ("convert" in msg and "seconds" in msg) if kind != "text" else ("not numbers" in msg or
                                                                           "non-numeric" in msg), msg


def test_riff_pool_names_columns_lightgbm_refuses(frame):
    from csboost_plugins.rules import RIFFClassifier

    X, y = frame
    bad = pd.DataFrame(X.to_numpy(), columns=["a,b", "c:d", "e{f}"])
    try:  # the host's own answer: lightgbm refuses these names
        lgb.LGBMClassifier(n_estimators=2, verbose=-1).fit(bad, y)
        refused = False
    except lgb.basic.LightGBMError:
        refused = True
    assert refused
    with pytest.raises(ValueError, match="rename") as info:
        RIFFClassifier(random_state=0).fit(bad, y)
    assert all(repr(c) in str(info.value) for c in bad.columns) and "lightgbm" in str(info.value)
    # a pool without lightgbm takes them (scikit-learn's tree names nothing)
    from sklearn.tree import DecisionTreeClassifier
    RIFFClassifier(estimator=DecisionTreeClassifier(max_depth=3), max_fpr=0.2, random_state=0).fit(bad, y)


def test_riff_pool_refuses_inf_and_float32_overflow_that_xgboost_would(frame):
    from csboost_plugins.rules import RIFFClassifier

    X, y = frame
    big = X.to_numpy() * 1e300  # amount ~ 20 x 1e300: finite, beyond float32
    try:
        xgb.DMatrix(big)
        xgboost_refuses = False
    except xgb.core.XGBoostError:
        xgboost_refuses = True
    assert xgboost_refuses
    with pytest.raises(ValueError, match=r"X column 0 contains .*a value too large for float32.*in 1200 of 1200 "
                                         r"rows: .*xgboost"):
        RIFFClassifier(max_fpr=0.2, random_state=0).fit(big, y)
    inf = X.to_numpy().copy()
    inf[4, 2] = np.inf
    with pytest.raises(ValueError, match=r"X column 2 contains an infinite value \(inf\) in 1 of 1200 rows"):
        RIFFClassifier(random_state=0).fit(inf, y)


def test_cslogit_predict_refuses_rows_whose_score_overflows(frame):
    from csdt import CostSensitiveLogisticRegression

    X, y = frame
    m = CostSensitiveLogisticRegression().fit(X, y, fp_cost=1.0, fn_cost=5.0)
    for rows in (1, 2, 3):
        huge = pd.DataFrame(np.full((rows, 3), 1e308), columns=X.columns)
        with np.errstate(all="raise"):  # no overflow warning first: the check computes under errstate
            with pytest.raises(ValueError, match=rf"X column '\w+' holds values .*overflows float64 in {rows} of "
                                                 rf"{rows} rows"):
                m.predict(huge)
    # large but finite scores still decide
    ok = pd.DataFrame(np.full((2, 3), 1e3), columns=X.columns)
    assert m.predict(ok).shape == (2,)
