/*
 * fuzz_bytes_parse - random bytes into the bytes path of mapping
 * (strata_mapb, strata_map_manyb, strata_map_responseb), with two schemas
 * written here: a permissive one (unknown keys kept, `json` values, key
 * paths, a recursive model, dates, every scalar type) that makes the parser
 * read almost everything, and a strict one (unknown keys rejected, required
 * keys) that makes it fail early. It must never crash, leak or read outside
 * the buffer (ASan + UBSan + LeakSanitizer); a failure must be a well-formed
 * error list, and a model made must serialize and map back onto an equal
 * model.
 *
 * Input: byte 0 picks the model and the call (bits 0-2: model, bits 3-4:
 * 0 or 3 strata_mapb, 1 strata_map_manyb, 2 strata_map_responseb); the
 * bytes after it are the text. The buffer holds exactly the text (no NUL
 * after it), so a read past the end shows under ASan.
 */
#include "fuzz_common.h"

static const char schema_text[] =
    "{\"strata\":1,\"models\":{"
    "\"Any\":{\"unknownKeys\":\"keep\",\"properties\":{"
    "\"id\":{\"type\":\"int\"},\"name\":{\"type\":\"string\"},\"score\":{\"type\":\"double\"},"
    "\"flag\":{\"type\":\"bool\"},\"when\":{\"type\":\"date?\"},\"data\":{\"type\":\"json\"},"
    "\"login\":{\"type\":\"string?\",\"json\":\"user.login\"},\"child\":{\"type\":\"Any?\"},"
    "\"items\":{\"type\":\"[Any]\"},\"tags\":{\"type\":\"[string?]\"},\"counts\":{\"type\":\"{int}\"}}},"
    "\"Raw\":{\"unknownKeys\":\"keep\",\"properties\":{\"value\":{\"type\":\"json\"}}},"
    "\"Loose\":{\"properties\":{\"a\":{\"type\":\"json?\"},\"b\":{\"type\":\"[json]\"},"
    "\"deep\":{\"type\":\"string?\",\"json\":\"x.y.z\"}}},"
    "\"Strict\":{\"unknownKeys\":\"reject\",\"properties\":{"
    "\"id\":{\"type\":\"int\",\"required\":true},\"name\":{\"type\":\"string\",\"required\":true},"
    "\"when\":{\"type\":\"date\"},\"ratio\":{\"type\":\"double\"},\"kind\":{\"type\":\"string\","
    "\"enum\":[[\"a\",\"a\"],[\"b\",\"b\"]]}}},"
    "\"Listed\":{\"root\":\"items\",\"properties\":{\"id\":{\"type\":\"int\",\"required\":true},"
    "\"tags\":{\"type\":\"[string]\"}}}"
    "}}";

static strata_schema_t *schema;

static void release_schema(void) {
    strata_schema_decref(schema);
    schema = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    strata_error_t err;
    (void)argc;
    (void)argv;
    schema = strata_schema_loadb(schema_text, sizeof schema_text - 1, &err);
    if (schema == NULL) {
        fprintf(stderr, "fuzz_bytes_parse: the schema does not load: %s at %s: %s\n", err.code_name, err.path,
                err.message);
        exit(2);
    }
    atexit(release_schema);
    return 0;
}

static void check_model(strata_model_t *m) {
    strata_error_t err;
    json_t *out = strata_model_to_json(m, &err);
    strata_model_t *back;
    FUZZ_ASSERT(out != NULL, "to_json of a model the bytes path made failed: %s", err.message);
    back = fuzz_remap(m, out);
    if (back) {
        /* a second round trip is exact (README: values more precise than their JSON) */
        json_t *out2 = strata_model_to_json(back, &err);
        strata_model_t *back2 = out2 ? fuzz_remap(back, out2) : NULL;
        FUZZ_ASSERT(back2 != NULL && strata_model_equal(back, back2), "the model's JSON does not map back");
        strata_model_decref(back2);
        json_decref(out2);
    } else {
        FUZZ_FAIL("the JSON of a model the bytes path made does not map back");
    }
    strata_model_decref(back);
    json_decref(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const models[] = {"Any", "Raw", "Loose", "Strict", "Listed", "Any", "Raw", "Strict"};
    const char *model, *text;
    size_t text_size, count = 5, i;
    int call;
    strata_error_t err;
    strata_model_t **many = NULL, *one = NULL, *meta = NULL;
    char *copy;

    if (size < 1)
        return 0;
    model = models[data[0] & 7];
    call = (data[0] >> 3) & 3;
    if (call == 3)
        call = 0; /* strata_mapb */
    /* an exact-size copy of the text, so that reading past it is caught */
    text_size = size - 1;
    copy = malloc(text_size ? text_size : 1);
    FUZZ_ASSERT(copy != NULL, "out of memory");
    memcpy(copy, data + 1, text_size);
    text = copy;

    if (call == 1)
        many = strata_map_manyb(schema, model, text, text_size, &count, &err);
    else if (call == 2)
        many = strata_map_responseb(schema, model, text, text_size, NULL, &count, (data[0] & 32) ? NULL : &meta,
                                    &err);
    else
        one = strata_mapb(schema, model, text, text_size, &err);

    if (one == NULL && many == NULL) {
        json_error_t jerr;
        json_t *parsed = json_loadb(text, text_size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        FUZZ_ASSERT(count == 0 || call == 0, "a failed call set count %zu", count);
        FUZZ_ASSERT(meta == NULL, "a failed call set metadata");
        fuzz_check_failure(&err, parsed != NULL);
        json_decref(parsed);
    } else {
        fuzz_check_success(&err);
        if (one)
            check_model(one);
        for (i = 0; many && i < count; i++)
            if (i < 4)
                check_model(many[i]);
        if (meta)
            check_model(meta);
    }
    strata_model_decref(one);
    strata_model_decref(meta);
    for (i = 0; many && i < count; i++)
        strata_model_decref(many[i]);
    strata_free(many);
    free(copy);
    return 0;
}
