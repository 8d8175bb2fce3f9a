"""The conformance keys of response envelopes (Tests/conformance/README.md,
"Responses"), for test_conformance.py."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

import strata
from jsoncompare import errors_difference, json_difference

RESPONSE_RESULT_KEYS = ("records", "metadata")


def _inputs(case: Dict[str, Any]) -> List[Any]:
    """The response as the call gets it: ``inputText`` as text; ``input`` as
    Python data (a JSON string encoded first: a str is text) and as bytes."""
    if "inputText" in case:
        return [case["inputText"]]
    value = case["input"]
    text = json.dumps(value, ensure_ascii=False)
    return [text if isinstance(value, str) else value, text.encode("utf-8")]


def run_response_case(case: Dict[str, Any], schema: strata.Schema) -> bool:
    """Runs a ``response`` case; True if it was one.

    The input is mapped with ``schema.map_response(model, data, root=...,
    meta=...)`` from the options of ``response``; ``records`` (canonical
    dictionaries, in order) and ``metadata`` (a dictionary or None) are
    expected, or ``errors``."""
    if "response" not in case:
        return False
    options = case["response"]
    root = options.get("root")
    meta = options.get("meta")
    for data in _inputs(case):
        if "errors" in case:
            with pytest.raises(strata.MappingError) as failure:
                schema.map_response(case["model"], data, root=root, meta=meta)
            problem = errors_difference(case["errors"], failure.value.errors)
            if problem:
                pytest.fail("response errors differ:\n" + problem)
            continue
        try:
            response = schema.map_response(case["model"], data, root=root, meta=meta)
        except strata.MappingError as exc:
            pytest.fail(f"map_response failed:\n{exc}")
        records = [record.to_dict() for record in response.records]
        assert len(response) == len(records)
        assert [r.to_dict() for r in response] == records
        if "records" in case:
            problem = json_difference(case["records"], records)
            if problem:
                pytest.fail(f"records differ {problem}\nexpected: {case['records']!r}\nactual:   {records!r}")
        if "metadata" in case:
            actual = None if response.metadata is None else response.metadata.to_dict()
            problem = json_difference(case["metadata"], actual)
            if problem:
                pytest.fail(f"metadata differs {problem}\nexpected: {case['metadata']!r}\nactual:   {actual!r}")
    return True
