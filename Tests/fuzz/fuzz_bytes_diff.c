/*
 * fuzz_bytes_diff - the bytes path against the DOM path.
 *
 * strata_mapb / strata_map_manyb / strata_map_responseb read JSON text (with
 * the schema-directed parser of issue 14, or with jansson and the DOM mapper
 * before it); strata_map / strata_map_many / strata_map_response map a json_t
 * that jansson parsed with the library's own flags (JSON_DECODE_ANY |
 * JSON_ALLOW_NUL). Both must give the same answer: the same models (equal,
 * and the same strata_model_to_json text), or the same error list (paths,
 * codes, models, properties and messages), except for the differences that
 * Tests/fuzz/README.md ("The bytes path against the DOM path") allows:
 *
 *   - jansson refuses a number outside its range (an integer beyond 64 bits,
 *     a real that overflows such as 1e400) as a syntax error of the whole
 *     text; the bytes path may accept the text (the number skipped, or a
 *     `type` error at its path). Any well-formed outcome is accepted then.
 *   - syntax errors: only that both paths fail with a `syntax` error is
 *     compared, not the message (line, column, offset, pointer).
 *
 * Input: byte 0 picks the fixture (Tests/fuzz/schemas), byte 1 the model,
 * byte 2 the call and the kind of input:
 *   bits 0-1: 0 or 3 strata_mapb, 1 strata_map_manyb, 2 strata_map_responseb
 *   bits 2-4: for the array calls, the array also holds the next input (bit
 *             2), the one after (bit 3), the first one again (bit 4)
 *   bit 6:    also exercise a model made (fuzz_exercise_model: slow, so only
 *             for inputs that ask; the comparison itself runs always)
 *   bit 7:    raw - the bytes after byte 2 are the JSON text as they are;
 *             otherwise byte 3 picks one of the fixture's inputs (the
 *             conformance inputs), and the bytes after it are a mutation
 *             program (pairs: opcode, argument; see `enum op`).
 *
 * STRATA_FUZZ_DUMP=1 prints each call's model, call and text to stderr (to
 * read what a reproducer maps: `scripts/fuzz --replay bytes_diff FILE`).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "fuzz_common.h"

#include <stdarg.h>

/* ------------------------------------------------------------------------ */
/* Text output with the mutations that a json_t cannot hold.                  */

struct text {
    char *data;
    size_t size, capacity;
};

static void put(struct text *t, const char *s, size_t n) {
    if (t->size + n + 1 > t->capacity) {
        size_t c = t->capacity ? t->capacity : 256;
        while (t->size + n + 1 > c)
            c *= 2;
        t->data = realloc(t->data, c);
        FUZZ_ASSERT(t->data != NULL, "out of memory");
        t->capacity = c;
    }
    memcpy(t->data + t->size, s, n);
    t->size += n;
    t->data[t->size] = '\0';
}

static void puts_(struct text *t, const char *s) { put(t, s, strlen(s)); }

/* Mutations applied while writing: the N-th object, number or string. */
struct plan {
    int dup_object, dup_member;       /* write member dup_member of object dup_object twice */
    int big_number, big_kind;         /* replace number big_number by an out-of-range token */
    int bad_string, bad_kind;         /* put a bad byte sequence into string bad_string */
    int objects, numbers, strings;    /* counters while writing */
};

static const char *const big_tokens[] = {
    "18446744073709551616", "-9223372036854775809", "99999999999999999999999999999",
    "1e400", "-1e400", "1E+999", "1e-400", "123456789012345678901234567890.5",
    "9223372036854775807", "-9223372036854775808", "0.1e1", "-0", "1.7976931348623157e308",
};

static const char *const bad_strings[] = {
    "\xff", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80", "\\ud800", "\\udc00x",
    "\\u0000", "\x01", "\\x", "\\u12", "\xf0\x9f\x8e\x89", "\"", "\\",
};

static void write_value(struct text *t, json_t *v, struct plan *p);

static void write_scalar(struct text *t, json_t *v) {
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | (17 << 11));
    puts_(t, s ? s : "null");
    free(s);
}

