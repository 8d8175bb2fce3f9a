#!/usr/bin/env python3
"""Runs the benchmark programs one after the other and prints one table.

scripts/bench builds the programs and calls this; it can be run again on its
own once they are built:

    python3 Benchmarks/run.py [--reps 5] [--payload Benchmarks/data/issues.json]

Each program prints one fact a line (`time KEY BEST MEDIAN N`, `mem KEY BYTES`,
`info KEY TEXT`); this script reads them, and writes the table to stdout and to
Benchmarks/data/bench-last.txt.
"""

import argparse
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(HERE, ".build-bench")

TARGET_MAP_RATIO = 0.5  # Strata json_t -> models <= 0.5x json_loadb time
TARGET_MEM_RATIO = 2.0  # models' memory <= 2x the jansson DOM's

# (key, number, what, path); None key = a section line
ROWS = [
    ("loadb", "1", "jansson json_loadb", "bytes -> json_t"),
    ("map_many", "2", "Strata strata_map_many", "json_t -> models"),
    ("to_json", "3", "Strata strata_model_to_json x N", "models -> json_t"),
    ("unpack", "4", "C json_unpack floor (strings borrowed)", "json_t -> C structs"),
    ("codable", "5", "Swift JSONDecoder + Codable", "bytes -> structs"),
    ("pydantic", "6a", "pydantic v2 TypeAdapter.validate_json", "bytes -> models"),
    ("msgspec", "6b", "msgspec.json.Decoder(list[Struct])", "bytes -> structs"),
    (None, "", "for reference", ""),
    ("loadb+map_many", "", "json_loadb + strata_map_many", "bytes -> models"),
    ("map_manyb", "", "Strata strata_map_manyb", "bytes -> models"),
    ("loadb+unpack", "", "json_loadb + json_unpack floor", "bytes -> C structs"),
    ("unpack_dup", "", "C json_unpack floor, strings strdup'ed", "json_t -> C structs"),
    ("stdlib_json", "", "Python json.loads", "bytes -> dicts"),
    ("py_strata", "", "Python strata Schema.map_many (ctypes)", "bytes -> models"),
    ("models_free", "", "strata_model_decref x N", "release models"),
    ("dom_free", "", "json_decref(DOM)", "release json_t"),
]


class Results:
    def __init__(self):
        self.time = {}  # key -> (best, median, n)
        self.mem = {}
        self.info = {}
        self.problems = []
        self.notes = []
        self.load = loadavg()

    def read(self, name, text):
        for line in text.splitlines():
            parts = line.split(None, 2)
            if len(parts) < 3:
                continue
            kind, key, rest = parts
            try:
                if kind == "time":
                    best, median, n = rest.split()
                    self.time[key] = (float(best), float(median), int(n))
                elif kind == "mem":
                    self.mem[key] = int(rest)
                elif kind == "info":
                    self.info[key] = rest
            except ValueError:
                self.problems.append("%s: unreadable line %r" % (name, line))


def run(results, name, cmd, env=None):
    if not cmd or not os.path.exists(cmd[0]):
        results.problems.append("%s: not built (%s)" % (name, cmd[0] if cmd else "?"))
        return
    print("bench: running %s ..." % name, file=sys.stderr, flush=True)
    t0 = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    results.read(name, proc.stdout)
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        results.problems.append("%s: exited %d" % (name, proc.returncode))
    print("bench: %s done in %.1f s" % (name, time.time() - t0), file=sys.stderr, flush=True)


def loadavg():
    try:
        return "%.2f" % os.getloadavg()[0]
    except OSError:
        return "?"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def mb(n):
    return n / 1e6


