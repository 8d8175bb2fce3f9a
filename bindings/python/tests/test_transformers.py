"""Custom transformers from Python: registration, both directions, errors, lifetime."""

from __future__ import annotations

import gc
import threading
from typing import Any, Dict, List

import pytest

import strata
from strata import _transformers

DOC: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "Post": {
            "properties": {
                "tags": {"type": "[string]", "transform": "csv"},
                "score": {"type": "int", "transform": ["strip-prefix", "string-number"]},
                "slug": {"type": "string?", "transform": "shout"},
            }
        }
    },
}


def csv_in(value: Any) -> List[str]:
    return [part for part in value.split(",") if part]


def csv_out(value: List[str]) -> str:
    return ",".join(value)


TRANSFORMERS: Dict[str, Any] = {
    "csv": (csv_in, csv_out),
    "strip-prefix": (lambda v: v.removeprefix("n:"), lambda v: "n:" + v),
    "shout": str.upper,  # a bare callable is one-way
}


@pytest.fixture
def schema() -> strata.Schema:
    return strata.Schema(DOC, transformers=TRANSFORMERS)


def test_forward_and_reverse(schema: strata.Schema) -> None:
    post = schema.map("Post", {"tags": "a,b", "score": "n:12", "slug": "hello"})
    assert post.to_dict() == {"tags": ["a", "b"], "score": 12, "slug": "HELLO"}
    # Reversed last step first: 12 -> "12" -> "n:12"; a one-way step writes its value unchanged.
    assert post.to_json() == {"tags": "a,b", "score": "n:12", "slug": "HELLO"}


def test_null_is_not_transformed(schema: strata.Schema) -> None:
    post = schema.map("Post", {"slug": None})
    assert post["slug"] is None


def test_exception_becomes_format_error_at_the_path(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map("Post", {"tags": 5, "score": "n:x"})
    errors = {(e["path"], e["code"]): e["message"] for e in info.value.errors}
    assert set(errors) == {("/tags", "format"), ("/score", "format")}
    assert "AttributeError" in errors[("/tags", "format")]
    assert errors[("/score", "format")].startswith("string-number:")


def test_result_that_json_cannot_hold(schema: strata.Schema) -> None:
    bad = strata.Schema(DOC, transformers={**TRANSFORMERS, "csv": (lambda v: object(), None)})
    with pytest.raises(strata.MappingError) as info:
        bad.map("Post", {"tags": "a"})
    assert info.value.errors[0]["code"] == "format"
    assert info.value.errors[0]["path"] == "/tags"


def test_reverse_failure_makes_to_json_fail() -> None:
    def refuse(value: Any) -> Any:
        raise ValueError("cannot write back")

    schema = strata.Schema(DOC, transformers={**TRANSFORMERS, "csv": (csv_in, refuse)})
    post = schema.map("Post", {"tags": "a"})
    with pytest.raises(strata.StrataError) as info:
        post.to_json()
    assert info.value.errors[0]["code"] == "format"
    assert "cannot write back" in info.value.errors[0]["message"]


def test_builtin_names_are_refused() -> None:
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema(DOC, transformers={**TRANSFORMERS, "trim": str.strip})
    assert info.value.errors[0]["code"] == "argument"


def test_unregistered_name_is_a_schema_error() -> None:
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema(DOC)
    paths = {e["path"] for e in info.value.errors}
    assert "/models/Post/properties/tags/transform" in paths


def test_callbacks_live_as_long_as_the_models() -> None:
    gc.collect()
    before = set(_transformers._alive)
    schema = strata.Schema(DOC, transformers=TRANSFORMERS)
    post = schema.map("Post", {"tags": "a,b"})
    del schema
    gc.collect()
    assert post.to_json() == {"tags": "a,b"}  # the schema lives on in the model
    del post
    gc.collect()
    assert not set(_transformers._alive) - before


def test_from_file_with_transformers(tmp_path: Any) -> None:
    import json

    path = tmp_path / "schema.json"
    path.write_text(json.dumps(DOC))
    schema = strata.Schema.from_file(path, transformers=TRANSFORMERS)
    assert schema.map("Post", {"tags": "x"})["tags"] == ["x"]


def test_threads_share_a_schema_with_transformers(schema: strata.Schema) -> None:
    results: List[Any] = []

    def work(n: int) -> None:
        for i in range(200):
            results.append(schema.map("Post", {"tags": f"t{n},{i}"}).to_json())

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 800
    assert all(r["tags"].count(",") == 1 for r in results)
