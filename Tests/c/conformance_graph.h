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

#include <unistd.h>

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

/* The dictionaries of every record of `model`, in key order (new reference), or NULL. */
static json_t *graph_all(strata_context_t *context, const char *model) {
    size_t count = 0, i;
    strata_error_t err;
    strata_model_t **records = strata_context_all(context, model, &count, &err);
    json_t *out;
    if (records == NULL)
        return NULL;
    out = json_array();
    for (i = 0; i < count; i++) {
        json_array_append_new(out, strata_model_dictionary(records[i], NULL));
        strata_model_decref(records[i]);
    }
    strata_free(records);
    return out;
}

/* Compares the expected errors of a step with the errors of the failed call. */
static void graph_check_failure(const char *file, const char *name, const char *label, const json_t *step,
                                const strata_error_t *err) {
    const json_t *errors = json_object_get(step, "errors");
    if (errors != NULL)
        check_errors(file, name, label, errors, err);
    else
        report_unexpected_failure(file, name, label);
}

/* One import step. */
static void graph_import(const char *file, const char *name, const char *label, strata_context_t *context,
                         const json_t *step) {
    const char *model = json_string_value(json_object_get(step, "import"));
    const json_t *options = json_object_get(step, "options");
    const json_t *keep = json_object_get(step, "keep");
    struct graph_keep_rule rule = {json_string_value(json_object_get(keep, "property")),
                                   json_object_get(keep, "equals")};
    const char *names[] = {"created", "updated", "deleted"};
    json_t *report = NULL;
    size_t count = 0, i;
    strata_error_t err;
    strata_model_t **records = strata_context_import(
        context, model, (json_t *)json_object_get(step, "input"), (json_t *)options,
        keep != NULL ? graph_keep : NULL, &rule, &count, &report, &err);
    if (records == NULL) {
        graph_check_failure(file, name, label, step, &err);
        return;
    }
    if (json_object_get(step, "errors") != NULL)
        fail(file, name, "%s: the import succeeded, errors were expected", label);
    if (json_object_get(step, "records") != NULL) {
        json_t *keys = json_array();
        for (i = 0; i < count; i++)
            json_array_append_new(keys, strata_record_key(records[i]));
        if (!json_equal(keys, json_object_get(step, "records")))
            fail_values(file, name, "records", json_object_get(step, "records"), keys);
        json_decref(keys);
    }
    for (i = 0; i < 3; i++) {
        const json_t *expected = json_object_get(step, names[i]);
        if (expected != NULL && !json_equal((json_t *)expected, json_object_get(report, names[i])))
            fail_values(file, name, names[i], expected, json_object_get(report, names[i]));
    }
    if (json_object_get(step, "warnings") != NULL) {
        json_t *paths = json_array(), *warning;
        size_t at;
        json_array_foreach(json_object_get(report, "warnings"), at, warning)
            json_array_append(paths, json_object_get(warning, "path"));
        if (!json_equal(paths, json_object_get(step, "warnings")))
            fail_values(file, name, "warnings", json_object_get(step, "warnings"), paths);
        json_decref(paths);
    }
    for (i = 0; i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    json_decref(report);
}

/* One step other than an import; returns the context (a reopen changes it). */
static strata_context_t *graph_step(const char *file, const char *name, const char *label,
                                    strata_schema_t *schema, strata_context_t *context, const char *path,
                                    const json_t *step) {
    strata_error_t err;
    const json_t *key = json_object_get(step, "key");
    if (json_object_get(step, "import") != NULL) {
        graph_import(file, name, label, context, step);
    } else if (json_object_get(step, "delete") != NULL) {
        strata_model_t *record =
            strata_context_get(context, json_string_value(json_object_get(step, "delete")), (json_t *)key, &err);
        if (record == NULL) {
            /* nothing to delete: an "argument" error, as the other runners say */
            json_t *actual = json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "path", "", "model", "", "property", "",
                                       "code", err.code == STRATA_OK ? "argument" : err.code_name, "message",
                                       "no such record");
            const json_t *expected = json_object_get(step, "errors");
            if (expected == NULL || !errors_equal(expected, actual))
                fail_values(file, name, label, expected, actual);
            json_decref(actual);
        } else {
            if (strata_context_delete(context, record, &err) != 0)
                graph_check_failure(file, name, label, step, &err);
            else if (json_object_get(step, "errors") != NULL)
                fail(file, name, "%s: the delete succeeded, errors were expected", label);
            strata_model_decref(record);
        }
    } else if (json_object_get(step, "get") != NULL || json_object_get(step, "nested") != NULL) {
        int nested = json_object_get(step, "nested") != NULL;
        const char *model = json_string_value(json_object_get(step, nested ? "nested" : "get"));
        strata_model_t *record = strata_context_get(context, model, (json_t *)key, &err);
        if (record == NULL && err.code != STRATA_OK) {
            graph_check_failure(file, name, label, step, &err);
        } else if (json_object_get(step, "dictionary") != NULL) {
            json_t *actual = record == NULL ? json_null()
                             : nested       ? strata_context_dictionary(context, record, NULL)
                                            : strata_model_dictionary(record, NULL);
            if (!json_equal(actual, json_object_get(step, "dictionary")))
                fail_values(file, name, label, json_object_get(step, "dictionary"), actual);
            json_decref(actual);
        }
        strata_model_decref(record);
    } else if (json_object_get(step, "count") != NULL) {
        long long count =
            strata_context_count(context, json_string_value(json_object_get(step, "count")), &err);
        if (count != json_integer_value(json_object_get(step, "is")))
            fail(file, name, "%s: count %lld, expected %lld", label, count,
                 (long long)json_integer_value(json_object_get(step, "is")));
    } else if (json_is_true(json_object_get(step, "reopen"))) {
        strata_context_close(context);
        strata_context_decref(context);
        context = strata_context_open(schema, path, &err);
        if (context == NULL)
            report_unexpected_failure(file, name, label);
    } else if (json_is_object(json_object_get(step, "expect"))) {
        const char *model;
        json_t *expected;
        json_object_foreach((json_t *)json_object_get(step, "expect"), model, expected) {
            json_t *actual = graph_all(context, model);
            if (actual == NULL || !json_equal(actual, expected))
                fail_values(file, name, model, expected, actual);
            json_decref(actual);
        }
    } else {
        fail(file, name, "%s: unknown step", label);
    }
    return context;
}

