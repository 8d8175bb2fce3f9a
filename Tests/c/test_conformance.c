/*
 * test_conformance.c - runs the language-neutral cases of Tests/conformance
 * through the C API, as Tests/conformance/README.md says.
 *
 * Usage: test_conformance [DIR-or-FILE...]
 *   Without arguments it reads STRATA_CONFORMANCE_DIR (a compile definition).
 *   Each failing case is printed as `file:name` with expected and actual;
 *   the last line is `N passed, N failed`. Exit status 1 on any failure.
 *
 * Environment: STRATA_CASE=substring runs only cases whose `file:name`
 * contains it; STRATA_VERBOSE=1 prints every case.
 */
#define _POSIX_C_SOURCE 200809L

#include <strata.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"

#ifndef STRATA_CONFORMANCE_DIR
#define STRATA_CONFORMANCE_DIR "Tests/conformance"
#endif

static int passed, failed;
static int verbose;
static const char *case_filter;

/* ------------------------------------------------------------------------ */
/* Reporting                                                                  */

static char *dump(const json_t *json) {
    if (json == NULL)
        return strdup("(none)");
    return json_dumps(json, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
}

/* A failing case: `file:name`, then indented lines of detail. */
static int case_failed_already;
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void fail(const char *file, const char *name, const char *fmt, ...) {
    va_list ap;
    if (!case_failed_already) {
        printf("FAIL %s:%s\n", file, name);
        case_failed_already = 1;
    }
    printf("    ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void fail_values(const char *file, const char *name, const char *what,
                        const json_t *expected, const json_t *actual) {
    char *e = dump(expected), *a = dump(actual);
    fail(file, name, "%s: expected %s", what, e);
    printf("    %*s  actual   %s\n", (int)strlen(what), "", a);
    free(e);
    free(a);
}

/* ------------------------------------------------------------------------ */
/* Error lists: multisets of (path, code, model, property [, message]).       */

static const char *str_member(const json_t *obj, const char *key) {
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static int compare_errors(const void *pa, const void *pb) {
    const json_t *a = *(const json_t *const *)pa, *b = *(const json_t *const *)pb;
    const char *keys[] = {"path", "code", "model", "property"};
    size_t i;
    for (i = 0; i < 4; i++) {
        int c = strcmp(str_member(a, keys[i]), str_member(b, keys[i]));
        if (c != 0)
            return c;
    }
    return 0;
}

/* Does the actual error satisfy the expected entry? path and code always;
   model, property when the entry gives them; message as a substring. */
static int error_matches(const json_t *expected, const json_t *actual) {
    const char *optional[] = {"model", "property"};
    size_t i;
    if (strcmp(str_member(expected, "path"), str_member(actual, "path")) != 0)
        return 0;
    if (strcmp(str_member(expected, "code"), str_member(actual, "code")) != 0)
        return 0;
    for (i = 0; i < 2; i++) {
        if (json_object_get(expected, optional[i]) != NULL &&
            strcmp(str_member(expected, optional[i]), str_member(actual, optional[i])) != 0)
            return 0;
    }
    if (json_object_get(expected, "message") != NULL &&
        strstr(str_member(actual, "message"), str_member(expected, "message")) == NULL)
        return 0;
    return 1;
}

/* Kuhn's augmenting paths: can expected[e] take an actual error? */
static int try_match(size_t e, size_t n, const unsigned char *ok, size_t *owner,
                     unsigned char *seen) {
    size_t a;
    for (a = 0; a < n; a++) {
        if (!ok[e * n + a] || seen[a])
            continue;
        seen[a] = 1;
        if (owner[a] == (size_t)-1 || try_match(owner[a], n, ok, owner, seen)) {
            owner[a] = e;
            return 1;
        }
    }
    return 0;
}

static json_t *sorted_copy(const json_t *list) {
    size_t n = json_array_size(list), i;
    json_t **items = calloc(n ? n : 1, sizeof *items);
    json_t *out = json_array();
    for (i = 0; i < n; i++)
        items[i] = json_array_get(list, i);
    qsort(items, n, sizeof *items, compare_errors);
    for (i = 0; i < n; i++)
        json_array_append(out, items[i]);
    free(items);
    return out;
}

/* Expected and actual as multisets: both sorted by (path, code, model,
   property) and compared entry by entry; where optional fields leave the
   order open, any one-to-one matching will do. */
static int errors_equal(const json_t *expected_list, const json_t *actual_list) {
    json_t *expected = sorted_copy(expected_list), *actual = sorted_copy(actual_list);
    size_t n = json_array_size(expected), i, e;
    int equal = 1;
    if (n != json_array_size(actual)) {
        equal = 0;
    } else {
        for (i = 0; i < n; i++)
            if (!error_matches(json_array_get(expected, i), json_array_get(actual, i)))
                break;
        if (i < n) {
            unsigned char *ok = calloc(n * n, 1), *seen = malloc(n);
            size_t *owner = malloc(n * sizeof *owner);
            for (e = 0; e < n; e++)
                for (i = 0; i < n; i++)
                    ok[e * n + i] = (unsigned char)error_matches(json_array_get(expected, e),
                                                                 json_array_get(actual, i));
            for (i = 0; i < n; i++)
                owner[i] = (size_t)-1;
            for (e = 0; e < n && equal; e++) {
                memset(seen, 0, n);
                if (!try_match(e, n, ok, owner, seen))
                    equal = 0;
            }
            free(ok);
            free(seen);
            free(owner);
        }
    }
    json_decref(expected);
    json_decref(actual);
    return equal;
}

static void check_errors(const char *file, const char *name, const char *what,
                         const json_t *expected, const strata_error_t *err) {
    json_t *actual = strata_errors();
    json_t *sorted_expected = sorted_copy(expected), *sorted_actual = NULL;
    if (actual == NULL) {
        fail_values(file, name, what, sorted_expected, NULL);
    } else {
        sorted_actual = sorted_copy(actual);
        if (!errors_equal(expected, actual))
            fail_values(file, name, what, sorted_expected, sorted_actual);
        if (err->count != json_array_size(actual))
            fail(file, name, "error.count is %zu but strata_errors() holds %zu", err->count,
                 json_array_size(actual));
    }
    json_decref(sorted_expected);
    json_decref(sorted_actual);
    json_decref(actual);
}

static void report_unexpected_failure(const char *file, const char *name, const char *what) {
    json_t *errors = strata_errors();
    char *d = dump(errors);
    fail(file, name, "%s failed: %s", what, d);
    free(d);
    json_decref(errors);
}

/* Diff and patch, archives, compatibility: the keys of those cases. */
#include "conformance_semantics.h"
/* Merge and update: the keys mergeWith, mergeModel, update. */
#include "conformance_merge.h"
/* Response envelopes: the keys response, records, metadata. */
#include "conformance_responses.h"
#include "conformance_graph.h"
/* JSON lines: the keys lines, linesHex, maxLineLength, records, lineErrors. */
#include "conformance_lines.h"

/* ------------------------------------------------------------------------ */
/* One case                                                                   */

/* The byte parser (strata_mapb, strata_map_manyb) against the DOM path
 * (json_loadb, then strata_map or strata_map_many) on the case's text: the
 * same models (dictionary and JSON) or the same first error and count. */
static void check_byte_paths(const char *file, const char *name, strata_schema_t *schema, const char *model_name,
                             int many, const json_t *input, const json_t *input_text) {
    char *owned = NULL;
    const char *text;
    size_t length, i, count_b = 0, count_d = 0;
    strata_error_t err_b, err_d;
    strata_model_t *one_b = NULL, *one_d = NULL, **many_b = NULL, **many_d = NULL;
    json_t *dom;
    int ok_b, ok_d;

    if (model_name == NULL)
        return;
    if (input != NULL) {
        owned = json_dumps(input, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (owned == NULL)
            return;
        text = owned;
        length = strlen(owned);
    } else if (json_is_string(input_text)) {
        text = json_string_value(input_text);
        length = json_string_length(input_text);
    } else {
        return;
    }
    dom = json_loadb(text, length, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (dom == NULL) { /* a syntax error: both paths are jansson's then */
        free(owned);
        return;
    }
    memset(&err_b, 0, sizeof err_b);
    memset(&err_d, 0, sizeof err_d);
    if (many) {
        many_b = strata_map_manyb(schema, model_name, text, length, &count_b, &err_b);
        many_d = strata_map_many(schema, model_name, dom, &count_d, &err_d);
        ok_b = many_b != NULL;
        ok_d = many_d != NULL;
    } else {
        one_b = strata_mapb(schema, model_name, text, length, &err_b);
        one_d = strata_map(schema, model_name, dom, &err_d);
        ok_b = one_b != NULL;
        ok_d = one_d != NULL;
    }
    if (ok_b != ok_d) {
        fail(file, name, "byte paths: the parser %s what the DOM path %s", ok_b ? "mapped" : "refused",
             ok_d ? "mapped" : "refused");
    } else if (!ok_b) {
        if (err_b.code != err_d.code || err_b.count != err_d.count || strcmp(err_b.path, err_d.path) != 0 ||
            strcmp(err_b.message, err_d.message) != 0)
            fail(file, name, "byte paths: errors differ: %s %s vs %s %s", err_b.path, err_b.message, err_d.path,
                 err_d.message);
    } else {
        size_t n = many ? count_b : 1;
        if (many && count_b != count_d)
            fail(file, name, "byte paths: %zu models vs %zu", count_b, count_d);
        for (i = 0; i < n && i < (many ? count_d : 1); i++) {
            strata_model_t *b = many ? many_b[i] : one_b, *d = many ? many_d[i] : one_d;
            json_t *db = strata_model_dictionary(b, NULL), *dd = strata_model_dictionary(d, NULL);
            json_t *jb = strata_model_to_json(b, NULL), *jd = strata_model_to_json(d, NULL);
            if (!json_equal(db, dd) || !json_equal(jb, jd))
                fail(file, name, "byte paths: model %zu differs", i);
            json_decref(db);
            json_decref(dd);
            json_decref(jb);
            json_decref(jd);
        }
    }
    for (i = 0; many_b != NULL && i < count_b; i++)
        strata_model_decref(many_b[i]);
    for (i = 0; many_d != NULL && i < count_d; i++)
        strata_model_decref(many_d[i]);
    strata_free(many_b);
    strata_free(many_d);
    strata_model_decref(one_b);
    strata_model_decref(one_d);
    json_decref(dom);
    free(owned);
}

static void run_case(const char *file, const json_t *file_schema, strata_schema_t *loaded_schema,
                     const json_t *file_schema_errors, const json_t *c, size_t index) {
    char fallback_name[32];
    const char *name = json_string_value(json_object_get(c, "name"));
    const json_t *case_schema_doc = json_object_get(c, "schema");
    const json_t *schema_name = json_object_get(c, "schemaName");
    const json_t *schema_errors = json_object_get(c, "schemaErrors");
    const json_t *errors = json_object_get(c, "errors");
    const json_t *dictionary = json_object_get(c, "dictionary");
    const json_t *json = json_object_get(c, "json");
    const json_t *input = json_object_get(c, "input");
    const json_t *input_text = json_object_get(c, "inputText");
    const char *model_name = json_string_value(json_object_get(c, "model"));
    int many = json_is_true(json_object_get(c, "many"));
    strata_schema_t *schema = NULL;
    strata_error_t err;
    strata_model_t *model = NULL;
    strata_model_t **models = NULL;
    size_t count = 0, i;

    if (name == NULL) {
        snprintf(fallback_name, sizeof fallback_name, "#%zu", index);
        name = fallback_name;
    }
    if (case_filter) {
        char full[1024];
        snprintf(full, sizeof full, "%s:%s", file, name);
        if (strstr(full, case_filter) == NULL)
            return;
    }
    case_failed_already = 0;
    if (schema_name != NULL)
        case_schema_doc = schema_reference(schema_name);

    /* The error codes: the header's numbers, each with its name. */
    if (json_is_object(json_object_get(c, "errorCodes"))) {
        const char *code_name;
        json_t *number;
        int seen = 0, code;
        json_object_foreach((json_t *)json_object_get(c, "errorCodes"), code_name, number) {
            seen++;
            if (strcmp(check_code_name((strata_code_t)json_integer_value(number)), code_name) != 0)
                fail(file, name, "code %s is %d in the case, %s in strata.h", code_name,
                     (int)json_integer_value(number), check_code_name((strata_code_t)json_integer_value(number)));
        }
        for (code = 1; code <= STRATA_ERROR_HTTP; code++)
            seen -= strcmp(check_code_name((strata_code_t)code), "?") != 0;
        if (seen != 0 || strcmp(check_code_name((strata_code_t)(STRATA_ERROR_HTTP + 1)), "?") != 0)
            fail(file, name, "the case and strata.h list different codes");
        goto done;
    }

    /* Graph cases load their own schema (with the case's key injectors). */
    if (json_object_get(c, "graph") != NULL) {
        run_graph_case(file, name, case_schema_doc != NULL ? case_schema_doc : file_schema, c);
        goto done;
    }

    /* The schema: the case's own, or the file's. */
    memset(&err, 0, sizeof err);
    if (case_schema_doc != NULL) {
        schema = strata_schema_load((json_t *)case_schema_doc, &err);
    } else if (file_schema != NULL) {
        schema = strata_schema_incref(loaded_schema);
        if (schema == NULL && schema_errors == NULL) {
            char *d = dump(file_schema_errors);
            fail(file, name, "the file's schema does not load: %s", d);
            free(d);
        }
    } else if (schema_errors == NULL) {
        fail(file, name, "no schema in the case or the file");
    }

    if (schema_errors != NULL) {
        if (schema != NULL) {
            fail_values(file, name, "schemaErrors", schema_errors, NULL);
            fail(file, name, "the schema loaded");
        } else if (case_schema_doc != NULL) {
            check_errors(file, name, "schemaErrors", schema_errors, &err);
        } else {
            /* the file's schema is the one expected to fail */
            if (!errors_equal(schema_errors, file_schema_errors))
                fail_values(file, name, "schemaErrors", schema_errors, file_schema_errors);
        }
        goto done;
    }
    if (schema == NULL) {
        if (case_schema_doc != NULL)
            report_unexpected_failure(file, name, "loading the case's schema");
        goto done;
    }
    if (run_semantic_case(file, name, schema, c))
        goto done; /* unarchive, archiveWith, compareWith */
    if (run_merge_case(file, name, schema, c))
        goto done; /* mergeWith, update */
    if (run_response_case(file, name, schema, c))
        goto done; /* response */
    if (run_lines_case(file, name, schema, c))
        goto done; /* lines, linesHex */
    if (json_is_array(json_object_get(c, "python"))) {
        /* typed Python classes: every expected line appears in the module */
        const json_t *lines = json_object_get(c, "python");
        char *module = strata_schema_codegen_python(schema, NULL, &err);
        if (module == NULL) {
            fail(file, name, "strata_schema_codegen_python failed: %s", err.message);
        } else {
            for (i = 0; i < json_array_size(lines); i++) {
                const char *line = json_string_value(json_array_get(lines, i));
                if (line == NULL || strstr(module, line) == NULL)
                    fail(file, name, "the generated module lacks the line: %s", line ? line : "(not a string)");
            }
            strata_free(module);
        }
        goto done;
    }
    if (model_name == NULL) {
        if (errors || dictionary || json)
            fail(file, name, "the case has no `model`");
        goto done; /* a schema-only case: loading it was the test */
    }
    if (input == NULL && !json_is_string(input_text)) {
        fail(file, name, "the case has neither `input` nor `inputText`");
        goto done;
    }

    check_byte_paths(file, name, schema, model_name, many, input, input_text);

    /* Map. */
    memset(&err, 0, sizeof err);
    if (many) {
        if (input != NULL)
            models = strata_map_many(schema, model_name, (json_t *)input, &count, &err);
        else
            models = strata_map_manyb(schema, model_name, json_string_value(input_text),
                                      json_string_length(input_text), &count, &err);
    } else {
        if (input != NULL)
            model = strata_map(schema, model_name, (json_t *)input, &err);
        else
            model = strata_mapb(schema, model_name, json_string_value(input_text),
                                json_string_length(input_text), &err);
    }
    if (errors != NULL) {
        if (model != NULL || models != NULL) {
            json_t *got = NULL;
            if (model)
                got = strata_model_dictionary(model, NULL);
            fail_values(file, name, "errors", errors, NULL);
            fail_values(file, name, "mapping succeeded with", NULL, got);
            json_decref(got);
        } else {
            check_errors(file, name, "errors", errors, &err);
        }
        goto done;
    }
    if (model == NULL && models == NULL) {
        report_unexpected_failure(file, name, many ? "strata_map_many" : "strata_map");
        goto done;
    }

    /* Compare. */
    if (dictionary != NULL || json != NULL) {
        json_t *dict_actual, *json_actual;
        if (many) {
            dict_actual = json_array();
            json_actual = json_array();
            for (i = 0; i < count; i++) {
                json_array_append_new(dict_actual, strata_model_dictionary(models[i], NULL));
                json_array_append_new(json_actual, strata_model_to_json(models[i], NULL));
            }
        } else {
            dict_actual = strata_model_dictionary(model, NULL);
            json_actual = strata_model_to_json(model, NULL);
        }
        if (dictionary != NULL && !json_equal(dictionary, dict_actual))
            fail_values(file, name, "dictionary", dictionary, dict_actual);
        if (json != NULL && !json_equal(json, json_actual))
            fail_values(file, name, "json", json, json_actual);
        json_decref(dict_actual);
        json_decref(json_actual);
    } else if (!has_semantic_keys(c)) {
        fail(file, name, "the case expects nothing (no dictionary, json, errors or schemaErrors)");
    }
    if (!many && model != NULL)
        check_semantic_keys(file, name, schema, model, c); /* archive, diffFrom, patch, mergePatch */

done:
    if (models != NULL) {
        for (i = 0; i < count; i++)
            strata_model_decref(models[i]);
        strata_free(models);
    }
    strata_model_decref(model);
    strata_schema_decref(schema);
    if (case_failed_already) {
        failed++;
    } else {
        passed++;
        if (verbose)
            printf("ok   %s:%s\n", file, name);
    }
}

/* ------------------------------------------------------------------------ */
/* One file                                                                   */

static void run_file(const char *path) {
    const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    const json_t *file_schema, *cases;
    strata_schema_t *schema = NULL;
    json_t *schema_errors = NULL;
    size_t i;

    if (doc == NULL || !json_is_object(doc) || !json_is_array(json_object_get(doc, "cases"))) {
        case_failed_already = 0;
        fail(file, "(file)", "not a conformance file: %s",
             doc == NULL ? jerr.text : "no `cases` array");
        failed++;
        json_decref(doc);
        return;
    }
    file_schema = json_object_get(doc, "schema");
    cases = json_object_get(doc, "cases");
    current_schemas = json_object_get(doc, "schemas");
    if (file_schema != NULL) {
        strata_error_t err;
        schema = strata_schema_load((json_t *)file_schema, &err);
        if (schema == NULL)
            schema_errors = strata_errors();
    }
    for (i = 0; i < json_array_size(cases); i++)
        run_case(file, file_schema, schema, schema_errors, json_array_get(cases, i), i);
    json_decref(schema_errors);
    strata_schema_decref(schema);
    json_decref(doc);
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *entry;
    char **paths = NULL;
    size_t n = 0, cap = 0, i;
    if (d == NULL) {
        fprintf(stderr, "test_conformance: cannot open %s\n", dir);
        failed++;
        return;
    }
    while ((entry = readdir(d)) != NULL) {
        size_t len = strlen(entry->d_name);
        if (len > 5 && strcmp(entry->d_name + len - 5, ".json") == 0) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                paths = realloc(paths, cap * sizeof *paths);
            }
            paths[n] = malloc(strlen(dir) + len + 2);
            sprintf(paths[n], "%s/%s", dir, entry->d_name);
            n++;
        }
    }
    closedir(d);
    if (n == 0)
        fprintf(stderr, "test_conformance: no *.json cases in %s\n", dir);
    qsort(paths, n, sizeof *paths, compare_strings);
    for (i = 0; i < n; i++) {
        run_file(paths[i]);
        free(paths[i]);
    }
    free(paths);
}

int main(int argc, char **argv) {
    int i;
    const char *v = getenv("STRATA_VERBOSE");
    verbose = v != NULL && *v != '\0' && strcmp(v, "0") != 0;
    case_filter = getenv("STRATA_CASE");
    if (case_filter != NULL && *case_filter == '\0')
        case_filter = NULL;

    if (argc < 2) {
        run_dir(STRATA_CONFORMANCE_DIR);
    } else {
        for (i = 1; i < argc; i++) {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                run_dir(argv[i]);
            else
                run_file(argv[i]);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
