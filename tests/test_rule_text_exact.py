"""Printed rules are exact: every condition of ``str(rule)`` / ``print(rule_set)``, read back literally
(feature, operator, number; the number read as a float64 decimal and compared with plain numpy),
routes every value as ``Rule.mask`` / ``RuleSet.predict`` do, on the training data and on the values
around each cut (the cut, its float64 and float32 neighbours, the 6-digit decimal that used to be
printed and its neighbours, 0, lightgbm's 1e-35 zero band, infinities, NaN).

The parser below knows only the grammar ``Rule.__str__`` writes; anything else fails the test."""

import re

import numpy as np
import pytest

from csboost_plugins.rules import Interval, Rule, RuleSet, extract_rules, riff_select
from csboost_plugins.rules._rule import ZERO_THRESHOLD, exact_decimal
from csdt.datasets import load_creditscoring1, make_fraud_transactions

NUM = r"[-+]?(?:inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)"
OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
FLIP = {"<": ">", "<=": ">="}


# ----------------------------------------------------------------------------- the parser
def _split_top(s, sep):
    """Split ``s`` at ``sep`` outside parentheses and braces."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(s):
        ch = s[i]
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            out.append(s[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    out.append(s[start:])
    return out


def _wrapped(s):
    """True if the outer parentheses of ``s`` enclose all of it."""
    if not (s.startswith("(") and s.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(s) - 1:
            return False
    return True


class TextRule:
    """A printed rule read back: ``evaluate(X)`` with float64 numpy comparisons of the printed numbers."""

    def __init__(self, text, names):
        self.names = list(names)
        alt = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
        self.re_two = re.compile(rf"^({NUM}) (<=|<) ({alt}) (<=|<) ({NUM})$")
        self.re_one = re.compile(rf"^({alt}) (<=|<|>=|>) ({NUM})$")
        self.re_eq = re.compile(rf"^({alt}) = ({NUM})$")
        self.re_abs = re.compile(rf"^abs\(({alt})\) (<=|>) ({NUM})$")
        self.re_miss = re.compile(rf"^({alt}) is (not )?missing$")
        self.tree = self._parse(text.strip())
        self.numbers = []  # (feature, op, printed number) of every comparison
        self._collect(self.tree)

    def _parse(self, s):
        while _wrapped(s):
            s = s[1:-1]
        for sep, kind in ((" or ", "or"), (" and ", "and")):
            parts = _split_top(s, sep)
            if len(parts) > 1:
                return (kind, [self._parse(p.strip()) for p in parts])
        if s == "True":
            return ("true",)
        if m := self.re_two.match(s):
            lo, op1, name, op2, hi = m.groups()
            return ("and", [("cmp", name, FLIP[op1], lo), ("cmp", name, op2, hi)])
        if m := self.re_one.match(s):
            return ("cmp", *m.groups())
        if m := self.re_eq.match(s):  # "x = v": one value, v <= x <= v
            name, v = m.groups()
            return ("and", [("cmp", name, ">=", v), ("cmp", name, "<=", v)])
        if m := self.re_abs.match(s):
            return ("abs", *m.groups())
        if m := self.re_miss.match(s):
            return ("miss", m.group(1), m.group(2) is None)
        raise AssertionError(f"the rule text has a part no reader can take literally: {s!r}")

    def _collect(self, node):
        if node[0] in ("and", "or"):
            for c in node[1]:
                self._collect(c)
        elif node[0] in ("cmp", "abs"):
            self.numbers.append(node[1:])

    def evaluate(self, X):
        X = np.asarray(X, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            return self._eval(self.tree, X)

    def _eval(self, node, X):
        kind = node[0]
        if kind == "true":
            return np.ones(len(X), dtype=bool)
        if kind in ("and", "or"):
            vals = [self._eval(c, X) for c in node[1]]
            return np.logical_and.reduce(vals) if kind == "and" else np.logical_or.reduce(vals)
        col = X[:, self.names.index(node[1])]
        if kind == "cmp":
            return OPS[node[2]](col, np.float64(float(node[3])))
        if kind == "abs":
            return OPS[node[2]](np.abs(col), np.float64(float(node[3])))
        return np.isnan(col) if node[2] else ~np.isnan(col)


def read_rule_set(text, names):
    """``print(rule_set)`` read back: one TextRule per ``k. IF ...`` line (statistics tags dropped)."""
    out = []
    lines = text.splitlines()
    if lines and lines[0].startswith("Missing values: "):  # the missing-value policy, stated once on top
        lines = lines[1:]
    for line in lines:
        m = re.match(r"^\s*\d+\. \S+: IF (.*?)(?:   \[in force with probability [^\]]*\])?(?:   \(\+TPR [^)]*\))?$", line)
        assert m, line
        out.append(TextRule(m.group(1), names))
    return out


# ----------------------------------------------------------------------------- adversarial values
def _f32_neighbours(v):
    """float32 numbers around float64 v (its two float32 roundings and their float32 neighbours), as float64."""
    out = []
    with np.errstate(over="ignore"):
        c = np.float32(v)
    if not np.isfinite(c):
        return out
    for base in (c, np.nextafter(c, np.float32(-np.inf)), np.nextafter(c, np.float32(np.inf))):
        out.append(float(base))
    return out


def _around(v):
    """v, its float64 neighbours, the float32 numbers around it and their float64 neighbours, and the 6-digit
    decimal of v (what used to be printed) with its float64 neighbours."""
    v = float(v)
    if not np.isfinite(v):
        return [v]
    pts = [v, float(f"{v:.6g}")] + _f32_neighbours(v)
    out = []
    for p in pts:
        out += [p, float(np.nextafter(p, -np.inf)), float(np.nextafter(p, np.inf))]
    return out


SPECIAL = [0.0, -0.0, ZERO_THRESHOLD, -ZERO_THRESHOLD, float(np.nextafter(ZERO_THRESHOLD, 1.0)),
           float(np.nextafter(ZERO_THRESHOLD, 0.0)), -float(np.nextafter(ZERO_THRESHOLD, 1.0)), 5e-324, -5e-324,
           np.inf, -np.inf, np.nan, 1.0, -1.0]


def cut_values(rules, n_features):
    """{feature: sorted adversarial values} from every bound of every interval in the rules."""
    vals = {j: set(SPECIAL) for j in range(n_features)}
    for r in rules:
        for c in r.conditions:
            if isinstance(c, Interval):
                for b in (c.lower, c.upper):
                    vals[c.feature].update(_around(b))
    return {j: np.array(sorted(v, key=lambda t: (np.isnan(t), t)), dtype=np.float64) for j, v in vals.items()}


def adversarial_rows(X, values, rng, per_value=2):
    """Rows of X with one column replaced by each adversarial value of that column (``per_value`` base rows)."""
    X = np.asarray(X, dtype=np.float64)
    blocks = []
    for j, v in values.items():
        base = X[rng.integers(0, len(X), size=len(v) * per_value)]
        base[:, j] = np.repeat(v, per_value)
        blocks.append(base)
    return np.vstack(blocks)


# ----------------------------------------------------------------------------- the check
def assert_text_exact(rules, X, names, rng, min_rules=10):
    """Every printed condition and rule, and the printed rule set, read literally = the library's masks."""
    assert len(rules) >= min_rules
    Xn = np.asarray(X, dtype=np.float64)
    values = cut_values(rules, Xn.shape[1])
    Z = np.vstack([Xn, adversarial_rows(Xn, values, rng)])
    n_cmp = 0
    for r in rules:
        for c in r.conditions:  # each condition against its own mask, on every value its column can take here
            if not isinstance(c, Interval):
                continue
            name = names[c.feature]
            col = np.concatenate([Xn[:, c.feature], values[c.feature]])
            t = TextRule(c.to_str(name), names)
            got = t.evaluate(np.column_stack([col if j == c.feature else np.zeros_like(col)
                                              for j in range(len(names))]))
            bad = np.flatnonzero(got != c.mask(col))
            assert not len(bad), f"{c.to_str(name)!r} misroutes {name} = {col[bad[:5]].tolist()}"
            n_cmp += len(t.numbers)
        t = TextRule(str(r), names)
        np.testing.assert_array_equal(t.evaluate(Z), r.mask(Z), err_msg=str(r))
    assert n_cmp >= len(rules)
    rs = RuleSet(rules, feature_names=names)
    texts = read_rule_set(str(rs), names)
    assert len(texts) == len(rules)
    printed = np.logical_or.reduce([t.evaluate(Z) for t in texts])
    np.testing.assert_array_equal(printed, rs.predict(Z, last_rule="include").astype(bool))
    return n_cmp


