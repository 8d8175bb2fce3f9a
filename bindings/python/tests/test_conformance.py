"""Runs every case of Tests/conformance/*.json (see the README there).

One pytest item per case, with the id ``file:name``.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

import pytest

import strata
from strata import _native, codegen
from jsoncompare import errors_difference, json_difference
from lines_conformance import LINES_RESULT_KEYS, run_lines_case
from merge_conformance import run_merge_case
from graph_conformance import GRAPH_RESULT_KEYS, run_graph_case
from response_conformance import RESPONSE_RESULT_KEYS, run_response_case
from semantic_conformance import SEMANTIC_RESULT_KEYS, check_semantic_keys, run_semantic_case

RESULT_KEYS = (
    ("dictionary", "json", "errors", "schemaErrors", "python", "errorCodes") + SEMANTIC_RESULT_KEYS + RESPONSE_RESULT_KEYS + LINES_RESULT_KEYS + GRAPH_RESULT_KEYS
)


def _outcome(call: Any) -> Any:
    try:
        return ("ok", [m.to_dict() for m in call()], None)
    except strata.MappingError as exc:
        return ("error", None, exc.errors)


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _int64(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{text} is outside 64 bits")  # jansson refuses it
    return value


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} overflows a double")  # jansson refuses it
    return value


def _check_byte_paths(schema: strata.Schema, model: str, many: bool, case: Dict[str, Any]) -> None:
    """The byte parser (map/map_many of bytes: strata_mapb) against the DOM path
    (the same input as Python data: strata_map on a json_t): equal answers."""
    if "input" in case:
        text = json.dumps(case["input"], ensure_ascii=False).encode("utf-8")
        data: Any = case["input"]
    elif isinstance(case.get("inputText"), str):
        text = case["inputText"].encode("utf-8")
        try:
            data = json.loads(text, parse_constant=_not_json, parse_int=_int64, parse_float=_finite)
        except ValueError:
            return  # text jansson refuses: there is no DOM path to compare with
    else:
        return
    if isinstance(data, str):
        return  # Python str data is read as JSON text: no DOM path to compare with
    if many:
        pruned = _outcome(lambda: schema.map_many(model, text))
        dom = _outcome(lambda: schema.map_many(model, data))
    else:
        pruned = _outcome(lambda: [schema.map(model, text)])
        dom = _outcome(lambda: [schema.map(model, data)])
    assert pruned == dom, f"byte paths differ:\nparser: {pruned!r}\nDOM:    {dom!r}"


def _as_document(value: Any) -> Any:
    """A JSON value of a case as an argument: a JSON string must not be taken for
    JSON text (strata reads a Python str as text), so it is encoded first."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return value


def _schema_doc(group: Dict[str, Any], case: Dict[str, Any]) -> Any:
    """The case's schema (or the one of the file's ``schemas`` it names), else its file's."""
    if "schemaName" in case:
        return _as_document(group.get("schemas", {}).get(case["schemaName"]))
    if "schema" in case:
        return _as_document(case["schema"])
    if "schema" not in group:
        pytest.fail("the case has no schema and its file has none")
    return _as_document(group["schema"])


def _input(case: Dict[str, Any]) -> Any:
    if "inputText" in case:
        return case["inputText"]  # raw text for the byte-level entry points
    if "input" in case:
        return _as_document(case["input"])
    pytest.fail("the case has neither input nor inputText")


def test_case(conformance_case: Tuple[Dict[str, Any], Dict[str, Any]]) -> None:
    group, case = conformance_case
    if not any(key in case for key in RESULT_KEYS):
        pytest.fail(f"the case expects none of {', '.join(RESULT_KEYS)}")
    if "errorCodes" in case:  # every code: its name and number
        known = {name: number for number, name in _native.CODE_NAMES.items() if number != _native.STRATA_OK}
        assert known == case["errorCodes"]
        return

    if "schemaErrors" in case:
        with pytest.raises(strata.SchemaError) as info:
            strata.Schema(_schema_doc(group, case))
        problem = errors_difference(case["schemaErrors"], info.value.errors)
        if problem:
            pytest.fail("schema errors differ:\n" + problem)
        return

    if run_graph_case(case, _schema_doc(group, case)):  # graph
        return
    try:
        schema = strata.Schema(_schema_doc(group, case))
    except strata.SchemaError as exc:
        pytest.fail(f"the schema does not load:\n{exc}")
    if run_semantic_case(group, case, schema):  # unarchive, archiveWith, compareWith
        return
    if run_merge_case(case, schema):  # mergeWith, update
        return
    if run_response_case(case, schema):  # response
        return
    if run_lines_case(case, schema):  # lines, linesHex
        return
    if "python" in case:  # typed Python classes: every expected line is in the module
        module = codegen.python(strata.Schema(_schema_doc(group, case)))
        missing = [line for line in case["python"] if line not in module]
        if missing:
            pytest.fail("the generated module lacks:\n" + "\n".join(missing))
        return
    model = case.get("model")
    if model is None:
        pytest.fail("the case has no model")
    data = _input(case)
    many = bool(case.get("many", False))
    _check_byte_paths(schema, model, many, case)

    if "errors" in case:
        with pytest.raises(strata.MappingError) as failure:
            if many:
                schema.map_many(model, data)
            else:
                schema.map(model, data)
        problem = errors_difference(case["errors"], failure.value.errors)
        if problem:
            pytest.fail("mapping errors differ:\n" + problem)
        return

    try:
        models: List[strata.Model] = (
            schema.map_many(model, data) if many else [schema.map(model, data)]
        )
    except strata.MappingError as exc:
        pytest.fail(f"mapping failed:\n{exc}")

    for key, convert in (("dictionary", strata.Model.to_dict), ("json", strata.Model.to_json)):
        if key not in case:
            continue
        values = [convert(m) for m in models]
        actual = values if many else values[0]
        problem = json_difference(case[key], actual)
        if problem:
            pytest.fail(f"{key} differs {problem}\nexpected: {case[key]!r}\nactual:   {actual!r}")

    if not many:
        check_semantic_keys(schema, case, models[0])  # archive, diffFrom, patch, mergePatch
