#ifndef STRATA_CSQLITE_SHIM_H
#define STRATA_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a function-like cast macro that Swift cannot import:
   bound text is copied by SQLite when this destructor is passed, so the Swift
   buffer need only live for the bind call (see Sources/Strata/Graph/Store). */
static inline sqlite3_destructor_type strata_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}
#endif
