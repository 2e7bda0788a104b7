"""Where data enters the library, checked once: labels, row weights, the cost keywords and X.

Every estimator, metric and data builder reads its inputs through these functions, so a label
rule, a weight rule or a message about a column is written once:

- labels: :func:`check_binary_labels` (two classes as 0/1), :func:`fit_labels` (an estimator's
  ``y`` with ``pos_label``: 1 = the class whose miss costs ``C_FN``, ``classes_`` = [negative,
  positive]) and :class:`_BinaryLabels` (the metrics' ``y_true`` / ``y_pred``);
- row weights: :func:`check_sample_weight`;
- cost keywords: :mod:`csboost_plugins._rows` (``fn_cost`` without ``fp_cost`` is a ``TypeError``);
- X: :func:`check_X_columns` (datetime / timedelta / text columns) and :func:`check_X_values`
  (inf, values beyond float32, NaN where refused, named by column with the row count) and
  :func:`check_feature_names` (names a host library refuses).

Not public: :func:`check_binary_labels` is shown as :mod:`csboost_plugins.costs`'s.
"""

from __future__ import annotations

import numbers

import numpy as np


# ------------------------------------------------------------------------------ rows
# check_same_index: the rule that pandas arguments share the rows' index (with the cost readers)
from ._cost_columns import check_same_index


# ------------------------------------------------------------------------------ labels
def check_binary_labels(y, *, name: str = "y", require_both: bool = True, return_classes: bool = False):
    """Return y as an int64 array of 0/1.

    Accepts {0, 1}, booleans, {-1, 1}, or any two values: as in scikit-learn,
    the sorted unique values map to 0 and 1 (so the *larger* value, or the later
    string, is the positive class). Raises ``ValueError`` for more than two
    classes, NaN labels, an empty y, or a single class when ``require_both``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels.
    name : str, default="y"
        Argument name used in error messages.
    require_both : bool, default=True
        Raise when only one class is present.
    return_classes : bool, default=False
        Also return the original labels mapped to 0 and 1.

    Returns
    -------
    y01 : ndarray of shape (n_samples,)
        The labels as int64 0/1.
    classes : ndarray
        The original labels of 0 and 1 (only when ``return_classes``).
    """
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{name} contains NaN labels")
    found = _two_values(y)  # O(n) for numbers and booleans; np.unique sorts (and names extra classes)
    classes, yi = found if found is not None else np.unique(y, return_inverse=True)
    if classes.shape[0] > 2:
        raise ValueError(
            f"{name} must be binary; found {classes.shape[0]} classes: {classes[:5].tolist()}"
        )
    if classes.shape[0] == 1:
        if require_both:
            raise ValueError(
                f"{name} contains only one class ({classes[0]!r}); the metric/model needs both classes"
            )
        c = classes[0]
        # A single class keeps its meaning when it is recognisably 0/1.
        positive = bool(c == 1) if y.dtype.kind in "biuf" else False
        yi = np.full(y.shape[0], int(positive), dtype=np.int64)
        classes = np.array([0, 1]) if y.dtype.kind in "biuf" else classes
    out = yi.astype(np.int64, copy=False).ravel()
    return (out, classes) if return_classes else out


def _two_values(y):
    """``np.unique(y, return_inverse=True)`` of a numeric or boolean ``y`` (no NaN) holding one or two
    values, in a few linear passes (min, max, equality counts) instead of a sort; None for any other
    ``y`` (text, objects, more than two values, or a ``-0.0`` whose sign a sort may keep), which
    ``np.unique`` then reads."""
    if y.dtype.kind not in "biuf":
        return None
    lo, hi = y.min(), y.max()
    if lo == hi:
        classes, upper = np.array([lo], dtype=y.dtype), None
    else:
        upper = y == hi
        adjacent = y.dtype.kind in "biu" and int(hi) - int(lo) == 1  # integers: nothing lies between lo and hi
        if not adjacent and np.count_nonzero(upper) + np.count_nonzero(y == lo) != y.shape[0]:
            return None  # a third value: np.unique counts and names the classes
        classes = np.array([lo, hi], dtype=y.dtype)
    if y.dtype.kind == "f" and (lo == 0 or hi == 0) and np.any(np.signbit(y) & (y == 0)):
        return None  # -0.0 equals 0.0: which of them np.unique keeps as the class depends on its sort
    return classes, (upper.astype(np.int64) if upper is not None else np.zeros(y.shape[0], np.int64))


