/*
 * curl_fetch.h - one GET with libcurl, as strata_context_fetch()'s fetch
 * function makes it (docs/graph.md, "Fetching pages"): the request's headers
 * sent, the status, the headers (["Name", "value"] pairs) and the body
 * handed back. Used by fetch_pages.c and the C tests' Tests/c/test_fetch_api.c.
 */
#ifndef STRATA_CURL_FETCH_H
#define STRATA_CURL_FETCH_H

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strata.h>

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

/* One GET with libcurl on `curl`, as a strata_fetch_fn does it. Ownership:
   response->headers and response->body are handed to Strata (stolen). */
static int curl_fetch(const strata_request_t *request, strata_response_t *response, CURL *curl) {
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

#endif
