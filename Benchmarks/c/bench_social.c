/*
 * bench_social.c - the second payload (Benchmarks/README.md, "The social
 * payload"): a JSON array of large status objects of which the schema maps
 * 12 fields each. Through the public C API only, so it measures whatever
 * backs strata_map_manyb (jansson + the DOM mapper, or the byte parser).
 *
 *   bench_social PAYLOAD LINES SCHEMA MODEL [REPETITIONS [PREFIX]]
 *
 * PREFIX names the rows (default "social"; scripts/bench runs it on the
 * search payload too, as "search").
 *
 * Rows (best and median of REPETITIONS after one warm-up):
 *   json_loadb          jansson, bytes -> DOM (the yardstick)
 *   strata_map_manyb    bytes -> models in one call
 *   map_manyb_busy_heap the same call, each time just after a jansson DOM of
 *                       the payload was built and freed (as a server that
 *                       parses and frees documents all day leaves malloc's heap)
 *   map_manyb_file      the array read whole through a FILE * (fmemopen, one
 *                       fread into a buffer, as a program reading a file
 *                       does), then strata_map_manyb: the yardstick of the
 *                       FILE * rows below, which pay the same copy
 *   strata_map_many     DOM -> models (the DOM path, parse not counted)
 *   map_lines_file      the same records one per line (LINES), from memory
 *                       through a FILE * (fmemopen), each model freed as it comes
 *   map_lines_kept      the same, each model kept (freed after timing) as the
 *                       array's are: the same work as map_manyb, record for record
 *   lines_feed_kept     the same records handed to strata_lines_feed in one
 *                       piece (no copy through a FILE *), models kept
 * Output: one fact a line, "time KEY BEST MEDIAN REPS", for Benchmarks/run.py
 * style tables (scripts/bench prints it as it is), then "ratio A/B X" lines:
 * the JSON lines rows against the array (issue 14's target: within 1.2x).
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata.h>
#include <time.h>

#include "bench_file.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Prints one row; returns the best time. */
static const char *prefix = "social";

static double report(const char *key, double *t, int n, size_t bytes) {
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("time %s_%s %.6f %.6f %d  (%.1f MB/s)\n", prefix, key, t[0], t[n / 2], n, (double)bytes / 1e6 / t[0]);
    return t[0];
}

/* Releases the models of a strata_map_many(b) call and their array. */
static void release_models(strata_model_t **ms, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        strata_model_decref(ms[i]);
    strata_free(ms);
}

static int on_model(strata_model_t *model, size_t line, void *data) {
    (void)line;
    ++*(size_t *)data;
    strata_model_decref(model);
    return 0;
}

/* Keeps each model, as strata_map_manyb's array does (freed after timing). */
struct kept {
    strata_model_t **models;
    size_t count, capacity;
};

static int on_model_kept(strata_model_t *model, size_t line, void *data) {
    struct kept *k = data;
    (void)line;
    if (k->count == k->capacity) {
        size_t capacity = k->capacity ? k->capacity * 2 : 1024;
        strata_model_t **grown = realloc(k->models, capacity * sizeof *grown);
        if (grown == NULL) {
            strata_model_decref(model);
            return 1;
        }
        k->models = grown;
        k->capacity = capacity;
    }
    k->models[k->count++] = model;
    return 0;
}

/* Checks that a timed run made `expected` models (`n`: its result), then
   releases them; 1 with a message on stderr when it did not. */
static int kept_release(struct kept *k, int64_t n, size_t expected, const char *what, const strata_error_t *err) {
    size_t i;
    int failed = n < 0 || k->count != expected;
    if (failed)
        fprintf(stderr, "bench_social: %s: %s (%zu models)\n", what, err->message, k->count);
    for (i = 0; i < k->count; i++)
        strata_model_decref(k->models[i]);
    free(k->models);
    return failed;
}

static int on_error(const json_t *errors, size_t line, void *data) {
    (void)data;
    fprintf(stderr, "bench_social: line %zu: %s\n", line,
            json_string_value(json_object_get(json_array_get(errors, 0), "message")));
    return 1;
}