def _as_float(value, name):
    """``value`` as a float64 array; TypeError naming the argument when it is not numeric."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {np.asarray(value).dtype} values ({exc})") from exc


def _scores(value, name, *, column=lambda: 1):
    """1-D float scores: an (n, 1) column is raveled; an (n, 2) ``predict_proba`` output gives its column
    ``column()`` (P(pos_label)); ``column=None``: no two-column form (decisions)."""
    v = _as_float(value, name)
    if column is not None and v.ndim == 2 and v.shape[1] == 2:
        v = v[:, column()]
    v = v.reshape(-1) if v.ndim == 2 and 1 in v.shape else v
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D (or an (n, 2) predict_proba output), got shape {v.shape}")
    if np.isnan(v).any():
        raise ValueError(f"{name} contains NaN")
    return v


def _check_pos_label(pos_label):
    """``pos_label`` as a plain Python label; TypeError when it is not one value."""
    if isinstance(pos_label, np.generic):
        pos_label = pos_label.item()
    if not isinstance(pos_label, (str, bytes, bool, int, float)) or pos_label != pos_label:  # NaN != NaN
        raise TypeError(f"pos_label must be one label (an int, float, bool or str), got {pos_label!r}")
    return pos_label


def _is_text(value):
    return isinstance(value, (str, bytes))


def _index_of(labels, pos_label):
    """Position of ``pos_label`` among ``labels`` (Python values; 1 == 1.0 == True, "1" != 1), else None."""
    return next((i for i, label in enumerate(labels) if label == pos_label), None)


def _numeric(p):
    """``p`` as numbers when it holds numbers (an object column of ints too), else None (text labels)."""
    if p.dtype.kind in "biuf":
        return p
    if p.dtype.kind == "O" and not any(_is_text(v) for v in p):  # "1" is a text label, not a number
        try:
            return p.astype(np.float64)
        except (TypeError, ValueError):
            return None
    return None


def _default_pos_label(labels):
    """``pos_label=None``: 1 for labels among {0, 1} or {-1, 1} (booleans too), else a ValueError
    (``roc_curve``'s rule, :func:`positive_is_known`)."""
    if positive_is_known(labels):
        return 1
    raise ValueError(f"y_true holds the labels {labels}: pass pos_label= the positive class (the label whose miss "
                     "costs C_FN), as scikit-learn's roc_curve asks for labels other than {0, 1} or {-1, 1}")


class _BinaryLabels:
    """y_true (and y_pred's labels) read with ``pos_label`` as the positive class, as scikit-learn's metrics.

    Two labels seen: ``pos_label`` must be one of them (``ValueError`` in
    ``precision_score``'s words otherwise). One label seen (a fold of one class): it is
    positive when it is ``pos_label``; negative when it is 0/False or a label of
    ``pos_label``'s kind (text vs number); a lone text label against a numeric
    ``pos_label`` (the default 1) is a ``ValueError`` rather than silently a negative.

    Attributes
    ----------
    y01 : ndarray of shape (n_samples,)
        y_true as int64 0/1, 1 = ``pos_label``.
    labels : list
        The labels seen (sorted), in y_true and in y_pred when it holds labels.
    """

    def __init__(self, y_true, y_pred, pos_label):
        self.pos_label = None if pos_label is None else _check_pos_label(pos_label)
        yi, classes = check_binary_labels(y_true, name="y_true", require_both=False, return_classes=True)
        two = yi.min() != yi.max()
        true_labels = _label_list(yi, classes, y_true)
        self.labels = sorted(true_labels + self._foreign_labels(y_pred, true_labels))
        if len(self.labels) > 2:
            raise ValueError(f"y_true and y_pred hold more than two labels {self.labels[:5]}: y_pred must be 0/1 "
                             "decisions or labels of y_true")
        if self.pos_label is None:
            self.pos_label = _default_pos_label(self.labels)
        pos_label = self.pos_label
        self._pos = _index_of(self.labels, pos_label)
        if self._pos is None:
            self._check_absent_pos_label()
        if two:  # pos_label is one of the two (else _check_absent_pos_label raised)
            self.y01 = yi if self._pos == 1 else 1 - yi
        else:
            self.y01 = np.full(yi.shape[0], int(_index_of(true_labels, pos_label) is not None), dtype=np.int64)

    def _foreign_labels(self, y_pred, true_labels):
        """y_pred's labels that y_true lacks (none when y_pred holds 0/1 decisions or scores)."""
        self._pred_are_labels = False
        if y_pred is None:
            return []
        p = np.asarray(y_pred).ravel()
        if p.size == 0:
            return []
        text_truth = any(_is_text(v) for v in true_labels)
        num = _numeric(p)
        if num is not None:
            allowed = np.array([v for v in [*true_labels, self.pos_label] if v is not None and not _is_text(v)],
                               dtype=np.float64)
            # labels: all among y_true's (and pos_label), or whole numbers that are not 0/1 decisions
            labels = np.isin(num, allowed).all() or \
                (np.all(num == np.round(num)) and not np.isin(num, [0, 1]).all())
            if text_truth or not labels:
                return []  # 0/1 decisions (or scores, refused by _check_decisions)
            p = num
        elif not text_truth:
            raise ValueError(f"y_pred holds labels {np.unique(p.astype(str))[:5].tolist()} that are neither "
                             f"y_true's classes {true_labels} nor 0/1 decisions")
        self._pred_are_labels = True
        try:
            pred_labels = np.unique(p).tolist()
        except TypeError as exc:  # an object column mixing kinds that do not sort
            raise ValueError(f"y_pred holds values that are neither y_true's classes {true_labels} nor 0/1 "
                             f"decisions ({exc})") from exc
        foreign = [v for v in pred_labels if _index_of(true_labels, v) is None]
        if foreign and len(true_labels) == 2:
            raise ValueError(f"y_pred holds labels {foreign[:5]} that are neither y_true's classes {true_labels} "
                             "nor 0/1 decisions")
        return foreign

    def _check_absent_pos_label(self):
        """``pos_label`` is not among the labels seen: fine only for a lone label that is plainly the negative."""
        # a lone label of pos_label's kind (0 against 1, "ok" against "fraud") is plainly the negative class
        if len(self.labels) == 2 or _is_text(self.labels[0]) != _is_text(self.pos_label):
            raise ValueError(f"pos_label={self.pos_label} is not a valid label. It should be one of "
                             f"{self.labels}: pass pos_label= the one whose miss costs C_FN (the positive class)")

    def decisions(self, y_pred):
        """``y_pred`` as 0/1 decisions: labels map ``pos_label`` to 1, 0/1 decisions stay as they are."""
        if not self._pred_are_labels:
            return y_pred
        p = np.asarray(y_pred)
        if self._pos is None:  # a lone negative label: every predicted label is that negative
            return np.zeros(p.shape, dtype=np.float64)
        pos = self.labels[self._pos]
        num = _numeric(p)
        return ((num if num is not None else p) == pos).astype(np.float64)

    def proba_column(self):
        """Column of ``pos_label`` in an (n, 2) ``predict_proba`` output (columns in sorted label order)."""
        if len(self.labels) == 2 and self._pos is not None:
            return self._pos
        lone = self.labels[0]
        if self._pos is None:  # the lone label is a negative; pos_label is the other column
            return int(sorted([lone, self.pos_label])[-1] == self.pos_label)
        if not _is_text(lone) and lone == 1:  # 1 of {0, 1} or {-1, 1}: the larger, last column
            return 1
        raise ValueError(f"y_true holds only pos_label={self.pos_label}, so the column of pos_label in a "
                         "two-column y_proba is unknown: pass the 1-D probability of pos_label")


def _label_list(y01, classes, y):
    """The labels present in ``y`` (sorted), as Python values."""
    if y01.min() != y01.max() or len(classes) == 1:
        return np.asarray(classes).tolist()
    raw = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
    return raw[:1].tolist()  # check_binary_labels names a lone numeric label [0, 1]: take the label itself


def positive_is_known(labels) -> bool:
    """True when the labels name the positive class themselves: {0, 1}, {-1, 1} or booleans (1 / True)."""
    return not any(_is_text(v) for v in labels) and (all(v in (0, 1) for v in labels)
                                                     or all(v in (-1, 1) for v in labels))


def has_text_labels(y) -> bool:
    """Whether ``y`` holds text labels ("fraud" / "ok"), whose sort order says nothing about the positive class."""
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    return y.dtype.kind in "US" or (y.dtype.kind == "O" and any(_is_text(v) for v in y.ravel()[:1000]))


def pos_label_error(labels, name="y"):
    """The ValueError for labels that do not say which class is positive."""
    shown = " or ".join(f"pos_label={v!r}" for v in labels[:2])
    return ValueError(f"{name} has labels {labels[:5]}; pass {shown} to name the positive class (the label whose "
                      "miss costs fn_cost): only 0/1, -1/1 or boolean labels name it themselves")


def fit_labels(y, pos_label=None, *, name="y", require_both=True, required=True, lone_negative=False):
    """An estimator's labels as ``(y01, classes_)``: int64 0/1 with 1 = the positive class, and
    ``classes_ = [negative label, positive label]``.

    ``pos_label=None``: labels in {0, 1}, {-1, 1} or booleans (1 / True is positive, ``classes_``
    sorted, as before). Other labels (``"fraud"`` / ``"ok"``, 1 / 2) are a ``ValueError`` asking for
    ``pos_label`` when ``required`` (the positive class decides the money); without it they keep
    scikit-learn's sorted order (the later label is ``classes_[1]``), which only symmetric fits may use.

    Parameters
    ----------
    y : array-like of shape (n,)
    pos_label : int, float, bool, str or None
        The positive class (the label whose miss costs ``C_FN``).
    name : str
        The argument's name in messages.
    require_both : bool
        Refuse a ``y`` of one class.
    required : bool
        Whether labels that do not name the positive class are refused without ``pos_label``.
    lone_negative : bool
        A ``y`` of one label of ``pos_label``'s kind (text or number) other than ``pos_label`` is the
        negative class (a period without fraud), rather than a ``ValueError``.

    Returns
    -------
    y01 : ndarray of shape (n,), int64
    classes : ndarray of shape (2,)
        ``[negative, positive]`` in the dtype of ``y``'s labels.
    """
    y01, classes = check_binary_labels(y, name=name, require_both=require_both, return_classes=True)
    labels = _label_list(y01, classes, y)
    if pos_label is None:
        if required and not positive_is_known(labels):
            raise pos_label_error(labels, name)
        return y01, classes
    pos_label = _check_pos_label(pos_label)
    at = _index_of(labels, pos_label)
    if at is None and lone_negative and len(labels) == 1 and _is_text(labels[0]) == _is_text(pos_label):
        return np.zeros(y01.shape[0], dtype=np.int64), np.asarray([labels[0], pos_label])
    if at is None:
        raise ValueError(f"pos_label={pos_label!r} is not a label of {name}: {name} has labels {labels[:5]}")
    if len(labels) == 1:  # one class (require_both=False): it is the positive one
        return np.ones(y01.shape[0], dtype=np.int64), np.asarray(labels)
    y01 = y01 if at == 1 else 1 - y01
    return y01, classes[[1 - at, at]]


def fit_target(y, pos_label=None, *, required, who="the estimator", name="y"):
    """The ``y`` of a binary cost-sensitive ``fit``: scikit-learn's checks (None, 2-D, a continuous or
    multiclass target refused in its words), then :func:`fit_labels` (both classes required).

    Returns
    -------
    y01 : ndarray of shape (n,), int64
    classes : ndarray of shape (2,)
        ``[negative, positive]``.
    """
    from sklearn.utils.multiclass import check_classification_targets, type_of_target
    from sklearn.utils.validation import column_or_1d

    if y is None:
        raise ValueError(f"{who} requires y to be passed, but the target y is None")
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)  # "Unknown label type: continuous" for a regression target
    kind = type_of_target(y, input_name=name)
    if kind != "binary":
        raise ValueError(f"Only binary classification is supported. The type of the target is {kind}: {name} has "
                         f"{np.unique(y).shape[0]} classes and the cost matrix is 2 x 2")
    return fit_labels(y, pos_label, name=name, required=required)


