"""How every estimator and callback of both packages records its constructor arguments, and the seed
it hands to the native libraries."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["native_seed", "store_init_args"]

_NOT_PARAMETERS = ("self", "__class__", "kwargs")


def store_init_args(obj, args):
    """Set each constructor argument as the attribute of the same name, unchanged.

    scikit-learn's rule: ``__init__`` only records its parameters (``get_params``, ``clone`` and
    ``set_params`` read them back by name); validation belongs in ``fit``.

    Parameters
    ----------
    obj : object
        The instance being constructed.
    args : dict
        The ``__init__``'s ``locals()``, taken before it binds any other local name. ``self``,
        ``__class__`` (there when the ``__init__`` calls ``super()``) and a ``**kwargs`` dict
        (the caller stores it its own way) are skipped.
    """
    for name, value in args.items():
        if name not in _NOT_PARAMETERS:
            setattr(obj, name, value)


def native_seed(random_state) -> int:
    """The integer seed handed to xgboost / lightgbm for a scikit-learn ``random_state``."""
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    if isinstance(random_state, np.random.Generator):  # accepted by XGBClassifier and LGBMClassifier
        return int(random_state.integers(np.iinfo(np.int32).max))
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
