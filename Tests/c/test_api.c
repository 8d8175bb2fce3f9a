/*
 * test_api.c - unit tests of every function of include/strata.h.
 *
 * Each test is a function; CHECK() records a failure with its line and goes
 * on, so one run shows every broken promise of the header. Besides the happy
 * paths it checks that every pointer argument may be NULL (an error, never a
 * crash), that unknown names are "argument" errors, what strata_errors()
 * holds, and that references are balanced (json_t refcounts come back to
 * where they started).
 *
 * Usage: test_api [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include <strata.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* A tiny test harness.                                                       */

static int checks_run;
static int checks_failed;
static const char *current_test = "";

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        checks_run++;                                                                    \
        if (!(cond)) {                                                                   \
            checks_failed++;                                                             \
            fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__,        \
                    current_test, #cond);                                                \
        }                                                                                \
    } while (0)

#define CHECK_MSG(cond, ...)                                                             \
    do {                                                                                 \
        checks_run++;                                                                    \
        if (!(cond)) {                                                                   \
            checks_failed++;                                                             \
            fprintf(stderr, "%s:%d: [%s] CHECK failed: %s: ", __FILE__, __LINE__,        \
                    current_test, #cond);                                                \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

#define CHECK_STR(actual, expected)                                                      \
    do {                                                                                 \
        const char *a_ = (actual);                                                       \
        const char *e_ = (expected);                                                     \
        checks_run++;                                                                    \
        if (a_ == NULL || strcmp(a_, e_) != 0) {                                         \
            checks_failed++;                                                             \
            fprintf(stderr, "%s:%d: [%s] %s is \"%s\", expected \"%s\"\n", __FILE__,     \
                    __LINE__, current_test, #actual, a_ ? a_ : "(null)", e_);            \
        }                                                                                \
    } while (0)

/* Checks that the last call failed with `code`; prints the error if not. */
#define CHECK_ERR(err, expected_code)                                                    \
    do {                                                                                 \
        checks_run++;                                                                    \
        if ((err).code != (expected_code)) {                                             \
            checks_failed++;                                                             \
            fprintf(stderr,                                                              \
                    "%s:%d: [%s] error code %d (%s), expected %d (%s); path \"%s\", "    \
                    "message \"%s\"\n",                                                  \
                    __FILE__, __LINE__, current_test, (int)(err).code, (err).code_name,  \
                    (int)(expected_code), code_name((expected_code)), (err).path,        \
                    (err).message);                                                      \
        }                                                                                \
    } while (0)

/* Checks a json_t against JSON text (compared with json_equal). */
#define CHECK_JSON(value, text) check_json(__LINE__, #value, (value), (text))

static const char *code_name(strata_code_t code) {
    switch (code) {
    case STRATA_OK: return "";
    case STRATA_ERROR_MISSING: return "missing";
    case STRATA_ERROR_TYPE: return "type";
    case STRATA_ERROR_NULL: return "null";
    case STRATA_ERROR_FORMAT: return "format";
    case STRATA_ERROR_ENUM: return "enum";
    case STRATA_ERROR_VALIDATION: return "validation";
    case STRATA_ERROR_UNKNOWN_KEY: return "unknown_key";
    case STRATA_ERROR_SUBTYPE: return "subtype";
    case STRATA_ERROR_PATH: return "path";
    case STRATA_ERROR_SCHEMA: return "schema";
    case STRATA_ERROR_SYNTAX: return "syntax";
    case STRATA_ERROR_DEPTH: return "depth";
    case STRATA_ERROR_ARGUMENT: return "argument";
    case STRATA_ERROR_IO: return "io";
    case STRATA_ERROR_DENY: return "deny";
    }
    return "?";
}

static char *dump(const json_t *json) {
    if (json == NULL)
        return strdup("(NULL)");
    return json_dumps(json, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
}

static void check_json(int line, const char *what, const json_t *value, const char *text) {
    json_error_t jerr;
    json_t *expected = json_loads(text, JSON_DECODE_ANY, &jerr);
    checks_run++;
    if (expected == NULL) {
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] bad expected JSON in the test: %s\n", __FILE__, line,
                current_test, jerr.text);
        return;
    }
    if (value == NULL || !json_equal(value, expected)) {
        char *actual = dump(value);
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] %s is %s, expected %s\n", __FILE__, line, current_test,
                what, actual, text);
        free(actual);
    }
    json_decref(expected);
}

static json_t *parse(const char *text) {
    json_error_t jerr;
    json_t *json = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (json == NULL) {
        fprintf(stderr, "test bug: cannot parse %s: %s\n", text, jerr.text);
        abort();
    }
    return json;
}

/* An error struct filled with junk, so that a call that leaves it alone shows. */
static strata_error_t junk_error(void) {
    strata_error_t err;
    memset(&err, 'x', sizeof err);
    err.code = STRATA_ERROR_IO;
    err.count = 99;
    err.code_name[sizeof err.code_name - 1] = '\0';
    err.path[sizeof err.path - 1] = '\0';
    err.model[sizeof err.model - 1] = '\0';
    err.property[sizeof err.property - 1] = '\0';
    err.message[sizeof err.message - 1] = '\0';
    return err;
}

/* The text fields must be NUL-terminated within their arrays. */
static int error_terminated(const strata_error_t *err) {
    return memchr(err->code_name, 0, sizeof err->code_name) != NULL &&
           memchr(err->path, 0, sizeof err->path) != NULL &&
           memchr(err->model, 0, sizeof err->model) != NULL &&
           memchr(err->property, 0, sizeof err->property) != NULL &&
           memchr(err->message, 0, sizeof err->message) != NULL;
}

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

/* Checks that a failed call left a well-formed error, consistent with
   strata_errors(): the same count, the first error among the list. */
#define CHECK_ERROR_CONSISTENT(err) check_error_consistent(__LINE__, &(err))

static void check_error_consistent(int line, const strata_error_t *err) {
    json_t *errors = strata_errors();
    size_t i, n;
    int found = 0;
    checks_run++;
    if (!error_terminated(err)) {
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] error fields not NUL-terminated\n", __FILE__, line,
                current_test);
        json_decref(errors);
        return;
    }
    if (strcmp(err->code_name, code_name(err->code)) != 0) {
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] code_name \"%s\" does not match code %d\n", __FILE__, line,
                current_test, err->code_name, (int)err->code);
    }
    if (errors == NULL || !json_is_array(errors)) {
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] strata_errors() is not an array after a failed call\n",
                __FILE__, line, current_test);
        json_decref(errors);
        return;
    }
    n = json_array_size(errors);
    if (n != err->count || n == 0) {
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] error.count %zu, strata_errors() has %zu\n", __FILE__,
                line, current_test, err->count, n);
    }
    for (i = 0; i < n; i++) {
        json_t *e = json_array_get(errors, i);
        const char *fields[] = {"path", "model", "property", "code", "message"};
        size_t f;
        for (f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            if (!json_is_string(json_object_get(e, fields[f]))) {
                checks_failed++;
                fprintf(stderr, "%s:%d: [%s] strata_errors()[%zu].%s is not a string\n",
                        __FILE__, line, current_test, i, fields[f]);
            }
        }
        if (strcmp(json_string_value(json_object_get(e, "code")) ? json_string_value(json_object_get(e, "code")) : "", err->code_name) == 0 &&
            strncmp(json_string_value(json_object_get(e, "path")) ? json_string_value(json_object_get(e, "path")) : "", err->path, strlen(err->path)) == 0)
            found = 1;
    }
    if (!found) {
        checks_failed++;
        fprintf(stderr, "%s:%d: [%s] the first error (%s at \"%s\") is not in strata_errors()\n",
                __FILE__, line, current_test, err->code_name, err->path);
    }
    json_decref(errors);
}

