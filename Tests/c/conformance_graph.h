/*
 * conformance_graph.h - the conformance keys of the object graph
 * (Tests/conformance/README.md, "Graph") for test_conformance.c, which
 * includes this file after its reporting helpers (fail, fail_values,
 * check_errors, errors_equal, report_unexpected_failure).
 *
 * A case with `graph` opens a context (in memory, or on an SQLite file in a
 * fresh folder with "file": true) and runs its steps in order, as the Swift
 * runner (Tests/StrataTests/Conformance/GraphConformance.swift) does.
 */

#include <sqlite3.h>
#include <unistd.h>

/* The rows of `sql` run on the file at `path` (read only) as a JSON array of
   arrays: INTEGER, REAL, TEXT and NULL as JSON, a BLOB as {"blob": hex}. NULL
   (and *message set) when the SQL fails. */
static json_t *graph_sql_rows(const char *path, const char *sql, char *message, size_t size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *statement = NULL;
    json_t *rows = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, sql, -1, &statement, NULL);
    if (rc == SQLITE_OK) {
        rows = json_array();
        while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
            json_t *row = json_array();
            int i;
            for (i = 0; i < sqlite3_column_count(statement); i++) {
                switch (sqlite3_column_type(statement, i)) {
                case SQLITE_INTEGER:
                    json_array_append_new(row, json_integer((json_int_t)sqlite3_column_int64(statement, i)));
                    break;
                case SQLITE_FLOAT:
                    json_array_append_new(row, json_real(sqlite3_column_double(statement, i)));
                    break;
                case SQLITE_TEXT:
                    json_array_append_new(row, json_stringn((const char *)sqlite3_column_text(statement, i),
                                                            (size_t)sqlite3_column_bytes(statement, i)));
                    break;
                case SQLITE_BLOB: {
                    const unsigned char *bytes = sqlite3_column_blob(statement, i);
                    int n = sqlite3_column_bytes(statement, i), j;
                    char *hex = malloc((size_t)n * 2 + 1);
                    for (j = 0; j < n; j++)
                        snprintf(hex + 2 * j, 3, "%02x", bytes[j]);
                    hex[2 * n] = 0;
                    json_array_append_new(row, json_pack("{ss}", "blob", hex));
                    free(hex);
                    break;
                }
                default:
                    json_array_append_new(row, json_null());
                }
            }
            json_array_append_new(rows, row);
        }
        if (rc != SQLITE_DONE) {
            json_decref(rows);
            rows = NULL;
        }
    }
    if (rows == NULL)
        snprintf(message, size, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return rows;
}

/* A key injector of a case: {"member": NAME} gives the input object's member. */
static json_t *graph_member_key(json_t *value, json_t *parent, void *payload, char *message, size_t size) {
    json_t *member = json_object_get(value, (const char *)payload);
    (void)parent;
    if (member == NULL) {
        snprintf(message, size, "the input has no '%s'", (const char *)payload);
        return NULL;
    }
    return json_incref(member);
}

/* A keep rule of a step: keep a record whose `property` equals `equals`. */
struct graph_keep_rule {
    const char *property;
    const json_t *equals;
};

static int graph_keep(strata_model_t *record, void *payload) {
    const struct graph_keep_rule *rule = payload;
    json_t *value = strata_model_get(record, rule->property, NULL);
    int keep = value != NULL && json_equal(value, (json_t *)rule->equals);
    json_decref(value);
    return keep;
}

/* A step's call failed: compares the step's expected errors with the errors
   of that call (strata_errors(): call it right after the failing call). */
static void graph_check_failure(const char *file, const char *name, const char *label, const json_t *step,
                                const strata_error_t *err) {
    const json_t *errors = json_object_get(step, "errors");
    if (errors != NULL)
        check_errors(file, name, label, errors, err);
    else
        report_unexpected_failure(file, name, label);
}

