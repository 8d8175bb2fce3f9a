#!/usr/bin/env python3
"""Imports a folder of JSON-lines pages into one PostgreSQL graph with
dask.distributed, then queries it.

    python3 examples/dask/import_graph.py PAGES_DIR URL
        [--schema examples/graph/schema.json] [--model Post]
        [--workers 4] [--scheduler ADDRESS]

Each line of a ``*.jsonl`` file of PAGES_DIR is one API response (a page).
One task per file: it opens a graph context on URL (a ``postgresql://`` URL,
docs/graph.md "PostgreSQL") and imports the file's pages one after the other,
each page one transaction. The tasks run at once on the workers and their
pages name the same users and tags: the graph's write lock makes the imports
take turns, and every record stays one record with every inverse whole. A
page that fails (bad JSON, a bad value) is reported with its file and line
and changes nothing. The client then checks the graph's invariants
(``Context.check``) and prints the counts and the users with most posts.
Exit status 1 when a page failed.

Without --scheduler a LocalCluster of --workers processes (one thread each)
runs here, set up as map_folder.py's.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import strata
from map_folder import local_cluster

HERE = Path(__file__).resolve().parent
EXAMPLE_SCHEMA = HERE.parent / "graph" / "schema.json"


@dataclass
class FileResult:
    """What one task hands back: its file, how many pages it imported and
    the records they made and changed, and the errors of its failed pages."""

    file: str
    pages: int = 0
    created: Dict[str, int] = field(default_factory=dict)
    updated: Dict[str, int] = field(default_factory=dict)
    errors: List[Dict[str, Any]] = field(default_factory=list)


def import_file(schema: strata.Schema, model: str, path: str, url: str) -> FileResult:
    """Imports the pages of one JSON-lines file into the graph at ``url``
    (runs on a worker): each line one import, one transaction."""
    result = FileResult(Path(path).name)
    with schema.context(url) as ctx, open(path, "rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                imported = ctx.import_(model, line.rstrip(b"\r\n"))
            except strata.MappingError as failure:
                for error in failure.errors:
                    result.errors.append({"file": result.file, "line": number, **error})
                continue
            result.pages += 1
            for name, count in imported.created.items():
                result.created[name] = result.created.get(name, 0) + count
            for name, count in imported.updated.items():
                result.updated[name] = result.updated.get(name, 0) + count
    return result


def import_folder(client: Any, schema: strata.Schema, model: str, folder: Path, url: str) -> List[FileResult]:
    """Submits one task per ``*.jsonl`` file of ``folder`` and gathers their results."""
    # the tables are made once here, before the tasks race to them
    schema.context(url).close()
    files = sorted(str(path) for path in folder.glob("*.jsonl"))
    futures = [client.submit(import_file, schema, model, path, url, pure=False) for path in files]
    return list(client.gather(futures))


def summary(schema: strata.Schema, url: str, results: Sequence[FileResult]) -> List[str]:
    """The report: one line per file and failed page, then the graph's counts
    and its users with most posts, after checking its invariants."""
    out = []
    for result in results:
        out.append(f"{result.file}: {result.pages} pages, {len(result.errors)} errors")
    for result in results:
        for error in result.errors:
            out.append(f"{error['file']}:{error['line']}: {error['code']} at {error['path'] or '/'}: {error['message']}")
    with schema.context(url) as ctx:
        ctx.check()  # every record maps under its schema, every inverse holds
        counts = ", ".join(f"{ctx.count(name)} {name}" for name in ("Post", "User", "Tag"))
        out.append(f"graph: {counts}")
        authors = sorted(ctx.all("User"), key=lambda user: (-len(user["posts"]), user.key))[:3]
        out.append("most posts: " + ", ".join(f"{user['login']} {len(user['posts'])}" for user in authors))
        sun = ctx.count("Post", where={"tags.name": "sun"})
        out.append(f"posts tagged sun: {sun}")
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", type=Path, help="the folder of *.jsonl pages")
    parser.add_argument("url", help="the graph: a postgresql:// URL (or an SQLite file)")
    parser.add_argument("--schema", type=Path, default=EXAMPLE_SCHEMA)
    parser.add_argument("--model", default="Post")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--scheduler", help="the address of a running scheduler (else a LocalCluster)")
    args = parser.parse_args(argv)
    from distributed import Client

    schema = strata.Schema.from_file(str(args.schema))
    cluster = None if args.scheduler else local_cluster(args.workers)
    with Client(args.scheduler or cluster) as client:
        results = import_folder(client, schema, args.model, args.pages, args.url)
    if cluster is not None:
        cluster.close()
    for line in summary(schema, args.url, results):
        print(line)
    return 1 if any(result.errors for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
