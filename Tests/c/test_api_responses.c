/*
 * test_api_responses.c - unit tests of the "Responses" section of
 * include/strata.h: strata_map_response and strata_map_responseb.
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on, so one run shows every broken promise of the header. Besides
 * the happy paths it checks that pointer arguments may be NULL (an error,
 * never a crash), that unknown names are "argument" errors, what
 * strata_errors() holds, and that references are balanced (json_t refcounts
 * come back to where they started). The schema and input most tests use are
 * in test_api.h.
 *
 * Usage: test_api_responses [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "test_api.h"

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
    CHECK_CODE(err, STRATA_OK);
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
    CHECK_CODE(err, STRATA_OK);
    strata_free(records);

    /* an error body is not an empty page */
    err = junk_error();
    meta = (strata_model_t *)schema;
    count = 77;
    input_text = "{\"errors\": [{\"code\": 88}]}";
    records = strata_map_responseb(schema, "Status", input_text, strlen(input_text), NULL, &count, &meta,
                                   &err);
    CHECK(records == NULL && count == 0 && meta == NULL);
    CHECK_CODE(err, STRATA_ERROR_MISSING);
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
    CHECK_CODE(err, STRATA_ERROR_ARGUMENT);
    json_decref(options);
    err = junk_error();
    records = strata_map_responseb(schema, "Status", "{\"statuses\": [", 14, NULL, &count, &meta, &err);
    CHECK(records == NULL);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);

    strata_schema_decref(schema);
}

static const struct check_test tests[] = {
    {"map_response", test_map_response},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
