"""The README's first command runs this demo: it must run end to end and show money being saved."""

import re

from csdt import demo


def test_demo_runs_and_cost_sensitive_models_save_money(capsys):
    rows, ev = demo.main()
    out = capsys.readouterr().out
    savings = {name: s for name, s, _, _ in rows}
    blind = savings["logistic regression, 0.5 threshold"]
    cost_sensitive = [s for name, s in savings.items() if "AEC" in name or "CSDT" in name or "ECSDT" in name]
    # the boosting estimators with no options book at least what xgboost logloss + BMR books here
    boosting = [s for name, s in savings.items() if "Classifier()" in name]
    assert len(boosting) == 2 and min(boosting) >= savings["xgboost logloss + Bayes minimum risk"] - 0.01
    assert len(cost_sensitive) == 5
    assert min(cost_sensitive) > blind + 0.3  # every cost-sensitive model saves far more money
    assert ev["fpr"] < 0.02 and ev["tpr"] > 0.3
    assert "identical: True" in out
    # the printout says where the budget holds and what exp.sav is
    assert "exp.sav = expected savings" in out
    budget = re.search(r"budget: FPR <= 1 % on the selection rows \((\d+) of the training rows.*FPR there "
                       r"(\d\.\d+)", out)
    assert budget and int(budget.group(1)) > 0 and float(budget.group(2)) <= 0.01, out
    assert re.search(rf"test: recall [\d.]+ at FPR {ev['fpr']:.4f} \(new rows", out), out


# ----------------------------------------------------------------- a fresh machine's base install
import importlib.metadata  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from packaging.requirements import Requirement  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

# every import of the demo, including the lazy ones inside its functions and RuleSet.to_sql's, in a
# process where the installed packages outside the base install cannot be imported (as in a fresh
# venv: optional imports of pandas, lightgbm, ... fall back as they would there)
_DEMO_IMPORTS = """
import json, sys
blocked = set(json.loads(sys.argv[1]))

class Absent:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (not in the base install)", name=name)
        return None

sys.meta_path.insert(0, Absent)
import csdt.demo, xgboost, lightgbm
import csboost_plugins.lgb, csboost_plugins.xgb, csboost_plugins.rules, csdt, csdt.datasets
from csboost_plugins.rules import Interval, Rule, RuleSet
RuleSet([Rule([Interval(0, lower=1.0)])], feature_names=["amount"]).to_sql("t", dialect="sqlite")
"""


def _base_dependencies():
    """Names in pyproject.toml's [project] dependencies (python 3.10 has no tomllib)."""
    block = re.search(r"^dependencies = \[(.*?)^\]", PYPROJECT.read_text(), flags=re.S | re.M).group(1)
    return {canonicalize_name(Requirement(r).name) for r in re.findall(r'^\s*"([^"]+)"', block, flags=re.M)}


def _with_requirements(names):
    """``names`` and everything their installed distributions require (no extras)."""
    todo, seen = list(names), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for r in map(Requirement, reqs):
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(r.name))
    return seen


def test_the_demo_needs_only_the_base_dependencies():
    # README command 1 is `pip install -e . && python -m csdt.demo`: no extra may be needed
    # (the SQL step once needed sqlglot from the sql extra and ended in an ImportError)
    allowed = _with_requirements(_base_dependencies())
    blocked = sorted(m for m, ds in importlib.metadata.packages_distributions().items()
                     if m not in ("csdt", "csboost_plugins") and m not in sys.stdlib_module_names
                     and not any(canonicalize_name(d) in allowed for d in ds))
    # the blocking is real: an installed extra (matplotlib, of [plot] and [dev]) is among the blocked
    assert "matplotlib" in blocked or "matplotlib" not in importlib.metadata.packages_distributions()
    out = subprocess.run([sys.executable, "-c", _DEMO_IMPORTS, json.dumps(blocked)], capture_output=True, text=True)
    assert out.returncode == 0, "the demo needs a package outside the base install:\n" + out.stderr[-2000:]
