"""One row reader: every public entry point that takes labels reads them, their index and the cost keywords
the same way.

For each entry point in ENTRY_POINTS (and every estimator of tests/_estimators.py):

(a) text labels ("fraud" / "ok", where "ok" sorts last) are refused without ``pos_label``;
(b) with ``pos_label="fraud"`` the result equals the result on the equivalent 0/1 labels, bit for bit;
(c) a pandas y or cost Series whose index is in another order than X's (y's) is a ValueError naming it;
(d) ``fn_cost`` without ``fp_cost`` is a TypeError asking for ``fp_cost``.

``test_the_list_of_entry_points_is_complete`` scans the public modules, so a new entry point taking ``y``
cannot be forgotten here.
"""

import functools
import inspect
import importlib
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import pytest

from _estimators import ENTRIES, HAS_CATBOOST

FN_ALONE = "pass fp_cost= the cost of an alert"


@functools.lru_cache(maxsize=None)
def _data():
    rng = np.random.default_rng(3)
    n = 240
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)}, index=rng.permutation(10_000)[:n])
    y = ((X["a"] + 0.7 * rng.normal(size=n)) > 0.6).astype(np.int64).to_numpy()
    amount = np.round(rng.uniform(1.0, 200.0, n), 2)
    return X, y, amount


def _text(y):
    return np.where(y == 1, "fraud", "ok")


def _rules():
    from csboost_plugins.rules import Interval, Rule, RuleSet

    cands = [Rule([Interval(0, lower=t, lower_closed=False)], feature_names=["a", "b"]) for t in (0.3, 0.8, 1.4)]
    cands += [Rule([Interval(1, lower=t, lower_closed=False)], feature_names=["a", "b"]) for t in (0.5, 1.5)]
    book = RuleSet.from_sql({"r1": "a > 0.9", "r2": "b > 1.6"})
    return cands, RuleSet(cands[:2], feature_names=["a", "b"]), book


