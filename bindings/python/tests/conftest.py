"""Shared fixtures of the strata tests.

The package is imported from this checkout (bindings/python), so the tests run
without installing it. The conformance cases are found relative to the repo:
bindings/python/tests/../../../Tests/conformance, or $STRATA_CONFORMANCE_DIR.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

TESTS_DIR = Path(__file__).resolve().parent
PYTHON_DIR = TESTS_DIR.parent
REPO_ROOT = PYTHON_DIR.parent.parent

# Every array of 128 bytes or more that map_many reads as text is read in up to
# three pieces on threads of their own (docs/parsing.md, "several cores"), so
# the whole suite, the conformance cases included, checks that split reads
# give the answers of whole ones. The library reads these once, at its first
# such call.
os.environ.setdefault("STRATA_PIECE_BYTES", "64")
os.environ.setdefault("STRATA_THREADS", "3")

if str(PYTHON_DIR) not in sys.path:  # import strata from this checkout
    sys.path.insert(0, str(PYTHON_DIR))

import strata  # noqa: E402


def conformance_dir() -> Path:
    """The folder of the language-neutral conformance cases."""
    override = os.environ.get("STRATA_CONFORMANCE_DIR")
    if override:
        return Path(override)
    return REPO_ROOT / "Tests" / "conformance"


def conformance_cases() -> List[Tuple[str, Dict[str, Any], Dict[str, Any]]]:
    """Every case of every Tests/conformance/*.json: (id "file:name", group, case)."""
    cases = []
    for path in sorted(conformance_dir().glob("*.json")):
        group = json.loads(path.read_text(encoding="utf-8"))
        for case in group.get("cases", []):
            cases.append((f"{path.name}:{case.get('name', '?')}", group, case))
    return cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_case" in metafunc.fixturenames:
        cases = conformance_cases()
        metafunc.parametrize(
            "conformance_case",
            [(group, case) for _, group, case in cases],
            ids=[case_id for case_id, _, _ in cases],
        )


ISSUES_SCHEMA: Dict[str, Any] = {
    "strata": 1,
    "version": 3,
    "models": {
        "User": {
            "primaryKey": "id",
            "properties": {
                "id": {"type": "int", "required": True},
                "login": {"type": "string"},
            },
        },
        "Label": {
            "properties": {
                "name": {"type": "string"},
                "color": {"type": "string"},
            }
        },
        "Issue": {
            "primaryKey": "number",
            "keys": "snake_case",
            "properties": {
                "URL": {"type": "url", "json": "url"},
                "number": {"type": "int", "required": True},
                "title": {"type": "string"},
                "state": {
                    "type": "string",
                    "enum": {"open": "OPEN", "closed": "CLOSED"},
                },
                "reporterLogin": {"type": "string", "json": "user.login"},
                "assignee": {"type": "User?"},
                "labels": {"type": "[Label]", "default": []},
                "commentCount": {"type": "int", "json": "comments"},
                "score": {"type": "double"},
                "locked": {"type": "bool"},
                "body": {"type": "string?"},
                "localNote": {"type": "string", "json": False},
            },
        },
    },
}


@pytest.fixture(scope="session")
def schema_doc() -> Dict[str, Any]:
    doc: Dict[str, Any] = json.loads(json.dumps(ISSUES_SCHEMA))
    return doc


@pytest.fixture(scope="session")
def schema(schema_doc: Dict[str, Any]) -> "strata.Schema":
    return strata.Schema(schema_doc)


@pytest.fixture
def issue_input() -> Dict[str, Any]:
    return {
        "url": "https://api.github.com/repos/x/y/issues/1347",
        "number": 1347,
        "title": "Found a bug",
        "state": "open",
        "user": {"login": "octocat", "id": 1},
        "assignee": {"id": 7, "login": "hubot"},
        "labels": [{"name": "bug", "color": "f29513"}],
        "comments": 3,
        "score": 2,
        "locked": False,
        "body": None,
        "local_note": "ignored: json false",
        "unmapped": "ignored",
    }


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Counts of the JSON Schema export checks (test_json_schema_export.py)."""
    module = sys.modules.get("test_json_schema_export")
    if module is None:
        return
    stats, skips = getattr(module, "STATS", {}), getattr(module, "SKIPS", {})
    if not stats and not skips:
        return
    terminalreporter.write_line("JSON Schema export: " + ", ".join(f"{v} {k}" for k, v in sorted(stats.items())))
    for reason, count in sorted(skips.items()):
        terminalreporter.write_line(f"  skipped {count} error case(s): {module.INEXPRESSIBLE[reason]}")
