"""PyG's dataset summary (``torch_geometric.data.summary``): ``Dataset.get_summary()`` /
``print_summary()``, the number of graphs and statistics of the nodes and edges per graph.

``Stats`` follows torch's reductions over the counts as float32: ``std`` is the unbiased
one (``nan`` for one graph), ``median`` the lower middle value (``torch.median``),
``quantile25`` / ``quantile75`` interpolate linearly. ``Summary.format('psql')`` (the
default, also its ``repr``) draws PyG's table itself; any other ``fmt`` is handed to the
``tabulate`` package, as PyG does.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> graphs = [Data(x=np.ones((n, 1)), edge_index=np.zeros((2, n - 1), np.int64)) for n in (1, 2, 4)]
>>> s = Summary.from_dataset(graphs)
>>> s.num_graphs, s.num_nodes.median, s.num_edges.max
(3, 2.0, 3.0)
>>> print(s)
list (#graphs=3):
+------------+----------+----------+
|            |   #nodes |   #edges |
|------------+----------+----------|
| mean       |      2.3 |      1.3 |
| std        |      1.5 |      1.5 |
| min        |      1   |      0   |
| quantile25 |      1.5 |      0.5 |
| median     |      2   |      1   |
| quantile75 |      3   |      2   |
| max        |      4   |      3   |
+------------+----------+----------+
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

__all__ = ["Stats", "Summary"]


@dataclass
class Stats:
    """Statistics of one count per graph (floats)."""

    mean: float
    std: float
    min: float
    quantile25: float
    median: float
    quantile75: float
    max: float

    @classmethod
    def from_data(cls, data: Iterable[float]) -> Stats:
        """The statistics of ``data`` (a list or 1-D array of numbers, not empty)."""
        values = np.asarray(list(data) if not hasattr(data, "shape") else data, np.float32)
        values = values.reshape(-1)
        if values.size == 0:
            raise ValueError("Stats.from_data: data holds no values")
        with warnings.catch_warnings():  # the std of one value is nan, as torch's
            warnings.simplefilter("ignore", RuntimeWarning)
            exact = values.astype(np.float64)  # rounded once, to float32
            std = float(np.float32(exact.std(ddof=1))) if values.size > 1 else float("nan")
        ordered = np.sort(values)
        return cls(
            mean=float(np.float32(exact.mean())),
            std=std,
            min=float(ordered[0]),
            quantile25=float(np.quantile(ordered, 0.25)),
            median=float(ordered[(values.size - 1) // 2]),
            quantile75=float(np.quantile(ordered, 0.75)),
            max=float(ordered[-1]),
        )


@dataclass(repr=False)
class Summary:
    """The summary of a dataset: ``name``, ``num_graphs``, ``num_nodes`` / ``num_edges``
    (:class:`Stats`), and for ``HeteroData`` graphs the same per node / edge type."""

    name: str
    num_graphs: int
    num_nodes: Stats
    num_edges: Stats
    num_nodes_per_type: dict[Any, Stats] | None = None
    num_edges_per_type: dict[Any, Stats] | None = None

    @classmethod
    def from_dataset(
        cls, dataset: Any, progress_bar: bool | None = None, per_type: bool = True
    ) -> Summary:
        """The summary of ``dataset`` (any sized iterable of graphs; ``name`` is its class
        name). ``progress_bar`` is accepted for PyG's signature and draws nothing;
        ``per_type=False`` leaves out the per-type statistics of ``HeteroData`` graphs."""
        where = "Summary.from_dataset"
        num_nodes: list[int] = []
        num_edges: list[int] = []
        per_node: dict[Any, list[int]] = {}
        per_edge: dict[Any, list[int]] = {}
        for i, data in enumerate(dataset):
            n = getattr(data, "num_nodes", None)
            if n is None:
                raise ValueError(
                    f"{where}: graph {i} has no num_nodes (give it x, pos or num_nodes=)"
                )
            num_nodes.append(int(n))
            num_edges.append(int(data.num_edges))
            if per_type and hasattr(data, "node_types") and hasattr(data, "edge_types"):
                for node_type in data.node_types:
                    per_node.setdefault(node_type, []).append(int(data[node_type].num_nodes))
                for edge_type in data.edge_types:
                    per_edge.setdefault(edge_type, []).append(int(data[edge_type].num_edges))
        if not num_nodes:
            raise ValueError(f"{where}: the dataset has no graphs to summarise")
        return cls(
            name=type(dataset).__name__,
            num_graphs=len(num_nodes),
            num_nodes=Stats.from_data(num_nodes),
            num_edges=Stats.from_data(num_edges),
            num_nodes_per_type={k: Stats.from_data(v) for k, v in per_node.items()} or None,
            num_edges_per_type={k: Stats.from_data(v) for k, v in per_edge.items()} or None,
        )

    def format(self, fmt: str = "psql") -> str:
        """The summary as text tables (``fmt``: a ``tabulate`` table format; ``'psql'``
        needs no package)."""
        if not isinstance(fmt, str):
            raise TypeError(f"Summary.format: fmt must be a table format name, got {fmt!r}")
        names = [f.name for f in fields(Stats)]

        def table(headers: list[str], stats: list[Stats]) -> str:
            rows = [[name] + [f"{getattr(s, name):.1f}" for s in stats] for name in names]
            return _table([""] + headers, rows, fmt)

        body = f"{self.name} (#graphs={self.num_graphs}):\n"
        body += table(["#nodes", "#edges"], [self.num_nodes, self.num_edges])
        if self.num_nodes_per_type is not None:
            body += "\nNumber of nodes per node type:\n"
            per_node = self.num_nodes_per_type
            body += table([str(t) for t in per_node], list(per_node.values()))
        if self.num_edges_per_type is not None:
            body += "\nNumber of edges per edge type:\n"
            per_edge = self.num_edges_per_type
            body += table([f"({', '.join(t)})" for t in per_edge], list(per_edge.values()))
        return body

    def __repr__(self) -> str:
        return self.format()


def _table(headers: list[str], rows: list[list[str]], fmt: str) -> str:
    """``tabulate(rows, headers, tablefmt=fmt)`` of a first text column and number columns
    (``'psql'`` drawn here, as tabulate draws it: numbers in ``g`` form, aligned on the
    decimal point, at least two spaces beside a header)."""
    if fmt != "psql":
        try:
            from tabulate import tabulate
        except ImportError:
            raise ImportError(
                f"Summary.format: fmt={fmt!r} needs the 'tabulate' package ('psql' does not)"
            ) from None
        return tabulate([headers, *rows], headers="firstrow", tablefmt=fmt)
    columns = []
    for j, header in enumerate(headers):
        cells = [row[j] for row in rows]
        if j:  # a number column: 'g' form, decimal points aligned, right-aligned
            cells = [format(float(c), "g") for c in cells]
            # the part before the point (or, as tabulate, before an exponent's 'e')
            ints = [c.split(".")[0] if "." in c else c.split("e")[0] for c in cells]
            fracs = [c[len(i) :] for c, i in zip(cells, ints)]
            wi, wf = max(map(len, ints)), max(map(len, fracs))
            cells = [i.rjust(wi) + f.ljust(wf) for i, f in zip(ints, fracs)]
        width = max(len(header) + 2, *map(len, cells))
        just = str.rjust if j else str.ljust
        columns.append([just(header, width)] + [just(c, width) for c in cells])
    widths = [len(col[0]) for col in columns]

    def line(left: str, mid: str, right: str) -> str:
        return left + mid.join("-" * (w + 2) for w in widths) + right

    def row(i: int) -> str:
        return "| " + " | ".join(col[i] for col in columns) + " |"

    out = [line("+", "+", "+"), row(0), line("|", "+", "|")]
    out += [row(i) for i in range(1, len(rows) + 1)]
    out.append(line("+", "+", "+"))
    return "\n".join(out)
