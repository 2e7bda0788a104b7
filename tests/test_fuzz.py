"""Fuzz the public API with bad inputs in subprocesses (tests/_fuzz_worker.py runs a batch per process).

Each batch must end normally (no signal such as SIGSEGV, no timeout), and every error must be
a ValueError or TypeError (or a subclass: NotFittedError, JSONDecodeError) raised by this library
(the traceback's last frame in csboost_plugins/ or csdt/, or in scikit-learn's validation that
the estimators call), never an exception of numba, numpy, pandas or the interpreter
(IndexError, OverflowError, KeyError, RecursionError, ...) surfacing from inside.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKER = HERE / "_fuzz_worker.py"
OURS = (str(REPO / "csboost_plugins"), str(REPO / "csdt"))
TIMEOUT = 240  # seconds per batch; a hang (e.g. a cycle in a tree walk) ends here

X_COLUMNS = ["normal", "integers", "constant", "nan_some", "nan_all", "inf_some", "huge", "big", "tiny",
             "extreme_span", "int64_big", "strings", "neg_inf_some", "beyond_float32"]
Y_KINDS = ["ok", "single", "three", "strings", "minus_plus", "float_nan", "continuous", "short", "none", "2d",
           "fraud_ok", "one_two", "bool"]
COST_KINDS = ["ok", "none", "negative", "nan", "inf", "huge", "tiny", "zero", "short", "string", "matrix_bad", "both"]
PERIOD_KINDS = ["ok", "strings", "dates", "nan", "none", "nat", "short", "2d", "mixed", "dicts", "reindexed"]
MONITOR_PERIOD_KINDS = ["ok", "nan", "none", "short", "long", "scalar", "2d", "mixed", "strings", "nat"]
CSDT_ESTIMATORS = ["csdt", "csdt_hist", "csdt_costcla", "ensemble", "stacking", "cslr", "bmr", "thresholding",
                   "figs", "figu", "cal5oc"]
# the boosting and RIFF estimators get hostile data and labels; their native parameters pass to the host as given
ESTIMATORS = CSDT_ESTIMATORS + ["xgb", "lgb", "riff", "riff_tree"]
POS_LABELS = [None, None, "fraud", "ok", 1, 2, True, "nope", ["fraud"]]

floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [5e-324, -0.0, 1e308, -1e308, 2.2250738585072014e-308, 1e-300, 0.5])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), floats, st.text(max_size=4))
values = scalars | st.lists(floats, max_size=44) | st.lists(st.lists(floats, min_size=2, max_size=2), max_size=4)


@st.composite
def fit_case(draw):
    est = draw(st.sampled_from(ESTIMATORS))
    kinds = X_COLUMNS  # FIGS/FIGU included: spans that overflow or are subnormal bin safely
    case = {"target": "fit", "estimator": est, "seed": draw(st.integers(0, 9)),
            "x_cols": draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=3)),
            "x_shape": draw(st.sampled_from(["ok", "ok", "ok", "frame", "list", "1d", "short", "empty"])),
            "y": draw(st.sampled_from(Y_KINDS[:3] + Y_KINDS)), "costs": draw(st.sampled_from(COST_KINDS))}
    pos_label = draw(st.sampled_from(POS_LABELS))
    if pos_label is not None:
        case["pos_label"] = pos_label
    return case


RULE_FIELDS = [["rules"], ["feature_names"], ["last_rule_probability"], ["format"], ["selection"],
               ["rules", 0], ["rules", 0, "conditions"], ["rules", 0, "value"], ["rules", 0, "categories"],
               ["rules", 0, "conditions", 0], ["rules", 0, "conditions", 0, "feature"],
               ["rules", 0, "conditions", 0, "kind"], ["rules", 0, "conditions", 0, "lower"],
               ["rules", 0, "conditions", 0, "upper"], ["rules", 0, "conditions", 0, "upper_closed"],
               ["rules", 0, "conditions", 0, "missing"], ["rules", 0, "conditions", 0, "zero_missing"]]

api_case = st.one_of(
    fit_case(),
    st.fixed_dictionaries({"target": st.just("check_costs"), "n": scalars, "costs": st.sampled_from(COST_KINDS)}),
    st.fixed_dictionaries({"target": st.sampled_from(["savings_score", "cost_loss", "expected_savings_score",
                                                      "bayes_minimum_risk"]),
                           "y": st.sampled_from(Y_KINDS), "value": values, "costs": st.sampled_from(COST_KINDS)}),
    st.fixed_dictionaries({"target": st.just("make_fraud_transactions"), "n": scalars, "rate": scalars,
                           "admin": scalars}),
    st.fixed_dictionaries({"target": st.just("from_json_field"), "path": st.sampled_from(RULE_FIELDS),
                           "value": values | st.just("__delete__") | st.dictionaries(st.text(max_size=3), scalars,
                                                                                     max_size=2)}),
    st.fixed_dictionaries({"target": st.just("from_json_text"),
                           "text": st.text(max_size=30) | st.sampled_from(["", "[1,2]", "{", "null", "{}",
                                                                           '{"rules": 1}', "[" * 5000])}),
    st.fixed_dictionaries({"target": st.just("rules_predict"), "method": st.sampled_from(["predict", "coverage"]),
                           "seed": st.integers(0, 9), "x_cols": st.lists(st.sampled_from(X_COLUMNS), max_size=4),
                           "x_shape": st.sampled_from(["ok", "frame", "list", "1d", "empty"])}),
    st.fixed_dictionaries({"target": st.just("rules_evaluate"), "y": st.sampled_from(Y_KINDS), "weight": values,
                           "costs": st.sampled_from(COST_KINDS)}),
    st.fixed_dictionaries({"target": st.just("riff_select"), "seed": st.integers(0, 9),
                           "x_cols": st.lists(st.sampled_from(X_COLUMNS), min_size=3, max_size=4),
                           "x_shape": st.sampled_from(["ok", "frame", "short"]), "y": st.sampled_from(Y_KINDS),
                           "max_fpr": scalars}),
    st.fixed_dictionaries({"target": st.just("hand_rule"), "feature": scalars}),
    st.fixed_dictionaries({"target": st.sampled_from(["money_by_period", "rules_monitor"]),
                           "periods": st.sampled_from(MONITOR_PERIOD_KINDS),
                           "reference": scalars | st.lists(scalars, max_size=3),
                           "alpha": scalars}),
    st.fixed_dictionaries({"target": st.just("capacity"), "max_alerts": scalars, "max_alert_rate": scalars,
                           "periods": st.sampled_from(PERIOD_KINDS) | values}),
    st.fixed_dictionaries({"target": st.just("params"), "estimator": st.sampled_from(CSDT_ESTIMATORS),
                           "k": st.integers(0, 30), "value": scalars}),
)

SQL_TEXT = st.text(alphabet="ab() NOTANDOR<>=!'\"%_-+*/0123456789.,;INLIKEBETWEENSELECT", max_size=40)
sql_case = st.one_of(
    st.fixed_dictionaries({"target": st.just("from_sql"), "kind": st.just("text"), "text": SQL_TEXT,
                           "dialect": st.sampled_from([None, "duckdb", "sqlite", "postgres"])}),
    st.fixed_dictionaries({"target": st.just("from_sql"),
                           "kind": st.sampled_from(["nest_paren", "nest_not", "nest_minus", "nest_abs", "and_chain",
                                                    "plus_chain", "in_list", "in_text"]),
                           "n": st.integers(0, 300), "dialect": st.sampled_from([None, "duckdb", "sqlite"])}))
api_case = api_case | sql_case

# rule books read from SQL: deep nesting (10,000 levels), long chains, 100,000-element IN lists, quoted and
# unicode column names; (case, whether it must be read rather than refused)
SQL_KNOWN = [
    ({"target": "from_sql", "kind": k, "n": 10_000, "dialect": "duckdb"}, False)
    for k in ("nest_paren", "nest_not", "nest_minus", "nest_not_paren", "nest_abs", "plus_chain")
] + [
    ({"target": "from_sql", "kind": k, "n": n, "dialect": d}, True)
    for k, n, d in (("in_list", 100_000, "duckdb"), ("in_text", 100_000, "sqlite"), ("not_in_list", 100_000, None),
                    ("and_chain", 10_000, "duckdb"), ("or_chain", 2_000, "sqlite"), ("quoted_names", 0, "duckdb"),
                    ("quoted_names", 0, "sqlite"), ("unicode_names", 0, "duckdb"), ("unicode_names", 0, "postgres"),
                    ("select_with_names", 0, "duckdb"), ("nest_paren", 60, "duckdb"), ("nest_not", 60, "sqlite"))
]

# the findings, always in the batch
KNOWN = [
    {"target": "hand_rule", "feature": f} for f in (-1, -3, -1_000_000, -2 ** 40, 2 ** 40, 1.7, 10 ** 30)
] + [
    {"target": "from_json_text", "text": t} for t in ("[1,2]", "", "[" * 100_000, '{"x": 1}', '{"rules": 5}')
] + [  # rules read from SQL, saved as JSON trees: a bad slot, a bad node, a tree nested too deeply
    {"target": "from_json_text", "text": json.dumps({"rules": [dict({"kind": "sql", "name": "x", "literals": [1.0]},
                                                                    tree=t)]})}
    for t in (["cmp", ">", ["col", "a", False], ["num", 5]], ["cmp", "~", ["col", "a", False], ["num", 0]],
              ["drop", "t"], ["like", ["col", "a", False], "x", "ab", None], ["in", ["col", "a", False], [1, "x"],
                                                                                "num", False],
              ["not", None], "not an op",
              json.loads('["not", ' * 400 + '["bool", true]' + "]" * 400))
] + [
    {"target": "from_json_field", "path": p, "value": v} for p, v in (
        (["rules", 0, "conditions", 0, "feature"], 1e30), (["rules", 0, "conditions", 0, "feature"], 1.7),
        (["rules", 0, "conditions", 0, "upper_closed"], "false"), (["rules"], "__delete__"),
        (["rules", 0, "conditions", 0, "feature"], -1_000_000))
] + [
    {"target": "rules_evaluate", "y": "ok", "weight": w, "costs": "ok"} for w in (-1, float("nan"))
] + [
    {"target": "check_costs", "n": -1, "costs": "ok"},
    {"target": "check_costs", "n": None, "costs": "huge"},
    {"target": "make_fraud_transactions", "n": 100, "rate": 0.1, "admin": float("nan")},
    {"target": "make_fraud_transactions", "n": "100", "rate": 0.1, "admin": 10.0},
    {"target": "extract_unfitted_boosting", "model": "xgb"},
    {"target": "extract_unfitted_boosting", "model": "lgb"},
] + [
    {"target": "extract_rules", "model": m} for m in ("none", "int", "str", "empty", "unfitted_csdt", "unfitted_figs")
] + [  # operating over time: bad periods, reference periods not in the data, alpha outside (0, 1)
    {"target": t, "periods": k, "reference": None, "alpha": 0.01} for t in ("money_by_period", "rules_monitor")
    for k in ("nan", "none", "short", "long", "scalar", "nat")
] + [
    {"target": "rules_monitor", "periods": "ok", "reference": r, "alpha": a}
    for r, a in ((99, 0.01), ([0, "x"], 0.01), (None, 0), (None, 1), (None, -1e-9), (None, float("nan")))
] + [
    {"target": "fit", "estimator": e, "seed": 0, "x_cols": ["huge", "normal"], "x_shape": "ok", "y": "ok",
     "costs": c} for e in ("cslr", "bmr", "thresholding", "csdt") for c in ("ok", "huge")
]

# an alert capacity's bad inputs: each a ValueError naming the argument
CAPACITY_BAD = [
    ({"max_alerts": 3, "max_alert_rate": None, "periods": kind}, "periods")
    for kind in ("nan", "none", "nat", "short", "2d", "mixed", "dicts", "reindexed", [1.0, float("nan")])
] + [
    ({"max_alerts": k, "max_alert_rate": None, "periods": "ok"}, "max_alerts")
    for k in (0, -1, 2.5, 3.0, "3", True, float("nan"), 2 ** 70 * -1)
] + [
    ({"max_alerts": None, "max_alert_rate": r, "periods": "ok"}, "max_alert_rate")
    for r in (0, 0.0, -0.1, 1.5, float("nan"), float("inf"), "0.1", True)
] + [
    ({"max_alerts": 2, "max_alert_rate": 0.1, "periods": "ok"}, "max_alert_rate"),
    ({"max_alerts": None, "max_alert_rate": None, "periods": "ok"}, "periods"),
]
CAPACITY_CASES = [{"target": "capacity", **case} for case, _ in CAPACITY_BAD]

# optimize_rule_book's bad inputs: each a ValueError / TypeError naming the argument (and the rule)
BOOK_BAD = [("book_list", "TypeError", ["book"]), ("book_dict", "TypeError", ["book"]),
            ("both_budgets", "ValueError", ["max_fpr", "max_alert_rate"]), ("max_fpr_nan", "ValueError", ["max_fpr"]),
            ("max_alert_rate_zero", "ValueError", ["max_alert_rate"]), ("y_three", "ValueError", ["y"]),
            ("y_one", "ValueError", ["y"]), ("y_short", "ValueError", ["y"]),
            ("fn_cost_short", "ValueError", ["fn_cost"]), ("fn_cost_nan", "ValueError", ["fn_cost"]),
            ("unknown_column", "ValueError", ["zz", "bad"]), ("candidates_int", "TypeError", ["candidates"]),
            ("candidates_str", "ValueError", ["candidates"]), ("candidates_texts", "TypeError", ["candidates"]),
            ("candidates_dict", "TypeError", ["candidates"]), ("retune_str", "TypeError", ["retune"]),
            ("sample_weight_short", "ValueError", ["sample_weight"])]
BOOK_CASES = [{"target": "optimize_rule_book", "bad": kind} for kind, _, _ in BOOK_BAD]


def run_batch(cases):
    """Outcome records of ``cases`` run in one fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    try:
        proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps(cases), capture_output=True, text=True,
                              timeout=TIMEOUT, env=env, cwd=REPO)
    except subprocess.TimeoutExpired as exc:
        started = [json.loads(x) for x in (exc.stdout or b"").decode().splitlines() if '"start"' in x]
        last = started[-1]["start"] if started else None
        pytest.fail(f"fuzz batch timed out after {TIMEOUT} s in case {cases[last] if last is not None else '?'}")
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    if proc.returncode != 0:
        started = [r["start"] for r in lines if "start" in r]
        case = cases[started[-1]] if started else None
        pytest.fail(f"fuzz worker died with return code {proc.returncode} in case {case}\n{proc.stderr[-3000:]}")
    records = [r for r in lines if "case" in r]
    assert len(records) == len(cases)
    return records


