"""The host contract: the shared decision layer imports no host library, the abstract base declares every
hook the shared code calls, each host (xgboost, lightgbm, CatBoost) implements each one, and the hooks do
what they say, checked against the host library's own calls."""

import ast
import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from csboost_plugins.boosting import _decision_layer, _host, _sklearn_base

HOST_LIBRARIES = ("xgboost", "lightgbm", "catboost")
BOOSTING = Path(_decision_layer.__file__).parent


def _hosts():
    """(estimator class, native predict of the first k rounds' margins) of every installed host."""
    out = []
    from csboost_plugins.xgb import CSXGBClassifier
    import xgboost as xgb

    out.append(pytest.param(CSXGBClassifier, lambda b, X, k: b.predict(xgb.DMatrix(X), output_margin=True,
                                                                     iteration_range=(0, k)), id="xgboost"))
    from csboost_plugins.lgb import CSLGBMClassifier

    out.append(pytest.param(CSLGBMClassifier, lambda b, X, k: b.predict(X, raw_score=True, num_iteration=k),
                            id="lightgbm"))
    try:
        from csboost_plugins.catboost import CSCatBoostClassifier
    except ImportError:
        out.append(pytest.param(None, None, id="catboost",
                                marks=pytest.mark.skip(reason="catboost not installed (the 'catboost' extra)")))
    else:
        out.append(pytest.param(CSCatBoostClassifier, lambda b, X, k: b.predict(
            X, prediction_type="RawFormulaVal", ntree_end=k), id="catboost"))
    return out


HOSTS = _hosts()


def _imported_modules(path):
    """Every module name an ``import`` / ``from ... import`` statement of the file names (relative ones
    resolved against the boosting package)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = f"csboost_plugins.boosting.{base}" if node.level == 1 else f"csboost_plugins.{base}"
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


@pytest.mark.parametrize("module", ["_decision_layer.py", "_host.py", "_sklearn_base.py"])
def test_shared_layer_source_imports_no_host_library(module):
    names = _imported_modules(BOOSTING / module)
    assert names, "the parser found no import at all"
    bad = sorted(n for n in names if n.split(".")[0] in HOST_LIBRARIES
                 or any(part.startswith(("_xgb", "_lgb", "_cat")) for part in n.split(".")))
    assert bad == []


def test_decision_layer_loads_no_host_library():
    code = textwrap.dedent("""
        import sys
        import csboost_plugins.boosting._decision_layer, csboost_plugins.boosting._sklearn_base
        print(sorted(m for m in ("xgboost", "lightgbm", "catboost") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_abstract_base_declares_every_hook():
    assert _host.BoostingHost.__abstractmethods__ == frozenset(_host.HOOKS)
    assert issubclass(_sklearn_base.CostSensitiveBoostingMixin, _host.BoostingHost)
    assert _sklearn_base.CostSensitiveBoostingMixin.__abstractmethods__ == frozenset(_host.HOOKS)


def test_a_host_missing_a_hook_cannot_be_built():
    class Partial(_sklearn_base.CostSensitiveBoostingMixin):  # a fourth host that forgot its hooks
        def _fit_booster(self, ctx, X, y, costs, w, evals, margin0):
            pass

    with pytest.raises(TypeError, match="_booster_margin"):
        Partial()


@pytest.mark.parametrize("cls, native", HOSTS)
def test_each_host_implements_every_hook_itself(cls, native):
    assert cls.__abstractmethods__ == frozenset()
    for hook in _host.HOOKS:
        assert hook in vars(cls), f"{cls.__name__} inherits {hook} instead of implementing it"
        base_sig = inspect.signature(getattr(_host.BoostingHost, hook))
        assert inspect.signature(getattr(cls, hook)).parameters.keys() == base_sig.parameters.keys(), hook


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 1.0).astype(int)
    return X, y, 1.0 + 10 * rng.random(n)


@pytest.mark.parametrize("cls, native", HOSTS)
def test_hooks_agree_with_the_host_library(cls, native, tmp_path):
    X, y, amount = _data()
    kw = dict(thread_count=1) if cls.__name__.startswith("CSCat") else {}
    est = cls(n_estimators=12, decision="0.5", random_state=0, **kw).fit(X, y, fp_cost=2.0, fn_cost=amount)
    b = est.booster_
    assert est._booster_n_features(b) == 4
    assert est._booster_rounds(b) == 12
    np.testing.assert_allclose(est._booster_margin(b, X), est.decision_function(X), rtol=0, atol=1e-12)
    for k in (1, 5):
        cut = est._cut_booster(b, k)
        assert est._booster_rounds(cut) == k
        np.testing.assert_allclose(est._booster_margin(cut, X), native(b, X, k), rtol=0, atol=1e-5)
    assert est._booster_rounds(b) == 12  # the cut is a copy
    path = tmp_path / ("m.json" if "XGB" in cls.__name__ else "m.txt")
    est._save_booster(b, str(path), json.dumps({"x": 1}))
    loaded, meta = cls._load_booster(str(path))
    assert json.loads(meta) == {"x": 1}
    np.testing.assert_allclose(est._booster_margin(loaded, X), est.decision_function(X), rtol=0, atol=1e-5)


@pytest.mark.parametrize("cls, native", HOSTS)
def test_fit_leaves_no_temporary_state_on_the_estimator(cls, native):
    """Fit state lives in one FitContext for the call: the fitted estimator holds parameters and fitted
    attributes (trailing underscore) only."""
    X, y, amount = _data()
    kw = dict(thread_count=1) if cls.__name__.startswith("CSCat") else {}
    est = cls(n_estimators=8, random_state=0, **kw)
    params = set(est.get_params())
    est.fit(X, y, fp_cost=2.0, fn_cost=amount)
    left = sorted(k for k in vars(est) if k not in params and k != "_other_params" and not k.endswith("_"))
    assert left == []
    assert est.logloss_booster_ is not None  # decision="auto" went through the logloss hook


@pytest.mark.parametrize("cls, native", HOSTS)
def test_logloss_recipe_reaches_the_host(cls, native, monkeypatch):
    """The logloss booster's round budget comes from the one recipe function."""
    X, y, amount = _data()
    kw = dict(thread_count=1) if cls.__name__.startswith("CSCat") else {}
    monkeypatch.setattr(_decision_layer, "logloss_recipe",
                        lambda est, evals: _decision_layer.LoglossRecipe(rounds=3, patience=None, params={}))
    est = cls(n_estimators=10, random_state=0, **kw).fit(X, y, fp_cost=2.0, fn_cost=amount)
    assert est._booster_rounds(est.logloss_booster_) == 3
    assert est._booster_rounds(est.aec_booster_) <= 10
