/*
 * fuzz_api - random sequences of C API calls on handles.
 *
 * The input is a program: each byte picks an operation, the bytes after it
 * its operands. Models live in 8 slots; the driver counts the references it
 * owns, so it never releases more than it holds (that would be its own bug,
 * not the library's): every incref/decref sequence the API allows, in any
 * order, on models of any of the fixed schemas (Tests/fuzz/schemas), of
 * schemas loaded and released while their models live on, and of several
 * schemas at once (a model from one schema passed with another).
 *
 * Operations: map a canned input, map text from the program, map_many, copy,
 * equal, hash, get/has (a dictionary key or bytes from the program),
 * dictionary, to_json (and map it back), incref, decref, take a reference to
 * a model's schema and drop it later, map with a freshly loaded schema that
 * is released at once, strata_errors(), merge (any two models), update (a
 * model with a canned input of any fixture), diff/patch (any two models) and
 * archive/unarchive (fuzz_common.h; each group switched by a
 * STRATA_FUZZ_HAVE_* macro), map_response (canned inputs in an envelope with
 * root and meta options, or program bytes as the response text).
 */
#include "../c/chunk_source.h"
#include "fuzz_common.h"

#define SLOTS 8
#define MAX_REFS 4
#define MAX_SCHEMA_REFS 16
/* Operations per input: short programs keep executions fast; the corpus
   chains them (a program that reaches a state is mutated further). */
#ifndef MAX_STEPS
#define MAX_STEPS 32
#endif

struct slot {
    strata_model_t *model;
    int refs; /* references this driver owns */
};

struct program {
    const uint8_t *data;
    size_t size, at;
};

static int next(struct program *p) { return p->at < p->size ? p->data[p->at++] : -1; }
static unsigned arg(struct program *p) {
    int b = next(p);
    return b < 0 ? 0u : (unsigned)b;
}

static struct slot slots[SLOTS];
static strata_schema_t *schema_refs[MAX_SCHEMA_REFS];
static size_t schema_ref_count;

static void release_slot(struct slot *s) {
    while (s->refs > 0) {
        strata_model_decref(s->model);
        s->refs--;
    }
    s->model = NULL;
}

static void put(struct slot *s, strata_model_t *m) {
    release_slot(s);
    s->model = m;
    s->refs = m ? 1 : 0;
}

static struct slot *pick(struct program *p) { return &slots[arg(p) % SLOTS]; }

/* A canned input of a fixture: its model name and json (borrowed). */
static int canned(struct fuzz_fixture *f, unsigned which, const char **model, json_t **json) {
    json_t *entry;
    if (json_array_size(f->inputs) == 0)
        return 0;
    entry = json_array_get(f->inputs, which % json_array_size(f->inputs));
    *model = json_string_value(json_object_get(entry, "model"));
    *json = json_object_get(entry, "input");
    return *model != NULL && *json != NULL;
}

static void after_map(strata_model_t *m, const strata_error_t *err, int utf8) {
    if (m)
        fuzz_check_success(err);
    else
        fuzz_check_failure(err, utf8);
}

enum {
    OP_MAP_CANNED,
    OP_MAP_TEXT,
    OP_MAP_MANY,
    OP_MAP_FRESH,
    OP_COPY,
    OP_EQUAL,
    OP_HASH,
    OP_GET_KEY,
    OP_GET_BYTES,
    OP_DICTIONARY,
    OP_TO_JSON,
    OP_INCREF,
    OP_DECREF,
    OP_SCHEMA_REF,
    OP_SCHEMA_UNREF,
    OP_ERRORS,
    OP_EXERCISE,
    OP_MERGE,  /* a no-op without STRATA_FUZZ_HAVE_MERGE */
    OP_UPDATE, /* a no-op without STRATA_FUZZ_HAVE_UPDATE */
    OP_DIFF,   /* a no-op without STRATA_FUZZ_HAVE_DIFF */
    OP_MAP_RESPONSE,
    OP_MAP_LINES,
    OP_JSON_SCHEMA, /* strata_schema_json_schema of a canned model, then strata_schema_diagram */
    OP_COUNT
};