def _acceptable(rec) -> bool:
    if rec["outcome"] == "ok":
        return True
    where = rec["last_file"]
    ours = where.startswith(OURS)
    sklearn_check = f"{os.sep}sklearn{os.sep}" in where
    return rec["value_or_type_error"] and (ours or sklearn_check) and not rec["module"].startswith("numba")


def _check(cases, records):
    bad = [(cases[r["case"]], {k: r.get(k) for k in ("type", "module", "last_file", "last_line", "message")})
           for r in records if not _acceptable(r)]
    assert not bad, "\n".join(map(str, bad[:15]))


def test_known_hostile_inputs_fail_cleanly():
    records = run_batch(KNOWN)
    _check(KNOWN, records)
    by_case = {json.dumps(KNOWN[r["case"]], sort_keys=True): r for r in records}

    def outcome(case):
        return by_case[json.dumps(case, sort_keys=True)]

    for f in (-1, -3, -1_000_000, -2 ** 40, 1.7, 10 ** 30):  # refused when the rule is built
        assert outcome({"target": "hand_rule", "feature": f})["outcome"] == "error"
    assert "column" in outcome({"target": "hand_rule", "feature": 2 ** 40})["message"]
    for case in KNOWN:
        if case["target"] in ("from_json_text", "from_json_field", "rules_evaluate", "check_costs",
                              "make_fraud_transactions", "extract_unfitted_boosting", "extract_rules"):
            assert outcome(case)["outcome"] == "error", case
    assert outcome(KNOWN[-1])["outcome"] == "error"  # csdt with costs near the float64 limit
    for case in KNOWN:  # each bad period / reference / alpha: a ValueError naming the argument
        if case["target"] in ("money_by_period", "rules_monitor"):
            rec = outcome(case)
            word = "periods" if case["periods"] != "ok" else "reference" if case["reference"] is not None else "alpha"
            assert rec["outcome"] == "error" and rec["type"] == "ValueError" and word in rec["message"], (case, rec)


