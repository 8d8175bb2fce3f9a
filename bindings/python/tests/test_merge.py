"""Merge and update from Python: policies, update as a merge patch, all or nothing, custom mergers."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import strata

DOC: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "Issue": {
            "primaryKey": "number",
            "properties": {
                "number": {"type": "int", "required": True},
                "title": {"type": "string?"},
                "body": {"type": "string", "merge": "keep"},
                "labels": {"type": "[Label]", "merge": "union"},
                "comments": {"type": "int", "merge": "max"},
                "score": {"type": "int", "merge": "sum"},
            },
        },
        "Label": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "name": {"type": "string"}}},
    },
}


def total(current: Any, incoming: Any) -> Any:
    return incoming if current is None else current + incoming


@pytest.fixture
def schema() -> strata.Schema:
    return strata.Schema(DOC, mergers={"sum": total})


def test_merge_by_policy(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1, "title": "a", "body": "x", "labels": [{"id": 1, "name": "bug"}], "comments": 4, "score": 1})
    b = schema.map("Issue", {"number": 1, "title": None, "body": "y", "labels": [{"id": 1, "name": "Bug"}, {"id": 2, "name": "ui"}], "comments": 2, "score": 5})
    a.merge(b)
    assert a.to_dict() == {
        "number": 1,
        "title": None,
        "body": "x",
        "labels": [{"id": 1, "name": "Bug"}, {"id": 2, "name": "ui"}],
        "comments": 4,
        "score": 6,
    }


def test_update_and_all_or_nothing(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1, "title": "a", "comments": 4})
    a.update({"title": None, "comments": 9})
    assert a["title"] is None and a["comments"] == 9
    before = a.copy()
    with pytest.raises(strata.MappingError) as info:
        a.update('{"title": 5, "comments": "x"}')
    assert {e["path"] for e in info.value.errors} == {"/title", "/comments"}
    assert a == before


def test_merger_exception_is_a_validation_error(schema: strata.Schema) -> None:
    def refuse(current: Any, incoming: Any) -> Any:
        raise ValueError("no")

    s = strata.Schema(DOC, mergers={"sum": refuse})
    a = s.map("Issue", {"number": 1, "score": 1})
    with pytest.raises(strata.MappingError) as info:
        a.merge(s.map("Issue", {"number": 1, "score": 2}))
    assert info.value.errors[0]["code"] == "validation"
    assert "ValueError: no" in info.value.errors[0]["message"]
    assert a["score"] == 1


def test_merge_rejects_non_models(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1})
    with pytest.raises(TypeError):
        a.merge({"number": 2})  # type: ignore[arg-type]
