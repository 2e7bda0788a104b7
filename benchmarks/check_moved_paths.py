"""Numbers of moved paths that no benchmark printed before the moves, for a before / after comparison.

The plot displays' arrays (plot.py became the plot/ package), CSDT histogram mode and FIGS / FIGU on
more rows than the 200,000-row quantile sample (tree binning moved to csdt/_binning.py). Prints one
SHA-256 prefix per quantity; run it with each tree on PYTHONPATH and compare the lines:

    cd OLD_TREE && PYTHONPATH=$PWD python /path/to/check_moved_paths.py > before.txt
    cd NEW_TREE && PYTHONPATH=$PWD python benchmarks/check_moved_paths.py > after.txt

MoneyCurveDisplay is hashed twice: with rank_by="score" when its signature has the keyword (the old
order) and with its default ranking (expected net money of an alert for probabilities with per-row
costs, where the keyword exists).
"""
import hashlib
import inspect
import warnings

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

warnings.simplefilter("ignore")


def h(*arrays):
    m = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        m.update(a.tobytes())
    return m.hexdigest()[:16]


rng = np.random.default_rng(0)
n = 5000
y = (rng.random(n) < 0.1).astype(int)
p = np.clip(0.1 + 0.5 * y * rng.random(n) + 0.2 * rng.random(n), 0, 1)
amount = rng.lognormal(3, 1, n)
fp, fn = np.full(n, 5.0), amount

from csboost_plugins import plot  # noqa: E402

kw = {"rank_by": "score"} if "rank_by" in inspect.signature(plot.MoneyCurveDisplay.from_predictions).parameters else {}
d = plot.MoneyCurveDisplay.from_predictions(y, p, fp_cost=fp, fn_cost=fn, **kw)
print("MoneyCurveDisplay(rank by score) alert_rate/fpr/caught/alert_cost/savings",
      h(d.alert_rate, d.fpr, d.money_caught, d.alert_cost, d.savings))
d = plot.MoneyCurveDisplay.from_predictions(y, p, fp_cost=fp, fn_cost=fn)
print("MoneyCurveDisplay(default ranking) alert_rate/fpr/caught/alert_cost/savings",
      h(d.alert_rate, d.fpr, d.money_caught, d.alert_cost, d.savings))
d = plot.ThresholdScalingDisplay.from_predictions(y, p, fp_cost=fp, fn_cost=fn)
print("ThresholdScalingDisplay scale/cost/savings/best", h(d.scale, d.cost, d.savings, [d.best]))
d = plot.MoneyPerRoundDisplay.from_evals_result({"val": {"savings": list(np.linspace(0, 0.3, 20))}}, best_iteration=7)
print("MoneyPerRoundDisplay rounds/values", h(d.rounds, d.values["val"]))
from csboost_plugins.rules import Interval, Rule, RuleSet  # noqa: E402

X = np.column_stack([amount, p])
rs = RuleSet([Rule([Interval(1, lower=0.4)]), Rule([Interval(0, lower=60.0)])])
d = plot.RuleWaterfallDisplay.from_estimator(rs, X, y, fp_cost=fp, fn_cost=fn)
tab = d.table
print("RuleWaterfallDisplay table", h(*[np.asarray(tab[c], dtype=float) for c in tab.columns
                                           if np.issubdtype(np.asarray(tab[c]).dtype, np.number)]))

# tree binning above the quantile sample (200,000 rows)
from sklearn.datasets import make_classification  # noqa: E402

from csdt import CostSensitiveDecisionTreeClassifier, FIGSClassifier, FIGUClassifier  # noqa: E402

Xb, yb = make_classification(250_000, 10, n_informative=6, weights=[0.95], random_state=0)
Xb[rng.random(Xb.shape) < 0.01] = np.nan
Xq = Xb[:20000]
t = CostSensitiveDecisionTreeClassifier(max_bins=255, max_depth=6, random_state=0)
t.fit(np.nan_to_num(Xb), yb, fp_cost=1.0, fn_cost=10.0)
print("CSDT max_bins=255 (250k rows) proba", h(t.predict_proba(np.nan_to_num(Xq))), "nodes", t.tree_.node_count)
f = FIGSClassifier(max_rules=15).fit(np.nan_to_num(Xb), yb)
print("FIGS (250k rows) proba", h(f.predict_proba(np.nan_to_num(Xq))))
f = FIGUClassifier(max_rules=15).fit(np.nan_to_num(Xb), yb)
print("FIGU (250k rows) proba", h(f.predict_proba(np.nan_to_num(Xq))))
