"""RIFF: low-false-positive-rate rule sets from tree models (xgboost, lightgbm,
scikit-learn and this project's trees through ``tree_arrays()``).

- :func:`extract_rules`: one exact candidate rule per leaf (or per node).
- :func:`riff_select`: greedy selection under an FPR or alert-rate budget (RIFF Algorithm 1).
- :class:`RuleSet`: predict / coverage / evaluate / JSON / SQL / pandas query.
- :class:`RIFFClassifier`: the paper's whole pipeline as a scikit-learn estimator.

Example::

    gbm = lightgbm.LGBMClassifier(n_estimators=30, num_leaves=16).fit(X_induction, y_induction)
    rules = riff_select(extract_rules(gbm), X_selection, y_selection, max_fpr=0.01,
                        fn_cost=amount_selection)      # optional: rank by money caught per false positive
    print(rules)                                       # ordered, readable; last rule kept with probability rho
    rules.evaluate(X_test, y_test, fn_cost=amount_test, fp_cost=10.0)   # TPR, FPR, money caught, savings
    rules.to_sql("transactions")                       # same rows as the library, float32 ties included

This package never imports ``csdt``.
"""

from ._extract import extract_rules
from ._riff import RIFFClassifier
from ._rule import CategorySet, Interval, Rule
from ._ruleset import RuleSet
from ._select import riff_select

__all__ = ["extract_rules", "riff_select", "Rule", "RuleSet", "RIFFClassifier", "Interval", "CategorySet"]
