"""Fetching pages into the graph (docs/graph.md, "Fetching pages"), against a
real HTTP server on 127.0.0.1 (http.server in a thread): next links in the
body, Link headers and cursors; ETags and 304s; an unchanged body; a 500, a
slow page, a truncated body and a client that raises; fetch_first; the
urllib, requests and httpx clients, sync and async; the cache kept in a file
and in PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import strata

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "http"))
from fetch_api import PAGES, PER_PAGE, Server, serve, statuses  # noqa: E402

TWEET = {
    "primaryKey": "id",
    "properties": {"id": {"type": "int"}, "text": {"type": "string"}, "user": {"type": "User?", "inverse": "tweets"}},
}
SCHEMA: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "User": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "name": {"type": "string"},
            "tweets": {"type": "[Tweet]", "inverse": "user", "json": False}}},
        "Tweet": dict(TWEET, root="statuses", paging={"next": "search_metadata.next_results"},
                      meta={"path": "search_metadata", "model": "SearchMeta"}),
        "LinkTweet": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "text": {"type": "string"}},
                      "paging": {"next": "link"}},
        "CursorTweet": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "text": {"type": "string"}},
                        "root": "data", "paging": {"cursor": "meta.cursor", "param": "cursor"}},
        "SearchMeta": {"properties": {"count": {"type": "int"}}},
    },
}
@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    made = serve()
    yield made
    made.shutdown()
    made.server_close()


@pytest.fixture
def base(server: Server) -> str:
    server.log.clear()
    server.version += 1  # new ETags: no test sees another's pages as unchanged
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def schema() -> strata.Schema:
    return strata.Schema(SCHEMA)


def test_pages_follow_the_next_links_to_the_last(schema: strata.Schema, base: str, server: Server) -> None:
    with schema.context() as ctx:
        pages = list(ctx.fetch("Tweet", f"{base}/search?q=a"))
        assert [page.url for page in pages] == [f"{base}/search?q=a", f"{base}/search?page=2&q=a",
                                                f"{base}/search?page=3&q=a"]
        assert [page.next for page in pages] == [f"{base}/search?page=2&q=a", f"{base}/search?page=3&q=a", None]
        assert [[record.key for record in page] for page in pages] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
        assert pages[0].created == {"Tweet": 4, "User": 2} and pages[1].created == {"Tweet": 4}
        assert pages[0].metadata is not None and pages[0].metadata["count"] == 4
        assert not any(page.cached for page in pages) and [page.status for page in pages] == [200] * 3
        assert ctx.count("Tweet") == 12 and len(ctx.get("User", 1)["tweets"]) == 6
        ctx.check()
    assert len(server.log) == 3


def test_pages_stop_at_n_or_when_the_loop_breaks(schema: strata.Schema, base: str, server: Server) -> None:
    with schema.context() as ctx:
        assert len(list(ctx.fetch("Tweet", f"{base}/search?q=a", pages=2))) == 2
        assert len(server.log) == 2
        server.log.clear()
        for page in ctx.fetch("LinkTweet", f"{base}/links"):
            break
        assert len(server.log) == 1  # the next page was never asked for
        assert list(ctx.fetch("Tweet", f"{base}/search", pages=0)) == []


def test_link_headers_and_cursors_page_too(schema: strata.Schema, base: str) -> None:
    with schema.context() as ctx:
        links = list(ctx.fetch("LinkTweet", f"{base}/links"))
        assert [page.next for page in links] == [f"{base}/links?page=2", f"{base}/links?page=3", None]
        cursors = list(ctx.fetch("CursorTweet", f"{base}/cursor"))
        assert [page.url for page in cursors] == [f"{base}/cursor", f"{base}/cursor?cursor=1", f"{base}/cursor?cursor=2"]
        assert ctx.count("LinkTweet") == 12 and ctx.count("CursorTweet") == 12


def test_a_page_the_server_says_is_unchanged_is_not_imported_again(schema: strata.Schema, base: str,
                                                                   server: Server) -> None:
    with schema.context() as ctx:
        first = list(ctx.fetch("Tweet", f"{base}/search?q=a"))
        server.log.clear()
        again = list(ctx.fetch("Tweet", f"{base}/search?q=a"))
        # every request carried the page's ETag; every answer was a 304
        assert [headers.get("If-None-Match") for _, headers in server.log] == [
            f'"search-{page}-{server.version}"' for page in (1, 2, 3)]
        assert [page.status for page in again] == [304] * 3 and all(page.cached for page in again)
        assert [[r.key for r in page] for page in again] == [[r.key for r in page] for page in first]
        assert [page.next for page in again] == [page.next for page in first]
        assert again[0].created == {} and again[0].metadata is None
        # without the cache: no validators, the pages imported again (and found unchanged)
        server.log.clear()
        fresh = list(ctx.fetch("Tweet", f"{base}/search?q=a", cache=False))
        assert all("If-None-Match" not in headers for _, headers in server.log)
        assert [page.cached for page in fresh] == [False] * 3 and fresh[0].unchanged == {"Tweet": 4, "User": 2}


def test_the_body_of_last_time_is_not_imported_again(schema: strata.Schema, base: str) -> None:
    with schema.context() as ctx:
        first = next(iter(ctx.fetch("Tweet", f"{base}/plain")))
        ctx.delete(ctx.get("Tweet", 2))  # the records of last time still in the graph are given
        again = next(iter(ctx.fetch("Tweet", f"{base}/plain")))
        assert not first.cached and again.cached and again.status == 200
        assert [record.key for record in again] == [1, 3, 4]
        assert ctx.get("Tweet", 2) is None


def test_a_status_other_than_2xx_is_an_http_error_and_imports_nothing(schema: strata.Schema, base: str) -> None:
    with schema.context() as ctx:
        with pytest.raises(strata.MappingError) as raised:
            list(ctx.fetch("Tweet", f"{base}/error"))
        error = raised.value.errors[0]
        assert error["code"] == "http"
        assert "500" in error["message"] and f"{base}/error" in error["message"] and "boom" in error["message"]
        with pytest.raises(strata.MappingError) as missing:
            list(ctx.fetch("Tweet", f"{base}/nowhere"))
        assert missing.value.errors[0]["code"] == "http" and "404" in missing.value.errors[0]["message"]
        # a 304 for a page the graph never kept
        with pytest.raises(strata.MappingError) as unknown:
            ctx.fetch_page("Tweet", f"{base}/search", 304, [], b"")
        assert unknown.value.errors[0]["code"] == "http"
        assert ctx.count("Tweet") == 0


def test_a_truncated_body_is_a_syntax_error_naming_the_url(schema: strata.Schema, base: str) -> None:
    with schema.context() as ctx:
        with pytest.raises(strata.MappingError) as raised:
            list(ctx.fetch("Tweet", f"{base}/truncated"))
        assert raised.value.errors[0]["code"] == "syntax"
        assert raised.value.errors[0]["message"].startswith(f"{base}/truncated: ")
        assert ctx.count("Tweet") == 0


def test_a_client_that_raises_is_reported_with_its_exception(schema: strata.Schema, base: str) -> None:
    def failing(request: strata.Request) -> Any:
        raise ConnectionResetError(f"reset while fetching {request.url}")

    with schema.context() as ctx:
        with pytest.raises(ConnectionResetError, match="reset while fetching"):
            list(ctx.fetch("Tweet", f"{base}/search", client=failing))
        with pytest.raises(TypeError, match="status, headers, body"):
            list(ctx.fetch("Tweet", f"{base}/search", client=lambda request: "not a response"))
        assert ctx.count("Tweet") == 0


def test_fetch_first_gives_the_graph_s_records_before_any_request(schema: strata.Schema, base: str,
                                                                  server: Server) -> None:
    with schema.context() as ctx:
        list(ctx.fetch("Tweet", f"{base}/search?q=a", pages=1))
        server.log.clear()
        fetch = iter(ctx.fetch("Tweet", f"{base}/search?q=a", pages=1,
                               fetch_first={"where": {"user.id": 1}, "order_by": "-id", "limit": 10}))
        zero = next(fetch)
        assert server.log == [] and zero.cached and zero.url is None
        assert [record.key for record in zero] == [3, 1] and zero.next == f"{base}/search?q=a"
        rest = list(fetch)
        assert len(rest) == 1 and len(server.log) == 1


def test_the_requests_and_httpx_clients(schema: strata.Schema, base: str) -> None:
    import httpx
    import requests

    with schema.context() as ctx:
        with requests.Session() as session:
            assert len(list(ctx.fetch("Tweet", f"{base}/search?q=a", client=session, cache=False))) == PAGES
        with httpx.Client() as client:
            assert len(list(ctx.fetch("LinkTweet", f"{base}/links", client=client))) == PAGES
        assert len(list(ctx.fetch("CursorTweet", f"{base}/cursor", client=strata.urllib_client(timeout=5)))) == PAGES
        assert ctx.count("Tweet") == 12


def test_async_for_with_an_async_client(schema: strata.Schema, base: str, server: Server) -> None:
    import httpx

    async def run() -> List[List[int]]:
        with schema.context() as ctx:
            async with httpx.AsyncClient() as client:
                keys = [[record.key async for record in _records(page)]
                        async for page in ctx.fetch("Tweet", f"{base}/search?q=a", client=client)]

            async def coroutine_client(request: strata.Request) -> Tuple[int, Any, bytes]:
                await asyncio.sleep(0)
                return 200, [], json.dumps(statuses(9)).encode()

            async for page in ctx.fetch("LinkTweet", "http://example.invalid/", client=coroutine_client):
                keys.append([record.key for record in page])
            with pytest.raises(TypeError, match="async for"):
                list(ctx.fetch("LinkTweet", "http://example.invalid/", client=coroutine_client))
            return keys

    assert asyncio.run(run()) == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [33, 34, 35, 36]]


async def _records(page: strata.Page) -> Any:
    for record in page:
        yield record


def test_a_slow_page_waits_and_a_short_timeout_raises(schema: strata.Schema, base: str) -> None:
    import socket

    with schema.context() as ctx:
        assert len(next(iter(ctx.fetch("Tweet", f"{base}/slow")))) == PER_PAGE
        with pytest.raises((socket.timeout, TimeoutError, OSError)):
            list(ctx.fetch("Tweet", f"{base}/slow", client=strata.urllib_client(timeout=0.05), cache=False))


@pytest.mark.parametrize("where", ["file", "postgres"])
def test_the_cache_is_kept_in_the_database(schema: strata.Schema, base: str, server: Server, tmp_path: Path,
                                           where: str) -> None:
    url = os.environ.get("STRATA_TEST_POSTGRES_URL")
    if where == "postgres":
        if url is None:
            if os.environ.get("STRATA_TEST_POSTGRES_REQUIRED") == "1":
                pytest.fail("STRATA_TEST_POSTGRES_REQUIRED is set but STRATA_TEST_POSTGRES_URL is not")
            pytest.skip("no PostgreSQL server")
        name = f"fetch_{uuid.uuid4().hex[:10]}"
        path = f"{url}?schema={name}"
    else:
        path = str(tmp_path / "graph.db")
    try:
        with schema.context(path) as ctx:
            list(ctx.fetch("Tweet", f"{base}/search?q=a"))
        server.log.clear()
        with schema.context(path) as ctx:  # another context, later: the validators are in the database
            again = list(ctx.fetch("Tweet", f"{base}/search?q=a"))
            assert [page.status for page in again] == [304] * 3
            assert [record.key for record in again[2]] == [9, 10, 11, 12]
            ctx.check()
        assert all(headers.get("If-None-Match") for _, headers in server.log)
    finally:
        if where == "postgres" and url is not None:
            subprocess.run(["psql", url, "-q", "-c", f'DROP SCHEMA IF EXISTS "{name}" CASCADE'], check=True,
                           capture_output=True)


def test_the_shell_fetches_pages_into_a_file(base: str, server: Server, tmp_path: Path) -> None:
    cli = Path(__file__).resolve().parents[3] / "build" / "strata"
    if not cli.exists():
        pytest.skip("build/strata is not built (scripts/build)")
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    db = tmp_path / "tweets.db"

    def fetch(*extra: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run([str(cli), "fetch", str(schema_file), "Tweet", f"{base}/search?q=a", "--db", str(db),
                               *extra], capture_output=True, text=True, timeout=60)

    done = fetch()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"{base}/search?q=a: 200, 4 records, created Tweet 4, User 2, updated nothing",
        f"{base}/search?page=2&q=a: 200, 4 records, created Tweet 4, updated User 2",
        f"{base}/search?page=3&q=a: 200, 4 records, created Tweet 4, updated User 2",
    ]
    again = fetch("--pages", "2")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [f"{base}/search?q=a: 304, 4 records, cached",
                                         f"{base}/search?page=2&q=a: 304, 4 records, cached"]
    failed = subprocess.run([str(cli), "fetch", str(schema_file), "Tweet", f"{base}/error", "--db", str(db)],
                            capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1 and "http" in failed.stderr and "500" in failed.stderr
    with strata.Schema(SCHEMA).context(str(db)) as ctx:
        assert ctx.count("Tweet") == 12


def test_a_batch_runs_its_fetches_together_and_collects_every_error(schema: strata.Schema, base: str) -> None:
    with schema.context() as ctx:
        with pytest.raises(strata.BatchError) as raised:
            with ctx.batch(workers=3) as batch:
                search = batch.fetch("Tweet", f"{base}/search?q=a")
                links = batch.fetch("LinkTweet", f"{base}/links", pages=2)
                broken = batch.fetch("Tweet", f"{base}/error")
                cursors = batch.fetch("CursorTweet", f"{base}/cursor")
        # one completion: every fetch ran; the failure is listed, the others' pages are in
        assert [len(fetch.pages) for fetch in (search, links, broken, cursors)] == [3, 2, 0, 3]
        assert [url for url, _ in raised.value.failures] == [f"{base}/error"]
        error = raised.value.failures[0][1]
        assert isinstance(error, strata.MappingError) and error.errors[0]["code"] == "http"
        assert len(batch.pages) == 8 and broken.error is error and search.error is None
        assert ctx.count("Tweet") == 12 and ctx.count("LinkTweet") == 8 and ctx.count("CursorTweet") == 12
        ctx.check()
        # a block that raises fetches nothing
        with pytest.raises(KeyError):
            with ctx.batch() as nothing:
                nothing.fetch("Tweet", f"{base}/plain")
                raise KeyError("stop")
        assert nothing.fetches[0].pages == []


def test_an_async_batch(schema: strata.Schema, base: str) -> None:
    import httpx

    async def run() -> List[int]:
        with schema.context() as ctx:
            async with httpx.AsyncClient() as client:
                async with ctx.batch(client=client) as batch:
                    batch.fetch("Tweet", f"{base}/search?q=a")
                    batch.fetch("LinkTweet", f"{base}/links")
            with pytest.raises(TypeError, match="async with"):
                with ctx.batch(client=client):
                    pass
            return [len(fetch.pages) for fetch in batch.fetches]

    assert asyncio.run(run()) == [3, 3]
