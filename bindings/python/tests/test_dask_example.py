"""examples/dask/map_folder.py on a LocalCluster of two worker processes:
generated JSON-lines files (with bad lines) mapped one file per task; the
counts, the errors (file, line, code, path) and the Parquet and JSON-lines
output are checked."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import strata
from strata import _pickling

REPO_ROOT = Path(__file__).resolve().parents[3]
EXAMPLE_DIR = REPO_ROOT / "examples" / "dask"

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (scripts/bootstrap installs dask[distributed])"
)
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (scripts/bootstrap installs it)")

if str(EXAMPLE_DIR) not in sys.path:
    sys.path.insert(0, str(EXAMPLE_DIR))
import map_folder  # noqa: E402

# name -> lines. Line numbers count every line, blank ones too.
FILES: Dict[str, List[str]] = {
    "a.jsonl": [
        '{"number": 1, "title": "One", "state": "open", "labels": "bug, ui", "user": {"login": "ann", "id": 7},'
        ' "created_at": "2024-05-01T09:30:00Z"}',
        "",
        '{"number": 2, "title": "Two", "state": "closed", "comments": 4, "score": 2,'
        ' "created_at": "2024-05-02T08:00:00Z", "closed_at": "2024-05-03T10:00:00.250Z"}',
        "   ",
        '{"number": "3", "title": "Bad number", "created_at": "2024-05-04T00:00:00Z"}',
    ],
    "b.jsonl": [
        '{"number": 4, "title": "Four", "created_at": "2024-06-01T09:00:00Z", "pull_request": {"url": "u", "n": [1, 2]}}',
        '{"number": 5, "title": "truncated"',
        '{"number": 6, "title": "Six", "state": "merged", "labels": 12, "created_at": "2024-06-02T09:00:00Z"}',
        "not json at all",
        '{"number": 7, "title": "Seven", "created_at": "2024-06-03T09:00:00Z", "user": {"login": "bo"}}',
        '{"number": 8, "title": "Eight", "created_at": "2024-06-04T09:00:00Z"}',
    ],
    "c.jsonl": [""],  # nothing but a blank line: no records, no errors
    "d.jsonl": [
        json.dumps({"number": n, "title": f"Bulk {n}", "created_at": "2024-07-01T00:00:00Z", "labels": "x"})
        for n in range(100, 150)
    ],
}

EXPECTED_ERRORS: List[Tuple[str, int, str, str]] = [
    ("a.jsonl", 5, "type", "/number"),
    ("b.jsonl", 2, "syntax", ""),
    ("b.jsonl", 3, "enum", "/state"),
    ("b.jsonl", 3, "format", "/labels"),
    ("b.jsonl", 4, "syntax", ""),
    ("b.jsonl", 5, "missing", "/user/id"),
]
EXPECTED_RECORDS = {"a.jsonl": 2, "b.jsonl": 2, "c.jsonl": 0, "d.jsonl": 50}


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    saved = {name: os.environ.get(name) for name in ("PYTHONPATH", "STRATA_LIBRARY")}
    # The workers inherit this process's environment: STRATA_LIBRARY (set by
    # scripts/test, or the library this process loaded) and the example folder.
    cluster = map_folder.local_cluster(2)
    try:
        with distributed.Client(cluster) as dask_client:
            yield dask_client
    finally:
        cluster.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def input_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lines")
    for name, lines in FILES.items():
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "notes.txt").write_text("not a .jsonl file\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def schema() -> strata.Schema:
    return map_folder.load_schema(EXAMPLE_DIR / "schema.json", "issue_transforms")


def error_keys(errors: List[Dict[str, Any]]) -> List[Tuple[str, int, str, str]]:
    return sorted((e["file"], e["line"], e["code"], e["path"]) for e in errors)


def test_the_workers_are_two_processes(client: Any) -> None:
    info = client.scheduler_info()["workers"]
    assert len(info) == 2
    assert all(worker["nthreads"] == 1 for worker in info.values())
    pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    # They loaded the same libstrata as this process (STRATA_LIBRARY is inherited).
    libraries = client.run(_library_path)
    assert set(libraries.values()) == {(strata.library_path, strata.library_path)}


def _library_path() -> Tuple[str, str]:
    import strata as worker_strata

    return worker_strata.library_path, os.environ.get("STRATA_LIBRARY", "")


def test_parquet(client: Any, input_dir: Path, schema: strata.Schema, tmp_path: Path) -> None:
    summary = map_folder.map_folder(client, schema, "Issue", input_dir, tmp_path, "parquet")

    assert [part.file for part in summary.parts] == ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"]
    assert {part.file: part.records for part in summary.parts} == EXPECTED_RECORDS
    assert summary.records == 54
    # The tasks ran in the worker processes, not here.
    assert os.getpid() not in {part.worker_pid for part in summary.parts}

    assert error_keys(summary.errors) == sorted(EXPECTED_ERRORS)
    format_error = next(e for e in summary.errors if e["code"] == "format")
    assert "TypeError: labels must be a comma-separated string, not int" in format_error["message"]
    written = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text(encoding="utf-8").splitlines()]
    assert written == summary.errors

    a = pq.read_table(tmp_path / "a.parquet").to_pylist()
    assert [row["number"] for row in a] == [1, 2]
    assert a[0]["labels"] == ["bug", "ui"]  # the transformer ran in a worker
    assert a[0]["user"] == {"login": "ann", "id": 7}
    assert a[0]["createdAt"].isoformat() == "2024-05-01T09:30:00+00:00"
    assert a[0]["closedAt"] is None and a[0]["score"] is None and a[0]["comments"] == 0
    assert a[1]["user"] is None and a[1]["labels"] == [] and a[1]["score"] == 2.0
    assert a[1]["closedAt"].isoformat() == "2024-05-03T10:00:00.250000+00:00"
    b = pq.read_table(tmp_path / "b.parquet").to_pylist()
    assert [row["number"] for row in b] == [4, 8]
    assert json.loads(b[0]["pullRequest"]) == {"url": "u", "n": [1, 2]}
    # Every file has the same columns and types, even one without records.
    empty = pq.read_table(tmp_path / "c.parquet")
    assert empty.num_rows == 0 and empty.schema == pq.read_table(tmp_path / "d.parquet").schema
    bulk = pq.read_table(tmp_path / "d.parquet")
    assert bulk.column("number").to_pylist() == list(range(100, 150))

    # Each worker loaded the schema once, however many tasks it ran.
    loaded = client.run(_pickling.cached_schemas)
    assert sum(loaded.values()) >= 1 and set(loaded.values()) <= {0, 1}


def test_json_lines(client: Any, input_dir: Path, schema: strata.Schema, tmp_path: Path) -> None:
    summary = map_folder.map_folder(client, schema, "Issue", input_dir, tmp_path, "jsonl")
    assert {part.file: part.records for part in summary.parts} == EXPECTED_RECORDS
    assert error_keys(summary.errors) == sorted(EXPECTED_ERRORS)
    lines = (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()
    expected = [
        schema.map("Issue", line).to_dict() for line in FILES["a.jsonl"] if line.strip() and '"3"' not in line
    ]
    assert [json.loads(line) for line in lines] == expected
    assert expected[0]["labels"] == ["bug", "ui"] and expected[1]["closedAt"] == "2024-05-03T10:00:00.25Z"
    assert (tmp_path / "c.jsonl").read_text(encoding="utf-8") == ""
    assert len((tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()) == 50


def test_chunks_give_the_same_records_and_errors(
    client: Any, input_dir: Path, schema: strata.Schema, tmp_path: Path
) -> None:
    whole = map_folder.map_folder(client, schema, "Issue", input_dir, tmp_path / "whole", "jsonl")
    chunked = map_folder.map_folder(client, schema, "Issue", input_dir, tmp_path / "chunks", "parquet", chunk_bytes=200)
    parts = {name: [p for p in chunked.parts if p.file == name] for name in FILES}
    assert len(parts["a.jsonl"]) >= 2 and len(parts["d.jsonl"]) > 10 and len(parts["c.jsonl"]) == 1
    assert [Path(p.output).name for p in parts["a.jsonl"]][:2] == ["a.part00000.parquet", "a.part00001.parquet"]
    # Line numbers are the file's, as without chunks.
    assert error_keys(chunked.errors) == sorted(EXPECTED_ERRORS)
    assert chunked.errors == whole.errors
    for name, lines in FILES.items():
        assert sum(p.lines for p in parts[name]) == len(lines)
        rows = [row for p in parts[name] for row in pq.read_table(p.output).to_pylist()]
        expected = [json.loads(line) for line in (tmp_path / "whole" / (Path(name).stem + ".jsonl")).read_text().splitlines()]
        assert [row["number"] for row in rows] == [row["number"] for row in expected]
        assert [row["title"] for row in rows] == [row["title"] for row in expected]


@pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 5, 8, 13, 64, 1000])
def test_line_ranges_read_every_line_once(chunk_bytes: int) -> None:
    import io
    import random

    from line_ranges import RangeReader, split

    rng = random.Random(chunk_bytes)
    for _ in range(200):
        lines = [rng.choice(["", "a", "bb", "x" * rng.randint(0, 30), "\r"]) for _ in range(rng.randint(0, 12))]
        data = "\n".join(lines).encode() + (b"\n" if rng.random() < 0.5 and lines else b"")
        given = b""
        counted = 0
        for start, end in split(len(data), chunk_bytes):
            reader = RangeReader(io.BytesIO(data), start, end)
            while True:
                chunk = reader.read(rng.randint(1, 7))
                if not chunk:
                    break
                given += chunk
            counted += reader.lines
        assert given == data
        assert counted == data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def test_the_script(input_dir: Path, tmp_path: Path) -> None:
    # The command line, as the README runs it (its own LocalCluster).
    import subprocess

    env = dict(os.environ)
    env.setdefault("STRATA_LIBRARY", strata.library_path)
    env["PYTHONPATH"] = str(REPO_ROOT / "bindings" / "python")
    done = subprocess.run(
        [sys.executable, str(EXAMPLE_DIR / "map_folder.py"), str(input_dir), str(tmp_path), "--format", "jsonl"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # some lines failed
    assert done.stdout.splitlines()[-1] == "4 files, 54 records, 6 errors"
    assert "b.jsonl:3: enum at /state: " in done.stdout
