"""Property-based tests (hypothesis): inputs drawn from the models' exported
JSON Schemas (hypothesis-jsonschema), for the example schemas and a
conformance schema with class clusters:

- map -> to_json -> map gives the same model;
- a.patch(a.diff(b)) == b, and merge_patch(merge_diff) likewise;
- an update with an error changes nothing (all or nothing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

import pytest

import strata

hypothesis = pytest.importorskip("hypothesis", reason="scripts/bootstrap installs hypothesis")
pytest.importorskip("hypothesis_jsonschema", reason="scripts/bootstrap installs hypothesis-jsonschema")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis_jsonschema import from_schema  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def _clusters() -> strata.Schema:
    return strata.Schema(json.loads((ROOT / "Tests" / "conformance" / "clusters.json").read_text())["schema"])


TARGETS: Dict[str, Tuple[Callable[[], strata.Schema], str]] = {
    "github-issue": (lambda: strata.Schema.from_file(str(ROOT / "examples" / "github" / "schema.json")), "GHIssue"),
    "search-status": (lambda: strata.Schema.from_file(str(ROOT / "examples" / "search" / "schema.json")), "Status"),
    "clusters-thread": (_clusters, "Thread"),
}

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)

_cache: Dict[str, Tuple[strata.Schema, str, Any]] = {}


def target(name: str) -> Tuple[strata.Schema, str, Any]:
    if name not in _cache:
        load, model = TARGETS[name]
        schema = load()
        _cache[name] = (schema, model, from_schema(schema.json_schema(model)))
    return _cache[name]


def mapped(schema: strata.Schema, model: str, data: Any) -> Optional[strata.Model]:
    """The model, or None for an input the exported JSON Schema cannot rule out
    but Strata refuses (integers beyond 64 bits, free-form date strings, NUL in keys)."""
    try:
        return schema.map(model, data)
    except strata.MappingError:
        return None


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_map_to_json_map_is_the_identity(name: str) -> None:
    schema, model, inputs = target(name)

    @SETTINGS
    @given(inputs)
    def check(data: Any) -> None:
        first = mapped(schema, model, data)
        assume(first is not None)
        assert first is not None
        again = schema.map(model, first.to_json())
        assert again == first
        assert again.to_dict() == first.to_dict()

    check()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_diff_then_patch_gives_the_target(name: str) -> None:
    schema, model, inputs = target(name)

    @SETTINGS
    @given(inputs, inputs)
    def check(a_data: Any, b_data: Any) -> None:
        a, b = mapped(schema, model, a_data), mapped(schema, model, b_data)
        assume(a is not None and b is not None)
        assert a is not None and b is not None
        assert a.patch(a.diff(b)) == b
        assert a.diff(a) == []
        try:
            merge = a.merge_diff(b)
        except strata.StrataError:
            return  # a property a holds and b lacks cannot be said in a merge patch
        assert a.merge_patch(merge) == b

    check()


def scalar_key(spec: Dict[str, Any]) -> str:
    """A top-level JSON key of the model whose value must be a string, integer or boolean."""
    root = spec["$defs"][spec["$ref"].rsplit("/", 1)[-1]]
    for branch in [root] + root.get("oneOf", []) + root.get("anyOf", []):
        for key, value in branch.get("properties", {}).items():
            kind = value.get("type")
            kinds = kind if isinstance(kind, list) else [kind]
            if any(k in ("string", "integer", "boolean") for k in kinds) and "enum" not in value:
                return str(key)
    raise AssertionError("no scalar key in the model")


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_an_update_with_an_error_changes_nothing(name: str) -> None:
    schema, model, inputs = target(name)
    bad_key = scalar_key(schema.json_schema(model))

    @SETTINGS
    @given(inputs, inputs)
    def check(a_data: Any, b_data: Any) -> None:
        a = mapped(schema, model, a_data)
        assume(a is not None and isinstance(b_data, dict))
        assert a is not None
        before = a.to_dict()
        # good values from another input, and one value of the wrong type
        update = {key: value for key, value in b_data.items() if key != bad_key}
        update[bad_key] = [[["not a scalar"]]]
        with pytest.raises(strata.StrataError):
            a.update(update)
        assert a.to_dict() == before

    check()
