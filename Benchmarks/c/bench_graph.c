/*
 * bench_graph.c - the object graph (issue 13) on the issues payload
 * (Benchmarks/README.md, "The object graph"): 20,000 issues whose users and
 * labels repeat, imported into graph contexts through the public C API, next
 * to strata_map_manyb of the same bytes in the same run.
 *
 *   bench_graph PAYLOAD SCHEMA MODEL [REPETITIONS]
 *
 * Rows (best and median of REPETITIONS after one warm-up):
 *   map_manyb            bytes -> models (the yardstick)
 *   import_memory        bytes -> a fresh in-memory context
 *   import_file          bytes -> a fresh SQLite file context
 *   reimport_memory      the same bytes again into the same context (all updates)
 *   reimport_file        likewise on the file
 *   get_memory           strata_context_get of every issue and user key (lookups/s)
 *   get_file             the same on the file, reopened
 *   rss_trees, rss_graph the resident memory the models of map_manyb, and the
 *                        in-memory graph, take (each measured in its own child)
 * Targets: import_memory <= 1.5x map_manyb, import_file <= 3x,
 * reimport <= 1.0x import, get >= 1 M/s in memory and >= 200 k/s from a
 * reopened file, rss_graph <= 1.5x rss_trees.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "bench_graph: cannot read %s\n", path);
        exit(1);
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "bench_graph: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double report(const char *key, double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("time %-16s %.4f %.4f %d\n", key, t[0], t[n / 2], n);
    return t[0];
}

static const char *payload_path, *model;
static char *payload;
static size_t payload_length;
static strata_schema_t *schema;

static void release_all(strata_model_t **models, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        strata_model_decref(models[i]);
    strata_free(models);
}

static void fail(const char *what, const strata_error_t *err) {
    fprintf(stderr, "bench_graph: %s: %s %s\n", what, err->path, err->message);
    exit(1);
}

/* Imports the payload; exits on failure. */
static void import_payload(strata_context_t *context) {
    strata_error_t err;
    size_t count = 0;
    strata_model_t **records =
        strata_context_importb(context, model, payload, payload_length, NULL, NULL, NULL, &count, NULL, &err);
    if (records == NULL)
        fail("import", &err);
    release_all(records, count);
}

