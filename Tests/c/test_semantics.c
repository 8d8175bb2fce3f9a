/*
 * test_semantics.c - unit tests of the header's "Diff and patch" and
 * "Archives and versions" sections: strata_model_diff, strata_model_diff_merge,
 * strata_model_patch, strata_model_merge_patch, strata_model_archive,
 * strata_unarchive, strata_unarchiveb, strata_schema_compare, and the schema
 * tools strata_schema_json_schema and strata_schema_diagram.
 *
 * Besides the happy paths (covered at length by Tests/conformance) it checks
 * NULL arguments, models of different schemas and models, borrowed arguments
 * left untouched, results that are new references, the error list, and a
 * migration whose "transform" is a C callback registered on a builder.
 *
 * Usage: test_semantics [test-name...]   (no names: run all)
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses JSON text of a test (a new reference). */
static json_t *parse(const char *text) {
    json_error_t jerr;
    json_t *value = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (value == NULL) {
        fprintf(stderr, "bad test JSON: %s: %s\n", jerr.text, text);
        exit(2);
    }
    return value;
}

/* True when `value` equals the JSON text `text`. */
static int equals(const json_t *value, const char *text) {
    json_t *expected = parse(text);
    int same = value != NULL && json_equal((json_t *)value, expected);
    if (!same) {
        char *dumped = value ? json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        fprintf(stderr, "    [%s] got %s\n    expected %s\n", current_test, dumped ? dumped : "NULL", text);
        free(dumped);
    }
    json_decref(expected);
    return same;
}

static strata_schema_t *load(const char *text) {
    strata_error_t err;
    strata_schema_t *schema = strata_schema_loadb(text, strlen(text), &err);
    if (schema == NULL) {
        fprintf(stderr, "bad test schema: %s at %s: %s\n", err.code_name, err.path, err.message);
        exit(2);
    }
    return schema;
}

static strata_model_t *map(strata_schema_t *schema, const char *model, const char *text) {
    strata_error_t err;
    strata_model_t *made = strata_mapb(schema, model, text, strlen(text), &err);
    if (made == NULL) {
        fprintf(stderr, "bad test input: %s at %s: %s\n", err.code_name, err.path, err.message);
        exit(2);
    }
    return made;
}

static const char *SCHEMA =
    "{\"strata\": 1, \"version\": 2,"
    " \"migrations\": [{\"from\": 0, \"rename\": {\"name\": \"title\"}}, {\"from\": 1}],"
    " \"models\": {"
    "  \"Issue\": {\"unknownKeys\": \"keep\", \"properties\": {"
    "    \"number\": {\"type\": \"int\", \"required\": true},"
    "    \"title\": {\"type\": \"string\"},"
    "    \"body\": {\"type\": \"string?\"},"
    "    \"tags\": {\"type\": \"[string]\"},"
    "    \"note\": {\"type\": \"string\", \"json\": false, \"default\": \"n\"}}},"
    "  \"User\": {\"properties\": {\"login\": {\"type\": \"string\"}}}}}";

/* ------------------------------------------------------------------------ */

