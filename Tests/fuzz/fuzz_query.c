/*
 * fuzz_query - graph queries (strata_context_query) checked against laws
 * that hold whatever evaluates them, on graphs built from the input, and
 * differentially: the same graph imported into a context on a file, where
 * queries run as SQL over its tables, gives exactly the records (the same
 * keys in the same order, or an error alike) that the context in memory
 * gives by evaluating them over its records.
 *
 * The input is a program. Its first part makes a graph of users, tweets and
 * labels (attributes from small domains, so that values repeat and meet);
 * the rest makes queries: condition trees over key paths and operators with
 * values of every kind (the wrong kind too), order_by, limit, offset, stubs,
 * and now and then raw program bytes as the query's JSON text.
 *
 * For each query Q of a model M:
 *  - Q fails with a well-formed error, or gives distinct records of M;
 *    strata_context_query_count agrees (fails alike, or counts as many);
 *  - without order_by, the records are in key order (a subsequence of
 *    strata_context_all's order);
 *  - with limit L and offset K, the records are that slice of Q without them;
 *  - {"not": C} gives exactly the records C does not; {"or": [A, B]} the
 *    union of A's and B's; {"and": [A, B]} the intersection;
 *  - order_by gives the same records as no order_by, in some order.
 */
#include "fuzz_common.h"

#include <unistd.h>

#ifndef MAX_QUERIES
#define MAX_QUERIES 12
#endif

static const char *SCHEMA_TEXT =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"name\": {\"type\": \"string?\"}, \"score\": {\"type\": \"double?\"}, \"ok\": {\"type\": \"bool?\"},"
    " \"tweets\": {\"type\": \"[Tweet]\", \"inverse\": \"user\", \"json\": false}}},"
    "\"Tweet\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"text\": {\"type\": \"string?\"}, \"n\": {\"type\": \"int?\"}, \"at\": {\"type\": \"date?\"},"
    " \"tags\": {\"type\": \"[string]\", \"default\": []}, \"meta\": {\"type\": \"json?\"},"
    " \"user\": {\"type\": \"User?\", \"inverse\": \"tweets\"}, \"labels\": {\"type\": \"[Label]\", \"default\": []}}},"
    "\"Label\": {\"primaryKey\": \"name\", \"properties\": {\"name\": {\"type\": \"string\"},"
    " \"rank\": {\"type\": \"int?\"}}}}}";

static const char *MODELS[] = {"User", "Tweet", "Label"};
static const char *WORDS[] = {"", "a", "ab", "b", "\xc3\xa9", "\xe6\x97\xa5", "Z", "a\"b", "l0", "l1"};
static const char *DATES[] = {"2023-01-01T00:00:00Z", "2023-01-01T00:00:00.5Z", "2023-01-02T10:00:00Z",
                              "2022-12-31T23:00:00-02:00", "not a date"};
static const char *OPS[] = {"==", "!=", "<", "<=", ">", ">=", "in", "prefix", "contains", "null", "=>"};
/* key paths per model, ordering-safe ones first (through to-one only, single values) */
static const char *PATHS_USER[] = {"id", "name", "score", "ok", "tweets.n", "tweets.text", "tweets.labels.name",
                                   "tweets", "nope"};
static const char *PATHS_TWEET[] = {"id", "text", "n", "at", "user", "user.name", "user.score", "user.ok",
                                    "tags", "meta", "labels.name", "labels.rank", "labels", "user.tweets.n",
                                    "user.nme"};
static const char *PATHS_LABEL[] = {"name", "rank", "color"};

struct program {
    const uint8_t *data;
    size_t size, at;
};

static unsigned pick(struct program *p, unsigned n) {
    unsigned b = p->at < p->size ? p->data[p->at++] : 0u;
    return n == 0 ? 0 : b % n;
}

static strata_schema_t *schema;
/* queries that succeeded and failed (printed at exit under FUZZ_QUERY_STATS) */
static unsigned long succeeded, failed;

static void print_stats(void) { fprintf(stderr, "fuzz_query: %lu queries succeeded, %lu failed\n", succeeded, failed); }