static void remove_files(const char *path) {
    const char *suffixes[] = {"", "-wal", "-shm"};
    char name[256];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

/* Lookups per second: every key in `keys` looked up `loops` times. */
static double lookups(strata_context_t *context, const char *key_model, json_t *keys, int loops) {
    strata_error_t err;
    size_t i, n = json_array_size(keys);
    int loop;
    double start = now();
    for (loop = 0; loop < loops; loop++) {
        for (i = 0; i < n; i++) {
            strata_model_t *record = strata_context_get(context, key_model, json_array_get(keys, i), &err);
            if (record == NULL)
                fail("get", &err);
            strata_model_decref(record);
        }
    }
    return (double)n * loops / (now() - start);
}

/* The keys of every record of `key_model` (new reference). */
static json_t *keys_of(strata_context_t *context, const char *key_model) {
    strata_error_t err;
    size_t count = 0, i;
    strata_model_t **all = strata_context_all(context, key_model, &count, &err);
    json_t *keys = json_array();
    for (i = 0; all != NULL && i < count; i++)
        json_array_append_new(keys, strata_record_key(all[i]));
    release_all(all, count);
    return keys;
}

static long resident_kb(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* In a fresh process (`bench_graph PAYLOAD SCHEMA MODEL 1 rss-trees|rss-graph`):
   prints the resident memory (KB) that holding the result of map_manyb, or
   of an import into a memory context, adds. */
static int measure_rss(int graph) {
    strata_error_t err;
    long before = resident_kb(), after;
    size_t count = 0;
    strata_model_t **models = NULL;
    strata_context_t *context = NULL;
    if (graph) {
        context = strata_context_open(schema, NULL, &err);
        import_payload(context);
    } else {
        models = strata_map_manyb(schema, model, payload, payload_length, &count, &err);
        if (models == NULL)
            fail("map_manyb", &err);
    }
    after = resident_kb();
    printf("%ld\n", after - before);
    if (models != NULL)
        release_all(models, count);
    strata_context_decref(context);
    return 0;
}

/* Runs this program again to measure one kind of result's memory (KB), or -1. */
static long held_kb(const char *self, const char *schema_path, const char *mode) {
    char command[2048];
    long kb = -1;
    FILE *child;
    snprintf(command, sizeof command, "'%s' '%s' '%s' '%s' 1 %s", self, payload_path, schema_path, model, mode);
    child = popen(command, "r");
    if (child == NULL)
        return -1;
    if (fscanf(child, "%ld", &kb) != 1)
        kb = -1;
    pclose(child);
    return kb;
}

int main(int argc, char **argv) {
    strata_error_t err;
    int reps, r;
    double *t, map, mem, file, re_mem, re_file;
    char folder[] = "/tmp/strata-bench-graph-XXXXXX", path[128];
    strata_context_t *context;
    json_t *issue_keys, *user_keys;
    double get_mem, get_user_mem, get_file;
    long trees_kb, graph_kb;
    if (argc < 4) {
        fprintf(stderr, "usage: bench_graph PAYLOAD SCHEMA MODEL [REPETITIONS]\n");
        return 2;
    }
    payload_path = argv[1];
    model = argv[3];
    reps = argc > 4 ? atoi(argv[4]) : 5;
    if (reps < 1)
        reps = 1;
    payload = read_file(payload_path, &payload_length);
    schema = strata_schema_load_file(argv[2], &err);
    if (schema == NULL)
        fail("schema", &err);
    if (argc > 5)
        return measure_rss(strcmp(argv[5], "rss-graph") == 0);
    if (mkdtemp(folder) == NULL)
        return 1;
    snprintf(path, sizeof path, "%s/graph.db", folder);
    t = calloc((size_t)reps + 1, sizeof *t);

    for (r = 0; r <= reps; r++) {
        size_t count = 0;
        double start = now();
        strata_model_t **models = strata_map_manyb(schema, model, payload, payload_length, &count, &err);
        double took = now() - start;
        if (models == NULL)
            fail("map_manyb", &err);
        release_all(models, count);
        if (r > 0)
            t[r - 1] = took;
    }
    map = report("map_manyb", t, reps);

    for (r = 0; r <= reps; r++) {
        double start;
        context = strata_context_open(schema, NULL, &err);
        start = now();
        import_payload(context);
        if (r > 0)
            t[r - 1] = now() - start;
        strata_context_decref(context);
    }
    mem = report("import_memory", t, reps);

    for (r = 0; r <= reps; r++) {
        double start;
        remove_files(path);
        context = strata_context_open(schema, path, &err);
        if (context == NULL)
            fail("open", &err);
        start = now();
        import_payload(context);
        if (r > 0)
            t[r - 1] = now() - start;
        strata_context_decref(context);
    }
    file = report("import_file", t, reps);

    context = strata_context_open(schema, NULL, &err);
    import_payload(context);
    for (r = 0; r <= reps; r++) {
        double start = now();
        import_payload(context);
        if (r > 0)
            t[r - 1] = now() - start;
    }
    re_mem = report("reimport_memory", t, reps);
    issue_keys = keys_of(context, model);
    user_keys = keys_of(context, "GHUser");
    get_mem = lookups(context, model, issue_keys, 20);
    get_user_mem = lookups(context, "GHUser", user_keys, 100);
    strata_context_decref(context);

    context = strata_context_open(schema, path, &err); /* the file of the last import_file */
    for (r = 0; r <= reps; r++) {
        double start = now();
        import_payload(context);
        if (r > 0)
            t[r - 1] = now() - start;
    }
    re_file = report("reimport_file", t, reps);
    strata_context_decref(context);
    context = strata_context_open(schema, path, &err);
    if (context == NULL)
        fail("reopen", &err);
    get_file = lookups(context, model, issue_keys, 5);
    strata_context_decref(context);

    trees_kb = held_kb(argv[0], argv[2], "rss-trees");
    graph_kb = held_kb(argv[0], argv[2], "rss-graph");

    printf("rate get_memory     %.0f lookups/s (issues), %.0f lookups/s (users)\n", get_mem, get_user_mem);
    printf("rate get_file       %.0f lookups/s (issues, reopened file)\n", get_file);
    printf("memory rss_trees    %ld KB\nmemory rss_graph    %ld KB\n", trees_kb, graph_kb);
    printf("ratio import_memory / map_manyb   %.2fx  (target <= 1.5)\n", mem / map);
    printf("ratio import_file / map_manyb     %.2fx  (target <= 3)\n", file / map);
    printf("ratio reimport_memory / import    %.2fx  (target <= 1.0)\n", re_mem / mem);
    printf("ratio reimport_file / import      %.2fx  (target <= 1.0)\n", re_file / file);
    printf("ratio get_memory                  %.2f M/s  (target >= 1)\n", get_mem / 1e6);
    printf("ratio get_file                    %.0f k/s  (target >= 200)\n", get_file / 1e3);
    printf("ratio rss_graph / rss_trees       %.2fx  (target <= 1.5)\n",
           trees_kb > 0 ? (double)graph_kb / (double)trees_kb : 0.0);

    json_decref(issue_keys);
    json_decref(user_keys);
    remove_files(path);
    rmdir(folder);
    strata_schema_decref(schema);
    free(t);
    free(payload);
    return 0;
}
