"""The lightgbm plugin's native helpers (objective, money metrics, cost Dataset, start margin, deployable boosters).

Public through :mod:`csboost_plugins.lgb`, which re-exports them with the
scikit-learn wrapper (:mod:`csboost_plugins.boosting._lgb_sklearn` imports this module,
never the reverse: lightgbm's engine / sklearn split).
"""

from __future__ import annotations

import re

import lightgbm as lgb
import numpy as np

from . import _aec, _money_eval, _native_input
from .._docstrings import fill_doc
from .._validation import check_sample_weight
from ._lgb_data import (_IO, MARGIN_ATTR as _MARGIN_ATTR, MoneyMetric, _n_rows, check_feval_call, get_costs,
                        reference_margin)
from ._lgb_callback import early_stopping, record_money
from ._money_eval import DEFAULT_METRIC_DECISION, DEFAULT_WATCH
from ..costs import check_costs

__all__ = [
    *_money_eval.PLUGIN_NAMES,
    "attach_costs",
    "cost_dataset",
    "get_costs",
    "bake_start_margin",
    "predict_proba",
    "is_baked",
    "to_deployable",
    "dask_cost_inputs",
    "early_stopping",
    "record_money",
    "cv",
]



@fill_doc
def attach_costs(dataset, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, warn=True):
    """Attach per-row costs to a ``lgb.Dataset`` (validated against its row count).

    ``dataset.subset(rows)`` (how ``lgb.cv`` builds its folds) carries ``costs[rows]``
    and the start margin. A validation set of a cost Dataset
    (``dtrain.create_valid(X, label=y)``, or ``reference=dtrain``) without an init
    score gets the training set's start margin as its init score, as with
    :func:`cost_dataset`, so its raw scores start where training scores start.

    Parameters
    ----------
    dataset : lightgbm.Dataset
    %(native_costs, warn)s

    Returns
    -------
    lightgbm.Dataset
        The same ``dataset`` object, with its costs stored on it.
    """
    if not isinstance(dataset, lgb.Dataset):
        raise TypeError(f"dataset must be a lightgbm.Dataset, got {type(dataset).__name__}")
    label = dataset.get_label() if dataset._handle is not None or dataset.label is not None else None
    if label is not None:
        bad = np.setdiff1d(np.unique(np.asarray(label, dtype=np.float64)), (0.0, 1.0))
        if bad.size:
            raise ValueError(f"the Dataset's label must be 0/1 (the AEC's y), found {bad[:5].tolist()}: build it "
                             "with cost_dataset(X, y, ...), which maps two classes to 0/1")
    costs = check_costs(_n_rows(dataset), fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                        cost_matrix=cost_matrix, warn=warn)
    _money_eval.keep_costs_on_subsets(dataset, "subset", (_MARGIN_ATTR,), order=np.sort)  # subset sorts its rows
    m0 = reference_margin(dataset)
    if m0 is not None and dataset.init_score is None and dataset._handle is None:
        dataset.set_init_score(np.full(costs.shape[0], m0))
        setattr(dataset, _MARGIN_ATTR, m0)
    return _money_eval.store_costs(dataset, costs)


