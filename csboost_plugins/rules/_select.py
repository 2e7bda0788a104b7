"""riff_select: RIFF's greedy rule selection (Algorithm 1) with the randomised last rule."""

from __future__ import annotations

import numbers

import numpy as np

from .._rows import check_cost_keywords, dask_labels, read_rows
from .._validation import costs_given
from ..costs import check_costs
from . import _dask_select
from .._dask_blocks import is_dask
from ._data import as_float_matrix
from ._evaluate import ConditionTrie, compile_conditions, rule_mask_rows
from ._greedy import NEG, NET, POS, Budget, greedy, row_weights, selection_stats
from ._refine import PRUNE_TOLERANCE, conditions_mask, prune_rule, refine_rule
from ._rule import Rule
from ._ruleset import RuleSet
from ._scores import check_prior, check_rank_by, make_score, money_eps, resolve_prior
from ._simplify import _simplify

__all__ = ["riff_select"]


def _check_rate(v, name):
    v = float(v)
    if not 0.0 < v <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {v}")
    return v


def _check_max_rules(max_rules):
    """None or an integer >= 1 (as RIFFClassifier's parameter check), returned as int."""
    if max_rules is None:
        return None
    if isinstance(max_rules, (bool, np.bool_)) or not isinstance(max_rules, (int, np.integer)):
        raise TypeError(f"max_rules must be None or an integer >= 1, got {type(max_rules).__name__} {max_rules!r}")
    if max_rules < 1:
        raise ValueError(f"max_rules must be None or an integer >= 1, got {max_rules}")
    return int(max_rules)


class _Cover:
    """The greedy loop's ``cover`` callback in memory: takes candidate ``r`` (pruned / refined on the
    uncovered rows D' with the selection's score when asked), removes the rows it covers from D' and
    returns their weight sums and the candidates' sums over them
    (:func:`csboost_plugins.rules._greedy.greedy`)."""

    def __init__(self, candidates, Xf, W, trie, cc, *, score, budget, refine, prune, eps, stop_unprofitable):
        self.candidates, self.Xf, self.W, self.trie, self.cc = candidates, Xf, W, trie, cc
        self.score, self.bcol, self.refine, self.prune = score, budget.column, refine, prune
        self.eps, self.stop_unprofitable = eps, stop_unprofitable
        self.money = score.name == "money"
        totals = W.sum(axis=0)
        self.gain_eps = money_eps(totals) if self.money else 1e-12 * totals[POS]
        self.uncovered, self.rules = np.arange(Xf.shape[0], dtype=np.int64), []

    def __call__(self, r, remaining):
        Xf, W, uncovered = self.Xf, self.W, self.uncovered
        rule, stop = self.candidates[r], False
        if self.refine or self.prune is not None:  # on D' = the uncovered rows, with the same score as the ranking
            Xu, cu = _RowsOf(Xf, uncovered), W[uncovered, self.bcol]
            a, b = self.score.columns(W[uncovered])
            if self.prune is not None:
                rule = prune_rule(rule, Xu, a, b, tolerance=self.prune, score=self.score)
            if self.refine:
                rule = refine_rule(rule, Xu, a, b, score=self.score)
                if cu[conditions_mask(rule.conditions, Xu)].sum() > remaining:
                    # the rule crosses the budget: the cut that fills it with the most gain, not a coin flip
                    filled = refine_rule(rule, Xu, a, b, score=self.score, cost=cu, max_cost=remaining)
                    gained = W[uncovered[conditions_mask(filled.conditions, Xu)], self.score.gain].sum()
                    if gained > self.gain_eps:  # a cut that catches nothing would only spend budget
                        stop, rule = filled is not rule, filled
            if self.money and self.stop_unprofitable and rule is not self.candidates[r] \
                    and W[uncovered[conditions_mask(rule.conditions, Xu)], NET].sum() <= self.eps:
                rule, stop = self.candidates[r], False  # the modified rule would lose money: keep the candidate's own
        self.rules.append(rule)
        hit = rule_mask_rows(Xf, uncovered, r, self.cc) if rule is self.candidates[r] else \
            conditions_mask(rule.conditions, Xu)
        new = uncovered[hit]
        self.uncovered = uncovered[~hit]
        if not len(new):
            return np.zeros(W.shape[1]), None, stop
        Wn = W[new]
        return Wn.sum(axis=0), self.trie.sums(Xf, new, Wn), stop


