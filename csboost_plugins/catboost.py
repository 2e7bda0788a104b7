"""AEC objective and money eval metrics for CatBoost (native ``catboost.CatBoost``, scikit-learn).

Native use (costs travel in the Pool; eval pools take the training pool's start margin)::

    import catboost
    from csboost_plugins import catboost as ccb
    from csboost_plugins.metrics import savings_score
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(30_000, fraud_rate=0.02, random_state=0)
    X, y, amount = d.data, d.target, d.fn_cost   # a missed fraud loses its amount, an alert costs 10
    tr, va, te = slice(0, 10_000), slice(10_000, 20_000), slice(20_000, None)
    dtrain = ccb.cost_pool(X[tr], y[tr], fp_cost=10.0, fn_cost=amount[tr], tp_cost=10.0)  # baseline = m0
    dval = ccb.cost_pool(X[va], y[va], fp_cost=10.0, fn_cost=amount[va], tp_cost=10.0, reference=dtrain)
    params = ccb.aec_params({"iterations": 300, "learning_rate": 0.1, "verbose": 0})
    params.update(ccb.early_stopping(30))                    # on the validation AEC, keeps the best round
    model = catboost.CatBoost(params).fit(dtrain, eval_set=dval)
    ccb.bake_start_margin(model, dtrain)        # once: the model's bias now holds the start margin
    proba = ccb.predict_proba(model, X[te])
    test = savings_score(y[te], (proba > 0.5).astype(int), fp_cost=10.0, fn_cost=amount[te], tp_cost=10.0)
    ccb.to_deployable(model).save_model("fraud.cbm")  # plain CatBoostClassifier().load_model: same predict_proba

See :mod:`csboost_plugins.boosting._cat_native` for how costs, metrics and the start margin travel, and
:class:`CSCatBoostClassifier` for the scikit-learn estimator.
"""

# A facade (as csboost_plugins.xgb / lgb): the native helpers live in _cat_native, the scikit-learn
# wrapper in _cat_sklearn; both are re-exported here, so the import graph has no cycle.
try:
    import catboost as _catboost  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('csboost_plugins.catboost needs CatBoost: pip install "csboost-plugins[catboost]"') from exc

from .boosting import _cat_native
from .boosting._cat_native import *  # noqa: F403
from .boosting._cat_sklearn import CSCatBoostClassifier
from .boosting._sklearn_base import adopt_public_names as _adopt_public_names

__all__ = [*_cat_native.__all__, "CSCatBoostClassifier"]
_adopt_public_names(globals())  # documented, pickled and shown as csboost_plugins.catboost.<name>
