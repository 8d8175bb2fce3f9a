"""The graph on PostgreSQL from Python (docs/graph.md, "PostgreSQL"): writers
in several processes importing overlapping pages at once, the tables as
PostgreSQL holds them, the shell's --db URL, and errors that hide the
password. graph.json runs there too (graph_conformance.py).

Needs the test server (scripts/pg-server; scripts/test starts one and sets
STRATA_TEST_POSTGRES_URL): skipped without one, unless
STRATA_TEST_POSTGRES_REQUIRED=1 (CI), which makes its absence a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Iterator, List

import pytest

import strata

import graph_helpers

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "graph"
SERVER = os.environ.get("STRATA_TEST_POSTGRES_URL")
REQUIRED = os.environ.get("STRATA_TEST_POSTGRES_REQUIRED") == "1"

if SERVER is None and not REQUIRED:
    pytest.skip("no PostgreSQL server: run scripts/pg-server start DIR and export what it prints",
                allow_module_level=True)


def psql(sql: str) -> List[List[str]]:
    """Rows of `sql` run by psql on the test server, as text."""
    assert SERVER is not None, "STRATA_TEST_POSTGRES_REQUIRED is set but STRATA_TEST_POSTGRES_URL is not"
    done = subprocess.run(["psql", SERVER, "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          check=True, capture_output=True, text=True)
    return [line.split("|") for line in done.stdout.splitlines() if line]


@pytest.fixture
def graph() -> Iterator[str]:
    """The URL of a new graph on the test server (its own schema, dropped after)."""
    assert SERVER is not None, "STRATA_TEST_POSTGRES_REQUIRED is set but STRATA_TEST_POSTGRES_URL is not"
    name = f"pytest_{uuid.uuid4().hex[:12]}"
    yield f"{SERVER}?schema={name}"
    psql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


WORKER = r"""
import json, sys
import strata
url, worker, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
schema = strata.Schema.from_file(sys.argv[4])
with schema.context(url) as ctx:
    for page in range(pages):
        # every page names the same five users; posts of pages overlap between workers
        first = (worker * pages + page) * 10 // 2
        posts = [{"id": first + i, "title": f"w{worker}p{page}", "author": {"id": (first + i) % 5, "login": f"u{(first + i) % 5}"},
                  "tags": [f"t{(first + i) % 3}"]} for i in range(10)]
        ctx.import_("Post", json.dumps({"data": {"posts": posts}}))
