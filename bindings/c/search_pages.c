/*
 * search_pages.c - a paged search API response, page by page, with
 * strata_map_response().
 *
 * examples/search/schema.json declares Status with `"root": "statuses"` and
 * `"meta": {"path": "search_metadata", "model": "SearchMetadata"}`. Each page
 * (examples/search/page-N.json) maps to its statuses and its search metadata;
 * the metadata's `nextResults` cursor says whether there is a next page (a
 * real client would GET it; here it reads the next file). The last page has
 * no cursor. Finally an error body (examples/search/error.json) shows that a
 * missing root is an error, not an empty page.
 *
 * Usage: search_pages [EXAMPLE-DIR]
 */
#include <strata.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SEARCH_EXAMPLE_DIR
#define SEARCH_EXAMPLE_DIR "examples/search"
#endif

/* Reads a whole file into a malloc'ed buffer; NULL if it cannot. */
static char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    char *buffer = NULL;
    long size;
    if (file == NULL)
        return NULL;
    if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) >= 0 && fseek(file, 0, SEEK_SET) == 0 &&
        (buffer = malloc((size_t)size + 1)) != NULL) {
        *length = fread(buffer, 1, (size_t)size, file);
    }
    fclose(file);
    return buffer;
}

/* One line per status: id, the user's screen name, the text. */
static void print_status(const strata_model_t *status) {
    json_t *id = strata_model_get(status, "id", NULL);
    json_t *text = strata_model_get(status, "text", NULL);
    json_t *user = strata_model_get(status, "user", NULL);
    printf("  %lld @%s: %s\n", (long long)json_integer_value(id),
           json_string_value(json_object_get(user, "screenName")), json_string_value(text));
    json_decref(id);
    json_decref(text);
    json_decref(user);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : SEARCH_EXAMPLE_DIR;
    char path[4096];
    strata_error_t error;
    strata_schema_t *schema;
    size_t total = 0;
    int page;

    snprintf(path, sizeof path, "%s/schema.json", dir);
    schema = strata_schema_load_file(path, &error);
    if (schema == NULL) {
        fprintf(stderr, "%s: %s at %s: %s\n", path, error.code_name, error.path, error.message);
        return 1;
    }

    for (page = 1;; page++) {
        strata_model_t **statuses, *metadata = NULL;
        json_t *next = NULL;
        size_t count, i;

        snprintf(path, sizeof path, "%s/page-%d.json", dir, page);
        /* the page as a json_t: borrowed by the call, released by us */
        {
            json_error_t json_error;
            json_t *response = json_load_file(path, 0, &json_error);
            if (response == NULL) {
                fprintf(stderr, "%s: %s\n", path, json_error.text);
                strata_schema_decref(schema);
                return 1;
            }
            statuses = strata_map_response(schema, "Status", response, NULL, &count, &metadata, &error);
            json_decref(response);
        }
        if (statuses == NULL) {
            fprintf(stderr, "page %d: %zu errors, the first %s at %s: %s\n", page, error.count,
                    error.code_name, error.path, error.message);
            strata_schema_decref(schema);
            return 1;
        }
        printf("page %d: %zu statuses\n", page, count);
        for (i = 0; i < count; i++) {
            print_status(statuses[i]);
            strata_model_decref(statuses[i]);
        }
        strata_free(statuses);
        total += count;

        if (metadata != NULL)
            next = strata_model_get(metadata, "nextResults", NULL);
        strata_model_decref(metadata);
        if (!json_is_string(next)) { /* absent or null: the last page */
            json_decref(next);
            break;
        }
        printf("  next page: %s\n", json_string_value(next));
        json_decref(next);
    }
    printf("%zu statuses on %d pages\n", total, page);

    /* an error body is not an empty page: the bytes variant, on the body as sent */
    {
        size_t length = 0, count = 0;
        char *body;
        strata_model_t **statuses;
        snprintf(path, sizeof path, "%s/error.json", dir);
        body = read_file(path, &length);
        if (body == NULL) {
            fprintf(stderr, "cannot read %s\n", path);
            strata_schema_decref(schema);
            return 1;
        }
        statuses = strata_map_responseb(schema, "Status", body, length, NULL, &count, NULL, &error);
        free(body);
        if (statuses != NULL) {
            fprintf(stderr, "an error body mapped to %zu statuses\n", count);
            strata_free(statuses);
            strata_schema_decref(schema);
            return 1;
        }
        printf("error body: %s at \"%s\" (%s): %s\n", error.code_name, error.path, error.model,
               error.message);
    }
    strata_schema_decref(schema);
    return 0;
}
