"""The one reduction (csboost_plugins._reduce): per-row additive columns summed by group, in memory and over
dask partitions, checked against a plain Python group-by with dicts (empty groups, uneven, single and empty
partitions), and the reports that go through it (money_by_period, RuleSet.evaluate / monitor) on dask
partitions of every shape against the same rows in memory."""

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from csboost_plugins._reduce import Block, dask_partitions, group_sums, reduce_blocks
from csboost_plugins.metrics import money_by_period
from csboost_plugins.rules import RuleSet


def _loop(codes, terms):
    """The reference: a dict per term, rows visited in order."""
    out = [defaultdict(float) for _ in terms]
    for i, g in enumerate(codes):
        for t, term in enumerate(terms):
            out[t][g] += term[0][i] * term[1][i] if isinstance(term, tuple) else term[i]
    return out


def _data(n, seed):
    rng = np.random.default_rng(seed)
    w = rng.random(n) * 3 + 0.1  # NaN-free weights, not integers: the order of the sums shows
    money = rng.lognormal(3, 1, n)
    hit = (rng.random(n) < 0.3).astype(np.float64)
    labels = np.array(["w3", "w1", "w7", "w2", "w5"])[rng.integers(0, 5, n)]
    return w, money, hit, labels


def test_group_sums_equal_a_python_loop_with_empty_groups():
    w, money, hit, _ = _data(2000, 0)
    codes = np.random.default_rng(1).choice([0, 2, 3, 6], 2000)  # groups 1, 4, 5 have no rows
    terms = [w, (w, hit), (w * hit, money), hit]
    got = group_sums(codes, 7, terms)
    want = _loop(codes, terms)
    assert got.shape == (7, 4)
    for t in range(4):
        assert got[:, t].tolist() == [want[t].get(g, 0.0) for g in range(7)]  # same order of additions: exact
    assert not got[[1, 4, 5]].any()


def test_group_sums_of_one_group_and_bad_codes():
    w, money, _, _ = _data(500, 2)
    got = group_sums(None, 1, [w, (w, money)])
    assert got.shape == (1, 2)
    assert got[0, 0] == pytest.approx(sum(w.tolist()), rel=1e-13)
    assert got[0, 1] == pytest.approx(sum((w * money).tolist()), rel=1e-13)
    with pytest.raises(ValueError, match="outside"):
        group_sums(np.array([0, 3]), 3, [np.ones(2)])
    with pytest.raises(ValueError, match="rows"):
        group_sums(np.array([0, 1]), 3, [np.ones(3)])


def _part(b):
    """Per period: weight, weighted hits, weighted money of the hits."""
    hit, money = b.extra["hit"], b.extra["money"]
    return b.labels, group_sums(b.codes, len(b.labels), [b.w, (b.w, hit), (b.w * hit, money)])


def _expected(w, money, hit, labels):
    ref = _loop(labels, [w, (w, hit), (w * hit, money)])
    keys = sorted(ref[0])
    return keys, np.array([[ref[t][k] for t in range(3)] for k in keys])


def test_in_memory_blocks_add_over_the_union_of_their_labels():
    from csboost_plugins._reduce import period_codes

    w, money, hit, labels = _data(3000, 3)
    blocks = []
    for a, b in ((0, 1000), (1000, 1001), (1001, 1001), (1001, 3000)):  # one row, and no rows
        codes, lab = period_codes(labels[a:b], b - a)
        blocks.append(Block(b - a, w=w[a:b], codes=codes, labels=lab, extra={"hit": hit[a:b], "money": money[a:b]}))
    got_labels, got = reduce_blocks(_part, blocks, by_label=True)
    keys, want = _expected(w, money, hit, labels)
    assert list(got_labels) == keys
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("chunks", [(3000,), (1, 2000, 999), (0, 1500, 0, 1500, 0), (700, 700, 700, 700, 200)],
                         ids=["one partition", "uneven", "empty partitions", "five"])
def test_dask_partitions_equal_the_python_loop(chunks):
    da = pytest.importorskip("dask.array")
    import dask

    w, money, hit, labels = _data(3000, 4)
    codes = np.searchsorted(np.unique(labels), labels)  # integer labels for a dask array
    d = {k: da.from_array(v, chunks=(chunks,)) for k, v in (("w", w), ("money", money), ("hit", hit), ("p", codes))}
    with dask.config.set(scheduler="synchronous"):
        blocks = dask_partitions([("periods", "periods", d["p"]), ("w", "sample_weight", d["w"]),
                                  ("hit", "hit", d["hit"]), ("money", "money", d["money"])])
        assert len(blocks) == len(chunks)
        got_labels, got = reduce_blocks(_part, blocks, by_label=True)
    keys, want = _expected(w, money, hit, codes)
    assert list(got_labels) == keys
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if len(chunks) == 1:  # one partition: the in-memory arithmetic, bit for bit
        np.testing.assert_array_equal(got, want)


def _close(a, b):
    """Equal to 12 digits for numbers; equal for the text entries (older pytest's approx refuses text)."""
    return a == (pytest.approx(b, rel=1e-12) if isinstance(b, (float, int, np.number)) else b)


@pytest.mark.parametrize("chunks", [(3000,), (1, 2000, 999), (0, 1500, 0, 1500, 0)],
                         ids=["one partition", "uneven", "empty partitions"])
