/*
 * check.h - the harness of the C tests (test_api_*.c, test_extensions.c,
 * test_graph_kill.c, test_limits.c, test_null_args.c, test_semantics.c).
 *
 * A failed CHECK prints `file:line: [test] what` to stderr, counts the
 * failure and goes on, so one run shows every broken promise. Each test
 * program is one translation unit: the counters are its own.
 *
 *   CHECK(cond)                      cond is true
 *   CHECK_MSG(cond, fmt, ...)        the same; on failure also prints fmt
 *   CHECK_STR(actual, expected)      a C string equal to `expected` (NULL fails)
 *   CHECK_CONTAINS(text, part)       `part` occurs in the C string `text`
 *   CHECK_JSON(value, text)          a json_t equal (json_equal) to JSON text
 *   CHECK_CODE(err, code)            err.code is `code` (STRATA_OK too); prints
 *                                    the error otherwise
 *   CHECK_CODE_AT(err, code, path)   and err.path is `path`
 *   CHECK_FAILED(err, code)          err.code is `code` and err.count is the
 *                                    length of strata_errors(), at least 1
 *   CHECK_ARG(call_ok)               clears `err` (a strata_error_t in scope),
 *                                    then: call_ok is true, err.code is
 *                                    STRATA_ERROR_ARGUMENT, err.count is 1
 *   CHECK_ERROR_CONSISTENT(err)      a failed call's error is well formed and
 *                                    agrees with strata_errors()
 *   CHECK_HAS_ERROR(errors, path, code, model, property)
 *                                    the strata_errors() array holds that error
 *                                    (model and property: NULL for any)
 *
 * Counters: checks_run, checks_failed (a test may count a failure of its own
 * with checks_failed++ after printing why); current_test names the running
 * test in the messages ("" for none).
 *
 * Ending: check_run_tests(tests, n, argc, argv) runs the tests named on the
 * command line (all without names), prints `ok`/`FAIL` per test and
 * `N tests, N failed; N checks, N failed`, and returns the exit status;
 * check_summary() prints `N checks, N failed` and returns the exit status
 * (for a test that is one main()).
 */
#ifndef STRATA_TESTS_CHECK_H
#define STRATA_TESTS_CHECK_H

#include <strata.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define CHECK_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CHECK_PRINTF(fmt, args)
#endif

static int checks_run;
static int checks_failed;
static const char *current_test = "";

/* Counts a failure and prints `file:line: [test] ` (the start of its message). */
static inline void check_failure_at(const char *file, int line) {
    checks_failed++;
    if (current_test[0] != '\0')
        fprintf(stderr, "%s:%d: [%s] ", file, line, current_test);
    else
        fprintf(stderr, "%s:%d: ", file, line);
}

static inline const char *check_code_name(strata_code_t code) {
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
    case STRATA_ERROR_OOM: return "oom";
    case STRATA_ERROR_PROPERTY: return "property";
    case STRATA_ERROR_HTTP: return "http";
    }
    return "?";
}

/* Compact JSON text of any value ("(NULL)" for NULL); free() it. */
static inline char *check_dump(const json_t *json) {
    const char *fallback = json == NULL ? "(NULL)" : "(not dumpable)";
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER) : NULL;
    if (text == NULL) {
        text = malloc(strlen(fallback) + 1);
        if (text == NULL)
            abort();
        strcpy(text, fallback);
    }
    return text;
}

/* ------------------------------------------------------------------------ */
/* Plain checks                                                               */

#define CHECK(cond) check_true((cond) ? 1 : 0, __FILE__, __LINE__, #cond)

static inline void check_true(int ok, const char *file, int line, const char *what) {
    checks_run++;
    if (!ok) {
        check_failure_at(file, line);
        fprintf(stderr, "CHECK failed: %s\n", what);
    }
}

#define CHECK_MSG(cond, ...) check_true_msg((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

static inline void check_true_msg(int ok, const char *file, int line, const char *what,
                                  const char *format, ...) CHECK_PRINTF(5, 6);
static inline void check_true_msg(int ok, const char *file, int line, const char *what,
                                  const char *format, ...) {
    checks_run++;
    if (!ok) {
        va_list args;
        check_failure_at(file, line);
        fprintf(stderr, "CHECK failed: %s: ", what);
        va_start(args, format);
        vfprintf(stderr, format, args);
        va_end(args);
        fputc('\n', stderr);
    }
}

