/*
 * bench_graph.c - the object graph (issue 13) on the issues payload
 * (Benchmarks/README.md, "The object graph"): 20,000 issues whose users and
 * labels repeat, imported into graph contexts through the public C API, next
 * to strata_map_manyb of the same bytes in the same run.
 *
 *   bench_graph PAYLOAD SCHEMA MODEL [REPETITIONS]
 *   bench_graph PAYLOAD SCHEMA MODEL N import-memory   (N in-memory imports, nothing else: for perf)
 *   bench_graph PAYLOAD SCHEMA MODEL N import-file     (N imports into new files, nothing else: for perf)
 *   bench_graph PAYLOAD SCHEMA MODEL N get-cold        (one import into a file, then N passes of gets of
 *                                                       every issue, each pass in a newly opened context)
 *   bench_graph PAYLOAD SCHEMA MODEL N get-cold-block  (the same, each pass in one read block)
 *   bench_graph PAYLOAD SCHEMA MODEL N get-cached      (one import into memory, then N passes of gets of
 *                                                       every key, all cached; with BENCH_GET_FILE set,
 *                                                       into a file opened again and cached by all())
 *                                                      (the gets are of BENCH_GET_MODEL's records when set;
 *                                                       with BENCH_FILE set, the cold and cached modes read
 *                                                       that file, imported before, and import nothing)
 *   bench_graph PAYLOAD SCHEMA MODEL 1 rss-trees|rss-graph (a child of the first form)
 *
 * Times are best and median of REPETITIONS after one warm-up that is not
 * counted; every figure comes from this one run:
 *   map_manyb        bytes -> models (the yardstick)
 *   import_memory    bytes -> a fresh in-memory context (a new one each repetition)
 *   import_file      bytes -> a fresh SQLite file context (a new file each repetition)
 *   reimport_*       the same bytes again into the context just imported into
 *                    (every record found, nothing made)
 *   get_*            strata_context_get of every issue key, and of every user
 *                    key, each record released: in memory, and on the file
 *                    closed and opened again
 *   rss_trees/graph  how much the resident set (/proc/self/statm) grows while
 *                    the models of map_manyb, or an in-memory graph, are held:
 *                    each in a child process of its own
 * Targets: import_memory <= 1.5x map_manyb, import_file <= 3x, reimport
 * <= 1.0x the first import, get >= 1 M/s in memory and >= 200 k/s from a
 * reopened file, rss_graph <= 1.5x rss_trees.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_file.h"

/* Passes over the keys per timed repetition of the lookups (about 20-60 ms each). */
#define ISSUE_PASSES 5
#define USER_PASSES 50

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Best and median of `n` samples (sorted in place). */
typedef struct {
    double best, median;
} stat_t;

static stat_t stats(double *t, int n) {
    stat_t s;
    qsort(t, (size_t)n, sizeof *t, cmp);
    s.best = t[0];
    s.median = t[n / 2];
    return s;
}

/* Highest rate and median rate of `n` samples. */
static stat_t rate_stats(double *t, int n) {
    stat_t s;
    qsort(t, (size_t)n, sizeof *t, cmp);
    s.best = t[n - 1];
    s.median = t[(n - 1) / 2];
    return s;
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
    fprintf(stderr, "bench_graph: %s: %s %s %s\n", what, err->code_name, err->path, err->message);
    exit(1);
}

static strata_context_t *open_context(const char *path) {
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, path, &err);
    if (context == NULL)
        fail(path ? "open file" : "open memory", &err);
    return context;
}

/* Imports the payload and releases the records it returns; exits on failure.
   With `report` non-NULL, *report is the import's report. */
static void import_payload(strata_context_t *context, json_t **report) {
    strata_error_t err;
    size_t count = 0;
    strata_model_t **records =
        strata_context_importb(context, model, payload, payload_length, NULL, NULL, NULL, &count, report, &err);
    if (records == NULL)
        fail("import", &err);
    release_all(records, count);
}

