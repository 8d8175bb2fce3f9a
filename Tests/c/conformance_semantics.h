/*
 * conformance_semantics.h - the conformance keys of diff and patch, archives
 * and schema compatibility (Tests/conformance/README.md) for
 * test_conformance.c, which includes this file after its reporting helpers
 * (fail, fail_values, check_errors, report_unexpected_failure, dump).
 */

/* The file's `schemas` (named schemas that cases refer to), or NULL. */
static const json_t *current_schemas;

/* A schema reference of a case: a name in the file's `schemas`, or a document. */
static const json_t *schema_reference(const json_t *reference) {
    if (json_is_string(reference))
        return json_object_get(current_schemas, json_string_value(reference));
    return reference;
}

static int has_semantic_keys(const json_t *c) {
    const char *keys[] = {"archive", "diffFrom", "patch", "mergePatch", "unarchive", "archiveWith",
                          "compareWith"};
    size_t i;
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_get(c, keys[i]) != NULL)
            return 1;
    return 0;
}

/* A restored model (or NULL and the error) against `dictionary`, `json`, `errors`. */
static void check_restored(const char *file, const char *name, const json_t *c,
                           strata_model_t *restored, const strata_error_t *err) {
    const json_t *errors = json_object_get(c, "errors");
    const json_t *dictionary = json_object_get(c, "dictionary");
    const json_t *json = json_object_get(c, "json");
    if (errors != NULL) {
        if (restored != NULL) {
            json_t *got = strata_model_dictionary(restored, NULL);
            fail_values(file, name, "errors", errors, NULL);
            fail_values(file, name, "unarchive succeeded with", NULL, got);
            json_decref(got);
        } else {
            check_errors(file, name, "errors", errors, err);
        }
        return;
    }
    if (restored == NULL) {
        report_unexpected_failure(file, name, "strata_unarchive");
        return;
    }
    if (dictionary != NULL) {
        json_t *got = strata_model_dictionary(restored, NULL);
        if (!json_equal(dictionary, got))
            fail_values(file, name, "dictionary", dictionary, got);
        json_decref(got);
    }
    if (json != NULL) {
        json_t *got = strata_model_to_json(restored, NULL);
        if (!json_equal(json, got))
            fail_values(file, name, "json", json, got);
        json_decref(got);
    }
}

/* Expected changes against actual ones, in order: only the members given
   are compared, `message` as a substring. */
static int changes_equal(const json_t *expected, const json_t *actual) {
    size_t i;
    if (!json_is_array(expected) || !json_is_array(actual) ||
        json_array_size(expected) != json_array_size(actual))
        return 0;
    for (i = 0; i < json_array_size(expected); i++) {
        const json_t *want = json_array_get(expected, i), *have = json_array_get(actual, i);
        const char *key;
        json_t *value;
        json_object_foreach((json_t *)want, key, value) {
            const json_t *got = json_object_get(have, key);
            if (strcmp(key, "message") == 0) {
                if (!json_is_string(got) || strstr(json_string_value(got), json_string_value(value)) == NULL)
                    return 0;
            } else if (got == NULL || !json_equal(value, (json_t *)got)) {
                return 0;
            }
        }
    }
    return 1;
}

/* `compareWith`, `unarchive`, `archiveWith`: cases that map nothing
   themselves. Returns 1 when the case was one of them. */
static int run_semantic_case(const char *file, const char *name, strata_schema_t *schema,
                             const json_t *c) {
    const json_t *compare_with = json_object_get(c, "compareWith");
    const json_t *unarchive = json_object_get(c, "unarchive");
    const json_t *archive_with = json_object_get(c, "archiveWith");
    strata_error_t err;
    memset(&err, 0, sizeof err);
    if (compare_with != NULL) {
        const json_t *old_doc = schema_reference(compare_with);
        strata_schema_t *old = old_doc ? strata_schema_load((json_t *)old_doc, &err) : NULL;
        json_t *changes;
        if (old == NULL) {
            report_unexpected_failure(file, name, "loading the compareWith schema");
            return 1;
        }
        changes = strata_schema_compare(old, schema, &err);
        if (changes == NULL)
            report_unexpected_failure(file, name, "strata_schema_compare");
        else if (!changes_equal(json_object_get(c, "changes"), changes))
            fail_values(file, name, "changes", json_object_get(c, "changes"), changes);
        json_decref(changes);
        strata_schema_decref(old);
        return 1;
    }
    if (unarchive != NULL) {
        strata_model_t *restored = strata_unarchive(schema, (json_t *)unarchive, &err);
        check_restored(file, name, c, restored, &err);
        strata_model_decref(restored);
        return 1;
    }
    if (archive_with != NULL) {
        const json_t *writer_doc = schema_reference(archive_with);
        const json_t *expected = json_object_get(c, "archive");
        const char *model_name = json_string_value(json_object_get(c, "model"));
        strata_schema_t *writer = writer_doc ? strata_schema_load((json_t *)writer_doc, &err) : NULL;
        strata_model_t *model = NULL, *restored = NULL;
        json_t *archive = NULL;
        if (writer == NULL) {
            report_unexpected_failure(file, name, "loading the archiveWith schema");
            return 1;
        }
        model = strata_map(writer, model_name, json_object_get(c, "input"), &err);
        if (model == NULL) {
            report_unexpected_failure(file, name, "mapping with the archiveWith schema");
        } else {
            archive = strata_model_archive(model, &err);
            if (expected != NULL && !json_equal((json_t *)expected, archive))
                fail_values(file, name, "archive", expected, archive);
            memset(&err, 0, sizeof err);
            restored = strata_unarchive(schema, archive, &err);
            check_restored(file, name, c, restored, &err);
        }
        strata_model_decref(restored);
        json_decref(archive);
        strata_model_decref(model);
        strata_schema_decref(writer);
        return 1;
    }
    return 0;
}

