/*
 * fuzz_common.h - shared by the libFuzzer targets of Tests/fuzz: the fixed
 * schemas (fixtures), invariant checks, and the calls that wait for a later
 * issue (merge, update, diff).
 *
 * A failed invariant prints what broke and calls abort(), so that libFuzzer
 * (or the replay driver) reports it as a crash with the input that caused it.
 */
#ifndef STRATA_FUZZ_COMMON_H
#define STRATA_FUZZ_COMMON_H

#include <strata.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Groups of calls, each switched by one macro. They came with a later issue
   than the first targets (merge/update, diff/patch, archives): a build
   against a libstrata without them sets the macro to 0 (-DSTRATA_FUZZ_HAVE_...=0)
   and every target still builds; with them every target merges, updates,
   diffs, patches and archives what it maps. */
#ifndef STRATA_FUZZ_HAVE_MERGE
#define STRATA_FUZZ_HAVE_MERGE 1 /* strata_model_merge, strata_model_update(b) */
#endif
#ifndef STRATA_FUZZ_HAVE_UPDATE
#define STRATA_FUZZ_HAVE_UPDATE STRATA_FUZZ_HAVE_MERGE
#endif
#ifndef STRATA_FUZZ_HAVE_DIFF
#define STRATA_FUZZ_HAVE_DIFF 1 /* strata_model_diff(_merge), strata_model_(merge_)patch */
#endif
#ifndef STRATA_FUZZ_HAVE_ARCHIVE
#define STRATA_FUZZ_HAVE_ARCHIVE 1 /* strata_model_archive, strata_unarchive(b), strata_schema_compare */
#endif

#ifndef STRATA_FUZZ_DIR
#define STRATA_FUZZ_DIR "Tests/fuzz"
#endif