/* True if strata_errors() holds an error with this path and code (and model
   and property, when not NULL). */
static int has_error(const json_t *errors, const char *path, const char *code, const char *model,
                     const char *property) {
    size_t i;
    for (i = 0; i < json_array_size(errors); i++) {
        json_t *e = json_array_get(errors, i);
        const char *p = json_string_value(json_object_get(e, "path"));
        const char *c = json_string_value(json_object_get(e, "code"));
        const char *m = json_string_value(json_object_get(e, "model"));
        const char *pr = json_string_value(json_object_get(e, "property"));
        if (p && c && strcmp(p, path) == 0 && strcmp(c, code) == 0 &&
            (model == NULL || (m && strcmp(m, model) == 0)) &&
            (property == NULL || (pr && strcmp(pr, property) == 0)))
            return 1;
    }
    return 0;
}

#define CHECK_HAS_ERROR(errors, path, code, model, property)                             \
    do {                                                                                 \
        checks_run++;                                                                    \
        if (!has_error((errors), (path), (code), (model), (property))) {                 \
            char *d_ = dump(errors);                                                     \
            checks_failed++;                                                             \
            fprintf(stderr, "%s:%d: [%s] no %s error at \"%s\" in %s\n", __FILE__,       \
                    __LINE__, current_test, (code), (path), d_);                         \
            free(d_);                                                                    \
        }                                                                                \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The schema most tests use.                                                 */

static const char *SCHEMA_TEXT =
    "{\n"
    "  \"strata\": 1,\n"
    "  \"version\": 3,\n"
    "  \"models\": {\n"
    "    \"User\": {\n"
    "      \"primaryKey\": \"id\",\n"
    "      \"properties\": {\n"
    "        \"id\":    {\"type\": \"int\", \"required\": true},\n"
    "        \"login\": {\"type\": \"string\"}\n"
    "      }\n"
    "    },\n"
    "    \"Issue\": {\n"
    "      \"primaryKey\": \"number\",\n"
    "      \"keys\": \"snake_case\",\n"
    "      \"properties\": {\n"
    "        \"URL\":           {\"type\": \"url\", \"json\": \"url\"},\n"
    "        \"number\":        {\"type\": \"int\", \"required\": true},\n"
    "        \"title\":         {\"type\": \"string\"},\n"
    "        \"state\":         {\"type\": \"string\", \"enum\": {\"open\": \"OPEN\", \"closed\": \"CLOSED\"}},\n"
    "        \"reporterLogin\": {\"type\": \"string\", \"json\": \"user.login\"},\n"
    "        \"assignee\":      {\"type\": \"User?\"},\n"
    "        \"labels\":        {\"type\": \"[Label]\", \"default\": []},\n"
    "        \"score\":         {\"type\": \"double\"},\n"
    "        \"locked\":        {\"type\": \"bool\"},\n"
    "        \"extra\":         {\"type\": \"json\"},\n"
    "        \"counts\":        {\"type\": \"{int}\"},\n"
    "        \"createdAt\":     {\"type\": \"string?\"},\n"
    "        \"note\":          {\"type\": \"string\", \"json\": false}\n"
    "      }\n"
    "    },\n"
    "    \"Label\": {\"properties\": {\"name\": {\"type\": \"string\"}, \"color\": {\"type\": \"string\"}}},\n"
    "    \"Tag\":   {\"properties\": {\"name\": {\"type\": \"string\"}, \"color\": {\"type\": \"string\"}}},\n"
    "    \"Node\":  {\"properties\": {\"id\": {\"type\": \"int\"}, \"children\": {\"type\": \"[Node]\"}}}\n"
    "  }\n"
    "}\n";

static const char *ISSUE_TEXT =
    "{\"url\": \"https://api.github.com/repos/o/r/issues/7\", \"number\": 7,"
    " \"title\": \"Crash on null\", \"state\": \"open\","
    " \"user\": {\"login\": \"octocat\", \"id\": 1},"
    " \"assignee\": {\"id\": 2, \"login\": \"hubot\"},"
    " \"labels\": [{\"name\": \"bug\", \"color\": \"f00\"}],"
    " \"score\": 3, \"locked\": false, \"extra\": {\"a\": [1, 2.5, null]},"
    " \"counts\": {\"x\": 1}, \"created_at\": null, \"note\": \"ignored\", \"other\": 1}";

static strata_schema_t *load_test_schema(void) {
    strata_error_t err;
    memset(&err, 0, sizeof err);
    strata_schema_t *schema = strata_schema_loadb(SCHEMA_TEXT, strlen(SCHEMA_TEXT), &err);
    if (schema == NULL) {
        json_t *errors = strata_errors();
        char *d = dump(errors);
        fprintf(stderr, "cannot load the test schema: %s at %s: %s\n  all errors: %s\n",
                err.code_name, err.path, err.message, d);
        free(d);
        json_decref(errors);
    }
    return schema;
}

static strata_model_t *map_text(strata_schema_t *schema, const char *model, const char *text) {
    strata_error_t err;
    strata_model_t *m = strata_mapb(schema, model, text, strlen(text), &err);
    if (m == NULL)
        fprintf(stderr, "[%s] cannot map %s onto %s: %s at \"%s\": %s\n", current_test, text,
                model, err.code_name, err.path, err.message);
    return m;
}

/* ------------------------------------------------------------------------ */
/* Library                                                                    */

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
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);
    CHECK_STR(err.code_name, "syntax");
    CHECK_MSG(strstr(err.message, "line") != NULL, "message \"%s\" names no line", err.message);
    CHECK(err.count == 1);
    CHECK_ERROR_CONSISTENT(err);
    strata_json_decref(json);

    err = junk_error();
    json = strata_json_loadb("", 0, &err);
    CHECK(json == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);

    err = junk_error();
    json = strata_json_loadb("[1, 2", 5, &err);
    CHECK(json == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);

    /* text after the value is an error, when it is within `length` */
    err = junk_error();
    json = strata_json_loadb("[1] [2]", 7, &err);
    CHECK(json == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);
    strata_json_decref(json);

    /* NUL */
    err = junk_error();
    json = strata_json_loadb(NULL, 5, &err);
    CHECK(json == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
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
    CHECK_ERR(err, STRATA_ERROR_TYPE);
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
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_ERROR_TYPE);
    CHECK(error_terminated(&err));
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

