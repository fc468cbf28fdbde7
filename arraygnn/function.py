"""DGL-style built-in message and reduce functions (``import arraygnn.function as fn``).

A built-in is a small frozen description (which fields, which operation); the graph lowers
it to one engine call: ``apply_edges`` -> one :func:`arraygnn.ops.sddmm`, ``update_all`` ->
one fused :func:`arraygnn.ops.spmm` whenever the pair allows it (see
``docs/coming_from_dgl.md`` for the list of fused pairs).

Naming follows DGL: ``u`` is the source node, ``v`` the destination node, ``e`` the edge;
``<lhs>_<op>_<rhs>(lhs_field, rhs_field, out)`` computes ``lhs op rhs`` per edge with NumPy
broadcasting on feature dimensions (``dot`` sums the last dimension and keeps it as size 1).
In the docstrings ``src`` / ``dst`` / ``data`` stand for ``edges.src`` / ``edges.dst`` /
``edges.data``. Every function is written out in this file (no names generated at import).

>>> import arraygnn.function as fn
>>> fn.u_mul_e("h", "w", "m")
BinaryMessage(lhs='u', op='mul', rhs='e', lhs_field='h', rhs_field='w', out_field='m')
>>> fn.sum("m", "h")
Reduce(op='sum', msg_field='m', out_field='h')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MessageFunction",
    "CopyMessage",
    "BinaryMessage",
    "Reduce",
    "copy_u",
    "copy_e",
    "copy_src",
    "copy_edge",
    "u_add_u",
    "u_sub_u",
    "u_mul_u",
    "u_div_u",
    "u_dot_u",
    "u_add_v",
    "u_sub_v",
    "u_mul_v",
    "u_div_v",
    "u_dot_v",
    "u_add_e",
    "u_sub_e",
    "u_mul_e",
    "u_div_e",
    "u_dot_e",
    "v_add_u",
    "v_sub_u",
    "v_mul_u",
    "v_div_u",
    "v_dot_u",
    "v_add_v",
    "v_sub_v",
    "v_mul_v",
    "v_div_v",
    "v_dot_v",
    "v_add_e",
    "v_sub_e",
    "v_mul_e",
    "v_div_e",
    "v_dot_e",
    "e_add_u",
    "e_sub_u",
    "e_mul_u",
    "e_div_u",
    "e_dot_u",
    "e_add_v",
    "e_sub_v",
    "e_mul_v",
    "e_div_v",
    "e_dot_v",
    "e_add_e",
    "e_sub_e",
    "e_mul_e",
    "e_div_e",
    "e_dot_e",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
]

TARGETS = ("u", "v", "e")
BINARY_OPS = ("add", "sub", "mul", "div", "dot")
REDUCE_OPS = ("sum", "mean", "max", "min", "prod")
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_WHERE = {"u": "edges.src", "v": "edges.dst", "e": "edges.data"}


def _check_field(func: str, what: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"fn.{func}: {what} must be a field name (str), got {value!r}")
    return value


class MessageFunction:
    """Base class of the built-in message functions."""

    out_field: str

    @property
    def name(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class CopyMessage(MessageFunction):
    """``out = <target>[field]`` per edge; target ``'u'`` (source node) or ``'e'`` (edge)."""

    target: str
    field: str
    out_field: str

    def __post_init__(self) -> None:
        if self.target not in ("u", "v", "e"):
            raise ValueError(f"copy target must be 'u', 'v' or 'e', got {self.target!r}")
        _check_field(self.name, "field", self.field)
        _check_field(self.name, "out", self.out_field)

    @property
    def name(self) -> str:
        return f"copy_{self.target}"

    def udf_equivalent(self) -> str:
        return f"{{{self.out_field!r}: {_WHERE[self.target]}[{self.field!r}]}}"


@dataclass(frozen=True)
class BinaryMessage(MessageFunction):
    """``out = lhs[lhs_field] <op> rhs[rhs_field]`` per edge (NumPy broadcasting)."""

    lhs: str
    op: str
    rhs: str
    lhs_field: str
    rhs_field: str
    out_field: str

    def __post_init__(self) -> None:
        if self.lhs not in TARGETS or self.rhs not in TARGETS:
            raise ValueError(f"targets must be in {TARGETS}, got {self.lhs!r}, {self.rhs!r}")
        if self.op not in BINARY_OPS:
            raise ValueError(f"binary op must be one of {BINARY_OPS}, got {self.op!r}")
        _check_field(self.name, "lhs_field", self.lhs_field)
        _check_field(self.name, "rhs_field", self.rhs_field)
        _check_field(self.name, "out", self.out_field)

    @property
    def name(self) -> str:
        return f"{self.lhs}_{self.op}_{self.rhs}"


@dataclass(frozen=True)
class Reduce:
    """Reduce the mailbox field ``msg_field`` over each node's in-edges into ``out_field``.

    RULE: a node with no in-edges gets 0 for every reduce op (mean = sum / max(degree, 1)).
    """

    op: str
    msg_field: str
    out_field: str

    def __post_init__(self) -> None:
        if self.op not in REDUCE_OPS:
            raise ValueError(f"reduce op must be one of {REDUCE_OPS}, got {self.op!r}")
        _check_field(self.op, "msg", self.msg_field)
        _check_field(self.op, "out", self.out_field)

    @property
    def name(self) -> str:
        return self.op


# --- unary message functions -------------------------------------------------------


def copy_u(u: str, out: str) -> CopyMessage:
    """Message ``out = edges.src[u]``.

    >>> copy_u("h", "m").name
    'copy_u'
    """
    return CopyMessage("u", u, out)


def copy_e(e: str, out: str) -> CopyMessage:
    """Message ``out = edges.data[e]``.

    >>> copy_e("w", "m").name
    'copy_e'
    """
    return CopyMessage("e", e, out)


def copy_src(src: str, out: str) -> CopyMessage:
    """DGL's older alias of :func:`copy_u`."""
    return CopyMessage("u", src, out)


