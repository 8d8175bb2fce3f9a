/*
 * conformance_merge.h - the conformance keys of merge and update
 * (Tests/conformance/README.md, "Merge and update") for test_conformance.c,
 * which includes this file after its reporting helpers (fail, fail_values,
 * check_errors, report_unexpected_failure).
 *
 * `input` is mapped onto `model`; then `mergeWith` (mapped onto `mergeModel`,
 * or `model`) is merged into it with strata_model_merge(), or `update` is
 * applied with strata_model_update() (and, to a copy, with
 * strata_model_updateb(), which must agree). `dictionary` / `json` are
 * expected of the changed model; `errors` of the merge or update, after which
 * the model must be unchanged.
 */

/* After a failed merge or update: the model must equal its copy from before. */
static void check_unchanged(const char *file, const char *name, const char *what,
                            strata_model_t *model, strata_model_t *before,
                            const json_t *before_dict) {
    json_t *after = strata_model_dictionary(model, NULL);
    if (!json_equal((json_t *)before_dict, after))
        fail_values(file, name, what, before_dict, after);
    else if (!strata_model_equal(model, before))
        fail(file, name, "%s: the model is not equal to its copy from before", what);
    json_decref(after);
}

/* Applies `update` to `copy` through strata_model_updateb() and checks that
   it agrees with strata_model_update() (result `rc`, the model `updated`). */
static void check_updateb(const char *file, const char *name, const json_t *c,
                          const json_t *update, int rc, strata_model_t *updated,
                          strata_model_t *copy, const json_t *before_dict) {
    const json_t *errors = json_object_get(c, "errors");
    char *text = json_dumps(update, JSON_ENCODE_ANY | JSON_COMPACT);
    strata_error_t err;
    int rcb;
    memset(&err, 0, sizeof err);
    if (text == NULL) {
        fail(file, name, "cannot serialize `update`");
        return;
    }
    rcb = strata_model_updateb(copy, text, strlen(text), &err);
    free(text);
    if (rcb != rc) {
        fail(file, name, "strata_model_updateb returned %d, strata_model_update %d", rcb, rc);
        return;
    }
    if (rcb != 0) {
        if (errors != NULL)
            check_errors(file, name, "errors (strata_model_updateb)", errors, &err);
        check_unchanged(file, name, "a failed strata_model_updateb changed the model", copy,
                        updated, before_dict);
    } else if (!strata_model_equal(copy, updated)) {
        json_t *a = strata_model_dictionary(copy, NULL), *b = strata_model_dictionary(updated, NULL);
        fail_values(file, name, "strata_model_updateb differs from strata_model_update", b, a);
        json_decref(a);
        json_decref(b);
    }
}

/* `mergeWith` and `update` cases. Returns 1 when the case was one of them. */
static int run_merge_case(const char *file, const char *name, strata_schema_t *schema,
                          const json_t *c) {
    const json_t *merge_with = json_object_get(c, "mergeWith");
    const json_t *update = json_object_get(c, "update");
    const json_t *errors = json_object_get(c, "errors");
    const json_t *dictionary = json_object_get(c, "dictionary");
    const json_t *json = json_object_get(c, "json");
    const char *model_name = json_string_value(json_object_get(c, "model"));
    const char *other_name = json_string_value(json_object_get(c, "mergeModel"));
    strata_model_t *model = NULL, *other = NULL, *before = NULL, *copy = NULL;
    json_t *before_dict = NULL;
    strata_error_t err;
    int rc;

    if (merge_with == NULL && update == NULL)
        return 0;
    memset(&err, 0, sizeof err);
    model = strata_map(schema, model_name, json_object_get(c, "input"), &err);
    if (model == NULL) {
        report_unexpected_failure(file, name, "mapping `input`");
        return 1;
    }
    before = strata_model_copy(model);
    copy = strata_model_copy(model);
    before_dict = strata_model_dictionary(model, NULL);
    if (merge_with != NULL) {
        other = strata_map(schema, other_name ? other_name : model_name, (json_t *)merge_with, &err);
        if (other == NULL) {
            report_unexpected_failure(file, name, "mapping `mergeWith`");
            goto done;
        }
        memset(&err, 0, sizeof err);
        rc = strata_model_merge(model, other, &err);
    } else {
        memset(&err, 0, sizeof err);
        rc = strata_model_update(model, (json_t *)update, &err);
    }
    if (rc != 0) {
        if (errors == NULL) {
            report_unexpected_failure(file, name,
                                      merge_with ? "strata_model_merge" : "strata_model_update");
        } else {
            check_errors(file, name, "errors", errors, &err);
            check_unchanged(file, name, "a failed merge or update changed the model", model, before,
                            before_dict);
        }
    } else if (errors != NULL) {
        json_t *got = strata_model_dictionary(model, NULL);
        fail_values(file, name, "errors", errors, NULL);
        fail_values(file, name, "the merge or update succeeded with", NULL, got);
        json_decref(got);
    } else {
        if (dictionary != NULL) {
            json_t *got = strata_model_dictionary(model, NULL);
            if (!json_equal((json_t *)dictionary, got))
                fail_values(file, name, "dictionary", dictionary, got);
            json_decref(got);
        }
        if (json != NULL) {
            json_t *got = strata_model_to_json(model, NULL);
            if (!json_equal((json_t *)json, got))
                fail_values(file, name, "json", json, got);
            json_decref(got);
        }
        if (dictionary == NULL && json == NULL)
            fail(file, name, "the case expects nothing (no dictionary, json or errors)");
    }
    if (update != NULL)
        check_updateb(file, name, c, update, rc, rc == 0 ? model : before, copy, before_dict);

done:
    json_decref(before_dict);
    strata_model_decref(copy);
    strata_model_decref(before);
    strata_model_decref(other);
    strata_model_decref(model);
    return 1;
}
