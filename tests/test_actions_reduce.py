"""Rule books with actions (allow / block / review, first match wins) in RuleSet.monitor and in RuleSet.evaluate
on dask collections: checked against a brute force over rows (each row's action from RuleSet.actions, the book
re-run without each rule) and against the in-memory evaluate."""

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet
from test_reduce import _close

BOOK = [("trusted", "c = 0 AND a < 1.3", "allow"), ("big", "a > 1.8", "block"), ("sum", "a + b > 1.2", "review"),
        ("b_high", "b > 1.5", "review"), ("null_b", "b IS NULL AND a > 0.5", "block")]


def _data(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.integers(0, 4, n).astype(float)})
    X.loc[rng.random(n) < 0.08, "b"] = np.nan
    y = (rng.random(n) < 0.05 + 0.4 * (X["a"] > 1)).astype(np.int64).to_numpy()
    amount, w = np.round(rng.lognormal(3, 1, n), 2), rng.random(n) + 0.5
    periods = np.array(["w1", "w2", "w3"])[np.sort(rng.integers(0, 3, n))]
    return X, y, amount, w, periods


def _row_money(book, X, y, amount, fp):
    """Per row, the money the book books: caught amount on a flagged positive, -fp on a flagged negative."""
    flagged = np.isin(book.actions(X).astype(str), ["block", "review"])
    return np.where(flagged, np.where(y == 1, amount, -fp), 0.0), flagged


def test_monitor_of_a_book_follows_first_match_against_a_brute_force():
    X, y, amount, w, periods = _data()
    book = RuleSet.from_sql(BOOK)
    mon = book.monitor(X, y, periods, fp_cost=5.0, fn_cost=amount, sample_weight=w)
    first = book.apply(X)
    acts = book.actions(X)
    money, flagged = _row_money(book, X, y, amount, 5.0)
    assert set(acts[first >= 0]) == {"allow", "block", "review"}
    for p in np.unique(periods):
        m = periods == p
        for j, name in enumerate(book.names):
            rows = m & (first == j)  # the rows whose action comes from rule j
            row = mon.loc[(p, name)]
            assert row["alerts"] == pytest.approx(w[rows].sum(), rel=1e-12)
            assert row["tp"] == pytest.approx((w * y)[rows].sum(), rel=1e-12)
            assert row["net_money"] == pytest.approx((w * money)[rows].sum(), rel=1e-12, abs=1e-9)
            others = book[[i for i in range(len(book)) if i != j]]
            without, _ = _row_money(others, X, y, amount, 5.0)
            lost = (w * money)[m].sum() - (w * without)[m].sum()
            assert row["unique_net_money"] == pytest.approx(lost, rel=1e-9, abs=1e-9)
        whole = mon.loc[(p, "(all rules)")]
        assert whole["alerts"] == pytest.approx(w[m & flagged].sum(), rel=1e-12)
        assert whole["net_money"] == pytest.approx((w * money)[m].sum(), rel=1e-12)
    # an allow rule's net money is 0: it books nothing, it exempts
    assert (mon.xs("trusted", level="rule")["net_money"] == 0).all()


def test_monitor_of_a_book_equals_evaluate_per_rule_period_by_period():
    X, y, amount, _, periods = _data(seed=1)
    book = RuleSet.from_sql(BOOK)
    mon = book.monitor(X, y, periods, fp_cost=5.0, fn_cost=amount)
    for p in np.unique(periods):
        m = periods == p
        ev = book.evaluate(X[m], y[m], fp_cost=5.0, fn_cost=amount[m], per_rule=True)
        got = mon.xs(p, level="period").iloc[:-1]
        np.testing.assert_allclose(got["alerts"], ev["first_matched"], rtol=1e-12)
        np.testing.assert_allclose(got["unique_net_money"], ev["unique_net_money"], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(got["net_money"], ev["new_money_caught"] - ev["new_alert_cost"], rtol=1e-9,
                                   atol=1e-9)


@pytest.mark.parametrize("decline", [None, 20.0, "series"])
def test_dask_evaluate_of_a_book_equals_memory(decline):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y, amount, w, _ = _data(3000, seed=2)
    book = RuleSet.from_sql(BOOK)
    dec = np.round(np.random.default_rng(3).lognormal(3, 0.5, len(y)), 2) if decline == "series" else decline

    def part(v, n=4):
        return dd.from_pandas(pd.Series(v, index=X.index) if np.ndim(v) == 1 else v, npartitions=n)

    kw = dict(fp_cost=5.0, fn_cost=amount, sample_weight=w, decline_cost=dec)
    dkw = dict(fp_cost=5.0, fn_cost=part(amount), sample_weight=part(w),
               decline_cost=part(dec) if decline == "series" else dec)
    with dask.config.set(scheduler="synchronous"):
        got = book.evaluate(part(X), part(y), **dkw)
        got_rules = book.evaluate(part(X), part(y), per_rule=True, **dkw)
    want = book.evaluate(X, y, **kw)
    assert got.keys() == want.keys()
    for k in want:
        assert _close(got[k], want[k]), k
    pd.testing.assert_frame_equal(got_rules, book.evaluate(X, y, per_rule=True, **kw), rtol=1e-12)
    # the set's money against the rows: a block on a negative costs the decline (C_FP without it)
    acts = book.actions(X).astype(str)
    price = np.full(len(y), 5.0) if dec is None else np.broadcast_to(dec, len(y))
    neg_cost = np.where(acts == "block", price, 5.0)
    flagged = np.isin(acts, ["block", "review"])
    net = (w * np.where(flagged, np.where(y == 1, amount, -neg_cost), 0.0)).sum()
    assert got["net_money"] == pytest.approx(net, rel=1e-12)
    assert got["blocked"] == pytest.approx(w[acts == "block"].sum(), rel=1e-12)
    with dask.config.set(scheduler="synchronous"), pytest.raises(TypeError, match="decline_cost needs"):
        book.evaluate(part(X), part(y), decline_cost=20.0)


def test_dask_monitor_of_a_book_equals_memory():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y, amount, w, periods = _data(3000, seed=4)
    book = RuleSet.from_sql(BOOK)

    def part(v):
        return dd.from_pandas(pd.Series(v, index=X.index) if np.ndim(v) == 1 else v, npartitions=5)

    with dask.config.set(scheduler="synchronous"):
        got = book.monitor(part(X), part(y), part(periods), fp_cost=5.0, fn_cost=part(amount), sample_weight=part(w))
    pd.testing.assert_frame_equal(got, book.monitor(X, y, periods, fp_cost=5.0, fn_cost=amount, sample_weight=w),
                                  rtol=1e-12)