@fill_doc
def cost_dataset(X, y, *, fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, weight=None,
                 start_margin="cost_prior", reference=None, pos_label=None, **dataset_kwargs):
    """A ``lgb.Dataset`` carrying its rows' costs, with ``init_score`` = the start margin.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, p)
    %(native_y, native_costs, native_weight)s
    start_margin : {"cost_prior", "prior"} or float or None, default "cost_prior"
        See :func:`csboost_plugins.boosting._aec.start_margin`; None: no init score. Must be
        finite. With ``reference=dtrain`` (validation sets) the training set's start
        margin is reused, so validation scores start where training scores start.
    reference : lightgbm.Dataset, optional
        The training set (bins and start margin).
    %(native_pos_label)s
    **dataset_kwargs
        Passed to ``lgb.Dataset``; ``free_raw_data`` defaults to False.

    Returns
    -------
    lightgbm.Dataset
    """
    if "init_score" in dataset_kwargs:
        raise ValueError("cost_dataset sets init_score to the start margin (one number, which bake_start_margin "
                         "puts into the model); pass start_margin=<float> instead of init_score=")
    y01 = _native_input.check_builder_labels(X, y, "cost_dataset", pos_label, [
        ("weight", weight), ("fp_cost", fp_cost), ("fn_cost", fn_cost), ("tp_cost", tp_cost), ("tn_cost", tn_cost),
        ("cost_matrix", cost_matrix)])
    names = dataset_kwargs.get("feature_name", "auto")
    _native_input.check_feature_names([str(c) for c in X.columns] if names == "auto" and hasattr(X, "columns")
                                      else None if names == "auto" else names,
                                      "lightgbm", "X" if names == "auto" else "feature_name")
    weight = _check_weight(weight, y01.shape[0])
    if reference is not None and hasattr(reference, _MARGIN_ATTR):  # a cost Dataset: start where it starts
        margin = getattr(reference, _MARGIN_ATTR)
    elif start_margin is None:
        margin = None
    else:
        d = None
        if start_margin == "cost_prior":
            costs = check_costs(y01.shape[0], fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                cost_matrix=cost_matrix, warn=False)
            d = _aec.regret_difference(y01, costs)
        margin = _aec.start_margin(y01, weight, kind=start_margin, d=d)
    init = None if margin is None else np.full(y01.shape[0], margin)
    dataset_kwargs.setdefault("free_raw_data", False)
    ds = lgb.Dataset(X, label=y01, weight=weight, init_score=init, reference=reference, **dataset_kwargs)
    setattr(ds, _MARGIN_ATTR, margin)
    return attach_costs(ds, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                        cost_matrix=cost_matrix)


def _check_weight(weight, n):
    """``weight`` as a float64 array of ``n`` finite non-negative values (None stays None)."""
    return check_sample_weight(weight, n, name="weight", rows_of="y")


class AECObjective(_money_eval.AECObjectiveBase):
    """Callable AEC objective for ``params["objective"]`` / ``LGBMClassifier(objective=)``.

    lightgbm calls it as ``f(preds, dataset)`` from ``lgb.train`` (costs and weight
    from the Dataset) or as ``f(y_true, y_pred, weight, group)`` from the
    scikit-learn wrapper (costs bound here, one per training row in order; or
    ``costs_in_weight=True`` for label/weight produced by :func:`dask_cost_inputs`).

    Parameters
    ----------
    hessian, hessian_floor, logloss_weight, cost_scale, costs_in_weight
        As in :class:`csboost_plugins.xgb.AECObjective`.
    fp_cost, fn_cost, tp_cost, tn_cost : float or array-like of shape (n,), optional
        Training rows' money for the scikit-learn wrapper.
    cost_matrix : array-like of shape (n, 4), optional
        ``[C_FP, C_FN, C_TP, C_TN]`` instead of the four costs.
    """

    def __init__(self, *, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, cost_scale="auto",
                 fp_cost=None, fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, costs_in_weight=False):
        super().__init__(hessian=hessian, hessian_floor=hessian_floor, logloss_weight=logloss_weight,
                         cost_scale=cost_scale, costs_in_weight=costs_in_weight)
        self.costs = None
        if fp_cost is not None or fn_cost is not None or cost_matrix is not None:
            self.costs = check_costs(None if cost_matrix is not None else _len_of(fp_cost, fn_cost),
                                     fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                                     cost_matrix=cost_matrix)

    _io = _IO

    def __call__(self, preds, data, weight=None, group=None):
        """Gradient and hessian of the AEC at the margins.

        Parameters
        ----------
        preds : numpy.ndarray of shape (n,)
            Margins (``lgb.train``) or ``y_true`` (scikit-learn wrapper).
        data : lightgbm.Dataset or numpy.ndarray
            Training Dataset (``lgb.train``) or the margins (scikit-learn wrapper).
        weight : numpy.ndarray, optional
            Sample weights (scikit-learn wrapper).
        group : None
            Unused (ranking groups).

        Returns
        -------
        grad, hess : numpy.ndarray of shape (n,)
        """
        if isinstance(data, lgb.Dataset):  # lgb.train: f(preds, dataset)
            return self._data_grad_hess(preds, data)
        # scikit-learn wrapper: f(y_true, y_pred, weight, group)
        y = np.asarray(preds, dtype=np.float64).reshape(-1)
        m = np.asarray(data, dtype=np.float64).reshape(-1)
        w = None if weight is None else np.asarray(weight, dtype=np.float64)
        if self.costs_in_weight:
            return self._grad_hess(m, y, 1.0 - 2.0 * y, w)
        if self.costs is None:
            raise ValueError(
                "AECObjective has no costs for the scikit-learn wrapper: pass aec_objective(fp_cost=..., "
                "fn_cost=...) with the training rows' costs, or use CSLGBMClassifier"
            )
        if self.costs.shape[0] != y.shape[0]:
            raise ValueError(f"the objective holds costs for {self.costs.shape[0]} rows but lightgbm trains on "
                             f"{y.shape[0]}")
        d = _aec.regret_difference(y, self.costs)
        scale = _aec.cost_scale(d, w) if self.cost_scale == "auto" else float(self.cost_scale)
        return self._grad_hess(m, y, d / scale, w)


