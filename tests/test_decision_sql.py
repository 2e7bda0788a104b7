"""The fitted decision outside Python: ``decision_sql`` run in DuckDB (and SQLite) against ``predict`` with
per-row costs, for each kind of decision and each host; the ``decision_rule`` field of ``save_model``'s file,
read with plain json / xgboost / lightgbm / catboost in a process without this package, reproduces ``predict``."""

import json
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

duckdb = pytest.importorskip("duckdb")

from csboost_plugins.lgb import CSLGBMClassifier  # noqa: E402
from csboost_plugins.xgb import CSXGBClassifier  # noqa: E402

HOSTS = [CSXGBClassifier, CSLGBMClassifier]
try:
    from csboost_plugins.catboost import CSCatBoostClassifier
except ImportError:
    HOSTS.append(pytest.param(None, marks=pytest.mark.skip(reason="catboost not installed (the 'catboost' extra)")))
else:
    HOSTS.append(CSCatBoostClassifier)


def _data(n=3000, seed=0):
    """Rare positives, an amount among the features, and costs that vary per row: fraud money with a benefit for
    a caught fraud, plus rows where C_FN < C_TP (an alert never pays there) and rows with no money at stake."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    amount = np.exp(rng.normal(3.0, 1.2, n))
    X[:, 3] = np.log(amount)
    y = (X[:, 0] + 0.4 * X[:, 3] + rng.normal(size=n) > 3.2).astype(int)
    costs = pd.DataFrame({"fp": np.full(n, 5.0), "fn": amount, "tp": -(0.1 * amount), "tn": -0.002 * amount})
    odd = rng.random(n) < 0.05
    costs.loc[odd, "tp"] = costs.loc[odd, "fn"] + 1.0  # C_FN < C_TP: never an alert
    costs.loc[rng.random(n) < 0.02, ["fp", "fn", "tp", "tn"]] = 0.0  # nothing at stake: never an alert (ties to 0)
    return X, y, costs


def _fit(cls, decision, with_costs=True, **kw):
    X, y, c = _data()
    kw.setdefault("thread_count" if cls.__name__ == "CSCatBoostClassifier" else "n_jobs", 1)
    est = cls(n_estimators=30, decision=decision, random_state=0, **kw)
    money = dict(fp_cost=c["fp"].to_numpy(), fn_cost=c["fn"].to_numpy(), tp_cost=c["tp"].to_numpy(),
                 tn_cost=c["tn"].to_numpy()) if with_costs else {}
    return est.fit(X, y, **money), X, c


def _duckdb_flags(sql, p, costs):
    frame = costs.assign(p=p)  # noqa: F841 - DuckDB reads the DataFrame by its name
    got = duckdb.sql(f"SELECT {sql} AS flag FROM frame").fetchnumpy()["flag"]
    return np.asarray(got, dtype=bool)


def _predict_flags(est, X, costs=None, **given):
    kw = {} if costs is None else dict(fp_cost=costs["fp"].to_numpy(), fn_cost=costs["fn"].to_numpy(),
                                       tp_cost=costs["tp"].to_numpy(), tn_cost=costs["tn"].to_numpy())
    kw.update(given)
    return est.predict(X, **kw) == est.classes_[1]


@pytest.mark.parametrize("cls", HOSTS)
@pytest.mark.parametrize("decision", ["auto", "0.5", "bmr"])
def test_bmr_decision_in_duckdb_equals_predict_with_per_row_costs(cls, decision):
    est, X, c = _fit(cls, decision)
    p = est.predict_proba(X)[:, 1]
    sql = est.decision_sql("p", fp_cost="fp", fn_cost="fn", tp_cost="tp", tn_cost="tn", dialect="duckdb")
    flags = _duckdb_flags(sql, p, c)
    want = _predict_flags(est, X, c)
    assert 0 < want.sum() < len(want)
    np.testing.assert_array_equal(flags, want)


@pytest.mark.parametrize("cls", HOSTS)
def test_numbers_and_columns_mix(cls):
    est, X, c = _fit(cls, "auto")
    p = est.predict_proba(X)[:, 1]
    sql = est.decision_sql("p", fp_cost=5.0, fn_cost="fn", tp_cost=-2.5, tn_cost="tn", dialect="duckdb")
    want = _predict_flags(est, X, fp_cost=5.0, fn_cost=c["fn"].to_numpy(), tp_cost=-2.5, tn_cost=c["tn"].to_numpy())
    np.testing.assert_array_equal(_duckdb_flags(sql, p, c), want)


def test_sqlite_dialect_and_quoted_names():
    est, X, c = _fit(CSXGBClassifier, "auto")
    p = est.predict_proba(X)[:, 1]
    odd = c.rename(columns={"fp": "false alarm", "fn": "Amount", "tp": "tp-cost", "tn": "select"})
    sql = est.decision_sql("proba of fraud", fp_cost="false alarm", fn_cost="Amount", tp_cost="tp-cost",
                           tn_cost="select", dialect="sqlite")
    con = sqlite3.connect(":memory:")
    odd.assign(**{"proba of fraud": p}).to_sql("t", con, index=False)
    flags = np.array([bool(r[0]) for r in con.execute(f"SELECT {sql} FROM t")])
    np.testing.assert_array_equal(flags, _predict_flags(est, X, c))


@pytest.mark.parametrize("cls", HOSTS)
def test_threshold_decisions_in_duckdb(cls, tmp_path):
    """The AEC's own decision (margin > 0): ``decision="0.5"`` without costs, and a plain native file loaded
    (decision_ "aec" under decision="auto", which ignores costs)."""
    est, X, c = _fit(cls, "0.5")
    p = est.predict_proba(X)[:, 1]
    sql = est.decision_sql("p", dialect="duckdb")
    assert sql == '("p" > 0.5)'
    np.testing.assert_array_equal(_duckdb_flags(sql, p, c), _predict_flags(est, X))
    path = str(tmp_path / ("plain.json" if cls is CSXGBClassifier else "plain.txt"))
    est.booster_.save_model(path)  # the native file alone, no metadata
    plain = cls.load_model(path)
    assert plain.decision_ == "aec" and plain.decision == "auto"
    sql = plain.decision_sql("p", fp_cost="fp", fn_cost="fn", tp_cost="tp", tn_cost="tn", dialect="duckdb")
    assert sql == '("p" > 0.5)'
    np.testing.assert_array_equal(_duckdb_flags(sql, plain.predict_proba(X)[:, 1], c), _predict_flags(plain, X, c))


@pytest.mark.parametrize("cls", HOSTS)
def test_unit_cost_fit_decides_at_one_half_without_costs(cls):
    est, X, c = _fit(cls, "auto", with_costs=False)
    assert est.decision_ in ("logloss+bmr", "aec+bmr", "aec")
    p = est.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(_duckdb_flags(est.decision_sql("p", dialect="duckdb"), p, c), _predict_flags(est, X))


def test_costs_needed_are_named_and_bad_costs_refused():
    est, _, _ = _fit(CSXGBClassifier, "auto")
    assert est.decision_ in ("logloss+bmr", "aec+bmr")
    with pytest.raises(ValueError, match=r"fp_cost=\.\.\., fn_cost=\.\.\."):
        est.decision_sql("p")
    with pytest.raises(ValueError, match="fn_cost"):
        est.decision_sql("p", fp_cost=5.0)
    with pytest.raises(ValueError, match="tp_cost must be finite"):
        est.decision_sql("p", fp_cost=5.0, fn_cost="a", tp_cost=float("nan"))
    with pytest.raises(TypeError, match="fn_cost must be a column name"):
        est.decision_sql("p", fp_cost=5.0, fn_cost=[1, 2])
    with pytest.raises(TypeError, match="proba"):
        est.decision_sql(3, fp_cost=5.0, fn_cost="a")


# ------------------------------------------------------------------ the saved field, read without this package
_READ = {
    "CSXGBClassifier": """
        import xgboost as xgb
        bst = xgb.Booster(model_file=path)
        rule = json.loads(bst.attr("csboost"))["decision_rule"]
        p = bst.predict(xgb.DMatrix(X))
    """,
    "CSLGBMClassifier": """
        import lightgbm as lgb
        meta = next(line for line in open(path).read().split("\\n") if line.startswith("csboost="))
        rule = json.loads(meta[len("csboost="):])["decision_rule"]
        p = lgb.Booster(model_file=path).predict(X)
    """,
    "CSCatBoostClassifier": """
        import catboost
        model = catboost.CatBoostClassifier()
        model.load_model(path)
        rule = json.loads(model.get_metadata()["csboost"])["decision_rule"]
        p = model.predict_proba(X)[:, 1]
    """,
}

_DECIDE = """
    fp, fn, tp, tn = C.T
    if rule["with_costs"] == "bmr" and use_costs:
        flags = p * tp + (1 - p) * fp < p * fn + (1 - p) * tn
    else:
        flags = p > rule["without_costs"]["threshold"]
    assert "csboost_plugins" not in sys.modules
    np.save(out, flags)