static void test_diff_and_patch(void) {
    strata_schema_t *schema = load(SCHEMA);
    strata_model_t *a = map(schema, "Issue", "{\"number\": 1, \"title\": \"x\", \"tags\": [\"a\"], \"k\": 1}");
    strata_model_t *b = map(schema, "Issue", "{\"number\": 1, \"title\": \"y\", \"body\": null, \"tags\": [\"a\", \"b\"], \"k\": 1}");
    strata_error_t err;
    json_t *ops = strata_model_diff(a, b, &err);
    json_t *merge;
    strata_model_t *patched;
    CHECK(ops != NULL && err.code == STRATA_OK);
    CHECK(strata_errors() == NULL);
    CHECK(equals(ops, "[{\"op\": \"replace\", \"path\": \"/title\", \"value\": \"y\"},"
                      " {\"op\": \"add\", \"path\": \"/body\", \"value\": null},"
                      " {\"op\": \"add\", \"path\": \"/tags/-\", \"value\": \"b\"}]"));
    CHECK(ops != NULL && ops->refcount == 1);
    patched = strata_model_patch(a, ops, &err);
    CHECK(patched != NULL && strata_model_equal(patched, b));
    CHECK(patched != a && strata_model_equal(a, a));
    strata_model_decref(patched);

    merge = strata_model_diff_merge(a, b, &err);
    CHECK(equals(merge, "{\"title\": \"y\", \"body\": null, \"tags\": [\"a\", \"b\"]}"));
    patched = strata_model_merge_patch(a, merge, &err);
    CHECK(patched != NULL && strata_model_equal(patched, b));
    strata_model_decref(patched);
    json_decref(merge);

    /* b -> a removes body: not expressible as a merge patch. */
    merge = strata_model_diff_merge(b, a, &err);
    CHECK(merge == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "/body");
    CHECK_STR(err.model, "Issue");
    CHECK_STR(err.property, "body");
    CHECK(err.count == 1);
    {
        json_t *all = strata_errors();
        CHECK(json_array_size(all) == 1);
        json_decref(all);
    }
    json_decref(ops);

    /* The patch is borrowed and left as it was. */
    ops = parse("[{\"op\": \"replace\", \"path\": \"/tags/0\", \"value\": \"z\"}]");
    {
        char *before = json_dumps(ops, JSON_COMPACT);
        char *after;
        patched = strata_model_patch(a, ops, &err);
        after = json_dumps(ops, JSON_COMPACT);
        CHECK(patched != NULL && strcmp(before, after) == 0 && ops->refcount == 1);
        free(before);
        free(after);
    }
    {
        json_t *tags = strata_model_get(patched, "tags", &err);
        CHECK(equals(tags, "[\"z\"]"));
        json_decref(tags);
        tags = strata_model_get(a, "tags", &err);
        CHECK(equals(tags, "[\"a\"]"));
        json_decref(tags);
    }
    strata_model_decref(patched);
    json_decref(ops);

    strata_model_decref(a);
    strata_model_decref(b);
    strata_schema_decref(schema);
}

