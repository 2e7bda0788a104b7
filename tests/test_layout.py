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


# ----------------------------------------------------------------- csdt subpackages
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


ROOT = CSDT_DIR.parent
PACKAGES = ("csdt", "csboost_plugins")


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _path_of(name):
    rel = Path(*name.split("."))
    for p in (ROOT / rel.with_suffix(".py"), ROOT / rel / "__init__.py"):
        if p.is_file():
            return p
    return None


def _imports(path, name):
    """Modules of the two packages that ``path`` imports, at module level or inside functions."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] in PACKAGES)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{mod}.{alias.name}"
                found.add(sub if _path_of(sub) is not None else mod)
    return found


def _import_graph():
    graph = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = _module_name(path)
            # a module's implicit import of its parent packages is not an edge
            graph[name] = {m for m in _imports(path, name) if m != name and not name.startswith(m + ".")}
    return graph


def _cycles(graph):
    """Every strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    # csdt and csboost_plugins: module-level and function-level imports (a circle hidden in a
    # function still ties the two modules together)
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_csdt_reads_cost_columns_through_the_decision_cost_module():
    # per-row money of deciding 0 / 1 comes from csboost_plugins.decision_costs: no module of
    # csdt indexes a cost matrix by a bare column number (costs[:, 1], c[:, 3], ...)
    bad = []
    for path in CSDT_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
                continue
            name = node.value.id.lower()
            if "cost" not in name and name not in ("c", "cm"):
                continue
            sl = node.slice
            if (isinstance(sl, ast.Tuple) and len(sl.elts) == 2 and isinstance(sl.elts[1], ast.Constant)
                    and isinstance(sl.elts[1].value, int)):
                bad.append(f"{path.relative_to(CSDT_DIR.parent)}:{node.lineno} {ast.unparse(node)}")
    assert not bad, bad


# the words are joined at run time so this file does not match its own pattern
_HISTORY_REF = __import__("re").compile(r"\b(?:[Ii]" + "ssue|[Bb]" + r"enchmark) #?\d")


def test_no_history_references_in_library_docs_or_tests():
    # user-facing text says what is meant (the behaviour, the file, the result), not a ticket number
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [root / "README.md"]
    for sub in ("csboost_plugins", "csdt", "tests", "docs"):
        files += [p for p in (root / sub).rglob("*") if p.suffix in (".py", ".rst", ".md", ".txt")
                  and "_build" not in p.parts]
    bad = [f"{p.relative_to(root)}:{i}" for p in files
           for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if _HISTORY_REF.search(line)]
    assert not bad, bad


def test_top_level_modules_import_nothing_from_rules():
    # the rules build on the top-level modules (costs, periods, dask blocks), never the other way round
    def imports_rules(node):
        if isinstance(node, ast.Import):
            return any(a.name.startswith("csboost_plugins.rules") for a in node.names)
        if not isinstance(node, ast.ImportFrom):
            return False
        module = node.module or ""
        if node.level == 0:
            return module.startswith("csboost_plugins.rules")
        return node.level == 1 and (module.split(".")[0] == "rules"
                                    or (not module and any(a.name == "rules" for a in node.names)))

    bad = [f"{path.name}:{node.lineno} {ast.unparse(node)}"
           for path in sorted((ROOT / "csboost_plugins").glob("*.py")) if path.name != "__init__.py"
           for node in ast.walk(ast.parse(path.read_text())) if imports_rules(node)]
    assert not bad, bad
