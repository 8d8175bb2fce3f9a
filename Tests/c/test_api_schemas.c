/*
 * test_api_schemas.c - unit tests of the "Schemas" section of
 * include/strata.h: strata_schema_load, _loadb, _load_file, their errors
 * (every problem of a document), reference counting, version and model names,
 * NULL arguments.
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on, so one run shows every broken promise of the header. Besides
 * the happy paths it checks that pointer arguments may be NULL (an error,
 * never a crash), that unknown names are "argument" errors, what
 * strata_errors() holds, and that references are balanced (json_t refcounts
 * come back to where they started). The schema and input most tests use are
 * in test_api.h.
 *
 * Usage: test_api_schemas [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "test_api.h"

#include <unistd.h>

static void test_schema_load(void) {
    strata_error_t err = junk_error();
    json_t *doc = parse(SCHEMA_TEXT);
    strata_schema_t *schema = strata_schema_load(doc, &err);
    CHECK(schema != NULL);
    CHECK_CODE(err, STRATA_OK);
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
    CHECK_CODE(err, STRATA_OK);
    CHECK(strata_schema_model_count(schema) == 5);
    strata_schema_decref(schema);

    err = junk_error();
    schema = strata_schema_loadb(bad, strlen(bad), &err);
    CHECK(schema == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
    CHECK_MSG(strstr(err.message, "line") != NULL, "message \"%s\" names no line", err.message);
    CHECK_ERROR_CONSISTENT(err);

    err = junk_error();
    schema = strata_schema_loadb("", 0, &err);
    CHECK(schema == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);

    /* only `length` bytes are read */
    err = junk_error();
    schema = strata_schema_loadb(SCHEMA_TEXT, strlen(SCHEMA_TEXT) / 2, &err);
    CHECK(schema == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
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
    CHECK_CODE(err, STRATA_OK);
    CHECK(strata_schema_version(schema) == 3);
    CHECK(strata_schema_model_count(schema) == 5);
    strata_schema_decref(schema);

    err = junk_error();
    schema = strata_schema_load_file(bad, &err);
    CHECK(schema == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
    CHECK_ERROR_CONSISTENT(err);

    err = junk_error();
    schema = strata_schema_load_file(invalid, &err);
    CHECK(schema == NULL);
    CHECK_CODE(err, STRATA_ERROR_SCHEMA);
    CHECK_ERROR_CONSISTENT(err);

    err = junk_error();
    schema = strata_schema_load_file("/nonexistent/strata/schema.json", &err);
    CHECK(schema == NULL);
    CHECK_CODE(err, STRATA_ERROR_IO);
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
    CHECK_CODE(err, STRATA_ERROR_SCHEMA);
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
    CHECK_CODE(err, STRATA_ERROR_SCHEMA);
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
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK_ERROR_CONSISTENT(err);
    CHECK(strata_schema_load(NULL, NULL) == NULL);

    err = junk_error();
    CHECK(strata_schema_loadb(NULL, 10, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_loadb(NULL, 10, NULL) == NULL);

    err = junk_error();
    CHECK(strata_schema_load_file(NULL, &err) == NULL);
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_load_file(NULL, NULL) == NULL);

    CHECK(strata_schema_incref(NULL) == NULL);
    strata_schema_decref(NULL);
    CHECK(strata_schema_version(NULL) == -1);
    CHECK(strata_schema_model_count(NULL) == 0);
    CHECK(strata_schema_model_name(NULL, 0) == NULL);
}

static const struct check_test tests[] = {
    {"schema_load", test_schema_load},
    {"schema_loadb", test_schema_loadb},
    {"schema_load_file", test_schema_load_file},
    {"schema_errors", test_schema_errors},
    {"schema_null_arguments", test_schema_null_arguments},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
