"""Every python block of the README runs as written and prints sensible money."""

import math
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|-?inf")
# the first number after the word savings (a printed line or a dict's 'savings' entry)
SAVINGS = re.compile(r"savings[^-\d\n]*?(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|-?inf)", re.I)


def _block(marker):
    """Index of the one block containing ``marker``."""
    hits = [i for i, b in enumerate(BLOCKS) if marker in b]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def _numbers(line):
    return [float(v) for v in NUMBER.findall(line.split(":", 1)[-1])]


def _run(i, capsys):
    exec(compile(BLOCKS[i], f"README block {i}", "exec"), {"__name__": "readme"})
    return capsys.readouterr().out


def test_readme_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, capsys):
    out = _run(i, capsys)
    # savings = (Cost_l - Cost) / Cost_l is at most 1 (a model can lose more than the trivial policy,
    # not save more than everything); a printed NaN or inf means broken money
    for line in out.splitlines():
        for m in SAVINGS.finditer(line):
            v = float(m.group(1))
            assert math.isfinite(v) and -10 < v <= 1, line
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
