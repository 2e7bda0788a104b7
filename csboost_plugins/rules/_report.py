"""The money of a rule set, against both trivial baselines, and the per-rule holdout table.

Money comes from :mod:`csboost_plugins.decision_costs` (costs in their own unit, e.g.
currency per row). For a row flagged with probability ``p``:

* money caught = ``p (C_FN - C_TP)`` on a positive (loss prevented, net of the cost
  of handling a true alert),
* alert cost = ``p (C_FP - C_TN)`` on a negative (the cost of a false alert),
* so the set's cost is ``Cost(no rules) - money caught + alert cost``; its ``net_money``
  = money caught - alert cost is the money saved against running no rules.
"""

from __future__ import annotations

import numpy as np

from .._reduce import group_sums
from ..decision_costs import decision_costs, misclassification_costs, row_cost, savings_from_costs

__all__ = ["metrics_from_sums", "per_rule_sums", "per_rule_table", "set_sums", "table_from_sums"]


def _ratio(a, b):
    return a / b if b > 0 else float("nan")


def set_sums(p, y, w, costs) -> dict:
    """The additive sums behind :func:`metrics_from_sums` (partitions of a data set add up): one group of
    :func:`csboost_plugins._reduce.group_sums`."""
    pos, neg = w * (y == 1), w * (y == 0)
    names, terms = ["tp", "fp", "npos", "nneg", "ntot"], [(p, pos), (p, neg), pos, neg, w]
    if costs is not None:
        caught_per_row, alert_per_row = misclassification_costs(costs)
        c0, c1 = decision_costs(y, costs)
        names += ["money_caught", "money_at_risk", "alert_cost", "cost", "cost_no_rules", "cost_flag_all"]
        terms += [(p * pos, caught_per_row), (pos, caught_per_row), (p * neg, alert_per_row),
                  (row_cost(y, p, costs), w), (c0, w), (c1, w)]
    return dict(zip(names, group_sums(None, 1, terms)[0].tolist()))


def metrics_from_sums(s: dict, n_rules: int) -> dict:
    """Set-level figures (see :meth:`RuleSet.evaluate`) from :func:`set_sums` (summed over partitions)."""
    tp, fp = s["tp"], s["fp"]
    out = {"n_rules": n_rules, "tpr": _ratio(tp, s["npos"]), "fpr": _ratio(fp, s["nneg"]),
           "alert_rate": _ratio(tp + fp, s["ntot"]), "precision": _ratio(tp, tp + fp)}
    if "money_caught" not in s:
        return out
    out["money_caught"], out["money_at_risk"] = s["money_caught"], s["money_at_risk"]
    out["money_recall"] = _ratio(out["money_caught"], out["money_at_risk"])
    out["alert_cost"] = s["alert_cost"]
    out["net_money"] = out["money_caught"] - out["alert_cost"]
    out["cost"] = s["cost"]
    none, flag_all = s["cost_no_rules"], s["cost_flag_all"]
    out["cost_no_rules"], out["cost_flag_all"] = none, flag_all
    base = min(none, flag_all)
    out["savings"] = savings_from_costs(out["cost"], base) if base != 0 else float("nan")
    out["savings_baseline"] = "no rules" if none <= flag_all else "flag all"
    out["savings_vs_no_rules"] = savings_from_costs(out["cost"], none) if none != 0 else float("nan")
    return out


def unique_sums(cover, prob, P) -> np.ndarray:
    """(k, m) sums of the columns of P over the rows each rule flags alone.

    Row i counts for rule j with weight ``prob_j * cover_ij * prod_{l != j, cover_il} (1 - prob_l)``:
    the probability that j flags it and no other rule in force does, i.e. what the set expects
    to lose on that row without rule j. Rules always in force (prob 1) are read at once from the
    rows exactly one of them flags (their owner by ``argmax``); each randomised rule by a mask.
    """
    n, k = cover.shape
    prob = np.asarray(prob, dtype=np.float64)
    sure = prob >= 1.0
    out = np.zeros((k, P.shape[1]))
    if k == 0 or n == 0:
        return out
    rest = np.ones(n)  # prod over covering randomised rules of (1 - p)
    for j in np.flatnonzero(~sure):
        rest[cover[:, j]] *= 1.0 - prob[j]
    sure_idx = np.flatnonzero(sure)
    n_sure = cover[:, sure_idx].sum(axis=1) if len(sure_idx) else np.zeros(n, np.int64)
    one = np.flatnonzero(n_sure == 1)
    if len(one):
        owner = sure_idx[np.argmax(cover[np.ix_(one, sure_idx)], axis=1)]
        wrow = rest[one][:, None] * P[one]
        for c in range(P.shape[1]):
            out[:, c] += np.bincount(owner, weights=wrow[:, c], minlength=k)
    for j in np.flatnonzero(~sure):  # its own (1 - p) is not part of "no other rule flags"
        rows = cover[:, j] & (n_sure == 0)
        out[j] += (rest[rows] / (1.0 - prob[j]) * prob[j]) @ P[rows]
    return out


