"""PyG's graph auto-encoders at inference: ``InnerProductDecoder``, ``GAE``, ``VGAE``,
``ARGA`` and ``ARGVA`` (``torch_geometric.nn.models.autoencoder``).

The encoder is any arraygnn layer or model (``from_pyg`` converts a PyG one: a ``GCN``
model, a ``GCNConv``, ...) or any callable on arrays; its weights sit under ``encoder.``,
the discriminator's under ``discriminator.`` (PyG's names, and ``ARGVA``'s copies under
``VGAE.``), so ``load_state_dict(pyg_model.state_dict())`` fills a model built around a
hand-written arraygnn encoder. At inference ``VGAE.encode`` returns ``mu`` (PyG's
``reparametrize`` outside training) and keeps ``mu`` / ``logstd`` (clamped at 10) for
``kl_loss``. The decoder scores node pairs by one gathered dot product per pair
(``arraygnn.ops.sddmm`` with ``op='dot'``; no ``[E, F]`` product array) and the dense
``forward_all`` by one ``Z Z^T`` product. ``recon_loss`` needs the negative pairs given
(PyG samples them at random); ``test`` needs scikit-learn, as PyG's.

>>> import numpy as np
>>> z = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
>>> InnerProductDecoder()(z, np.array([[0, 1], [1, 2]]), sigmoid=False).tolist()
[1.0, 2.0]
>>> GAE(lambda x, ei: x).encode(z, np.zeros((2, 0), np.int64)).shape
(3, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._module import Module
from arraygnn.nn._wrapped import convert_part, keep_module_children
from arraygnn.nn.linear import _sigmoid

__all__ = ["InnerProductDecoder", "GAE", "VGAE", "ARGA", "ARGVA", "pair_scores"]

EPS = 1e-15
MAX_LOGSTD = 10.0


def _check_latent(where: str, z: Any) -> None:
    if not is_array(z) or z.ndim != 2:
        raise TypeError(
            f"{where}: z must be a 2-D NumPy or CuPy array (num_nodes, channels), got "
            f"{getattr(z, 'shape', type(z).__name__)}"
        )
    if z.dtype.kind != "f":
        raise TypeError(f"{where}: z must hold floating-point values, got dtype {z.dtype}")


def pair_scores(where: str, z: Any, edge_index: Any) -> Any:
    """``(z[edge_index[0]] * z[edge_index[1]]).sum(-1)``, ``(E,)``: one dot product per
    column, gathered by the SDDMM kernel (no ``[E, F]`` array); errors name ``where``."""
    from arraygnn import ops
    from arraygnn.nn._graph_input import _check_edge_index
    from arraygnn.ops._common import check_index

    _check_latent(where, z)
    _check_edge_index(where, edge_index)
    n = int(z.shape[0])
    check_index(f"{where}: edge_index[0]", edge_index[0], n)
    check_index(f"{where}: edge_index[1]", edge_index[1], n)
    return ops.sddmm((edge_index[0], edge_index[1]), z, z, op="dot").reshape(-1)


class InnerProductDecoder(Module):
    r"""PyG's ``InnerProductDecoder``: :math:`\sigma(z_i \cdot z_j)` for each pair.

    Call as ``decoder(z, edge_index, sigmoid=True)`` (one score per column of
    ``edge_index``, ``(E,)``) or ``decoder.forward_all(z, sigmoid=True)`` (the dense
    ``(N, N)`` matrix ``sigma(Z Z^T)``). No weights.

    Shapes:
        - input: z ``(N, F)``, edge_index ``(2, E)`` ids in ``[0, N)``
        - output: ``(E,)`` / ``(N, N)``
    """

    def __call__(self, z: Any, edge_index: Any, sigmoid: bool = True) -> Any:
        value = pair_scores("InnerProductDecoder", z, edge_index)
        return _sigmoid(value) if sigmoid else value

    def forward_all(self, z: Any, sigmoid: bool = True) -> Any:
        """The dense ``(N, N)`` matrix ``sigma(Z Z^T)`` (``sigmoid=False``: ``Z Z^T``)."""
        from arraygnn.nn.linear import matmul

        _check_latent("InnerProductDecoder.forward_all", z)
        adj = matmul(z, z.T)
        return _sigmoid(adj) if sigmoid else adj


class GAE(Module):
    """PyG's ``GAE``: ``encode`` runs the encoder, ``decode`` the decoder
    (``InnerProductDecoder`` by default); calling the model is ``encode``.

    Args:
        encoder: an arraygnn layer / model or any callable on arrays.
        decoder: the decoder (default: :class:`InnerProductDecoder`).

    Names: ``encoder.*`` (and ``decoder.*`` for a decoder with weights), as PyG's.
    """

    def __init__(self, encoder: Callable[..., Any], decoder: Callable[..., Any] | None = None):
        kind = type(self).__name__
        if not callable(encoder):
            raise TypeError(f"{kind}: encoder must be callable, got {type(encoder).__name__}")
        if decoder is not None and not callable(decoder):
            raise TypeError(f"{kind}: decoder must be callable, got {type(decoder).__name__}")
        self.encoder = encoder
        self.decoder = InnerProductDecoder() if decoder is None else decoder
        keep_module_children(self, ("encoder", "decoder"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.encode(*args, **kwargs)

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        """The encoder's output (node-wise latent variables)."""
        return self.encoder(*args, **kwargs)

    def decode(self, *args: Any, **kwargs: Any) -> Any:
        """The decoder's output (edge probabilities for the default decoder)."""
        return self.decoder(*args, **kwargs)

    def recon_loss(
        self, z: Any, pos_edge_index: Any, neg_edge_index: Any = None, *, seed: Any = None
    ) -> Any:
        """PyG's binary cross entropy of the positive and negative pairs'
        probabilities, ``-log(p + 1e-15)`` / ``-log(1 - p + 1e-15)`` averaged per side.
        ``neg_edge_index=None`` draws the negatives as PyG does,
        ``arraygnn.utils.negative_sampling(pos_edge_index, z.shape[0])``, from ``seed``
        (NumPy's generator: the same distribution as PyG's draw, not the same pairs)."""
        if neg_edge_index is None:
            from arraygnn.utils import negative_sampling

            neg_edge_index = negative_sampling(pos_edge_index, int(z.shape[0]), seed=seed)
        elif seed is not None:
            raise ValueError(
                f"{type(self).__name__}.recon_loss: give neg_edge_index or seed, not both"
            )
        xp = get_namespace(z)
        pos = self.decoder(z, pos_edge_index, sigmoid=True)
        neg = self.decoder(z, neg_edge_index, sigmoid=True)
        eps = pos.dtype.type(EPS)
        with np.errstate(divide="ignore"):
            pos_loss = -xp.log(pos + eps).mean()
            neg_loss = -xp.log(1 - neg + eps).mean()
        return pos_loss + neg_loss

    def test(self, z: Any, pos_edge_index: Any, neg_edge_index: Any) -> tuple[float, float]:
        """``(AUC, average precision)`` of the decoder's probabilities for the positive
        and negative pairs (scikit-learn's ``roc_auc_score`` / ``average_precision_score``,
        as PyG's; an ``ImportError`` naming it when it is not installed)."""
        try:
            from sklearn.metrics import average_precision_score, roc_auc_score
        except ImportError as err:
            raise ImportError(
                f"{type(self).__name__}.test needs scikit-learn: pip install scikit-learn"
            ) from err
        from arraygnn._namespace import to_numpy

        pos = to_numpy(self.decoder(z, pos_edge_index, sigmoid=True))
        neg = to_numpy(self.decoder(z, neg_edge_index, sigmoid=True))
        y = np.concatenate([np.ones(pos.shape[0], pos.dtype), np.zeros(neg.shape[0], neg.dtype)])
        pred = np.concatenate([pos, neg])
        return roc_auc_score(y, pred), average_precision_score(y, pred)

    def extra_repr(self) -> str:
        return f"encoder={self.encoder!r}, decoder={self.decoder!r}"


