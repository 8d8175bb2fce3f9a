#!/usr/bin/env bash
# The 2 MB prototype of issue 27 (Benchmarks/README.md, "Footprint"): the
# engine and its C layer compiled as Embedded Swift into one libstrata.so,
# which the C tests, the conformance cases, the Python tests and the C
# benchmarks can load in place of the shipped one (LD_LIBRARY_PATH or
# STRATA_LIBRARY). By hand only; nothing ships it.
#
#   Benchmarks/embedded/build.sh [OUT]     (default OUT: Benchmarks/.build-embedded)
#
# Then, for example:
#   LD_LIBRARY_PATH=$OUT build/Tests/c/test_conformance Tests/conformance
#   STRATA_LIBRARY=$OUT/libstrata.so.0 python3 -m pytest -q bindings/python/tests
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/Benchmarks/.build-embedded}
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -x /opt/swift/usr/bin/swiftc ] && export PATH="/opt/swift/usr/bin:$PATH"
embedded=$(dirname "$(dirname "$(command -v swiftc)")")/lib/swift/embedded/x86_64-unknown-linux-gnu

# 1. One module of the engine and the C layer, with what Embedded Swift lacks
# left out (the Codable bridge, the AsyncSequence of lines) or rewritten.
src=$out/src
rm -rf "$src"
mkdir -p "$src/Sources"
cp -r "$root/Sources/Strata" "$root/Sources/StrataGraph" "$root/Sources/StrataC" "$src/Sources/"
rm -rf "$src/Sources/Strata/Codable" "$src/Sources/Strata/Lines/AsyncLineMapper.swift"
find "$src/Sources/StrataC" "$src/Sources/StrataGraph" -name '*.swift' \
  -exec sed -i -E '/^import Strata(Graph)?$/d' {} +
# No key paths: `\.name` as a function becomes `{ $0.name }`.
find "$src/Sources" -name '*.swift' -exec \
  sed -i -E 's/\\\.([a-zA-Z_][a-zA-Z0-9_.]*)/{ $0.\1 }/g' {} +
# No dynamic casts: `Dictionary(_:uniquingKeysWith:)` casts inside.
sed -i -E 's/Dictionary\((outcome\.[a-z]+), uniquingKeysWith: \+\)/outcome.summed(\1)/' \
  "$src/Sources/StrataGraph/Context.swift"
cat >>"$src/Sources/StrataGraph/ImportOutcome.swift" <<'SWIFT'

extension ImportOutcome {
  func summed(_ pairs: [(String, Int)]) -> [String: Int] {
    var out: [String: Int] = [:]
    for (name, count) in pairs { out[name, default: 0] += count }
    return out
  }
}
SWIFT
# No weak references: a token the record empties when it goes. The patch
# was made against the graph of 2026-11-26; GraphRecord.swift and
# ModelObject.swift have changed since (lazy lists, faults, package access),
# so it no longer applies as it is: redo its two changes by hand first.
(cd "$src" && patch -s -p1 <"$here/weak-reference.patch")

# 2. Compile (whole module, -Osize) and link with the standard library's
# Unicode tables and the one runtime function the embedded library expects.
swiftc -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded \
  -wmo -Osize -parse-as-library -module-name Strata -package-name strata \
  -Xcc -fPIC -I "$here/libc" -I "$root/Sources/CJansson" -I "$root/Sources/CSQLite" \
  -I "$root/include" -emit-object -o "$out/strata.o" $(find "$src/Sources" -name '*.swift')
cc -O2 -fPIC -c "$here/strtod.c" -o "$out/strtod.o"
cc -shared -Wl,-soname,libstrata.so.0 -Wl,--gc-sections -o "$out/libstrata.so.0" \
  "$out/strata.o" "$out/strtod.o" "$embedded/libswiftUnicodeDataTables.a" -ljansson -lsqlite3 -lm
strip -o "$out/libstrata-stripped.so" "$out/libstrata.so.0"
ln -sf libstrata.so.0 "$out/libstrata.so"
echo "$out/libstrata.so.0: $(stat -c %s "$out/libstrata.so.0") bytes, $(stat -c %s "$out/libstrata-stripped.so") stripped"