def copy_edge(edge: str, out: str) -> CopyMessage:
    """DGL's older alias of :func:`copy_e`."""
    return CopyMessage("e", edge, out)


# --- binary message functions (lhs, rhs in u / v / e; op in add / sub / mul / div / dot)


def u_add_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] + src[rhs_field]``."""
    return BinaryMessage("u", "add", "u", lhs_field, rhs_field, out)


def u_sub_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] - src[rhs_field]``."""
    return BinaryMessage("u", "sub", "u", lhs_field, rhs_field, out)


def u_mul_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] * src[rhs_field]``."""
    return BinaryMessage("u", "mul", "u", lhs_field, rhs_field, out)


def u_div_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] / src[rhs_field]``."""
    return BinaryMessage("u", "div", "u", lhs_field, rhs_field, out)


def u_dot_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (src[lhs_field] * src[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("u", "dot", "u", lhs_field, rhs_field, out)


def u_add_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] + dst[rhs_field]``."""
    return BinaryMessage("u", "add", "v", lhs_field, rhs_field, out)


def u_sub_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] - dst[rhs_field]``."""
    return BinaryMessage("u", "sub", "v", lhs_field, rhs_field, out)


def u_mul_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] * dst[rhs_field]``."""
    return BinaryMessage("u", "mul", "v", lhs_field, rhs_field, out)


def u_div_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] / dst[rhs_field]``."""
    return BinaryMessage("u", "div", "v", lhs_field, rhs_field, out)


def u_dot_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (src[lhs_field] * dst[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("u", "dot", "v", lhs_field, rhs_field, out)


def u_add_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] + data[rhs_field]``."""
    return BinaryMessage("u", "add", "e", lhs_field, rhs_field, out)


def u_sub_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] - data[rhs_field]``."""
    return BinaryMessage("u", "sub", "e", lhs_field, rhs_field, out)


def u_mul_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] * data[rhs_field]``."""
    return BinaryMessage("u", "mul", "e", lhs_field, rhs_field, out)


def u_div_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = src[lhs_field] / data[rhs_field]``."""
    return BinaryMessage("u", "div", "e", lhs_field, rhs_field, out)


def u_dot_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (src[lhs_field] * data[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("u", "dot", "e", lhs_field, rhs_field, out)


def v_add_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] + src[rhs_field]``."""
    return BinaryMessage("v", "add", "u", lhs_field, rhs_field, out)


def v_sub_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] - src[rhs_field]``."""
    return BinaryMessage("v", "sub", "u", lhs_field, rhs_field, out)


def v_mul_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] * src[rhs_field]``."""
    return BinaryMessage("v", "mul", "u", lhs_field, rhs_field, out)


def v_div_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] / src[rhs_field]``."""
    return BinaryMessage("v", "div", "u", lhs_field, rhs_field, out)


