"""riff_select: RIFF's greedy rule selection (Algorithm 1) with the randomised last rule."""

from __future__ import annotations

import numpy as np

from ..costs import check_binary_labels
from . import _dask
from ._data import as_float_matrix
from ._evaluate import ConditionTrie, compile_conditions, rule_mask_rows
from ._greedy import NEG, POS, greedy, row_weights, selection_stats
from ._rule import Rule
from ._ruleset import RuleSet

__all__ = ["riff_select"]



def _check_rate(v, name):
    v = float(v)
    if not 0.0 < v <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {v}")
    return v


def riff_select(candidates, X, y, *, max_fpr=None, max_alert_rate=None, sample_weight=None, fn_cost=None,
                max_rules=None) -> RuleSet:
    """Greedy low-FPR rule selection (RIFF Algorithm 1) on a selection set.

    Starting from no rule, repeatedly add the candidate with the highest precision
    on the rows not yet covered, ``Precision(c; D') = |cov(c; D'+)| / |cov(c; D')|``,
    and remove the rows it covers, while ``FPR(S) < max_fpr``. The last rule r_l
    (the one that crosses the budget) is kept with probability

        rho = (FPR_max - FPR(S_{l-1})) / (FPR(S_l) - FPR(S_{l-1})),

    so the expected FPR on the selection set equals ``max_fpr`` exactly and the
    expected TPR is ``(1 - rho) TPR(S_{l-1}) + rho TPR(S_l)``.

    Parameters
    ----------
    candidates : list of :class:`Rule` (e.g. from :func:`extract_rules`).
    X, y : the selection set (numpy or pandas; y in {0, 1}); or dask collections (data larger
        than memory; y, sample_weight and fn_cost partitioned like X): one pass over the
        partitions per greedy step, same selection (:mod:`csboost_plugins.rules._dask`).
    max_fpr : FPR budget (default 0.01). FPR = covered negative weight / negative weight.
    max_alert_rate : alternative budget on the alert rate (covered weight / total
        weight); give either this or ``max_fpr``.
    sample_weight : row weights (counts in every rate and precision).
    fn_cost : per-row money at stake on positives (C_FN, e.g. the amount). When
        given, rules are ranked by *money precision*
        ``sum_{cov+} w C_FN / (sum_{cov+} w C_FN + sum_{cov-} w)``, i.e. by money caught
        per false positive, instead of count precision; the budget is unchanged.
    max_rules : optional cap on the number of rules.

    Ties in precision go to the rule covering more positive weight (money), then
    to the earlier candidate. Candidates covering no uncovered row are skipped.
    If all candidates together stay within budget, every useful rule is kept and
    rho = 1.

    Returns
    -------
    RuleSet with ``last_rule_probability`` = rho and ``selection`` statistics:
    per-prefix ``fpr``, ``tpr``, ``alert_rate`` (and ``money_recall``), and
    ``expected_fpr``, ``expected_tpr``, ``expected_alert_rate``.
    """
    if _dask.is_dask(X):  # data larger than memory: one pass over the partitions per greedy step
        return _dask.riff_select(candidates, X, y, max_fpr=max_fpr, max_alert_rate=max_alert_rate,
                                 sample_weight=sample_weight, fn_cost=fn_cost, max_rules=max_rules)
    if isinstance(candidates, RuleSet):
        candidates = candidates.rules
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates is empty: no rule to select from")
    if not all(isinstance(r, Rule) for r in candidates):
        raise TypeError("candidates must be Rule objects (from extract_rules)")
    if max_fpr is not None and max_alert_rate is not None:
        raise ValueError("give max_fpr= or max_alert_rate=, not both")
    if max_alert_rate is not None:
        criterion, budget = "alert_rate", _check_rate(max_alert_rate, "max_alert_rate")
    else:
        criterion, budget = "fpr", _check_rate(0.01 if max_fpr is None else max_fpr, "max_fpr")
    names = next((r.feature_names for r in candidates if r.feature_names is not None), None)
    Xf = as_float_matrix(X, candidates, feature_names=names, order="F")
    y = check_binary_labels(y, name="y", require_both=True)
    n = y.shape[0]
    if Xf.shape[0] != n:
        raise ValueError(f"X has {Xf.shape[0]} rows but y has {n}")
    need = max(c.feature for r in candidates for c in r.conditions) if any(r.conditions for r in candidates) else -1
    if need >= Xf.shape[1]:
        raise ValueError(f"X has {Xf.shape[1]} columns but the candidates use column index {need}")
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has length {w.shape[0]} but y has {n} rows")
    W = row_weights(y, w, fn_cost)
    totals = W.sum(axis=0)
    if totals[NEG] <= 0 or totals[POS] <= 0:
        raise ValueError("y (with sample_weight) must have positive weight on both classes")
    trie = ConditionTrie(candidates)
    cc = compile_conditions(candidates)
    S = trie.sums(Xf, np.arange(n, dtype=np.int64), W)  # per rule: sums over the uncovered rows D'
    state = {"uncovered": np.arange(n, dtype=np.int64)}

    def cover(r):
        uncovered = state["uncovered"]
        hit = rule_mask_rows(Xf, uncovered, r, cc)
        new = uncovered[hit]
        state["uncovered"] = uncovered[~hit]
        if not len(new):
            return np.zeros(4), None
        Wn = W[new]
        return Wn.sum(axis=0), trie.sums(Xf, new, Wn)

    order, prefix, rho = greedy(S, totals, criterion, budget, max_rules, cover)
    sel = selection_stats(order, prefix, rho, totals, criterion, budget, len(candidates), fn_cost is not None)
    return RuleSet([candidates[i] for i in order], last_rule_probability=rho, feature_names=names, selection=sel)
