"""Objects repeated byte for byte (docs/graph.md, "Speed"): an import of a
top-level array builds an object of a keyed model once per text, and the
importer finds a record given again with the very object it last came from.
The invariant: the graph ends exactly as when nothing is shared. A schema
with a key injector shares nothing (the injector, the host's code, gets the
objects), so the same random pages go into a context of each schema; the
pages repeat users and tags byte for byte, and also with a value changed,
the keys in another order, other spacing, and keys the schema does not
read, at several depths."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Dict, List

import pytest

import strata

import graph_helpers

SCHEMA_DOC: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "User": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "login": {"type": "string"},
            "team": {"type": "Team?"},
            "posts": {"type": "[Post]", "inverse": "author", "json": False}}},
        "Team": {"primaryKey": "id", "properties": {"id": {"type": "int"}, "name": {"type": "string"},
                                                     "lead": {"type": "User?"}}},
        "Post": {"primaryKey": "id", "properties": {
            "id": {"type": "int"}, "title": {"type": "string"},
            "author": {"type": "User?", "inverse": "posts"},
            "reviewer": {"type": "User?"},
            "tags": {"type": "[Tag]", "default": []}}},
        "Tag": {"primaryKey": "name", "properties": {"name": {"type": "string"}, "color": {"type": "string?"}}},
        "Unused": {"primaryKey": "id", "properties": {"id": {"type": "int"}}},
    },
}
MODELS = ["User", "Team", "Post", "Tag"]


def dump(ctx: strata.Context) -> Dict[str, Any]:
    return graph_helpers.dump(ctx, MODELS)


def spelled(rng: random.Random, value: Dict[str, Any]) -> str:
    """`value` as JSON text, one of several spellings of it."""
    items = list(value.items())
    if rng.random() < 0.2:
        rng.shuffle(items)
    if rng.random() < 0.1:
        items.append(("unread", rng.randint(0, 2)))
    space = rng.choice(["", "", " "])
    return "{" + ("," + space).join(json.dumps(k) + ":" + space + v for k, v in
                                   ((k, v if isinstance(v, str) and v.startswith(("{", "[")) and k in ("team", "lead")
                                     else json.dumps(v)) for k, v in items)) + "}"


def user(rng: random.Random, depth: int = 0) -> str:
    number = rng.randint(1, 4)
    value: Dict[str, Any] = {"id": number, "login": f"u{number}.{rng.choice([0, 0, 0, 1])}"}
    if depth < 2 and rng.random() < 0.4:
        team = {"id": rng.randint(1, 2), "name": rng.choice(["red", "red", "blue"])}
        if rng.random() < 0.5:
            team["lead"] = user(rng, depth + 1)
        value["team"] = spelled(rng, team)
    return spelled(rng, value)


def page(rng: random.Random, number: int) -> bytes:
    posts: List[str] = []
    for _ in range(rng.randint(1, 30)):
        parts = [f'"id":{rng.randint(1, 60)}', f'"title":"t{number}"']
        if rng.random() < 0.9:
            parts.append('"author":' + user(rng))
        if rng.random() < 0.3:
            parts.append('"reviewer":' + (user(rng) if rng.random() < 0.8 else "null"))
        if rng.random() < 0.7:
            tags = [spelled(rng, {"name": f"n{rng.randint(1, 5)}", "color": rng.choice(["c", "c", None])})
                    if rng.random() < 0.8 else json.dumps(f"n{rng.randint(1, 5)}") for _ in range(rng.randint(0, 4))]
            parts.append('"tags":[' + ",".join(tags) + "]")
        posts.append("{" + ",".join(parts) + "}")
    return ("[" + ",".join(posts) + "]").encode()


@pytest.mark.parametrize("seed", range(8))
def test_shared_objects_import_as_unshared_ones(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    shared = strata.Schema(SCHEMA_DOC)
    unshared = strata.Schema(SCHEMA_DOC, key_injectors={"Unused": lambda value, parent: value["id"]})
    contexts = [shared.context(), unshared.context(), shared.context(str(tmp_path / "g.db"))]
    try:
        for number in range(20):
            body = page(rng, number)
            json.loads(body)  # the generator writes valid JSON
            outcomes = []
            for ctx in contexts:
                try:
                    result = ctx.import_("Post", body)
                    outcomes.append((len(result), result.created, result.updated, result.unchanged))
                except strata.StrataError as error:
                    outcomes.append(("error", error.errors[0]["code"], error.errors[0]["path"]))
            assert outcomes[0] == outcomes[1] == outcomes[2], (number, outcomes)
        want = dump(contexts[1])
        assert want["Team"] and want["Tag"]
        assert dump(contexts[0]) == want
        assert dump(contexts[2]) == want
        for ctx in contexts:
            ctx.check()
    finally:
        for ctx in contexts:
            ctx.close()
