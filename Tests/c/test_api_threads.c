/*
 * test_api_threads.c - the threads of include/strata.h's conventions
 * ("Threads."): strata_errors() is per thread; one schema used by several
 * threads at once. scripts/reliability also runs it under ThreadSanitizer.
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on. The schema and the input are test_api.h's.
 *
 * Usage: test_api_threads [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "test_api.h"

#include <pthread.h>
#include <stdint.h>

/* strata_errors() is per thread. */
struct thread_result {
    strata_schema_t *schema;
    int errors_null_after_success;
    int own_error_ok;
};

static void *thread_main(void *arg) {
    struct thread_result *r = arg;
    strata_model_t *m = strata_mapb(r->schema, "Issue", "{\"number\": 1}", 13, NULL);
    json_t *errors = strata_errors();
    r->errors_null_after_success = (m != NULL && errors == NULL);
    json_decref(errors);
    strata_model_decref(m);
    m = strata_mapb(r->schema, "Issue", "{\"title\": 1, \"number\": 1}", 25, NULL);
    errors = strata_errors();
    r->own_error_ok = (m == NULL && check_has_error(errors, "/title", "type", "Issue", "title") &&
                       json_array_size(errors) == 1);
    json_decref(errors);
    return NULL;
}

static void test_errors_per_thread(void) {
    strata_schema_t *schema = load_test_schema();
    struct thread_result result;
    pthread_t thread;
    json_t *errors;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    CHECK(strata_mapb(schema, "Issue", "{}", 2, NULL) == NULL);
    memset(&result, 0, sizeof result);
    result.schema = schema;
    CHECK(pthread_create(&thread, NULL, thread_main, &result) == 0);
    pthread_join(thread, NULL);
    CHECK(result.errors_null_after_success);
    CHECK(result.own_error_ok);
    errors = strata_errors();
    CHECK(json_array_size(errors) == 1);
    CHECK_HAS_ERROR(errors, "/number", "missing", "Issue", "number");
    json_decref(errors);
    strata_schema_decref(schema);
}

/* One schema, many threads at once. */
static void *map_many_times(void *arg) {
    strata_schema_t *schema = arg;
    int i;
    intptr_t bad = 0;
    for (i = 0; i < 200; i++) {
        strata_model_t *m = strata_mapb(schema, "Issue", ISSUE_TEXT, strlen(ISSUE_TEXT), NULL);
        json_t *d = strata_model_dictionary(m, NULL);
        if (m == NULL || d == NULL)
            bad++;
        json_decref(d);
        strata_model_decref(m);
    }
    return (void *)bad;
}

static void test_shared_schema(void) {
    strata_schema_t *schema = load_test_schema();
    pthread_t threads[4];
    int i;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    for (i = 0; i < 4; i++)
        CHECK(pthread_create(&threads[i], NULL, map_many_times, schema) == 0);
    for (i = 0; i < 4; i++) {
        void *bad = NULL;
        pthread_join(threads[i], &bad);
        CHECK(bad == NULL);
    }
    strata_schema_decref(schema);
}

static const struct check_test tests[] = {
    {"errors_per_thread", test_errors_per_thread},
    {"shared_schema", test_shared_schema},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