/* Runs a `graph` case; 1 when the case was one. */
static int run_graph_case(const char *file, const char *name, const json_t *schema_doc, const json_t *c) {
    const json_t *steps = json_object_get(c, "graph");
    const json_t *injectors = json_object_get(c, "keyInjectors");
    strata_schema_builder_t *builder;
    strata_schema_t *schema;
    strata_context_t *context;
    strata_error_t err;
    char folder[] = "/tmp/strata-graph-conformance-XXXXXX", path[128], sibling[160];
    const char *model;
    json_t *rule;
    size_t i;
    if (!json_is_array(steps))
        return 0;
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
        return 1;
    }
    path[0] = '\0';
    if (json_is_true(json_object_get(c, "file"))) {
        if (mkdtemp(folder) == NULL) {
            fail(file, name, "cannot make a temporary folder");
            strata_schema_decref(schema);
            return 1;
        }
        snprintf(path, sizeof path, "%s/graph.db", folder);
    }
    context = strata_context_open(schema, path[0] ? path : NULL, &err);
    if (context == NULL) {
        report_unexpected_failure(file, name, "opening the context");
    } else {
        for (i = 0; i < json_array_size(steps) && context != NULL; i++) {
            char label[32];
            snprintf(label, sizeof label, "step %zu", i);
            context = graph_step(file, name, label, schema, context, path[0] ? path : NULL,
                                 json_array_get(steps, i));
        }
        strata_context_close(context);
        strata_context_decref(context);
    }
    strata_schema_decref(schema);
    if (path[0]) {
        const char *suffixes[] = {"", "-wal", "-shm"};
        for (i = 0; i < 3; i++) {
            snprintf(sibling, sizeof sibling, "%s%s", path, suffixes[i]);
            unlink(sibling);
        }
        rmdir(folder);
    }
    return 1;
}
