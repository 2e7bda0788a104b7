"""riff_select and RuleSet on dask collections (csboost_plugins.rules._dask) against the in-memory code.

A LocalCluster with 2 workers, ``processes=False`` (threads of this process, so the test
starts in a second; every partition is still a separate task run on a worker, and the
partition functions are the ones a process worker would run). The client must never pull
the data: ``compute`` and ``__array__`` of the dask collections are made to fail.
"""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from _fraud_rules import fraud_rules_case
from dask import distributed

from csboost_plugins.rules import riff_select
from csboost_plugins.rules._dask_select import _step_pass as _STEP

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def fraud():
    return fraud_rules_case(12000, max_depth=5)


@pytest.fixture
def no_pull(monkeypatch):
    """Fail if the client materialises a dask collection of the data."""
    def boom(*a, **k):
        raise AssertionError("the client pulled a whole dask collection")

    for cls in (dd.DataFrame, dd.Series, da.Array):
        monkeypatch.setattr(cls, "compute", boom)
        monkeypatch.setattr(cls, "__array__", boom)


def _ddf(X, y, amount, w, nparts, persist=False):
    df = X.copy()
    df["_y"], df["_amount"], df["_w"] = y, amount, w
    ddf = dd.from_pandas(df, npartitions=nparts)
    if persist:  # passes then go to the workers holding the partitions, as futures
        from csboost_plugins.rules._dask_select import _partition_futures

        ddf = ddf.persist()
        assert len(_partition_futures(ddf)) == nparts
    return ddf[list(X.columns)], ddf["_y"], ddf["_amount"], ddf["_w"]


# each case selects 3-17 rules, so 4-18 passes
@pytest.mark.parametrize("nparts,kw", [(7, {"max_fpr": 0.005}), (7, {"max_alert_rate": 0.02, "money": True}),
                                       (5, {"max_fpr": 0.01, "money": True, "weights": True}),
                                       (1, {"max_fpr": 0.01, "max_rules": 3}),
                                       (6, {"max_fpr": 0.01, "money": True, "weights": True, "persist": True})])
def test_riff_select_on_dask_equals_in_memory(client, fraud, no_pull, nparts, kw):
    X, y, amount, pool = fraud
    kw = dict(kw)
    money, weights, persist = kw.pop("money", False), kw.pop("weights", False), kw.pop("persist", False)
    if money:
        kw["fp_cost"] = 0.0  # alerts cost nothing: the money caught alone
    w = np.random.default_rng(1).integers(1, 4, y.shape[0]).astype(np.float64) if weights else np.ones(y.shape[0])
    Xd, yd, md, wd = _ddf(X, y, amount, w, nparts, persist)
    ref = riff_select(pool, X, y, fn_cost=amount if money else None, sample_weight=w if weights else None, **kw)
    got = riff_select(pool, Xd, yd, fn_cost=md if money else None, sample_weight=wd if weights else None, **kw)
    assert len(ref) >= 2
    assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
    assert got.last_rule_probability == ref.last_rule_probability  # integer sums: exact
    for k in ("fpr", "tpr", "alert_rate") + (("money_recall",) if money else ()):
        np.testing.assert_array_equal(got.selection[k], ref.selection[k])
        assert got.selection["expected_" + k] == ref.selection["expected_" + k]
    assert str(got) == str(ref)  # the same rule set, text included: human cuts, missing values, short rules
    assert got.missing_columns == ref.missing_columns
    model = riff_select(pool, Xd, yd, fn_cost=md if money else None, sample_weight=wd if weights else None,
                        cuts="model", **kw)
    assert str(model) == str(riff_select(pool, X, y, fn_cost=amount if money else None,
                                         sample_weight=w if weights else None, cuts="model", **kw))
    assert got.selection["passes"] == 1 + len(model)  # the first pass, then one per selected rule
    # columns, failure patterns, statistics; the last two again after a rule whose catch went to an earlier one
    assert got.selection["simplify_passes"] == 3 + 2 * (len(model) - len(got))
    assert got.selection["recomputed_partitions"] == 0  # each partition's uncovered-row mask stayed on its worker


