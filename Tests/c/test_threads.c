/*
 * test_threads.c - one schema shared by 8 threads that map different inputs
 * at the same time; every result must equal the single-threaded one.
 *
 * The inputs: the GitHub example's issues (examples/github), changed per
 * thread so that no two threads map the same input; a failing input per
 * thread (its error list must be that thread's); map_many of a whole page;
 * a second, embedded schema with defaults, enums, key paths, kept unknown
 * keys, subtypes and recursion; and one json_t that all threads map at once
 * (its leaves are shared by every thread's models); and, given a folder of
 * fuzz fixtures (Tests/fuzz/schemas: every conformance schema with its
 * inputs - transformers, dates, validation, subtypes, merge policies), one
 * shared schema per fixture with its inputs dealt out to the threads. Each
 * thread also takes and drops references to the schema while it works.
 *
 * First every input is mapped on the main thread and its result written down
 * as text (canonical dictionary, serialized JSON, hash, or the error list);
 * then the 8 threads start together (a barrier) and compare each result of
 * each round with that text.
 *
 * Run under ThreadSanitizer by scripts/reliability (build-sanitize/tsan);
 * ctest runs it in the normal build.
 *
 * Usage: test_threads SCHEMA.json ISSUES.json [ROUNDS [FIXTURES-DIR]]
 */
#define _POSIX_C_SOURCE 200809L

#include <strata.h>

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8

static const char *STRESS_SCHEMA =
    "{\"strata\": 1, \"models\": {"
    " \"Event\": {\"keys\": \"snake_case\", \"unknownKeys\": \"keep\", \"subtypes\": {\"key\": \"kind\","
    "   \"map\": {\"push\": \"Push\", \"issue\": \"IssueEvent\"}}, \"properties\": {"
    "   \"id\": {\"type\": \"int\", \"required\": true},"
    "   \"actorLogin\": {\"type\": \"string\", \"json\": \"actor.login\"},"
    "   \"level\": {\"type\": \"string\", \"enum\": [[1, \"low\"], [2, \"high\"]], \"enumDefault\": \"low\"},"
    "   \"tags\": {\"type\": \"[string]\", \"default\": [\"none\"]},"
    "   \"meta\": {\"type\": \"{json?}\"},"
    "   \"parent\": {\"type\": \"Event?\"},"
    "   \"createdAt\": {\"type\": \"string?\"}}},"
    " \"Push\": {\"extends\": \"Event\", \"properties\": {\"commits\": {\"type\": \"[Commit]\", \"default\": []}}},"
    " \"IssueEvent\": {\"extends\": \"Event\", \"properties\": {\"number\": {\"type\": \"int\"}}},"
    " \"Commit\": {\"properties\": {\"sha\": {\"type\": \"string\", \"required\": true},"
    "   \"url\": {\"type\": \"url\"}, \"files\": {\"type\": \"{int}\"}}}"
    "}}";

struct input {
    strata_schema_t *schema;
    const char *model;
    json_t *json; /* owned */
    int many;
    char *expected; /* the single-threaded result */
};

struct worker {
    int index;
    struct input *inputs;
    size_t count;
    json_t *shared; /* mapped by every thread */
    char *shared_expected;
    strata_schema_t *shared_schema;
    int rounds;
    long compared, differ;
};

static pthread_barrier_t start_together;

static char *dump(const json_t *json) {
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER) : NULL;
    return text ? text : strdup("(null)");
}

static void append(char **acc, const char *piece) {
    size_t a = *acc ? strlen(*acc) : 0, b = strlen(piece);
    char *grown = realloc(*acc, a + b + 2);
    if (grown == NULL)
        abort();
    memcpy(grown + a, piece, b);
    grown[a + b] = '\n';
    grown[a + b + 1] = '\0';
    *acc = grown;
}