class _RowsOf:
    """``Xf[rows]`` for the functions that prune and refine one rule (``prune_rule``, ``refine_rule``,
    ``conditions_mask``), read a column at a time when first asked: they read only the rule's columns
    (``X[:, j]``, ``X[mask, j]``, ``X.shape``), each then contiguous (``Xf`` is Fortran-ordered), where
    ``Xf[rows]`` would copy every column into rows."""

    def __init__(self, Xf, rows):
        self.Xf, self.rows, self.shape, self.columns = Xf, rows, (len(rows), Xf.shape[1]), {}

    def __getitem__(self, key):
        rows, j = key
        if j not in self.columns:
            self.columns[j] = self.Xf[:, j].take(self.rows)
        col = self.columns[j]
        return col if isinstance(rows, slice) and rows == slice(None) else col[rows]


def _cost_keywords(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix):
    """The cost keywords of a selection, or None (no costs). Any cost given (tp_cost / tn_cost alone
    too: check_costs then names what is missing) counts (and ranks by money by default); fn_cost alone is a
    TypeError (the cost of an alert is never guessed)."""
    if not costs_given(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix):
        return None
    check_cost_keywords(fp_cost, fn_cost, cost_matrix)
    return {"fp_cost": fp_cost, "fn_cost": fn_cost, "tp_cost": tp_cost, "tn_cost": tn_cost, "cost_matrix": cost_matrix}


def _check_budget(max_fpr, max_alert_rate):
    """The :class:`Budget` of riff_select: the FPR (default 0.01) or the alert rate."""
    if max_fpr is not None and max_alert_rate is not None:
        raise ValueError("give max_fpr= or max_alert_rate=, not both")
    if max_alert_rate is not None:
        return Budget("alert_rate", _check_rate(max_alert_rate, "max_alert_rate"))
    return Budget("fpr", _check_rate(0.01 if max_fpr is None else max_fpr, "max_fpr"))


def _memory_inputs(candidates, X, y, sample_weight, pos_label=None, cost_kw=None):
    """``(feature names, float X, 0/1 y, weights, costs or None)`` of an in-memory selection, checked against
    each other (:func:`csboost_plugins._rows.read_rows`)."""
    names = next((r.feature_names for r in candidates if r.feature_names is not None), None)
    rows = read_rows(X, y, pos_label=pos_label, sample_weight=sample_weight, costs="none" if cost_kw is None
                     else "required", **(cost_kw or {}))
    Xf = as_float_matrix(X, candidates, feature_names=names, order="F")
    n = rows.n
    if Xf.shape[0] != n:
        raise ValueError(f"X has {Xf.shape[0]} rows but y has {n}")
    need = max(c.feature for r in candidates for c in r.conditions) if any(r.conditions for r in candidates) else -1
    if need >= Xf.shape[1]:
        raise ValueError(f"X has {Xf.shape[1]} columns but the candidates use column index {need}")
    w = np.ones(n) if rows.sample_weight is None else rows.sample_weight
    return names, Xf, rows.y, w, rows.costs


def _check_candidates(candidates):
    """The candidates as a non-empty list of Rule (ValueError / TypeError naming them otherwise)."""
    candidates = list(candidates.rules if isinstance(candidates, RuleSet) else candidates)
    if not candidates:
        raise ValueError("candidates is empty: no rule to select from")
    if not all(isinstance(r, Rule) for r in candidates):
        raise TypeError("candidates must be Rule objects (from extract_rules)")
    return candidates


