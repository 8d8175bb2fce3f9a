"""Every record of a graph as plain data, for the differential tests that
compare two graphs (test_graph_read_ahead.py, test_graph_postgres.py,
test_graph_shared_objects.py)."""

from __future__ import annotations

from typing import Any, Dict, Sequence

import strata


def dump(ctx: strata.Context, models: Sequence[str]) -> Dict[str, Any]:
    """Each model's records in key order: key, whether a stub, and values
    (relationships as keys)."""
    return {
        model: [{"key": r.key, "stub": r.is_stub, "values": r.to_dict(nested=False)} for r in ctx.all(model)]
        for model in models
    }
