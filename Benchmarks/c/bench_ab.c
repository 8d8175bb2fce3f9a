/*
 * bench_ab.c - two builds of libstrata timed in one process: strata_map_manyb
 * of one payload through library A and library B in turn, best of REPS each.
 * On a machine whose speed moves from one process to the next, the ratio
 * B/A stays steady where two separate runs do not (Benchmarks/README.md,
 * "Allocations per record").
 *
 *   bench_ab LIB_A LIB_B PAYLOAD SCHEMA MODEL [REPS [import-file|get-cold]]
 *
 * With import-file, each round instead times the graph's import of the
 * payload into a new SQLite file (strata_context_open, _importb, _close:
 * what bench_graph's import-file repeats), the files in a temporary folder
 * under /tmp, or under $BENCH_AB_DIR when set (BENCH_AB_DIR=/dev/shm leaves
 * the disk's syncs out, whose time moves the figures more than the CPU's).
 * With get-cold, each library first imports the payload into a file of its
 * own; each round then opens that file again and reads every record of
 * MODEL by key (strata_context_get), each read from the file's tables: the
 * time of the whole pass (what bench_graph's get-cold repeats).
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
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_file.h"

typedef strata_schema_t *(*load_fn)(const char *, strata_error_t *);
typedef strata_model_t **(*manyb_fn)(strata_schema_t *, const char *, const char *, size_t, size_t *,
                                     strata_error_t *);
typedef void (*decref_fn)(strata_model_t *);
typedef void (*free_fn)(void *);
typedef strata_context_t *(*open_fn)(const strata_schema_t *, const char *, strata_error_t *);
typedef strata_model_t **(*importb_fn)(strata_context_t *, const char *, const char *, size_t, json_t *,
                                       strata_keep_fn, void *, size_t *, json_t **, strata_error_t *);
typedef void (*context_fn)(strata_context_t *);
typedef strata_model_t *(*get_fn)(strata_context_t *, const char *, json_t *, strata_error_t *);
typedef strata_model_t **(*all_fn)(strata_context_t *, const char *, size_t *, strata_error_t *);
typedef json_t *(*key_fn)(const strata_model_t *);

struct library {
    manyb_fn manyb;
    decref_fn decref;
    free_fn release;
    open_fn open;
    importb_fn importb;
    context_fn close, context_decref;
    get_fn get;
    all_fn all;
    key_fn key;
    strata_schema_t *schema;
    char file[4096];
    json_t *keys;
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
    lib->open = (open_fn)symbol(handle, "strata_context_open");
    lib->importb = (importb_fn)symbol(handle, "strata_context_importb");
    lib->close = (context_fn)symbol(handle, "strata_context_close");
    lib->context_decref = (context_fn)symbol(handle, "strata_context_decref");
    lib->get = (get_fn)symbol(handle, "strata_context_get");
    lib->all = (all_fn)symbol(handle, "strata_context_all");
    lib->key = (key_fn)symbol(handle, "strata_record_key");
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

static strata_context_t *open_file(struct library *lib, const char *path) {
    strata_error_t err;
    strata_context_t *context = lib->open(lib->schema, path, &err);
    if (context == NULL) {
        fprintf(stderr, "bench_ab: open: %s\n", err.message);
        exit(1);
    }
    return context;
}

/* A context on `path` (opened, or made) with the payload imported into it;
   the models the import returns are released, the context stays open. */
static strata_context_t *import_into(struct library *lib, const char *path, const char *model, const char *buf,
                                     size_t len) {
    strata_error_t err;
    size_t count = 0, i;
    strata_context_t *context = open_file(lib, path);
    strata_model_t **ms = lib->importb(context, model, buf, len, NULL, NULL, NULL, &count, NULL, &err);
    if (ms == NULL) {
        fprintf(stderr, "bench_ab: import: %s at %s\n", err.message, err.path);
        exit(1);
    }
    for (i = 0; i < count; i++)
        lib->decref(ms[i]);
    lib->release(ms);
    return context;
}

/* The file at `path` and its WAL and shared-memory files, removed. */
static void remove_file(const char *path) {
    char file[4200];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s%s", path, i == 0 ? "" : i == 1 ? "-wal" : "-shm");
        unlink(file);
    }
}

/* The end of a timed round on a context: the context closed and released,
   and the round's time since `t0` noted. */
static void end_round(struct library *lib, strata_context_t *context, double t0) {
    double took;
    lib->close(context);
    lib->context_decref(context);
    took = now() - t0;
    if (took < lib->best)
        lib->best = took;
    lib->total += took;
}

