"""Python map_lines on a JSON lines file vs the C figure (Benchmarks/README.md, "JSON lines").

    python3 Benchmarks/lines/bench_lines.py SCHEMA LINES.jsonl REPS
"""

import sys
import time

import strata

schema = strata.Schema.from_file(sys.argv[1])
best = 1e9
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    with open(sys.argv[2], "rb") as file:
        count = sum(1 for _ in schema.map_lines("GHIssue", file))
    best = min(best, time.perf_counter() - start)
print(f"python map_lines   {best * 1e3:8.1f} ms ({count} models)")
