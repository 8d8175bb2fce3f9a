#ifndef STRATA_CJANSSON_SHIM_H
#define STRATA_CJANSSON_SHIM_H
#include <jansson.h>
#include <pthread.h>

/* glibc's pthread_getattr_np is declared only under _GNU_SOURCE, which the
   Swift Glibc module is not built with; the engine needs it to learn the
   calling thread's stack bounds (see Sources/Strata/Runtime/StackGuard.swift). */
extern int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);
#endif
