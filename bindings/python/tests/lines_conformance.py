"""The conformance keys of JSON lines (Tests/conformance/README.md, "JSON
lines"), for test_conformance.py."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import strata
from jsoncompare import errors_difference, json_difference

LINES_RESULT_KEYS = ("lineErrors",)


def _bytes(case: Dict[str, Any]) -> bytes:
    if "linesHex" in case:
        return bytes.fromhex(case["linesHex"])
    return case["lines"].encode("utf-8")


def _sources(data: bytes, path: Path) -> List[Tuple[str, Any]]:
    """The same input as each kind of source map_lines takes."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    sources: List[Tuple[str, Any]] = [
        ("bytes", data),
        ("binary file", io.BytesIO(data)),
        ("path", path),
        ("iterable of bytes", iter(lines)),
    ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return sources
    sources += [("str", text), ("text file", io.StringIO(text, newline=""))]
    return sources


def run_lines_case(case: Dict[str, Any], schema: strata.Schema) -> bool:
    """Runs a ``lines`` case; True if it was one. Every kind of source is
    mapped with ``on_error="yield"`` and compared with ``records`` and
    ``lineErrors``; with ``on_error="raise"`` the first bad line raises."""
    if "lines" not in case and "linesHex" not in case:
        return False
    data = _bytes(case)
    limit = case.get("maxLineLength")
    handle, name = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        for kind, source in _sources(data, Path(name)):
            records: List[Any] = []
            bad: List[strata.LineError] = []
            for item in schema.map_lines(case["model"], source, on_error="yield", max_line_length=limit):
                if isinstance(item, strata.LineError):
                    bad.append(item)
                else:
                    records.append(item.to_dict())
            if "records" in case:
                problem = json_difference(case["records"], records)
                if problem:
                    pytest.fail(f"records ({kind}): {problem}")
            expected = case.get("lineErrors", [])
            assert [e["line"] for e in expected] == [b.line for b in bad], f"bad lines ({kind}): {bad}"
            for want, have in zip(expected, bad):
                assert all(entry["line"] == have.line for entry in have.errors), have
                problem = errors_difference(want["errors"], have.errors)
                if problem:
                    pytest.fail(f"line {have.line} ({kind}): {problem}")
        if case.get("lineErrors"):
            first = case["lineErrors"][0]
            with pytest.raises(strata.MappingError) as info:
                list(schema.map_lines(case["model"], data, max_line_length=limit))
            assert all(entry["line"] == first["line"] for entry in info.value.errors)
    finally:
        os.unlink(name)
    return True
