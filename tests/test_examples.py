"""examples/ use only the public API (a user copies them)."""

import ast
from pathlib import Path

import numpy as np

from csdt.datasets import make_multi_oc, make_nsep_oc

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _private_imports(path):
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) \
            else []
        out += [n for n in names if n.split(".")[0] in ("csdt", "csboost_plugins")
                and any(part.startswith("_") for part in n.split(".")[1:])]
    return out


def test_examples_import_no_private_module():
    files = sorted(EXAMPLES.glob("*.py"))
    assert files
    assert {p.name: _private_imports(p) for p in files} == {p.name: [] for p in files}


def test_cal5_oc_synthetic_sets_follow_the_papers_equations():
    X, y, c = make_nsep_oc(20_000, random_state=0)
    assert X.shape == (20_000, 2) and y.mean() == 0.5
    # eqs. 29-30 average 1 over x1 ~ N(0, 1); x2 separates the classes by 2 standard deviations
    assert abs(c[y == 0].mean() - 1) < 0.03 and abs(c[y == 1].mean() - 1) < 0.03
    assert np.corrcoef(X[y == 0, 0], c[y == 0])[0, 1] > 0.9  # class 0 is dear for x1 > 0
    assert abs(X[y == 1, 1].mean() - X[y == 0, 1].mean() - 2) < 0.05
    Xm, ym, cm = make_multi_oc(20_000, random_state=0)
    assert (cm[ym == 1] == 1).all() and cm[(ym == 0) & (Xm[:, 0] > 1)].mean() > 1.7
    np.testing.assert_array_equal(make_nsep_oc(50, random_state=3)[0], make_nsep_oc(50, random_state=3)[0])


def test_cal5_example_runs_and_cal5_oc_loses_less_money(tmp_path):
    import os
    import subprocess
    import sys
    env = dict(os.environ, MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, str(EXAMPLES / "cal5_decision_regions.py"), "--n", "1000",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert len(list(tmp_path.glob("fig*.png"))) == 5
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith(("NSEP_OC", "MULTI_OC"))]
    cost = {(r[0], r[1]): float(r[-1]) for r in rows}
    for data in ("NSEP_OC", "MULTI_OC"):  # each example's own cost in training saves money on fresh data
        assert 0 < cost[data, "CAL5_OC"] < 0.9 * cost[data, "CAL5"], out.stdout


def test_rule_book_example_runs_and_the_optimised_book_saves_what_the_old_one_loses(tmp_path):
    import os
    import re
    import subprocess
    import sys
    env = dict(os.environ, MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, str(EXAMPLES / "rule_book.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["book_unique_money.png", "new_book_waterfall.png"]
    assert "SQLite flags the rows predict flags: True" in out.stdout, out.stdout
    net = {m[0]: (float(m[1]), float(m[2])) for m in
           re.findall(r"^(old book|new book|book alone): \d+ rules, recall [\d.]+, FPR ([\d.]+), "
                      r"net money on new rows (-?\d+)$", out.stdout, flags=re.M)}
    assert set(net) == {"old book", "new book", "book alone"}, out.stdout
    assert net["new book"][1] > max(0.0, net["old book"][1]), out.stdout
    assert net["book alone"][1] > max(0.0, net["old book"][1]), out.stdout
    assert net["book alone"][0] < 0.03, out.stdout
    assert net["new book"][0] < 0.03 < net["old book"][0], out.stdout  # the budget is 1 % on the rows selected on


def test_backtesting_example_replays_three_ways_of_working_on_the_same_days(tmp_path):
    import os
    import re
    import subprocess
    import sys
    env = dict(os.environ, MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, str(EXAMPLES / "backtesting_week_after_week.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert [p.name for p in tmp_path.glob("*.png")] == ["backtest.png"]
    rows = re.findall(r"^(.+?): (\d+) weekly steps, net money (-?\d+), alerts (\d+), card precision@10 ([\d.]+)"
                      r"(?:, per day vs logistic regression ([-+][\d.]+) \(95% CI ([-+][\d.]+) to ([-+][\d.]+)\))?$",
                      out.stdout, flags=re.M)
    assert [r[0] for r in rows] == ["logistic regression", "cost-sensitive xgboost", "xgboost, 30 cards a day"]
    assert len({r[1] for r in rows}) == 1 and int(rows[0][1]) >= 8, out.stdout  # the same weeks replayed
    for name, _, net, alerts, cp, *ci in rows:
        assert float(net) > 0 and int(alerts) > 0 and 0 < float(cp) <= 1, out.stdout  # every replay saves money
        if ci[0]:
            assert float(ci[1]) < float(ci[0]) < float(ci[2]), out.stdout
    assert int(rows[1][3]) < int(rows[0][3]), out.stdout  # the booster's money decision raises fewer alerts