static void write_string(struct text *t, const char *s, size_t n, struct plan *p) {
    json_t *str = json_stringn(s, n);
    char *dumped = str ? json_dumps(str, JSON_ENCODE_ANY) : NULL;
    int index = p->strings++;
    json_decref(str);
    if (dumped == NULL) {
        puts_(t, "\"\"");
        return;
    }
    if (index == p->bad_string) {
        size_t len = strlen(dumped), cut = len > 2 ? 1 + (size_t)(p->bad_kind / 16) % (len - 1) : 1;
        put(t, dumped, cut);
        puts_(t, bad_strings[(size_t)p->bad_kind % (sizeof bad_strings / sizeof *bad_strings)]);
        puts_(t, dumped + cut);
    } else {
        puts_(t, dumped);
    }
    free(dumped);
}

static void write_value(struct text *t, json_t *v, struct plan *p) {
    if (json_is_object(v)) {
        int index = p->objects++, k = 0;
        const char *key;
        json_t *member;
        puts_(t, "{");
        json_object_foreach(v, key, member) {
            if (k > 0)
                puts_(t, ",");
            if (index == p->dup_object && k == p->dup_member) {
                /* the first of two: a value of another type; the last wins */
                write_string(t, key, strlen(key), p);
                puts_(t, json_is_string(member) ? ":17," : ":\"dup\",");
            }
            write_string(t, key, strlen(key), p);
            puts_(t, ":");
            write_value(t, member, p);
            k++;
        }
        puts_(t, "}");
    } else if (json_is_array(v)) {
        size_t i;
        puts_(t, "[");
        for (i = 0; i < json_array_size(v); i++) {
            if (i > 0)
                puts_(t, ",");
            write_value(t, json_array_get(v, i), p);
        }
        puts_(t, "]");
    } else if (json_is_string(v)) {
        write_string(t, json_string_value(v), json_string_length(v), p);
    } else if (json_is_number(v)) {
        if (p->numbers++ == p->big_number)
            puts_(t, big_tokens[(size_t)p->big_kind % (sizeof big_tokens / sizeof *big_tokens)]);
        else
            write_scalar(t, v);
    } else {
        write_scalar(t, v);
    }
}

/* ------------------------------------------------------------------------ */
/* Mutations of the tree.                                                      */

enum op {
    OP_DROP_KEY,     /* remove a member of an object */
    OP_CHANGE_TYPE,  /* replace a value with one of another type */
    OP_NEST,         /* wrap a value in arg*9 arrays/objects (up to ~2300 levels) */
    OP_DUP_KEY,      /* a key written twice (plan) */
    OP_BIG_NUMBER,   /* a number out of range (plan) */
    OP_BAD_STRING,   /* invalid UTF-8 or escape in a string (plan) */
    OP_TRUNCATE,     /* cut the text */
    OP_ADD_KEY,      /* an unmapped key with a large value */
    OP_COUNT
};

/* A value of the tree reached by walking down with the bits of `arg`. */
static json_t *pick(json_t *root, unsigned arg, json_t **parent, const char **key, size_t *index) {
    json_t *v = root;
    *parent = NULL;
    *key = NULL;
    *index = 0;
    while (arg > 1) {
        size_t n = json_is_object(v) ? json_object_size(v) : json_is_array(v) ? json_array_size(v) : 0;
        size_t which;
        if (n == 0)
            break;
        which = arg % n;
        arg /= n + 1;
        if (json_is_object(v)) {
            void *it = json_object_iter(v);
            while (which-- > 0 && it)
                it = json_object_iter_next(v, it);
            if (it == NULL)
                break;
            *parent = v;
            *key = json_object_iter_key(it);
            v = json_object_iter_value(it);
        } else {
            *parent = v;
            *key = NULL;
            *index = which;
            v = json_array_get(v, which);
        }
    }
    return v;
}

/* Puts `value` (stolen) where the picked value was; returns the new root. */
static json_t *replace(json_t *root, json_t *parent, const char *key, size_t index, json_t *value) {
    if (parent == NULL) {
        json_decref(root);
        return value;
    }
    if (key)
        json_object_set_new(parent, key, value);
    else
        json_array_set_new(parent, index, value);
    return root;
}

