"""The choice among candidate books of :func:`optimize_rule_book`, by cross-fitted money.

A search over the book's rules and the induced ones together can pick, on the rows it reads, a set that
does worse on new rows than the book's rules alone: the more rules a search may take, the more its choice
fits noise. So the optimiser runs each candidate procedure (:data:`PROCEDURES`) on K-1 folds of the rows
and scores what it returns on the fold left out, every fold judging in turn; each row is then judged by
books that never read it. Among the procedures whose held-out money is within ``STANDARD_ERRORS``
standard errors of the best (the standard error of the paired per-row difference with the best), the
first of :data:`PROCEDURES` is kept (the analysts' rules before induced ones, fewer changes first), and
re-run on all the rows. With more than one thread the run on all the rows of the book with induced rules (the
costliest) starts beside the folds' tasks and is kept if it wins (the induced rules alone, if they win, reuse its
rules): the cores stay busy to the end, for that run's work when a simpler procedure wins. Each task's kernels
take its share of the cores among the tasks running (one thread each while a task runs per core, every core once
a task runs alone), not every core again.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._evaluate import threads_at_most
from ._greedy import NET, POS, row_weights

#: the candidate procedures in order of preference (simplest first): the book's rules as written, the book
#: re-tuned alone, the book with induced rules, the induced rules alone
PROCEDURES = ("book", "book_retuned", "book_and_induced", "induced")
#: a simpler procedure is kept when its held-out money is within this many standard errors of the best (set on
#: data sets the benchmarks do not judge, then confirmed on fresh ones: one full standard error gave up money
#: the book with induced rules earned on new rows)
STANDARD_ERRORS = 0.75
#: the cross-fit's tasks, and the induced candidates' run on all the rows beside them, run on this many threads
#: (one per core; 1: in turn, and only the winner is run on all the rows)
FOLD_THREADS = os.cpu_count() or 1
#: rows (a count) the folds' runs read at most: with more rows given, they are fitted on a stratified random
#: sample of this many, and every other row is dealt to a fold and judged by that fold's books (the winner is
#: still re-run on all the rows)
CROSS_FIT_ROWS = 300_000
#: rows (a count) of X copied at once to judge the rows no fold's run reads
SCORE_ROWS = 500_000
#: ``cv="auto"``: this many folds on at most ``CHOICE_ROWS`` rows (a count), no choice above: there the folds
#: fit on a sample a fraction of the final run's rows, so they undervalue the induced rules the final run
#: would fit, and the choice earned no more than the procedure alone on new rows while taking a few times as long
AUTO_FOLDS = 5
CHOICE_ROWS = CROSS_FIT_ROWS


def check_cv(cv, shuffle, n_rows):
    """The number of folds for ``n_rows`` rows (None: no choice, the procedure the keywords name); TypeError /
    ValueError naming ``cv`` or ``shuffle`` otherwise."""
    if isinstance(cv, str):
        if cv != "auto":
            raise ValueError(f"cv must be 'auto', an integer >= 2 or None, got {cv!r}")
        cv = AUTO_FOLDS if n_rows <= CHOICE_ROWS else None
    if cv is not None and (isinstance(cv, (bool, np.bool_)) or not isinstance(cv, (int, np.integer))):
        raise TypeError(f"cv must be 'auto', an integer >= 2 or None, got {type(cv).__name__}")
    if cv is not None and cv < 2:
        raise ValueError(f"cv must be 'auto', an integer >= 2 or None, got {cv}")
    if not isinstance(shuffle, (bool, np.bool_)):
        raise TypeError(f"shuffle must be True or False, got {type(shuffle).__name__}")
    return None if cv is None else int(cv)


def procedures(book, candidates, retune, *, alone=True):
    """{name: (book, candidates, retune)}: the candidate procedures the caller's keywords allow (re-tuned ones
    only with ``retune``, induced ones only with ``candidates``; the induced rules alone only with ``alone``),
    in the order of :data:`PROCEDURES`."""
    from ._ruleset import RuleSet

    out = {"book": (book, None, False)}
    if retune:
        out["book_retuned"] = (book, None, True)
    if candidates is not None:
        out["book_and_induced"] = (book, candidates, retune)
        if alone:  # the same procedure with an empty book: it splits the rows as the one above, so both induce
            out["induced"] = (RuleSet([], feature_names=book.feature_names), candidates, retune)  # the same rules
    return out


def fold_of_rows(y, k, shuffle, rng):
    """(n,) int: each row's fold. ``shuffle``: stratified by label, each class dealt round-robin in random
    order (fold sizes differ by at most one per class); otherwise K contiguous blocks in row order (rows in
    time order: each block is a period)."""
    n = len(y)
    if not shuffle:
        return np.repeat(np.arange(k), [len(b) for b in np.array_split(np.arange(n), k)])
    fold = np.empty(n, dtype=np.int64)
    start = 0
    for cls in (0, 1):
        idx = rng.permutation(np.flatnonzero(y == cls))
        fold[idx] = (np.arange(len(idx)) + start) % k
        start += len(idx)
    return fold


def rows_of(X, idx):
    """Rows ``idx`` (positions) of a DataFrame or an array."""
    from sklearn.utils import _safe_indexing

    return _safe_indexing(X, idx)


def _paired_se(a, b):
    """Standard error of ``sum(a - b)`` over rows taken as independent draws."""
    d = a - b
    return float(np.sqrt(len(d) * d.var(ddof=1))) if len(d) > 1 else 0.0


def flagged_money(value):
    """``row_money`` of :func:`cross_fit` for books of alerts: ``value`` (n,) of a flagged row (the rows given by
    position), 0 elsewhere."""
    return lambda rs, Xh, idx, flags: value[idx] * flags


def task_groups(procs):
    """The procedures as tasks, the costliest first: those reading induced rules run together in one task (the
    first induces, the next reuses its rules), each other procedure alone."""
    out = {}
    for name, (_, cands, _) in procs.items():
        out.setdefault("induced" if cands is not None else name, []).append(name)
    return list(out.values())[::-1]


def run_group(fit, procs, names, *args, seed, shared=None, **kw):
    """{name: the book ``fit`` returns, or the exception it raised} for the procedures ``names`` run in turn on
    the same rows, each from ``seed`` (a RandomState's state or an int), those reading induced rules sharing
    them (through ``shared``, a dict: a later call with the same rows and seed reuses the rules an earlier one
    induced)."""
    out = {}
    shared = {} if shared is None else shared
    for name in names:
        book, cands, retune = procs[name]
        rng = np.random.RandomState()
        if isinstance(seed, tuple):
            rng.set_state(seed)
        else:
            rng.seed(seed)
        try:
            out[name] = fit(book, *args[:5], cands, retune, rng, shared=shared if cands is not None else None, **kw)
        except Exception as exc:  # noqa: BLE001 - raised where the caller reads it
            out[name] = exc
    return out


class CoreShare:
    """A pool's cores shared among the tasks running: called, the threads a task's kernels may use now (the cores
    over the tasks running, at least one; all of them once a task runs alone). ``task(fn)``: ``fn`` counted as
    running while it runs, its kernels capped by this share (:func:`._evaluate.threads_at_most`)."""

    def __init__(self, cores=None):
        self.cores = max(1, cores or os.cpu_count() or 1)
        self.running = 0
        self._lock = threading.Lock()

    def __call__(self):
        return max(1, self.cores // max(1, self.running))

    def task(self, fn):
        def run(*args, **kw):
            with self._lock:
                self.running += 1
            try:
                with threads_at_most(self):
                    return fn(*args, **kw)
            finally:
                with self._lock:
                    self.running -= 1
        return run


def cross_fit(fit, procs, X, y, w, costs, budget, fold, seeds, row_money, fits=None, pool=None, before=None,
              share=None):
    """Each procedure run by ``fit`` (``_book._optimize_fixed``) on the rows outside each fold (seeded by
    ``seeds[f]``) and applied to the fold: ({name: (n,) bool, the rows its books flag where held out},
    {name: (n,) float, each row's money under its held-out book}, {name: [rules per fold]}).
    ``row_money(rs, X_rows, positions, flags)`` gives the money of rows (positions) of X under book ``rs``.
    ``fits`` ((n,) bool; None: every row) marks the rows the runs may read: a fold's books are fitted on the
    marked rows outside it and judged on all of its rows, those outside ``fits`` in blocks of ``SCORE_ROWS`` (a
    big file's fold is not copied whole). Each (fold, :func:`task_groups` group) is a task, run in
    ``pool`` (a ThreadPoolExecutor; None: in turn here), the costliest groups first; ``before(group)`` (a
    callable) may submit the caller's tasks of a group ahead of its folds'; the kernels of a task take its share
    of the cores (``share``, a :class:`CoreShare`; None: a new one). Each fold is seeded on its own, so the result
    is the same on any number of threads (the models and kernels release the GIL)."""
    n = len(y)
    k = len(seeds)
    flags = {p: np.zeros(n, dtype=bool) for p in procs}
    money = {p: np.zeros(n) for p in procs}
    sizes = {p: [0] * k for p in procs}
    groups = task_groups(procs)
    locks = [threading.Lock() for _ in range(k)]
    rows, left = {}, [len(groups)] * k  # each fold's rows, read once, kept while a task of the fold is left

    def fold_rows(f):
        with locks[f]:
            if f not in rows:
                test, train = np.flatnonzero(fold == f), np.flatnonzero(fold != f)
                if fits is not None:
                    test, train, rest = test[fits[test]], train[fits[train]], test[~fits[test]]
                    rest = np.array_split(rest, -(-len(rest) // SCORE_ROWS)) if len(rest) else []
                else:
                    rest = []
                rows[f] = (test, train, rows_of(X, train), rows_of(X, test), rest)
            return rows[f]

    def one_task(f, names):
        test, train, Xt, Xh, rest = fold_rows(f)
        wt = None if w is None else w[train]
        ct = None if costs is None else costs[train]
        books = run_group(fit, procs, names, Xt, y[train], wt, ct, budget, seed=seeds[f], rows=train)
        for name in names:
            if isinstance(books[name], Exception):
                raise books[name]
            sizes[name][f] = len(books[name])
        for idx, Xi in [(test, Xh)] + [(b, None) for b in rest]:
            Xi = rows_of(X, idx) if Xi is None else Xi
            for name in names:
                rs = books[name]
                flags[name][idx] = rs.predict(Xi).astype(bool) if len(rs) else False
                money[name][idx] = row_money(rs, Xi, idx, flags[name][idx])
        with locks[f]:
            left[f] -= 1
            if not left[f]:
                del rows[f]

    if pool is None:
        for names in groups:
            for f in range(k):
                one_task(f, names)
    else:
        task = (share or CoreShare()).task(one_task)
        done = []
        for names in groups:
            if before is not None:
                before(names)
            done += [pool.submit(task, f, names) for f in range(k)]
        for fut in done:  # each task writes its own rows
            fut.result()
    return flags, money, sizes


def one_se_choice(money, order):
    """(winner, best, {name: standard error of the paired difference with the best}, reason) for per-row
    held-out money ``money`` ({name: (n,)}): the first of ``order`` within ``STANDARD_ERRORS`` of the best."""
    totals = {p: float(money[p].sum()) for p in order}
    best = max(order, key=lambda p: (totals[p], -order.index(p)))  # equal money: the simpler
    se = {p: _paired_se(money[best], money[p]) for p in order}
    winner = next(p for p in order if totals[p] >= totals[best] - STANDARD_ERRORS * se[p])
    simpler = order[:order.index(winner)]
    if winner == best:
        reason = "the most held-out money"
        if simpler:
            reason += (f"; every simpler candidate is more than {STANDARD_ERRORS:g} standard errors below it ("
                       + ", ".join(f"{p}: {totals[p] - totals[best]:+.6g}, standard error {se[p]:.6g}"
                                   for p in simpler) + ")")
    else:
        reason = (f"within {STANDARD_ERRORS:g} standard errors of the best, {best} "
                  f"({totals[winner] - totals[best]:+.6g}, standard error {se[winner]:.6g}), and simpler")
    return winner, best, se, reason


def choose_and_fit(fit, book, X, y, w, costs, budget, candidates, retune, rng, k, shuffle, *, row_money=None,
                   alone=True):
    """``optimize_rule_book`` on rows already read, each procedure run by ``fit`` (``_book._optimize_fixed``):
    with ``k`` folds, the candidate procedures judged by :func:`cross_fit` and :func:`one_se_choice`, the winner
    re-run on all the rows; with ``k`` None (or a single candidate) the procedure the keywords name. The result's
    ``selection["choice"]`` reports it. ``row_money`` (default: :func:`flagged_money` of each row's net money;
    counts: its positive weight) scores a held-out book's rows; ``alone``: the induced rules alone compete."""
    procs = procedures(book, candidates, retune, alone=alone)
    start = rng.get_state()  # the final run starts from here: it equals the cv=None run of the winner's keywords
    if k is None or len(procs) == 1:
        out = fit(book, X, y, w, costs, budget, candidates, retune, rng)
        out.selection["choice"] = None
        return out
    if min((y == 0).sum(), (y == 1).sum()) < k:
        raise ValueError(f"cv={k} folds need at least {k} rows of each class")
    Wall = row_weights(y, w, costs)
    if row_money is None:  # a flagged row's money (counts: its positive weight)
        row_money = flagged_money(Wall[:, NET if costs is not None else POS])
    fitted = fitted_rows(y, CROSS_FIT_ROWS, rng, k)  # None: all rows (no draw, so the folds are as before)
    fold = fold_of_rows(y if fitted is None else y[fitted], k, shuffle, rng)
    seeds = [int(s) for s in rng.randint(np.iinfo(np.int32).max, size=k)]
    fits = None
    if fitted is not None:  # the rows no fold's run reads are judged too: the choice's noise is that of all rows
        fits = np.zeros(len(y), dtype=bool)
        fits[fitted] = True
        fold = deal_the_rest(y, fitted, fold, k, shuffle, rng)
    threads = max(1, FOLD_THREADS)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    share = CoreShare()  # each task's kernels: its share of the cores among the tasks running
    # with threads, the run on all the rows of the first procedure with induced rules (the costliest) starts beside
    # the folds and is kept if it wins; any other winner runs after the choice, the induced rules alone on the rules
    # that run induced (one run on all the rows in memory beside the folds)
    finals, final_shared = {}, {}

    def run_final(names):
        if procs[names[0]][1] is not None:
            finals[names[0]] = pool.submit(share.task(run_group), fit, procs, names[:1], X, y, w, costs, budget,
                                           seed=start, shared=final_shared)

    try:
        flags, money, sizes = cross_fit(fit, procs, X, y, w, costs, budget, fold, seeds, row_money, fits=fits,
                                        pool=pool, before=run_final if pool is not None else None, share=share)
        order = list(procs)
        winner, best, se, reason = one_se_choice(money, order)
        if winner in finals:
            out = finals[winner].result()[winner]
        else:
            if procs[winner][1] is not None and finals:  # the induced rules of the run on all the rows
                for fut in finals.values():
                    fut.result()
            out = run_group(fit, procs, [winner], X, y, w, costs, budget, seed=start,
                            shared=final_shared if procs[winner][1] is not None else None)[winner]
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    if isinstance(out, Exception):
        raise out
    spent = Wall[:, budget.column]
    report = {p: {"held_out_money": float(money[p].sum()),
                  "standard_error": _paired_se(money[p], np.zeros(len(fold))),
                  "difference_to_best": float(money[p].sum() - money[best].sum()),
                  "difference_standard_error": se[p],
                  "fold_money": [float(money[p][fold == f].sum()) for f in range(k)],
                  "held_out_" + budget.kind: float(spent[flags[p]].sum() / spent.sum()),
                  "rules_per_fold": sizes[p]} for p in order}
    out.selection["choice"] = {"chosen": winner, "best": best, "reason": reason, "cv": k, "shuffle": bool(shuffle),
                               "candidates": report, "fold": fold, "fold_random_states": seeds,
                               "rows_judged": len(y), "rows_fitted": len(y) if fitted is None else len(fitted),
                               "fitted_index": fitted}
    return out


def deal_the_rest(y, fitted, fold_fitted, k, shuffle, rng):
    """(n,) int: each row's fold, the rows ``fitted`` (sorted positions) keeping theirs (``fold_fitted``) and the
    others dealt as :func:`fold_of_rows` deals rows: ``shuffle``, stratified by label in random order; otherwise
    by position, each joining the fold of the last fitted row before it (the first fold before any), so a fold is
    still one contiguous period."""
    n = len(y)
    outside = np.ones(n, dtype=bool)
    outside[fitted] = False
    rest = np.flatnonzero(outside)  # sorted, like the set difference, without sorting n positions
    fold = np.empty(n, dtype=np.int64)
    fold[fitted] = fold_fitted
    if shuffle:
        fold[rest] = fold_of_rows(y[rest], k, True, rng)
    else:
        fold[rest] = fold_fitted[np.maximum(np.searchsorted(fitted, rest, side="right") - 1, 0)]
    return fold


def fitted_rows(y, limit, rng, least=1):
    """None when ``len(y) <= limit`` (the folds read every row, nothing drawn); else the sorted positions of a
    stratified random sample of ``limit`` rows: ``round(limit * n1 / n)`` of the ``n1`` positive rows (but at
    least ``least`` of each class, the folds' count) and the rest from the negative rows."""
    n = len(y)
    if n <= limit:
        return None
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    n_pos = min(max(int(round(limit * len(pos) / n)), min(least, len(pos))), len(pos),
                limit - min(least, len(neg)))
    take = [rng.choice(pos, n_pos, replace=False), rng.choice(neg, limit - n_pos, replace=False)]
    return np.sort(np.concatenate(take))
