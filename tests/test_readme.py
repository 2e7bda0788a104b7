"""Every python block of the README, and every recipe (``::`` block) in the boosting modules'
docstrings, runs as written and prints sensible money."""

import inspect
import math
import re
import textwrap
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

from csboost_plugins import callback, lgb, xgb

# the README's cost matrices are sound: a CostWarning from any block is a failure
pytestmark = pytest.mark.filterwarnings("error::csboost_plugins.costs.CostWarning")

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|-?inf")


def _block(marker):
    """Index of the one block containing ``marker``."""
    hits = [i for i, b in enumerate(BLOCKS) if marker in b]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def _numbers(line):
    return [float(v) for v in NUMBER.findall(line.split(":", 1)[-1])]


def _doc_recipes():
    """(where, code) of every literal block (``::``) in the docstrings of the boosting modules."""
    out = []
    for mod in (xgb, lgb, callback):
        docs = [(mod.__name__, mod.__doc__)]
        docs += [(f"{mod.__name__}.{name}", obj.__doc__) for name, obj in vars(mod).items()
                 if not name.startswith("_") and getattr(obj, "__module__", None) == mod.__name__
                 and (inspect.isfunction(obj) or inspect.isclass(obj))]
        for where, doc in docs:
            for code in re.findall(r"::\n\n((?:[ \t]+\S.*\n|[ \t]*\n)+)", doc or ""):
                out.append((where, textwrap.dedent(code)))
    return out


RECIPES = _doc_recipes()

_NUMBER = r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)"


def check_sensible(out, where, baseline_lines=False):
    """The printed output of an example: something, no NaN, savings in (0, 1], no early stop at round 0-1.

    ``baseline_lines``: the example prints baselines beside the model (a cost-blind model may lose
    money: savings < 0); their savings need only be finite and <= 1, the block checks the rest."""
    assert out.strip(), f"{where} prints nothing"
    # a NaN value (not a tree's "(NaN)" routing note)
    assert not re.search(r"(?<![(\w])nan\b", out, flags=re.I), f"{where} prints NaN:\n{out}"
    for m in re.finditer(r"savings[^\w-]{0,4}" + _NUMBER, out):
        v = float(m.group(1))
        ok = (math.isfinite(v) and -10 < v <= 1.0) if baseline_lines else 0.0 < v <= 1.0
        assert ok, f"{where}: savings {m.group(1)} is not sensible:\n{out}"
    for m in re.finditer(r"best (?:round|iteration)[^\w-]{0,3}(-?\d+)", out):
        assert int(m.group(1)) > 1, f"{where}: early stopping stopped at round {m.group(1)}:\n{out}"


