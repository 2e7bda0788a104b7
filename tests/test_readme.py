"""Every python block of the README runs as written."""

import re
from pathlib import Path

import pytest

# the README's cost matrices are sound: a CostWarning from any block is a failure (issue 12)
pytestmark = pytest.mark.filterwarnings("error::csboost_plugins.costs.CostWarning")

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, capsys):
    exec(compile(BLOCKS[i], f"README block {i}", "exec"), {"__name__": "readme"})