static void release_schema(void) {
    strata_schema_decref(schema);
    schema = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    strata_error_t err;
    json_t *doc = json_loads(SCHEMA_TEXT, 0, NULL);
    (void)argc;
    (void)argv;
    if (getenv("FUZZ_QUERY_STATS") != NULL)
        atexit(print_stats);
    schema = strata_schema_load(doc, &err);
    json_decref(doc);
    if (schema == NULL) {
        fprintf(stderr, "fuzz_query: the schema does not load: %s\n", err.message);
        abort();
    }
    atexit(release_schema); /* valgrind's replay then sees nothing left */
    return 0;
}

/* A value of any kind, from the program. */
static json_t *value(struct program *p) {
    switch (pick(p, 8)) {
    case 0: return json_integer((json_int_t)pick(p, 7) - 3);
    case 1: return json_real(((double)pick(p, 9) - 4) / 2);
    case 2: return json_string(WORDS[pick(p, sizeof WORDS / sizeof *WORDS)]);
    case 3: return json_string(DATES[pick(p, sizeof DATES / sizeof *DATES)]);
    case 4: return json_boolean(pick(p, 2));
    case 5: return json_null();
    case 6: return json_pack("[ii]", (int)pick(p, 4), (int)pick(p, 4));
    default: return json_pack("{si}", "x", (int)pick(p, 3));
    }
}

static const char *path_of(struct program *p, const char *model) {
    if (strcmp(model, "User") == 0)
        return PATHS_USER[pick(p, sizeof PATHS_USER / sizeof *PATHS_USER)];
    if (strcmp(model, "Tweet") == 0)
        return PATHS_TWEET[pick(p, sizeof PATHS_TWEET / sizeof *PATHS_TWEET)];
    return PATHS_LABEL[pick(p, sizeof PATHS_LABEL / sizeof *PATHS_LABEL)];
}

/* A condition tree (a new reference). */
static json_t *condition(struct program *p, const char *model, int depth) {
    unsigned kind = pick(p, 10);
    json_t *out = json_object();
    if (depth < 3 && kind == 0) {
        json_object_set_new(out, "not", condition(p, model, depth + 1));
    } else if (depth < 3 && kind <= 2) {
        json_t *list = json_array();
        unsigned n = pick(p, 4), i;
        for (i = 0; i < n; i++)
            json_array_append_new(list, condition(p, model, depth + 1));
        json_object_set_new(out, kind == 1 ? "and" : "or", list);
    } else {
        const char *path = path_of(p, model);
        unsigned op = pick(p, sizeof OPS / sizeof *OPS + 2);
        if (op >= sizeof OPS / sizeof *OPS) {
            json_object_set_new(out, path, value(p)); /* a bare value */
        } else if (strcmp(OPS[op], "in") == 0) {
            json_t *list = json_array();
            unsigned n = pick(p, 4), i;
            for (i = 0; i < n; i++)
                json_array_append_new(list, value(p));
            json_object_set_new(out, path, json_pack("{so}", "in", list));
        } else if (strcmp(OPS[op], "null") == 0) {
            json_object_set_new(out, path, json_pack("{sb}", "null", (int)pick(p, 2)));
        } else {
            json_object_set_new(out, path, json_pack("{so}", OPS[op], value(p)));
        }
        if (pick(p, 4) == 0) /* a second member: both must hold */
            json_object_set_new(out, path_of(p, model), value(p));
    }
    return out;
}

/* The context on a file that every query also runs on (SQL), or NULL; and
 * one opened on that file after the import, which reads only queries: its
 * records are never read into memory (SQL, and a record read per key). */
static strata_context_t *mirror = NULL, *cold = NULL;

static json_t *run_one(strata_context_t *context, const char *model, json_t *query);

/* The keys a query gives (a new array), or NULL when it fails; checks the
 * error and the count, and that the file's context gives the same. */