def riff_select(candidates, X, y, *, max_fpr=None, max_alert_rate=None, sample_weight=None, fp_cost=None,
                fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, stop_unprofitable=True, max_rules=None,
                precision_prior=0.0, refine=False, prune=False, cuts="simple", rank_by=None,
                pos_label=None) -> RuleSet:
    """Greedy low-FPR rule selection (RIFF Algorithm 1) on a selection set.

    Starting from no rule, repeatedly add the best candidate on the rows not yet
    covered (D') and remove the rows it covers, while ``FPR(S) < max_fpr``:

    - ``rank_by="precision"`` (the paper; the default without costs), the candidate with the
      highest precision on D',
      ``Precision(c; D') = |cov(c; D'+)| / |cov(c; D')|`` (weighted by ``sample_weight``);
      ties go to the rule covering more positive weight, then to the earlier candidate;
    - ``rank_by="money"`` (the default with costs), the candidate with the most net money per
      unit of budget on D',
      ``M(c; D') / B(c; D')``, where the net money of the rows it newly covers is
      ``M = sum_{cov+} w (C_FN - C_TP) - sum_{cov-} w (C_FP - C_TN)`` (money caught minus
      the alerts' cost) and ``B`` is their budget weight (negative weight for ``max_fpr``,
      all weight for ``max_alert_rate``); a rule with B = 0 comes first if M > 0. Ties go
      to the rule with more net money, then to the earlier candidate. With
      ``stop_unprofitable`` (the default) a candidate whose M on D' is <= 0 is never
      taken: selection stops when the next rule would not make money on the selection
      rows, even if budget is left.

    The last rule r_l (the one that crosses the budget) is kept with probability::

        rho = (FPR_max - FPR(S_{l-1})) / (FPR(S_l) - FPR(S_{l-1}))

    so the expected FPR on the selection set equals ``max_fpr`` exactly and the
    expected TPR is ``(1 - rho) TPR(S_{l-1}) + rho TPR(S_l)``.

    A candidate that adds no positive weight on D' (with ``rank_by="money"``: no money
    caught, ``sum_{cov+} w (C_FN - C_TP) <= 0``) is never taken, whatever
    ``stop_unprofitable``: it would only spend budget. If all candidates together
    stay within budget, every useful rule is kept and rho = 1. Without costs,
    ``precision_prior``, ``prune`` and ``refine`` the selection is the paper's
    Algorithm 1 exactly.

    Parameters
    ----------
    candidates : list of Rule or RuleSet
        Candidate rules, e.g. from :func:`extract_rules`.
    X : numpy array, pandas DataFrame or dask collection, shape (n_rows, n_features)
        The selection set. Dask collections (data larger than memory; ``y``,
        ``sample_weight`` and ``fn_cost`` partitioned like X; ``fp_cost``, ``tp_cost`` and
        ``tn_cost`` scalars) take one pass over the partitions per greedy step and give the
        same selection (:mod:`csboost_plugins.rules._dask_select`); ``prune``, ``refine``,
        ``cost_matrix`` and per-row ``fp_cost`` / ``tp_cost`` / ``tn_cost`` raise
        NotImplementedError there.
    y : array-like of shape (n_rows,)
        Labels in {0, 1} (booleans, {-1, 1}), or any two labels with ``pos_label``. A pandas
        y (weights, costs) must carry X's index (else a ``ValueError`` naming it).
    max_fpr : float in (0, 1], optional
        FPR budget (default 0.01); FPR = covered negative weight / negative weight.
    max_alert_rate : float in (0, 1], optional
        Alternative budget on the alert rate (covered weight / total weight); give
        either this or ``max_fpr``.
    sample_weight : array-like of shape (n_rows,), optional
        Row weights (count in every rate, precision and money sum).
    fp_cost, fn_cost : float or array-like of shape (n_rows,), optional
        Cost of a false alert (C_FP, e.g. the review cost) and of a missed positive (C_FN,
        e.g. the amount), money per row. Giving costs switches the ranking to net money
        (see above; unless ``rank_by="precision"``); the budget is unchanged. ``fn_cost``
        needs ``fp_cost`` (a ``TypeError`` otherwise): ``fp_cost=0`` when alerts cost nothing
        ranks by money caught per false positive.
    tp_cost, tn_cost : float or array-like of shape (n_rows,), default 0.0
        Cost of a caught positive (C_TP, e.g. the review cost of a true alert) and of a
        passed negative (C_TN).
    cost_matrix : array-like of shape (n_rows, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords (never both).
    stop_unprofitable : bool, default True
        With ``rank_by="money"``: stop before a rule whose net money on the uncovered selection rows is
        <= 0 (False: fill the budget as without costs, ranking by money). Ignored by the
        precision ranking.
    max_rules : int >= 1, optional
        Cap on the number of rules.
    precision_prior : float >= 0 or "auto", default 0
        p pseudo-rows. Rules are ranked by the shrunk precision
        ``(G + p g0) / (G + N + p m0)`` (G: covered positive weight, N: covered negative
        weight on D'; g0, m0: the selection set's average G and G + N per row), as if
        each rule also covered p rows at the selection set's base rate; with costs by
        ``(M + p g0) / (B + p m0)`` (g0, m0: the average net money and budget weight per
        row). Rules covering few rows are pulled toward the base rate: broad rules win
        (fewer rules for the budget) and the winner's curse of ranking by observed
        precision is damped. "auto" scales p with the selection set: one rule's share of
        the budget, ``p = max(1, max_fpr * n_neg / k)`` with ``n_neg`` the selection set's
        negative weight (its total weight under ``max_alert_rate``, which replaces
        ``max_fpr``) and ``k = max_rules`` (20 when None). Give ``max_rules`` with a prior:
        without one, small rules of high observed precision can use up the cap far below
        the budget. The value used is ``selection["precision_prior"]``.
    prune : bool or float in [0, 1), default False
        After a rule is picked, drop its conditions (best drop first) while its score on D'
        stays within this share of the picked rule's (True: 0.1; 0.0: never below it).
    refine : bool, default False
        After a rule is picked (and pruned), move each finite interval bound to the cut
        between two observed values of D' that maximises the score without giving up
        covered gain. The rule that would cross the budget instead gets the cut with the
        most gain that fits the remaining budget (selection then stops; rho = 1) rather
        than a coin flip (``csboost_plugins.rules._refine.refine_rule``).
    cuts : {"simple", "model"}, default "simple"
        "simple": after selection, :func:`simplify_rules` on X: each cut moves to the simplest
        number between its neighbouring values of X (integers on integer columns), ``or x is
        missing`` stays only on columns with missing values in X, and a condition goes when its
        removal adds no row that counts against the budget to the rows the rule adds (so the
        selection's false alerts, or alerts under an alert-rate budget, are unchanged and its
        recall can only rise; the statistics are restated). "model": the
        model's own cuts and missing-value routing. Dask input gives the same rules as memory
        (3 more passes over the partitions).
    rank_by : {"precision", "money"} or None, default None
        The ranking score (:mod:`csboost_plugins.rules._scores`): "precision" (the paper; costs,
        if given, still give the money statistics), "money" (net money per budget unit; needs
        costs) or None: "money" when any cost is given, else "precision".
    pos_label : int, float, bool, str or None, default=None
        The positive class: the label whose miss costs ``fn_cost``. None: 1 for labels
        {0, 1}, {-1, 1} or booleans; other labels (``"fraud"`` / ``"ok"``) need it, else a
        ``ValueError``.

    Returns
    -------
    RuleSet
        ``last_rule_probability`` = rho; ``selection`` holds per-prefix ``fpr``,
        ``tpr``, ``alert_rate`` (and with costs ``money_recall`` and ``net_money``), ``expected_fpr``,
        ``expected_tpr``, ``expected_alert_rate`` and ``candidate_index``.

    Notes
    -----
    Pruned or refined rules are new rules: they no longer route rows like the tree node
    they came from (every unmodified rule still does, exactly). Their ``sources`` keep
    that node with ``"modified"`` set to ``"pruned"``, ``"refined"`` or
    ``"pruned+refined"``; the JSON export keeps it.
    """
    if cuts not in ("simple", "model"):
        raise ValueError(f"cuts must be 'simple' or 'model', got {cuts!r}")
    prior = check_prior(precision_prior)
    max_rules = _check_max_rules(max_rules)
    candidates = _check_candidates(candidates)
    budget = _check_budget(max_fpr, max_alert_rate)
    cost_kw = _cost_keywords(fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix)
    rank_by = check_rank_by(rank_by, cost_kw is not None)
    prune = _check_prune(prune, stop_unprofitable)
    if is_dask(X):  # data larger than memory: one pass over the partitions per greedy step
        y = dask_labels(y, pos_label)
        return _select_on_dask(candidates, X, y, budget, sample_weight, max_rules, prior, costs=cost_kw or False,
                               rank_by=rank_by, stop_unprofitable=bool(stop_unprofitable), refine=refine,
                               prune=prune is not None, cuts=cuts)
    return _select_in_memory(candidates, X, y, budget, sample_weight, max_rules, prior, cost_kw=cost_kw,
                             rank_by=rank_by, stop_unprofitable=bool(stop_unprofitable), refine=refine, prune=prune,
                             cuts=cuts, pos_label=pos_label)