def _run(code, where, capsys, tmp_path, monkeypatch, baseline_lines=False):
    monkeypatch.chdir(tmp_path)  # examples that save a model write it here
    # one OpenMP thread: boosting with a Python objective crawls when threads spin on a loaded machine
    with threadpool_limits(1, user_api="openmp"):
        exec(compile(code, where, "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    check_sensible(out, where, baseline_lines)
    return out


def test_readme_has_examples():
    assert len(BLOCKS) >= 4  # the quickstart: money metrics, boosting, rules to SQL, deployment
    assert len(RECIPES) >= 2  # the xgb and lgb module recipes


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, capsys, tmp_path, monkeypatch):
    baselines = i == _block("bayes_minimum_risk(proba")
    out = _run(BLOCKS[i], f"README block {i}", capsys, tmp_path, monkeypatch, baselines)
    if i == _block("bayes_minimum_risk(proba"):
        # one cost convention: the baseline decides at 1/2, Bayes minimum risk decides by each row's money
        half, bmr = (_numbers(line)[-1] for line in out.splitlines()[:2])
        assert half < 0.1, out  # bankmarketing: calling at 1/2 costs more than calling everyone
        assert bmr > 0.3 and bmr > half + 0.3, out
    # (the cross-validation example, with its per-fold checks, is in docs/user_guide/metrics.rst)
    if i == _block("CSLGBMClassifier()"):
        lines = out.splitlines()
        assert [line.split(":")[0] for line in lines] == ["CSXGBClassifier", "CSLGBMClassifier"], out
        assert all(_numbers(line)[-1] > 0.5 for line in lines), out  # both save most of the fraud money
    if i == _block("to_sql("):
        assert out.splitlines()[-1] == "SQL selects the rows predict flags: True", out
    if i == _block("scoring_service"):
        assert _numbers(out.splitlines()[-1].rsplit("max difference", 1)[1])[0] < 1e-6, out


def test_readme_fits_on_a_few_screens():
    # the README is the front page; the manual is docs/user_guide
    assert README.stat().st_size <= 8192, README.stat().st_size


GUIDE = README.parent / "docs" / "user_guide"
PYPROJECT = README.parent / "pyproject.toml"


def test_readme_links_every_user_guide_page():
    text = README.read_text()
    pages = sorted(p.name for p in GUIDE.glob("*.rst") if p.name != "index.rst")
    assert "operating.rst" in pages
    assert [p for p in pages if f"(docs/user_guide/{p})" not in text] == []
    # the operating page's two entry points are named where it is linked
    assert "max_alerts" in text and "RuleSet.monitor" in text


def _requirements(block_name):
    """Distribution names of one pyproject list (``dependencies`` or an extra); python 3.10 has no tomllib."""
    text = re.sub(r"\s+#[^\n]*", "", PYPROJECT.read_text())  # comments off; a ] inside quotes stays in the list
    block = re.search(rf'^{block_name} = \[((?:"[^"]*"|[^\]"])*)\]', text, flags=re.M).group(1)
    return {re.split(r"[<>=\[ ]", r)[0].lower(): r for r in re.findall(r'"([^"]+)"', block)}


def test_every_package_the_guides_import_is_installable_by_an_extra():
    """A guide's import outside the standard library is a base dependency or in a user extra (not only dev),
    and the dev extra (the test suite) holds every user extra with the same bound."""
    import sys

    imported = set()
    for page in GUIDE.glob("*.rst"):
        imported |= set(re.findall(r"^(?:>>>|\.\.\.)\s+(?:import|from)\s+(\w+)", page.read_text(), flags=re.M))
    dist = {"sklearn": "scikit-learn"}
    needed = {dist.get(m, m) for m in imported - set(sys.stdlib_module_names) - {"csboost_plugins", "csdt"}}
    assert "duckdb" in needed  # the guides run SQL in DuckDB
    base, dev = _requirements("dependencies"), _requirements("dev")
    extras = {e: _requirements(e) for e in ("plot", "dask", "catboost", "sql")}
    offered = set(base).union(*extras.values())
    assert sorted(needed - offered) == []
    for e, reqs in extras.items():
        for name, req in reqs.items():
            assert name in base or dev.get(name) == req, (e, req, dev.get(name))


def _command(line_no):
    """README line ``line_no`` (1-based) without its trailing comment."""
    return re.sub(r"\s+#.*$", "", README.read_text().splitlines()[line_no - 1])


def test_readme_command_1_is_what_ci_runs_in_a_fresh_venv():
    cmd = _command(4)
    assert cmd.startswith("pip install -e . && ") and "[" not in cmd, cmd  # the base install, no extra
    ci = README.parent / ".ci"
    # .ci/fresh_venv runs README line 4 itself (no copy to drift) and .ci/run calls it
    assert "sed -n 4p README.md" in (ci / "fresh_venv").read_text()
    assert ".ci/fresh_venv" in (ci / "run").read_text().splitlines()


def test_readme_command_2_is_what_ci_runs():
    cmd = _command(5)
    assert cmd.startswith("pip install -e \".[dev]\" && "), cmd
    assert cmd in (README.parent / ".ci" / "run").read_text().splitlines(), cmd


@pytest.mark.parametrize("where, code", RECIPES, ids=[w for w, _ in RECIPES])
def test_docstring_recipe_runs(where, code, capsys, tmp_path, monkeypatch):
    _run(code, where, capsys, tmp_path, monkeypatch)


@pytest.mark.parametrize("out, ok", [
    ("test savings 0.697", True), ("x <= 0.5 (NaN)", True), ("best round 57, savings: 0.8", True),
    ("{'savings': 0.75}", True), ("best_score_ = nan", False),
    ("", False), ("savings nan", False), ("test savings 0.0", False), ("savings -0.2", False),
    ("best round 1, test savings 0.4", False), ("best iteration 0", False),
])
def test_check_sensible_can_fail(out, ok):
    if ok:
        check_sensible(out, "example")
    else:
        with pytest.raises(AssertionError):
            check_sensible(out, "example")
