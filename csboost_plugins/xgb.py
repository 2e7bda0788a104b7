"""AEC objective and money eval metrics for xgboost (native ``xgb.train``, scikit-learn, dask).

Native use::

    import xgboost as xgb
    from csboost_plugins import xgb as cxgb
    from csboost_plugins.metrics import savings_score
    from csdt.datasets import make_fraud_transactions

    d = make_fraud_transactions(30_000, fraud_rate=0.02, random_state=0)
    X, y, amount = d.data, d.target, d.fn_cost   # a missed fraud loses its amount, an alert costs 10
    tr, va, te = slice(0, 10_000), slice(10_000, 20_000), slice(20_000, None)
    dtrain = cxgb.cost_dmatrix(X[tr], y[tr], fp_cost=10.0, fn_cost=amount[tr], tp_cost=10.0)  # rows carry costs
    dval = cxgb.cost_dmatrix(X[va], y[va], fp_cost=10.0, fn_cost=amount[va], tp_cost=10.0)
    params = cxgb.aec_params(dtrain, {"tree_method": "hist", "max_depth": 4, "eta": 0.1})
    bst = xgb.train(params, dtrain, 300, obj=cxgb.aec_objective(), evals=[(dval, "val")],
                    custom_metric=cxgb.money_metrics,            # aec, expected_savings, savings
                    callbacks=[cxgb.early_stopping(30, metric="aec")], verbose_eval=False)
    proba = cxgb.predict_proba(bst, X[te])       # the trees up to bst.best_iteration
    decisions = (proba > 0.5).astype(int)        # s > 1/2: the AEC model's own decision
    print(f"best round {bst.best_iteration + 1}, test savings "
          f"{savings_score(y[te], decisions, fp_cost=10.0, fn_cost=amount[te], tp_cost=10.0):.3f}")
    cxgb.to_deployable(bst).save_model("fraud.json")  # plain xgboost: Booster.predict == proba

Which decision: the AEC pushes s towards 0/1 and already holds the costs, so its
natural decision is s > 1/2 (margin > 0), the default of every money metric
(``csboost_plugins.boosting._money_eval.DEFAULT_METRIC_DECISION``) and the estimators'
``predict`` under ``decision="0.5"``; Bayes minimum risk on its probabilities counts the costs twice
(benchmarks/results/boosting.md). For a logloss model use
``money_metric("savings", decision="bmr", preds="probability")``. Early stopping
watches the smooth ``"aec"`` by default: savings of 0/1 decisions are flat while
every s is on one side of 1/2, and a run watching them can stop at round 0.
:func:`early_stopping` takes the metric's direction from its name;
``money_metrics`` reports the watched metric last, so xgboost's own
``early_stopping_rounds`` (which minimises unless ``maximize=True``) watches the aec.
Cross-validate with :func:`cv` (``xgb.cv`` with the AEC objective and the money metrics of
each fold's own costs): plain ``xgb.cv`` without ``custom_metric=`` reports nothing, the AEC
having no built-in xgboost metric.

Deploy: with a custom objective xgboost saves ``objective=reg:squarederror`` and
``Booster.predict`` of the saved model returns margins. :func:`to_deployable`
returns a copy with ``binary:logistic`` and ``base_score`` in probability space,
cut at ``best_iteration``, that plain xgboost, ONNX (onnxmltools) and treelite
score as :func:`predict_proba` does.

``aec_params`` puts the start margin in ``base_score``: with a custom objective
xgboost treats ``base_score`` as a margin and stores it in the model, so
``output_margin=True`` predictions (also after ``save_model`` / ``load_model``)
already include it. Probabilities are ``scipy.special.expit(margin)``
(:func:`csboost_plugins.boosting._aec.sigmoid`); Bayes-minimum-risk decisions with each
row's own costs (the right rule for calibrated, e.g. logloss, probabilities) are ``csboost_plugins.metrics.bayes_minimum_risk(expit(margin),
fp_cost=..., fn_cost=...)``, or :func:`bayes_decisions` on a cost DMatrix.

Costs travel *with the DMatrix* (:func:`cost_dmatrix` / :func:`attach_costs`):
every metric evaluates each eval set with that set's own rows' costs, never
matched by length or order; a DMatrix without costs raises a ``ValueError``.
``sample_weight`` (the DMatrix ``weight``) multiplies gradient, hessian and metrics.

Under dask the worker-side DMatrix is rebuilt from label and weight only, so
:func:`dask_cost_dmatrix` folds the costs into them
(:func:`csboost_plugins.boosting._aec.encode_costs_as_weights`) and the objective runs with
``costs_in_weight=True``; money metrics are then computed after training.
"""

# The module is a facade (lightgbm's __init__ / engine / sklearn split): the native helpers live in
# _xgb_native, the scikit-learn wrapper in _xgb_sklearn; both are re-exported here, so neither
# imports the other through this module and the import graph has no cycle.
from .boosting import _xgb_native
from .boosting._xgb_native import *  # noqa: F403
from .boosting._sklearn_base import adopt_public_names as _adopt_public_names
from .boosting._xgb_sklearn import CSXGBClassifier

__all__ = [*_xgb_native.__all__, "CSXGBClassifier"]
_adopt_public_names(globals())  # documented, pickled and shown as csboost_plugins.xgb.<name>
