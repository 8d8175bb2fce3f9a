"""The conformance keys of merge and update (Tests/conformance/README.md,
"Merge and update"), for test_conformance.py."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

import strata
from jsoncompare import errors_difference, json_difference


def _document(value: Any) -> Any:
    """A JSON value as an argument: a JSON string is encoded first (a str is text)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return value


def run_merge_case(case: Dict[str, Any], schema: strata.Schema) -> bool:
    """Runs ``mergeWith`` (with ``mergeModel``) and ``update`` cases; True if it was one.

    ``input`` is mapped onto ``model``; then ``mergeWith`` (mapped onto
    ``mergeModel``, or ``model``) is merged into it, or ``update`` applied to
    it. ``dictionary`` / ``json`` are expected of the changed model; ``errors``
    of the merge or update, after which the model must be unchanged."""
    if "mergeWith" not in case and "update" not in case:
        return False
    model = schema.map(case["model"], _document(case["input"]))
    before = model.to_dict()
    original = model.copy()
    try:
        if "mergeWith" in case:
            other = schema.map(case.get("mergeModel", case["model"]), _document(case["mergeWith"]))
            model.merge(other)
        else:
            model.update(_document(case["update"]))
    except strata.MappingError as exc:
        if "errors" not in case:
            pytest.fail(f"the merge or update failed:\n{exc}")
        problem = errors_difference(case["errors"], exc.errors)
        if problem:
            pytest.fail("merge or update errors differ:\n" + problem)
        problem = json_difference(before, model.to_dict())
        if problem:
            pytest.fail(f"a failed merge or update changed the model {problem}")
        assert model == original, "a failed merge or update changed the model"
        return True
    if "errors" in case:
        pytest.fail(f"the merge or update succeeded with {model.to_dict()!r}, expected errors")
    for key, convert in (("dictionary", strata.Model.to_dict), ("json", strata.Model.to_json)):
        if key in case:
            actual = convert(model)
            problem = json_difference(case[key], actual)
            if problem:
                pytest.fail(f"{key} differs {problem}\nexpected: {case[key]!r}\nactual:   {actual!r}")
    return True
