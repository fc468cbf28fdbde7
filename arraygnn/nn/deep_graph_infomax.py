"""PyG's ``DeepGraphInfomax`` (``torch_geometric.nn.models.deep_graph_infomax``) at
inference: the encoder's patch representations, those of a corrupted graph, the summary,
the bilinear discriminator, the mutual-information loss and the logistic-regression test.

``forward(*args, **kwargs)`` returns ``(pos_z, neg_z, summary)``: ``encoder(*args,
**kwargs)``, the encoder run on ``corruption(*args, **kwargs)`` (a tuple replaces the
positional arguments first, then the keyword arguments in order, as PyG) and
``summary(pos_z, *args, **kwargs)``. ``discriminate(z, summary)`` is
``sigmoid(z @ (weight @ summary))`` (``summary [B, H]`` is transposed: ``[N, B]`` scores),
``loss`` PyG's ``-log(D(pos) + 1e-15).mean() - log(1 - D(neg) + 1e-15).mean()``, a number
computed in the arrays' dtype. ``test`` fits scikit-learn's ``LogisticRegression`` as PyG
(scikit-learn is needed only there).

The encoder is any arraygnn layer / model (``from_pyg`` converts a PyG one) or a callable
on arrays; ``summary`` and ``corruption`` are callables on arrays (PyG's are torch
functions). ``from_pyg`` converts the encoder (and a ``summary`` / ``corruption`` that is
a torch module it knows), loads ``weight``, and leaves a plain torch ``summary`` /
``corruption`` function (or a module without weights that it cannot convert) as a
placeholder that says to set an array one: assign ``model.summary`` /
``model.corruption``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> model = DeepGraphInfomax(
...     2, encoder=lambda x: x, summary=lambda z, *a, **k: 1 / (1 + np.exp(-z.mean(0))),
...     corruption=lambda x: x[::-1], rng=0)
>>> pos_z, neg_z, s = model(np.eye(2))
>>> model.discriminate(pos_z, s).shape, float(model.loss(pos_z, neg_z, s)) > 0
((2,), True)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn._wrapped import convert_part, keep_module_children
from arraygnn.nn.linear import _check_features, _rng, _sigmoid, matmul

__all__ = ["DeepGraphInfomax"]

EPS = 1e-15


class _NotConverted:
    """Stands in for a torch function ``from_pyg`` cannot turn into an array one."""

    def __init__(self, name: str, source: Any) -> None:
        self.name, self.source = name, source

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError(
            f"DeepGraphInfomax: {self.name} is PyG's torch function {self.source!r}; set "
            f"model.{self.name} to a function on arrays (from_pyg converts modules only)"
        )

    def __repr__(self) -> str:
        return f"<not converted: {self.source!r}>"


class DeepGraphInfomax(Module):
    r"""Deep Graph Infomax (Velickovic et al.), PyG's ``DeepGraphInfomax``.

    Args:
        hidden_channels: the size ``H`` of the latent space.
        encoder: an arraygnn layer / model or any callable on arrays.
        summary: ``summary(z, *args, **kwargs)`` -> ``[H]`` (or ``[B, H]``).
        corruption: ``corruption(*args, **kwargs)`` -> the encoder's corrupted arguments
            (a tuple, or one value).
        dtype: the dtype of ``weight``; rng: its initial values (PyG's
            ``uniform(H, weight)``, ``U(-1/sqrt(H), 1/sqrt(H))``).

    Names: ``weight`` ``(H, H)``, ``encoder.*`` (and ``summary.*`` for a summary with
    weights), as PyG's state dict.

    Shapes:
        - discriminate: z ``(N, H)``, summary ``(H,)`` -> ``(N,)``; ``(B, H)`` -> ``(N, B)``
    """

    _param_names = ("weight",)

    def __init__(
        self,
        hidden_channels: int,
        encoder: Callable[..., Any],
        summary: Callable[..., Any],
        corruption: Callable[..., Any],
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        kind = "DeepGraphInfomax"
        self.hidden_channels = layer_size(kind, "hidden_channels", hidden_channels)
        for name, part in (("encoder", encoder), ("summary", summary), ("corruption", corruption)):
            if not callable(part):
                raise TypeError(f"{kind}: {name} must be callable, got {type(part).__name__}")
        self.encoder, self.summary, self.corruption = encoder, summary, corruption
        h = self.hidden_channels
        bound = 1.0 / np.sqrt(max(h, 1))
        self.weight = _rng(rng).uniform(-bound, bound, (h, h)).astype(dtype)
        keep_module_children(self, ("encoder", "summary"))

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
        """``(pos_z, neg_z, summary)`` for the encoder's arguments."""
        pos_z = self.encoder(*args, **kwargs)
        cor = self.corruption(*args, **kwargs)
        cor = cor if isinstance(cor, tuple) else (cor,)
        cor_kwargs = copy.copy(kwargs)
        for key, value in zip(kwargs.keys(), cor[len(args) :]):
            cor_kwargs[key] = value
        neg_z = self.encoder(*cor[: len(args)], **cor_kwargs)
        summary = self.summary(pos_z, *args, **kwargs)
        return pos_z, neg_z, summary

    forward = __call__

    def discriminate(self, z: Any, summary: Any, sigmoid: bool = True) -> Any:
        """The scores of the patch-summary pairs, ``sigmoid(z @ weight @ summary)``
        (``sigmoid=False``: the logits)."""
        kind = "DeepGraphInfomax.discriminate"
        h = self.hidden_channels
        _check_features(z, h, f"{kind}: z", self.weight)
        _check_features(summary, h, f"{kind}: summary", self.weight)
        if summary.ndim > 2:
            raise ValueError(f"{kind}: summary must be (H,) or (B, H), got {tuple(summary.shape)}")
        if summary.ndim > 1:
            summary = summary.T
        value = matmul(z, matmul(self.weight, summary))
        return _sigmoid(value) if sigmoid else value

    def loss(self, pos_z: Any, neg_z: Any, summary: Any) -> Any:
        """PyG's mutual-information objective (a number, in the arrays' dtype)."""
        pos = self.discriminate(pos_z, summary, sigmoid=True)
        neg = self.discriminate(neg_z, summary, sigmoid=True)
        xp = get_namespace(pos, neg)
        eps = pos.dtype.type(EPS)
        with np.errstate(divide="ignore"):
            pos_loss = -xp.log(pos + eps).mean()
            neg_loss = -xp.log(1 - neg + eps).mean()
        return pos_loss + neg_loss

    def test(
        self,
        train_z: Any,
        train_y: Any,
        test_z: Any,
        test_y: Any,
        solver: str = "lbfgs",
        *args: Any,
        **kwargs: Any,
    ) -> float:
        """The accuracy on ``(test_z, test_y)`` of scikit-learn's ``LogisticRegression``
        (``solver``, ``*args``, ``**kwargs`` passed on) fitted on ``(train_z, train_y)``,
        as PyG's; an ``ImportError`` naming scikit-learn when it is not installed."""
        try:
            from sklearn.linear_model import LogisticRegression
        except ImportError as err:
            raise ImportError(
                "DeepGraphInfomax.test needs scikit-learn: pip install scikit-learn"
            ) from err
        for name, value in (("train_z", train_z), ("train_y", train_y),
                            ("test_z", test_z), ("test_y", test_y)):  # fmt: skip
            if not is_array(value):
                raise TypeError(
                    f"DeepGraphInfomax.test: {name} must be a NumPy or CuPy array, got "
                    f"{type(value).__name__}"
                )
        clf = LogisticRegression(*args, solver=solver, **kwargs)
        clf.fit(to_numpy(train_z), to_numpy(train_y))
        return clf.score(to_numpy(test_z), to_numpy(test_y))

    def __repr__(self) -> str:
        return f"DeepGraphInfomax({self.hidden_channels})"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``DeepGraphInfomax``: the encoder converted with ``convert`` (``from_pyg``), a
    summary that is a torch module too; ``weight`` loaded; plain torch functions left as
    placeholders (see the module docstring)."""
    import torch

    def part(name: str) -> Any:
        sub = getattr(module, name)
        if not isinstance(sub, torch.nn.Module):
            return _NotConverted(name, sub)
        if len(sub.state_dict()) or name == "encoder":  # weights to carry over
            return convert_part(module, name, convert)
        try:  # a module without weights: converted when from_pyg knows it, else a function
            return convert(sub)
        except (TypeError, ValueError):
            return _NotConverted(name, sub)

    model = DeepGraphInfomax(
        module.hidden_channels,
        part("encoder"),
        part("summary"),
        part("corruption"),
        dtype=dtype,
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