/* JSON lines: the program's bytes as the input, fed in pieces or read
   through strata_map_lines(); each model goes to a slot, each error array
   must carry the line it is given with. */
struct lines_state {
    size_t models, last_line;
};

static int lines_on_model(strata_model_t *model, size_t line, void *data) {
    struct lines_state *state = data;
    FUZZ_ASSERT(line > state->last_line, "line %zu after line %zu", line, state->last_line);
    state->last_line = line;
    state->models++;
    put(&slots[(state->models + line) % SLOTS], model);
    return 0;
}

static int lines_on_error(const json_t *errors, size_t line, void *data) {
    struct lines_state *state = data;
    size_t i;
    FUZZ_ASSERT(line > state->last_line, "line %zu after line %zu", line, state->last_line);
    state->last_line = line;
    FUZZ_ASSERT(json_is_array(errors) && json_array_size(errors) > 0, "an empty error array for line %zu", line);
    for (i = 0; i < json_array_size(errors); i++) {
        json_t *number = json_object_get(json_array_get(errors, i), "line");
        FUZZ_ASSERT(json_is_integer(number) && (size_t)json_integer_value(number) == line,
                    "an error without its line %zu", line);
    }
    return 0;
}

static void run_op(int op, struct program *p) {
    strata_error_t err;
    switch (op) {
    case OP_MAP_CANNED: {
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        const char *model;
        json_t *json;
        struct slot *s = pick(p);
        if (canned(f, arg(p), &model, &json)) {
            strata_model_t *m = strata_map(f->schema, model, json, &err);
            after_map(m, &err, 1);
            put(s, m);
        }
        break;
    }
    case OP_MAP_TEXT: {
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        const char *model = strata_schema_model_name(f->schema, arg(p) % f->model_count);
        struct slot *s = pick(p);
        size_t length = arg(p);
        strata_model_t *m;
        if (length > p->size - p->at)
            length = p->size - p->at;
        m = strata_mapb(f->schema, model, (const char *)p->data + p->at, length, &err);
        p->at += length;
        after_map(m, &err, 0);
        put(s, m);
        break;
    }
    case OP_MAP_MANY: {
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        const char *model;
        json_t *json, *array = json_array();
        unsigned first = arg(p), k = 1 + arg(p) % 4, i;
        size_t n = 0;
        strata_model_t **ms;
        if (!canned(f, first, &model, &json)) {
            json_decref(array);
            break;
        }
        for (i = 0; i < k; i++) {
            const char *other;
            json_t *input;
            if (canned(f, first + i, &other, &input))
                json_array_append(array, input);
        }
        ms = strata_map_many(f->schema, model, array, &n, &err);
        if (ms) {
            fuzz_check_success(&err);
            FUZZ_ASSERT(n == json_array_size(array), "map_many made %zu of %zu", n, json_array_size(array));
            for (i = 0; i < n; i++)
                put(&slots[(first + i) % SLOTS], ms[i]);
            strata_free(ms);
        } else {
            FUZZ_ASSERT(n == 0, "a failed map_many set count %zu", n);
            fuzz_check_failure(&err, 1);
        }
        json_decref(array);
        break;
    }
    case OP_MAP_FRESH: {
        /* a schema loaded for this model alone and released at once: the model keeps it */
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        strata_schema_t *fresh = strata_schema_load(f->doc, &err);
        const char *model;
        json_t *json;
        struct slot *s = pick(p);
        FUZZ_ASSERT(fresh != NULL, "fixture %s does not load a second time", f->name);
        if (canned(f, arg(p), &model, &json)) {
            strata_model_t *m = strata_map(fresh, model, json, &err);
            after_map(m, &err, 1);
            put(s, m);
        }
        strata_schema_decref(fresh);
        break;
    }
    case OP_COPY: {
        struct slot *a = pick(p), *b = pick(p);
        if (a->model) {
            strata_model_t *c = strata_model_copy(a->model);
            FUZZ_ASSERT(c != NULL && strata_model_equal(a->model, c), "a copy is not equal");
            FUZZ_ASSERT(strata_model_hash(a->model) == strata_model_hash(c), "a copy hashes differently");
            put(b, c); /* may release a: the copy must not depend on it */
        } else {
            FUZZ_ASSERT(strata_model_copy(NULL) == NULL, "copy(NULL)");
        }
        break;
    }
    case OP_EQUAL: {
        struct slot *a = pick(p), *b = pick(p);
        if (a->model && b->model)
            fuzz_exercise_pair_of(a->model, b->model, FUZZ_PAIR_EQUAL);
        else
            FUZZ_ASSERT(strata_model_equal(a->model, b->model) == (a->model == b->model), "equal with NULL");
        break;
    }
    case OP_HASH: {
        struct slot *a = pick(p);
        FUZZ_ASSERT(strata_model_hash(a->model) == strata_model_hash(a->model), "hash not stable");
        if (a->model == NULL)
            FUZZ_ASSERT(strata_model_hash(NULL) == 0, "hash(NULL) is not 0");
        break;
    }
    case OP_GET_KEY: {
        struct slot *a = pick(p);
        unsigned which = arg(p);
        json_t *dict;
        const char *key = NULL;
        void *it;
        if (!a->model)
            break;
        dict = strata_model_dictionary(a->model, NULL);
        FUZZ_ASSERT(dict != NULL, "dictionary failed");
        for (it = json_object_iter(dict); it && which > 0; which--)
            it = json_object_iter_next(dict, it);
        if (it)
            key = json_object_iter_key(it);
        if (key && strcmp(key, "$type") != 0) {
            json_t *got = strata_model_get(a->model, key, &err);
            FUZZ_ASSERT(got && json_equal(got, json_object_iter_value(it)), "get(%s) differs", key);
            json_decref(got);
        }
        json_decref(dict);
        break;
    }
    case OP_GET_BYTES: {
        /* a NUL-terminated property name from the program: any bytes */
        struct slot *a = pick(p);
        char name[64];
        size_t n = 0;
        int has;
        json_t *got;
        while (n < sizeof name - 1) {
            int b = next(p);
            if (b <= 0)
                break;
            name[n++] = (char)b;
        }
        name[n] = '\0';
        has = strata_model_has(a->model, name, &err);
        if (a->model == NULL) {
            FUZZ_ASSERT(has == -1 && err.code == STRATA_ERROR_ARGUMENT, "has on NULL");
            break;
        }
        got = strata_model_get(a->model, name, &err);
        if (has == -1) {
            FUZZ_ASSERT(got == NULL && err.code == STRATA_ERROR_ARGUMENT, "get of no property");
        } else if (has == 0) {
            FUZZ_ASSERT(got == NULL && err.code == STRATA_OK, "get of an absent property");
        } else {
            FUZZ_ASSERT(has == 1 && got != NULL, "get of a present property");
        }
        json_decref(got);
        break;
    }
    case OP_DICTIONARY: {
        struct slot *a = pick(p);
        json_t *dict = strata_model_dictionary(a->model, &err);
        FUZZ_ASSERT((dict != NULL) == (a->model != NULL), "dictionary");
        if (dict) {
            char *text = strata_json_dumps(dict);
            FUZZ_ASSERT(text != NULL, "strata_json_dumps of a dictionary failed");
            strata_free(text);
        }
        json_decref(dict);
        break;
    }
    case OP_TO_JSON: {
        struct slot *a = pick(p), *b = pick(p);
        json_t *out = strata_model_to_json(a->model, &err);
        if (out == NULL && a->model && err.code == STRATA_ERROR_FORMAT && fuzz_known("to-json-reverse-transform"))
            break;
        FUZZ_ASSERT((out != NULL) == (a->model != NULL), "to_json: %s", err.message);
        if (out) {
            strata_model_t *again = fuzz_remap(a->model, out);
            if (fuzz_round_trip)
                FUZZ_ASSERT(again != NULL, "round trip of %s: its JSON does not map back",
                            strata_model_name(a->model)); /* equality: fuzz_exercise_model */
            put(b, again);
        }
        json_decref(out);
        break;
    }
    case OP_INCREF: {
        struct slot *a = pick(p);
        if (a->model && a->refs < MAX_REFS) {
            FUZZ_ASSERT(strata_model_incref(a->model) == a->model, "incref returns its argument");
            a->refs++;
        } else if (!a->model) {
            FUZZ_ASSERT(strata_model_incref(NULL) == NULL, "incref(NULL)");
        }
        break;
    }
    case OP_DECREF: {
        struct slot *a = pick(p);
        if (a->model) {
            strata_model_decref(a->model);
            if (--a->refs == 0)
                a->model = NULL;
        } else {
            strata_model_decref(NULL);
        }
        break;
    }
    case OP_SCHEMA_REF: {
        struct slot *a = pick(p);
        if (a->model && schema_ref_count < MAX_SCHEMA_REFS) {
            strata_schema_t *s = strata_model_schema(a->model);
            FUZZ_ASSERT(strata_schema_incref(s) == s, "schema incref");
            schema_refs[schema_ref_count++] = s;
        }
        break;
    }
    case OP_SCHEMA_UNREF: {
        if (schema_ref_count > 0) {
            /* map with it one last time, then drop the reference */
            strata_schema_t *s = schema_refs[--schema_ref_count];
            strata_model_t *m = strata_mapb(s, strata_schema_model_name(s, arg(p) % strata_schema_model_count(s)),
                                            "{}", 2, &err);
            after_map(m, &err, 1);
            put(pick(p), m);
            strata_schema_decref(s);
        }
        break;
    }
    case OP_ERRORS: {
        json_t *errors = strata_errors();
        FUZZ_ASSERT(errors == NULL || json_is_array(errors), "strata_errors() is not an array");
        json_decref(errors);
        break;
    }
    case OP_EXERCISE: {
        struct slot *a = pick(p);
        if (a->model)
            fuzz_exercise_model(a->model);
        break;
    }
    case OP_MERGE:
    case OP_DIFF: {
        struct slot *a = pick(p), *b = pick(p);
        if (a->model && b->model)
            fuzz_exercise_pair_of(a->model, b->model, op == OP_MERGE ? FUZZ_PAIR_MERGE : FUZZ_PAIR_DIFF);
        break;
    }
    case OP_MAP_RESPONSE: {
        /* canned inputs in an envelope {"data": {"items": [...]}, "meta": input},
           or program bytes as the response text with one of a few roots */
        static const char *roots[] = {"", "data", "data.items", "/data/items", "/a.b/c", "items", "x[]"};
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        const char *model, *meta_model;
        json_t *json, *meta_json, *response = NULL, *options;
        unsigned mode = arg(p), first = arg(p), k = arg(p) % 4, i;
        size_t n = 77;
        strata_model_t **ms, *meta = NULL;
        if (!canned(f, first, &model, &json) || !canned(f, first + 1, &meta_model, &meta_json))
            break;
        options = json_pack("{s:s, s:{s:s, s:s}}", "root", roots[mode % 7], "meta", "path",
                            (mode & 8) ? "meta" : "/meta", "model", meta_model);
        if (mode & 16) {
            size_t length = arg(p);
            if (length > p->size - p->at)
                length = p->size - p->at;
            ms = strata_map_responseb(f->schema, model, (const char *)p->data + p->at, length, options, &n,
                                      (mode & 32) ? NULL : &meta, &err);
            p->at += length;
        } else {
            json_t *items = json_array();
            for (i = 0; i < k; i++) {
                const char *other;
                json_t *input;
                if (canned(f, first + i, &other, &input))
                    json_array_append(items, input);
            }
            response = json_pack("{s:{s:o}, s:O}", "data", "items", items, "meta", meta_json);
            ms = strata_map_response(f->schema, model, response, options, &n, (mode & 32) ? NULL : &meta, &err);
        }
        if (ms) {
            fuzz_check_success(&err);
            for (i = 0; i < n; i++)
                put(&slots[(first + i) % SLOTS], ms[i]);
            strata_free(ms);
            if (meta)
                put(pick(p), meta);
        } else {
            FUZZ_ASSERT(n == 0 && meta == NULL, "a failed map_response set count %zu", n);
            fuzz_check_failure(&err, response != NULL);
        }
        json_decref(response);
        json_decref(options);
        break;
    }
    case OP_MAP_LINES: {
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        const char *model;
        json_t *json;
        unsigned mode = arg(p), piece = arg(p) % 17 + 1;
        size_t length = arg(p) * 4, limit = (mode & 4) ? (size_t)(arg(p) + 1) : 0;
        struct lines_state state = {0, 0};
        int64_t made;
        if (!canned(f, arg(p), &model, &json))
            break;
        if (length > p->size - p->at)
            length = p->size - p->at;
        if (mode & 1) {
            struct chunk_source reader = {(const char *)p->data + p->at, length, 0, piece};
            made = strata_map_lines(f->schema, model, chunk_source_read, &reader, limit, lines_on_model,
                                    (mode & 2) ? NULL : lines_on_error, &state, &err);
        } else {
            strata_lines_t *lines = strata_lines_new(f->schema, model, limit, &err);
            size_t at = 0;
            int64_t n = 0;
            if (lines == NULL) { /* a canned model the schema does not have (an error case) */
                FUZZ_ASSERT(err.code == STRATA_ERROR_ARGUMENT, "strata_lines_new failed: %s", err.message);
                fuzz_check_failure(&err, 0);
                p->at += length;
                break;
            }
            made = 0;
            while (at < length && n >= 0) {
                size_t take = length - at < piece ? length - at : piece;
                n = strata_lines_feed(lines, (const char *)p->data + p->at + at, take, lines_on_model,
                                      (mode & 2) ? NULL : lines_on_error, &state, &err);
                made = n < 0 ? -1 : made + n;
                at += take;
            }
            if (made >= 0) {
                n = strata_lines_finish(lines, lines_on_model, (mode & 2) ? NULL : lines_on_error, &state, &err);
                made = n < 0 ? -1 : made + n;
            }
            strata_lines_free(lines);
        }
        p->at += length;
        if (made >= 0) {
            fuzz_check_success(&err);
            FUZZ_ASSERT((size_t)made == state.models, "%lld models made, %zu delivered", (long long)made,
                        state.models);
        } else {
            /* With an error callback only a whole-call error (a canned model the
               schema does not have) fails the call. */
            FUZZ_ASSERT((mode & 2) || err.code == STRATA_ERROR_ARGUMENT,
                        "map_lines failed with an error callback: %s (%s)", err.message, err.path);
            fuzz_check_failure(&err, 0);
        }
        break;
    }
    case OP_JSON_SCHEMA: {
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        const char *model;
        json_t *json;
        int canonical = arg(p) & 1;
        if (canned(f, arg(p), &model, &json)) {
            json_t *out = strata_schema_json_schema(f->schema, model, canonical, &err);
            char *diagram;
            if (out) {
                fuzz_check_success(&err);
                FUZZ_ASSERT(json_is_object(out) && json_object_get(out, "$defs"), "a JSON Schema without $defs");
                json_decref(out);
            } else {
                /* a canned model another fixture's schema lacks */
                FUZZ_ASSERT(err.code == STRATA_ERROR_ARGUMENT, "json_schema failed: %s", err.message);
                fuzz_check_failure(&err, 0);
            }
            diagram = strata_schema_diagram(f->schema, canonical ? "dot" : "mermaid", &err);
            FUZZ_ASSERT(diagram != NULL, "diagram failed: %s", err.message);
            fuzz_check_success(&err);
            strata_free(diagram);
        }
        break;
    }
    case OP_UPDATE: {
        struct fuzz_fixture *f = &fuzz_fixtures[arg(p) % fuzz_fixture_count];
        struct slot *a = pick(p);
        const char *model;
        json_t *json;
        if (a->model && canned(f, arg(p), &model, &json))
            fuzz_exercise_update(a->model, json);
        break;
    }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_load_fixtures();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct program p = {data, size, 0};
    size_t i, steps = 0;
    int op;
    while ((op = next(&p)) >= 0 && steps++ < MAX_STEPS)
        run_op(op % OP_COUNT, &p);
    for (i = 0; i < SLOTS; i++)
        release_slot(&slots[i]);
    while (schema_ref_count > 0)
        strata_schema_decref(schema_refs[--schema_ref_count]);
    return 0;
}
