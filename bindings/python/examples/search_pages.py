#!/usr/bin/env python3
"""Maps a paged search API response page by page with Schema.map_response.

Usage:
    python3 bindings/python/examples/search_pages.py [EXAMPLE-DIR]

EXAMPLE-DIR defaults to examples/search (relative to the repository root):
its schema.json declares Status with ``"root": "statuses"`` and search
metadata with a ``nextResults`` cursor; page-1.json ... are the pages (a
real client would GET the cursor; here the next file is read), and the last
page has no cursor. error.json is an API error body, which must not pass for
an empty page.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent.parent
sys.path.insert(0, str(HERE.parent))  # run from a checkout without installing

import strata  # noqa: E402


def pages(schema: strata.Schema, folder: Path) -> Iterator[strata.Response]:
    """Each page's response, following the cursor until the last page."""
    number = 1
    while True:
        body = (folder / f"page-{number}.json").read_bytes()  # the body as the server sent it
        response = schema.map_response("Status", body)
        yield response
        cursor = response.metadata.get("nextResults") if response.metadata else None
        if cursor is None:
            return
        print(f"  next page: {cursor}")
        number += 1


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT / "examples" / "search"
    schema = strata.Schema.from_file(folder / "schema.json")
    total = 0
    number = 0
    for number, response in enumerate(pages(schema, folder), 1):
        print(f"page {number}: {len(response)} statuses")
        for status in response:
            print(f"  {status['id']} @{status['user']['screenName']}: {status['text']}")
        total += len(response)
    print(f"{total} statuses on {number} pages")

    try:
        schema.map_response("Status", (folder / "error.json").read_bytes())
    except strata.MappingError as error:
        first = error.errors[0]
        print(f"error body: {first['code']} at {first['path']!r} ({first['model']}): {first['message']}")
    else:
        print("an error body mapped to statuses", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