static json_t *run(strata_context_t *context, const char *model, json_t *query) {
    json_t *keys = run_one(context, model, query);
    if (mirror != NULL) {
        json_t *mirrored = run_one(mirror, model, query), *read = run_one(cold, model, query);
        char *text = query != NULL ? json_dumps(query, JSON_COMPACT) : NULL;
        FUZZ_ASSERT((keys == NULL) == (mirrored == NULL) && (keys == NULL || json_equal(keys, mirrored)),
                    "the query %s of %s gives other records on a file (SQL) than in memory", text ? text : "null",
                    model);
        FUZZ_ASSERT((keys == NULL) == (read == NULL) && (keys == NULL || json_equal(keys, read)),
                    "the query %s of %s gives other records on a file opened after the import than in memory",
                    text ? text : "null", model);
        free(text);
        json_decref(mirrored);
        json_decref(read);
    }
    return keys;
}

static json_t *run_one(strata_context_t *context, const char *model, json_t *query) {
    strata_error_t err;
    size_t n = 0, i;
    long long counted;
    strata_model_t **records = strata_context_query(context, model, query, &n, &err);
    json_t *keys;
    if (records == NULL) {
        failed++;
        fuzz_check_failure(&err, 1);
        counted = strata_context_query_count(context, model, query, &err);
        FUZZ_ASSERT(counted == -1, "the query failed, its count gave %lld", counted);
        return NULL;
    }
    fuzz_check_success(&err);
    succeeded++;
    keys = json_array();
    for (i = 0; i < n; i++) {
        json_t *key = strata_record_key(records[i]);
        size_t j;
        for (j = 0; j < json_array_size(keys); j++)
            FUZZ_ASSERT(!json_equal(json_array_get(keys, j), key), "a query gave one record twice");
        json_array_append_new(keys, key);
        strata_model_decref(records[i]);
    }
    strata_free(records);
    counted = strata_context_query_count(context, model, query, &err);
    FUZZ_ASSERT(counted == (long long)n, "query gave %zu records, query_count %lld", n, counted);
    return keys;
}

static int contains(const json_t *keys, const json_t *key) {
    size_t i;
    for (i = 0; i < json_array_size(keys); i++)
        if (json_equal(json_array_get(keys, i), key))
            return 1;
    return 0;
}

/* True when `part` lists keys of `whole` in whole's order. */
static int in_order_of(const json_t *part, const json_t *whole) {
    size_t i = 0, j;
    for (j = 0; j < json_array_size(whole) && i < json_array_size(part); j++)
        if (json_equal(json_array_get(part, i), json_array_get(whole, j)))
            i++;
    return i == json_array_size(part);
}

static int same_set(const json_t *a, const json_t *b) {
    size_t i;
    if (json_array_size(a) != json_array_size(b))
        return 0;
    for (i = 0; i < json_array_size(a); i++)
        if (!contains(b, json_array_get(a, i)))
            return 0;
    return 1;
}

static json_t *with_where(json_t *where) {
    return json_pack("{so}", "where", where);
}

