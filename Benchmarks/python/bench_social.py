#!/usr/bin/env python3
"""The Python side of the social payload (Benchmarks/README.md, "The social
payload"): the same 12 fields of each status decoded by msgspec (dates as
strings, and as datetime), pydantic v2 (strict), and Strata's Python binding
(`map_many(bytes)`, `map_lines` on the lines file).

Output is one fact a line (as bench_python.py):
  time <key> <best seconds> <median seconds> <repetitions>  (MB/s)

    python3 bench_social.py PAYLOAD LINES SCHEMA [REPETITIONS]
"""

import datetime
import gc
import os
import statistics
import sys
import time
from typing import Optional


def measure(fn, reps):
    fn()  # warm-up, not counted
    times = []
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        del result
    return min(times), statistics.median(times)


def report(key, best_median, reps, size):
    best, median = best_median
    print("time %s %.6f %.6f %d  (%.1f MB/s)" % (key, best, median, reps, size / 1e6 / best), flush=True)


def import_strata():
    """The binding of this checkout, on build/libstrata.so unless STRATA_LIBRARY names one."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "bindings", "python"))
    if not os.environ.get("STRATA_LIBRARY"):
        lib = os.path.join(here, "..", "..", "build", "libstrata.so")
        if os.path.exists(lib):
            os.environ["STRATA_LIBRARY"] = os.path.abspath(lib)
    import strata

    return strata


def msgspec_types(date_type):
    import msgspec

    class User(msgspec.Struct):
        id: int
        screen_name: str

    class Status(msgspec.Struct):
        id: int
        text: str
        created_at: date_type
        lang: str
        retweet_count: int
        favorite_count: int
        reply_count: int
        in_reply_to_status_id: Optional[int]
        possibly_sensitive: bool
        user: User
        edited_at: Optional[date_type] = None

    return msgspec.json.Decoder(list[Status])


def pydantic_adapter():
    from pydantic import BaseModel, ConfigDict, TypeAdapter

    class Base(BaseModel):
        model_config = ConfigDict(strict=False)  # strict=True refuses datetime from a JSON string

    class User(Base):
        id: int
        screen_name: str

    class Status(Base):
        id: int
        text: str
        created_at: datetime.datetime
        edited_at: Optional[datetime.datetime] = None
        lang: str
        retweet_count: int
        favorite_count: int
        reply_count: int
        in_reply_to_status_id: Optional[int]
        possibly_sensitive: bool
        user: User

    return TypeAdapter(list[Status])


def main(argv):
    payload, lines, schema_path = argv[1], argv[2], argv[3]
    reps = int(argv[4]) if len(argv) > 4 else 5
    raw = open(payload, "rb").read()
    size = len(raw)
    lines_size = os.path.getsize(lines)

    try:
        dec = msgspec_types(str)
        report("social_msgspec_str_dates", measure(lambda: dec.decode(raw), reps), reps, size)
        dec_dt = msgspec_types(datetime.datetime)
        report("social_msgspec_datetime", measure(lambda: dec_dt.decode(raw), reps), reps, size)
    except ImportError:
        print("info social_msgspec not installed")
    try:
        adapter = pydantic_adapter()
        report("social_pydantic", measure(lambda: adapter.validate_json(raw), reps), reps, size)
    except ImportError:
        print("info social_pydantic not installed")

    strata = import_strata()
    schema = strata.Schema.from_file(schema_path)
    report("social_python_map_many_bytes", measure(lambda: schema.map_many("Status", raw), reps), reps, size)

    def lines_run():
        with open(lines, "rb") as f:
            return sum(1 for _ in schema.map_lines("Status", f))

    report("social_python_map_lines_file", measure(lines_run, reps), reps, lines_size)


if __name__ == "__main__":
    main(sys.argv)
