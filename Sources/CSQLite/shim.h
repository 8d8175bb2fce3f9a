#ifndef STRATA_CSQLITE_SHIM_H
#define STRATA_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a function-like cast macro that Swift cannot import:
   bound text is copied by SQLite when this destructor is passed, so the Swift
   buffer need only live for the bind call (see Sources/Strata/Graph/Store). */
static inline sqlite3_destructor_type strata_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}
/* The shared memory of the write-ahead-log index of db's main file (its
   first region, which begins with the index header), as SQLite maps it for
   the connection; NULL when there is none (a VFS without shared memory).
   Call it only on a connection in WAL mode that has read the file (SQLite
   has then opened and mapped the index itself; this asks the VFS for the
   same mapping). It stays mapped until the connection closes. */
static inline const volatile void *strata_wal_index(sqlite3 *db) {
  sqlite3_file *file = 0;
  volatile void *region = 0;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == 0 ||
      file->pMethods == 0 || file->pMethods->iVersion < 2 || file->pMethods->xShmMap == 0)
    return 0;
  if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK)
    return 0;
  return region;
}

/* Copies the header of a write-ahead-log index (`strata_wal_index`: 48
   bytes as six words, the first of its two copies) into `out`; 1 when its
   two copies agree, 0 when they differ (a commit is writing it). A writer
   of any process writes the second copy, then the first, at every commit
   (the commit counter, the log's length and salts are in it), so a header
   equal to one read earlier means that nobody committed in between (SQLite
   compares it the same way to learn whether its cache is current). */
static inline int strata_wal_index_header(const volatile void *index, unsigned long long out[6]) {
  const volatile unsigned long long *words = (const volatile unsigned long long *)index;
  unsigned long long second[6];
  int i;
  for (i = 0; i < 6; i++)
    out[i] = words[i];
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  for (i = 0; i < 6; i++)
    second[i] = words[6 + i];
  for (i = 0; i < 6; i++)
    if (out[i] != second[i])
      return 0;
  return 1;
}
#endif
