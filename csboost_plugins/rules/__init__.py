"""RIFF: low-false-positive-rate rule sets from tree models (xgboost, lightgbm,
scikit-learn and this project's trees through ``tree_arrays()``).

- :func:`extract_rules`: one exact candidate rule per leaf (or per node).
- :func:`riff_select`: greedy selection under an FPR or alert-rate budget (RIFF Algorithm 1).
- :class:`RuleSet`: predict / coverage / evaluate / JSON / SQL / pandas query.
- :class:`RIFFClassifier`: the paper's whole pipeline as a scikit-learn estimator.

This package never imports ``csdt``.
"""

from ._extract import extract_rules
from ._riff import RIFFClassifier
from ._rule import CategorySet, Interval, Rule
from ._ruleset import RuleSet
from ._select import riff_select

__all__ = ["extract_rules", "riff_select", "Rule", "RuleSet", "RIFFClassifier", "Interval", "CategorySet"]
