"""RIFF: low-false-positive-rate rule sets from tree models (xgboost, lightgbm,
scikit-learn and this project's trees through ``tree_arrays()``).

- :func:`extract_rules`: one exact candidate rule per leaf (or per node).
- :func:`riff_select`: greedy selection under an FPR or alert-rate budget (RIFF Algorithm 1).
- :func:`simplify_rules`: human cuts, missing values said only where they occur, short rules
  (every row of the fit data routed as before; riff_select and RIFFClassifier call it).
- :class:`RuleSet`: predict / coverage / evaluate / JSON / SQL / pandas query; ``RuleSet.from_sql`` reads a
  team's SQL rules (:class:`SQLRule`), which live in one set with the induced ones.
- :class:`RIFFClassifier`: the paper's whole pipeline as a scikit-learn estimator.
- :func:`optimize_rule_book`: a team's own rules (kept, re-tuned or dropped) together with induced
  rules, selected in money under the alert budget.
- Rule kinds: :class:`Rule` and :class:`SQLRule` implement one contract (``_kind.RuleKind``: truth,
  SQL, pandas query, JSON with a ``kind`` tag, names, literals); a new kind is a new module whose
  class registers itself (``_kind.register_kind``), checked by ``tests/test_rule_kinds.py``.

Example::

    gbm = lightgbm.LGBMClassifier(n_estimators=30, num_leaves=16).fit(X_induction, y_induction)
    rules = riff_select(extract_rules(gbm), X_selection, y_selection, max_fpr=0.01,
                        fn_cost=amount_selection, fp_cost=10.0)  # optional: rank by net money per false positive
    print(rules)                                       # ordered, readable; last rule kept with probability rho
    rules.evaluate(X_test, y_test, fn_cost=amount_test, fp_cost=10.0)   # the deployed rules: TPR, FPR, money
    rules.to_sql("transactions")                       # same rows as the library, float32 ties included

This package never imports ``csdt``.
"""

from importlib import import_module

# public name -> submodule; imported on first use (PEP 562), so that the numba kernels in
# ``_evaluate`` import without pandas / scikit-learn (the install compiles them ahead of time)
_EXPORTS = {"extract_rules": "_extract", "riff_select": "_select", "Rule": "_rule", "RuleSet": "_ruleset",
            "RIFFClassifier": "_riff", "simplify_rules": "_simplify", "Interval": "_rule", "CategorySet": "_rule",
            "SQLRule": "_sqlrule", "optimize_rule_book": "_book"}

__all__ = list(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_EXPORTS))