static void check_query(strata_context_t *context, struct program *p, const json_t *all_keys[3]) {
    unsigned m = pick(p, 3);
    const char *model = MODELS[m];
    json_t *a = condition(p, model, 0), *b = condition(p, model, 0);
    json_t *qa = with_where(json_incref(a)), *qb = with_where(json_incref(b));
    json_t *ka = run(context, model, qa), *kb = run(context, model, qb);
    if (ka != NULL) {
        json_t *q, *k;
        FUZZ_ASSERT(in_order_of(ka, all_keys[m]), "records without order_by are not in key order");
        /* not */
        q = with_where(json_pack("{sO}", "not", a));
        k = run(context, model, q);
        FUZZ_ASSERT(k != NULL, "not of a valid condition failed");
        {
            size_t i;
            FUZZ_ASSERT(json_array_size(k) + json_array_size(ka) == json_array_size(all_keys[m]),
                        "a condition and its not do not split the records");
            for (i = 0; i < json_array_size(k); i++)
                FUZZ_ASSERT(!contains(ka, json_array_get(k, i)), "a record meets a condition and its not");
        }
        json_decref(k);
        json_decref(q);
        /* paging */
        {
            unsigned limit = pick(p, 5), offset = pick(p, 5);
            size_t i, expected;
            json_t *paged = json_pack("{sOsisi}", "where", a, "limit", (int)limit, "offset", (int)offset);
            k = run(context, model, paged);
            FUZZ_ASSERT(k != NULL, "paging a valid query failed");
            expected = json_array_size(ka) > offset ? json_array_size(ka) - offset : 0;
            if (expected > limit)
                expected = limit;
            FUZZ_ASSERT(json_array_size(k) == expected, "limit %u offset %u gave %zu of %zu", limit, offset,
                        json_array_size(k), json_array_size(ka));
            for (i = 0; i < json_array_size(k); i++)
                FUZZ_ASSERT(json_equal(json_array_get(k, i), json_array_get(ka, offset + i)),
                            "a page is not the slice of the whole");
            json_decref(k);
            json_decref(paged);
        }
        /* order_by keeps the set */
        {
            json_t *order = json_array();
            unsigned n = 1 + pick(p, 2), i;
            for (i = 0; i < n; i++) {
                char name[64];
                snprintf(name, sizeof name, "%s%s", pick(p, 2) ? "-" : "", path_of(p, model));
                json_array_append_new(order, json_string(name));
            }
            q = json_pack("{sOso}", "where", a, "order_by", order);
            k = run(context, model, q);
            if (k != NULL)
                FUZZ_ASSERT(same_set(k, ka), "order_by changed which records a query gives");
            json_decref(k);
            json_decref(q);
        }
    }
    if (ka != NULL && kb != NULL) {
        json_t *qor = with_where(json_pack("{s[OO]}", "or", a, b));
        json_t *qand = with_where(json_pack("{s[OO]}", "and", a, b));
        json_t *kor = run(context, model, qor), *kand = run(context, model, qand);
        size_t i;
        FUZZ_ASSERT(kor != NULL && kand != NULL, "or/and of valid conditions failed");
        for (i = 0; i < json_array_size(all_keys[m]); i++) {
            const json_t *key = json_array_get(all_keys[m], i);
            int ina = contains(ka, key), inb = contains(kb, key);
            FUZZ_ASSERT(contains(kor, key) == (ina || inb), "or is not the union");
            FUZZ_ASSERT(contains(kand, key) == (ina && inb), "and is not the intersection");
        }
        json_decref(kor);
        json_decref(kand);
        json_decref(qor);
        json_decref(qand);
    }
    json_decref(ka);
    json_decref(kb);
    json_decref(qa);
    json_decref(qb);
    json_decref(a);
    json_decref(b);
}

