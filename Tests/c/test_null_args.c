/*
 * test_null_args.c - bad C usage, function by function: NULL for each pointer
 * argument of every function of include/strata.h (one at a time, the others
 * valid, and all at once), a model of one schema passed with another, and
 * custom callbacks that misbehave. Each call must return its error value
 * (NULL, -1, 0 as the header says) with an "argument" error when it takes a
 * strata_error_t - never crash.
 *
 * check_null_coverage.sh (ctest: null-args-coverage) checks that every
 * function the header declares is called here, so a new function cannot be
 * added without its NULL checks.
 *
 * CHECK and CHECK_ARG: check.h. The last line is `N checks, N failed`; exit
 * status 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SCHEMA =
    "{\"strata\": 1, \"version\": 2, \"models\": {"
    " \"Issue\": {\"primaryKey\": \"number\", \"properties\": {"
    "   \"number\": {\"type\": \"int\"}, \"title\": {\"type\": \"string\"},"
    "   \"createdAt\": {\"type\": \"date\"},"
    "   \"tags\": {\"type\": \"[string]\", \"merge\": \"append\"},"
    "   \"score\": {\"type\": \"int\", \"merge\": \"sum\"},"
    "   \"code\": {\"type\": \"string\", \"transform\": \"upper\"}}},"
    " \"Special\": {\"extends\": \"Issue\", \"properties\": {\"extra\": {\"type\": \"bool\"}}},"
    " \"User\": {\"properties\": {\"login\": {\"type\": \"string\"}}}"
    "}}";

/* A strata_read_fn for an empty input. */
static size_t lines_read_nothing(void *buffer, size_t size, void *data) {
    (void)buffer;
    (void)size;
    (void)data;
    return 0;
}

/* Graph contexts: a keep rule and a key injector that misbehave on request. */
static int keep_all(strata_model_t *record, void *payload) {
    (void)record;
    (void)payload;
    return 1;
}
static int injector_mode; /* 0 a key, 1 NULL with no message, 2 a key of the wrong type */
static json_t *inject_key(json_t *value, json_t *parent, void *payload, char *message, size_t size) {
    (void)value;
    (void)parent;
    (void)payload;
    (void)message;
    (void)size;
    if (injector_mode == 1)
        return NULL;
    if (injector_mode == 2)
        return json_string("not an int");
    return json_integer(99);
}

