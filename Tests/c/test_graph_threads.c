/*
 * test_graph_threads.c - eight threads share ONE in-memory graph context (the
 * header says a context may be shared: every call takes its lock, and record
 * handles may be read from any thread). For a given time each thread, in a
 * loop:
 *
 *   - imports overlapping posts (ids 0..23: colliding keys; authors 0..5
 *     moving between users, as objects, bare keys or null; tags a..d shared,
 *     bare keys or objects, with repeats), as a json_t or as text;
 *   - now and then imports users with their posts given from the user side
 *     (the inverse), or a payload with a bad value (must fail, with an error);
 *   - gets a post, user or tag by key, reads its dictionary and what its
 *     relationships hold (records another thread may have deleted meanwhile);
 *   - deletes a record now and then, and counts every model.
 *
 * Then the graph must be whole (graph_check.h): counts equal the listings,
 * keys unique and found by strata_context_get, no dangling key, every
 * inverse true both ways. scripts/reliability also runs it under
 * ThreadSanitizer (with tsan-jansson.supp: jansson's refcount check on a
 * record key two threads hold), ctest under valgrind (every reference
 * released).
 *
 * With FILE, the context is on that SQLite file (made anew): calls then read
 * records from its tables on demand, and leave their read transactions open
 * for the next call, which the context's helper thread ends once the context
 * is idle (docs/graph.md, "Read blocks"); the threads pause now and then so
 * that it does.
 *
 * usage: test_graph_threads [SECONDS [FILE]]   (default 1.5 s, in memory)
 */
#define _POSIX_C_SOURCE 200809L

#include "graph_check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 8
#define POST_IDS 24
#define USER_IDS 6

static const char schema_text[] =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"name\": {\"type\": \"string?\"}, \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\"}}},"
    "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"n\": {\"type\": \"int\"}, \"author\": {\"type\": \"User?\", \"inverse\": \"posts\"},"
    " \"tags\": {\"type\": \"[Tag]\", \"inverse\": \"posts\", \"merge\": \"union\"}}},"
    "\"Tag\": {\"primaryKey\": \"name\", \"properties\": {\"name\": {\"type\": \"string\"},"
    " \"posts\": {\"type\": \"[Post]\", \"json\": false}}}}}";

static const char *const models[] = {"User", "Post", "Tag"};

static strata_context_t *context;
static double seconds = 1.5, deadline;
static int errors_seen;
static long rounds_done;
static pthread_mutex_t report = PTHREAD_MUTEX_INITIALIZER;
static int on_file;

