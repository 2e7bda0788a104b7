"""The rule-kind contract: what a rule set asks of a rule, whatever made it.

:class:`RuleKind` declares every method and attribute that :class:`~csboost_plugins.rules.RuleSet`
(predict, evaluate, ``to_sql``, ``to_pandas_query``, JSON, names), the SQL writer, the JSON schema
and the rule-book optimiser call on a rule. Two kinds ship with the package: induced rules
(:class:`._rule.Rule`, a conjunction of conditions on column indices, tag ``"tree"``) and rules
read from SQL (:class:`._sqlrule.SQLRule`, tag ``"sql"``). A new kind is a new module: a subclass
implementing the abstract methods, decorated with :func:`register_kind`; the set dispatches on
the methods and ``RuleSet.from_dict`` finds the class by the ``"kind"`` tag of each rule's dict.

How a set evaluates its rules together is the kind's ``evaluator`` (a class attribute):

- ``"kernels"``: the rule is a conjunction of ``conditions``
  (:class:`._rule.Interval` / :class:`._rule.CategorySet` on column indices, with training
  ``categories``), compiled with the set's other such rules into the numba interval kernels;
- ``"engine"``: the rule is a compiled SQL condition (``tree``, ``literals``, ``dialect``),
  bit-packed by the rule engine (:mod:`._engine`) with the set's kernel rules;
- ``"truth"`` (the default, any new kind): :meth:`RuleKind.true_masks` of the kind, by default
  each rule's own :meth:`RuleKind.truth` on the column reader the set shares.
"""

from __future__ import annotations

import abc

from .._docstrings import fill_doc

__all__ = ["DEFAULT_KIND", "EVALUATORS", "KIND_DOCS", "RuleKind", "register_kind", "registered_kinds", "rule_from_dict",
           "rule_kind"]

#: the tag of a rule dict without ``"kind"`` (files written before rules were tagged hold induced rules)
DEFAULT_KIND = "tree"
#: how a set may evaluate the rules of a kind together (see the module doc)
EVALUATORS = ("kernels", "engine", "truth")

_REGISTRY: dict = {}

#: numpydoc text every kind's export methods share (``csboost_plugins._docstrings.fill_doc``)
KIND_DOCS = dict(
    dialect="dialect : str, optional\n    The target sqlglot dialect (\"\" or None: generic SQL).",
    names_levels="names, levels : dict, optional\n"
                 "    A set's ``{column index: name}`` and ``{column index: training categories}``, for a kind\n"
                 "    reading columns by index (default: the rule's own ``feature_names`` and ``categories``);\n"
                 "    a kind naming its columns ignores them.",
    returns_expression="Returns\n-------\nsqlglot.exp.Expression",
    returns_text="Returns\n-------\nstr",
)