static void describe_model(char **acc, strata_model_t *model) {
    json_t *dict = strata_model_dictionary(model, NULL);
    json_t *out = strata_model_to_json(model, NULL);
    strata_model_t *copy = strata_model_copy(model);
    char *d = dump(dict), *o = dump(out), hash[64];
    snprintf(hash, sizeof hash, "%s hash %016llx equal-copy %d", strata_model_name(model),
             (unsigned long long)strata_model_hash(model), strata_model_equal(model, copy));
    append(acc, d);
    append(acc, o);
    append(acc, hash);
    free(d);
    free(o);
    json_decref(dict);
    json_decref(out);
    strata_model_decref(copy);
}

/* Maps one input and describes the outcome as text. */
static char *result_of(strata_schema_t *schema, const char *model_name, json_t *json, int many,
                       int as_text) {
    char *acc = NULL;
    strata_error_t err;
    char *text = as_text ? dump(json) : NULL;
    if (many) {
        size_t count = 0, i;
        strata_model_t **models =
            as_text ? strata_map_manyb(schema, model_name, text, strlen(text), &count, &err)
                    : strata_map_many(schema, model_name, json, &count, &err);
        if (models) {
            for (i = 0; i < count; i++) {
                describe_model(&acc, models[i]);
                strata_model_decref(models[i]);
            }
            strata_free(models);
        }
    } else {
        strata_model_t *model = as_text ? strata_mapb(schema, model_name, text, strlen(text), &err)
                                        : strata_map(schema, model_name, json, &err);
        if (model) {
            describe_model(&acc, model);
            strata_model_decref(model);
        }
    }
    if (err.code != STRATA_OK) {
        json_t *errors = strata_errors();
        char *e = dump(errors), head[64];
        snprintf(head, sizeof head, "error %s count %zu", err.code_name, err.count);
        append(&acc, head);
        append(&acc, e);
        free(e);
        json_decref(errors);
    }
    free(text);
    return acc ? acc : strdup("(nothing)");
}

static void *work(void *arg) {
    struct worker *w = arg;
    int round;
    size_t i;
    pthread_barrier_wait(&start_together);
    for (round = 0; round < w->rounds; round++) {
        strata_schema_t *held = strata_schema_incref(w->shared_schema);
        for (i = 0; i < w->count; i++) {
            struct input *in = &w->inputs[i];
            char *got = result_of(in->schema, in->model, in->json, in->many, (round + i) % 2);
            w->compared++;
            if (strcmp(got, in->expected) != 0) {
                if (w->differ++ == 0)
                    fprintf(stderr, "thread %d round %d input %zu differs:\n--- single-threaded\n%s--- thread\n%s",
                            w->index, round, i, in->expected, got);
            }
            free(got);
        }
        {
            char *got = result_of(w->shared_schema, "GHIssue", w->shared, 0, 0);
            w->compared++;
            if (strcmp(got, w->shared_expected) != 0 && w->differ++ == 0)
                fprintf(stderr, "thread %d round %d: the shared input differs\n", w->index, round);
            free(got);
        }
        strata_schema_decref(held);
    }
    return NULL;
}

static json_t *load_json(const char *path) {
    json_error_t jerr;
    json_t *json = json_load_file(path, 0, &jerr);
    if (json == NULL) {
        fprintf(stderr, "cannot read %s: %s (line %d)\n", path, jerr.text, jerr.line);
        exit(2);
    }
    return json;
}

/* An issue of the page, made this thread's own. */
static json_t *issue_for(json_t *issues, int thread, int which) {
    json_t *issue = json_deep_copy(json_array_get(issues, (size_t)(thread + which) % json_array_size(issues)));
    char title[128];
    json_int_t number = json_integer_value(json_object_get(issue, "number"));
    snprintf(title, sizeof title, "%s (thread %d, %d)",
             json_string_value(json_object_get(issue, "title")), thread, which);
    json_object_set_new(issue, "number", json_integer(number + 1000 * thread + which));
    json_object_set_new(issue, "title", json_string(title));
    return issue;
}

