"""Label and score reading shared by the metrics: ``y_true`` with ``pos_label`` as the positive class,
``y_pred`` labels or 0/1 decisions, and the ``pos_label`` column of a ``predict_proba`` output.

Kept apart from :mod:`csboost_plugins.metrics` so every metric module (the money metrics and the
expected-maximum-profit ones) reads labels one way without importing the other.
"""

from __future__ import annotations

import numpy as np

from .costs import check_binary_labels


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
    """``pos_label=None``: 1 for labels among {0, 1} or {-1, 1} (booleans too), else a ValueError (``roc_curve``'s rule)."""
    if not any(_is_text(v) for v in labels) and (all(v in (0, 1) for v in labels) or all(v in (-1, 1) for v in labels)):
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
        if two:
            true_labels = classes.tolist()
        else:  # check_binary_labels names a lone numeric label [0, 1]: take the label itself
            true_labels = np.asarray(y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true).ravel()[:1].tolist()
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
