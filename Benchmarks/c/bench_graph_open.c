/* The file of a large graph, read from C (issue "The graph lives in the
 * database": "Opening a file of 1,000,000 records: <= 50 ms and <= 30 MB
 * RSS. get by key from that file: >= 200 k/s cold, >= 1 M/s cached").
 *
 *   bench_graph_open FILE SCHEMA MODEL N [ROUNDS]
 *
 * FILE holds N records of MODEL under the integer keys 0 .. N-1 (as
 * Benchmarks/python/bench_graph_pages.py writes it). Each round opens the
 * file in a new context (time, and the resident set it adds), then reads a
 * tenth of the keys, in a random order fixed by a seed, each once: cold
 * (every record read from the file, a read transaction per get as a
 * program makes them), then the same keys again (cached), then SQLite
 * alone on the same keys (the row by key, every column read, a read
 * transaction each), then cold gets of the same keys by a new context
 * inside one read block (strata_context_begin_read), then SQLite alone
 * reading the row and its rows in the model's link tables (what a cold get
 * reads, so what it cannot beat: a transaction each, then one around all),
 * then cold gets by a new context reading the file through a memory map
 * (strata_context_set_memory_map, 1 GiB). A context's records are freed
 * on a helper thread after its decref (ReleaseAside), and no measured
 * phase starts while that runs: SQLite alone comes between two
 * contexts, and a second's pause comes before the next round. Prints the best and the
 * median of the rounds. BENCH_OPEN_GETS=K makes it K gets a round (to
 * profile: `valgrind --tool=callgrind --toggle-collect=gets`).
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <sqlite3.h>
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

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The resident set in MB (/proc/self/statm). */
static double rss_mb(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static void fail(const char *what, const strata_error_t *err) {
    fprintf(stderr, "bench_graph_open: %s: %s\n", what, err->message);
    exit(1);
}

/* A tenth of 0 .. n-1 in a random order (xorshift, fixed seed). */
static long long *sample(long long n, size_t *count) {
    long long *all = malloc((size_t)n * sizeof *all), i;
    unsigned long long state = 0x9E3779B97F4A7C15ULL;
    if (all == NULL)
        exit(1);
    for (i = 0; i < n; i++)
        all[i] = i;
    for (i = n - 1; i > 0; i--) {
        long long j, swap;
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        j = (long long)(state % (unsigned long long)(i + 1));
        swap = all[i];
        all[i] = all[j];
        all[j] = swap;
    }
    *count = (size_t)(n / 10 > 0 ? n / 10 : 1);
    return all;
}

/* Gets of `keys` through `context`, each record released; returns gets per second. */
static double gets(strata_context_t *context, const char *model, const long long *keys, size_t count) {
    strata_error_t err;
    size_t i;
    double start = now();
    for (i = 0; i < count; i++) {
        json_t *key = json_integer(keys[i]);
        strata_model_t *record = strata_context_get(context, model, key, &err);
        json_decref(key);
        if (record == NULL) {
            if (err.code == STRATA_OK)
                snprintf(err.message, sizeof err.message, "no record under the key %lld", keys[i]);
            fail("get", &err);
        }
        strata_model_decref(record);
    }
    return (double)count / (now() - start);
}

/* SQLite alone: the row of each key, every column read, and with `links`
   the target column of its rows in each of the model's link tables (named
   "MODEL.property"), in position order: what a cold get reads. A read
   transaction each, or with `block` one around all of them (what a read
   block holds). */
static double sqlite_floor(const char *file, const char *model, const long long *keys, size_t count, int links,
                           int block) {
    sqlite3 *db;
    sqlite3_stmt *row = NULL, *begin = NULL, *commit = NULL, *tables = NULL, *link[8];
    char sql[256], pattern[128];
    size_t i, linked = 0, l;
    long long sum = 0;
    double start, rate;
    if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_graph_open: sqlite3_open_v2 %s: %s\n", file, sqlite3_errmsg(db));
        exit(1);
    }
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" WHERE \"id\" = ?", model);
    if (sqlite3_prepare_v2(db, sql, -1, &row, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "BEGIN", -1, &begin, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?",
                           -1, &tables, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_graph_open: %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    snprintf(pattern, sizeof pattern, "%s.", model);
    sqlite3_bind_int(tables, 1, (int)strlen(pattern));
    sqlite3_bind_text(tables, 2, pattern, -1, SQLITE_STATIC);
    while (links && linked < sizeof link / sizeof *link && sqlite3_step(tables) == SQLITE_ROW) {
        snprintf(sql, sizeof sql, "SELECT \"target\" FROM \"%s\" WHERE \"owner\" = ? ORDER BY \"position\"",
                 (const char *)sqlite3_column_text(tables, 0));
        if (sqlite3_prepare_v2(db, sql, -1, &link[linked], NULL) != SQLITE_OK) {
            fprintf(stderr, "bench_graph_open: %s: %s\n", sql, sqlite3_errmsg(db));
            exit(1);
        }
        linked++;
    }
    sqlite3_finalize(tables);
    start = now();
    if (block) {
        sqlite3_step(begin);
        sqlite3_reset(begin);
    }
    for (i = 0; i < count; i++) {
        int c;
        if (!block) {
            sqlite3_step(begin);
            sqlite3_reset(begin);
        }
        sqlite3_bind_int64(row, 1, keys[i]);
        while (sqlite3_step(row) == SQLITE_ROW)
            for (c = 0; c < sqlite3_column_count(row); c++)
                sum += sqlite3_column_type(row, c) == SQLITE_TEXT ? sqlite3_column_bytes(row, c)
                                                                 : sqlite3_column_int64(row, c);
        sqlite3_reset(row);
        for (l = 0; l < linked; l++) {
            sqlite3_bind_int64(link[l], 1, keys[i]);
            while (sqlite3_step(link[l]) == SQLITE_ROW)
                sum += sqlite3_column_bytes(link[l], 0);
            sqlite3_reset(link[l]);
        }
        if (!block) {
            sqlite3_step(commit);
            sqlite3_reset(commit);
        }
    }
    if (block) {
        sqlite3_step(commit);
        sqlite3_reset(commit);
    }
    rate = (double)count / (now() - start);
    if (sum == 42)
        printf(" ");
    sqlite3_finalize(row);
    for (l = 0; l < linked; l++)
        sqlite3_finalize(link[l]);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_close(db);
    return rate;
}

/* `gets` inside one read block (strata_context_begin_read). */
static double gets_in_block(strata_context_t *context, const char *model, const long long *keys, size_t count) {
    strata_error_t err;
    double rate;
    if (strata_context_begin_read(context, &err) != 0)
        fail("begin read", &err);
    rate = gets(context, model, keys, count);
    if (strata_context_end_read(context, &err) != 0)
        fail("end read", &err);
    return rate;
}

int main(int argc, char **argv) {
    strata_error_t err;
    strata_schema_t *schema;
    long long n, *keys;
    size_t count;
    int rounds, r;
    double *open_ms, *added, *cold, *cached, *floor_rate, *mapped, *floor_links, *floor_block, *block_cold;
    if (argc < 5) {
        fprintf(stderr, "usage: bench_graph_open FILE SCHEMA MODEL N [ROUNDS]\n");
        return 2;
    }
    n = atoll(argv[4]);
    rounds = argc > 5 ? atoi(argv[5]) : 3;
    if (n < 1 || rounds < 1)
        return 2;
    schema = strata_schema_load_file(argv[2], &err);
    if (schema == NULL)
        fail("schema", &err);
    keys = sample(n, &count);
    if (getenv("BENCH_OPEN_GETS") != NULL && (size_t)atoll(getenv("BENCH_OPEN_GETS")) < count)
        count = (size_t)atoll(getenv("BENCH_OPEN_GETS")); /* fewer gets a round (for callgrind) */
    open_ms = calloc((size_t)rounds, sizeof *open_ms);
    added = calloc((size_t)rounds, sizeof *added);
    cold = calloc((size_t)rounds, sizeof *cold);
    cached = calloc((size_t)rounds, sizeof *cached);
    floor_rate = calloc((size_t)rounds, sizeof *floor_rate);
    mapped = calloc((size_t)rounds, sizeof *mapped);
    floor_links = calloc((size_t)rounds, sizeof *floor_links);
    floor_block = calloc((size_t)rounds, sizeof *floor_block);
    block_cold = calloc((size_t)rounds, sizeof *block_cold);
    for (r = 0; r < rounds; r++) {
        double base = rss_mb(), start = now();
        strata_context_t *context = strata_context_open(schema, argv[1], &err);
        if (context == NULL)
            fail("open", &err);
        open_ms[r] = (now() - start) * 1e3;
        added[r] = rss_mb() - base;
        /* the keys read and the records they link to stay cached */
        if (strata_context_set_cache_limit(context, 2 * count + 20000, &err) != 0)
            fail("cache limit", &err);
        cold[r] = gets(context, argv[3], keys, count);
        cached[r] = gets(context, argv[3], keys, count);
        strata_context_decref(context);
        /* the contexts' records are freed on a helper thread (ReleaseAside)
           after each decref: the next phase must not meet that work */
        floor_rate[r] = sqlite_floor(argv[1], argv[3], keys, count, 0, 0);
        context = strata_context_open(schema, argv[1], &err);
        if (context == NULL || strata_context_set_cache_limit(context, 2 * count + 20000, &err) != 0)
            fail("open for a read block", &err);
        block_cold[r] = gets_in_block(context, argv[3], keys, count);
        strata_context_decref(context);
        floor_links[r] = sqlite_floor(argv[1], argv[3], keys, count, 1, 0);
        floor_block[r] = sqlite_floor(argv[1], argv[3], keys, count, 1, 1);
        context = strata_context_open(schema, argv[1], &err);
        if (context == NULL || strata_context_set_cache_limit(context, 2 * count + 20000, &err) != 0 ||
            strata_context_set_memory_map(context, (size_t)1 << 30, &err) != 0)
            fail("open with a memory map", &err);
        mapped[r] = gets(context, argv[3], keys, count);
        strata_context_decref(context);
        if (r + 1 < rounds)
            sleep(1);
    }
    qsort(open_ms, (size_t)rounds, sizeof *open_ms, cmp);
    qsort(added, (size_t)rounds, sizeof *added, cmp);
    qsort(cold, (size_t)rounds, sizeof *cold, cmp);
    qsort(cached, (size_t)rounds, sizeof *cached, cmp);
    qsort(floor_rate, (size_t)rounds, sizeof *floor_rate, cmp);
    qsort(mapped, (size_t)rounds, sizeof *mapped, cmp);
    qsort(floor_links, (size_t)rounds, sizeof *floor_links, cmp);
    qsort(floor_block, (size_t)rounds, sizeof *floor_block, cmp);
    qsort(block_cold, (size_t)rounds, sizeof *block_cold, cmp);
    printf("%s: %lld records of %s, %zu gets a round, %d rounds (best, median)\n", argv[1], n, argv[3], count,
           rounds);
    printf("open                          %8.2f ms %8.2f ms   target <= 50 ms     %s\n", open_ms[0],
           open_ms[rounds / 2], open_ms[0] <= 50 ? "met" : "NOT MET");
    printf("resident set added by open    %8.1f MB %8.1f MB   target <= 30 MB     %s\n", added[0],
           added[rounds / 2], added[0] <= 30 ? "met" : "NOT MET");
    printf("get, cold (from the file)     %8.0f /s %8.0f /s   target >= 200,000/s %s\n", cold[rounds - 1],
           cold[(rounds - 1) / 2], cold[rounds - 1] >= 200000 ? "met" : "NOT MET");
    printf("get, cached                   %8.0f /s %8.0f /s   target >= 1,000,000/s %s\n", cached[rounds - 1],
           cached[(rounds - 1) / 2], cached[rounds - 1] >= 1000000 ? "met" : "NOT MET");
    printf("SQLite alone, the row by key  %8.0f /s %8.0f /s\n", floor_rate[rounds - 1],
           floor_rate[(rounds - 1) / 2]);
    printf("get, cold, memory map         %8.0f /s %8.0f /s   target >= 200,000/s %s\n", mapped[rounds - 1],
           mapped[(rounds - 1) / 2], mapped[rounds - 1] >= 200000 ? "met" : "NOT MET");
    printf("SQLite alone, row + link rows %8.0f /s %8.0f /s   (what a cold get reads)\n", floor_links[rounds - 1],
           floor_links[(rounds - 1) / 2]);
    printf("get, cold, in one read block  %8.0f /s %8.0f /s   target >= 200,000/s %s\n", block_cold[rounds - 1],
           block_cold[(rounds - 1) / 2], block_cold[rounds - 1] >= 200000 ? "met" : "NOT MET");
    printf("SQLite alone, the same, one transaction %8.0f /s %8.0f /s\n", floor_block[rounds - 1],
           floor_block[(rounds - 1) / 2]);
    free(keys);
    free(open_ms);
    free(added);
    free(cold);
    free(cached);
    free(floor_rate);
    free(mapped);
    free(floor_links);
    free(floor_block);
    free(block_cold);
    strata_schema_decref(schema);
    return 0;
}
