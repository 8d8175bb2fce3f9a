/*
 * test_graph_threads.c - eight threads share one graph context (the header
 * says a context may be shared: every call takes its lock). Each thread
 * imports overlapping posts (colliding keys, authors moving between users,
 * tags shared), reads, counts and deletes, for a number of rounds; then the
 * graph must be whole: every inverse true, counts equal to the listings.
 * scripts/reliability also runs it under ThreadSanitizer.
 *
 * usage: test_graph_threads [ROUNDS]   (default 200)
 */
#define _POSIX_C_SOURCE 200809L

#include <strata.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8

static const char schema_text[] =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\"}}},"
    "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"n\": {\"type\": \"int\"}, \"author\": {\"type\": \"User?\", \"inverse\": \"posts\"},"
    " \"tags\": {\"type\": \"[Tag]\", \"inverse\": \"posts\"}}},"
    "\"Tag\": {\"primaryKey\": \"name\", \"properties\": {\"name\": {\"type\": \"string\"},"
    " \"posts\": {\"type\": \"[Post]\", \"json\": false}}}}}";

static strata_context_t *context;
static int rounds = 200;
static int errors_seen;
static pthread_mutex_t report = PTHREAD_MUTEX_INITIALIZER;

static void problem(const char *what) {
    pthread_mutex_lock(&report);
    errors_seen++;
    fprintf(stderr, "test_graph_threads: %s\n", what);
    pthread_mutex_unlock(&report);
}

static void *work(void *argument) {
    int thread = (int)(size_t)argument, round, i;
    unsigned seed = (unsigned)thread * 7919u + 1u;
    for (round = 0; round < rounds; round++) {
        json_t *data = json_array(), *key;
        strata_error_t err;
        size_t count = 0;
        strata_model_t **records, *record;
        for (i = 0; i < 4; i++) {
            int id = (int)(rand_r(&seed) % 24);
            json_t *tags = json_pack("[s, s]", (rand_r(&seed) & 1) ? "a" : "b", (rand_r(&seed) & 1) ? "c" : "d");
            json_array_append_new(data, json_pack("{s:i, s:i, s:{s:i}, s:o}", "id", id, "n", round, "author",
                                                  "id", (int)(rand_r(&seed) % 6), "tags", tags));
        }
        records = strata_context_import(context, "Post", data, NULL, NULL, NULL, &count, NULL, &err);
        if (records == NULL) {
            problem(err.message);
        } else {
            for (i = 0; i < (int)count; i++)
                strata_model_decref(records[i]);
            strata_free(records);
        }
        json_decref(data);
        key = json_integer((json_int_t)(rand_r(&seed) % 24));
        record = strata_context_get(context, "Post", key, &err);
        if (record == NULL && err.code != STRATA_OK)
            problem(err.message);
        if (record != NULL && (rand_r(&seed) % 5) == 0) {
            /* another thread may have deleted it since: an "argument" error then */
            if (strata_context_delete(context, record, &err) != 0 && err.code != STRATA_ERROR_ARGUMENT)
                problem(err.message);
        }
        strata_model_decref(record);
        json_decref(key);
        if (strata_context_count(context, "User", &err) < 0)
            problem(err.message);
    }
    return NULL;
}

/* Every user's posts have that user as author, and every post with an author is listed by it. */
static int graph_is_whole(void) {
    strata_error_t err;
    size_t users = 0, posts = 0, i, listed = 0, authored = 0;
    strata_model_t **all_users = strata_context_all(context, "User", &users, &err);
    strata_model_t **all_posts = strata_context_all(context, "Post", &posts, &err);
    int whole = all_users != NULL && all_posts != NULL;
    for (i = 0; whole && i < users; i++) {
        size_t n = 0, j;
        json_t *id = strata_model_get(all_users[i], "id", NULL);
        strata_model_t **written = strata_context_related(context, all_users[i], "posts", &n, &err);
        for (j = 0; written != NULL && j < n; j++) {
            json_t *author = strata_model_get(written[j], "author", NULL);
            if (!json_equal(author, id))
                whole = 0;
            json_decref(author);
            strata_model_decref(written[j]);
        }
        listed += n;
        strata_free(written);
        json_decref(id);
    }
    for (i = 0; whole && i < posts; i++) {
        json_t *author = strata_model_get(all_posts[i], "author", NULL);
        if (json_is_integer(author))
            authored++;
        json_decref(author);
    }
    if (listed != authored)
        whole = 0;
    if ((long long)posts != strata_context_count(context, "Post", &err))
        whole = 0;
    for (i = 0; all_users != NULL && i < users; i++)
        strata_model_decref(all_users[i]);
    for (i = 0; all_posts != NULL && i < posts; i++)
        strata_model_decref(all_posts[i]);
    strata_free(all_users);
    strata_free(all_posts);
    return whole;
}

int main(int argc, char **argv) {
    pthread_t threads[THREADS];
    strata_error_t err;
    strata_schema_t *schema = strata_schema_loadb(schema_text, sizeof schema_text - 1, &err);
    int i, whole;
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (schema == NULL || (context = strata_context_open(schema, NULL, &err)) == NULL) {
        fprintf(stderr, "test_graph_threads: %s\n", err.message);
        return 2;
    }
    for (i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, work, (void *)(size_t)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    whole = graph_is_whole();
    printf("%d threads x %d rounds: %s, %d errors\n", THREADS, rounds, whole ? "the graph is whole" : "TORN",
           errors_seen);
    strata_context_decref(context);
    strata_schema_decref(schema);
    return whole && errors_seen == 0 ? 0 : 1;
}