def _len_of(*vals):
    for v in vals:
        if v is not None and np.ndim(v) >= 1:
            return len(v)
    raise ValueError("aec_objective(fp_cost=..., fn_cost=...) needs per-row arrays (one per training row)")


def aec_objective(*args, hessian="abs", hessian_floor=0.1, logloss_weight=0.0, cost_scale="auto", fp_cost=None,
                  fn_cost=None, tp_cost=0.0, tn_cost=0.0, cost_matrix=None, costs_in_weight=False) -> AECObjective:
    """The AEC objective for lightgbm.

    Parameters
    ----------
    *args
        Refused: present only to turn lightgbm calling the factory itself as the
        objective (``params["objective"] = aec_objective`` uncalled) into a clear ``TypeError``.
    hessian, hessian_floor, logloss_weight, cost_scale, fp_cost, fn_cost, tp_cost, tn_cost, cost_matrix, costs_in_weight
        See :class:`AECObjective`.

    Returns
    -------
    AECObjective
    """
    if args:
        raise TypeError("aec_objective is a factory, not the objective: lightgbm called it with "
                        f"{len(args)} data arguments. Call it: params['objective'] = aec_objective()")
    return AECObjective(hessian=hessian, hessian_floor=hessian_floor, logloss_weight=logloss_weight,
                        cost_scale=cost_scale, fp_cost=fp_cost, fn_cost=fn_cost, tp_cost=tp_cost, tn_cost=tn_cost,
                        cost_matrix=cost_matrix, costs_in_weight=costs_in_weight)


# documented and pickled as csboost_plugins.lgb's own
get_costs.__module__ = MoneyMetric.__module__ = __name__

aec_metric = MoneyMetric("aec")
savings_metric = MoneyMetric("savings")
expected_savings_metric = MoneyMetric("expected_savings")


class MoneyMetrics(_money_eval.MoneyMetricsBase):
    """``feval=`` reporting aec, expected_savings and savings of each eval set.

    Called as ``feval(preds, dataset)`` it returns a list of ``(name, value, is_higher_better)``.

    Parameters
    ----------
    watch : {"aec", "expected_savings", "savings"}, default "aec"
        Reported first: the metric lightgbm's own
        ``lgb.early_stopping(..., first_metric_only=True)`` watches.
    decision, preds
        As in :class:`MoneyMetric`.
    """

    _metric = MoneyMetric

    def __init__(self, *, watch=DEFAULT_WATCH, decision=DEFAULT_METRIC_DECISION, preds="margin"):
        super().__init__(watch=watch, decision=decision, preds=preds)
        self.parts.insert(0, self.parts.pop())  # lightgbm stops on the first metric, xgboost on the last

    @fill_doc
    def __call__(self, preds, dataset, *rest):
        """The metrics of one eval set.

        One ``(name, value, is_higher_better)`` tuple per metric of ``parts``, in order.

        %(lgb_eval_args)s
        *rest
            Refused, as in :class:`MoneyMetric`.

        Returns
        -------
        list of (str, float, bool)
        """
        check_feval_call(dataset, rest)
        return [(name, value, _aec.METRICS[name]) for name, value in self.values(preds, dataset)]