class RuleKind(abc.ABC):
    """A rule: a condition on a row; a rule set flags the rows where some rule's condition is TRUE.

    Attributes
    ----------
    kind : str
        Class attribute: the tag of the kind, the ``"kind"`` entry of :meth:`to_dict` and the key of
        the registry.
    evaluator : {"kernels", "engine", "truth"}, default="truth"
        Class attribute: how a set evaluates the rules of this kind together (module doc).
    name : str or None
        The rule's own name (kept by the set), or None: the set names it ``riff_<k>``.
    feature_names : list of str or None
        For a kind reading columns by index, the names of those columns (the set's, see
        :meth:`for_set`); None for a kind that names its columns.
    """

    kind: str = ""
    evaluator = "truth"
    name = None
    feature_names = None

    # ------------------------------------------------------------------ identity
    @property
    @abc.abstractmethod
    def key(self):
        """Hashable identity: rules of one kind with equal keys flag the same rows."""

    def __eq__(self, other):
        return isinstance(other, RuleKind) and other.kind == self.kind and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    @abc.abstractmethod
    def __str__(self):
        """Readable text of the condition (shown by the set, in its per-rule tables and diffs)."""

    @property
    @abc.abstractmethod
    def columns(self) -> list:
        """Names of the columns the rule reads (each once)."""

    def renamed(self, name) -> "RuleKind":
        """The same rule under the name ``name`` (a new object; this one is unchanged).

        A kind without names of its own (``name`` None: the set names it) returns the rule itself.

        Parameters
        ----------
        name : str
            The copy's name (a set gives it, e.g. ``riff_3``, when the rule's own is taken).

        Returns
        -------
        RuleKind
        """
        return self

    def for_set(self, feature_names, missing_policy) -> "RuleKind":
        """The rule as a set with these column names and missing-value policy shows it.

        The rule itself when nothing changes (the default: a kind naming its own columns), else a
        copy, so that a rule shared with another set keeps its text there.

        Parameters
        ----------
        feature_names : list of str or None
            The set's column names (for kinds reading columns by index).
        missing_policy : bool
            Whether the set's text states the missing-value policy once.

        Returns
        -------
        RuleKind
        """
        return self

    # ------------------------------------------------------------------ evaluation
    @abc.abstractmethod
    def truth(self, X, feature_names=None, columns=None):
        """Where the condition is TRUE and where it is FALSE (rows in neither are UNKNOWN, SQL's NULL).

        Parameters
        ----------
        X : DataFrame, or array of shape (n_samples, n_features)
            The rows.
        feature_names : list of str, optional
            Names of a numpy X's columns.
        columns : Columns, optional
            The column reader a set shares among its rules (:class:`._sqlrule.Columns`: each column
            read once, numbers as float64 with NaN as NULL, text factorised).

        Returns
        -------
        true, false : ndarray of bool, shape (n_samples,)
            Disjoint masks.
        """

    @classmethod
    def true_masks(cls, rules, X, columns) -> list:
        """The TRUE masks of several rules of this kind on the same rows (kinds evaluated by ``"truth"``).

        Parameters
        ----------
        rules : list of RuleKind
            Rules of this kind, in the set's order.
        X : DataFrame or array
            The rows.
        columns : Columns
            The set's shared column reader.

        Returns
        -------
        list of ndarray of bool, shape (n_samples,)
            One mask per rule, in order. The default evaluates each rule's :meth:`truth`.
        """
        return [r.truth(X, None, columns)[0] for r in rules]

    # ------------------------------------------------------------------ export
    @abc.abstractmethod
    @fill_doc(**KIND_DOCS)
    def to_expression(self, dialect=None, *, names=None, levels=None):
        """The condition as a sqlglot expression, TRUE on the rows :meth:`truth` says TRUE, in ``dialect``
        (a construct ``dialect`` cannot state is a ValueError naming the rule).

        %(Parameters, dialect, names_levels, returns_expression)s
        """

    @fill_doc(**KIND_DOCS)
    def to_sql(self, dialect=None) -> str:
        """The condition as SQL text in ``dialect`` (identifiers quoted).

        %(Parameters, dialect, returns_text)s
        """
        from ._export import _dialect

        return self._sql_text(_dialect(dialect))

    def _sql_text(self, d) -> str:
        """:meth:`to_sql` in the checked dialect ``d`` (a kind may cache it)."""
        return self.to_expression(d).sql(dialect=d)

    @abc.abstractmethod
    @fill_doc(**KIND_DOCS)
    def to_pandas_query(self, *, names=None, levels=None) -> str:
        """A ``DataFrame.query(engine="python")`` expression true on the rows :meth:`truth` says TRUE.

        %(Parameters, names_levels, returns_text)s
        """

    # ------------------------------------------------------------------ JSON
    @abc.abstractmethod
    def to_dict(self) -> dict:
        """JSON-ready dict of the rule, with ``"kind"``: the class's :attr:`kind` tag.

        Returns
        -------
        dict
        """

    @classmethod
    @abc.abstractmethod
    def from_dict(cls, d: dict, feature_names=None) -> "RuleKind":
        """Inverse of :meth:`to_dict` (ValueError / TypeError naming the field on a broken dict).

        Parameters
        ----------
        d : dict
            As :meth:`to_dict` returns it (a set adds ``"name"`` and perhaps ``"action"``).
        feature_names : list of str, optional
            The set's column names.

        Returns
        -------
        RuleKind
        """

    @classmethod
    def check_dict(cls, d: dict, where: str, n_names) -> None:
        """Check a rule's dict in a set's JSON before :meth:`from_dict` (TypeError / ValueError naming
        ``where``); the default checks nothing beyond what :meth:`from_dict` checks.

        Parameters
        ----------
        d : dict
            The rule's dict.
        where : str
            Its path in the JSON (``rules[3]``).
        n_names : int or None
            How many feature names the set has.
        """

    # ------------------------------------------------------------------ re-tuning
    #: the numeric literals re-tuning may move (:meth:`with_literals`); none by default
    literals: tuple = ()

    def with_literals(self, values) -> "RuleKind":
        """The same rule with other numeric literals (one per slot of :attr:`literals`).

        Parameters
        ----------
        values : sequence of float
            One number per slot.

        Returns
        -------
        RuleKind
        """
        values = list(values)
        if values:
            raise ValueError(f"a {type(self).__name__} has no numeric literals to re-tune, got {len(values)} values")
        return self

    def literal_columns(self) -> tuple:
        """Per literal slot, the ``(column, quoted, sign)`` uses comparing it directly with a column, or None
        (see :meth:`._sqlrule.SQLRule.literal_columns`); empty by default.

        Returns
        -------
        tuple
        """
        return tuple(None for _ in self.literals)


