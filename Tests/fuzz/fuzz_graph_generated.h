/*
 * fuzz_graph_generated.h - the generated-schema mode of fuzz_graph.c.
 *
 * The input's bytes make a schema first, then a list of steps on it:
 *
 *   - models A, B and C (int keys 0..3, a "v" string?), and now and then a
 *     child K keyed by its parent A (A.k <-> K.p, a one-to-one whose child
 *     goes with the link);
 *   - one to four relationships rN between them (self-relationships too):
 *     to-one optional or not, required or not, to-many with or without a
 *     default [] and a merge policy (replace, union, append), orphans
 *     deleted or not; with no inverse, or an inverse iN that is a to-one
 *     (optional or not) or a to-many (with or without a default, read from
 *     input or "json": false); each side with a deleteRule or the default
 *     (nullify only where the schema allows it);
 *   - steps: imports of one to three records (as text or as a json_t) whose
 *     relationships hold bare keys, null, or objects nested up to three
 *     levels, so one record meets itself at different depths; deletes;
 *     imports with an orphan rule; reopening the file.
 *
 * After every step: graph_check() (which runs strata_context_check(): every
 * record maps under its schema, inverses both ways, the file holds what
 * memory does; and no non-optional property holds null), a failed step
 * changed nothing, a reopened file equals memory. And one oracle of
 * meaning: an import of a list gives the graph that importing its elements
 * one at a time gives (a shadow context takes them so), when both succeed
 * and neither deletes anything - a record met twice in one response is
 * updated as a second import would update it.
 */
#ifndef STRATA_FUZZ_GRAPH_GENERATED_H
#define STRATA_FUZZ_GRAPH_GENERATED_H

#define GEN_MODELS 3
static const char *const gen_names[GEN_MODELS] = {"A", "B", "C"};

/* What the input generator needs of one relationship property. */
struct gen_rel {
    char name[8];
    int owner;    /* model index (3: K) */
    int target;   /* model index (3: K) */
    int many;     /* a to-many */
    int readable; /* read from input ("json" is not false) */
};

struct gen_schema {
    json_t *doc;
    int has_child;
    struct gen_rel rels[16];
    int rel_count;
};

static const char *gen_model_name(int index) { return index == 3 ? "K" : gen_names[index]; }

static json_t *gen_properties(json_t *doc, int model) {
    return json_object_get(json_object_get(json_object_get(doc, "models"), gen_model_name(model)), "properties");
}

