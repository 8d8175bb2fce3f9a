"""Reading a graph file through a memory map (docs/graph.md, "Reading
through a memory map"): ``Context.memory_map`` asks SQLite's mmap_size, and
a mapped context reads what a context reading with pread reads, while the
file grows past the map and while SQLite itself cuts it short."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest

import strata
from graph_helpers import dump, random_posts

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = ROOT / "examples" / "graph" / "schema.json"
MODELS = ("Post", "User", "Tag")


def test_the_memory_map_is_asked_read_and_turned_off(tmp_path: Path) -> None:
    schema = strata.Schema.from_file(str(SCHEMA))
    with schema.context(str(tmp_path / "g.db")) as ctx:
        assert ctx.memory_map == 0
        ctx.memory_map = 1 << 26
        assert ctx.memory_map == 1 << 26
        ctx.import_("Post", {"data": {"posts": [{"id": 1, "title": "a", "author": {"id": 1, "login": "u"}}]}})
        assert ctx.get("Post", 1)["title"] == "a"
        ctx.memory_map = 0
        assert ctx.memory_map == 0
        with pytest.raises(ValueError):
            ctx.memory_map = -1
        with pytest.raises(TypeError):
            ctx.memory_map = "1M"  # type: ignore[assignment]
        with pytest.raises(TypeError):
            ctx.memory_map = True
        with ctx.reading():
            with pytest.raises(strata.StrataError, match="read block"):
                ctx.memory_map = 1 << 20
        ctx.memory_map = 1 << 20
        assert ctx.memory_map == 1 << 20
    with pytest.raises(ValueError, match="closed"):
        ctx.memory_map = 1 << 20
    with schema.context() as memory:  # in memory nothing is mapped
        memory.memory_map = 1 << 20
        assert memory.memory_map == 0


@pytest.mark.parametrize("seed", range(3))
def test_a_mapped_context_reads_what_pread_reads(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    schema = strata.Schema.from_file(str(SCHEMA))
    path = str(tmp_path / "g.db")
    shortened = 0
    with schema.context(path) as writer, schema.context(path) as mapped:
        mapped.memory_map = 64 * 1024  # smaller than the file will be: pages past it are read with pread
        mapped.cache_limit = rng.choice([0, 20])
        for step in range(40):
            action = rng.randrange(10)
            if action <= 4:
                posts = random_posts(rng, step, 40, ids=300, users=8, tags=30)
                for post in posts:
                    post["title"] = post["title"] + " " + "x" * 200
                writer.import_("Post", {"data": {"posts": posts}})
            elif action == 5:
                mapped.import_("Post", {"data": {"posts": random_posts(rng, step, 3, ids=300, users=8, tags=30)}})
            elif action == 6:
                post = writer.get("Post", rng.randint(1, 300))
                if post is not None:
                    writer.delete(post)
            elif action in (7, 8):
                time.sleep(0.012)  # the contexts' open reads end
                db = sqlite3.connect(path, isolation_level=None)
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log's pages into the file, under the map
                if action == 7:  # another program shortens the titles and has SQLite cut the file short
                    before = Path(path).stat().st_size
                    db.execute('UPDATE "Post" SET "title" = substr("title", 1, 3)')
                    db.execute("VACUUM")
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    shortened += Path(path).stat().st_size < before
                db.close()
            with schema.context(path) as plain:
                expected = dump(plain, MODELS)
            assert dump(mapped, MODELS) == expected, f"step {step}"
            mapped.check()
        assert mapped.memory_map == 64 * 1024
    assert shortened > 0, "the file was never cut short under the map"
