/*
 * test_api_models.c - unit tests of the "Models" section of include/strata.h:
 * a mapped model's has, get, dictionary and to_json (test "map"), reference
 * counting (models keep their schema alive), NULL arguments, equal, hash and
 * copy, returned trees independent of the model.
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on, so one run shows every broken promise of the header. Besides
 * the happy paths it checks that pointer arguments may be NULL (an error,
 * never a crash), that unknown names are "argument" errors, what
 * strata_errors() holds, and that references are balanced (json_t refcounts
 * come back to where they started). The schema and input most tests use are
 * in test_api.h.
 *
 * Usage: test_api_models [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "test_api.h"

static void test_map(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err = junk_error();
    json_t *input, *title, *extra, *value, *dict, *out;
    strata_model_t *model;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    input = parse(ISSUE_TEXT);
    title = json_object_get(input, "title");
    extra = json_object_get(input, "extra");

    model = strata_map(schema, "Issue", input, &err);
    CHECK(model != NULL);
    CHECK_CODE(err, STRATA_OK);
    CHECK(err.count == 0);
    if (model == NULL) {
        json_t *errors = strata_errors();
        char *d = check_dump(errors);
        fprintf(stderr, "  errors: %s\n", d);
        free(d);
        json_decref(errors);
        json_decref(input);
        strata_schema_decref(schema);
        return;
    }
    /* borrowed input; untransformed leaves are shared, not copied */
    CHECK(input->refcount == 1);
    CHECK_MSG(title->refcount > 1, "title string not shared (refcount %zu)", (size_t)title->refcount);
    CHECK_MSG(extra->refcount > 1, "json value not shared (refcount %zu)", (size_t)extra->refcount);

    CHECK_STR(strata_model_name(model), "Issue");
    CHECK(strata_model_name(model) == strata_model_name(model));
    CHECK(strata_model_schema(model) == schema);

    /* has */
    err = junk_error();
    CHECK(strata_model_has(model, "title", &err) == 1);
    CHECK_CODE(err, STRATA_OK);
    CHECK(strata_model_has(model, "createdAt", NULL) == 1); /* null counts */
    CHECK(strata_model_has(model, "note", NULL) == 0);      /* json: false */
    CHECK(strata_model_has(model, "labels", NULL) == 1);
    CHECK(strata_model_has(model, "reporterLogin", NULL) == 1);
    err = junk_error();
    CHECK(strata_model_has(model, "nope", &err) == -1);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_model_has(model, "created_at", NULL) == -1); /* JSON key, not a property */
    CHECK(strata_model_has(model, "other", NULL) == -1);

    /* get: canonical values */
    err = junk_error();
    value = strata_model_get(model, "title", &err);
    CHECK_JSON(value, "\"Crash on null\"");
    CHECK_CODE(err, STRATA_OK);
    json_decref(value);
    value = strata_model_get(model, "URL", NULL);
    CHECK_JSON(value, "\"https://api.github.com/repos/o/r/issues/7\"");
    json_decref(value);
    value = strata_model_get(model, "state", NULL);
    CHECK_JSON(value, "\"OPEN\""); /* the enum's model value */
    json_decref(value);
    value = strata_model_get(model, "reporterLogin", NULL);
    CHECK_JSON(value, "\"octocat\"");
    json_decref(value);
    value = strata_model_get(model, "score", NULL);
    CHECK_JSON(value, "3.0"); /* double: 3 becomes 3.0 */
    CHECK(json_is_real(value));
    json_decref(value);
    value = strata_model_get(model, "number", NULL);
    CHECK_JSON(value, "7");
    CHECK(json_is_integer(value));
    json_decref(value);
    value = strata_model_get(model, "locked", NULL);
    CHECK(json_is_false(value));
    json_decref(value);
    value = strata_model_get(model, "assignee", NULL);
    CHECK_JSON(value, "{\"id\": 2, \"login\": \"hubot\"}");
    json_decref(value);
    value = strata_model_get(model, "labels", NULL);
    CHECK_JSON(value, "[{\"name\": \"bug\", \"color\": \"f00\"}]");
    json_decref(value);
    value = strata_model_get(model, "extra", NULL);
    CHECK_JSON(value, "{\"a\": [1, 2.5, null]}");
    json_decref(value);
    value = strata_model_get(model, "counts", NULL);
    CHECK_JSON(value, "{\"x\": 1}");
    json_decref(value);
    err = junk_error();
    value = strata_model_get(model, "createdAt", &err);
    CHECK(json_is_null(value));
    CHECK_CODE(err, STRATA_OK);
    json_decref(value);
    err = junk_error();
    value = strata_model_get(model, "note", &err); /* absent: NULL, no error */
    CHECK(value == NULL);
    CHECK_CODE(err, STRATA_OK);
    err = junk_error();
    value = strata_model_get(model, "nope", &err);
    CHECK(value == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);

    /* dictionary: property order, absent left out, null kept */
    err = junk_error();
    dict = strata_model_dictionary(model, &err);
    CHECK_CODE(err, STRATA_OK);
    CHECK_JSON(dict, "{\"URL\": \"https://api.github.com/repos/o/r/issues/7\", \"number\": 7,"
                     " \"title\": \"Crash on null\", \"state\": \"OPEN\", \"reporterLogin\": \"octocat\","
                     " \"assignee\": {\"id\": 2, \"login\": \"hubot\"},"
                     " \"labels\": [{\"name\": \"bug\", \"color\": \"f00\"}], \"score\": 3.0,"
                     " \"locked\": false, \"extra\": {\"a\": [1, 2.5, null]}, \"counts\": {\"x\": 1},"
                     " \"createdAt\": null}");
    if (dict) {
        const char *order[] = {"URL", "number", "title", "state", "reporterLogin", "assignee",
                               "labels", "score", "locked", "extra", "counts", "createdAt"};
        void *it = json_object_iter(dict);
        size_t i = 0;
        for (; it != NULL && i < sizeof order / sizeof order[0]; it = json_object_iter_next(dict, it), i++)
            CHECK_STR(json_object_iter_key(it), order[i]);
        CHECK(dict->refcount == 1);
    }

    /* to_json: JSON keys, key paths rebuilt, enum mapped back */
    err = junk_error();
    out = strata_model_to_json(model, &err);
    CHECK_CODE(err, STRATA_OK);
    CHECK_JSON(out, "{\"url\": \"https://api.github.com/repos/o/r/issues/7\", \"number\": 7,"
                    " \"title\": \"Crash on null\", \"state\": \"open\", \"user\": {\"login\": \"octocat\"},"
                    " \"assignee\": {\"id\": 2, \"login\": \"hubot\"},"
                    " \"labels\": [{\"name\": \"bug\", \"color\": \"f00\"}], \"score\": 3.0,"
                    " \"locked\": false, \"extra\": {\"a\": [1, 2.5, null]}, \"counts\": {\"x\": 1},"
                    " \"created_at\": null}");
    CHECK(out == NULL || out->refcount == 1);

    /* the serialized JSON maps back to an equal model */
    if (out) {
        strata_model_t *again = strata_map(schema, "Issue", out, NULL);
        CHECK(again != NULL);
        CHECK(strata_model_equal(model, again) == 1);
        strata_model_decref(again);
    }

    /* references balance out */
    json_decref(dict);
    json_decref(out);
    strata_model_decref(model);
    CHECK_MSG(title->refcount == 1, "title refcount %zu after release", (size_t)title->refcount);
    CHECK_MSG(extra->refcount == 1, "extra refcount %zu after release", (size_t)extra->refcount);
    CHECK(input->refcount == 1);
    json_decref(input);

    /* defaults and absence */
    model = strata_mapb(schema, "Issue", "{\"number\": 1}", 13, &err);
    CHECK(model != NULL);
    dict = strata_model_dictionary(model, NULL);
    CHECK_JSON(dict, "{\"number\": 1, \"labels\": []}");
    json_decref(dict);
    CHECK(strata_model_has(model, "title", NULL) == 0);
    CHECK(strata_model_has(model, "labels", NULL) == 1);
    value = strata_model_get(model, "title", &err);
    CHECK(value == NULL);
    CHECK_CODE(err, STRATA_OK);
    out = strata_model_to_json(model, NULL);
    CHECK_JSON(out, "{\"number\": 1, \"labels\": []}");
    json_decref(out);
    strata_model_decref(model);

    /* explicit null is not absence */
    model = map_text(schema, "Issue", "{\"number\": 1, \"assignee\": null, \"extra\": null}");
    CHECK(model != NULL);
    dict = strata_model_dictionary(model, NULL);
    CHECK_JSON(dict, "{\"number\": 1, \"assignee\": null, \"labels\": [], \"extra\": null}");
    json_decref(dict);
    strata_model_decref(model);

    strata_schema_decref(schema);
}