money_metric, money_metrics = _money_eval.metric_factories(MoneyMetric, MoneyMetrics)


def _leaf_indices(node):
    if "leaf_index" in node:
        return [node["leaf_index"]]
    if "left_child" not in node:  # a tree that is a single leaf
        return [0]
    return _leaf_indices(node["left_child"]) + _leaf_indices(node["right_child"])


_DEPLOYED_OBJECTIVE = "objective=binary sigmoid:1"  # lightgbm's own binary objective: predict() = sigmoid(raw)
_BAKED_ATTR = "_csboost_baked_margin"  # the margin a bake in this process added (Python-side record)


def _header(model_str):
    return model_str[: model_str.find("\nTree=")]


def _header_objective(booster):
    """The ``objective=...`` line of the model text's header, or None (custom objective, not baked)."""
    for line in _header(booster.model_to_string(num_iteration=1)).splitlines():
        if line.startswith("objective="):
            return line
    return None


def is_baked(booster) -> bool:
    """Whether the booster's raw scores include the start margin.

    Parameters
    ----------
    booster : lightgbm.Booster

    Returns
    -------
    bool
        True after :func:`bake_start_margin` (the model text says
        ``objective=binary sigmoid:1``, as lightgbm's own binary objective does).
    """
    return _header_objective(booster) == _DEPLOYED_OBJECTIVE


def _check_booster(booster):
    if not isinstance(booster, lgb.Booster):
        raise TypeError(f"booster must be a lightgbm.Booster, got {type(booster).__name__}")
    if booster.num_trees() == 0:
        raise ValueError("the booster has no tree to hold the start margin")
    if booster.num_model_per_iteration() != 1:
        raise ValueError("the AEC booster is binary: expected one tree per iteration, got "
                         f"{booster.num_model_per_iteration()}")


def _shift_linear_constants(text, margin):
    """Model text with ``margin`` added to the first tree's ``leaf_const`` when it is linear
    (``linear_tree=True``): a linear leaf outputs leaf_const + coeff . x, its leaf_value only
    when one of its features is NaN."""
    start = text.index("\nTree=0\n")
    nxt = re.compile(r"\nTree=\d+\n|\nend of trees").search(text, start + 1)
    end = nxt.start() if nxt else len(text)
    block = text[start:end]
    m = re.search(r"\nleaf_const=([^\n]*)", block)
    if "\nis_linear=1\n" not in block or m is None:
        return text
    consts = " ".join(repr(float(v) + margin) for v in m.group(1).split())
    block = block[:m.start(1)] + consts + block[m.end(1):]
    # the header's tree_sizes gives each tree's length in bytes (lightgbm aborts on a wrong one)
    sizes = re.search(r"^tree_sizes=(\d+)", text, flags=re.M)
    size0 = str(int(sizes.group(1)) + len(block) - (end - start))
    return text[:sizes.start(1)] + size0 + text[sizes.end(1):start] + block + text[end:]


