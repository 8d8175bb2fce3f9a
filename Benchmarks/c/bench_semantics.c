/*
 * bench_semantics: the engine-level figures of the transformer and merge
 * work, measured through the C API, best of N after a warm-up.
 *
 *  - dates: a [date] property of 1,000,000 ISO 8601 strings with offsets and
 *    fractions (each parsed and rewritten to canonical RFC 3339 UTC), the same
 *    count already canonical (parsed, then shared), and unix seconds.
 *  - enums: a [string] property with a 5-value enum, 1,000,000 elements.
 *  - merge: two 20,000-issue collections (half the issues shared by number,
 *    changed; half new) merged by primary key (`merge: union`) into a copy of
 *    the first, against mapping one collection.
 *  - threads: mapping and releasing a small model, 20,000 times, on the
 *    main thread and on a thread with a 128 KiB stack (where every call runs
 *    on a helper thread with a large stack: the cost of that hop).
 *
 * usage: bench_semantics PAYLOAD SCHEMA [REPETITIONS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <strata.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const strata_error_t *error) {
    fprintf(stderr, "bench_semantics: %s: %s %s %s\n", what, error ? error->code_name : "",
            error ? error->path : "", error ? error->message : "");
    exit(1);
}

/* Best time of `reps` runs of mapping `input` onto `model` (after one warm-up). */
static double time_map(strata_schema_t *schema, const char *model, json_t *input, int reps) {
    double best = 1e30;
    int i;
    for (i = 0; i <= reps; i++) {
        strata_error_t error;
        double start = now();
        strata_model_t *m = strata_map(schema, model, input, &error);
        double took = now() - start;
        if (!m) die(model, &error);
        strata_model_decref(m);
        if (i > 0 && took < best) best = took;
    }
    return best;
}

/* Maps and releases a small model `calls` times; the time per pair, in µs. */
struct small_calls {
    strata_schema_t *schema;
    int calls;
    double micros;
};

static void *small_calls_run(void *arg) {
    struct small_calls *job = arg;
    static const char text[] = "{\"name\": \"x\"}";
    double start = now();
    int i;
    for (i = 0; i < job->calls; i++) {
        strata_model_t *model = strata_mapb(job->schema, "Small", text, sizeof text - 1, NULL);
        if (model == NULL) {
            fprintf(stderr, "bench_semantics: small map failed\n");
            exit(1);
        }
        strata_model_decref(model);
    }
    job->micros = (now() - start) / job->calls * 1e6;
    return NULL;
}

/* The best time per call pair on a thread with `stack` bytes (0: this thread). */
static double small_calls(strata_schema_t *schema, size_t stack, int reps) {
    double best = 1e30;
    int r;
    for (r = 0; r <= reps; r++) {
        struct small_calls job = {schema, 20000, 0};
        if (stack == 0) {
            small_calls_run(&job);
        } else {
            pthread_attr_t attr;
            pthread_t thread;
            pthread_attr_init(&attr);
            pthread_attr_setstacksize(&attr, stack);
            if (pthread_create(&thread, &attr, small_calls_run, &job) != 0) {
                fprintf(stderr, "bench_semantics: no thread\n");
                exit(1);
            }
            pthread_join(thread, NULL);
            pthread_attr_destroy(&attr);
        }
        if (r > 0 && job.micros < best)
            best = job.micros;
    }
    return best;
}

