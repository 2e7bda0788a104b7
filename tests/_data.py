"""Where tests find their data: vendored fixtures under tests/data/, the large card-fraud file
through ``CSBOOST_DATA_DIR`` (a folder holding creditcard.csv.gz); nothing outside the clone."""

import os
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
#: costcla 0.6 reference outputs (tests/data/costcla/README.md)
COSTCLA = DATA / "costcla"


def creditcard_path() -> Path:
    """``$CSBOOST_DATA_DIR/creditcard.csv.gz``; skips the calling test, saying how to get the file, when absent."""
    folder = os.environ.get("CSBOOST_DATA_DIR")
    path = Path(folder) / "creditcard.csv.gz" if folder else None
    if path is None or not path.exists():
        pytest.skip("card-fraud file not available: download creditcard.csv from Kaggle "
                    "(https://www.kaggle.com/datasets/mlg-ulb/creditcardfraud), gzip it to creditcard.csv.gz "
                    "and set CSBOOST_DATA_DIR to its folder"
                    + (f" (CSBOOST_DATA_DIR={folder!r} has no creditcard.csv.gz)" if folder else ""))
    return path
