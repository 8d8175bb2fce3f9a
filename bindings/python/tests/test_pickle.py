"""Pickling a Schema: the document plus its callables by reference, loaded
once per process (strata/_pickling.py)."""

from __future__ import annotations

import copy
import functools
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict

import pytest

import pickle_transformers
import strata
from strata import _pickling

TESTS_DIR = Path(__file__).resolve().parent
PYTHON_DIR = TESTS_DIR.parent
REPO_ROOT = PYTHON_DIR.parent.parent

DOC: Dict[str, Any] = {
    "strata": 1,
    "version": 3,
    "models": {
        "Post": {
            "properties": {
                "id": {"type": "int", "required": True},
                "tags": {"type": "[string]", "transform": "csv"},
                "slug": {"type": "string?", "transform": "shout"},
                "mark": {"type": "string", "transform": "stars"},
                "body": {"type": "string", "merge": "longest"},
            }
        }
    },
}

TRANSFORMERS: Dict[str, Any] = {
    "csv": (pickle_transformers.csv_in, pickle_transformers.csv_out),
    "shout": pickle_transformers.shout,
    "stars": pickle_transformers.Steps.stars,
}
MERGERS = {"longest": pickle_transformers.longest}
POST = {"id": 7, "tags": "a,b", "slug": "hello", "mark": "x", "body": "short"}


def again(schema: strata.Schema) -> strata.Schema:
    copy = pickle.loads(pickle.dumps(schema))
    assert isinstance(copy, strata.Schema)
    return copy


def test_round_trip_of_a_plain_schema() -> None:
    schema = strata.Schema.from_file(REPO_ROOT / "examples" / "github" / "schema.json")
    copy = again(schema)
    assert copy.models == schema.models
    assert copy.version == schema.version == 1
    issue = (REPO_ROOT / "examples" / "github" / "issue.json").read_text(encoding="utf-8")
    assert copy.map("GHIssue", issue).to_dict() == schema.map("GHIssue", issue).to_dict()
    assert copy.map("GHIssue", issue).to_json() == schema.map("GHIssue", issue).to_json()


def test_schema_from_text_and_bytes() -> None:
    text = '{"strata": 1, "models": {"A": {"properties": {"n": {"type": "int"}}}}}'
    for doc in (text, text.encode("utf-8")):
        copy = again(strata.Schema(doc))
        assert copy.map("A", {"n": 1}).to_dict() == {"n": 1}


def test_transformers_and_mergers_by_reference() -> None:
    schema = strata.Schema(DOC, transformers=TRANSFORMERS, mergers=MERGERS)
    blob = pickle.dumps(schema)
    # By reference: the module and qualified name are in the pickle, no code.
    assert b"pickle_transformers" in blob and b"Steps.stars" in blob
    copy = pickle.loads(blob)
    post = copy.map("Post", POST)
    assert post.to_dict() == {"id": 7, "tags": ["a", "b"], "slug": "HELLO", "mark": "*x*", "body": "short"}
    assert post.to_json() == schema.map("Post", POST).to_json()
    assert post.to_json()["tags"] == "a,b"  # the reverse step came along
    post.merge(copy.map("Post", {"id": 7, "body": "much longer"}))
    assert post["body"] == "much longer"


def test_loaded_once_per_process() -> None:
    schema = strata.Schema(DOC, transformers=TRANSFORMERS, mergers=MERGERS)
    first = again(schema)
    before = _pickling.cached_schemas()
    assert again(schema) is first
    assert pickle.loads(pickle.dumps(first)) is first
    assert _pickling.cached_schemas() == before
    # Another document, or other callables, is another schema.
    other = again(
        strata.Schema(DOC, transformers={**TRANSFORMERS, "shout": pickle_transformers.Steps.stars}, mergers=MERGERS)
    )
    assert other is not first
    assert other.map("Post", {"id": 1, "slug": "a"})["slug"] == "*a*"
    assert again(strata.Schema({**DOC, "version": 4}, transformers=TRANSFORMERS, mergers=MERGERS)) is not first


def test_a_model_pickles_with_its_schema_inside_containers() -> None:
    # What a Dask task carries: the schema next to plain data.
    schema = strata.Schema(DOC, transformers=TRANSFORMERS, mergers=MERGERS)
    task = pickle.loads(pickle.dumps({"schema": schema, "records": [POST]}))
    assert [task["schema"].map("Post", r)["slug"] for r in task["records"]] == ["HELLO"]


