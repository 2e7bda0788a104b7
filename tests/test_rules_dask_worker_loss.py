"""riff_select and RuleSet.predict / coverage on dask data while a real worker process dies (SIGKILL).

A LocalCluster of 2 worker processes under nannies. A worker is killed with SIGKILL (no graceful
close: its persisted partitions, its uncovered-row masks and its copy of the condition trie are
gone) at a fixed point of the computation: before a pass or as the client scatters the condition trie (from
the client), or inside a partition's task of the first or a later pass or inside close()'s clean-up (the
worker kills itself, once: a marker file). The nanny starts a new worker
process, the scheduler recomputes the lost partitions from the graph (the frame is built from
pandas, so the graph holds the rows) and the selection must equal the in-memory one on the same
rows. Every call runs under a deadline, so a recovery bug fails the test instead of hanging it.
"""

import functools
import os
import signal
import threading
import time

import dask.dataframe as dd
import numpy as np
import pytest
from _fraud_rules import fraud_rules_case
from dask import distributed

from csboost_plugins.rules import _dask_evaluate, _dask_select, riff_select

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")

DEADLINE = 60.0  # seconds for one selection / prediction; the healthy run takes a few


def _within(fn, seconds=DEADLINE):
    """fn() run in a thread; the test fails if it has not returned after ``seconds`` (a hang)."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except Exception as e:  # noqa: BLE001 (re-raised in the test's thread)
            out["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail(f"no result {seconds:.0f} s after a worker was killed: the computation hangs")
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def client():
    """A fresh cluster per test: a failed test's frames (kept alive by its traceback, same keys as the
    next test's) or its killed worker cannot decide where the next test's partitions go."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2, timeout=DEADLINE)
        yield c


@pytest.fixture(scope="module")
def fraud():
    # depth 3: rules wide enough that every partition has rows covered by the first rule and a later one
    return fraud_rules_case(8000, max_depth=3)


def _persisted(X, y, amount, nparts=4):
    """X, y, fn_cost as column selections of one persisted frame (built from pandas: recomputable)."""
    df = X.copy()
    df["_y"], df["_amount"] = y, amount
    ddf = dd.from_pandas(df, npartitions=nparts).persist()
    distributed.wait(ddf)
    futs = _dask_select._partition_futures(ddf)
    assert futs is not None and len(futs) == nparts
    return ddf, futs


def _victim(client, futs):
    """(address, pid) of the worker holding partition 0, after checking both workers hold partitions."""
    who = client.who_has(futs)
    holders = {a for f in futs for a in who[f.key]}
    pids = client.run(os.getpid)
    assert len(holders) == 2 and holders <= set(pids), "the partitions should be spread over both workers"
    addr = next(iter(who[futs[0].key]))
    return addr, pids[addr]


def _kill_once(marker):
    """Kill the calling process with SIGKILL unless ``marker`` exists (created first: once only)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


# The partition functions as imported, before a test patches them: the patched ones below are pickled
# by reference, so a worker process imports this module and calls its own unpatched originals.
_MODULE = {"_first_pass": _dask_select, "_step_pass": _dask_select, "_forget": _dask_select,
           "_predict_part": _dask_evaluate, "_coverage_part": _dask_evaluate}
_ORIGINAL = {name: getattr(module, name) for name, module in _MODULE.items()}


def _killing(name, pid, marker, *args):
    """Partition function ``name`` that kills worker process ``pid`` in the first task it runs there, once
    (for _step_pass: in pass 3, the second rule's step; the partitions are pinned to their workers loosely,
    so the task of a given partition might run elsewhere)."""
    if os.getpid() == pid and (name != "_step_pass" or len(args[-1]) == 2):
        _kill_once(marker)
    return _ORIGINAL[name](*args)


def _masks_held(sid):
    """How many partitions' uncovered-row masks of selection ``sid`` this worker holds."""
    return sum(key[0] == sid for key in _dask_select._STATE)


def _wait_released(client, prefixes):
    """Wait until the scheduler has forgotten every task whose key starts with one of ``prefixes``: a finished
    pass's results are released asynchronously, and a worker killed before that makes the scheduler
    re-run them (rebuilding a lost mask outside the next pass's count)."""
    def held(dask_scheduler):
        return sum(str(key).startswith(prefixes) for key in dask_scheduler.tasks)

    deadline = time.monotonic() + DEADLINE
    while client.run_on_scheduler(held):
        assert time.monotonic() < deadline, "the scheduler never released the finished pass"
        time.sleep(0.01)


def _wait_gone(client, addr):
    deadline = time.monotonic() + DEADLINE
    while addr in client.scheduler_info()["workers"]:
        assert time.monotonic() < deadline, "the scheduler never noticed the killed worker"
        time.sleep(0.05)


def _assert_same_selection(got, ref):
    assert list(got.selection["candidate_index"]) == list(ref.selection["candidate_index"])
    assert [str(r) for r in got] == [str(r) for r in ref]
    assert got.last_rule_probability == ref.last_rule_probability  # integer sums: exact
    for k in ("fpr", "tpr", "alert_rate", "money_recall"):
        np.testing.assert_array_equal(got.selection[k], ref.selection[k], err_msg=k)


