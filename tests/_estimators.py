"""Every public estimator of csboost_plugins and csdt, each with a small constructor for tests.

Generic tests (pos_label, pandas cost indices, parameter constraints, ...) parametrize over this one
list instead of keeping their own, so a new estimator is tested everywhere by adding one line here.
CSCatBoostClassifier is always listed; its cases are skipped, with the reason, when the catboost extra
is absent. Constructors are lambdas importing nothing at collection time beyond the class itself.
"""

from dataclasses import dataclass
from importlib.util import find_spec
from typing import Callable

import pytest

HAS_CATBOOST = find_spec("catboost") is not None
NEEDS_CATBOOST = pytest.mark.skipif(not HAS_CATBOOST, reason="pip install 'csboost-plugins[catboost]'")


@dataclass(frozen=True)
class Entry:
    name: str  # test id
    make: Callable  # () -> unfitted estimator with small, deterministic settings
    package: str  # "csboost_plugins" or "csdt"
    kind: str  # "boosting" (a host library's booster), "rules", "tree", "ensemble", "linear", "decision"

    @property
    def cls(self):
        return type(self.make())


def _xgb(**kw):
    from csboost_plugins.xgb import CSXGBClassifier

    return CSXGBClassifier(**{"n_estimators": 15, "n_jobs": 1, "random_state": 0, **kw})


def _lgb(**kw):
    from csboost_plugins.lgb import CSLGBMClassifier

    return CSLGBMClassifier(**{"n_estimators": 15, "n_jobs": 1, "random_state": 0, **kw})


def _cat(**kw):
    from csboost_plugins.catboost import CSCatBoostClassifier

    return CSCatBoostClassifier(**{"n_estimators": 15, "thread_count": 1, "random_state": 0, **kw})


def _riff():
    from csboost_plugins.rules import RIFFClassifier

    return RIFFClassifier(max_fpr=0.05, random_state=0)


def _csdt(name, **kw):
    import csdt

    return getattr(csdt, name)(**kw)


ENTRIES = [
    Entry("CSXGBClassifier", _xgb, "csboost_plugins", "boosting"),
    Entry("CSLGBMClassifier", _lgb, "csboost_plugins", "boosting"),
    Entry("CSCatBoostClassifier", _cat, "csboost_plugins", "boosting"),
    Entry("RIFFClassifier", _riff, "csboost_plugins", "rules"),
    Entry("CSDT", lambda: _csdt("CostSensitiveDecisionTreeClassifier", max_depth=4), "csdt", "tree"),
    Entry("ECSDT-bagging-stacking", lambda: _csdt("CostSensitiveBaggingClassifier", n_estimators=4,
                                                  combination="stacking", random_state=0), "csdt", "ensemble"),
    Entry("ECSDT-pasting", lambda: _csdt("CostSensitivePastingClassifier", n_estimators=4, random_state=0),
          "csdt", "ensemble"),
    Entry("ECSDT-forest", lambda: _csdt("CostSensitiveRandomForestClassifier", n_estimators=4, random_state=0),
          "csdt", "ensemble"),
    Entry("ECSDT-patches", lambda: _csdt("CostSensitiveRandomPatchesClassifier", n_estimators=4, random_state=0),
          "csdt", "ensemble"),
    Entry("cslogit", lambda: _csdt("CostSensitiveLogisticRegression"), "csdt", "linear"),
    Entry("cslogit-CV", lambda: _csdt("CostSensitiveLogisticRegressionCV", lambdas=3, cv=3, random_state=0),
          "csdt", "linear"),
    Entry("FIGS", lambda: _csdt("FIGSClassifier"), "csdt", "tree"),
    Entry("FIGU", lambda: _csdt("FIGUClassifier"), "csdt", "tree"),
    Entry("CAL5_OC", lambda: _csdt("CAL5OCClassifier"), "csdt", "tree"),
    Entry("CAL5", lambda: _csdt("CAL5Classifier"), "csdt", "tree"),
    Entry("BMR", lambda: _csdt("BayesMinimumRiskClassifier"), "csdt", "decision"),
    Entry("ThresholdingOptimization", lambda: _csdt("ThresholdingOptimization", cv=None), "csdt", "decision"),
]

BY_NAME = {e.name: e for e in ENTRIES}


def _marks(entry):
    return [NEEDS_CATBOOST] if entry.make is _cat else []


def entries(*, package=None, kind=None, exclude=()):
    """The registry's entries, optionally only one package / kind(s), without the names in exclude."""
    kinds = (kind,) if isinstance(kind, str) else kind
    return [e for e in ENTRIES if (package is None or e.package == package)
            and (kinds is None or e.kind in kinds) and e.name not in exclude]


def params(xfail=None, **select):
    """pytest.param(name, make) per entry (CatBoost marked skip when absent), ids = names.

    xfail : {name: reason}, optional
        Entries known to fail this test, marked ``xfail(strict=True)``: the test stays as it is for
        the others, and a fix shows up as an XPASS failure to remove the mark.
    """
    xfail = xfail or {}
    return [pytest.param(e.name, e.make, id=e.name, marks=_marks(e) + (
        [pytest.mark.xfail(strict=True, reason=xfail[e.name])] if e.name in xfail else []))
        for e in entries(**select)]


def classes(**select):
    """The distinct classes of the selected entries (CatBoost only when installed), in registry order."""
    out = []
    for e in entries(**select):
        if e.make is _cat and not HAS_CATBOOST:
            continue
        if e.cls not in out:
            out.append(e.cls)
    return out


def boosting_classes():
    """The three boosting estimator classes; CatBoost's a skipped param when it is not installed."""
    from csboost_plugins.lgb import CSLGBMClassifier
    from csboost_plugins.xgb import CSXGBClassifier

    out = [CSXGBClassifier, CSLGBMClassifier]
    try:
        from csboost_plugins.catboost import CSCatBoostClassifier
    except ImportError:
        out.append(pytest.param(None, marks=pytest.mark.skip(reason="catboost is not installed")))
    else:
        out.append(CSCatBoostClassifier)
    return out
