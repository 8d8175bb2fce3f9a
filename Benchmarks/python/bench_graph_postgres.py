#!/usr/bin/env python3
"""The object graph on PostgreSQL (issue "the same graph on PostgreSQL"):
the 20,000-issue payload imported in pages of 500 into a new graph from 1,
2 and 4 worker processes at once, against the same pages imported into a
new SQLite file from one process, and against the hand-written way.

The hand-written peer: psycopg 3, per page a msgspec decode, users, labels
and milestones deduplicated in dicts, then `executemany` upserts (INSERT ...
ON CONFLICT DO UPDATE; psycopg sends them in pipeline mode) into a table
per model and a link table for the labels, one transaction per page, as
Strata's import is.

    bench_graph_postgres.py PAYLOAD SCHEMA URL [REPS]

URL: a PostgreSQL database (scripts/pg-server prints one); each run gets a
schema of its own, dropped after. Prints `time NAME BEST MEDIAN REPS` lines
and `ratio` lines."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from typing import Any, Callable, Dict, List, Sequence, Tuple

import msgspec
import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
import strata  # noqa: E402
from bench_graph_peer import peer_rows, upsert as peer_upsert  # noqa: E402

PAGE = 500
MODEL = "GHIssue"

TABLES = [
    "CREATE TABLE gh_user(id BIGINT PRIMARY KEY, login TEXT NOT NULL, avatar_url TEXT NOT NULL,"
    " site_admin SMALLINT NOT NULL)",
    "CREATE TABLE gh_label(id BIGINT PRIMARY KEY, name TEXT NOT NULL, color TEXT NOT NULL,"
    " \"default\" SMALLINT NOT NULL, description TEXT)",
    "CREATE TABLE gh_milestone(id BIGINT PRIMARY KEY, url TEXT NOT NULL, number BIGINT NOT NULL,"
    " title TEXT NOT NULL, description TEXT, state TEXT NOT NULL, open_issues BIGINT NOT NULL,"
    " closed_issues BIGINT NOT NULL, created_at TEXT NOT NULL, due_on TEXT)",
    "CREATE TABLE gh_issue(number BIGINT PRIMARY KEY, url TEXT NOT NULL, html_url TEXT NOT NULL,"
    " id BIGINT NOT NULL, title TEXT NOT NULL, user_id BIGINT NOT NULL, state TEXT NOT NULL, locked SMALLINT NOT NULL,"
    " assignee_id BIGINT, milestone_id BIGINT, comments BIGINT NOT NULL, created_at TEXT NOT NULL,"
    " updated_at TEXT NOT NULL, closed_at TEXT, body TEXT, score DOUBLE PRECISION NOT NULL, reactions TEXT NOT NULL)",
    "CREATE TABLE gh_issue_labels(issue BIGINT NOT NULL, position BIGINT NOT NULL, label BIGINT NOT NULL,"
    " PRIMARY KEY(issue, position))",
    "CREATE INDEX gh_issue_user ON gh_issue(user_id)",
    "CREATE INDEX gh_issue_labels_label ON gh_issue_labels(label)",
]


def upsert(table: str, key: str, columns: List[str]) -> str:
    return peer_upsert(table, key, columns, placeholder="%s")


USER_SQL = upsert("gh_user", "id", ["id", "login", "avatar_url", "site_admin"])
LABEL_SQL = upsert("gh_label", "id", ["id", "name", "color", "default", "description"])
MILESTONE_SQL = upsert("gh_milestone", "id", ["id", "url", "number", "title", "description", "state", "open_issues",
                                              "closed_issues", "created_at", "due_on"])
ISSUE_SQL = upsert("gh_issue", "number", ["number", "url", "html_url", "id", "title", "user_id", "state", "locked",
                                          "assignee_id", "milestone_id", "comments", "created_at", "updated_at",
                                          "closed_at", "body", "score", "reactions"])


def peer_page(db: "psycopg.Connection[Any]", page: bytes) -> None:
    users, labels, milestones, rows, links, numbers = peer_rows(page)
    with db.transaction():
        with db.cursor() as cursor:
            # sorted: two writers upserting the same users in another order would deadlock
            cursor.executemany(USER_SQL, [users[k] for k in sorted(users)])
            cursor.executemany(LABEL_SQL, [labels[k] for k in sorted(labels)])
            cursor.executemany(MILESTONE_SQL, [milestones[k] for k in sorted(milestones)])
            cursor.executemany(ISSUE_SQL, rows)
            cursor.executemany("DELETE FROM gh_issue_labels WHERE issue = %s", numbers)
            cursor.executemany("INSERT INTO gh_issue_labels(issue, position, label) VALUES(%s, %s, %s)", links)


def peer_worker(arguments: Tuple[str, List[bytes]]) -> int:
    url, pages = arguments
    with psycopg.connect(url) as db:
        for page in pages:
            peer_page(db, page)
    return len(pages)


def strata_worker(arguments: Tuple[str, str, List[bytes]]) -> int:
    schema_path, url, pages = arguments
    schema = strata.Schema.from_file(schema_path)
    with schema.context(url) as ctx:
        for page in pages:
            ctx.import_(MODEL, page)
    return len(pages)


def run_workers(worker: Callable[[Any], int], jobs: Sequence[Any]) -> None:
    if len(jobs) == 1:
        worker(jobs[0])
        return
    with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
        pool.map(worker, jobs)


def split(pages: List[bytes], workers: int) -> List[List[bytes]]:
    return [pages[i::workers] for i in range(workers)]


def admin(url: str, sql: str) -> None:
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(sql)


def main() -> int:
    payload_path, schema_path, url = sys.argv[1], sys.argv[2], sys.argv[3]
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    issues = json.load(open(payload_path))
    pages = [json.dumps(issues[i:i + PAGE]).encode() for i in range(0, len(issues), PAGE)]
    print(f"{len(issues)} issues in {len(pages)} pages of {PAGE}")
    schema = strata.Schema.from_file(schema_path)
    results: Dict[str, List[float]] = {}

    def timed(name: str, setup: Callable[[], Any], run: Callable[[Any], None], cleanup: Callable[[Any], None]) -> None:
        times = []
        for _ in range(reps):
            state = setup()
            start = time.perf_counter()
            run(state)
            times.append(time.perf_counter() - start)
            cleanup(state)
        results[name] = times
        print(f"time {name} {min(times):.6f} {statistics.median(times):.6f} {reps}", flush=True)

    def new_graph() -> str:
        name = f"bench_{uuid.uuid4().hex[:10]}"
        graph = f"{url}?schema={name}"
        schema.context(graph).close()  # the tables, made before the clock starts
        return graph

    def drop_graph(graph: str) -> None:
        admin(url, f'DROP SCHEMA IF EXISTS "{graph.partition("?schema=")[2]}" CASCADE')

    for workers in (1, 2, 4):
        timed(f"graph_pg_strata_{workers}_workers", new_graph,
              lambda graph, w=workers: run_workers(strata_worker, [(schema_path, graph, part) for part in split(pages, w)]),
              drop_graph)

    def new_file() -> str:
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "graph.db")
        schema.context(path).close()
        return path

    timed("graph_sqlite_strata_1_worker", new_file,
          lambda path: run_workers(strata_worker, [(schema_path, path, pages)]),
          lambda path: shutil.rmtree(os.path.dirname(path)))

    def new_peer() -> str:
        name = f"peer_{uuid.uuid4().hex[:10]}"
        admin(url, f'CREATE SCHEMA "{name}"')
        peer_url = f"{url}?options=-csearch_path%3D{name}"
        with psycopg.connect(peer_url, autocommit=True) as db:
            for statement in TABLES:
                db.execute(statement)
        return peer_url

    def drop_peer(peer_url: str) -> None:
        admin(url, f'DROP SCHEMA IF EXISTS "{peer_url.rpartition("%3D")[2]}" CASCADE')

    for workers in (1, 4):
        timed(f"graph_pg_peer_psycopg_{workers}_workers", new_peer,
              lambda peer, w=workers: run_workers(peer_worker, [(peer, part) for part in split(pages, w)]),
              drop_peer)

    best = {name: min(times) for name, times in results.items()}
    print(f"ratio strata_1_worker/peer_1_worker {best['graph_pg_strata_1_workers'] / best['graph_pg_peer_psycopg_1_workers']:.2f}")
    print(f"ratio strata_4_workers/peer_4_workers {best['graph_pg_strata_4_workers'] / best['graph_pg_peer_psycopg_4_workers']:.2f}")
    print(f"ratio strata_pg_1_worker/strata_sqlite {best['graph_pg_strata_1_workers'] / best['graph_sqlite_strata_1_worker']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