def positive_column(estimator, pos_label=None) -> int:
    """Column of ``pos_label`` in a fitted ``estimator``'s ``predict_proba`` (1 when it has no ``classes_``
    or ``pos_label`` is None)."""
    classes = getattr(estimator, "classes_", None)
    if pos_label is None or classes is None:
        return 1
    at = _index_of(np.asarray(classes).tolist(), _check_pos_label(pos_label))
    if at is None:
        raise ValueError(f"pos_label={pos_label!r} is not one of {type(estimator).__name__}.classes_ "
                         f"{np.asarray(classes).tolist()}")
    return at


def check_predict_positive(estimator, costs_given: bool) -> None:
    """``predict`` with costs decides money by ``classes_[1]``: refuse it when fit saw labels that do not
    name the positive class and no ``pos_label`` (the fit was symmetric, the costs are not)."""
    if costs_given and getattr(estimator, "pos_label", None) is None and \
            not positive_is_known(np.asarray(estimator.classes_).tolist()):
        raise pos_label_error(np.asarray(estimator.classes_).tolist(), "the training y")


def costs_given(fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None) -> bool:
    """Whether any money was given (a cost keyword other than the defaults)."""
    return any(v is not None for v in (fp_cost, fn_cost, cost_matrix)) or _nonzero(tp_cost) or _nonzero(tn_cost)


