/*
 * fuzz_graph - random import / delete / reopen sequences against one graph
 * context, with the graph's invariants checked after every step.
 *
 * The schema (below) has colliding keys (ids 0..7, four tag names), a
 * one-to-many inverse (Post.author <-> User.posts), a many-to-many inverse
 * (Post.tags <-> Tag.posts), a one-to-one inverse with a child keyed by its
 * parent (Post.source <-> Source.post), relationships without an inverse
 * (Post.editors, User.best) and one that deletes its orphans (Album.photos).
 *
 * Input: byte 0 bit 1 selects a schema generated from the input's next
 * bytes, with its own steps and oracle (fuzz_graph_generated.h); otherwise
 * the fixed schema below. Byte 0 bit 0 puts the context in an SQLite file (then the reopen
 * step closes and opens it; the file is per process, in /dev/shm when it is
 * there, else /tmp, or STRATA_FUZZ_TMPDIR, and removed after each input);
 * byte 0 bit 2 makes that file context keep no record in memory between calls,
 * bit 3 a cache limit of 3 (trimmed after most calls to the records used last);
 * the rest is a list of steps, each an opcode byte and the bytes its input
 * is built from. Every other import goes as text (strata_context_importb:
 * the byte parser, an array element by element; every other one of those
 * with the records at a response's root, {"count", "items", "after"} with
 * the "root" option), the others as a json_t.
 * After each step:
 *
 *   - every relationship key names an existing record, lists hold no repeat;
 *   - every inverse holds both ways (a post's author lists the post exactly
 *     once; each post a user lists has that user as author; tags likewise;
 *     a source and its post point at each other);
 *   - strata_context_count equals the length of strata_context_all;
 *   - the same from the schema document, for any schema (graph_check.h in
 *     Tests/c, shared with test_graph_kill and test_graph_threads): no two
 *     records with one key, strata_context_get finds each listed record
 *     with the same dictionary, no dangling key, every inverse both ways;
 *   - a failed import or delete leaves every record exactly as it was;
 *   - a reopened file holds exactly what the context held before closing.
 *
 * A broken invariant prints what broke and aborts (libFuzzer's crash).
 * With STRATA_FUZZ_TRACE set, every step is printed to stderr as it runs
 * (the operation, its input, its outcome, the graph after it): an input
 * decoded as a list of operations, for a report.
 */
#include <strata.h>

#include "../c/graph_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char schema_text[] =
    "{\"strata\": 1, \"version\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"name\": {\"type\": \"string?\"}, \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\"},"
    " \"best\": {\"type\": \"Post?\"}}},"
    "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"title\": {\"type\": \"string\", \"validate\": {\"maxLength\": 3}},"
    " \"author\": {\"type\": \"User?\", \"inverse\": \"posts\"},"
    " \"tags\": {\"type\": \"[Tag]\", \"inverse\": \"posts\", \"merge\": \"union\"},"
    " \"editors\": {\"type\": \"[User]\", \"merge\": \"append\"},"
    " \"source\": {\"type\": \"Source?\", \"inverse\": \"post\"}}},"
    "\"Tag\": {\"primaryKey\": \"name\", \"properties\": {\"name\": {\"type\": \"string\"},"
    " \"posts\": {\"type\": \"[Post]\", \"json\": false}}},"
    "\"Source\": {\"primaryKey\": \"post\", \"properties\": {\"post\": {\"type\": \"Post\"},"
    " \"url\": {\"type\": \"string?\"}}},"
    "\"Album\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"photos\": {\"type\": \"[Photo]\", \"orphans\": \"delete\"}}},"
    "\"Photo\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"}}}}}";

static const char *const models[] = {"User", "Post", "Tag", "Source", "Album", "Photo"};
#define MODEL_COUNT 6

static strata_schema_t *schema;
static char path[300];
static int tracing = -1;

/* With STRATA_FUZZ_TRACE: one line of the step's story, `value` as compact JSON after it. */
static void trace(const char *what, const json_t *value) {
    char *text;
    if (!tracing)
        return;
    text = value ? json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    fprintf(stderr, "%s%s%s\n", what, text ? " " : "", text ? text : "");
    free(text);
}