def _select_in_memory(candidates, X, y, budget, sample_weight, max_rules, prior, *, cost_kw, rank_by,
                      stop_unprofitable, refine, prune, cuts, pos_label=None):
    """riff_select on rows in memory (validated arguments)."""
    names, Xf, y, w, costs = _memory_inputs(candidates, X, y, sample_weight, pos_label, cost_kw)
    n = y.shape[0]
    W = row_weights(y, w, costs)
    totals = W.sum(axis=0)
    if totals[NEG] <= 0 or totals[POS] <= 0:
        raise ValueError("y (with sample_weight) must have positive weight on both classes")
    prior = resolve_prior(prior, totals, budget, max_rules)
    score = make_score(rank_by, totals, budget, prior)
    trie = ConditionTrie(candidates)
    S = trie.sums(Xf, np.arange(n, dtype=np.int64), W)  # per rule: sums over the uncovered rows D'
    cover = _Cover(candidates, Xf, W, trie, compile_conditions(candidates), score=score, budget=budget,
                   refine=refine, prune=prune, eps=money_eps(totals), stop_unprofitable=stop_unprofitable)
    order, prefix, rho = greedy(S, totals, budget, max_rules, cover, score, stop_unprofitable=stop_unprofitable)
    sel = selection_stats(order, prefix, rho, totals, budget, len(candidates), costs is not None)
    sel["rank_by"] = rank_by
    rs = RuleSet(cover.rules, last_rule_probability=rho, feature_names=names, selection=sel)
    rs = _simplify(rs, rs.rules, Xf, names, True, True, W) if cuts == "simple" else rs
    rs.selection["precision_prior"] = prior
    return rs