#define FUZZ_FAIL(...)                                                                   \
    do {                                                                                 \
        fprintf(stderr, "\nstrata fuzz: invariant broken at %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                                    \
        fputc('\n', stderr);                                                             \
        abort();                                                                         \
    } while (0)

#define FUZZ_ASSERT(cond, ...)                                                           \
    do {                                                                                 \
        if (!(cond))                                                                     \
            FUZZ_FAIL(__VA_ARGS__);                                                      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Small helpers.                                                             */

/* True if the open issue `name` is listed in STRATA_KNOWN_ISSUES (comma
   separated): a long run steps over a bug already reported instead of
   stopping at it again. Tests/fuzz/README.md lists the names. */
static inline int fuzz_known(const char *name) {
    const char *list = getenv("STRATA_KNOWN_ISSUES");
    size_t n = strlen(name);
    while (list && *list) {
        if (strncmp(list, name, n) == 0 && (list[n] == ',' || list[n] == '\0'))
            return 1;
        list = strchr(list, ',');
        if (list)
            list++;
    }
    return 0;
}

static inline char *fuzz_dump(const json_t *json) {
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER) : NULL;
    if (text == NULL)
        text = strdup(json ? "(undumpable)" : "(null)");
    return text;
}

static inline int fuzz_valid_utf8(const char *s) {
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

/* The error of a failed call is well formed and agrees with strata_errors(). */
static inline void fuzz_check_failure(const strata_error_t *err, int input_was_utf8) {
    json_t *errors = strata_errors();
    size_t i;
    FUZZ_ASSERT(err->code != STRATA_OK, "a failed call left code 0");
    FUZZ_ASSERT(err->count >= 1, "a failed call counts %zu errors", err->count);
    FUZZ_ASSERT(memchr(err->code_name, 0, sizeof err->code_name) &&
                    memchr(err->path, 0, sizeof err->path) &&
                    memchr(err->model, 0, sizeof err->model) &&
                    memchr(err->property, 0, sizeof err->property) &&
                    memchr(err->message, 0, sizeof err->message),
                "strata_error_t fields not NUL-terminated");
    if (input_was_utf8)
        FUZZ_ASSERT(fuzz_valid_utf8(err->path) && fuzz_valid_utf8(err->message) &&
                        fuzz_valid_utf8(err->model) && fuzz_valid_utf8(err->property),
                    "strata_error_t text is not UTF-8 (cut inside a character?)");
    FUZZ_ASSERT(errors != NULL && json_is_array(errors), "strata_errors() is not an array after a failure");
    FUZZ_ASSERT(json_array_size(errors) == err->count, "error.count %zu, strata_errors() has %zu", err->count,
                json_array_size(errors));
    for (i = 0; i < json_array_size(errors); i++) {
        json_t *e = json_array_get(errors, i);
        FUZZ_ASSERT(json_is_string(json_object_get(e, "path")) && json_is_string(json_object_get(e, "code")) &&
                        json_is_string(json_object_get(e, "model")) &&
                        json_is_string(json_object_get(e, "property")) &&
                        json_is_string(json_object_get(e, "message")),
                    "strata_errors()[%zu] lacks a string field", i);
    }
    if (strcmp(err->code_name, json_string_value(json_object_get(json_array_get(errors, 0), "code"))) != 0)
        FUZZ_FAIL("error.code_name %s is not the first error's code", err->code_name);
    json_decref(errors);
}

static inline void fuzz_check_success(const strata_error_t *err) {
    json_t *errors = strata_errors();
    FUZZ_ASSERT(err->code == STRATA_OK && err->count == 0, "a successful call left code %d", (int)err->code);
    FUZZ_ASSERT(errors == NULL, "strata_errors() not cleared by a successful call");
}

/* ------------------------------------------------------------------------ */
/* Fixtures: Tests/fuzz/schemas/NAME.json = {"schema": ..., "inputs": [{"model": M, "input": V}...]} */

struct fuzz_fixture {
    char name[64];
    json_t *doc;              /* the schema document */
    strata_schema_t *schema;  /* loaded once; the fixture holds this reference */
    json_t *inputs;           /* array of {"model", "input"} */
    size_t model_count;
};

static struct fuzz_fixture fuzz_fixtures[64] __attribute__((unused));
static size_t fuzz_fixture_count __attribute__((unused));

static inline int fuzz_compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline const char *fuzz_dir(void) {
    const char *dir = getenv("STRATA_FUZZ_DIR");
    return dir && *dir ? dir : STRATA_FUZZ_DIR;
}

/* Hooks run at exit before the fixtures go (fuzz_map's canned models). */
static void (*fuzz_before_unload)(void) __attribute__((unused));

/* Releases the fixtures at exit. LeakSanitizer checks after this runs (its
   own atexit handler was registered first): a schema still alive at exit is
   reported as leaked because Swift keeps enum tags in the spare bits of the
   pointers to indirect enum payloads, where LeakSanitizer's pointer scan
   does not recognize them. Releasing everything first avoids those false
   reports and checks that releasing works. */
static inline void fuzz_unload_fixtures(void) {
    size_t i;
    if (fuzz_before_unload)
        fuzz_before_unload();
    for (i = 0; i < fuzz_fixture_count; i++) {
        strata_schema_decref(fuzz_fixtures[i].schema);
        json_decref(fuzz_fixtures[i].doc);
        json_decref(fuzz_fixtures[i].inputs);
    }
    fuzz_fixture_count = 0;
}

/* Loads every fixture, in name order. Exits if there is none: a fuzz target
   without its schemas would fuzz nothing. */
static inline void fuzz_load_fixtures(void) {
    char path[4096];
    char *names[64];
    size_t n = 0, i;
    DIR *d;
    struct dirent *entry;
    if (fuzz_fixture_count > 0)
        return;
    snprintf(path, sizeof path, "%s/schemas", fuzz_dir());
    d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "strata fuzz: cannot open %s (set STRATA_FUZZ_DIR to Tests/fuzz)\n", path);
        exit(2);
    }
    while ((entry = readdir(d)) != NULL && n < 64) {
        size_t len = strlen(entry->d_name);
        if (len > 5 && len < 60 && strcmp(entry->d_name + len - 5, ".json") == 0)
            names[n++] = strdup(entry->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], fuzz_compare_names);
    for (i = 0; i < n; i++) {
        struct fuzz_fixture *f = &fuzz_fixtures[fuzz_fixture_count];
        json_error_t jerr;
        strata_error_t err;
        json_t *file;
        snprintf(path, sizeof path, "%s/schemas/%s", fuzz_dir(), names[i]);
        file = json_load_file(path, JSON_ALLOW_NUL, &jerr);
        if (file == NULL) {
            fprintf(stderr, "strata fuzz: %s: %s\n", path, jerr.text);
            exit(2);
        }
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        f->doc = json_incref(json_object_get(file, "schema"));
        f->inputs = json_incref(json_object_get(file, "inputs"));
        if (f->inputs == NULL)
            f->inputs = json_array();
        json_decref(file);
        f->schema = f->doc ? strata_schema_load(f->doc, &err) : NULL;
        if (f->schema == NULL) {
            /* a fixture the engine refuses (a feature not there yet): skipped, said once */
            fprintf(stderr, "strata fuzz: fixture %s does not load (%s at %s: %s): skipped\n", f->name,
                    err.code_name, err.path, err.message);
            json_decref(f->doc);
            json_decref(f->inputs);
            free(names[i]);
            continue;
        }
        f->model_count = strata_schema_model_count(f->schema);
        fuzz_fixture_count++;
        free(names[i]);
    }
    if (fuzz_fixture_count == 0) {
        fprintf(stderr, "strata fuzz: no fixture in %s/schemas\n", fuzz_dir());
        exit(2);
    }
    atexit(fuzz_unload_fixtures);
}

/* A fixture by name, or by a number when no name matches. */
static inline struct fuzz_fixture *fuzz_fixture_named(const char *name, size_t length, unsigned fallback) {
    size_t i;
    for (i = 0; i < fuzz_fixture_count; i++)
        if (strlen(fuzz_fixtures[i].name) == length && memcmp(fuzz_fixtures[i].name, name, length) == 0)
            return &fuzz_fixtures[i];
    return &fuzz_fixtures[fallback % fuzz_fixture_count];
}

/* ------------------------------------------------------------------------ */
/* What every successfully mapped model must satisfy.                         */

/* Maps `json` again with `model`'s own schema and model name. */
static inline strata_model_t *fuzz_remap(const strata_model_t *model, json_t *json) {
    return strata_map(strata_model_schema(model), strata_model_name(model), json, NULL);
}

/* True if the model has a property called "$type" or "$unknown", the
   markers of subtypes and kept unknown keys in dictionaries, archives and
   patches (open issue reserved-property-names). `dict` may be NULL. */
static inline int fuzz_reserved_clash(const strata_model_t *model, json_t *dict) {
    json_t *own = dict ? json_incref(dict) : strata_model_dictionary(model, NULL);
    json_t *type = json_object_get(own, "$type");
    int clash = json_object_get(own, "$unknown") != NULL ||
                (type && !(json_is_string(type) && strcmp(json_string_value(type), strata_model_name(model)) == 0));
    json_decref(own);
    return clash;
}

/* The cheap promises, for models made by merge/update (whose JSON need not
   map back: a merge may leave a value the JSON side cannot express). */
static inline void fuzz_exercise_light(strata_model_t *model) {
    strata_error_t err;
    json_t *dict = strata_model_dictionary(model, NULL);
    json_t *out = strata_model_to_json(model, &err);
    strata_model_t *copy = strata_model_copy(model);
    if (out == NULL && err.code == STRATA_ERROR_FORMAT && fuzz_known("to-json-reverse-transform"))
        out = json_object();
    FUZZ_ASSERT(dict && out && copy, "dictionary/to_json/copy of a merged model failed: %s", err.message);
    FUZZ_ASSERT(strata_model_equal(model, copy) && strata_model_hash(model) == strata_model_hash(copy),
                "a merged model's copy differs");
    json_decref(dict);
    json_decref(out);
    strata_model_decref(copy);
}

/*
 * Every read-only call on a model, with their promises:
 *  - dictionary and to_json succeed; every key of the dictionary is a
 *    property that has() reports present and get() returns equal to the
 *    dictionary's value;
 *  - a copy is equal, hashes equal, and has an equal dictionary;
 *  - hash and equal are stable;
 *  - round trip: the serialized JSON maps back onto an equal model, or -
 *    when a value is more precise than its JSON form (a nanosecond default
 *    written by a millisecond date pattern) - onto one whose own round trip
 *    then holds (STRATA_FUZZ_ROUND_TRIP=0 at compile time turns this off);
 *  - merge with a copy and update with its own JSON succeed or change
 *    nothing; diff with a copy is empty, an empty patch changes nothing;
 *  - an archive restores an equal model.
 */
#ifndef STRATA_FUZZ_ROUND_TRIP
#define STRATA_FUZZ_ROUND_TRIP 1
#endif
/* fuzz_schema turns the round trip off: a random schema can promise less
   (a `default` outside its enum's model values serializes as it is and does
   not map back - reported, not yet refused at load). */
static int fuzz_round_trip __attribute__((unused)) = STRATA_FUZZ_ROUND_TRIP;

static inline void fuzz_exercise_model(strata_model_t *model) {
    strata_error_t err;
    json_t *dict, *out, *dict_copy;
    strata_model_t *copy;
    uint64_t hash;
    const char *key;
    json_t *value;

    FUZZ_ASSERT(strata_model_name(model) != NULL, "a model without a name");
    FUZZ_ASSERT(strata_model_schema(model) != NULL, "a model without a schema");
    dict = strata_model_dictionary(model, &err);
    FUZZ_ASSERT(dict != NULL && json_is_object(dict), "dictionary failed: %s", err.message);
    fuzz_check_success(&err);
    if (fuzz_reserved_clash(model, dict) && fuzz_known("reserved-property-names")) {
        json_decref(dict);
        return;
    }
    out = strata_model_to_json(model, &err);
    if (out == NULL && err.code == STRATA_ERROR_FORMAT && fuzz_known("to-json-reverse-transform")) {
        json_decref(dict);
        return;
    }
    FUZZ_ASSERT(out != NULL && json_is_object(out), "to_json failed: %s", err.message);
    fuzz_check_success(&err);

    json_object_foreach(dict, key, value) {
        json_t *got;
        if (strcmp(key, "$type") == 0) {
            /* a subtype's dictionary names it (DESIGN.md, Values) */
            FUZZ_ASSERT(json_is_string(value) && strcmp(json_string_value(value), strata_model_name(model)) == 0,
                        "$type is not the model's name");
            continue;
        }
        got = strata_model_get(model, key, &err);
        FUZZ_ASSERT(got != NULL, "get(%s) is NULL for a key of the dictionary", key);
        FUZZ_ASSERT(json_equal(got, value), "get(%s) differs from the dictionary", key);
        FUZZ_ASSERT(strata_model_has(model, key, &err) == 1, "has(%s) is not 1", key);
        json_decref(got);
    }

    hash = strata_model_hash(model);
    FUZZ_ASSERT(hash == strata_model_hash(model), "hash is not stable");
    FUZZ_ASSERT(strata_model_equal(model, model) == 1, "a model is not equal to itself");
    copy = strata_model_copy(model);
    FUZZ_ASSERT(copy != NULL && copy != model, "copy failed");
    FUZZ_ASSERT(strata_model_equal(model, copy) == 1 && strata_model_equal(copy, model) == 1,
                "a copy is not equal");
    FUZZ_ASSERT(strata_model_hash(copy) == hash, "a copy hashes differently");
    dict_copy = strata_model_dictionary(copy, NULL);
    FUZZ_ASSERT(json_equal(dict, dict_copy), "a copy's dictionary differs");
    json_decref(dict_copy);

    if (fuzz_round_trip) {
        strata_model_t *again = fuzz_remap(model, out);
        if (again == NULL) {
            json_t *errors = strata_errors();
            char *o = fuzz_dump(out), *e = fuzz_dump(errors);
            FUZZ_FAIL("round trip: the serialized JSON does not map back onto '%s'\n  json:   %.2000s\n  "
                      "errors: %.2000s",
                      strata_model_name(model), o, e);
        }
        if (strata_model_equal(model, again)) {
            FUZZ_ASSERT(strata_model_hash(again) == hash, "round trip: equal models hash differently");
        } else {
            /* A value more precise than its JSON form (a default or patched
               date with nanoseconds, written by a "HH:mm:ss.SSS" pattern) is
               rounded once by serialization; from then on the round trip
               must hold. */
            json_t *out2 = strata_model_to_json(again, NULL);
            strata_model_t *again2 = out2 ? fuzz_remap(again, out2) : NULL;
            if (again2 == NULL || !strata_model_equal(again, again2)) {
                json_t *d2 = strata_model_dictionary(again, NULL);
                char *a = fuzz_dump(dict), *b = fuzz_dump(d2), *o = fuzz_dump(out);
                FUZZ_FAIL("round trip: '%s' mapped from its own JSON is not equal, and not stable after "
                          "once\n  before: %.2000s\n  json:   %.2000s\n  after:  %.2000s",
                          strata_model_name(model), a, o, b);
            }
            strata_model_decref(again2);
            json_decref(out2);
        }
        strata_model_decref(again);
    }

#if STRATA_FUZZ_HAVE_MERGE
    /* merge a copy into a copy: all or nothing, never a crash. (Not "nothing
       changes": an `append` policy appends.) */
    {
        strata_model_t *into = strata_model_copy(model);
        if (strata_model_merge(into, copy, &err) == 0) {
            fuzz_check_success(&err);
            fuzz_exercise_light(into);
        } else {
            fuzz_check_failure(&err, 1);
            FUZZ_ASSERT(strata_model_equal(into, model), "a failed merge changed the model");
        }
        strata_model_decref(into);
    }
#endif
#if STRATA_FUZZ_HAVE_UPDATE
    /* update with the model's own JSON, as text and as a json_t */
    {
        strata_model_t *into = strata_model_copy(model);
        char *text = strata_json_dumps(out);
        if (text && strata_model_updateb(into, text, strlen(text), &err) == 0) {
            fuzz_check_success(&err);
            fuzz_exercise_light(into);
        } else if (text) {
            fuzz_check_failure(&err, 1);
            FUZZ_ASSERT(strata_model_equal(into, model), "a failed update changed the model");
        }
        strata_free(text);
        strata_model_decref(into);
    }
#endif
#if STRATA_FUZZ_HAVE_DIFF
    /* a model does not differ from its copy; an empty patch changes nothing */
    {
        json_t *diff = strata_model_diff(model, copy, &err);
        json_t *merge_diff = strata_model_diff_merge(model, copy, &err);
        json_t *empty = json_array();
        strata_model_t *patched = strata_model_patch(model, empty, &err);
        char *d = fuzz_dump(diff);
        FUZZ_ASSERT(diff != NULL && json_is_array(diff) && json_array_size(diff) == 0,
                    "diff of a model and its copy is %.1000s", d);
        FUZZ_ASSERT(merge_diff != NULL && json_is_object(merge_diff) && json_object_size(merge_diff) == 0,
                    "diff_merge of a model and its copy is not {}");
        FUZZ_ASSERT(patched != NULL, "an empty patch failed: %s", err.message);
        FUZZ_ASSERT(strata_model_equal(patched, model), "an empty patch changed the model");
        free(d);
        strata_model_decref(patched);
        json_decref(empty);
        json_decref(diff);
        json_decref(merge_diff);
    }
#endif
#if STRATA_FUZZ_HAVE_ARCHIVE
    /* an archive restores an equal model */
    {
        json_t *archive = strata_model_archive(model, &err);
        strata_model_t *restored;
        char *text;
        FUZZ_ASSERT(archive != NULL, "archive failed: %s", err.message);
        restored = strata_unarchive(strata_model_schema(model), archive, &err);
        if (restored == NULL) {
            char *a = fuzz_dump(archive);
            FUZZ_FAIL("unarchive of a fresh archive failed: %s at %s: %s\n  archive: %.2000s", err.code_name,
                      err.path, err.message, a);
        }
        FUZZ_ASSERT(strata_model_equal(restored, model), "an archive restored an unequal model");
        strata_model_decref(restored);
        text = strata_json_dumps(archive);
        FUZZ_ASSERT(text != NULL, "an archive does not dump");
        restored = strata_unarchiveb(strata_model_schema(model), text, strlen(text), &err);
        FUZZ_ASSERT(restored != NULL && strata_model_equal(restored, model), "unarchiveb differs");
        strata_model_decref(restored);
        strata_free(text);
        json_decref(archive);
    }
#endif

    strata_model_decref(copy);
    json_decref(dict);
    json_decref(out);
}

/* Two models, any two (of any schemas): the calls that take two models.
   `what` picks them (fuzz_api calls one group per operation). */
#define FUZZ_PAIR_EQUAL 1
#define FUZZ_PAIR_MERGE 2
#define FUZZ_PAIR_DIFF 4
#define FUZZ_PAIR_ALL 7

static inline void fuzz_exercise_pair_of(strata_model_t *a, strata_model_t *b, int what) {
    int ab = strata_model_equal(a, b), ba = strata_model_equal(b, a);
    FUZZ_ASSERT(ab == ba, "equal is not symmetric");
    FUZZ_ASSERT(ab == 0 || ab == 1, "equal returned %d", ab);
    if (ab)
        FUZZ_ASSERT(strata_model_hash(a) == strata_model_hash(b), "equal models hash differently");
    if (strata_model_schema(a) != strata_model_schema(b))
        FUZZ_ASSERT(ab == 0, "models of two schemas are equal");
#if STRATA_FUZZ_HAVE_MERGE
    /* any pair may be merged: another model or schema is an error, never a crash */
    if (what & FUZZ_PAIR_MERGE) {
        strata_error_t err;
        strata_model_t *into = strata_model_copy(a);
        if (strata_model_merge(into, b, &err) == 0) {
            fuzz_check_success(&err);
            FUZZ_ASSERT(strata_model_schema(a) == strata_model_schema(b), "merged models of two schemas");
            fuzz_exercise_light(into);
        } else {
            fuzz_check_failure(&err, 1);
            FUZZ_ASSERT(strata_model_equal(into, a), "a failed merge changed the model");
        }
        strata_model_decref(into);
    }
#endif
#if STRATA_FUZZ_HAVE_DIFF
    /* diff, then patch: the patch of a to b applied to a gives b */
    if ((what & FUZZ_PAIR_DIFF) && !(fuzz_known("reserved-property-names") &&
                                     (fuzz_reserved_clash(a, NULL) || fuzz_reserved_clash(b, NULL)))) {
        strata_error_t err;
        json_t *diff = strata_model_diff(a, b, &err);
        if (diff == NULL) {
            fuzz_check_failure(&err, 1);
        } else {
            strata_model_t *patched = strata_model_patch(a, diff, &err);
            if (patched == NULL || !strata_model_equal(patched, b)) {
                char *d = fuzz_dump(diff);
                json_t *da = strata_model_dictionary(a, NULL), *db = strata_model_dictionary(b, NULL);
                char *ta = fuzz_dump(da), *tb = fuzz_dump(db);
                FUZZ_FAIL("patch(a, diff(a, b)) %s b (%s)\n  a:    %.1500s\n  b:    %.1500s\n  diff: %.1500s",
                          patched ? "is not" : "failed, expected", patched ? "" : err.message, ta, tb, d);
            }
            strata_model_decref(patched);
        }
        json_decref(diff);
        diff = strata_model_diff_merge(a, b, &err);
        if (diff == NULL) {
            fuzz_check_failure(&err, 1);
        } else {
            strata_model_t *patched = strata_model_merge_patch(a, diff, &err);
            if (patched == NULL || !strata_model_equal(patched, b)) {
                char *d = fuzz_dump(diff);
                FUZZ_FAIL("merge_patch(a, diff_merge(a, b)) %s b (%s)\n  merge patch: %.1500s",
                          patched ? "is not" : "failed, expected", patched ? "" : err.message, d);
            }
            strata_model_decref(patched);
        }
        json_decref(diff);
    }
#endif
}

static inline void fuzz_exercise_pair(strata_model_t *a, strata_model_t *b) {
    fuzz_exercise_pair_of(a, b, FUZZ_PAIR_ALL);
}

/* Updates a copy of `model` with `json` (any value): all or nothing. */
static inline void fuzz_exercise_update(strata_model_t *model, json_t *json) {
#if STRATA_FUZZ_HAVE_UPDATE
    strata_error_t err;
    strata_model_t *into = strata_model_copy(model);
    if (strata_model_update(into, json, &err) == 0) {
        fuzz_check_success(&err);
        fuzz_exercise_light(into);
    } else {
        fuzz_check_failure(&err, 1);
        FUZZ_ASSERT(strata_model_equal(into, model), "a failed update changed the model");
    }
    strata_model_decref(into);
#else
    (void)model;
    (void)json;
#endif
}

#endif /* STRATA_FUZZ_COMMON_H */
