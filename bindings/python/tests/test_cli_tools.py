"""The strata command's tools: diff, the error format for people and --json, suggestions, check reporting all."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "strata"
GITHUB = ROOT / "examples" / "github"

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="build/strata is built by scripts/build")


def strata(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CLI), *args], capture_output=True, text=True, input=stdin, env=dict(os.environ), cwd=ROOT
    )


def test_diff_prints_the_json_patch_between_two_inputs(tmp_path: Path) -> None:
    done = strata("diff", str(GITHUB / "schema.json"), "GHIssue", str(GITHUB / "issue.json"), str(GITHUB / "issue-closed.json"))
    assert done.returncode == 0, done.stderr
    patch = json.loads(done.stdout)
    assert {"op": "replace", "path": "/state", "value": "closed"} in patch
    # the patch turns A's model into B's, through the engine's patch
    import strata as s

    schema = s.Schema.from_file(str(GITHUB / "schema.json"))
    a = schema.map("GHIssue", (GITHUB / "issue.json").read_text())
    b = schema.map("GHIssue", (GITHUB / "issue-closed.json").read_text())
    assert a.patch(patch) == b
    same = strata("diff", str(GITHUB / "schema.json"), "GHIssue", str(GITHUB / "issue.json"), str(GITHUB / "issue.json"))
    assert json.loads(same.stdout) == []


def test_diff_merge_patch_and_bad_input_names_the_file(tmp_path: Path) -> None:
    merge = strata(
        "diff", str(GITHUB / "schema.json"), "GHIssue", str(GITHUB / "issue.json"), str(GITHUB / "issue-closed.json"), "--merge-patch"
    )
    assert merge.returncode == 0, merge.stderr
    assert json.loads(merge.stdout)["state"] == "closed"
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 1, "number": "x"}')
    done = strata("diff", str(GITHUB / "schema.json"), "GHIssue", str(GITHUB / "issue.json"), str(bad))
    assert done.returncode == 1
    assert done.stderr.startswith(f"{bad}: /number [GHIssue.number] expected int")
    assert strata("diff", str(GITHUB / "schema.json"), "GHIssue", "-", "-").returncode == 64


def test_errors_print_one_line_each_or_json() -> None:
    args = ("map", str(GITHUB / "schema.json"), "GHIssue", "-")
    human = strata(*args, stdin='{"id": 7, "number": "7"}')
    assert human.returncode == 1
    assert human.stderr.splitlines() == [
        "<stdin>: /number [GHIssue.number] expected int, found a string",
        "<stdin>: /title [GHIssue.title] required key 'title' is missing",
    ]
    machine = strata(*args, "--json", stdin='{"id": 7, "number": "7"}')
    assert [(e["path"], e["code"]) for e in json.loads(machine.stderr)] == [("/number", "type"), ("/title", "missing")]


def test_check_reports_every_pass_with_suggestions() -> None:
    done = strata("check", "examples/docs/typo-schema.json")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 4
    assert lines[0].endswith("unknown property key 'requried' (did you mean 'required'?)")
    assert "unknown type 'Labl' (did you mean 'Label'?)" in lines[1]
    assert "date pattern" in lines[2] and "regular expression" in lines[3]
    assert all(line.startswith("examples/docs/typo-schema.json: /models/Issue/properties/") for line in lines)


def test_the_engine_suggests_names_to_every_language() -> None:
    import strata as s

    schema = s.Schema.from_file(str(GITHUB / "schema.json"))
    with pytest.raises(s.StrataError, match=r"did you mean 'GHIssue'\?"):
        schema.map("GHIsue", {})
    model = schema.map("GHIssue", (GITHUB / "issue.json").read_text())
    with pytest.raises(KeyError, match=r"did you mean 'title'\?"):
        model.get("titel")