def bake_start_margin(booster, margin):
    """Put the start margin in the model, once: afterwards the booster is a plain binary model.

    lightgbm never stores a Dataset's init score (LightGBM#1778), so the margin m0 is
    added to every leaf of the first tree, and the model text gets lightgbm's
    ``objective=binary sigmoid:1``: ``predict(raw_score=True)`` = m0 + sum of
    leaves, ``predict()`` = sigmoid of it = :func:`predict_proba`, also after
    ``save_model`` in plain lightgbm and in converters (ONNX, treelite).

    In place (the booster is reloaded from its modified text, so it cannot be
    trained further) and idempotent: a booster that already says
    ``objective=binary sigmoid:1`` is returned unchanged (baking the same margin
    again is a no-op; a different margin a ``ValueError``).

    Parameters
    ----------
    booster : lightgbm.Booster
        Trained with :class:`AECObjective`.
    margin : float or lightgbm.Dataset
        The start margin (finite), or the Dataset built by :func:`cost_dataset`
        (its init score; a Dataset built with ``start_margin=None`` bakes 0; a
        Dataset trained with ``init_model=`` a baked booster bakes 0, the margin
        being in the init model's first tree already: continue training from baked
        boosters only, an unbaked one has scores without the start margin).

    Returns
    -------
    lightgbm.Booster
        ``booster`` itself.
    """
    if isinstance(margin, lgb.Dataset) and getattr(margin, "_predictor", None) is not None:
        # trained with init_model=: lightgbm replaced the init score by the init model's raw scores,
        # whose start margin (baked) is in the init model's first tree, which the booster keeps
        margin = 0.0
    elif isinstance(margin, lgb.Dataset):
        if not hasattr(margin, _MARGIN_ATTR):
            raise ValueError("bake_start_margin: the Dataset was not built by csboost_plugins.lgb.cost_dataset, so "
                             "its start margin is unknown; pass the margin as a float")
        margin = getattr(margin, _MARGIN_ATTR)
        margin = 0.0 if margin is None else margin
    try:
        margin = float(margin)
    except (TypeError, ValueError):
        raise TypeError(f"margin must be a float or a cost_dataset Dataset, got {type(margin).__name__}") from None
    if not np.isfinite(margin):
        raise ValueError(f"bake_start_margin: margin must be finite, got {margin!r}")
    _check_booster(booster)
    objective = _header_objective(booster)
    if objective is not None:
        if objective != _DEPLOYED_OBJECTIVE:
            raise ValueError(f"bake_start_margin: the booster was trained with lightgbm's {objective!r}, not the AEC "
                             "objective; it has no start margin to bake")
        done = getattr(booster, _BAKED_ATTR, margin)
        if done != margin:
            raise ValueError(f"bake_start_margin: the booster already holds start margin {done!r}; "
                             f"baking {margin!r} as well would shift every score")
        return booster  # already baked (here, or before save_model): baking again would shift the scores
    tree = booster.dump_model(num_iteration=1)["tree_info"][0]["tree_structure"]
    for leaf in _leaf_indices(tree):
        booster.set_leaf_output(0, leaf, booster.get_leaf_output(0, leaf) + margin)
    text = _shift_linear_constants(booster.model_to_string(num_iteration=-1), margin)
    head = _header(text)
    lines = head.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("max_feature_idx=")) + 1
    lines.insert(at, _DEPLOYED_OBJECTIVE)
    best = booster.best_iteration
    # the parameters block is what Booster(model_str=).params reads (onnxmltools takes the objective from it)
    rest = text[len(head):].replace("\n[objective: custom]\n", "\n[objective: binary]\n", 1)
    booster.model_from_string("\n".join(lines) + rest)
    booster.best_iteration = best
    setattr(booster, _BAKED_ATTR, margin)
    return booster


def _require_baked(booster, what):
    _check_booster(booster)
    if not is_baked(booster):
        objective = _header_objective(booster)
        if objective is not None:
            raise ValueError(f"{what}: the booster was trained with lightgbm's {objective!r}, not the AEC objective")
        raise ValueError(f"{what}: the start margin is not in the model yet; call "
                         "csboost_plugins.lgb.bake_start_margin(booster, dtrain) after lgb.train (dtrain = the "
                         "cost_dataset it trained on; bake 0.0 if training used no init_score)")


