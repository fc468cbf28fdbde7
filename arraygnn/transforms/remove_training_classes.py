"""PyG's :class:`RemoveTrainingClasses`: drop the nodes of some classes from the training
set (``train_mask``), e.g. for a zero-shot setting.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(y=np.array([0, 1, 2, 1]), train_mask=np.ones(4, bool))
>>> RemoveTrainingClasses([1])(d).train_mask.tolist()
[True, False, True, False]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.transforms._graph import check_data
from arraygnn.transforms.base import BaseTransform

__all__ = ["RemoveTrainingClasses"]


class RemoveTrainingClasses(BaseTransform):
    """Set ``train_mask`` to ``False`` where ``y`` is one of ``classes`` (a new mask; the
    caller's is not written). ``Data`` only, as PyG; ``y`` and ``train_mask`` must be
    arrays of the same length.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> RemoveTrainingClasses([]).classes
    []
    """

    def __init__(self, classes: Iterable[int]) -> None:
        if isinstance(classes, (str, bytes)) or not isinstance(classes, Iterable):
            raise TypeError(
                f"RemoveTrainingClasses: classes must be a list of ints, got {classes!r}"
            )
        self.classes = list(classes)
        for c in self.classes:
            if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
                raise TypeError(f"RemoveTrainingClasses: classes must hold ints, got {c!r}")

    def forward(self, data: Any) -> Any:
        where = "RemoveTrainingClasses"
        check_data(where, data, hetero=False)
        for key in ("y", "train_mask"):
            if key not in data or not is_array(data[key]):
                raise ValueError(f"{where}: data has no array {key!r}")
        y, mask = data.y, data.train_mask
        if mask.dtype != np.bool_ or mask.shape != y.shape[:1] or y.ndim != 1:
            raise ValueError(
                f"{where}: train_mask must be a boolean [N] array and y an [N] array, got "
                f"{mask.dtype} {tuple(mask.shape)} and {tuple(y.shape)}"
            )
        xp = get_namespace(y, mask)
        # the classes as int64, not y's dtype: a class y cannot hold (-1 for uint8) matches
        # nothing, as PyG's ``y == i``
        drop = xp.isin(y, xp.asarray(self.classes, dtype=np.int64)) if self.classes else None
        data.train_mask = mask.copy() if drop is None else mask & ~drop
        return data

    def __repr__(self) -> str:
        return f"RemoveTrainingClasses({self.classes})"
