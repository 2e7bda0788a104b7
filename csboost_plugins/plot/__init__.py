"""Money plots on matplotlib (``pip install 'csboost-plugins[plot]'``), in scikit-learn's Display style:
``Display.from_predictions(...)`` / ``Display.from_estimator(...)`` draw on ``ax`` (a new figure
when None) and return the display, which keeps the plotted data as arrays and the artists
(``ax_``, ``figure_``, ``line_``, ...).

- :class:`MoneyCurveDisplay`: money caught, net money or savings against the alert rate (or
  FPR) when the top-scored rows are flagged, with a rule set's points on the same axes.
- :class:`RuleWaterfallDisplay`: each rule's added money caught and alert cost, down to the
  rule set's net money.
- :class:`MoneyPerRoundDisplay`: a money metric per boosting round from ``evals_result_`` or
  ``record_money`` (train vs validation), best iteration marked.
- :class:`MoneyByPeriodDisplay`: money caught, alert cost, net money and alerts per period
  (week, day, ...) from :func:`csboost_plugins.metrics.money_by_period`.
- :class:`RuleMonitorDisplay`: heat map of each rule's precision (or money) per period with the
  drift flags of :meth:`csboost_plugins.rules.RuleSet.monitor`.
- :class:`CapacityCurveDisplay`: net money against the alert capacity (alerts per period), ranking
  by expected alert value vs by score vs uncapped Bayes minimum risk, with the capacity beyond
  which the marginal alert stops paying.
- :class:`WalkForwardDisplay`: net money per period of walk-forward evaluations, one line per
  result, each refit and the label delay marked.
- :class:`ThresholdScalingDisplay`: savings (or cost) of a probability model as its decision
  thresholds are scaled around the Bayes minimum risk thresholds (or a constant threshold).

Money is in the costs' own unit. For a flagged row: money caught = ``C_FN - C_TP`` on a
positive, alert cost = ``C_FP - C_TN`` on a negative, net money = their difference summed,
i.e. the money saved against flagging nothing (:mod:`csboost_plugins.decision_costs`).
"""

from ._capacity_curve import CapacityCurveDisplay
from ._money_by_period import MoneyByPeriodDisplay
from ._money_curve import MoneyCurveDisplay
from ._money_per_round import MoneyPerRoundDisplay
from ._rule_monitor import RuleMonitorDisplay
from ._rule_waterfall import RuleWaterfallDisplay
from ._threshold_scaling import ThresholdScalingDisplay
from ._walk_forward import WalkForwardDisplay

__all__ = ["MoneyCurveDisplay", "RuleWaterfallDisplay", "MoneyPerRoundDisplay", "ThresholdScalingDisplay",
           "CapacityCurveDisplay", "MoneyByPeriodDisplay", "RuleMonitorDisplay", "WalkForwardDisplay"]