# ----------------------------------------------------------------------------- data and models
@pytest.fixture(scope="module")
def credit():
    d = load_creditscoring1()
    X = d.data.iloc[:20000]
    return X, np.asarray(d.target)[:20000], np.asarray(d.fn_cost, dtype=np.float64)[:20000], list(X.columns)


@pytest.fixture(scope="module")
def fraud():
    d = make_fraud_transactions(6000, fraud_rate=0.05, random_state=1)
    X = d.data.copy()
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.05)  # NaNs: lightgbm missing_type 'NaN'
    return X, np.asarray(d.target), np.asarray(d.fn_cost, dtype=np.float64), list(X.columns)


@pytest.fixture(scope="module")
def credit_lgb(credit):
    lgb = pytest.importorskip("lightgbm")
    X, y, _, _ = credit
    m = lgb.LGBMClassifier(n_estimators=40, num_leaves=16, verbose=-1, n_jobs=1, random_state=0).fit(X, y)
    return m, extract_rules(m, deduplicate=False)


def test_exact_decimal_is_the_shortest_round_trip():
    for v in (0.5, 6.500000000000001, 0.1, 1e-35, ZERO_THRESHOLD, -2.5, 1e300, 5e-324, 123456789.0, 2.0 ** 60):
        s = exact_decimal(v, point=False)
        assert float(s) == v
        assert len(s.replace("-", "")) <= len(repr(v).replace("-", ""))
    assert exact_decimal(0.5, point=False) == "0.5" and exact_decimal(3.0, point=False) == "3"
    assert exact_decimal(-0.0, point=False) == "0" and exact_decimal(3.0) == "3.0"
    assert exact_decimal(6.500000000000001, point=False) == "6.500000000000001"