/* Raw program bytes as a query's JSON text: errors well formed, nothing else. */
static void check_raw(strata_context_t *context, struct program *p) {
    size_t length = pick(p, 48), start = p->at;
    json_t *query;
    if (start + length > p->size)
        length = p->size - start;
    p->at += length;
    query = json_loadb((const char *)p->data + start, length, JSON_DECODE_ANY, NULL);
    if (query != NULL) {
        json_t *keys = run(context, MODELS[pick(p, 3)], query);
        json_decref(keys);
        json_decref(query);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct program p = {data, size, 0};
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, NULL, &err);
    json_t *tweets = json_array(), *report = NULL;
    const json_t *all_keys[3];
    json_t *owned[3];
    unsigned count = pick(&p, 16), i;
    size_t n = 0, j;
    strata_model_t **made;
    FUZZ_ASSERT(context != NULL, "an in-memory context did not open");
    for (i = 0; i < count; i++) {
        json_t *tweet = json_pack("{si}", "id", (int)i);
        if (pick(&p, 4))
            json_object_set_new(tweet, "text", json_string(WORDS[pick(&p, sizeof WORDS / sizeof *WORDS)]));
        if (pick(&p, 4))
            json_object_set_new(tweet, "n", json_integer((json_int_t)pick(&p, 5) - 2));
        if (pick(&p, 3))
            json_object_set_new(tweet, "at", json_string(DATES[pick(&p, 4)]));
        if (pick(&p, 2))
            json_object_set_new(tweet, "tags", json_pack("[ss]", WORDS[pick(&p, 4)], WORDS[pick(&p, 4)]));
        if (pick(&p, 4) == 0)
            json_object_set_new(tweet, "meta", json_pack("{si}", "x", 1));
        if (pick(&p, 4)) {
            json_t *user = json_pack("{si}", "id", (int)pick(&p, 4));
            if (pick(&p, 2))
                json_object_set_new(user, "name", json_string(WORDS[pick(&p, 4)]));
            if (pick(&p, 2))
                json_object_set_new(user, "score", json_real((double)pick(&p, 4) / 2));
            if (pick(&p, 2))
                json_object_set_new(user, "ok", json_boolean(pick(&p, 2)));
            json_object_set_new(tweet, "user", user);
        }
        if (pick(&p, 2)) {
            json_t *labels = json_array();
            unsigned k, nl = pick(&p, 3);
            for (k = 0; k < nl; k++)
                json_array_append_new(labels, pick(&p, 2) ? json_pack("{sssi}", "name", k ? "l1" : "l0", "rank",
                                                                      (int)pick(&p, 3))
                                                          : json_string(k ? "l1" : "l0"));
            json_object_set_new(tweet, "labels", labels);
        }
        json_array_append_new(tweets, tweet);
    }
    made = strata_context_import(context, "Tweet", tweets, NULL, NULL, NULL, &n, &report, &err);
    FUZZ_ASSERT(made != NULL, "the generated graph did not import: %s", err.message);
    for (j = 0; j < n; j++)
        strata_model_decref(made[j]);
    strata_free(made);
    json_decref(report);
    report = NULL;
    /* the same graph in a file: its queries run as SQL */
    char folder[] = "/tmp/fuzz_query.XXXXXX", path[64];
    FUZZ_ASSERT(mkdtemp(folder) != NULL, "cannot make a temporary folder");
    snprintf(path, sizeof path, "%s/g.db", folder);
    mirror = strata_context_open(schema, path, &err);
    FUZZ_ASSERT(mirror != NULL, "a context on a file did not open: %s", err.message);
    made = strata_context_import(mirror, "Tweet", tweets, NULL, NULL, NULL, &n, &report, &err);
    FUZZ_ASSERT(made != NULL, "the generated graph did not import into a file: %s", err.message);
    for (j = 0; j < n; j++)
        strata_model_decref(made[j]);
    strata_free(made);
    json_decref(report);
    json_decref(tweets);
    cold = strata_context_open(schema, path, &err);
    FUZZ_ASSERT(cold != NULL, "a second context on the file did not open: %s", err.message);
    for (i = 0; i < 3; i++) {
        size_t listed = 0;
        strata_model_t **records = strata_context_all(context, MODELS[i], &listed, &err);
        owned[i] = json_array();
        for (j = 0; records != NULL && j < listed; j++) {
            json_array_append_new(owned[i], strata_record_key(records[j]));
            strata_model_decref(records[j]);
        }
        strata_free(records);
        all_keys[i] = owned[i];
        FUZZ_ASSERT(strata_context_query_count(context, MODELS[i], NULL, &err) == (long long)listed,
                    "a NULL query does not count every record");
    }
    for (i = 0; i < MAX_QUERIES && p.at < p.size; i++) {
        if (pick(&p, 8) == 0)
            check_raw(context, &p);
        else
            check_query(context, &p, all_keys);
    }
    for (i = 0; i < 3; i++)
        json_decref(owned[i]);
    strata_context_close(context);
    strata_context_decref(context);
    strata_context_close(mirror);
    strata_context_decref(mirror);
    mirror = NULL;
    strata_context_close(cold);
    strata_context_decref(cold);
    cold = NULL;
    {
        const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
        char file[96];
        for (i = 0; i < 4; i++) {
            snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
            unlink(file);
        }
        rmdir(folder);
    }
    return 0;
}
