"""The example program runs end to end on the checkout's example data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PYTHON_DIR, REPO_ROOT

EXAMPLE = PYTHON_DIR / "examples" / "github_issues.py"
SCHEMA = REPO_ROOT / "examples" / "github" / "schema.json"
ISSUES = REPO_ROOT / "examples" / "github" / "issues.json"


@pytest.mark.skipif(not (SCHEMA.is_file() and ISSUES.is_file()), reason="no examples/github data")
def test_github_issues_example() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    count = len(json.loads(ISSUES.read_text(encoding="utf-8")))
    assert f"mapped {count} " in result.stdout
    assert "<strata.Model " in result.stdout
    assert "to_json()" in result.stdout
    assert "mapping a bad issue fails" in result.stdout
    assert "/number" in result.stdout  # the missing required key is reported


def test_github_issues_example_with_arguments(tmp_path: Path) -> None:
    schema = {
        "strata": 1,
        "models": {
            "Issue": {
                "properties": {
                    "number": {"type": "int", "required": True},
                    "title": {"type": "string"},
                }
            }
        },
    }
    schema_path = tmp_path / "schema.json"
    issues_path = tmp_path / "issues.json"
    schema_path.write_text(json.dumps(schema))
    issues_path.write_text(json.dumps([{"number": 1, "title": "one"}, {"number": 2}]))
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), str(schema_path), str(issues_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "mapped 2 Issue models" in result.stdout
    assert "<strata.Model Issue number=1 title='one'>" in result.stdout


SEARCH_EXAMPLE = PYTHON_DIR / "examples" / "search_pages.py"
SEARCH_DIR = REPO_ROOT / "examples" / "search"


@pytest.mark.skipif(not (SEARCH_DIR / "schema.json").is_file(), reason="no examples/search data")
def test_search_pages_example() -> None:
    result = subprocess.run(
        [sys.executable, str(SEARCH_EXAMPLE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    pages = sorted(SEARCH_DIR.glob("page-*.json"))
    total = sum(len(json.loads(p.read_text(encoding="utf-8"))["statuses"]) for p in pages)
    assert f"{total} statuses on {len(pages)} pages" in result.stdout
    assert result.stdout.count("next page: ?max_id=") == len(pages) - 1
    assert "error body: missing at '/statuses' (Status)" in result.stdout