#: The TypeError of ``fn_cost`` given without ``fp_cost`` (checked in :mod:`csboost_plugins._rows` and
#: :func:`csboost_plugins.costs.check_costs`), the same in every entry point.
FN_COST_ALONE = ("fn_cost was given without fp_cost: pass fp_cost= the cost of an alert (0 when alerts cost "
                 "nothing), or cost_matrix=")


def _nonzero(v) -> bool:
    if v is None:
        return False
    if isinstance(v, (numbers.Number, np.number)):
        return float(v) != 0.0
    return True


# ------------------------------------------------------------------------------ row weights
def check_sample_weight(sample_weight, n, *, name="sample_weight", rows_of="y", index=None, allow_all_zero=True):
    """Row weights as float64 of shape (n,), or None when ``sample_weight`` is None.

    A scalar is every row's weight. ``ValueError`` naming ``name`` on a wrong shape or length, NaN,
    inf, a negative weight and (``allow_all_zero=False``) weights that are all zero; ``TypeError`` when
    not numeric. ``index``: the rows' pandas index, which a pandas ``sample_weight`` must carry.
    """
    if sample_weight is None:
        return None
    if index is not None:
        check_same_index([(name, sample_weight)], index, "X")
    if hasattr(sample_weight, "to_numpy"):
        sample_weight = sample_weight.to_numpy()
    try:
        w = np.array(sample_weight, dtype=np.float64)  # a copy: never written back into the caller's array
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {type(sample_weight).__name__}") from exc
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one weight per row), got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"{name} has length {w.shape[0]} but {rows_of} has {n} rows")
    bad = int((~np.isfinite(w)).sum())
    if bad:
        raise ValueError(f"{name} must be finite and non-negative; {bad} weight(s) are NaN or infinite")
    neg = int((w < 0).sum())
    if neg:
        raise ValueError(f"{name} must be finite and non-negative; {neg} weight(s) are negative")
    if not allow_all_zero and n and not w.sum() > 0:
        raise ValueError(f"{name}: every weight is zero; at least one weight must be positive")
    return w