#define CHECK_STR(actual, expected) check_str((actual), (expected), __FILE__, __LINE__, #actual)

static inline void check_str(const char *actual, const char *expected, const char *file, int line,
                             const char *what) {
    checks_run++;
    if (actual == NULL || strcmp(actual, expected) != 0) {
        check_failure_at(file, line);
        fprintf(stderr, "%s is \"%s\", expected \"%s\"\n", what, actual ? actual : "(null)",
                expected);
    }
}

#define CHECK_CONTAINS(text, part) check_contains((text), (part), __FILE__, __LINE__, #text)

static inline void check_contains(const char *text, const char *part, const char *file, int line,
                                  const char *what) {
    checks_run++;
    if (text == NULL || strstr(text, part) == NULL) {
        check_failure_at(file, line);
        fprintf(stderr, "%s is \"%s\", which lacks \"%s\"\n", what, text ? text : "(null)", part);
    }
}

#define CHECK_JSON(value, text) check_json(__LINE__, #value, (value), (text))

/* `value` equals the JSON text `text` (the file named in the message is the test's). */
#define check_json(line, what, value, text) check_json_at(__FILE__, (line), (what), (value), (text))

static inline void check_json_at(const char *file, int line, const char *what, const json_t *value,
                                 const char *text) {
    json_error_t jerr;
    json_t *expected = json_loads(text, JSON_DECODE_ANY, &jerr);
    checks_run++;
    if (expected == NULL) {
        check_failure_at(file, line);
        fprintf(stderr, "bad expected JSON in the test: %s\n", jerr.text);
        return;
    }
    if (value == NULL || !json_equal(value, expected)) {
        char *actual = check_dump(value);
        check_failure_at(file, line);
        fprintf(stderr, "%s is %s, expected %s\n", what, actual, text);
        free(actual);
    }
    json_decref(expected);
}

/* ------------------------------------------------------------------------ */
/* The strata_error_t of a call                                               */

#define CHECK_CODE(err, code) check_code(&(err), (code), NULL, __FILE__, __LINE__)
#define CHECK_CODE_AT(err, code, path) check_code(&(err), (code), (path), __FILE__, __LINE__)

/* err->code is `expected` (and err->path is `path` when it is not NULL). */
static inline void check_code(const strata_error_t *err, strata_code_t expected, const char *path,
                              const char *file, int line) {
    checks_run++;
    if (err->code != expected || (path != NULL && strcmp(err->path, path) != 0)) {
        check_failure_at(file, line);
        fprintf(stderr,
                "error code %d (%s) at \"%s\", expected %d (%s)%s%s%s; message \"%s\"\n",
                (int)err->code, err->code_name, err->path, (int)expected,
                check_code_name(expected), path ? " at \"" : "", path ? path : "",
                path ? "\"" : "", err->message);
    }
}

#define CHECK_FAILED(err, code) check_failed(&(err), (code), __FILE__, __LINE__)

/* The call failed with `expected`, and err->count is the length of strata_errors(). */
static inline void check_failed(const strata_error_t *err, strata_code_t expected,
                                const char *file, int line) {
    json_t *errors = strata_errors();
    checks_run++;
    if (!(err->code == expected && errors != NULL && json_array_size(errors) == err->count &&
          err->count > 0)) {
        char *d = check_dump(errors);
        check_failure_at(file, line);
        fprintf(stderr,
                "error code %d (%s) count %zu, expected code %d (%s); path \"%s\", "
                "message \"%s\"; strata_errors() %s\n",
                (int)err->code, err->code_name, err->count, (int)expected,
                check_code_name(expected), err->path, err->message, d);
        free(d);
    }
    json_decref(errors);
}

