"""Reading ahead (docs/graph.md, "Many writers"): an import into a graph whose
cache does not hold the whole file (another context committed, the file was
not empty when opened, a small cache) reads the records its page names in a
few statements per table. The invariant: whatever the cache held, the graph
ends as the same imports give in memory. Random pages (seeded) of posts by
a few authors (lists far past the 16 targets a lazy read takes), with tags
as objects and as bare keys, go alternately through two contexts on one
file, one of them with a tiny cache, and into a memory context; every record
of the three, and of the file reopened, must be equal, and check() pass."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Dict

import pytest

import strata

import graph_helpers

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = strata.Schema.from_file(str(ROOT / "examples" / "graph" / "schema.json"))
MODELS = ["User", "Post", "Tag"]


def dump(ctx: strata.Context) -> Dict[str, Any]:
    return graph_helpers.dump(ctx, MODELS)


def page(rng: random.Random, number: int) -> Dict[str, Any]:
    posts = graph_helpers.random_posts(rng, number, rng.randint(1, 40), ids=150, users=4, tags=6)
    return {"data": {"posts": posts}}


@pytest.mark.parametrize("seed", range(6))
def test_imports_through_contexts_that_read_ahead_end_as_in_memory(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = str(tmp_path / "g.db")
    memory = SCHEMA.context()
    first = SCHEMA.context(path)
    second = SCHEMA.context(path)
    second.cache_limit = 3
    try:
        for number in range(30):
            body = page(rng, number)
            want_error = None
            try:
                memory.import_("Post", body)
            except strata.StrataError as error:
                want_error = error.errors[0]["code"]
            target = first if number % 2 == 0 else second
            if want_error is None:
                target.import_("Post", body)
            else:
                with pytest.raises(strata.StrataError) as raised:
                    target.import_("Post", body)
                assert raised.value.errors[0]["code"] == want_error
            if rng.random() < 0.15:
                post = memory.query("Post", limit=1)
                if post:
                    key = post[0].key
                    memory.delete(memory.get("Post", key))
                    victim = second if number % 2 == 0 else first
                    victim.delete(victim.get("Post", key))
        want = dump(memory)
        assert max(len(user["values"].get("posts", [])) for user in want["User"]) > 16
        assert dump(first) == want
        assert dump(second) == want
        first.check()
        second.check()
    finally:
        first.close()
        second.close()
    with SCHEMA.context(path) as reopened:
        assert dump(reopened) == want
        reopened.check()



@pytest.mark.parametrize("seed", range(3))
def test_pages_longer_than_a_read_ahead_window_end_as_in_memory(tmp_path: Path, seed: int) -> None:
    """A page is read ahead a window of 256 elements at a time: pages of
    several windows, whose later windows name records that earlier windows
    made, read or changed, end as in memory."""
    document = json.loads((ROOT / "examples" / "graph" / "schema.json").read_text())
    del document["models"]["Post"]["root"]  # a bare array of posts: read element by element
    schema = strata.Schema(document)
    rng = random.Random(seed)
    path = str(tmp_path / "g.db")
    memory = schema.context()
    with schema.context(path) as first:  # the file is not empty when the next context opens it
        first.import_("Post", page(rng, 0)["data"]["posts"])
    memory.import_("Post", page(random.Random(seed), 0)["data"]["posts"])
    with schema.context(path) as ctx:
        ctx.cache_limit = rng.choice([3, 50_000])
        for number in range(1, 4):
            posts = []
            for _ in range(rng.randint(300, 800)):
                posts.extend(page(rng, number)["data"]["posts"][:1])
            body = json.dumps(posts).encode()
            memory.import_("Post", body)
            ctx.import_("Post", body)
        want = dump(memory)
        assert dump(ctx) == want
        ctx.check()
    with schema.context(path) as reopened:
        assert dump(reopened) == want


def test_a_read_ahead_that_fails_in_a_long_page_fails_the_import_and_the_context_goes_on(tmp_path: Path) -> None:
    """A page long enough to be parsed on a helper thread while it is
    imported, whose read-ahead meets a stored record that does not fit the
    schema in a later window: the import fails with that record's `io`
    error, nothing of the page is kept, the parsed elements not imported are
    let go (once), and the context imports the next page."""
    import sqlite3

    document = json.loads((ROOT / "examples" / "graph" / "schema.json").read_text())
    del document["models"]["Post"]["root"]
    schema = strata.Schema(document)
    path = str(tmp_path / "g.db")
    with schema.context(path) as ctx:
        ctx.import_("Post", [{"id": 1, "title": "a", "author": {"id": 7, "login": "ann"}}])
    db = sqlite3.connect(path)
    db.execute("UPDATE User SET login = NULL WHERE id = 7")
    db.commit()
    db.close()
    filler = "x" * 200
    posts = [{"id": 10 + n, "title": filler, "author": {"id": 100 + n % 50, "login": "u"}} for n in range(3000)]
    posts[2000]["author"] = 7  # a later window names the damaged record
    for attempt in range(3):
        with schema.context(path) as ctx:
            ctx.cache_limit = 3
            with pytest.raises(strata.StrataError) as raised:
                ctx.import_("Post", json.dumps(posts).encode())
            assert raised.value.errors[0]["code"] == "io"
            assert "/User/7/login" in raised.value.errors[0]["path"]
            assert ctx.count("Post") == 1
            ctx.import_("Post", json.dumps(posts[:100]).encode())
            assert ctx.count("Post") == 101
        db = sqlite3.connect(path)
        db.execute("DELETE FROM Post WHERE id >= 10")
        db.commit()
        db.close()


CASCADE_SCHEMA = {
    "strata": 1,
    "version": 1,
    "models": {
        "A": {
            "primaryKey": "id",
            "properties": {
                "id": {"type": "int"},
                "r": {"type": "[A]", "merge": "append", "deleteRule": "cascade"},
            },
        }
    },
}


@pytest.mark.parametrize("cache", [None, 3, 0])
def test_a_delete_cascades_through_records_the_cache_let_go(tmp_path: Path, cache: Any) -> None:
    # Found by fuzz_graph (Tests/fuzz/regressions/graph/cascade-from-a-fault.bin):
    # with a small cache, a record the cascade reached was a fault, read
    # lazily, and its list showed none of the file's targets: the cascade
    # stopped there. The invariant: the same delete in memory and on a file
    # with any cache leaves the same graph.
    schema = strata.Schema(json.dumps(CASCADE_SCHEMA))
    chain = {"id": 0, "r": [{"id": 1, "r": [{"id": 2, "r": [{"id": 3}]}]}]}
    results = []
    for path in (None, str(tmp_path / "g.db")):
        ctx = schema.context(path) if path else schema.context()
        try:
            if path and cache is not None:
                ctx.cache_limit = cache
            ctx.import_("A", [chain, {"id": 9}])
            ctx.delete(ctx.get("A", 0))
            ctx.check()
            results.append(sorted(record.key for record in ctx.all("A")))
        finally:
            ctx.close()
    assert results == [[9], [9]]
