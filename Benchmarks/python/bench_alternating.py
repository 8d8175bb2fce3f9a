#!/usr/bin/env python3
"""Issue 28's ratios measured so that the machine's speed cancels out: in one
process, the C call `strata_map_manyb` (through ctypes, as a C program makes
it; the models released after the clock stops), the Python binding's
`Schema.map_many(model, bytes)`, and msgspec's typed decode of the same
fields, taken in turn, round after round, on each payload.

On a machine whose speed moves between processes (Benchmarks/README.md,
"Reading the table"), a ratio of two rows of `scripts/bench` taken a minute
apart can be off by 1.5x either way; two calls alternating in one process
see the same machine. Prints, per payload, the best and the median of each,
the ratio msgspec / Strata's C call (above 1: Strata is faster), the ratio
of the Python call to the C call, and the issue's "busy heap" row: the C call
made right after a jansson DOM of the payload was built and freed (as a server
that also builds DOMs would make it), its ratio to msgspec likewise.

    python3 bench_alternating.py [ROUNDS]

Run from the repository root after `scripts/bench` has generated the
payloads (Benchmarks/data/) and built the library (build/libstrata.so, or
STRATA_LIBRARY).
"""

import ctypes
import gc
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_python  # noqa: E402
import bench_search  # noqa: E402
import bench_social  # noqa: E402

PAYLOADS = [
    # name, payload, schema, model, the msgspec decoder of the same fields
    ("issues", "issues.json", "schema.json", "GHIssue", bench_python.msgspec_decoder),
    ("social", "social.json", "social-schema.json", "Status", lambda: bench_social.msgspec_types(str)),
    ("search", "search.json", "search-schema.json", "Status", bench_search.msgspec_decoder),
]


class Error(ctypes.Structure):
    """strata_error_t (include/strata.h)."""

    _fields_ = [
        ("code", ctypes.c_int),
        ("count", ctypes.c_size_t),
        ("code_name", ctypes.c_char * 16),
        ("path", ctypes.c_char * 256),
        ("model", ctypes.c_char * 80),
        ("property", ctypes.c_char * 80),
        ("message", ctypes.c_char * 256),
    ]


def library():
    path = os.environ.get("STRATA_LIBRARY") or os.path.join(HERE, "..", "..", "build", "libstrata.so")
    path = os.path.abspath(path)
    lib = ctypes.CDLL(path)
    lib.strata_schema_load_file.restype = ctypes.c_void_p
    lib.strata_schema_load_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(Error)]
    lib.strata_map_manyb.restype = ctypes.POINTER(ctypes.c_void_p)
    lib.strata_map_manyb.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.POINTER(Error),
    ]
    lib.strata_model_decref.argtypes = [ctypes.c_void_p]
    lib.strata_free.argtypes = [ctypes.c_void_p]
    return lib, path


def jansson():
    """libjansson, for the busy-heap row's DOM (json_loadb, then json_delete: the
    DOM's one reference is the loader's)."""
    lib = ctypes.CDLL("libjansson.so.4")
    lib.json_loadb.restype = ctypes.c_void_p
    lib.json_loadb.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p]
    lib.json_delete.argtypes = [ctypes.c_void_p]
    return lib


def main(argv):
    rounds = int(argv[1]) if len(argv) > 1 else 10
    lib, path = library()
    os.environ["STRATA_LIBRARY"] = path  # the binding loads the same library
    strata = bench_social.import_strata()
    dom = jansson()
    data = os.path.join(HERE, "..", "data")
    for name, payload, schema_file, model, decoder in PAYLOADS:
        path = os.path.join(data, payload)
        if not os.path.exists(path):
            print("info %s: %s missing (run scripts/bench once)" % (name, path))
            continue
        raw = open(path, "rb").read()
        error = Error()
        schema = lib.strata_schema_load_file(os.path.join(HERE, "..", schema_file).encode(), ctypes.byref(error))
        if not schema:
            raise SystemExit("%s: %s" % (schema_file, error.message.decode()))
        dec = decoder()
        binding = strata.Schema.from_file(os.path.join(HERE, "..", schema_file))
        count = ctypes.c_size_t()

        def strata_once():
            t0 = time.perf_counter()
            models = lib.strata_map_manyb(schema, model.encode(), raw, len(raw), ctypes.byref(count), ctypes.byref(error))
            elapsed = time.perf_counter() - t0
            if not models:
                raise SystemExit("%s: %s at %s" % (name, error.message.decode(), error.path.decode()))
            for index in range(count.value):
                lib.strata_model_decref(models[index])
            lib.strata_free(models)
            return elapsed

        def busy_once():
            tree = dom.json_loadb(raw, len(raw), 0, None)
            if not tree:
                raise SystemExit("%s: json_loadb failed" % name)
            dom.json_delete(tree)
            return strata_once()

        def msgspec_once():
            t0 = time.perf_counter()
            result = dec.decode(raw)
            elapsed = time.perf_counter() - t0
            del result
            return elapsed

        def python_once():
            t0 = time.perf_counter()
            result = binding.map_many(model, raw)
            elapsed = time.perf_counter() - t0
            del result
            return elapsed

        strata_once()
        msgspec_once()
        python_once()  # warm-ups
        ours, theirs, python, busy = [], [], [], []
        calls = [(strata_once, ours), (msgspec_once, theirs), (python_once, python), (busy_once, busy)]
        for index in range(rounds):
            # the order turns, so that none always runs in another's wake
            for call, into in calls[index % 4 :] + calls[: index % 4]:
                gc.collect()
                into.append(call())
        mb = len(raw) / 1e6
        print(
            "%s: strata_map_manyb best %.2f ms (%.0f MB/s), median %.2f; msgspec best %.2f ms (%.0f MB/s), "
            "median %.2f; msgspec / strata %.2fx by the best, %.2fx by the median; "
            "Python map_many best %.2f ms, median %.2f: %.2fx the C call by the best, %.2fx by the median; "
            "busy heap: C call best %.2f ms, median %.2f, msgspec / it %.2fx by the best, %.2fx by the median"
            % (
                name,
                min(ours) * 1e3,
                mb / min(ours),
                statistics.median(ours) * 1e3,
                min(theirs) * 1e3,
                mb / min(theirs),
                statistics.median(theirs) * 1e3,
                min(theirs) / min(ours),
                statistics.median(theirs) / statistics.median(ours),
                min(python) * 1e3,
                statistics.median(python) * 1e3,
                min(python) / min(ours),
                statistics.median(python) / statistics.median(ours),
                min(busy) * 1e3,
                statistics.median(busy) * 1e3,
                min(theirs) / min(busy),
                statistics.median(theirs) / statistics.median(busy),
            ),
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv)