/* A transformer that upper-cases strings; misbehaves on request. */
static int transformer_mode; /* 0 ok, 1 NULL with no message, 2 wrong type, 3 NULL with message */
static json_t *upper(json_t *value, void *payload, char *message, size_t size) {
    const char *s = json_string_value(value);
    char buffer[64];
    size_t i;
    (void)payload;
    if (transformer_mode == 1)
        return NULL;
    if (transformer_mode == 2)
        return json_integer(42);
    if (transformer_mode == 3) {
        snprintf(message, size, "refused %s", s ? s : "a non-string");
        return NULL;
    }
    if (s == NULL) {
        snprintf(message, size, "not a string");
        return NULL;
    }
    for (i = 0; s[i] && i < sizeof buffer - 1; i++)
        buffer[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    buffer[i] = '\0';
    return json_string(buffer);
}

static int merger_mode; /* 0 sum, 1 NULL with no message, 2 wrong type, 3 returns `incoming` borrowed+incref */
static json_t *sum(json_t *current, json_t *incoming, void *payload, char *message, size_t size) {
    (void)payload;
    (void)message;
    (void)size;
    if (merger_mode == 1)
        return NULL;
    if (merger_mode == 2)
        return json_string("not an int");
    if (merger_mode == 3)
        return json_incref(incoming);
    return json_integer(json_integer_value(current) + json_integer_value(incoming));
}

static int released;
static void release_payload(void *payload) {
    (void)payload;
    released++;
}

static strata_schema_t *load_with(strata_schema_builder_t *builder) {
    strata_error_t err;
    strata_schema_t *s = strata_schema_builder_loadb(builder, SCHEMA, strlen(SCHEMA), &err);
    if (s == NULL)
        fprintf(stderr, "cannot load the schema: %s at %s: %s\n", err.code_name, err.path, err.message);
    return s;
}

/* A line mapper's model callback that feeds and finishes its own mapper:
   both are refused, and the callback goes on. */
struct refeed_state {
    int refused;
    strata_lines_t *lines;
};

static int refeeding(strata_model_t *model, size_t line, void *data) {
    strata_error_t err;
    struct refeed_state *state = data;
    size_t count = 0;
    (void)line;
    if (strata_lines_feed(state->lines, "{}\n", 3, NULL, NULL, NULL, &err) == -1 && err.code == STRATA_ERROR_ARGUMENT)
        state->refused++;
    if (strata_lines_feed_array(state->lines, "{}\n", 3, 0, &count, NULL, &err) == NULL &&
        err.code == STRATA_ERROR_ARGUMENT)
        state->refused++;
    if (strata_lines_finish(state->lines, NULL, NULL, NULL, &err) == -1 && err.code == STRATA_ERROR_ARGUMENT)
        state->refused++;
    strata_model_decref(model);
    return 0;
}

/* A fetch function that fails, with a message (strata_context_fetch). */
static int failing_fetch(const strata_request_t *request, strata_response_t *response, void *payload) {
    (void)request;
    (void)payload;
    snprintf(response->error, sizeof response->error, "no network here");
    return 7;
}

int main(void) {
    strata_error_t err;
    strata_schema_builder_t *builder = strata_schema_builder_new();
    strata_schema_t *schema, *other;
    strata_model_t *model, *foreign, *user, *special;
    json_t *json = json_pack("{s:i, s:s, s:s, s:[s], s:i, s:s}", "number", 1, "title", "t", "createdAt",
                             "2024-01-02T03:04:05Z", "tags", "a", "score", 2, "code", "x");
    json_t *ops = json_array(), *obj = json_object(), *archive;
    size_t count = 0;
    int64_t seconds = 0;
    int32_t nanoseconds = 0;
    char path[] = "/nonexistent/schema.json";

    CHECK(builder != NULL);
    CHECK(strata_schema_builder_add_transformer(builder, "upper", upper, NULL, NULL, release_payload, &err) == 0);
    CHECK(strata_schema_builder_add_merger(builder, "sum", sum, NULL, release_payload, &err) == 0);
    schema = load_with(builder);
    other = load_with(builder);
    if (schema == NULL || other == NULL)
        return 1;
    model = strata_map(schema, "Issue", json, &err);
    foreign = strata_map(other, "Issue", json, &err);
    user = strata_mapb(schema, "User", "{\"login\": \"ann\"}", 16, &err);
    special = strata_mapb(schema, "Special", "{\"number\": 1, \"extra\": true}", 28, &err);
    CHECK(model && foreign && user && special);
    if (!(model && foreign && user && special))
        return 1;
    archive = strata_model_archive(model, &err);
    CHECK(archive != NULL);

    /* ---- library ---- */
    CHECK(strata_version() != NULL);
    (void)strata_errors();
    strata_json_decref(NULL);
    CHECK(strata_json_dumps(NULL) == NULL);
    CHECK_ARG(strata_json_loadb(NULL, 2, &err) == NULL);
    CHECK_ARG(strata_json_loadb(NULL, 0, &err) == NULL);
    CHECK(strata_json_loadb(NULL, 2, NULL) == NULL);
    /* a length that is negative as a signed size: refused, not read */
    CHECK_ARG(strata_json_loadb("{}", (size_t)-1, &err) == NULL);
    CHECK_ARG(strata_schema_loadb("{}", (size_t)-1, &err) == NULL);
    CHECK_ARG(strata_mapb(schema, "Issue", "{}", (size_t)-1, &err) == NULL);
    strata_free(NULL);

    /* ---- schemas ---- */
    CHECK_ARG(strata_schema_load(NULL, &err) == NULL);
    CHECK(strata_schema_load(NULL, NULL) == NULL);
    CHECK_ARG(strata_schema_loadb(NULL, 5, &err) == NULL);
    CHECK(strata_schema_loadb(NULL, 5, NULL) == NULL);
    CHECK_ARG(strata_schema_load_file(NULL, &err) == NULL);
    CHECK(strata_schema_load_file(NULL, NULL) == NULL);
    CHECK(strata_schema_load_file(path, NULL) == NULL);
    CHECK(strata_schema_incref(NULL) == NULL);
    strata_schema_decref(NULL);
    CHECK(strata_schema_version(NULL) == -1);
    CHECK(strata_schema_model_count(NULL) == 0);
    CHECK(strata_schema_model_name(NULL, 0) == NULL);
    CHECK(strata_schema_model_name(schema, (size_t)-1) == NULL);

    /* ---- the builder ---- */
    strata_schema_builder_free(NULL);
    CHECK_ARG(strata_schema_builder_add_transformer(NULL, "t", upper, NULL, NULL, NULL, &err) == -1);
    CHECK_ARG(strata_schema_builder_add_transformer(builder, NULL, upper, NULL, NULL, NULL, &err) == -1);
    CHECK_ARG(strata_schema_builder_add_transformer(builder, "t2", NULL, upper, NULL, NULL, &err) == -1);
    CHECK(strata_schema_builder_add_transformer(NULL, NULL, NULL, NULL, NULL, NULL, NULL) == -1);
    CHECK_ARG(strata_schema_builder_add_merger(NULL, "m", sum, NULL, NULL, &err) == -1);
    CHECK_ARG(strata_schema_builder_add_merger(builder, NULL, sum, NULL, NULL, &err) == -1);
    CHECK_ARG(strata_schema_builder_add_merger(builder, "m2", NULL, NULL, NULL, &err) == -1);
    CHECK(strata_schema_builder_add_merger(NULL, NULL, NULL, NULL, NULL, NULL) == -1);
    CHECK_ARG(strata_schema_builder_load(NULL, json, &err) == NULL);
    CHECK_ARG(strata_schema_builder_load(builder, NULL, &err) == NULL);
    CHECK(strata_schema_builder_load(NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_schema_builder_loadb(NULL, SCHEMA, strlen(SCHEMA), &err) == NULL);
    CHECK_ARG(strata_schema_builder_loadb(builder, NULL, 4, &err) == NULL);
    CHECK(strata_schema_builder_loadb(NULL, NULL, 0, NULL) == NULL);
    CHECK_ARG(strata_schema_builder_load_file(NULL, path, &err) == NULL);
    CHECK_ARG(strata_schema_builder_load_file(builder, NULL, &err) == NULL);
    CHECK(strata_schema_builder_load_file(NULL, NULL, NULL) == NULL);

    /* ---- mapping ---- */
    CHECK_ARG(strata_map(NULL, "Issue", json, &err) == NULL);
    CHECK_ARG(strata_map(schema, NULL, json, &err) == NULL);
    CHECK_ARG(strata_map(schema, "Issue", NULL, &err) == NULL);
    CHECK(strata_map(NULL, NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_mapb(NULL, "Issue", "{}", 2, &err) == NULL);
    CHECK_ARG(strata_mapb(schema, NULL, "{}", 2, &err) == NULL);
    CHECK_ARG(strata_mapb(schema, "Issue", NULL, 2, &err) == NULL);
    CHECK_ARG(strata_mapb(schema, "Issue", NULL, 0, &err) == NULL);
    CHECK(strata_mapb(NULL, NULL, NULL, 0, NULL) == NULL);
    CHECK_ARG(strata_map_many(NULL, "Issue", ops, &count, &err) == NULL);
    CHECK_ARG(strata_map_many(schema, NULL, ops, &count, &err) == NULL);
    CHECK_ARG(strata_map_many(schema, "Issue", NULL, &count, &err) == NULL);
    CHECK_ARG(strata_map_many(schema, "Issue", ops, NULL, &err) == NULL);
    CHECK(strata_map_many(NULL, NULL, NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_map_manyb(NULL, "Issue", "[]", 2, &count, &err) == NULL);
    CHECK_ARG(strata_map_manyb(schema, NULL, "[]", 2, &count, &err) == NULL);
    CHECK_ARG(strata_map_manyb(schema, "Issue", NULL, 2, &count, &err) == NULL);
    CHECK_ARG(strata_map_manyb(schema, "Issue", "[]", 2, NULL, &err) == NULL);
    CHECK(strata_map_manyb(NULL, NULL, NULL, 0, NULL, NULL) == NULL);

    /* ---- JSON lines ---- */
    {
        strata_lines_t *lines;
        FILE *file = tmpfile();
        CHECK(file != NULL);
        if (file) {
            fputs("{\"number\": 1}\n", file);
            rewind(file);
        }
        CHECK_ARG(strata_map_lines(NULL, "Issue", lines_read_nothing, NULL, 0, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_map_lines(schema, NULL, lines_read_nothing, NULL, 0, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_map_lines(schema, "Issue", NULL, NULL, 0, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_map_lines(schema, "Nope", lines_read_nothing, NULL, 0, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_map_lines(schema, "Issue", lines_read_nothing, NULL, (size_t)-1, NULL, NULL, NULL, &err) == -1);
        CHECK(strata_map_lines(NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL) == -1);
        /* NULL callbacks and data are allowed: models are counted and released */
        CHECK(strata_map_lines(schema, "Issue", lines_read_nothing, NULL, 0, NULL, NULL, NULL, &err) == 0);
        CHECK(err.code == STRATA_OK);
        CHECK_ARG(strata_map_lines_file(NULL, "Issue", file, 0, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_map_lines_file(schema, NULL, file, 0, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_map_lines_file(schema, "Issue", NULL, 0, NULL, NULL, NULL, &err) == -1);
        CHECK(strata_map_lines_file(NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL) == -1);
        if (file) {
            CHECK(strata_map_lines_file(schema, "Issue", file, 0, NULL, NULL, NULL, &err) == 1);
            fclose(file);
        }
        CHECK_ARG(strata_lines_new(NULL, "Issue", 0, &err) == NULL);
        CHECK_ARG(strata_lines_new(schema, NULL, 0, &err) == NULL);
        CHECK_ARG(strata_lines_new(schema, "Nope", 0, &err) == NULL);
        CHECK(strata_lines_new(NULL, NULL, 0, NULL) == NULL);
        CHECK_ARG(strata_lines_feed(NULL, "{}\n", 3, NULL, NULL, NULL, &err) == -1);
        CHECK(strata_lines_feed(NULL, NULL, 0, NULL, NULL, NULL, NULL) == -1);
        CHECK_ARG(strata_lines_finish(NULL, NULL, NULL, NULL, &err) == -1);
        CHECK(strata_lines_finish(NULL, NULL, NULL, NULL, NULL) == -1);
        strata_lines_free(NULL);
        lines = strata_lines_new(schema, "Issue", 0, &err);
        CHECK(lines != NULL);
        CHECK_ARG(strata_lines_feed(lines, NULL, 3, NULL, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_lines_feed(lines, "{}\n", (size_t)-1, NULL, NULL, NULL, &err) == -1);
        CHECK(strata_lines_feed(lines, "{}\n{", 4, NULL, NULL, NULL, &err) == 1);
        {
            /* a callback cannot feed or finish the mapper calling it */
            struct refeed_state state = {0, NULL};
            strata_lines_t *own = strata_lines_new(schema, "Issue", 0, &err);
            state.lines = own;
            CHECK(strata_lines_feed(own, "{}\n{}\n", 6, refeeding, NULL, &state, &err) == 2);
            CHECK(state.refused == 6);
            CHECK(strata_lines_feed(own, "{}\n", 3, NULL, NULL, NULL, &err) == 1); /* usable again after */
            strata_lines_free(own);
        }
        CHECK(strata_lines_finish(lines, NULL, NULL, NULL, &err) == -1 && err.code == STRATA_ERROR_SYNTAX);
        CHECK_ARG(strata_lines_finish(lines, NULL, NULL, NULL, &err) == -1); /* ended */
        CHECK_ARG(strata_lines_feed(lines, "{}\n", 3, NULL, NULL, NULL, &err) == -1);
        strata_lines_free(lines);
        {
            size_t count = 7;
            json_t *bad = json_object(), *kept = bad;
            strata_model_t **models;
            CHECK_ARG(strata_lines_feed_array(NULL, "{}\n", 3, 0, &count, &bad, &err) == NULL);
            CHECK(count == 0 && bad == NULL);
            CHECK(strata_lines_feed_array(NULL, NULL, 0, 0, NULL, NULL, NULL) == NULL);
            lines = strata_lines_new(schema, "Issue", 0, &err);
            CHECK(lines != NULL);
            CHECK_ARG(strata_lines_feed_array(lines, "{}\n", 3, 0, NULL, NULL, &err) == NULL);
            CHECK_ARG(strata_lines_feed_array(lines, NULL, 3, 0, &count, NULL, &err) == NULL);
            CHECK_ARG(strata_lines_feed_array(lines, "{}\n", (size_t)-1, 0, &count, NULL, &err) == NULL);
            models = strata_lines_feed_array(lines, "{}\n[\n{", 6, 0, &count, &bad, &err);
            CHECK(models != NULL && count == 2 && models[0] != NULL && models[1] == NULL && json_array_size(bad) == 1);
            if (models != NULL && count == 2) {
                strata_model_decref(models[0]);
                strata_free(models);
            }
            json_decref(bad);
            models = strata_lines_feed_array(lines, NULL, 0, 1, &count, NULL, &err); /* "{" at the end: bad */
            CHECK(models != NULL && count == 1 && models[0] == NULL);
            strata_free(models);
            CHECK_ARG(strata_lines_feed_array(lines, NULL, 0, 1, &count, NULL, &err) == NULL); /* ended */
            strata_lines_free(lines);
            json_decref(kept);
        }
    }

    /* ---- responses ---- */
    {
        strata_model_t **records, *meta = model;
        json_t *bad_options = json_pack("{s:i}", "root", 1);
        CHECK_ARG(strata_map_response(NULL, "Issue", ops, NULL, &count, &meta, &err) == NULL);
        CHECK(meta == NULL && count == 0);
        CHECK_ARG(strata_map_response(schema, NULL, ops, NULL, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_response(schema, "Issue", NULL, NULL, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_response(schema, "Issue", ops, NULL, NULL, &meta, &err) == NULL);
        CHECK_ARG(strata_map_response(schema, "Issue", ops, bad_options, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_response(schema, "Issue", ops, ops, &count, &meta, &err) == NULL);
        CHECK(strata_map_response(NULL, NULL, NULL, NULL, NULL, NULL, NULL) == NULL);
        /* NULL options and NULL metadata are allowed */
        records = strata_map_response(schema, "Issue", ops, NULL, &count, NULL, &err);
        CHECK(records != NULL && count == 0 && err.code == STRATA_OK);
        strata_free(records);
        CHECK_ARG(strata_map_responseb(NULL, "Issue", "[]", 2, NULL, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_responseb(schema, NULL, "[]", 2, NULL, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_responseb(schema, "Issue", NULL, 2, NULL, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_responseb(schema, "Issue", "[]", 2, NULL, NULL, &meta, &err) == NULL);
        CHECK_ARG(strata_map_responseb(schema, "Issue", "[]", (size_t)-1, NULL, &count, &meta, &err) == NULL);
        CHECK_ARG(strata_map_responseb(schema, "Issue", "[]", 2, bad_options, &count, &meta, &err) == NULL);
        CHECK(strata_map_responseb(NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL) == NULL);
        records = strata_map_responseb(schema, "Issue", "null", 4, NULL, &count, NULL, &err);
        CHECK(records != NULL && count == 0 && err.code == STRATA_OK);
        strata_free(records);
        CHECK(meta == NULL);
        json_decref(bad_options);
    }

    /* ---- models ---- */
    CHECK(strata_model_incref(NULL) == NULL);
    strata_model_decref(NULL);
    CHECK(strata_model_name(NULL) == NULL);
    CHECK(strata_model_schema(NULL) == NULL);
    CHECK_ARG(strata_model_has(NULL, "title", &err) == -1);
    CHECK_ARG(strata_model_has(model, NULL, &err) == -1);
    CHECK(strata_model_has(NULL, NULL, NULL) == -1);
    CHECK_ARG(strata_model_get(NULL, "title", &err) == NULL);
    CHECK_ARG(strata_model_get(model, NULL, &err) == NULL);
    CHECK(strata_model_get(NULL, NULL, NULL) == NULL);
    CHECK(strata_model_get_date(model, "createdAt", &seconds, &nanoseconds, &err) == 1);
    CHECK(seconds == 1704164645 && nanoseconds == 0);
    CHECK_ARG(strata_model_get_date(NULL, "createdAt", &seconds, &nanoseconds, &err) == -1);
    CHECK_ARG(strata_model_get_date(model, NULL, &seconds, &nanoseconds, &err) == -1);
    CHECK_ARG(strata_model_get_date(model, "createdAt", NULL, &nanoseconds, &err) == -1);
    CHECK_ARG(strata_model_get_date(model, "createdAt", &seconds, NULL, &err) == -1);
    CHECK_ARG(strata_model_get_date(model, "title", &seconds, &nanoseconds, &err) == -1);
    CHECK(strata_model_get_date(NULL, NULL, NULL, NULL, NULL) == -1);
    CHECK_ARG(strata_model_dictionary(NULL, &err) == NULL);
    CHECK(strata_model_dictionary(NULL, NULL) == NULL);
    CHECK_ARG(strata_model_to_json(NULL, &err) == NULL);
    CHECK(strata_model_to_json(NULL, NULL) == NULL);
    CHECK(strata_model_equal(NULL, NULL) == 1);
    CHECK(strata_model_equal(model, NULL) == 0 && strata_model_equal(NULL, model) == 0);
    CHECK(strata_model_hash(NULL) == 0);
    CHECK(strata_model_copy(NULL) == NULL);

    /* ---- merge and update ---- */
    CHECK_ARG(strata_model_merge(NULL, model, &err) == -1);
    CHECK_ARG(strata_model_merge(model, NULL, &err) == -1);
    CHECK(strata_model_merge(NULL, NULL, NULL) == -1);
    CHECK_ARG(strata_model_update(NULL, obj, &err) == -1);
    CHECK_ARG(strata_model_update(model, NULL, &err) == -1);
    CHECK(strata_model_update(NULL, NULL, NULL) == -1);
    CHECK_ARG(strata_model_updateb(NULL, "{}", 2, &err) == -1);
    CHECK_ARG(strata_model_updateb(model, NULL, 2, &err) == -1);
    CHECK(strata_model_updateb(NULL, NULL, 0, NULL) == -1);

    /* ---- diff, patch, archives ---- */
    CHECK_ARG(strata_model_diff(NULL, model, &err) == NULL);
    CHECK_ARG(strata_model_diff(model, NULL, &err) == NULL);
    CHECK(strata_model_diff(NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_model_diff_merge(NULL, model, &err) == NULL);
    CHECK_ARG(strata_model_diff_merge(model, NULL, &err) == NULL);
    CHECK_ARG(strata_model_patch(NULL, ops, &err) == NULL);
    CHECK_ARG(strata_model_patch(model, NULL, &err) == NULL);
    CHECK(strata_model_patch(NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_model_merge_patch(NULL, obj, &err) == NULL);
    CHECK_ARG(strata_model_merge_patch(model, NULL, &err) == NULL);
    CHECK_ARG(strata_model_archive(NULL, &err) == NULL);
    CHECK(strata_model_archive(NULL, NULL) == NULL);
    CHECK_ARG(strata_unarchive(NULL, archive, &err) == NULL);
    CHECK_ARG(strata_unarchive(schema, NULL, &err) == NULL);
    CHECK(strata_unarchive(NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_unarchiveb(NULL, "{}", 2, &err) == NULL);
    CHECK_ARG(strata_unarchiveb(schema, NULL, 2, &err) == NULL);
    CHECK(strata_unarchiveb(NULL, NULL, 0, NULL) == NULL);
    CHECK_ARG(strata_schema_compare(NULL, schema, &err) == NULL);
    CHECK_ARG(strata_schema_compare(schema, NULL, &err) == NULL);
    CHECK(strata_schema_compare(NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_schema_json_schema(NULL, "User", 0, &err) == NULL);
    CHECK_ARG(strata_schema_json_schema(schema, NULL, 1, &err) == NULL);
    CHECK(strata_schema_json_schema(NULL, NULL, 0, NULL) == NULL);
    CHECK_ARG(strata_schema_diagram(NULL, "mermaid", &err) == NULL);
    CHECK_ARG(strata_schema_diagram(schema, NULL, &err) == NULL);
    CHECK_ARG(strata_schema_diagram(schema, "svg", &err) == NULL);
    CHECK(strata_schema_diagram(NULL, NULL, NULL) == NULL);
    CHECK_ARG(strata_schema_codegen_python(NULL, "{}", &err) == NULL);
    CHECK(strata_schema_codegen_python(NULL, NULL, NULL) == NULL);
    {
        char *module = strata_schema_codegen_python(schema, NULL, &err);
        CHECK(module != NULL && err.code == STRATA_OK);
        strata_free(module);
    }

    /* ---- a model of one schema passed with another ---- */
    {
        strata_model_t *into = strata_model_copy(model);
        json_t *before = strata_model_dictionary(into, NULL), *after;
        CHECK(strata_model_equal(model, foreign) == 0); /* two loads are two schemas */
        CHECK_ARG(strata_model_merge(into, foreign, &err) == -1);
        CHECK_ARG(strata_model_merge(into, user, &err) == -1); /* another model */
        CHECK_ARG(strata_model_diff(model, foreign, &err) == NULL);
        CHECK_ARG(strata_model_diff_merge(foreign, model, &err) == NULL);
        CHECK_ARG(strata_model_diff(model, user, &err) == NULL);
        after = strata_model_dictionary(into, NULL);
        CHECK(json_equal(before, after)); /* failed merges change nothing */
        /* a model related by extends merges its shared properties */
        CHECK(strata_model_merge(into, special, &err) == 0);
        json_decref(before);
        json_decref(after);
        strata_model_decref(into);
        /* an archive is restored by any schema that has its model */
        into = strata_unarchive(other, archive, &err);
        CHECK(into != NULL && strata_model_equal(into, foreign) && strata_model_schema(into) == other);
        strata_model_decref(into);
    }

    /* ---- callbacks that misbehave ---- */
    {
        strata_model_t *m, *into;
        int mode;
        for (mode = 1; mode <= 3; mode++) {
            transformer_mode = mode;
            memset(&err, 0, sizeof err);
            m = strata_mapb(schema, "Issue", "{\"code\": \"abc\"}", 15, &err);
            CHECK(m == NULL);
            CHECK(err.code == STRATA_ERROR_FORMAT || err.code == STRATA_ERROR_TYPE);
            CHECK(err.message[0] != '\0');
            strata_model_decref(m);
        }
        transformer_mode = 0;
        for (mode = 1; mode <= 3; mode++) {
            json_t *d1, *d2;
            merger_mode = mode;
            into = strata_model_copy(model);
            d1 = strata_model_dictionary(into, NULL);
            memset(&err, 0, sizeof err);
            if (strata_model_merge(into, model, &err) != 0) {
                CHECK(err.code != STRATA_OK && err.message[0] != '\0');
                d2 = strata_model_dictionary(into, NULL);
                CHECK(json_equal(d1, d2));
                json_decref(d2);
            } else {
                CHECK(mode == 3); /* returning `incoming` (with a reference) is a fine merger */
            }
            json_decref(d1);
            strata_model_decref(into);
        }
        merger_mode = 0;
    }

    /* ---- graph contexts ---- */
    {
        static const char graph_doc[] =
            "{\"strata\": 1, \"models\": {"
            "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
            " \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\"}}},"
            "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
            " \"author\": {\"type\": \"User?\"}}}}}";
        strata_schema_builder_t *graph_builder = strata_schema_builder_new();
        strata_schema_t *graph_schema;
        strata_context_t *context;
        strata_model_t **records, **related, *record;
        json_t *data, *key, *report = NULL;
        size_t n = 0;

        CHECK_ARG(strata_schema_builder_add_key_injector(NULL, "User", inject_key, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_schema_builder_add_key_injector(graph_builder, NULL, inject_key, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_schema_builder_add_key_injector(graph_builder, "User", NULL, NULL, NULL, &err) == -1);
        CHECK(strata_schema_builder_add_key_injector(graph_builder, "User", inject_key, NULL, NULL, &err) == 0);
        CHECK_ARG(strata_schema_builder_add_key_injector(graph_builder, "User", inject_key, NULL, NULL, &err) == -1);
        graph_schema = strata_schema_builder_loadb(graph_builder, graph_doc, strlen(graph_doc), &err);
        CHECK(graph_schema != NULL);

        CHECK_ARG(strata_context_open(NULL, NULL, &err) == NULL);
        CHECK(strata_context_open(NULL, NULL, NULL) == NULL);
        context = strata_context_open(graph_schema, NULL, &err);
        CHECK(context != NULL);
        CHECK(strata_context_incref(NULL) == NULL);
        strata_context_decref(NULL);
        strata_context_close(NULL);

        data = json_loads("[{\"id\": 1, \"author\": {\"id\": 7}}, {\"id\": 2, \"author\": {}}]", 0, NULL);
        CHECK_ARG(strata_context_import(NULL, "Post", data, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK_ARG(strata_context_import(context, NULL, data, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK_ARG(strata_context_import(context, "Post", NULL, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK_ARG(strata_context_import(context, "Post", data, NULL, NULL, NULL, NULL, NULL, &err) == NULL);
        CHECK_ARG(strata_context_import(context, "Nope", data, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK_ARG(strata_context_importb(context, "Post", NULL, 2, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK(strata_context_importb(NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL) == NULL);
        {
            /* fetching pages: NULL context, model, URL, count, a NULL body of some length; bad headers */
            json_t *report = (json_t *)&n;
            strata_model_t *meta = (strata_model_t *)&n;
            json_t *bad_headers = json_loads("[[\"ETag\"]]", 0, NULL);
            CHECK_ARG(strata_context_fetch_headers(NULL, "http://x/", &err) == NULL);
            CHECK_ARG(strata_context_fetch_headers(context, NULL, &err) == NULL);
            CHECK(strata_context_fetch_headers(NULL, NULL, NULL) == NULL);
            CHECK_ARG(strata_context_fetch_page(NULL, "Post", "http://x/", 200, NULL, "[]", 2, NULL, 1, &n, &meta,
                                                &report, &err) == NULL);
            CHECK(meta == NULL && report == NULL);
            CHECK_ARG(strata_context_fetch_page(context, NULL, "http://x/", 200, NULL, "[]", 2, NULL, 1, &n, NULL,
                                                NULL, &err) == NULL);
            CHECK_ARG(strata_context_fetch_page(context, "Post", NULL, 200, NULL, "[]", 2, NULL, 1, &n, NULL, NULL,
                                                &err) == NULL);
            CHECK_ARG(strata_context_fetch_page(context, "Post", "http://x/", 200, NULL, "[]", 2, NULL, 1, NULL, NULL,
                                                NULL, &err) == NULL);
            CHECK_ARG(strata_context_fetch_page(context, "Post", "http://x/", 200, NULL, NULL, 2, NULL, 1, &n, NULL,
                                                NULL, &err) == NULL);
            CHECK_ARG(strata_context_fetch_page(context, "Post", "http://x/", 200, bad_headers, "[]", 2, NULL, 1, &n,
                                                NULL, NULL, &err) == NULL);
            CHECK(strata_context_fetch_page(NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL) ==
                  NULL);
            json_decref(bad_headers);
            /* the loop: a NULL context, model, URL or fetch function */
            CHECK_ARG(strata_context_fetch(NULL, "Post", "http://x/", failing_fetch, NULL, NULL, 0, 1, &err) == -1);
            CHECK_ARG(strata_context_fetch(context, NULL, "http://x/", failing_fetch, NULL, NULL, 0, 1, &err) == -1);
            CHECK_ARG(strata_context_fetch(context, "Post", NULL, failing_fetch, NULL, NULL, 0, 1, &err) == -1);
            CHECK_ARG(strata_context_fetch(context, "Post", "http://x/", NULL, NULL, NULL, 0, 1, &err) == -1);
            CHECK(strata_context_fetch(NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL) == -1);
            /* a fetch function that fails: an io error with its message, nothing imported */
            CHECK(strata_context_fetch(context, "Post", "http://x/", failing_fetch, NULL, NULL, 0, 1, &err) == -1);
            CHECK(err.code == STRATA_ERROR_IO && strstr(err.message, "http://x/") != NULL &&
                  strstr(err.message, "no network here") != NULL);
        }
        {
            /* the metadata forms: a failure leaves *metadata NULL; none declared gives NULL */
            strata_model_t *meta = (strata_model_t *)&n;
            CHECK_ARG(strata_context_import_response(NULL, "Post", data, NULL, NULL, NULL, &n, &meta, NULL, &err) ==
                      NULL);
            CHECK(meta == NULL);
            meta = (strata_model_t *)&n;
            CHECK_ARG(strata_context_import_response(context, "Post", NULL, NULL, NULL, NULL, &n, &meta, NULL, &err) ==
                      NULL);
            CHECK(meta == NULL);
            meta = (strata_model_t *)&n;
            CHECK_ARG(strata_context_import_responseb(context, "Post", NULL, 2, NULL, NULL, NULL, &n, &meta, NULL,
                                                      &err) == NULL);
            CHECK(meta == NULL);
            CHECK(strata_context_import_responseb(NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
                  NULL);
            {
                json_t *options = json_loads("{\"meta\": {\"path\": \"paging\"}}", 0, NULL);
                CHECK_ARG(strata_context_import_response(context, "Post", data, options, NULL, NULL, &n, &meta, NULL,
                                                         &err) == NULL);
                json_decref(options);
            }
        }
        {
            /* every unknown member of an options object is refused (a typo never widens an orphan rule) */
            const char *const refused[] = {
                "{\"rooot\": \"data\"}",
                "{\"delete_orphans\": {\"model\": \"Post\", \"wher\": {}}}",
                "{\"delete_orphans\": {\"model\": \"Post\", \"keep\": true}}",
                "{\"delete_orphans\": {\"model\": \"Post\", \"scope\": \"nested\"}}",
                "[]",
            };
            size_t r;
            for (r = 0; r < sizeof refused / sizeof refused[0]; r++) {
                json_t *options = json_loads(refused[r], 0, NULL);
                CHECK_ARG(strata_context_import(context, "Post", data, options, NULL, NULL, &n, NULL, &err) == NULL);
                json_decref(options);
            }
        }
        /* an injector that refuses fails the import, and nothing changes */
        injector_mode = 1;
        CHECK(strata_context_import(context, "Post", data, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK(err.code == STRATA_ERROR_FORMAT);
        injector_mode = 2;
        CHECK(strata_context_import(context, "Post", data, NULL, NULL, NULL, &n, NULL, &err) == NULL);
        CHECK(strata_context_count(context, "Post", &err) == 0);
        injector_mode = 0;
        records = strata_context_import(context, "Post", data, NULL, keep_all, NULL, &n, &report, &err);
        CHECK(records != NULL && n == 2 && report != NULL);
        CHECK(strata_context_count(context, "User", &err) == 2);
        /* records are read only */
        CHECK_ARG(strata_model_update(records[0], data, &err) == -1);

        key = json_integer(7);
        CHECK_ARG(strata_context_get(NULL, "User", key, &err) == NULL);
        CHECK_ARG(strata_context_get(context, NULL, key, &err) == NULL);
        CHECK_ARG(strata_context_get(context, "User", NULL, &err) == NULL);
        record = strata_context_get(context, "User", key, &err);
        CHECK(record != NULL && err.code == STRATA_OK);
        CHECK_ARG(strata_context_all(NULL, "User", &n, &err) == NULL);
        CHECK_ARG(strata_context_all(context, NULL, &n, &err) == NULL);
        CHECK_ARG(strata_context_all(context, "User", NULL, &err) == NULL);
        CHECK_ARG(strata_context_count(NULL, "User", &err) == -1);
        CHECK_ARG(strata_context_count_flags(NULL, "User", STRATA_SKIP_STUBS, &err) == -1);
        CHECK_ARG(strata_context_count_flags(context, NULL, STRATA_SKIP_STUBS, &err) == -1);
        CHECK_ARG(strata_context_all_flags(NULL, "User", STRATA_SKIP_STUBS, &n, &err) == NULL);
        CHECK_ARG(strata_context_all_flags(context, NULL, STRATA_SKIP_STUBS, &n, &err) == NULL);
        CHECK_ARG(strata_context_all_flags(context, "User", STRATA_SKIP_STUBS, NULL, &err) == NULL);
        CHECK_ARG(strata_context_count(context, NULL, &err) == -1);
        CHECK_ARG(strata_context_query(NULL, "User", NULL, &n, &err) == NULL);
        CHECK_ARG(strata_context_query(context, NULL, NULL, &n, &err) == NULL);
        CHECK_ARG(strata_context_query(context, "User", NULL, NULL, &err) == NULL);
        CHECK_ARG(strata_context_query_count(NULL, "User", NULL, &err) == -1);
        CHECK_ARG(strata_context_query_count(context, NULL, NULL, &err) == -1);
        {
            /* a NULL query is every record, in key order */
            strata_model_t **all = strata_context_query(context, "User", NULL, &n, &err);
            size_t r;
            CHECK(all != NULL && err.code == STRATA_OK);
            CHECK(strata_context_query_count(context, "User", NULL, &err) == (long long)n);
            for (r = 0; all != NULL && r < n; r++)
                strata_model_decref(all[r]);
            strata_free(all);
        }
        CHECK_ARG(strata_context_related(NULL, record, "posts", &n, &err) == NULL);
        CHECK_ARG(strata_context_related(context, NULL, "posts", &n, &err) == NULL);
        CHECK_ARG(strata_context_related(context, record, NULL, &n, &err) == NULL);
        CHECK_ARG(strata_context_related(context, record, "posts", NULL, &err) == NULL);
        CHECK_ARG(strata_context_related(context, record, "post", &n, &err) == NULL);
        CHECK_ARG(strata_context_related(context, model, "posts", &n, &err) == NULL); /* not a record */
        related = strata_context_related(context, record, "posts", &n, &err);
        CHECK(related != NULL && n == 1);
        strata_model_decref(related[0]);
        strata_free(related);
        CHECK_ARG(strata_context_dictionary(NULL, record, &err) == NULL);
        CHECK_ARG(strata_context_dictionary(context, NULL, &err) == NULL);
        CHECK_ARG(strata_context_dictionary_depth(NULL, record, 1, &err) == NULL);
        CHECK_ARG(strata_context_dictionary_depth(context, NULL, 1, &err) == NULL);
        {
            json_t *flat = strata_context_dictionary_depth(context, record, 0, &err);
            json_t *own = strata_model_dictionary(record, NULL);
            CHECK(flat != NULL && json_equal(flat, own));
            json_decref(flat);
            json_decref(own);
        }
        CHECK(strata_record_is_stub(NULL) == 0);
        CHECK(strata_record_is_stub(record) == 0);
        CHECK_ARG(strata_context_to_json(NULL, record, &err) == NULL);
        CHECK_ARG(strata_context_to_json(context, NULL, &err) == NULL);
        CHECK(strata_record_key(NULL) == NULL);
        CHECK_ARG(strata_schema_relationship(NULL, "User", "posts", &err) == -1);
        CHECK_ARG(strata_schema_relationship(graph_schema, NULL, "posts", &err) == -1);
        CHECK_ARG(strata_schema_relationship(graph_schema, "User", NULL, &err) == -1);
        CHECK_ARG(strata_schema_relationship(graph_schema, "User", "post", &err) == -1);
        CHECK(strata_schema_relationship(graph_schema, "User", "posts", &err) == 2);
        CHECK(strata_schema_relationship(graph_schema, "Post", "author", &err) == 1);
        CHECK(strata_schema_relationship(graph_schema, "Post", "id", &err) == 0);
        CHECK(strata_record_key(model) == NULL);
        CHECK_ARG(strata_context_check(NULL, &err) == -1);
        CHECK(strata_context_check(context, &err) == 0 && err.code == STRATA_OK);
        CHECK(strata_context_check(context, NULL) == 0);
        {
            size_t limit = 0, held = 0;
            CHECK_ARG(strata_context_set_cache_limit(NULL, 10, &err) == -1);
            CHECK_ARG(strata_context_set_cache_limit(context, (size_t)-1, &err) == -1);
            CHECK(strata_context_set_cache_limit(context, 10, &err) == 0 && err.code == STRATA_OK);
            CHECK_ARG(strata_context_cache_info(NULL, &limit, &held, &err) == -1);
            CHECK(strata_context_cache_info(context, NULL, NULL, &err) == 0);
            CHECK(strata_context_cache_info(context, &limit, &held, NULL) == 0 && limit == 10 && held > 0);
        }
        {
            size_t mapped = 7;
            CHECK_ARG(strata_context_set_memory_map(NULL, 1, &err) == -1);
            CHECK_ARG(strata_context_set_memory_map(context, (size_t)-1, &err) == -1);
            CHECK(strata_context_set_memory_map(context, (size_t)1 << 20, &err) == 0 && err.code == STRATA_OK);
            CHECK_ARG(strata_context_memory_map(NULL, &mapped, &err) == -1);
            CHECK(strata_context_memory_map(context, NULL, &err) == 0);
            CHECK(strata_context_memory_map(context, &mapped, NULL) == 0 && mapped == 0); /* in memory: none */
        }
        /* read blocks: balanced, nested, an end without a begin refused */
        CHECK_ARG(strata_context_begin_read(NULL, &err) == -1);
        CHECK_ARG(strata_context_end_read(NULL, &err) == -1);
        CHECK_ARG(strata_context_end_read(context, &err) == -1);
        CHECK(strstr(err.message, "no read block") != NULL);
        CHECK(strata_context_begin_read(context, &err) == 0 && strata_context_begin_read(context, NULL) == 0);
        CHECK(strata_context_count(context, "User", &err) >= 0);
        CHECK_ARG(strata_context_set_memory_map(context, 0, &err) == -1);
        CHECK(strstr(err.message, "read block") != NULL);
        CHECK(strata_context_end_read(context, NULL) == 0 && strata_context_end_read(context, &err) == 0);
        CHECK_ARG(strata_context_end_read(context, &err) == -1);
        CHECK_ARG(strata_context_delete(NULL, record, &err) == -1);
        CHECK_ARG(strata_context_delete(context, NULL, &err) == -1);
        CHECK(strata_context_delete(context, record, &err) == 0);
        CHECK_ARG(strata_context_delete(context, record, &err) == -1); /* already gone */
        CHECK(strstr(err.message, "was deleted") != NULL);
        {
            /* a deleted record's handle keeps its key and values; its relationships cannot be followed */
            json_t *gone = strata_record_key(record);
            CHECK(gone != NULL && json_equal(gone, key));
            json_decref(gone);
            CHECK_ARG(strata_context_related(context, record, "posts", &n, &err) == NULL);
            CHECK(strstr(err.message, "was deleted") != NULL);
        }

        strata_context_close(context);
        CHECK_ARG(strata_context_count(context, "User", &err) == -1);
        CHECK_ARG(strata_context_check(context, &err) == -1);
        CHECK_ARG(strata_context_set_cache_limit(context, 10, &err) == -1);
        CHECK_ARG(strata_context_cache_info(context, NULL, NULL, &err) == -1);
        CHECK_ARG(strata_context_set_memory_map(context, 0, &err) == -1);
        CHECK_ARG(strata_context_memory_map(context, NULL, &err) == -1);
        CHECK_ARG(strata_context_begin_read(context, &err) == -1);
        strata_context_decref(context);
        strata_model_decref(record);
        strata_model_decref(records[0]);
        strata_model_decref(records[1]);
        strata_free(records);
        json_decref(report);
        json_decref(key);
        json_decref(data);
        strata_schema_decref(graph_schema);
        strata_schema_builder_free(graph_builder);
    }

    /* ---- all at once, then the releases ---- */
    json_decref(archive);
    json_decref(ops);
    json_decref(obj);
    json_decref(json);
    strata_model_decref(model);
    strata_model_decref(foreign);
    strata_model_decref(user);
    strata_model_decref(special);
    strata_schema_decref(schema);
    strata_schema_decref(other);
    CHECK(released == 0); /* the builder still holds the payloads */
    strata_schema_builder_free(builder);
    CHECK(released == 2);
    return check_summary();
}
