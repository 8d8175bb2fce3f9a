"""The strata command's response options (--response, --root, --meta) on examples/search."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "strata"
SCHEMA = str(ROOT / "examples" / "search" / "schema.json")

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="build/strata is built by scripts/build")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CLI), "map", "--json", SCHEMA, *args], capture_output=True, text=True, env=dict(os.environ)
    )


def page(n: int) -> str:
    return str(ROOT / "examples" / "search" / f"page-{n}.json")


def test_response_uses_the_schemas_root_and_meta() -> None:
    done = run("Status", page(1), "--response")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [r["id"] for r in out["records"]] == [1063000000000000006, 1063000000000000005]
    assert out["metadata"]["nextResults"].startswith("?max_id=")


def test_root_and_meta_options_imply_response_and_serialize() -> None:
    done = run("Status", page(2), "--root=/statuses", "--meta", "search_metadata:SearchMetadata", "--serialize")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "retweet_count" in out["records"][0]
    assert "max_id" in out["metadata"]


def test_whole_response_root_and_missing_root() -> None:
    done = run("Status", page(1), "--root", "")
    assert done.returncode == 1
    errors = json.loads(done.stderr)
    # "" is the whole response: one object, which is no Status
    assert (errors[0]["path"], errors[0]["code"]) == ("/id", "missing")
    bad = run("Status", str(ROOT / "examples" / "search" / "error.json"), "--response")
    assert bad.returncode == 1
    assert json.loads(bad.stderr)[0] == {
        "path": "/statuses",
        "model": "Status",
        "property": "",
        "code": "missing",
        "message": json.loads(bad.stderr)[0]["message"],
    }


def test_bad_options_are_errors_not_crashes() -> None:
    assert run("Status", page(1), "--meta", "nocolon").returncode == 1
    assert run("Status", page(1), "--response", "--many").returncode == 1
    assert run("Status", page(1), "--root").returncode == 64


def test_cli_version_is_the_headers() -> None:
    import re

    header = (ROOT / "include" / "strata.h").read_text()
    match = re.search(r'#define STRATA_VERSION "([^"]+)"', header)
    assert match is not None
    done = subprocess.run([str(CLI), "--version"], capture_output=True, text=True)
    assert done.stdout.strip() == match.group(1)