def _same(a, b):
    """Bit-identical results: dicts, frames, rule sets, arrays, numbers, native data sets (their labels)."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    elif hasattr(a, "selection") and hasattr(a, "rules"):
        assert str(a) == str(b)
        np.testing.assert_equal(a.selection, b.selection)
    elif hasattr(a, "get_label"):
        np.testing.assert_array_equal(a.get_label(), b.get_label())
    else:
        np.testing.assert_equal(a, b)


@dataclass(frozen=True)
class Entry:
    """A public entry point: ``call(X, y, **kw)`` with its X (None: a metric of y alone)."""

    name: str
    call: Callable
    takes_x: bool = True
    costs: bool = True  # takes the cost keywords
    needs_costs: bool = False  # refuses a call without costs


def _metric(name, second):
    def call(X, y, **kw):
        from csboost_plugins import metrics

        _, y01, amount = _data()
        s = np.clip(0.2 + 0.6 * (amount / 200.0), 0, 1) if second == "proba" else (amount > 100).astype(int)
        return getattr(metrics, name)(y, s, **kw)

    return call


def _money_by_period(X, y, **kw):
    from csboost_plugins.metrics import money_by_period

    _, _, amount = _data()
    periods = pd.Series(np.arange(len(amount)) % 3, index=getattr(y, "index", None))
    return money_by_period(y, (amount > 100).astype(int), periods, **kw)


def _emp(name):
    def call(X, y, **kw):
        from csboost_plugins import metrics

        _, _, amount = _data()
        return getattr(metrics, name)(y, amount / 200.0, **kw)

    return call


def _evaluate(per_rule):
    return lambda X, y, **kw: _rules()[1].evaluate(X, y, per_rule=per_rule, **kw)


def _monitor(X, y, **kw):
    periods = pd.Series(np.arange(len(X)) % 2, index=X.index)
    return _rules()[1].monitor(X, y, periods, **kw)


def _diff(X, y, **kw):
    _, rs, book = _rules()
    return rs.diff(book, X, y, **kw)


def _riff_select(X, y, **kw):
    from csboost_plugins.rules import riff_select

    return riff_select(_rules()[0], X, y, max_fpr=0.2, **kw)


def _simplify(X, y, **kw):
    from csboost_plugins.rules import simplify_rules

    return simplify_rules(_rules()[1], X, y, **kw)


def _optimize(X, y, **kw):
    from csboost_plugins.rules import optimize_rule_book

    return optimize_rule_book(_rules()[2], X, y, candidates=None, max_fpr=0.2, random_state=0, **kw)


def _builder(module, name, pip):
    def call(X, y, **kw):
        pytest.importorskip(pip)
        mod = importlib.import_module(f"csboost_plugins.{module}")
        return getattr(mod, name)(X, y, **kw)

    return call


def _card_precision(X, y, **kw):
    from csboost_plugins.metrics import card_precision_at_k

    _, _, amount = _data()
    n = len(amount)
    return card_precision_at_k(y, amount / 200.0, entity=np.arange(n) % 37, periods=np.arange(n) % 4, k=5,
                               return_periods=True, **kw)[1]


def _walk_forward(X, y, **kw):
    from sklearn.linear_model import LogisticRegression

    from csboost_plugins.model_selection import walk_forward

    times = pd.Series(np.arange(len(X)) / 10.0, index=X.index)
    return walk_forward(LogisticRegression(), X, y, times=times, train=5, delay=1, test=5, **kw).periods


ENTRY_POINTS = [
    Entry("metrics.cost_loss", _metric("cost_loss", "pred"), takes_x=False, needs_costs=True),
    Entry("metrics.savings_score", _metric("savings_score", "pred"), takes_x=False, needs_costs=True),
    Entry("metrics.expected_cost_loss", _metric("expected_cost_loss", "proba"), takes_x=False, needs_costs=True),
    Entry("metrics.expected_savings_score", _metric("expected_savings_score", "proba"), takes_x=False,
          needs_costs=True),
    Entry("metrics.normalized_cost", _metric("normalized_cost", "pred"), takes_x=False, needs_costs=True),
    Entry("metrics.row_costs", _metric("row_costs", "pred"), takes_x=False, needs_costs=True),
    Entry("metrics.expected_row_costs", _metric("expected_row_costs", "proba"), takes_x=False, needs_costs=True),
    Entry("metrics.money_by_period", _money_by_period, takes_x=False),
    Entry("metrics.card_precision_at_k", _card_precision, takes_x=False),
    Entry("model_selection.walk_forward", _walk_forward, needs_costs=True),
    Entry("metrics.empc_score", _emp("empc_score"), takes_x=False, costs=False),
    Entry("metrics.mpc_score", _emp("mpc_score"), takes_x=False, costs=False),
    Entry("metrics.empcs_score", _emp("empcs_score"), takes_x=False, costs=False),
    Entry("metrics.mpcs_score", _emp("mpcs_score"), takes_x=False, costs=False),
    Entry("rules.RuleSet.evaluate", _evaluate(False)),
    Entry("rules.RuleSet.evaluate(per_rule)", _evaluate(True)),
    Entry("rules.RuleSet.monitor", _monitor),
    Entry("rules.RuleSet.diff", _diff),
    Entry("rules.riff_select", _riff_select),
    Entry("rules.simplify_rules", _simplify, costs=False),
    Entry("rules.optimize_rule_book", _optimize),
    Entry("xgb.cost_dmatrix", _builder("xgb", "cost_dmatrix", "xgboost"), needs_costs=True),
    Entry("lgb.cost_dataset", _builder("lgb", "cost_dataset", "lightgbm"), needs_costs=True),
    Entry("catboost.cost_pool", _builder("catboost", "cost_pool", "catboost"), needs_costs=True),
]

#: Public callables taking y that are not entry points of labelled rows, and why.
NOT_ENTRY_POINTS = {
    "costs.check_binary_labels": "the validator itself (sorted labels to 0/1, documented as such)",
    "decision_costs.decision_costs": "formulas on validated 0/1 labels and an (n, 4) cost array",
    "decision_costs.regret_difference": "formulas on validated 0/1 labels and an (n, 4) cost array",
    "decision_costs.row_cost": "formulas on validated 0/1 labels and an (n, 4) cost array",
    "decision_costs.trivial_policy_costs": "formulas on validated 0/1 labels and an (n, 4) cost array",
    "xgb.dask_cost_dmatrix": "dask collections: 0/1 labels per partition",
    "lgb.dask_cost_inputs": "dask collections: 0/1 labels per partition",
    "plot.MoneyCurveDisplay.from_estimator": "figures: labels read with pos_label by the metrics (test_plot)",
    "plot.MoneyCurveDisplay.from_predictions": "figures: labels read with pos_label by the metrics (test_plot)",
    "plot.RuleWaterfallDisplay.from_estimator": "figures: labels read with pos_label (test_pos_label)",
    "plot.ThresholdScalingDisplay.from_estimator": "figures: labels read with pos_label by the metrics (test_plot)",
    "plot.ThresholdScalingDisplay.from_predictions": "figures: labels read with pos_label by the metrics (test_plot)",
    "plot.CapacityCurveDisplay.from_estimator": "figures: labels read with pos_label by the metrics (test_plot)",
    "plot.CapacityCurveDisplay.from_predictions": "figures: labels read with pos_label by the metrics (test_plot)",
    "plot.MoneyByPeriodDisplay.from_predictions": "figures: money_by_period's table (tested here)",
    "plot.RuleMonitorDisplay.from_rule_set": "figures: RuleSet.monitor's table (tested here)",
}


def _public_modules():
    """Every public module of csboost_plugins (no leading underscore), found on disk: a new one is scanned too."""
    import pkgutil

    import csboost_plugins

    return [m.name for m in pkgutil.iter_modules(csboost_plugins.__path__) if not m.name.startswith("_")]

_BY_NAME = {e.name: e for e in ENTRY_POINTS}


def _cost_kw(entry, y_like=None):
    """The cost keywords of a call (per-row fn_cost as a Series with y's index when ``y_like`` is pandas)."""
    if not entry.costs:
        return {}
    _, _, amount = _data()
    fn = pd.Series(amount, index=y_like.index) if isinstance(y_like, pd.Series) else amount
    return {"fp_cost": 5.0, "fn_cost": fn}


def _x(entry):
    return _data()[0] if entry.takes_x else None


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: e.name)
def test_text_labels_need_pos_label(entry):
    _, y, _ = _data()
    with pytest.raises(ValueError, match="pos_label"):
        entry.call(_x(entry), _text(y), **_cost_kw(entry))


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: e.name)
def test_pos_label_gives_the_results_of_0_1_labels(entry):
    _, y, _ = _data()
    want = entry.call(_x(entry), y, **_cost_kw(entry))
    got = entry.call(_x(entry), _text(y), pos_label="fraud", **_cost_kw(entry))
    _same(got, want)
    if not entry.needs_costs and entry.costs:  # the counting form too
        _same(entry.call(_x(entry), _text(y), pos_label="fraud"), entry.call(_x(entry), y))


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: e.name)
def test_a_pandas_argument_in_another_row_order_is_refused_by_name(entry):
    X, y, _ = _data()
    index = X.index
    ys = pd.Series(y, index=index)
    if entry.takes_x:  # y in another order than X
        with pytest.raises(ValueError, match=r"y is a pandas object whose index differs from X's index"):
            entry.call(X, ys.iloc[::-1], **_cost_kw(entry))
    if entry.costs:  # a cost in another order than the rows
        kw = _cost_kw(entry, ys)
        kw["fn_cost"] = kw["fn_cost"].sort_index()
        with pytest.raises(ValueError, match=r"fn_cost is a pandas object whose index differs"):
            entry.call(_x(entry), ys, **kw)
    # aligned pandas arguments are read as the arrays they hold
    _same(entry.call(_x(entry), ys, **_cost_kw(entry, ys)), entry.call(_x(entry), y, **_cost_kw(entry)))


