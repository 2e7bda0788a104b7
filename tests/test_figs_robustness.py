"""FIGS/FIGU on hostile scales: the cost unit does not change the model, and
columns whose span is subnormal or overflows are binned without reading out of bounds."""

import subprocess
import sys

import numpy as np
import pytest

from csdt import FIGSClassifier, FIGUClassifier
from csdt.datasets import load_creditscoring1


@pytest.mark.parametrize("cls", [FIGSClassifier, FIGUClassifier])
def test_same_money_in_any_unit_gives_the_same_model(cls):
    d = load_creditscoring1()
    X, y, C = d.data.to_numpy()[:2000], np.asarray(d.target)[:2000], np.asarray(d.cost_matrix)[:2000]
    ref = cls(max_rules=8).fit(X, y, cost_matrix=C)
    assert ref.complexity_ >= 4  # the reference really splits
    for unit in (1e-15, 1e-2, 1e6, 1e160):
        m = cls(max_rules=8).fit(X, y, cost_matrix=C * unit)
        assert [(s[2], s[3]) for s in m.splits_] == [(s[2], s[3]) for s in ref.splits_], unit
        np.testing.assert_array_equal(m.predict(X), ref.predict(X))
        np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), rtol=1e-9, atol=1e-12)


def _run(code):
    # each case in its own process: before the fix these segfaulted (SIGSEGV = return code -11)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout.split()


@pytest.mark.parametrize("values, y", [
    ("[0.0, 1.0] * 30 + [5e-324]", "np.arange(61) % 2"),          # subnormal span between cuts
    ("[-1e308, 1e308, 1.5e308] * 20", "np.array([0, 1, 1] * 20)"),  # span overflows to inf
    ("[0.0, 5e-324, 1e-323] * 20", "np.array([0, 1, 1] * 20)"),     # every value subnormal
])
@pytest.mark.parametrize("cls", ["FIGSClassifier", "FIGUClassifier"])
def test_extreme_spans_are_binned_safely(values, y, cls):
    code = (
        "import numpy as np\n"
        f"from csdt import {cls}\n"
        f"X = np.array({values}).reshape(-1, 1); y = {y}\n"
        f"m = {cls}(max_rules=3).fit(X, y)\n"
        "print(int((m.predict(X) == y).mean() == 1.0), m.complexity_)\n"
    )
    perfect, splits = _run(code)
    assert perfect == "1" and int(splits) >= 1


def test_extreme_span_in_a_column_that_is_not_the_last():
    # the out-of-bounds read was silent (no crash) when the bad column was not the last one
    rng = np.random.default_rng(0)
    x0 = np.array([-1e308, 1e308, 1.5e308] * 40)
    y = (x0 > 0).astype(int)
    X = np.column_stack([x0, rng.normal(size=x0.size)])
    m = FIGSClassifier(max_rules=2).fit(X, y)
    assert m.trees_[0].feature[0] == 0
    np.testing.assert_array_equal(m.predict(X), y)
