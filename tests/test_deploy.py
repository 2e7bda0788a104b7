"""Deployable boosters: what the library trains, saved, scores the same in plain xgboost / lightgbm.

Each check loads the saved model in a fresh interpreter that imports only numpy and
xgboost / lightgbm (and asserts csboost_plugins was never imported there), and
compares ``Booster.predict`` with our ``predict_proba`` (|diff| <= 1e-6).
"""

import json
import subprocess
import sys
import textwrap

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from scipy.special import expit

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csdt.datasets import make_fraud_transactions

pytestmark = pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning")

_PLAIN = textwrap.dedent("""
    import sys
    import numpy as np
    X = np.load(sys.argv[2])
    if sys.argv[1].endswith(".txt"):
        import lightgbm as lgb
        p = lgb.Booster(model_file=sys.argv[1]).predict(X)
    else:
        import xgboost as xgb
        p = xgb.Booster(model_file=sys.argv[1]).predict(xgb.DMatrix(X))
    assert not [m for m in sys.modules if m.startswith(("csboost_plugins", "csdt"))]
    np.save(sys.argv[3], p)
""")


def plain_predict(model_path, X, tmp_path):
    """``Booster.predict`` of a saved model in a process that never imports csboost_plugins."""
    xp, out = tmp_path / "X.npy", tmp_path / "p.npy"
    np.save(xp, np.asarray(X, dtype=np.float64))
    subprocess.run([sys.executable, "-c", _PLAIN, str(model_path), str(xp), str(out)], check=True,
                   cwd=tmp_path, capture_output=True, text=True)
    return np.load(out)


@pytest.fixture(scope="module")
def fraud():
    b = make_fraud_transactions(6000, fraud_rate=0.05, random_state=0)
    return b.data.to_numpy(), np.asarray(b.target), b.cost_matrix


def _xgb_native(fraud, early_stopping=True):
    X, y, C = fraud
    dtr = cxgb.cost_dmatrix(X[:3000], y[:3000], cost_matrix=C[:3000])
    dva = cxgb.cost_dmatrix(X[3000:4500], y[3000:4500], cost_matrix=C[3000:4500])
    params = cxgb.aec_params(dtr, {"tree_method": "hist", "max_depth": 3, "eta": 0.3, "nthread": 1})
    kw = dict(evals=[(dva, "val")], custom_metric=cxgb.aec_metric, early_stopping_rounds=10) if early_stopping else {}
    return xgb.train(params, dtr, 70, obj=cxgb.aec_objective(), verbose_eval=False, **kw)


def _lgb_native(fraud, early_stopping=True):
    X, y, C = fraud
    dtr = clgb.cost_dataset(X[:3000], y[:3000], cost_matrix=C[:3000])
    dva = clgb.cost_dataset(X[3000:4500], y[3000:4500], cost_matrix=C[3000:4500], reference=dtr)
    params = {"objective": clgb.aec_objective(), "num_leaves": 7, "learning_rate": 0.3, "verbose": -1,
              "num_threads": 1, "deterministic": True, "force_row_wise": True}
    kw = dict(valid_sets=[dva], valid_names=["val"], feval=clgb.savings_metric,
              callbacks=[clgb.early_stopping(10, data_name="val", metric="savings")]) if early_stopping else {}
    bst = lgb.train(params, dtr, 70, **kw)
    return bst, dtr


# ------------------------------------------------------------------------- xgboost

def test_xgb_saved_booster_returns_margins_without_to_deployable(fraud, tmp_path):
    # the failure the issue measured: plain predict of the raw saved booster is the margin
    bst = _xgb_native(fraud, early_stopping=False)
    bst.save_model(tmp_path / "raw.json")
    X = fraud[0][4500:]
    plain = plain_predict(tmp_path / "raw.json", X, tmp_path)
    assert np.abs(plain - cxgb.predict_proba(bst, X)).max() > 0.5


