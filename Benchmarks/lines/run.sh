#!/usr/bin/env bash
# JSON lines benches (Benchmarks/README.md, "JSON lines"); scripts/bench runs
# it last. Needs build/libstrata.so and Benchmarks/data/issues.json.
#   BENCH_LINES_2GB=1   also map a generated 2 GB file (takes minutes)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PY=${PYTHON:-python3}
reps=${BENCH_REPS:-5}
data=Benchmarks/data
out=Benchmarks/.build-bench
mkdir -p "$out"
"${CC:-gcc}" -O2 -Wall -Wextra -Iinclude Benchmarks/lines/bench_lines.c -o "$out/bench_lines" \
  -Lbuild -lstrata -ljansson -Wl,-rpath,"$PWD/build"
# the 20,000 issues of the array, one per line
[ -s "$data/issues.jsonl" ] || "$PY" -c '
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for issue in json.load(f):
        out.write(json.dumps(issue, ensure_ascii=False, separators=(",", ":")) + "\n")
' "$data/issues.json" "$data/issues.jsonl"
echo "== JSON lines: 20,000 issues, best of $reps"
"$out/bench_lines" Benchmarks/schema.json "$data/issues.json" "$data/issues.jsonl" "$reps"
STRATA_LIBRARY=build/libstrata.so PYTHONPATH=bindings/python "$PY" Benchmarks/lines/bench_lines.py \
  Benchmarks/schema.json "$data/issues.jsonl" "$reps"
# big files: the lines repeated up to the size
make_big() { # FILE MB
  [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge $(( $2 * 1000000 )) ] && return
  : > "$1"
  while [ "$(stat -c %s "$1")" -lt $(( $2 * 1000000 )) ]; do cat "$data/issues.jsonl" >> "$1"; done
}
echo "== JSON lines: peak RSS of map_lines_file"
make_big "$data/lines-100mb.jsonl" 100
printf '100 MB: '; "$out/bench_lines" --rss Benchmarks/schema.json "$data/lines-100mb.jsonl"
if [ "${BENCH_LINES_2GB:-0}" = 1 ]; then
  make_big "$data/lines-2gb.jsonl" 2000
  printf '2 GB:   '; "$out/bench_lines" --rss Benchmarks/schema.json "$data/lines-2gb.jsonl"
fi
