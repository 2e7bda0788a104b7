"""RIFFClassifier's defaults (the LightGBM + XGBoost pool, natural-rate induction, the "auto" precision
prior, pruning, refinement, at most 20 rules) and the paper's protocol one call away."""

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from csboost_plugins.rules import RIFFClassifier, extract_rules, riff_select


def _fraud(n=12000, seed=0):
    from csdt.datasets import make_fraud_transactions
    d = make_fraud_transactions(n, fraud_rate=0.02, random_state=seed)
    return d.data, np.asarray(d.target)


def _keys(rule_set):
    return [str(r) for r in rule_set]


def test_defaults_pool_lightgbm_and_xgboost_leaves():
    import lightgbm as lgb
    import xgboost as xgb
    X, y = _fraud()
    clf = RIFFClassifier(random_state=0).fit(X, y)
    p = clf.get_params()
    assert (p["estimator"], p["positive_rate"], p["precision_prior"], p["prune"], p["refine"], p["max_rules"]) \
        == (None, None, "auto", True, True, 20)
    lg, xg = clf.estimator_
    assert isinstance(lg, lgb.LGBMClassifier) and isinstance(xg, xgb.XGBClassifier)
    assert (lg.n_estimators, lg.num_leaves, lg.learning_rate, lg.n_jobs) == (30, 16, 0.05, 1)
    assert (xg.n_estimators, xg.max_depth, xg.learning_rate, xg.n_jobs) == (30, 6, 0.1, 1)
    assert lg.random_state is not None and xg.random_state is not None  # seeded from random_state
    # the candidates are the leaves of both models, each rule naming the model it came from
    assert len(clf.candidates_) == len(extract_rules(lg)) + len(extract_rules(xg))
    assert {s["model"] for r in clf.candidates_ for s in r.sources} == {0, 1}
    assert {s["model"] for r in clf.rule_set_ for s in r.sources} <= {0, 1}
    assert 1 <= len(clf.rule_set_) <= 20
    # natural-rate induction: the induction subset keeps the training positive share
    assert y[clf.induction_index_].mean() == pytest.approx(y.mean(), abs=0.002)
    assert clf.rule_set_.selection["expected_fpr"] <= 0.01 + 1e-12
    again = RIFFClassifier(random_state=0).fit(X, y)
    assert _keys(again.rule_set_) == _keys(clf.rule_set_)


def _auto(y_sel, w_sel, budget, max_rules, alert_rate=False):
    """The documented "auto" prior, computed from the selection rows by hand."""
    mass = w_sel.sum() if alert_rate else w_sel[y_sel == 0].sum()
    return max(1.0, budget * mass / (20 if max_rules is None else max_rules))


@pytest.mark.parametrize("kw", [{}, {"max_rules": 5}, {"max_fpr": 0.03, "max_rules": None},
                                {"max_alert_rate": 0.02}, {"weights": True}])
def test_auto_prior_is_one_rules_share_of_the_budget(kw):
    X, y = _fraud(8000, seed=1)
    kw = dict(kw)
    weights = kw.pop("weights", False)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weights else None
    est = DecisionTreeClassifier(max_leaf_nodes=24, random_state=0)
    clf = RIFFClassifier(estimator=est, random_state=0, **kw).fit(X, y, sample_weight=w)
    sel = clf.selection_index_
    budget = kw.get("max_alert_rate", kw.get("max_fpr", 0.01))
    expected = _auto(y[sel], np.ones(len(sel)) if w is None else w[sel], budget, kw.get("max_rules", 20),
                     alert_rate="max_alert_rate" in kw)
    assert expected > 1  # the formula, not the floor
    assert clf.precision_prior_ == pytest.approx(expected, rel=1e-12)
    assert clf.rule_set_.selection["precision_prior"] == clf.precision_prior_
    # the selection is the one with that number given explicitly
    fixed = RIFFClassifier(estimator=est, random_state=0, precision_prior=expected, **kw).fit(X, y, sample_weight=w)
    assert _keys(fixed.rule_set_) == _keys(clf.rule_set_)
    assert fixed.precision_prior_ == expected


