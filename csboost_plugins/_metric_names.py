"""Metric names and their direction: the one registry the boosting plugins, early stopping, cross-validated
model choice and the plots read.

A value is True when higher is better (a savings share), False when lower is better (a cost or a loss).
"""

from __future__ import annotations

__all__ = ["MONEY_METRICS", "HOST_METRICS", "HIGHER_IS_BETTER", "lower_is_better"]

#: The library's money metrics, in the order the plugins evaluate them every round: "aec", the average
#: expected cost (money per row, csboost paper eq. 7); "expected_savings" (eq. 8) and "savings" (eq. 5 of the
#: 0/1 decisions), unitless shares of the cheaper trivial policy's cost.
MONEY_METRICS = {"aec": False, "expected_savings": True, "savings": True}
#: Metrics of the host libraries (and a total "cost") that appear beside them in ``evals_result_``.
HOST_METRICS = {"cost": False, "logloss": False, "binary_logloss": False, "error": False, "rmse": False}
#: Every known metric name -> higher is better.
HIGHER_IS_BETTER = {**MONEY_METRICS, **HOST_METRICS}


def lower_is_better(name: str) -> bool:
    """True for a known metric where lower is better; False for higher-is-better and unknown names.

    Parameters
    ----------
    name : str
        A metric name as in ``evals_result_``.

    Returns
    -------
    bool
    """
    return HIGHER_IS_BETTER.get(name) is False