def _forgetful_step(xb, yb, wb, mb, ctx, sid, part, chosen):
    """_step_pass after losing the state of partitions 0, 2, 4 and making that of partition 1 stale."""
    from csboost_plugins.rules import _dask_select as _dask

    if part % 2 == 0:
        _dask._STATE.pop((sid, part), None)
    elif part == 1 and len(chosen) > 1:  # every row uncovered, tagged one rule behind
        _dask._STATE[sid, part] = (len(chosen) - 2, np.ones(len(xb), dtype=bool))
    return _STEP(xb, yb, wb, mb, ctx, sid, part, chosen)


def test_selection_recomputes_a_lost_or_stale_partition_state(client, fraud, no_pull, monkeypatch):
    """A pass whose partition state is missing (another worker, a restarted one) or stale (a retried
    task) recomputes the uncovered rows from the selected rules: the same selection."""
    from csboost_plugins.rules import _dask_select as _dask

    X, y, amount, pool = fraud
    Xd, yd, md, _ = _ddf(X, y, amount, np.ones(y.shape[0]), 6, persist=True)
    monkeypatch.setattr(_dask, "_step_pass", _forgetful_step)
    ref = riff_select(pool, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount)
    got = riff_select(pool, Xd, yd, max_fpr=0.01, fp_cost=0.0, fn_cost=md)
    assert len(ref) >= 3
    assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
    assert str(got) == str(ref)
    assert got.last_rule_probability == ref.last_rule_probability
    steps = got.selection["passes"] - 1
    assert got.selection["recomputed_partitions"] == 3 * steps + (steps - 1)
    assert _dask._STATE == {}  # the finished selection's state is dropped


def test_selection_scatters_the_trie_again_when_it_is_lost(client, fraud, monkeypatch):
    from csboost_plugins.rules import _dask_select as _dask

    X, y, amount, pool = fraud
    Xd, yd, _, _ = _ddf(X, y, amount, np.ones(y.shape[0]), 4)
    run, scattered = _dask._Passes.run, []

    def losing(self, fn, *consts):
        if self._future is not None:
            scattered.append(self._future.key)
            self.client.cancel(self._future)  # as if every worker holding it had died
        return run(self, fn, *consts)

    monkeypatch.setattr(_dask._Passes, "run", losing)
    ref = riff_select(pool, X, y, max_alert_rate=0.02)
    got = riff_select(pool, Xd, yd, max_alert_rate=0.02)
    assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
    assert str(got) == str(ref)
    # a new copy for every pass after the first (the selection's, then the simplification's)
    assert len(set(scattered)) == got.selection["passes"] + got.selection["simplify_passes"] - 1


def test_per_rule_table_on_dask_equals_in_memory(client, fraud, no_pull):
    X, y, amount, pool = fraud
    rs = riff_select(pool, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount)
    assert len(rs) >= 3 and rs.last_rule_probability < 1
    w = np.random.default_rng(3).integers(1, 4, y.shape[0]).astype(np.float64)  # integer sums: exact
    Xd, yd, md, wd = _ddf(X, y, amount, w, 5)
    for mem, dask_kw in (({}, {}), ({"sample_weight": w, "fn_cost": amount, "fp_cost": 10.0},
                                    {"sample_weight": wd, "fn_cost": md, "fp_cost": 10.0})):
        ref = rs.evaluate(X, y, per_rule=True, **mem)
        got = rs.evaluate(Xd, yd, per_rule=True, **dask_kw)
        assert list(got.columns) == list(ref.columns) and len(got) == len(rs)
        for col in ref.columns:  # column by column, exactly
            np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy(), err_msg=col)
        pd.testing.assert_index_equal(got.index, ref.index)


