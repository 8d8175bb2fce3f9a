/*
 * conformance_responses.h - the conformance keys of response envelopes
 * (Tests/conformance/README.md, "Responses") for test_conformance.c, which
 * includes this file after its reporting helpers (fail, fail_values,
 * check_errors, report_unexpected_failure).
 *
 * `input` (or `inputText`) is mapped onto `model` with the options of
 * `response` (`root`, `meta`) through strata_map_response() and, from its
 * text, strata_map_responseb(); both must give `records` (canonical
 * dictionaries, in order) and `metadata` (a canonical dictionary or null),
 * or fail with `errors`.
 */

/* One variant: `json` (borrowed) or `text`; `what` names it in failures. */
static void run_response_variant(const char *file, const char *name, strata_schema_t *schema,
                                 const char *model_name, json_t *json, const char *text,
                                 size_t length, json_t *options, const json_t *c,
                                 const char *what) {
    const json_t *errors = json_object_get(c, "errors");
    const json_t *records = json_object_get(c, "records");
    const json_t *metadata = json_object_get(c, "metadata");
    strata_error_t err;
    strata_model_t **models;
    static char unset;
    strata_model_t *meta = (strata_model_t *)&unset; /* the call must set it */
    size_t count = 99, i;

    memset(&err, 0, sizeof err);
    if (json != NULL)
        models = strata_map_response(schema, model_name, json, options, &count, &meta, &err);
    else
        models = strata_map_responseb(schema, model_name, text, length, options, &count, &meta, &err);
    if (meta == (strata_model_t *)&unset) {
        fail(file, name, "%s did not set *metadata", what);
        meta = NULL;
    }
    if (errors != NULL) {
        if (models != NULL) {
            fail_values(file, name, what, errors, NULL);
            fail(file, name, "%s succeeded with %zu records", what, count);
        } else {
            check_errors(file, name, what, errors, &err);
            if (count != 0 || meta != NULL)
                fail(file, name, "%s failed but left count %zu, metadata %p", what, count, (void *)meta);
        }
    } else if (models == NULL) {
        report_unexpected_failure(file, name, what);
        if (count != 0 || meta != NULL)
            fail(file, name, "%s failed but left count %zu, metadata %p", what, count, (void *)meta);
    } else {
        json_t *actual = json_array();
        json_t *actual_meta = meta ? strata_model_dictionary(meta, NULL) : json_null();
        for (i = 0; i < count; i++)
            json_array_append_new(actual, strata_model_dictionary(models[i], NULL));
        if (records != NULL && !json_equal(records, actual))
            fail_values(file, name, "records", records, actual);
        if (metadata != NULL && !json_equal(metadata, actual_meta))
            fail_values(file, name, "metadata", metadata, actual_meta);
        json_decref(actual);
        json_decref(actual_meta);
    }
    if (models != NULL) {
        for (i = 0; i < count; i++)
            strata_model_decref(models[i]);
        strata_free(models);
    }
    strata_model_decref(meta);
}

/* Runs a `response` case; 1 when the case was one. */
static int run_response_case(const char *file, const char *name, strata_schema_t *schema,
                             const json_t *c) {
    json_t *options = json_object_get(c, "response");
    const json_t *input = json_object_get(c, "input");
    const json_t *input_text = json_object_get(c, "inputText");
    const char *model_name = json_string_value(json_object_get(c, "model"));
    if (options == NULL)
        return 0;
    if (model_name == NULL) {
        fail(file, name, "a response case needs a model");
        return 1;
    }
    if (json_is_string(input_text)) {
        run_response_variant(file, name, schema, model_name, NULL, json_string_value(input_text),
                             json_string_length(input_text), options, c, "strata_map_responseb");
    } else if (input != NULL) {
        char *text = json_dumps(input, JSON_ENCODE_ANY | JSON_COMPACT);
        run_response_variant(file, name, schema, model_name, (json_t *)input, NULL, 0, options, c,
                             "strata_map_response");
        if (text == NULL) {
            fail(file, name, "cannot dump the input");
        } else {
            run_response_variant(file, name, schema, model_name, NULL, text, strlen(text), options,
                                 c, "strata_map_responseb");
            free(text);
        }
    } else {
        fail(file, name, "the case has neither `input` nor `inputText`");
    }
    return 1;
}
