"""The label check's linear path (numbers and booleans, no sort) gives np.unique's answer, bit for bit.

``check_binary_labels`` maps the sorted distinct labels to 0 / 1. For numeric and boolean labels it finds
them from the minimum, the maximum and equality counts (:func:`csboost_plugins._validation._two_values`);
these tests compare it with a brute-force reading (Python's ``sorted(set(...))`` of the labels, and the
error messages ``np.unique`` would name) on random labels of every numeric dtype, and check that every
refusal still fires with its message.
"""

import re

import numpy as np
import pandas as pd
import pytest

from csboost_plugins._rows import read_rows
from csboost_plugins._validation import _two_values, check_binary_labels, fit_labels

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64, np.float16, np.float32,
          np.float64, np.bool_]


def _brute(y):
    """(classes, 0/1 codes) of y from Python's sorted set of its values (each label's position among them)."""
    values = sorted(set(y.tolist()))
    where = {v: i for i, v in enumerate(values)}
    return values, np.array([where[v] for v in y.tolist()], dtype=np.int64)


def _labels(rng, dtype, n):
    """n random labels of dtype from one or two values drawn in a wide range (-1/1, 0/1, 1/2, 3/7, ...)."""
    if dtype is np.bool_:
        pair = [False, True]
    else:
        info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
        lo, hi = (max(info.min, -9), min(info.max, 9)) if info is not None else (-9, 9)
        pair = rng.choice(np.arange(lo, hi + 1), 2, replace=False)
        if dtype in (np.float32, np.float64) and rng.random() < 0.3:
            pair = pair + 0.5  # fractional labels
    k = rng.integers(1, 3)  # one class or two
    return np.asarray(rng.choice(pair[:k], n), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_linear_path_agrees_with_a_brute_force_reading(dtype):
    rng = np.random.default_rng(7)
    for _ in range(40):
        y = _labels(rng, dtype, int(rng.integers(1, 300)))
        found = _two_values(y)
        assert found is not None  # numbers and booleans of one or two values never sort
        values, codes = _brute(y)
        classes, yi = found
        assert classes.dtype == y.dtype and classes.tolist() == values
        np.testing.assert_array_equal(yi, codes)
        y01, cls = check_binary_labels(y, require_both=False, return_classes=True)
        assert y01.dtype == np.int64
        if len(values) == 2:
            np.testing.assert_array_equal(y01, codes)
            assert cls.dtype == y.dtype and cls.tolist() == values
        else:  # one class keeps its meaning when it is 0 or 1
            np.testing.assert_array_equal(y01, np.full(y.shape[0], int(values[0] == 1)))


@pytest.mark.parametrize("y", [[-1, 1, 1, -1], [1, 2, 2], [True, False, True], [0.0, 1.0, 1.0], [3, 7, 3],
                               np.array([-1, 1], np.int8), np.array([0, 255], np.uint8)])
def test_the_readers_give_the_same_rows_through_the_linear_path(y):
    """fit_labels and read_rows (with pos_label) read the same labels as their object-dtype twins, which
    np.unique reads; only the dtype of classes differs."""
    y = np.asarray(y)
    twin = y.astype(object)
    assert _two_values(twin) is None
    for pos in sorted(set(y.tolist())):
        a, ca = fit_labels(y, pos, required=False)
        b, cb = fit_labels(twin, pos, required=False)
        np.testing.assert_array_equal(a, b)
        assert ca.tolist() == cb.tolist()
        np.testing.assert_array_equal(read_rows(None, pd.Series(y), pos_label=pos).y, a)


def test_more_than_two_values_and_negative_zero_go_to_the_sort():
    assert _two_values(np.array([0, 1, 2])) is None
    assert _two_values(np.array([-1, 0, 1])) is None  # min and max alone would take -1/1
    assert _two_values(np.array([0.0, -0.0, 1.0])) is None
    assert _two_values(np.array(["a", "b"])) is None
    assert _two_values(np.array([1 + 0j, 2 + 0j])) is None
    np.testing.assert_array_equal(check_binary_labels(np.array([-0.0, 0.0, 1.0])), [0, 0, 1])


def _message(y, require_both=True):
    with pytest.raises(ValueError) as info:
        check_binary_labels(y, require_both=require_both)
    return str(info.value)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.float32, np.float64])
def test_every_refusal_still_fires_with_its_message(dtype):
    rng = np.random.default_rng(11)
    for k in (3, 4, 7):
        y = rng.permutation(np.arange(k).repeat(5)).astype(dtype)
        classes = np.unique(y)  # the sorted classes the message names
        assert _message(y) == f"y must be binary; found {k} classes: {classes[:5].tolist()}"
    y = np.array([-1, 0, 1, 1], dtype=dtype if dtype not in (np.uint8,) else np.int8)
    assert _message(y) == f"y must be binary; found 3 classes: {sorted(set(y.tolist()))}"
    for v in (0, 1, 5):
        y = np.full(6, v, dtype=dtype)
        assert _message(y) == (f"y contains only one class ({np.unique(y)[0]!r}); the metric/model needs both "
                               "classes")
    assert _message(np.zeros(0, dtype=dtype)) == "y is empty"
    assert _message(np.zeros((2, 2), dtype=dtype)) == "y must be 1-D, got shape (2, 2)"
    if np.dtype(dtype).kind == "f":
        assert _message(np.array([0, np.nan, 1], dtype=dtype)) == "y contains NaN labels"
    assert re.search("only one class", _message(np.ones(3, dtype=bool)))


def test_text_labels_without_pos_label_still_refused():
    y = pd.Series(["ok", "fraud", "ok"])
    with pytest.raises(ValueError, match="pass pos_label='fraud' or pos_label='ok'"):
        read_rows(None, y)
    np.testing.assert_array_equal(read_rows(None, y, pos_label="fraud").y, [0, 1, 0])