/* A patch result (or NULL and the error) against `patched` / `patchErrors`. */
static void check_patched(const char *file, const char *name, const char *what, const json_t *c,
                          strata_model_t *patched, const strata_error_t *err) {
    const json_t *expected = json_object_get(c, "patched");
    const json_t *errors = json_object_get(c, "patchErrors");
    if (errors != NULL) {
        if (patched != NULL) {
            json_t *got = strata_model_dictionary(patched, NULL);
            fail_values(file, name, "patchErrors", errors, NULL);
            fail_values(file, name, "the patch succeeded with", NULL, got);
            json_decref(got);
        } else {
            check_errors(file, name, "patchErrors", errors, err);
        }
        return;
    }
    if (patched == NULL) {
        report_unexpected_failure(file, name, what);
        return;
    }
    if (expected != NULL) {
        json_t *got = strata_model_dictionary(patched, NULL);
        if (!json_equal((json_t *)expected, got))
            fail_values(file, name, "patched", expected, got);
        json_decref(got);
    }
}

/* `archive`, `diffFrom` (`diff`, `mergeDiff`, `mergeDiffErrors`), `patch`
   and `mergePatch` (`patched`, `patchErrors`) of a mapped model. */
static void check_semantic_keys(const char *file, const char *name, strata_schema_t *schema,
                                strata_model_t *model, const json_t *c) {
    const json_t *expected_archive = json_object_get(c, "archive");
    const json_t *diff_from = json_object_get(c, "diffFrom");
    const json_t *patch = json_object_get(c, "patch");
    const json_t *merge_patch = json_object_get(c, "mergePatch");
    strata_error_t err;
    memset(&err, 0, sizeof err);
    if (expected_archive != NULL) {
        json_t *archive = strata_model_archive(model, &err);
        strata_model_t *restored;
        if (!json_equal((json_t *)expected_archive, archive))
            fail_values(file, name, "archive", expected_archive, archive);
        restored = strata_unarchive(schema, archive, &err);
        if (restored == NULL)
            report_unexpected_failure(file, name, "strata_unarchive(strata_model_archive(m))");
        else if (!strata_model_equal(restored, model))
            fail(file, name, "unarchive(archive(m)) is not equal to m");
        strata_model_decref(restored);
        json_decref(archive);
    }
    if (diff_from != NULL) {
        strata_model_t *a = strata_map(schema, strata_model_name(model), (json_t *)diff_from, &err);
        json_t *ops = NULL, *merge = NULL;
        strata_model_t *patched = NULL;
        const json_t *expected_diff = json_object_get(c, "diff");
        const json_t *expected_merge = json_object_get(c, "mergeDiff");
        const json_t *merge_errors = json_object_get(c, "mergeDiffErrors");
        if (a == NULL) {
            report_unexpected_failure(file, name, "mapping diffFrom");
            return;
        }
        ops = strata_model_diff(a, model, &err);
        if (ops == NULL) {
            report_unexpected_failure(file, name, "strata_model_diff");
        } else {
            if (expected_diff != NULL && !json_equal((json_t *)expected_diff, ops))
                fail_values(file, name, "diff", expected_diff, ops);
            patched = strata_model_patch(a, ops, &err);
            if (patched == NULL)
                report_unexpected_failure(file, name, "strata_model_patch(a, diff(a, b))");
            else if (!strata_model_equal(patched, model))
                fail(file, name, "patch(a, diff(a, b)) is not equal to b");
            strata_model_decref(patched);
            patched = NULL;
        }
        memset(&err, 0, sizeof err);
        merge = strata_model_diff_merge(a, model, &err);
        if (merge == NULL) {
            if (merge_errors != NULL)
                check_errors(file, name, "mergeDiffErrors", merge_errors, &err);
            else
                report_unexpected_failure(file, name, "strata_model_diff_merge");
        } else {
            if (merge_errors != NULL)
                fail_values(file, name, "mergeDiffErrors: merge diff succeeded with", merge_errors, merge);
            if (expected_merge != NULL && !json_equal((json_t *)expected_merge, merge))
                fail_values(file, name, "mergeDiff", expected_merge, merge);
            patched = strata_model_merge_patch(a, merge, &err);
            if (patched == NULL)
                report_unexpected_failure(file, name, "strata_model_merge_patch(a, diff_merge(a, b))");
            else if (!strata_model_equal(patched, model))
                fail(file, name, "merge_patch(a, diff_merge(a, b)) is not equal to b");
            strata_model_decref(patched);
        }
        json_decref(merge);
        json_decref(ops);
        strata_model_decref(a);
    }
    if (patch != NULL) {
        strata_model_t *patched;
        memset(&err, 0, sizeof err);
        patched = strata_model_patch(model, (json_t *)patch, &err);
        check_patched(file, name, "strata_model_patch", c, patched, &err);
        strata_model_decref(patched);
    }
    if (merge_patch != NULL) {
        strata_model_t *patched;
        memset(&err, 0, sizeof err);
        patched = strata_model_merge_patch(model, (json_t *)merge_patch, &err);
        check_patched(file, name, "strata_model_merge_patch", c, patched, &err);
        strata_model_decref(patched);
    }
}
