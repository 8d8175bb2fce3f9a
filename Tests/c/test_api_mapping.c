/*
 * test_api_mapping.c - unit tests of the "Mapping" section of
 * include/strata.h: strata_map, strata_mapb, strata_map_many,
 * strata_map_manyb: every error of an input, exact ints, the top level, syntax
 * errors, unknown model names, nesting depth, NULL arguments, arrays of models.
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on, so one run shows every broken promise of the header. Besides
 * the happy paths it checks that pointer arguments may be NULL (an error,
 * never a crash), that unknown names are "argument" errors, what
 * strata_errors() holds, and that references are balanced (json_t refcounts
 * come back to where they started). The schema and input most tests use are
 * in test_api.h.
 *
 * Usage: test_api_mapping [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "test_api.h"

static void test_map_errors(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err = junk_error();
    json_t *input, *errors;
    strata_model_t *model;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }

    /* every error of the input */
    input = parse("{\"url\": \"not a url\", \"title\": 5, \"state\": \"weird\", \"locked\": null,"
                  " \"user\": \"octocat\", \"labels\": [{\"name\": \"ok\"}, {\"name\": 3}],"
                  " \"score\": \"high\", \"assignee\": {\"login\": \"x\"}}");
    model = strata_map(schema, "Issue", input, &err);
    CHECK(model == NULL);
    CHECK_MSG(err.count == 9, "count %zu", err.count);
    CHECK_ERROR_CONSISTENT(err);
    errors = strata_errors();
    CHECK(json_array_size(errors) == 9);
    CHECK_HAS_ERROR(errors, "/number", "missing", "Issue", "number");
    CHECK_HAS_ERROR(errors, "/url", "format", "Issue", "URL");
    CHECK_HAS_ERROR(errors, "/title", "type", "Issue", "title");
    CHECK_HAS_ERROR(errors, "/state", "enum", "Issue", "state");
    CHECK_HAS_ERROR(errors, "/locked", "null", "Issue", "locked");
    CHECK_HAS_ERROR(errors, "/user", "path", "Issue", "reporterLogin");
    CHECK_HAS_ERROR(errors, "/labels/1/name", "type", "Label", "name");
    CHECK_HAS_ERROR(errors, "/score", "type", "Issue", "score");
    CHECK_HAS_ERROR(errors, "/assignee/id", "missing", "User", "id");
    json_decref(errors);
    CHECK(input->refcount == 1);
    json_decref(input);

    /* int is exact */
    {
        const char *bad_ints[] = {"{\"number\": 3.5}", "{\"number\": 3.0}", "{\"number\": \"3\"}",
                                  "{\"number\": true}"};
        size_t i;
        for (i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
            err = junk_error();
            model = strata_mapb(schema, "Issue", bad_ints[i], strlen(bad_ints[i]), &err);
            CHECK_MSG(model == NULL, "%s mapped", bad_ints[i]);
            CHECK_CODE(err, STRATA_ERROR_TYPE);
            CHECK_STR(err.path, "/number");
            strata_model_decref(model);
        }
    }

    /* the top level of a model is an object */
    err = junk_error();
    input = parse("[1, 2]");
    model = strata_map(schema, "Issue", input, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_TYPE);
    CHECK_STR(err.path, "");
    json_decref(input);
    model = strata_map(schema, "Issue", json_null(), &err);
    CHECK(model == NULL);
    CHECK(err.code == STRATA_ERROR_TYPE || err.code == STRATA_ERROR_NULL);

    /* syntax errors of text input */
    err = junk_error();
    model = strata_mapb(schema, "Issue", "{\"number\": }", 12, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
    CHECK_MSG(strstr(err.message, "line") != NULL, "message \"%s\" names no line", err.message);
    CHECK_ERROR_CONSISTENT(err);

    /* unknown model names */
    err = junk_error();
    input = parse("{\"number\": 1}");
    model = strata_map(schema, "Nope", input, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    err = junk_error();
    model = strata_map(schema, "issue", input, &err); /* names are case-sensitive */
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    model = strata_map(schema, "", input, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    model = strata_mapb(schema, "Nope", "{}", 2, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    json_decref(input);

    strata_schema_decref(schema);
}

static json_t *deep_nodes(int levels) {
    json_t *node = json_pack("{s:i}", "id", levels);
    int i;
    for (i = levels - 1; i >= 0; i--)
        node = json_pack("{s:i, s:[o]}", "id", i, "children", node);
    return node;
}

static void test_depth(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err = junk_error();
    json_t *input;
    strata_model_t *model;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    input = deep_nodes(20);
    model = strata_map(schema, "Node", input, &err);
    CHECK(model != NULL);
    CHECK_CODE(err, STRATA_OK);
    strata_model_decref(model);
    json_decref(input);

    /* 1000 models (and 1000 arrays) deep: a "depth" error, not a crash */
    input = deep_nodes(1000);
    err = junk_error();
    model = strata_map(schema, "Node", input, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_DEPTH);
    CHECK_STR(err.code_name, "depth");
    strata_model_decref(model);
    json_decref(input);

    strata_schema_decref(schema);
}

static void test_map_null_arguments(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err;
    json_t *input = parse("{\"number\": 1}");
    size_t count = 77;
    if (schema == NULL) {
        CHECK(schema != NULL);
        json_decref(input);
        return;
    }

    err = junk_error();
    CHECK(strata_map(NULL, "Issue", input, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    err = junk_error();
    CHECK(strata_map(schema, NULL, input, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map(schema, "Issue", NULL, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_map(NULL, NULL, NULL, NULL) == NULL);
    CHECK(strata_map(schema, "Issue", NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_mapb(NULL, "Issue", "{}", 2, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_mapb(schema, NULL, "{}", 2, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_mapb(schema, "Issue", NULL, 2, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_mapb(NULL, NULL, NULL, 0, NULL) == NULL);

    err = junk_error();
    CHECK(strata_map_many(NULL, "Issue", input, &count, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_many(schema, NULL, input, &count, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_many(schema, "Issue", NULL, &count, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_many(schema, "Issue", input, NULL, &err) == NULL); /* count is required */
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_map_many(NULL, NULL, NULL, NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_map_manyb(NULL, "Issue", "[]", 2, &count, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_manyb(schema, NULL, "[]", 2, &count, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_manyb(schema, "Issue", NULL, 2, &count, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_manyb(schema, "Issue", "[]", 2, NULL, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_map_manyb(NULL, NULL, NULL, 0, NULL, NULL) == NULL);

    CHECK(input->refcount == 1);
    json_decref(input);
    strata_schema_decref(schema);
}

static void test_map_many(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err = junk_error();
    json_t *input, *errors, *dict;
    strata_model_t **models;
    size_t count = 77, i;
    const char *text = "[{\"number\": 1, \"title\": \"a\"}, {\"number\": 2}, {\"number\": 3, \"title\": \"c\"}]";
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }

    input = parse(text);
    models = strata_map_many(schema, "Issue", input, &count, &err);
    CHECK(models != NULL);
    CHECK(count == 3);
    CHECK_CODE(err, STRATA_OK);
    if (models && count == 3) {
        for (i = 0; i < count; i++) {
            json_t *number = strata_model_get(models[i], "number", NULL);
            CHECK(json_integer_value(number) == (json_int_t)(i + 1));
            CHECK_STR(strata_model_name(models[i]), "Issue");
            json_decref(number);
        }
        dict = strata_model_dictionary(models[1], NULL);
        CHECK_JSON(dict, "{\"number\": 2, \"labels\": []}");
        json_decref(dict);
    }
    for (i = 0; models && i < count; i++)
        strata_model_decref(models[i]);
    strata_free(models);
    CHECK(input->refcount == 1);
    json_decref(input);

    /* text */
    count = 77;
    models = strata_map_manyb(schema, "Issue", text, strlen(text), &count, &err);
    CHECK(models != NULL && count == 3);
    for (i = 0; models && i < count; i++)
        strata_model_decref(models[i]);
    strata_free(models);

    /* empty: a non-NULL array, count 0 */
    count = 77;
    input = json_array();
    models = strata_map_many(schema, "Issue", input, &count, &err);
    CHECK(models != NULL);
    CHECK(count == 0);
    CHECK_CODE(err, STRATA_OK);
    strata_free(models);
    json_decref(input);
    count = 77;
    models = strata_map_manyb(schema, "Issue", " [ ] ", 5, &count, &err);
    CHECK(models != NULL && count == 0);
    strata_free(models);

    /* errors name their element; nothing is made */
    err = junk_error();
    input = parse("[{\"number\": 1}, {\"number\": 2, \"title\": 5}, {\"title\": \"x\"}, 7]");
    models = strata_map_many(schema, "Issue", input, &count, &err);
    CHECK(models == NULL);
    CHECK_MSG(err.count == 3, "count %zu", err.count);
    CHECK_ERROR_CONSISTENT(err);
    errors = strata_errors();
    CHECK_HAS_ERROR(errors, "/1/title", "type", "Issue", "title");
    CHECK_HAS_ERROR(errors, "/2/number", "missing", "Issue", "number");
    CHECK_HAS_ERROR(errors, "/3", "type", NULL, NULL);
    json_decref(errors);
    CHECK(input->refcount == 1);
    json_decref(input);

    /* the input of map_many is an array */
    err = junk_error();
    input = parse("{\"number\": 1}");
    models = strata_map_many(schema, "Issue", input, &count, &err);
    CHECK(models == NULL);
    CHECK_CODE(err, STRATA_ERROR_TYPE);
    CHECK_STR(err.path, "");
    json_decref(input);

    err = junk_error();
    models = strata_map_manyb(schema, "Issue", "[{\"number\": 1},", 15, &count, &err);
    CHECK(models == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);

    err = junk_error();
    models = strata_map_manyb(schema, "Nope", "[]", 2, &count, &err);
    CHECK(models == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);

    strata_schema_decref(schema);
}

static const struct check_test tests[] = {
    {"map_errors", test_map_errors},
    {"depth", test_depth},
    {"map_null_arguments", test_map_null_arguments},
    {"map_many", test_map_many},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
