/* Queries whose records are read from their rows, from C, for callgrind and
   perf (Benchmarks/README.md, "Rows handed to their records").

   bench_query FILE [PASSES [QUERIES [after-import]]]

   Writes FILE anew: 100,000 posts by 1,000 authors (the schema and records
   of Benchmarks/python/bench_graph_lists.py's first row). Then PASSES (3)
   times: a context opened on FILE runs QUERIES (1,000) queries, each the
   100 posts of one author, newest title first, on a cache that holds none
   of them (every record is read from its row). With `after-import`, the
   queries run once, in the context that imported the posts, as
   bench_graph_lists.py times them. Each query runs inside `queries`, so
   `valgrind --tool=callgrind --toggle-collect=queries` counts them alone.

   Built by hand: gcc -O2 -std=c11 -Wall -Wextra -Werror -Iinclude -o
   bench_query Benchmarks/c/bench_query.c -Lbuild -Wl,-rpath,$PWD/build
   -lstrata -ljansson */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata.h"

static const char *SCHEMA =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"}, \"login\": {\"type\": \"string\"},"
    " \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\", \"json\": false}}},"
    "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"}, \"title\": {\"type\": \"string\"},"
    " \"author\": {\"type\": \"User?\", \"inverse\": \"posts\"}}}}}";

enum { POSTS = 100000, AUTHORS = 1000 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fail(const char *what, const strata_error_t *error) {
    fprintf(stderr, "bench_query: %s: %s\n", what, error->message);
    exit(1);
}

/* `n` queries, the i-th for the posts of author i % AUTHORS. */
__attribute__((noinline)) static void queries(strata_context_t *context, int n) {
    strata_error_t error;
    for (int i = 0; i < n; i++) {
        json_t *query = json_pack("{s:{s:i}, s:[s], s:i}", "where", "author", i % AUTHORS, "order_by", "-title",
                                  "limit", 100);
        size_t count = 0;
        strata_model_t **found = strata_context_query(context, "Post", query, &count, &error);
        json_decref(query);
        if (found == NULL)
            fail("query", &error);
        if (count != 100) {
            fprintf(stderr, "bench_query: %zu posts, not 100\n", count);
            exit(1);
        }
        for (size_t k = 0; k < count; k++)
            strata_model_decref(found[k]);
        strata_free(found);
    }
}

static void import_posts(strata_context_t *context) {
    strata_error_t error;
    json_t *posts = json_array();
    for (int i = 0; i < POSTS; i++) {
        char title[32], login[32];
        snprintf(title, sizeof title, "post %d", i);
        snprintf(login, sizeof login, "u%d", i % AUTHORS);
        json_array_append_new(posts, json_pack("{s:i, s:s, s:{s:i, s:s}}", "id", i, "title", title, "author", "id",
                                               i % AUTHORS, "login", login));
    }
    size_t count = 0;
    strata_model_t **made = strata_context_import(context, "Post", posts, NULL, NULL, NULL, &count, NULL, &error);
    json_decref(posts);
    if (made == NULL)
        fail("import", &error);
    for (size_t k = 0; k < count; k++)
        strata_model_decref(made[k]);
    strata_free(made);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_query FILE [PASSES [QUERIES [after-import]]]\n");
        return 2;
    }
    int passes = argc > 2 ? atoi(argv[2]) : 3;
    int n = argc > 3 ? atoi(argv[3]) : 1000;
    int after_import = argc > 4 && strcmp(argv[4], "after-import") == 0;
    strata_error_t error;
    strata_schema_t *schema = strata_schema_loadb(SCHEMA, strlen(SCHEMA), &error);
    if (schema == NULL)
        fail("schema", &error);
    remove(argv[1]);
    strata_context_t *context = strata_context_open(schema, argv[1], &error);
    if (context == NULL)
        fail("open", &error);
    import_posts(context);
    if (after_import) {
        double start = now();
        queries(context, n);
        printf("%d queries after the import: %.3f ms each\n", n, (now() - start) / n);
        strata_context_close(context);
        strata_schema_decref(schema);
        return 0;
    }
    strata_context_close(context);
    for (int pass = 0; pass < passes; pass++) {
        context = strata_context_open(schema, argv[1], &error);
        if (context == NULL)
            fail("open", &error);
        double start = now();
        queries(context, n);
        printf("%d cold queries: %.3f ms each\n", n, (now() - start) / n);
        strata_context_close(context);
    }
    strata_schema_decref(schema);
    return 0;
}
