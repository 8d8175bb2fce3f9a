#!/bin/sh
# include/strata.h compiles as strict C99 and as C++11 (extern "C" works):
# each check builds a tiny program against libstrata.so and runs it.
# usage: check_header.sh c|c++ COMPILER SOURCE INCLUDE-DIR LIBRARY-DIR [CFLAGS...]
set -eu
lang=$1 compiler=$2 src=$3 incdir=$4 libdir=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$lang" in
  c)   flags="-std=c99 -Wall -Wextra -pedantic -Werror" ;;
  c++) flags="-std=c++11 -Wall -Wextra -pedantic -Werror" ;;
  *)   echo "unknown language $lang" >&2; exit 2 ;;
esac
set -x
# shellcheck disable=SC2086
"$compiler" $flags "$@" -I"$incdir" "$src" -o "$tmp/header-check" \
  -L"$libdir" -Wl,-rpath,"$libdir" -lstrata -ljansson
"$tmp/header-check"
