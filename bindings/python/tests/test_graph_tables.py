"""The graph file's tables (format 2, docs/graph.md "The file's tables"):
plain SQL that sqlite3, its shell and pandas read; format 1 files converted
once; migrations that add and drop columns in one transaction."""

from __future__ import annotations

import copy
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pandas
import pytest

import strata

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "graph"
FORMAT1 = ROOT / "Tests" / "fixtures" / "graph-format1"


def columns(db: sqlite3.Connection, table: str) -> Dict[str, str]:
    return {row[1]: row[2] for row in db.execute(f'PRAGMA table_info("{table}")')}


def dump(ctx: strata.Context, models: List[str]) -> Dict[str, Any]:
    return {
        model: [{"key": r.key, "stub": r.is_stub, "values": r.to_dict(nested=False)} for r in ctx.all(model)]
        for model in models
    }


def test_the_example_graph_is_tables_anyone_reads(tmp_path: Path) -> None:
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    path = str(tmp_path / "blog.db")
    with schema.context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
    db = sqlite3.connect(path)
    tables = sorted(row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    assert tables == ["Post", "Post.tags", "Tag", "User", "User.posts", "strata_meta"]
    assert columns(db, "User") == {
        "id": "INTEGER", "strata_type": "TEXT", "strata_stub": "INTEGER", "strata_extra": "TEXT", "login": "TEXT"}
    assert columns(db, "Post")["author"] == "INTEGER"
    assert columns(db, "Post.tags") == {"owner": "INTEGER", "position": "INTEGER", "target": "TEXT"}
    rows = db.execute(
        "SELECT Post.title, User.login FROM Post JOIN User ON Post.author = User.id ORDER BY Post.id").fetchall()
    assert rows == [("Hello", "ann"), ("Again", "ann"), ("Mine", "bob")]
    tags = db.execute('SELECT target FROM "Post.tags" WHERE owner = 1 ORDER BY position').fetchall()
    assert tags == [("sun",), ("sea",)]
    indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"Post.author", "Post.tags.target", "User.posts.target"} <= indexes
    # pandas, as docs/graph.md shows
    frame = pandas.read_sql('SELECT id, title, author FROM Post ORDER BY id', db)
    assert frame["title"].tolist() == ["Hello", "Again", "Mine"] and frame["author"].tolist() == [7, 7, 8]
    db.close()
    # the sqlite3 shell
    shown = subprocess.run(["sqlite3", path, ".schema Post"], capture_output=True, text=True, check=True).stdout
    assert 'CREATE TABLE IF NOT EXISTS "Post"' in shown and "PRIMARY KEY(\"id\")" in shown
    listed = subprocess.run(
        ["sqlite3", "-json", path, "SELECT id, login FROM User"], capture_output=True, text=True, check=True).stdout
    assert json.loads(listed) == [{"id": 7, "login": "ann"}, {"id": 8, "login": "bob"}]


