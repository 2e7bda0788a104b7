"""The fitted decision of a boosting estimator as data: the ``decision_rule`` field of ``save_model``'s
file, and the same rule as a SQL boolean expression (``decision_sql``).

The rule maps a row's probability ``p`` (what plain ``Booster.predict`` of the saved file returns,
sigmoid of the margin) and, for Bayes minimum risk, the row's costs to alert / no alert, exactly as
``predict`` does:

* ``"bmr"`` (Bayes minimum risk, csboost paper eq. 2): alert iff the expected money of an alert is
  lower, ``p C_TP + (1 - p) C_FP < p C_FN + (1 - p) C_TN``; where
  ``C_FN - C_TP + C_FP - C_TN > 0`` this is ``p > (C_FP - C_TN) / (C_FN - C_TP + C_FP - C_TN)``.
* ``"threshold"``: alert iff ``p > threshold`` (0.5: the AEC model's own decision, margin > 0).

The field (JSON) is ``{"with_costs": "bmr" | "threshold", "without_costs": {"threshold": 0.5} | null,
"rule": decision_, "formula": text}``: ``with_costs`` is the rule of ``predict(X, fp_cost=..., ...)``,
``without_costs`` the one of ``predict(X)`` (null: the rows' costs are required, as ``predict``
says).
"""

from __future__ import annotations

import math
import numbers

from .._sqlglot import sqlglot_exp

__all__ = ["BMR_FORMULA", "decision_rule", "decision_sql"]

#: the per-row Bayes-minimum-risk rule, as the saved field states it
BMR_FORMULA = ("alert iff p * C_TP + (1 - p) * C_FP < p * C_FN + (1 - p) * C_TN, i.e. where "
               "C_FN - C_TP + C_FP - C_TN > 0: p > (C_FP - C_TN) / (C_FN - C_TP + C_FP - C_TN)")


def decision_rule(decision, decision_, unit_costs) -> dict:
    """The ``decision_rule`` field of a fitted estimator (see the module docstring).

    Parameters
    ----------
    decision : {"auto", "0.5", "bmr"}
        The estimator's ``decision`` parameter.
    decision_ : {"aec", "aec+bmr", "logloss+bmr"}
        Its fitted rule.
    unit_costs : bool
        True when it was fitted without costs (``predict(X)`` then uses unit costs, i.e. p > 1/2).

    Returns
    -------
    dict
        JSON-serialisable.
    """
    if decision == "auto" and decision_ == "aec":  # costs are not used: margin > 0
        return {"rule": decision_, "with_costs": "threshold", "without_costs": {"threshold": 0.5},
                "formula": "alert iff p > 0.5 (margin > 0)"}
    costs_needed = decision == "auto" and not unit_costs
    return {"rule": decision_, "with_costs": "bmr", "without_costs": None if costs_needed else {"threshold": 0.5},
            "formula": BMR_FORMULA + ("" if costs_needed else "; without costs: alert iff p > 0.5 (margin > 0)")}


def _sqlglot_exp():
    return sqlglot_exp("decision_sql")


def _operand(exp, name, value):
    """A quoted column for a str, a numeric literal for a finite number; ``TypeError`` / ``ValueError`` else."""
    if isinstance(value, str):
        if not value:
            raise ValueError(f"{name} is an empty column name")
        return exp.Column(this=exp.Identifier(this=value, quoted=True))
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a column name (str) or a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def _number(exp, v):
    lit = exp.Literal.number(repr(abs(v)))  # shortest round-trip decimal: the float64 predict uses
    return exp.Neg(this=lit) if v < 0 else lit


def _times(exp, a, b):
    """``a * b`` with a literal 0 dropped (exact: numpy's ``x * 0.0`` then ``+`` adds a zero)."""
    if isinstance(b, float):
        return None if b == 0.0 else exp.Mul(this=a, expression=_number(exp, b))
    return exp.Mul(this=a, expression=b)


def _sum(exp, a, b):
    if a is None and b is None:
        return _number(exp, 0.0)
    if a is None or b is None:
        return a if b is None else b
    return exp.Add(this=a, expression=b)


def decision_sql(rule, proba="p", *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, dialect=None) -> str:
    """The decision ``rule`` (:func:`decision_rule`) as a SQL boolean expression (see the estimators'
    ``decision_sql``)."""
    exp = _sqlglot_exp()
    if not isinstance(proba, str) or not proba:
        raise TypeError(f"proba must be the probability column's name (a non-empty str), got {proba!r}")
    p = exp.Column(this=exp.Identifier(this=proba, quoted=True))
    no_costs = fp_cost is None and fn_cost is None
    if rule["with_costs"] == "threshold" or no_costs:
        if rule["with_costs"] == "bmr" and rule["without_costs"] is None:
            raise ValueError(f"this model decides by {rule['rule']!r} (Bayes minimum risk with each row's costs): "
                             "pass the cost columns or numbers, decision_sql(proba, fp_cost=..., fn_cost=...)")
        node = exp.GT(this=p, expression=_number(exp, float(rule["without_costs"]["threshold"])))
    else:
        if fp_cost is None or fn_cost is None:
            raise ValueError("give both fp_cost and fn_cost (a column name or a number each)")
        fp, fn, tp, tn = (_operand(exp, k, v) for k, v in
                          (("fp_cost", fp_cost), ("fn_cost", fn_cost), ("tp_cost", tp_cost), ("tn_cost", tn_cost)))
        q = exp.Paren(this=exp.Sub(this=_number(exp, 1.0), expression=p))
        # the expected money of an alert and of none, written as bmr_decisions computes them
        alert = _sum(exp, _times(exp, p, tp), _times(exp, q, fp))
        none = _sum(exp, _times(exp, p, fn), _times(exp, q, tn))
        node = exp.LT(this=alert, expression=none)
    return exp.Paren(this=node).sql(dialect=dialect)
