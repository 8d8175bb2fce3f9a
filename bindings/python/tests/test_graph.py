"""Graph contexts from Python: the Context and Record faces, key injectors,
orphan rules, files, and the strata import / get commands (docs/graph.md).
The semantics are checked by Tests/conformance/graph.json."""

from __future__ import annotations

import copy
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest

import strata

SCHEMA: Dict[str, Any] = {
    "strata": 1,
    "version": 2,
    "models": {
        "User": {
            "primaryKey": "id",
            "properties": {
                "id": {"type": "int"},
                "name": {"type": "string"},
                "posts": {"type": "[Post]", "inverse": "author", "json": False},
            },
        },
        "Post": {
            "primaryKey": "id",
            "properties": {
                "id": {"type": "int"},
                "title": {"type": "string"},
                "author": {"type": "User?", "inverse": "posts"},
                "cover": {"type": "Cover?"},
            },
        },
        "Cover": {"primaryKey": "id", "properties": {"id": {"type": "string"}, "url": {"type": "string"}}},
    },
}

POSTS: List[Dict[str, Any]] = [
    {"id": 1, "title": "one", "author": {"id": 7, "name": "Ann"}},
    {"id": 2, "title": "two", "author": {"id": 8, "name": "Bob"}},
    {"id": 3, "title": "three", "author": 7},
]


@pytest.fixture
def schema() -> strata.Schema:
    return strata.Schema(SCHEMA)


