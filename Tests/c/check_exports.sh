#!/bin/sh
# The strata_* functions that include/strata.h declares are exactly the
# symbols libstrata.so exports; nothing else (no Swift runtime, no mangled
# twins of the @_cdecl functions) is exported.
#
# usage: check_exports.sh LIBRARY C-COMPILER INCLUDE-DIR [CFLAGS...]
set -eu
lib=$1 cc=$2 incdir=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '#include <strata.h>\n' > "$tmp/h.c"
"$cc" -E -P "$@" -I"$incdir" "$tmp/h.c" > "$tmp/pre.c"
grep -oE 'strata_[a-z0-9_]+ *\(' "$tmp/pre.c" | sed -E 's/ *\($//' | sort -u > "$tmp/declared"
nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' | sort -u > "$tmp/exported"
nm -D --defined-only "$lib" | awk '$(NF-1) ~ /^[TtWwi]$/ { print $NF }' | sed 's/@.*//' | sort -u > "$tmp/functions"

status=0
declared=$(wc -l < "$tmp/declared")
if [ "$declared" -lt 20 ]; then
  echo "only $declared strata_* functions found in strata.h: the grep is broken" >&2
  status=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
  echo "declared in strata.h but not exported by $(basename "$lib"):" >&2
  echo "$missing" | sed 's/^/  /' >&2
  status=1
fi
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
  echo "exported by $(basename "$lib") but not declared in strata.h:" >&2
  echo "$extra" | head -50 | sed 's/^/  /' >&2
  echo "  ($(echo "$extra" | wc -l) symbols)" >&2
  status=1
fi
other_functions=$(grep -v '^strata_' "$tmp/functions" || true)
if [ -n "$other_functions" ]; then
  echo "non-strata_ functions exported:" >&2
  echo "$other_functions" | head -20 | sed 's/^/  /' >&2
  status=1
fi
if [ $status -eq 0 ]; then
  echo "exports OK: $declared functions, declared = exported"
fi
exit $status