def test_riff_select_on_dask_array_with_float_money(client, fraud):
    X, y, amount, pool = fraud
    money = amount + np.random.default_rng(2).uniform(0, 1, y.shape[0])  # non-integer sums: tiny rounding
    Xn = X.to_numpy(np.float64)
    Xa = da.from_array(Xn, chunks=(5000, 3))  # column chunks are joined per row block
    ref = riff_select(pool, Xn, y, max_alert_rate=0.02, fp_cost=0.0, fn_cost=money)
    got = riff_select(pool, Xa, da.from_array(y, chunks=5000), max_alert_rate=0.02,
                      fp_cost=0.0, fn_cost=da.from_array(money, chunks=5000))
    assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
    assert got.last_rule_probability == pytest.approx(ref.last_rule_probability, rel=1e-9)
    assert str(got) == str(ref)


def _close(v):
    """A number to 1e-10 relative, anything else (the report's words) exactly: pytest >= 9.2's approx
    refuses strings."""
    return v if isinstance(v, str) else pytest.approx(v, rel=1e-10)


def test_ruleset_predict_coverage_evaluate_on_dask(client, fraud):
    X, y, amount, pool = fraud
    rs = riff_select(pool, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount)
    w = np.random.default_rng(4).uniform(0.5, 2, y.shape[0])
    Xd, yd, md, wd = _ddf(X, y, amount, w, 5)
    np.testing.assert_array_equal(rs.apply(Xd).compute(), rs.apply(X))
    np.testing.assert_array_equal(rs.predict_proba(Xd).compute(), rs.predict_proba(X))
    for last in ("round", "include", "exclude"):
        np.testing.assert_array_equal(rs.predict(Xd, last_rule=last).compute(), rs.predict(X, last_rule=last))
    np.testing.assert_array_equal(rs.coverage(Xd).compute(), rs.coverage(X))
    ref = rs.evaluate(X, y, sample_weight=w, fn_cost=amount, fp_cost=10.0)
    got = rs.evaluate(Xd, yd, sample_weight=wd, fn_cost=md, fp_cost=10.0)
    assert got.keys() == ref.keys()
    for k in ref:
        assert got[k] == _close(ref[k]), k
    C = np.column_stack([np.full_like(amount, 5.0), amount, np.full_like(amount, 5.0), np.zeros_like(amount)])
    ref = rs.evaluate(X, y, cost_matrix=C)
    got = rs.evaluate(Xd, yd, cost_matrix=da.from_array(C, chunks=(Xd.map_partitions(len).compute().tolist(), 4)))
    for k in ref:
        assert got[k] == _close(ref[k]), k
    assert rs.evaluate(Xd, yd)["tpr"] == pytest.approx(rs.evaluate(X, y)["tpr"], rel=1e-12)


def test_dask_input_errors(client, fraud):
    X, y, amount, pool = fraud
    Xd, yd, md, _ = _ddf(X, y, amount, np.ones(y.shape[0]), 4)
    with pytest.raises(TypeError, match="fn_cost must be a dask collection"):
        riff_select(pool, Xd, yd, fp_cost=0.0, fn_cost=amount)
    with pytest.raises(ValueError, match="partitions"):
        riff_select(pool, Xd, dd.from_pandas(pd.Series(y), npartitions=3))
    with pytest.raises(ValueError, match="0/1 labels"):
        riff_select(pool, Xd, yd * 2 - 1)
    with pytest.raises(ValueError, match="both classes"):
        riff_select(pool, Xd, yd * 0)
    with pytest.raises(ValueError, match="X lacks 10 column"):  # matched by name, as in memory
        riff_select(pool, Xd[list(X.columns[:2])], yd)
    rs = riff_select(pool, X, y, max_fpr=0.01)
    with pytest.raises(ValueError, match="sample_weight"):
        rs.evaluate(Xd, yd, sample_weight=yd - 1.0)  # negative weights, as in memory
    with pytest.raises(ValueError, match="sample_weight"):
        riff_select(pool, Xd, yd, sample_weight=yd - 1.0)


