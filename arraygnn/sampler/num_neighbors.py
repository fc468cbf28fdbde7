"""``NumNeighbors``: PyG's fan-outs per hop, for one edge type or per edge type.

The neighbour loaders and samplers (:class:`~arraygnn.neighbor_loader.NeighborLoader`,
:class:`~arraygnn.link_neighbor_loader.LinkNeighborLoader`, their heterogeneous forms and
:class:`~arraygnn.sampler.NeighborSampler`) take ``num_neighbors`` as a list, a dict per
edge type or a :class:`NumNeighbors`; a ``NumNeighbors`` with a dict of values fills the
edge types it does not name with ``default``.

RULE: ``values`` is a list (every edge type alike; ``default`` must then be ``None``) or a
      dict keyed by ``(src, rel, dst)`` / ``(src, dst)`` (relation ``'to'``) /
      ``'src__rel__dst'``, stored under the ``'src__rel__dst'`` string (PyG's
      ``EdgeTypeStr``); ``get_values(edge_types)`` / ``get_mapped_values(edge_types)`` give
      every edge type of the graph its fan-outs (tuple / string keys), and refuse a key that
      is no edge type, a missing type without ``default`` and unequal hop counts.
Difference from PyG: the values are remembered per ``edge_types`` argument (PyG remembers
the first call's answer and returns it for every later one, whatever its argument), and a
``values`` that is neither a list nor a dict is refused when made (PyG fails on use).

>>> nn = NumNeighbors({("user", "rates", "movie"): [5, 2]}, default=[1, 1])
>>> nn
NumNeighbors(values={'user__rates__movie': [5, 2]}, default=[1, 1])
>>> nn.get_values([("user", "rates", "movie"), ("movie", "rev", "user")])
{('user', 'rates', 'movie'): [5, 2], ('movie', 'rev', 'user'): [1, 1]}
>>> nn.num_hops, len(NumNeighbors([10, 5, 5]))
(2, 3)
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["NumNeighbors"]

_SPLIT = "__"  # PyG's EDGE_TYPE_STR_SPLIT


class _EdgeTypeStr(str):
    """An edge type as one ``'src__rel__dst'`` string (PyG's ``EdgeTypeStr``)."""

    edge_type: tuple[str, str, str]

    def __new__(cls, *args: Any) -> _EdgeTypeStr:
        from arraygnn.hetero_data import DEFAULT_REL

        if args and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if len(args) == 1 and isinstance(args[0], str):
            text = args[0]
            parts = tuple(text.split(_SPLIT))
            if len(parts) != 3:
                raise ValueError(
                    f"Cannot convert the edge type '{text}' to a tuple since it holds invalid "
                    "characters"
                )
        elif len(args) == 2 and all(isinstance(a, str) for a in args):
            parts = (args[0], DEFAULT_REL, args[1])
            text = _SPLIT.join(parts)
        elif len(args) == 3 and all(isinstance(a, str) for a in args):
            parts = tuple(args)
            text = _SPLIT.join(parts)
        else:
            raise ValueError(f"Encountered invalid edge type '{args}'")
        out = str.__new__(cls, text)
        out.edge_type = parts  # type: ignore[assignment]
        return out

    def to_tuple(self) -> tuple[str, str, str]:
        return self.edge_type


@dataclass(frozen=True)
class NumNeighbors:
    """PyG's ``NumNeighbors`` (``torch_geometric.sampler``).

    Args:
        values: in-edges sampled per hop (``-1``: all), a list for every edge type or a
            dict per edge type.
        default: the fan-outs of edge types a dict leaves out (``None``: every edge type
            must be named); only with a dict.

    Frozen and compared by ``(values, default)``, as PyG's dataclass.
    """

    values: list[int] | dict[str, list[int]]
    default: list[int] | None = None

    def __init__(self, values: Sequence[int] | dict, default: Sequence[int] | None = None):
        if isinstance(values, (tuple, list)) and default is not None:
            raise ValueError(
                "'default' must be set to 'None' in case a single list is given as the number "
                f"of neighbors (got '{type(default)})'"
            )
        if isinstance(values, dict):
            values = {_EdgeTypeStr(key): value for key, value in values.items()}
        elif not isinstance(values, (tuple, list)):
            raise TypeError(
                "NumNeighbors: values must be a list of ints or a dict {edge_type: list}, "
                f"got {type(values).__name__}"
            )
        if default is not None and (
            isinstance(default, (str, bytes)) or not isinstance(default, Sequence)
        ):
            raise TypeError(f"NumNeighbors: default must be a list of ints, got {default!r}")
        self.__dict__["values"] = values  # frozen: write the fields directly
        self.__dict__["default"] = default
        self.__dict__["_cache"] = {}

    def _get_values(self, edge_types: Any, mapped: bool) -> Any:
        values = self.values
        if edge_types is None:
            if isinstance(values, dict) and not mapped:
                out: Any = {key.to_tuple(): value for key, value in values.items()}
            else:
                out = copy.copy(values)
        else:
            default = values if isinstance(values, (tuple, list)) else self.default
            if isinstance(values, dict):
                names = {_EdgeTypeStr(et) for et in edge_types}
                if set(values) - names:
                    raise ValueError(
                        "Not all edge types specified in 'num_neighbors' exist in the graph"
                    )
            out = {}
            for et in edge_types:
                name = _EdgeTypeStr(et)
                if name in values:
                    out[name if mapped else et] = values[name]
                elif default is None:
                    raise ValueError(f"Missing number of neighbors for edge type '{et}'")
                else:
                    out[name if mapped else et] = default
        if isinstance(out, dict):
            hops = {len(v) for v in out.values()}
            if len(hops) > 1:
                raise ValueError(
                    "Number of hops must be the same across all edge types (got "
                    f"{len(hops)} different number of hops)"
                )
        return out

    def _cached(self, edge_types: Any, mapped: bool) -> Any:
        key = (mapped, None if edge_types is None else tuple(map(tuple, edge_types)))
        cache = self.__dict__["_cache"]
        if key not in cache:
            cache[key] = self._get_values(edge_types, mapped)
        return cache[key]

    def get_values(self, edge_types: Sequence[tuple] | None = None) -> list[int] | dict:
        """The fan-outs: the list, or ``{edge_type tuple: list}`` for every type of
        ``edge_types`` (``None``: the types ``values`` names)."""
        return self._cached(edge_types, False)

    def get_mapped_values(self, edge_types: Sequence[tuple] | None = None) -> list[int] | dict:
        """As :meth:`get_values`, keyed by ``'src__rel__dst'`` strings."""
        return self._cached(edge_types, True)

    @property
    def num_hops(self) -> int:
        """The largest number of hops of ``values`` and ``default``."""
        if isinstance(self.values, (tuple, list)):
            lengths = [len(self.values)]
        else:
            lengths = [0] + [len(v) for v in self.values.values()]
        return max(lengths + [len(self.default or [])])

    def __len__(self) -> int:
        return self.num_hops


def as_fanouts(where: str, num_neighbors: Any, edge_types: Sequence[tuple] | None = None) -> Any:
    """``num_neighbors`` as the loaders parse it: a :class:`NumNeighbors` becomes its list
    (a homogeneous graph, ``edge_types=None``) or ``{edge_type: list}`` for every edge type
    (``default`` filling the types it leaves out); a list or dict is returned as it is."""
    if not isinstance(num_neighbors, NumNeighbors):
        return num_neighbors
    values = num_neighbors.values
    if edge_types is None:
        if isinstance(values, dict):
            raise ValueError(
                f"{where}: num_neighbors is a NumNeighbors per edge type "
                f"({sorted(values)}); a homogeneous Data needs a list of fan-outs"
            )
        return list(values)
    try:
        return dict(num_neighbors.get_values(list(edge_types)))
    except ValueError as err:
        raise ValueError(f"{where}: num_neighbors: {err}") from None