static json_t *event_for(int thread) {
    json_t *event = json_pack(
        "{s:s, s:i, s:{s:s}, s:i, s:{s:n, s:[i,i]}, s:{s:s, s:i, s:i}, s:s, s:[{s:s, s:s, s:{s:i}}]}",
        "kind", thread % 2 ? "push" : "issue", "id", 100 + thread, "actor", "login", "octocat",
        "level", thread % 3, "meta", "a", "b", 1, thread, "parent", "kind", "issue", "id", thread,
        "number", thread, "created_at", "2024-01-01", "commits", "sha", "abc", "url",
        "https://example.com/c", "files", "f", thread);
    json_object_set_new(event, "extra", json_integer(thread)); /* kept */
    return event;
}

/* Fixtures: per thread, the inputs dealt to it (fixture i's input k goes to
   thread k % THREADS), each thread's list grown as needed. */
struct extra {
    struct input *items;
    size_t count, capacity;
};
static struct extra extras[THREADS];
static strata_schema_t *fixture_schemas[128];
static size_t fixture_count;

static void add_extra(int thread, struct input in) {
    struct extra *e = &extras[thread];
    if (e->count == e->capacity) {
        e->capacity = e->capacity ? 2 * e->capacity : 16;
        e->items = realloc(e->items, e->capacity * sizeof *e->items);
        if (e->items == NULL)
            abort();
    }
    e->items[e->count++] = in;
}