def test_lightgbm_creditscoring1_text_is_exact(credit, credit_lgb):
    X, _, _, names = credit
    _, rules = credit_lgb
    n = assert_text_exact(rules, X, names, np.random.default_rng(0), min_rules=300)
    assert n > 1000


@pytest.mark.parametrize("params", [
    dict(),  # NaNs in the data: missing_type 'NaN'
    dict(zero_as_missing=True),  # missing_type 'Zero': the 1e-35 band routes like NaN
    dict(use_missing=False),  # missing_type 'None': NaN is compared as 0.0
    dict(max_bin=15, min_data_in_bin=1),  # coarse bins: cuts between far-apart data values
], ids=["nan", "zero", "none", "coarse"])
def test_lightgbm_boosters_text_is_exact(fraud, params):
    lgb = pytest.importorskip("lightgbm")
    X, y, _, names = fraud
    m = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, n_jobs=1, random_state=0, **params).fit(X, y)
    rules = extract_rules(m, deduplicate=False)
    if params.get("zero_as_missing"):
        assert any(c.zero_missing for r in rules for c in r.conditions)
        assert any("abs(" in str(r) for r in rules)
    assert_text_exact(rules, X, names, np.random.default_rng(1))


def test_lightgbm_float32_data_text_is_exact(credit):
    """Booster trained on float32 columns (cuts between float32 values), read on float64 values."""
    lgb = pytest.importorskip("lightgbm")
    X, y, _, names = credit
    X32 = X.astype(np.float32)
    m = lgb.LGBMClassifier(n_estimators=8, num_leaves=8, verbose=-1, n_jobs=1, random_state=0).fit(X32, y)
    assert_text_exact(extract_rules(m), X32, names, np.random.default_rng(2))


@pytest.mark.parametrize("data", ["credit", "fraud"])
def test_xgboost_text_is_exact_on_float64_values(data, request):
    """xgboost compares float32(x) < t: the printed bound is the float64 midpoint below t, so a float64 value
    just under t (which rounds to t and goes right) reads as going right too."""
    xgb = pytest.importorskip("xgboost")
    X, y, _, names = request.getfixturevalue(data)
    X = X.iloc[:8000]
    y = y[:8000]
    m = xgb.XGBClassifier(n_estimators=10, max_depth=4, n_jobs=1, random_state=0).fit(X, y)
    rules = extract_rules(m, deduplicate=False)
    rng = np.random.default_rng(3)
    assert_text_exact(rules, X, names, rng)
    # the masks the text is checked against are xgboost's own routing, adversarial rows included
    Z = adversarial_rows(X, cut_values(rules, X.shape[1]), rng, per_value=1)
    Z = Z[~np.isinf(Z).any(axis=1)]  # xgboost refuses infinities (the text check above has them)
    leaves = m.get_booster().predict(xgb.DMatrix(Z, feature_names=names), pred_leaf=True).astype(np.int64)
    for r in rules[:60]:
        src = r.sources[0]
        np.testing.assert_array_equal(r.mask(Z), leaves[:, src["tree"]] == src["node"], err_msg=str(r))


