/*
 * fuzz_schema - random bytes as a schema document.
 *
 * strata_schema_loadb() on the bytes. A failure must be a well-formed error
 * list; the same bytes parsed first (strata_json_loadb) and loaded as a json_t
 * (strata_schema_load) must give the same outcome. A schema that loads is
 * used: every model (up to 32) is mapped from `{}`, from the document itself
 * and from `[{}]` with map_many, and every model that maps goes through
 * fuzz_exercise_model() (dictionary, to_json, get, has, copy, equal, hash,
 * merge, update, diff, patch, archive; no round trip: see fuzz_common.h);
 * the two loads compare (strata_schema_compare) without a change.
 */
#include "fuzz_common.h"

static void use_schema(strata_schema_t *schema, json_t *doc) {
    size_t count = strata_schema_model_count(schema), i;
    json_t *empty = json_object();
    strata_model_t *previous = NULL;
    FUZZ_ASSERT(count >= 1, "a loaded schema has no model");
    FUZZ_ASSERT(strata_schema_model_name(schema, count) == NULL, "a model name past the end");
    FUZZ_ASSERT(strata_schema_version(schema) >= 0, "a negative version");
    for (i = 0; i < count && i < 32; i++) {
        const char *name = strata_schema_model_name(schema, i);
        strata_error_t err;
        strata_model_t *model;
        strata_model_t **many;
        size_t n = 0, k;
        FUZZ_ASSERT(name != NULL, "model %zu has no name", i);

        model = strata_map(schema, name, empty, &err);
        if (model) {
            fuzz_check_success(&err);
            fuzz_exercise_model(model);
            if (previous)
                fuzz_exercise_pair(previous, model);
            strata_model_decref(previous);
            previous = model;
        } else {
            fuzz_check_failure(&err, 1);
        }

        if (doc) {
            model = strata_map(schema, name, doc, &err);
            if (model) {
                fuzz_exercise_model(model);
                fuzz_exercise_update(model, empty);
                strata_model_decref(model);
            } else {
                fuzz_check_failure(&err, 1);
            }
        }

        many = strata_map_manyb(schema, name, "[{}, {}]", 8, &n, &err);
        if (many) {
            FUZZ_ASSERT(n == 2, "map_many of two made %zu", n);
            FUZZ_ASSERT(strata_model_equal(many[0], many[1]) == 1, "two models of {} differ");
            for (k = 0; k < n; k++)
                strata_model_decref(many[k]);
            strata_free(many);
        } else {
            FUZZ_ASSERT(n == 0, "a failed map_many set count %zu", n);
            fuzz_check_failure(&err, 1);
        }
    }
    strata_model_decref(previous);
    json_decref(empty);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_round_trip = 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    strata_error_t err, err2;
    const char *text = (const char *)data;
    strata_schema_t *schema = strata_schema_loadb(text, size, &err);
    json_t *doc = strata_json_loadb(text, size, &err2);
    strata_schema_t *again = doc ? strata_schema_load(doc, &err2) : NULL;

    if (schema == NULL) {
        fuzz_check_failure(&err, doc != NULL);
        if (doc != NULL) {
            FUZZ_ASSERT(again == NULL, "loadb refused a document that load accepted");
            FUZZ_ASSERT(err.count == err2.count && err.code == err2.code,
                        "loadb and load disagree: %zu/%d vs %zu/%d errors", err.count, (int)err.code,
                        err2.count, (int)err2.code);
        }
    } else {
        FUZZ_ASSERT(doc != NULL && again != NULL, "load refused a document that loadb accepted");
        FUZZ_ASSERT(strata_schema_model_count(schema) == strata_schema_model_count(again),
                    "loadb and load count different models");
        use_schema(schema, doc);
#if STRATA_FUZZ_HAVE_ARCHIVE
        {
            json_t *changes = strata_schema_compare(schema, again, &err2);
            char *c = fuzz_dump(changes);
            FUZZ_ASSERT(changes != NULL && json_is_array(changes) && json_array_size(changes) == 0,
                        "two loads of one document differ: %.2000s", c);
            free(c);
            json_decref(changes);
        }
#endif
        /* a schema outlives the document it came from */
        json_decref(doc);
        doc = NULL;
        use_schema(again, NULL);
    }
    strata_schema_decref(again);
    strata_schema_decref(schema);
    json_decref(doc);
    return 0;
}
