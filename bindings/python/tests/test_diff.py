"""Diff and patch from Python: Model.diff, merge_diff, patch, merge_patch,
and the round trip on every model of the conformance cases."""

from __future__ import annotations

import json
from itertools import islice
from typing import Any, Dict, List

import pytest

import strata
from conftest import conformance_dir

DOC: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "Issue": {
            "unknownKeys": "keep",
            "properties": {
                "number": {"type": "int", "required": True},
                "title": {"type": "string"},
                "body": {"type": "string?"},
                "tags": {"type": "[string]"},
                "assignee": {"type": "User?"},
            },
        },
        "User": {"properties": {"login": {"type": "string"}}},
    },
}


@pytest.fixture(scope="module")
def schema() -> strata.Schema:
    return strata.Schema(DOC)


def test_diff_and_patch_round_trip(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1, "title": "x", "tags": ["a", "b"]})
    b = schema.map("Issue", {"number": 1, "body": None, "tags": ["a"], "assignee": {"login": "ann"}})
    ops = a.diff(b)
    assert ops == [
        {"op": "remove", "path": "/title"},
        {"op": "add", "path": "/body", "value": None},
        {"op": "remove", "path": "/tags/1"},
        {"op": "add", "path": "/assignee", "value": {"login": "ann"}},
    ]
    assert a.patch(ops) == b
    assert a.patch(json.dumps(ops)) == b
    assert a.patch(json.dumps(ops).encode()) == b
    assert a.diff(a) == []
    # a is unchanged: patches make new models
    assert a["title"] == "x"


def test_merge_diff(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1, "title": "x"})
    b = schema.map("Issue", {"number": 2, "title": "x", "body": None, "extra": 1})
    merge = a.merge_diff(b)
    assert merge == {"number": 2, "body": None, "$unknown": {"extra": 1}}
    assert a.merge_patch(merge) == b
    with pytest.raises(strata.MappingError) as info:
        b.merge_diff(a)
    assert sorted(e["path"] for e in info.value.errors) == ["/$unknown", "/body"]
    assert all(e["code"] == "argument" for e in info.value.errors)


def test_patch_errors(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1})
    with pytest.raises(strata.MappingError) as info:
        a.patch([{"op": "test", "path": "/number", "value": 2}])
    assert info.value.errors[0]["path"] == "/0/value"
    assert info.value.code == "argument"
    with pytest.raises(strata.MappingError) as info:
        a.patch([{"op": "replace", "path": "/number", "value": "x"}, {"op": "add", "path": "/nope", "value": 1}])
    assert sorted((e["path"], e["code"]) for e in info.value.errors) == [
        ("/nope", "unknown_key"),
        ("/number", "type"),
    ]
    with pytest.raises(strata.MappingError) as info:
        a.patch("[{")
    assert info.value.code == "syntax"
    with pytest.raises(strata.MappingError):
        a.merge_patch([1])


def test_diff_needs_models_of_one_schema(schema: strata.Schema) -> None:
    a = schema.map("Issue", {"number": 1})
    user = schema.map("User", {"login": "x"})
    other = strata.Schema(DOC).map("Issue", {"number": 1})
    for x, y in ((a, user), (a, other)):
        with pytest.raises(strata.MappingError) as info:
            x.diff(y)
        assert info.value.code == "argument"
        with pytest.raises(strata.MappingError):
            x.merge_diff(y)
    with pytest.raises(TypeError):
        a.diff({"number": 1})  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# The round trip on every conformance model


def _schema_of(group: Dict[str, Any], case: Dict[str, Any]) -> Any:
    if "schemaName" in case:
        return group.get("schemas", {}).get(case["schemaName"])
    return case.get("schema", group.get("schema"))


def conformance_models() -> List[List[strata.Model]]:
    """Every model that the conformance cases map, grouped by schema and model."""
    groups: List[List[strata.Model]] = []
    for path in sorted(conformance_dir().glob("*.json")):
        group = json.loads(path.read_text(encoding="utf-8"))
        loaded: Dict[int, strata.Schema] = {}
        by_key: Dict[str, List[strata.Model]] = {}
        for case in group.get("cases", []):
            doc = _schema_of(group, case)
            if "model" not in case or "archiveWith" in case or not isinstance(doc, dict):
                continue
            if id(doc) not in loaded:
                try:
                    loaded[id(doc)] = strata.Schema(doc)
                except strata.SchemaError:
                    continue
            schema = loaded[id(doc)]
            for key in ("input", "diffFrom"):
                if key not in case or not isinstance(case[key], (dict, list)):
                    continue
                try:
                    if case.get("many"):
                        made = schema.map_many(case["model"], case[key])
                    else:
                        made = [schema.map(case["model"], case[key])]
                except strata.MappingError:
                    continue
                for model in made:
                    by_key.setdefault(f"{id(doc)} {model.model}", []).append(model)
        groups.extend(by_key.values())
    return groups


def _round_trip(a: strata.Model, b: strata.Model) -> None:
    assert a.patch(a.diff(b)) == b, (a, b)
    try:
        merge = a.merge_diff(b)
    except strata.MappingError as exc:
        assert all(e["code"] == "argument" for e in exc.errors), exc
    else:
        assert a.merge_patch(merge) == b, (a, b, merge)


def test_round_trips_on_every_conformance_model() -> None:
    pairs = 0
    for models in conformance_models():
        models = list(islice(models, 16))
        for model in models:
            schema = model.schema
            assert schema.unarchive(model.archive()) == model
            try:
                empty = schema.unarchive(
                    {"strata-archive": 1, "version": schema.version, "model": model.model, "values": {}}
                )
            except strata.MappingError:
                empty = None
            if empty is not None:
                _round_trip(empty, model)
                _round_trip(model, empty)
        for a in models:
            for b in models:
                _round_trip(a, b)
                pairs += 1
    assert pairs > 500
