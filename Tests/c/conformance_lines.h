/*
 * conformance_lines.h - the conformance keys of JSON lines
 * (Tests/conformance/README.md, "JSON lines") for test_conformance.c, which
 * includes this file after its reporting helpers (fail, fail_values,
 * errors_equal, report_unexpected_failure).
 *
 * The text of `lines` (or the bytes of `linesHex`) is mapped onto `model`
 * with strata_map_lines() (read in chunks of 1, 7 and 65536 bytes),
 * strata_map_lines_file() (a tmpfile()), strata_lines_feed() in pieces
 * of 3 bytes and strata_lines_feed_array() in pieces of 5 bytes (the last
 * piece with `finish`); each must give `records` (canonical dictionaries, in order) and
 * `lineErrors` ({"line", "errors"} per bad line, in order), every error
 * carrying its "line".
 */

#include "chunk_source.h"

struct lines_collect {
    json_t *records, *bad;
};

static int lines_collect_model(strata_model_t *model, size_t line, void *data) {
    struct lines_collect *c = data;
    (void)line;
    json_array_append_new(c->records, strata_model_dictionary(model, NULL));
    strata_model_decref(model);
    return 0;
}

static int lines_collect_error(const json_t *errors, size_t line, void *data) {
    struct lines_collect *c = data;
    json_t *entry = json_object();
    json_object_set_new(entry, "line", json_integer((json_int_t)line));
    json_object_set(entry, "errors", (json_t *)errors);
    json_array_append_new(c->bad, entry);
    return 0;
}

/* Adds the entries of a strata_lines_feed_array() result to `got` (releasing
   them); 0 when a NULL entry has no error array. */
static int lines_collect_array(struct lines_collect *got, strata_model_t **models, size_t count, json_t *bad) {
    size_t i, next = 0;
    int ok = 1;
    for (i = 0; i < count; i++) {
        if (models[i] != NULL) {
            lines_collect_model(models[i], 0, got);
        } else {
            json_t *errors = json_array_get(bad, next++);
            if (errors == NULL)
                ok = 0;
            else
                lines_collect_error(errors, (size_t)json_integer_value(
                                                json_object_get(json_array_get(errors, 0), "line")),
                                    got);
        }
    }
    if (next != json_array_size(bad))
        ok = 0;
    json_decref(bad);
    strata_free(models);
    return ok;
}


static void check_lines_result(const char *file, const char *name, const char *what, const json_t *c,
                               struct lines_collect *got) {
    const json_t *records = json_object_get(c, "records");
    const json_t *expected = json_object_get(c, "lineErrors");
    size_t i, j;
    if (records != NULL && !json_equal(records, got->records))
        fail_values(file, name, what, records, got->records);
    if (expected == NULL)
        return;
    if (json_array_size(expected) != json_array_size(got->bad)) {
        fail_values(file, name, what, expected, got->bad);
        return;
    }
    for (i = 0; i < json_array_size(expected); i++) {
        json_t *want = json_array_get(expected, i), *have = json_array_get(got->bad, i);
        json_t *errors = json_object_get(have, "errors");
        if (!json_equal(json_object_get(want, "line"), json_object_get(have, "line")) ||
            !errors_equal(json_object_get(want, "errors"), errors))
            fail_values(file, name, what, want, have);
        for (j = 0; j < json_array_size(errors); j++)
            if (!json_equal(json_object_get(json_array_get(errors, j), "line"), json_object_get(have, "line")))
                fail(file, name, "%s: an error of line %d lacks its line", what,
                     (int)json_integer_value(json_object_get(have, "line")));
    }
}

/* Runs a `lines` case; 1 when the case was one. */
static int run_lines_case(const char *file, const char *name, strata_schema_t *schema, const json_t *c) {
    const json_t *text = json_object_get(c, "lines"), *hex = json_object_get(c, "linesHex");
    const char *model_name = json_string_value(json_object_get(c, "model"));
    size_t limit = (size_t)json_integer_value(json_object_get(c, "maxLineLength"));
    static const size_t pieces[] = {1, 7, 65536};
    char *bytes;
    size_t length, i;
    strata_error_t err;
    if (!json_is_string(text) && !json_is_string(hex))
        return 0;
    if (model_name == NULL) {
        fail(file, name, "a lines case needs a model");
        return 1;
    }
    if (json_is_string(text)) {
        length = json_string_length(text);
        bytes = malloc(length + 1);
        memcpy(bytes, json_string_value(text), length);
    } else {
        const char *digits = json_string_value(hex);
        length = strlen(digits) / 2;
        bytes = malloc(length + 1);
        for (i = 0; i < length; i++) {
            unsigned value = 0;
            sscanf(digits + 2 * i, "%2x", &value);
            bytes[i] = (char)value;
        }
    }
    for (i = 0; i < 6; i++) {
        struct lines_collect got = {json_array(), json_array()};
        int64_t made = -1;
        const char *what = "strata_map_lines";
        memset(&err, 0, sizeof err);
        if (i < 3) {
            struct chunk_source source = {bytes, length, 0, pieces[i]};
            made = strata_map_lines(schema, model_name, chunk_source_read, &source, limit, lines_collect_model,
                                    lines_collect_error, &got, &err);
        } else if (i == 3) {
            FILE *f = tmpfile();
            what = "strata_map_lines_file";
            if (f != NULL && fwrite(bytes, 1, length, f) == length) {
                rewind(f);
                made = strata_map_lines_file(schema, model_name, f, limit, lines_collect_model, lines_collect_error,
                                             &got, &err);
            }
            if (f != NULL)
                fclose(f);
        } else if (i == 5) {
            strata_lines_t *lines = strata_lines_new(schema, model_name, limit, &err);
            size_t at = 0;
            what = "strata_lines_feed_array";
            made = lines == NULL ? -1 : 0;
            while (lines != NULL && made >= 0) {
                size_t take = length - at < 5 ? length - at : 5, count = 0, k;
                json_t *bad = NULL;
                int last = at + take == length;
                strata_model_t **models = strata_lines_feed_array(lines, bytes + at, take, last, &count, &bad, &err);
                if (models == NULL) {
                    made = -1;
                    break;
                }
                for (k = 0; k < count; k++)
                    made += models[k] != NULL;
                if (!lines_collect_array(&got, models, count, bad))
                    fail(file, name, "%s: the bad lines do not match the NULL entries", what);
                at += take;
                if (last)
                    break;
            }
            strata_lines_free(lines);
        } else {
            strata_lines_t *lines = strata_lines_new(schema, model_name, limit, &err);
            size_t at = 0;
            int64_t n = 0;
            what = "strata_lines_feed";
            made = 0;
            while (lines != NULL && n >= 0 && at < length) {
                size_t take = length - at < 3 ? length - at : 3;
                n = strata_lines_feed(lines, bytes + at, take, lines_collect_model, lines_collect_error, &got, &err);
                made = n < 0 ? -1 : made + n;
                at += take;
            }
            if (lines != NULL && made >= 0) {
                n = strata_lines_finish(lines, lines_collect_model, lines_collect_error, &got, &err);
                made = n < 0 ? -1 : made + n;
            }
            if (lines == NULL)
                made = -1;
            strata_lines_free(lines);
        }
        if (made < 0)
            report_unexpected_failure(file, name, what);
        else if ((size_t)made != json_array_size(got.records))
            fail(file, name, "%s returned %lld for %zu models", what, (long long)made, json_array_size(got.records));
        check_lines_result(file, name, what, c, &got);
        json_decref(got.records);
        json_decref(got.bad);
    }
    free(bytes);
    return 1;
}