static void broken(const char *what, const json_t *detail) {
    char *text = detail ? json_dumps(detail, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    fprintf(stderr, "fuzz_graph: invariant broken: %s %s\n", what, text ? text : "");
    free(text);
    abort();
}

/* The bytes of the input, read one at a time (0 past the end). */
struct reader {
    const uint8_t *data;
    size_t size, at;
};

static unsigned next(struct reader *in) { return in->at < in->size ? in->data[in->at++] : 0; }

static json_t *tag_name(unsigned b) {
    char name[4] = {'t', (char)('0' + (b & 3)), 0, 0};
    return json_string(name);
}

/* A user: an object (with posts as keys now and then) or a bare key, or null. */
static json_t *user_value(struct reader *in) {
    unsigned b = next(in);
    json_t *user;
    if ((b & 3) == 0)
        return json_null();
    if ((b & 3) == 1)
        return json_integer(b >> 5);
    user = json_pack("{s:I}", "id", (json_int_t)(b >> 5));
    if (b & 4)
        json_object_set_new(user, "name", (b & 8) ? json_null() : json_string("n"));
    if ((b & 0x10) && (b & 3) == 3) {
        json_t *posts = json_array();
        unsigned n = next(in) & 3, i;
        for (i = 0; i < n; i++)
            json_array_append_new(posts, json_integer(next(in) & 7));
        json_object_set_new(user, "posts", posts);
    }
    return user;
}

/* A post object; `bad` makes one of its values wrong. */
static json_t *post_value(struct reader *in) {
    unsigned b = next(in), c = next(in), i, n;
    json_t *post = json_pack("{s:I}", "id", (json_int_t)(b & 7));
    if (b & 8)
        json_object_set_new(post, "title", json_string((c & 0x80) ? "long" : "ok"));
    if (b & 0x10)
        json_object_set_new(post, "author", user_value(in));
    if (b & 0x20) {
        json_t *tags = json_array();
        n = c & 3;
        for (i = 0; i < n; i++) {
            unsigned t = next(in);
            json_array_append_new(tags, (t & 4) ? json_pack("{s:o}", "name", tag_name(t)) : tag_name(t));
        }
        json_object_set_new(post, "tags", tags);
    }
    if (b & 0x40) {
        json_t *editors = json_array();
        n = (c >> 2) & 3;
        for (i = 0; i < n; i++)
            json_array_append_new(editors, json_integer(next(in) & 3));
        json_object_set_new(post, "editors", editors);
    }
    if (b & 0x80)
        json_object_set_new(post, "source", (c & 0x10) ? json_null() : json_pack("{s:s}", "url", "u"));
    if ((c & 0x60) == 0x60)
        json_object_set_new(post, "id", json_string("x")); /* a key of the wrong type */
    return post;
}

/* Every record of every model (canonical dictionaries, key order), and the counts checked. */
static json_t *snapshot(strata_context_t *context) {
    json_t *all = json_object();
    int m;
    for (m = 0; m < MODEL_COUNT; m++) {
        strata_error_t err;
        size_t count = 0, i;
        strata_model_t **records = strata_context_all(context, models[m], &count, &err);
        json_t *list = json_array();
        if (records == NULL)
            broken("strata_context_all failed", NULL);
        for (i = 0; i < count; i++) {
            json_array_append_new(list, strata_model_dictionary(records[i], NULL));
            strata_model_decref(records[i]);
        }
        strata_free(records);
        if (strata_context_count(context, models[m], &err) != (long long)count)
            broken("count differs from all", list);
        json_object_set_new(all, models[m], list);
    }
    return all;
}

/* The record of `model` whose key property `key_name` equals `key` in a snapshot, or NULL. */
static json_t *find(json_t *all, const char *model, const char *key_name, json_t *key) {
    json_t *record;
    size_t i;
    json_array_foreach(json_object_get(all, model), i, record) {
        if (json_equal(json_object_get(record, key_name), key))
            return record;
    }
    return NULL;
}

/* How many times `key` is in the list `list`. */
static size_t occurrences(json_t *list, json_t *key) {
    size_t i, n = 0;
    json_t *item;
    json_array_foreach(list, i, item) {
        if (json_equal(item, key))
            n++;
    }
    return n;
}

/* Every key of `list` names a record of `model`, once. */
static void check_list(json_t *all, json_t *list, const char *model, const char *key_name, json_t *owner) {
    size_t i;
    json_t *key;
    json_array_foreach(list, i, key) {
        if (find(all, model, key_name, key) == NULL)
            broken("a relationship names a missing record", owner);
        if (occurrences(list, key) != 1)
            broken("a to-many relationship repeats a record", owner);
    }
}

static void check_invariants(json_t *all) {
    size_t i;
    json_t *record;
    json_array_foreach(json_object_get(all, "Post"), i, record) {
        json_t *id = json_object_get(record, "id"), *author = json_object_get(record, "author");
        json_t *source = json_object_get(record, "source"), *tag;
        size_t t;
        if (json_is_integer(author)) {
            json_t *user = find(all, "User", "id", author);
            if (user == NULL || occurrences(json_object_get(user, "posts"), id) != 1)
                broken("a post's author does not list it once", record);
        }
        check_list(all, json_object_get(record, "tags"), "Tag", "name", record);
        check_list(all, json_object_get(record, "editors"), "User", "id", record);
        json_array_foreach(json_object_get(record, "tags"), t, tag) {
            json_t *found = find(all, "Tag", "name", tag);
            if (found == NULL || occurrences(json_object_get(found, "posts"), id) != 1)
                broken("a post's tag does not list it once", record);
        }
        if (json_is_integer(source)) {
            json_t *found = find(all, "Source", "post", source);
            if (found == NULL || !json_equal(source, id))
                broken("a post's source is not its own", record);
        }
    }
    json_array_foreach(json_object_get(all, "User"), i, record) {
        json_t *id = json_object_get(record, "id"), *key;
        size_t p;
        check_list(all, json_object_get(record, "posts"), "Post", "id", record);
        json_array_foreach(json_object_get(record, "posts"), p, key) {
            json_t *post = find(all, "Post", "id", key);
            if (post == NULL || !json_equal(json_object_get(post, "author"), id))
                broken("a user lists a post whose author is someone else", record);
        }
        if (json_is_integer(json_object_get(record, "best")) &&
            find(all, "Post", "id", json_object_get(record, "best")) == NULL)
            broken("a user's best post is missing", record);
    }
    json_array_foreach(json_object_get(all, "Tag"), i, record) {
        json_t *name = json_object_get(record, "name"), *key;
        size_t p;
        check_list(all, json_object_get(record, "posts"), "Post", "id", record);
        json_array_foreach(json_object_get(record, "posts"), p, key) {
            json_t *post = find(all, "Post", "id", key);
            if (post == NULL || occurrences(json_object_get(post, "tags"), name) != 1)
                broken("a tag lists a post that does not hold it", record);
        }
    }
    json_array_foreach(json_object_get(all, "Source"), i, record) {
        json_t *post = find(all, "Post", "id", json_object_get(record, "post"));
        if (post == NULL || !json_equal(json_object_get(post, "source"), json_object_get(record, "post")))
            broken("a source's post does not hold it", record);
    }
    json_array_foreach(json_object_get(all, "Album"), i, record) {
        check_list(all, json_object_get(record, "photos"), "Photo", "id", record);
    }
}

static void remove_files(void) {
    const char *suffixes[] = {"", "-wal", "-shm"};
    char name[sizeof path + 8];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

/* Byte 0 bit 2: a file context keeps no record in its cache between calls
   (strata_context_set_cache_limit 0), so every call reads what it needs from
   the file: records, the faults they link to, the links into them. Bit 3
   (without bit 2): a limit of 3, so the cache is trimmed after most calls to
   the records used last (the others become faults again or leave). */
static int cache_none;
static int cache_small;
/* Byte 0 bit 4: every context runs inside a read block (strata_context_begin_read)
   from its opening to its close: each import ends the block's snapshot, and
   the reads after it take a new one. */
static int read_block;

/* Opens a context on `file_path` (NULL: in memory), its cache as the input says. */
static strata_context_t *open_graph(strata_schema_t *loaded, const char *file_path, strata_error_t *err) {
    strata_context_t *made = strata_context_open(loaded, file_path, err);
    if (made != NULL && file_path != NULL && (cache_none || cache_small) &&
        strata_context_set_cache_limit(made, cache_none ? 0 : 3, err) != 0)
        broken("the cache limit cannot be set", NULL);
    if (made != NULL && read_block && strata_context_begin_read(made, err) != 0)
        broken("a read block cannot be opened", NULL);
    return made;
}

#include "fuzz_graph_generated.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct reader in = {data, size, 0};
    int file;
    unsigned steps = 0;
    strata_context_t *context;
    strata_error_t err;
    json_t *before, *schema_doc;
    char why[GRAPH_WHY_SIZE] = "";
    if (path[0] == 0) {
        /* a per-process file, in memory when the machine has /dev/shm (each
           commit's fdatasync on a disk made most of the time of a run) */
        const char *folder = getenv("STRATA_FUZZ_TMPDIR");
        if (folder == NULL)
            folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%s/strata-fuzz-graph-%ld.db", folder, (long)getpid());
        /* libFuzzer's -max_total_time ends the process in the middle of an input */
        atexit(remove_files);
    }
    if (tracing < 0)
        tracing = getenv("STRATA_FUZZ_TRACE") != NULL;
    /* byte 0 bit 1: a schema generated from the input (fuzz_graph_generated.h) */
    if (size > 0 && (data[0] & 2)) {
        cache_none = (data[0] >> 2) & 1;
        cache_small = (data[0] >> 3) & 1;
        read_block = (data[0] >> 4) & 1;
        file = (int)(next(&in) & 1);
        gen_run(&in, file);
        return 0;
    }
    schema_doc = json_loads(schema_text, 0, NULL);
    /* Loaded for each input: a schema kept across inputs would be reported
       by LeakSanitizer at exit (it cannot follow Swift's tagged enum boxes). */
    schema = strata_schema_loadb(schema_text, sizeof schema_text - 1, &err);
    if (schema == NULL) {
        fprintf(stderr, "fuzz_graph: the schema does not load: %s\n", err.message);
        abort();
    }
    cache_none = size > 0 && ((data[0] >> 2) & 1);
    cache_small = size > 0 && ((data[0] >> 3) & 1);
    read_block = size > 0 && ((data[0] >> 4) & 1);
    file = (int)(next(&in) & 1);
    trace(file ? (cache_none ? "open a context on an SQLite file, caching nothing between calls"
                             : "open a context on an SQLite file")
               : "open a context in memory",
          NULL);
    if (file)
        remove_files();
    context = open_graph(schema, file ? path : NULL, &err);
    if (context == NULL)
        broken("the context does not open", NULL);
    before = snapshot(context);
    while (in.at < in.size && steps++ < 64) {
        unsigned op = next(&in) % 8, n, i;
        json_t *data_value = NULL, *options = NULL, *after;
        int failed = 0;
        char line[200];
        switch (op) {
        case 0:
        case 1: /* posts */
            data_value = json_array();
            n = next(&in) % 4;
            for (i = 0; i < n; i++)
                json_array_append_new(data_value, post_value(&in));
            break;
        case 2: /* users, posts given from their side */
            data_value = json_array();
            n = next(&in) % 3;
            for (i = 0; i < n; i++) {
                json_t *user = user_value(&in);
                if (json_is_object(user) && (next(&in) & 1))
                    json_object_set_new(user, "best", json_integer(next(&in) & 7));
                if (json_is_object(user))
                    json_array_append_new(data_value, user);
                else
                    json_decref(user);
            }
            break;
        case 3: { /* an album's photos */
            unsigned b = next(&in);
            json_t *photos = json_array();
            n = b & 3;
            for (i = 0; i < n; i++)
                json_array_append_new(photos, json_integer(next(&in) & 7));
            data_value = json_pack("{s:I, s:o}", "id", (json_int_t)((b >> 2) & 1), "photos", photos);
            break;
        }
        case 4: { /* delete a record */
            unsigned b = next(&in);
            const char *model = models[b % MODEL_COUNT];
            json_t *key = (b % MODEL_COUNT) == 2 ? tag_name(b >> 3) : json_integer((b >> 3) & 7);
            strata_model_t *record = strata_context_get(context, model, key, &err);
            snprintf(line, sizeof line, "step %u: delete %s", steps, model);
            trace(line, key);
            json_decref(key);
            trace(record != NULL ? "  -> deleted" : "  -> no such record", NULL);
            if (record != NULL) {
                if (strata_context_delete(context, record, &err) != 0)
                    broken("a delete of an existing record failed", NULL);
                strata_model_decref(record);
            } else if (err.code != STRATA_OK) {
                broken("a get failed", NULL);
            }
            break;
        }
        case 5: /* posts, with the other posts as orphans */
            data_value = json_array();
            n = next(&in) % 3;
            for (i = 0; i < n; i++)
                json_array_append_new(data_value, post_value(&in));
            options = json_pack("{s:{s:s}}", "delete_orphans", "model", "Post");
            break;
        case 6: /* reopen */
            snprintf(line, sizeof line, "step %u: %s", steps,
                     file ? "close and reopen the file" : "reopen (in memory: nothing)");
            trace(line, NULL);
            if (file) {
                strata_context_close(context);
                strata_context_decref(context);
                context = open_graph(schema, path, &err);
                if (context == NULL)
                    broken("the file does not reopen", NULL);
                after = snapshot(context);
                if (!json_equal(after, before))
                    broken("the reopened file differs from memory", after);
                json_decref(after);
            }
            break;
        default: /* a whole post with a user object */
            data_value = post_value(&in);
            break;
        }
        if (data_value != NULL) {
            size_t count = 0;
            json_t *report = NULL;
            const char *model = op == 2 ? "User" : op == 3 ? "Album" : "Post";
            strata_model_t **records;
            snprintf(line, sizeof line, "step %u: import %s%s as %s:", steps, model,
                     options ? " (delete_orphans: Post)" : "", (steps & 1) ? "text" : "a json_t");
            trace(line, data_value);
            if (steps & 1) { /* as text: the byte parser, element by element for an array */
                char *text;
                json_t *sent = data_value, *sent_options = options;
                if (steps % 4 == 3) {
                    /* every other text import puts the records at a response's root, among other members */
                    sent = json_pack("{s:i, s:O, s:[{s:[]}]}", "count", 2, "items", data_value, "after", "items");
                    sent_options = options != NULL ? json_deep_copy(options) : json_object();
                    json_object_set_new(sent_options, "root", json_string("items"));
                }
                text = json_dumps(sent, JSON_COMPACT | JSON_ENCODE_ANY);
                records = strata_context_importb(context, model, text, strlen(text), sent_options, NULL, NULL, &count,
                                                 &report, &err);
                free(text);
                if (sent != data_value) {
                    json_decref(sent);
                    json_decref(sent_options);
                }
            } else {
                records = strata_context_import(context, model, data_value, options, NULL, NULL, &count, &report, &err);
            }
            if (records == NULL) {
                failed = 1;
                if (tracing)
                    fprintf(stderr, "  -> failed: %s at %s: %s\n", err.code_name, err.path, err.message);
                if (err.code == STRATA_OK)
                    broken("an import failed without an error", data_value);
            } else {
                trace("  -> imported; report:", report);
                for (i = 0; i < count; i++)
                    strata_model_decref(records[i]);
                strata_free(records);
                json_decref(report);
            }
        }
        after = snapshot(context);
        trace("  graph:", after);
        if (failed && !json_equal(after, before))
            broken("a failed import changed the graph", data_value);
        check_invariants(after);
        if (graph_check(context, schema_doc, after, why) != 0)
            broken(why, NULL);
        json_decref(before);
        before = after;
        json_decref(data_value);
        json_decref(options);
    }
    json_decref(before);
    strata_context_close(context);
    strata_context_decref(context);
    strata_schema_decref(schema);
    schema = NULL;
    json_decref(schema_doc);
    if (file)
        remove_files();
    return 0;
}
