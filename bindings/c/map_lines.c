/* map_lines.c - JSON lines through the C API: one callback per model, one
   per bad line, in constant memory (docs/lines.md). */
#include <stdio.h>
#include <strata.h>

#ifndef LINES_EXAMPLE_DIR
#define LINES_EXAMPLE_DIR "examples/lines"
#endif

static int on_model(strata_model_t *issue, size_t line, void *data) {
    json_t *number = strata_model_get(issue, "number", NULL), *title = strata_model_get(issue, "title", NULL);
    (void)data;
    printf("line %zu: #%d %s\n", line, (int)json_integer_value(number), json_string_value(title));
    json_decref(number);
    json_decref(title);
    strata_model_decref(issue); /* the model is a new reference */
    return 0;                   /* non-zero would stop */
}

static int on_error(const json_t *errors, size_t line, void *data) {
    const json_t *first = json_array_get(errors, 0);
    (void)data;
    printf("line %zu: %s at \"%s\": %s\n", line, json_string_value(json_object_get(first, "code")),
           json_string_value(json_object_get(first, "path")), json_string_value(json_object_get(first, "message")));
    return 0;
}

int main(void) {
    strata_error_t error;
    strata_schema_t *schema = strata_schema_load_file(LINES_EXAMPLE_DIR "/schema.json", &error);
    FILE *file = fopen(LINES_EXAMPLE_DIR "/issues.jsonl", "rb");
    int64_t models;
    if (schema == NULL || file == NULL) {
        fprintf(stderr, "cannot load the example: %s\n", error.message);
        return 1;
    }
    models = strata_map_lines_file(schema, "Issue", file, 0, on_model, on_error, NULL, &error);
    printf("%lld models\n", (long long)models);
    fclose(file);
    strata_schema_decref(schema);
    return models == 3 ? 0 : 1;
}