def test_riff_select_auto_prior_and_its_floor():
    X, y = _fraud(8000, seed=2)
    tree = DecisionTreeClassifier(max_leaf_nodes=24, random_state=0).fit(X[:4000], y[:4000])
    cands = extract_rules(tree)
    Xs, ys = X[4000:], y[4000:]
    auto = riff_select(cands, Xs, ys, max_fpr=0.01, max_rules=10, precision_prior="auto")
    p = 0.01 * (ys == 0).sum() / 10
    assert auto.selection["precision_prior"] == pytest.approx(p, rel=1e-12)
    ref = riff_select(cands, Xs, ys, max_fpr=0.01, max_rules=10, precision_prior=p)
    assert _keys(auto) == _keys(ref)
    # a small budget: the prior never goes below one pseudo-row
    small = riff_select(cands, Xs[:1000], ys[:1000], max_fpr=0.01, precision_prior="auto")
    assert 0.01 * (ys[:1000] == 0).sum() / 20 < 1 and small.selection["precision_prior"] == 1.0
    # numbers pass through unchanged, 0 included (the paper)
    assert riff_select(cands, Xs, ys, max_fpr=0.01).selection["precision_prior"] == 0.0


def test_riff_select_auto_prior_on_dask_matches_memory():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _fraud(6000, seed=3)
    tree = DecisionTreeClassifier(max_leaf_nodes=16, random_state=0).fit(X[:3000], y[:3000])
    cands = extract_rules(tree)
    Xs, ys = X.iloc[3000:].reset_index(drop=True), y[3000:]
    mem = riff_select(cands, Xs, ys, max_fpr=0.02, precision_prior="auto")
    dX = dd.from_pandas(Xs, npartitions=3)
    dy = dd.from_pandas(pd.Series(ys), npartitions=3)
    dsk = riff_select(cands, dX, dy, max_fpr=0.02, precision_prior="auto")
    assert dsk.selection["precision_prior"] == pytest.approx(mem.selection["precision_prior"], rel=1e-12)
    assert mem.selection["precision_prior"] == pytest.approx(0.02 * (ys == 0).sum() / 20, rel=1e-12)
    assert _keys(dsk) == _keys(mem)
    assert str(dsk) == str(mem)


def test_paper_protocol_is_one_call_away():
    X, y = _fraud(10000, seed=4)
    paper = RIFFClassifier.paper(max_fpr=0.01, random_state=0)
    p = paper.get_params()
    assert isinstance(p["estimator"], DecisionTreeClassifier) and p["estimator"].max_leaf_nodes == 32
    assert (p["positive_rate"], p["precision_prior"], p["prune"], p["refine"], p["max_rules"]) \
        == (0.3, 0.0, False, False, None)
    paper.fit(X, y)
    explicit = RIFFClassifier(estimator=DecisionTreeClassifier(max_leaf_nodes=32), positive_rate=0.3,
                              precision_prior=0.0, prune=False, refine=False, max_rules=None, max_fpr=0.01,
                              random_state=0).fit(X, y)
    assert _keys(paper.rule_set_) == _keys(explicit.rule_set_)
    np.testing.assert_array_equal(paper.induction_index_, explicit.induction_index_)
    # the paper's pipeline, step by step: a 30 %-positive induction subset, one 32-leaf tree, its leaves,
    # Algorithm 1 on the selection subset (riff_select's defaults)
    assert y[paper.induction_index_].mean() == pytest.approx(0.3, abs=0.01)
    tree = paper.estimator_
    assert isinstance(tree, DecisionTreeClassifier) and tree.max_leaf_nodes == 32 and tree.get_n_leaves() <= 32
    assert [str(r) for r in paper.candidates_] == [str(r) for r in extract_rules(tree)]
    sel = paper.selection_index_
    ref = riff_select(extract_rules(tree), X.iloc[sel], y[sel], max_fpr=0.01)
    assert _keys(paper.rule_set_) == _keys(ref)
    assert paper.rule_set_.last_rule_probability == ref.last_rule_probability
    assert paper.precision_prior_ == 0.0
    # any keyword given to paper() replaces the paper's value
    assert RIFFClassifier.paper(max_rules=7, prune=True).get_params()["max_rules"] == 7


