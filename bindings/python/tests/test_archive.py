"""Archives and migrations from Python: Model.archive, Schema.unarchive."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

import strata

V1: Dict[str, Any] = {
    "strata": 1,
    "version": 1,
    "models": {"Note": {"properties": {"title": {"type": "string"}, "body": {"type": "string"}}}},
}

V2: Dict[str, Any] = {
    "strata": 1,
    "version": 2,
    "migrations": [{"from": 1, "model": "Note", "rename": {"body": "text"}, "transform": "stamp"}],
    "models": {
        "Note": {
            "properties": {
                "title": {"type": "string"},
                "text": {"type": "string"},
                "stamped": {"type": "bool", "json": False},
            }
        }
    },
}


def _stamp(values: Any) -> Any:
    if values.get("title") == "refuse":
        raise ValueError("refused by the host")
    return {**values, "stamped": True}


def test_archive_is_json_text_and_round_trips() -> None:
    schema = strata.Schema(V1)
    note = schema.map("Note", {"title": "t", "body": "b"})
    text = note.archive()
    assert isinstance(text, str)
    assert json.loads(text) == {
        "strata-archive": 1,
        "version": 1,
        "model": "Note",
        "values": {"title": "t", "body": "b"},
    }
    for blob in (text, text.encode(), json.loads(text)):
        assert schema.unarchive(blob) == note


def test_migration_with_a_python_transformer() -> None:
    old = strata.Schema(V1).map("Note", {"title": "t", "body": "b"})
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema(V2)
    assert info.value.errors[0]["path"] == "/migrations/0/transform"
    new = strata.Schema(V2, transformers={"stamp": _stamp})
    note = new.unarchive(old.archive())
    assert note.to_dict() == {"title": "t", "text": "b", "stamped": True}
    assert note.to_json() == {"title": "t", "text": "b"}
    refused = strata.Schema(V1).map("Note", {"title": "refuse"}).archive()
    with pytest.raises(strata.MappingError) as failure:
        new.unarchive(refused)
    assert failure.value.code == "format"
    assert "refused by the host" in failure.value.errors[0]["message"]


def test_newer_archive_and_gaps_are_refused() -> None:
    newer = strata.Schema(V2, transformers={"stamp": _stamp}).map("Note", {"title": "t"}).archive()
    with pytest.raises(strata.MappingError) as info:
        strata.Schema(V1).unarchive(newer)
    assert info.value.errors[0]["path"] == "/version"
    assert "newer" in info.value.errors[0]["message"]
    with pytest.raises(strata.MappingError) as info:
        strata.Schema(V1).unarchive({"strata-archive": 1, "version": 0, "model": "Note", "values": {}})
    assert "no migration from version 0 to 1" in info.value.errors[0]["message"]


def test_malformed_archives() -> None:
    schema = strata.Schema(V1)
    for blob, path in (
        ("[]", ""),
        ({"strata-archive": 1, "version": 1, "model": "Nope", "values": {}}, "/model"),
        ({"strata-archive": 1, "version": 1, "model": "Note", "values": {"title": 1}}, "/values/title"),
    ):
        with pytest.raises(strata.MappingError) as info:
            schema.unarchive(blob)
        assert info.value.errors[0]["path"] == path
    with pytest.raises(strata.MappingError) as info:
        schema.unarchive(b"{")
    assert info.value.code == "syntax"