static json_t *other_value(unsigned arg) {
    switch (arg % 14) {
    case 0: return json_null();
    case 1: return json_true();
    case 2: return json_integer(0);
    case 3: return json_integer(-1);
    case 4: return json_real(1.5);
    case 5: return json_string("");
    case 6: return json_string("x");
    case 7: return json_array();
    case 8: return json_object();
    case 9: return json_string("2024-01-02T03:04:05Z");
    case 10: return json_integer(INT64_MAX);
    case 11: return json_integer(INT64_MIN);
    case 12: return json_pack("[i,s,n]", 1, "two");
    default: return json_pack("{s:i,s:{s:s}}", "id", 7, "user", "login", "octocat");
    }
}

static json_t *large_value(unsigned arg) {
    json_t *v = json_object();
    unsigned i;
    char text[600];
    memset(text, 'a' + (int)(arg % 26), sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (i = 0; i < 1 + arg % 12; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%u", i);
        json_object_set_new(v, key, i % 3 == 0   ? json_string(text)
                                    : i % 3 == 1 ? json_pack("[i,f,b,n,{s:[]}]", (int)i, 0.25, 1, "x")
                                                 : json_pack("{s:{s:{s:s}}}", "a", "b", "c", "deep"));
    }
    return v;
}

static json_t *mutate(json_t *root, const uint8_t *prog, size_t size, struct plan *plan, size_t *truncate) {
    size_t pc;
    for (pc = 0; pc + 1 < size && pc < 32; pc += 2) {
        unsigned op = prog[pc] % OP_COUNT, arg = prog[pc + 1];
        json_t *parent, *target;
        const char *key;
        size_t index;
        target = pick(root, arg * 2654435761u >> 8, &parent, &key, &index);
        switch (op) {
        case OP_DROP_KEY:
            if (json_is_object(target) && json_object_size(target) > 0) {
                void *it = json_object_iter(target);
                size_t skip = arg % json_object_size(target);
                while (skip-- > 0 && it)
                    it = json_object_iter_next(target, it);
                if (it)
                    json_object_del(target, json_object_iter_key(it));
            } else if (parent) {
                if (key)
                    json_object_del(parent, key);
                else
                    json_array_remove(parent, index);
            }
            break;
        case OP_CHANGE_TYPE:
            root = replace(root, parent, key, index, other_value(arg));
            break;
        case OP_NEST: {
            json_t *v = json_incref(target);
            unsigned depth = 1 + arg * 9, d;
            for (d = 0; d < depth; d++)
                v = (d + arg) % 3 == 0 ? json_pack("{s:o}", "a", v) : json_pack("[o]", v);
            root = replace(root, parent, key, index, v);
            break;
        }
        case OP_DUP_KEY:
            plan->dup_object = (int)(arg % 8);
            plan->dup_member = (int)(arg / 8 % 8);
            break;
        case OP_BIG_NUMBER:
            plan->big_number = (int)(arg % 16);
            plan->big_kind = (int)(arg / 16);
            break;
        case OP_BAD_STRING:
            plan->bad_string = (int)(arg % 16);
            plan->bad_kind = (int)(arg / 16) * 17 + (int)arg;
            break;
        case OP_TRUNCATE:
            *truncate = 1 + arg;
            break;
        default:
            if (json_is_object(target)) {
                char name[32];
                snprintf(name, sizeof name, "unmapped_%u", arg);
                json_object_set_new(target, name, large_value(arg));
            }
            break;
        }
    }
    return root;
}

/* ------------------------------------------------------------------------ */
/* The two paths.                                                              */

struct outcome {
    int ok;
    size_t count;              /* models made */
    strata_model_t **models;   /* `count` models (one for strata_mapb) */
    strata_model_t *single;
    strata_model_t *meta;
    strata_error_t err;
    json_t *errors;            /* strata_errors() after a failure */
};

static void outcome_free(struct outcome *o) {
    size_t i;
    for (i = 0; o->models && i < o->count; i++)
        strata_model_decref(o->models[i]);
    strata_free(o->models);
    strata_model_decref(o->single);
    strata_model_decref(o->meta);
    json_decref(o->errors);
}

static void finish(struct outcome *o) {
    if (o->single) {
        o->models = malloc(sizeof *o->models);
        FUZZ_ASSERT(o->models, "out of memory");
        o->models[0] = o->single;
        o->single = NULL;
        o->count = 1;
    }
    o->ok = o->models != NULL;
    if (!o->ok) {
        FUZZ_ASSERT(o->count == 0, "a failed call set count %zu", o->count);
        o->errors = strata_errors();
    }
}

static void run_bytes(struct outcome *o, const strata_schema_t *s, const char *model, int call, const char *text,
                      size_t size) {
    memset(o, 0, sizeof *o);
    if (getenv("STRATA_FUZZ_DUMP"))
        fprintf(stderr, "DUMP model=%s call=%d text=%.*s\n", model, call, (int)size, text);
    if (call == 1)
        o->models = strata_map_manyb(s, model, text, size, &o->count, &o->err);
    else if (call == 2)
        o->models = strata_map_responseb(s, model, text, size, NULL, &o->count, &o->meta, &o->err);
    else
        o->single = strata_mapb(s, model, text, size, &o->err);
    finish(o);
}

static void run_dom(struct outcome *o, const strata_schema_t *s, const char *model, int call, json_t *json) {
    memset(o, 0, sizeof *o);
    if (call == 1)
        o->models = strata_map_many(s, model, json, &o->count, &o->err);
    else if (call == 2)
        o->models = strata_map_response(s, model, json, NULL, &o->count, &o->meta, &o->err);
    else
        o->single = strata_map(s, model, json, &o->err);
    finish(o);
}

static void report(const char *text, size_t size, const char *fixture, const char *model, int call, const char *fmt,
                   ...) {
    va_list ap;
    fprintf(stderr, "\nstrata fuzz_bytes_diff: fixture %s, model %s, call %s, text (%zu bytes): %.*s%s\n", fixture,
            model, call == 1 ? "map_many" : call == 2 ? "map_response" : "map", size, size > 2000 ? 2000 : (int)size,
            text, size > 2000 ? "..." : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int has_syntax_first(const struct outcome *o) { return !o->ok && strcmp(o->err.code_name, "syntax") == 0; }

static char *model_text(strata_model_t *m) {
    strata_error_t err;
    json_t *json = strata_model_to_json(m, &err);
    char *text = fuzz_dump(json);
    json_decref(json);
    return text;
}

static void compare(const struct outcome *b, const struct outcome *d, const char *text, size_t size,
                    const char *fixture, const char *model, int call, int exercise) {
    size_t i;
    if (b->ok != d->ok) {
        char *errs = fuzz_dump(b->ok ? d->errors : b->errors);
        report(text, size, fixture, model, call, "the %s path failed and the other succeeded: %s",
               b->ok ? "DOM" : "bytes", errs);
        free(errs);
        FUZZ_FAIL("bytes and DOM paths differ (success)");
    }
    if (!b->ok) {
        if (!json_equal(b->errors, d->errors)) {
            char *e1 = fuzz_dump(b->errors), *e2 = fuzz_dump(d->errors);
            report(text, size, fixture, model, call, "bytes errors: %s\nDOM errors:   %s", e1, e2);
            free(e1);
            free(e2);
            FUZZ_FAIL("bytes and DOM paths differ (errors)");
        }
        return;
    }
    FUZZ_ASSERT(b->count == d->count, "bytes path made %zu models, DOM path %zu", b->count, d->count);
    FUZZ_ASSERT((b->meta == NULL) == (d->meta == NULL), "metadata on one path only");
    for (i = 0; i <= b->count; i++) {
        strata_model_t *mb = i < b->count ? b->models[i] : b->meta, *md = i < b->count ? d->models[i] : d->meta;
        char *t1, *t2;
        if (mb == NULL)
            continue;
        t1 = model_text(mb);
        t2 = model_text(md);
        if (strcmp(t1, t2) != 0 || !strata_model_equal(mb, md)) {
            report(text, size, fixture, model, call, "model %zu\nbytes: %s\nDOM:   %s", i, t1, t2);
            FUZZ_FAIL("bytes and DOM paths made different models");
        }
        free(t1);
        free(t2);
    }
    if (exercise && b->count > 0)
        fuzz_exercise_model(b->models[0]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* Arrays past 48 bytes are read in up to three pieces on threads of
       their own (ArraySplit): the fuzzer checks that split reads give what
       the DOM path gives. Read once, at the library's first array. */
    setenv("STRATA_PIECE_BYTES", "48", 0);
    setenv("STRATA_THREADS", "3", 0);
    fuzz_load_fixtures();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fuzz_fixture *fixture;
    const char *model;
    int call, raw;
    struct text owned = {NULL, 0, 0};
    const char *text;
    size_t text_size;
    struct outcome b, d;
    json_t *json;
    json_error_t jerr;

    if (size < 3)
        return 0;
    fixture = &fuzz_fixtures[data[0] % fuzz_fixture_count];
    model = strata_schema_model_name(fixture->schema, data[1] % fixture->model_count);
    call = data[2] & 3;
    if (call == 3)
        call = 0;
    raw = (data[2] & 0x80) != 0;

    if (raw || json_array_size(fixture->inputs) == 0) {
        text = (const char *)data + 3;
        text_size = size - 3;
    } else {
        size_t n = json_array_size(fixture->inputs), truncate = 0;
        size_t pick_input = size > 3 ? data[3] % n : 0;
        struct plan plan = {-1, -1, -1, 0, -1, 0, 0, 0, 0};
        json_t *root = json_deep_copy(json_object_get(json_array_get(fixture->inputs, pick_input), "input"));
        if (call != 0) {
            /* an array of one to three inputs */
            json_t *array = json_array();
            json_array_append_new(array, root);
            if (data[2] & 4)
                json_array_append_new(array, json_deep_copy(json_object_get(
                                                 json_array_get(fixture->inputs, (pick_input + 1) % n), "input")));
            if (data[2] & 8)
                json_array_append_new(array, json_deep_copy(json_object_get(
                                                 json_array_get(fixture->inputs, (pick_input + 2) % n), "input")));
            /* the first input again, byte for byte unless the mutation below
               lands in one copy: nested objects met again are shared by the
               direct reader (SharedModels) and must map as the DOM path's */
            if (data[2] & 0x10)
                json_array_append_new(array, json_deep_copy(json_object_get(
                                                 json_array_get(fixture->inputs, pick_input), "input")));
            root = array;
        }
        root = mutate(root, data + 4, size > 4 ? size - 4 : 0, &plan, &truncate);
        write_value(&owned, root, &plan);
        json_decref(root);
        if (truncate && owned.size > 0)
            owned.size = owned.size * truncate / 257;
        text = owned.data ? owned.data : "";
        text_size = owned.size;
    }

    run_bytes(&b, fixture->schema, model, call, text, text_size);
    if (!b.ok)
        fuzz_check_failure(&b.err, 0);
    json = json_loadb(text, text_size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (json == NULL) {
        /* jansson refuses the text */
        int range = strstr(jerr.text, "too big") != NULL || strstr(jerr.text, "overflow") != NULL;
        if (!range && !has_syntax_first(&b)) {
            char *errs = fuzz_dump(b.errors);
            report(text, text_size, fixture->name, model, call,
                   "jansson: %s (line %d, column %d); the bytes path: %s", jerr.text, jerr.line, jerr.column,
                   b.ok ? "success" : errs);
            free(errs);
            FUZZ_FAIL("jansson refuses the text, the bytes path does not give a syntax error");
        }
        /* range: any well-formed outcome (checked above); a model made must serialize and map back */
        if (range && b.ok && b.count > 0 && (data[2] & 0x40))
            fuzz_exercise_model(b.models[0]);
    } else {
        if (has_syntax_first(&b)) {
            report(text, text_size, fixture->name, model, call, "the bytes path: %s", b.err.message);
            FUZZ_FAIL("jansson parses the text, the bytes path gives a syntax error");
        }
        run_dom(&d, fixture->schema, model, call, json);
        compare(&b, &d, text, text_size, fixture->name, model, call, (data[2] & 0x40) != 0);
        outcome_free(&d);
        json_decref(json);
    }
    outcome_free(&b);
    free(owned.data);
    return 0;
}