def v_dot_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (dst[lhs_field] * src[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("v", "dot", "u", lhs_field, rhs_field, out)


def v_add_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] + dst[rhs_field]``."""
    return BinaryMessage("v", "add", "v", lhs_field, rhs_field, out)


def v_sub_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] - dst[rhs_field]``."""
    return BinaryMessage("v", "sub", "v", lhs_field, rhs_field, out)


def v_mul_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] * dst[rhs_field]``."""
    return BinaryMessage("v", "mul", "v", lhs_field, rhs_field, out)


def v_div_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] / dst[rhs_field]``."""
    return BinaryMessage("v", "div", "v", lhs_field, rhs_field, out)


def v_dot_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (dst[lhs_field] * dst[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("v", "dot", "v", lhs_field, rhs_field, out)


def v_add_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] + data[rhs_field]``."""
    return BinaryMessage("v", "add", "e", lhs_field, rhs_field, out)


def v_sub_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] - data[rhs_field]``."""
    return BinaryMessage("v", "sub", "e", lhs_field, rhs_field, out)


def v_mul_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] * data[rhs_field]``."""
    return BinaryMessage("v", "mul", "e", lhs_field, rhs_field, out)


def v_div_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = dst[lhs_field] / data[rhs_field]``."""
    return BinaryMessage("v", "div", "e", lhs_field, rhs_field, out)


def v_dot_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (dst[lhs_field] * data[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("v", "dot", "e", lhs_field, rhs_field, out)


def e_add_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] + src[rhs_field]``."""
    return BinaryMessage("e", "add", "u", lhs_field, rhs_field, out)


def e_sub_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] - src[rhs_field]``."""
    return BinaryMessage("e", "sub", "u", lhs_field, rhs_field, out)


def e_mul_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] * src[rhs_field]``."""
    return BinaryMessage("e", "mul", "u", lhs_field, rhs_field, out)


def e_div_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] / src[rhs_field]``."""
    return BinaryMessage("e", "div", "u", lhs_field, rhs_field, out)


def e_dot_u(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (data[lhs_field] * src[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("e", "dot", "u", lhs_field, rhs_field, out)


def e_add_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] + dst[rhs_field]``."""
    return BinaryMessage("e", "add", "v", lhs_field, rhs_field, out)


def e_sub_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] - dst[rhs_field]``."""
    return BinaryMessage("e", "sub", "v", lhs_field, rhs_field, out)


def e_mul_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] * dst[rhs_field]``."""
    return BinaryMessage("e", "mul", "v", lhs_field, rhs_field, out)


def e_div_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] / dst[rhs_field]``."""
    return BinaryMessage("e", "div", "v", lhs_field, rhs_field, out)


def e_dot_v(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (data[lhs_field] * dst[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("e", "dot", "v", lhs_field, rhs_field, out)


def e_add_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] + data[rhs_field]``."""
    return BinaryMessage("e", "add", "e", lhs_field, rhs_field, out)


def e_sub_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] - data[rhs_field]``."""
    return BinaryMessage("e", "sub", "e", lhs_field, rhs_field, out)


def e_mul_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] * data[rhs_field]``."""
    return BinaryMessage("e", "mul", "e", lhs_field, rhs_field, out)


def e_div_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = data[lhs_field] / data[rhs_field]``."""
    return BinaryMessage("e", "div", "e", lhs_field, rhs_field, out)


def e_dot_e(lhs_field: str, rhs_field: str, out: str) -> BinaryMessage:
    """Message ``out = (data[lhs_field] * data[rhs_field]).sum(-1, keepdims=True)``."""
    return BinaryMessage("e", "dot", "e", lhs_field, rhs_field, out)


# --- reduce functions ----------------------------------------------------------------


def sum(msg: str, out: str) -> Reduce:  # noqa: A001 - DGL's name
    """Reduce ``out = sum of msg over in-edges`` (0 for a node without in-edges)."""
    return Reduce("sum", msg, out)


def mean(msg: str, out: str) -> Reduce:
    """Reduce ``out = mean of msg over in-edges`` (0 for a node without in-edges)."""
    return Reduce("mean", msg, out)


def max(msg: str, out: str) -> Reduce:  # noqa: A001 - DGL's name
    """Reduce ``out = elementwise max of msg over in-edges`` (0 for a node without in-edges)."""
    return Reduce("max", msg, out)


def min(msg: str, out: str) -> Reduce:  # noqa: A001 - DGL's name
    """Reduce ``out = elementwise min of msg over in-edges`` (0 for a node without in-edges)."""
    return Reduce("min", msg, out)


def prod(msg: str, out: str) -> Reduce:
    """Reduce ``out = product of msg over in-edges`` (0 for a node without in-edges)."""
    return Reduce("prod", msg, out)
