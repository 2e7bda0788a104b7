"""Rule extraction from xgboost models whose pandas categories have non-ASCII names.

xgboost 3.2 saves such names with offsets counted in characters but their bytes in UTF-8
(as signed chars), so the stored names are cut short and unrecoverable: extraction must
raise a ValueError naming the feature, not a bytes/UnicodeDecodeError from deep inside.
"""

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb

from csboost_plugins.rules import extract_rules


def _fit(levels):
    rng = np.random.default_rng(0)
    n = 400
    city = rng.choice(levels, n)
    X = pd.DataFrame({"x": rng.standard_normal(n), "ville": pd.Categorical(city, categories=levels)})
    y = (np.isin(city, levels[:2]) ^ (rng.uniform(size=n) < 0.1)).astype(int)
    return xgb.XGBClassifier(n_estimators=3, max_depth=2, enable_categorical=True, tree_method="hist",
                             n_jobs=1).fit(X, y)


def test_non_ascii_category_names_raise_naming_the_feature():
    model = _fit(["café", "Zürich", "naïve", "plain"])
    with pytest.raises(ValueError, match="category names of feature 'ville' garbled.*ASCII"):
        extract_rules(model)


def test_ascii_category_names_still_extract():
    model = _fit(["cafe", "Zurich", "naive", "plain"])
    text = " ".join(str(r) for r in extract_rules(model))
    assert "ville in {'naive', 'plain'}" in text and "ville not in {'naive', 'plain'}" in text