def test_old_xgboost_float32_text_misroutes_float64_values(credit):
    """The float32 cut's own short decimal (``x < 0.5`` for float32(x) < 0.5; any decimal between the midpoint
    below the cut and the cut, as printed before), read on float64 values, sends the float64 just above that
    midpoint left; xgboost rounds it up to the cut and sends it right. The printed rules send it right."""
    xgb = pytest.importorskip("xgboost")
    import json
    from decimal import ROUND_FLOOR, Decimal

    X, y, _, names = credit
    m = xgb.XGBClassifier(n_estimators=5, max_depth=3, n_jobs=1, random_state=0).fit(X.iloc[:8000], y[:8000])
    trees = json.loads(m.get_booster().save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"]
    probes = {}
    for t in trees:
        for i, left in enumerate(t["left_children"]):
            if left == -1:
                continue
            t32 = np.float32(t["split_conditions"][i])
            below = np.nextafter(t32, np.float32(-np.inf))
            mid = (float(below) + float(t32)) / 2.0  # exact in float64
            x = float(np.nextafter(mid, np.inf))  # rounds to t32 in float32: xgboost sends it right
            assert not np.float32(x) < t32
            short = next(d for d in (Decimal(float(t32)).quantize(Decimal(1).scaleb(Decimal(float(t32)).adjusted()
                                                                        - p), rounding=ROUND_FLOOR)
                                     for p in range(12)) if float(d) >= mid)  # shortest decimal in [mid, t32]
            for old in (str(t32), str(short)):  # the float32's repr; the text that routes float32 data right
                assert x < float(old), (old, x)  # the old text sends it left
            probes.setdefault(t["split_indices"][i], []).append(x)
    assert sum(map(len, probes.values())) > 10
    rules = extract_rules(m, deduplicate=False)
    Xn = X.iloc[:50].to_numpy(dtype=np.float64)
    Z = np.vstack([np.where(np.arange(Xn.shape[1]) == f, v, Xn[k % len(Xn)])
                   for f, vs in probes.items() for k, v in enumerate(vs)])
    for r in rules:
        np.testing.assert_array_equal(TextRule(str(r), names).evaluate(Z), r.mask(Z), err_msg=str(r))
    leaves = m.get_booster().predict(xgb.DMatrix(Z, feature_names=names), pred_leaf=True).astype(np.int64)
    for r in rules:
        src = r.sources[0]
        np.testing.assert_array_equal(TextRule(str(r), names).evaluate(Z), leaves[:, src["tree"]] == src["node"])


def _lgb_cuts(booster):
    """(feature, threshold) of every numerical split, read from the booster's own dump."""
    out = []

    def walk(node):
        if "split_index" in node:
            if node["decision_type"] == "<=":
                out.append((int(node["split_feature"]), float(node["threshold"])))
            walk(node["left_child"])
            walk(node["right_child"])

    for t in booster.dump_model()["tree_info"]:
        walk(t["tree_structure"])
    return out


def test_old_six_digit_lightgbm_text_misroutes_creditscoring1_rows(credit, credit_lgb):
    """The 6-significant-digit text (``x <= 0.502283`` for the cut 0.50228349...) read literally sends some
    training rows of creditscoring1 to the other side of the cut; the printed text now sends none."""
    X, _, _, names = credit
    m, rules = credit_lgb
    Xn = X.to_numpy(dtype=np.float64)
    cuts = _lgb_cuts(m.booster_)
    old_wrong = new_wrong = 0
    for f, thr in cuts:
        x = Xn[:, f]
        truth = x <= thr  # lightgbm's NumericalDecision in float64 (no NaN in creditscoring1)
        old_wrong += bool(np.any((x <= float(f"{thr:.6g}")) != truth))
        new_wrong += bool(np.any((x <= float(exact_decimal(thr, point=False))) != truth))
    assert len(cuts) > 500
    assert old_wrong > 0 and new_wrong == 0, (old_wrong, new_wrong, len(cuts))
    # and the rules print those cuts: every printed number is a cut of the booster, no 6-digit rounding of one
    printed = {float(num) for r in rules for (_, _, num) in TextRule(str(r), names).numbers}
    assert printed <= {thr for _, thr in cuts} | {ZERO_THRESHOLD}
    assert any(f"{thr:.6g}" != exact_decimal(thr, point=False) and float(f"{thr:.6g}") != thr for _, thr in cuts)


@pytest.mark.parametrize("criterion", ["direct_cost", "gini"])
def test_csdt_tree_text_is_exact(credit, criterion):
    from csdt.tree import CostSensitiveDecisionTreeClassifier

    X, y, fn_cost, names = credit
    m = CostSensitiveDecisionTreeClassifier(criterion=criterion, max_depth=8, min_gain=0.0, random_state=0)
    m.fit(X, y, fp_cost=5.0, fn_cost=fn_cost)
    rules = extract_rules(m, nodes="all")
    assert len(rules) >= 10 and any(float(f"{c.upper:.6g}") != c.upper for r in rules for c in r.conditions
                                    if isinstance(c, Interval) and np.isfinite(c.upper))
    assert_text_exact(rules, X, names, np.random.default_rng(4))


def test_figs_text_is_exact(credit):
    from csdt.figs import FIGSClassifier

    X, y, fn_cost, names = credit
    m = FIGSClassifier(max_rules=20).fit(X, y, fp_cost=5.0, fn_cost=fn_cost)
    assert_text_exact(extract_rules(m, nodes="all"), X, names, np.random.default_rng(5))


def test_sklearn_tree_float32_cut_text_is_exact(fraud):
    from sklearn.tree import DecisionTreeClassifier

    X, y, _, names = fraud
    m = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    assert_text_exact(extract_rules(m, nodes="all"), X, names, np.random.default_rng(6))


@pytest.mark.parametrize("cuts", ["model", "simple"])
def test_selected_rule_set_printout_is_exact(fraud, cuts):
    """``print(rule_set)`` of a riff_select result (statistics tags, randomised last rule) read back, with the
    model's cuts and with the human ones."""
    lgb = pytest.importorskip("lightgbm")
    X, y, fn_cost, names = fraud
    m = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, n_jobs=1, random_state=0).fit(X, y)
    rs = riff_select(extract_rules(m), X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=fn_cost, cuts=cuts)
    assert len(rs) >= 2 and "+TPR" in str(rs)
    values = cut_values(rs.rules, X.shape[1])
    Z = np.vstack([X.to_numpy(dtype=np.float64), adversarial_rows(X, values, np.random.default_rng(7))])
    texts = read_rule_set(str(rs), names)
    printed = np.logical_or.reduce([t.evaluate(Z) for t in texts])
    np.testing.assert_array_equal(printed, rs.predict(Z, last_rule="include").astype(bool))
    tab = rs.evaluate(X, y, per_rule=True)
    assert list(tab["rule"]) == [str(r) for r in rs]
    # the exports write the very numbers the text prints (one formatter), and select the same rows
    import pandas as pd

    query = rs.to_pandas_query(last_rule="include")
    got = pd.DataFrame(Z, columns=names).query(query, engine="python").index.to_numpy()
    np.testing.assert_array_equal(got, np.flatnonzero(printed))
    text_numbers = {float(num) for t in texts for (_, _, num) in t.numbers}
    for export in (query, rs.to_sql(where_only=True, last_rule="include")):
        assert text_numbers <= {float(v) for v in re.findall(NUM, export)}


def test_hand_built_conditions_print_exactly():
    """Bounds that are no short decimal print all their digits; short ones stay short; zero band exact."""
    names = ["x"]
    b = float(np.nextafter(0.5, 1.0))
    cases = [Interval(0, upper=0.5), Interval(0, upper=b), Interval(0, lower=b, lower_closed=False, missing=True),
             Interval(0, lower=0.1, upper=0.30000000000000004, upper_closed=False),
             Interval(0, upper=3.5, zero_missing=True, missing=True), Interval(0, lower=-2.0, zero_missing=True),
             Interval(0, zero_missing=True), Interval(0, lower=-np.inf, lower_closed=False)]
    assert str(Rule([cases[0]], feature_names=names)) == "x <= 0.5"
    assert str(Rule([cases[1]], feature_names=names)) == "x <= 0.5000000000000001"
    col = np.array(sorted({v for c in cases for bd in (c.lower, c.upper) for v in _around(bd)} | set(SPECIAL),
                          key=lambda t: (np.isnan(t), t)))
    for c in cases:
        got = TextRule(c.to_str("x"), names).evaluate(col[:, None])
        np.testing.assert_array_equal(got, c.mask(col), err_msg=c.to_str("x"))