def _kl(mu: Any, logstd: Any) -> Any:
    xp = get_namespace(mu)
    return -0.5 * xp.mean(xp.sum(1 + 2 * logstd - mu**2 - xp.exp(logstd) ** 2, axis=1))


class VGAE(GAE):
    """PyG's ``VGAE`` at inference: the encoder returns ``(mu, logstd)``; ``encode``
    clamps ``logstd`` at 10, keeps both (``model.__mu__``, ``model.__logstd__``) and
    returns ``mu`` (no sampling outside training). ``kl_loss(mu=None, logstd=None)`` is
    PyG's KL term of the last encoding (or of the arrays given)."""

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        out = self.encoder(*args, **kwargs)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ValueError(
                f"{type(self).__name__}: the encoder must return (mu, logstd), got "
                f"{type(out).__name__}"
            )
        mu, logstd = out
        xp = get_namespace(mu, logstd)
        self.__mu__ = mu
        self.__logstd__ = xp.minimum(logstd, logstd.dtype.type(MAX_LOGSTD))
        return mu

    def reparametrize(self, mu: Any, logstd: Any) -> Any:
        """Inference: ``mu`` (PyG samples only in training mode)."""
        return mu

    def kl_loss(self, mu: Any = None, logstd: Any = None) -> Any:
        if mu is None:
            mu = self._last("__mu__")
        if logstd is None:
            logstd = self._last("__logstd__")
        else:
            logstd = get_namespace(logstd).minimum(logstd, logstd.dtype.type(MAX_LOGSTD))
        return _kl(mu, logstd)

    def _last(self, name: str) -> Any:
        value = getattr(self, name, None)
        if value is None:
            raise ValueError(
                f"{type(self).__name__}.kl_loss: call encode first, or pass mu, logstd"
            )
        return value