static void remove_files(const char *path) {
    const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
    char name[512];
    int i;
    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

/* Lookups per second: every key of `keys` looked up `passes` times, each
   record released; inside one read block (strata_context_begin_read) when
   `block`. */
static double lookups(strata_context_t *context, const char *key_model, json_t *keys, int passes, int block) {
    strata_error_t err;
    size_t i, n = json_array_size(keys);
    int pass;
    double start = now(), rate;
    if (block && strata_context_begin_read(context, &err) != 0)
        fail("begin_read", &err);
    for (pass = 0; pass < passes; pass++) {
        for (i = 0; i < n; i++) {
            strata_model_t *record = strata_context_get(context, key_model, json_array_get(keys, i), &err);
            if (record == NULL) {
                if (err.code == STRATA_OK)
                    snprintf(err.message, sizeof err.message, "no %s record under a key it listed", key_model);
                fail("get", &err);
            }
            strata_model_decref(record);
        }
    }
    if (block && strata_context_end_read(context, &err) != 0)
        fail("end_read", &err);
    rate = (double)n * passes / (now() - start);
    return rate;
}

/* Best and median lookup rate over `reps` timed repetitions after a warm-up. */
static stat_t time_lookups(strata_context_t *context, const char *key_model, json_t *keys, int passes, int reps,
                           double *t, int block) {
    int r;
    for (r = 0; r <= reps; r++) {
        double rate = lookups(context, key_model, keys, passes, block);
        if (r > 0)
            t[r - 1] = rate;
    }
    return rate_stats(t, reps);
}

/* The keys of every record of `key_model` (new reference). */
static json_t *keys_of(strata_context_t *context, const char *key_model) {
    strata_error_t err;
    size_t count = 0, i;
    strata_model_t **all = strata_context_all(context, key_model, &count, &err);
    json_t *keys = json_array();
    if (all == NULL)
        fail("all", &err);
    for (i = 0; i < count; i++)
        json_array_append_new(keys, strata_record_key(all[i]));
    release_all(all, count);
    return keys;
}

static long long count_of(strata_context_t *context, const char *of) {
    strata_error_t err;
    long long n = strata_context_count(context, of, &err);
    if (n < 0)
        fail("count", &err);
    return n;
}

/* The sum of the numbers in the object `report[key]` (counts by model). */
static long long report_total(json_t *report, const char *key) {
    const char *name;
    json_t *value;
    long long total = 0;
    json_object_foreach(json_object_get(report, key), name, value) {
        (void)name;
        total += json_integer_value(value);
    }
    return total;
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

static long peak_kb(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

/* In a fresh process (`... 1 rss-trees|rss-graph`): prints how much the
   resident set grew (KB) while holding the result of map_manyb, or of an
   import into a memory context (its records released: the context holds
   the graph), then the rise of the peak resident set over the start. */
static int measure_rss(int graph) {
    strata_error_t err;
    long before = resident_kb(), after, peak;
    size_t count = 0;
    strata_model_t **models = NULL;
    strata_context_t *context = NULL;
    if (graph) {
        context = open_context(NULL);
        import_payload(context, NULL);
    } else {
        models = strata_map_manyb(schema, model, payload, payload_length, &count, &err);
        if (models == NULL)
            fail("map_manyb", &err);
    }
    after = resident_kb();
    peak = peak_kb();
    printf("%ld %ld\n", after - before, peak - before);
    if (models != NULL)
        release_all(models, count);
    strata_context_decref(context);
    return 0;
}

/* Runs this program again to measure one kind of result's memory (KB);
   -1 when the child fails. */
static void held_kb(const char *self, const char *schema_path, const char *mode, long *held, long *peak) {
    char command[4096];
    FILE *child;
    *held = *peak = -1;
    snprintf(command, sizeof command, "'%s' '%s' '%s' '%s' 1 %s", self, payload_path, schema_path, model, mode);
    child = popen(command, "r");
    if (child == NULL)
        return;
    if (fscanf(child, "%ld %ld", held, peak) != 2)
        *held = *peak = -1;
    pclose(child);
}

/* `n` in-memory imports (a fresh context each), nothing else: what perf
   records. As in the timed rows, releasing a context is not part of an
   import: the contexts are kept until the process exits, never released. */
static int profile_import(int n) {
    int r;
    double start = now();
    for (r = 0; r < n; r++)
        import_payload(open_context(NULL), NULL);
    printf("%d in-memory imports in %.3f s\n", n, now() - start);
    fflush(stdout);
    _exit(0);
}

/* `n` imports, each into a new file in a fresh folder (the contexts kept,
   as above; the folders left for the caller to delete): what perf records
   for the file import. */
static int profile_import_file(int n) {
    int r;
    char folder[64], path[128];
    double start = now();
    for (r = 0; r < n; r++) {
        snprintf(folder, sizeof folder, "/tmp/strata-bench-profile-XXXXXX");
        if (mkdtemp(folder) == NULL) {
            perror("bench_graph: mkdtemp");
            return 1;
        }
        snprintf(path, sizeof path, "%s/graph.db", folder);
        import_payload(open_context(path), NULL);
    }
    printf("%d file imports in %.3f s\n", n, now() - start);
    fflush(stdout);
    _exit(0);
}

/* The model whose keys the profile modes get (BENCH_GET_MODEL, or MODEL). */
static const char *get_model(void) { return getenv("BENCH_GET_MODEL") ? getenv("BENCH_GET_MODEL") : model; }

/* Writes `path` (in a new folder, `folder` a mkdtemp template) as one import
   of the payload leaves it, the keys of get_model()'s records in `keys`
   (new reference); exits on failure. */
static void imported_file(char *folder, char *path, size_t size, json_t **keys) {
    strata_context_t *context;
    if (getenv("BENCH_FILE") != NULL) {
        /* a file imported before (by an earlier run): nothing but the gets is profiled */
        snprintf(path, size, "%s", getenv("BENCH_FILE"));
        context = open_context(path);
        *keys = keys_of(context, get_model());
        strata_context_decref(context);
        return;
    }
    if (mkdtemp(folder) == NULL) {
        perror("bench_graph: mkdtemp");
        exit(1);
    }
    snprintf(path, size, "%s/graph.db", folder);
    context = open_context(path);
    import_payload(context, NULL);
    *keys = keys_of(context, get_model());
    strata_context_decref(context);
}

/* One import into a new file, then `n` passes of strata_context_get over
   every issue key, each pass in a context opened again (every record read
   from the file's tables): what perf records for a cold lookup. */
static int profile_get_cold(int n, int block) {
    int r;
    char folder[] = "/tmp/strata-bench-profile-XXXXXX", path[128];
    strata_context_t *context;
    json_t *keys;
    double start;
    imported_file(folder, path, sizeof path, &keys);
    start = now();
    for (r = 0; r < n; r++) {
        context = open_context(path);
        lookups(context, get_model(), keys, 1, block);
        strata_context_decref(context);
    }
    printf("%d passes of %zu cold gets%s in %.3f s\n", n, json_array_size(keys), block ? " in read blocks" : "",
           now() - start);
    fflush(stdout);
    _exit(0);
}

/* N passes of gets of every key from an in-memory context (all cached), for
   perf and callgrind (`--toggle-collect=lookups`). */
static int profile_get_cached(int n) {
    strata_context_t *context;
    json_t *keys;
    double rate;
    char folder[] = "/tmp/strata-bench-profile-XXXXXX", path[128];
    if (getenv("BENCH_GET_FILE") == NULL) {
        context = open_context(NULL);
        import_payload(context, NULL);
        keys = keys_of(context, get_model());
    } else {
        /* a file imported into, then opened again and cached by all() */
        imported_file(folder, path, sizeof path, &keys);
        context = open_context(path);
        json_decref(keys);
        keys = keys_of(context, get_model());
    }
    rate = lookups(context, get_model(), keys, n, 0);
    printf("%d passes of %zu cached gets: %.0f/s\n", n, json_array_size(keys), rate);
    fflush(stdout);
    _exit(0);
}

/* ---- the table ---- */

static const char *verdict(int met) { return met ? "met" : "NOT MET"; }

static void rule(void) {
    printf("------------------------------------------------------------------------------------------------------"
           "------------\n");
}

/* A row: its figures, then the ratio, the target and whether it is met when there is one. */
static void time_row(const char *what, stat_t s, const char *ratio, const char *target, int met) {
    printf("%-54s %10.1f %10.1f", what, s.best * 1e3, s.median * 1e3);
    if (target[0])
        printf(" %8s  %-24s %s\n", ratio, target, verdict(met));
    else if (ratio[0])
        printf(" %8s\n", ratio);
    else
        printf("\n");
}

/* SQLite alone, by hand: what a cold get cannot beat. For each key of
   `keys` (integers), the record's row of `table` (every column read) and,
   when `links` is given, its rows there in order; with `each` a read
   transaction per key (BEGIN ... COMMIT, as a get outside a read block
   takes one), else one around them all. Returns keys per second. */
static double sqlite_floor(const char *file, const char *table, const char *key, const char *links, json_t *keys,
                           int each) {
    sqlite3 *db;
    sqlite3_stmt *row = NULL, *link = NULL, *begin = NULL, *commit = NULL;
    char sql[256];
    size_t i, n = json_array_size(keys);
    long long sum = 0;
    double start, rate;
    if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_graph: sqlite3_open_v2 %s: %s\n", file, sqlite3_errmsg(db));
        exit(1);
    }
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" WHERE \"%s\" = ?", table, key);
    if (sqlite3_prepare_v2(db, sql, -1, &row, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "BEGIN", -1, &begin, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_graph: %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    if (links != NULL) {
        snprintf(sql, sizeof sql, "SELECT target FROM \"%s\" WHERE owner = ? ORDER BY position", links);
        if (sqlite3_prepare_v2(db, sql, -1, &link, NULL) != SQLITE_OK) {
            fprintf(stderr, "bench_graph: %s: %s\n", sql, sqlite3_errmsg(db));
            exit(1);
        }
    }
    start = now();
    if (!each)
        sqlite3_step(begin), sqlite3_reset(begin);
    for (i = 0; i < n; i++) {
        sqlite3_int64 k = (sqlite3_int64)json_integer_value(json_array_get(keys, i));
        int c, columns;
        if (each)
            sqlite3_step(begin), sqlite3_reset(begin);
        sqlite3_bind_int64(row, 1, k);
        if (sqlite3_step(row) != SQLITE_ROW) {
            fprintf(stderr, "bench_graph: no row %lld in %s\n", (long long)k, table);
            exit(1);
        }
        columns = sqlite3_column_count(row);
        for (c = 0; c < columns; c++) {
            if (sqlite3_column_type(row, c) == SQLITE_TEXT)
                sum += sqlite3_column_bytes(row, c) + sqlite3_column_text(row, c)[0];
            else
                sum += sqlite3_column_int64(row, c);
        }
        sqlite3_reset(row);
        if (link != NULL) {
            sqlite3_bind_int64(link, 1, k);
            while (sqlite3_step(link) == SQLITE_ROW)
                sum += sqlite3_column_int64(link, 0);
            sqlite3_reset(link);
        }
        if (each)
            sqlite3_step(commit), sqlite3_reset(commit);
    }
    if (!each)
        sqlite3_step(commit), sqlite3_reset(commit);
    rate = (double)n / (now() - start);
    sqlite3_finalize(row);
    sqlite3_finalize(link);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_close(db);
    return sum == 42 ? rate + 1 : rate; /* the sum keeps the reads from being optimized out */
}

static void floor_row(const char *what, stat_t s) {
    printf("%-54s %10.0f %10.0f %8s  %s\n", what, s.best, s.median, "", "(what a cold get cannot beat)");
}

static void rate_row(const char *what, stat_t s, const char *target, int met) {
    printf("%-54s %10.0f %10.0f %8s  %-24s %s\n", what, s.best, s.median, "", target, verdict(met));
}

int main(int argc, char **argv) {
    strata_error_t err;
    int reps, r;
    double *t, *t2;
    stat_t map, mem, file, re_mem, re_file, reopen, read_in;
    stat_t get_issue_mem, get_user_mem, get_issue_file, get_user_file, get_issue_warm, get_user_warm;
    stat_t get_issue_cold_block, get_user_cold_block, get_issue_block, get_user_block;
    stat_t floor_issue_each, floor_user_each, floor_issue_one, floor_user_one;
    char folder[] = "/tmp/strata-bench-graph-XXXXXX", path[256], ratio[32];
    strata_context_t *context;
    json_t *issue_keys, *user_keys, *report = NULL;
    long long issues, users, labels, second_created = -1, second_updated = -1, second_unchanged = -1;
    size_t map_count = 0;
    long trees_kb, graph_kb, trees_peak, graph_peak;
    double r_mem, r_file, r_re_mem, r_re_file, r_rss;
    if (argc < 4) {
        fprintf(stderr, "usage: bench_graph PAYLOAD SCHEMA MODEL [REPETITIONS [import-memory|import-file|get-cold|get-cold-block|get-cached|rss-trees|rss-graph]]\n");
        return 2;
    }
    payload_path = argv[1];
    model = argv[3];
    reps = argc > 4 ? atoi(argv[4]) : 5;
    if (reps < 1)
        reps = 1;
    payload = bench_read_file("bench_graph", payload_path, &payload_length);
    schema = strata_schema_load_file(argv[2], &err);
    if (schema == NULL)
        fail("schema", &err);
    if (argc > 5) {
        if (strcmp(argv[5], "import-memory") == 0)
            return profile_import(reps);
        if (strcmp(argv[5], "import-file") == 0)
            return profile_import_file(reps);
        if (strcmp(argv[5], "get-cold") == 0 || strcmp(argv[5], "get-cold-block") == 0)
            return profile_get_cold(reps, strcmp(argv[5], "get-cold-block") == 0);
        if (strcmp(argv[5], "get-cached") == 0)
            return profile_get_cached(reps);
        if (strcmp(argv[5], "rss-graph") == 0 || strcmp(argv[5], "rss-trees") == 0)
            return measure_rss(strcmp(argv[5], "rss-graph") == 0);
        fprintf(stderr, "bench_graph: unknown mode %s\n", argv[5]);
        return 2;
    }
    if (mkdtemp(folder) == NULL) {
        perror("bench_graph: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/graph.db", folder);
    t = calloc((size_t)reps + 1, sizeof *t);
    t2 = calloc((size_t)reps + 1, sizeof *t2);

    /* 1. The yardstick. */
    for (r = 0; r <= reps; r++) {
        size_t count = 0;
        double start = now();
        strata_model_t **models = strata_map_manyb(schema, model, payload, payload_length, &count, &err);
        double took = now() - start;
        if (models == NULL)
            fail("map_manyb", &err);
        release_all(models, count);
        map_count = count;
        if (r > 0)
            t[r - 1] = took;
    }
    map = stats(t, reps);

    /* 2 and 4. A fresh memory context each repetition: the first import, then
       the same bytes again into it. The warm-up checks the second is all updates. */
    for (r = 0; r <= reps; r++) {
        double start, first;
        context = open_context(NULL);
        start = now();
        import_payload(context, NULL);
        first = now() - start;
        start = now();
        import_payload(context, r == 0 ? &report : NULL);
        if (r == 0) {
            second_created = report_total(report, "created");
            second_updated = report_total(report, "updated");
            second_unchanged = report_total(report, "unchanged");
            json_decref(report);
        } else {
            t[r - 1] = first;
            t2[r - 1] = now() - start;
        }
        strata_context_decref(context);
    }
    mem = stats(t, reps);
    re_mem = stats(t2, reps);

    /* 3 and 4. A fresh file each repetition, likewise; the last one is kept. */
    for (r = 0; r <= reps; r++) {
        double start, first;
        remove_files(path);
        context = open_context(path);
        start = now();
        import_payload(context, NULL);
        first = now() - start;
        start = now();
        import_payload(context, NULL);
        if (r > 0) {
            t[r - 1] = first;
            t2[r - 1] = now() - start;
        }
        strata_context_decref(context);
    }
    file = stats(t, reps);
    re_file = stats(t2, reps);

    /* 5. Lookups in memory, every issue key and every user key. */
    context = open_context(NULL);
    import_payload(context, NULL);
    issues = count_of(context, model);
    users = count_of(context, "GHUser");
    labels = count_of(context, "GHLabel");
    issue_keys = keys_of(context, model);
    user_keys = keys_of(context, "GHUser");
    get_issue_mem = time_lookups(context, model, issue_keys, ISSUE_PASSES, reps, t, 0);
    get_user_mem = time_lookups(context, "GHUser", user_keys, USER_PASSES, reps, t, 0);
    strata_context_decref(context);

    /* 5. The file of the last import_file, closed and opened again. */
    for (r = 0; r <= reps; r++) {
        double start = now();
        context = open_context(path);
        if (r > 0)
            t[r - 1] = now() - start;
        if (r < reps)
            strata_context_decref(context);
    }
    reopen = stats(t, reps);
    if (count_of(context, model) != issues) {
        fprintf(stderr, "bench_graph: the reopened file has %lld issues, not %lld\n", count_of(context, model), issues);
        return 1;
    }
    strata_context_decref(context);
    /* lookups on the file as opened, each record read from its tables: a
       tenth of the keys, in a fresh context each time (a context that reads
       a quarter of the file's records one by one reads the graph in) */
    {
        json_t *some_issues = json_array(), *some_users = json_array();
        size_t i;
        for (i = 0; i < json_array_size(issue_keys) / 10; i++)
            json_array_append(some_issues, json_array_get(issue_keys, i));
        for (i = 0; i < json_array_size(user_keys) / 10; i++)
            json_array_append(some_users, json_array_get(user_keys, i));
        int block;
        for (block = 0; block <= 1; block++) {
            for (r = 0; r <= reps; r++) {
                double rate;
                context = open_context(path);
                rate = lookups(context, model, some_issues, 1, block);
                strata_context_decref(context);
                if (r > 0)
                    t[r - 1] = rate;
            }
            *(block ? &get_issue_cold_block : &get_issue_file) = rate_stats(t, reps);
            for (r = 0; r <= reps; r++) {
                double rate;
                context = open_context(path);
                rate = lookups(context, "GHUser", some_users, 1, block);
                strata_context_decref(context);
                if (r > 0)
                    t[r - 1] = rate;
            }
            *(block ? &get_user_cold_block : &get_user_file) = rate_stats(t, reps);
        }
        /* the same reads by hand through SQLite alone: the floor */
        for (block = 0; block <= 1; block++) {
            for (r = 0; r < reps; r++)
                t[r] = sqlite_floor(path, model, "number", "GHIssue.labels", some_issues, !block);
            *(block ? &floor_issue_one : &floor_issue_each) = rate_stats(t, reps);
            for (r = 0; r < reps; r++)
                t[r] = sqlite_floor(path, "GHUser", "id", NULL, some_users, !block);
            *(block ? &floor_user_one : &floor_user_each) = rate_stats(t, reps);
        }
        json_decref(some_issues);
        json_decref(some_users);
    }
    /* every user and issue read (strata_context_all), then held in the context's cache */
    for (r = 0; r <= reps; r++) {
        strata_error_t err;
        size_t count = 0;
        strata_model_t **all;
        double start;
        context = open_context(path);
        start = now();
        all = strata_context_all(context, "GHUser", &count, &err);
        if (all == NULL)
            fail("all", &err);
        release_all(all, count);
        all = strata_context_all(context, model, &count, &err);
        if (all == NULL)
            fail("all", &err);
        if (r > 0)
            t[r - 1] = now() - start;
        release_all(all, count);
        if (r < reps)
            strata_context_decref(context);
    }
    read_in = stats(t, reps);
    get_issue_warm = time_lookups(context, model, issue_keys, ISSUE_PASSES, reps, t, 0);
    get_user_warm = time_lookups(context, "GHUser", user_keys, USER_PASSES, reps, t, 0);
    get_issue_block = time_lookups(context, model, issue_keys, ISSUE_PASSES, reps, t, 1);
    get_user_block = time_lookups(context, "GHUser", user_keys, USER_PASSES, reps, t, 1);
    strata_context_decref(context);

    /* 6. Memory, each kind in a child of its own. */
    held_kb(argv[0], argv[2], "rss-trees", &trees_kb, &trees_peak);
    held_kb(argv[0], argv[2], "rss-graph", &graph_kb, &graph_peak);

    r_mem = mem.best / map.best;
    r_file = file.best / map.best;
    r_re_mem = re_mem.best / mem.best;
    r_re_file = re_file.best / file.best;
    r_rss = trees_kb > 0 && graph_kb >= 0 ? (double)graph_kb / (double)trees_kb : -1.0;

    printf("object graph: %.1f MB, %zu %s models by map_manyb; graph of %lld issues, %lld users, %lld labels\n",
           (double)payload_length / 1e6, map_count, model, issues, users, labels);
    printf("(best and median of %d after a warm-up; second import: %lld created, %lld updated, %lld unchanged)\n",
           reps, second_created, second_updated, second_unchanged);
    printf("%-54s %10s %10s %8s  %s\n", "measure", "best ms", "median ms", "ratio", "target");
    rule();
    time_row("strata_map_manyb (bytes -> models; the yardstick)", map, "1.00x", "", 0);
    snprintf(ratio, sizeof ratio, "%.2fx", r_mem);
    time_row("import, fresh in-memory context", mem, ratio, "<= 1.5x map_manyb", r_mem <= 1.5);
    snprintf(ratio, sizeof ratio, "%.2fx", r_file);
    time_row("import, fresh SQLite file context", file, ratio, "<= 3x map_manyb", r_file <= 3.0);
    snprintf(ratio, sizeof ratio, "%.2fx", r_re_mem);
    time_row("second import, same in-memory context (updates)", re_mem, ratio, "<= 1.0x first import",
             r_re_mem <= 1.0);
    snprintf(ratio, sizeof ratio, "%.2fx", r_re_file);
    time_row("second import, same file context (updates)", re_file, ratio, "<= 1.0x first import",
             r_re_file <= 1.0);
    time_row("open the file again (reads its metadata only)", reopen, "", "", 0);
    time_row("then read every user and issue (all(), cached)", read_in, "", "", 0);
    printf("\n%-54s %10s %10s %8s  %s\n", "lookups (strata_context_get + decref)", "best /s", "median /s", "",
           "target");
    rule();
    rate_row("in memory, every issue key", get_issue_mem, ">= 1,000,000/s", get_issue_mem.best >= 1e6);
    rate_row("in memory, every user key", get_user_mem, ">= 1,000,000/s", get_user_mem.best >= 1e6);
    rate_row("reopened file, from its tables, a tenth of the issues", get_issue_file, ">= 200,000/s",
             get_issue_file.best >= 2e5);
    rate_row("reopened file, from its tables, a tenth of the users", get_user_file, ">= 200,000/s",
             get_user_file.best >= 2e5);
    rate_row("the same in one read block, issues", get_issue_cold_block, ">= 200,000/s",
             get_issue_cold_block.best >= 2e5);
    rate_row("the same in one read block, users", get_user_cold_block, ">= 200,000/s",
             get_user_cold_block.best >= 2e5);
    floor_row("SQLite alone: issue row + label rows, a transaction each", floor_issue_each);
    floor_row("SQLite alone: user row, a transaction each", floor_user_each);
    floor_row("SQLite alone: issue row + label rows, one transaction", floor_issue_one);
    floor_row("SQLite alone: user row, one transaction", floor_user_one);
    rate_row("reopened file, cached by all(), every issue key", get_issue_warm, ">= 1,000,000/s",
             get_issue_warm.best >= 1e6);
    rate_row("reopened file, cached by all(), every user key", get_user_warm, ">= 1,000,000/s",
             get_user_warm.best >= 1e6);
    rate_row("the same in one read block, every issue key", get_issue_block, ">= 1,000,000/s",
             get_issue_block.best >= 1e6);
    rate_row("the same in one read block, every user key", get_user_block, ">= 1,000,000/s",
             get_user_block.best >= 1e6);
    printf("\n%-54s %10s %10s %8s  %s\n", "memory (resident set, each in a fresh process)", "grew MB",
           "peak MB", "ratio", "target");
    rule();
    printf("%-54s %10.1f %10.1f %8s\n", "holding the map_manyb models (trees)", trees_kb / 1024.0,
           trees_peak / 1024.0, "1.00x");
    snprintf(ratio, sizeof ratio, "%.2fx", r_rss);
    printf("%-54s %10.1f %10.1f %8s  %-24s %s\n", "holding the in-memory graph", graph_kb / 1024.0,
           graph_peak / 1024.0, ratio, "<= 1.5x trees", verdict(r_rss >= 0 && r_rss <= 1.5));

    json_decref(issue_keys);
    json_decref(user_keys);
    remove_files(path);
    rmdir(folder);
    strata_schema_decref(schema);
    free(t);
    free(t2);
    free(payload);
    return 0;
}