def part_names(costs) -> list:
    """Names of the per-row parts :func:`per_rule_sums` adds per rule: the row's weight as a positive (``tp``) and
    as a negative (``fp``) and, with costs, the money a flagged positive catches and a flagged negative's alert
    cost."""
    return ["tp", "fp"] + ([] if costs is None else ["money_caught", "alert_cost"])


def sums_dict(pos, neg, names, alone, first, sole) -> dict:
    """:func:`per_rule_sums`'s dict from the (k, parts) sums over the rows each rule covers (``alone``), is the
    first to cover (``first``) and covers alone (``sole``); ``npos`` / ``nneg``: numpy's sums of the weights."""
    s = {"npos": np.array([pos.sum()]), "nneg": np.array([neg.sum()])}
    for i, name in enumerate(names):
        s[name], s["first_" + name], s["unique_" + name] = alone[:, i].copy(), first[:, i].copy(), sole[:, i].copy()
    return s


def per_rule_sums(cover, first, y, w, costs, prob=None) -> dict:
    """The additive per-rule sums behind :func:`per_rule_table` (partitions of a data set add up).

    ``cover``: (n, k) coverage matrix; ``first``: index of each row's first covering rule (-1: none);
    ``prob``: each rule's probability of being in force (ones when None).
    Keys: ``npos``, ``nneg`` (shape (1,)); per rule (shape (k,)), over the rows it covers: ``tp``,
    ``fp`` (weights), with costs ``money_caught``, ``alert_cost``; the same over the rows it is the
    first to cover, prefixed ``first_``; and over the rows no other rule in force flags (each row
    weighted as in :func:`unique_sums`), prefixed ``unique_``.
    """
    k = cover.shape[1]
    prob = np.ones(k) if prob is None else np.asarray(prob, dtype=np.float64)
    pos, neg = w * (y == 1), w * (y == 0)
    parts = [pos, neg]
    if costs is not None:
        caught_per_row, alert_per_row = misclassification_costs(costs)
        parts += [pos * caught_per_row, neg * alert_per_row]
    P = np.column_stack([np.asarray(part, dtype=np.float64) for part in parts])
    alone = np.zeros((k, P.shape[1]))
    for a in range(0, cover.shape[0], 16384):  # row blocks: a (k x block) 0/1 matrix times the parts (BLAS)
        alone += cover[a:a + 16384].T.astype(np.float64) @ P[a:a + 16384]
    hit = np.flatnonzero(first >= 0)  # the flagged rows, gathered once for every part
    owner, P_hit = first[hit], P[hit]
    firsts = np.column_stack([np.bincount(owner, weights=P_hit[:, i], minlength=k) for i in range(P.shape[1])])
    return sums_dict(pos, neg, part_names(costs), alone, firsts, unique_sums(cover, prob, P))


def per_rule_table(rules, cover, first, y, w, costs):
    """DataFrame, one row per rule in order (see :meth:`RuleSet.evaluate` with ``per_rule=True``).

    ``cover``: (n, k) coverage matrix; ``first``: index of each row's first covering rule (-1: none).
    """
    return table_from_sums(rules, per_rule_sums(cover, first, y, w, costs, rules.rule_probabilities))