"""


def test_four_processes_import_overlapping_pages_and_lose_nothing(graph: str, tmp_path: Path) -> None:
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(graph) as ctx:  # the tables made once, before the workers race
        assert ctx.count("Post") == 0
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    pages = 8
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    workers = [subprocess.Popen([sys.executable, str(script), graph, str(worker), str(pages), str(EXAMPLE / "schema.json")],
                                env=env, stderr=subprocess.PIPE, text=True) for worker in range(4)]
    for worker in workers:
        _, errors = worker.communicate(timeout=300)
        assert worker.returncode == 0, errors
    expected = set()
    for worker in range(4):
        for page in range(pages):
            first = (worker * pages + page) * 10 // 2
            expected.update(range(first, first + 10))
    with schema.context(graph) as ctx:
        ctx.check()
        assert sorted(post.key for post in ctx.all("Post")) == sorted(expected)
        assert ctx.count("User") == 5
        for user in ctx.all("User"):
            # every post of the user in its list, once: no update lost, no inverse broken
            assert sorted(post.key for post in user["posts"]) == sorted(k for k in expected if k % 5 == user.key)
    # no duplicate: one row per key, one link row per post and tag
    assert psql(f'SELECT count(*), count(DISTINCT id) FROM {_schema(graph)}."Post"') == [[str(len(expected))] * 2]
    assert psql(f'SELECT count(*) FROM {_schema(graph)}."Post.tags"') == [[str(len(expected))]]


def _schema(url: str) -> str:
    return '"' + url.partition("?schema=")[2] + '"'


def test_the_tables_are_postgresql_tables_anyone_reads(graph: str) -> None:
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with schema.context(graph) as ctx:
        ctx.import_("Post", (EXAMPLE / "posts.json").read_text())
    name = graph.partition("?schema=")[2]
    columns = psql("SELECT column_name, data_type, collation_name FROM information_schema.columns "
                   f"WHERE table_schema = '{name}' AND table_name = 'Post' ORDER BY ordinal_position")
    assert columns == [["strata_synthetic", "bigint", ""], ["id", "bigint", ""], ["strata_type", "text", ""],
                       ["strata_stub", "bigint", ""], ["strata_extra", "text", ""], ["title", "text", "C"],
                       ["author.strata_synthetic", "bigint", ""], ["author", "bigint", ""]]
    rows = psql(f'SELECT p.title, u.login FROM {_schema(graph)}."Post" p JOIN {_schema(graph)}."User" u '
                "ON p.author = u.id ORDER BY p.id")
    assert rows == [["Hello", "ann"], ["Again", "ann"], ["Mine", "bob"]]
    # a row another program inserts without naming strata_synthetic holds a key of its own
    psql(f"INSERT INTO {_schema(graph)}.\"User\"(id, strata_type, login) VALUES (9, 'User', 'cy')")
    with schema.context(graph) as ctx:
        assert ctx.get("User", 9)["login"] == "cy"
    tags = psql(f'SELECT owner, position, target FROM {_schema(graph)}."Post.tags" ORDER BY owner, position')
    assert tags == [["1", "0", "sun"], ["1", "1", "sea"], ["2", "0", "sea"]]


def test_the_shell_takes_a_url_for_db(graph: str) -> None:
    cli = ROOT / "build" / "strata"
    if not cli.exists():
        pytest.skip("build/strata is not built (scripts/build)")
    schema = str(EXAMPLE / "schema.json")
    done = subprocess.run([str(cli), "import", schema, "Post", str(EXAMPLE / "posts.json"), "--db", graph],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = subprocess.run([str(cli), "get", schema, "User", "7", "--db", graph, "--flat"], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert '"login": "ann"' in got.stdout or '"login":"ann"' in got.stdout


def test_a_wrong_server_is_an_io_error_that_hides_the_password() -> None:
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with pytest.raises(strata.StrataError) as info:
        schema.context("postgresql://ann:s3cret@127.0.0.1:1/none?schema=x")
    assert info.value.errors[0]["code"] == "io"
    assert "s3cret" not in str(info.value)
    assert "***" in str(info.value)


def test_a_record_without_a_key_gets_one_as_on_sqlite(graph: str) -> None:
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    page = '{"data": {"posts": [{"id": 1, "title": "a", "author": {"login": "nobody"}}]}}'
    with schema.context(graph) as ctx:
        result = ctx.import_("Post", page)
        assert "key injector" in result.warnings[0]["message"]
        assert ctx.get("Post", 1)["author"].key == {"$id": 1}
        assert ctx.query("User", where={"id": None})[0]["login"] == "nobody"
        assert repr(ctx).startswith("<strata.Context postgresql://")
    # the number is in strata_synthetic, the key column holds a placeholder
    rows = psql(f'SELECT strata_synthetic, id, login FROM {_schema(graph)}."User"')
    assert rows == [["1", "0", "nobody"]]
    assert psql(f'SELECT "author.strata_synthetic", author FROM {_schema(graph)}."Post"') == [["1", "0"]]
    # a context opened later goes on from the largest number made
    with schema.context(graph) as ctx:
        ctx.import_("Post", page.replace('"id": 1', '"id": 2'))
        assert ctx.get("Post", 2)["author"].key == {"$id": 2}
        assert [user["login"] for user in ctx.all("User")] == ["nobody", "nobody"]
        ctx.check()


def test_a_new_schema_version_changes_the_tables_in_one_transaction(graph: str) -> None:
    from test_graph_tables import migrated_schema

    doc = json.loads((EXAMPLE / "schema.json").read_text())
    with strata.Schema(doc).context(graph) as ctx:
        ctx.import_("Post", (EXAMPLE / "posts.json").read_text())
        ctx.import_("Tag", [{"name": "sun", "color": "yellow"}])
    name = graph.partition("?schema=")[2]

    def columns(table: str) -> List[str]:
        return [row[0] for row in psql("SELECT column_name FROM information_schema.columns "
                                       f"WHERE table_schema = '{name}' AND table_name = '{table}'")]

    # a migration that fails (login never renamed: name is missing) changes nothing
    broken = migrated_schema(doc)
    broken["migrations"] = broken["migrations"][1:]
    with pytest.raises(strata.StrataError) as raised:
        strata.Schema(broken).context(graph)
    assert raised.value.errors[0]["code"] == "io"
    assert "login" in columns("User") and "views" not in columns("Post")
    assert psql(f"SELECT value FROM {_schema(graph)}.strata_meta WHERE key = 'version'") == [["1"]]
    # the right one: columns added and dropped, a table made, every record written again
    with strata.Schema(migrated_schema(doc)).context(graph) as ctx:
        assert ctx.get("User", 7)["name"] == "ann"
        assert ctx.get("Post", 1)["views"] == 0
        assert "color" not in ctx.get("Tag", "sun").to_dict()
        ctx.check()
    assert "name" in columns("User") and "login" not in columns("User")
    assert "views" in columns("Post") and "color" not in columns("Tag")
    assert columns("Badge") == ["strata_synthetic", "id", "strata_type", "strata_stub", "strata_extra"]
    assert psql(f'SELECT name FROM {_schema(graph)}."User" ORDER BY id') == [["ann"], ["bob"]]
    assert psql(f"SELECT value FROM {_schema(graph)}.strata_meta WHERE key = 'version'") == [["2"]]


def test_a_schema_of_other_tables_is_refused_and_left_alone(graph: str) -> None:
    name = graph.partition("?schema=")[2]
    psql(f'CREATE SCHEMA "{name}"; CREATE TABLE "{name}".accounts(id int PRIMARY KEY); '
         f'INSERT INTO "{name}".accounts VALUES (1)')
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    with pytest.raises(strata.StrataError) as raised:
        schema.context(graph)
    assert raised.value.errors[0]["code"] == "argument"
    assert "not a Strata graph" in raised.value.errors[0]["message"]
    assert psql(f'SELECT count(*) FROM "{name}".accounts') == [["1"]]
    assert psql(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{name}'") == [["1"]]


def _dump(ctx: strata.Context) -> dict:
    return graph_helpers.dump(ctx, ("User", "Post", "Tag"))


def _page(rng: "random.Random", number: int) -> dict:
    count = rng.choice([1, 2, 31, 32, 33, 64, 65, rng.randint(1, 90)])
    # a twentieth of the posts with a list longer than a statement of link rows holds
    posts = graph_helpers.random_posts(rng, number, count, ids=600, users=2, tags=9, long_tags=0.05)
    return {"data": {"posts": posts}}


@pytest.mark.parametrize("seed", range(4))
def test_writes_of_many_rows_per_statement_end_as_in_memory(graph: str, seed: int) -> None:
    """PostgreSQL gets a table's rows, and link rows, in statements of up to
    32 and 128 rows (docs/graph.md, "PostgreSQL"). Random pages whose sizes
    fall on and around those counts, long lists, updates and deletes: the
    graph must end as the same imports give in memory, in a context that
    wrote it and in a new one."""
    import random

    rng = random.Random(seed)
    schema = strata.Schema.from_file(str(EXAMPLE / "schema.json"))
    memory = schema.context()
    with schema.context(graph) as ctx:
        for number in range(25):
            body = _page(rng, number)
            memory.import_("Post", body)
            ctx.import_("Post", body)
            if rng.random() < 0.3:
                for post in memory.query("Post", limit=3, offset=rng.randint(0, 20)):
                    memory.delete(memory.get("Post", post.key))
                    ctx.delete(ctx.get("Post", post.key))
        want = _dump(memory)
        assert max(len(user["values"].get("posts", [])) for user in want["User"]) > 128
        assert max(len(post["values"].get("tags", [])) for post in want["Post"]) > 128
        assert _dump(ctx) == want
        ctx.check()
    with schema.context(graph) as reopened:
        assert _dump(reopened) == want
        reopened.check()
