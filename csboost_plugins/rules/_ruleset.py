"""RuleSet: an ordered list of rules (an alert fires if any rule covers the row), the
last one kept with probability rho (RIFF's randomised rule set)."""

from __future__ import annotations

import json
import os

import numpy as np

from .._docstrings import fill_doc
from .._rows import check_cost_keywords, dask_labels, read_rows
from . import _dask, _engine
from ._dask_evaluate import evaluate_blocks, memory_block
from ._data import as_float_matrix, collect_categories
from ._evaluate import compile_conditions, coverage_matrix, first_match
from ._export import case_sql, select_statement, where_expression
from ._kind import RuleKind, rule_from_dict
from ._rule import MISSING_POLICY, Rule  # noqa: F401  (the built-in kinds register on import)
from ._schema import ROW_POSITION_KEYS, check_ruleset_dict, decode_row_positions, encode_row_positions
from ._sqlrule import Columns, SQLRule  # noqa: F401

__all__ = ["RuleSet"]

# selection statistics given per prefix of the rules (``riff_select``), each with an ``expected_`` value under rho
_PREFIX_STATS = ("fpr", "tpr", "alert_rate", "money_recall", "net_money")



def _plain(v):
    """``v`` with numpy arrays and scalars as Python lists and numbers, also inside dicts and lists (JSON)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v.item() if isinstance(v, np.generic) else v

class RuleSet:
    """Ordered rules; a row is an alert iff a rule covers it.

    Parameters
    ----------
    rules : list of Rule or SQLRule
        The rules, in selection order: induced (:class:`Rule`) and read from SQL
        (:class:`SQLRule`, see :meth:`from_sql`) may be mixed, with rules of any other registered
        kind (``csboost_plugins/rules/_kind.py``).
    last_rule_probability : float, default=1.0
        rho, the probability with which the last rule is in force (RIFF section
        3.2); every other rule is always in force. With rho < 1 the expected FPR on
        the selection set equals the budget exactly.
    feature_names : list of str, optional
        Column names (pandas input is matched by name); taken from the rules when
        None.
    selection : dict, optional
        Statistics on the selection set (filled by :func:`riff_select`).
    missing_columns : list of str, optional
        Names of the columns that had missing values in the data the rules were fitted to
        (set by :func:`simplify_rules`). When given, the rule-set text states the missing-value
        policy once: a missing value (NULL) satisfies a condition only where it says
        ``or <column> is missing`` (only these columns); in any other column it satisfies no
        condition. ``predict``, ``to_sql`` and ``to_pandas_query`` follow the same policy, which
        the conditions' own ``missing`` flags carry. None (the model's rules as extracted): each
        condition sends a missing value where the model does, as its text says.
    names : list of str, optional
        One name per rule. By default a rule read from SQL (:class:`SQLRule`) keeps its own name
        and an induced rule is named ``riff_<k>`` (the lowest k not taken, in order). Names are
        unique (ValueError otherwise) and carried through slicing, ``drop``, JSON, pickling and
        the ``/* rule: name */`` comments of :meth:`to_sql`.
    actions : list of str, optional
        One action per rule: ``"allow"``, ``"block"`` or ``"review"`` (default: every rule
        ``"review"``, the plain rule set). The rules are then read top-down, first match wins
        (see :meth:`actions`): an ``"allow"`` rule exempts the rows it matches from every rule
        below it; ``"block"`` and ``"review"`` rules flag them. A set with an ``"allow"`` or
        ``"block"`` rule needs ``last_rule_probability=1``.

    Attributes
    ----------
    rules : list of Rule
        The rules, in order.
    last_rule_probability : float
        rho.
    feature_names : list of str or None
        Column names.
    selection : dict
        Selection-set statistics (``tpr``, ``fpr`` per prefix of the rules, ...).
    missing_columns : list of str or None
        As the parameter.
    names : list of str
        The rules' names, in order (the ``name`` column of ``evaluate(per_rule=True)``).
    actions_ : list of str
        Each rule's action, in order (``"review"`` for every rule of a plain rule set).

    Notes
    -----
    A rule set is a sequence of rules: ``len(rs)``, ``for rule in rs``, ``rs[i]`` (a
    :class:`Rule`); ``rs[:k]``, ``rs[[0, 2]]``, a boolean mask, and ``rs.drop(indices)``
    give a new RuleSet (:meth:`__getitem__`, :meth:`drop`).
    """

    def __init__(self, rules, last_rule_probability=1.0, feature_names=None, selection=None, missing_columns=None,
                 names=None, actions=None):
        kind = type(rules).__name__
        rules = None if isinstance(rules, (str, bytes)) or not hasattr(rules, "__iter__") else list(rules)
        if rules is None or not all(isinstance(r, RuleKind) for r in rules):
            raise TypeError(f"rules must be Rule objects (from extract_rules) or SQLRule objects (from "
                            f"RuleSet.from_sql), or rules of another kind, e.g. a list of them; got {kind}")
        if isinstance(feature_names, (str, bytes)):
            raise TypeError(f"feature_names must be a list of column names, got the string {feature_names!r}")
        self.rules = rules
        try:
            rho = float(last_rule_probability)
        except (TypeError, ValueError):
            raise ValueError(f"last_rule_probability must be a number in [0, 1], got {last_rule_probability!r}") \
                from None
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"last_rule_probability must lie in [0, 1], got {rho}")
        self.last_rule_probability = rho
        self.names = _rule_names(rules, names)
        self.actions_ = _rule_actions(actions, self.names)
        if rho < 1.0 and self.has_actions:
            raise ValueError("last_rule_probability must be 1 for a rule set with 'allow' or 'block' actions (a "
                             f"rule book evaluated top-down), got {rho}")
        if feature_names is None:
            for r in self.rules:  # the column names of the first rule reading columns by index
                if r.feature_names is not None:
                    feature_names = r.feature_names
                    break
        self.feature_names = None if feature_names is None else list(feature_names)
        self.selection = dict(selection or {})
        if missing_columns is not None and (isinstance(missing_columns, (str, bytes))
                                            or not hasattr(missing_columns, "__iter__")):
            raise TypeError(f"missing_columns must be None or a list of column names, got {missing_columns!r}")
        self.missing_columns = None if missing_columns is None else [str(c) for c in missing_columns]
        self.rules = [r.for_set(self.feature_names, self.missing_columns is not None) for r in self.rules]
        self._compiled = None

    # ------------------------------------------------------------------ basics
    def __len__(self):
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, key):
        """An integer gives that :class:`Rule`; a slice, a list of positions or a boolean mask a :class:`RuleSet`.

        As scikit-learn's ``Pipeline`` (``pipe[0]`` a step, ``pipe[:2]`` a Pipeline) and
        numpy: ``rs[1]`` is the second rule, ``rs[:3]``, ``rs[[0, 2]]`` and
        ``rs[np.array([True, False, True])]`` are rule sets of those rules, in the order
        given. The subset carries the set's attributes (feature names, categories, ...)
        through :meth:`_subset`, which documents how the last rule's probability and the
        selection statistics follow.

        Parameters
        ----------
        key : int, slice, list of int or boolean array of length ``len(self)``
            Positions (negative ones count from the end).

        Returns
        -------
        Rule or RuleSet

        Raises
        ------
        IndexError
            A position out of range.
        ValueError
            A position given twice, or the randomised last rule moved off the last place.
        TypeError
            Any other key.
        """
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            return self.rules[key]
        return self._subset(self._positions(key, "key"))

    def drop(self, indices) -> "RuleSet":
        """The rule set without the rules at ``indices`` (the others in their order).

        Parameters
        ----------
        indices : int, slice, list of int or boolean array of length ``len(self)``
            Positions of the rules to drop (negative ones count from the end).

        Returns
        -------
        RuleSet
            As ``self[kept positions]`` (see :meth:`_subset`): dropping the last rule makes
            the new last rule always in force.
        """
        gone = set(self._positions(indices, "indices", allow_int=True))
        return self._subset([i for i in range(len(self.rules)) if i not in gone])

    def _positions(self, key, name, allow_int=False):
        """``key`` as a list of non-negative positions (IndexError / ValueError / TypeError naming ``name``)."""
        n = len(self.rules)
        if isinstance(key, slice):
            return list(range(n))[key]
        if allow_int and isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            key = [key]
        if isinstance(key, (str, bytes, dict)) or not hasattr(key, "__len__"):
            raise TypeError(f"{name} must be an integer, a slice, a list of integers or a boolean mask, "
                            f"got {type(key).__name__}")
        a = np.asarray(key)
        if a.ndim != 1:
            raise TypeError(f"{name} must be one-dimensional, got shape {a.shape}")
        if a.dtype == bool:
            if a.shape[0] != n:
                raise IndexError(f"{name}: a boolean mask must have one entry per rule ({n}), got {a.shape[0]}")
            return np.flatnonzero(a).tolist()
        if a.size and a.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integer positions, got {a.dtype} values")
        pos = [int(i) for i in a]
        bad = [i for i in pos if not -n <= i < n]
        if bad:
            raise IndexError(f"{name}: position {bad[0]} is out of range for a rule set of {n} rules")
        pos = [i % n for i in pos]
        if len(set(pos)) != len(pos):
            raise ValueError(f"{name} names a rule twice; a rule set holds each rule once")
        return pos

    def _subset(self, positions) -> "RuleSet":
        """The rules at ``positions`` (in that order) as a new RuleSet; the rules themselves are shared.

        - Every attribute of the set is carried over (feature names, and any rule-set
          wide setting).
        - ``last_rule_probability``: kept only when the subset ends with the original
          last rule; otherwise the subset's rules are all always in force (rho = 1),
          which is how they were deployed in the original set. The randomised last rule
          (rho < 1) may not be moved off the last place (ValueError).
        - ``selection``: a prefix ``rs[:k]`` keeps the per-prefix statistics of its rules
          (``fpr``, ``tpr``, ...) with ``expected_*`` recomputed for its rho; any other
          subset drops them (they describe prefixes of the original order) and keeps
          the run's settings (``criterion``, ``budget``, ...) and each rule's
          ``candidate_index``.
        """
        import copy

        n, positions = len(self.rules), list(positions)
        rho = self.last_rule_probability
        if rho < 1.0 and n - 1 in positions[:-1]:
            raise ValueError(f"rule {n - 1} (the last one) is in force with probability {rho:.4g} and must stay "
                             "last; put it last or leave it out")
        keeps_last = bool(positions) and positions[-1] == n - 1
        new = copy.copy(self)
        new.rules = [self.rules[i] for i in positions]
        new.names = [self.names[i] for i in positions]
        new.actions_ = [self.actions_[i] for i in positions]
        new.last_rule_probability = rho if keeps_last else 1.0
        new._compiled = None
        sel = {}
        prefix = positions == list(range(len(positions)))
        for k, v in self.selection.items():
            per_rule = isinstance(v, (list, np.ndarray)) and len(v) == n
            if k in _PREFIX_STATS or (k.startswith("expected_") and k[len("expected_"):] in _PREFIX_STATS):
                if prefix and k in _PREFIX_STATS and per_rule:
                    sel[k] = np.asarray(v)[:len(positions)]
                    last = sel[k][-1] if len(positions) else 0.0
                    prev = sel[k][-2] if len(positions) > 1 else 0.0
                    sel["expected_" + k] = float((1 - new.last_rule_probability) * prev
                                                 + new.last_rule_probability * last)
            elif k == "candidate_index" and per_rule:
                sel[k] = np.asarray(v)[positions]
            else:
                sel[k] = v
        new.selection = sel
        return new

    @property
    def rule_probabilities(self) -> np.ndarray:
        """Probability that each rule is in force: 1, ..., 1, rho (array of length ``len(self)``)."""
        p = np.ones(len(self.rules))
        if len(p):
            p[-1] = self.last_rule_probability
        return p

    def __str__(self):
        lines = []
        tpr, fpr, money = (np.asarray(self.selection.get(k, [])) for k in ("tpr", "fpr", "money_recall"))
        stats = len(tpr) == len(fpr) == len(self.rules)
        for i, r in enumerate(self.rules):
            tag = "" if i < len(self.rules) - 1 or self.last_rule_probability == 1.0 \
                else f"   [in force with probability {self.last_rule_probability:.4g}]"
            if stats:  # marginal recall / FPR (/ share of the money at risk) the rule added on the selection set
                d_tpr = tpr[i] - (tpr[i - 1] if i else 0.0)
                d_fpr = fpr[i] - (fpr[i - 1] if i else 0.0)
                d_money = f", +money recall {money[i] - (money[i - 1] if i else 0.0):.3f}" if len(money) == len(tpr) else ""
                tag += f"   (+TPR {d_tpr:.3f}, +FPR {d_fpr:.4f}{d_money})"
            then = f" THEN {self.actions_[i]}" if self.has_actions else ""
            lines.append(f"{i + 1:>3}. {self.names[i]}: IF {r}{then}{tag}")
        if self.missing_columns is not None:
            cols = ", ".join(self.missing_columns) if self.missing_columns else "none"
            lines.insert(0, f"Missing values: {MISSING_POLICY}; "
                            f"columns with missing values in the fit data: {cols}.")
        return "\n".join(lines) if lines else "(empty rule set)"

    def __repr__(self):
        return f"RuleSet({len(self.rules)} rules, rho={self.last_rule_probability:.4g})"

    def __getstate__(self):
        d = self.__dict__.copy()
        d["_compiled"] = None
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        if "names" not in d:  # pickled before rules had names
            self.names = _rule_names(self.rules, None)
        if "actions_" not in d:  # pickled before rules had actions
            self.actions_ = ["review"] * len(self.rules)

    @property
    def has_actions(self) -> bool:
        """Whether some rule's action is not ``"review"`` (an ``"allow"`` or ``"block"`` rule)."""
        return any(a != "review" for a in self.actions_)

    @property
    def has_sql_rules(self) -> bool:
        """Whether some rule is a compiled SQL condition (:class:`SQLRule`, read from SQL)."""
        return any(r.evaluator == "engine" for r in self.rules)

    @property
    def _uses_engine(self) -> bool:
        """Whether the rule engine evaluates the set: SQL rules, with no rule but kernel or engine ones."""
        return self.has_sql_rules and all(r.evaluator in ("kernels", "engine") for r in self.rules)

    def _path(self) -> str:
        """How the rules are evaluated together: "engine", "kernels" (every rule), or "masks" (each kind's own)."""
        if self._uses_engine:
            return "engine"
        return "kernels" if all(r.evaluator == "kernels" for r in self.rules) else "masks"

    def _tree_rules(self):
        """(positions, rules) of the rules compiled into the interval kernels (kind evaluator "kernels")."""
        pos = [i for i, r in enumerate(self.rules) if r.evaluator == "kernels"]
        return pos, [self.rules[i] for i in pos]

    # ------------------------------------------------------------ evaluation
    def _prepare(self, X):
        """(float64 matrix, compiled rules on its columns).

        numpy input is used as it is (no copy of a float64 array); other input
        (pandas) is converted column by column, only the columns the rules use,
        column-major (the kernels scan one column at a time)."""
        _, rules = self._tree_rules()
        if self._compiled is None:
            used = sorted({c.feature for r in rules for c in r.conditions})
            self._compiled = (used, compile_conditions(rules, {j: k for k, j in enumerate(used)}),
                              compile_conditions(rules))
        used, cc_sub, cc_full = self._compiled
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiub":
            Xa = as_float_matrix(X, rules)
            if used and (used[-1] >= Xa.shape[1] or used[0] < 0):
                raise ValueError(f"X has {Xa.shape[1]} columns but the rules use column index {used[-1]}")
            return Xa, cc_full
        Xu = as_float_matrix(X, rules, feature_names=self.feature_names, order="F", columns=used)
        return (Xu if used else np.zeros((Xu.shape[0], 1))), cc_sub

    def apply(self, X) -> np.ndarray:
        """Index of the first rule covering each row.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to route (NaN is missing; pandas columns matched by name).

        Returns
        -------
        ndarray of int64, shape (n_samples,)
            0-based rule index, -1 where no rule covers the row.
        """
        if _dask.is_dask(X):  # a lazy dask array, partition by partition
            return _dask.apply(self, X)
        if not self.rules:
            return np.full(_n_rows(X), -1, np.int64)
        path = self._path()
        if path == "engine":
            return _engine.first_match(_engine.rule_bits(self, X))
        if path == "masks":
            return _first_of(self._masks(X))
        Xu, cc = self._prepare(X)
        return first_match(Xu, cc)

    def _masks(self, X):
        """Per rule, in order, the bool mask of the rows it flags: rules of a kernel kind (induced rules) by
        the kernels, every other kind by its own :meth:`~._kind.RuleKind.true_masks` on a column reader the
        rules share (SQL rules: their three-valued evaluation on the columns they name). The reference of
        the engine (:mod:`._engine`), and how ``apply`` / ``coverage`` evaluate a set holding a kind
        neither the kernels nor the engine take."""
        pos, _ = self._tree_rules()
        out = [None] * len(self.rules)
        if pos:
            Xu, cc = self._prepare(X)
            tree_cover = coverage_matrix(Xu, cc)
            for k, p in enumerate(pos):
                out[p] = tree_cover[:, k]
        groups: dict = {}  # the other rules by kind, each kind's in the set's order
        for i, r in enumerate(self.rules):
            if out[i] is None:
                groups.setdefault(type(r), []).append(i)
        cols = Columns(X, self.feature_names) if groups else None
        for cls, where in groups.items():
            for i, m in zip(where, cls.true_masks([self.rules[i] for i in where], X, cols)):
                out[i] = m
        yield from out

    @fill_doc
    def predict_proba(self, X) -> np.ndarray:
        """Probability that each row raises an alert.

        %(Parameters, X_nan)s

        Returns
        -------
        ndarray of float64, shape (n_samples,)
            1 if an always-on rule covers the row, rho if only the last rule does,
            0 otherwise (also where the first rule matching the row is an ``"allow"`` rule).
        """
        if _dask.is_dask(X):
            return _dask.predict_proba(self, X)
        fm = self.apply(X)
        p = np.append(self.rule_probabilities * self._flags(), 0.0)
        return p[fm]

    def _flags(self) -> np.ndarray:
        """Per rule, whether its action flags the rows it matches first (``"block"`` / ``"review"``)."""
        return np.array([a != "allow" for a in self.actions_], dtype=bool)

    @fill_doc
    def actions(self, X) -> np.ndarray:
        """The action of each row: that of the first rule matching it, top-down (a rule book's CASE).

        Rule ``j`` matches a row when its condition is TRUE (SQL's three-valued logic for a rule read
        from SQL: a condition that is NULL on the row does not match, and the next rule is tried,
        as a ``CASE WHEN`` does). With actions ``a_j``, the row's action is ``a_f`` for
        ``f = min {j : rule j matches}`` (:meth:`apply`), None where no rule matches. :meth:`predict`
        flags the rows whose action is ``"block"`` or ``"review"``: a row an ``"allow"`` rule
        matches first is exempt from every rule below it.

        %(Parameters, X_nan)s

        Returns
        -------
        ndarray of object, shape (n_samples,)
            ``"allow"``, ``"block"``, ``"review"`` or None per row.
        """
        if _dask.is_dask(X):
            raise TypeError("RuleSet.actions reads an in-memory X (numpy or pandas); call it on each partition "
                            "of a dask collection (X.map_partitions)")
        fm = self.apply(X)
        return np.array(list(self.actions_) + [None], dtype=object)[fm]

    def predict(self, X, *, last_rule="round", random_state=None) -> np.ndarray:
        """0/1 alerts.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to flag.
        last_rule : {"round", "include", "exclude", "random"}, default="round"
            How the randomised last rule is used: ``"round"`` (in force iff
            rho > 1/2), ``"include"``, ``"exclude"`` (the budget then holds for sure
            on the selection set), or ``"random"`` (in force with probability rho,
            one draw for the whole rule set).
        random_state : int, RandomState or None, default=None
            Seed of the draw for ``last_rule="random"``.

        Returns
        -------
        ndarray of int64, shape (n_samples,)
            1 where an alert is raised: the first rule matching the row (:meth:`apply`) is in force
            and its action is ``"block"`` or ``"review"`` (every rule of a plain rule set), 0
            where no rule matches or an ``"allow"`` rule matches first.
        """
        rho = self.last_rule_probability
        if last_rule == "round":
            on = rho > 0.5
        elif last_rule == "include":
            on = True
        elif last_rule == "exclude":
            on = rho == 1.0
        elif last_rule == "random":
            from sklearn.utils import check_random_state
            on = bool(check_random_state(random_state).random_sample() < rho)
        else:
            raise ValueError(f"last_rule must be 'round', 'include', 'exclude' or 'random', got {last_rule!r}")
        limit = len(self.rules) if on else len(self.rules) - 1
        if _dask.is_dask(X):  # a book with actions has every rule in force: its alerts are the rows of p = 1
            return (_dask.predict_proba(self, X) > 0).astype(np.int64) if self.has_actions \
                else _dask.predict(self, X, limit)
        flags = self._flags()
        if self._path() == "engine" and flags.all():  # every rule alerts: a row is flagged by any of the first limit
            return _engine.any_of(_engine.rule_bits(self, X), limit)
        fm = self.apply(X)
        return ((fm < limit) & np.append(flags, False)[fm]).astype(np.int64)

    @fill_doc
    def coverage(self, X) -> np.ndarray:
        """Which rules cover which rows.

        %(Parameters, X_nan)s

        Returns
        -------
        ndarray of bool, shape (n_samples, n_rules)
            Entry (i, j) is True iff rule j covers row i.
        """
        if _dask.is_dask(X):
            return _dask.coverage(self, X)
        if not self.rules:
            return np.zeros((_n_rows(X), 0), bool)
        path = self._path()
        if path == "engine":  # column-major: the per-rule sums read it a rule (column) at a time
            return _engine.coverage(_engine.rule_bits(self, X))
        if path == "masks":
            return np.asfortranarray(np.column_stack(list(self._masks(X))))
        Xu, cc = self._prepare(X)
        return coverage_matrix(Xu, cc)

    def diff(self, other, X=None, y=None, *, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0,
             tn_cost=0.0, cost_matrix=None, pos_label=None):
        """What changed from this rule set to ``other``, one row per rule name in either set.

        Parameters
        ----------
        other : RuleSet
            The new rule set (e.g. from :func:`~csboost_plugins.rules.optimize_rule_book`).
        X, y : optional
            Labelled rows: with them each version's own figures are added (``old_net_money`` /
            ``new_net_money`` with costs, else ``old_tp`` / ``new_tp``), every rule as if alone.
        sample_weight, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix
            As in :meth:`evaluate`.
        pos_label : int, float, bool, str or None, default=None
            The positive class: the label whose miss costs ``fn_cost`` (as in :meth:`evaluate`).

        Returns
        -------
        pandas.DataFrame
            Columns ``name``, ``change`` (``"kept"``: same name, text, meaning and action; ``"dialect
            changed"``: same text read in dialects where it flags other rows, e.g. ``a / b``, integer
            division in SQLite, IEEE division in DuckDB; ``"retuned"``: same name, other text; ``"action
            changed"``: same name and text, another action, e.g. ``'review'`` -> ``'block'``;
            ``"retuned, action changed"`` / ``"dialect changed, action changed"``: both; ``"dropped"``:
            only here; ``"added"``: only in ``other``), ``old_rule`` and ``new_rule`` (texts; None where
            absent) and, when either set has ``'allow'`` or ``'block'`` rules, ``old_action`` and
            ``new_action``. Rows: this set's names in order, then the names only ``other`` has.
        """
        from ._diff import rule_book_diff

        if not isinstance(other, RuleSet):
            raise TypeError(f"other must be a RuleSet, got {type(other).__name__}")
        return rule_book_diff(self, other, X, y, sample_weight=sample_weight, fp_cost=fp_cost, fn_cost=fn_cost,
                              tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix, pos_label=pos_label)

    @fill_doc
    def overlap(self, X):
        """Share of each rule's flagged rows that each other rule also flags.

        %(Parameters, X_nan)s

        Returns
        -------
        pandas.DataFrame of shape (n_rules, n_rules)
            Indexed by rule name both ways (index ``rule``, columns ``also_flagged_by``). Entry
            (i, j) = |rows i flags and j flags| / |rows i flags|: 1.0 means rule i flags no row
            that rule j does not (i adds nothing given j); the diagonal is 1.0, and a rule that
            flags no row has NaN in its row. Rows are counted unweighted, every rule as if in
            force (the last rule's probability is ignored). A dask X is read in one pass (the
            counts add over partitions).
        """
        from ._overlap import overlap_counts, overlap_frame

        if _dask.is_dask(X):
            return overlap_frame(self.names, _dask.overlap_counts(self, X))
        if self._uses_engine:
            return overlap_frame(self.names, _engine.overlap_counts(_engine.rule_bits(self, X)))
        return overlap_frame(self.names, overlap_counts(self.coverage(X)))

    def evaluate(self, X, y, *, sample_weight=None, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0,
                 cost_matrix=None, per_rule=False, last_rule="round", pos_label=None, decline_cost=None):
        """Performance of the rule set on (X, y) (a holdout set), as deployed by ``last_rule``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Holdout rows.
        y : array-like of shape (n_samples,)
            0/1 labels (1 = fraud), booleans, {-1, 1}, or any two labels with ``pos_label``.
            A pandas y (weights, costs) must carry X's index (else a ``ValueError`` naming it).
        sample_weight : array-like of shape (n_samples,), optional
            Row weights (counts and money are weighted sums).
        fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n_samples,), optional
            Money per row (``C_FP``, ``C_FN``, ``C_TP``, ``C_TN``); ``fn_cost`` needs ``fp_cost``
            (0 when alerts cost nothing), else a ``TypeError``; without any cost only the
            counting figures are returned.
        cost_matrix : array-like of shape (n_samples, 4), optional
            ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
        per_rule : bool, default=False
            Return the per-rule table instead of the set-level dict.
        last_rule : {"round", "include", "exclude", "expected"}, default="round"
            Which rules are scored, with the same default as :meth:`predict` and
            :meth:`to_sql` so the figures are those of the rules deployed: ``"round"``
            (the randomised last rule in force iff rho > 1/2), ``"include"``, ``"exclude"``;
            or ``"expected"``: the randomised set in expectation (the last rule counts with
            probability rho; RIFF's protocol, under which the expected FPR on the selection
            set equals the budget).
        pos_label : int, float, bool, str or None, default=None
            The positive class: the label whose miss costs ``fn_cost``. None: 1 for labels
            {0, 1}, {-1, 1} or booleans; other labels (``"fraud"`` / ``"ok"``) need it, else a
            ``ValueError`` (a label is never taken as positive from its sort order).
        decline_cost : float or array-like of shape (n_samples,), optional
            Money per row of declining a legitimate customer, what a ``"block"`` rule costs on a
            negative row in place of ``C_FP`` (a review). None: ``C_FP``, i.e. a block is costed
            like a review. A block on a positive books ``C_FN - C_TP`` as a review does.

        Returns
        -------
        dict or pandas.DataFrame
            See below.

        Notes
        -----
        The dict holds ``tpr`` (recall), ``fpr``, ``alert_rate``, ``precision`` (weighted by
        ``sample_weight``; expectations under rho with ``last_rule="expected"``) and
        ``n_rules`` (the rules scored). With costs
        (per row, as everywhere in this package; money in the costs' own unit) also:

        - ``money_caught`` = sum over flagged positives of ``C_FN - C_TP`` (loss prevented),
          ``money_at_risk`` (the same over all positives), ``money_recall`` (their ratio);
        - ``alert_cost`` = sum over flagged negatives of ``C_FP - C_TN`` (false alerts);
        - ``net_money`` = money_caught - alert_cost: money saved against running **no rules**;
        - ``cost`` = expected total cost; ``cost_no_rules`` and ``cost_flag_all``, the two
          trivial policies (``cost = cost_no_rules - net_money``);
        - ``savings`` = ``(Cost_l - cost) / Cost_l`` against the cheaper trivial policy
          ``Cost_l`` (ECSDT eq. 5), which ``savings_baseline`` names (``"no rules"`` or
          ``"flag all"``), and ``savings_vs_no_rules`` = ``net_money / cost_no_rules``.

        ``per_rule=True`` returns instead a pandas DataFrame, one row per rule scored, in order
        (index ``rule_no`` from 1): ``rule`` (its text, with the data's column and category
        names), ``probability`` (1, or rho for the last rule with ``last_rule="expected"``);
        what the rule flags on its
        own: ``flagged`` (weighted rows), ``tp``, ``fp``, ``precision``, ``recall``, ``fpr``,
        ``money_caught``, ``alert_cost``, ``net_money``; what it adds to the rules above it
        (rows no earlier rule flags, times its probability): ``new_tp``, ``new_fp``,
        ``new_money_caught``, ``new_alert_cost``; and the set of rules 1..i:
        ``set_recall``, ``set_fpr``, ``set_precision``, ``set_money_caught``,
        ``set_alert_cost``, ``set_net_money`` (the last row equals the dict's figures); and what
        the set loses without the rule, over the rows no other rule in force flags (leave one
        out; with ``last_rule="expected"`` each row counts with the probability that the rule
        flags it and no other does): ``unique_tp``, ``unique_fp``, ``unique_money_caught``,
        ``unique_alert_cost``, ``unique_net_money``. ``unique_net_money`` <= 0 means the set
        books at least as much without the rule. Money columns appear only with costs.

        Dask collections (X, y, weights and per-row costs partitioned alike) are
        evaluated in one pass over their partitions, the per-rule table too (its sums add
        across partitions); the data never reaches the client.

        **Rule books with actions** (a rule set with an ``"allow"`` or ``"block"`` rule, or any
        set with ``decline_cost``) are read top-down, first match wins (:meth:`actions`): a row
        is flagged when the first rule matching it blocks or reviews it; ``alert_cost`` counts
        ``C_FP - C_TN`` on a reviewed negative and ``decline_cost - C_TN`` on a blocked one, and
        ``cost`` likewise. The dict gains ``allowed``, ``blocked``, ``reviewed``: the weighted
        rows whose first match allows, blocks, reviews them. The per-rule table gains
        ``action`` and ``first_matched`` (weighted rows the rule is the first to match);
        ``flagged``, ``tp``, ``fp``, ``precision``, ``recall``, ``fpr`` count the rows its
        condition matches (for an allow rule, those it would exempt), the money columns what its
        action books on them (0 for an allow rule); ``new_*`` what it books on the rows it
        matches first; ``set_*`` the book of rules 1..i; and ``unique_*`` what the book loses
        without the rule: on each row the rule matches first, its action's figures minus those
        of the row's next matching rule (0 where none). For an allow rule these are what its
        exempted rows would have booked below it, with the sign reversed: ``unique_net_money``
        is positive when the rows it exempts would have cost money, negative when they would
        have earned it. On dask collections (``decline_cost`` a scalar or partitioned like X) the same sums are
        added over the partitions.
        """
        rs = self._in_force(last_rule)
        if rs.has_actions or decline_cost is not None:
            return rs._evaluate_book(X, y, sample_weight=sample_weight, fp_cost=fp_cost, fn_cost=fn_cost,
                                     tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix, per_rule=per_rule,
                                     pos_label=pos_label, decline_cost=decline_cost)
        if _dask.is_dask(X):
            check_cost_keywords(fp_cost, fn_cost, cost_matrix, tp_cost, tn_cost)
            return _dask.evaluate(rs, X, dask_labels(y, pos_label), sample_weight=sample_weight, fp_cost=fp_cost,
                                  fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix,
                                  per_rule=per_rule)
        rows = read_rows(X, y, pos_label=pos_label, require_both=False, sample_weight=sample_weight,
                         fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
        return evaluate_blocks(rs, [memory_block(X, rows)], per_rule)

    def _evaluate_book(self, X, y, *, sample_weight, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, per_rule,
                       pos_label, decline_cost):
        """:meth:`evaluate` of a rule book read top-down (every rule in force), in memory or on dask collections."""
        from ._dask_evaluate import book_blocks
        from ._report import read_decline_cost

        if _dask.is_dask(X):
            check_cost_keywords(fp_cost, fn_cost, cost_matrix, tp_cost, tn_cost)
            return _dask.evaluate(self, X, dask_labels(y, pos_label), sample_weight=sample_weight, fp_cost=fp_cost,
                                  fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix,
                                  per_rule=per_rule, decline_cost=decline_cost, book=True)
        rows = read_rows(X, y, pos_label=pos_label, require_both=False, sample_weight=sample_weight,
                         fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix)
        decline = read_decline_cost(decline_cost, X, rows.n)
        if decline is not None and rows.costs is None:
            raise TypeError("decline_cost needs the other costs: give fp_cost= and fn_cost= (or cost_matrix=)")
        block = memory_block(X, rows)
        block.extra = {"decline_cost": decline}
        return book_blocks(self, [block], per_rule)

    def monitor(self, X, y, periods, *, reference=None, alpha=0.01, sample_weight=None, fp_cost=None,
                fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, pos_label=None):
        """Each rule's alerts, precision and money per period, with drift flagged beyond sampling noise.

        The rules are those deployed (``last_rule="round"``, as :meth:`predict`). For period
        ``t`` and rule ``r`` (weights ``w_i``, 1 without ``sample_weight``), over the rows ``r``
        covers: ``alerts`` = sum w_i; ``alert_rate`` = alerts / sum of w_i over the period;
        ``tp`` = sum w_i y_i; ``precision`` = tp / alerts; with costs ``net_money`` = sum over
        its positives of w_i (C_FN - C_TP) minus sum over its negatives of w_i (C_FP - C_TN),
        the rule's money alone; ``unique_net_money`` = net money of the set minus net money of
        the set without ``r`` in that period, i.e. the net money of the rows no other rule
        covers (what ``r`` adds alone). The row ``"(all rules)"`` is the whole set (an alert
        iff a rule covers the row); its ``unique_net_money`` is its ``net_money``.

        **Drift.** In every period not among the reference periods, each rule's precision
        and alert rate are compared with those of the pooled reference periods by a
        two-sided **Fisher exact test** on the 2 x 2 table (this period / the reference
        x true / false alerts, resp. alerts / rows without alert), exact at any count. ``drift``
        is True when either p-value is below ``alpha / m``, Bonferroni over
        ``m = 2 x (rules + 1) x monitored periods`` tests (two per rule, the set included,
        and period), so that on stationary rules the chance of any false flag in the table
        is at most ``alpha``. A period where the rule (or the reference) raises no alert has
        no precision: NaN ``precision_pvalue``; reference periods get NaN p-values and
        ``drift`` False. When every period is a reference (one period only, or all of them
        given), nothing is tested: a ``UserWarning`` says so and ``drift`` is NA on every row
        (pandas' nullable ``boolean``), not False. With ``sample_weight`` the counts and money are weighted sums and
        each test uses Kish's effective counts: ``n_eff = (sum w)^2 / sum w^2`` rows, of
        which ``round(rate x n_eff)`` hits (the counts themselves with unit or equal weights).
        A test's power grows with the alerts on both sides (the standard error of a precision
        is ``sqrt(precision (1 - precision) / alerts)``) and falls as ``alpha / m`` tightens: when
        one period holds few alerts of a rule, pass several ``reference`` periods (a list of
        labels), whose pooled alerts make the comparison sharper.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The rows (pandas columns matched by name).
        y : array-like of shape (n_samples,)
            0/1 labels (1 = fraud), booleans, {-1, 1}, or any two labels with ``pos_label``.
        periods : array-like of shape (n_samples,)
            The period of each row (week, day, ...); sorted in the result. No missing label.
        reference : label or list of labels, optional
            The periods every other period is compared with (pooled). Default: the first period;
            a list of several periods gives more power when one period holds few alerts.
        alpha : float in (0, 1), default=0.01
            Family-wise level of the drift flags.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights.
        fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n_samples,), optional
            Money per row (``C_FP``, ``C_FN``, ``C_TP``, ``C_TN``); ``fn_cost`` needs ``fp_cost``
            (0 when alerts cost nothing), else a ``TypeError``; without costs the money columns
            are left out.
        cost_matrix : array-like of shape (n_samples, 4), optional
            ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four keywords.
        pos_label : int, float, bool, str or None, default=None
            The positive class: the label whose miss costs ``fn_cost`` (as in :meth:`evaluate`).

        Returns
        -------
        pandas.DataFrame
            Indexed by (``period``, ``rule``), periods sorted, the rules in order (named by
            ``rule.name`` / the set's names when given, else ``rule_1``, ``rule_2``, ...) then
            ``"(all rules)"``; columns ``alerts``, ``alert_rate``, ``tp``, ``precision``,
            ``net_money``, ``unique_net_money`` (with costs), ``precision_pvalue``,
            ``alert_rate_pvalue`` (raw two-sided p-values) and ``drift`` (bool). ``attrs``
            holds ``alpha``, ``level`` (``alpha / m``), ``reference`` and ``test``.

        Raises
        ------
        ValueError
            ``periods`` of the wrong length or with a missing label, ``reference`` periods
            not in ``periods``, ``alpha`` outside (0, 1).

        Notes
        -----
        Dask collections (X, y, periods, weights and per-row costs partitioned alike) are read
        in one pass over their partitions; the sums per (period, rule) add across partitions.

        **Rule books with actions** (an ``"allow"`` or ``"block"`` rule) are read top-down, first
        match wins, as :meth:`actions` and :meth:`evaluate` read them: rule ``r``'s rows in a period
        are the rows whose action comes from ``r`` (``r`` is the first rule matching them), so
        ``alerts`` counts the rows ``r`` blocks or reviews, or for an allow rule the rows it
        exempts, and ``precision`` is the share of positives among them. ``net_money`` is the money
        ``r``'s action books on them (0 for an allow rule; a block costs ``C_FP`` on a negative, as a
        review does); ``unique_net_money`` what the book loses without ``r`` in that period: on
        each of those rows, ``r``'s money minus that of the row's next matching rule's action (0
        where none), as ``evaluate(per_rule=True)``'s ``unique_net_money``. ``"(all rules)"`` is
        the rows the book flags (first match blocks or reviews).
        """
        from ._monitor import monitor

        return monitor(self, X, y, periods, reference=reference, alpha=alpha, sample_weight=sample_weight,
                       fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost, cost_matrix=cost_matrix,
                       pos_label=pos_label)

    def _in_force(self, last_rule) -> "RuleSet":
        """The rules ``last_rule`` deploys, all always in force (``"expected"``: the randomised set itself)."""
        if last_rule == "expected" or self.last_rule_probability == 1.0:
            if last_rule not in ("round", "include", "exclude", "expected"):
                raise ValueError(f"last_rule must be 'round', 'include', 'exclude' or 'expected', got {last_rule!r}")
            return self
        rho = self.last_rule_probability
        on = {"round": rho > 0.5, "include": True, "exclude": False}.get(last_rule)
        if on is None:
            raise ValueError(f"last_rule must be 'round', 'include', 'exclude' or 'expected', got {last_rule!r}")
        if not on:
            return self[:-1]
        rs = self[:]
        rs.last_rule_probability = 1.0
        return rs

    # ---------------------------------------------------------------- export
    def _names(self):
        """{feature index: column name} of the features the rules use (``x<j>`` beyond ``feature_names``)."""
        names = list(self.feature_names) if self.feature_names is not None else []
        used = {c.feature for r in self._tree_rules()[1] for c in r.conditions}
        return {j: names[j] if j < len(names) else f"x{j}" for j in used}

    def to_dict(self) -> dict:
        """The rule set as plain Python (the content of :meth:`to_json`).

        Returns
        -------
        dict
            ``format``, ``feature_names``, ``last_rule_probability``, ``rules`` (each with its
            ``action`` when some rule's action is not ``"review"``), ``selection``,
            ``missing_columns``. Row positions in ``selection`` (``selection_index``, ...) are a
            compressed bit mask (``csboost_plugins/rules/_schema.py``), other arrays lists.
        """
        return {"format": "csboost_plugins.rules.RuleSet/1", "feature_names": self.feature_names,
                "last_rule_probability": self.last_rule_probability,
                "rules": [dict(r.to_dict(), name=n, **({"action": a} if self.has_actions else {}))
                          for r, n, a in zip(self.rules, self.names, self.actions_)],
                "missing_columns": self.missing_columns,
                "selection": {k: (encode_row_positions(v) if k in ROW_POSITION_KEYS else _plain(v))
                              for k, v in self.selection.items()}}

    def to_json(self, path=None, **kwargs) -> str:
        """JSON text of the rule set (exact float64 bounds: rows are selected identically after a round trip).

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file.
        **kwargs
            Passed to :func:`json.dumps` (e.g. ``indent=2``).

        Returns
        -------
        str
            The JSON text.
        """
        s = json.dumps(self.to_dict(), **kwargs)
        if path is not None:
            with open(path, "w") as fh:
                fh.write(s)
        return s

    @classmethod
    def from_dict(cls, d: dict) -> "RuleSet":
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            A rule set in the schema documented in :meth:`from_json`.

        Returns
        -------
        RuleSet

        Raises
        ------
        TypeError, ValueError
            When ``d`` breaks the schema; the message names the field (``rules[3].conditions[0].feature``).
        """
        check_ruleset_dict(d)
        names = d.get("feature_names")
        rules = [rule_from_dict(r, names, f"rules[{k}]") for k, r in enumerate(d["rules"])]
        rule_names = [r.get("name") for r in d["rules"]]
        selection = d.get("selection")
        if selection:  # row positions back to int64 arrays (the compressed mask, or a list in older files)
            selection = {k: decode_row_positions(v, f"selection.{k}") if k in ROW_POSITION_KEYS else v
                         for k, v in selection.items()}
        return cls(rules, last_rule_probability=d.get("last_rule_probability", 1.0), feature_names=names,
                   selection=selection, missing_columns=d.get("missing_columns"),
                   names=None if all(n is None for n in rule_names) else rule_names,
                   actions=[r.get("action", "review") for r in d["rules"]])

    @classmethod
    def from_sql(cls, rules, *, dialect=None) -> "RuleSet":
        """A rule set read from SQL conditions (a team's rule book); nothing is executed.

        Parameters
        ----------
        rules : dict, list or str
            ``{name: condition}``; a list of conditions (named ``rule_1``, ``rule_2``, ...); or one
            ``SELECT ... FROM table WHERE ...`` whose WHERE is an OR of rules, each top-level OR
            branch one rule (named by a ``/* rule: name */`` or ``-- rule: name`` comment after it,
            parenthesised or not, as :meth:`to_sql` writes, else ``rule_1``, ...). A condition may also be given as ``SELECT ... WHERE cond``.
            A rule book with actions: a condition may be a pair ``(condition, action)``
            (``{"trusted": ("customer_age_days > 1000", "allow"), ...}``, or list entries
            ``(condition, action)`` / ``(name, condition, action)``), or the text one searched
            ``CASE WHEN cond THEN 'allow' | 'block' | 'review' ... END``, bare or as a column of
            ``SELECT *, CASE ... END AS action FROM table`` (no WHERE), each WHEN one rule in
            priority order, named by a ``rule: name`` comment inside it (after the condition or
            after its THEN), with no ELSE or ``ELSE NULL``. A plain condition is a ``"review"``.
            See :meth:`actions` for how the book is read.
        dialect : str, optional
            The sqlglot dialect of the text (``"duckdb"``, ``"sqlite"``, ``"postgres"``,
            ``"snowflake"``, ``"spark"``, ``"bigquery"``, ...); None for generic SQL. It fixes what
            ``LIKE``, ``LEAST`` / ``GREATEST`` and integer ``/`` mean (see Notes).

        Returns
        -------
        RuleSet
            One :class:`SQLRule` per condition, in order, keeping its name; its action in
            :attr:`actions_`.

        Raises
        ------
        ValueError
            An unknown action (named), a CASE with an ELSE other than NULL or a THEN that is not an
            action in quotes; text that is not one SELECT or one condition per rule (``DROP``, ``DELETE``, several
            statements), SQL nested more than 100 levels deep, a duplicate name, or a construct
            outside the list below (subqueries, user or unknown functions, window functions,
            aggregates, ...): the message names the rule and the construct.

        Notes
        -----
        Read: comparisons (``< <= > >= = <> !=``) between columns, numbers, text and arithmetic
        (``+ - * /``, unary minus, ``ABS``, ``COALESCE``, ``NULLIF``, ``LEAST``, ``GREATEST``,
        ``CAST`` to ``DOUBLE`` / ``FLOAT`` / ``REAL``); ``AND`` / ``OR`` / ``NOT`` at any depth;
        ``BETWEEN``; ``IN`` / ``NOT IN`` with numbers or text; ``IS [NOT] NULL``; ``LIKE`` /
        ``ILIKE`` / ``NOT LIKE`` (and SQLite's ``GLOB``) on text columns; ``TRUE`` / ``FALSE``.

        A rule flags a row iff its condition is TRUE in SQL's three-valued logic: a comparison with
        NULL (NaN in a numeric column) is unknown, ``NOT unknown`` is unknown, ``unknown OR true``
        is true, and WHERE keeps only true, so ``predict`` flags the rows the warehouse flags.
        Division by zero follows the dialect: ``x / 0`` is NULL (no alert) read from SQLite, generic SQL
        and the other dialects; read from DuckDB it is DuckDB's IEEE division, ``1.0 / 0`` and
        ``1 / 0`` are +Infinity, ``-1.0 / 0`` is -Infinity and ``0.0 / 0`` is NaN, a value DuckDB
        orders above every number, so ``amount / 0 > 1`` flags every row whose amount is not
        negative, as DuckDB does. ``LEAST`` / ``GREATEST`` ignore NULL arguments when
        read from DuckDB, Postgres, Spark or generic SQL, and return NULL if any argument is NULL
        when read from SQLite (``MIN(a, b)``), MySQL, BigQuery or Snowflake, as those engines do.
        ``LIKE`` is case-sensitive except in SQLite (ASCII letters fold); ``ILIKE`` folds case.
        Columns are matched by name in a DataFrame (an unquoted name also ignoring case); text
        compared with a numeric column, or a number with a text column, is a ValueError naming
        the rule at ``predict``. Numbers are compared as float64, exact for integers up to 2**53:
        a literal written in digits beyond 2**53 that float64 does not hold (``9007199254740993``)
        is a ValueError when read, and an integer column holding a value beyond 2**53 one at
        ``predict`` (both named); compare such identifiers as text.
        """
        from ._sqlparse import rules_from_sql

        rules, actions = rules_from_sql(rules, dialect)
        return cls(rules, actions=actions)

    @classmethod
    def from_json(cls, text) -> "RuleSet":
        """Inverse of :meth:`to_json`.

        The text must be an object ``{"format": "csboost_plugins.rules.RuleSet/1", "feature_names":
        [...] | null, "last_rule_probability": rho, "selection": {...}, "rules": [{"kind": "tree",
        "conditions": [...], "sources": [...], "value": v, "categories": {...}}, ...]}``; each condition is
        ``{"kind": "interval", "feature": j, "lower": a | null, "upper": b | null,
        "lower_closed": bool, "upper_closed": bool, "missing": bool, ...}`` or
        ``{"kind": "category", "feature": j, "codes": [int, ...], "negate": bool, "missing": bool}``.
        A rule's ``kind`` names the class that reads it: ``"tree"`` (an induced :class:`Rule`, also
        when ``kind`` is absent), ``"sql"`` (an :class:`SQLRule`) or any other registered rule kind
        (the full schema: ``csboost_plugins/rules/_schema.py``).

        Parameters
        ----------
        text : str or path-like
            JSON text, or the path of a file holding it.

        Returns
        -------
        RuleSet

        Raises
        ------
        ValueError
            Invalid JSON, a missing field or a value out of range (the message names the field).
        TypeError
            A field of the wrong type.
        """
        if isinstance(text, os.PathLike) or (isinstance(text, str) and not text.lstrip().startswith(("{", "["))
                                            and text.strip() and os.path.isfile(text)):
            with open(text) as fh:
                text = fh.read()
        elif not isinstance(text, str):
            raise TypeError(f"from_json takes a JSON string or file path, got {type(text).__name__}")
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            hint = "" if text.lstrip().startswith(("{", "[")) else " (and it is not the path of an existing file)"
            raise ValueError(f"from_json: the text is not valid JSON{hint}: {exc}") from None
        except RecursionError:
            raise ValueError("from_json: the JSON is nested too deeply to be a rule set") from None
        return cls.from_dict(d)

    def to_sql(self, table="transactions", *, dialect=None, last_rule="round", where_only=False,
               pretty=False) -> str:
        """``SELECT * FROM table WHERE ...`` selecting the alerts (or only the WHERE expression).

        Written by sqlglot (a dependency of the package) for the dialect.

        Parameters
        ----------
        table : str or tuple of str, default="transactions"
            One name, quoted verbatim (``"t; DROP TABLE users; --"`` is a table of
            that name, not a second statement), or ``(schema, table)`` /
            ``(catalog, schema, table)``. Column names come from ``feature_names`` and
            are quoted the same way.
        dialect : str, optional
            ``"spark"``, ``"snowflake"``, ``"bigquery"``, ``"postgres"``, ``"duckdb"``,
            ``"sqlite"`` (tested), any other sqlglot dialect, or None for generic SQL.
        last_rule : {"round", "include", "exclude"}, default="round"
            As in :meth:`predict`.
        where_only : bool, default=False
            Return only the parenthesised boolean expression.
        pretty : bool, default=False
            Indent the SQL.

        Returns
        -------
        str
            The SQL text. A set with an ``"allow"`` or ``"block"`` rule is written as its rule book:
            ``SELECT *, CASE WHEN (rule_1) /* rule: name_1 */ THEN 'allow' WHEN ... END AS "action"
            FROM table`` (every row with its action, NULL where no rule matches; the alerts are the
            rows whose action is ``'block'`` or ``'review'``), with ``where_only=True`` the CASE
            alone. :meth:`from_sql` reads both back.

        Notes
        -----
        - Cuts are the rules' exact float64 bounds written as shortest round-trip decimals,
          so a column holding the float64 values the model saw is split exactly as the
          model split it (xgboost's float32 comparison ``float32(x) < t`` becomes the
          float64 midpoint bound with the right ``<`` / ``<=``). For SQLite, a literal the
          local sqlite3 library would read one ulp off is written as an exact product.
        - For SQLite, names are written in backticks: SQLite reads a double-quoted name it cannot
          resolve as a text literal (on a table lacking a column every row would be flagged), a
          backticked one as an error (``no such column``).
        - Missing values are SQL NULL and go where the model sends NaN. Store NaN as NULL:
          a NaN *value* in a DOUBLE column sorts above every number in Postgres, DuckDB,
          Spark and Snowflake.
        - Category rules on pandas categoricals compare category values (``IN (...)``);
          on numeric codes they compare ``trunc(x)`` through intervals. A value outside the
          training categories counts as missing, as in :meth:`predict`.
        """
        rules = self._active_rules(last_rule)
        names, levels = self._names(), collect_categories(self._tree_rules()[1])
        labels = self.names[:len(rules)]
        if self.has_actions:
            return case_sql(rules, names, levels, self.actions_, labels, None if where_only else table,
                            dialect=dialect, pretty=pretty)
        if where_only:
            return where_expression(rules, names, levels, dialect=dialect, pretty=pretty, labels=labels)
        return select_statement(rules, names, levels, table, dialect=dialect, pretty=pretty, labels=labels)

    def to_pandas_query(self, *, last_rule="round") -> str:
        """Expression for ``df.query(expr, engine="python")`` selecting the alerts.

        Parameters
        ----------
        last_rule : {"round", "include", "exclude"}, default="round"
            As in :meth:`predict`.

        Returns
        -------
        str
            A pandas query string. In a rule book with ``"allow"`` rules, each flagging rule is
            written as ``(rule) and ~(allow rules above it)``: the rows of :meth:`predict`.

        Raises
        ------
        ValueError
            With pandas < 3 when a column name the rules use holds a quote, ``#`` or a backslash:
            pandas 2 cannot parse such names in a query (use :meth:`predict` or :meth:`to_sql`).
        """
        rules = self._active_rules(last_rule)
        names, levels = self._names(), collect_categories(self._tree_rules()[1])
        parts = [r.to_pandas_query(names=names, levels=levels) for r in rules]
        parts = _exempted(parts, self.actions_[:len(parts)])
        while len(parts) > 2:  # pairwise: pandas folds a flat ``or`` chain recursively (RecursionError at ~400)
            parts = [f"({' or '.join(parts[i:i + 2])})" for i in range(0, len(parts), 2)]
        expr = " or ".join(parts) if parts else "False"
        _check_pandas_parses(expr, list(dict.fromkeys([*names.values(), *(c for r in rules for c in r.columns)])))
        return expr

    def _active_rules(self, last_rule):
        if last_rule not in ("round", "include", "exclude"):
            raise ValueError(f"last_rule must be 'round', 'include' or 'exclude', got {last_rule!r}")
        rho = self.last_rule_probability
        on = {"round": rho > 0.5, "include": True, "exclude": rho == 1.0}[last_rule]
        return self.rules if on else self.rules[:-1]


def _n_rows(X) -> int:
    """Rows of X for a set without rules: no column is read (a DataFrame's text columns are fine, as for SQL
    rules); other input must still be a numeric 2-D array."""
    return as_float_matrix(X, [], columns=[]).shape[0]


def _first_of(masks) -> np.ndarray:
    """Index of the first True among per-rule masks (an iterable of bool arrays), -1 where none."""
    out = None
    for j, m in enumerate(masks):
        m = np.asarray(m, dtype=bool)
        if out is None:
            out = np.full(m.shape[0], -1, np.int64)
        out[(out < 0) & m] = j
    return np.zeros(0, np.int64) if out is None else out


def _exempted(parts, actions) -> list:
    """The pandas queries of the flagging rules, each without the rows an allow rule above it matches."""
    out, allows = [], []
    for q, a in zip(parts, actions):
        if a == "allow":
            allows.append(f"({q})")
        elif allows:
            out.append(f"(({q}) and ~({' or '.join(allows)}))")
        else:
            out.append(q)
    return out


def _rule_actions(actions, names) -> list:
    """Every rule's action (``"review"`` when ``actions`` is None); a wrong length or an unknown action is a
    ValueError naming the rule."""
    from ._sqlparse import check_action

    if actions is None:
        return ["review"] * len(names)
    if isinstance(actions, (str, bytes)) or not hasattr(actions, "__len__") or len(actions) != len(names):
        raise ValueError(f"actions must be a list of one action per rule ({len(names)}), got {actions!r:.80}")
    return [check_action(a, f"actions: rule {n!r}") for a, n in zip(actions, names)]


def _rule_names(rules, names) -> list:
    """Every rule's name: ``names[i]`` if given, an SQL rule's own name, else ``riff_<k>`` (the lowest k not taken,
    in order). Duplicates, empty names and names holding ``*/`` (they go into SQL comments) are ValueErrors."""
    if names is not None:
        if isinstance(names, (str, bytes)) or not hasattr(names, "__len__") or len(names) != len(rules):
            raise ValueError(f"names must be a list of one name per rule ({len(rules)}), got {names!r:.80}")
    given = [g if g is not None else r.name  # a rule's own name (an SQL rule's); None for an induced rule
             for g, r in zip([None] * len(rules) if names is None else names, rules)]
    for g in given:
        if g is not None and (not isinstance(g, str) or not g.strip()):
            raise ValueError(f"a rule name must be a non-empty string, got {g!r:.80}")
        if g is not None and ("*/" in g or "\n" in g or "\r" in g):
            raise ValueError(f"rule name {g!r:.80} holds '*/' or a line break; SQL comments carry the names")
    fresh, out, seen = _free_riff_names(set(g for g in given if g is not None)), [], set()
    for g in given:
        if g is None:
            g = next(fresh)
        if g in seen:
            raise ValueError(f"rule name {g!r} is given twice; every rule in a set needs its own name")
        seen.add(g)
        out.append(g)
    return out


def _free_riff_names(taken):
    """``riff_1``, ``riff_2``, ... skipping the names in the set ``taken`` as it is when each is asked for; each name
    yielded is added to ``taken``."""
    k = 0
    while True:
        k += 1
        while f"riff_{k}" in taken:
            k += 1
        taken.add(f"riff_{k}")
        yield f"riff_{k}"


def _check_pandas_parses(expr, names):
    """Raise a ValueError naming the columns when this pandas cannot parse ``expr`` (pandas 2 reads a quote,
    ``#`` or backslash inside a backticked name as Python syntax; pandas 3 parses them)."""
    import pandas as pd

    odd = sorted(n for n in names if any(ch in n for ch in "\"'#\\"))
    if not odd or int(pd.__version__.split(".")[0]) >= 3:
        return
    try:
        pd.DataFrame({n: pd.Series(dtype=object) for n in names}).query(expr, engine="python")
    except SyntaxError:
        raise ValueError(f"pandas {pd.__version__} cannot parse a query on the columns {odd} (a quote, '#' or "
                         "backslash in a column name); rename them, use RuleSet.predict / to_sql, or pandas >= 3"
                         ) from None
