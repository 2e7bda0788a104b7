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

# the README's cost matrices are sound: a CostWarning from any block is a failure (issue 12)
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
    assert len(BLOCKS) >= 5
    assert len(RECIPES) >= 2  # the xgb and lgb module recipes


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, capsys, tmp_path, monkeypatch):
    baselines = i in (_block("bayes_minimum_risk(proba"), _block("cross_val_score("))
    out = _run(BLOCKS[i], f"README block {i}", capsys, tmp_path, monkeypatch, baselines)
    if i == _block("bayes_minimum_risk(proba"):
        # one cost convention: the baseline decides at 1/2, Bayes minimum risk decides by each row's money
        half, bmr = (_numbers(line)[-1] for line in out.splitlines()[:2])
        assert half < 0.1, out  # bankmarketing: calling at 1/2 costs more than calling everyone
        assert bmr > 0.3 and bmr > half + 0.3, out
    if i == _block("cross_val_score("):
        lines = out.splitlines()
        assert len(lines) == 2 and lines[0].startswith("logistic") and lines[1].startswith("cost-sensitive")
        base, cs = (_numbers(line) for line in lines)
        assert len(base) == len(cs) == 6  # five folds and the mean
        assert cs[-1] > 0.3 and cs[-1] > base[-1] + 0.3, out
        assert min(cs[:5]) > 0.2, out  # every fold saves money, not only the mean


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