def table(res, payload, reps):
    size = int(res.info.get("payload_bytes", os.path.getsize(payload)))
    issues = res.info.get("issues", "?")
    t = dict(res.time)
    for a, b in (("loadb", "map_many"), ("loadb", "unpack")):
        if a in t and b in t:
            t[a + "+" + b] = (t[a][0] + t[b][0], t[a][1] + t[b][1], min(t[a][2], t[b][2]))
    base = t.get("loadb", (None,))[0]

    out = []
    out.append("Strata benchmark - %s issues, %d bytes (%.1f MB): %s" % (
        issues, size, mb(size), os.path.relpath(payload, ROOT)))
    out.append("machine: %s, %d CPUs, %s %s; load average %s at the start; run %s" % (
        cpu_name(), os.cpu_count() or 0, platform.system(), platform.release(), res.load,
        time.strftime("%Y-%m-%d %H:%M:%S")))
    versions = ["%s %s" % (k, res.info[k]) for k in
                ("strata", "jansson", "python", "pydantic", "msgspec") if k in res.info]
    out.append("versions: " + ", ".join(versions))
    out.append("time: best of %d repetitions after 1 warm-up (median beside it); "
               "MB/s = payload bytes / best time; x loadb = best time / json_loadb's best" % reps)
    out.append("")
    hdr = "%-3s %-40s %-20s %9s %9s %8s %8s  %s" % (
        "#", "measure", "path", "best ms", "median ms", "MB/s", "x loadb", "target")
    out.append(hdr)
    out.append("-" * len(hdr))
    for key, num, what, path in ROWS:
        if key is None:
            out.append("    -- %s --" % what)
            continue
        if key not in t:
            out.append("%-3s %-40s %-20s %9s" % (num, what, path, "n/a"))
            continue
        best, median, _ = t[key]
        ratio = "%7.2fx" % (best / base) if base else "      ?"
        target = ""
        if key == "map_many":
            ok = base and best / base <= TARGET_MAP_RATIO
            target = "<= %.2fx %s" % (TARGET_MAP_RATIO, "met" if ok else "MISSED")
        out.append("%-3s %-40s %-20s %9.1f %9.1f %8.1f %8s  %s" % (
            num, what, path, best * 1e3, median * 1e3, mb(size) / best, ratio, target))

    m = res.mem
    out.append("")
    out.append("memory: heap bytes in use (glibc mallinfo2 uordblks + hblkhd), "
               "delta around each step")
    hdr = "%-62s %10s %8s  %s" % ("measure", "MB", "x DOM", "target")
    out.append(hdr)
    out.append("-" * len(hdr))
    dom = m.get("dom")

    def mem_row(key, what, target=False):
        if key not in m:
            out.append("%-62s %10s" % (what, "n/a"))
            return
        v = m[key]
        ratio = "%7.2fx" % (v / dom) if dom else "      ?"
        tgt = ""
        if target and dom:
            tgt = "<= %.1fx %s" % (TARGET_MEM_RATIO, "met" if v / dom <= TARGET_MEM_RATIO else "MISSED")
        out.append("%-62s %10.1f %8s  %s" % (what, mb(v), ratio, tgt))

    mem_row("dom", "jansson DOM: json_loadb")
    mem_row("models", "Strata models: strata_map_many (DOM alive, leaves shared)", True)
    mem_row("models_alone", "Strata models after json_decref(DOM): what they still hold", True)
    mem_row("dom_released", "  heap freed by that json_decref(DOM)")
    mem_row("to_json", "json_t trees from strata_model_to_json x N (models alive)")
    mem_row("structs", "C structs, strings borrowed from the DOM")
    mem_row("structs_dup", "C structs, strings strdup'ed")
    if "leftover" in m:
        out.append("%-62s %10.3f" % ("heap not given back after releasing models and DOM", mb(m["leftover"])))
    mem_row("bytes_models", "Strata models: strata_map_manyb (bytes, no DOM; own process)", True)
    for key, what in (("dom_peak_rss_rise", "peak RSS rise during json_loadb"),
                      ("models_peak_rss_rise", "peak RSS rise during strata_map_many"),
                      ("bytes_peak_rss_rise", "peak RSS rise during strata_map_manyb (own process)")):
        if key in m:
            out.append("%-62s %10.1f" % (what, mb(m[key])))

    if "round_trip" in res.info:
        out.append("")
        out.append("check: round trip " + res.info["round_trip"])
    if "strata" not in res.info and "loadb" in res.time:
        res.notes.append("no Strata rows: the C bench was built without build/libstrata.so "
                         "(run scripts/build, then scripts/bench)")
    if res.notes:
        out.append("")
        out.append("notes:")
        out.extend("  " + n for n in res.notes)
    if res.problems:
        out.append("")
        out.append("problems:")
        out.extend("  " + p for p in res.problems)
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description="Runs the Strata benchmark programs and prints the table.")
    ap.add_argument("--payload", default=os.path.join(HERE, "data", "issues.json"))
    ap.add_argument("--schema", default=os.path.join(HERE, "schema.json"))
    ap.add_argument("--reps", type=int, default=int(os.environ.get("BENCH_REPS", "5")))
    ap.add_argument("--c-bench", default=os.path.join(BUILD, "bench_c"))
    ap.add_argument("--swift-bench", default=os.path.join(BUILD, "swift-codable", "release", "codable-bench"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--only", default="", help="comma list of c,swift,python (default: all)")
    ap.add_argument("--save", default=os.path.join(HERE, "data", "bench-last.txt"))
    args = ap.parse_args(argv)

    if not os.path.exists(args.payload):
        print("bench: no payload at %s (run Benchmarks/generate.py)" % args.payload, file=sys.stderr)
        return 1
    only = set(filter(None, args.only.split(",")))
    reps = str(args.reps)
    res = Results()
    if not only or "c" in only:
        run(res, "C bench (jansson, Strata, json_unpack)", [args.c_bench, args.payload, args.schema, reps])
        # the bytes path's memory, in a process that never made a DOM
        run(res, "C bench, strata_map_manyb memory",
            [args.c_bench, args.payload, args.schema, "1", "bytes-memory"])
    if not only or "swift" in only:
        run(res, "Swift Codable bench", [args.swift_bench, args.payload, reps])
    if not only or "python" in only:
        env = dict(os.environ)
        lib = os.path.join(ROOT, "build", "libstrata.so")
        if "STRATA_LIBRARY" not in env and os.path.exists(lib):
            env["STRATA_LIBRARY"] = lib
        run(res, "Python bench (pydantic, msgspec)",
            [args.python, os.path.join(HERE, "python", "bench_python.py"), args.payload, reps,
             args.schema], env=env)

    text = table(res, args.payload, args.reps)
    sys.stdout.write("\n" + text)
    if args.save and not only:  # a partial run does not replace the last full table
        os.makedirs(os.path.dirname(args.save), exist_ok=True)
        with open(args.save, "w") as f:
            f.write(text)
    return 1 if res.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
