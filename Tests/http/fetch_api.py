#!/usr/bin/env python3
"""The test API every face's fetch tests run against: an HTTP server on a
free port of 127.0.0.1 (http.server) serving pages of search responses
with next links in the body (`/search`, an ETag per page and 304s), Link
headers (`/links`), cursors (`/cursor`), no validators (`/plain`), a 500
(`/error`), a slow page (`/slow`) and a truncated body (`/truncated`).

The Python suite imports `Server` and `Handler`. As a program it serves
while PROGRAM runs with the base URL in the environment
(STRATA_TEST_HTTP_URL), and exits with the program's status:

    fetch_api.py PROGRAM [ARGS...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlparse

PAGES = 3
PER_PAGE = 4


def statuses(page: int) -> List[Dict[str, Any]]:
    first = (page - 1) * PER_PAGE + 1
    return [{"id": n, "text": f"tweet {n}", "user": {"id": n % 2, "name": f"user{n % 2}"}}
            for n in range(first, first + PER_PAGE)]


class Handler(BaseHTTPRequestHandler):
    """The test API. Every request is logged in ``server.log`` as (path, headers)."""

    server: "Server"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def answer(self, status: int, body: bytes, headers: Optional[Dict[str, str]] = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        url = urlparse(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        self.server.log.append((self.path, dict(self.headers.items())))
        page = int(query.get("page", "1"))
        if url.path == "/search":
            # a relative next link, as Twitter's v1.1 search gave it; an ETag per page
            etag = f'"search-{page}-{self.server.version}"'
            if self.headers.get("If-None-Match") == etag:
                self.answer(304, b"", {"ETag": etag})
                return
            meta = {"count": PER_PAGE, "next_results": f"?page={page + 1}&q=a" if page < PAGES else None}
            body = json.dumps({"statuses": statuses(page), "search_metadata": meta}).encode()
            self.answer(200, body, {"ETag": etag, "Content-Type": "application/json"})
        elif url.path == "/plain":
            # no validators: the same body every time
            self.answer(200, json.dumps({"statuses": statuses(1), "search_metadata": {"count": 4}}).encode())
        elif url.path == "/links":
            headers = {}
            if page < PAGES:
                headers["Link"] = (f'<http://{self.headers["Host"]}/links?page={page + 1}>; rel="next", '
                                   f'<http://{self.headers["Host"]}/links?page={PAGES}>; rel="last"')
            self.answer(200, json.dumps(statuses(page)).encode(), headers)
        elif url.path == "/cursor":
            position = int(query.get("cursor", "0"))
            rows = statuses(position + 1)
            cursor = str(position + 1) if position + 1 < PAGES else None
            self.answer(200, json.dumps({"data": rows, "meta": {"cursor": cursor}}).encode())
        elif url.path == "/error":
            self.answer(500, b"boom: the database is down")
        elif url.path == "/slow":
            time.sleep(0.3)
            self.answer(200, json.dumps({"statuses": statuses(1), "search_metadata": {"count": 4}}).encode())
        elif url.path == "/truncated":
            self.answer(200, b'{"statuses": [{"id": 1, "text": "cut')
        else:
            self.answer(404, b"no such page")


class Server(ThreadingHTTPServer):
    log: List[Tuple[str, Dict[str, str]]]
    version: int




def serve() -> Server:
    """A server in a thread of its own, answering at once."""
    made = Server(("127.0.0.1", 0), Handler)
    made.log = []
    made.version = 1
    threading.Thread(target=made.serve_forever, daemon=True).start()
    return made


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    server = serve()
    try:
        environment = dict(os.environ, STRATA_TEST_HTTP_URL=f"http://127.0.0.1:{server.server_address[1]}")
        return subprocess.run(sys.argv[1:], env=environment).returncode
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
