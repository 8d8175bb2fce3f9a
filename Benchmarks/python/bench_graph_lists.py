"""Long to-many lists in a graph file: the cost must be linear in the length
of a list and in the number of imports (issue "The graph lives in the
database"). Three imports of N posts into a new file, from Python:

- spread: N posts by N/100 authors, in one import (the baseline);
- one author, one import: N posts by one author (one list of N);
- one author, N/100 imports: the same posts in imports of 100 posts each
  (the author's list grows by 100 per import).

Target: each of the last two <= 2x the first. After the first, a query by
an indexed property that returns 100 records (the posts of one author,
newest first: `author` is a foreign key, indexed; `title` ordered), timed
over 200 queries: target <= 1 ms each.

usage: bench_graph_lists.py [N] [REPS]   (N defaults to 100000)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bindings", "python"))
import strata  # noqa: E402

SCHEMA = strata.Schema({
    "strata": 1,
    "models": {
        "User": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "login": {"type": "string"},
            "posts": {"type": "[Post]", "inverse": "author", "json": False}}},
        "Post": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "title": {"type": "string"}, "author": {"type": "User?", "inverse": "posts"}}},
    },
})


def posts(first: int, count: int, authors: int) -> List[Dict[str, Any]]:
    return [{"id": i, "title": f"post {i}", "author": {"id": i % authors, "login": f"u{i % authors}"}}
            for i in range(first, first + count)]


QUERY_TIMES: List[float] = []


def timed(n: int, authors: int, per_import: int) -> float:
    folder = tempfile.mkdtemp()
    try:
        pages = [posts(first, min(per_import, n - first), authors) for first in range(0, n, per_import)]
        with SCHEMA.context(os.path.join(folder, "g.db")) as ctx:
            start = time.perf_counter()
            for page in pages:
                ctx.import_("Post", page)
            took = time.perf_counter() - start
            assert ctx.count("Post") == n
            if authors > 1:
                start = time.perf_counter()
                for author in range(200):
                    found = ctx.query("Post", {"author": author % authors}, order_by=["-title"], limit=100)
                    assert len(found) == min(100, n // authors)
                QUERY_TIMES.append((time.perf_counter() - start) / 200)
        return took
    finally:
        shutil.rmtree(folder)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rows = [
        ("graph_lists_spread", n // 100, n),
        ("graph_lists_one_author_one_import", 1, n),
        ("graph_lists_one_author_many_imports", 1, 100),
    ]
    best: Dict[str, float] = {}
    for name, authors, per_import in rows:
        times = sorted(timed(n, authors, per_import) for _ in range(reps))
        best[name] = times[0]
        print(f"time {name} {times[0]:.6f} {times[len(times) // 2]:.6f} {reps}")
    print(f"time graph_query_indexed_100 {min(QUERY_TIMES):.6f} {max(QUERY_TIMES):.6f} {len(QUERY_TIMES)}")
    base = best["graph_lists_spread"]
    for name in ("graph_lists_one_author_one_import", "graph_lists_one_author_many_imports"):
        print(f"ratio {name.removeprefix('graph_lists_')}/spread {best[name] / base:.2f} (target <= 2.0)")


if __name__ == "__main__":
    main()