/* One import of the payload into a new file of `folder`, timed whole. */
static void run_import(struct library *lib, const char *model, const char *buf, size_t len, const char *folder) {
    static int serial = 0;
    char path[4096];
    double t0;
    snprintf(path, sizeof path, "%s/ab-%d.db", folder, serial++);
    t0 = now();
    strata_context_t *context = import_into(lib, path, model, buf, len);
    end_round(lib, context, t0);
    remove_file(path);
}

/* get-cold's set-up: the payload imported into a file of the library's own
   in `folder`, and the keys of MODEL's records noted. */
static void prepare_gets(struct library *lib, const char *model, const char *buf, size_t len, const char *folder,
                         const char *name) {
    strata_error_t err;
    size_t count = 0, i;
    snprintf(lib->file, sizeof lib->file, "%s/%s.db", folder, name);
    strata_context_t *context = import_into(lib, lib->file, model, buf, len);
    strata_model_t **ms = lib->all(context, model, &count, &err);
    if (ms == NULL) {
        fprintf(stderr, "bench_ab: all: %s\n", err.message);
        exit(1);
    }
    lib->keys = json_array();
    for (i = 0; i < count; i++) {
        json_array_append_new(lib->keys, lib->key(ms[i]));
        lib->decref(ms[i]);
    }
    lib->release(ms);
    lib->close(context);
    lib->context_decref(context);
}

/* One pass of gets by key over a context opened again on the library's file. */
static void run_gets(struct library *lib, const char *model) {
    strata_error_t err;
    size_t i;
    double t0 = now();
    strata_context_t *context = open_file(lib, lib->file);
    for (i = 0; i < json_array_size(lib->keys); i++) {
        strata_model_t *record = lib->get(context, model, json_array_get(lib->keys, i), &err);
        if (record == NULL) {
            fprintf(stderr, "bench_ab: get: no record (%s)\n", err.message);
            exit(1);
        }
        lib->decref(record);
    }
    end_round(lib, context, t0);
}

int main(int argc, char **argv) {
    struct library libs[2];
    char *buf;
    size_t n;
    int reps, r;
    if (argc < 6) {
        fprintf(stderr, "usage: bench_ab LIB_A LIB_B PAYLOAD SCHEMA MODEL [REPS [import-file|get-cold]]\n");
        return 2;
    }
    reps = argc > 6 ? atoi(argv[6]) : 10;
    int imports = argc > 7 && strcmp(argv[7], "import-file") == 0;
    int gets = argc > 7 && strcmp(argv[7], "get-cold") == 0;
    /* the files go under $BENCH_AB_DIR when set (/dev/shm: no disk syncs
     * in the figures, only the CPU's work), /tmp otherwise */
    const char *base = getenv("BENCH_AB_DIR");
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/bench-ab-XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
    if ((imports || gets) && mkdtemp(folder) == NULL) {
        perror("bench_ab: mkdtemp");
        return 1;
    }
    buf = bench_read_file("bench_ab", argv[3], &n);
    open_library(&libs[0], argv[1], argv[4]);
    open_library(&libs[1], argv[2], argv[4]);
    if (gets) {
        prepare_gets(&libs[0], argv[5], buf, n, folder, "a");
        prepare_gets(&libs[1], argv[5], buf, n, folder, "b");
    }
    for (r = 0; r < reps; r++) {
        if (gets) {
            run_gets(&libs[r & 1], argv[5]);
            run_gets(&libs[1 - (r & 1)], argv[5]);
        } else if (imports) {
            run_import(&libs[r & 1], argv[5], buf, n, folder);
            run_import(&libs[1 - (r & 1)], argv[5], buf, n, folder);
        } else {
            run(&libs[r & 1], argv[5], buf, n);
            run(&libs[1 - (r & 1)], argv[5], buf, n);
        }
    }
    if (gets) {
        remove_file(libs[0].file);
        remove_file(libs[1].file);
        json_decref(libs[0].keys);
        json_decref(libs[1].keys);
    }
    if (imports || gets)
        rmdir(folder);
    /* the mean is of the map and release for map_manyb, of the whole round otherwise */
    const char *mean = imports || gets ? "mean" : "map + release mean";
    printf("A best %.2f ms (%s %.2f)  B best %.2f ms (%s %.2f)  B/A %.3f\n", libs[0].best * 1e3, mean,
           libs[0].total / reps * 1e3, libs[1].best * 1e3, mean, libs[1].total / reps * 1e3,
           libs[1].best / libs[0].best);
    free(buf);
    return 0;
}
