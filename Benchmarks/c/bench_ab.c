/*
 * bench_ab.c - two builds of libstrata timed in one process: strata_map_manyb
 * of one payload through library A and library B in turn, best of REPS each.
 * On a machine whose speed moves from one process to the next, the ratio
 * B/A stays steady where two separate runs do not (Benchmarks/README.md,
 * "Allocations per record").
 *
 *   bench_ab LIB_A LIB_B PAYLOAD SCHEMA MODEL [REPS]
 *
 * LIB_A and LIB_B are paths of two different files (copy the build before
 * a change somewhere first); each is opened with dlopen(RTLD_LOCAL), so
 * each keeps its own Swift runtime. The order alternates each round.
 * Prints the best map time of each, the mean of map plus release, and B/A.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <strata.h>
#include <time.h>

#include "bench_file.h"

typedef strata_schema_t *(*load_fn)(const char *, strata_error_t *);
typedef strata_model_t **(*manyb_fn)(strata_schema_t *, const char *, const char *, size_t, size_t *,
                                     strata_error_t *);
typedef void (*decref_fn)(strata_model_t *);
typedef void (*free_fn)(void *);

struct library {
    manyb_fn manyb;
    decref_fn decref;
    free_fn release;
    strata_schema_t *schema;
    double best, total;
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *symbol(void *handle, const char *name) {
    void *found = dlsym(handle, name);
    if (found == NULL) {
        fprintf(stderr, "bench_ab: no %s\n", name);
        exit(1);
    }
    return found;
}

static void open_library(struct library *lib, const char *path, const char *schema_path) {
    strata_error_t err;
    load_fn load;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "bench_ab: %s\n", dlerror());
        exit(1);
    }
    load = (load_fn)symbol(handle, "strata_schema_load_file");
    lib->manyb = (manyb_fn)symbol(handle, "strata_map_manyb");
    lib->decref = (decref_fn)symbol(handle, "strata_model_decref");
    lib->release = (free_fn)symbol(handle, "strata_free");
    lib->schema = load(schema_path, &err);
    if (lib->schema == NULL) {
        fprintf(stderr, "bench_ab: %s: %s\n", schema_path, err.message);
        exit(1);
    }
    lib->best = 1e30;
    lib->total = 0;
}

static void run(struct library *lib, const char *model, const char *buf, size_t len) {
    strata_error_t err;
    size_t count = 0, i;
    double t0 = now(), t1, t2;
    strata_model_t **ms = lib->manyb(lib->schema, model, buf, len, &count, &err);
    t1 = now();
    if (ms == NULL) {
        fprintf(stderr, "bench_ab: map_manyb: %s at %s\n", err.message, err.path);
        exit(1);
    }
    for (i = 0; i < count; i++)
        lib->decref(ms[i]);
    lib->release(ms);
    t2 = now();
    if (t1 - t0 < lib->best)
        lib->best = t1 - t0;
    lib->total += t2 - t0;
}

int main(int argc, char **argv) {
    struct library libs[2];
    char *buf;
    size_t n;
    int reps, r;
    if (argc < 6) {
        fprintf(stderr, "usage: bench_ab LIB_A LIB_B PAYLOAD SCHEMA MODEL [REPS]\n");
        return 2;
    }
    reps = argc > 6 ? atoi(argv[6]) : 10;
    buf = bench_read_file("bench_ab", argv[3], &n);
    open_library(&libs[0], argv[1], argv[4]);
    open_library(&libs[1], argv[2], argv[4]);
    for (r = 0; r < reps; r++) {
        run(&libs[r & 1], argv[5], buf, n);
        run(&libs[1 - (r & 1)], argv[5], buf, n);
    }
    printf("A best %.2f ms (map + release mean %.2f)  B best %.2f ms (map + release mean %.2f)  B/A %.3f\n",
           libs[0].best * 1e3, libs[0].total / reps * 1e3, libs[1].best * 1e3, libs[1].total / reps * 1e3,
           libs[1].best / libs[0].best);
    free(buf);
    return 0;
}
