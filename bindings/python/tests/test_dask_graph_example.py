"""examples/dask/import_graph.py: a folder of JSON-lines pages imported by
four worker processes of a LocalCluster into one PostgreSQL graph at once;
then every invariant is checked, and every record, relationship and error is
compared with what the pages say.

Needs the test server (scripts/pg-server; scripts/test starts one and sets
STRATA_TEST_POSTGRES_URL): skipped without one, unless
STRATA_TEST_POSTGRES_REQUIRED=1 (CI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Set

import pytest

import strata

REPO_ROOT = Path(__file__).resolve().parents[3]
EXAMPLE_DIR = REPO_ROOT / "examples" / "dask"
SERVER = os.environ.get("STRATA_TEST_POSTGRES_URL")
REQUIRED = os.environ.get("STRATA_TEST_POSTGRES_REQUIRED") == "1"

if SERVER is None and not REQUIRED:
    pytest.skip("no PostgreSQL server: run scripts/pg-server start DIR and export what it prints",
                allow_module_level=True)
distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (scripts/bootstrap installs dask[distributed])"
)

if str(EXAMPLE_DIR) not in sys.path:
    sys.path.insert(0, str(EXAMPLE_DIR))
import import_graph  # noqa: E402
import map_folder  # noqa: E402

FILES, PAGES, POSTS, USERS = 8, 5, 20, 10


def page(file: int, number: int) -> List[Dict[str, Any]]:
    """The posts of one page: ids overlap with the next file's, users and tags with every page's."""
    first = (file * PAGES + number) * POSTS // 2
    return [
        {"id": n, "title": f"post {n}", "author": {"id": n % USERS, "login": f"user{n % USERS}"},
         "tags": [f"tag{n % 4}"] + ([f"tag{(n + 1) % 4}"] if n % 2 else [])}
        for n in range(first, first + POSTS)
    ]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pages")
    for file in range(FILES):
        lines = [json.dumps({"data": {"posts": page(file, number)}}) for number in range(PAGES)]
        if file == 3:
            lines.insert(2, '{"data": {"posts": [{"id": 1, "title": 7}]}}')  # a bad page: changes nothing
        (folder / f"{file:02}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def graph() -> Iterator[str]:
    assert SERVER is not None, "STRATA_TEST_POSTGRES_REQUIRED is set but STRATA_TEST_POSTGRES_URL is not"
    name = f"dask_{uuid.uuid4().hex[:12]}"
    yield f"{SERVER}?schema={name}"
    subprocess.run(["psql", SERVER, "-q", "-c", f'DROP SCHEMA IF EXISTS "{name}" CASCADE'], check=True,
                   capture_output=True)


def test_four_workers_import_overlapping_pages_into_one_postgresql_graph(pages: Path, graph: str) -> None:
    schema = strata.Schema.from_file(str(import_graph.EXAMPLE_SCHEMA))
    cluster = map_folder.local_cluster(4)
    try:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 4
            results = import_graph.import_folder(client, schema, "Post", pages, graph)
    finally:
        cluster.close()
    assert [result.pages for result in results] == [PAGES] * FILES
    errors = [(error["file"], error["line"], error["code"], error["path"]) for r in results for error in r.errors]
    assert errors == [("03.jsonl", 3, "type", "/data/posts/0/title")]
    report = import_graph.summary(schema, graph, results)  # checks every invariant
    posts: Dict[int, Set[str]] = {}
    for file in range(FILES):
        for number in range(PAGES):
            for post in page(file, number):
                posts[post["id"]] = set(post["tags"])
    assert f"graph: {len(posts)} Post, {USERS} User, 4 Tag" in report
    with schema.context(graph) as ctx:
        ctx.check()
        assert sorted(post.key for post in ctx.all("Post")) == sorted(posts)
        for user in ctx.all("User"):
            # each post once in its author's list: no lost update, no duplicate
            keys = [post.key for post in user["posts"]]
            assert sorted(keys) == sorted(n for n in posts if n % USERS == user.key)
        for post in ctx.all("Post"):
            # a tag list is the union of what the pages gave (the schema's merge rule)
            assert {tag.key for tag in post["tags"]} == posts[post.key]
        assert ctx.count("Post", where={"tags.name": "tag0"}) == sum(1 for tags in posts.values() if "tag0" in tags)