@pytest.mark.parametrize("early_stopping", [False, True])
@pytest.mark.parametrize("fmt", ["json", "ubj"])
def test_xgb_to_deployable_predicts_our_probabilities(fraud, tmp_path, early_stopping, fmt):
    bst = _xgb_native(fraud, early_stopping)
    X = fraud[0][4500:]
    ours = cxgb.predict_proba(bst, X)
    dep = cxgb.to_deployable(bst)
    path = tmp_path / f"model.{fmt}"
    dep.save_model(path)
    plain = plain_predict(path, X, tmp_path)
    assert np.abs(plain - ours).max() <= 1e-6
    cfg = json.loads(dep.save_config())["learner"]
    assert cfg["objective"]["name"] == "binary:logistic"
    m0 = float(json.loads(json.loads(bst.save_config())["learner"]["learner_model_param"]["base_score"])[0])
    assert float(json.loads(cfg["learner_model_param"]["base_score"])[0]) == pytest.approx(expit(m0), rel=1e-6)
    if early_stopping:
        best = int(bst.attr("best_iteration"))
        assert best + 1 < bst.num_boosted_rounds()  # early stopping really cut something
        assert dep.num_boosted_rounds() == best + 1 and int(dep.attr("best_iteration")) == best
    # the original booster is untouched and to_deployable is idempotent
    assert json.loads(bst.save_config())["learner"]["objective"]["name"] == "reg:squarederror"
    again = cxgb.to_deployable(dep)
    assert np.array_equal(again.predict(xgb.DMatrix(X)), dep.predict(xgb.DMatrix(X)))


def test_xgb_to_deployable_rejects_other_objectives(fraud):
    X, y, _ = fraud
    bst = xgb.train({"objective": "count:poisson"}, xgb.DMatrix(X[:500], label=y[:500]), 2)
    with pytest.raises(ValueError, match="count:poisson"):
        cxgb.to_deployable(bst)
    with pytest.raises(TypeError, match="xgboost.Booster"):
        cxgb.to_deployable("model.json")


# ------------------------------------------------------------------------- lightgbm

def test_lgb_saved_booster_without_bake_is_refused(fraud, tmp_path):
    bst, dtr = _lgb_native(fraud, early_stopping=False)
    X = fraud[0][4500:]
    for f in (clgb.predict_proba, clgb.to_deployable):
        with pytest.raises(ValueError, match="bake_start_margin"):
            f(bst, X) if f is clgb.predict_proba else f(bst)


@pytest.mark.parametrize("early_stopping", [False, True])
def test_lgb_to_deployable_predicts_our_probabilities(fraud, tmp_path, early_stopping):
    bst, dtr = _lgb_native(fraud, early_stopping)
    X = fraud[0][4500:]
    raw = bst.predict(X, raw_score=True)  # before baking: no start margin
    clgb.bake_start_margin(bst, dtr)
    ours = clgb.predict_proba(bst, X)
    assert np.abs(ours - expit(raw + dtr.csboost_start_margin)).max() <= 1e-12
    dep = clgb.to_deployable(bst)
    path = tmp_path / "model.txt"
    dep.save_model(path)
    text = path.read_text()
    assert "objective=binary sigmoid:1" in text[: text.index("Tree=0")]
    plain = plain_predict(path, X, tmp_path)
    assert np.abs(plain - ours).max() <= 1e-6
    # a baked booster saved directly is deployable too
    bst.save_model(tmp_path / "direct.txt", num_iteration=bst.best_iteration or None)
    assert np.abs(plain_predict(tmp_path / "direct.txt", X, tmp_path) - ours).max() <= 1e-6


@pytest.mark.parametrize("wrapper", ["xgb", "lgb"])
def test_wrapper_booster_to_deployable(fraud, tmp_path, wrapper):
    X, y, C = fraud
    if wrapper == "xgb":
        est = cxgb.CSXGBClassifier(n_estimators=30, max_depth=3, random_state=0, n_jobs=1)
    else:
        est = clgb.CSLGBMClassifier(n_estimators=30, num_leaves=7, random_state=0, n_jobs=1)
    est.fit(X[:3000], y[:3000], cost_matrix=C[:3000])
    mod = cxgb if wrapper == "xgb" else clgb
    path = tmp_path / ("m.json" if wrapper == "xgb" else "m.txt")
    mod.to_deployable(est.booster_).save_model(path)
    plain = plain_predict(path, X[4500:], tmp_path)
    assert np.abs(plain - est.predict_proba(X[4500:])[:, 1]).max() <= 1e-6


def test_native_example_prints_money_and_deploys(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    path = Path(__file__).resolve().parents[1] / "examples" / "boosting_native.py"
    spec = importlib.util.spec_from_file_location("boosting_native", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fig = mod.main(["--n", "8000", "--out", str(tmp_path / "s.png")])
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith(("xgboost", "lightgbm"))]
    assert len(rows) == 2 and fig.axes
    for _, best, sav, bmr, esav, diff in rows:
        assert int(best) > 1 and 0 < float(sav) <= 1 and 0 < float(bmr) <= 1 and 0 < float(esav) <= 1
        assert float(diff) <= 1e-6  # plain Booster.predict of the deployable booster == predict_proba
    assert (tmp_path / "s_xgb.json").exists() and (tmp_path / "s_lgb.txt").exists()
