#ifndef STRATA_CJANSSON_SHIM_H
#define STRATA_CJANSSON_SHIM_H
#include <jansson.h>
#include <pthread.h>

/* glibc's pthread_getattr_np is declared only under _GNU_SOURCE, which the
   Swift Glibc module is not built with; the engine needs it to learn the
   calling thread's stack bounds (see Sources/Strata/Runtime/StackGuard.swift). */
extern int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);

/* Where the calling function's frame is on the thread's stack: inlined into
   its Swift caller, the caller's frame address. StackGuard compares it with
   the stack's end; the address of a Swift local would not do, since
   AddressSanitizer may move locals to a "fake stack" on the heap
   (detect_stack_use_after_return). */
static inline __attribute__((always_inline)) unsigned long strata_frame_address(void) {
    return (unsigned long)__builtin_frame_address(0);
}

/* The C API's own header, so that Sources/StrataC writes strata_error_t (and
   reads the codes) through the types the header declares, never through a
   second copy of their layout. The @_cdecl functions of StrataC shadow the
   declarations imported from here inside that module. */
#include "../../include/strata.h"
#endif
