"""The rule-selection case the dask tests share: fraud transactions with some missing values, integer
money (every sum exact in float64, so dask and in-memory selections can be compared for equality) and
candidate rules from a small random forest fitted on the first 3,000 rows."""

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from csboost_plugins.rules import Interval, Rule, extract_rules
from csdt.datasets import make_fraud_transactions


def fraud_rules_case(n_rows, max_depth):
    """(X, y, amount, candidate rules) on ``n_rows`` transactions, rules of at most ``max_depth`` conditions."""
    b = make_fraud_transactions(n_rows, fraud_rate=0.03, random_state=5)
    X = b.data.copy()
    X.iloc[::13, 1] = np.nan
    y = np.asarray(b.target).astype(np.int64)
    amount = np.round(np.asarray(b.fn_cost))
    forest = RandomForestClassifier(n_estimators=4, max_depth=max_depth, random_state=0)
    forest.fit(X.fillna(-1)[:3000], y[:3000])
    return X, y, amount, extract_rules(forest)


def random_rules(rng, d, n_rules):
    """``n_rules`` random interval rules on integer-valued columns 0..d-1 (for brute-force selection tests)."""
    rules = []
    for _ in range(n_rules):
        conds = []
        for f in rng.choice(d, size=rng.integers(1, 3), replace=False):
            a, b = np.sort(rng.integers(0, 6, 2)).astype(float)
            conds.append(Interval(int(f), lower=a, lower_closed=bool(rng.integers(2)), upper=b + 1,
                                  upper_closed=bool(rng.integers(2)), missing=bool(rng.integers(2))))
        rules.append(Rule(conds))
    return rules