static void test_model_refcount(void) {
    strata_schema_t *schema = load_test_schema();
    strata_model_t *model, *copy;
    json_t *dict;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    model = strata_mapb(schema, "Issue", ISSUE_TEXT, strlen(ISSUE_TEXT), NULL);
    CHECK(model != NULL);
    if (model == NULL) {
        strata_schema_decref(schema);
        return;
    }
    CHECK(strata_model_incref(model) == model);
    strata_model_decref(model);
    CHECK_STR(strata_model_name(model), "Issue");

    /* models keep their schema alive */
    strata_schema_decref(schema);
    CHECK(strata_model_schema(model) != NULL);
    CHECK(strata_schema_model_count(strata_model_schema(model)) == 5);
    copy = strata_mapb(strata_model_schema(model), "Label", "{\"name\": \"x\"}", 13, NULL);
    CHECK(copy != NULL);
    strata_model_decref(copy);
    dict = strata_model_dictionary(model, NULL);
    CHECK(json_is_object(dict) && json_object_size(dict) == 12);
    json_decref(dict);

    /* a borrowed schema may be kept with incref */
    schema = strata_schema_incref(strata_model_schema(model));
    strata_model_decref(model);
    CHECK(strata_schema_version(schema) == 3);
    strata_schema_decref(schema);
}

