#!/bin/sh
# libstrata.so carries the Swift standard library inside: ldd lists jansson,
# sqlite3 (the object graph's storage) and the C/C++ runtime, no libswift*, no
# libFoundation, no Swift RUNPATH.
# usage: check_ldd.sh LIBRARY
set -eu
lib=$1
out=$(ldd "$lib")
echo "$out"
status=0
if echo "$out" | grep -Eiq 'libswift|libFoundation|libdispatch|libBlocksRuntime|libicu|not found'; then
  echo "FAIL: $(basename "$lib") needs Swift runtime libraries (or a library is missing)" >&2
  status=1
fi
if ! echo "$out" | grep -q 'libjansson'; then
  echo "FAIL: $(basename "$lib") does not link libjansson" >&2
  status=1
fi
if ! echo "$out" | grep -q 'libsqlite3'; then
  echo "FAIL: $(basename "$lib") does not link libsqlite3" >&2
  status=1
fi
if readelf -d "$lib" | grep -Eq '(RPATH|RUNPATH)'; then
  echo "FAIL: $(basename "$lib") has an RPATH/RUNPATH:" >&2
  readelf -d "$lib" | grep -E '(RPATH|RUNPATH)' >&2
  status=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$soname" != "libstrata.so.0" ]; then
  echo "FAIL: SONAME is '$soname', expected libstrata.so.0" >&2
  status=1
fi
[ $status -eq 0 ] && echo "ldd OK"
exit $status
