"""Package layout rules from the developers' guide."""

import subprocess
import sys


def test_csboost_plugins_never_imports_csdt():
    code = (
        "import importlib, pkgutil, sys, csboost_plugins\n"
        "for m in pkgutil.walk_packages(csboost_plugins.__path__, 'csboost_plugins.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k == 'csdt' or k.startswith('csdt.'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_csdt_public_names_resolve():
    import csdt

    missing = []
    for name in csdt.__all__:
        try:
            getattr(csdt, name)
        except (ImportError, AttributeError) as exc:  # noqa: PERF203
            missing.append(f"{name}: {exc}")
    assert not missing, missing


# ----------------------------------------------------------------- csdt subpackages (issue 14)
import ast  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

CSDT_DIR = Path(__file__).resolve().parent.parent / "csdt"
PAPER_SUBPACKAGES = ("tree", "ensemble", "figs", "cal5", "linear")


def test_public_import_paths_users_have_today():
    # every path of the flat layout keeps working, each in a fresh process (no import order luck)
    code = (
        "from csdt.tree import CostSensitiveDecisionTreeClassifier\n"
        "from csdt.ensemble import (CostSensitiveBaggingClassifier, CostSensitivePastingClassifier,\n"
        "    CostSensitiveRandomForestClassifier, CostSensitiveRandomPatchesClassifier)\n"
        "from csdt.figs import FIGSClassifier, FIGUClassifier\n"
        "from csdt.cal5 import CAL5Classifier, CAL5OCClassifier, cost_transinformation\n"
        "from csdt.linear import CostSensitiveLogisticRegression, CostSensitiveLogisticRegressionCV\n"
        "from csdt.bmr import BayesMinimumRiskClassifier, ThresholdingOptimization\n"
        "from csdt.sampling import under_sampling\n"
        "from csdt.datasets import load_creditscoring1\n"
        "import csdt, csdt.demo\n"
        "assert csdt.tree.CostSensitiveDecisionTreeClassifier is CostSensitiveDecisionTreeClassifier\n"
        "assert csdt.FIGSClassifier is FIGSClassifier and csdt.CAL5OCClassifier is CAL5OCClassifier\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_import_csdt_is_lazy():
    code = "import sys, csdt; print(sorted(k for k in sys.modules if k.startswith('csdt.')))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


@pytest.mark.parametrize("name", PAPER_SUBPACKAGES)
def test_subpackage_docstring_names_its_paper_and_equations(name):
    doc = ast.get_docstring(ast.parse((CSDT_DIR / name / "__init__.py").read_text()))
    assert doc and "Paper" in doc and "eq" in doc, name
    # the one paragraph says what the private modules hold: every module is named
    for mod in (CSDT_DIR / name).glob("_*.py"):
        if mod.name != "__init__.py":
            assert f"``{mod.stem}``" in doc, (name, mod.stem)


def _module_name(path):
    rel = path.relative_to(CSDT_DIR.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _imports(path, name):
    """Modules of csdt that ``path`` imports, at module level or inside functions."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "csdt")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "csdt":
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{mod}.{alias.name}"
                found.add(sub if _path_of(sub) is not None else mod)
    return found


def _path_of(name):
    rel = Path(*name.split(".")[1:])
    for p in (CSDT_DIR / rel.with_suffix(".py"), CSDT_DIR / rel / "__init__.py"):
        if p.is_file():
            return p
    return None


def test_no_import_cycles_in_csdt():
    # the graph of csdt's own imports (function-level ones too) has no cycle; a module's
    # implicit import of its parent packages is not an edge
    graph = {}
    for path in CSDT_DIR.rglob("*.py"):
        name = _module_name(path)
        graph[name] = {m for m in _imports(path, name) if m != name and not name.startswith(m + ".")}
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
