"""PyG's knowledge-graph embedding models (``torch_geometric.nn.kge``) at inference:
``TransE``, ``DistMult``, ``ComplEx``, ``RotatE`` on their base ``KGEModel``. Scores
per triple and the ranking evaluation ``test`` (mean rank, MRR, hits@k) without torch;
``from_pyg`` converts trained PyG models. PyG's training-loop pieces are there to monitor a
model (no gradients): ``random_sample`` (seeded negative triples), ``loss`` (of given or
drawn negatives) and ``loader`` (a :class:`KGTripletLoader` of triple batches).

>>> import numpy as np
>>> from arraygnn.nn.kge import TransE
>>> model = TransE(10, 3, 8, rng=0)
>>> h, r, t = np.array([0, 1, 2]), np.array([0, 1, 2]), np.array([3, 4, 5])
>>> model(h, r, t).shape
(3,)
>>> mean_rank, mrr, hits = model.test(h, r, t, batch_size=4, k=10)
>>> hits
1.0
"""

from arraygnn.nn.kge.base import KGEModel
from arraygnn.nn.kge.complex import ComplEx
from arraygnn.nn.kge.distmult import DistMult
from arraygnn.nn.kge.loader import KGTripletLoader
from arraygnn.nn.kge.rotate import RotatE
from arraygnn.nn.kge.transe import TransE

__all__ = ["KGEModel", "TransE", "DistMult", "ComplEx", "RotatE", "KGTripletLoader"]
