"""Schema.map_response and Response beyond the conformance cases: the Python
surface (types, repr, iteration, argument checks)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import strata

SCHEMA: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "Status": {
            "root": "statuses",
            "meta": {"path": "search_metadata", "model": "Meta"},
            "properties": {"id": {"type": "int", "required": True}},
        },
        "Meta": {"properties": {"next": {"type": "string?", "json": "next_results"}}},
        "Paging": {"properties": {"cursor": {"type": "string"}}},
    },
}
PAGE = {"statuses": [{"id": 1}, {"id": 2}], "search_metadata": {"next_results": "?max_id=0"}}


def test_records_and_metadata() -> None:
    schema = strata.Schema(SCHEMA)
    response = schema.map_response("Status", PAGE)
    assert isinstance(response, strata.Response)
    assert len(response) == 2
    assert [m["id"] for m in response] == [1, 2]
    assert response[1]["id"] == 2
    assert all(isinstance(m, strata.Model) for m in response.records)
    assert response.metadata is not None and response.metadata.model == "Meta"
    assert response.metadata["next"] == "?max_id=0"
    text = repr(response)
    assert text.startswith("<strata.Response 2 records of Status") and "metadata=" in text


def test_inputs_text_and_bytes_agree() -> None:
    schema = strata.Schema(SCHEMA)
    import json

    text = json.dumps(PAGE)
    a = schema.map_response("Status", text)
    b = schema.map_response("Status", text.encode())
    assert a.records == b.records and a.metadata == b.metadata


def test_options() -> None:
    schema = strata.Schema(SCHEMA)
    response = schema.map_response(
        "Status",
        {"data": [{"id": 3}], "paging": {"cursor": "c2"}},
        root="data",
        meta={"path": "paging", "model": "Paging"},
    )
    assert [m["id"] for m in response] == [3]
    assert response.metadata is not None and response.metadata.to_dict() == {"cursor": "c2"}
    whole = schema.map_response("Status", [{"id": 4}], root="")
    assert len(whole) == 1 and whole.metadata is None
    assert repr(schema.map_response("Status", {"statuses": None})) == "<strata.Response 0 records>"


def test_errors() -> None:
    schema = strata.Schema(SCHEMA)
    with pytest.raises(strata.MappingError) as info:
        schema.map_response("Status", {"errors": [{"code": 88}]})
    assert [(e["path"], e["code"], e["model"]) for e in info.value.errors] == [
        ("/statuses", "missing", "Status")
    ]
    with pytest.raises(strata.MappingError) as info:
        schema.map_response("Status", PAGE, meta={"path": "x", "model": "Nope"})
    assert info.value.code == "argument"
    with pytest.raises(TypeError):
        schema.map_response("Status", PAGE, root=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        schema.map_response("Status", PAGE, meta="search_metadata")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        schema.map_response("Status", PAGE, "statuses")  # type: ignore[misc]