def test_import_returns_records_in_input_order_with_counts(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        result = ctx.import_("Post", POSTS)
        assert isinstance(result, strata.ImportResult)
        assert [record.key for record in result] == [1, 2, 3]
        assert result.created == {"Post": 3, "User": 2}
        assert result.updated == {} and result.deleted == {} and result.warnings == []
        assert "3 records" in repr(result)
        again = ctx.import_("Post", json.dumps(POSTS).encode())
        assert again.created == {} and again.updated == {} and again.unchanged == {"Post": 3, "User": 2}
        moved = ctx.import_("Post", [{"id": 3, "author": 8}])  # both authors' lists change
        assert moved.updated == {"Post": 1, "User": 2} and moved.unchanged == {}


def test_records_lead_to_records(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        ctx.import_("Post", POSTS)
        ann = ctx.get("User", 7)
        assert ann is not None and ann.key == 7 and ann.model == "User"
        assert [post.key for post in ann["posts"]] == [1, 3]
        post = ann["posts"][0]
        assert post["author"] == ann
        assert post["title"] == "one"
        assert post.get("cover") is None
        assert ctx.get("Post", 2)["author"]["name"] == "Bob"
        with pytest.raises(KeyError, match="titel"):
            post["titel"]
        assert ann.to_dict(nested=False) == {"id": 7, "name": "Ann", "posts": [1, 3]}
        nested = ann.to_dict()
        assert nested["posts"][0] == {"id": 1, "title": "one", "author": 7}
        assert ctx.get("Post", 1).to_json() == {"id": 1, "title": "one", "author": {"id": 7, "name": "Ann"}}
        assert repr(ann) == "<strata.Record User 7>"
        assert hash(ann) == hash(ctx.get("User", 7))
        assert ctx.get("User", ann) == ann
        assert ctx.count("User") == 2 and [user.key for user in ctx.all("User")] == [7, 8]


def test_records_are_read_only_and_copies_are_models(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        post = ctx.import_("Post", POSTS)[0]
        with pytest.raises(strata.MappingError, match="read only"):
            post.update({"title": "changed"})
        changed = post.copy()
        assert type(changed) is strata.Model
        changed.update({"title": "changed"})
        assert changed["title"] == "changed" and post["title"] == "one"
        assert copy.copy(post) == post


def test_errors_name_the_field_and_change_nothing(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        ctx.import_("Post", POSTS)
        with pytest.raises(strata.MappingError) as failure:
            ctx.import_("Post", [{"id": 1, "title": "new"}, {"id": 4, "author": "7"}])
        assert [(e["path"], e["code"]) for e in failure.value.errors] == [("/1/author", "type")]
        assert ctx.get("Post", 1)["title"] == "one" and ctx.get("Post", 4) is None
        with pytest.raises(strata.MappingError, match="no primaryKey|no model"):
            ctx.import_("Nope", [])
        with pytest.raises(strata.MappingError) as failure:
            ctx.get("Post", "1")
        assert failure.value.errors[0]["code"] == "type"


def test_key_injectors_dedupe_and_warnings_without(schema: strata.Schema) -> None:
    data = [{"id": 1, "cover": {"url": "a.png"}}, {"id": 2, "cover": {"url": "a.png"}}]
    with schema.context() as ctx:
        result = ctx.import_("Post", data)
        assert ctx.count("Cover") == 2
        assert [w["path"] for w in result.warnings] == ["/0/cover", "/1/cover"]
    seen: List[Any] = []

    def cover_key(value: Dict[str, Any], parent: Any) -> str:
        seen.append(parent["id"])
        return str(value["url"])

    injected = strata.Schema(SCHEMA, key_injectors={"Cover": cover_key})
    with injected.context() as ctx:
        result = ctx.import_("Post", data)
        assert result.warnings == [] and ctx.count("Cover") == 1 and seen == [1, 2]
        assert ctx.get("Cover", "a.png")["url"] == "a.png"
    with pytest.raises(pickle.PicklingError, match="key injectors"):
        pickle.dumps(injected)

    def refuse(value: Any, parent: Any) -> Any:
        raise ValueError("no key for you")

    with strata.Schema(SCHEMA, key_injectors={"Cover": refuse}).context() as ctx:
        with pytest.raises(strata.MappingError, match="no key for you"):
            ctx.import_("Post", data)
        assert ctx.count("Post") == 0
    with pytest.raises(strata.SchemaError, match="no primaryKey|does not have"):
        strata.Schema(SCHEMA, key_injectors={"Nope": refuse})


def test_orphan_rule_with_keep(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        ctx.import_("Post", POSTS)
        kept: List[int] = []

        def keep(record: strata.Record) -> bool:
            kept.append(record.key)
            return bool(record.key == 2)

        result = ctx.import_("Post", [{"id": 3}], delete_orphans={"model": "Post", "keep": keep})
        assert result.deleted == {"Post": 1} and kept == [1, 2]
        assert [post.key for post in ctx.all("Post")] == [2, 3]
        assert [post.key for post in ctx.get("User", 7)["posts"]] == [3]

        def broken(record: strata.Record) -> bool:
            raise RuntimeError("keep failed")

        with pytest.raises(RuntimeError, match="keep failed"):
            ctx.import_("Post", [], delete_orphans={"model": "Post", "where": {"author": 7}, "keep": broken})
        assert ctx.count("Post") == 2  # a keep that raised kept its record
        # an unknown member is the engine's error, as in C and on the command line
        with pytest.raises(strata.StrataError, match=r"unknown member 'wher' of \"delete_orphans\".*did you mean 'where'") as failure:
            ctx.import_("Post", [], delete_orphans={"model": "Post", "wher": {}})
        assert failure.value.errors[0]["code"] == "argument"
        with pytest.raises(TypeError):
            ctx.import_("Post", [], delete_orphans=["Post"])  # type: ignore[arg-type]


def test_a_file_context_reopens_to_the_same_graph(schema: strata.Schema, tmp_path: Path) -> None:
    path = tmp_path / "blog.db"
    with schema.context(path) as ctx:
        ctx.import_("Post", POSTS)
        assert ctx.path == str(path)
    with schema.context(str(path)) as ctx:
        assert [post.key for post in ctx.get("User", 7)["posts"]] == [1, 3]
        ctx.delete(ctx.get("Post", 1))
    with schema.context(path) as ctx:
        assert [post.key for post in ctx.get("User", 7)["posts"]] == [3]
    newer = dict(SCHEMA, version=1)
    with pytest.raises(strata.StrataError, match="newer"):
        strata.Schema(newer).context(path)


def test_a_closed_context_refuses_calls(schema: strata.Schema) -> None:
    ctx = schema.context()
    record = ctx.import_("Post", POSTS)[0]
    ctx.close()
    ctx.close()
    assert ctx.closed and "closed" in repr(ctx)
    with pytest.raises(ValueError, match="closed"):
        ctx.count("Post")
    assert record["title"] == "one"  # still a readable model
    assert record.key == 1 and repr(record) == "<strata.Record Post 1>"
    assert record.to_dict(nested=False)["title"] == "one"
    with pytest.raises(ValueError, match="closed"):
        record["author"]  # relationships need the context


def test_a_deleted_record_says_it_was_deleted(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        post = ctx.import_("Post", POSTS)[0]
        ctx.delete(post)
        assert post.key == 1 and repr(post) == "<strata.Record Post 1>"
        assert post["title"] == "one" and post.to_dict(nested=False)["id"] == 1
        for follow in (lambda: post["author"], post.to_dict, post.to_json, lambda: ctx.delete(post)):
            with pytest.raises(strata.StrataError, match="'Post' record 1 was deleted"):
                follow()


READ_ONLY_CHECK = """
import json, sys
import strata
schema = strata.Schema(json.loads(sys.argv[1]))
with schema.context(sys.argv[2]) as ctx:
    try:
        ctx.import_("Post", [{"id": 9}])
    except strata.MappingError as exc:
        print(exc.errors[0]["code"], ctx.count("Post"), ctx.get("Post", 9) is None)
"""


def _as_another_user(folder: Path, path: Path) -> "subprocess.CompletedProcess[str]":
    """READ_ONLY_CHECK on ``path``, as user nobody when run as root (root
    writes read-only files), from a copy of the package and library in
    ``folder``: the checkout may sit where nobody cannot read (a private
    mktemp folder, /root)."""
    package = folder / "pkg"
    shutil.copytree(Path(strata.__file__).resolve().parent, package / "strata")
    library = package / "libstrata.so"
    shutil.copy(strata.library_path, library)
    for entry in [package, *package.rglob("*")]:
        os.chmod(entry, 0o755 if entry.is_dir() else 0o644)
    python, demote = sys.executable, None
    if os.geteuid() == 0:
        # the system's python: root's own may sit where nobody cannot read
        python = "/usr/bin/python3"

        def demote() -> None:
            os.setgid(65534)
            os.setuid(65534)

    return subprocess.run(
        [python, "-c", READ_ONLY_CHECK, json.dumps(SCHEMA), str(path)],
        capture_output=True,
        text=True,
        preexec_fn=demote,
        cwd="/",
        env=dict(os.environ, PYTHONPATH=str(package), STRATA_LIBRARY=str(library)),
    )


def test_a_read_only_file_is_an_io_error_and_the_graph_stays(schema: strata.Schema) -> None:
    folder = Path(tempfile.mkdtemp(prefix="strata-ro-"))
    path = folder / "ro.db"
    try:
        with schema.context(path) as ctx:
            ctx.import_("Post", POSTS)
        os.chmod(path, 0o444)
        os.chmod(folder, 0o777)  # the -wal and -shm files could be made; the database cannot be written
        done = _as_another_user(folder, path)
        # opened read only, as immutable: nothing made beside the file for its owner to trip on
        assert not (folder / "ro.db-wal").exists() and not (folder / "ro.db-shm").exists()
        os.chmod(path, 0o644)
        with schema.context(path) as ctx:
            ctx.import_("Post", [{"id": 9}])
            assert ctx.count("Post") == 4
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder, ignore_errors=True)
    assert done.stdout.split() == ["io", "3", "True"], done.stderr


def test_a_file_in_a_read_only_folder_opens_to_read(schema: strata.Schema) -> None:
    folder = Path(tempfile.mkdtemp(prefix="strata-ro-folder-"))
    data = folder / "data"
    data.mkdir()
    path = data / "ro.db"
    try:
        with schema.context(path) as ctx:
            ctx.import_("Post", POSTS)
        os.chmod(folder, 0o755)
        os.chmod(data, 0o555)  # no -wal or -shm can be made there
        done = _as_another_user(folder, path)
        assert sorted(entry.name for entry in data.iterdir()) == ["ro.db"]
    finally:
        os.chmod(data, 0o755)
        shutil.rmtree(folder, ignore_errors=True)
    assert done.stdout.split() == ["io", "3", "True"], done.stderr


def test_threads_share_one_context(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        def work(offset: int) -> None:
            for round_ in range(20):
                ctx.import_("Post", [{"id": (offset + n) % 10, "author": {"id": n % 3}} for n in range(5)])
                ctx.count("User")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        posts = sum(len(user["posts"]) for user in ctx.all("User"))
        assert posts == sum(1 for post in ctx.all("Post") if post["author"] is not None)


ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "build" / "strata"


def test_import_hands_over_the_metadata(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        page = {"data": POSTS[:1], "paging": {"id": "c2", "url": "/posts?after=1"}}
        result = ctx.import_("Post", page, root="data", meta={"path": "paging", "model": "Cover"})
        assert isinstance(result.metadata, strata.Model) and not isinstance(result.metadata, strata.Record)
        assert result.metadata.to_dict() == {"id": "c2", "url": "/posts?after=1"}
        assert "metadata=" in repr(result)
        assert ctx.count("Cover") == 0  # the metadata is never a record, even of a record model
        assert ctx.import_("Post", {"data": []}, root="data", meta={"path": "paging", "model": "Cover"}).metadata is None
        assert ctx.import_("Post", POSTS[:1]).metadata is None
        with pytest.raises(TypeError, match="meta must be a mapping"):
            ctx.import_("Post", POSTS, meta="paging")  # type: ignore[arg-type]
        with pytest.raises(strata.MappingError) as caught:
            ctx.import_("Post", {"data": POSTS[1:2], "paging": {"id": 5}}, root="data",
                        meta={"path": "paging", "model": "Cover"})
        assert caught.value.errors[0]["path"] == "/paging/id"
        assert ctx.get("Post", 2) is None  # nothing changed


@pytest.mark.skipif(not CLI.exists(), reason="build/strata is built by scripts/build")
def test_cli_import_and_get(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    data = tmp_path / "posts.json"
    data.write_text(json.dumps({"data": POSTS}))
    db = tmp_path / "g.db"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(CLI), *args], capture_output=True, text=True)

    done = run("import", str(schema_file), "Post", str(data), "--db", str(db), "--root", "data")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["created"] == {"Post": 3, "User": 2}
    assert json.loads(done.stdout)["metadata"] is None
    (tmp_path / "paged.json").write_text(json.dumps({"data": POSTS[:1], "paging": {"id": "c2", "url": "/p2"}}))
    paged = run("import", str(schema_file), "Post", str(tmp_path / "paged.json"), "--db", str(db), "--root", "data",
                "--meta", "paging:Cover")
    assert paged.returncode == 0, paged.stderr
    assert json.loads(paged.stdout)["metadata"] == {"id": "c2", "url": "/p2"}
    wrong = run("import", str(schema_file), "Post", str(data), "--db", str(db), "--meta", "paging")
    assert wrong.returncode == 1 and "--meta takes PATH:MODEL" in wrong.stderr
    shown = run("get", str(schema_file), "User", "7", "--db", str(db))
    assert shown.returncode == 0 and json.loads(shown.stdout)["posts"][1] == {"id": 3, "title": "three", "author": 7}
    one_level = run("get", str(schema_file), "User", "7", "--db", str(db), "--depth", "1")
    assert json.loads(one_level.stdout)["posts"][1] == {"id": 3, "title": "three", "author": 7}
    assert json.loads(run("get", str(schema_file), "Post", "1", "--db", str(db), "--depth", "1").stdout)["author"] == {
        "id": 7, "name": "Ann", "posts": [1, 3]}
    assert json.loads(run("get", str(schema_file), "Post", "1", "--db", str(db), "--depth", "0").stdout)["author"] == 7
    assert run("get", str(schema_file), "Post", "1", "--db", str(db), "--depth", "x").returncode != 0
    flat = run("get", str(schema_file), "User", "7", "--db", str(db), "--flat")
    assert json.loads(flat.stdout) == {"id": 7, "name": "Ann", "posts": [1, 3]}
    missing = run("get", str(schema_file), "User", "9", "--db", str(db))
    assert missing.returncode == 1 and "no 'User' record" in missing.stderr
    bad = run("import", str(schema_file), "Post", "-", "--db", str(db))
    assert bad.returncode == 1
    emptied = run(
        "import", str(schema_file), "Post", str(data), "--db", str(db), "--root", "data.none",
        "--delete-orphans", '{"model": "Post", "where": {"author": 7}}',
    )
    assert emptied.returncode == 1 and "data.none" in emptied.stderr  # a missing root is an error, not an empty page
    (tmp_path / "empty.json").write_text('{"data": []}')
    emptied = run(
        "import", str(schema_file), "Post", str(tmp_path / "empty.json"), "--db", str(db), "--root", "data",
        "--delete-orphans", '{"model": "Post", "where": {"author": 7}}',
    )
    assert emptied.returncode == 0, emptied.stderr
    assert json.loads(emptied.stdout)["deleted"] == {"Post": 2}
    failing = subprocess.run(
        [str(CLI), "import", str(schema_file), "Post", "--db", str(db)], input='[{"id": "x"}]', capture_output=True, text=True
    )
    assert failing.returncode == 1 and "/0/id [Post.id]" in failing.stderr
    # the orphan rule is read by the engine's reader: a typo is refused, nothing is deleted
    before = run("get", str(schema_file), "User", "7", "--db", str(db), "--flat").stdout
    typo = run(
        "import", str(schema_file), "Post", str(tmp_path / "empty.json"), "--db", str(db), "--root", "data",
        "--delete-orphans", '{"model": "Post", "wher": {"author": 7}}',
    )
    assert typo.returncode == 1 and "unknown member 'wher'" in typo.stderr and "did you mean 'where'" in typo.stderr
    keep = run(
        "import", str(schema_file), "Post", str(tmp_path / "empty.json"), "--db", str(db), "--root", "data",
        "--delete-orphans", '{"model": "Post", "keep": true}',
    )
    assert keep.returncode == 1 and "keep" in keep.stderr and "command line cannot run" in keep.stderr
    assert run("get", str(schema_file), "User", "7", "--db", str(db), "--flat").stdout == before
    # an error of the graph file names the graph file, not the input
    (tmp_path / "not-a-db").write_text("this is not SQLite")
    wrong = run("import", str(schema_file), "Post", str(data), "--db", str(tmp_path / "not-a-db"), "--root", "data")
    assert wrong.returncode == 1 and "not-a-db" in wrong.stderr and "posts.json" not in wrong.stderr, wrong.stderr


NOTES_V1: Dict[str, Any] = {
    "strata": 1,
    "version": 1,
    "models": {"Note": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "body": {"type": "string"}}}},
}
NOTES_V2: Dict[str, Any] = {
    "strata": 1,
    "version": 2,
    "models": {"Note": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "text": {"type": "string"}}}},
    "migrations": [{"from": 0}, {"from": 1, "model": "Note", "rename": {"body": "text"}}],
}


def test_a_file_of_an_older_version_is_migrated_on_open(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    with strata.Schema(NOTES_V1).context(path) as ctx:
        ctx.import_("Note", [{"id": 1, "body": "hello"}, {"id": 2, "body": "again"}])
    with strata.Schema(NOTES_V2).context(path) as ctx:
        assert [note.to_dict() for note in ctx.all("Note")] == [{"id": 1, "text": "hello"}, {"id": 2, "text": "again"}]
    with strata.Schema(NOTES_V2).context(path) as ctx:  # migrated once: the file is version 2 now
        assert ctx.get("Note", 1)["text"] == "hello"
    with pytest.raises(strata.StrataError, match="newer"):
        strata.Schema(NOTES_V1).context(path)
    gap = dict(NOTES_V2, version=3)
    with pytest.raises(strata.StrataError, match="no migration"):
        strata.Schema(gap).context(path)


def test_another_context_reads_the_file_while_one_imports(schema: strata.Schema, tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    with schema.context(path) as ctx:
        ctx.import_("Post", POSTS)
    big = [{"id": 100 + n, "title": "t", "author": {"id": 1000 + n % 50, "name": "x"}} for n in range(20000)]
    seen: List[int] = []
    failures: List[BaseException] = []
    done = threading.Event()

    def read() -> None:
        # each open reads one snapshot: before or after the import, never half of it
        while not done.is_set():
            try:
                with schema.context(path) as reader:
                    seen.append(reader.count("Post"))
            except BaseException as exc:  # reported below: a thread's exception would only warn
                failures.append(exc)
                return

    reader_thread = threading.Thread(target=read)
    reader_thread.start()
    try:
        with schema.context(path) as writer:
            writer.import_("Post", big)
    finally:
        done.set()
        reader_thread.join()
    assert not failures, failures[0]
    assert seen and set(seen) <= {3, 20003}
    with schema.context(path) as ctx:
        assert ctx.count("Post") == 20003


FULL_DISK_CHECK = """
import json, resource, signal, sys
import strata
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))  # the disk is full at 256 KiB
schema = strata.Schema(json.loads(sys.argv[1]))
big = [{"id": 100 + n, "title": "x" * 200, "author": {"id": 1000 + n % 50, "name": "x"}} for n in range(5000)]
with schema.context(sys.argv[2]) as ctx:
    try:
        ctx.import_("Post", big)
        print("imported")
    except strata.MappingError as exc:
        print(exc.errors[0]["code"], ctx.count("Post"), ctx.get("Post", 100) is None)
"""


def test_a_full_disk_is_an_io_error_and_the_graph_stays(schema: strata.Schema, tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    with schema.context(path) as ctx:
        ctx.import_("Post", POSTS)
    package = str(Path(strata.__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_CHECK, json.dumps(SCHEMA), str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=package, STRATA_LIBRARY=strata.library_path),
    )
    assert done.stdout.split() == ["io", "3", "True"], done.stdout + done.stderr
    with schema.context(path) as ctx:  # the file is as it was
        assert ctx.count("Post") == 3 and [post.key for post in ctx.get("User", 7)["posts"]] == [1, 3]


def test_a_file_whose_records_no_longer_fit_the_schema_says_how_to_carry_them_over(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    with strata.Schema(NOTES_V1).context(path) as ctx:
        ctx.import_("Note", [{"id": 1, "body": "hello"}])
    changed = dict(NOTES_V1, models={"Note": {"primaryKey": "id", "properties": {
        "id": {"type": "int"}, "body": {"type": "int"}}}})
    with pytest.raises(strata.StrataError) as failure:
        strata.Schema(changed).context(path)
    assert failure.value.errors[0]["code"] == "io"
    assert 'raise the schema\'s "version" and add a migration' in failure.value.errors[0]["message"]


_WRITER = """
import json, sys
import strata
schema = strata.Schema(json.loads(sys.argv[1]))
with schema.context(sys.argv[2]) as ctx:
    first = int(sys.argv[3])
    for post in range(first, first + 50):
        ctx.import_("Post", {"id": post, "title": str(post), "author": {"id": 7, "name": "Ann"}})
"""


def test_processes_importing_into_one_file_lose_nothing(tmp_path: Path) -> None:
    """Two processes, 50 imports each of posts by one author: every post is
    in the author's list (before, 201 posts left a list of 101)."""
    db = tmp_path / "g.db"
    strata.Schema(SCHEMA).context(str(db)).close()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, json.dumps(SCHEMA), str(db), str(first)], env=env,
                         stderr=subprocess.PIPE, text=True)
        for first in (1, 1001)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with strata.Schema(SCHEMA).context(str(db)) as ctx:
        ctx.check()
        assert ctx.count("Post") == 100
        assert sorted(post.key for post in ctx.get("User", 7)["posts"]) == [*range(1, 51), *range(1001, 1051)]


@pytest.mark.skipif(not CLI.exists(), reason="build/strata is built by scripts/build")
def test_concurrent_cli_imports_keep_both_sides(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    db = tmp_path / "g.db"
    pages = []
    for page in range(4):
        data = tmp_path / f"page{page}.json"
        data.write_text(json.dumps([{"id": page * 100 + n, "author": {"id": 7}} for n in range(30)]))
        pages.append(data)
    runs = [subprocess.Popen([str(CLI), "import", str(schema_file), "Post", str(page), "--db", str(db)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for page in pages]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    with strata.Schema(SCHEMA).context(str(db)) as ctx:
        ctx.check()
        assert ctx.count("Post") == 120
        assert len(ctx.get("User", 7)["posts"]) == 120


def test_query_from_python_takes_records_and_says_where_it_failed(schema: strata.Schema) -> None:
    with schema.context() as ctx:
        ctx.import_("Post", POSTS)
        ann = ctx.get("User", 7)
        assert [post.key for post in ctx.query("Post", {"author": ann})] == [1, 3]
        assert [post.key for post in ctx.query("Post", {"author.name": {"in": ["Bob"]}})] == [2]
        assert [post.key for post in ctx.query("Post", order_by=("-author.name", "-id"))] == [2, 3, 1]
        assert ctx.count("Post", where={"title": {"null": False}}) == 3
        with pytest.raises(strata.MappingError) as failure:
            ctx.query("Post", {"autor": 7})
        assert failure.value.errors[0]["code"] == "property"
        assert "did you mean 'author'" in failure.value.errors[0]["message"]
        with pytest.raises(TypeError):
            ctx.query("Post", {"title": object()})


@pytest.mark.skipif(not CLI.exists(), reason="build/strata is built by scripts/build")
def test_cli_query_prints_json_lines(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    db = tmp_path / "g.db"
    data = tmp_path / "posts.json"
    data.write_text(json.dumps(POSTS))
    assert subprocess.run([str(CLI), "import", str(schema_file), "Post", str(data), "--db", str(db)],
                          capture_output=True).returncode == 0

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(CLI), "query", str(schema_file), *args, "--db", str(db)], capture_output=True,
                              text=True)

    done = run("Post", "--where", '{"author": 7}', "--order-by", "-id", "--limit", "1")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [{"id": 3, "title": "three", "author": 7}]
    assert run("User", "--offset", "1").stdout.splitlines() == ['{"id":8,"name":"Bob","posts":[2]}']
    wrong = run("Post", "--where", '{"titel": 1}')
    assert wrong.returncode == 1 and "did you mean 'title'" in wrong.stderr and wrong.stdout == ""
    assert run("Post", "--where", "{").returncode == 1
    assert run("Post", "--limit", "x").returncode != 0


_PAGER = """
import json, random, sys
import strata
schema = strata.Schema(json.loads(sys.argv[1]))
rng = random.Random(int(sys.argv[3]))
with schema.context(sys.argv[2]) as ctx:
    for _ in range(100):
        page = [{"id": rng.randrange(300), "title": str(rng.random()),
                 "author": {"id": rng.randrange(5), "name": rng.choice(["a", "b"])}} for _ in range(10)]
        ctx.import_("Post", page)
"""


def test_four_processes_importing_overlapping_pages_keep_every_invariant(tmp_path: Path) -> None:
    """Four processes, 100 pages each, the same posts and authors met in many
    pages: all commit, the graph is whole, and every author's posts are the
    posts that name it."""
    db = tmp_path / "g.db"
    strata.Schema(SCHEMA).context(str(db)).close()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    workers = [subprocess.Popen([sys.executable, "-c", _PAGER, json.dumps(SCHEMA), str(db), str(seed)], env=env,
                                stderr=subprocess.PIPE, text=True) for seed in range(4)]
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    with strata.Schema(SCHEMA).context(str(db)) as ctx:
        ctx.check()
        for user in ctx.all("User"):
            assert sorted(post.key for post in user["posts"]) == [post.key for post in ctx.query("Post", {"author": user})]
        assert ctx.count("Post") == len({post.key for post in ctx.all("Post")}) > 100


def test_a_context_whose_file_another_process_migrated_says_so(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    old = strata.Schema(NOTES_V1).context(path)
    old.import_("Note", [{"id": 1, "body": "hello"}])
    with strata.Schema(NOTES_V2).context(path) as new:  # migrates the file to version 2
        assert new.get("Note", 1)["text"] == "hello"
    with pytest.raises(strata.StrataError, match="migrated the graph file to schema version 2"):
        old.count("Note")
    with pytest.raises(strata.StrataError, match="migrated the graph file"):
        old.import_("Note", [{"id": 2, "body": "again"}])
    old.close()
    with strata.Schema(NOTES_V2).context(path) as new:  # nothing was half-written
        assert [note.key for note in new.all("Note")] == [1]


def test_get_takes_every_kind_of_key_as_json_does() -> None:
    schema = strata.Schema({"strata": 1, "models": {
        "S": {"primaryKey": "k", "properties": {"k": {"type": "string"}}},
        "I": {"primaryKey": "n", "properties": {"n": {"type": "int"}}}}})
    texts = ['a"b', "back\\slash", "tab\there", "é", "日本", "\x01", ""]
    numbers = [0, -1, 2**63 - 1, -(2**63)]
    with schema.context() as ctx:
        ctx.import_("S", [{"k": text} for text in texts])
        ctx.import_("I", [{"n": number} for number in numbers])
        assert [ctx.get("S", text).key for text in texts] == texts
        assert [ctx.get("I", number).key for number in numbers] == numbers
        assert ctx.get("S", "missing") is None and ctx.get("I", 7) is None
        for wrong in (True, 1.5, "1"):
            with pytest.raises(strata.MappingError) as raised:
                ctx.get("I", wrong)
            assert raised.value.errors[0]["code"] == "type"
        with pytest.raises(strata.MappingError):
            ctx.get("I", 2**63)


def test_many_contexts_opening_one_new_file_at_once_all_open(tmp_path: Path) -> None:
    """Several connections opening one new file at the same moment (threads
    here; processes importing into one file from the start): SQLite's switch
    to WAL answers "database is locked" at once to all but one, and a
    connection could see the tables of another half made; every one must
    open (docs/graph.md, "Files, versions, safety")."""
    schema = strata.Schema(SCHEMA)
    for round_ in range(30):
        path = str(tmp_path / f"g{round_}.db")
        barrier = threading.Barrier(8)
        failures: List[BaseException] = []

        def open_and_import(worker: int) -> None:
            try:
                barrier.wait()
                with schema.context(path) as ctx:
                    ctx.import_("Post", [{"id": worker, "author": {"id": 7}}])
            except BaseException as error:  # noqa: BLE001 - reported below
                failures.append(error)

        threads = [threading.Thread(target=open_and_import, args=(worker,)) for worker in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == [], (round_, failures[:1])
        with schema.context(path) as ctx:
            assert ctx.count("Post") == 8
            ctx.check()


FORK_AFTER_CLOSE_CHECK = """
import json, os, sys
import strata
schema = strata.Schema(json.loads(sys.argv[1]))
big = [{"id": 100 + n, "title": "t", "author": {"id": 1000 + n % 50, "name": "x"}} for n in range(20000)]
with schema.context() as ctx:
    ctx.import_("Post", big)
# the graph is being freed on a helper thread now; a child forked meanwhile
# has no such helper, and must exit without waiting for one
pid = os.fork()
if pid == 0:
    sys.exit(0)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
"""


def test_a_process_forked_while_a_closed_graph_is_freed_exits(tmp_path: Path) -> None:
    """Closing a large context frees its graph on a helper thread, and the
    process waits for it at exit; a child forked meanwhile has no helper
    and exits at once (it waited forever before)."""
    package = str(Path(strata.__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", FORK_AFTER_CLOSE_CHECK, json.dumps(SCHEMA)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=package, STRATA_LIBRARY=strata.library_path),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "child 0"