/* ------------------------------------------------------------------------ */
/* Schemas                                                                    */

static void test_schema_load(void) {
    strata_error_t err = junk_error();
    json_t *doc = parse(SCHEMA_TEXT);
    strata_schema_t *schema = strata_schema_load(doc, &err);
    CHECK(schema != NULL);
    CHECK_ERR(err, STRATA_OK);
    CHECK(err.count == 0);
    CHECK(strata_schema_version(schema) == 3);
    CHECK(strata_schema_model_count(schema) == 5);
    CHECK_STR(strata_schema_model_name(schema, 0), "User");
    CHECK_STR(strata_schema_model_name(schema, 1), "Issue");
    CHECK_STR(strata_schema_model_name(schema, 2), "Label");
    CHECK_STR(strata_schema_model_name(schema, 3), "Tag");
    CHECK_STR(strata_schema_model_name(schema, 4), "Node");
    CHECK(strata_schema_model_name(schema, 5) == NULL);
    CHECK(strata_schema_model_name(schema, (size_t)-1) == NULL);
    /* borrowed from the schema: stable */
    CHECK(strata_schema_model_name(schema, 1) == strata_schema_model_name(schema, 1));

    /* the document is borrowed: the caller may drop it at once */
    json_decref(doc);
    CHECK(strata_schema_model_count(schema) == 5);

    /* reference counting */
    CHECK(strata_schema_incref(schema) == schema);
    strata_schema_decref(schema);
    CHECK(strata_schema_version(schema) == 3);
    strata_schema_decref(schema);

    /* the document's refcount comes back to 1 once the schema is gone */
    doc = parse(SCHEMA_TEXT);
    schema = strata_schema_load(doc, NULL);
    CHECK(schema != NULL);
    strata_schema_decref(schema);
    CHECK(doc->refcount == 1);
    json_decref(doc);

    /* version defaults to 0 */
    doc = parse("{\"strata\": 1, \"models\": {\"A\": {\"properties\": {}}}}");
    schema = strata_schema_load(doc, &err);
    CHECK(schema != NULL);
    CHECK(strata_schema_version(schema) == 0);
    CHECK(strata_schema_model_count(schema) == 1);
    CHECK_STR(strata_schema_model_name(schema, 0), "A");
    strata_schema_decref(schema);
    json_decref(doc);
}