# ------------------------------------------------------------------------------ X
#: Characters each library refuses in a feature name. lightgbm writes the names into its JSON
#: model dump unescaped and refuses these at Dataset construction; xgboost refuses these three.
REFUSED_NAME_CHARS = {"lightgbm": '",:[]{}', "xgboost": "[]<", "catboost": ""}
#: Libraries that store feature values as float32: a finite float64 beyond its range becomes inf.
FLOAT32_LIBRARIES = ("xgboost",)
FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_feature_names(names, library: str, argument: str = "X") -> None:
    """``ValueError`` naming the feature names ``library`` refuses, the characters and the cure.

    Parameters
    ----------
    names : iterable of str or None
        The feature names the library will be given (None: generated by the library).
    library : {"lightgbm", "xgboost", "catboost"}
    argument : str, default "X"
        What the names belong to, for the message.
    """
    if names is None:
        return
    refused = REFUSED_NAME_CHARS.get(library, "")
    bad = [(str(n), sorted({ch for ch in str(n) if ch in refused})) for n in names]
    bad = [(n, chars) for n, chars in bad if chars]
    if not bad:
        return
    shown = ", ".join(f"{n!r} (has {' '.join(chars)})" for n, chars in bad[:10])
    more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
    raise ValueError(
        f"{argument} has {len(bad)} column name(s) {library} refuses: {shown}{more}. {library} does not accept "
        f"the characters {' '.join(refused)} in feature names; rename the column(s), e.g. "
        f"{argument}.rename(columns=lambda c: ''.join('_' if ch in {refused!r} else ch for ch in str(c)))")


