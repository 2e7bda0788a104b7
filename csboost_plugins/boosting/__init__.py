"""The boosting hosts' machinery, one concept per module (public paths: ``csboost_plugins.xgb``,
``csboost_plugins.lgb``, ``csboost_plugins.catboost``, ``csboost_plugins.callback``).

- ``_aec`` / ``_aec_kernels``: the average-expected-cost gradient, hessian and money sums (numba),
  shared by every host.
- ``_money_eval``: money eval metrics over per-row costs; ``_decision_layer``: the default decision
  (AEC or logloss + Bayes minimum risk, chosen on validation money).
- ``_sklearn_base``: the scikit-learn estimator base of every host; ``_native_input``: checks of X and y.
- xgboost: ``_xgb_native`` (native training helpers), ``_xgb_sklearn`` (``CSXGBClassifier``).
- lightgbm: ``_lgb_data`` (costs on a Dataset), ``_lgb_native``, ``_lgb_callback``, ``_lgb_sklearn``
  (``CSLGBMClassifier``).
- CatBoost: ``_cat_native`` (cost pools, objective and metric objects, deployable model), ``_cat_sklearn``
  (``CSCatBoostClassifier``).

Nothing is imported here: ``import csboost_plugins`` stays cheap and each host loads only its library.
"""
