"""optimize_rule_book chooses among candidate books by cross-fitted money: each claim checked against a direct
computation (each candidate re-run by hand on the rows outside each fold and its money summed on the fold), on
planted cases whose answer is known, and on the one-standard-error rule with hand-made money."""

import numpy as np
import pandas as pd
import pytest

from csboost_plugins.rules import RuleSet, optimize_rule_book
from csboost_plugins.rules._book_choose import PROCEDURES, one_se_choice

ALERT = 5.0
NAMES = [f"x{j}" for j in range(6)]


def _planted(n, seed, signal, rate=0.7):
    """Rows with 6 normal columns; ``signal(X)`` marks the rows where a fraud is likely (``rate``), elsewhere
    0.3 %. Each fraud loses an amount near 200; every alert costs ALERT."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = np.where(signal(X), rng.random(n) < rate, rng.random(n) < 0.003).astype(int)
    amount = np.round(rng.uniform(100, 300, n))
    return pd.DataFrame(X, columns=NAMES), y, amount


def _money(y, amount, flagged):
    """Per-row money of flagging each row: a fraud saves its amount less the alert, a legitimate row costs it."""
    return np.where(flagged, np.where(y == 1, amount - ALERT, -ALERT), 0.0)



def _call(book, X, y, amount, **kw):
    return optimize_rule_book(book, X, y, max_fpr=0.01, fp_cost=ALERT, tp_cost=ALERT, fn_cost=amount, **kw)


def _procedure_keywords(book, name):
    """The public call that runs one candidate procedure alone (cv=None)."""
    empty = RuleSet([], feature_names=book.feature_names)
    return {"book": (book, {"candidates": None, "retune": False}),
            "book_retuned": (book, {"candidates": None, "retune": True}),
            "book_and_induced": (book, {"candidates": "riff", "retune": True}),
            "induced": (empty, {"candidates": "riff", "retune": True})}[name]


@pytest.fixture(scope="module")
def case():
    X, y, amount = _planted(4000, 0, lambda X: (X[:, 1] > 0.8) & (X[:, 2] > 0.8) & (X[:, 3] > 0), rate=0.9)
    book = RuleSet.from_sql({"x1_high": "x1 > 1.6", "x0_high": "x0 > 2.2"})
    res = _call(book, X, y, amount, cv=3, random_state=7)
    return X, y, amount, book, res


def test_cross_fitted_money_of_each_candidate_equals_a_direct_computation(case):
    X, y, amount, book, res = case
    choice = res.selection["choice"]
    assert list(choice["candidates"]) == list(PROCEDURES)
    fold, seeds = np.asarray(choice["fold"]), choice["fold_random_states"]
    assert sorted(np.unique(fold)) == [0, 1, 2] and len(seeds) == 3
    per_row = {}
    for name in PROCEDURES:
        bk, kw = _procedure_keywords(book, name)
        m = np.zeros(len(y))
        for f in range(3):
            train, test = fold != f, fold == f
            rs = _call(bk, X[train], y[train], amount[train], cv=None, random_state=seeds[f], **kw)
            flagged = rs.predict(X[test]).astype(bool) if len(rs) else np.zeros(test.sum(), bool)
            m[test] = _money(y[test], amount[test], flagged)
        per_row[name] = m
        got = choice["candidates"][name]
        assert got["fold_money"] == pytest.approx([m[fold == f].sum() for f in range(3)], abs=1e-6)
        assert got["held_out_money"] == pytest.approx(m.sum(), abs=1e-6)
    best = max(PROCEDURES, key=lambda p: per_row[p].sum())
    assert choice["best"] == best
    for name in PROCEDURES:
        d = per_row[best] - per_row[name]
        se = np.sqrt(len(d) * np.sum((d - d.mean()) ** 2) / (len(d) - 1))
        assert choice["candidates"][name]["difference_standard_error"] == pytest.approx(se, rel=1e-9, abs=1e-9)
    # the first candidate within 0.75 standard errors of the best (the documented tolerance)
    want = next(p for p in PROCEDURES if per_row[p].sum() >= per_row[best].sum()
                - 0.75 * choice["candidates"][p]["difference_standard_error"])
    assert choice["chosen"] == want


def test_the_winner_is_its_procedure_rerun_on_all_rows(case):
    X, y, amount, book, res = case
    choice = res.selection["choice"]
    bk, kw = _procedure_keywords(book, choice["chosen"])
    again = _call(bk, X, y, amount, cv=None, random_state=7, **kw)  # the final run draws as the cv=None one
    assert again.names == res.names
    assert np.array_equal(again.predict(X), res.predict(X))


def test_induced_rules_win_when_they_are_clearly_better(case):
    # the fraud is a conjunction of three columns the book's rules do not read together
    X, y, amount, book, res = case
    choice = res.selection["choice"]
    assert choice["chosen"] in ("book_and_induced", "induced"), choice["reason"]
    assert any(nm.startswith("riff_") for nm in res.names)
    c = choice["candidates"]
    assert c[choice["chosen"]]["held_out_money"] > c["book_retuned"]["held_out_money"] \
        + c["book_retuned"]["difference_standard_error"]


def test_the_book_is_kept_when_induced_rules_only_fit_noise():
    # the fraud is exactly the book's rule; anything else an induced rule finds is noise
    X, y, amount = _planted(3000, 1, lambda X: X[:, 0] > 2.4)
    book = RuleSet.from_sql({"x0_high": "x0 > 2.4", "x4_noise": "x4 > 2.5"})
    res = _call(book, X, y, amount, cv=3, random_state=0)
    choice = res.selection["choice"]
    assert choice["chosen"] in ("book", "book_retuned"), choice["reason"]
    assert set(res.names) <= set(book.names) and "x0_high" in res.names


def test_the_choice_keeps_the_simplest_within_three_quarters_of_a_standard_error():
    rng = np.random.default_rng(0)
    n = 400
    base = rng.normal(0, 10, n)
    noise = rng.normal(0, 1, n)
    d = noise - noise.mean()
    se = np.sqrt(n * np.sum(d * d) / (n - 1))  # the standard error of sum(base + noise + shift - base)
    order = list(PROCEDURES)
    for gap, want in ((0.5 * se, "book"), (0.74 * se, "book"), (0.9 * se, "induced"), (3.0 * se, "induced")):
        shift = (gap - noise.sum()) / n  # induced earns exactly ``gap`` more than the book, with that noise
        money = {"book": base, "book_retuned": base - 50.0, "book_and_induced": base - 60.0,
                 "induced": base + noise + shift}
        winner, best, ses, reason = one_se_choice(money, order)
        assert best == "induced"
        assert ses["book"] == pytest.approx(se)
        assert winner == want, reason


def test_random_state_reproducible_and_time_ordered_folds_are_blocks(case):
    X, y, amount, book, res = case
    again = _call(book, X, y, amount, cv=3, random_state=7)
    assert again.names == res.names
    a, b = again.selection["choice"], res.selection["choice"]
    assert a["chosen"] == b["chosen"] and np.array_equal(a["fold"], b["fold"])
    assert {k: v["held_out_money"] for k, v in a["candidates"].items()} == \
        {k: v["held_out_money"] for k, v in b["candidates"].items()}
    timed = _call(book, X, y, amount, cv=3, shuffle=False, random_state=7, candidates=None)
    fold = timed.selection["choice"]["fold"]
    assert np.array_equal(fold, np.repeat([0, 1, 2], [1334, 1333, 1333]))
    assert list(timed.selection["choice"]["candidates"]) == ["book", "book_retuned"]


def test_no_choice_with_cv_none_or_a_single_candidate(case):
    X, y, amount, book, _ = case
    assert _call(book, X, y, amount, cv=None, random_state=0).selection["choice"] is None
    assert _call(book, X, y, amount, candidates=None, retune=False, random_state=0).selection["choice"] is None


def test_auto_chooses_on_five_folds_up_to_choice_rows_and_not_above(case, monkeypatch):
    """cv="auto" (the default) is cv=5 on up to CHOICE_ROWS rows (the bound included) and cv=None above it, for
    plain books and books with actions; an integer cv still chooses above it."""
    from csboost_plugins.rules import _book_choose

    X, y, amount, book, _ = case
    n = len(y)
    monkeypatch.setattr(_book_choose, "CHOICE_ROWS", n)
    auto, five = _call(book, X, y, amount, random_state=3), _call(book, X, y, amount, cv=5, random_state=3)
    assert auto.selection["choice"]["cv"] == 5
    assert auto.names == five.names and np.array_equal(auto.predict(X), five.predict(X))
    assert {k: v["held_out_money"] for k, v in auto.selection["choice"]["candidates"].items()} == \
        {k: v["held_out_money"] for k, v in five.selection["choice"]["candidates"].items()}
    monkeypatch.setattr(_book_choose, "CHOICE_ROWS", n - 1)
    above, none = _call(book, X, y, amount, random_state=3), _call(book, X, y, amount, cv=None, random_state=3)
    assert above.selection["choice"] is None
    assert above.names == none.names and np.array_equal(above.predict(X), none.predict(X))
    assert _call(book, X, y, amount, cv=3, random_state=3).selection["choice"]["cv"] == 3
    actions = RuleSet.from_sql({"x1_high": ("x1 > 1.6", "block"), "x0_low": ("x0 < -2.5", "allow")})
    for bound, cv in ((n, 5), (n - 1, None)):
        monkeypatch.setattr(_book_choose, "CHOICE_ROWS", bound)
        got, ref = _call(actions, X, y, amount, random_state=4), _call(actions, X, y, amount, cv=cv, random_state=4)
        assert (got.selection["choice"] or {}).get("cv") == cv
        assert got.names == ref.names and np.array_equal(got.predict(X), ref.predict(X))


@pytest.mark.parametrize("kw, err, words", [
    ({"cv": 1}, ValueError, "cv"), ({"cv": "time"}, ValueError, "cv"), ({"cv": True}, TypeError, "cv"),
    ({"cv": 2.0}, TypeError, "cv"), ({"shuffle": "no"}, TypeError, "shuffle"),
])
def test_bad_cv_names_the_argument(case, kw, err, words):
    X, y, amount, book, _ = case
    with pytest.raises(err, match=words):
        _call(book, X, y, amount, candidates=None, **kw)


def test_too_few_positives_for_the_folds_is_a_value_error(case):
    X, y, amount, book, _ = case
    y2 = np.zeros_like(y)
    y2[:2] = 1
    with pytest.raises(ValueError, match="cv=3"):
        _call(book, X, y2, amount, candidates=None, cv=3)


def test_above_cross_fit_rows_the_folds_read_a_stratified_sample_and_every_row_is_judged(case, monkeypatch):
    """With more rows than CROSS_FIT_ROWS the folds' runs read a stratified random sample of that many rows, and
    every other row is dealt to a fold and judged by that fold's books: the sample has the size and each class's
    share, the rows outside it are dealt stratified (each class's count per fold differs by at most one), each
    candidate's held-out money equals its procedure re-run by hand on the sampled rows outside each fold and
    scored on all the fold's rows, and the winner still runs on all the rows. Below the bound every row is read
    (the existing case)."""
    from csboost_plugins.rules import _book_choose

    X, y, amount, book, below = case
    c = below.selection["choice"]
    assert c["rows_judged"] == c["rows_fitted"] == len(y) and c["fitted_index"] is None
    limit = 1500
    monkeypatch.setattr(_book_choose, "CROSS_FIT_ROWS", limit)
    monkeypatch.setattr(_book_choose, "SCORE_ROWS", 700)  # the rows outside the sample scored in blocks
    res = _call(book, X, y, amount, cv=3, random_state=7)
    choice = res.selection["choice"]
    fold, seeds, fitted = np.asarray(choice["fold"]), choice["fold_random_states"], choice["fitted_index"]
    assert choice["rows_judged"] == len(y) and choice["rows_fitted"] == len(fitted) == limit
    assert set(np.unique(fold)) == {0, 1, 2} and np.all(np.diff(fitted) > 0)
    assert y[fitted].sum() == round(limit * y.sum() / len(y))  # each class in its share of the rows
    rest = np.setdiff1d(np.arange(len(y)), fitted)
    for cls in (0, 1):
        counts = np.bincount(fold[rest][y[rest] == cls], minlength=3)
        assert counts.max() - counts.min() <= 1, counts
    for name in PROCEDURES:
        bk, kw = _procedure_keywords(book, name)
        m = 0.0
        for f in range(3):
            tr, te = fitted[fold[fitted] != f], np.flatnonzero(fold == f)
            rs = _call(bk, X.iloc[tr], y[tr], amount[tr], cv=None, random_state=seeds[f], **kw)
            flagged = rs.predict(X.iloc[te]).astype(bool) if len(rs) else np.zeros(len(te), bool)
            m += _money(y[te], amount[te], flagged).sum()
        assert choice["candidates"][name]["held_out_money"] == pytest.approx(m, abs=1e-6), name
    bk, kw = _procedure_keywords(book, choice["chosen"])
    again = _call(bk, X, y, amount, cv=None, random_state=7, **kw)  # the winner on all the rows
    assert again.names == res.names and np.array_equal(again.predict(X), res.predict(X))


def test_fitted_rows_sample_is_stratified_and_keeps_a_few_of_a_rare_class():
    from csboost_plugins.rules._book_choose import fitted_rows

    y = np.zeros(10_000, dtype=int)
    y[::500] = 1  # 20 positives
    assert fitted_rows(y, 10_000, np.random.RandomState(0)) is None  # not above the bound: every row
    rows = fitted_rows(y, 1000, np.random.RandomState(0))
    assert len(rows) == len(np.unique(rows)) == 1000 and np.all(np.diff(rows) > 0)
    assert y[rows].sum() == 2  # round(1000 * 20 / 10000)
    assert y[fitted_rows(y, 1000, np.random.RandomState(0), least=5)].sum() == 5  # one per fold at least


def test_rows_outside_the_sample_in_time_order_join_the_period_they_fall_in():
    """shuffle=False: the sample's folds are contiguous blocks of it in row order; every other row joins the fold
    of the last sampled row before it (the first fold before any), so each fold stays one period of rows, and the
    sampled rows keep their folds."""
    from csboost_plugins.rules._book_choose import deal_the_rest, fitted_rows, fold_of_rows

    rng = np.random.RandomState(3)
    y = (rng.random_sample(5000) < 0.1).astype(int)
    fitted = fitted_rows(y, 800, rng, 4)
    if fitted[0] == 0:  # a row before the first sampled one must exist for the case below
        fitted = fitted[1:]
    own = fold_of_rows(y[fitted], 4, False, rng)
    fold = deal_the_rest(y, fitted, own, 4, False, rng)
    assert np.array_equal(fold[fitted], own) and np.all(np.diff(fold) >= 0)  # contiguous periods, in order
    assert np.all(fold[:fitted[0]] == 0)
    for f in range(1, 4):  # a period starts at its first sampled row
        assert np.flatnonzero(fold == f)[0] == fitted[own == f][0]


def test_a_book_with_actions_judged_on_a_sample_books_each_row_at_its_own_position(monkeypatch):
    """Above CROSS_FIT_ROWS, a book with actions is fitted on the sampled rows and judged on every row with each
    row's own decline cost and money: the book-as-written candidate's held-out money equals the book re-run by
    hand on each fold's sampled rows and booked under its actions on all the fold's rows (money_in_order at the
    rows' positions among all rows)."""
    from csboost_plugins.rules import _book_choose
    from csboost_plugins.rules._book_order import money_in_order
    from csdt.datasets import make_fraud_transactions

    b = make_fraud_transactions(8000, fraud_rate=0.03, random_state=1)
    X, y, cm = b.data, np.asarray(b.target).astype(int), np.asarray(b.cost_matrix)
    decline = np.random.default_rng(0).uniform(1, 20, len(y))  # a different decline cost on every row
    book = RuleSet.from_sql({"big": ("amount > 300", "block"), "old": ("card_age_days > 2000", "allow"),
                             "busy": ("n_tx_24h >= 4", "review")})
    monkeypatch.setattr(_book_choose, "CROSS_FIT_ROWS", 3000)
    res = optimize_rule_book(book, X, y, max_fpr=0.05, cost_matrix=cm, decline_cost=decline, cv=3,
                             random_state=5)
    choice = res.selection["choice"]
    fold = np.asarray(choice["fold"])
    fitted = choice["fitted_index"]
    assert choice["rows_fitted"] == len(fitted) == 3000 and choice["rows_judged"] == len(y) and (fold >= 0).all()
    row_money = money_in_order(book, y, None, cm, decline)
    total = 0.0
    for f in range(3):
        te, tr = np.flatnonzero(fold == f), fitted[fold[fitted] != f]
        rs = optimize_rule_book(book, X.iloc[tr], y[tr], max_fpr=0.05, cost_matrix=cm[tr], decline_cost=decline[tr],
                                cv=None, candidates=None, retune=False, random_state=choice["fold_random_states"][f])
        total += row_money(rs, X.iloc[te], te, None).sum()
    assert choice["candidates"]["book"]["held_out_money"] == pytest.approx(total, abs=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("failing", ["book_retuned", "book_and_induced"])
def test_a_candidate_that_fails_on_all_the_rows_raises_only_when_it_wins(case, monkeypatch, threads, failing):
    """With threads the candidates with induced rules run on all the rows beside the folds: the error of one that
    does not win is dropped, the winner's error is raised as its run alone would raise it, and the other candidate
    of its task still runs; any other winner runs after the choice. Each winner's book equals its procedure run
    alone."""
    from csboost_plugins.rules import _book, _book_choose

    X, y, amount, book, res = case
    n, real = len(y), _book._optimize_fixed

    def fails(book, X, y, *args, **kw):  # fails on all the rows only (not on the folds' rows)
        cands, retune = args[3], args[4]  # (w, costs, budget, candidates, retune, ...)
        name = ("book_and_induced" if len(book) else "induced") if cands is not None else \
            ("book_retuned" if retune else "book")
        if len(y) == n and name == failing:
            raise RuntimeError(f"{failing} failed on all the rows")
        return real(book, X, y, *args, **kw)

    monkeypatch.setattr(_book, "_optimize_fixed", fails)
    monkeypatch.setattr(_book_choose, "FOLD_THREADS", threads)
    for winner in PROCEDURES:
        planted = (lambda money, order, w=winner: (w, w, {p: 0.0 for p in order}, "planted"))
        monkeypatch.setattr(_book_choose, "one_se_choice", planted)
        if winner == failing:
            with pytest.raises(RuntimeError, match="failed on all the rows"):
                _call(book, X, y, amount, cv=3, random_state=7)
            continue
        got = _call(book, X, y, amount, cv=3, random_state=7)
        b, kw = _procedure_keywords(book, winner)
        alone = _call(b, X, y, amount, cv=None, random_state=7, **kw)
        assert got.selection["choice"]["chosen"] == winner
        assert got.names == alone.names and [str(r) for r in got.rules] == [str(r) for r in alone.rules]


def test_the_kernels_of_a_task_beside_others_take_only_its_share_of_the_cores(case, monkeypatch):
    """With one task per core (the folds, and the run on all the rows beside them) each task's kernels get its share
    of the cores, not every core again; the main thread's kernels keep all of them, and the books are those of one
    thread."""
    import os
    import threading

    from csboost_plugins.rules import _book, _book_choose, _evaluate

    X, y, amount, book, res = case
    cores = os.cpu_count() or 1
    numba_threads = _evaluate._n_threads()
    seen, real = [], _book._optimize_fixed

    def spy(*args, **kw):
        cap = _evaluate.thread_cap()
        seen.append((threading.current_thread() is threading.main_thread(), _evaluate._n_threads(),
                     getattr(cap, "running", None)))
        return real(*args, **kw)

    monkeypatch.setattr(_book, "_optimize_fixed", spy)
    monkeypatch.setattr(_book_choose, "FOLD_THREADS", 2)
    got = _call(book, X, y, amount, cv=3, random_state=7)
    in_pool = [(k, running) for main, k, running in seen if not main]
    assert in_pool and all(1 <= running <= 2 for _, running in in_pool)
    assert all(k == min(max(1, cores // running), numba_threads) for k, running in in_pool)
    assert _evaluate._n_threads() == numba_threads  # the cap ends with the task
    assert got.names == res.names and got.selection["choice"]["chosen"] == res.selection["choice"]["chosen"]


def test_threads_at_most_caps_this_thread_only_and_is_restored():
    from concurrent.futures import ThreadPoolExecutor

    from csboost_plugins.rules._evaluate import _n_threads, threads_at_most

    full = _n_threads()
    with threads_at_most(1):
        assert _n_threads() == 1
        with ThreadPoolExecutor(1) as ex:  # another thread keeps its own count
            assert ex.submit(_n_threads).result() == full
        with pytest.raises(RuntimeError), threads_at_most(5):
            assert _n_threads() == min(5, full)
            raise RuntimeError
        assert _n_threads() == 1
    assert _n_threads() == full


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("winner", ["book_and_induced", "induced"])
def test_only_the_winner_runs_on_all_the_rows_with_one_induction(case, monkeypatch, threads, winner):
    """The run on all the rows beside the folds is the book with induced rules alone; when the induced rules alone
    win, their run after the choice reads the rules that run induced (one induction on all the rows, not two), and
    each winner's book is its procedure's run alone."""
    from csboost_plugins.rules import _book, _book_choose

    X, y, amount, book, _ = case
    n, fixed, induced = len(y), _book._optimize_fixed, _book._induced
    runs, inductions = [], []

    def run(book, X, y, *args, **kw):
        if len(y) == n:
            runs.append(("book_and_induced" if len(book) else "induced") if args[3] is not None else "book")
        return fixed(book, X, y, *args, **kw)

    def induce(candidates, X, y, *args, **kw):
        inductions.append(len(y) == n)
        return induced(candidates, X, y, *args, **kw)

    monkeypatch.setattr(_book, "_optimize_fixed", run)
    monkeypatch.setattr(_book, "_induced", induce)
    monkeypatch.setattr(_book_choose, "FOLD_THREADS", threads)
    monkeypatch.setattr(_book_choose, "one_se_choice",
                        lambda money, order: (winner, winner, dict.fromkeys(order, 0.0), "planted"))
    got = _call(book, X, y, amount, cv=3, random_state=7)
    assert runs == (["book_and_induced", winner] if threads > 1 and winner == "induced" else [winner])
    assert sum(inductions) == 1
    b, kw = _procedure_keywords(book, winner)
    alone = _call(b, X, y, amount, cv=None, random_state=7, **kw)
    assert got.names == alone.names and [str(r) for r in got.rules] == [str(r) for r in alone.rules]


def test_a_tasks_share_of_the_cores_grows_when_the_other_tasks_end():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from csboost_plugins.rules._book_choose import CoreShare
    from csboost_plugins.rules._evaluate import _n_threads, threads_under

    share, both, recorded, other_done = CoreShare(cores=4), threading.Barrier(2), threading.Event(), threading.Event()
    seen = []

    def long():
        both.wait(timeout=30)
        seen.append(("beside another", share.running, share()))
        recorded.set()
        other_done.wait(timeout=30)
        seen.append(("alone", share.running, share()))
        return _n_threads()

    def short():
        both.wait(timeout=30)
        recorded.wait(timeout=30)

    with ThreadPoolExecutor(2) as ex:
        a = ex.submit(share.task(long))
        ex.submit(share.task(short)).result()
        other_done.set()
        alone_threads = a.result()
    assert seen == [("beside another", 2, 2), ("alone", 1, 4)]
    assert alone_threads == threads_under(4) and share.running == 0
