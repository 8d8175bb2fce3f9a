/*
 * github_issues.c - the C API end to end on a GitHub API response.
 *
 * Loads the schema of examples/github/schema.json (models GHIssue, GHUser,
 * GHLabel, GHMilestone), maps the response of
 * `GET /repos/{owner}/{repo}/issues` in examples/github/issues.json (an array
 * of issues) with strata_map_many(), prints each issue's canonical dictionary
 * and the serialized JSON of the first one, and then shows the error report
 * for a deliberately bad issue.
 *
 * Usage: github_issues [SCHEMA.json [ISSUES.json]]
 */
#include <strata.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GITHUB_EXAMPLE_DIR
#define GITHUB_EXAMPLE_DIR "examples/github"
#endif

/* Prints `json` indented, then a newline. */
static void print_json(const json_t *json) {
    char *text = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    printf("%s\n", text ? text : "(null)");
    free(text);
}

/* Prints every error of the last failed call, one line each. */
static void print_errors(const strata_error_t *error) {
    json_t *errors = strata_errors();
    size_t i;
    printf("%zu error%s; the first: %s at \"%s\" (%s.%s): %s\n", error->count,
           error->count == 1 ? "" : "s", error->code_name, error->path, error->model,
           error->property, error->message);
    for (i = 0; i < json_array_size(errors); i++) {
        json_t *e = json_array_get(errors, i);
        const char *model = json_string_value(json_object_get(e, "model"));
        const char *property = json_string_value(json_object_get(e, "property"));
        printf("  %-12s %-22s %s%s%s: %s\n", json_string_value(json_object_get(e, "code")),
               json_string_value(json_object_get(e, "path")), model ? model : "",
               property && *property ? "." : "", property ? property : "",
               json_string_value(json_object_get(e, "message")));
    }
    json_decref(errors);
}

int main(int argc, char **argv) {
    const char *schema_path = argc > 1 ? argv[1] : GITHUB_EXAMPLE_DIR "/schema.json";
    const char *issues_path = argc > 2 ? argv[2] : GITHUB_EXAMPLE_DIR "/issues.json";
    strata_error_t error;
    strata_schema_t *schema;
    strata_model_t **issues;
    strata_model_t *bad_issue;
    json_error_t json_error;
    json_t *response, *bad_input, *value;
    size_t count, i;
    int status = 0;

    /* 1. The schema. Every problem in it would be reported at once. */
    schema = strata_schema_load_file(schema_path, &error);
    if (schema == NULL) {
        fprintf(stderr, "%s: cannot load the schema:\n", schema_path);
        print_errors(&error);
        return 1;
    }
    printf("Strata %s, schema version %lld with %zu models:", strata_version(),
           (long long)strata_schema_version(schema), strata_schema_model_count(schema));
    for (i = 0; i < strata_schema_model_count(schema); i++)
        printf(" %s", strata_schema_model_name(schema, i));
    printf("\n\n");

    /* 2. The API response: an array of issues, mapped in one call. */
    response = json_load_file(issues_path, 0, &json_error);
    if (response == NULL) {
        fprintf(stderr, "%s:%d:%d: %s\n", issues_path, json_error.line, json_error.column,
                json_error.text);
        strata_schema_decref(schema);
        return 1;
    }
    issues = strata_map_many(schema, "GHIssue", response, &count, &error);
    json_decref(response); /* borrowed: the models hold what they need */
    if (issues == NULL) {
        fprintf(stderr, "%s: cannot map the issues:\n", issues_path);
        print_errors(&error);
        strata_schema_decref(schema);
        return 1;
    }

    printf("%zu issues:\n", count);
    for (i = 0; i < count; i++) {
        json_t *number = strata_model_get(issues[i], "number", NULL);
        json_t *title = strata_model_get(issues[i], "title", NULL);
        json_t *reporter = strata_model_get(issues[i], "reporterLogin", NULL);
        int is_pull = strata_model_has(issues[i], "pullRequest", NULL) == 1;
        printf("  #%lld %-45s by %-16s%s\n", (long long)json_integer_value(number),
               json_string_value(title), json_string_value(reporter),
               is_pull ? " (pull request)" : "");
        json_decref(number);
        json_decref(title);
        json_decref(reporter);
    }

    for (i = 0; i < count; i++) {
        json_t *dictionary = strata_model_dictionary(issues[i], NULL);
        printf("\nCanonical dictionary of issue %zu:\n", i);
        print_json(dictionary);
        json_decref(dictionary);
    }

    if (count > 0) {
        json_t *serialized = strata_model_to_json(issues[0], &error);
        printf("\nThe first issue serialized back to JSON:\n");
        print_json(serialized);
        json_decref(serialized);

        /* A property JSON never sees starts absent. */
        strata_model_t *copy = strata_model_copy(issues[0]);
        printf("\nstarred is %s; a copy is %s to the original (hash %016llx)\n",
               strata_model_has(issues[0], "starred", NULL) == 0 ? "absent" : "present",
               strata_model_equal(issues[0], copy) ? "equal" : "not equal",
               (unsigned long long)strata_model_hash(copy));
        strata_model_decref(copy);
    }

    for (i = 0; i < count; i++)
        strata_model_decref(issues[i]);
    strata_free(issues);

    /* 3. A deliberately bad issue: every error is reported, each with the
       JSON Pointer of the value, the model and the property. */
    bad_input = json_pack(
        "{s:s, s:s, s:i, s:s, s:s, s:b, s:s, s:[{s:s, s:s}], s:o, s:s}", "url",
        "https://api.github.com/repos/octocat/Hello-World/issues/1", "html_url", "not a url",
        "id", 1, "number", "1347", "state", "reopened", "locked", 0, "user", "octocat",
        "labels", "id", "bug", "name", "bug", "assignee", json_integer(583231), "created_at",
        "2011-04-22T13:33:48Z");
    printf("\nMapping a bad issue:\n");
    print_json(bad_input);
    bad_issue = strata_map(schema, "GHIssue", bad_input, &error);
    if (bad_issue != NULL) {
        printf("unexpectedly mapped\n");
        strata_model_decref(bad_issue);
        status = 1;
    } else {
        print_errors(&error);
    }
    json_decref(bad_input);

    /* Unknown names and NULL arguments are errors too, never crashes. */
    value = strata_model_get(NULL, "title", &error);
    printf("\nstrata_model_get(NULL, ...): %s error: %s\n", error.code_name, error.message);
    json_decref(value);
    value = json_object();
    bad_issue = strata_map(schema, "GHRepository", value, &error);
    if (bad_issue == NULL)
        printf("strata_map(schema, \"GHRepository\", {}, ...): %s error: %s\n", error.code_name,
               error.message);
    strata_model_decref(bad_issue);
    json_decref(value);

    strata_schema_decref(schema);
    return status;
}