@pytest.mark.parametrize("entry", [e for e in ENTRY_POINTS if e.costs], ids=lambda e: e.name)
def test_fn_cost_alone_is_a_type_error(entry):
    _, y, amount = _data()
    with pytest.raises(TypeError, match=FN_ALONE):
        entry.call(_x(entry), y, fn_cost=amount)


@pytest.mark.parametrize("entry", [e for e in ENTRY_POINTS if e.costs], ids=lambda e: e.name)
def test_tp_cost_alone_is_a_type_error(entry):
    """tp_cost without fp_cost and fn_cost was ignored by the rule reports and money_by_period (counts only)."""
    _, y, _ = _data()
    with pytest.raises(TypeError, match="missing costs: fp_cost, fn_cost"):
        entry.call(_x(entry), y, tp_cost=3.0)


# ------------------------------------------------------------------------------------------ estimators
def _fit(entry, X, y, **kw):
    est = entry.make()
    if kw.get("pos_label") is not None:
        est.set_params(pos_label=kw.pop("pos_label"))
    kw.pop("pos_label", None)
    return est.fit(X, y, **kw)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_estimators_read_labels_and_cost_keywords_alike(entry):
    if entry.name == "CSCatBoostClassifier" and not HAS_CATBOOST:
        pytest.skip("pip install 'csboost-plugins[catboost]'")
    X, y, amount = _data()
    costs = {"fp_cost": 5.0, "fn_cost": amount}
    with pytest.raises(ValueError, match="pos_label"):  # (a)
        _fit(entry, X, _text(y), **costs)
    want = _fit(entry, X, y, **costs).predict_proba(X)  # (b)
    got = _fit(entry, X, _text(y), pos_label="fraud", **costs)
    np.testing.assert_array_equal(got.predict_proba(X)[:, list(got.classes_).index("fraud")], want[:, 1])
    with pytest.raises(ValueError, match="fn_cost is a pandas object whose index differs"):  # (c)
        _fit(entry, X, y, fp_cost=5.0, fn_cost=pd.Series(amount, index=X.index).sort_index())
    with pytest.raises(TypeError, match=FN_ALONE):  # (d)
        _fit(entry, X, y, fn_cost=amount)
    with pytest.raises(TypeError, match="missing costs: fn_cost"):  # and fp_cost alone, the same everywhere
        _fit(entry, X, y, fp_cost=5.0)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_estimators_refuse_a_y_in_another_row_order(entry):
    if entry.name == "CSCatBoostClassifier" and not HAS_CATBOOST:
        pytest.skip("pip install 'csboost-plugins[catboost]'")
    X, y, amount = _data()
    ys = pd.Series(y, index=X.index)
    with pytest.raises(ValueError, match="y is a pandas object whose index differs from X's index"):
        _fit(entry, X, ys.iloc[::-1], fp_cost=5.0, fn_cost=amount)


