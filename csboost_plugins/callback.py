"""lightgbm callbacks for money: early stopping on one named metric of one named eval set,
and per-iteration recording of savings / expected savings of every eval set.

lightgbm's own ``early_stopping`` stops on *any* metric of *any* validation set;
:func:`early_stopping` watches exactly ``(data_name, metric)``, e.g. the savings of
the validation set, whatever else is reported.
"""

# a facade: the callbacks live with the rest of the lightgbm host in csboost_plugins.boosting
from .boosting._lgb_callback import early_stopping, record_money
from .boosting._sklearn_base import adopt_public_names as _adopt_public_names

__all__ = ["early_stopping", "record_money"]
_adopt_public_names(globals())  # documented, pickled and shown as csboost_plugins.callback.<name>