/* The SQLite file at `path` and its log and shared-memory files, removed. */
static void remove_file(const char *path) {
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    char name[4096];
    size_t i;
    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        remove(name);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void problem(const char *what, const strata_error_t *err) {
    pthread_mutex_lock(&report);
    errors_seen++;
    fprintf(stderr, "test_graph_threads: %s: %s %s %s\n", what, err ? err->code_name : "", err ? err->path : "",
            err ? err->message : "");
    pthread_mutex_unlock(&report);
}

static json_t *tag(unsigned *seed) {
    char name[2] = {(char)('a' + rand_r(seed) % 4), 0};
    return (rand_r(seed) & 1) ? json_string(name) : json_pack("{s:s}", "name", name);
}

static json_t *post(unsigned *seed, int round) {
    json_t *tags = json_array(), *value;
    int i, n = (int)(rand_r(seed) % 4), author = (int)(rand_r(seed) % USER_IDS);
    for (i = 0; i < n; i++)
        json_array_append_new(tags, tag(seed));
    value = json_pack("{s:i, s:i, s:o}", "id", (int)(rand_r(seed) % POST_IDS), "n", round, "tags", tags);
    switch (rand_r(seed) % 4) {
    case 0:
        json_object_set_new(value, "author", json_pack("{s:i, s:s}", "id", author, "name", "someone"));
        break;
    case 1:
        json_object_set_new(value, "author", json_integer(author));
        break;
    case 2:
        json_object_set_new(value, "author", json_null());
        break;
    default: /* absent: the author stays */
        break;
    }
    return value;
}

/* Imports `data` into `model` (as text when `text`); returns 0, or -1 with `err`. */
static int import(const char *model, json_t *data, int text, strata_error_t *err) {
    size_t count = 0, i;
    strata_model_t **records;
    if (text) {
        char *buffer = json_dumps(data, JSON_COMPACT);
        records = strata_context_importb(context, model, buffer, strlen(buffer), NULL, NULL, NULL, &count, NULL,
                                         err);
        free(buffer);
    } else {
        records = strata_context_import(context, model, data, NULL, NULL, NULL, &count, NULL, err);
    }
    if (records == NULL)
        return -1;
    for (i = 0; i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    return 0;
}

/*
 * Reads a record that another thread may delete meanwhile: its dictionary
 * (a handle stays a read-only model), its key and what it holds. Once
 * deleted, a handle is no longer a record: no key (NULL), and
 * strata_context_related is an "argument" error - and it stays so.
 */
static void read_record(strata_model_t *record, const char *property) {
    strata_error_t err;
    size_t count = 0, i;
    json_t *dictionary = strata_model_dictionary(record, &err), *key;
    strata_model_t **held;
    if (dictionary == NULL)
        problem("the dictionary of a record", &err);
    key = strata_record_key(record);
    held = strata_context_related(context, record, property, &count, &err);
    if (held == NULL && err.code != STRATA_ERROR_ARGUMENT)
        problem("strata_context_related", &err);
    if (key == NULL && held != NULL)
        problem("a record without a key (deleted) is still related", NULL);
    for (i = 0; held != NULL && i < count; i++)
        strata_model_decref(held[i]);
    strata_free(held);
    json_decref(key);
    json_decref(dictionary);
}

static void *work(void *argument) {
    int thread = (int)(size_t)argument, round, i;
    unsigned seed = (unsigned)thread * 7919u + 1u;
    for (round = 0; now() < deadline; round++) {
        json_t *data = json_array(), *key;
        strata_error_t err;
        strata_model_t *record;
        unsigned pick = rand_r(&seed) % 16;
        const char *model = models[rand_r(&seed) % 3];
        if (pick == 0) {
            /* users, their posts given from their side */
            for (i = 0; i < 2; i++) {
                json_t *posts = json_pack("[i, i]", (int)(rand_r(&seed) % POST_IDS), (int)(rand_r(&seed) % POST_IDS));
                json_array_append_new(data, json_pack("{s:i, s:o}", "id", (int)(rand_r(&seed) % USER_IDS), "posts",
                                                      posts));
            }
            if (import("User", data, round & 1, &err) != 0)
                problem("an import of users", &err);
        } else if (pick == 1) {
            /* a bad value: the import fails */
            json_array_append_new(data, post(&seed, round));
            json_array_append_new(data, json_pack("{s:s}", "id", "x"));
            if (import("Post", data, round & 1, &err) == 0)
                problem("an import with a bad key did not fail", NULL);
            else if (err.code == STRATA_OK)
                problem("a failed import without an error", &err);
        } else {
            for (i = 0; i < 4; i++)
                json_array_append_new(data, post(&seed, round));
            if (import("Post", data, round & 1, &err) != 0)
                problem("an import of posts", &err);
        }
        json_decref(data);

        key = strcmp(model, "Tag") == 0 ? tag(&seed) : json_integer((json_int_t)(rand_r(&seed) % POST_IDS));
        if (json_is_object(key)) {
            json_t *name = json_incref(json_object_get(key, "name"));
            json_decref(key);
            key = name;
        }
        record = strata_context_get(context, model, key, &err);
        if (record == NULL && err.code != STRATA_OK)
            problem("a get", &err);
        if (record != NULL) {
            read_record(record, strcmp(model, "Post") == 0 ? "author" : "posts");
            /* another thread may have deleted it since: an "argument" error then */
            if (rand_r(&seed) % 6 == 0 && strata_context_delete(context, record, &err) != 0 &&
                err.code != STRATA_ERROR_ARGUMENT)
                problem("a delete", &err);
        }
        strata_model_decref(record);
        json_decref(key);
        for (i = 0; i < 3; i++) {
            if (strata_context_count(context, models[i], &err) < 0)
                problem("a count", &err);
        }
        if (on_file && rand_r(&seed) % 8 == 0) {
            /* a pause past the idle time: the helper ends the read left open */
            struct timespec pause = {0, 6 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    pthread_mutex_lock(&report);
    rounds_done += round;
    pthread_mutex_unlock(&report);
    return NULL;
}

/* No record under a key the listing does not have. */
static int no_hidden_records(json_t *all) {
    int id, whole = 1;
    for (id = 0; id < POST_IDS; id++) {
        json_t *key = json_integer(id);
        int m;
        for (m = 0; m < 2; m++) {
            strata_error_t err;
            strata_model_t *record = strata_context_get(context, models[m], key, &err);
            json_t *dictionary;
            size_t i;
            int listed = 0;
            json_array_foreach(json_object_get(all, models[m]), i, dictionary) {
                if (json_equal(json_object_get(dictionary, "id"), key))
                    listed = 1;
            }
            if ((record != NULL) != listed || (record == NULL && err.code != STRATA_OK)) {
                fprintf(stderr, "test_graph_threads: get(%s, %d) and the listing disagree\n", models[m], id);
                whole = 0;
            }
            strata_model_decref(record);
        }
        json_decref(key);
    }
    return whole;
}

int main(int argc, char **argv) {
    pthread_t threads[THREADS];
    strata_error_t err;
    strata_schema_t *schema;
    json_t *schema_doc, *all;
    char why[GRAPH_WHY_SIZE] = "";
    int i, whole;
    if (argc > 1)
        seconds = atof(argv[1]);
    if (argc > 2) {
        on_file = 1;
        remove_file(argv[2]);
    }
    schema_doc = json_loads(schema_text, 0, NULL);
    schema = strata_schema_loadb(schema_text, sizeof schema_text - 1, &err);
    if (schema == NULL || schema_doc == NULL ||
        (context = strata_context_open(schema, argc > 2 ? argv[2] : NULL, &err)) == NULL) {
        fprintf(stderr, "test_graph_threads: %s\n", err.message);
        return 2;
    }
    deadline = now() + seconds;
    for (i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, work, (void *)(size_t)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);

    all = graph_snapshot(context, schema_doc, why);
    whole = all != NULL && graph_check(context, schema_doc, all, why) == 0 && no_hidden_records(all);
    if (!whole)
        fprintf(stderr, "test_graph_threads: invariant broken: %s\n", why);
    printf("%d threads x %ld rounds in all (%.1f s): %s; %zu users, %zu posts, %zu tags; %d errors\n", THREADS,
           rounds_done, seconds, whole ? "the graph is whole" : "TORN",
           json_array_size(json_object_get(all, "User")), json_array_size(json_object_get(all, "Post")),
           json_array_size(json_object_get(all, "Tag")), errors_seen);
    json_decref(all);
    strata_context_decref(context);
    strata_schema_decref(schema);
    json_decref(schema_doc);
    if (argc > 2)
        remove_file(argv[2]);
    return whole && errors_seen == 0 ? 0 : 1;
}