/* The schema the input's first bytes describe. */
static void gen_make_schema(struct reader *in, struct gen_schema *out) {
    json_t *models = json_object();
    unsigned head = next(in), count = 1 + (head & 3), r;
    int m;
    memset(out, 0, sizeof *out);
    for (m = 0; m < GEN_MODELS; m++)
        json_object_set_new(models, gen_names[m],
                            json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}", "primaryKey", "id", "properties", "id", "type",
                                      "int", "v", "type", "string?"));
    out->doc = json_pack("{s:i, s:i, s:o}", "strata", 1, "version", 1, "models", models);
    out->has_child = (head & 4) != 0;
    if (out->has_child) {
        json_t *k = json_pack("{s:s, s:s}", "type", "K?", "inverse", "p");
        if (head & 8)
            json_object_set_new(k, "deleteRule", json_string("deny"));
        json_object_set_new(models, "K",
                            json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}", "primaryKey", "p", "properties", "p", "type", "A",
                                      "w", "type", "int?"));
        json_object_set_new(gen_properties(out->doc, 0), "k", k);
        strcpy(out->rels[out->rel_count].name, "k");
        out->rels[out->rel_count].owner = 0;
        out->rels[out->rel_count].target = 3;
        out->rels[out->rel_count].readable = 1;
        out->rel_count++;
        strcpy(out->rels[out->rel_count].name, "p");
        out->rels[out->rel_count].owner = 3;
        out->rels[out->rel_count].target = 0;
        out->rels[out->rel_count].readable = 1;
        out->rel_count++;
    }
    for (r = 0; r < count; r++) {
        unsigned b1 = next(in), b2 = next(in), b3 = next(in);
        int s = (int)(b1 % 3), t = (int)((b1 >> 2) % 3);
        unsigned kind = (b1 >> 4) & 3, back = b2 & 3;
        char forward_type[8], back_type[8];
        json_t *forward, *inverse = NULL;
        struct gen_rel *rel = &out->rels[out->rel_count++];
        int back_cannot_be_empty = back == 2;
        snprintf(rel->name, sizeof rel->name, "r%u", r);
        rel->owner = s;
        rel->target = t;
        rel->many = kind >= 2;
        rel->readable = !(b3 & 2);
        snprintf(forward_type, sizeof forward_type, kind == 0 ? "%s?" : kind == 1 ? "%s" : "[%s]", gen_names[t]);
        forward = json_pack("{s:s}", "type", forward_type);
        if (kind == 3)
            json_object_set_new(forward, "default", json_array());
        if (kind == 1 && (b3 & 1))
            json_object_set_new(forward, "required", json_true());
        if (b3 & 2)
            json_object_set_new(forward, "json", json_false());
        if (kind >= 2) {
            static const char *const policies[4] = {"replace", "union", "append", "replace"};
            json_object_set_new(forward, "merge", json_string(policies[(b2 >> 4) & 3]));
            if (b1 & 0x80)
                json_object_set_new(forward, "orphans", json_string("delete"));
        }
        if (back != 0) {
            char back_name[8];
            struct gen_rel *inv = &out->rels[out->rel_count++];
            snprintf(back_name, sizeof back_name, "i%u", r);
            snprintf(back_type, sizeof back_type, back == 1 ? "%s?" : back == 2 ? "%s" : "[%s]", gen_names[s]);
            inverse = json_pack("{s:s}", "type", back_type);
            if (back == 3 && (b2 & 4))
                json_object_set_new(inverse, "default", json_array());
            if (b2 & 8)
                json_object_set_new(inverse, "json", json_false());
            if (b1 & 0x40)
                json_object_set_new(inverse, "deleteRule", json_string((b3 & 4) ? "deny" : "cascade"));
            json_object_set_new(forward, "inverse", json_string(back_name));
            strcpy(inv->name, back_name);
            inv->owner = t;
            inv->target = s;
            inv->many = back == 3;
            inv->readable = !(b2 & 8);
        }
        switch ((b2 >> 6) & 3) {
        case 1: json_object_set_new(forward, "deleteRule", json_string("cascade")); break;
        case 2: json_object_set_new(forward, "deleteRule", json_string("deny")); break;
        case 3:
            if (!back_cannot_be_empty)
                json_object_set_new(forward, "deleteRule", json_string("nullify"));
            break;
        default: break;
        }
        json_object_set_new(gen_properties(out->doc, s), rel->name, forward);
        if (inverse != NULL) {
            /* an inverse to-one that cannot be empty and holds the forward
               one: nullify there is refused at load, as it should be */
            if (kind == 1 && json_object_get(inverse, "deleteRule") == NULL && (b3 & 8))
                json_object_set_new(inverse, "deleteRule", json_string("cascade"));
            json_object_set_new(gen_properties(out->doc, t), out->rels[out->rel_count - 1].name, inverse);
        }
    }
}

static json_t *gen_object(struct reader *in, const struct gen_schema *schema, int model, int depth);

/* A value for relationship `rel`: null, a bare key, an object, or a list of them. */
static json_t *gen_related(struct reader *in, const struct gen_schema *schema, const struct gen_rel *rel,
                           int depth) {
    unsigned b = next(in);
    if ((b & 7) == 3)
        return json_null();
    if (rel->many) {
        json_t *list = json_array();
        unsigned n = (b >> 3) & 3, i;
        for (i = 0; i < n; i++) {
            unsigned e = next(in);
            if (rel->target == 3 || ((e & 1) && depth < 3))
                json_array_append_new(list, gen_object(in, schema, rel->target, depth + 1));
            else
                json_array_append_new(list, json_integer(e >> 6));
        }
        return list;
    }
    if (rel->target == 3) /* a child keyed by its parent: given as an object without its key */
        return gen_object(in, schema, 3, depth + 1);
    if ((b & 4) && depth < 3)
        return gen_object(in, schema, rel->target, depth + 1);
    return json_integer(b >> 6);
}