class ColumnTypeError(TypeError, ValueError):
    """A column of X no estimator reads as numbers (dates, text): a ``TypeError`` (its kind is wrong) that
    is also the ``ValueError`` every bad-input error of the library is."""


def check_X_columns(X, argument: str = "X", *, categories: bool = True, text=(), text_cure=None) -> None:
    """``ValueError`` naming a column no estimator reads as numbers: datetime / timedelta (convert them,
    e.g. to seconds) and text / object columns that are not pandas ``category`` columns (the cure offered:
    a category column when the estimator takes them, ``categories``, else encoding as numbers, and a
    category column of text is named too, as numpy could not convert it; ``text``:
    the columns whose text the host reads itself, as CatBoost its ``cat_features``; ``text_cure``: the cure
    the message offers for another text column). Numeric and bool columns pass, whatever values they hold
    (see :func:`check_X_values`).
    Raises :class:`ColumnTypeError` (a ``TypeError`` and a ``ValueError``)."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        kind = getattr(getattr(X, "dtype", None), "kind", "")
        if kind == "M":
            raise ColumnTypeError(f"{argument} is a datetime64 array: convert it to numbers first, e.g. seconds "
                                  "since a start, (X - X.min()) / np.timedelta64(1, 's')")
        if kind == "m":
            raise ColumnTypeError(f"{argument} is a timedelta64 array: convert it to numbers first, e.g. "
                                  "seconds, X / np.timedelta64(1, 's')")
        return
    import pandas as pd

    for j, (col, dt) in enumerate(dtypes.items()):
        if pd.api.types.is_datetime64_any_dtype(dt):
            raise ColumnTypeError(
                f"{argument} column {col!r} is {dt} (dates), which the estimators do not read as numbers: convert it "
                f"first, e.g. to seconds since the first row: (X[{col!r}] - X[{col!r}].min()).dt.total_seconds()")
        if pd.api.types.is_timedelta64_dtype(dt):
            raise ColumnTypeError(f"{argument} column {col!r} is {dt} (durations): convert it first, e.g. to "
                                  f"seconds: X[{col!r}].dt.total_seconds()")
        if not (col in text or isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_numeric_dtype(dt)
                or pd.api.types.is_bool_dtype(dt)):
            values = X.iloc[:, j].dropna()
            example = f" (e.g. {values.iloc[0]!r})" if len(values) else ""
            cure = text_cure or (
                "encode it as numbers, or make it a pandas category column (X[col].astype('category'))" if categories
                else "encode it as numbers first (e.g. sklearn.preprocessing.OrdinalEncoder)")
            raise ColumnTypeError(f"{argument} column {col!r} holds {dt} values{example}, not numbers: {cure}")
    if not categories:  # a category column of text: numpy cannot make it numbers (nor say which column)
        text_cats = [col for col, dt in dtypes.items() if isinstance(dt, pd.CategoricalDtype)
                     and not pd.api.types.is_numeric_dtype(dt.categories.dtype) and col not in text]
        if text_cats:
            first = X[text_cats[0]].cat.categories
            example = f" (e.g. {first[0]!r})" if len(first) else ""
            raise ColumnTypeError(f"{argument} has pandas category column(s) {text_cats[:5]} of text values{example}, "
                                  "which this estimator does not read: encode them as numbers first (e.g. "
                                  "sklearn.preprocessing.OrdinalEncoder), or use a booster that takes categories")


def _float_columns(X, names, allow_nan=False):
    """``(label, 1-D float values)`` of each column of ``X`` that could hold an inf, a huge value or (not
    ``allow_nan``) a NaN; views or single columns (a column of a 2-D array is taken only when its
    reductions are suspect), never a copy of X."""
    if hasattr(X, "tocsr") or hasattr(X, "tocoo"):  # scipy sparse: the stored values, of any column
        data = getattr(X, "data", None)  # dok has none, lil holds lists: left to the estimator
        if isinstance(data, np.ndarray) and data.dtype.kind == "f":
            yield "", data.ravel()  # bsr stores blocks
        return
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # pandas: float columns only (ints, categories, bools fit)
        import pandas as pd

        for j, (col, dt) in enumerate(X.dtypes.items()):
            if pd.api.types.is_float_dtype(dt):
                yield f" column {col!r}", X.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan)
        return
    if not isinstance(X, (np.ndarray, list, tuple)):  # a file path, a GPU array...: left to the library
        return
    X = np.asarray(X)
    if X.ndim != 2 or X.dtype.kind != "f" or X.shape[0] == 0:
        return
    # one reduction pass per direction over X itself; NaN (a missing value) is skipped by fmax / fmin,
    # and shows in a plain sum (as does an inf)
    hi, lo = np.fmax.reduce(X, axis=0), np.fmin.reduce(X, axis=0)
    suspect = ~(np.isfinite(hi) & np.isfinite(lo)) | (np.maximum(np.abs(hi), np.abs(lo)) > FLOAT32_MAX)
    if not allow_nan:  # a NaN column is suspect only when NaN is refused (a rescan would find nothing to say)
        with np.errstate(over="ignore", invalid="ignore"):
            suspect |= np.isnan(np.add.reduce(X, axis=0))
    for j in np.flatnonzero(suspect):
        yield (f" column {names[j]!r}" if names is not None else f" column {j}"), X[:, j]


def check_X_values(X, argument: str = "X", names=None, *, float32: bool = False, allow_nan: bool = True,
                   who: str = "the estimator") -> None:
    """``ValueError`` naming the first column of ``X`` holding what the estimator cannot read, with the
    number of rows: an inf (never: a missing value is NaN), a finite value beyond float32's range
    (``float32``: the host stores features as float32, where it becomes inf) or a NaN (not ``allow_nan``).

    Parameters
    ----------
    X : ndarray, DataFrame or scipy sparse matrix
        Features; non-float columns are not read (they cannot hold these values).
    argument : str, default "X"
        Name of the data in the message (``"X"``, ``"eval_set[0] X"``).
    names : sequence of str, optional
        Column names of an array X (the training DataFrame's).
    float32 : bool, default False
        Refuse finite values with ``|x| > 3.4028235e38``.
    allow_nan : bool, default True
        Whether NaN (a missing value) is taken.
    who : str
        The estimator or library, for the message.
    """
    n = X.shape[0] if hasattr(X, "shape") and len(getattr(X, "shape", ())) == 2 else None
    of_rows = f" of {n} rows" if n is not None and not hasattr(X, "tocoo") else " stored values"
    for where, values in _float_columns(X, names, allow_nan):
        if values.size == 0:
            continue
        hi, lo = float(np.fmax.reduce(values)), float(np.fmin.reduce(values))
        if np.isinf(hi) or np.isinf(lo):
            k = int(np.isinf(values).sum())
            cure = "a missing value must be NaN" if allow_nan else "replace them by finite values"
            raise ValueError(f"{argument}{where} contains an infinite value ({hi if np.isinf(hi) else lo}) in {k}"
                             f"{of_rows}; {cure}")
        big = hi if abs(hi) >= abs(lo) else lo
        with np.errstate(over="ignore"):
            overflow = float32 and bool(np.isinf(np.float32(big)))
        if overflow:
            with np.errstate(over="ignore"):
                k = int(np.isinf(values.astype(np.float32)).sum())
            raise ValueError(
                f"{argument}{where} contains {big:.6g}, a value too large for float32 (largest {FLOAT32_MAX:.6g}), "
                f"in {k}{of_rows}: {who} stores features as float32, where it becomes infinite. Rescale the column "
                "(e.g. express it in a larger unit) or clip it")
        if not allow_nan:
            k = int(np.isnan(values).sum())
            if k:
                raise ValueError(f"{argument}{where} contains NaN in {k}{of_rows}; {who} does not support NaN "
                                 "(a missing value): impute or drop those rows")


def check_X(X, argument: str = "X", names=None, *, allow_nan: bool, float32: bool = False,
            categories: bool = True, who: str = "the estimator") -> None:
    """:func:`check_X_columns` then :func:`check_X_values`: the checks where X enters an estimator."""
    check_X_columns(X, argument, categories=categories)
    check_X_values(X, argument, names, float32=float32, allow_nan=allow_nan, who=who)