/* One import step; 1 when the import failed (its errors already compared). */
static int graph_import(const char *file, const char *name, const char *label, strata_context_t *context,
                        const json_t *step) {
    const char *model = json_string_value(json_object_get(step, "import"));
    const json_t *options = json_object_get(step, "options");
    const json_t *keep = json_object_get(step, "keep");
    struct graph_keep_rule rule = {json_string_value(json_object_get(keep, "property")),
                                   json_object_get(keep, "equals")};
    const char *names[] = {"created", "updated", "unchanged", "deleted"};
    char what[64];
    json_t *report = NULL;
    size_t count = 0, i;
    strata_error_t err;
    static char unset;
    strata_model_t *metadata = (strata_model_t *)&unset; /* the call must set it */
    strata_model_t **records = strata_context_import_response(
        context, model, (json_t *)json_object_get(step, "input"), (json_t *)options,
        keep != NULL ? graph_keep : NULL, &rule, &count, &metadata, &report, &err);
    if (metadata == (strata_model_t *)&unset) {
        snprintf(what, sizeof what, "%s: metadata", label);
        fail(file, name, "%s was not set", what);
        metadata = NULL;
    }
    if (records == NULL) {
        graph_check_failure(file, name, label, step, &err);
        if (metadata != NULL || count != 0 || report != NULL)
            fail(file, name, "%s: failed but left count %zu, metadata %p, report %p", label, count,
                 (void *)metadata, (void *)report);
        return 1;
    }
    if (json_object_get(step, "metadata") != NULL) {
        json_t *actual = metadata != NULL ? strata_model_dictionary(metadata, NULL) : json_null();
        snprintf(what, sizeof what, "%s: metadata", label);
        if (!json_equal(actual, json_object_get(step, "metadata")))
            fail_values(file, name, what, json_object_get(step, "metadata"), actual);
        json_decref(actual);
    }
    if (metadata != NULL)
        strata_model_decref(metadata);
    if (json_object_get(step, "records") != NULL) {
        json_t *keys = json_array();
        for (i = 0; i < count; i++)
            json_array_append_new(keys, strata_record_key(records[i]));
        snprintf(what, sizeof what, "%s: records", label);
        if (!json_equal(keys, json_object_get(step, "records")))
            fail_values(file, name, what, json_object_get(step, "records"), keys);
        json_decref(keys);
    }
    for (i = 0; i < 4; i++) {
        const json_t *expected = json_object_get(step, names[i]);
        snprintf(what, sizeof what, "%s: %s", label, names[i]);
        if (expected != NULL && !json_equal((json_t *)expected, json_object_get(report, names[i])))
            fail_values(file, name, what, expected, json_object_get(report, names[i]));
    }
    if (json_object_get(step, "warnings") != NULL) {
        json_t *paths = json_array(), *warning;
        size_t at;
        json_array_foreach(json_object_get(report, "warnings"), at, warning)
            json_array_append(paths, json_object_get(warning, "path"));
        snprintf(what, sizeof what, "%s: warnings", label);
        if (!json_equal(paths, json_object_get(step, "warnings")))
            fail_values(file, name, what, json_object_get(step, "warnings"), paths);
        json_decref(paths);
    }
    for (i = 0; i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    json_decref(report);
    return 0;
}

/* The cache limit the contexts of the running case get (-1: the default). */
static long graph_cache = -1;

/* Opens a context on `path` (NULL: in memory) with the case's cache limit;
   a context that caches nothing also reads through a memory map. */
static strata_context_t *graph_open(strata_schema_t *schema, const char *path, strata_error_t *err) {
    strata_context_t *context = strata_context_open(schema, path, err);
    if (context != NULL && graph_cache >= 0 &&
        (strata_context_set_cache_limit(context, (size_t)graph_cache, err) != 0 ||
         strata_context_set_memory_map(context, (size_t)1 << 24, err) != 0)) {
        strata_context_decref(context);
        return NULL;
    }
    return context;
}

/* One step; returns the context (a reopen changes it). As the Swift runner:
   a step that fails is compared with its "errors" (or reported), one that
   succeeds while "errors" are expected is reported. */
static strata_context_t *graph_step(const char *file, const char *name, const char *label,
                                    strata_schema_t *schema, strata_context_t *context, const char *path,
                                    const json_t *step) {
    strata_error_t err;
    const json_t *key = json_object_get(step, "key");
    const json_t *expected_errors = json_object_get(step, "errors");
    char what[64];
    int failed = 0;
    memset(&err, 0, sizeof err);
    if (json_is_string(json_object_get(step, "import"))) {
        failed = graph_import(file, name, label, context, step);
    } else if (json_is_string(json_object_get(step, "delete"))) {
        strata_model_t *record =
            strata_context_get(context, json_string_value(json_object_get(step, "delete")), (json_t *)key, &err);
        if (record == NULL && err.code != STRATA_OK) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        } else if (record == NULL) {
            /* nothing to delete: an "argument" error, as the other runners say */
            json_t *actual = json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "path", "", "model", "", "property", "",
                                       "code", "argument", "message", "no such record");
            failed = 1;
            if (expected_errors == NULL || !errors_equal(expected_errors, actual)) {
                snprintf(what, sizeof what, "%s: errors", label);
                fail_values(file, name, what, expected_errors, actual);
            }
            json_decref(actual);
        } else {
            if (strata_context_delete(context, record, &err) != 0) {
                graph_check_failure(file, name, label, step, &err);
                failed = 1;
            }
            strata_model_decref(record);
        }
    } else if (json_is_string(json_object_get(step, "read"))) {
        int begin = strcmp(json_string_value(json_object_get(step, "read")), "begin") == 0;
        if ((begin ? strata_context_begin_read(context, &err) : strata_context_end_read(context, &err)) != 0) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        }
    } else if (json_is_string(json_object_get(step, "get")) || json_is_string(json_object_get(step, "nested"))) {
        int nested = json_object_get(step, "nested") != NULL;
        const char *model = json_string_value(json_object_get(step, nested ? "nested" : "get"));
        strata_model_t *record = strata_context_get(context, model, (json_t *)key, &err);
        json_t *actual = NULL;
        if (record == NULL && err.code != STRATA_OK) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        } else if (record == NULL) {
            actual = json_null();
        } else if (nested) {
            const json_t *depth = json_object_get(step, "depth");
            actual = json_is_integer(depth)
                         ? strata_context_dictionary_depth(context, record, (int)json_integer_value(depth), &err)
                         : strata_context_dictionary(context, record, &err);
            if (actual == NULL) {
                graph_check_failure(file, name, label, step, &err);
                failed = 1;
            }
        } else {
            const json_t *stub = json_object_get(step, "stub");
            actual = strata_model_dictionary(record, NULL);
            if (json_is_boolean(stub) && strata_record_is_stub(record) != json_is_true(stub)) {
                snprintf(what, sizeof what, "%s: stub", label);
                fail_values(file, name, what, stub, json_boolean(strata_record_is_stub(record)));
            }
        }
        /* a nested step always compares (a missing "dictionary" is null), a get one when given */
        if (!failed && (nested || json_object_get(step, "dictionary") != NULL)) {
            const json_t *expected = json_object_get(step, "dictionary");
            snprintf(what, sizeof what, "%s: %s", label, nested ? "nested" : "dictionary");
            if (!json_equal(actual, expected != NULL ? (json_t *)expected : json_null()))
                fail_values(file, name, what, expected, actual);
        }
        json_decref(actual);
        strata_model_decref(record);
    } else if (json_is_string(json_object_get(step, "fetchHeaders"))) {
        json_t *headers = strata_context_fetch_headers(context, json_string_value(json_object_get(step, "fetchHeaders")),
                                                       &err);
        snprintf(what, sizeof what, "%s: fetch headers", label);
        if (headers == NULL) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        } else if (!json_equal(headers, json_object_get(step, "headers"))) {
            fail_values(file, name, what, json_object_get(step, "headers"), headers);
        }
        json_decref(headers);
    } else if (json_is_string(json_object_get(step, "fetchPage"))) {
        const char *body = json_string_value(json_object_get(step, "body"));
        size_t count = 0, r;
        json_t *report = NULL;
        const json_t *cache = json_object_get(step, "cache");
        strata_model_t **records = strata_context_fetch_page(
            context, json_string_value(json_object_get(step, "fetchPage")),
            json_string_value(json_object_get(step, "url")), (int)json_integer_value(json_object_get(step, "status")),
            json_object_get(step, "headers"), body, body != NULL ? strlen(body) : 0, NULL,
            json_is_false(cache) ? 0 : 1, &count, NULL, &report, &err);
        if (records == NULL) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        } else {
            json_t *got = json_object();
            json_t *keys = json_array();
            for (r = 0; r < count; r++) {
                json_array_append_new(keys, strata_record_key(records[r]));
                strata_model_decref(records[r]);
            }
            strata_free(records);
            json_object_set_new(got, "records", keys);
            json_object_set(got, "next", json_object_get(report, "next"));
            json_object_set(got, "cached", json_object_get(report, "cached"));
            {
                const char *field;
                json_t *value;
                json_object_foreach(got, field, value) {
                    const json_t *want = json_object_get(step, field);
                    snprintf(what, sizeof what, "%s: page %s", label, field);
                    if (want != NULL && !json_equal(value, want))
                        fail_values(file, name, what, want, value);
                }
            }
            json_decref(got);
            json_decref(report);
        }
    } else if (json_is_string(json_object_get(step, "count"))) {
        unsigned flags = json_is_false(json_object_get(step, "stubs")) ? STRATA_SKIP_STUBS : 0;
        const char *model = json_string_value(json_object_get(step, "count"));
        long long count = strata_context_count_flags(context, model, flags, &err);
        const json_t *is = json_object_get(step, "is");
        size_t listed = 0, r;
        strata_model_t **records = strata_context_all_flags(context, model, flags, &listed, &err);
        for (r = 0; records != NULL && r < listed; r++)
            strata_model_decref(records[r]);
        strata_free(records);
        if (count >= 0 && (records == NULL || (long long)listed != count)) {
            snprintf(what, sizeof what, "%s: all differs from count", label);
            fail(file, name, "%s", what);
        }
        if (count < 0) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        } else if (!json_is_integer(is) || count != json_integer_value(is)) {
            json_t *actual = json_integer(count);
            snprintf(what, sizeof what, "%s: count", label);
            fail_values(file, name, what, is, actual);
            json_decref(actual);
        }
    } else if (json_is_string(json_object_get(step, "query"))) {
        /* the query object: the step's where, order_by, limit, offset and stubs */
        const char *model = json_string_value(json_object_get(step, "query"));
        const char *members[] = {"where", "order_by", "limit", "offset", "stubs"};
        json_t *query = json_object(), *keys;
        size_t listed = 0, r, m;
        strata_model_t **records;
        long long counted;
        for (m = 0; m < sizeof members / sizeof members[0]; m++) {
            json_t *member = json_object_get(step, members[m]);
            if (member != NULL)
                json_object_set(query, members[m], member);
        }
        records = strata_context_query(context, model, query, &listed, &err);
        if (records == NULL) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        } else {
            keys = json_array();
            for (r = 0; r < listed; r++) {
                json_array_append_new(keys, strata_record_key(records[r]));
                strata_model_decref(records[r]);
            }
            strata_free(records);
            snprintf(what, sizeof what, "%s: records", label);
            if (!json_equal(keys, json_object_get(step, "records")))
                fail_values(file, name, what, json_object_get(step, "records"), keys);
            json_decref(keys);
            counted = strata_context_query_count(context, model, query, &err);
            if (counted != (long long)listed)
                fail(file, name, "%s: query_count %lld, the query gave %zu", label, counted, listed);
        }
        json_decref(query);
    } else if (json_is_string(json_object_get(step, "sql"))) {
        char message[256] = "";
        if (path != NULL && strncmp(path, "postgresql://", 13) == 0)
            return context; /* the steps' SQL is SQLite's */
        json_t *rows = path != NULL ? graph_sql_rows(path, json_string_value(json_object_get(step, "sql")), message,
                                                     sizeof message)
                                    : NULL;
        snprintf(what, sizeof what, "%s: sql", label);
        if (rows == NULL)
            fail(file, name, "%s: the SQL failed: %s", label, path != NULL ? message : "the case has no file");
        else if (!json_equal(rows, json_object_get(step, "rows")))
            fail_values(file, name, what, json_object_get(step, "rows"), rows);
        json_decref(rows);
    } else if (json_is_true(json_object_get(step, "reopen"))) {
        strata_context_close(context);
        strata_context_decref(context);
        context = graph_open(schema, path, &err);
        if (context == NULL) {
            graph_check_failure(file, name, label, step, &err);
            failed = 1;
        }
    } else if (json_is_object(json_object_get(step, "expect"))) {
        const char *model;
        json_t *expected;
        json_object_foreach((json_t *)json_object_get(step, "expect"), model, expected) {
            size_t count = 0, i;
            strata_model_t **records = strata_context_all(context, model, &count, &err);
            json_t *actual;
            if (records == NULL) {
                graph_check_failure(file, name, label, step, &err);
                failed = 1;
                break;
            }
            actual = json_array();
            for (i = 0; i < count; i++) {
                json_array_append_new(actual, strata_model_dictionary(records[i], NULL));
                strata_model_decref(records[i]);
            }
            strata_free(records);
            snprintf(what, sizeof what, "%s: %s", label, model);
            if (!json_equal(actual, expected))
                fail_values(file, name, what, expected, actual);
            json_decref(actual);
        }
    } else {
        char *d = dump(step);
        fail(file, name, "%s: unknown step %s", label, d);
        free(d);
        return context;
    }
    if (!failed && expected_errors != NULL) {
        char *d = dump(expected_errors);
        fail(file, name, "%s succeeded, expected errors %s", label, d);
        free(d);
    }
    return context;
}