/* An object of `model`: its key, now and then "v", and some relationships. */
static json_t *gen_object(struct reader *in, const struct gen_schema *schema, int model, int depth) {
    unsigned b = next(in);
    json_t *object = json_object();
    int r;
    if (model == 3) {
        if (b & 1)
            json_object_set_new(object, "w", json_integer(b >> 5));
    } else {
        json_object_set_new(object, "id", json_integer(b & 3));
        if (b & 4)
            json_object_set_new(object, "v", (b & 8) ? json_null() : json_string((b & 16) ? "x" : "y"));
    }
    for (r = 0; r < schema->rel_count; r++) {
        const struct gen_rel *rel = &schema->rels[r];
        if (rel->owner != model || !rel->readable)
            continue;
        if (model == 3 && depth > 0) /* a nested child's parent is the record that holds it */
            continue;
        /* a child at the top gives its parent: its key (without it, a record
           without a key is made, which no later input can find) */
        if ((next(in) & 3) == 0 && model != 3)
            continue;
        json_object_set_new(object, rel->name, gen_related(in, schema, rel, depth));
    }
    return object;
}

/* Notes in `seen` ({model: {key text: true}}) every record `value` (of
   `model`, an object or a bare key; `parent` the key of the record holding
   it, for a child keyed by its parent) names, at any depth. */
static void gen_mention(const struct gen_schema *schema, json_t *seen, json_t *value, int model,
                        const json_t *parent) {
    const json_t *key = value;
    char *text;
    int r;
    if (json_is_null(value))
        return;
    if (json_is_array(value)) {
        size_t i;
        json_t *element;
        json_array_foreach(value, i, element) { gen_mention(schema, seen, element, model, parent); }
        return;
    }
    if (json_is_object(value)) {
        if (model == 3) {
            json_t *p = json_object_get(value, "p");
            key = p == NULL ? parent : json_is_object(p) ? json_object_get(p, "id") : p;
        } else {
            key = json_object_get(value, "id");
        }
    }
    if (key == NULL || !json_is_integer(key))
        return;
    if (json_object_get(seen, gen_model_name(model)) == NULL)
        json_object_set_new(seen, gen_model_name(model), json_object());
    text = graph_key_text(key);
    json_object_set_new(json_object_get(seen, gen_model_name(model)), text, json_true());
    free(text);
    if (!json_is_object(value))
        return;
    for (r = 0; r < schema->rel_count; r++) {
        const struct gen_rel *rel = &schema->rels[r];
        json_t *held = json_object_get(value, rel->name);
        if (rel->owner == model && held != NULL)
            gen_mention(schema, seen, held, rel->target, key);
    }
}

/* True when every record `seen` names is in the snapshot `all`. */
static int gen_all_there(json_t *seen, json_t *all, const json_t *doc) {
    const char *model, *text;
    json_t *keys, *unused;
    json_object_foreach(seen, model, keys) {
        const char *key_name = graph_key_name(doc, model);
        json_object_foreach(keys, text, unused) {
            json_t *key = json_loads(text, JSON_DECODE_ANY, NULL), *record;
            size_t i;
            int found = 0;
            json_array_foreach(json_object_get(all, model), i, record) {
                if (json_equal(json_object_get(record, key_name), key))
                    found = 1;
            }
            json_decref(key);
            if (!found)
                return 0;
        }
    }
    return 1;
}

/* Imports `data` into `context`; 0, or -1 with *err filled. The report's deletions in *deleted. */
static int gen_import(strata_context_t *context, const char *model, json_t *data, json_t *options, int as_text,
                      int *deleted, strata_error_t *err) {
    size_t count = 0, i;
    json_t *report = NULL;
    strata_model_t **records;
    if (as_text) {
        char *text = json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY);
        records = strata_context_importb(context, model, text, strlen(text), options, NULL, NULL, &count, &report,
                                         err);
        free(text);
    } else {
        records = strata_context_import(context, model, data, options, NULL, NULL, &count, &report, err);
    }
    if (records == NULL) {
        if (err->code == STRATA_OK)
            broken("an import failed without an error", data);
        return -1;
    }
    for (i = 0; i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    if (deleted != NULL)
        *deleted = json_object_size(json_object_get(report, "deleted")) > 0;
    json_decref(report);
    return 0;
}

