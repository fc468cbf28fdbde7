"""Array trees as jraph and JAX see them: ``None`` (no leaves), dicts, lists, tuples and
namedtuples of arrays. Leaves come in JAX's order (dict keys sorted; an ``OrderedDict``'s
in its own order)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = ["rebuild", "tree_leaves", "tree_map"]


def _sorted_keys(tree: dict) -> list:
    if isinstance(tree, OrderedDict):  # as JAX: an OrderedDict keeps its own order
        return list(tree)
    try:
        return sorted(tree)
    except TypeError:  # keys that do not compare: insertion order
        return list(tree)


def tree_leaves(tree: Any) -> list:
    """The leaves of ``tree``, depth first, dict keys sorted (``jax.tree_util.tree_leaves``).

    >>> tree_leaves({"b": 2, "a": [1, None, (3,)]})
    [1, 3, 2]
    >>> tree_leaves(OrderedDict(b=2, a=1))
    [2, 1]
    """
    if tree is None:
        return []
    if isinstance(tree, dict):
        return [leaf for key in _sorted_keys(tree) for leaf in tree_leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for child in tree for leaf in tree_leaves(child)]
    return [tree]


def rebuild(tree: Any, children: list) -> Any:
    """A container of ``tree``'s kind (dict keys in its order, namedtuple, list, tuple)
    holding ``children``."""
    if isinstance(tree, dict):
        out = dict(zip(tree, children))
        try:
            return type(tree)(out)
        except TypeError:  # a dict subclass whose constructor takes no items
            return out
    if hasattr(tree, "_fields"):
        return type(tree)(*children)
    return type(tree)(children)


def _children(tree: Any) -> list:
    return list(tree.values()) if isinstance(tree, dict) else list(tree)


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``tree`` with ``fn(leaf, *matching leaves of rest)`` in place of each leaf; every tree
    in ``rest`` has ``tree``'s structure (``ValueError`` otherwise). ``None`` stays ``None``.

    >>> tree_map(lambda a, b: a + b, {"x": 1, "y": [2]}, {"x": 10, "y": [20]})
    {'x': 11, 'y': [22]}
    """
    if tree is None:
        for other in rest:
            if other is not None:
                raise ValueError(f"tree structures differ: None against {type(other).__name__}")
        return None
    if isinstance(tree, (dict, list, tuple)):
        for other in rest:
            if type(other) is not type(tree):
                raise ValueError(
                    f"tree structures differ: {type(tree).__name__} against {type(other).__name__}"
                )
            if isinstance(tree, dict) and set(other) != set(tree):
                raise ValueError(
                    f"tree structures differ: dict keys {sorted(map(str, tree))} against "
                    f"{sorted(map(str, other))}"
                )
            if len(other) != len(tree):
                raise ValueError(
                    f"tree structures differ: {len(tree)} children against {len(other)}"
                )
        if isinstance(tree, dict):
            children = [tree_map(fn, tree[k], *(o[k] for o in rest)) for k in tree]
        else:
            others = [_children(o) for o in rest]
            children = [
                tree_map(fn, child, *(o[i] for o in others))
                for i, child in enumerate(_children(tree))
            ]
        return rebuild(tree, children)
    for other in rest:
        if other is None or isinstance(other, (dict, list, tuple)):
            raise ValueError(
                f"tree structures differ: a leaf against {type(other).__name__}"
                if other is not None
                else "tree structures differ: a leaf against None"
            )
    return fn(tree, *rest)
