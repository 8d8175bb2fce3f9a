#!/usr/bin/env python3
"""The Python peers of the Strata benchmark: pydantic v2 and msgspec.

Both decode the payload's bytes straight into typed objects of the same
shape as Benchmarks/schema.json (same fields, same nesting):

  pydantic   TypeAdapter(list[GHIssue]).validate_json(raw), strict models
  msgspec    msgspec.json.Decoder(list[GHIssue]).decode(raw), Structs
  json       json.loads(raw), the standard library, plain dicts (for reference)
  strata     strata.Schema.from_file(SCHEMA).map_many("GHIssue", raw), the
             ctypes binding of bindings/python (for reference; only when SCHEMA
             is given and libstrata.so is found: $STRATA_LIBRARY or build/)

Output is one fact a line, for Benchmarks/run.py to read:
  time <key> <best seconds> <median seconds> <repetitions>
  info <key> <text>

    python3 bench_python.py PAYLOAD [REPETITIONS [SCHEMA]]
"""

import gc
import json
import os
import statistics
import sys
import time
from typing import Any, Literal, Optional

State = Literal["open", "closed"]


def pydantic_models():
    from pydantic import BaseModel, ConfigDict, TypeAdapter

    # strict: an int field takes only a JSON integer, a str field only a JSON
    # string - as Strata, Codable and msgspec do (lax mode would accept "3").
    class Base(BaseModel):
        model_config = ConfigDict(strict=True)

    class GHUser(Base):
        login: str
        id: int
        avatar_url: str
        site_admin: bool

    class GHLabel(Base):
        id: int
        name: str
        color: str
        default: bool
        description: Optional[str]

    class GHMilestone(Base):
        url: str
        id: int
        number: int
        title: str
        description: Optional[str]
        state: State
        open_issues: int
        closed_issues: int
        created_at: str
        due_on: Optional[str]

    class GHIssue(Base):
        url: str
        html_url: str
        id: int
        number: int
        title: str
        user: GHUser
        labels: list[GHLabel]
        state: State
        locked: bool
        assignee: Optional[GHUser]
        milestone: Optional[GHMilestone]
        comments: int
        created_at: str
        updated_at: str
        closed_at: Optional[str]
        body: Optional[str]
        score: float
        reactions: Any

    return TypeAdapter(list[GHIssue])


def msgspec_decoder():
    import msgspec

    class GHUser(msgspec.Struct):
        login: str
        id: int
        avatar_url: str
        site_admin: bool

    class GHLabel(msgspec.Struct):
        id: int
        name: str
        color: str
        default: bool
        description: Optional[str]

    class GHMilestone(msgspec.Struct):
        url: str
        id: int
        number: int
        title: str
        description: Optional[str]
        state: State
        open_issues: int
        closed_issues: int
        created_at: str
        due_on: Optional[str]

    class GHIssue(msgspec.Struct):
        url: str
        html_url: str
        id: int
        number: int
        title: str
        user: GHUser
        labels: list[GHLabel]
        state: State
        locked: bool
        assignee: Optional[GHUser]
        milestone: Optional[GHMilestone]
        comments: int
        created_at: str
        updated_at: str
        closed_at: Optional[str]
        body: Optional[str]
        score: float
        reactions: Any

    return msgspec.json.Decoder(list[GHIssue])


def bench(key, fn, raw, reps, check):
    times = []
    for r in range(reps + 1):  # repetition 0 is the warm-up
        gc.collect()
        t0 = time.perf_counter()
        out = fn(raw)
        t = time.perf_counter() - t0
        if r == 0:
            check(out)
        else:
            times.append(t)
        del out
    print("time %s %.9f %.9f %d" % (key, min(times), statistics.median(times), reps), flush=True)


def get_number(raw):
    return json.loads(raw)[0]["number"]


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], "rb") as f:
        raw = f.read()
    reps = int(argv[1]) if len(argv) > 1 else 5
    print("info python %s" % sys.version.split()[0])

    number = get_number(raw)

    def check(out):
        first = out[0]
        get = (lambda o, k: o[k]) if isinstance(first, dict) else getattr
        assert get(first, "number") == number, "unexpected first issue"
        assert all(get(get(x, "user"), "login") for x in out)

    bench("stdlib_json", json.loads, raw, reps, check)

    try:
        import msgspec

        print("info msgspec %s" % msgspec.__version__)
        bench("msgspec", msgspec_decoder().decode, raw, reps, check)
    except ImportError as e:
        print("info msgspec missing: %s" % e)

    try:
        import pydantic

        print("info pydantic %s" % pydantic.VERSION)
        bench("pydantic", pydantic_models().validate_json, raw, reps, check)
    except ImportError as e:
        print("info pydantic missing: %s" % e)

    if len(argv) > 2:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        sys.path.insert(0, os.path.join(root, "bindings", "python"))
        try:
            import strata
        except ImportError as e:
            print("info py_strata missing: %s" % str(e).splitlines()[0])
        else:
            schema = strata.Schema.from_file(argv[2])
            print("info py_strata_library %s" % os.environ.get("STRATA_LIBRARY", "(found by the package)"))

            def check_models(out):
                assert out and out[0]["number"] == get_number(raw), "unexpected first model"

            bench("py_strata", lambda b: schema.map_many("GHIssue", b), raw, reps, check_models)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