/* Runs a `graph` case's steps on one context (and a second one on its file when a step names it). */
/* The PostgreSQL server every case also runs on (STRATA_TEST_POSTGRES_URL, which scripts/test sets), or NULL. */
static const char *graph_postgres = NULL;
static unsigned graph_postgres_graphs = 0;

static void run_graph_steps(const char *file, const char *name, const json_t *schema_doc, const json_t *c) {
    const json_t *steps = json_object_get(c, "graph");
    const json_t *injectors = json_object_get(c, "keyInjectors");
    strata_schema_builder_t *builder;
    strata_schema_t *schema;
    strata_context_t *context, *other = NULL;
    strata_error_t err;
    char folder[] = "/tmp/strata-graph-conformance-XXXXXX", path[1024], sibling[1100], schema_name[64] = "";
    const char *model;
    json_t *rule;
    size_t i;
    builder = strata_schema_builder_new();
    json_object_foreach((json_t *)injectors, model, rule) {
        const char *member = json_string_value(json_object_get(rule, "member"));
        if (member == NULL ||
            strata_schema_builder_add_key_injector(builder, model, graph_member_key, (void *)member, NULL, &err) != 0)
            fail(file, name, "cannot register the key injector of %s", model);
    }
    schema = strata_schema_builder_load(builder, (json_t *)schema_doc, &err);
    strata_schema_builder_free(builder);
    if (schema == NULL) {
        report_unexpected_failure(file, name, "loading the case's schema");
        return;
    }
    path[0] = '\0';
    if (graph_postgres != NULL) {
        /* a graph of its own: a schema of the database, dropped after */
        snprintf(schema_name, sizeof schema_name, "conformance_c_%ld_%u", (long)getpid(), graph_postgres_graphs++);
        snprintf(path, sizeof path, "%s?schema=%s", graph_postgres, schema_name);
    } else if (json_is_true(json_object_get(c, "file"))) {
        if (mkdtemp(folder) == NULL) {
            fail(file, name, "cannot make a temporary folder");
            strata_schema_decref(schema);
            return;
        }
        snprintf(path, sizeof path, "%s/graph.db", folder);
    }
    context = graph_open(schema, path[0] ? path : NULL, &err);
    if (context == NULL) {
        report_unexpected_failure(file, name, "opening the context");
    } else {
        for (i = 0; i < json_array_size(steps) && context != NULL; i++) {
            const json_t *step = json_array_get(steps, i);
            char label[32];
            snprintf(label, sizeof label,
                     graph_postgres != NULL ? "step %zu (PostgreSQL)"
                     : graph_cache < 0      ? "step %zu"
                                            : "step %zu (caching nothing)",
                     i);
            if (json_is_true(json_object_get(step, "reopen")) && other != NULL) {
                strata_context_close(other);
                strata_context_decref(other);
                other = NULL;
            }
            if (json_is_true(json_object_get(step, "other"))) {
                /* a second context on the same file, opened when first named */
                if (other == NULL)
                    other = graph_open(schema, path[0] ? path : NULL, &err);
                if (other == NULL) {
                    report_unexpected_failure(file, name, "opening the other context");
                    break;
                }
                other = graph_step(file, name, label, schema, other, path[0] ? path : NULL, step);
            } else {
                context = graph_step(file, name, label, schema, context, path[0] ? path : NULL, step);
            }
            /* the graph's invariants hold after every step, failed or not */
            if (context != NULL && strata_context_check(context, &err) != 0) {
                json_t *broken = strata_errors();
                char *d = dump(broken);
                fail(file, name, "%s: graph invariants broken: %s", label, d);
                free(d);
                json_decref(broken);
            }
        }
        if (other != NULL) {
            strata_context_close(other);
            strata_context_decref(other);
        }
        strata_context_close(context);
        strata_context_decref(context);
    }
    strata_schema_decref(schema);
    if (graph_postgres != NULL) {
        char command[1400];
        snprintf(command, sizeof command, "psql '%s' -q -c 'DROP SCHEMA IF EXISTS \"%s\" CASCADE' >/dev/null 2>&1",
                 graph_postgres, schema_name);
        if (system(command) != 0)
            fail(file, name, "cannot drop the case's PostgreSQL schema %s", schema_name);
    } else if (path[0]) {
        const char *suffixes[] = {"", "-wal", "-shm"};
        for (i = 0; i < 3; i++) {
            snprintf(sibling, sizeof sibling, "%s%s", path, suffixes[i]);
            unlink(sibling);
        }
        rmdir(folder);
    }
}

/* Runs a `graph` case; 1 when the case was one. A case on a file runs twice,
   the second time with contexts that keep no record in their cache between calls.
   With a PostgreSQL server (STRATA_TEST_POSTGRES_URL), every case runs once more
   on a graph of its own there, unless it says "postgres": {"skip": why}. */
static int run_graph_case(const char *file, const char *name, const json_t *schema_doc, const json_t *c) {
    if (!json_is_array(json_object_get(c, "graph")))
        return 0;
    graph_cache = -1;
    run_graph_steps(file, name, schema_doc, c);
    if (json_is_true(json_object_get(c, "file"))) {
        graph_cache = 0;
        run_graph_steps(file, name, schema_doc, c);
        graph_cache = -1;
    }
    graph_postgres = getenv("STRATA_TEST_POSTGRES_URL");
    if (graph_postgres != NULL && json_object_get(json_object_get(c, "postgres"), "skip") == NULL)
        run_graph_steps(file, name, schema_doc, c);
    graph_postgres = NULL;
    return 1;
}
