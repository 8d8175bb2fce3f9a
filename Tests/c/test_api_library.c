/*
 * test_api_library.c - unit tests of the "Library" section of
 * include/strata.h: strata_version, strata_json_dumps, strata_json_loadb,
 * strata_json_decref, strata_free, strata_errors() (the list, long paths cut
 * at a character boundary).
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on, so one run shows every broken promise of the header. Besides
 * the happy paths it checks that pointer arguments may be NULL (an error,
 * never a crash), that unknown names are "argument" errors, what
 * strata_errors() holds, and that references are balanced (json_t refcounts
 * come back to where they started). The schema and input most tests use are
 * in test_api.h.
 *
 * Usage: test_api_library [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "test_api.h"

/* True if `s` is valid UTF-8 (a path cut inside a character is not). */
static int valid_utf8(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n;
        if (*p < 0x80)
            n = 0;
        else if ((*p & 0xE0) == 0xC0)
            n = 1;
        else if ((*p & 0xF0) == 0xE0)
            n = 2;
        else if ((*p & 0xF8) == 0xF0)
            n = 3;
        else
            return 0;
        p++;
        while (n-- > 0) {
            if ((*p & 0xC0) != 0x80)
                return 0;
            p++;
        }
    }
    return 1;
}

static void test_version(void) {
    const char *v = strata_version();
    CHECK_STR(v, STRATA_VERSION);
    CHECK(strata_version() == v); /* static */
    CHECK(STRATA_VERSION_MAJOR == 0 && STRATA_VERSION_MINOR == 1 && STRATA_VERSION_PATCH == 0);
}

static void test_json_dumps(void) {
    json_t *obj = parse("{\"b\": 1, \"a\": [1, 2.5, \"x\", null, true], \"c\": {}}");
    json_t *num = json_integer(42);
    json_t *str = json_string("h\xc3\xa9");
    char *text;

    CHECK(strata_json_dumps(NULL) == NULL);

    text = strata_json_dumps(obj);
    CHECK_STR(text, "{\"b\":1,\"a\":[1,2.5,\"x\",null,true],\"c\":{}}");
    strata_free(text);

    text = strata_json_dumps(num); /* any value, not only containers */
    CHECK_STR(text, "42");
    strata_free(text);

    text = strata_json_dumps(str);
    CHECK_STR(text, "\"h\xc3\xa9\"");
    strata_free(text);

    text = strata_json_dumps(json_null());
    CHECK_STR(text, "null");
    strata_free(text);

    /* borrowed */
    CHECK(obj->refcount == 1 && num->refcount == 1 && str->refcount == 1);
    json_decref(obj);
    json_decref(num);
    json_decref(str);
    strata_free(NULL);
}