/* One strata_map_manyb call of `model` on `buf`, its models released: its
   time in seconds (exits on failure). With `busy`, a jansson DOM of `buf` is
   built and freed first, as a server leaves malloc's heap all day. */
static double timed_manyb(strata_schema_t *schema, const char *model, const char *buf, size_t len, int busy,
                          size_t *count) {
    strata_error_t err;
    strata_model_t **ms;
    double t0, t1;
    if (busy) {
        json_error_t jerr;
        json_t *dom = json_loadb(buf, len, 0, &jerr);
        if (dom == NULL) {
            fprintf(stderr, "bench_social: %s\n", jerr.text);
            exit(1);
        }
        json_decref(dom);
    }
    t0 = now();
    ms = strata_map_manyb(schema, model, buf, len, count, &err);
    t1 = now();
    if (ms == NULL) {
        fprintf(stderr, "bench_social: map_manyb: %s at %s\n", err.message, err.path);
        exit(1);
    }
    release_models(ms, *count);
    return t1 - t0;
}

int main(int argc, char **argv) {
    size_t len, lines_len, count = 0;
    char *buf, *lines;
    strata_error_t err;
    strata_schema_t *schema;
    int reps, r;
    double *t, best_manyb, best_manyb_file, best_lines_file, best_lines_kept, best_feed_kept;
    if (argc < 5) {
        fprintf(stderr, "usage: %s PAYLOAD LINES SCHEMA MODEL [REPETITIONS [PREFIX]]\n", argv[0]);
        return 2;
    }
    reps = argc > 5 ? atoi(argv[5]) : 5;
    if (argc > 6)
        prefix = argv[6];
    if (reps < 1)
        reps = 1;
    t = calloc((size_t)reps, sizeof *t);
    buf = bench_read_file("bench_social", argv[1], &len);
    lines = bench_read_file("bench_social", argv[2], &lines_len);
    schema = strata_schema_load_file(argv[3], &err);
    if (schema == NULL) {
        fprintf(stderr, "bench_social: %s: %s\n", argv[3], err.message);
        return 1;
    }
    printf("info %s_payload %zu bytes\n", prefix, len);

    /* json_loadb */
    for (r = -1; r < reps; r++) {
        json_error_t jerr;
        double t0 = now();
        json_t *dom = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        double t1 = now();
        if (dom == NULL) {
            fprintf(stderr, "bench_social: %s\n", jerr.text);
            return 1;
        }
        json_decref(dom);
        if (r >= 0)
            t[r] = t1 - t0;
    }
    report("json_loadb", t, reps, len);

    /* strata_map_manyb */
    for (r = -1; r < reps; r++) {
        double took = timed_manyb(schema, argv[4], buf, len, 0, &count);
        if (r >= 0)
            t[r] = took;
    }
    best_manyb = report("strata_map_manyb", t, reps, len);
    printf("info %s_models %zu\n", prefix, count);

    /* the same call in a busy heap: a DOM of the payload built and freed first */
    for (r = -1; r < reps; r++) {
        double took = timed_manyb(schema, argv[4], buf, len, 1, &count);
        if (r >= 0)
            t[r] = took;
        else /* the first call after the process's first freed DOM: not in the best */
            printf("info %s_map_manyb_busy_heap_first %.6f\n", prefix, took);
    }
    printf("ratio busy_heap/map_manyb %.2f\n", report("strata_map_manyb_busy_heap", t, reps, len) / best_manyb);

    /* the array read whole through a FILE *, then strata_map_manyb */
    for (r = -1; r < reps; r++) {
        FILE *f = fmemopen(buf, len, "rb");
        double t0 = now();
        char *copy = malloc(len);
        size_t got = copy != NULL && f != NULL ? fread(copy, 1, len, f) : 0;
        strata_model_t **ms = got == len ? strata_map_manyb(schema, argv[4], copy, len, &count, &err) : NULL;
        double t1 = now();
        free(copy);
        if (f != NULL)
            fclose(f);
        if (ms == NULL) {
            fprintf(stderr, "bench_social: map_manyb (FILE *): %s\n", err.message);
            return 1;
        }
        release_models(ms, count);
        if (r >= 0)
            t[r] = t1 - t0;
    }
    best_manyb_file = report("strata_map_manyb_file", t, reps, len);

    /* strata_map_many on a parsed DOM */
    {
        json_error_t jerr;
        json_t *dom = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        for (r = -1; r < reps; r++) {
            double t0 = now();
            strata_model_t **ms = strata_map_many(schema, argv[4], dom, &count, &err);
            double t1 = now();
            if (ms == NULL) {
                fprintf(stderr, "bench_social: map_many: %s\n", err.message);
                return 1;
            }
            release_models(ms, count);
            if (r >= 0)
                t[r] = t1 - t0;
        }
        json_decref(dom);
        report("strata_map_many_dom", t, reps, len);
    }

    /* the same records as JSON lines, from memory */
    for (r = -1; r < reps; r++) {
        size_t made = 0;
        FILE *f = fmemopen(lines, lines_len, "rb");
        double t0 = now();
        int64_t n = strata_map_lines_file(schema, argv[4], f, 0, on_model, on_error, &made, &err);
        double t1 = now();
        fclose(f);
        if (n < 0 || made != count) {
            fprintf(stderr, "bench_social: map_lines_file: %s (%zu models)\n", err.message, made);
            return 1;
        }
        if (r >= 0)
            t[r] = t1 - t0;
    }
    best_lines_file = report("strata_map_lines_file", t, reps, lines_len);

    /* the same, each model kept as the array keeps them (freed after timing):
       the same work as strata_map_manyb above, record for record */
    for (r = -1; r < reps; r++) {
        struct kept k = {NULL, 0, 0};
        FILE *f = fmemopen(lines, lines_len, "rb");
        double t0 = now();
        int64_t n = strata_map_lines_file(schema, argv[4], f, 0, on_model_kept, on_error, &k, &err);
        double t1 = now();
        fclose(f);
        if (kept_release(&k, n, count, "map_lines_file (kept)", &err) != 0)
            return 1;
        if (r >= 0)
            t[r] = t1 - t0;
    }
    best_lines_kept = report("strata_map_lines_kept", t, reps, lines_len);

    /* the same records fed from memory in one piece (strata_lines_feed: no
       copy through a FILE *), each model kept as above */
    for (r = -1; r < reps; r++) {
        struct kept k = {NULL, 0, 0};
        double t0 = now();
        strata_lines_t *ln = strata_lines_new(schema, argv[4], 0, &err);
        int64_t n = ln ? strata_lines_feed(ln, lines, lines_len, on_model_kept, on_error, &k, &err) : -1;
        if (n >= 0)
            n = strata_lines_finish(ln, on_model_kept, on_error, &k, &err);
        double t1 = now();
        strata_lines_free(ln);
        if (kept_release(&k, n, count, "lines_feed", &err) != 0)
            return 1;
        if (r >= 0)
            t[r] = t1 - t0;
    }
    best_feed_kept = report("strata_lines_feed_kept", t, reps, lines_len);

    /* JSON lines against the array: from memory against from memory, and
       through a FILE * against the array read through a FILE * */
    printf("ratio lines_feed_kept/map_manyb %.2f\n", best_feed_kept / best_manyb);
    printf("ratio map_lines_kept/map_manyb_file %.2f\n", best_lines_kept / best_manyb_file);
    printf("ratio map_lines_file/map_manyb_file %.2f\n", best_lines_file / best_manyb_file);
    printf("ratio map_lines_kept/map_manyb %.2f\n", best_lines_kept / best_manyb);
    printf("ratio map_lines_file/map_manyb %.2f\n", best_lines_file / best_manyb);

    strata_schema_decref(schema);
    free(buf);
    free(lines);
    free(t);
    return 0;
}
