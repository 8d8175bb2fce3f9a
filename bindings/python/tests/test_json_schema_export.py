"""The JSON Schema export (``Schema.json_schema``) against the conformance cases.

For every case of Tests/conformance/*.json that maps successfully (it expects
``dictionary``/``json``; not ``many``; no ``schemaName``, ``archiveWith``,
response or lines keys), the case's ``input`` must validate against the
exported schema of its model (API JSON) and its ``dictionary`` against the
canonical export. For every case that expects ``errors`` whose codes are all
in {type, missing, null, enum, validation}, the input must FAIL validation,
unless one of its errors is of a kind JSON Schema cannot express: those are
skipped for the reasons in ``INEXPRESSIBLE`` (see docs/tools.md, "Limits").
The counts are printed in the terminal summary (conftest.py).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

import pytest

jsonschema = pytest.importorskip("jsonschema")

import strata
from conftest import conformance_cases

CHECKED_CODES = {"type", "missing", "null", "enum", "validation"}
SKIP_KEYS = {
    "many", "schemaName", "archiveWith", "unarchive", "response", "root", "meta", "lines",
    "linesHex", "inputText", "compareWith", "mergeWith", "update",
}

# Why an expected error cannot be caught by a JSON Schema of the API JSON.
INEXPRESSIBLE = {
    "transform": "the value goes through a transformer first: its JSON side is only roughly described",
    "date-bound": "date bounds (validate min/max on dates) are not expressible",
    "date-format": "dates in unix or pattern formats: the JSON side is a number or free text",
    "enum-validate": "validate rules of an enum property apply to the model values, not the JSON ones",
    "enum-default": "with enumDefault any JSON value maps",
    "integer-real": "JSON Schema's integer accepts 3.0; Strata's int refuses a real",
}

# Whole files whose cases the Python validator cannot check.
SKIP_FILES = {
    "depth.json": "512 levels of nesting exceed the recursion limit of the Python jsonschema validator",
}

STATS: Counter = Counter()
SKIPS: Counter = Counter()


def _schema_doc(group: Dict[str, Any], case: Dict[str, Any]) -> Optional[Any]:
    return case.get("schema", group.get("schema"))


def _property(doc: Dict[str, Any], model: str, name: str) -> Optional[Dict[str, Any]]:
    models = doc.get("models", {})
    seen = 0
    while model in models and seen < 50:
        definition = models[model]
        if name in definition.get("properties", {}):
            return definition["properties"][name]
        model = definition.get("extends", "")
        seen += 1
    return None


def _at(value: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        elif isinstance(value, dict) and token in value:
            value = value[token]
        else:
            return None
    return value


def _inexpressible(doc: Dict[str, Any], case: Dict[str, Any]) -> Optional[str]:
    """The key of INEXPRESSIBLE that explains an error of the case, or None."""
    for error in case["errors"]:
        found = _at(case["input"], error.get("path", ""))
        if error.get("code") == "type" and isinstance(found, float) and found.is_integer():
            return "integer-real"
        prop = _property(doc, error.get("model", ""), error.get("property", ""))
        if prop is None:
            continue
        type_text = prop.get("type", "") if isinstance(prop.get("type"), str) else ""
        if "transform" in prop:
            return "transform"
        if "date" in type_text and error.get("code") == "validation":
            return "date-bound"
        if "date" in type_text and prop.get("format", "iso8601") != "iso8601":
            return "date-format"
        if "enum" in prop and "enumDefault" in prop:
            return "enum-default"
        if "enum" in prop and error.get("code") == "validation":
            return "enum-validate"
    return None


def _cases() -> List[Tuple[str, Dict[str, Any], Dict[str, Any]]]:
    out = []
    for case_id, group, case in conformance_cases():
        if _schema_doc(group, case) is None or "model" not in case or "input" not in case:
            continue
        if SKIP_KEYS & case.keys():
            continue
        if "dictionary" in case or "json" in case:
            out.append((case_id, group, dict(case, _file=case_id.split(":")[0])))
        elif "errors" in case and case["errors"] and all(e.get("code") in CHECKED_CODES for e in case["errors"]):
            out.append((case_id, group, dict(case, _file=case_id.split(":")[0])))
    return out


CASES = _cases()


def _validator(document: Dict[str, Any]) -> Any:
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@pytest.mark.parametrize("group,case", [(g, c) for _, g, c in CASES], ids=[i for i, _, _ in CASES])
def test_case_against_exported_schema(group: Dict[str, Any], case: Dict[str, Any]) -> None:
    doc = _schema_doc(group, case)
    case_file = next((f for f in SKIP_FILES if case.get("_file") == f), None)
    if case_file:
        STATS["cases skipped: " + SKIP_FILES[case_file]] += 1
        pytest.skip(SKIP_FILES[case_file])
    try:
        schema = strata.Schema(doc)
    except strata.SchemaError as exc:
        STATS["schema does not load without host transformers"] += 1
        pytest.skip(f"the schema needs host transformers: {exc}")
    api = schema.json_schema(case["model"])
    if "errors" not in case:
        errors = sorted(_validator(api).iter_errors(case["input"]), key=str)
        assert not errors, "input rejected by the API JSON Schema: " + "; ".join(
            f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]
        ) + "\n" + json.dumps(api, indent=1)[:3000]
        STATS["inputs accepted"] += 1
        if "dictionary" in case:
            canonical = schema.json_schema(case["model"], canonical=True)
            errors = sorted(_validator(canonical).iter_errors(case["dictionary"]), key=str)
            assert not errors, "dictionary rejected by the canonical JSON Schema: " + "; ".join(
                f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]
            ) + "\n" + json.dumps(canonical, indent=1)[:3000]
            STATS["dictionaries accepted"] += 1
        return
    reason = _inexpressible(doc, case)
    if reason is not None:
        SKIPS[reason] += 1
        pytest.skip(INEXPRESSIBLE[reason])
    valid = _validator(api).is_valid(case["input"])
    assert not valid, "input with errors %s accepted by the API JSON Schema:\n%s" % (
        json.dumps(case["errors"]), json.dumps(api, indent=1)[:3000])
    STATS["bad inputs rejected"] += 1
