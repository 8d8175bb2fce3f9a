/*
 * bench_allocs.c - how many heap blocks one strata_map_manyb call asks
 * malloc for, per record (issue 28, "Allocation"). A count, not a time: it
 * does not move with the machine's noise, so it shows an allocation change
 * where timings cannot.
 *
 *   bench_allocs PAYLOAD SCHEMA MODEL [LABEL]
 *
 * Prints `allocs LABEL_map_manyb BLOCKS RECORDS PER_RECORD`: the blocks the
 * call asked for (temporaries included), and `held LABEL_map_manyb BLOCKS`:
 * how many of them were still not freed once the models were released (0
 * unless something leaks). One warm-up call comes first (schema plans,
 * caches), then one counted call.
 *
 * The counting: this program defines malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc and memalign itself, which takes them for
 * the whole process (libstrata and libjansson included), and hands each on
 * to glibc's own (__libc_*). Only calls made while `counting` is set count.
 * The counters are atomic: the call reads on two threads, and plain
 * increments from both lost some counts (`held` came out below zero).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strata.h>

#include "bench_file.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static int counting;
static size_t allocs, frees;

/* Counts one call into `counter` while counting. */
static void count_one(size_t *counter) {
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    count_one(&allocs);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one(&allocs);
    return __libc_calloc(count, size);
}

void *realloc(void *block, size_t size) {
    count_one(&allocs);
    return __libc_realloc(block, size);
}

void free(void *block) {
    if (block != NULL)
        count_one(&frees);
    __libc_free(block);
}

void *memalign(size_t alignment, size_t size) {
    count_one(&allocs);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one(&allocs);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    void *block;
    count_one(&allocs);
    block = __libc_memalign(alignment, size);
    if (block == NULL)
        return ENOMEM;
    *out = block;
    return 0;
}

/* One strata_map_manyb call; its models released. Exits on failure. */
static size_t map_and_release(strata_schema_t *schema, const char *model, const char *buf, size_t len,
                              size_t *after_map_allocs) {
    strata_error_t err;
    size_t count = 0, i;
    strata_model_t **ms = strata_map_manyb(schema, model, buf, len, &count, &err);
    if (ms == NULL) {
        fprintf(stderr, "bench_allocs: map_manyb: %s at %s\n", err.message, err.path);
        exit(1);
    }
    *after_map_allocs = __atomic_load_n(&allocs, __ATOMIC_RELAXED);
    for (i = 0; i < count; i++)
        strata_model_decref(ms[i]);
    strata_free(ms);
    return count;
}

int main(int argc, char **argv) {
    size_t len, count, mapped;
    strata_error_t err;
    strata_schema_t *schema;
    char *buf;
    const char *label = argc > 4 ? argv[4] : "payload";
    if (argc < 4) {
        fprintf(stderr, "usage: bench_allocs PAYLOAD SCHEMA MODEL [LABEL]\n");
        return 2;
    }
    buf = bench_read_file("bench_allocs", argv[1], &len);
    schema = strata_schema_load_file(argv[2], &err);
    if (schema == NULL) {
        fprintf(stderr, "bench_allocs: schema: %s\n", err.message);
        return 1;
    }
    map_and_release(schema, argv[3], buf, len, &mapped);
    allocs = frees = 0;
    counting = 1;
    count = map_and_release(schema, argv[3], buf, len, &mapped);
    counting = 0;
    printf("allocs %s_map_manyb %zu %zu %.1f\n", label, mapped, count, count ? (double)mapped / (double)count : 0.0);
    printf("held %s_map_manyb %zu\n", label, allocs - frees);
    strata_schema_decref(schema);
    free(buf);
    return 0;
}
