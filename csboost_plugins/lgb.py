"""AEC objective and money eval metrics for lightgbm 4.x (native ``lgb.train``, scikit-learn, dask).

Native use (the objective goes in ``params``; lightgbm 4 removed ``fobj=``)::

    import lightgbm as lgb
    from csboost_plugins import lgb as clgb
    from csboost_plugins.metrics import savings_score
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(30_000, fraud_rate=0.02, random_state=0)
    X, y, amount = d.data, d.target, d.fn_cost   # a missed fraud loses its amount, an alert costs 10
    tr, va, te = slice(0, 10_000), slice(10_000, 20_000), slice(20_000, None)
    dtrain = clgb.cost_dataset(X[tr], y[tr], fp_cost=10.0, fn_cost=amount[tr], tp_cost=10.0)  # init_score = m0
    dval = clgb.cost_dataset(X[va], y[va], fp_cost=10.0, fn_cost=amount[va], tp_cost=10.0, reference=dtrain)
    params = {"objective": clgb.aec_objective(), "learning_rate": 0.1, "num_leaves": 15, "verbose": -1}
    history = {}
    bst = lgb.train(params, dtrain, 300, valid_sets=[dval], valid_names=["val"],
                    feval=clgb.money_metrics,                   # aec, expected_savings, savings
                    callbacks=[clgb.early_stopping(30, data_name="val"),  # watches the aec
                               clgb.record_money(history)])     # savings per round, as predict decides
    clgb.bake_start_margin(bst, dtrain)          # once: the model now holds the start margin
    proba = clgb.predict_proba(bst, X[te])       # the trees up to bst.best_iteration
    test = savings_score(y[te], (proba > 0.5).astype(int), fp_cost=10.0, fn_cost=amount[te], tp_cost=10.0)
    print(f"best round {bst.best_iteration}, validation savings "
          f"{history['val']['savings'][bst.best_iteration - 1]:.3f}, test savings {test:.3f}")
    clgb.to_deployable(bst).save_model("fraud.txt")  # plain lightgbm: Booster.predict == proba

lightgbm does not store a Dataset's ``init_score`` in the model (LightGBM#1778):
:func:`bake_start_margin` adds the start margin to every leaf of the first tree
and writes ``objective=binary sigmoid:1`` into the model, once (a second call
changes nothing), so ``predict(raw_score=True)``, ``predict()`` (probabilities),
``save_model`` / ``Booster(model_file=)`` and ``num_iteration`` slicing all
include it; :func:`predict_proba` and :func:`to_deployable` refuse a booster that
was not baked. Cross-validate with :func:`cv` (``lgb.cv`` with the AEC objective
and the money metrics; each fold carries its rows' costs and the start margin): plain
``lgb.cv`` without ``feval=`` returns ``{}``, the AEC having no built-in lightgbm metric.
Probabilities are
``scipy.special.expit(margin)``; BMR decisions are
``csboost_plugins.metrics.bayes_minimum_risk(expit(margin), fp_cost=..., fn_cost=...)``.

Costs travel with the Dataset (:func:`cost_dataset` / :func:`attach_costs`); each
eval set is scored with its own rows' costs, and a Dataset without costs raises a
``ValueError``, as does an eval set that would be scored without the training
set's start margin (build it with ``reference=dtrain``, or attach costs to
``dtrain.create_valid(X, label=y)``). ``money_metrics`` reports the watched metric
first, where ``lgb.early_stopping(..., first_metric_only=True)`` looks;
:func:`record_money` and :func:`early_stopping` also work in ``lgb.cv``. The Dataset's ``weight`` multiplies gradient, hessian and metrics
(lightgbm >= 4 would silently drop weights for a 2-argument objective: LightGBM#5027).

``aec_objective(fp_cost=..., fn_cost=...)`` (costs bound to the training rows, in
order) also works as ``LGBMClassifier(objective=...)``, where lightgbm calls it as
``f(y_true, y_pred, weight, group)``; use :class:`CSLGBMClassifier` for probabilities.
Under dask (``lightgbm.dask.DaskLGBMClassifier``) costs are folded into label and
weight by :func:`csboost_plugins.boosting._aec.encode_costs_as_weights`, see
:func:`dask_cost_inputs`.
"""

# The module is a facade (lightgbm's __init__ / engine / sklearn split): the native helpers live in
# _lgb_native, the scikit-learn wrapper in _lgb_sklearn; both are re-exported here, so neither
# imports the other through this module and the import graph has no cycle.
from .boosting import _lgb_native
from .boosting._lgb_native import *  # noqa: F403
from .boosting._sklearn_base import adopt_public_names as _adopt_public_names
from .boosting._lgb_sklearn import CSLGBMClassifier

__all__ = [*_lgb_native.__all__, "CSLGBMClassifier"]
_adopt_public_names(globals())  # documented, pickled and shown as csboost_plugins.lgb.<name>