def test_unpickled_in_another_process() -> None:
    schema = strata.Schema(DOC, transformers=TRANSFORMERS, mergers=MERGERS)
    program = (
        "import pickle, sys\n"
        "schema = pickle.loads(sys.stdin.buffer.read())\n"
        "import pickle_transformers\n"
        "post = schema.map('Post', {'id': 1, 'tags': 'x,,y', 'slug': 'hi', 'mark': 'm'})\n"
        "print(sorted(post.to_dict().items()), post.to_json()['tags'])\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PYTHON_DIR), str(TESTS_DIR)])
    env.setdefault("STRATA_LIBRARY", strata.library_path)
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=pickle.dumps(schema),
        capture_output=True,
        env=env,
        cwd=str(REPO_ROOT),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == (
        "[('id', 1), ('mark', '*m*'), ('slug', 'HI'), ('tags', ['x', 'y'])] x,y"
    )


def test_a_module_the_other_process_cannot_import() -> None:
    schema = strata.Schema(DOC, transformers=TRANSFORMERS, mergers=MERGERS)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PYTHON_DIR)  # not the tests folder
    env.setdefault("STRATA_LIBRARY", strata.library_path)
    done = subprocess.run(
        [sys.executable, "-c", "import pickle, sys; pickle.loads(sys.stdin.buffer.read())"],
        input=pickle.dumps(schema),
        capture_output=True,
        env=env,
        cwd=str(TESTS_DIR.parent),
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    message = done.stderr.decode()
    assert "UnpicklingError" in message
    assert "transformer 'csv' is pickle_transformers.csv_in, which this process cannot import" in message


def test_a_lambda_is_refused_when_pickling() -> None:
    schema = strata.Schema(DOC, transformers={**TRANSFORMERS, "shout": lambda v: v.upper()}, mergers=MERGERS)
    with pytest.raises(pickle.PicklingError, match=r"transformer 'shout' is <function .*<lambda> at .*>, a lambda"):
        pickle.dumps(schema)


def test_a_local_function_is_refused_when_pickling() -> None:
    def local(value: Any) -> Any:
        return value

    schema = strata.Schema(DOC, transformers={**TRANSFORMERS, "csv": (pickle_transformers.csv_in, local)}, mergers=MERGERS)
    with pytest.raises(pickle.PicklingError, match="transformer 'csv' is .*local.*defined inside another function"):
        pickle.dumps(schema)
    merged = strata.Schema(DOC, transformers=TRANSFORMERS, mergers={"longest": local})
    with pytest.raises(pickle.PicklingError, match="merger 'longest'"):
        pickle.dumps(merged)


def test_callables_without_a_name_are_refused() -> None:
    partial = functools.partial(pickle_transformers.shout)
    schema = strata.Schema(DOC, transformers={**TRANSFORMERS, "shout": partial}, mergers=MERGERS)
    with pytest.raises(pickle.PicklingError, match="transformer 'shout' .*no module and qualified name"):
        pickle.dumps(schema)


def test_a_builtin_method_is_found_by_reference() -> None:
    schema = strata.Schema(DOC, transformers={**TRANSFORMERS, "shout": str.upper}, mergers=MERGERS)
    assert again(schema).map("Post", {"id": 1, "slug": "abc"})["slug"] == "ABC"


def test_a_schema_file_is_kept_as_loaded(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text('{"strata": 1, "models": {"A": {"properties": {"n": {"type": "int"}}}}}', encoding="utf-8")
    schema = strata.Schema.from_file(path)
    path.write_text("not JSON any more", encoding="utf-8")
    assert again(schema).models == ["A"]


def test_a_schema_read_from_a_pipe_cannot_be_pickled(tmp_path: Path) -> None:
    fifo = tmp_path / "schema.fifo"
    os.mkfifo(fifo)
    text = b'{"strata": 1, "models": {"A": {"properties": {"n": {"type": "int"}}}}}'

    def write() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(text)

    writer = threading.Thread(target=write)
    writer.start()
    schema = strata.Schema.from_file(fifo)
    writer.join(timeout=10)
    assert schema.models == ["A"]
    with pytest.raises(pickle.PicklingError, match="could not be read again"):
        pickle.dumps(schema)


def test_copy_is_the_same_immutable_schema() -> None:
    schema = strata.Schema(DOC, transformers={**TRANSFORMERS, "shout": lambda v: v}, mergers=MERGERS)
    assert copy.copy(schema) is schema and copy.deepcopy(schema) is schema