def predict_proba(booster, X, *, num_iteration=None):
    """P(y=1) = sigmoid(raw score) of an AEC booster whose start margin is baked.

    Parameters
    ----------
    booster : lightgbm.Booster
        After :func:`bake_start_margin`; an unbaked booster raises ``ValueError``
        (its scores would miss the start margin).
    X : array-like or DataFrame of shape (n, p)
    num_iteration : int, optional
        Trees used; None: ``booster.best_iteration`` when early stopping set one.

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    _require_baked(booster, "predict_proba")
    return _aec.sigmoid(booster.predict(X, raw_score=True, num_iteration=num_iteration))


def to_deployable(booster):
    """A new booster that plain lightgbm scores as our :func:`predict_proba` does.

    The model text says ``objective=binary sigmoid:1``, holds the start margin in
    its first tree and stops at ``best_iteration`` when early stopping set one, so
    ``lgb.Booster(model_file=...).predict(X)`` equals :func:`predict_proba` in a
    process that never imports ``csboost_plugins``; ONNX (onnxmltools), treelite
    and shap read it the same way.

    Parameters
    ----------
    booster : lightgbm.Booster
        After :func:`bake_start_margin` (``ValueError`` otherwise).

    Returns
    -------
    lightgbm.Booster
    """
    _require_baked(booster, "to_deployable")
    best = booster.best_iteration if booster.best_iteration > 0 else -1
    return lgb.Booster(model_str=booster.model_to_string(num_iteration=best))


def dask_cost_inputs(y, *, fp_cost, fn_cost, tp_cost=0.0, tn_cost=0.0, sample_weight=None,
                     start_margin="cost_prior"):
    """Label, weight and init score (dask arrays, partitioned like ``y``) for ``DaskLGBMClassifier``.

    Fit ``DaskLGBMClassifier(objective=aec_objective(costs_in_weight=True))`` with
    ``fit(X, z, sample_weight=weight, init_score=init_score)``, then
    ``bake_start_margin(model.booster_, info["start_margin"])``.

    Parameters
    ----------
    y : dask array
    fp_cost, fn_cost, tp_cost, tn_cost : dask array or float
        Per-row money, chunked like ``y``.
    sample_weight : dask array, optional
        Row weights, chunked like ``y``; folded into ``weight``.
    start_margin : {"cost_prior", "prior"} or float, default "cost_prior"

    Returns
    -------
    z, weight, init_score : dask arrays
    info : dict
        The global ``cost_scale`` and ``start_margin``.
    """
    z, w, info = _aec.fold_costs_dask(y, fp_cost, fn_cost, tp_cost, tn_cost, sample_weight, start_margin)
    return z, w, w * 0.0 + info["start_margin"], info


def cv(params, train_set, num_boost_round=100, *, feval=None, **kwargs):
    """``lightgbm.cv`` of the AEC objective, reporting the money metrics of each fold's own costs.

    Plain ``lightgbm.cv`` with ``params["objective"] = aec_objective()`` and no ``feval=``
    returns ``{}``: the AEC has no built-in lightgbm metric. Here the objective defaults
    to :func:`aec_objective` and ``feval`` to :func:`money_metrics` (``aec`` first, where
    ``lgb.early_stopping(..., first_metric_only=True)`` looks).

    Parameters
    ----------
    params : dict
        Native lightgbm parameters; without an objective (or one of its aliases) the
        AEC objective with its defaults.
    train_set : lightgbm.Dataset
        Carrying its rows' costs and start margin (:func:`cost_dataset`); each fold keeps both.
    num_boost_round : int, default 100
        Boosting rounds.
    feval : callable or list of callables, optional
        None: :func:`money_metrics` with its defaults.
    **kwargs
        Passed to ``lightgbm.cv`` (``nfold``, ``folds``, ``stratified``, ``seed``, ``callbacks``, ...).

    Returns
    -------
    dict
        ``lightgbm.cv``'s history: ``"valid <metric>-mean"`` / ``"-stdv"`` lists per round.
    """
    from lightgbm.basic import _ConfigAliases

    get_costs(train_set)  # a Dataset without costs: the ValueError naming the fix, before any fold is built
    params = dict(params or {})
    if not any(k in params for k in _ConfigAliases.get("objective")):
        params["objective"] = aec_objective()
    return lgb.cv(params, train_set, num_boost_round, feval=money_metrics() if feval is None else feval, **kwargs)