/* `call_ok` (a call given `&err`) holds, with one "argument" error in `err`. */
#define CHECK_ARG(call_ok)                                                               \
    do {                                                                                 \
        memset(&err, 0, sizeof err);                                                     \
        check_arg((call_ok) ? 1 : 0, &err, __FILE__, __LINE__, #call_ok);                \
    } while (0)

static inline void check_arg(int ok, const strata_error_t *err, const char *file, int line,
                             const char *what) {
    checks_run++;
    if (!ok || err->code != STRATA_ERROR_ARGUMENT || err->count != 1) {
        check_failure_at(file, line);
        fprintf(stderr, "%s: code %d (%s) count %zu\n", what, (int)err->code, err->message,
                err->count);
    }
}

/* The text fields of an error are NUL-terminated within their arrays. */
static inline int check_error_terminated(const strata_error_t *err) {
    return memchr(err->code_name, 0, sizeof err->code_name) != NULL &&
           memchr(err->path, 0, sizeof err->path) != NULL &&
           memchr(err->model, 0, sizeof err->model) != NULL &&
           memchr(err->property, 0, sizeof err->property) != NULL &&
           memchr(err->message, 0, sizeof err->message) != NULL;
}

/* A failed call left a well-formed error, consistent with strata_errors():
   the same count, the first error among the list. */
#define CHECK_ERROR_CONSISTENT(err) check_error_consistent(__FILE__, __LINE__, &(err))

static inline void check_error_consistent(const char *file, int line, const strata_error_t *err) {
    json_t *errors = strata_errors();
    size_t i, n;
    int found = 0;
    checks_run++;
    if (!check_error_terminated(err)) {
        check_failure_at(file, line);
        fprintf(stderr, "error fields not NUL-terminated\n");
        json_decref(errors);
        return;
    }
    if (strcmp(err->code_name, check_code_name(err->code)) != 0) {
        check_failure_at(file, line);
        fprintf(stderr, "code_name \"%s\" does not match code %d\n", err->code_name,
                (int)err->code);
    }
    if (errors == NULL || !json_is_array(errors)) {
        check_failure_at(file, line);
        fprintf(stderr, "strata_errors() is not an array after a failed call\n");
        json_decref(errors);
        return;
    }
    n = json_array_size(errors);
    if (n != err->count || n == 0) {
        check_failure_at(file, line);
        fprintf(stderr, "error.count %zu, strata_errors() has %zu\n", err->count, n);
    }
    for (i = 0; i < n; i++) {
        json_t *e = json_array_get(errors, i);
        const char *fields[] = {"path", "model", "property", "code", "message"};
        const char *code, *path;
        size_t f;
        for (f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            if (!json_is_string(json_object_get(e, fields[f]))) {
                check_failure_at(file, line);
                fprintf(stderr, "strata_errors()[%zu].%s is not a string\n", i, fields[f]);
            }
        }
        code = json_string_value(json_object_get(e, "code"));
        path = json_string_value(json_object_get(e, "path"));
        if (strcmp(code ? code : "", err->code_name) == 0 &&
            strncmp(path ? path : "", err->path, strlen(err->path)) == 0)
            found = 1;
    }
    if (!found) {
        check_failure_at(file, line);
        fprintf(stderr, "the first error (%s at \"%s\") is not in strata_errors()\n",
                err->code_name, err->path);
    }
    json_decref(errors);
}

/* True if `errors` (strata_errors()) holds an error with this path and code
   (and model and property, when not NULL). */
static inline int check_has_error(const json_t *errors, const char *path, const char *code,
                                  const char *model, const char *property) {
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
    check_has_error_at(__FILE__, __LINE__, (errors), (path), (code), (model), (property))

static inline void check_has_error_at(const char *file, int line, const json_t *errors,
                                      const char *path, const char *code, const char *model,
                                      const char *property) {
    checks_run++;
    if (!check_has_error(errors, path, code, model, property)) {
        char *d = check_dump(errors);
        check_failure_at(file, line);
        fprintf(stderr, "no %s error at \"%s\" in %s\n", code, path, d);
        free(d);
    }
}

/* ------------------------------------------------------------------------ */
/* Running and the summary                                                    */

struct check_test {
    const char *name;
    void (*run)(void);
};

/* `N checks, N failed`; the exit status: 0 if no check failed, else 1. */
static inline int check_summary(void) {
    printf("%d checks, %d failed\n", checks_run, checks_failed);
    return checks_failed == 0 ? 0 : 1;
}

/* Runs the tests named in argv[1..] (all of them without names), each with
   current_test set; prints `ok` or `FAIL` per test and the totals; returns
   the exit status (1 if any check failed). */
static inline int check_run_tests(const struct check_test *tests, size_t count, int argc,
                                  char **argv) {
    size_t i;
    int tests_failed = 0, tests_run = 0;
    for (i = 0; i < count; i++) {
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
    current_test = "";
    printf("%d tests, %d failed; %d checks, %d failed\n", tests_run, tests_failed, checks_run,
           checks_failed);
    return checks_failed == 0 ? 0 : 1;
}

#endif