def test_reports_on_dask_partitions_equal_memory(chunks):
    da = pytest.importorskip("dask.array")
    import dask

    rng = np.random.default_rng(5)
    n = 3000
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < 0.1 + 0.3 * (X[:, 0] > 1)).astype(np.int64)
    amount, w = np.round(rng.lognormal(3, 1, n), 2), rng.random(n) + 0.5
    periods = rng.integers(0, 9, n)
    book = RuleSet.from_sql({"r1": "a > 1", "r2": "a + b > 1.5", "r3": "b < -2"})
    rs = RuleSet(book.rules, feature_names=["a", "b"], names=book.names)  # a numpy X read by these names
    d = rs.predict(X)

    def arr(v):
        return da.from_array(v, chunks=(chunks,) + ((v.shape[1],) if v.ndim == 2 else ()))

    with dask.config.set(scheduler="synchronous"):
        tab = money_by_period(arr(y), arr(d), arr(periods), fp_cost=5.0, fn_cost=arr(amount), sample_weight=arr(w))
        ev = rs.evaluate(arr(X), arr(y), fp_cost=5.0, fn_cost=arr(amount), sample_weight=arr(w))
        per_rule = rs.evaluate(arr(X), arr(y), fp_cost=5.0, fn_cost=arr(amount), per_rule=True)
        mon = rs.monitor(arr(X), arr(y), arr(periods), fp_cost=5.0, fn_cost=arr(amount), sample_weight=arr(w))
    pd.testing.assert_frame_equal(tab, money_by_period(y, d, periods, fp_cost=5.0, fn_cost=amount, sample_weight=w),
                                  rtol=1e-12)
    want = rs.evaluate(X, y, fp_cost=5.0, fn_cost=amount, sample_weight=w)
    assert ev.keys() == want.keys() and all(_close(ev[k], want[k]) for k in want)
    pd.testing.assert_frame_equal(per_rule, rs.evaluate(X, y, fp_cost=5.0, fn_cost=amount, per_rule=True), rtol=1e-12)
    pd.testing.assert_frame_equal(mon, rs.monitor(X, y, periods, fp_cost=5.0, fn_cost=amount, sample_weight=w),
                                  rtol=1e-12)
    # money_by_period against the Python loop, per period
    ref = _loop(periods, [w, (w, d.astype(float)), (w * d * y, amount)])
    assert tab.index.tolist() == sorted(ref[0])
    np.testing.assert_allclose(tab["rows"], [ref[0][p] for p in tab.index], rtol=1e-12)
    np.testing.assert_allclose(tab["alerts"], [ref[1][p] for p in tab.index], rtol=1e-12)
    np.testing.assert_allclose(tab["money_caught"], [ref[2][p] for p in tab.index], rtol=1e-12)


@pytest.mark.parametrize("kind", ["sql", "induced"])
@pytest.mark.parametrize("weighted", [True, False])
def test_monitor_cells_equal_a_loop_over_the_rows_of_the_coverage_matrix(kind, weighted, monkeypatch):
    """RuleSet.monitor's per (period, rule) sums, from the rules' bit masks, against a row-by-row loop over the
    coverage matrix (rows in order, so the sums agree to the last bit); a SQL book with NULLs, and induced rules
    (their coverage packed into masks block by block: blocks of 128 rows here), with and without weights."""
    from csboost_plugins.rules import Interval, Rule, _monitor

    monkeypatch.setattr(_monitor, "_BLOCK", 128)
    rng = np.random.default_rng(6)
    n = 4000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    X.loc[rng.random(n) < 0.1, "b"] = np.nan
    y = (rng.random(n) < 0.1 + 0.3 * (X["a"] > 1)).astype(np.int64).to_numpy()
    amount = rng.lognormal(3, 1, n)
    w = rng.random(n) + 0.5 if weighted else np.ones(n)
    periods = np.array(["d3", "d1", "d2", "d9"])[rng.integers(0, 4, n)]
    if kind == "sql":
        rs = RuleSet.from_sql({"r1": "a > 1", "r2": "a + b > 1.5", "r3": "b IS NULL AND a > 0",
                               "r4": "NOT (b < 1.8)"})
    else:
        rs = RuleSet([Rule([Interval(0, lower=1.0)]), Rule([Interval(0, lower=0.2), Interval(1, lower=0.5)]),
                      Rule([Interval(1, upper=-1.0, missing=True)])], feature_names=["a", "b"])
    mon = rs.monitor(X, y, periods, fp_cost=5.0, fn_cost=amount, sample_weight=w if weighted else None)
    cover = rs.coverage(X)
    net = np.where(y == 1, amount, -5.0)
    k = cover.shape[1]
    cells = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])  # (period, rule) -> alerts, tp, net, unique net
    for i in range(n):
        hits = np.flatnonzero(cover[i])
        for j in list(hits) + ([k] if len(hits) else []):
            c = cells[(periods[i], j)]
            c[0] += w[i]
            c[1] += w[i] * y[i]
            c[2] += w[i] * net[i]
            if j == k or len(hits) == 1:
                c[3] += w[i] * net[i]
    names = list(rs.names) + ["(all rules)"]
    for p in sorted(set(periods)):
        for j in range(k + 1):
            row = mon.loc[(p, names[j])]
            assert [row["alerts"], row["tp"], row["net_money"], row["unique_net_money"]] == cells[(p, j)]



@pytest.mark.parametrize("values", [np.array([-128, 127, 0, -128], np.int8), np.array([5, 3, 3, 9], np.uint8),
                                    np.array([2**62, -2**62, 7]), np.array([2**63 + 5, 1], np.uint64),
                                    np.arange(10, dtype=np.int32) * 1000, np.array([], np.int64)],
                         ids=["int8 extremes", "uint8", "wide int64", "uint64", "sparse int32", "empty"])
def test_period_codes_of_integers_equal_pandas_factorize(values):
    from csboost_plugins._reduce import period_codes

    codes, labels = period_codes(values, len(values))
    want_codes, want_labels = pd.factorize(values, sort=True)
    assert codes.tolist() == want_codes.tolist() and labels.tolist() == np.asarray(want_labels).tolist()
    assert labels.dtype == np.asarray(want_labels).dtype