def test_unpickled_trie_arrays_are_made_kernel_ready(fraud):
    # distributed unpickles arrays from network frames: read-only, possibly unaligned; the AOT
    # kernels take only aligned arrays, so a worker copies such arrays before the pass
    from csboost_plugins.rules._dask_select import _aligned
    from csboost_plugins.rules._evaluate import ConditionTrie

    _, _, _, pool = fraud
    trie = ConditionTrie(pool)
    buf = np.zeros(trie.term_ptr.nbytes + 1, np.uint8)
    unaligned = np.frombuffer(buf.data, dtype=np.int64, count=trie.term_ptr.shape[0], offset=1)
    unaligned[:] = trie.term_ptr  # the view is writeable, only unaligned
    ro = trie.cc.lo.copy()
    ro.flags.writeable = False
    trie.term_ptr, trie.cc.lo = unaligned, ro
    assert not trie.term_ptr.flags.aligned
    out = _aligned(trie)
    assert out.term_ptr.flags.aligned and out.cc.lo.flags.writeable
    np.testing.assert_array_equal(out.term_ptr, unaligned)


def test_a_failed_selection_leaves_no_partition_state(client, fraud):
    """The first partition's labels are invalid: the selection raises at once while the other partitions'
    tasks of that pass are still queued or running. Those used to store their uncovered-row masks after
    close() had dropped the selection's state, so the masks stayed on the workers for good."""
    import time

    from csboost_plugins.rules import _dask_select as _dask

    X, y, amount, pool = fraud
    bad = y.astype(float)
    bad[0] = 0.5
    Xd, yd, md, _ = _ddf(X, bad, amount, np.ones(y.shape[0]), 24, persist=True)
    before = set(_dask._STATE)
    with pytest.raises(ValueError, match="0/1 labels"):
        riff_select(pool, Xd, yd, max_fpr=0.01, fp_cost=0.0, fn_cost=md)
    deadline = time.monotonic() + 30
    while any(client.processing().values()):  # every task of the failed pass has finished
        assert time.monotonic() < deadline, "the failed pass's tasks never finished"
        time.sleep(0.05)
    assert set(_dask._STATE) == before


@pytest.mark.parametrize("money", [False, True])
def test_dask_rules_read_as_memory_ones_with_boosters_cuts(client, no_pull, money):
    """LightGBM and XGBoost candidates (cuts like ``card_present <= 1.0000000180025095e-35 or card_present is
    missing`` and ``terminal_risk > 0.13765848633132408``) on a frame with missing values in one column
    only: on dask the selected rules are the in-memory ones, text included (human cuts, 'is missing' only
    on that column, short rules)."""
    import lightgbm as lgb
    import xgboost as xgb

    from csdt.datasets import make_fraud_transactions

    b = make_fraud_transactions(12000, fraud_rate=0.03, random_state=3)
    X, y, amount = b.data.copy(), np.asarray(b.target).astype(np.int64), np.round(np.asarray(b.fn_cost))
    gaps = X.columns[-1]
    X.loc[np.random.default_rng(0).random(len(X)) < 0.05, gaps] = np.nan
    fit, sel = slice(0, 6000), slice(6000, None)
    from csboost_plugins.rules import extract_rules
    pool = extract_rules([lgb.LGBMClassifier(n_estimators=10, num_leaves=16, verbose=-1, n_jobs=1,
                                             random_state=0).fit(X[fit], y[fit]),
                          xgb.XGBClassifier(n_estimators=5, max_depth=4, n_jobs=1, random_state=0).fit(X[fit], y[fit])])
    Xs, ys, ms = X[sel].reset_index(drop=True), y[sel], amount[sel]
    kw = dict(max_fpr=0.01) if not money else dict(max_fpr=0.02, fp_cost=5.0)
    Xd, yd, md, _ = _ddf(Xs, ys, ms, np.ones(len(ys)), 4)
    ref = riff_select(pool, Xs, ys, fn_cost=ms if money else None, **kw)
    got = riff_select(pool, Xd, yd, fn_cost=md if money else None, **kw)
    model = str(riff_select(pool, Xd, yd, fn_cost=md if money else None, cuts="model", **kw))
    assert str(got) == str(ref) != model  # the model's cuts are the boosters' own
    assert "e-35" not in str(got) and got.missing_columns == ref.missing_columns
    for r in got.rules:
        assert all(not c.missing or r.feature_names[c.feature] == gaps for c in r.conditions)
