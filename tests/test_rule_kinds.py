"""The rule-kind contract (``csboost_plugins/rules/_kind.py``), checked on every registered kind: JSON and pickle
round trips, a rule's three-valued truth on rows with NULLs equal to its SQL run in DuckDB and SQLite, renamed
copies that leave the original alone, and the rule at work in a RuleSet (predict, evaluate, to_sql, the pandas
query, JSON) against a brute-force reading of its truth. A third kind defined here, in the test file, works in a
RuleSet with no library edit; kinds that break the contract fail the checks."""

import json
import pickle
import sqlite3

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import CategorySet, Interval, Rule, RuleSet
from csboost_plugins.rules._kind import RuleKind, register_kind, registered_kinds, rule_from_dict
from csboost_plugins.rules._sqlrule import Columns

duckdb = pytest.importorskip("duckdb")

N = 300
DIALECTS = ("duckdb", "sqlite")


def _frame(n=N, seed=3):
    """Numbers with NULLs (NaN), integer codes with NULLs, text with NULLs (None), a row id ``i``."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 1, n).round(2)
    b = rng.uniform(0, 1, n).round(2)
    k = rng.integers(0, 4, n).astype(float)
    a[rng.random(n) < 0.2] = np.nan
    b[rng.random(n) < 0.2] = np.nan
    k[rng.random(n) < 0.1] = np.nan
    c = np.array(["x", "y", "zz"], dtype=object)[rng.integers(0, 3, n)]
    c[rng.random(n) < 0.15] = None
    y = (rng.random(n) < 0.3).astype(int)
    amount = rng.uniform(1, 100, n).round(2)
    return pd.DataFrame({"i": np.arange(n), "a": a, "b": b, "k": k, "c": c}), y, amount


DF, Y, AMOUNT = _frame()


# ------------------------------------------------------------------------------------------ a third kind
@register_kind
class ColumnIsNull(RuleKind):
    """Toy kind: ``column IS NULL`` (a missing value where one should be), named by the user."""

    kind = "test_column_is_null"

    def __init__(self, name, column):
        self.name, self.column = name, column

    @property
    def key(self):
        return ("is_null", self.column)

    def __str__(self):
        return f"{self.column} is missing"

    @property
    def columns(self):
        return [self.column]

    def renamed(self, name):
        return type(self)(name, self.column)

    def truth(self, X, feature_names=None, columns=None):
        cols = columns if columns is not None else Columns(X, feature_names)
        null = np.broadcast_to(cols.get(self.column, True, self.name).null, (cols.n,))
        return null.copy(), ~null

    def to_expression(self, dialect=None, *, names=None, levels=None):
        from sqlglot import exp

        return exp.column(self.column, quoted=True).is_(exp.null())

    def to_pandas_query(self, *, names=None, levels=None):
        return f"(`{self.column}` != `{self.column}`)"

    def to_dict(self):
        return {"kind": self.kind, "name": self.name, "column": self.column}

    @classmethod
    def from_dict(cls, d, feature_names=None):
        if not isinstance(d.get("column"), str):
            raise ValueError(f"rule set JSON: rule {d.get('name')!r}: column must be a string")
        return cls(d.get("name"), d["column"])


def _tree_rule():
    return Rule([Interval(0, lower=-0.3, lower_closed=False, missing=True), Interval(1, upper=0.6),
                 CategorySet(2, codes=(1, 3))], feature_names=["a", "b", "k"])


def _sql_rule():
    text = "(a > 0.5 AND b IS NOT NULL) OR (c = 'x' AND NOT b < 0.3) OR (k IN (2, 3) AND a <= -1)"
    return RuleSet.from_sql({"team_rule": text}, dialect="duckdb").rules[0]


#: one example per kind: a new kind adds its own (test_every_registered_kind_has_an_example)
EXAMPLES = {"tree": _tree_rule, "sql": _sql_rule, ColumnIsNull.kind: lambda: ColumnIsNull("no_amount", "a")}


def _kinds():
    return [pytest.param(cls, id=cls.kind) for cls in registered_kinds()]


# ------------------------------------------------------------------------------------------ the checks
def _sql_values(sql_expr, dialect):
    """TRUE / FALSE / NULL of a SQL boolean expression on every row of DF (run in that dialect's engine)."""
    query = f"SELECT i, ({sql_expr}) AS v FROM t ORDER BY i"
    if dialect == "duckdb":
        con = duckdb.connect()
        con.register("t", DF)
        rows = con.execute(query).fetchall()
    else:
        con = sqlite3.connect(":memory:")
        DF.to_sql("t", con, index=False)
        rows = con.execute(query).fetchall()
    con.close()
    assert [r[0] for r in rows] == list(range(len(DF)))
    return [None if r[1] is None else bool(r[1]) for r in rows]


def check_truth_matches_sql(rule):
    """truth's TRUE / FALSE masks are the rows where the rule's SQL is TRUE / FALSE, in every dialect."""
    t, f = rule.truth(DF, None, None)
    assert t.dtype == bool and f.dtype == bool and t.shape == f.shape == (len(DF),)
    assert not (t & f).any(), "TRUE and FALSE overlap"
    assert 0 < t.sum() < len(DF), "the example must flag some rows, not all"
    for dialect in DIALECTS:
        got = _sql_values(rule.to_sql(dialect), dialect)
        assert [v is True for v in got] == t.tolist(), dialect
        assert [v is False for v in got] == f.tolist(), dialect


def check_round_trips(rule):
    """to_dict carries the tag; JSON text and pickle give an equal rule with the same text and rows."""
    d = rule.to_dict()
    assert d.get("kind") == type(rule).kind, "to_dict lacks the kind tag"
    back = rule_from_dict(json.loads(json.dumps(d)), feature_names=rule.feature_names)
    pick = pickle.loads(pickle.dumps(rule))
    for other in (back, pick):
        assert type(other) is type(rule) and other == rule and hash(other) == hash(rule)
        assert str(other) == str(rule) and other.name == rule.name
        np.testing.assert_array_equal(other.truth(DF)[0], rule.truth(DF)[0])


def check_renamed_copy(rule):
    """renamed gives a rule named so (or the rule itself for a kind the set names); the original is unchanged."""
    before = (str(rule), rule.name, json.dumps(rule.to_dict(), sort_keys=True))
    other = rule.renamed("renamed_rule")
    other2 = rule.for_set(["p", "q", "r"], True)
    assert (str(rule), rule.name, json.dumps(rule.to_dict(), sort_keys=True)) == before
    if rule.name is not None:
        assert other is not rule and other.name == "renamed_rule" and other == rule
    assert isinstance(other2, RuleKind)


def _brute(mask):
    """The evaluate figures of flagging ``mask`` on (Y, AMOUNT), alerts at 5 each."""
    pos = Y == 1
    return {"tpr": (mask & pos).sum() / pos.sum(), "fpr": (mask & ~pos).sum() / (~pos).sum(),
            "net_money": AMOUNT[mask & pos].sum() - 5.0 * (mask & ~pos).sum()}


def check_in_rule_set(rules):
    """A set of the rules flags the rows some rule's truth says TRUE: predict, apply, coverage, evaluate, to_sql in
    DuckDB and SQLite, the pandas query, JSON and pickle round trips."""
    rs = RuleSet(rules)
    masks = np.column_stack([r.truth(DF)[0] for r in rs.rules])
    flag = masks.any(axis=1)
    np.testing.assert_array_equal(rs.predict(DF), flag.astype(np.int64))
    np.testing.assert_array_equal(rs.coverage(DF), masks)
    first = np.where(flag, masks.argmax(axis=1), -1)
    np.testing.assert_array_equal(rs.apply(DF), first)
    got = rs.evaluate(DF, Y, fp_cost=5.0, fn_cost=AMOUNT)
    for k, v in _brute(flag).items():
        assert got[k] == pytest.approx(v, rel=1e-12), k
    table = rs.evaluate(DF, Y, fp_cost=5.0, fn_cost=AMOUNT, per_rule=True)
    for j in range(len(rules)):
        assert table["net_money"].iloc[j] == pytest.approx(_brute(masks[:, j])["net_money"], rel=1e-12)
    for dialect in DIALECTS:
        con = duckdb.connect() if dialect == "duckdb" else sqlite3.connect(":memory:")
        if dialect == "duckdb":
            con.register("transactions", DF)
        else:
            DF.to_sql("transactions", con, index=False)
        ids = sorted(r[0] for r in con.execute(f"SELECT i FROM ({rs.to_sql(dialect=dialect)})").fetchall())
        con.close()
        assert ids == np.flatnonzero(flag).tolist(), dialect
    np.testing.assert_array_equal(DF.query(rs.to_pandas_query(), engine="python")["i"], np.flatnonzero(flag))
    for back in (RuleSet.from_json(rs.to_json()), pickle.loads(pickle.dumps(rs))):
        assert back.rules == rs.rules and back.names == rs.names and str(back) == str(rs)
        np.testing.assert_array_equal(back.predict(DF), rs.predict(DF))


# ------------------------------------------------------------------------------------------ the contract
def test_every_registered_kind_has_an_example():
    tags = [cls.kind for cls in registered_kinds()]
    assert {"tree", "sql", ColumnIsNull.kind} <= set(tags)
    assert set(tags) <= set(EXAMPLES), f"add an example of the new kind(s) {set(tags) - set(EXAMPLES)} to EXAMPLES"


@pytest.mark.parametrize("cls", _kinds())
def test_kind_example_is_of_its_kind(cls):
    rule = EXAMPLES[cls.kind]()
    assert type(rule) is cls and isinstance(rule, RuleKind)


@pytest.mark.parametrize("cls", _kinds())
def test_truth_equals_its_sql_in_duckdb_and_sqlite(cls):
    check_truth_matches_sql(EXAMPLES[cls.kind]())


@pytest.mark.parametrize("cls", _kinds())
def test_json_and_pickle_round_trips(cls):
    check_round_trips(EXAMPLES[cls.kind]())


@pytest.mark.parametrize("cls", _kinds())
def test_renamed_copy_leaves_the_original(cls):
    check_renamed_copy(EXAMPLES[cls.kind]())


@pytest.mark.parametrize("cls", _kinds())
def test_kind_alone_in_a_rule_set(cls):
    check_in_rule_set([EXAMPLES[cls.kind]()])


def test_every_kind_together_in_one_rule_set():
    rules = [EXAMPLES[cls.kind]() for cls in registered_kinds()]
    check_in_rule_set(rules)
    check_in_rule_set(rules[::-1])


# ------------------------------------------------------------------------------------------ the third kind
def test_third_kind_works_in_a_rule_set_without_library_edits():
    toy = ColumnIsNull("no_b", "b")
    rs = RuleSet([_tree_rule(), toy, _sql_rule()])
    assert rs.names == ["riff_1", "no_b", "team_rule"]
    assert "no_b: IF b is missing" in str(rs)
    np.testing.assert_array_equal(rs.predict(DF)[DF["b"].isna().to_numpy()], 1)
    text = rs.to_json()
    assert json.loads(text)["rules"][1] == {"kind": ColumnIsNull.kind, "name": "no_b", "column": "b"}
    back = RuleSet.from_json(text)
    assert isinstance(back.rules[1], ColumnIsNull) and back.rules == rs.rules
    assert '"b" IS NULL' in rs.to_sql(dialect="duckdb")
    table = rs.evaluate(DF, Y, fp_cost=5.0, fn_cost=AMOUNT, per_rule=True)
    assert list(table["rule"]) == [str(r) for r in rs.rules]
    diff = rs.diff(rs[[0, 2]])
    assert list(diff["change"]) == ["kept", "dropped", "kept"]
    periods = DF["i"].to_numpy() // 100
    mon = rs.monitor(DF, Y, periods, fp_cost=5.0, fn_cost=AMOUNT)
    truth = toy.truth(DF)[0]
    assert [mon.loc[(t, "no_b"), "alerts"] for t in range(3)] == [truth[periods == t].sum() for t in range(3)]


def test_third_kind_on_dask_partitions():
    dd = pytest.importorskip("dask.dataframe")
    rs = RuleSet([ColumnIsNull("no_b", "b"), _sql_rule(), _tree_rule()])
    X = dd.from_pandas(DF, npartitions=3)
    np.testing.assert_array_equal(np.asarray(rs.predict(X)), rs.predict(DF))
    got = rs.evaluate(X, dd.from_array(Y, chunksize=100), fp_cost=5.0, fn_cost=dd.from_array(AMOUNT, chunksize=100))
    want = rs.evaluate(DF, Y, fp_cost=5.0, fn_cost=AMOUNT)
    assert got["net_money"] == pytest.approx(want["net_money"], rel=1e-12) and got["tpr"] == want["tpr"]


def test_unknown_kind_in_json_is_named():
    d = RuleSet([_tree_rule()]).to_dict()
    d["rules"][0]["kind"] = "box"
    with pytest.raises(ValueError, match=r"rules\[0\]\.kind must be one of .*'sql'.*'tree'.*got 'box'"):
        RuleSet.from_dict(d)


def test_a_rule_dict_without_kind_is_an_induced_rule():
    # files written before rules carried their kind
    d = RuleSet([_tree_rule()]).to_dict()
    del d["rules"][0]["kind"]
    back = RuleSet.from_dict(d)
    assert back.rules == [_tree_rule()] and type(back.rules[0]) is Rule


def test_register_kind_refuses_what_breaks_the_registry():
    class Abstract(RuleKind):
        kind = "test_abstract"

    with pytest.raises(TypeError, match="does not implement"):
        register_kind(Abstract)

    class Untagged(ColumnIsNull):
        kind = ""

    with pytest.raises(TypeError, match="non-empty string tag"):
        register_kind(Untagged)

    class Thief(ColumnIsNull):
        kind = "sql"

    with pytest.raises(ValueError, match="rule kind 'sql' is already"):
        register_kind(Thief)
    with pytest.raises(TypeError, match="RuleKind subclass"):
        register_kind(int)
    assert rule_from_dict({"kind": "sql", **_sql_rule().to_dict()}) == _sql_rule()


# ------------------------------------------------------------------------------------------ broken kinds fail
class _NoTag(ColumnIsNull):
    kind = "test_no_tag"  # never registered: it breaks the contract

    def to_dict(self):
        return {"name": self.name, "column": self.column}


class _WrongSQL(ColumnIsNull):
    kind = "test_wrong_sql"

    def to_expression(self, dialect=None, *, names=None, levels=None):
        from sqlglot import exp

        return exp.Not(this=exp.column(self.column, quoted=True).is_(exp.null()))


class _RenamesInPlace(ColumnIsNull):
    kind = "test_renames_in_place"

    def renamed(self, name):
        self.name = name
        return self


@pytest.mark.parametrize("cls,check", [(_NoTag, check_round_trips), (_WrongSQL, check_truth_matches_sql),
                                       (_RenamesInPlace, check_renamed_copy)])
def test_the_checks_fail_on_a_kind_that_breaks_the_contract(cls, check):
    check(ColumnIsNull("x", "a"))  # the kind they derive from passes
    with pytest.raises(AssertionError):
        check(cls("x", "a"))
