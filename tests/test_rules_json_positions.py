"""Row positions in a rule set's ``selection`` (``selection_index``, ``retune_index``) written to JSON as a
compressed bit mask: exact round trips, older files with plain lists, the size against a bound derived from
the encoding, and broken objects refused by name."""

import base64
import json
import math
import zlib

import numpy as np
import pytest

from csboost_plugins.rules import RIFFClassifier, RuleSet, optimize_rule_book
from csdt.datasets import make_fraud_transactions

BOOK = {"night_velocity": "n_tx_24h >= 6 AND hour < 6", "far_new_merchant": "dist_home_km > 100 AND new_merchant = 1",
        "big_vs_usual": "amount_vs_avg > 2 AND amount > 50"}


def _with_positions(**positions):
    rs = RuleSet.from_sql(BOOK)
    rs.selection = dict({"criterion": "fpr", "budget": 0.01, "parts": {"selection": 3}}, **positions)
    return rs


def _random_third(n, seed=0):
    rng = np.random.default_rng(seed)
    return np.sort(rng.permutation(n)[: n // 3]).astype(np.int64)


@pytest.mark.parametrize("positions", [
    np.array([0, 1, 2, 7, 8, 9, 63, 64, 65, 1000]),  # byte edges
    np.arange(50, 250),  # contiguous
    np.array([5]), np.array([], dtype=np.int64), None])
def test_round_trip_gives_the_same_int64_positions(positions):
    rs = _with_positions(selection_index=positions, retune_index=_random_third(10_001, 1))
    back = RuleSet.from_json(rs.to_json())
    for key in ("selection_index", "retune_index"):
        want = rs.selection[key]
        got = back.selection[key]
        if want is None:
            assert got is None
            continue
        assert isinstance(got, np.ndarray) and got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    assert back.selection["parts"] == rs.selection["parts"] and back.selection["budget"] == 0.01


def test_positions_out_of_order_are_kept_exactly():
    pos = np.array([9, 3, 3, 0])  # not a set of positions in order: no mask can hold it
    back = RuleSet.from_json(_with_positions(selection_index=pos).to_json())
    np.testing.assert_array_equal(back.selection["selection_index"], pos)


def test_old_json_with_plain_lists_loads_as_int64_arrays():
    sel, rt = _random_third(3000, 2), _random_third(3000, 3)
    d = _with_positions(selection_index=sel, retune_index=rt).to_dict()
    d["selection"]["selection_index"], d["selection"]["retune_index"] = sel.tolist(), rt.tolist()  # older writer
    back = RuleSet.from_json(json.dumps(d))
    for key, want in (("selection_index", sel), ("retune_index", rt)):
        got = back.selection[key]
        assert isinstance(got, np.ndarray) and got.dtype == np.int64
        np.testing.assert_array_equal(got, want)


def test_mask_decodes_independently_of_the_reader():
    """The stored object is the packbits mask of the positions, zlib-compressed, in base64."""
    pos = _random_third(5000, 4)
    obj = json.loads(_with_positions(selection_index=pos).to_json())["selection"]["selection_index"]
    bits = np.unpackbits(np.frombuffer(zlib.decompress(base64.b64decode(obj["data"])), np.uint8))
    assert obj["length"] == pos[-1] + 1 and obj["count"] == len(pos)
    np.testing.assert_array_equal(np.flatnonzero(bits), pos)


def test_json_size_at_300k_rows_below_the_encodings_bound():
    n = 300_000
    sel, rt = _random_third(n, 5), _random_third(n, 6)
    rs = _with_positions(selection_index=sel, retune_index=rt)
    text = rs.to_json()

    def bound(pos):  # packbits bytes, zlib's worst case (compressBound), base64, the object's own keys
        b = math.ceil((int(pos[-1]) + 1) / 8)
        z = b + (b >> 12) + (b >> 14) + (b >> 25) + 13
        keys = json.dumps({"row_positions": "packbits+zlib+base64", "length": int(pos[-1]) + 1,
                           "count": len(pos), "data": ""})
        return 4 * math.ceil(z / 3) + len(keys)

    rest = len(_with_positions(selection_index=None, retune_index=None).to_json())  # everything but the positions
    assert len(text) <= rest + bound(sel) + bound(rt)
    plain = len(json.dumps(sel.tolist())) + len(json.dumps(rt.tolist()))
    assert len(text) - rest < plain / 10  # ~n/8 * 4/3 bytes per array against ~6.4 characters per position
    back = RuleSet.from_json(text)
    np.testing.assert_array_equal(back.selection["selection_index"], sel)
    np.testing.assert_array_equal(back.selection["retune_index"], rt)


def _broken(**change):
    d = _with_positions(selection_index=_random_third(1000, 7)).to_dict()
    d["selection"]["selection_index"].update(change)
    return json.dumps(d)


@pytest.mark.parametrize("change, err, words", [
    ({"data": "not base64 !"}, ValueError, "selection.selection_index.data"),
    ({"data": base64.b64encode(b"\x00" * 40).decode()}, ValueError, "selection.selection_index.data"),
    ({"count": 5}, ValueError, "selection.selection_index"),
    ({"length": 999_999}, ValueError, "selection.selection_index.data"),
    ({"length": "1000"}, TypeError, "selection.selection_index.length"),
    ({"row_positions": "gzip"}, ValueError, "selection.selection_index.row_positions"),
    ({"data": base64.b64encode(zlib.compress(b"\xff" * 10_000_000)).decode()}, ValueError,
     "selection.selection_index.data"),  # a stream far longer than its mask: refused before it is inflated
])
def test_broken_positions_object_is_refused_by_name(change, err, words):
    with pytest.raises(err, match=words.replace(".", r"\.")):
        RuleSet.from_json(_broken(**change))


@pytest.fixture(scope="module")
def data():
    b = make_fraud_transactions(6000, fraud_rate=0.04, random_state=1)
    return b.data, np.asarray(b.target).astype(int), np.asarray(b.fn_cost, dtype=float)


def test_optimized_book_round_trips_its_positions(data):
    X, y, amount = data
    out = optimize_rule_book(RuleSet.from_sql(BOOK), X, y, candidates=None, cv=None, fn_cost=amount, fp_cost=5.0,
                             random_state=0)
    back = RuleSet.from_json(out.to_json())
    for key in ("selection_index", "retune_index"):
        np.testing.assert_array_equal(back.selection[key], np.asarray(out.selection[key], dtype=np.int64))
        assert back.selection[key].dtype == np.int64
    assert back.names == out.names and [str(r) for r in back.rules] == [str(r) for r in out.rules]
    np.testing.assert_array_equal(back.predict(X), out.predict(X))


def test_riff_rule_book_rule_set_round_trips_selection_index(data):
    X, y, amount = data
    est = RIFFClassifier(rule_book=RuleSet.from_sql(BOOK), random_state=0).fit(X, y, fn_cost=amount, fp_cost=5.0)
    back = RuleSet.from_json(est.rule_set_.to_json())
    np.testing.assert_array_equal(back.selection["selection_index"], est.selection_index_)


def test_plain_list_beyond_int64_is_refused_by_name():
    d = _with_positions(selection_index=None).to_dict()
    d["selection"]["selection_index"] = [1, 2 ** 70]
    with pytest.raises(ValueError, match=r"selection\.selection_index"):
        RuleSet.from_json(json.dumps(d))


def test_the_choice_among_candidate_books_round_trips_through_json(data):
    X, y, amount = data
    out = optimize_rule_book(RuleSet.from_sql(BOOK), X, y, candidates=None, fn_cost=amount, fp_cost=5.0,
                             random_state=0)
    choice = out.selection["choice"]
    back = RuleSet.from_json(out.to_json()).selection["choice"]
    assert back["chosen"] == choice["chosen"] and back["candidates"].keys() == choice["candidates"].keys()
    np.testing.assert_array_equal(back["fold"], choice["fold"])
    for name, c in choice["candidates"].items():
        assert back["candidates"][name]["held_out_money"] == c["held_out_money"]