static void test_schema_loadb(void) {
    strata_error_t err = junk_error();
    strata_schema_t *schema;
    const char *bad = "{\"strata\": 1, \"models\": {\"A\": {\"properties\": }}}";

    schema = strata_schema_loadb(SCHEMA_TEXT, strlen(SCHEMA_TEXT), &err);
    CHECK(schema != NULL);
    CHECK_ERR(err, STRATA_OK);
    CHECK(strata_schema_model_count(schema) == 5);
    strata_schema_decref(schema);

    err = junk_error();
    schema = strata_schema_loadb(bad, strlen(bad), &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);
    CHECK_MSG(strstr(err.message, "line") != NULL, "message \"%s\" names no line", err.message);
    CHECK_ERROR_CONSISTENT(err);

    err = junk_error();
    schema = strata_schema_loadb("", 0, &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);

    /* only `length` bytes are read */
    err = junk_error();
    schema = strata_schema_loadb(SCHEMA_TEXT, strlen(SCHEMA_TEXT) / 2, &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);
}

static char *write_temp_file(const char *content) {
    char template_path[] = "/tmp/strata-test-XXXXXX";
    int fd = mkstemp(template_path);
    size_t length = strlen(content);
    if (fd < 0)
        return NULL;
    if (write(fd, content, length) != (ssize_t)length) {
        close(fd);
        unlink(template_path);
        return NULL;
    }
    close(fd);
    return strdup(template_path);
}