def register_kind(cls):
    """Class decorator: make a :class:`RuleKind` subclass known by its ``kind`` tag (``RuleSet.from_dict``).

    Parameters
    ----------
    cls : type
        A concrete subclass of :class:`RuleKind` whose ``kind`` is a non-empty string no other class holds
        (registering the same class again, or a class of the same module and name, replaces it).

    Returns
    -------
    type
        ``cls``.
    """
    if not (isinstance(cls, type) and issubclass(cls, RuleKind)):
        raise TypeError(f"register_kind takes a RuleKind subclass, got {cls!r:.80}")
    if getattr(cls, "__abstractmethods__", None):
        raise TypeError(f"{cls.__name__} does not implement {sorted(cls.__abstractmethods__)}")
    tag = cls.kind
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"{cls.__name__}.kind must be a non-empty string tag, got {tag!r:.80}")
    if cls.evaluator not in EVALUATORS:
        raise ValueError(f"{cls.__name__}.evaluator must be one of {EVALUATORS}, got {cls.evaluator!r:.80}")
    old = _REGISTRY.get(tag)
    if old is not None and old is not cls and (old.__module__, old.__qualname__) != (cls.__module__,
                                                                                    cls.__qualname__):
        raise ValueError(f"rule kind {tag!r} is already {old.__module__}.{old.__qualname__}")
    _REGISTRY[tag] = cls
    return cls


def registered_kinds() -> tuple:
    """The registered rule-kind classes, in registration order."""
    return tuple(_REGISTRY.values())


def rule_kind(tag, where: str = "kind"):
    """The class registered under ``tag`` (ValueError naming ``where`` and the known tags otherwise)."""
    cls = _REGISTRY.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise ValueError(f"rule set JSON: {where} must be one of {sorted(_REGISTRY)}, got {tag!r:.80}")
    return cls


def rule_from_dict(d: dict, feature_names=None, where: str = "rule"):
    """The rule of a set's JSON dict, built by the class its ``"kind"`` tag names (``"tree"`` when absent)."""
    return rule_kind(d.get("kind", DEFAULT_KIND), f"{where}.kind").from_dict(d, feature_names=feature_names)