class ARGA(GAE):
    """PyG's ``ARGA``: a ``GAE`` with a ``discriminator`` (names ``discriminator.*``);
    ``reg_loss(z)`` is PyG's ``-log(sigmoid(discriminator(z)) + 1e-15).mean()`` and
    ``discriminator_loss(z, real_z=None, *, seed=None)`` PyG's ``-log(sigmoid(D(real_z)) +
    1e-15).mean() - log(1 - sigmoid(D(z)) + 1e-15).mean()``, ``real_z`` standard normal
    like ``z`` (drawn from ``seed`` when not given: PyG's distribution, not its numbers)."""

    def __init__(
        self,
        encoder: Callable[..., Any],
        discriminator: Callable[..., Any],
        decoder: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(encoder, decoder)
        if not callable(discriminator):
            raise TypeError(
                f"{type(self).__name__}: discriminator must be callable, got "
                f"{type(discriminator).__name__}"
            )
        self.discriminator = discriminator
        keep_module_children(self, ("encoder", "decoder", "discriminator"))

    def reg_loss(self, z: Any) -> Any:
        real = _sigmoid(self.discriminator(z))
        with np.errstate(divide="ignore"):
            return -get_namespace(real).log(real + real.dtype.type(EPS)).mean()

    def discriminator_loss(self, z: Any, real_z: Any = None, *, seed: Any = None) -> Any:
        """PyG's discriminator loss: ``real_z`` (standard normal, ``z``'s shape) scored as
        real, ``z`` as fake."""
        where = f"{type(self).__name__}.discriminator_loss"
        _check_latent(where, z)
        xp = get_namespace(z)
        if real_z is None:
            noise = xp.random.default_rng(seed).standard_normal(z.shape, dtype=np.float32)
            real_z = noise.astype(z.dtype, copy=False)
        elif seed is not None:
            raise ValueError(f"{where}: give real_z or seed, not both")
        elif not is_array(real_z) or tuple(real_z.shape) != tuple(z.shape):
            raise ValueError(
                f"{where}: real_z must be an array of z's shape {tuple(z.shape)}, got "
                f"{getattr(real_z, 'shape', type(real_z).__name__)}"
            )
        real = _sigmoid(self.discriminator(real_z))
        fake = _sigmoid(self.discriminator(z))
        eps = real.dtype.type(EPS)
        with np.errstate(divide="ignore"):
            return -xp.log(real + eps).mean() - xp.log(1 - fake + eps).mean()


class ARGVA(ARGA):
    """PyG's ``ARGVA``: an ``ARGA`` whose ``encode`` is a ``VGAE``'s (the same encoder
    and decoder; PyG's state dict repeats their weights under ``VGAE.``, and so does
    this one's)."""

    def __init__(
        self,
        encoder: Callable[..., Any],
        discriminator: Callable[..., Any],
        decoder: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(encoder, discriminator, decoder)
        self.VGAE = VGAE(self.encoder, self.decoder)

    @property
    def __mu__(self) -> Any:
        return self.VGAE.__mu__

    @property
    def __logstd__(self) -> Any:
        return self.VGAE.__logstd__

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        return self.VGAE.encode(*args, **kwargs)

    def reparametrize(self, mu: Any, logstd: Any) -> Any:
        return mu

    def kl_loss(self, mu: Any = None, logstd: Any = None) -> Any:
        return self.VGAE.kl_loss(mu, logstd)

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        out = super()._export_pyg(native)
        shared = ("encoder.", "decoder.")
        out.update({f"VGAE.{k}": v for k, v in list(out.items()) if k.startswith(shared)})
        return out

    def _ignorable(self, key: str) -> bool:
        return key.startswith("VGAE.") or super()._ignorable(key)


_KINDS = {"GAE": GAE, "VGAE": VGAE, "ARGA": ARGA, "ARGVA": ARGVA}


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``GAE`` / ``VGAE`` / ``ARGA`` / ``ARGVA`` (``convert``: ``from_pyg``, run on
    the encoder, decoder and discriminator) or ``InnerProductDecoder``."""
    kind = type(module).__name__
    if kind == "InnerProductDecoder":
        return InnerProductDecoder()

    def part(name: str) -> Any:
        return convert_part(module, name, convert)

    cls = _KINDS[kind]
    if kind in ("ARGA", "ARGVA"):
        model = cls(part("encoder"), part("discriminator"), part("decoder"))
    else:
        model = cls(part("encoder"), part("decoder"))
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
