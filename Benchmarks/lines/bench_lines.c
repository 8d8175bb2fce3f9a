/* bench_lines.c - JSON lines through the C API (Benchmarks/README.md, "JSON lines").
 *   bench_lines SCHEMA ARRAY.json LINES.jsonl REPS   map_manyb on the array vs map_lines on the lines
 *   bench_lines --rss SCHEMA FILE.jsonl             map_lines_file over FILE, then models and peak RSS */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    char *data;
    long size;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    data = malloc((size_t)size + 1);
    *length = fread(data, 1, (size_t)size, f);
    fclose(f);
    return data;
}

static int drop(strata_model_t *model, size_t line, void *data) {
    (void)line;
    (void)data;
    strata_model_decref(model);
    return 0;
}

static int count_error(const json_t *errors, size_t line, void *data) {
    (void)errors;
    (void)line;
    ++*(size_t *)data;
    return 0;
}

int main(int argc, char **argv) {
    strata_error_t err;
    if (argc == 4 && strcmp(argv[1], "--rss") == 0) {
        strata_schema_t *schema = strata_schema_load_file(argv[2], &err);
        FILE *f = fopen(argv[3], "rb");
        size_t bad = 0;
        double start = now();
        struct rusage usage;
        int64_t n;
        if (!schema || !f) return 1;
        n = strata_map_lines_file(schema, "GHIssue", f, 0, drop, count_error, &bad, &err);
        getrusage(RUSAGE_SELF, &usage);
        printf("%lld models, %zu bad lines, %.1f s, peak RSS %ld MB\n", (long long)n, bad, now() - start,
               usage.ru_maxrss / 1024);
        return n > 0 ? 0 : 1;
    }
    if (argc == 5) {
        strata_schema_t *schema = strata_schema_load_file(argv[1], &err);
        size_t array_length, lines_length, count, i;
        char *array = slurp(argv[2], &array_length), *lines = slurp(argv[3], &lines_length);
        int reps = atoi(argv[4]), r;
        double best_many = 1e9, best_lines = 1e9;
        if (!schema || !array || !lines) return 1;
        for (r = 0; r < reps; r++) {
            double start = now(), t;
            strata_model_t **models = strata_map_manyb(schema, "GHIssue", array, array_length, &count, &err);
            if (!models) return 1;
            for (i = 0; i < count; i++) strata_model_decref(models[i]);
            strata_free(models);
            t = now() - start;
            if (t < best_many) best_many = t;
        }
        for (r = 0; r < reps; r++) {
            FILE *f = fmemopen(lines, lines_length, "rb");
            double start = now(), t;
            int64_t n = strata_map_lines_file(schema, "GHIssue", f, 0, drop, NULL, NULL, &err);
            t = now() - start;
            fclose(f);
            if (n != (int64_t)count) return 1;
            if (t < best_lines) best_lines = t;
        }
        printf("map_manyb (array)  %8.1f ms\nmap_lines (lines)  %8.1f ms\nratio lines/array  %8.2f\n",
               best_many * 1e3, best_lines * 1e3, best_lines / best_many);
        return 0;
    }
    fprintf(stderr, "usage: bench_lines SCHEMA ARRAY LINES REPS | --rss SCHEMA FILE\n");
    return 64;
}
