"""Every python block of the README, and every recipe (``::`` block) in the boosting modules'
docstrings, runs as written and prints sensible money."""

import inspect
import re
import textwrap
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

from csboost_plugins import callback, lgb, xgb

# the README's cost matrices are sound: a CostWarning from any block is a failure (issue 12)
pytestmark = pytest.mark.filterwarnings("error::csboost_plugins.costs.CostWarning")

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


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


def check_sensible(out, where):
    """The printed output of an example: something, no NaN, savings in (0, 1], no early stop at round 0-1."""
    assert out.strip(), f"{where} prints nothing"
    # a NaN value (not a tree's "(NaN)" routing note)
    assert not re.search(r"(?<![(\w])nan\b", out, flags=re.I), f"{where} prints NaN:\n{out}"
    for m in re.finditer(r"savings[^\w-]{0,4}" + _NUMBER, out):
        assert 0.0 < float(m.group(1)) <= 1.0, f"{where}: savings {m.group(1)} is not sensible:\n{out}"
    for m in re.finditer(r"best (?:round|iteration)[^\w-]{0,3}(-?\d+)", out):
        assert int(m.group(1)) > 1, f"{where}: early stopping stopped at round {m.group(1)}:\n{out}"


def _run(code, where, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that save a model write it here
    # one OpenMP thread: boosting with a Python objective crawls when threads spin on a loaded machine
    with threadpool_limits(1, user_api="openmp"):
        exec(compile(code, where, "exec"), {"__name__": "readme"})
    check_sensible(capsys.readouterr().out, where)


def test_readme_has_examples():
    assert len(BLOCKS) >= 5
    assert len(RECIPES) >= 2  # the xgb and lgb module recipes


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, capsys, tmp_path, monkeypatch):
    _run(BLOCKS[i], f"README block {i}", capsys, tmp_path, monkeypatch)


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