def table_from_sums(rules, s):
    """The per-rule DataFrame of the RuleSet ``rules`` from :func:`per_rule_sums` (summed over partitions)."""
    import pandas as pd

    k = len(rules)
    prob = rules.rule_probabilities
    npos, nneg = float(s["npos"][0]), float(s["nneg"][0])
    tp, fp = s["tp"], s["fp"]
    new_tp, new_fp = s["first_tp"] * prob, s["first_fp"] * prob  # what the rule adds, times its probability
    cum_tp, cum_fp = np.cumsum(new_tp), np.cumsum(new_fp)
    with np.errstate(invalid="ignore", divide="ignore"):
        cols = {
            "name": list(rules.names),
            "rule": [str(r) for r in rules],
            "probability": prob,
            "flagged": tp + fp,
            "tp": tp,
            "fp": fp,
            "precision": np.where(tp + fp > 0, tp / (tp + fp), np.nan),
            "recall": tp / npos if npos > 0 else np.full(k, np.nan),
            "fpr": fp / nneg if nneg > 0 else np.full(k, np.nan),
            "new_tp": new_tp,
            "new_fp": new_fp,
            "set_recall": cum_tp / npos if npos > 0 else np.full(k, np.nan),
            "set_fpr": cum_fp / nneg if nneg > 0 else np.full(k, np.nan),
            "set_precision": np.where(cum_tp + cum_fp > 0, cum_tp / (cum_tp + cum_fp), np.nan),
            "unique_tp": s["unique_tp"],
            "unique_fp": s["unique_fp"],
        }
    if "money_caught" in s:
        caught, alert = s["money_caught"], s["alert_cost"]
        new_caught, new_alert = s["first_money_caught"] * prob, s["first_alert_cost"] * prob
        cols.update({
            "money_caught": caught,
            "alert_cost": alert,
            "net_money": caught - alert,
            "new_money_caught": new_caught,
            "new_alert_cost": new_alert,
            "set_money_caught": np.cumsum(new_caught),
            "set_alert_cost": np.cumsum(new_alert),
            "set_net_money": np.cumsum(new_caught) - np.cumsum(new_alert),
            "unique_money_caught": s["unique_money_caught"],
            "unique_alert_cost": s["unique_alert_cost"],
            "unique_net_money": s["unique_money_caught"] - s["unique_alert_cost"],
        })
    return pd.DataFrame(cols, index=pd.RangeIndex(1, k + 1, name="rule_no"))


# ---------------------------------------------------------------- rule books with actions (first match wins)
#: code of each action in the per-row action arrays (0: no rule matches)
ACTION_CODES = {"allow": 1, "block": 2, "review": 3}


def read_decline_cost(decline_cost, X, n):
    """``decline_cost`` as None or a finite float64 array of n rows (its pandas index checked against X's)."""
    from .._cost_columns import _as_cost_column, check_same_index

    if decline_cost is None:
        return None
    check_same_index([("X", X), ("decline_cost", decline_cost)])
    return np.broadcast_to(np.asarray(_as_cost_column(decline_cost, "decline_cost", n), dtype=np.float64),
                           (n,)).copy()


def _action_parts(y, w, costs, decline):
    """Per row, the (n, m) parts a flag books under each action: columns ``tp``, ``fp`` and, with costs,
    ``money_caught`` (``C_FN - C_TP`` on a positive) and ``alert_cost`` (``C_FP - C_TN`` on a negative under
    review, ``decline_cost - C_TN`` under block). Returns (names, {code: parts}); allow and no rule book 0."""
    pos, neg = w * (y == 1), w * (y == 0)
    names, review, block = ["tp", "fp"], [pos, neg], [pos, neg]
    if costs is not None:
        caught, alert = misclassification_costs(costs)
        declined = alert if decline is None else decline - costs[:, 3]
        names += ["money_caught", "alert_cost"]
        review += [pos * caught, neg * alert]
        block += [pos * caught, neg * declined]
    zero = np.zeros((len(y), len(names)))
    return names, {0: zero, ACTION_CODES["allow"]: zero, ACTION_CODES["block"]: np.column_stack(block),
                   ACTION_CODES["review"]: np.column_stack(review)}


def _booked(parts, codes):
    """Per row, the parts of the action ``codes`` gives it (an (n, m) array)."""
    out = np.zeros_like(parts[0])
    for code, P in parts.items():
        rows = codes == code
        out[rows] = P[rows]
    return out


def _first_codes(rules, first):
    """The action code of each row's first match (0 where none)."""
    return np.append([ACTION_CODES[a] for a in rules.actions_], 0).astype(np.int64)[first]


