"""Real deployment paths of a deployable booster (dev extra: onnxmltools, onnxruntime, treelite, shap).

ONNX (onnxmltools -> onnxruntime) and treelite (GTIL) read the objective and the
start margin from the saved model, so they must give our probabilities; SHAP's
TreeExplainer must explain our margin (contributions + expected value = margin).
"""

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb

from csboost_plugins import lgb as clgb
from csboost_plugins import xgb as cxgb
from csdt.datasets import make_fraud_transactions

pytestmark = [pytest.mark.filterwarnings("ignore::csboost_plugins.costs.CostWarning"),
              pytest.mark.filterwarnings("ignore:LightGBM binary classifier with TreeExplainer:UserWarning")]


@pytest.fixture(scope="module")
def data():
    b = make_fraud_transactions(4000, fraud_rate=0.05, random_state=3)
    # float32-exact features: ONNX and treelite take float32, lightgbm compares in float64
    X = b.data.to_numpy().astype(np.float32).astype(np.float64)
    return X, np.asarray(b.target), b.cost_matrix


@pytest.fixture(scope="module")
def boosters(data):
    """(our probabilities, our margins, deployable booster) per library, trained with early stopping."""
    X, y, C = data
    dtr = cxgb.cost_dmatrix(X[:2000], y[:2000], cost_matrix=C[:2000])
    dva = cxgb.cost_dmatrix(X[2000:3000], y[2000:3000], cost_matrix=C[2000:3000])
    bx = xgb.train(cxgb.aec_params(dtr, {"max_depth": 3, "eta": 0.3, "nthread": 1}), dtr, 60,
                   obj=cxgb.aec_objective(), evals=[(dva, "val")], custom_metric=cxgb.money_metrics,
                   callbacks=[cxgb.early_stopping(10)], verbose_eval=False)
    ltr = clgb.cost_dataset(X[:2000], y[:2000], cost_matrix=C[:2000])
    lva = clgb.cost_dataset(X[2000:3000], y[2000:3000], cost_matrix=C[2000:3000], reference=ltr)
    bl = lgb.train({"objective": clgb.aec_objective(), "num_leaves": 7, "learning_rate": 0.3, "verbose": -1,
                    "num_threads": 1}, ltr, 60, valid_sets=[lva], feval=clgb.money_metrics,
                   callbacks=[clgb.early_stopping(10)])
    clgb.bake_start_margin(bl, ltr)
    Xt = X[3000:]
    best = (0, bx.best_iteration + 1)
    return {
        "xgb": (cxgb.predict_proba(bx, Xt),
                bx.predict(xgb.DMatrix(Xt), output_margin=True, iteration_range=best).astype(np.float64),
                cxgb.to_deployable(bx)),
        "lgb": (clgb.predict_proba(bl, Xt), bl.predict(Xt, raw_score=True), clgb.to_deployable(bl)),
    }


@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_onnx_runtime_gives_our_probabilities(data, boosters, lib):
    onnxmltools = pytest.importorskip("onnxmltools")
    rt = pytest.importorskip("onnxruntime")
    from onnxmltools.convert.common.data_types import FloatTensorType

    X = data[0][3000:].astype(np.float32)
    proba, _, dep = boosters[lib]
    types = [("X", FloatTensorType([None, X.shape[1]]))]
    if lib == "xgb":
        onx = onnxmltools.convert_xgboost(dep, initial_types=types, target_opset=15)
    else:
        onx = onnxmltools.convert_lightgbm(dep, initial_types=types, target_opset=15, zipmap=False)
    sess = rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    labels, probs = sess.run(None, {"X": X})
    assert np.abs(np.asarray(probs)[:, 1] - proba).max() <= 1e-5
    assert np.array_equal(np.asarray(labels).reshape(-1), (proba > 0.5).astype(int))


@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_treelite_gives_our_probabilities(data, boosters, lib):
    treelite = pytest.importorskip("treelite")
    proba, _, dep = boosters[lib]
    model = treelite.frontend.from_xgboost(dep) if lib == "xgb" else treelite.frontend.from_lightgbm(dep)
    X = data[0][3000:]
    got = treelite.gtil.predict(model, X.astype(np.float32) if lib == "xgb" else X).reshape(-1)
    assert np.abs(got - proba).max() <= 1e-6


@pytest.mark.parametrize("lib", ["xgb", "lgb"])
def test_shap_contributions_sum_to_our_margin(data, boosters, lib):
    shap = pytest.importorskip("shap")
    if lib == "xgb" and tuple(int(v) for v in xgb.__version__.split(".")[:2]) < (3, 2):
        pytest.skip("shap cannot read any xgboost 3.1 model (its base_score '[0.47]'), ours or built-in")
    _, margin, dep = boosters[lib]
    explainer = shap.TreeExplainer(dep)
    contrib = np.asarray(explainer.shap_values(data[0][3000:]))
    total = contrib.sum(axis=-1) + np.asarray(explainer.expected_value).reshape(-1)[0]
    assert np.abs(total - margin).max() <= 1e-5  # xgboost sums in float32
    assert np.abs(contrib).sum(axis=1).min() > 0  # a real explanation, not all zeros