@pytest.mark.parametrize("when", ["before_pass_3", "during_pass_3"])
def test_riff_select_survives_a_killed_worker(client, fraud, monkeypatch, tmp_path, when):
    X, y, amount, pool = fraud
    # dask: the same rules, text included
    ref = riff_select(pool, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount, max_rules=6)
    assert len(ref) == 6  # 7 passes: 4 after the kill
    ddf, futs = _persisted(X, y, amount)
    # pass 3 needs each partition's mask after rule 1: in every partition rule 1 covers rows that a later
    # rule covers too, so a partition that lost its mask and did not recompute it counts them twice
    cov, ends = ref.coverage(X), np.cumsum(ddf.map_partitions(len).compute().tolist())
    assert all((c[:, 0] & c[:, 1:].any(axis=1)).any() for c in np.split(cov, ends[:-1]))
    addr, pid = _victim(client, futs)
    marker = str(tmp_path / "killed")
    lost = []  # the masks the victim holds after pass 2: lost with it
    run = _dask_select._Passes.run

    def counting_run(self, fn, *consts):
        if self.count == 2:
            _wait_released(client, ("_first_pass", "_step_pass"))
            lost.append(client.run(_masks_held, self.sid, workers=[addr])[addr])
            if when == "before_pass_3":  # from the client, between passes 2 and 3
                os.kill(pid, signal.SIGKILL)
                open(marker, "w").close()
                _wait_gone(client, addr)  # pass 3 sees the partitions and masks of that worker lost
        return run(self, fn, *consts)

    monkeypatch.setattr(_dask_select._Passes, "run", counting_run)
    if when == "during_pass_3":  # the worker kills itself in a partition's task of pass 3
        monkeypatch.setattr(_dask_select, "_step_pass", functools.partial(_killing, "_step_pass", pid, marker))

    got = _within(lambda: riff_select(pool, ddf[list(X.columns)], ddf["_y"], max_fpr=0.01, fp_cost=0.0,
                                      fn_cost=ddf["_amount"],
                                     max_rules=6))
    assert os.path.exists(marker), "no worker was killed"
    assert pid not in client.run(os.getpid).values()
    _assert_same_selection(got, ref)
    assert got.selection["passes"] == 1 + len(got)  # the killed pass was not counted twice
    # the partitions whose masks the killed worker held found none at pass 3 (at least) and recomputed them
    assert lost[0] >= 1
    assert got.selection["recomputed_partitions"] >= lost[0]
    assert set(client.run(lambda: len(_dask_select._STATE)).values()) == {0}  # the selection's state dropped


@pytest.mark.parametrize("method,part_fn", [("predict", "_predict_part"), ("coverage", "_coverage_part")])
def test_ruleset_predict_survives_a_killed_worker(client, fraud, monkeypatch, tmp_path, method, part_fn):
    X, y, amount, pool = fraud
    rs = riff_select(pool, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount)
    ddf, futs = _persisted(X, y, amount)
    _, pid = _victim(client, futs)
    marker = str(tmp_path / "killed")
    monkeypatch.setattr(_MODULE[part_fn], part_fn, functools.partial(_killing, part_fn, pid, marker))
    got = _within(lambda: getattr(rs, method)(ddf[list(X.columns)]).compute())
    assert os.path.exists(marker), "no worker was killed"
    np.testing.assert_array_equal(got, getattr(rs, method)(X))


@pytest.mark.parametrize("when", ["during_pass_1", "during_scatter", "during_close"])
def test_riff_select_survives_a_worker_killed_in_pass_1_scatter_or_close(client, fraud, monkeypatch, tmp_path, when):
    """The victim worker kills itself in a partition's task of the first pass (before any mask exists) or in
    close() while it drops the selection's state, or is killed as the client scatters the condition trie.
    The selection equals the in-memory one, no call hangs and no worker keeps the selection's state."""
    X, y, amount, pool = fraud
    # dask: the same rules, text included
    ref = riff_select(pool, X, y, max_fpr=0.01, fp_cost=0.0, fn_cost=amount, max_rules=3)
    ddf, futs = _persisted(X, y, amount)
    addr, pid = _victim(client, futs)
    marker = str(tmp_path / "killed")
    if when == "during_pass_1":
        monkeypatch.setattr(_dask_select, "_first_pass", functools.partial(_killing, "_first_pass", pid, marker))
    elif when == "during_scatter":  # SIGKILL as the client starts scattering the trie to every worker
        scatter = distributed.Client.scatter

        def killing_scatter(self, *args, **kwargs):
            if not os.path.exists(marker):
                open(marker, "w").close()
                os.kill(pid, signal.SIGKILL)
            return scatter(self, *args, **kwargs)

        monkeypatch.setattr(distributed.Client, "scatter", killing_scatter)
    else:
        monkeypatch.setattr(_dask_select, "_forget", functools.partial(_killing, "_forget", pid, marker))

    got = _within(lambda: riff_select(pool, ddf[list(X.columns)], ddf["_y"], max_fpr=0.01, fp_cost=0.0,
                                      fn_cost=ddf["_amount"],
                                     max_rules=3))
    assert os.path.exists(marker), "no worker was killed"
    _assert_same_selection(got, ref)
    assert got.selection["passes"] == 1 + len(got)
    _wait_gone(client, addr)
    assert pid not in client.run(os.getpid).values()
    assert set(client.run(lambda: len(_dask_select._STATE)).values()) == {0}  # the selection's state dropped