def test_hostile_sql_rule_books_are_read_or_refused_cleanly():
    """Deep nesting, long chains, huge IN lists, quoted / unicode names: read, predicted, exported and read back,
    or refused with a ValueError naming the problem; never a crash, a RecursionError or a hang."""
    cases = [c for c, _ in SQL_KNOWN]
    records = run_batch(cases)
    _check(cases, records)
    for rec in records:
        case, must_work = SQL_KNOWN[rec["case"]]
        if must_work:
            assert rec["outcome"] == "ok", (case, rec.get("message"))
        else:
            assert rec["outcome"] == "error" and "nested" in rec["message"], (case, rec)


def test_capacity_bad_inputs_name_the_argument():
    records = run_batch(CAPACITY_CASES)
    _check(CAPACITY_CASES, records)
    for rec, (case, name) in zip(records, CAPACITY_BAD):
        assert rec["outcome"] == "error" and rec["type"] == "ValueError", (case, rec)
        assert name in rec["message"], (case, rec["message"])
    good = [{"target": "capacity", "max_alerts": 2, "max_alert_rate": None, "periods": kind}
            for kind in ("ok", "strings", "dates")]
    assert all(rec["outcome"] == "ok" for rec in run_batch(good))


def test_optimize_rule_book_bad_inputs_name_the_argument():
    records = run_batch(BOOK_CASES + [{"target": "optimize_rule_book", "bad": "ok"}])
    _check(BOOK_CASES, records[:-1])
    for rec, (kind, err, words) in zip(records, BOOK_BAD):
        assert rec["outcome"] == "error" and rec["type"] == err, (kind, rec)
        assert all(w in rec["message"] for w in words), (kind, rec["message"])
    assert records[-1]["outcome"] == "ok"


