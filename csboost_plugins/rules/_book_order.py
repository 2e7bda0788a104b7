"""A rule book with actions optimised in its own order (:func:`optimize_rule_book` on a book with ``"allow"`` or
``"block"`` rules).

A book read top-down (first match wins) books, on each row, the figures of the first rule matching it. With the
other rules fixed, the book's net money as a function of rule ``j``'s matches ``M_j`` is linear:

    net(book) = const + sum over rows in M_j of D_j,
    D_j = [no rule above j matches the row] * (v(a_j) - v(a_s)),

``v(a)`` the row's money under action ``a`` (0 for allow and for no rule) and ``s`` the first rule below ``j``
matching the row. The alerts of the budget (false alerts, or alerts) are linear in ``M_j`` the same way, so
:func:`._book.retune_rule` re-tunes each rule's literals, one rule after the other in the book's order, against
the whole book's net money under the budget, on one half of the rows; a re-tuned version is kept only if the
book's net money on the other half does not fall and the book stays within the budget there.
"""

from __future__ import annotations

import numpy as np

from ._report import ACTION_CODES, _action_parts

__all__ = ["money_in_order", "optimize_in_order"]


def _row_values(book, y, w, costs, decline, budget_kind):
    """(n, k) per rule and row: the row's money (``money_caught - alert_cost``; counts: ``tp - fp``) and alerts
    of the budget (``fp``; ``tp + fp`` for the alert rate) if the rule's action applied to it."""
    names, parts = _action_parts(y, w, costs, decline)
    col = {name: i for i, name in enumerate(names)}
    money, alerts = {}, {}
    for code, P in parts.items():
        money[code] = P[:, col["money_caught"]] - P[:, col["alert_cost"]] if costs is not None \
            else P[:, col["tp"]] - P[:, col["fp"]]
        alerts[code] = P[:, col["fp"]] + (P[:, col["tp"]] if budget_kind == "alert_rate" else 0.0)
    codes = [ACTION_CODES[a] for a in book.actions_]
    return money, alerts, codes


def _book_sums(cover, money, alerts, codes):
    """(net money, alerts) of the book whose rules match ``cover`` (n, k), read top-down."""
    if not cover.shape[1]:
        return 0.0, 0.0
    code = np.where(cover.any(axis=1), np.asarray(codes + [0])[np.argmax(cover, axis=1)], 0)
    net = sum(float(money[c][code == c].sum()) for c in money)
    spent = sum(float(alerts[c][code == c].sum()) for c in alerts)
    return net, spent


def _marginal(cover, j, money, alerts, codes):
    """(n, 2): per row, what matching rule j changes in the book's (net money, alerts) (the module's D_j)."""
    n = cover.shape[0]
    above = cover[:, :j].any(axis=1)
    below = cover[:, j + 1:]
    nxt = np.where(below.any(axis=1), np.argmax(below, axis=1) + j + 1, len(codes)) if below.shape[1] \
        else np.full(n, len(codes))
    code_next = np.asarray(codes + [0])[nxt]
    out = np.zeros((n, 2))
    for c in money:
        rows = code_next == c
        out[rows, 0] -= money[c][rows]
        out[rows, 1] -= alerts[c][rows]
    out[:, 0] += money[codes[j]]
    out[:, 1] += alerts[codes[j]]
    out[above] = 0.0
    return out


def optimize_in_order(book, X, y, w, costs, decline, budget, rng, fnames, rows_of, split, retune_rule):
    """The book with each rule re-tuned in turn (order, names and actions kept): see the module doc.

    ``rows_of(X, idx)`` takes rows of X, ``split`` and ``retune_rule`` are :mod:`._book`'s (passed in: that
    module calls this one); ``budget`` is the :class:`._select.Budget`. Returns the new RuleSet, its
    ``selection`` holding the budget, the two halves' row positions and each rule's ``origin``."""
    from ._ruleset import RuleSet

    parts = split(y, {"retune": 0.5, "selection": 0.5}, rng)
    halves = {}
    for part, idx in parts.items():
        ww = np.ones(len(idx)) if w is None else w[idx]
        money, alerts, codes = _row_values(book, y[idx], ww, None if costs is None else costs[idx],
                                           None if decline is None else decline[idx], budget.kind)
        denom = float(ww.sum() if budget.kind == "alert_rate" else (ww * (y[idx] == 0)).sum())
        halves[part] = (rows_of(X, idx), money, alerts, codes, budget.rate * denom)
    Xr, money_r, alerts_r, codes, limit_r = halves["retune"]
    Xs, money_s, alerts_s, _, limit_s = halves["selection"]
    rules, origin = list(book.rules), ["book"] * len(book)

    def cover_of(Xp, rs):
        return RuleSet(rs, feature_names=fnames, names=list(book.names)).coverage(Xp)

    for j, rule in enumerate(book.rules):
        cover = cover_of(Xr, rules)
        D = _marginal(cover, j, money_r, alerts_r, codes)
        rest = cover.copy()
        rest[:, j] = False
        _, spent_rest = _book_sums(rest, money_r, alerts_r, codes)  # the book's alerts where rule j matches nothing
        new = retune_rule(rule, Xr, D, lambda s: float(s[0]) if spent_rest + s[1] <= limit_r else -np.inf,
                          feature_names=fnames)
        if new is rule:
            continue
        old_net, _ = _book_sums(cover_of(Xs, rules), money_s, alerts_s, codes)
        new_net, new_spent = _book_sums(cover_of(Xs, rules[:j] + [new] + rules[j + 1:]), money_s, alerts_s, codes)
        if new_net >= old_net and new_spent <= limit_s:
            rules[j], origin[j] = new, "retuned"
    out = RuleSet(rules, feature_names=fnames, names=list(book.names), actions=list(book.actions_))
    out.selection = {"criterion": budget.kind, "budget": budget.rate, "order": "book",
                     "parts": {k: int(len(v)) for k, v in parts.items()}, "selection_index": parts["selection"],
                     "retune_index": parts["retune"], "origin": dict(zip(out.names, origin))}
    return out


def money_in_order(book, y, w, costs, decline):
    """``row_money`` of :func:`._book_choose.cross_fit` for books with actions: each held-out row's money
    (``money_caught - alert_cost`` of the action of the first rule matching it, a block's alert costing
    ``decline``; 0 when allowed or unmatched), the rows given by position among ``y``'s."""
    money, _, _ = _row_values(book, y, np.ones(len(y)) if w is None else w, costs, decline, "fpr")

    def row_money(rs, Xh, idx, flags):
        out = np.zeros(len(idx))
        if not len(rs):
            return out
        codes = np.append([ACTION_CODES[a] for a in rs.actions_], 0).astype(np.int64)[rs.apply(Xh)]
        for code, m in money.items():
            rows = codes == code
            out[rows] = m[idx][rows]
        return out

    return row_money
