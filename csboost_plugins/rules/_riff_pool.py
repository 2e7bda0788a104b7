"""RIFFClassifier's default candidate pool and selection keywords, read by the classifier and by
:func:`optimize_rule_book` (which induces its rules as RIFFClassifier does)."""

from __future__ import annotations

__all__ = ["SELECTION_DEFAULTS", "default_estimators"]

#: RIFFClassifier's default selection keywords (its constructor's defaults; a test checks they agree)
SELECTION_DEFAULTS = dict(stop_unprofitable=True, precision_prior="auto", refine=True, prune=True, max_rules=20,
                          cuts="simple")


def default_estimators(rng):
    """The default candidate models: a small LightGBM and a small XGBoost, seeded from ``rng``.

    30 trees each (LightGBM: 16 leaves, learning rate 0.05; XGBoost: depth 6, learning
    rate 0.1), one thread each (small models; the same rules on every machine: the two train
    side by side instead, :func:`._riff_induce.fit_pool`), quiet, XGBoost reading pandas
    category columns.
    """
    import lightgbm as lgb
    import xgboost as xgb
    return [lgb.LGBMClassifier(n_estimators=30, num_leaves=16, learning_rate=0.05, n_jobs=1, verbose=-1,
                               random_state=rng.randint(2 ** 31 - 1)),
            xgb.XGBClassifier(n_estimators=30, max_depth=6, learning_rate=0.1, n_jobs=1, enable_categorical=True,
                              random_state=rng.randint(2 ** 31 - 1))]