def test_a_format_1_file_is_converted_once_and_reads_the_same(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    shutil.copy(FORMAT1 / "format1.strata-graph", path)
    expected = json.loads((FORMAT1 / "expected.json").read_text())
    schema = strata.Schema.from_file(str(FORMAT1 / "schema.json"))
    with schema.context(path) as ctx:
        assert dump(ctx, sorted(expected)) == expected
        ctx.check()
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM strata_meta WHERE key = 'format'").fetchone() == (2,)
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "records" not in names and {"Post", "User", "Team.members", "Post.tags"} <= names
    # a cluster is one table with the model of each row
    assert db.execute("SELECT id, strata_type FROM Post ORDER BY id").fetchall() == [
        (1, "TextPost"), (2, "PhotoPost"), (3, "TextPost")]
    # a composite key is several columns, in the link table too
    assert db.execute(
        'SELECT "target.org", "target.login" FROM "Team.members" WHERE owner = 1 ORDER BY position').fetchall() == [
        ("acme", "ann"), ("acme", "bob")]
    # a date is RFC 3339 UTC text with 9 fraction digits (text order is time order); a relationship in a key is the target's key
    assert db.execute("SELECT joined, seen FROM User").fetchone() == (
        "2011-04-10T18:09:31.250000000Z", "2011-03-13T07:06:40.000000000Z")
    assert db.execute("SELECT user, followers FROM Counts").fetchone() == (7, 10)
    # a key Strata made for a record that had none is a blob
    assert db.execute("SELECT typeof(url), width FROM Cover ORDER BY width").fetchall() == [
        ("blob", 640), ("text", 800)]
    version = db.execute("PRAGMA data_version").fetchone()
    db.close()
    # opened again: nothing to convert, the same records
    with schema.context(path) as ctx:
        assert dump(ctx, sorted(expected)) == expected
        ctx.import_("Post", [{"id": 4, "kind": "text", "title": "fourth", "body": "b", "author": 7}])
        assert [p.key for p in ctx.get("User", 7)["posts"]] == [1, 2, 4]
        ctx.check()
    assert version is not None


def test_two_processes_opening_a_format_1_file_convert_it_once(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    shutil.copy(FORMAT1 / "format1.strata-graph", path)
    script = (
        "import json, strata, sys\n"
        f"schema = strata.Schema.from_file({str(FORMAT1 / 'schema.json')!r})\n"
        f"with schema.context({path!r}) as ctx:\n"
        "    ctx.check()\n"
        "    print(ctx.count('Post'))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    runs = [subprocess.Popen(["python3", "-c", script], env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0, 0]
    assert outputs == ["3\n"] * 4
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM Post").fetchone() == (3,)
    db.close()


def migrated_schema(doc: Dict[str, Any]) -> Dict[str, Any]:
    """Version 2 of the example schema: User.login renamed to name, a new
    Post.views column, Tag.color dropped, a new model."""
    new = copy.deepcopy(doc)
    new["version"] = 2
    user = new["models"]["User"]["properties"]
    user["name"] = user.pop("login")
    new["models"]["Post"]["properties"]["views"] = {"type": "int", "default": 0}
    del new["models"]["Tag"]["properties"]["color"]
    new["models"]["Badge"] = {"primaryKey": "id", "properties": {"id": {"type": "int"}}}
    new["migrations"] = [
        {"from": 1, "model": "User", "rename": {"login": "name"}},
        {"from": 1, "model": "Tag", "remove": ["color"]},
    ]
    return new


def test_a_new_schema_version_adds_and_drops_columns(tmp_path: Path) -> None:
    doc = json.loads((EXAMPLE / "schema.json").read_text())
    path = str(tmp_path / "blog.db")
    with strata.Schema(doc).context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
        ctx.import_("Tag", [{"name": "sun", "color": "yellow"}])
    with strata.Schema(migrated_schema(doc)).context(path) as ctx:
        assert ctx.get("User", 7)["name"] == "ann"
        assert ctx.get("Post", 1)["views"] == 0
        assert "color" not in ctx.get("Tag", "sun").to_dict()
        ctx.check()
    db = sqlite3.connect(path)
    assert "name" in columns(db, "User") and "login" not in columns(db, "User")
    assert columns(db, "Post")["views"] == "INTEGER"
    assert "color" not in columns(db, "Tag")
    assert "Badge" in {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert db.execute("SELECT name FROM User ORDER BY id").fetchall() == [("ann",), ("bob",)]
    assert db.execute("SELECT value FROM strata_meta WHERE key = 'version'").fetchone() == (2,)
    db.close()


def test_a_migration_that_fails_changes_nothing(tmp_path: Path) -> None:
    doc = json.loads((EXAMPLE / "schema.json").read_text())
    path = str(tmp_path / "blog.db")
    with strata.Schema(doc).context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
    before = sqlite3.connect(path)
    schema_sql = before.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    rows = before.execute("SELECT * FROM User").fetchall()
    before.close()
    broken = migrated_schema(doc)
    broken["migrations"] = broken["migrations"][1:]  # login is never renamed: name is missing
    with pytest.raises(strata.StrataError) as raised:
        strata.Schema(broken).context(path)
    assert raised.value.errors[0]["code"] == "io"
    after = sqlite3.connect(path)
    assert after.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema_sql
    assert after.execute("SELECT * FROM User").fetchall() == rows
    assert after.execute("SELECT value FROM strata_meta WHERE key = 'version'").fetchone() == (1,)
    after.close()


def test_indexes_the_schema_declares_are_in_the_file_and_queries_use_them(tmp_path: Path) -> None:
    doc = json.loads((EXAMPLE / "schema.json").read_text())
    doc["models"]["Post"]["indexes"] = [["title"], ["author", "title"]]
    path = str(tmp_path / "blog.db")
    with strata.Schema(doc).context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
        assert [p.key for p in ctx.query("Post", {"title": {">=": "B"}}, order_by=["title"])] == [1, 3]
    db = sqlite3.connect(path)
    made = {row[0]: [c[2] for c in db.execute(f'PRAGMA index_info("{row[0]}")')]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'Post.index.%'")}
    assert made == {"Post.index.0": ["title"], "Post.index.1": ["author", "title"]}
    plan = " ".join(str(row) for row in db.execute(
        'EXPLAIN QUERY PLAN SELECT id FROM Post WHERE title >= ? ORDER BY title', ("B",)))
    assert "Post.index.0" in plan
    db.close()
    # a new version without the second index drops it
    doc["version"] = 2
    doc["models"]["Post"]["indexes"] = [["title"]]
    doc["migrations"] = [{"from": 1}]
    with strata.Schema(doc).context(path) as ctx:
        ctx.check()
    db = sqlite3.connect(path)
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'Post.index.%'")}
    assert names == {"Post.index.0"}
    db.close()


def test_a_to_one_index_holds_the_rows_that_have_the_relationship_and_lookups_use_it(tmp_path: Path) -> None:
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    path = str(tmp_path / "blog.db")
    with schema.context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
        ctx.import_("Post", {"data": {"posts": [{"id": 4, "title": "Nobody's"},
                                                {"id": 5, "title": "Unsigned", "author": None}]}})
    db = sqlite3.connect(path)
    # the index has an entry for each post with an author, none for the others
    made = db.execute("SELECT sql FROM sqlite_master WHERE name = 'Post.author'").fetchone()[0]
    assert made.endswith('WHERE "author" IS NOT NULL'), made
    entries = db.execute('SELECT count(*) FROM Post INDEXED BY "Post.author" WHERE author IS NOT NULL').fetchone()
    assert entries == (3,)
    for sql in ('SELECT id FROM Post WHERE author = ?', 'SELECT id FROM Post WHERE author IN (?, ?)',
                'SELECT Post.id FROM User JOIN Post ON Post.author = User.id WHERE User.login = ?'):
        plan = " ".join(str(row) for row in db.execute("EXPLAIN QUERY PLAN " + sql, (7,) * sql.count("?")))
        assert "Post.author" in plan, (sql, plan)
    db.close()
    with schema.context(path) as ctx:
        assert [p.key for p in ctx.query("Post", {"author": {"null": True}})] == [4, 5]
        assert [p.key for p in ctx.query("Post", {"author": {"null": False}})] == [1, 2, 3]
        assert [p.key for p in ctx.query("Post", {"author.login": "ann"})] == [1, 2]
        assert [p.key for p in ctx.get("User", 7)["posts"]] == [1, 2]
        ctx.import_("Post", {"data": {"posts": [{"id": 4, "title": "Nobody's", "author": 8},
                                                {"id": 1, "title": "Hello", "author": None}]}})
        assert [p.key for p in ctx.get("User", 8)["posts"]] == [3, 4]
        assert [p.key for p in ctx.get("User", 7)["posts"]] == [2]
        ctx.check()


def test_a_list_that_grows_or_changes_is_written_as_it_is(tmp_path: Path) -> None:
    doc = json.loads((EXAMPLE / "schema.json").read_text())
    path = str(tmp_path / "blog.db")
    with strata.Schema(doc).context(path) as ctx:
        for i in range(50):  # one more post per import: one more row
            ctx.import_("Post", {"data": {"posts": [{"id": i, "title": "t", "author": {"id": 7, "login": "ann"}}]}})
        ctx.check()
        ctx.delete(ctx.get("Post", 10))  # from the middle
        ctx.import_("Post", {"data": {"posts": [{"id": 3, "title": "moved", "author": {"id": 8, "login": "bob"}},
                                                {"id": 99, "title": "new", "author": 7}]}})
        ctx.import_("Post", {"data": {"posts": [{"id": 1, "title": "tags", "tags": ["a", "b", "c"]}]}})
        ctx.import_("Post", {"data": {"posts": [{"id": 1, "title": "tags", "tags": ["d"]}]}})  # union: appended
        ctx.check()
        expected = [p.key for p in ctx.get("User", 7)["posts"]]
        tags = [t.key for t in ctx.get("Post", 1)["tags"]]
    db = sqlite3.connect(path)
    rows = db.execute('SELECT position, target FROM "User.posts" WHERE owner = 7 ORDER BY position').fetchall()
    assert [target for _, target in rows] == expected == [i for i in range(50) if i not in (3, 10)] + [99]
    assert [position for position, _ in rows] == list(range(len(expected)))
    assert [t for (t,) in db.execute('SELECT target FROM "Post.tags" WHERE owner = 1 ORDER BY position')] == tags
    db.close()


def damaged_blog(tmp_path: Path, sql: str) -> Tuple[strata.Schema, str]:
    """The example blog imported into a file, then `sql` run on it behind Strata's back."""
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()
    return schema, path


def test_opening_a_file_reads_no_record_and_each_record_is_read_when_asked_for(tmp_path: Path) -> None:
    # a post that refers to a user the file does not have
    schema, path = damaged_blog(tmp_path, "UPDATE Post SET author = 99 WHERE id = 3")
    with schema.context(path) as ctx:
        assert ctx.cached == 0
        # get, count, queries and relationships read what they need: the damaged link is not followed
        ann = ctx.get("User", 7)
        assert ann is not None and ann["login"] == "ann" and ann.key == 7
        assert ctx.get("Post", 1)["title"] == "Hello"
        assert ctx.count("Post") == 3 and ctx.count("Tag", stubs=False) == 0
        assert [p.key for p in ctx.query("Post", {"author.login": "ann"}, order_by=["-title"])] == [1, 2]
        assert [p.key for p in ann["posts"]] == [1, 2]
        damaged = ctx.get("Post", 3)
        assert damaged.to_dict(nested=False)["author"] == 99  # as the file holds it
        assert ctx.get("User", 12345) is None
        assert 0 < ctx.cached < 10
        # following the damaged link finds the damage, and names the record it misses
        with pytest.raises(strata.StrataError) as raised:
            damaged["author"]
        assert "the 'User' record 99, which is not in the file" in str(raised.value)
        assert raised.value.errors[0]["code"] == "io"
        # the call failed whole; the context goes on
        assert [p.key for p in ctx.get("User", 7)["posts"]] == [1, 2]
        with pytest.raises(strata.StrataError, match="not in the file"):
            ctx.check()


def test_a_stored_value_that_does_not_fit_the_schema_is_an_io_error_at_its_place(tmp_path: Path) -> None:
    # a string the schema requires
    schema, path = damaged_blog(tmp_path, "UPDATE User SET login = NULL WHERE id = 7")
    with schema.context(path) as ctx:
        with pytest.raises(strata.StrataError) as raised:
            ctx.get("User", 7)
        assert raised.value.errors == [{
            "path": "/User/7/login", "model": "User", "property": "login", "code": "io",
            "message": "the stored record does not fit the schema: expected string, found null"}]
        assert ctx.get("Post", 1)["title"] == "Hello"  # the rest reads on


def test_a_record_read_from_the_file_follows_its_relationships_by_key(tmp_path: Path) -> None:
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(path) as ctx:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
    with schema.context(path) as reader, schema.context(path) as writer:
        ann = reader.get("User", 7)  # read from the tables
        writer.import_("Post", {"data": {"posts": [{"id": 4, "title": "Later", "author": 7}]}})
        assert [p.key for p in ann["posts"]] == [1, 2, 4]  # the graph as it is now
        assert reader.query("Post", {"author": 7}, order_by=["id"])[-1]["title"] == "Later"
        writer.delete(writer.get("User", 8))
        bob_posts = reader.query("Post", {"id": 3})
        assert bob_posts[0]["author"] is None
        reader.check()


def test_a_trimmed_cache_keeps_what_the_last_call_used(tmp_path: Path) -> None:
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(path) as ctx, schema.context(path) as reader:
        ctx.cache_limit = 30
        held: List[int] = []
        for i in range(200):  # one author whose list every import extends
            ctx.import_("Post", {"data": {"posts": [{"id": i, "title": f"p{i}", "author": {"id": 7, "login": "ann"},
                                                     "tags": [f"t{i % 3}"]}]}})
            held.append(ctx.cached)
        assert max(held) <= 30  # an import lets its records go when they are over the limit
        assert [p.key for p in ctx.get("User", 7)["posts"]] == list(range(200))
        ctx.delete(ctx.get("Post", 100))  # its author lets go of it
        assert [p.key for p in ctx.query("Post", {"tags.name": "t1"}, order_by=["id"])] == [
            i for i in range(1, 200, 3) if i != 100]
        ctx.check()
        assert [p.key for p in reader.get("User", 7)["posts"]] == [i for i in range(200) if i != 100]


def test_an_import_larger_than_the_cache_leaves_it_within_its_limit(tmp_path: Path) -> None:
    # the import, not the next read, lets its records go: the cache is
    # within its limit as soon as the import returns
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    posts = [{"id": i, "title": f"post {i}", "author": {"id": i % 7, "login": f"u{i % 7}"},
              "tags": [f"t{i % 5}"]} for i in range(500)]
    with schema.context(path) as ctx:
        ctx.cache_limit = 60
        result = ctx.import_("Post", {"data": {"posts": posts}})
        assert ctx.cached <= 60
        assert [r.key for r in result[:3]] == [0, 1, 2]  # handles find their records by key
        assert result[3]["author"]["login"] == "u3"
        assert len(ctx.query("Post", {"author": 3}, order_by=["id"])) == len(range(3, 500, 7))
        ctx.check()


def test_the_cache_holds_at_most_its_limit_between_calls(tmp_path: Path) -> None:
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    posts = [{"id": i, "title": f"post {i}", "author": {"id": i % 7, "login": f"u{i % 7}"},
              "tags": [f"t{i % 5}", f"t{(i + 1) % 5}"]} for i in range(300)]
    with schema.context(path) as ctx:
        assert ctx.cache_limit == 50_000
        ctx.import_("Post", {"data": {"posts": posts}})
        assert ctx.cached > 300  # a new file: every record it made
    with schema.context(path) as ctx, schema.context(path) as writer:
        ctx.cache_limit = 40
        held: List[int] = []
        for i in range(300):
            post = ctx.get("Post", i)
            assert post is not None and post["author"]["login"] == f"u{i % 7}"
            assert [t.key for t in post["tags"]] == [f"t{i % 5}", f"t{(i + 1) % 5}"]
            held.append(ctx.cached)
        assert max(held) <= 40 and min(held) > 0
        first = ctx.get("Post", 0)
        ctx.cache_limit = 0  # nothing kept between calls: handles find their records by key
        assert ctx.cached == 0
        assert first["author"].key == 0 and len(first["author"]["posts"]) == len(range(0, 300, 7))
        writer.import_("Post", {"data": {"posts": [{"id": 0, "title": "moved", "author": {"id": 1, "login": "u1"}}]}})
        assert first["author"].key == 1  # as the file holds it now
        assert ctx.cached == 0
        ctx.import_("Post", {"data": {"posts": [{"id": 1000, "title": "new", "author": 3, "tags": ["t9"]}]}})
        ctx.delete(ctx.get("User", 6))  # its posts let go of it: found through the file's index on author
        assert all(p["author"] is None for p in ctx.query("Post", {"id": {"in": list(range(6, 300, 7))}}))
        ctx.check()
        writer.check()
    with pytest.raises(ValueError):
        schema.context(path).cache_limit = -1
    with schema.context() as memory:
        memory.import_("Post", {"data": {"posts": posts[:10]}})
        memory.cache_limit = 0  # in memory: every record stays
        assert memory.cached == memory.count("Post") + memory.count("User") + memory.count("Tag")




def test_a_read_block_reads_one_snapshot_and_ends_however_it_is_left(tmp_path: Path) -> None:
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(path) as ctx, schema.context(path) as writer:
        ctx.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
        with pytest.raises(RuntimeError):
            with ctx.reading() as same:
                assert same is ctx
                assert ctx.count("Post") == 3
                writer.import_("Post", {"data": {"posts": [{"id": 4, "title": "Later", "author": 7}]}})
                assert ctx.count("Post") == 3 and ctx.get("Post", 4) is None
                assert [p.key for p in ctx.get("User", 7)["posts"]] == [1, 2]
                with ctx.reading():  # nested: the same snapshot
                    assert ctx.query("Post", {"author": 7}, order_by=["id"])[-1].key == 2
                assert ctx.get("Post", 4) is None
                raise RuntimeError("leaves the block")
        # the block ended with the exception: the writer's post is seen
        assert ctx.count("Post") == 4 and [p.key for p in ctx.get("User", 7)["posts"]] == [1, 2, 4]
        ctx.check()
    # a context closed inside its block ends it quietly; a closed context opens none
    ctx = schema.context(path)
    with ctx.reading():
        assert ctx.get("User", 8)["login"] == "bob"
        ctx.close()
    with pytest.raises(ValueError, match="closed"):
        with ctx.reading():
            pass
    # in memory a block changes nothing
    with schema.context() as memory:
        memory.import_("Post", json.loads((EXAMPLE / "posts.json").read_text()))
        with memory.reading():
            memory.import_("Post", {"data": {"posts": [{"id": 4, "title": "Later", "author": 7}]}})
            assert memory.count("Post") == 4


def test_a_long_list_grows_without_being_read(tmp_path: Path) -> None:
    path = str(tmp_path / "blog.db")
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(path) as ctx:
        ctx.import_("Post", {"data": {"posts": [
            {"id": i, "title": f"p{i}", "author": {"id": 7, "login": "ann"}} for i in range(40)]}})
    # damage a link row past the first 16 of the author's list (all a lazy read looks at), behind Strata's back
    db = sqlite3.connect(path)
    db.execute("UPDATE \"User.posts\" SET target = 'not a key' WHERE owner = 7 AND position = 30")
    db.commit()
    db.close()
    with schema.context(path) as ctx, schema.context(path) as reader:
        # a new post by the author appends a row to the list without reading it: the damage is not met
        ctx.import_("Post", {"data": {"posts": [{"id": 40, "title": "new", "author": {"id": 7, "login": "ann"}}]}})
        ctx.import_("Post", {"data": {"posts": [{"id": 41, "title": "newer", "author": 7}]}})
        assert ctx.count("Post") == 42
        rows = sqlite3.connect(path).execute(
            'SELECT position, target FROM "User.posts" WHERE owner = 7 ORDER BY position').fetchall()
        assert rows[-2:] == [(40, 40), (41, 41)] and len(rows) == 42
        # whoever reads the list meets the damage, with an io error naming it
        for context in (ctx, reader):
            with pytest.raises(strata.StrataError, match="User.posts|does not hold keys") as raised:
                context.get("User", 7)["posts"]
            assert raised.value.errors[0]["code"] == "io"
    # repaired, the list reads whole, in order, and changes in the middle work
    db = sqlite3.connect(path)
    db.execute("UPDATE \"User.posts\" SET target = 30 WHERE owner = 7 AND position = 30")
    db.commit()
    db.close()
    with schema.context(path) as ctx:
        ctx.import_("Post", {"data": {"posts": [{"id": 42, "title": "again", "author": 7}]}})
        ctx.import_("Post", {"data": {"posts": [{"id": 3, "title": "moved", "author": {"id": 8, "login": "bob"}}]}})
        ctx.delete(ctx.get("Post", 10))
        ctx.check()
        assert [p.key for p in ctx.get("User", 7)["posts"]] == [i for i in range(43) if i not in (3, 10)]
        assert [p.key for p in ctx.get("User", 8)["posts"]] == [3]


NOTE_SCHEMA: Dict[str, Any] = {
    "strata": 1,
    "models": {"Note": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "body": {"type": "string"}}}},
}

_NOTE_WRITER = """
import json, sys
import strata
with strata.Schema(json.loads(sys.argv[1])).context(sys.argv[2]) as ctx:
    ctx.import_("Note", {"id": 1, "body": sys.argv[3]})
"""


def test_a_record_read_from_the_cache_shows_every_commit_of_another_connection(tmp_path: Path) -> None:
    # A read outside a read block answers from the cache when nobody
    # committed since the last one, and sees every commit at once otherwise
    # (another context, another process, or any SQLite client): no step here
    # reads anything else in between that would refresh the cache.
    schema = strata.Schema(NOTE_SCHEMA)
    path = tmp_path / "notes.db"
    package = str(Path(strata.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=package, STRATA_LIBRARY=strata.library_path)
    with schema.context(path) as reader, schema.context(path) as writer:
        writer.import_("Note", {"id": 1, "body": "first"})
        for round in range(30):
            assert reader.get("Note", 1)["body"] == ("first" if round == 0 else f"sql {round - 1}")
            assert reader.get("Note", 1)["body"] == ("first" if round == 0 else f"sql {round - 1}")  # cached
            writer.import_("Note", [{"id": 1, "body": f"context {round}"}, {"id": 100 + round, "body": "x"}])
            assert reader.get("Note", 1)["body"] == f"context {round}"
            assert reader.count("Note") == round + 2
            done = subprocess.run(
                [sys.executable, "-c", _NOTE_WRITER, json.dumps(NOTE_SCHEMA), str(path), f"process {round}"],
                capture_output=True, text=True, env=env,
            )
            assert done.returncode == 0, done.stderr
            assert reader.get("Note", 1)["body"] == f"process {round}"
            with sqlite3.connect(path) as db:
                db.execute('UPDATE "Note" SET body = ? WHERE id = 1', (f"sql {round}",))
            assert reader.get("Note", 1)["body"] == f"sql {round}"