static void test_schema_load_file(void) {
    strata_error_t err = junk_error();
    strata_schema_t *schema;
    char *good = write_temp_file(SCHEMA_TEXT);
    char *bad = write_temp_file("{\"strata\": 1,\n \"models\": {\n");
    char *invalid = write_temp_file("{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {\"type\": \"nope\"}}}}}");
    CHECK(good != NULL && bad != NULL && invalid != NULL);
    if (good == NULL || bad == NULL || invalid == NULL)
        return;

    schema = strata_schema_load_file(good, &err);
    CHECK(schema != NULL);
    CHECK_ERR(err, STRATA_OK);
    CHECK(strata_schema_version(schema) == 3);
    CHECK(strata_schema_model_count(schema) == 5);
    strata_schema_decref(schema);

    err = junk_error();
    schema = strata_schema_load_file(bad, &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);
    CHECK_ERROR_CONSISTENT(err);

    err = junk_error();
    schema = strata_schema_load_file(invalid, &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SCHEMA);
    CHECK_ERROR_CONSISTENT(err);

    err = junk_error();
    schema = strata_schema_load_file("/nonexistent/strata/schema.json", &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_IO);
    CHECK_STR(err.code_name, "io");
    CHECK_ERROR_CONSISTENT(err);

    /* a directory cannot be read as a file */
    err = junk_error();
    schema = strata_schema_load_file("/tmp", &err);
    CHECK(schema == NULL);
    CHECK(err.code == STRATA_ERROR_IO || err.code == STRATA_ERROR_SYNTAX);

    unlink(good);
    unlink(bad);
    unlink(invalid);
    free(good);
    free(bad);
    free(invalid);
}

static void test_schema_errors(void) {
    strata_error_t err = junk_error();
    json_t *doc, *errors;
    strata_schema_t *schema;

    /* unknown type: names the model and the property, path into the document */
    doc = parse("{\"strata\": 1, \"models\": {\"Issue\": {\"properties\": {"
                "\"title\": {\"type\": \"strin\"}}}}}");
    schema = strata_schema_load(doc, &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SCHEMA);
    CHECK_STR(err.code_name, "schema");
    CHECK_STR(err.model, "Issue");
    CHECK_STR(err.property, "title");
    CHECK_STR(err.path, "/models/Issue/properties/title/type");
    CHECK(err.count == 1);
    CHECK_ERROR_CONSISTENT(err);
    errors = strata_errors();
    CHECK_HAS_ERROR(errors, "/models/Issue/properties/title/type", "schema", "Issue", "title");
    json_decref(errors);
    CHECK(doc->refcount == 1);
    json_decref(doc);

    /* every problem of the document, not the first only */
    err = junk_error();
    doc = parse("{\"strata\": 1, \"models\": {"
                "\"A\": {\"properties\": {\"x\": {\"type\": \"nope\"}, \"y\": {\"type\": \"[B]\"}}},"
                "\"C\": {\"properties\": {\"z\": {\"type\": \"int\", \"required\": \"yes\"}}}}}");
    schema = strata_schema_load(doc, &err);
    CHECK(schema == NULL);
    CHECK_ERR(err, STRATA_ERROR_SCHEMA);
    CHECK_MSG(err.count >= 3, "count %zu", err.count);
    CHECK_ERROR_CONSISTENT(err);
    errors = strata_errors();
    CHECK_HAS_ERROR(errors, "/models/A/properties/x/type", "schema", "A", "x");
    CHECK_HAS_ERROR(errors, "/models/A/properties/y/type", "schema", "A", "y");
    CHECK_HAS_ERROR(errors, "/models/C/properties/z/required", "schema", "C", "z");
    json_decref(errors);
    json_decref(doc);

    /* documents that are not schemas at all */
    {
        const char *docs[] = {
            "[]",
            "42",
            "{}",
            "{\"models\": {\"A\": {\"properties\": {}}}}",               /* no strata */
            "{\"strata\": 2, \"models\": {\"A\": {\"properties\": {}}}}", /* unknown format */
            "{\"strata\": 1}",                                           /* no models */
            "{\"strata\": 1, \"models\": {}}",                           /* no model */
            "{\"strata\": 1, \"models\": {\"A\": {}}}",                  /* no properties */
            "{\"strata\": 1, \"modles\": {\"A\": {\"properties\": {}}}}", /* typo */
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {}}}, \"extra\": 1}",
            "{\"strata\": 1, \"version\": -1, \"models\": {\"A\": {\"properties\": {}}}}",
            "{\"strata\": 1, \"models\": {\"1A\": {\"properties\": {}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {\"type\": \"int\", \"bogus\": 1}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"primaryKey\": \"nope\", \"properties\": {\"x\": {\"type\": \"int\"}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"keys\": \"SCREAMING\", \"properties\": {\"x\": {\"type\": \"int\"}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {\"type\": \"int\", \"default\": \"s\"}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {\"type\": \"date\", \"format\": \"QQ\"}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {\"type\": \"int\", \"validate\": {\"maxLength\": 3}}}}}}",
            "{\"strata\": 1, \"models\": {\"A\": {\"properties\": {\"x\": {\"type\": \"int\"}, \"y\": {\"type\": \"int\", \"json\": \"x\"}}}}}",
        };
        size_t i;
        for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
            err = junk_error();
            doc = parse(docs[i]);
            schema = strata_schema_load(doc, &err);
            CHECK_MSG(schema == NULL, "schema %s loaded", docs[i]);
            CHECK_MSG(err.code == STRATA_ERROR_SCHEMA, "schema %s: code %s (%s)", docs[i],
                      err.code_name, err.message);
            if (schema == NULL)
                CHECK_ERROR_CONSISTENT(err);
            strata_schema_decref(schema);
            json_decref(doc);
        }
    }
}

