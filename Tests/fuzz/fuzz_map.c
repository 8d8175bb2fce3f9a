/*
 * fuzz_map - a fixed set of real schemas (Tests/fuzz/schemas), random bytes
 * as input.
 *
 * Input format: a first line `FIXTURE MODEL [many]`, then JSON text. An
 * unknown fixture or model name picks one by a hash of the name, so every
 * input maps onto some model. The text is mapped with strata_mapb (or
 * strata_map_manyb), and - when it parses - as a json_t with strata_map (or
 * strata_map_many): both must agree. Every model made goes through
 * fuzz_exercise_model(): dictionary, to_json, get, has, copy, equal, hash,
 * the round trip to JSON and back, merge, update, diff, patch, archive; is
 * paired with the fixture's canned models (merge, diff/patch both ways); and
 * the canned model is updated with the input.
 */
#include "fuzz_common.h"

static unsigned hash_bytes(const char *p, size_t n) {
    unsigned h = 2166136261u;
    while (n--)
        h = (h ^ (unsigned char)*p++) * 16777619u;
    return h;
}

/* The fixture's first input mapped, as a partner for pair calls (or NULL). */
/* jansson refuses a number outside its range (an integer beyond 64 bits,
   1e400) as a syntax error of the whole text; the byte paths read such
   numbers (Tests/fuzz/README.md, "The bytes path against the DOM path"). */
static int refused_for_range(const strata_error_t *err) {
    return strstr(err->message, "too big") != NULL || strstr(err->message, "overflow") != NULL;
}

static strata_model_t *canned[64];

static void release_canned(void) {
    size_t i;
    for (i = 0; i < 64; i++) {
        strata_model_decref(canned[i]);
        canned[i] = NULL;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    size_t i;
    (void)argc;
    (void)argv;
    fuzz_before_unload = release_canned;
    fuzz_load_fixtures();
    for (i = 0; i < fuzz_fixture_count; i++) {
        json_t *first = json_array_get(fuzz_fixtures[i].inputs, 0);
        if (first)
            canned[i] = strata_map(fuzz_fixtures[i].schema, json_string_value(json_object_get(first, "model")),
                                   json_object_get(first, "input"), NULL);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    const char *newline = memchr(text, '\n', size < 200 ? size : 200);
    const char *line_end = newline ? newline : text;
    const char *body = newline ? newline + 1 : text;
    size_t body_size = size - (size_t)(body - text);
    const char *space, *model_name;
    size_t fixture_len, model_len;
    struct fuzz_fixture *fixture;
    char model[128];
    int many;
    strata_error_t err, err2;
    json_t *json;

    /* the header line */
    space = memchr(text, ' ', (size_t)(line_end - text));
    fixture_len = space ? (size_t)(space - text) : (size_t)(line_end - text);
    fixture = fuzz_fixture_named(text, fixture_len, hash_bytes(text, fixture_len));
    model_name = space ? space + 1 : line_end;
    model_len = 0;
    while (model_name + model_len < line_end && model_name[model_len] != ' ' && model_len < sizeof model - 1)
        model_len++;
    memcpy(model, model_name, model_len);
    model[model_len] = '\0';
    many = model_name + model_len + 5 <= line_end && memcmp(model_name + model_len, " many", 5) == 0;
    {
        size_t i, found = 0;
        for (i = 0; i < fixture->model_count; i++)
            if (strcmp(strata_schema_model_name(fixture->schema, i), model) == 0)
                found = 1;
        if (!found)
            snprintf(model, sizeof model, "%s",
                     strata_schema_model_name(fixture->schema,
                                              hash_bytes(model_name, model_len) % fixture->model_count));
    }

    json = strata_json_loadb(body, body_size, &err2);
    if (!many) {
        strata_model_t *m = strata_mapb(fixture->schema, model, body, body_size, &err);
        strata_model_t *m2 = json ? strata_map(fixture->schema, model, json, &err2) : NULL;
        if (m == NULL) {
            fuzz_check_failure(&err, json != NULL);
            FUZZ_ASSERT(m2 == NULL, "mapb failed where map succeeded");
            if (json)
                FUZZ_ASSERT(err.count == err2.count, "mapb and map report %zu and %zu errors", err.count,
                            err2.count);
        } else {
            if (json == NULL) {
                FUZZ_ASSERT(refused_for_range(&err2), "map failed where mapb succeeded");
                fuzz_exercise_model(m);
                strata_model_decref(m);
                return 0;
            }
            FUZZ_ASSERT(m2 != NULL, "map failed where mapb succeeded");
            FUZZ_ASSERT(strata_model_equal(m, m2), "mapb and map made different models");
            fuzz_exercise_model(m);
            fuzz_exercise_update(m, json);
            if (canned[fixture - fuzz_fixtures]) {
                fuzz_exercise_pair(m, canned[fixture - fuzz_fixtures]);
                fuzz_exercise_pair(canned[fixture - fuzz_fixtures], m);
            }
            if (canned[0])
                fuzz_exercise_pair(canned[0], m);
        }
        /* the input as an update of the fixture's canned model, valid or not */
        if (json && canned[fixture - fuzz_fixtures])
            fuzz_exercise_update(canned[fixture - fuzz_fixtures], json);
        strata_model_decref(m);
        strata_model_decref(m2);
    } else {
        size_t n = 7, n2 = 7, i;
        strata_model_t **ms = strata_map_manyb(fixture->schema, model, body, body_size, &n, &err);
        strata_model_t **ms2 = json ? strata_map_many(fixture->schema, model, json, &n2, &err2) : NULL;
        if (ms == NULL) {
            FUZZ_ASSERT(n == 0, "a failed map_many set count %zu", n);
            fuzz_check_failure(&err, json != NULL);
            FUZZ_ASSERT(ms2 == NULL, "map_manyb failed where map_many succeeded");
        } else if (json == NULL) {
            FUZZ_ASSERT(refused_for_range(&err2), "map_many failed where map_manyb succeeded");
            for (i = 0; i < n && i < 8; i++)
                fuzz_exercise_model(ms[i]);
        } else {
            FUZZ_ASSERT(ms2 != NULL && n == n2, "map_many and map_manyb disagree");
            FUZZ_ASSERT(json_is_array(json) && json_array_size(json) == n, "map_many made %zu models", n);
            for (i = 0; i < n; i++) {
                FUZZ_ASSERT(strata_model_equal(ms[i], ms2[i]), "map_many and map_manyb differ at %zu", i);
                if (i < 8)
                    fuzz_exercise_model(ms[i]);
                if (i > 0 && i < 8)
                    fuzz_exercise_pair(ms[i - 1], ms[i]);
            }
        }
        for (i = 0; ms && i < n; i++)
            strata_model_decref(ms[i]);
        for (i = 0; ms2 && i < n2; i++)
            strata_model_decref(ms2[i]);
        strata_free(ms);
        strata_free(ms2);
    }
    json_decref(json);
    return 0;
}
