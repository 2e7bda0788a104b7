"""The boosting hosts' machinery, one concept per module (public paths: ``csboost_plugins.xgb``,
``csboost_plugins.lgb``, ``csboost_plugins.catboost``, ``csboost_plugins.callback``).

- ``_aec`` / ``_aec_kernels``: the average-expected-cost gradient, hessian and money sums (numba),
  shared by every host.
- ``_money_eval``: money eval metrics over per-row costs; ``_decision_layer``: the default decision
  (AEC or logloss + Bayes minimum risk, chosen on validation money) and the money / swap guards;
  ``_decision_rule``: the fitted decision as data (``save_model``'s ``decision_rule`` field) and as
  SQL (``decision_sql``).
- ``_host``: the host contract (:class:`~csboost_plugins.boosting._host.BoostingHost`, the fit's
  :class:`~csboost_plugins.boosting._host.FitContext`); ``_sklearn_base``: the scikit-learn estimator
  base of every host, built on it; ``_native_input``: checks of X and y.
- xgboost: ``_xgb_native`` (native training helpers), ``_xgb_sklearn`` (``CSXGBClassifier``).
- lightgbm: ``_lgb_data`` (costs on a Dataset), ``_lgb_native``, ``_lgb_callback``, ``_lgb_sklearn``
  (``CSLGBMClassifier``).
- CatBoost: ``_cat_native`` (cost pools, objective and metric objects, deployable model), ``_cat_sklearn``
  (``CSCatBoostClassifier``).

Nothing is imported here: ``import csboost_plugins`` stays cheap and each host loads only its library.

The host contract
-----------------
The shared code (``_sklearn_base``: validation, ``fit``, ``predict``, ``save_model`` / ``load_model``;
``_decision_layer``: ``decision="auto"``, the money and swap guards) imports no host library. It calls
a host only through the abstract hooks of ``_host.BoostingHost``; a "booster" is the host's native
model, deployable (its plain probability is sigmoid(margin)), and margins are float64 log-odds:

- ``_fit_booster(ctx, X, y, costs, w, evals, margin0)``: fit the AEC booster on prepared data (validated
  X, 0/1 labels, (n, 4) costs ``[C_FP, C_FN, C_TP, C_TN]``, weights, eval sets ``(X_k, y_k, costs_k, w_k)``,
  start margin); set ``booster_``, ``best_iteration_``, ``evals_result_``, ``n_estimators_``; keep in
  ``ctx.data`` what the logloss booster may reuse (``ctx`` is the call's ``FitContext``: the user's start
  margins in ``ctx.start``, the host's own fit keywords in ``ctx.options``; nothing temporary is set on
  the estimator);
- ``_fit_logloss_booster(ctx, recipe, y, w, evals)``: the logloss booster of ``decision="auto"`` with the
  ``_decision_layer.logloss_recipe`` (rounds, patience, native parameters), returning the booster and the
  attributes that describe it;
- ``_booster_margin(booster, X, offset=None)``: the margins of X under a given booster;
- ``_cut_booster(booster, rounds)``: a copy with the first ``rounds`` rounds;
- ``_save_booster(booster, path, meta)`` / ``_load_booster(path)`` (static): the native file with the
  estimator's JSON metadata inside, which plain host code loads and scores;
- ``_booster_n_features(booster)``, ``_booster_rounds(booster)``.

A host missing a hook cannot be instantiated (``TypeError`` naming it): no silent fall-through to
another host's code. ``tests/test_host_contract.py`` checks the hooks against each host library.

Adding a fourth host (new files only)
-------------------------------------
1. ``boosting/_<host>_native.py``: the AEC objective and money metrics in the library's own callback
   form, built on ``_aec`` (gradient, hessian, ``cost_scale``, ``start_margin``) and ``_aec_kernels``;
   a ``to_deployable`` that puts the start margin in the model and a logistic link on it.
2. ``boosting/_<host>_sklearn.py``: ``class CS<Host>Classifier(CostSensitiveBoostingMixin)`` with
   ``_native_library = "<host>"``, ``__init__`` storing its keywords (``store_init_args``), a ``fit``
   that passes the library's own fit keywords as ``self._fit(..., options={...})``, and every hook
   above (``test_host_contract`` lists them).
3. ``csboost_plugins/<host>.py``: the public facade re-exporting both (``adopt_public_names``), as
   ``csboost_plugins/catboost.py``; ``import csboost_plugins.<host>`` then works (add the name to
   ``csboost_plugins._LAZY`` only if ``csboost_plugins.<host>`` should resolve as an attribute).
4. ``tests/test_boosting_<host>.py``, and the host as a parameter of ``tests/test_host_contract.py``.
   The logloss booster's native parameters, if any, go in ``_decision_layer.LOGLOSS_PARAMS["<host>"]``.
"""
