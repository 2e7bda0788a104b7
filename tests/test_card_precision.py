"""card_precision_at_k against a plain-Python reading of its definition (one card per entity and
period with its highest score, top k by score then entity id, detected cards leave later periods),
and its money columns against direct sums over the flagged rows."""

import doctest

import numpy as np
import pandas as pd
import pytest

from csboost_plugins import _card_precision
from csboost_plugins.metrics import card_precision_at_k


def _brute(y, s, entity, periods, k, exclude, cm=None):
    """Per period (sorted): cards, frauds in the top k, precision, and with costs the money of the
    flagged rows; then the mean precision."""
    detected, out = set(), []
    for p in sorted(set(periods)):
        best, fraud = {}, {}
        for yi, si, e, q in zip(y, s, entity, periods):
            if q != p:
                continue
            best[e] = max(best.get(e, -np.inf), si)
            fraud[e] = fraud.get(e, 0) or yi
        cards = [e for e in best if not (exclude and e in detected)]
        cards.sort(key=lambda e: (-best[e], e))
        top = cards[:k]
        hits = [e for e in top if fraud[e] == 1]
        if exclude:
            detected.update(hits)
        row = {"period": p, "cards": len(cards), "frauds_in_top_k": len(hits), "precision": len(hits) / k}
        if cm is not None:
            caught = alert = 0.0
            for i, (yi, e, q) in enumerate(zip(y, entity, periods)):
                if q == p and e in top:
                    if yi == 1:
                        caught += cm[i, 1] - cm[i, 2]
                    else:
                        alert += cm[i, 0] - cm[i, 3]
            row.update(money_caught=caught, alert_cost=alert, net_money=caught - alert)
        out.append(row)
    table = pd.DataFrame(out)
    return float(table["precision"].mean()), table


def _data(seed, n=600, tied=False):
    rng = np.random.default_rng(seed)
    entity = rng.integers(0, 40, n)
    periods = rng.integers(0, 12, n)
    # frauds concentrated on a few cards, as in a stream (a card keeps being used after it is compromised)
    y = ((entity % 7 == 0) & (rng.random(n) < 0.6) | (rng.random(n) < 0.03)).astype(int)
    s = rng.integers(0, 3, n) / 2.0 if tied else rng.random(n) + 0.3 * y
    cm = np.column_stack([rng.uniform(1, 5, n), rng.uniform(10, 500, n), rng.uniform(0, 3, n),
                          rng.uniform(0, 1, n)])
    return y, s, entity, periods, cm


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("exclude", [True, False])
@pytest.mark.parametrize("k", [1, 3, 8, 50])
def test_equals_the_definition(tied, exclude, k):
    for seed in range(3):
        y, s, entity, periods, cm = _data(seed, tied=tied)
        want_mean, want = _brute(y, s, entity, periods, k, exclude, cm)
        got_mean, got = card_precision_at_k(y, s, entity=entity, periods=periods, k=k, exclude_detected=exclude,
                                            cost_matrix=cm, return_periods=True)
        assert got_mean == pytest.approx(want_mean, abs=1e-12)
        pd.testing.assert_frame_equal(got, want, check_dtype=False, atol=1e-9)
        assert card_precision_at_k(y, s, entity=entity, periods=periods, k=k,
                                   exclude_detected=exclude) == got_mean


def test_exclusion_and_ties_matter_on_these_data():
    # the brute force above is only a check if the options change the answer on its data
    y, s, entity, periods, _ = _data(0, tied=True)
    a = card_precision_at_k(y, s, entity=entity, periods=periods, k=3)
    b = card_precision_at_k(y, s, entity=entity, periods=periods, k=3, exclude_detected=False)
    assert a != b
    # the tied data do tie within a period's top k
    day = periods == 0
    best = pd.Series(s[day]).groupby(entity[day]).max().sort_values(ascending=False)
    assert best.iloc[2] == best.iloc[3]


def test_ties_go_to_the_smaller_entity_id():
    # two cards with the same score: the smaller id is reviewed (k=1); the card's score is its best row
    y = [0, 1, 0]
    kw = {"periods": [0, 0, 0], "k": 1}
    assert card_precision_at_k(y, [0.5, 0.5, 0.1], entity=[2, 1, 2], **kw) == 1.0
    assert card_precision_at_k(y, [0.5, 0.5, 0.1], entity=[1, 2, 1], **kw) == 0.0
    assert card_precision_at_k(y, [0.1, 0.5, 0.6], entity=["b", "c", "b"], **kw) == 0.0


