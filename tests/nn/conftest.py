"""Fixtures shared by the tests/nn files."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["fused", "rows"])
def path(request, monkeypatch):
    """Run a relational (RGCN) test through the fused typed SpMM (every weight shape
    admitted) and through the grouped rows + BLAS path."""
    import arraygnn.nn.rgcn_conv as rgcn

    if request.param == "fused":
        monkeypatch.setattr(rgcn, "FUSED_MAX_WEIGHTS", 1 << 40)
    else:
        monkeypatch.setattr(rgcn, "FUSED", False)
    return request.param