"""


@pytest.mark.parametrize("cls", HOSTS)
@pytest.mark.parametrize("decision, use_costs", [("auto", True), ("0.5", True), ("0.5", False)])
def test_saved_decision_rule_reproduces_predict_without_the_package(cls, decision, use_costs, tmp_path):
    est, X, c = _fit(cls, decision)
    path = str(tmp_path / ("m.json" if cls is CSXGBClassifier else "m.txt"))
    est.save_model(path)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "C.npy", c[["fp", "fn", "tp", "tn"]].to_numpy())
    code = ("import json, sys\nimport numpy as np\n"
            f"path, out, use_costs = {path!r}, {str(tmp_path / 'flags.npy')!r}, {use_costs!r}\n"
            f"X = np.load({str(tmp_path / 'X.npy')!r}); C = np.load({str(tmp_path / 'C.npy')!r})\n"
            + textwrap.dedent(_READ[cls.__name__]) + textwrap.dedent(_DECIDE))
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path)
    flags = np.load(tmp_path / "flags.npy")
    want = _predict_flags(est, X, c if use_costs else None)
    assert 0 < want.sum() < len(want)
    np.testing.assert_array_equal(flags, want)
    rule = est._decision_rule()
    assert rule["with_costs"] == "bmr" and (rule["without_costs"] is None) == (decision == "auto")
