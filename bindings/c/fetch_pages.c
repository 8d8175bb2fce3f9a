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
 * Build: cc fetch_pages.c -lstrata -ljansson -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata.h>

#ifndef FETCH_EXAMPLE_DIR
#define FETCH_EXAMPLE_DIR "examples/fetch"
#endif

/* The payload of both functions: the libcurl handle and the pages printed. */
struct run {
    CURL *curl;
    int pages;
};

/* The body, grown as libcurl hands it over. */
struct body {
    char *bytes;
    size_t length;
};

static size_t on_body(char *data, size_t size, size_t count, void *out) {
    struct body *body = out;
    size_t more = size * count;
    char *grown = realloc(body->bytes, body->length + more + 1);
    if (grown == NULL)
        return 0; /* libcurl stops with CURLE_WRITE_ERROR */
    memcpy(grown + body->length, data, more);
    body->bytes = grown;
    body->length += more;
    return more;
}

/* Each header line "Name: value" as a ["Name", "value"] pair. */
static size_t on_header(char *line, size_t size, size_t count, void *out) {
    size_t length = size * count;
    const char *colon = memchr(line, ':', length);
    if (colon != NULL) {
        const char *value = colon + 1;
        size_t rest = length - (size_t)(value - line);
        while (rest > 0 && (*value == ' ' || *value == '\t')) {
            value++;
            rest--;
        }
        while (rest > 0 && (value[rest - 1] == '\r' || value[rest - 1] == '\n'))
            rest--;
        json_array_append_new(out, json_pack("[s#s#]", line, (int)(colon - line), value, (int)rest));
    }
    return length;
}

/* The fetch function: one GET with libcurl. Ownership: response->headers and
   response->body are handed to Strata (stolen). */
static int fetch(const strata_request_t *request, strata_response_t *response, void *payload) {
    CURL *curl = ((struct run *)payload)->curl;
    struct curl_slist *headers = NULL;
    struct body body = {NULL, 0};
    json_t *received = json_array();
    size_t i;
    long status = 0;
    CURLcode code;
    for (i = 0; i < json_array_size(request->headers); i++) {
        const json_t *pair = json_array_get(request->headers, i);
        char line[1024];
        snprintf(line, sizeof line, "%s: %s", json_string_value(json_array_get(pair, 0)),
                 json_string_value(json_array_get(pair, 1)));
        headers = curl_slist_append(headers, line);
    }
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, received);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
    code = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (code != CURLE_OK) {
        snprintf(response->error, sizeof response->error, "%s", curl_easy_strerror(code));
        free(body.bytes);
        json_decref(received);
        return 1;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    response->status = (int)status;
    response->headers = received;
    response->body = body.bytes;
    response->length = body.length;
    return 0;
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
