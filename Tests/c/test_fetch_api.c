/*
 * test_fetch_api.c - strata_context_fetch() with libcurl (bindings/c/curl_fetch.h)
 * against the test API every face's fetch tests share (Tests/http/fetch_api.py,
 * which runs this program with STRATA_TEST_HTTP_URL set): next links in the
 * body, Link headers and cursors; an ETag and 304s answered from the cache;
 * a 500, a truncated body and a slow page; a page function that stops.
 */
#include "check.h"
#include "curl_fetch.h"

static const char SCHEMA[] =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"}, \"name\": {\"type\": \"string\"},"
    "  \"tweets\": {\"type\": \"[Tweet]\", \"inverse\": \"user\", \"json\": false}}},"
    "\"Tweet\": {\"primaryKey\": \"id\", \"root\": \"statuses\", \"paging\": {\"next\": \"search_metadata.next_results\"},"
    "  \"properties\": {\"id\": {\"type\": \"int\"}, \"text\": {\"type\": \"string\"},"
    "  \"user\": {\"type\": \"User?\", \"inverse\": \"tweets\"}}},"
    "\"LinkTweet\": {\"primaryKey\": \"id\", \"paging\": {\"next\": \"link\"},"
    "  \"properties\": {\"id\": {\"type\": \"int\"}, \"text\": {\"type\": \"string\"}}},"
    "\"CursorTweet\": {\"primaryKey\": \"id\", \"root\": \"data\", \"paging\": {\"cursor\": \"meta.cursor\", \"param\": \"cursor\"},"
    "  \"properties\": {\"id\": {\"type\": \"int\"}, \"text\": {\"type\": \"string\"}}}}}";

static const char *base;
static CURL *curl;
static strata_schema_t *schema;

/* What the page function saw: per page, its record count, status and whether it was cached. */
struct seen {
    int pages;
    size_t records[8];
    long long statuses[8];
    int cached[8];
    int stop_after; /* 0: never */
};

static int fetch(const strata_request_t *request, strata_response_t *response, void *payload) {
    (void)payload;
    return curl_fetch(request, response, curl);
}

static int page(strata_model_t *const *records, size_t count, const json_t *report, void *payload) {
    struct seen *seen = payload;
    (void)records;
    if (seen->pages < 8) {
        seen->records[seen->pages] = count;
        seen->statuses[seen->pages] = json_integer_value(json_object_get(report, "status"));
        seen->cached[seen->pages] = json_is_true(json_object_get(report, "cached"));
    }
    seen->pages++;
    return seen->stop_after != 0 && seen->pages >= seen->stop_after;
}

static long run(strata_context_t *context, const char *model, const char *path, struct seen *seen,
                strata_error_t *err) {
    char url[512];
    snprintf(url, sizeof url, "%s%s", base, path);
    return strata_context_fetch(context, model, url, fetch, page, seen, 0, 1, err);
}

static void pages_follow_next_links_link_headers_and_cursors(void) {
    static const char *const models[] = {"Tweet", "LinkTweet", "CursorTweet"};
    static const char *const paths[] = {"/search", "/links", "/cursor"};
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, NULL, &err);
    size_t i;
    CHECK(context != NULL);
    if (context == NULL)
        return;
    for (i = 0; i < 3; i++) {
        struct seen seen = {0};
        CHECK_MSG(run(context, models[i], paths[i], &seen, &err) == 3, "%s: %s", paths[i], err.message);
        CHECK(seen.pages == 3 && seen.records[0] == 4 && seen.records[2] == 4 && seen.statuses[1] == 200);
        CHECK(strata_context_count(context, models[i], &err) == 12);
    }
    {
        /* the page function stops after two: the third is never asked for */
        struct seen seen = {0};
        seen.stop_after = 2;
        strata_context_t *fresh = strata_context_open(schema, NULL, &err);
        CHECK(run(fresh, "Tweet", "/search", &seen, &err) == 2);
        CHECK(strata_context_count(fresh, "Tweet", &err) == 8);
        strata_context_close(fresh);
        strata_context_decref(fresh);
    }
    {
        json_t *key = json_integer(1);
        strata_model_t *user = strata_context_get(context, "User", key, &err); /* key: borrowed */
        json_t *tweets = user != NULL ? strata_model_get(user, "tweets", &err) : NULL;
        CHECK_JSON(tweets, "[1, 3, 5, 7, 9, 11]");
        json_decref(tweets);
        strata_model_decref(user);
        json_decref(key);
    }
    strata_context_close(context);
    strata_context_decref(context);
}

static void a_page_answered_304_comes_from_the_cache(void) {
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, NULL, &err);
    struct seen first = {0}, second = {0};
    CHECK(run(context, "Tweet", "/search", &first, &err) == 3);
    CHECK(first.cached[0] == 0 && first.statuses[0] == 200);
    CHECK(run(context, "Tweet", "/search", &second, &err) == 3);
    CHECK(second.cached[0] == 1 && second.cached[2] == 1 && second.statuses[0] == 304);
    CHECK(second.records[0] == 4 && second.records[2] == 4);
    strata_context_close(context);
    strata_context_decref(context);
}

static void a_500_a_truncated_body_and_a_slow_page(void) {
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, NULL, &err);
    struct seen seen = {0};
    CHECK(run(context, "Tweet", "/error", &seen, &err) == -1);
    CHECK_CODE(err, STRATA_ERROR_HTTP);
    CHECK_CONTAINS(err.message, "500");
    CHECK_CONTAINS(err.message, "/error");
    CHECK_CONTAINS(err.message, "boom");
    CHECK(run(context, "Tweet", "/truncated", &seen, &err) == -1);
    CHECK_CODE(err, STRATA_ERROR_SYNTAX);
    CHECK_CONTAINS(err.message, "/truncated");
    CHECK(seen.pages == 0);
    CHECK(strata_context_count(context, "Tweet", &err) == 0);
    CHECK(run(context, "Tweet", "/slow", &seen, &err) == 1);
    CHECK(seen.records[0] == 4);
    strata_context_close(context);
    strata_context_decref(context);
}

int main(int argc, char **argv) {
    static const struct check_test tests[] = {
        {"pages_follow_next_links_link_headers_and_cursors", pages_follow_next_links_link_headers_and_cursors},
        {"a_page_answered_304_comes_from_the_cache", a_page_answered_304_comes_from_the_cache},
        {"a_500_a_truncated_body_and_a_slow_page", a_500_a_truncated_body_and_a_slow_page},
    };
    strata_error_t err;
    int status;
    base = getenv("STRATA_TEST_HTTP_URL");
    if (base == NULL) {
        fprintf(stderr, "STRATA_TEST_HTTP_URL is not set: run through Tests/http/fetch_api.py\n");
        return 1;
    }
    schema = strata_schema_loadb(SCHEMA, sizeof SCHEMA - 1, &err);
    if (schema == NULL) {
        fprintf(stderr, "schema: %s\n", err.message);
        return 1;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    curl = curl_easy_init();
    status = check_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
    curl_easy_cleanup(curl);
    curl_global_cleanup();
    strata_schema_decref(schema);
    return status;
}