static void load_fixtures(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *entry;
    size_t dealt = 0;
    if (d == NULL) {
        fprintf(stderr, "cannot open %s\n", dir);
        exit(2);
    }
    while ((entry = readdir(d)) != NULL && fixture_count < 128) {
        char path[4096];
        json_t *file, *inputs;
        strata_schema_t *schema;
        size_t k, len = strlen(entry->d_name);
        if (len < 6 || strcmp(entry->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        file = load_json(path);
        schema = strata_schema_load(json_object_get(file, "schema"), NULL);
        inputs = json_object_get(file, "inputs");
        if (schema != NULL) {
            fixture_schemas[fixture_count++] = schema;
            for (k = 0; k < json_array_size(inputs); k++) {
                json_t *entry_json = json_array_get(inputs, k);
                const char *model = json_string_value(json_object_get(entry_json, "model"));
                struct input in = {schema, model ? strdup(model) : strdup("?"),
                                   json_incref(json_object_get(entry_json, "input")), 0, NULL};
                add_extra((int)(dealt++ % THREADS), in);
            }
        }
        json_decref(file);
    }
    closedir(d);
}

int main(int argc, char **argv) {
    strata_error_t err;
    strata_schema_t *github, *stress;
    json_t *issues, *shared;
    struct input inputs[THREADS][6];
    struct worker workers[THREADS];
    pthread_t threads[THREADS];
    char *shared_expected;
    size_t i_fixture;
    int rounds = argc > 3 ? atoi(argv[3]) : 50;
    int t;
    long compared = 0, differ = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: test_threads SCHEMA.json ISSUES.json [ROUNDS]\n");
        return 2;
    }
    github = strata_schema_load_file(argv[1], &err);
    stress = strata_schema_loadb(STRESS_SCHEMA, strlen(STRESS_SCHEMA), &err);
    if (github == NULL || stress == NULL) {
        fprintf(stderr, "cannot load the schemas: %s at %s: %s\n", err.code_name, err.path, err.message);
        return 2;
    }
    issues = load_json(argv[2]);
    shared = json_deep_copy(json_array_get(issues, 0));

    /* the inputs, and their single-threaded results */
    for (t = 0; t < THREADS; t++) {
        struct input *in = inputs[t];
        json_t *page = json_array(), *bad;
        size_t i;
        for (i = 0; i < json_array_size(issues); i++)
            json_array_append_new(page, issue_for(issues, t, (int)i + 10));
        bad = issue_for(issues, t, 1);
        json_object_set_new(bad, "title", json_integer(t));
        json_object_del(bad, "number");
        json_object_set_new(json_object_get(bad, "user"), "login", json_integer(t));
        in[0] = (struct input){github, "GHIssue", issue_for(issues, t, 0), 0, NULL};
        in[1] = (struct input){github, "GHIssue", bad, 0, NULL};
        in[2] = (struct input){github, "GHIssue", page, 1, NULL};
        in[3] = (struct input){stress, "Event", event_for(t), 0, NULL};
        in[4] = (struct input){stress, "Event", json_pack("{s:s, s:i, s:s}", "kind", "nope", "id", t, "level", "x"), 0, NULL};
        in[5] = (struct input){github, "GHUser", json_pack("{s:i, s:s, s:s}", "id", t, "login", "u", "type", "User"), 0, NULL};
        for (i = 0; i < 6; i++)
            in[i].expected = result_of(in[i].schema, in[i].model, in[i].json, in[i].many, 0);
        /* text and json_t agree */
        for (i = 0; i < 6; i++) {
            char *again = result_of(in[i].schema, in[i].model, in[i].json, in[i].many, 1);
            if (strcmp(again, in[i].expected) != 0) {
                fprintf(stderr, "input %d/%zu: text and json_t results differ\n", t, i);
                differ++;
            }
            free(again);
        }
        workers[t] = (struct worker){t, in, 6, shared, NULL, github, rounds, 0, 0};
    }
    if (argc > 4) {
        size_t total = 0;
        load_fixtures(argv[4]);
        for (t = 0; t < THREADS; t++) {
            struct extra *e = &extras[t];
            size_t i;
            /* this thread's 6 inputs first, then its share of the fixtures' */
            for (i = 0; i < 6; i++)
                add_extra(t, inputs[t][i]);
            memmove(e->items + 6, e->items, (e->count - 6) * sizeof *e->items);
            memcpy(e->items, inputs[t], 6 * sizeof *e->items);
            for (i = 6; i < e->count; i++) {
                struct input *in = &e->items[i];
                in->expected = result_of(in->schema, in->model, in->json, 0, 0);
            }
            workers[t].inputs = e->items;
            workers[t].count = e->count;
            total += e->count - 6;
        }
        printf("%zu fixtures, %zu of their inputs dealt to %d threads\n", fixture_count, total, THREADS);
    }
    shared_expected = result_of(github, "GHIssue", shared, 0, 0);
    if (strncmp(inputs[0][0].expected, "error", 5) == 0 || strstr(inputs[0][1].expected, "error") == NULL ||
        strncmp(inputs[0][3].expected, "error", 5) == 0) {
        fprintf(stderr, "test bug: the inputs do not map as intended:\n%s%s%s", inputs[0][0].expected,
                inputs[0][1].expected, inputs[0][3].expected);
        return 2;
    }

    pthread_barrier_init(&start_together, NULL, THREADS);
    for (t = 0; t < THREADS; t++) {
        workers[t].shared_expected = shared_expected;
        if (pthread_create(&threads[t], NULL, work, &workers[t]) != 0) {
            perror("pthread_create");
            return 2;
        }
    }
    for (t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        compared += workers[t].compared;
        differ += workers[t].differ;
    }
    pthread_barrier_destroy(&start_together);

    for (t = 0; t < THREADS; t++) {
        size_t i;
        for (i = 0; i < 6; i++) {
            json_decref(inputs[t][i].json);
            free(inputs[t][i].expected);
        }
        for (i = 6; i < extras[t].count; i++) {
            json_decref(extras[t].items[i].json);
            free(extras[t].items[i].expected);
            free((char *)extras[t].items[i].model);
        }
        free(extras[t].items);
    }
    for (i_fixture = 0; i_fixture < fixture_count; i_fixture++)
        strata_schema_decref(fixture_schemas[i_fixture]);
    free(shared_expected);
    json_decref(shared);
    json_decref(issues);
    strata_schema_decref(github);
    strata_schema_decref(stress);
    printf("%d threads x %d rounds: %ld results compared with the single-threaded ones, %ld differ\n",
           THREADS, rounds, compared, differ);
    return differ == 0 ? 0 : 1;
}
