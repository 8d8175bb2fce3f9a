"""Schema tools: Schema.json_schema and Schema.diagram, and the CLI faces
(`strata schema --json-schema`, `strata describe`). The diagrams of
examples/github/schema.json are golden files in Tests/golden/."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import strata
from conftest import REPO_ROOT

GITHUB = REPO_ROOT / "examples" / "github" / "schema.json"
GOLDEN = REPO_ROOT / "Tests" / "golden"
CLI = REPO_ROOT / "build" / "strata"


@pytest.mark.parametrize("fmt", ["mermaid", "dot"])
def test_diagram_matches_the_golden_file(fmt: str) -> None:
    schema = strata.Schema.from_file(GITHUB)
    assert schema.diagram(fmt) == (GOLDEN / f"github.{fmt}").read_text(encoding="utf-8")


def test_diagram_rejects_an_unknown_format() -> None:
    schema = strata.Schema.from_file(GITHUB)
    with pytest.raises(strata.StrataError) as info:
        schema.diagram("svg")
    assert info.value.code == "argument"
    with pytest.raises(TypeError):
        schema.diagram(None)  # type: ignore[arg-type]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")
def test_dot_diagram_renders() -> None:
    text = strata.Schema.from_file(GITHUB).diagram("dot")
    done = subprocess.run(["dot", "-Tsvg"], input=text.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert b"<svg" in done.stdout


def test_json_schema_of_the_github_example() -> None:
    schema = strata.Schema.from_file(GITHUB)
    api = schema.json_schema("GHIssue")
    assert api["$ref"] == "#/$defs/GHIssue"
    assert sorted(api["$defs"]) == ["GHIssue", "GHLabel", "GHMilestone", "GHUser"]
    issue = api["$defs"]["GHIssue"]
    assert issue["required"] == ["id", "number", "title"]
    assert issue["properties"]["comments"] == {"type": "integer"}
    assert "starred" not in issue["properties"]  # json: false
    canonical = schema.json_schema("GHIssue", canonical=True)
    props = canonical["$defs"]["GHIssue"]["properties"]
    assert props["starred"] == {"type": "boolean"}
    assert props["createdAt"] == {"type": "string", "format": "date-time"}
    with pytest.raises(strata.StrataError):
        schema.json_schema("Nope")


@pytest.mark.skipif(not CLI.exists(), reason="build/strata is not built")
def test_cli() -> None:
    out = subprocess.run(
        [str(CLI), "schema", str(GITHUB), "GHUser", "--json-schema", "--canonical"],
        capture_output=True, check=True, timeout=60,
    )
    assert json.loads(out.stdout) == strata.Schema.from_file(GITHUB).json_schema("GHUser", canonical=True)
    out = subprocess.run([str(CLI), "describe", str(GITHUB), "--mermaid"], capture_output=True, check=True, timeout=60)
    assert out.stdout.decode() == (GOLDEN / "github.mermaid").read_text(encoding="utf-8")
    bad = subprocess.run([str(CLI), "describe", str(GITHUB)], capture_output=True, timeout=60)
    assert bad.returncode == 64