@pytest.mark.parametrize("name", ["xgb", "lgb"])
def test_a_booster_predict_refuses_costs_in_another_row_order(name):
    pytest.importorskip({"xgb": "xgboost", "lgb": "lightgbm"}[name])
    entry = next(e for e in ENTRIES if e.name == {"xgb": "CSXGBClassifier", "lgb": "CSLGBMClassifier"}[name])
    X, y, amount = _data()
    est = entry.make().fit(X, y, fp_cost=5.0, fn_cost=amount)
    fn = pd.Series(amount, index=X.index)
    np.testing.assert_array_equal(est.predict(X, fp_cost=5.0, fn_cost=fn), est.predict(X, fp_cost=5.0, fn_cost=amount))
    with pytest.raises(ValueError, match="fn_cost is a pandas object whose index differs from X's index"):
        est.predict(X, fp_cost=5.0, fn_cost=fn.sort_index())
    with pytest.raises(TypeError, match=FN_ALONE):
        est.predict(X, fn_cost=amount)


# ------------------------------------------------------------------------------------------ dask
def test_dask_inputs_read_pos_label_alike():
    """Dask collections: text labels refused without pos_label (naming it), with it the 0/1 results."""
    dd = pytest.importorskip("dask.dataframe")
    from csboost_plugins.metrics import money_by_period
    from csboost_plugins.rules import riff_select

    X, y, amount = _data()
    cands, rs, _ = _rules()
    df = X.reset_index(drop=True).assign(y=y, t=_text(y), m=amount, p=np.arange(len(y)) % 3)
    ddf = dd.from_pandas(df, npartitions=3)
    Xd = ddf[["a", "b"]]
    calls = {
        "evaluate": lambda yy, **kw: rs.evaluate(Xd, yy, **kw),
        "monitor": lambda yy, **kw: rs.monitor(Xd, yy, ddf["p"], **kw),
        "money_by_period": lambda yy, **kw: money_by_period(yy, (ddf["a"] > 0.8).astype(int), ddf["p"], **kw),
        "riff_select": lambda yy, **kw: riff_select(cands, Xd, yy, max_fpr=0.2, **kw),
    }
    for call in calls.values():
        with pytest.raises(ValueError, match="pos_label="):
            call(ddf["t"], fp_cost=5.0, fn_cost=ddf["m"])
        _same(call(ddf["t"], pos_label="fraud", fp_cost=5.0, fn_cost=ddf["m"]),
              call(ddf["y"], fp_cost=5.0, fn_cost=ddf["m"]))
        with pytest.raises(TypeError, match=FN_ALONE):
            call(ddf["y"], fn_cost=ddf["m"])


