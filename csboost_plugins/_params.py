"""How every estimator and callback of both packages records its constructor arguments."""

from __future__ import annotations

__all__ = ["store_init_args"]

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