/* The snapshot of a context, its invariants checked (aborts when broken). */
static json_t *gen_snapshot(strata_context_t *context, const json_t *doc) {
    char why[GRAPH_WHY_SIZE] = "";
    json_t *all = graph_snapshot(context, doc, why);
    if (all == NULL || graph_check(context, doc, all, why) != 0) {
        if (tracing) {
            char *d = json_dumps(doc, JSON_COMPACT);
            fprintf(stderr, "  schema: %s\n", d);
            free(d);
        }
        broken(why, all);
    }
    return all;
}

/* A context in memory holding what `history` (the successful imports and deletes, in order) made. */
static strata_context_t *gen_replay(strata_schema_t *loaded, json_t *history) {
    strata_error_t err;
    strata_context_t *shadow = strata_context_open(loaded, NULL, &err);
    json_t *step;
    size_t i;
    if (shadow == NULL)
        broken("the shadow context does not open", NULL);
    json_array_foreach(history, i, step) {
        const char *model = json_string_value(json_object_get(step, "model"));
        if (json_object_get(step, "delete") != NULL) {
            strata_model_t *record = strata_context_get(shadow, model, json_object_get(step, "delete"), &err);
            if (record == NULL || strata_context_delete(shadow, record, &err) != 0)
                broken("the shadow context does not replay a delete", step);
            strata_model_decref(record);
        } else if (gen_import(shadow, model, json_object_get(step, "import"), json_object_get(step, "options"), 0,
                              NULL, &err) != 0) {
            broken("the shadow context does not replay an import", step);
        }
    }
    return shadow;
}

