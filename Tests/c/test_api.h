/*
 * test_api.h - what the test_api_*.c programs share besides check.h: the
 * schema most tests use (SCHEMA_TEXT) and an issue (ISSUE_TEXT), their
 * loading and mapping, parse(), and junk_error().
 *
 * The C API tests, one program per section of include/strata.h:
 *   test_api_library.c    Library: version, JSON helpers, strata_errors()
 *   test_api_schemas.c    Schemas
 *   test_api_mapping.c    Mapping
 *   test_api_responses.c  Responses
 *   test_api_models.c     Models
 *   test_api_threads.c    the threads (strata_errors() per thread, a shared schema)
 * The other sections are tested by test_extensions.c (the schema builder,
 * merge and update), test_semantics.c (diff and patch, archives and
 * versions) and the conformance suite.
 */
#ifndef STRATA_TESTS_API_H
#define STRATA_TESTS_API_H

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline json_t *parse(const char *text) {
    json_error_t jerr;
    json_t *json = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (json == NULL) {
        fprintf(stderr, "test bug: cannot parse %s: %s\n", text, jerr.text);
        abort();
    }
    return json;
}

/* An error struct filled with junk, so that a call that leaves it alone shows. */
static inline strata_error_t junk_error(void) {
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

/* The schema most tests use. */
static const char SCHEMA_TEXT[] =
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

static const char ISSUE_TEXT[] =
    "{\"url\": \"https://api.github.com/repos/o/r/issues/7\", \"number\": 7,"
    " \"title\": \"Crash on null\", \"state\": \"open\","
    " \"user\": {\"login\": \"octocat\", \"id\": 1},"
    " \"assignee\": {\"id\": 2, \"login\": \"hubot\"},"
    " \"labels\": [{\"name\": \"bug\", \"color\": \"f00\"}],"
    " \"score\": 3, \"locked\": false, \"extra\": {\"a\": [1, 2.5, null]},"
    " \"counts\": {\"x\": 1}, \"created_at\": null, \"note\": \"ignored\", \"other\": 1}";

static inline strata_schema_t *load_test_schema(void) {
    strata_error_t err;
    memset(&err, 0, sizeof err);
    strata_schema_t *schema = strata_schema_loadb(SCHEMA_TEXT, strlen(SCHEMA_TEXT), &err);
    if (schema == NULL) {
        json_t *errors = strata_errors();
        char *d = check_dump(errors);
        fprintf(stderr, "cannot load the test schema: %s at %s: %s\n  all errors: %s\n",
                err.code_name, err.path, err.message, d);
        free(d);
        json_decref(errors);
    }
    return schema;
}

static inline strata_model_t *map_text(strata_schema_t *schema, const char *model, const char *text) {
    strata_error_t err;
    strata_model_t *m = strata_mapb(schema, model, text, strlen(text), &err);
    if (m == NULL)
        fprintf(stderr, "[%s] cannot map %s onto %s: %s at \"%s\": %s\n", current_test, text,
                model, err.code_name, err.path, err.message);
    return m;
}

#endif
