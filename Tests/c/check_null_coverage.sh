#!/bin/sh
# Every function that include/strata.h declares is called by test_null_args.c
# (which calls each with NULL pointer arguments): a new function cannot be
# added without its NULL checks.
# usage: check_null_coverage.sh HEADER TEST.c
set -eu
header=$1 test=$2
missing=""
for f in $(grep -oE '\bstrata_[a-z0-9_]+ *\(' "$header" | sed -E 's/ *\($//' | grep -v '_t$' | sort -u); do
  grep -qE "\b$f\(" "$test" || missing="$missing $f"
done
if [ -n "$missing" ]; then
  echo "declared in $(basename "$header") but never called with NULL arguments in $(basename "$test"):$missing" >&2
  exit 1
fi
echo "every function of $(basename "$header") is called in $(basename "$test")"
