#ifndef STRATA_CJANSSON_SHIM_H
#define STRATA_CJANSSON_SHIM_H
#include <jansson.h>
#include <pthread.h>
#include <string.h>

#include "utf8_run.h"
#include "skip_container.h"
#include "atomic_word.h"
#include "cpu_count.h"

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

/* The calling thread's stack limit as StackGuard keeps it (plus one; 0
   until computed), a C thread-local: a load instead of pthread_getspecific
   and Swift's lazy global behind it, on every call through the C API. The
   function is static, so each object file that inlines it has its own copy
   of the slot: each copy computes the same limit once per thread, which is
   why only a value that every copy computes alike may live in such a slot. */
static inline unsigned long *_Nonnull strata_thread_stack_limit(void) {
    static __thread unsigned long slot;
    return &slot;
}

/* Whether `a` and `b` hold the same JSON, as json_equal says (1 or 0).
   Objects whose members come in the same order (two inputs of one API
   object) are walked side by side instead of looking each key up; members
   in another order fall back to json_equal. Strings compare their bytes. */
static inline int strata_json_same(json_t *a, json_t *b) {
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || json_typeof(a) != json_typeof(b))
        return 0;
    switch (json_typeof(a)) {
    case JSON_OBJECT: {
        void *left, *right;
        if (json_object_size(a) != json_object_size(b))
            return 0;
        left = json_object_iter(a);
        right = json_object_iter(b);
        while (left != NULL && right != NULL) {
            size_t length = json_object_iter_key_len(left);
            if (length != json_object_iter_key_len(right) ||
                memcmp(json_object_iter_key(left), json_object_iter_key(right), length) != 0)
                return json_equal(a, b);
            if (!strata_json_same(json_object_iter_value(left), json_object_iter_value(right)))
                return 0;
            left = json_object_iter_next(a, left);
            right = json_object_iter_next(b, right);
        }
        return 1;
    }
    case JSON_ARRAY: {
        size_t index, size = json_array_size(a);
        if (size != json_array_size(b))
            return 0;
        for (index = 0; index < size; index++)
            if (!strata_json_same(json_array_get(a, index), json_array_get(b, index)))
                return 0;
        return 1;
    }
    case JSON_STRING: {
        size_t length = json_string_length(a);
        return length == json_string_length(b) && memcmp(json_string_value(a), json_string_value(b), length) == 0;
    }
    default:
        return json_equal(a, b);
    }
}

/* The C API's own header, so that Sources/StrataC writes strata_error_t (and
   reads the codes) through the types the header declares, never through a
   second copy of their layout. The @_cdecl functions of StrataC shadow the
   declarations imported from here inside that module. */
#include "../../include/strata.h"
#endif