@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(api_case, min_size=60, max_size=60))
def test_public_api_fuzz(cases):
    _check(cases, run_batch(cases))


# ------------------------------------------------------------------ the fp/fn swap guard
def _swap_evidence_by_hand(y, d, s, C, w):
    """The swap guard's evidence, recomputed with plain loops over the rows (no package code)."""
    fp, fn, tp, tn = C.T
    rows = []
    for i in range(y.size):
        reg_pos, reg_neg = fn[i] - tp[i], fp[i] - tn[i]
        den = reg_pos + reg_neg
        # not flagged whatever the probability: Bayes threshold > 0 (+inf where an alert never pays, 1/2 where
        # nothing is at stake)
        if den > 0 and reg_neg > 0 or den <= 0 and reg_pos <= 0 <= reg_neg:
            rows.append(i)
    total = sum(w[i] for i in rows)
    if not total > 0:
        return None
    pi = sum(w[i] * y[i] for i in rows) / total
    f = sum(w[i] * d[i] for i in rows) / total
    if 0.25 <= pi <= 0.75:
        return None
    alarm = pi < 0.25
    dearer = sum(w[i] for i in rows if ((fp[i] - tn[i]) > (fn[i] - tp[i]) if alarm
                                        else (fn[i] - tp[i]) > (fp[i] - tn[i]))) / total
    if not (dearer > 0.5 and (f < pi if alarm else 1 - f < 1 - pi)):
        return None

    def money(dec):
        return sum(w[i] * (y[i] * (dec[i] * tp[i] + (1 - dec[i]) * fn[i])
                           + (1 - y[i]) * (dec[i] * fp[i] + (1 - dec[i]) * tn[i])) for i in range(y.size))

    # exchanged columns: decide 1 iff s C_TP + (1 - s) C_FN < s C_FP + (1 - s) C_TN
    d_sw = [int(s[i] * tp[i] + (1 - s[i]) * fn[i] < s[i] * fp[i] + (1 - s[i]) * tn[i]) for i in range(y.size)]
    trivial = min(money([0] * y.size), money([1] * y.size))
    if not money(d_sw) - money(d) > 0.05 * abs(trivial):
        return None
    return dict(flagged=f, base_rate=pi, dearer=dearer, money=money(d), money_swapped=money(d_sw), alarm=alarm)