@pytest.mark.parametrize("bad, match", [({"precision_prior": "big"}, "precision_prior"),
                                        ({"precision_prior": -1.0}, "precision_prior"),
                                        ({"precision_prior": float("nan")}, "precision_prior"),
                                        ({"max_rules": 0}, "max_rules"),
                                        ({"prune": "yes"}, "prune"),
                                        ({"prune": 1.0}, "prune"),
                                        ({"prune": -0.1}, "prune"),
                                        ({"refine": None}, "refine"),
                                        ({"positive_rate": 1.0}, "positive_rate")])
def test_bad_new_parameters_raise_naming_them(bad, match):
    X, y = _fraud(3000, seed=5)
    with pytest.raises(ValueError, match=match):
        RIFFClassifier(**bad).fit(X, y)


def test_riff_select_rejects_a_bad_prior_string():
    X, y = _fraud(3000, seed=6)
    cands = extract_rules(DecisionTreeClassifier(max_leaf_nodes=8, random_state=0).fit(X, y))
    for bad in ("Auto", "", "50"):
        with pytest.raises(ValueError, match="precision_prior"):
            riff_select(cands, X, y, max_fpr=0.01, precision_prior=bad)
    with pytest.raises(TypeError, match="unexpected keyword"):
        RIFFClassifier.paper(precision=1.0)


def test_prune_tolerance_shortens_rules_and_true_means_the_default_tolerance():
    """riff_select(prune=True) is prune=PRUNE_TOLERANCE; a larger tolerance never gives longer rules on
    the same candidates than none (each picked rule is pruned further, the greedy may pick others, so the
    mean is compared); a bad tolerance names prune."""
    from csboost_plugins.rules._refine import PRUNE_TOLERANCE
    X, y = _fraud(12000, seed=7)
    ind, sel = slice(0, 6000), slice(6000, None)
    cands = extract_rules(DecisionTreeClassifier(max_depth=6, random_state=0).fit(X[ind], y[ind]))
    kw = dict(max_fpr=0.02, precision_prior=10.0)
    as_true = riff_select(cands, X[sel], y[sel], prune=True, **kw)
    as_value = riff_select(cands, X[sel], y[sel], prune=PRUNE_TOLERANCE, **kw)
    assert _keys(as_true) == _keys(as_value)
    lengths = {tol: np.mean([len(r) for r in riff_select(cands, X[sel], y[sel], prune=tol, **kw)])
               for tol in (0.0, 0.5)}
    assert lengths[0.5] < lengths[0.0]
    for bad in (1.0, -0.5, "0.1", None):
        with pytest.raises(ValueError, match="prune"):
            riff_select(cands, X[sel], y[sel], prune=bad, **kw)


def test_selection_defaults_shared_with_the_rule_book_are_the_classifiers():
    """optimize_rule_book induces its rules with RIFFClassifier's selection keywords: one table of them."""
    from csboost_plugins.rules._riff_pool import SELECTION_DEFAULTS

    params = RIFFClassifier().get_params()
    assert {k: params[k] for k in SELECTION_DEFAULTS} == SELECTION_DEFAULTS


# ------------------------------------------------------------------------------ the pool trained side by side
class _Recorder:
    """A pool member that records where and how it was trained (fit waits at ``barrier`` when given)."""

    def __init__(self, n_jobs=1, barrier=None, error=None):
        self.n_jobs, self.barrier, self.error = n_jobs, barrier, error

    def get_params(self, deep=False):
        return {"n_jobs": self.n_jobs}

    def fit(self, X, y):
        import threading

        import xgboost as xgb

        from csboost_plugins.rules._evaluate import _n_threads
        if self.barrier is not None:
            self.barrier.wait(timeout=30)  # both members inside fit at once, or BrokenBarrierError
        if self.error is not None:
            raise ValueError(self.error)
        self.thread, self.kernel_threads = threading.get_ident(), _n_threads()
        self.verbosity = xgb.get_config()["verbosity"]
        return self