static void test_patch_errors(void) {
    strata_schema_t *schema = load(SCHEMA);
    strata_model_t *a = map(schema, "Issue", "{\"number\": 1}");
    strata_error_t err;
    json_t *ops = parse("[{\"op\": \"test\", \"path\": \"/number\", \"value\": 1.0},"
                        " {\"op\": \"remove\", \"path\": \"/title\"}]");
    json_t *all;
    CHECK(strata_model_patch(a, ops, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "/1/path");
    CHECK_STR(err.code_name, "argument");
    CHECK_STR(err.property, "title");
    json_decref(ops);

    /* The result is checked: every error, with paths into the patched dictionary. */
    ops = parse("[{\"op\": \"replace\", \"path\": \"/number\", \"value\": \"one\"},"
                " {\"op\": \"add\", \"path\": \"/tags\", \"value\": [1, \"a\", 2]}]");
    CHECK(strata_model_patch(a, ops, &err) == NULL);
    CHECK(err.count == 3);
    all = strata_errors();
    CHECK(json_array_size(all) == 3);
    CHECK(equals(json_object_get(json_array_get(all, 0), "path"), "\"/number\""));
    json_decref(all);
    json_decref(ops);

    ops = parse("{\"title\": null}");
    CHECK(strata_model_merge_patch(a, ops, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_NULL, "/title");
    json_decref(ops);
    ops = parse("[]");
    CHECK(strata_model_merge_patch(a, ops, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    json_decref(ops);

    strata_model_decref(a);
    strata_schema_decref(schema);
}

static void test_null_and_mismatched_arguments(void) {
    strata_schema_t *schema = load(SCHEMA);
    strata_schema_t *other = load(SCHEMA);
    strata_model_t *a = map(schema, "Issue", "{\"number\": 1}");
    strata_model_t *user = map(schema, "User", "{\"login\": \"ann\"}");
    strata_model_t *foreign = map(other, "Issue", "{\"number\": 1}");
    json_t *ops = parse("[]");
    strata_error_t err;

    CHECK(strata_model_diff(NULL, a, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_model_diff(a, NULL, NULL) == NULL);
    CHECK(strata_model_diff_merge(NULL, NULL, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_model_patch(NULL, ops, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_model_patch(a, NULL, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_model_merge_patch(a, NULL, &err) == NULL);
    CHECK(strata_model_merge_patch(NULL, ops, NULL) == NULL);
    CHECK(strata_model_archive(NULL, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_unarchive(NULL, ops, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_unarchive(schema, NULL, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_unarchiveb(schema, NULL, 3, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_unarchiveb(NULL, "{}", 2, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_unarchiveb(schema, "{", 1, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_SYNTAX, "");
    CHECK(strata_schema_compare(NULL, schema, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_schema_compare(schema, NULL, NULL) == NULL);

    CHECK(strata_model_diff(a, user, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strata_model_diff(a, foreign, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");
    CHECK(strstr(err.message, "different schemas") != NULL);
    CHECK(strata_model_diff_merge(foreign, a, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "");

    json_decref(ops);
    strata_model_decref(foreign);
    strata_model_decref(user);
    strata_model_decref(a);
    strata_schema_decref(other);
    strata_schema_decref(schema);
}

static void test_archive_round_trip(void) {
    strata_schema_t *schema = load(SCHEMA);
    strata_model_t *a = map(schema, "Issue", "{\"number\": 3, \"title\": \"t\", \"extra\": {\"x\": 1}}");
    strata_error_t err;
    json_t *archive = strata_model_archive(a, &err);
    strata_model_t *restored;
    char *text;
    CHECK(err.code == STRATA_OK);
    CHECK(equals(archive, "{\"strata-archive\": 1, \"version\": 2, \"model\": \"Issue\","
                          " \"values\": {\"number\": 3, \"title\": \"t\", \"note\": \"n\","
                          " \"$unknown\": {\"extra\": {\"x\": 1}}}}"));
    restored = strata_unarchive(schema, archive, &err);
    CHECK(restored != NULL && strata_model_equal(restored, a));
    strata_model_decref(restored);

    text = json_dumps(archive, JSON_COMPACT);
    restored = strata_unarchiveb(schema, text, strlen(text), &err);
    CHECK(restored != NULL && strata_model_equal(restored, a));
    strata_model_decref(restored);
    free(text);
    CHECK(archive->refcount == 1);
    json_decref(archive);

    /* A version-0 archive goes through the rename of step 0 and the empty step 1. */
    archive = parse("{\"strata-archive\": 1, \"version\": 0, \"model\": \"Issue\","
                    " \"values\": {\"number\": 4, \"name\": \"old\"}}");
    restored = strata_unarchive(schema, archive, &err);
    CHECK(restored != NULL);
    if (restored != NULL) {
        json_t *dict = strata_model_dictionary(restored, &err);
        CHECK(equals(dict, "{\"number\": 4, \"title\": \"old\", \"note\": \"n\"}"));
        json_decref(dict);
    }
    strata_model_decref(restored);
    /* The archive is borrowed: the migration worked on a copy. */
    CHECK(equals(archive, "{\"strata-archive\": 1, \"version\": 0, \"model\": \"Issue\","
                          " \"values\": {\"number\": 4, \"name\": \"old\"}}"));
    json_decref(archive);

    archive = parse("{\"strata-archive\": 1, \"version\": 9, \"model\": \"Issue\", \"values\": {}}");
    CHECK(strata_unarchive(schema, archive, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_ARGUMENT, "/version");
    CHECK(strstr(err.message, "newer") != NULL);
    json_decref(archive);

    strata_model_decref(a);
    strata_schema_decref(schema);
}

/* A C transformer for a migration's "transform": adds "migrated": true to the values. */
static int transform_calls;
static json_t *mark_migrated(json_t *value, void *payload, char *message, size_t size) {
    json_t *copy;
    (void)payload;
    transform_calls++;
    if (!json_is_object(value)) {
        snprintf(message, size, "expected the values object");
        return NULL;
    }
    if (json_object_get(value, "refuse") != NULL) {
        snprintf(message, size, "this archive is refused");
        return NULL;
    }
    copy = json_deep_copy(value);
    json_object_set_new(copy, "migrated", json_true());
    return copy;
}

static void test_migration_with_a_c_transformer(void) {
    const char *text =
        "{\"strata\": 1, \"version\": 1,"
        " \"migrations\": [{\"from\": 0, \"model\": \"Doc\", \"transform\": \"mark\"}],"
        " \"models\": {\"Doc\": {\"properties\": {\"title\": {\"type\": \"string\"},"
        "   \"migrated\": {\"type\": \"bool\", \"json\": false, \"default\": false}}}}}";
    strata_error_t err;
    strata_schema_builder_t *builder = strata_schema_builder_new();
    strata_schema_t *schema;
    strata_model_t *restored;
    json_t *archive;
    CHECK(strata_schema_builder_add_transformer(builder, "mark", mark_migrated, NULL, NULL, NULL, &err) == 0);
    /* Without the builder the transformer is unknown: a schema error at the step. */
    CHECK(strata_schema_loadb(text, strlen(text), &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_SCHEMA, "/migrations/0/transform");
    schema = strata_schema_builder_loadb(builder, text, strlen(text), &err);
    strata_schema_builder_free(builder);
    CHECK(schema != NULL);
    if (schema == NULL)
        return;
    archive = parse("{\"strata-archive\": 1, \"version\": 0, \"model\": \"Doc\", \"values\": {\"title\": \"t\"}}");
    transform_calls = 0;
    restored = strata_unarchive(schema, archive, &err);
    CHECK(restored != NULL && transform_calls == 1);
    if (restored != NULL) {
        json_t *flag = strata_model_get(restored, "migrated", &err);
        CHECK(flag != NULL && json_is_true(flag));
        json_decref(flag);
    }
    strata_model_decref(restored);
    json_decref(archive);

    archive = parse("{\"strata-archive\": 1, \"version\": 0, \"model\": \"Doc\", \"values\": {\"refuse\": 1}}");
    CHECK(strata_unarchive(schema, archive, &err) == NULL);
    CHECK_CODE_AT(err, STRATA_ERROR_FORMAT, "/values");
    CHECK(strstr(err.message, "this archive is refused") != NULL);
    json_decref(archive);

    /* An archive of the current version is not migrated. */
    archive = parse("{\"strata-archive\": 1, \"version\": 1, \"model\": \"Doc\", \"values\": {\"title\": \"t\"}}");
    transform_calls = 0;
    restored = strata_unarchive(schema, archive, &err);
    CHECK(restored != NULL && transform_calls == 0);
    strata_model_decref(restored);
    json_decref(archive);
    strata_schema_decref(schema);
}

static void test_compare(void) {
    strata_schema_t *old = load("{\"strata\": 1, \"models\": {\"A\": {\"properties\": {"
                                "\"x\": {\"type\": \"double\"}, \"y\": {\"type\": \"int\"}}}}}");
    strata_schema_t *new_schema = load("{\"strata\": 1, \"version\": 1, \"models\": {\"A\": {\"properties\": {"
                                       "\"x\": {\"type\": \"int\"}, \"z\": {\"type\": \"int\"}}}}}");
    strata_error_t err;
    json_t *changes = strata_schema_compare(old, new_schema, &err);
    size_t i;
    CHECK(changes != NULL && json_array_size(changes) == 3);
    CHECK(equals(json_array_get(changes, 0),
                 "{\"path\": \"/models/A/properties/x\", \"model\": \"A\", \"property\": \"x\","
                 " \"change\": \"type-narrowed\", \"breaking\": true,"
                 " \"message\": \"type 'double' changed to 'int', which does not accept every value of the old type\"}"));
    for (i = 0; i < json_array_size(changes); i++) {
        json_t *entry = json_array_get(changes, i);
        CHECK(json_is_string(json_object_get(entry, "path")));
        CHECK(json_is_string(json_object_get(entry, "message")));
        CHECK(json_is_boolean(json_object_get(entry, "breaking")));
    }
    CHECK(equals(json_object_get(json_array_get(changes, 1), "change"), "\"property-removed\""));
    CHECK(equals(json_object_get(json_array_get(changes, 2), "change"), "\"property-added\""));
    json_decref(changes);

    changes = strata_schema_compare(old, old, &err);
    CHECK(changes != NULL && json_array_size(changes) == 0);
    json_decref(changes);
    strata_schema_decref(new_schema);
    strata_schema_decref(old);
}

static void test_schema_tools(void) {
    strata_schema_t *schema = load("{\"strata\": 1, \"models\": {"
                                   "\"Node\": {\"properties\": {\"name\": {\"type\": \"string\", \"required\": true},"
                                   " \"children\": {\"type\": \"[Node]\"}, \"owner\": {\"type\": \"string?\","
                                   " \"json\": \"owner.login\"}}}}}");
    strata_error_t err;
    json_t *api = strata_schema_json_schema(schema, "Node", 0, &err);
    json_t *canonical = strata_schema_json_schema(schema, "Node", 1, &err);
    json_t *node;
    char *text;
    CHECK(api != NULL && canonical != NULL);
    CHECK(equals(json_object_get(api, "$schema"), "\"https://json-schema.org/draft/2020-12/schema\""));
    CHECK(equals(json_object_get(api, "$ref"), "\"#/$defs/Node\""));
    node = json_object_get(json_object_get(api, "$defs"), "Node");
    CHECK(equals(json_object_get(node, "required"), "[\"name\"]"));
    CHECK(equals(json_object_get(json_object_get(node, "properties"), "children"),
                 "{\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/Node\"}}"));
    CHECK(equals(json_object_get(json_object_get(node, "properties"), "owner"),
                 "{\"type\": [\"object\", \"null\"], \"properties\":"
                 " {\"login\": {\"type\": [\"string\", \"null\"]}}}"));
    node = json_object_get(json_object_get(canonical, "$defs"), "Node");
    CHECK(equals(json_object_get(json_object_get(node, "properties"), "owner"), "{\"type\": [\"string\", \"null\"]}"));
    CHECK(equals(json_object_get(node, "additionalProperties"), "false"));
    json_decref(api);
    json_decref(canonical);
    CHECK(strata_schema_json_schema(schema, "Nope", 0, &err) == NULL && err.code == STRATA_ERROR_ARGUMENT);

    text = strata_schema_diagram(schema, "mermaid", &err);
    CHECK(text != NULL && strstr(text, "classDiagram\n") == text);
    CHECK(text != NULL && strstr(text, "Node --> \"*\" Node : children") != NULL);
    strata_free(text);
    text = strata_schema_diagram(schema, "dot", &err);
    CHECK(text != NULL && strstr(text, "digraph Schema {") == text);
    strata_free(text);
    CHECK(strata_schema_diagram(schema, "svg", &err) == NULL && err.code == STRATA_ERROR_ARGUMENT);
    strata_schema_decref(schema);
}

static const struct check_test tests[] = {
    {"diff_and_patch", test_diff_and_patch},
    {"patch_errors", test_patch_errors},
    {"null_and_mismatched_arguments", test_null_and_mismatched_arguments},
    {"archive_round_trip", test_archive_round_trip},
    {"migration_with_a_c_transformer", test_migration_with_a_c_transformer},
    {"compare", test_compare},
    {"schema_tools", test_schema_tools},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
