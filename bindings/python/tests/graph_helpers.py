"""What the differential tests of the graph share (test_graph_read_ahead.py,
test_graph_postgres.py, test_graph_shared_objects.py): every record of a
graph as plain data, and random pages of posts for examples/graph."""

from __future__ import annotations

import random
from typing import Any, Dict, List, Sequence

import strata


def dump(ctx: strata.Context, models: Sequence[str]) -> Dict[str, Any]:
    """Each model's records in key order: key, whether a stub, and values
    (relationships as keys)."""
    return {
        model: [{"key": r.key, "stub": r.is_stub, "values": r.to_dict(nested=False)} for r in ctx.all(model)]
        for model in models
    }


def random_posts(rng: random.Random, number: int, count: int, *, ids: int, users: int, tags: int,
                 long_tags: float = 0.0) -> List[Dict[str, Any]]:
    """``count`` posts of examples/graph's schema for page ``number``: ids
    from 1 to ``ids``, most with an author of ``users`` (its login varying),
    many with up to three tags of ``tags`` names as bare keys or objects; with
    ``long_tags``, that share of the posts instead name 120-300 tags."""
    posts: List[Dict[str, Any]] = []
    for _ in range(count):
        post: Dict[str, Any] = {"id": rng.randint(1, ids), "title": f"t{number}.{rng.randint(0, 9)}"}
        if rng.random() < 0.9:
            user = rng.randint(1, users)
            post["author"] = {"id": user, "login": f"u{user}.{rng.randint(0, 2)}"}
        if long_tags and rng.random() < long_tags:
            post["tags"] = [f"n{rng.randint(1, 400)}" for _ in range(rng.randint(120, 300))]
        elif rng.random() < 0.7:
            post["tags"] = [rng.choice([f"n{rng.randint(1, tags)}", {"name": f"n{rng.randint(1, tags)}", "color": "c"}])
                            for _ in range(rng.randint(0, 3))]
        posts.append(post)
    return posts
