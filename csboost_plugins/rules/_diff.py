"""What changed between two rule sets, rule by rule: the table behind ``RuleSet.diff``."""

from __future__ import annotations

import numpy as np

__all__ = ["rule_book_diff"]


def _change(old, new, old_action, new_action):
    """The ``change`` of one rule name: "added", "dropped", "kept" (same text, meaning and action), "dialect
    changed" (same text, read in dialects where it flags other rows), "retuned" (other text), each of the last
    two followed by ", action changed" when the action differs too, or "action changed" (only the action)."""
    if old is None:
        return "added"
    if new is None:
        return "dropped"
    if str(old) != str(new):
        text = "retuned"
    else:
        text = "kept" if _same_meaning(old, new) else "dialect changed"
    if old_action == new_action:
        return text
    return "action changed" if text == "kept" else f"{text}, action changed"


def rule_book_diff(old, new, X=None, y=None, *, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0,
                   tn_cost=0.0, cost_matrix=None, pos_label=None):
    """What changed from rule set ``old`` to ``new``, rule by rule (see :meth:`RuleSet.diff`)."""
    import pandas as pd

    olds = dict(zip(old.names, old.rules))
    news = dict(zip(new.names, new.rules))
    old_act = dict(zip(old.names, old.actions_))
    new_act = dict(zip(new.names, new.actions_))
    names = list(olds) + [k for k in news if k not in olds]
    rows = []
    for k in names:
        o, n_ = olds.get(k), news.get(k)
        ot = None if o is None else str(o)
        nt = None if n_ is None else str(n_)
        rows.append({"name": k, "change": _change(o, n_, old_act.get(k), new_act.get(k)), "old_rule": ot,
                     "new_rule": nt, "old_action": old_act.get(k), "new_action": new_act.get(k)})
    # the action columns only for books with actions: a plain book's rules are all 'review'
    columns = ["name", "change", "old_rule", "new_rule"] + \
        (["old_action", "new_action"] if old.has_actions or new.has_actions else [])
    out = pd.DataFrame(rows, columns=columns)
    if X is None:
        if y is not None:
            raise ValueError("y was given without X: give both to show the money each version books")
        return out
    if y is None:
        raise ValueError("X was given without y: give both to show the money each version books")
    kw = dict(sample_weight=sample_weight, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
              cost_matrix=cost_matrix, pos_label=pos_label)
    col = "net_money" if (fn_cost is not None or fp_cost is not None or cost_matrix is not None) else "tp"
    for label, rs, rules in (("old", old, olds), ("new", new, news)):
        tab = rs.evaluate(X, y, per_rule=True, last_rule="include", **kw) if len(rs) else None
        vals = {} if tab is None else dict(zip(rs.names, tab[col]))
        out[f"{label}_{col}"] = [vals.get(k, np.nan) for k in names]
    return out


def _same_meaning(old, new):
    """Whether two rules of the same text flag the same rows: their dialects give it one meaning.

    The text alone does not fix the meaning (``a / b`` divides integers in SQLite, in IEEE arithmetic in
    DuckDB), so both rules are written in each one's dialect, where the writer keeps the meaning: equal
    texts in both dialects mean the same rows; a construct a dialect cannot state means they differ.
    """
    do, dn = getattr(old, "dialect", None), getattr(new, "dialect", None)
    if do == dn:
        return True
    try:
        return all(old.to_sql(d) == new.to_sql(d) for d in (do, dn))
    except ValueError:  # one meaning cannot be written in the other's dialect
        return False
