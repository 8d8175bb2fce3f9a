#!/usr/bin/env python3
"""The Python binding leaks nothing: RSS stays flat.

1. 100,000 models mapped and freed, each through the reading calls of the
   binding (map, errors, [], get, in, date, to_dict, to_json, copy, ==, hash),
   every tenth also through merge, update, diff, patch, merge_patch,
   archive/unarchive, map_many and repr: after a warm-up, the
   process's resident set may not grow by more than SLACK. One leaked json_t
   or model per iteration would be several MB.
2. The binding's own test suite (bindings/python/tests) run in this process
   again: after three warm-up runs (pytest and Python grow by several MB over
   those), the bytes malloc counts in use in all its arenas (`mallinfo2`)
   may not grow by more than SUITE_SLACK per run, nor the resident set by
   more than SUITE_RSS_SLACK. The two differ because the engine parses long
   pages and makes rows on helper threads, whose allocations live in glibc
   arenas of their own: tests that import long pages from several threads
   at once leave those arenas fragmented, and the resident set creeps
   (test_graph.py run 14 times in one process: 68 -> 89 MB, the bytes in
   use flat at 10.4 MB; 66 -> 73 MB before the helper threads). A leak
   grows the bytes in use.

Run by scripts/reliability with STRATA_LIBRARY=build/libstrata.so and
PYTHONPATH=bindings/python. Self-contained: uses only the public `strata`
package. Prints one line per check and exits 1 on a leak.

    python3 Tests/reliability/python_leaks.py [--models N] [--suite-runs N]
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import resource
import sys
from pathlib import Path

import strata

SLACK = 4 * 1024 * 1024
SUITE_SLACK = 4 * 1024 * 1024
SUITE_RSS_SLACK = 16 * 1024 * 1024

SCHEMA = {
    "strata": 1,
    "models": {
        "Issue": {
            "primaryKey": "number",
            "keys": "snake_case",
            "properties": {
                "number": {"type": "int", "required": True},
                "title": {"type": "string"},
                "state": {"type": "string", "enum": {"open": "OPEN", "closed": "CLOSED"}},
                "reporterLogin": {"type": "string", "json": "user.login"},
                "assignee": {"type": "User?"},
                "labels": {"type": "[Label]", "default": [], "merge": "union"},
                "createdAt": {"type": "date"},
                "extra": {"type": "json"},
                "score": {"type": "int", "merge": "max"},
            },
        },
        "User": {"primaryKey": "login", "properties": {"login": {"type": "string", "required": True}}},
        "Label": {"primaryKey": "name", "properties": {"name": {"type": "string"}, "color": {"type": "string"}}},
    },
}

ISSUE = {
    "number": 1,
    "title": "A title long enough to be an allocation of its own " * 2,
    "state": "open",
    "user": {"login": "octocat"},
    "assignee": {"login": "hubot"},
    "labels": [{"name": "bug", "color": "f00"}, {"name": "ui", "color": "0f0"}],
    "created_at": "2024-05-06T07:08:09.123Z",
    "extra": {"a": [1, 2.5, None, "x"]},
    "score": 3,
}
BAD = {"number": "one", "state": "weird", "labels": [{"name": 5}]}


def release_free_memory() -> None:
    """Collect cycles and hand free heap pages back to the system.

    A test that reads a graph on a thread of its own allocates in a glibc
    arena of that thread; freed, those pages stay resident until the arena is
    trimmed, which made the suite's growth swing by 9 MB from run to run with
    nothing leaked (measured per test: the reader thread of
    test_another_context_reads_the_file_while_one_imports). malloc_trim(0)
    trims every arena, so what is still counted is memory still in use.
    """
    gc.collect()
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to trim
        return
    trim.argtypes = [ctypes.c_size_t]
    trim(0)


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def in_use() -> int:
    """The bytes malloc has handed out and not had back, in every arena and
    in mmapped blocks (glibc's mallinfo2); the resident set where there is
    no mallinfo2."""
    try:
        info = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return rss()
    info.restype = _MallInfo2
    counted = info()
    return counted.uordblks + counted.hblkhd


def rss() -> int:
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * resource.getpagesize()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def one_model(schema: "strata.Schema", text: bytes, batch: bytes, i: int) -> None:
    m = schema.map("Issue", text)
    m["title"]
    m.get("assignee")
    "title" in m
    m.date("createdAt")
    d = m.to_dict()
    j = m.to_json()
    c = m.copy()
    assert c == m and hash(c) == hash(m)
    try:
        schema.map("Issue", BAD)
    except strata.MappingError as error:
        assert len(error.errors) >= 3
    if i % 10:
        return
    # every tenth model: the calls that make more models
    other = schema.map("Issue", dict(ISSUE, title=f"other {i}", score=i % 7))
    c.merge(other)
    c.update({"title": "updated", "labels": [{"name": "new"}]})
    ops = m.diff(other)
    patched = m.patch(ops)
    assert patched == other
    merge_patch = m.merge_diff(other)
    assert m.merge_patch(merge_patch) == other
    back = schema.unarchive(m.archive())
    assert back == m
    repr(m)
    try:
        schema.map("Issue", b"{not json")
    except strata.StrataError:
        pass
    for x in schema.map_many("Issue", batch):
        x.to_dict()
    del m, c, other, ops, patched, merge_patch, back, d, j


def check_models(count: int) -> bool:
    schema = strata.Schema(SCHEMA)
    text = json.dumps(ISSUE).encode()
    batch = json.dumps([ISSUE, dict(ISSUE, number=2)]).encode()
    warmup = max(count // 10, 1000)
    for i in range(warmup):
        one_model(schema, text, batch, i)
    release_free_memory()
    before = rss()
    for i in range(count):
        one_model(schema, text, batch, i)
    release_free_memory()
    growth = rss() - before
    ok = growth < SLACK
    print(f"python-leaks models: {count} models mapped and freed through the binding's calls, "
          f"RSS grew by {growth / 1024:.0f} KiB (limit {SLACK // 1024} KiB): {'OK' if ok else 'LEAK'}")
    return ok


def check_suite(runs: int, tests: Path) -> bool:
    import pytest

    def run() -> int:
        # -p no:cacheprovider: nothing written; the same process every time
        # hypothesis and dask keep caches of their own across runs in one process
        # (strategies, example databases, a cluster's client state): their tests
        # run in the normal suite, not here. test_memory.py is itself a loop of
        # leak checks (check_models above does the same work), and the mypy run
        # of test_codegen.py is a process of its own: both only cost time here
        # (about 30 s a run, 120 s of the check).
        return pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--no-header", "-o", "console_output_style=classic",
                            "-k", "not test_generated_modules_pass_mypy_strict_and_catch_misuse",
                            "--ignore", str(tests / "test_properties.py"),
                            "--ignore", str(tests / "test_memory.py"),
                            "--ignore", str(tests / "test_dask_example.py"),
                            "--ignore", str(tests / "test_dask_graph_example.py"),
                            str(tests)], plugins=[])

    devnull = open(os.devnull, "w")
    saved = sys.stdout
    sys.stdout = devnull
    try:
        # warm-up: imports, pytest's caches and first-use allocations grow RSS
        # by several MB over the first three runs (measured: 6.6 MB, 4.6 MB,
        # then 20 KiB and 0), then it stays flat
        status = run()
        for _ in range(2):
            status = status or run()
        release_free_memory()
        start, start_rss = in_use(), rss()
        for _ in range(runs):
            status = status or run()
        release_free_memory()
    finally:
        sys.stdout = saved
        devnull.close()
    growth = (in_use() - start) / max(runs, 1)
    rss_growth = (rss() - start_rss) / max(runs, 1)
    ok = status == 0 and growth < SUITE_SLACK and rss_growth < SUITE_RSS_SLACK
    print(f"python-leaks suite: bindings/python/tests run {runs + 3} times in one process "
          f"({'passed' if status == 0 else f'pytest status {status}'}), the bytes in use grew by "
          f"{growth / 1024:.0f} KiB per run (limit {SUITE_SLACK // 1024} KiB) and RSS by {rss_growth / 1024:.0f} KiB "
          f"(limit {SUITE_RSS_SLACK // 1024} KiB) after three warm-up runs: "
          f"{'OK' if ok else 'LEAK' if status == 0 else 'FAILED'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=100_000)
    parser.add_argument("--suite-runs", type=int, default=1,
                        help="measured runs of the test suite after three warm-up runs (0: skip it)")
    parser.add_argument("--tests", type=Path,
                        default=Path(__file__).resolve().parents[2] / "bindings" / "python" / "tests")
    args = parser.parse_args()
    ok = check_models(args.models)
    if args.suite_runs > 0 and args.tests.is_dir():
        ok = check_suite(args.suite_runs, args.tests) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
