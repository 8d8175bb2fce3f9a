#!/usr/bin/env python3
"""Serves FOLDER on a free port of 127.0.0.1 (http.server: files, with
Last-Modified and 304 answers to If-Modified-Since) while PROGRAM runs with
the base URL as its last argument; exits with the program's status.

    with_http_server.py FOLDER PROGRAM [ARGS...]
"""
import functools
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def main() -> int:
    folder, program = sys.argv[1], sys.argv[2:]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        return subprocess.run(program + [base], timeout=120).returncode
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