static strata_schema_t *load(const char *text) {
    strata_error_t error;
    strata_schema_t *schema = strata_schema_loadb(text, strlen(text), &error);
    if (!schema) die("schema", &error);
    return schema;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PAYLOAD SCHEMA [REPETITIONS]\n", argv[0]);
        return 2;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    if (reps < 1) reps = 1;
    const size_t count = 1000000;
    size_t i;

    /* Dates. */
    strata_schema_t *dates = load("{\"strata\": 1, \"models\": {"
                                  "\"Iso\": {\"properties\": {\"at\": {\"type\": \"[date]\"}}},"
                                  "\"Unix\": {\"properties\": {\"at\": {\"type\": \"[date]\", \"format\": \"unix\"}}}}}");
    json_t *offsets = json_array(), *canonical = json_array(), *unix_times = json_array();
    for (i = 0; i < count; i++) {
        char text[64];
        int day = 1 + (int)(i % 28), hour = (int)(i % 24), minute = (int)(i % 60);
        snprintf(text, sizeof text, "2019-%02d-%02dT%02d:%02d:%02d.%03d+02:00", 1 + (int)(i % 12), day, hour,
                 minute, (int)((i / 60) % 60), (int)(i % 1000));
        json_array_append_new(offsets, json_string(text));
        snprintf(text, sizeof text, "2019-%02d-%02dT%02d:%02d:%02dZ", 1 + (int)(i % 12), day, hour, minute,
                 (int)((i / 60) % 60));
        json_array_append_new(canonical, json_string(text));
        json_array_append_new(unix_times, json_integer(1546300800 + (json_int_t)i * 37));
    }
    json_t *input = json_pack("{s:o}", "at", offsets);
    double iso = time_map(dates, "Iso", input, reps);
    json_decref(input);
    input = json_pack("{s:o}", "at", canonical);
    double shared = time_map(dates, "Iso", input, reps);
    json_decref(input);
    input = json_pack("{s:o}", "at", unix_times);
    double unix_seconds = time_map(dates, "Unix", input, reps);
    json_decref(input);
    strata_schema_decref(dates);

    /* Enums. */
    strata_schema_t *enums = load("{\"strata\": 1, \"models\": {\"E\": {\"properties\": {\"state\": {\"type\": "
                                  "\"[string]\", \"enum\": {\"open\": \"OPEN\", \"closed\": \"CLOSED\", \"draft\": "
                                  "\"DRAFT\", \"merged\": \"MERGED\", \"locked\": \"LOCKED\"}}}}}}");
    static const char *names[] = {"open", "closed", "draft", "merged", "locked"};
    json_t *states = json_array();
    for (i = 0; i < count; i++) json_array_append_new(states, json_string(names[i % 5]));
    input = json_pack("{s:o}", "state", states);
    double enum_time = time_map(enums, "E", input, reps);
    json_decref(input);
    strata_schema_decref(enums);

    /* Merge by primary key against mapping. */
    json_error_t jerror;
    json_t *payload = json_load_file(argv[1], 0, &jerror);
    json_t *doc = json_load_file(argv[2], 0, &jerror);
    if (!payload || !doc || !json_is_array(payload)) {
        fprintf(stderr, "bench_semantics: cannot read %s or %s\n", argv[1], argv[2]);
        return 1;
    }
    json_object_set_new(json_object_get(doc, "models"), "IssueList",
                        json_pack("{s:{s:{s:s,s:s}}}", "properties", "issues", "type", "[GHIssue]", "merge",
                                  "union"));
    strata_error_t error;
    strata_schema_t *schema = strata_schema_load(doc, &error);
    if (!schema) die("issue schema", &error);
    json_t *later = json_deep_copy(payload);
    size_t issues = json_array_size(later);
    for (i = 0; i < issues; i++) {
        json_t *issue = json_array_get(later, i);
        if (i % 2) {
            json_object_set_new(issue, "number", json_integer(json_integer_value(json_object_get(issue, "number")) + 10000000));
        } else {
            json_object_set_new(issue, "title", json_string("changed"));
            json_object_set_new(issue, "comments", json_integer((json_int_t)i));
        }
    }
    json_t *first_input = json_pack("{s:O}", "issues", payload);
    json_t *second_input = json_pack("{s:O}", "issues", later);
    double map_time = time_map(schema, "IssueList", first_input, reps);
    strata_model_t *first = strata_map(schema, "IssueList", first_input, &error);
    strata_model_t *second = strata_map(schema, "IssueList", second_input, &error);
    if (!first || !second) die("issues", &error);
    double merge_time = 1e30;
    size_t merged_count = 0;
    int r;
    for (r = 0; r <= reps; r++) {
        strata_model_t *target = strata_model_copy(first);
        double start = now();
        if (strata_model_merge(target, second, &error) != 0) die("merge", &error);
        double took = now() - start;
        if (r > 0 && took < merge_time) merge_time = took;
        if (r == 0) {
            json_t *list = strata_model_get(target, "issues", NULL);
            merged_count = json_array_size(list);
            json_decref(list);
        }
        strata_model_decref(target);
    }

    printf("\nengine figures (best of %d after a warm-up)\n", reps);
    printf("%-62s %10s %14s\n", "measure", "best ms", "per second");
    printf("%-62s %10.1f %14.0f\n", "ISO 8601 with offsets and fractions -> canonical [date]", iso * 1e3,
           (double)count / iso);
    printf("%-62s %10.1f %14.0f\n", "ISO 8601 already canonical (parsed, then shared)", shared * 1e3,
           (double)count / shared);
    printf("%-62s %10.1f %14.0f\n", "unix seconds -> canonical [date]", unix_seconds * 1e3,
           (double)count / unix_seconds);
    printf("%-62s %10.1f %14.0f\n", "enum, 5 values, [string]", enum_time * 1e3, (double)count / enum_time);
    printf("  target: >= 5,000,000 ISO 8601 strings per second per core: %s\n",
           (double)count / iso >= 5e6 ? "met" : "NOT met");
    printf("%-62s %10.1f %14s\n", "map one 20,000-issue collection (json_t -> models)", map_time * 1e3, "");
    printf("%-62s %10.1f %14s\n", "merge two 20,000-issue collections by primary key (union)", merge_time * 1e3,
           "");
    printf("  merged collection: %zu issues (20,000 + 10,000 new); merge / map = %.2fx; target < 1x: %s\n",
           merged_count, merge_time / map_time, merge_time < map_time ? "met" : "NOT met");

    {
        strata_schema_t *small =
            load("{\"strata\": 1, \"models\": {\"Small\": {\"properties\": {\"name\": {\"type\": \"string\"}}}}}");
        double here = small_calls(small, 0, reps), tiny = small_calls(small, 128 * 1024, reps);
        printf("%-62s %10.2f %14.0f\n", "map + release a small model, main thread (us per pair)", here,
               1e6 / here);
        printf("%-62s %10.2f %14.0f\n", "the same on a 128 KiB-stack thread (helper thread per call)", tiny,
               1e6 / tiny);
        strata_schema_decref(small);
    }

    strata_model_decref(first);
    strata_model_decref(second);
    strata_schema_decref(schema);
    json_decref(first_input);
    json_decref(second_input);
    json_decref(later);
    json_decref(payload);
    json_decref(doc);
    return 0;
}
