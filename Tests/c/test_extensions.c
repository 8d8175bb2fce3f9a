/*
 * test_extensions.c - tests of the parts of include/strata.h that test_api_*.c
 * leave out: the schema builder with host transformers (forward and reverse,
 * one-way, refusing; payload release), custom mergers, strata_model_get_date,
 * and strata_model_merge / strata_model_update / strata_model_updateb (all or
 * nothing, NULL arguments, models of two schemas).
 *
 * Each test is a function; CHECK() (check.h) records a failure with its line
 * and goes on. Usage: test_extensions [test-name...]   (no names: run all)
 * The last line is `N tests, N failed; N checks, N failed`.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Helpers (the harness: check.h)                                            */

static json_t *parse(const char *text) {
    json_error_t jerr;
    json_t *json = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (json == NULL) {
        fprintf(stderr, "test bug: cannot parse %s: %s\n", text, jerr.text);
        abort();
    }
    return json;
}

/* A string literal and its length, for the byte-level entry points. */
#define TEXT(s) (s), strlen(s)

static strata_error_t fresh_error(void) {
    strata_error_t err;
    memset(&err, 0, sizeof err);
    return err;
}

/* The model's canonical dictionary compared with JSON text (the dictionary released). */
#define CHECK_DICT(model, text)                                                          \
    do {                                                                                 \
        json_t *d_ = strata_model_dictionary((model), NULL);                             \
        check_json(__LINE__, "dictionary of " #model, d_, (text));                       \
        json_decref(d_);                                                                 \
    } while (0)

#define CHECK_TO_JSON(model, text)                                                       \
    do {                                                                                 \
        json_t *j_ = strata_model_to_json((model), NULL);                                \
        check_json(__LINE__, "to_json of " #model, j_, (text));                          \
        json_decref(j_);                                                                 \
    } while (0)

static strata_model_t *map_text(const strata_schema_t *schema, const char *model,
                                const char *text) {
    strata_error_t err = fresh_error();
    strata_model_t *m = strata_mapb(schema, model, text, strlen(text), &err);
    if (m == NULL)
        fprintf(stderr, "[%s] cannot map %s onto %s: %s at \"%s\": %s\n", current_test, text,
                model, err.code_name, err.path, err.message);
    return m;
}

static strata_schema_t *load_text(strata_schema_builder_t *builder, const char *text) {
    strata_error_t err = fresh_error();
    strata_schema_t *schema = builder ? strata_schema_builder_loadb(builder, text, strlen(text), &err)
                                      : strata_schema_loadb(text, strlen(text), &err);
    if (schema == NULL) {
        json_t *errors = strata_errors();
        char *d = check_dump(errors);
        fprintf(stderr, "[%s] cannot load a test schema: %s\n", current_test, d);
        free(d);
        json_decref(errors);
    }
    return schema;
}

/* ------------------------------------------------------------------------ */
/* Host transformers and mergers                                              */

/* A payload: counts calls and releases, and remembers a tag to prove it is passed. */
struct payload {
    int tag;
    int calls;
    int releases;
};

static void release_payload(void *pointer) {
    ((struct payload *)pointer)->releases++;
}

static void write_message(char *message, size_t size, const char *text) {
    if (message != NULL && size > 0) {
        strncpy(message, text, size - 1);
        message[size - 1] = '\0';
    }
}

/* "csv": "a,b" <-> ["a", "b"] (for a [string] property). */
static json_t *csv_forward(json_t *value, void *payload, char *message, size_t size) {
    const char *text, *start, *comma;
    json_t *out;
    if (payload != NULL)
        ((struct payload *)payload)->calls++;
    if (!json_is_string(value)) {
        write_message(message, size, "csv expects a string");
        return NULL;
    }
    text = json_string_value(value);
    out = json_array();
    start = text;
    while ((comma = strchr(start, ',')) != NULL) {
        json_array_append_new(out, json_stringn(start, (size_t)(comma - start)));
        start = comma + 1;
    }
    json_array_append_new(out, json_string(start));
    return out;
}

static json_t *csv_reverse(json_t *value, void *payload, char *message, size_t size) {
    size_t i, length = 0;
    char *text;
    json_t *out;
    (void)payload;
    if (!json_is_array(value)) {
        write_message(message, size, "csv reverse expects an array");
        return NULL;
    }
    for (i = 0; i < json_array_size(value); i++)
        length += json_string_length(json_array_get(value, i)) + 1;
    text = calloc(length + 1, 1);
    for (i = 0; i < json_array_size(value); i++) {
        if (i > 0)
            strcat(text, ",");
        strcat(text, json_string_value(json_array_get(value, i)));
    }
    out = json_string(text);
    free(text);
    return out;
}

/* "twice": a one-way transformer doubling an integer. */
static json_t *twice_forward(json_t *value, void *payload, char *message, size_t size) {
    (void)payload;
    if (!json_is_integer(value)) {
        write_message(message, size, "twice expects an integer");
        return NULL;
    }
    return json_integer(json_integer_value(value) * 2);
}

/* "hex": refuses anything that is not a string of hex digits. */
static json_t *hex_forward(json_t *value, void *payload, char *message, size_t size) {
    const char *s = json_string_value(value);
    (void)payload;
    if (s == NULL || *s == '\0' || strspn(s, "0123456789abcdefABCDEF") != strlen(s)) {
        write_message(message, size, "not hex digits");
        return NULL;
    }
    return json_incref(value);
}

/* "sealed": passes values in, refuses to write them back. */
static json_t *pass_forward(json_t *value, void *payload, char *message, size_t size) {
    (void)payload;
    (void)message;
    (void)size;
    return json_incref(value);
}

static json_t *refuse_reverse(json_t *value, void *payload, char *message, size_t size) {
    (void)value;
    (void)payload;
    write_message(message, size, "sealed values cannot be written");
    return NULL;
}

/* "sum": adds integers; the current value is NULL when absent. */
static json_t *sum_merge(json_t *current, json_t *incoming, void *payload, char *message,
                         size_t size) {
    struct payload *p = payload;
    if (p != NULL)
        p->calls++;
    if (incoming == NULL) {
        write_message(message, size, "incoming is NULL");
        return NULL;
    }
    if (current == NULL || json_is_null(current))
        return json_incref(incoming);
    if (!json_is_integer(current) || !json_is_integer(incoming)) {
        write_message(message, size, "sum adds integers");
        return NULL;
    }
    return json_integer(json_integer_value(current) + json_integer_value(incoming));
}

/* "veto": refuses every merge. */
static json_t *veto_merge(json_t *current, json_t *incoming, void *payload, char *message,
                          size_t size) {
    (void)current;
    (void)incoming;
    (void)payload;
    write_message(message, size, "vetoed by the host");
    return NULL;
}

/* "stringy": returns a string, whatever the property's type. */
static json_t *stringy_merge(json_t *current, json_t *incoming, void *payload, char *message,
                             size_t size) {
    (void)current;
    (void)incoming;
    (void)payload;
    (void)message;
    (void)size;
    return json_string("not a number");
}

/* ------------------------------------------------------------------------ */
/* The schema builder                                                         */

static const char *TRANSFORM_SCHEMA =
    "{\"strata\": 1, \"models\": {\"M\": {\"properties\": {"
    "\"tags\": {\"type\": \"[string]\", \"transform\": \"csv\"},"
    "\"n\": {\"type\": \"int\", \"transform\": \"twice\"},"
    "\"code\": {\"type\": \"string\", \"transform\": [\"trim\", \"hex\"]},"
    "\"secret\": {\"type\": \"string\", \"transform\": \"sealed\"}"
    "}}}}";

static strata_schema_builder_t *transform_builder(struct payload *csv_payload) {
    strata_schema_builder_t *builder = strata_schema_builder_new();
    strata_error_t err = fresh_error();
    CHECK(builder != NULL);
    if (builder == NULL)
        return NULL;
    CHECK(strata_schema_builder_add_transformer(builder, "csv", csv_forward, csv_reverse,
                                                csv_payload, release_payload, &err) == 0);
    CHECK(err.code == STRATA_OK);
    CHECK(strata_schema_builder_add_transformer(builder, "twice", twice_forward, NULL, NULL, NULL,
                                                &err) == 0);
    CHECK(strata_schema_builder_add_transformer(builder, "hex", hex_forward, NULL, NULL, NULL,
                                                NULL) == 0);
    CHECK(strata_schema_builder_add_transformer(builder, "sealed", pass_forward, refuse_reverse,
                                                NULL, NULL, &err) == 0);
    return builder;
}

static void test_builder_transformers(void) {
    struct payload csv = {7, 0, 0};
    strata_schema_builder_t *builder = transform_builder(&csv);
    strata_schema_t *schema;
    strata_model_t *m;
    strata_error_t err = fresh_error();
    json_t *out;
    if (builder == NULL)
        return;
    schema = load_text(builder, TRANSFORM_SCHEMA);
    CHECK(schema != NULL);
    if (schema == NULL) {
        strata_schema_builder_free(builder);
        return;
    }

    /* forward + reverse: a whole-value transformer, "a,b" <-> ["a", "b"] */
    m = map_text(schema, "M", "{\"tags\": \"a,b,c\", \"n\": 21, \"code\": \"  beef \"}");
    CHECK(m != NULL);
    CHECK(csv.calls == 1);
    CHECK_DICT(m, "{\"tags\": [\"a\", \"b\", \"c\"], \"n\": 42, \"code\": \"beef\"}");
    /* one-way: the model value is written back unchanged; trim is one-way too */
    CHECK_TO_JSON(m, "{\"tags\": \"a,b,c\", \"n\": 42, \"code\": \"beef\"}");
    strata_model_decref(m);

    /* a refusing transformer: a format error at the value's path, with its message */
    m = strata_mapb(schema, "M", TEXT("{\"code\": \"xyz\", \"n\": \"1\"}"), &err);
    CHECK(m == NULL);
    CHECK_FAILED(err, STRATA_ERROR_FORMAT);
    {
        json_t *errors = strata_errors();
        size_t i;
        int found_code = 0, found_n = 0;
        for (i = 0; i < json_array_size(errors); i++) {
            json_t *e = json_array_get(errors, i);
            const char *path = json_string_value(json_object_get(e, "path"));
            const char *message = json_string_value(json_object_get(e, "message"));
            if (path && strcmp(path, "/code") == 0) {
                found_code = 1;
                CHECK_STR(json_string_value(json_object_get(e, "code")), "format");
                CHECK_STR(json_string_value(json_object_get(e, "model")), "M");
                CHECK_STR(json_string_value(json_object_get(e, "property")), "code");
                CHECK_CONTAINS(message, "not hex digits");
                CHECK_CONTAINS(message, "hex");
            }
            if (path && strcmp(path, "/n") == 0) {
                found_n = 1;
                CHECK_STR(json_string_value(json_object_get(e, "code")), "format");
                CHECK_CONTAINS(message, "twice expects an integer");
            }
        }
        CHECK(found_code && found_n);
        CHECK(json_array_size(errors) == 2);
        json_decref(errors);
    }

    /* the transformer gets the whole value: an array for csv is refused by it */
    err = fresh_error();
    m = strata_mapb(schema, "M", TEXT("{\"tags\": [\"a\"]}"), &err);
    CHECK(m == NULL);
    CHECK_FAILED(err, STRATA_ERROR_FORMAT);
    CHECK_STR(err.path, "/tags");
    CHECK_CONTAINS(err.message, "csv expects a string");

    /* null is never transformed: it follows the T? rule */
    err = fresh_error();
    m = strata_mapb(schema, "M", TEXT("{\"tags\": null}"), &err);
    CHECK(m == NULL);
    CHECK_FAILED(err, STRATA_ERROR_NULL);

    /* a failing reverse: serialization fails with a format error naming the property */
    m = map_text(schema, "M", "{\"secret\": \"s\"}");
    CHECK(m != NULL);
    CHECK_DICT(m, "{\"secret\": \"s\"}");
    err = fresh_error();
    out = strata_model_to_json(m, &err);
    CHECK(out == NULL);
    CHECK_FAILED(err, STRATA_ERROR_FORMAT);
    CHECK(strcmp(err.property, "secret") == 0 || strstr(err.message, "secret") != NULL);
    json_decref(out);
    /* the dictionary needs no reverse */
    CHECK_DICT(m, "{\"secret\": \"s\"}");
    strata_model_decref(m);

    /* without the builder, the names are unknown: schema errors at each transform */
    err = fresh_error();
    CHECK(strata_schema_loadb(TRANSFORM_SCHEMA, strlen(TRANSFORM_SCHEMA), &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_SCHEMA);
    {
        json_t *errors = strata_errors();
        CHECK(json_array_size(errors) == 4);
        json_decref(errors);
    }

    strata_schema_decref(schema);
    strata_schema_builder_free(builder);
    CHECK(csv.releases == 1);
}

static void test_builder_loads(void) {
    struct payload csv = {1, 0, 0};
    strata_schema_builder_t *builder = transform_builder(&csv);
    strata_schema_t *a, *b, *c;
    strata_error_t err = fresh_error();
    json_t *doc;
    char path[] = "/tmp/strata-extensions-XXXXXX";
    int fd;
    strata_model_t *m;
    if (builder == NULL)
        return;

    /* load (json_t, borrowed) */
    doc = parse(TRANSFORM_SCHEMA);
    a = strata_schema_builder_load(builder, doc, &err);
    CHECK(a != NULL);
    CHECK(err.code == STRATA_OK);
    CHECK(doc->refcount == 1);
    json_decref(doc);

    /* load_file */
    fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, TRANSFORM_SCHEMA, strlen(TRANSFORM_SCHEMA)) ==
              (ssize_t)strlen(TRANSFORM_SCHEMA));
        close(fd);
    }
    b = strata_schema_builder_load_file(builder, path, &err);
    CHECK(b != NULL);
    unlink(path);

    /* loadb, and the builder reused for a schema that does not use it */
    c = strata_schema_builder_loadb(builder, TEXT("{\"strata\": 1, \"models\": {\"X\": {\"properties\": {}}}}"),
                                    &err);
    CHECK(c != NULL);
    CHECK(strata_schema_model_count(c) == 1);

    m = a ? map_text(a, "M", "{\"tags\": \"x,y\"}") : NULL;
    CHECK(m != NULL);
    CHECK_DICT(m, "{\"tags\": [\"x\", \"y\"]}");
    strata_model_decref(m);
    m = b ? map_text(b, "M", "{\"tags\": \"z\"}") : NULL;
    CHECK_DICT(m, "{\"tags\": [\"z\"]}");
    strata_model_decref(m);

    /* errors of the builder's loads */
    err = fresh_error();
    CHECK(strata_schema_builder_load_file(builder, "/nonexistent/strata/schema.json", &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_IO);
    err = fresh_error();
    CHECK(strata_schema_builder_loadb(builder, TEXT("{\"strata\": "), &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_SYNTAX);
    err = fresh_error();
    CHECK(strata_schema_builder_loadb(builder, TEXT("{\"strata\": 2}"), &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_SCHEMA);

    strata_schema_builder_free(builder);
    CHECK(csv.releases == 0); /* schemas still use it */
    strata_schema_decref(a);
    strata_schema_decref(c);
    CHECK(csv.releases == 0);
    strata_schema_decref(b);
    CHECK(csv.releases == 1);
}

static void test_payload_release(void) {
    struct payload p1 = {1, 0, 0}, p2 = {2, 0, 0}, p3 = {3, 0, 0}, p4 = {4, 0, 0};
    strata_schema_builder_t *builder;
    strata_schema_t *schema;
    strata_model_t *model;
    strata_error_t err = fresh_error();

    /* a builder that loads nothing releases its payloads when freed, once */
    builder = strata_schema_builder_new();
    CHECK(strata_schema_builder_add_transformer(builder, "t1", pass_forward, NULL, &p1,
                                                release_payload, &err) == 0);
    CHECK(strata_schema_builder_add_merger(builder, "m1", sum_merge, &p2, release_payload, &err) ==
          0);
    CHECK(p1.releases == 0 && p2.releases == 0);
    strata_schema_builder_free(builder);
    CHECK(p1.releases == 1);
    CHECK(p2.releases == 1);

    /* models keep the schema (and so the payload) alive; a failed load holds nothing */
    builder = strata_schema_builder_new();
    CHECK(strata_schema_builder_add_transformer(builder, "t3", csv_forward, csv_reverse, &p3,
                                                release_payload, &err) == 0);
    CHECK(strata_schema_builder_add_merger(builder, "m4", sum_merge, &p4, release_payload, &err) ==
          0);
    CHECK(strata_schema_builder_loadb(builder, TEXT("{\"strata\": 1, \"models\": {\"M\": {\"properties\": "
                                               "{\"t\": {\"type\": \"[string]\", \"transform\": \"t3\"}, "
                                               "\"bad\": {\"type\": \"nope\"}}}}}"),
                                      &err) == NULL);
    schema = load_text(builder, "{\"strata\": 1, \"models\": {\"M\": {\"properties\": "
                                "{\"t\": {\"type\": \"[string]\", \"transform\": \"t3\"}, "
                                "\"n\": {\"type\": \"int\", \"merge\": \"m4\"}}}}}");
    CHECK(schema != NULL);
    model = schema ? map_text(schema, "M", "{\"t\": \"a,b\", \"n\": 1}") : NULL;
    CHECK(model != NULL);
    strata_schema_builder_free(builder);
    strata_schema_decref(schema);
    CHECK(p3.releases == 0 && p4.releases == 0);
    CHECK_TO_JSON(model, "{\"t\": \"a,b\", \"n\": 1}");
    strata_model_decref(model);
    CHECK(p3.releases == 1);
    CHECK(p4.releases == 1);
    CHECK(p3.calls == 1);
}

static void test_builder_refusals(void) {
    struct payload p = {9, 0, 0}, q = {10, 0, 0};
    strata_schema_builder_t *builder = strata_schema_builder_new();
    strata_error_t err = fresh_error();
    const char *builtins[] = {"url", "uuid", "string-number", "number-string", "bool",
                              "trim", "lowercase", "uppercase", "base64"};
    const char *policies[] = {"replace", "keep", "merge", "append", "union", "max", "min"};
    size_t i;
    json_t *doc;

    /* built-in names are refused, and their release is never called */
    for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        err = fresh_error();
        CHECK(strata_schema_builder_add_transformer(builder, builtins[i], pass_forward, NULL, &p,
                                                    release_payload, &err) == -1);
        CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
        CHECK_CONTAINS(err.message, builtins[i]);
    }
    for (i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        err = fresh_error();
        CHECK(strata_schema_builder_add_merger(builder, policies[i], sum_merge, &p, release_payload,
                                               &err) == -1);
        CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    }

    /* a duplicate name is refused; the first registration stays */
    CHECK(strata_schema_builder_add_transformer(builder, "dup", csv_forward, csv_reverse, &q,
                                                release_payload, &err) == 0);
    err = fresh_error();
    CHECK(strata_schema_builder_add_transformer(builder, "dup", twice_forward, NULL, &p,
                                                release_payload, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_builder_add_merger(builder, "mdup", sum_merge, &q, NULL, &err) == 0);
    err = fresh_error();
    CHECK(strata_schema_builder_add_merger(builder, "mdup", veto_merge, &p, release_payload,
                                           &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    {
        strata_schema_t *schema = load_text(
            builder, "{\"strata\": 1, \"models\": {\"M\": {\"properties\": {\"t\": {\"type\": "
                     "\"[string]\", \"transform\": \"dup\"}, \"n\": {\"type\": \"int\", \"merge\": \"mdup\"}}}}}");
        strata_model_t *a = schema ? map_text(schema, "M", "{\"t\": \"a,b\", \"n\": 2}") : NULL;
        strata_model_t *b = schema ? map_text(schema, "M", "{\"n\": 3}") : NULL;
        CHECK_DICT(a, "{\"t\": [\"a\", \"b\"], \"n\": 2}");
        CHECK(strata_model_merge(a, b, NULL) == 0);
        CHECK_DICT(a, "{\"t\": [\"a\", \"b\"], \"n\": 5}");
        strata_model_decref(a);
        strata_model_decref(b);
        strata_schema_decref(schema);
    }

    /* NULL arguments: argument errors, never crashes */
    err = fresh_error();
    CHECK(strata_schema_builder_add_transformer(NULL, "x", pass_forward, NULL, NULL, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_add_transformer(builder, NULL, pass_forward, NULL, NULL, NULL, &err) ==
          -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_add_transformer(builder, "", pass_forward, NULL, NULL, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_add_transformer(builder, "noforward", NULL, csv_reverse, NULL, NULL,
                                                &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_builder_add_transformer(NULL, NULL, NULL, NULL, NULL, NULL, NULL) == -1);
    err = fresh_error();
    CHECK(strata_schema_builder_add_merger(NULL, "x", sum_merge, NULL, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_add_merger(builder, NULL, sum_merge, NULL, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_add_merger(builder, "nomerge", NULL, NULL, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_builder_add_merger(NULL, NULL, NULL, NULL, NULL, NULL) == -1);

    doc = parse("{\"strata\": 1, \"models\": {\"X\": {\"properties\": {}}}}");
    err = fresh_error();
    CHECK(strata_schema_builder_load(NULL, doc, &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_load(builder, NULL, &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_loadb(NULL, "{}", 2, &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_loadb(builder, NULL, 2, &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_load_file(NULL, "/tmp/x.json", &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_schema_builder_load_file(builder, NULL, &err) == NULL);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_schema_builder_load(NULL, NULL, NULL) == NULL);
    CHECK(strata_schema_builder_loadb(NULL, NULL, 0, NULL) == NULL);
    CHECK(strata_schema_builder_load_file(NULL, NULL, NULL) == NULL);
    CHECK(doc->refcount == 1);
    json_decref(doc);
    strata_schema_builder_free(NULL);

    strata_schema_builder_free(builder);
    CHECK(p.releases == 0); /* never registered */
    CHECK(q.releases == 1);
}

/* ------------------------------------------------------------------------ */
/* Custom mergers                                                             */

static const char *MERGER_SCHEMA =
    "{\"strata\": 1, \"models\": {"
    "\"Acc\": {\"properties\": {"
    "\"id\": {\"type\": \"int\"},"
    "\"title\": {\"type\": \"string\"},"
    "\"total\": {\"type\": \"int\", \"merge\": \"sum\"},"
    "\"locked\": {\"type\": \"int\", \"merge\": \"veto\"},"
    "\"odd\": {\"type\": \"int\", \"merge\": \"stringy\"}"
    "}}}}";

static strata_schema_t *merger_schema(struct payload *sum_payload) {
    strata_schema_builder_t *builder = strata_schema_builder_new();
    strata_schema_t *schema;
    strata_error_t err = fresh_error();
    CHECK(strata_schema_builder_add_merger(builder, "sum", sum_merge, sum_payload, release_payload,
                                           &err) == 0);
    CHECK(strata_schema_builder_add_merger(builder, "veto", veto_merge, NULL, NULL, &err) == 0);
    CHECK(strata_schema_builder_add_merger(builder, "stringy", stringy_merge, NULL, NULL, &err) == 0);
    schema = load_text(builder, MERGER_SCHEMA);
    strata_schema_builder_free(builder);
    return schema;
}

static void test_custom_mergers(void) {
    struct payload sum = {5, 0, 0};
    strata_schema_t *schema = merger_schema(&sum);
    strata_model_t *a, *b;
    strata_error_t err = fresh_error();
    json_t *before, *after;
    CHECK(schema != NULL);
    if (schema == NULL)
        return;
    CHECK(sum.releases == 0);

    /* the merger's result */
    a = map_text(schema, "Acc", "{\"id\": 1, \"title\": \"a\", \"total\": 2}");
    b = map_text(schema, "Acc", "{\"id\": 1, \"title\": \"b\", \"total\": 5}");
    CHECK(strata_model_merge(a, b, &err) == 0);
    CHECK(err.code == STRATA_OK);
    CHECK_DICT(a, "{\"id\": 1, \"title\": \"b\", \"total\": 7}");
    CHECK(sum.calls == 1);
    CHECK_DICT(b, "{\"id\": 1, \"title\": \"b\", \"total\": 5}");
    strata_model_decref(b);

    /* the incoming side absent: the merger is not called, the value stays */
    b = map_text(schema, "Acc", "{\"title\": \"c\"}");
    CHECK(strata_model_merge(a, b, &err) == 0);
    CHECK(sum.calls == 1);
    CHECK_DICT(a, "{\"id\": 1, \"title\": \"c\", \"total\": 7}");
    strata_model_decref(b);
    strata_model_decref(a);

    /* the current side absent: the merger gets NULL */
    a = map_text(schema, "Acc", "{\"id\": 1}");
    b = map_text(schema, "Acc", "{\"total\": 4}");
    CHECK(strata_model_merge(a, b, &err) == 0);
    CHECK(sum.calls == 2);
    CHECK_DICT(a, "{\"id\": 1, \"total\": 4}");
    strata_model_decref(b);

    /* update merges by policy too: the merger runs */
    CHECK(strata_model_updateb(a, TEXT("{\"total\": 10}"), &err) == 0);
    CHECK_DICT(a, "{\"id\": 1, \"total\": 14}");
    CHECK(sum.calls == 3);

    /* a refusal: a validation error naming the property; nothing changes */
    before = strata_model_dictionary(a, NULL);
    b = map_text(schema, "Acc", "{\"id\": 2, \"title\": \"new\", \"total\": 1, \"locked\": 3}");
    err = fresh_error();
    CHECK(strata_model_merge(a, b, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_VALIDATION);
    CHECK_STR(err.property, "locked");
    CHECK_STR(err.model, "Acc");
    CHECK_CONTAINS(err.message, "vetoed by the host");
    after = strata_model_dictionary(a, NULL);
    CHECK(json_equal(before, after));
    json_decref(after);
    strata_model_decref(b);

    /* a result of the wrong type: an error naming the property; nothing changes */
    b = map_text(schema, "Acc", "{\"id\": 3, \"odd\": 1}");
    err = fresh_error();
    CHECK(strata_model_merge(a, b, &err) == -1);
    CHECK(err.code != STRATA_OK);
    CHECK_STR(err.property, "odd");
    after = strata_model_dictionary(a, NULL);
    CHECK(json_equal(before, after));
    json_decref(after);
    strata_model_decref(b);

    /* the same through update: all or nothing */
    err = fresh_error();
    CHECK(strata_model_updateb(a, TEXT("{\"title\": \"t\", \"locked\": 1}"), &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_VALIDATION);
    after = strata_model_dictionary(a, NULL);
    CHECK(json_equal(before, after));
    json_decref(after);
    json_decref(before);
    strata_model_decref(a);

    CHECK(sum.releases == 0);
    strata_schema_decref(schema);
    CHECK(sum.releases == 1);
}

/* ------------------------------------------------------------------------ */
/* strata_model_get_date                                                      */

static void test_get_date(void) {
    strata_schema_t *schema = load_text(
        NULL, "{\"strata\": 1, \"models\": {\"E\": {\"properties\": {"
              "\"at\": {\"type\": \"date\"},"
              "\"maybe\": {\"type\": \"date?\"},"
              "\"unix\": {\"type\": \"date\", \"format\": \"unix\"},"
              "\"name\": {\"type\": \"string\"}"
              "}}}}");
    strata_model_t *m;
    strata_error_t err = fresh_error();
    int64_t seconds = 0;
    int32_t nanoseconds = 0;
    json_t *value;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }

    m = map_text(schema, "E", "{\"at\": \"2013-07-02T18:40:00.123456789+02:00\", \"maybe\": null,"
                              " \"unix\": 1000.5, \"name\": \"x\"}");
    CHECK(m != NULL);
    CHECK(strata_model_get_date(m, "at", &seconds, &nanoseconds, &err) == 1);
    CHECK(err.code == STRATA_OK);
    CHECK(seconds == 1372783200);
    CHECK(nanoseconds == 123456789);
    value = strata_model_get(m, "at", NULL);
    CHECK_JSON(value, "\"2013-07-02T16:40:00.123456789Z\"");
    json_decref(value);

    CHECK(strata_model_get_date(m, "unix", &seconds, &nanoseconds, &err) == 1);
    CHECK(seconds == 1000);
    CHECK(nanoseconds == 500000000);

    /* null: 0 */
    seconds = 77;
    CHECK(strata_model_get_date(m, "maybe", &seconds, &nanoseconds, &err) == 0);
    CHECK(err.code == STRATA_OK);
    strata_model_decref(m);

    /* absent: 0 */
    m = map_text(schema, "E", "{\"at\": \"1969-12-31T23:59:59.25Z\"}");
    CHECK(strata_model_get_date(m, "maybe", &seconds, &nanoseconds, &err) == 0);
    CHECK(strata_model_get_date(m, "unix", &seconds, &nanoseconds, &err) == 0);
    CHECK(err.code == STRATA_OK);

    /* before 1970: negative seconds, nanoseconds in 0..999999999 */
    CHECK(strata_model_get_date(m, "at", &seconds, &nanoseconds, &err) == 1);
    CHECK(seconds == -1);
    CHECK(nanoseconds == 250000000);
    strata_model_decref(m);

    m = map_text(schema, "E", "{\"at\": \"0001-01-01T00:00:00Z\", \"name\": \"x\"}");
    CHECK(strata_model_get_date(m, "at", &seconds, &nanoseconds, &err) == 1);
    CHECK(seconds == INT64_C(-62135596800));
    CHECK(nanoseconds == 0);

    /* not a date property, no such property: -1, argument */
    err = fresh_error();
    CHECK(strata_model_get_date(m, "name", &seconds, &nanoseconds, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_get_date(m, "nope", &seconds, &nanoseconds, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);

    /* NULL pointers */
    err = fresh_error();
    CHECK(strata_model_get_date(NULL, "at", &seconds, &nanoseconds, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_get_date(m, NULL, &seconds, &nanoseconds, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_get_date(m, "at", NULL, &nanoseconds, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_get_date(m, "at", &seconds, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_get_date(m, "at", NULL, NULL, NULL) == -1);
    CHECK(strata_model_get_date(NULL, NULL, NULL, NULL, NULL) == -1);
    CHECK(strata_model_get_date(m, "at", &seconds, &nanoseconds, NULL) == 1);
    strata_model_decref(m);
    strata_schema_decref(schema);
}

/* ------------------------------------------------------------------------ */
/* strata_model_merge, strata_model_update, strata_model_updateb              */

static const char *MERGE_SCHEMA =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {"
    "  \"id\": {\"type\": \"int\", \"required\": true}, \"login\": {\"type\": \"string\"},"
    "  \"name\": {\"type\": \"string?\"}}},"
    "\"Issue\": {\"keys\": \"snake_case\", \"properties\": {"
    "  \"number\": {\"type\": \"int\", \"required\": true},"
    "  \"title\": {\"type\": \"string\"},"
    "  \"body\": {\"type\": \"string?\"},"
    "  \"score\": {\"type\": \"int\", \"merge\": \"max\", \"validate\": {\"min\": 0}},"
    "  \"tags\": {\"type\": \"[string]\", \"merge\": \"append\"},"
    "  \"reviewer\": {\"type\": \"User?\", \"merge\": \"merge\"},"
    "  \"createdAt\": {\"type\": \"date\"}}},"
    "\"Big\": {\"extends\": \"Issue\", \"properties\": {\"extra\": {\"type\": \"string\"}}}"
    "}}";

static void check_unchanged(int line, strata_model_t *model, const json_t *before) {
    json_t *after = strata_model_dictionary(model, NULL);
    checks_run++;
    if (after == NULL || !json_equal((json_t *)before, after)) {
        char *a = check_dump(after), *b = check_dump(before);
        check_failure_at(__FILE__, line);
        fprintf(stderr, "the model changed: %s, was %s\n", a, b);
        free(a);
        free(b);
    }
    json_decref(after);
}

#define CHECK_UNCHANGED(model, before) check_unchanged(__LINE__, (model), (before))

static void test_merge(void) {
    strata_schema_t *schema = load_text(NULL, MERGE_SCHEMA);
    strata_schema_t *twin = load_text(NULL, MERGE_SCHEMA);
    strata_model_t *a, *b, *c, *big, *user;
    strata_error_t err = fresh_error();
    json_t *before;
    if (schema == NULL || twin == NULL) {
        CHECK(schema != NULL && twin != NULL);
        strata_schema_decref(schema);
        strata_schema_decref(twin);
        return;
    }

    /* success, by policy */
    a = map_text(schema, "Issue", "{\"number\": 1, \"title\": \"a\", \"score\": 5, \"tags\": [\"x\"],"
                                  " \"reviewer\": {\"id\": 1, \"login\": \"ann\"}}");
    b = map_text(schema, "Issue", "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 3,"
                                  " \"tags\": [\"y\"], \"reviewer\": {\"id\": 1, \"name\": \"Ann\"}}");
    CHECK(strata_model_merge(a, b, &err) == 0);
    CHECK(err.code == STRATA_OK);
    CHECK(strata_errors() == NULL);
    CHECK_DICT(a, "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 5, \"tags\": [\"x\", \"y\"],"
                  " \"reviewer\": {\"id\": 1, \"login\": \"ann\", \"name\": \"Ann\"}}");
    /* the other model is borrowed and unchanged */
    CHECK_DICT(b, "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 3, \"tags\": [\"y\"],"
                  " \"reviewer\": {\"id\": 1, \"name\": \"Ann\"}}");

    /* nested models are never changed in place: b's reviewer was taken by c, then c merged again */
    c = map_text(schema, "Issue", "{\"number\": 2}");
    CHECK(strata_model_merge(c, b, NULL) == 0);
    CHECK(strata_model_merge(c, a, NULL) == 0);
    CHECK_DICT(b, "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 3, \"tags\": [\"y\"],"
                  " \"reviewer\": {\"id\": 1, \"name\": \"Ann\"}}");
    CHECK_DICT(c, "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 5, \"tags\": [\"y\", \"x\", \"y\"],"
                  " \"reviewer\": {\"id\": 1, \"name\": \"Ann\", \"login\": \"ann\"}}");
    strata_model_decref(c);

    /* a model merged into itself: append doubles, the rest stays */
    c = strata_model_copy(b);
    CHECK(strata_model_merge(c, c, &err) == 0);
    CHECK_DICT(c, "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 3, \"tags\": [\"y\", \"y\"],"
                  " \"reviewer\": {\"id\": 1, \"name\": \"Ann\"}}");
    strata_model_decref(c);

    /* along extends, both ways */
    big = map_text(schema, "Big", "{\"number\": 9, \"title\": \"big\", \"extra\": \"e\", \"tags\": [\"z\"]}");
    c = strata_model_copy(a);
    CHECK(strata_model_merge(c, big, &err) == 0);
    CHECK_DICT(c, "{\"number\": 9, \"title\": \"big\", \"body\": null, \"score\": 5, \"tags\": [\"x\", \"y\", \"z\"],"
                  " \"reviewer\": {\"id\": 1, \"login\": \"ann\", \"name\": \"Ann\"}}");
    CHECK_STR(strata_model_name(c), "Issue");
    strata_model_decref(c);
    CHECK(strata_model_merge(big, b, &err) == 0);
    CHECK_DICT(big, "{\"number\": 1, \"title\": \"b\", \"body\": null, \"score\": 3, \"tags\": [\"z\", \"y\"],"
                    " \"reviewer\": {\"id\": 1, \"name\": \"Ann\"}, \"extra\": \"e\"}");
    CHECK_STR(strata_model_name(big), "Big");

    /* unrelated models: argument, unchanged */
    user = map_text(schema, "User", "{\"id\": 1, \"login\": \"x\"}");
    before = strata_model_dictionary(a, NULL);
    err = fresh_error();
    CHECK(strata_model_merge(a, user, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK_UNCHANGED(a, before);
    err = fresh_error();
    CHECK(strata_model_merge(user, a, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);

    /* models of two schemas (two loads of one document): argument, unchanged */
    c = map_text(twin, "Issue", "{\"number\": 1, \"title\": \"twin\"}");
    err = fresh_error();
    CHECK(strata_model_merge(a, c, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK_UNCHANGED(a, before);
    strata_model_decref(c);

    /* NULL arguments */
    err = fresh_error();
    CHECK(strata_model_merge(NULL, b, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_merge(a, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK_UNCHANGED(a, before);
    CHECK(strata_model_merge(NULL, NULL, NULL) == -1);
    CHECK(strata_model_merge(a, NULL, NULL) == -1);

    /* a success after failures clears strata_errors() */
    CHECK(strata_model_merge(a, a, &err) == 0);
    CHECK(err.code == STRATA_OK);
    CHECK(strata_errors() == NULL);

    json_decref(before);
    strata_model_decref(user);
    strata_model_decref(big);
    strata_model_decref(b);
    strata_model_decref(a);
    strata_schema_decref(twin);
    strata_schema_decref(schema);
}

static void test_update(void) {
    strata_schema_t *schema = load_text(NULL, MERGE_SCHEMA);
    strata_model_t *a;
    strata_error_t err = fresh_error();
    json_t *before, *upd, *leaf, *errors;
    size_t leaf_refs;
    if (schema == NULL) {
        CHECK(schema != NULL);
        return;
    }
    a = map_text(schema, "Issue", "{\"number\": 1, \"title\": \"a\", \"body\": \"b\", \"score\": 5,"
                                  " \"reviewer\": {\"id\": 1, \"login\": \"ann\"}}");

    /* success: present keys only, null clears, nested partial where policy is merge */
    upd = parse("{\"title\": \"new title\", \"body\": null, \"reviewer\": {\"name\": \"Ann\"},"
                " \"created_at\": \"2020-01-01T01:00:00+01:00\"}");
    leaf = json_object_get(upd, "title");
    leaf_refs = leaf->refcount;
    CHECK(strata_model_update(a, upd, &err) == 0);
    CHECK(err.code == STRATA_OK);
    CHECK_DICT(a, "{\"number\": 1, \"title\": \"new title\", \"body\": null, \"score\": 5,"
                  " \"reviewer\": {\"id\": 1, \"login\": \"ann\", \"name\": \"Ann\"},"
                  " \"createdAt\": \"2020-01-01T00:00:00Z\"}");
    CHECK(upd->refcount == 1); /* borrowed */

    /* updateb */
    CHECK(strata_model_updateb(a, TEXT("{\"title\": null, \"tags\": [\"t\"], \"score\": 9}"), &err) == 0);
    CHECK_DICT(a, "{\"number\": 1, \"body\": null, \"score\": 9, \"tags\": [\"t\"],"
                  " \"reviewer\": {\"id\": 1, \"login\": \"ann\", \"name\": \"Ann\"},"
                  " \"createdAt\": \"2020-01-01T00:00:00Z\"}");
    /* the title leaf shared with the model was released when the title was cleared */
    CHECK(leaf->refcount == leaf_refs);
    json_decref(upd);

    /* errors: every one reported, the model unchanged */
    before = strata_model_dictionary(a, NULL);
    upd = parse("{\"title\": 5, \"score\": -1, \"reviewer\": {\"login\": 7}, \"body\": \"fine\"}");
    err = fresh_error();
    CHECK(strata_model_update(a, upd, &err) == -1);
    CHECK(err.count == 3);
    CHECK_FAILED(err, err.code);
    errors = strata_errors();
    CHECK(json_array_size(errors) == 3);
    json_decref(errors);
    CHECK_UNCHANGED(a, before);
    CHECK(upd->refcount == 1);
    json_decref(upd);

    /* updateb: malformed text is a syntax error; the model unchanged */
    err = fresh_error();
    CHECK(strata_model_updateb(a, TEXT("{\"title\": "), &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_SYNTAX);
    CHECK_UNCHANGED(a, before);
    err = fresh_error();
    CHECK(strata_model_updateb(a, TEXT("{\"score\": \"x\"}"), &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_TYPE);
    CHECK_STR(err.path, "/score");
    CHECK_UNCHANGED(a, before);
    /* not an object */
    err = fresh_error();
    CHECK(strata_model_updateb(a, TEXT("[1]"), &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_TYPE);
    CHECK_UNCHANGED(a, before);
    /* a replace-policy nested object would need to be complete; here merge: partial is fine */
    CHECK(strata_model_updateb(a, TEXT("{\"reviewer\": {\"login\": \"annie\"}}"), &err) == 0);

    /* NULL arguments */
    upd = parse("{\"title\": \"x\"}");
    err = fresh_error();
    CHECK(strata_model_update(NULL, upd, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_update(a, NULL, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_updateb(NULL, "{}", 2, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    err = fresh_error();
    CHECK(strata_model_updateb(a, NULL, 2, &err) == -1);
    CHECK_FAILED(err, STRATA_ERROR_ARGUMENT);
    CHECK(strata_model_update(NULL, NULL, NULL) == -1);
    CHECK(strata_model_updateb(NULL, NULL, 0, NULL) == -1);
    CHECK(strata_model_update(a, upd, NULL) == 0);
    CHECK(upd->refcount == 1);
    json_decref(upd);
    {
        json_t *title = strata_model_get(a, "title", NULL);
        CHECK_JSON(title, "\"x\"");
        json_decref(title);
    }

    json_decref(before);
    strata_model_decref(a);
    strata_schema_decref(schema);
}

/* ------------------------------------------------------------------------ */

static const struct check_test tests[] = {
    {"builder_transformers", test_builder_transformers},
    {"builder_loads", test_builder_loads},
    {"payload_release", test_payload_release},
    {"builder_refusals", test_builder_refusals},
    {"custom_mergers", test_custom_mergers},
    {"get_date", test_get_date},
    {"merge", test_merge},
    {"update", test_update},
};

int main(int argc, char **argv) {
    return check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