static void test_schema_null_arguments(void) {
    strata_error_t err = junk_error();
    CHECK(strata_schema_load(NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_schema_load(NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_schema_loadb(NULL, 10, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_loadb(NULL, 10, NULL) == NULL);

    err = junk_error();
    CHECK(strata_schema_load_file(NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_load_file(NULL, NULL) == NULL);

    CHECK(strata_schema_incref(NULL) == NULL);
    strata_schema_decref(NULL);
    CHECK(strata_schema_version(NULL) == -1);
    CHECK(strata_schema_model_count(NULL) == 0);
    CHECK(strata_schema_model_name(NULL, 0) == NULL);
}

/* ------------------------------------------------------------------------ */
/* Mapping and models                                                         */

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
    CHECK_ERR(err, STRATA_OK);
    CHECK(err.count == 0);
    if (model == NULL) {
        json_t *errors = strata_errors();
        char *d = dump(errors);
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
    CHECK_ERR(err, STRATA_OK);
    CHECK(strata_model_has(model, "createdAt", NULL) == 1); /* null counts */
    CHECK(strata_model_has(model, "note", NULL) == 0);      /* json: false */
    CHECK(strata_model_has(model, "labels", NULL) == 1);
    CHECK(strata_model_has(model, "reporterLogin", NULL) == 1);
    err = junk_error();
    CHECK(strata_model_has(model, "nope", &err) == -1);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_model_has(model, "created_at", NULL) == -1); /* JSON key, not a property */
    CHECK(strata_model_has(model, "other", NULL) == -1);

    /* get: canonical values */
    err = junk_error();
    value = strata_model_get(model, "title", &err);
    CHECK_JSON(value, "\"Crash on null\"");
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_OK);
    json_decref(value);
    err = junk_error();
    value = strata_model_get(model, "note", &err); /* absent: NULL, no error */
    CHECK(value == NULL);
    CHECK_ERR(err, STRATA_OK);
    err = junk_error();
    value = strata_model_get(model, "nope", &err);
    CHECK(value == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);

    /* dictionary: property order, absent left out, null kept */
    err = junk_error();
    dict = strata_model_dictionary(model, &err);
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_OK);
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
            CHECK_ERR(err, STRATA_ERROR_TYPE);
            CHECK_STR(err.path, "/number");
            strata_model_decref(model);
        }
    }

    /* the top level of a model is an object */
    err = junk_error();
    input = parse("[1, 2]");
    model = strata_map(schema, "Issue", input, &err);
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_TYPE);
    CHECK_STR(err.path, "");
    json_decref(input);
    model = strata_map(schema, "Issue", json_null(), &err);
    CHECK(model == NULL);
    CHECK(err.code == STRATA_ERROR_TYPE || err.code == STRATA_ERROR_NULL);

    /* syntax errors of text input */
    err = junk_error();
    model = strata_mapb(schema, "Issue", "{\"number\": }", 12, &err);
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);
    CHECK_MSG(strstr(err.message, "line") != NULL, "message \"%s\" names no line", err.message);
    CHECK_ERROR_CONSISTENT(err);

    /* unknown model names */
    err = junk_error();
    input = parse("{\"number\": 1}");
    model = strata_map(schema, "Nope", input, &err);
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    err = junk_error();
    model = strata_map(schema, "issue", input, &err); /* names are case-sensitive */
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    model = strata_map(schema, "", input, &err);
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    model = strata_mapb(schema, "Nope", "{}", 2, &err);
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
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
    CHECK_ERR(err, STRATA_OK);
    strata_model_decref(model);
    json_decref(input);

    /* 1000 models (and 1000 arrays) deep: a "depth" error, not a crash */
    input = deep_nodes(1000);
    err = junk_error();
    model = strata_map(schema, "Node", input, &err);
    CHECK(model == NULL);
    CHECK_ERR(err, STRATA_ERROR_DEPTH);
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
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    err = junk_error();
    CHECK(strata_map(schema, NULL, input, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map(schema, "Issue", NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_map(NULL, NULL, NULL, NULL) == NULL);
    CHECK(strata_map(schema, "Issue", NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_mapb(NULL, "Issue", "{}", 2, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_mapb(schema, NULL, "{}", 2, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_mapb(schema, "Issue", NULL, 2, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_mapb(NULL, NULL, NULL, 0, NULL) == NULL);

    err = junk_error();
    CHECK(strata_map_many(NULL, "Issue", input, &count, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_many(schema, NULL, input, &count, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_many(schema, "Issue", NULL, &count, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_many(schema, "Issue", input, NULL, &err) == NULL); /* count is required */
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_map_many(NULL, NULL, NULL, NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_map_manyb(NULL, "Issue", "[]", 2, &count, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_manyb(schema, NULL, "[]", 2, &count, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_manyb(schema, "Issue", NULL, 2, &count, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_map_manyb(schema, "Issue", "[]", 2, NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
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
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_OK);
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
    CHECK_ERR(err, STRATA_ERROR_TYPE);
    CHECK_STR(err.path, "");
    json_decref(input);

    err = junk_error();
    models = strata_map_manyb(schema, "Issue", "[{\"number\": 1},", 15, &count, &err);
    CHECK(models == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);

    err = junk_error();
    models = strata_map_manyb(schema, "Nope", "[]", 2, &count, &err);
    CHECK(models == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);

    strata_schema_decref(schema);
}

/* strata_map_response / strata_map_responseb: records at the root, metadata,
   options, ownership (borrowed input and options, new references out). */
static void test_map_response(void) {
    const char *schema_text =
        "{\"strata\": 1, \"models\": {"
        " \"Status\": {\"root\": \"statuses\","
        "   \"meta\": {\"path\": \"search_metadata\", \"model\": \"Meta\"},"
        "   \"properties\": {\"id\": {\"type\": \"int\", \"required\": true}, \"text\": {\"type\": \"string\"}}},"
        " \"Meta\": {\"properties\": {\"next\": {\"type\": \"string?\", \"json\": \"next_results\"}}}}}";
    const char *page = "{\"statuses\": [{\"id\": 1, \"text\": \"a\"}, {\"id\": 2}],"
                       " \"search_metadata\": {\"next_results\": \"?max_id=1\"}}";
    strata_error_t err = junk_error();
    strata_schema_t *schema = strata_schema_loadb(schema_text, strlen(schema_text), &err);
    strata_model_t **records, *meta = NULL;
    json_t *input, *options, *value, *errors;
    const char *input_text;
    size_t count = 77, i;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    input = parse(page);
    records = strata_map_response(schema, "Status", input, NULL, &count, &meta, &err);
    CHECK(records != NULL && count == 2 && meta != NULL);
    CHECK_ERR(err, STRATA_OK);
    /* the array and the metadata are the caller's: release the array first */
    for (i = 0; records && i < count; i++) {
        value = strata_model_get(records[i], "id", NULL);
        CHECK(json_integer_value(value) == (json_int_t)(i + 1));
        json_decref(value);
        strata_model_decref(records[i]);
    }
    strata_free(records);
    value = strata_model_get(meta, "next", NULL);
    CHECK_STR(json_string_value(value), "?max_id=1");
    CHECK_STR(strata_model_name(meta), "Meta");
    json_decref(value);
    strata_model_decref(meta);
    CHECK(input->refcount == 1);
    json_decref(input);

    /* the bytes variant; metadata not wanted */
    count = 77;
    records = strata_map_responseb(schema, "Status", page, strlen(page), NULL, &count, NULL, &err);
    CHECK(records != NULL && count == 2);
    for (i = 0; records && i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);

    /* options: a root override and a meta override; both borrowed */
    input = parse("{\"results\": {\"id\": 9}, \"paging\": {\"next_results\": null}}");
    options = parse("{\"root\": \"results\", \"meta\": {\"path\": \"paging\", \"model\": \"Meta\"}}");
    meta = NULL;
    records = strata_map_response(schema, "Status", input, options, &count, &meta, &err);
    CHECK(records != NULL && count == 1 && meta != NULL);
    value = meta ? strata_model_dictionary(meta, NULL) : NULL;
    CHECK_JSON(value, "{\"next\": null}");
    json_decref(value);
    for (i = 0; records && i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    strata_model_decref(meta);
    CHECK(input->refcount == 1 && options->refcount == 1);
    json_decref(options);
    json_decref(input);

    /* empty results: null and [] at the root, the last page without metadata */
    meta = (strata_model_t *)schema;
    records = strata_map_responseb(schema, "Status", "{\"statuses\": []}", 16, NULL, &count, &meta, &err);
    CHECK(records != NULL && count == 0 && meta == NULL);
    CHECK_ERR(err, STRATA_OK);
    strata_free(records);

    /* an error body is not an empty page */
    err = junk_error();
    meta = (strata_model_t *)schema;
    count = 77;
    input_text = "{\"errors\": [{\"code\": 88}]}";
    records = strata_map_responseb(schema, "Status", input_text, strlen(input_text), NULL, &count, &meta,
                                   &err);
    CHECK(records == NULL && count == 0 && meta == NULL);
    CHECK_ERR(err, STRATA_ERROR_MISSING);
    CHECK_STR(err.path, "/statuses");
    CHECK_STR(err.model, "Status");

    /* every error, with paths into the whole response */
    err = junk_error();
    input = parse("{\"statuses\": [{\"id\": 1}, {\"id\": \"2\"}, {}], \"search_metadata\": {\"next_results\": 3}}");
    records = strata_map_response(schema, "Status", input, NULL, &count, &meta, &err);
    CHECK(records == NULL && meta == NULL);
    CHECK_MSG(err.count == 3, "count %zu", err.count);
    errors = strata_errors();
    CHECK_HAS_ERROR(errors, "/statuses/1/id", "type", "Status", "id");
    CHECK_HAS_ERROR(errors, "/statuses/2/id", "missing", "Status", "id");
    CHECK_HAS_ERROR(errors, "/search_metadata/next_results", "type", "Meta", "next");
    json_decref(errors);
    json_decref(input);

    /* bad options are argument errors */
    err = junk_error();
    options = parse("{\"meta\": {\"path\": \"paging\", \"model\": \"Nope\"}}");
    records = strata_map_responseb(schema, "Status", "[]", 2, options, &count, &meta, &err);
    CHECK(records == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    json_decref(options);
    err = junk_error();
    records = strata_map_responseb(schema, "Status", "{\"statuses\": [", 14, NULL, &count, &meta, &err);
    CHECK(records == NULL);
    CHECK_ERR(err, STRATA_ERROR_SYNTAX);

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
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    err = junk_error();
    CHECK(strata_model_has(model, NULL, &err) == -1);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_has(NULL, NULL, NULL) == -1);

    err = junk_error();
    CHECK(strata_model_get(NULL, "number", &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    err = junk_error();
    CHECK(strata_model_get(model, NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_get(NULL, NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_model_dictionary(NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_model_dictionary(NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_model_to_json(NULL, &err) == NULL);
    CHECK_ERR(err, STRATA_ERROR_ARGUMENT);
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
    r->own_error_ok = (m == NULL && has_error(errors, "/title", "type", "Issue", "title") &&
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

/* ------------------------------------------------------------------------ */

struct test {
    const char *name;
    void (*run)(void);
};

static const struct test tests[] = {
    {"version", test_version},
    {"json_dumps", test_json_dumps},
    {"json_loadb", test_json_loadb},
    {"json_decref", test_json_decref},
    {"errors_list", test_errors_list},
    {"error_truncation", test_error_truncation},
    {"schema_load", test_schema_load},
    {"schema_loadb", test_schema_loadb},
    {"schema_load_file", test_schema_load_file},
    {"schema_errors", test_schema_errors},
    {"schema_null_arguments", test_schema_null_arguments},
    {"map", test_map},
    {"map_errors", test_map_errors},
    {"depth", test_depth},
    {"map_null_arguments", test_map_null_arguments},
    {"map_many", test_map_many},
    {"map_response", test_map_response},
    {"model_refcount", test_model_refcount},
    {"model_null_arguments", test_model_null_arguments},
    {"equal_hash_copy", test_equal_hash_copy},
    {"returned_trees_are_independent", test_returned_trees_are_independent},
    {"errors_per_thread", test_errors_per_thread},
    {"shared_schema", test_shared_schema},
};

int main(int argc, char **argv) {
    size_t i;
    int tests_failed = 0, tests_run = 0;
    for (i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int before = checks_failed, selected = argc < 2, a;
        for (a = 1; a < argc; a++)
            if (strcmp(argv[a], tests[i].name) == 0)
                selected = 1;
        if (!selected)
            continue;
        current_test = tests[i].name;
        tests[i].run();
        tests_run++;
        if (checks_failed != before) {
            tests_failed++;
            printf("FAIL %s\n", tests[i].name);
        } else {
            printf("ok   %s\n", tests[i].name);
        }
        fflush(stdout);
    }
    printf("%d tests, %d failed; %d checks, %d failed\n", tests_run, tests_failed, checks_run,
           checks_failed);
    return checks_failed == 0 ? 0 : 1;
}
