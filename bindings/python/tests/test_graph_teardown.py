"""Closing a large graph (docs/graph.md, "Closing"): a context of 5,000
records or more frees them on a helper thread, so close() returns at once.
The invariants: the record handles a caller holds read as before the close;
a process that exits right after closing waits for the helper and exits
cleanly; a child made by fork() while a helper frees neither hangs at exit
nor loses its own graphs; file contexts closed this way leave a file that
reopens whole."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import strata

import graph_helpers

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_PATH = ROOT / "examples" / "graph" / "schema.json"
SCHEMA = strata.Schema.from_file(str(SCHEMA_PATH))
MODELS = ["User", "Post", "Tag"]


def big_page(seed: int, count: int = 7000) -> bytes:
    posts = graph_helpers.random_posts(random.Random(seed), 0, count, ids=count * 2, users=50, tags=30)
    return json.dumps({"data": {"posts": posts}}).encode()


def test_handles_read_as_before_after_a_large_context_closes(tmp_path: Path) -> None:
    for path in (None, str(tmp_path / "g.db")):
        ctx = SCHEMA.context(path)
        ctx.import_("Post", big_page(1))
        assert ctx.count("Post") + ctx.count("User") + ctx.count("Tag") >= 5000
        held = ctx.all("Post")[:200] + ctx.all("User")
        before = [(record.key, record.to_dict(nested=False)) for record in held]
        want = graph_helpers.dump(ctx, MODELS)
        ctx.close()
        assert [(record.key, record.to_dict(nested=False)) for record in held] == before
        if path is not None:
            with SCHEMA.context(path) as reopened:
                assert graph_helpers.dump(reopened, MODELS) == want
                reopened.check()


def test_many_large_contexts_closed_one_after_another() -> None:
    page = big_page(2, 5000)
    for _ in range(6):
        with SCHEMA.context() as ctx:
            ctx.import_("Post", page)
    with SCHEMA.context() as ctx:
        ctx.import_("Post", page)
        ctx.check()


def run(script: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "bindings" / "python"), str(Path(__file__).parent)])
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)


PRELUDE = f"""
import json, os, random, sys
import strata, graph_helpers
schema = strata.Schema.from_file({str(SCHEMA_PATH)!r})
posts = graph_helpers.random_posts(random.Random(3), 0, 7000, ids=14000, users=50, tags=30)
page = json.dumps({{"data": {{"posts": posts}}}}).encode()
"""


def test_a_process_that_exits_right_after_closing_exits_cleanly() -> None:
    done = run(PRELUDE + """
ctx = schema.context()
ctx.import_("Post", page)
ctx.close()
print("closed")
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "closed"


def test_a_child_forked_while_a_large_graph_is_freed_works_and_exits() -> None:
    done = run(PRELUDE + """
ctx = schema.context()
ctx.import_("Post", page)
ctx.close()
pid = os.fork()
if pid == 0:
    child = schema.context()
    child.import_("Post", page)
    ok = child.count("Post") > 5000
    child.close()
    sys.exit(0 if ok else 3)  # exits through atexit: waits for the child's own helper only
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "child 0"
