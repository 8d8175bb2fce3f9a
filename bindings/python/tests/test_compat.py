"""Schema compatibility from Python: strata.compare."""

from __future__ import annotations

from typing import Any, Dict

import strata

OLD: Dict[str, Any] = {
    "strata": 1,
    "version": 1,
    "models": {
        "A": {"properties": {"x": {"type": "int"}, "y": {"type": "string?"}, "z": {"type": "int"}}},
        "B": {"properties": {"b": {"type": "int"}}},
    },
}

NEW: Dict[str, Any] = {
    "strata": 1,
    "version": 2,
    "migrations": [{"from": 1, "model": "A", "remove": ["z"]}],
    "models": {
        "A": {"properties": {"x": {"type": "double"}, "y": {"type": "string"}, "w": {"type": "int", "required": True}}},
        "C": {"properties": {"c": {"type": "int"}}},
    },
}


def test_compare_lists_every_change() -> None:
    changes = strata.compare(strata.Schema(OLD), strata.Schema(NEW))
    assert [(c["change"], c["model"], c["property"], c["breaking"]) for c in changes] == [
        ("type-widened", "A", "x", False),
        ("type-narrowed", "A", "y", True),
        ("property-removed", "A", "z", False),
        ("required-added", "A", "w", True),
        ("model-removed", "B", "", True),
        ("model-added", "C", "", False),
    ]
    for change in changes:
        assert set(change) == {"path", "model", "property", "change", "message", "breaking"}
        assert isinstance(change["breaking"], bool)
    assert changes[0]["path"] == "/models/A/properties/x"


def test_compare_takes_documents_too() -> None:
    assert strata.compare(OLD, OLD) == []
    assert len(strata.compare(OLD, NEW)) == 6