static void test_json_loadb(void) {
    strata_error_t err = junk_error();
    const char *text = "{\"b\": 1, \"a\": [1, 2.5]}";
    json_t *json = strata_json_loadb(text, strlen(text), &err);
    CHECK_JSON(json, "{\"b\": 1, \"a\": [1, 2.5]}");
    CHECK(json && json->refcount == 1);
    CHECK_CODE(err, STRATA_OK);
    CHECK(err.count == 0);
    {
        json_t *errors = strata_errors();
        CHECK(errors == NULL); /* a successful call clears them */
        json_decref(errors);
    }
    if (json) {
        /* key order kept */
        const char *first = json_object_iter_key(json_object_iter(json));
        CHECK(first && strcmp(first, "b") == 0);
    }
    strata_json_decref(json);

    /* any value at the top level; `length` counts, not NUL */
    json = strata_json_loadb("42xyz", 2, &err);
    CHECK_JSON(json, "42");
    CHECK(json_is_integer(json));
    strata_json_decref(json);
    json = strata_json_loadb("\"s\"", 3, NULL);
    CHECK_JSON(json, "\"s\"");
    strata_json_decref(json);
    json = strata_json_loadb("3.0", 3, NULL);
    CHECK(json_is_real(json));
    strata_json_decref(json);

    /* syntax errors name line and column */
    err = junk_error();
    json = strata_json_loadb("{\n  \"a\": ,\n}", 12, &err);
    CHECK(json == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
    CHECK_STR(err.code_name, "syntax");
    CHECK_MSG(strstr(err.message, "line") != NULL, "message \"%s\" names no line", err.message);
    CHECK(err.count == 1);
    CHECK_ERROR_CONSISTENT(err);
    strata_json_decref(json);

    err = junk_error();
    json = strata_json_loadb("", 0, &err);
    CHECK(json == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);

    err = junk_error();
    json = strata_json_loadb("[1, 2", 5, &err);
    CHECK(json == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);

    /* text after the value is an error, when it is within `length` */
    err = junk_error();
    json = strata_json_loadb("[1] [2]", 7, &err);
    CHECK(json == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
    strata_json_decref(json);

    /* NUL */
    err = junk_error();
    json = strata_json_loadb(NULL, 5, &err);
    CHECK(json == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_STR(err.code_name, "argument");
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_json_loadb(NULL, 0, NULL) == NULL);
    CHECK(strata_json_loadb("{", 1, NULL) == NULL);
}

static void test_json_decref(void) {
    json_t *obj = json_object();
    json_incref(obj);
    CHECK(obj->refcount == 2);
    strata_json_decref(obj);
    CHECK(obj->refcount == 1);
    strata_json_decref(obj); /* frees it */
    strata_json_decref(NULL);
    strata_json_decref(json_null()); /* singletons are fine too */
}

static void test_errors_list(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err = junk_error();
    json_t *errors;
    strata_model_t *model;
    const char *bad = "{\"number\": \"7\", \"title\": 5}";
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }

    model = strata_mapb(schema, "Issue", bad, strlen(bad), &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_TYPE);
    CHECK(err.count == 2);
    CHECK_STR(err.model, "Issue");
    CHECK(strcmp(err.path, "/number") == 0 || strcmp(err.path, "/title") == 0);
    CHECK(strcmp(err.property, "number") == 0 || strcmp(err.property, "title") == 0);
    CHECK(strlen(err.message) > 0);
    CHECK_ERROR_CONSISTENT(err);

    errors = strata_errors();
    CHECK(json_is_array(errors) && json_array_size(errors) == 2);
    CHECK_HAS_ERROR(errors, "/number", "type", "Issue", "number");
    CHECK_HAS_ERROR(errors, "/title", "type", "Issue", "title");
    /* a new reference each time, still there until the next call */
    {
        json_t *again = strata_errors();
        CHECK(json_equal(errors, again));
        json_decref(again);
    }
    json_decref(errors);

    /* the next successful call clears them */
    model = strata_mapb(schema, "Issue", "{\"number\": 1}", 13, &err);
    CHECK(model != NULL);
    CHECK_CODE(err, STRATA_OK);
    CHECK(err.count == 0);
    errors = strata_errors();
    CHECK(errors == NULL);
    json_decref(errors);
    strata_model_decref(model);

    /* errors are kept for error == NULL callers too */
    model = strata_mapb(schema, "Issue", bad, strlen(bad), NULL);
    CHECK(model == NULL);
    errors = strata_errors();
    CHECK(json_is_array(errors) && json_array_size(errors) == 2);
    json_decref(errors);

    strata_schema_decref(schema);
}

/* A long path is cut at a character boundary; strata_errors() has it whole. */
static void test_error_truncation(void) {
    strata_schema_t *schema = load_test_schema();
    strata_error_t err = junk_error();
    json_t *input, *counts, *errors;
    char key[601];
    char expected_path[700];
    size_t i;
    strata_model_t *model;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    /* 300 two-byte characters */
    for (i = 0; i < 300; i++) {
        key[2 * i] = (char)0xC3;
        key[2 * i + 1] = (char)0xA9;
    }
    key[600] = '\0';
    input = json_pack("{s:i}", "number", 1);
    counts = json_object();
    json_object_set_new(counts, key, json_string("not an int"));
    json_object_set_new(input, "counts", counts);

    model = strata_map(schema, "Issue", input, &err);
    CHECK(model == NULL);
    CHECK_CODE(err, STRATA_ERROR_TYPE);
    CHECK(check_error_terminated(&err));
    CHECK(strlen(err.path) < STRATA_ERROR_PATH_LENGTH);
    CHECK(strlen(err.path) > 100);
    CHECK_MSG(valid_utf8(err.path), "path cut inside a character");
    CHECK(valid_utf8(err.message));
    CHECK(strncmp(err.path, "/counts/", 8) == 0);

    snprintf(expected_path, sizeof expected_path, "/counts/%s", key);
    errors = strata_errors();
    CHECK_HAS_ERROR(errors, expected_path, "type", "Issue", "counts");
    json_decref(errors);
    json_decref(input);
    strata_schema_decref(schema);
}

static const struct check_test tests[] = {
    {"version", test_version},
    {"json_dumps", test_json_dumps},
    {"json_loadb", test_json_loadb},
    {"json_decref", test_json_decref},
    {"errors_list", test_errors_list},
    {"error_truncation", test_error_truncation},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
