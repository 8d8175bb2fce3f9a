"""A large graph file, page by page (issue "The graph lives in the
database"): N records imported into a new file in pages of 1,000, then the
file opened again in a fresh process.

- pages: N posts (each with its author among N/100 users, and two of 1,000
  tags) imported 1,000 posts per import; the time of each page is kept, and
  the mean of the first and of the last tenth of the pages are printed with
  their ratio (target: flat, a ratio near 1), with the process's peak RSS
  (target <= 300 MB for N = 1,000,000).
- peer: the same pages into the same tables (made by Strata, then filled
  by hand) with Python's sqlite3: per page, `executemany` upserts of the
  users, tags and posts and inserts of the link rows (each user's next
  position kept in a dict), one transaction, WAL and synchronous=FULL.
  Its first and last tenth show how much of the growth is SQLite's own:
  its indexes and link tables get inserts all over as they grow.
- open: a fresh process opens the file (time, and the RSS it adds over the
  interpreter with strata loaded: target <= 50 ms and <= 30 MB), then reads
  records by key: a tenth of the posts cold (each read once, from the
  file), then the same keys again warm (from the cache; target >= 200 k/s
  cold, >= 1 M/s warm), and once more inside one read block
  (`with ctx.reading()`: no check of the file per call).
- with BENCH_GRAPH_OPEN naming Benchmarks/c/bench_graph_open (scripts/bench
  builds it), the same file is then read from C: open, cold and cached gets
  of a tenth of the posts, and SQLite alone on the same keys.

usage: bench_graph_pages.py [N]   (N defaults to 1,000,000)
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bindings", "python"))
import strata  # noqa: E402
from bench_graph_peer import upsert as upsert_sql  # noqa: E402  (the same INSERT ... ON CONFLICT text as the issues' peer)

SCHEMA_DOC = {
    "strata": 1,
    "models": {
        "User": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "login": {"type": "string"},
            "posts": {"type": "[Post]", "inverse": "author", "json": False}}},
        "Tag": {"primaryKey": "name", "properties": {"name": {"type": "string"}}},
        "Post": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "title": {"type": "string"}, "score": {"type": "double"},
            "author": {"type": "User?", "inverse": "posts"}, "tags": {"type": "[Tag]"}}},
    },
}
PAGE = 1000


def page(first: int, users: int) -> List[Dict[str, Any]]:
    return [{"id": i, "title": f"post {i}", "score": i * 0.5,
             "author": {"id": i % users, "login": f"user {i % users}"},
             "tags": [f"tag {i % 1000}", f"tag {(i * 7) % 1000}"]}
            for i in range(first, first + PAGE)]


def rss_mb() -> float:
    """The process's peak RSS in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def import_pages(path: str, n: int) -> None:
    schema = strata.Schema(SCHEMA_DOC)
    users = max(n // 100, 1)
    times: List[float] = []
    with schema.context(path) as ctx:
        for first in range(0, n, PAGE):
            data = page(first, users)
            start = time.perf_counter()
            ctx.import_("Post", data)
            times.append(time.perf_counter() - start)
        assert ctx.count("Post") == n
    report_pages("graph_pages", times)
    print(f"rss graph_pages_peak_mb {rss_mb():.0f}")


def report_pages(name: str, times: List[float]) -> None:
    """The mean time of a page in the first and the last tenth, the total, and their ratio."""
    tenth = max(len(times) // 10, 1)
    head = sum(times[:tenth]) / tenth
    tail = sum(times[-tenth:]) / tenth
    print(f"time {name}_first_tenth_per_page {head:.6f} {head:.6f} {tenth}")
    print(f"time {name}_last_tenth_per_page {tail:.6f} {tail:.6f} {tenth}")
    print(f"time {name}_total {sum(times):.6f} {sum(times):.6f} 1")
    print(f"ratio {name}_last_over_first {tail / head:.2f}")
    # the mean time of a page in each tenth, in ms: where the growth is
    tenths = [sum(times[i * tenth:(i + 1) * tenth]) / tenth * 1000 for i in range(min(10, len(times) // tenth))]
    print(f"info {name}_per_page_by_tenth_ms " + " ".join(f"{t:.1f}" for t in tenths))


def peer_pages(folder: str, n: int) -> None:
    """The hand-written way: the same pages into the same tables, sqlite3 alone."""
    made = os.path.join(folder, "tables.db")
    with strata.Schema(SCHEMA_DOC).context(made) as ctx:  # Strata makes the tables; one record is enough
        ctx.import_("Post", page(0, 1)[:1])
    source = sqlite3.connect(made)
    tables = [row[0] for row in source.execute(
        "SELECT sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql NOT NULL AND name <> 'strata_meta'")]
    columns = {name: [row[1] for row in source.execute(f'PRAGMA table_info("{name}")')]
               for name in ("User", "Tag", "Post")}
    source.close()

    def upsert(table: str, key: str) -> str:
        return upsert_sql(f'"{table}"', key, columns[table])

    assert columns["Post"] == ["id", "strata_type", "strata_stub", "strata_extra", "title", "score", "author"], columns
    user_sql, tag_sql, post_sql = upsert("User", "id"), upsert("Tag", "name"), upsert("Post", "id")
    db = sqlite3.connect(os.path.join(folder, "peer.db"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    for statement in tables:
        db.execute(statement)
    users = max(n // 100, 1)
    next_position: Dict[int, int] = {}
    times: List[float] = []
    for first in range(0, n, PAGE):
        data = page(first, users)
        start = time.perf_counter()
        user_rows: Dict[int, tuple] = {}
        tag_rows: Dict[str, tuple] = {}
        post_rows, post_tags, user_posts = [], [], []
        for post in data:
            author = post["author"]
            user_rows[author["id"]] = (author["id"], "User", 0, None, author["login"])
            for position, tag in enumerate(post["tags"]):
                tag_rows[tag] = (tag, "Tag", 0, None)
                post_tags.append((post["id"], position, tag))
            post_rows.append((post["id"], "Post", 0, None, post["title"], post["score"], author["id"]))
            position = next_position.get(author["id"], 0)
            next_position[author["id"]] = position + 1
            user_posts.append((author["id"], position, post["id"]))
        db.execute("BEGIN IMMEDIATE")
        db.executemany(user_sql, user_rows.values())
        db.executemany(tag_sql, tag_rows.values())
        db.executemany(post_sql, post_rows)
        db.executemany('INSERT INTO "Post.tags"("owner", "position", "target") VALUES(?, ?, ?)', post_tags)
        db.executemany('INSERT INTO "User.posts"("owner", "position", "target") VALUES(?, ?, ?)', user_posts)
        db.execute("COMMIT")
        times.append(time.perf_counter() - start)
    db.close()
    report_pages("graph_pages_peer", times)


def open_and_read(path: str, n: int) -> None:
    """In a fresh process: open the file, then cold and warm reads by key."""
    base = current_rss_mb()
    schema = strata.Schema(SCHEMA_DOC)
    start = time.perf_counter()
    ctx = schema.context(path)
    opened = time.perf_counter() - start
    added = current_rss_mb() - base
    print(f"time graph_pages_open {opened:.6f} {opened:.6f} 1")
    print(f"rss graph_pages_open_added_mb {added:.1f}")
    keys = random.Random(7).sample(range(n), max(n // 10, 1))
    ctx.cache_limit = 2 * len(keys) + 20_000  # the keys read and the records they link to stay cached
    start = time.perf_counter()
    for key in keys:
        ctx.get("Post", key)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    for key in keys:
        ctx.get("Post", key)
    warm = time.perf_counter() - start
    start = time.perf_counter()
    with ctx.reading():  # one snapshot: no check of the file per call
        for key in keys:
            ctx.get("Post", key)
    block = time.perf_counter() - start
    print(f"rate graph_pages_get_cold_per_s {len(keys) / cold:.0f}")
    print(f"rate graph_pages_get_warm_per_s {len(keys) / warm:.0f}")
    print(f"rate graph_pages_get_warm_read_block_per_s {len(keys) / block:.0f}")
    ctx.close()


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--read":
        open_and_read(sys.argv[2], int(sys.argv[3]))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "pages.db")
        import_pages(path, n)
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__, "--read", path, str(n)], check=True)
        sys.stdout.flush()
        reader = os.environ.get("BENCH_GRAPH_OPEN")
        if reader and os.access(reader, os.X_OK):
            # the same file from C (Benchmarks/c/bench_graph_open.c): open, cold and cached gets, SQLite alone
            schema_path = os.path.join(folder, "schema.json")
            with open(schema_path, "w") as out:
                json.dump(SCHEMA_DOC, out)
            subprocess.run([reader, path, schema_path, "Post", str(n), "3"], check=True)
            sys.stdout.flush()
        peer_pages(folder, n)
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
