"""PyG's ``Reshape(*shape)``: ``x.view(*shape)`` as a layer (no weights).

As torch's ``view``, the result shares ``x``'s memory (nothing is copied; ``-1`` is inferred)
and a layout that cannot be viewed in the new shape (a transposed array flattened, say) is a
``ValueError`` rather than a silent copy.

>>> import numpy as np
>>> from arraygnn.nn import Reshape
>>> Reshape(-1, 6)(np.zeros((4, 3, 2))).shape
(4, 6)
>>> Reshape(2, 3)
Reshape(2, 3)
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module

__all__ = ["Reshape", "from_pyg_module"]


class Reshape(Module):
    """PyG's ``torch_geometric.nn.Reshape(*shape)``.

    Shapes:
        - input: any, with as many elements as ``shape`` describes
        - output: ``shape`` (a view of the input)
    """

    def __init__(self, *shape: Any) -> None:
        self.shape = shape

    def __call__(self, x: Any) -> Any:
        xp = get_namespace(x)
        try:
            out = x.reshape(*self.shape)
        except (ValueError, TypeError) as err:
            raise ValueError(
                f"Reshape: cannot view x of shape {tuple(x.shape)} as {self.shape}: {err}"
            ) from None
        # NumPy / CuPy copy silently where torch's view refuses; other arrays (JAX: no
        # strides, immutable) have no view to keep
        if out.size and is_array(x) and not xp.may_share_memory(out, x):
            raise ValueError(
                f"Reshape: x of shape {tuple(x.shape)} and strides {tuple(x.strides)} cannot be "
                f"viewed as {self.shape} without a copy (as torch's view); make it contiguous "
                "first"
            )
        return out

    def extra_repr(self) -> str:
        return ", ".join(str(dim) for dim in self.shape)


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> Reshape:
    """PyG's ``Reshape`` -> ours (the same shape)."""
    return Reshape(*module.shape)
