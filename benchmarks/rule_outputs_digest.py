"""Digests of every output of five rule sets, for a before / after comparison of a change to the rule classes.

Induced rules (a tree's leaves, RIFF's selection), an SQL book, both mixed and a book with actions: text,
names, predict, apply, coverage, evaluate (set and per rule), overlap, to_sql in five dialects (statement
and WHERE), the pandas query, JSON (without the ``"kind": "tree"`` tag that rules carry since they were
tagged, so older trees compare), the JSON round trip, diff and monitor. Prints one SHA-1 prefix per
output; run it with each tree on PYTHONPATH and compare the lines:

    cd OLD_TREE && PYTHONPATH=$PWD python /path/to/rule_outputs_digest.py > before.txt
    cd NEW_TREE && PYTHONPATH=$PWD python benchmarks/rule_outputs_digest.py > after.txt

``--without-actions``: leave out the book with actions (a tree older than rule actions cannot build it).
``--tables``: print the per-rule tables and diffs of the SQL and mixed sets in full (CSV) instead of digests,
to read the values behind two differing digests.
"""
import argparse
import hashlib
import json
import sys

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import RuleSet, extract_rules, riff_select

rng = np.random.default_rng(0)
n = 3000
X = pd.DataFrame({"a": rng.normal(0, 1, n).round(2), "b": rng.uniform(0, 1, n).round(3),
                  "k": rng.integers(0, 5, n).astype(float), "c": rng.choice(["x", "y", "zz"], n).astype(object)})
X.loc[rng.random(n) < 0.1, "a"] = np.nan
X.loc[rng.random(n) < 0.1, "c"] = None
y = ((X["a"].fillna(0) > 0.8) ^ (rng.random(n) < 0.1)).astype(int).to_numpy()
amount = rng.uniform(1, 100, n).round(2)
Xn = X[["a", "b", "k"]]
tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(Xn.fillna(-1), y)
cands = extract_rules(tree, feature_names=["a", "b", "k"])
riff = riff_select(cands, Xn, y, max_fpr=0.05, fn_cost=amount, fp_cost=5.0)
sql = RuleSet.from_sql({"big": "a > 1.2 AND b < 0.5", "text": "c = 'x' AND NOT k IN (1, 2)",
                        "nul": "a IS NULL OR b BETWEEN 0.2 AND 0.21"}, dialect="duckdb")
mixed = RuleSet(list(riff.rules[:3]) + list(sql.rules))
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--without-actions", action="store_true", help="leave out the book with actions")
ap.add_argument("--tables", action="store_true", help="print the SQL and mixed sets' per-rule tables and diffs")
args = ap.parse_args()
book = None if args.without_actions else RuleSet.from_sql({"ok": ("b < 0.05", "allow"), "blk": ("a > 1.5", "block"),
                                                           "rev": "k = 3"})
out = []


def put(tag, v):
    if isinstance(v, np.ndarray):
        v = v.tobytes() + str(v.dtype).encode() + str(v.shape).encode()
    elif isinstance(v, pd.DataFrame):
        v = v.to_csv().encode()
    elif isinstance(v, dict):
        v = json.dumps({k: (float(x) if isinstance(x, (float, np.floating, int, np.integer)) else str(x))
                        for k, x in v.items()}, sort_keys=True).encode()
    else:
        v = str(v).encode()
    out.append(f"{tag}: {hashlib.sha1(v).hexdigest()[:12]}")


def strip_kind(d):
    d = json.loads(d)
    for r in d["rules"]:
        if r.get("kind") == "tree":
            del r["kind"]
    return json.dumps(d, sort_keys=True)


if args.tables:
    pd.set_option("display.width", 250)
    for name, rs in (("sql", sql), ("mixed", mixed)):
        print(f"== {name}.per_rule")
        print(rs.evaluate(X, y, fp_cost=5.0, fn_cost=amount, per_rule=True).to_csv())
        print(f"== {name}.diff")
        print(rs.diff(rs[:max(len(rs) - 1, 0)], X, y, fp_cost=5.0, fn_cost=amount).to_csv())
    sys.exit(0)
sets = (("riff", riff), ("sql", sql), ("mixed", mixed), ("book", book), ("cands", RuleSet(cands)))
for name, rs in [(k, v) for k, v in sets if v is not None]:
    Xin = Xn if name in ("riff", "cands") else X
    put(f"{name}.str", str(rs))
    put(f"{name}.names", rs.names)
    put(f"{name}.predict", rs.predict(Xin))
    put(f"{name}.apply", rs.apply(Xin))
    put(f"{name}.coverage", np.ascontiguousarray(rs.coverage(Xin)))
    put(f"{name}.evaluate", rs.evaluate(Xin, y, fp_cost=5.0, fn_cost=amount))
    put(f"{name}.per_rule", rs.evaluate(Xin, y, fp_cost=5.0, fn_cost=amount, per_rule=True))
    put(f"{name}.overlap", rs.overlap(Xin))
    for d in ("duckdb", "sqlite", "postgres", "spark", None):
        put(f"{name}.sql.{d}", rs.to_sql(dialect=d))
        put(f"{name}.where.{d}", rs.to_sql(dialect=d, where_only=True))
    try:
        put(f"{name}.pandas", rs.to_pandas_query())
    except ValueError as e:
        put(f"{name}.pandas", f"ValueError {e}")
    put(f"{name}.json", strip_kind(rs.to_json()))
    back = RuleSet.from_json(rs.to_json())
    put(f"{name}.json.back.predict", back.predict(Xin))
    put(f"{name}.json.back.str", str(back))
    put(f"{name}.diff", rs.diff(rs[:max(len(rs) - 1, 0)], Xin, y, fp_cost=5.0, fn_cost=amount))
    if not getattr(rs, "has_actions", False):  # older trees: no actions
        put(f"{name}.monitor", rs.monitor(Xin, y, np.arange(n) // 1000, fp_cost=5.0, fn_cost=amount))
    put(f"{name}.np.predict", rs.predict(Xin.to_numpy(dtype=float)) if name in ("riff", "cands") else "-")
print("\n".join(out))
print("ALL", hashlib.sha1("\n".join(out).encode()).hexdigest(), file=sys.stderr)