static void test_model_null_arguments(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err;
    strata_model_t *model;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    model = strata_mapb(schema, "Issue", "{\"number\": 1}", 13, NULL);

    CHECK(strata_model_incref(NULL) == NULL);
    strata_model_decref(NULL);
    CHECK(strata_model_name(NULL) == NULL);
    CHECK(strata_model_schema(NULL) == NULL);

    err = junk_error();
    CHECK(strata_model_has(NULL, "number", &err) == -1);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    err = junk_error();
    CHECK(strata_model_has(model, NULL, &err) == -1);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_has(NULL, NULL, NULL) == -1);

    err = junk_error();
    CHECK(strata_model_get(NULL, "number", &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_model_get(model, NULL, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_get(NULL, NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_model_dictionary(NULL, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_model_dictionary(NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_model_to_json(NULL, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_to_json(NULL, NULL) == NULL);

    CHECK(strata_model_equal(NULL, NULL) == 1);
    CHECK(strata_model_equal(model, NULL) == 0);
    CHECK(strata_model_equal(NULL, model) == 0);
    (void)strata_model_hash(NULL);
    CHECK(strata_model_copy(NULL) == NULL);

    strata_model_decref(model);
    strata_schema_decref(schema);
}

static void test_equal_hash_copy(void) {
    strata_schema_t *schema = load_test_schema();
    strata_model_t *a, *b, *c, *d, *e, *label, *tag, *copy;
    json_t *da, *dc;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    a = map_text(schema, "Issue", ISSUE_TEXT);
    b = map_text(schema, "Issue", ISSUE_TEXT);
    c = map_text(schema, "Issue", "{\"number\": 1, \"title\": \"x\"}");
    d = map_text(schema, "Issue", "{\"number\": 1, \"title\": \"y\"}");
    e = map_text(schema, "Issue", "{\"number\": 1, \"title\": \"x\", \"created_at\": null}");
    label = map_text(schema, "Label", "{\"name\": \"x\", \"color\": \"fff\"}");
    tag = map_text(schema, "Tag", "{\"name\": \"x\", \"color\": \"fff\"}");
    CHECK(a && b && c && d && e && label && tag);
    if (!(a && b && c && d && e && label && tag))
        goto done;

    CHECK(strata_model_equal(a, a) == 1);
    CHECK(strata_model_equal(a, b) == 1);
    CHECK(strata_model_equal(b, a) == 1);
    CHECK(strata_model_hash(a) == strata_model_hash(b));
    CHECK(strata_model_equal(a, c) == 0);
    CHECK(strata_model_equal(c, d) == 0);
    CHECK(strata_model_equal(c, e) == 0); /* absent is not null */
    CHECK(strata_model_equal(label, tag) == 0); /* same values, other model */
    CHECK(strata_model_hash(a) == strata_model_hash(a));
    /* not a requirement, but a hash that ignores values would be useless */
    CHECK(strata_model_hash(c) != strata_model_hash(d));

    /* equal after a round trip through JSON */
    {
        json_t *out = strata_model_to_json(a, NULL);
        strata_model_t *again = strata_map(schema, "Issue", out, NULL);
        CHECK(strata_model_equal(a, again) == 1);
        CHECK(strata_model_hash(a) == strata_model_hash(again));
        strata_model_decref(again);
        json_decref(out);
    }

    /* copy: equal, distinct, independent */
    copy = strata_model_copy(a);
    CHECK(copy != NULL);
    CHECK(copy != a);
    CHECK(strata_model_equal(copy, a) == 1);
    CHECK(strata_model_hash(copy) == strata_model_hash(a));
    CHECK_STR(strata_model_name(copy), "Issue");
    da = strata_model_dictionary(a, NULL);
    strata_model_decref(a);
    a = NULL;
    dc = strata_model_dictionary(copy, NULL);
    CHECK(da && dc && json_equal(da, dc));
    CHECK(strata_model_equal(copy, b) == 1);
    json_decref(da);
    json_decref(dc);
    strata_model_decref(copy);

done:
    strata_model_decref(a);
    strata_model_decref(b);
    strata_model_decref(c);
    strata_model_decref(d);
    strata_model_decref(e);
    strata_model_decref(label);
    strata_model_decref(tag);
    strata_schema_decref(schema);
}

/* A caller that changes a deep copy of a returned tree (as the header asks)
   does not change the model, and the next dictionary is the same again. */
static void test_returned_trees_are_independent(void) {
    strata_schema_t *schema = load_test_schema();
    strata_model_t *model;
    json_t *dict, *copy, *again;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    model = map_text(schema, "Issue", ISSUE_TEXT);
    if (model == NULL) {
        CHECK(model != NULL);
        strata_schema_decref(schema);
        return;
    }
    dict = strata_model_dictionary(model, NULL);
    copy = json_deep_copy(dict);
    json_object_set_new(copy, "title", json_string("changed"));
    json_object_del(copy, "labels");
    json_array_clear(json_object_get(json_object_get(copy, "extra"), "a"));
    again = strata_model_dictionary(model, NULL);
    CHECK(json_equal(dict, again));
    CHECK_STR(json_string_value(json_object_get(again, "title")), "Crash on null");
    CHECK_JSON(json_object_get(again, "extra"), "{\"a\": [1, 2.5, null]}");
    json_decref(again);
    json_decref(copy);
    json_decref(dict);
    strata_model_decref(model);
    strata_schema_decref(schema);
}

static const struct check_test tests[] = {
    {"map", test_map},
    {"model_refcount", test_model_refcount},
    {"model_null_arguments", test_model_null_arguments},
    {"equal_hash_copy", test_equal_hash_copy},
    {"returned_trees_are_independent", test_returned_trees_are_independent},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