# ------------------------------------------------------------------------------------------ completeness
def _takes_y(f):
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False
    return bool({"y", "y_true"} & set(params))


def test_the_list_of_entry_points_is_complete():
    found, estimators = set(), set()
    for short in _public_modules():
        try:
            mod = importlib.import_module(f"csboost_plugins.{short}")
        except ImportError as exc:  # an optional host library (catboost) absent: its module is not public here
            assert short in ("catboost", "xgb", "lgb", "plot"), exc
            continue
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if inspect.isclass(obj):
                if hasattr(obj, "fit") and _takes_y(obj.fit):
                    estimators.add(name)  # fit and score: the estimator registry
                    continue
                for meth, f in inspect.getmembers(obj, callable):
                    if not meth.startswith("_") and _takes_y(f):
                        found.add(f"{short}.{name}.{meth}")
            elif callable(obj) and _takes_y(obj):
                found.add(f"{short}.{name}")
    listed = {e.name.split("(")[0] for e in ENTRY_POINTS} | set(NOT_ENTRY_POINTS)
    assert found - listed == set(), "new public entry points taking y: add them to ENTRY_POINTS"
    assert {e.cls.__name__ for e in ENTRIES} >= estimators


# ------------------------------------------------------------------------------------------ the report
def test_text_labels_no_longer_invert_a_rule_books_money():
    """Six rows, a one-rule book: text labels read by sort order made "ok" the positive class (TPR 0.25 and
    FPR 1.00 instead of TPR 1.00 and FPR 0.25); now pos_label names it, and without it the call is refused."""
    from csboost_plugins.rules import RuleSet

    X = pd.DataFrame({"amount": [100.0, 90.0, 5.0, 80.0, 3.0, 4.0]})
    labels = np.array(["fraud", "fraud", "ok", "ok", "ok", "ok"])
    book = RuleSet.from_sql({"big": "amount > 50"})
    got = book.evaluate(X, labels, pos_label="fraud", fp_cost=5.0, fn_cost=X["amount"])
    flag = X["amount"].to_numpy() > 50  # by hand: flagged frauds book their amount, flagged others cost 5
    fraud = labels == "fraud"
    assert got["tpr"] == (flag & fraud).sum() / fraud.sum() == 1.0
    assert got["fpr"] == (flag & ~fraud).sum() / (~fraud).sum() == 0.25
    assert got["net_money"] == X["amount"][flag & fraud].sum() - 5.0 * (flag & ~fraud).sum() == 185.0
    with pytest.raises(ValueError, match="pos_label='fraud'"):
        book.evaluate(X, labels, fp_cost=5.0, fn_cost=X["amount"])


def test_a_lone_negative_label_with_pos_label_is_the_negative_class():
    """A period without fraud ("ok" only) with pos_label="fraud": every row negative, as 0 labels."""
    from csboost_plugins._rows import read_rows

    rows = read_rows(None, np.array(["ok"] * 4), pos_label="fraud", require_both=False)
    np.testing.assert_array_equal(rows.y, np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="pos_label=7 is not a label"):
        read_rows(None, np.array(["ok"] * 4), pos_label=7, require_both=False)
