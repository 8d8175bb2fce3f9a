#!/bin/sh
# Installs Strata into a temporary prefix, then builds a small C program
# outside the tree twice - with `pkg-config --cflags --libs strata` and with a
# CMake project that uses find_package(Strata) / Strata::strata - and runs both.
# usage: check_consumer.sh BUILD-DIR CONSUMER-SOURCE-DIR CMAKE C-COMPILER GENERATOR
set -eu
build=$1 src=$2 cmake=$3 cc=$4 generator=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
expected='{"login":"octocat","avatarURL":"https://github.com/images/error/octocat_happy.gif"}'

echo "== install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
sed 's/^/   /' "$tmp/install.log"

pc=$(find "$prefix" -name strata.pc | head -1)
libso=$(find "$prefix" -name 'libstrata.so' | head -1)
[ -n "$pc" ] || { echo "FAIL: no strata.pc installed" >&2; exit 1; }
[ -n "$libso" ] || { echo "FAIL: no libstrata.so installed" >&2; exit 1; }
libdir=$(dirname "$libso")
for f in "$prefix/include/strata.h" "$libdir/libstrata.so.0" "$libdir/libstrata.so.0.1.0" \
         "$libdir/cmake/Strata/StrataConfig.cmake" "$libdir/cmake/Strata/StrataConfigVersion.cmake"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
[ -L "$libdir/libstrata.so" ] && [ -L "$libdir/libstrata.so.0" ] || {
  echo "FAIL: libstrata.so and libstrata.so.0 should be symlinks" >&2; exit 1; }

check_output() { # name, output file
  if [ "$(sed -n 2p "$2")" != "$expected" ] || ! head -1 "$2" | grep -q '^strata 0\.1\.0$'; then
    echo "FAIL: $1 printed:" >&2; cat "$2" >&2
    echo "expected:" >&2; printf 'strata 0.1.0\n%s\n' "$expected" >&2
    exit 1
  fi
  echo "   $1 OK: $(sed -n 2p "$2")"
}

echo "== pkg-config ($pc)"
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
sed 's/^/   /' "$pc"
version=$(pkg-config --modversion strata)
[ "$version" = "0.1.0" ] || { echo "FAIL: pkg-config --modversion strata gives '$version'" >&2; exit 1; }
flags=$(pkg-config --cflags --libs strata)
echo "   pkg-config --cflags --libs strata: $flags"
# shellcheck disable=SC2086
"$cc" -Wall -Wextra -Werror "$src/consumer.c" -o "$tmp/consumer-pc" $flags
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/consumer-pc" > "$tmp/out-pc"
check_output "pkg-config consumer" "$tmp/out-pc"

echo "== find_package(Strata)"
"$cmake" -G "$generator" -S "$src" -B "$tmp/cmake-build" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 || {
  cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/cmake-build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
# CMake gives the consumer an RPATH to the library in the build tree.
"$tmp/cmake-build/consumer" > "$tmp/out-cmake"
check_output "find_package consumer" "$tmp/out-cmake"

# A version that the package does not offer is refused.
mkdir -p "$tmp/badver"
cat > "$tmp/badver/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.16)
project(V LANGUAGES C)
find_package(Strata 1.0 REQUIRED)
EOT
if "$cmake" -G "$generator" -S "$tmp/badver" -B "$tmp/badver/b" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
  echo "FAIL: find_package(Strata 1.0) accepted version 0.1.0" >&2
  exit 1
fi
echo "consumer OK"