money_cells = st.sampled_from([0.0, 0.0, 1.0, 5.0, -3.0, 1e-9, 1e9]) | st.floats(-1e6, 1e6)


@st.composite
def swap_case(draw):
    n = draw(st.integers(1, 40))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    d = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    s = draw(st.lists(st.floats(0, 1) | st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    C = draw(st.lists(st.lists(money_cells, min_size=4, max_size=4), min_size=n, max_size=n))
    w = draw(st.none() | st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    return [np.asarray(v, dtype=np.float64) for v in (y, d, s, C)] + [None if w is None else np.asarray(w, float)]


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(swap_case())
def test_swap_guard_fuzz_matches_hand_sums(case):
    from csboost_plugins.boosting._decision_layer import swap_evidence

    y, d, s, C, w = case
    got = swap_evidence(y, d.astype(np.int64), s, C, w)
    want = _swap_evidence_by_hand(y, d, s, C, np.ones(y.size) if w is None else w)
    assert (got is None) == (want is None), (got, want)
    if got is not None:
        for key in ("flagged", "base_rate", "dearer", "money", "money_swapped"):
            assert np.isclose(got[key], want[key], rtol=1e-9, atol=1e-9 * max(1.0, abs(want[key]))), key
        assert got["alarm"] == want["alarm"]
        assert 0 <= got["flagged"] <= 1 and 0 <= got["base_rate"] <= 1


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(swap_case(), st.integers(-20, 20))
def test_swap_guard_fuzz_ignores_the_currency(case, k):
    """Costs in cents or in millions (times 2**k, exact in floating point): the same evidence."""
    from csboost_plugins.boosting._decision_layer import swap_evidence

    y, d, s, C, w = case
    a, b = swap_evidence(y, d.astype(np.int64), s, C, w), swap_evidence(y, d.astype(np.int64), s, C * 2.0 ** k, w)
    assert (a is None) == (b is None)
    if a is not None:
        assert (a["flagged"], a["base_rate"], a["alarm"]) == (b["flagged"], b["base_rate"], b["alarm"])
        assert np.isclose(b["money"], a["money"] * 2.0 ** k)


SWAP_FIT_CASES = [{"target": "swap_guard", "estimator": e, "costs": c, "orientation": o, "seed": 0}
                  for e in ("xgb", "lgb") for c in ("ok", "negative", "huge", "tiny", "zero", "benefits")
                  for o in ("right", "swapped")]


def test_swap_guard_fuzz_fits():
    """Boosting fits on a rare-fraud set with hostile costs, each way round: every fit ends or fails with a named
    error, and with plain fraud costs the swap warning comes exactly when the columns are exchanged."""
    records = run_batch(SWAP_FIT_CASES)
    _check(SWAP_FIT_CASES, records)
    for case, rec in zip(SWAP_FIT_CASES, records):
        if case["costs"] in ("ok", "benefits"):
            assert rec["outcome"] == "ok", (case, rec)
            assert rec["swap_warned"] == (case["orientation"] == "swapped" and case["costs"] == "ok"), case

# labels that do not name the positive class, and X holding what no estimator reads, on every estimator
LABELLED = [e for e in ESTIMATORS if e not in ("cal5oc", "riff")]  # cal5oc takes cost= here: no positive class;
# the default RIFF pool does not split 40 rows (riff_tree has the same label rule)
LABEL_CASES = [
    {"target": "fit", "estimator": e, "seed": 0, "x_cols": ["normal", "integers"], "x_shape": shape, "y": y,
     "costs": "ok", **({} if pos is None else {"pos_label": pos})}
    for e in LABELLED for shape in ("ok", "frame")
    for y, pos in (("fraud_ok", None), ("fraud_ok", "fraud"), ("one_two", None), ("one_two", 2), ("bool", None),
                   ("fraud_ok", "fraud "), ("fraud_ok", ["fraud"]))
]
INF_CASES = [
    {"target": "fit", "estimator": e, "seed": s, "x_cols": ["normal", col], "x_shape": shape, "y": "ok",
     "costs": "ok"}
    for e in ESTIMATORS for shape in ("ok", "frame") for s, col in ((0, "inf_some"), (1, "neg_inf_some"))
]


def test_labels_without_pos_label_are_refused_and_named_on_every_estimator():
    records = run_batch(LABEL_CASES)
    _check(LABEL_CASES, records)
    for rec in records:
        case = LABEL_CASES[rec["case"]]
        pos = case.get("pos_label")
        if case["y"] == "bool" or pos in ("fraud", 2):  # named positive class: the fit runs and predicts
            assert rec["outcome"] == "ok", (case, rec)
        elif pos is None:
            want = "pass pos_label='fraud' or pos_label='ok'" if case["y"] == "fraud_ok" else \
                "pass pos_label=1 or pos_label=2"
            assert rec["outcome"] == "error" and rec["type"] == "ValueError" and want in rec["message"], (case, rec)
        elif pos == "fraud ":
            assert "pos_label='fraud ' is not a label of y" in rec["message"], (case, rec)
        else:
            assert rec["type"] == "TypeError" and "pos_label must be one label" in rec["message"], (case, rec)


def test_infinite_values_are_named_with_column_and_rows_on_every_estimator():
    records = run_batch(INF_CASES)
    _check(INF_CASES, records)
    for rec in records:
        case = INF_CASES[rec["case"]]
        column = "column 'c1'" if case["x_shape"] == "frame" else "column 1"
        assert rec["outcome"] == "error" and rec["type"] == "ValueError", (case, rec)
        assert f"X {column} contains an infinite value" in rec["message"] and " of 40 rows" in rec["message"], \
            (case, rec)