def test_divides_by_k_and_keeps_empty_periods():
    y = [1, 0, 1]
    got, table = card_precision_at_k(y, [0.5, 0.4, 0.9], entity=[7, 8, 7], periods=["d1", "d1", "d2"], k=4,
                                     return_periods=True)
    # d1: two cards, one fraud -> 1/4; d2: card 7 was detected on d1 and leaves -> no card, 0/4
    assert table["precision"].tolist() == [0.25, 0.0] and table["cards"].tolist() == [2, 0]
    assert got == 0.125


def test_costs_keywords_money_and_pandas():
    y, s, entity, periods, cm = _data(4)
    amount = cm[:, 1]
    _, want = _brute(y, s, entity, periods, 5, True, np.column_stack([np.full_like(amount, 2.0), amount,
                                                                       np.zeros_like(amount), np.zeros_like(amount)]))
    idx = pd.RangeIndex(len(y)) + 10
    _, got = card_precision_at_k(pd.Series(y, idx), pd.Series(s, idx), entity=pd.Series(entity, idx),
                                 periods=pd.Series(periods, idx), k=5, fn_cost=pd.Series(amount, idx), fp_cost=2.0,
                                 return_periods=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, atol=1e-9)
    # fn_cost alone: the cost of an alert is never guessed
    with pytest.raises(TypeError, match="fp_cost"):
        card_precision_at_k(y, s, entity=entity, periods=periods, k=5, fn_cost=amount, return_periods=True)
    _, plain = card_precision_at_k(y, s, entity=entity, periods=periods, k=5, return_periods=True)
    assert list(plain.columns) == ["period", "cards", "frauds_in_top_k", "precision"]


def test_text_labels_need_pos_label():
    y, s, entity, periods, _ = _data(1)
    text = np.where(y == 1, "fraud", "ok")
    with pytest.raises(ValueError, match="pos_label"):
        card_precision_at_k(text, s, entity=entity, periods=periods)
    assert card_precision_at_k(text, s, entity=entity, periods=periods, k=3, pos_label="fraud") == \
        card_precision_at_k(y, s, entity=entity, periods=periods, k=3)


def test_datetime_periods_and_string_entities():
    y, s, entity, periods, _ = _data(2)
    days = pd.Timestamp("2018-04-01") + pd.to_timedelta(periods, unit="D")
    names = np.array([f"card{e:03d}" for e in entity])
    want = card_precision_at_k(y, s, entity=entity, periods=periods, k=4)
    assert card_precision_at_k(y, s, entity=names, periods=days, k=4) == want


@pytest.mark.parametrize("kwargs, error, match", [
    ({"k": 0}, ValueError, "k must be at least 1"),
    ({"k": 2.0}, TypeError, "k must be an integer"),
    ({"k": True}, TypeError, "k must be an integer"),
    ({"exclude_detected": "yes"}, TypeError, "exclude_detected must be True or False"),
    ({"y_score": [0.1, np.nan, 0.3, 0.4]}, ValueError, "y_score contains NaN"),
    ({"y_score": [0.1, 0.2, 0.3]}, ValueError, "y_score has 3 rows"),
    ({"entity": [1, 2, None, 4]}, ValueError, "entity has 1 missing"),
    ({"entity": [1, 2, 3]}, ValueError, "entity has 3 labels but there are 4 rows"),
    ({"periods": [1, 1, np.nan, 2]}, ValueError, "periods has 1 missing"),
    ({"periods": None}, ValueError, "periods is required"),
    ({"fn_cost": [1.0, 2.0], "fp_cost": 1.0}, ValueError, "fn_cost"),
    ({"y_true": pd.Series([0, 1, 0, 1]), "y_score": pd.Series([0.1, 0.2, 0.3, 0.4], index=[5, 6, 7, 8])},
     ValueError, "index"),
    ({"y_true": pd.Series([0, 1, 0, 1]), "entity": pd.Series([1, 2, 3, 4], index=[3, 2, 1, 0])}, ValueError,
     "index"),
])
def test_bad_input_is_named(kwargs, error, match):
    args = {"y_true": [0, 1, 0, 1], "y_score": [0.1, 0.2, 0.3, 0.4], "entity": [1, 2, 3, 4],
            "periods": [1, 1, 2, 2], **kwargs}
    y_true, y_score = args.pop("y_true"), args.pop("y_score")
    with pytest.raises(error, match=match):
        card_precision_at_k(y_true, y_score, **args)


def test_docstring_example_runs():
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(card_precision_at_k, globs=vars(_card_precision).copy()):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0
