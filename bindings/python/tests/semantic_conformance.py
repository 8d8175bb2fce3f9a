"""The conformance keys of diff and patch, archives and compatibility
(Tests/conformance/README.md), for test_conformance.py."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pytest

import strata
from jsoncompare import errors_difference, json_difference

#: Keys that make a case expect something, besides dictionary/json/errors/schemaErrors.
SEMANTIC_RESULT_KEYS = (
    "archive",
    "diffFrom",
    "diff",
    "mergeDiff",
    "mergeDiffErrors",
    "patched",
    "patchErrors",
    "changes",
)


def _document(value: Any) -> Any:
    """A JSON value as an argument: a JSON string is encoded first (a str is text)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return value


def schema_reference(group: Dict[str, Any], reference: Any) -> Any:
    """A schema named in the file's ``schemas``, or the document given."""
    if isinstance(reference, str):
        schemas = group.get("schemas", {})
        if reference not in schemas:
            pytest.fail(f"no schema named {reference!r} in the file's schemas")
        return schemas[reference]
    return reference


def compare_changes(expected: List[Dict[str, Any]], actual: List[Dict[str, Any]]) -> Optional[str]:
    """Only the members an expected change gives are compared; message as a substring."""
    if len(expected) != len(actual):
        return f"expected {len(expected)} changes, got {len(actual)}: {actual!r}"
    for index, (want, have) in enumerate(zip(expected, actual)):
        for key, value in want.items():
            if key == "message":
                if value not in have.get("message", ""):
                    return f"change {index}: message {have.get('message')!r} lacks {value!r}"
            elif have.get(key) != value or type(have.get(key)) is not type(value):
                return f"change {index}: {key} expected {value!r}, got {have.get(key)!r} in {have!r}"
    return None


def _check_restored(case: Dict[str, Any], restore: Any) -> None:
    try:
        restored = restore()
    except strata.MappingError as exc:
        if "errors" not in case:
            pytest.fail(f"unarchive failed:\n{exc}")
        problem = errors_difference(case["errors"], exc.errors)
        if problem:
            pytest.fail("unarchive errors differ:\n" + problem)
        return
    if "errors" in case:
        pytest.fail(f"unarchive succeeded with {restored.to_dict()!r}, expected errors")
    for key, convert in (("dictionary", strata.Model.to_dict), ("json", strata.Model.to_json)):
        if key in case:
            problem = json_difference(case[key], convert(restored))
            if problem:
                pytest.fail(f"{key} differs {problem}")


def run_semantic_case(group: Dict[str, Any], case: Dict[str, Any], schema: strata.Schema) -> bool:
    """Runs ``compareWith``, ``unarchive`` and ``archiveWith`` cases; True if it was one."""
    if "compareWith" in case:
        old = strata.Schema(_document(schema_reference(group, case["compareWith"])))
        problem = compare_changes(case.get("changes", []), strata.compare(old, schema))
        if problem:
            pytest.fail("changes differ: " + problem)
        return True
    if "unarchive" in case:
        document = case["unarchive"]
        _check_restored(case, lambda: schema.unarchive(json.dumps(document)))
        return True
    if "archiveWith" in case:
        writer = strata.Schema(_document(schema_reference(group, case["archiveWith"])))
        archive = writer.map(case["model"], _document(case["input"])).archive()
        assert isinstance(archive, str)
        if "archive" in case:
            problem = json_difference(case["archive"], json.loads(archive))
            if problem:
                pytest.fail(f"archive differs {problem}")
        _check_restored(case, lambda: schema.unarchive(archive))
        return True
    return False


def check_semantic_keys(schema: strata.Schema, case: Dict[str, Any], model: strata.Model) -> None:
    """``archive``, ``diffFrom`` (``diff``, ``mergeDiff``, ``mergeDiffErrors``),
    ``patch`` and ``mergePatch`` (``patched``, ``patchErrors``)."""
    if "archive" in case:
        archive = model.archive()
        problem = json_difference(case["archive"], json.loads(archive))
        if problem:
            pytest.fail(f"archive differs {problem}")
        assert schema.unarchive(archive) == model, "unarchive(archive(m)) == m"
        assert schema.unarchive(json.loads(archive)) == model
    if "diffFrom" in case:
        a = schema.map(model.model, _document(case["diffFrom"]))
        patch = a.diff(model)
        if "diff" in case:
            problem = json_difference(case["diff"], patch)
            if problem:
                pytest.fail(f"diff differs {problem}\nexpected: {case['diff']!r}\nactual:   {patch!r}")
        assert a.patch(patch) == model, "patch(a, diff(a, b)) == b"
        try:
            merge = a.merge_diff(model)
        except strata.MappingError as exc:
            if "mergeDiffErrors" not in case:
                pytest.fail(f"merge_diff failed:\n{exc}")
            problem = errors_difference(case["mergeDiffErrors"], exc.errors)
            if problem:
                pytest.fail("merge_diff errors differ:\n" + problem)
        else:
            if "mergeDiffErrors" in case:
                pytest.fail(f"merge_diff succeeded with {merge!r}, expected errors")
            if "mergeDiff" in case:
                problem = json_difference(case["mergeDiff"], merge)
                if problem:
                    pytest.fail(f"mergeDiff differs {problem}")
            assert a.merge_patch(merge) == model, "merge_patch(a, merge_diff(a, b)) == b"
    for key in ("patch", "mergePatch"):
        if key not in case:
            continue
        apply = model.patch if key == "patch" else model.merge_patch
        try:
            patched = apply(json.dumps(case[key]))
        except strata.MappingError as exc:
            if "patchErrors" not in case:
                pytest.fail(f"{key} failed:\n{exc}")
            problem = errors_difference(case["patchErrors"], exc.errors)
            if problem:
                pytest.fail(f"{key} errors differ:\n" + problem)
            continue
        if "patchErrors" in case:
            pytest.fail(f"{key} succeeded with {patched.to_dict()!r}, expected errors")
        if "patched" in case:
            problem = json_difference(case["patched"], patched.to_dict())
            if problem:
                pytest.fail(f"patched differs {problem}")
