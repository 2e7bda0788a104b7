"""csboost_plugins: money metrics, cost conventions, AEC boosting plugins and RIFF rules.

Submodules: ``costs`` (one cost convention), ``metrics`` (money metrics),
``xgb`` / ``lgb`` / ``catboost`` (AEC objective and money metrics for xgboost / lightgbm / CatBoost),
``rules`` (RIFF rule induction), ``tree_protocol`` (how rules read trees),
``model_selection`` (walk-forward replays of a stream).
``xgb``, ``lgb``, ``catboost``, ``rules`` and ``model_selection`` are imported lazily so that ``import csboost_plugins``
stays cheap.
"""

from importlib import import_module

from . import costs, metrics
from ._aot import PerformanceWarning
from .costs import check_costs, cost_characteristic
from .metrics import (
    bayes_minimum_risk,
    cost_loss,
    expected_cost_loss,
    expected_savings_score,
    normalized_cost,
    optimal_thresholds,
    savings_score,
)

__version__ = "0.1.0"

_LAZY = {"xgb", "lgb", "catboost", "rules", "tree_protocol", "model_selection"}


def __getattr__(name):
    if name in _LAZY:
        return import_module(f".{name}", __name__)
    if name == "MoneyLossWarning":  # warned by the boosting estimators' fit when their decisions lose money
        return import_module(".boosting._decision_layer", __name__).MoneyLossWarning
    if name == "FewRoundsWarning":  # warned by the boosting estimators' fit when the deciding booster stopped early
        return import_module(".boosting._decision_layer", __name__).FewRoundsWarning
    raise AttributeError(f"module 'csboost_plugins' has no attribute {name!r}")


__all__ = [
    "PerformanceWarning", "costs", "metrics", "check_costs", "cost_characteristic", "bayes_minimum_risk", "cost_loss",
    "expected_cost_loss", "expected_savings_score", "normalized_cost", "optimal_thresholds", "savings_score",
    "MoneyLossWarning", "FewRoundsWarning",
]