static void gen_run(struct reader *in, int file) {
    struct gen_schema schema;
    strata_error_t err;
    strata_schema_t *loaded;
    strata_context_t *context, *shadow;
    json_t *before, *history = json_array();
    unsigned steps = 0;
    int model_count;
    gen_make_schema(in, &schema);
    model_count = GEN_MODELS + (schema.has_child ? 1 : 0);
    if (tracing) {
        char *d = json_dumps(schema.doc, JSON_COMPACT);
        fprintf(stderr, "generated schema: %s\n", d);
        free(d);
    }
    loaded = strata_schema_load(schema.doc, &err);
    if (loaded == NULL) {
        /* the generator makes only schemas that must load */
        broken("a generated schema does not load", schema.doc);
    }
    if (file)
        remove_files();
    context = open_graph(loaded, file ? path : NULL, &err);
    shadow = strata_context_open(loaded, NULL, &err);
    if (context == NULL || shadow == NULL)
        broken("the context does not open", NULL);
    before = gen_snapshot(context, schema.doc);
    while (in->at < in->size && steps++ < 48) {
        unsigned op = next(in) % 8, n, i;
        int model = (int)(next(in) % (unsigned)model_count), failed = 0, deleted = 0;
        const char *name = gen_model_name(model);
        json_t *data = NULL, *options = NULL, *after;
        char line[200];
        switch (op) {
        case 4: { /* delete a record */
            unsigned b = next(in);
            json_t *key = json_integer(b & 3);
            strata_model_t *record = strata_context_get(context, name, key, &err);
            snprintf(line, sizeof line, "step %u: delete %s", steps, name);
            trace(line, key);
            if (record != NULL) {
                if (strata_context_delete(context, record, &err) != 0) {
                    failed = 1;
                    if (err.code != STRATA_ERROR_DENY)
                        broken("a delete failed with another error than deny", key);
                    if (tracing)
                        fprintf(stderr, "  -> refused: %s: %s\n", err.path, err.message);
                } else {
                    json_array_append_new(history, json_pack("{s:s, s:O}", "model", name, "delete", key));
                    strata_context_decref(shadow);
                    shadow = gen_replay(loaded, history);
                }
                strata_model_decref(record);
            } else if (err.code != STRATA_OK) {
                broken("a get failed", key);
            }
            json_decref(key);
            break;
        }
        case 6: /* reopen */
            if (file) {
                trace("close and reopen the file", NULL);
                strata_context_close(context);
                strata_context_decref(context);
                context = open_graph(loaded, path, &err);
                if (context == NULL) {
                    fprintf(stderr, "  reopen: %s %s\n", err.path, err.message);
                    broken("the file does not reopen", schema.doc);
                }
                after = gen_snapshot(context, schema.doc);
                if (!json_equal(after, before))
                    broken("the reopened file differs from memory", after);
                json_decref(after);
            }
            break;
        default: /* an import of one to three records (op 5: with an orphan rule) */
            data = json_array();
            n = 1 + next(in) % 3;
            for (i = 0; i < n; i++)
                json_array_append_new(data, gen_object(in, &schema, model, 0));
            if (op == 5)
                options = json_pack("{s:{s:s}}", "delete_orphans", "model", gen_model_name((int)(next(in) % 3)));
            snprintf(line, sizeof line, "step %u: import %s%s", steps, name, options ? " (delete_orphans)" : "");
            trace(line, data);
            if (gen_import(context, name, data, options, (int)(steps & 1), &deleted, &err) != 0) {
                failed = 1;
                if (tracing)
                    fprintf(stderr, "  -> failed: %s at %s: %s\n", err.code_name, err.path, err.message);
            } else {
                int split_failed = 0, split_deleted = 0;
                json_array_append_new(history, json_pack("{s:s, s:O, s:O*}", "model", name, "import", data,
                                                         "options", options));
                /* the oracle: the same records one import at a time */
                if (options == NULL && !deleted) {
                    /* a record the input names that is gone, after the
                       whole import or after any one of the one-at-a-time
                       imports, was deleted by a delete rule, settled at the
                       end of each import: the two ways may then differ */
                    json_t *element, *whole, *split, *seen = json_object();
                    size_t e;
                    json_array_foreach(data, e, element) {
                        json_t *one = json_pack("[O]", element);
                        int d = 0;
                        gen_mention(&schema, seen, element, model, NULL);
                        if (gen_import(shadow, name, one, NULL, 0, &d, &err) != 0)
                            split_failed = 1;
                        split_deleted |= d;
                        json_decref(one);
                        if (split_failed)
                            break;
                        split = gen_snapshot(shadow, schema.doc);
                        if (!gen_all_there(seen, split, schema.doc))
                            split_deleted = 1;
                        json_decref(split);
                    }
                    if (!split_failed && !split_deleted) {
                        whole = gen_snapshot(context, schema.doc);
                        split = gen_snapshot(shadow, schema.doc);
                        if (!gen_all_there(seen, whole, schema.doc))
                            split_deleted = 1;
                        if (!split_deleted && !json_equal(whole, split)) {
                            json_t *pair = json_pack("{s:O, s:O, s:O}", "input", data, "whole", whole, "one-by-one",
                                                     split);
                            broken("an import of a list differs from importing its records one at a time", pair);
                        }
                        json_decref(whole);
                        json_decref(split);
                    }
                    json_decref(seen);
                }
                if (options != NULL || deleted || split_failed || split_deleted) {
                    strata_context_decref(shadow);
                    shadow = gen_replay(loaded, history);
                }
            }
            break;
        }
        after = gen_snapshot(context, schema.doc);
        trace("  graph:", after);
        if (failed && !json_equal(after, before))
            broken("a failed step changed the graph", data);
        json_decref(before);
        before = after;
        json_decref(data);
        json_decref(options);
    }
    json_decref(before);
    json_decref(history);
    strata_context_close(context);
    strata_context_decref(context);
    strata_context_decref(shadow);
    strata_schema_decref(loaded);
    json_decref(schema.doc);
    if (file)
        remove_files();
}

#endif /* STRATA_FUZZ_GRAPH_GENERATED_H */