needs_two_cores = pytest.mark.skipif(
    min(__import__("os").cpu_count() or 1, __import__("numba").get_num_threads()) < 2,
    reason="the pool trains side by side only with two cores or more")


@needs_two_cores
def test_a_pool_of_one_thread_models_trains_side_by_side_with_the_callers_xgboost_settings():
    import threading

    import xgboost as xgb

    from csboost_plugins.rules._riff_induce import fit_pool
    barrier = threading.Barrier(2)
    pool = [_Recorder(barrier=barrier), _Recorder(barrier=barrier)]
    with xgb.config_context(verbosity=0):  # XGBoost keeps its settings per thread
        fitted = fit_pool(pool, None, None, [{}, {}])
    assert fitted == pool
    assert len({m.thread for m in pool}) == 2  # two training threads at once
    assert [m.kernel_threads for m in pool] == [1, 1]  # each model's kernels: one thread
    assert [m.verbosity for m in pool] == [0, 0]


@needs_two_cores
def test_a_pools_second_model_waits_for_a_second_core_under_a_share_that_grows():
    """Under a cap that gives one thread until another task ends (a pool task's share of the cores), the caller
    trains the first model and the second waits; it starts beside the first as soon as the share allows two."""
    import threading

    from csboost_plugins.rules._evaluate import threads_at_most
    from csboost_plugins.rules._riff_induce import fit_pool
    freed, barrier, started = threading.Event(), threading.Barrier(2), []

    class First(_Recorder):
        def fit(self, X, y):
            started.append(("first", freed.is_set()))
            freed.set()  # the pool's other task ends: two threads from now on
            return super().fit(X, y)

    class Second(_Recorder):
        def fit(self, X, y):
            started.append(("second", freed.is_set()))
            return super().fit(X, y)

    pool = [First(barrier=barrier), Second(barrier=barrier)]
    with threads_at_most(lambda: 2 if freed.is_set() else 1):
        fit_pool(pool, None, None, [{}, {}])
    assert started == [("first", False), ("second", True)]
    assert len({m.thread for m in pool}) == 2 and pool[0].thread == threading.get_ident()


@pytest.mark.parametrize("case", ["threads", "same object", "capped", "a share of one", "one model"])
def test_a_pool_trains_in_turn_in_the_callers_thread_otherwise(case):
    import threading

    from csboost_plugins.rules._evaluate import threads_at_most
    from csboost_plugins.rules._riff_induce import fit_pool
    one = _Recorder()
    pool = {"threads": [_Recorder(n_jobs=2), _Recorder()], "same object": [one, one],
            "capped": [_Recorder(), _Recorder()], "a share of one": [_Recorder(), _Recorder()],
            "one model": [_Recorder()]}[case]
    cap = {"capped": 1, "a share of one": lambda: 1}.get(case, 64)
    with threads_at_most(cap):
        fit_pool(pool, None, None, [{}] * len(pool))
    assert {m.thread for m in pool} == {threading.get_ident()}


def test_a_pool_raises_the_first_models_error_in_the_pools_order():
    from csboost_plugins.rules._riff_induce import fit_pool
    with pytest.raises(ValueError, match="first"):
        fit_pool([_Recorder(error="first"), _Recorder(error="second")], None, None, [{}, {}])


def test_the_default_pool_trained_side_by_side_equals_the_pool_trained_in_turn():
    from csboost_plugins.rules._evaluate import threads_at_most
    X, y = _fraud()
    amount = np.asarray(X["amount"], float)
    side = RIFFClassifier(random_state=3).fit(X, y, fn_cost=amount, fp_cost=5.0)
    with threads_at_most(1):
        turn = RIFFClassifier(random_state=3).fit(X, y, fn_cost=amount, fp_cost=5.0)
    assert side.estimator_[0].booster_.model_to_string() == turn.estimator_[0].booster_.model_to_string()
    assert side.estimator_[1].get_booster().save_raw() == turn.estimator_[1].get_booster().save_raw()
    assert _keys(side.candidates_) == _keys(turn.candidates_) and _keys(side.rule_set_) == _keys(turn.rule_set_)