def _check_prune(prune, stop_unprofitable):
    """None (no pruning) or the tolerance of :func:`prune_rule` (True: ``PRUNE_TOLERANCE``); checks the
    stop flag too."""
    if not isinstance(stop_unprofitable, (bool, np.bool_)):
        raise TypeError(f"stop_unprofitable must be True or False, got {stop_unprofitable!r}")
    if isinstance(prune, (bool, np.bool_)):
        return PRUNE_TOLERANCE if prune else None
    if not isinstance(prune, numbers.Real) or not 0.0 <= float(prune) < 1.0:
        raise ValueError(f"prune must be True, False or a tolerance in [0, 1), got {prune!r}")
    return float(prune)


def _select_on_dask(candidates, X, y, budget, sample_weight, max_rules, prior, *, costs, rank_by,
                    stop_unprofitable, refine, prune, cuts):
    """riff_select's greedy on dask collections (validated arguments); refine/prune need rows in memory."""
    for name, on in (("refine", refine), ("prune", prune)):
        if on:
            raise NotImplementedError(f"{name}=True needs the uncovered rows in memory; it is not supported "
                                      "on dask input (select on a sample, or without it)")
    fn_cost, scalars = None, None
    if costs:
        if costs["fn_cost"] is None and costs["cost_matrix"] is None:
            check_costs(1, fp_cost=costs["fp_cost"], tp_cost=costs["tp_cost"], tn_cost=costs["tn_cost"])  # names it
        if costs["cost_matrix"] is not None:
            raise NotImplementedError("cost_matrix is not supported on dask input: give fn_cost (partitioned "
                                      "like X) and fp_cost / tp_cost / tn_cost as scalars")
        for name in ("fp_cost", "tp_cost", "tn_cost"):
            if np.ndim(costs[name]) != 0 or is_dask(costs[name]):
                raise NotImplementedError(f"{name} must be a scalar on dask input (only fn_cost may vary by row)")
        fn_cost = costs["fn_cost"]
        # the scalars validated once here (fn_cost is checked partition by partition)
        check_costs(1, fp_cost=costs["fp_cost"], fn_cost=0.0, tp_cost=costs["tp_cost"], tn_cost=costs["tn_cost"],
                    warn=False)
        scalars = tuple(float(costs[k]) for k in ("fp_cost", "tp_cost", "tn_cost"))
    rules, rho, sel, missing = _dask_select.riff_select(candidates, X, y, budget=budget, sample_weight=sample_weight,
                                                 fn_cost=fn_cost, cost_scalars=scalars, rank_by=rank_by,
                                                 stop_unprofitable=stop_unprofitable, max_rules=max_rules,
                                                 precision_prior=prior, cuts=cuts)
    names = next((r.feature_names for r in candidates if r.feature_names is not None), None)
    label = (lambda j: names[j] if names is not None and j < len(names) else f"x{j}")
    return RuleSet(rules, last_rule_probability=rho, feature_names=names, selection=sel,
                   missing_columns=None if missing is None else [str(label(j)) for j in missing])
