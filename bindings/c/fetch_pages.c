/*
 * fetch_pages.c - fetching an API's pages into a graph with libcurl
 * (docs/graph.md, "Fetching pages").
 *
 * The engine makes no request: strata_context_fetch() calls the fetch
 * function below for each page, which makes a GET with libcurl, then takes
 * the page, imports it and follows the model's "paging" to the next one.
 * The second fetch of the same pages sends their validators back
 * (If-Modified-Since), and the server's 304s give the records of last time.
 *
 *   fetch_pages BASE_URL     e.g. http://127.0.0.1:8000/ serving examples/fetch/pages
 *
 * Build: cc fetch_pages.c -lstrata -ljansson -lcurl   (curl_fetch.h beside it)
 */
#include "curl_fetch.h"

#ifndef FETCH_EXAMPLE_DIR
#define FETCH_EXAMPLE_DIR "examples/fetch"
#endif

/* The payload of both functions: the libcurl handle and the pages printed. */
struct run {
    CURL *curl;
    int pages;
};

/* The fetch function: one GET with libcurl (curl_fetch.h). */
static int fetch(const strata_request_t *request, strata_response_t *response, void *payload) {
    return curl_fetch(request, response, ((struct run *)payload)->curl);
}

/* The page function: prints the page; 0 to go on. */
static int page(strata_model_t *const *records, size_t count, const json_t *report, void *payload) {
    int *pages = &((struct run *)payload)->pages;
    const json_t *created = json_object_get(report, "created");
    const char *next = json_string_value(json_object_get(report, "next"));
    (void)records;
    (*pages)++;
    printf("page %d: %s %lld, %zu records, %s, next %s\n", *pages,
           json_string_value(json_object_get(report, "url")),
           (long long)json_integer_value(json_object_get(report, "status")), count,
           json_is_true(json_object_get(report, "cached")) ? "cached"
           : json_object_size(created) > 0                 ? "imported"
                                                           : "unchanged",
           next != NULL ? next : "none");
    return 0;
}

int main(int argc, char **argv) {
    const char *base = argc > 1 ? argv[1] : "http://127.0.0.1:8000/";
    char url[512];
    strata_error_t err;
    strata_schema_t *schema;
    strata_context_t *context;
    struct run run = {NULL, 0};
    long taken;
    int round, status = 0;
    schema = strata_schema_load_file(FETCH_EXAMPLE_DIR "/schema.json", &err);
    if (schema == NULL) {
        fprintf(stderr, "schema: %s\n", err.message);
        return 1;
    }
    context = strata_context_open(schema, NULL, &err);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    run.curl = curl_easy_init();
    snprintf(url, sizeof url, "%ssearch-1.json", base);
    for (round = 1; round <= 2 && context != NULL && run.curl != NULL; round++) {
        printf("round %d\n", round);
        taken = strata_context_fetch(context, "Status", url, fetch, page, &run, 0, 1, &err);
        if (taken < 0) {
            fprintf(stderr, "fetch: %s at \"%s\": %s\n", err.code_name, err.path, err.message);
            status = 1;
            break;
        }
    }
    if (status == 0 && context != NULL) {
        json_t *key = json_integer(7);
        strata_model_t *ann = strata_context_get(context, "User", key, &err); /* key: borrowed */
        json_t *wrote = ann != NULL ? strata_model_get(ann, "statuses", &err) : NULL;
        printf("%lld statuses, ann wrote %zu\n", strata_context_count(context, "Status", &err),
               json_array_size(wrote));
        json_decref(wrote);
        strata_model_decref(ann);
        json_decref(key);
    }
    curl_easy_cleanup(run.curl);
    curl_global_cleanup();
    if (context != NULL) {
        strata_context_close(context);
        strata_context_decref(context);
    }
    strata_schema_decref(schema);
    return status;
}