def action_set_sums(rules, first, y, w, costs, decline) -> dict:
    """The additive sums behind :func:`action_set_metrics` (partitions of a data set add up): :func:`set_sums` of
    the flagged rows, the declines' extra cost, and the weighted rows each action decides."""
    codes = _first_codes(rules, first)
    flagged = (codes >= ACTION_CODES["block"]).astype(np.float64)
    s = set_sums(flagged, y, w, costs)
    if costs is not None and decline is not None:
        extra = float((w * (y == 0) * (codes == ACTION_CODES["block"])) @ (decline - costs[:, 0]))
        s["alert_cost"] += extra  # a declined customer instead of a reviewed one
        s["cost"] += extra
    for name, code in ACTION_CODES.items():
        s["n_" + name] = float(w[codes == code].sum())
    return s


def action_set_metrics(s, n_rules) -> dict:
    """Set-level figures of a rule book read top-down (see :meth:`RuleSet.evaluate`) from :func:`action_set_sums`:
    a row is flagged when the first rule matching it blocks or reviews it; a blocked negative costs ``decline``
    (``C_FP`` when None) instead of ``C_FP``. Adds the weighted counts ``allowed``, ``blocked``, ``reviewed``."""
    counts = {name: s[name] for name in s if name.startswith("n_") and name[2:] in ACTION_CODES}
    out = metrics_from_sums({k: v for k, v in s.items() if k not in counts}, n_rules)
    for name in ("allow", "block", "review"):
        out[{"allow": "allowed", "block": "blocked", "review": "reviewed"}[name]] = counts["n_" + name]
    return out


def second_match(cover, first):
    """Each row's second matching rule (-1: none), from the (n, k) matches and the first match ``first``."""
    k = cover.shape[1]
    if not k:
        return first
    hit = first >= 0
    rest = cover.copy()
    rest[np.flatnonzero(hit), first[hit]] = False
    return np.where(rest.any(axis=1), np.argmax(rest, axis=1), -1)


def action_rule_sums(rules, cover, y, w, costs, decline) -> dict:
    """The additive per-rule sums behind :func:`action_table_from_sums` (partitions of a data set add up).

    ``cover``: (n, k) matches of each rule's condition. A row's first match ``f`` books the parts of its
    action; without rule ``j`` the rows ``j`` matches first fall to their next match ``s`` (none: nothing), so
    the book loses exactly ``sum over rows with f = j of (parts[a_j] - parts[a_s])``, the ``unique_`` sums
    (negative for an allow rule that exempts rows a rule below it would flag profitably, and so on).
    """
    n, k = cover.shape
    hit = cover.any(axis=1) if k else np.zeros(n, bool)
    first = np.where(hit, np.argmax(cover, axis=1) if k else 0, -1)
    second = second_match(cover, first)
    code_of = np.append([ACTION_CODES[a] for a in rules.actions_], 0).astype(np.int64)
    names, parts = _action_parts(y, w, costs, decline)
    now, then = _booked(parts, code_of[first]), _booked(parts, code_of[second])
    matched = parts[ACTION_CODES["review"]]  # what a rule's condition matches (tp, fp), booked as a flag
    s = {"npos": np.array([float((w * (y == 1)).sum())]), "nneg": np.array([float((w * (y == 0)).sum())])}
    for i, name in enumerate(names):
        first_sum = np.bincount(first[hit], weights=now[hit, i], minlength=k).astype(np.float64)
        lost = np.bincount(first[hit], weights=now[hit, i] - then[hit, i], minlength=k).astype(np.float64)
        if name in ("tp", "fp"):
            alone = cover.T.astype(np.float64) @ matched[:, i]
        else:  # the money of the rule's action alone (0 for an allow rule)
            alone = np.array([cover[:, j].astype(np.float64) @ parts[code_of[j]][:, i] for j in range(k)])
        s[name], s["first_" + name], s["unique_" + name] = alone, first_sum, lost
    s["first_matched"] = np.bincount(first[hit], weights=w[hit], minlength=k).astype(np.float64)
    return s


def action_table_from_sums(rules, s):
    """The per-rule DataFrame of a rule book read top-down (see :meth:`RuleSet.evaluate` with ``per_rule=True``)
    from :func:`action_rule_sums` (summed over partitions)."""
    table = table_from_sums(rules, s)
    table.insert(1, "action", list(rules.actions_))
    table.insert(table.columns.get_loc("new_tp"), "first_matched", s["first_matched"])
    return table
