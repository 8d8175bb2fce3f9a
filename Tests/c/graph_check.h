/*
 * graph_check.h - the invariants of a graph context, read through the C API
 * only (strata_context_all, strata_context_count, strata_context_get,
 * strata_model_dictionary), for test_graph_kill.c, test_graph_threads.c and
 * Tests/fuzz/fuzz_graph.c.
 *
 * graph_snapshot() reads every record of the schema's keyed models: an
 * object {model: [canonical dictionary, ...]} in key order, relationships as
 * keys. graph_check() then checks, from the schema document itself:
 *
 *   - strata_context_count equals the length of strata_context_all;
 *   - no two records of a model have the same key, and strata_context_get
 *     of each key gives a record with the same dictionary (the uniquing
 *     index agrees with the listing);
 *   - every relationship (a property whose type is a keyed model, "M",
 *     "M?", "[M]" or "[M]?") names existing records: no dangling key; a
 *     to-many list holds each record once;
 *   - every "inverse" holds both ways: if a.p holds b then b.q (q the
 *     inverse of p) holds a - exactly once for a to-many q - and if b.q
 *     holds a then a.p holds b;
 *   - no property whose type is not "T?" (nor "json") holds null: a
 *     non-optional relationship is never emptied (the record would no
 *     longer map under its schema);
 *   - with a context: strata_context_check() finds nothing broken (the
 *     engine's own checker: every record maps under its schema, a file
 *     holds what memory does).
 *
 * Models with a single primaryKey property only (no composite keys, no
 * subtypes): what these tests' schemas use. On a broken invariant the
 * functions write a one-line reason with the record concerned into `why`
 * and return -1 (NULL for graph_snapshot).
 */
#ifndef STRATA_GRAPH_CHECK_H
#define STRATA_GRAPH_CHECK_H

#include <strata.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRAPH_WHY_SIZE 1024

static inline void graph_why(char *why, const json_t *record, const char *format, ...) {
    va_list args;
    size_t used;
    char *text = record ? json_dumps(record, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    va_start(args, format);
    vsnprintf(why, GRAPH_WHY_SIZE, format, args);
    va_end(args);
    used = strlen(why);
    if (text != NULL && used < GRAPH_WHY_SIZE)
        snprintf(why + used, GRAPH_WHY_SIZE - used, ": %.600s", text);
    free(text);
}

/* The key property of `model` in the schema document, or NULL (not a keyed model). */
static inline const char *graph_key_name(const json_t *schema_doc, const char *model) {
    return json_string_value(json_object_get(json_object_get(json_object_get(schema_doc, "models"), model),
                                             "primaryKey"));
}

/* The keyed model a property's type names ("M", "M?", "[M]", "[M]?"), or NULL; *many: a list. */
static inline const char *graph_target(const json_t *schema_doc, const json_t *property, char *name, size_t size,
                                int *many) {
    const char *type = json_string_value(json_object_get(property, "type"));
    size_t length;
    if (type == NULL)
        return NULL;
    length = strlen(type);
    if (length > 0 && type[length - 1] == '?')
        length--;
    *many = length >= 2 && type[0] == '[' && type[length - 1] == ']';
    if (*many) {
        type++;
        length -= 2;
    }
    if (length == 0 || length >= size)
        return NULL;
    memcpy(name, type, length);
    name[length] = 0;
    return graph_key_name(schema_doc, name) != NULL ? name : NULL;
}

/* Every record of every keyed model of `schema_doc`; NULL if a listing fails or a count differs. */
static inline json_t *graph_snapshot(strata_context_t *context, const json_t *schema_doc, char *why) {
    json_t *all = json_object(), *definition;
    const char *model;
    json_object_foreach((json_t *)json_object_get(schema_doc, "models"), model, definition) {
        strata_error_t err;
        size_t count = 0, i;
        long long counted;
        strata_model_t **records;
        json_t *list;
        if (!json_is_string(json_object_get(definition, "primaryKey")))
            continue;
        records = strata_context_all(context, model, &count, &err);
        if (records == NULL) {
            graph_why(why, NULL, "strata_context_all(%s) failed: %s", model, err.message);
            json_decref(all);
            return NULL;
        }
        list = json_array();
        for (i = 0; i < count; i++) {
            json_array_append_new(list, strata_model_dictionary(records[i], NULL));
            strata_model_decref(records[i]);
        }
        strata_free(records);
        json_object_set_new(all, model, list);
        counted = strata_context_count(context, model, &err);
        if (counted != (long long)count) {
            graph_why(why, NULL, "strata_context_count(%s) is %lld, strata_context_all gave %zu", model, counted,
                      count);
            json_decref(all);
            return NULL;
        }
    }
    return all;
}

/* A key as text: the name of its entry in an index. */
static inline char *graph_key_text(const json_t *key) {
    return json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

/* The record of `model` under `key` in the index of a snapshot (graph_check), or NULL. */
static inline json_t *graph_find(json_t *index, const char *model, const json_t *key) {
    char *text = graph_key_text(key);
    json_t *record = text ? json_object_get(json_object_get(index, model), text) : NULL;
    free(text);
    return record;
}

/* What relationship `property` of `record` holds, as a list of keys (new reference). */
static inline json_t *graph_held(json_t *record, const char *property, int many) {
    json_t *value = json_object_get(record, property);
    if (value == NULL || json_is_null(value))
        return json_array();
    if (many)
        return json_incref(value);
    return json_pack("[O]", value);
}

static inline size_t graph_occurrences(const json_t *list, const json_t *key) {
    size_t i, n = 0;
    json_t *item;
    json_array_foreach((json_t *)list, i, item) {
        if (json_equal(item, (json_t *)key))
            n++;
    }
    return n;
}

/*
 * `record` (a `model` whose `property` holds `other`, a `target`): `other`'s
 * `back` (a list when `back_many`) must hold `own_key`, the record's key,
 * exactly once. Returns 0, or -1 with `why` naming the pair.
 */
static inline int graph_held_once(json_t *record, json_t *other, const json_t *own_key, const char *back,
                                  int back_many, const char *model, const char *property, const char *target,
                                  char *why) {
    json_t *list = graph_held(other, back, back_many), *pair;
    size_t n = graph_occurrences(list, own_key);
    json_decref(list);
    if (n == 1)
        return 0;
    pair = json_pack("[O, O]", record, other);
    graph_why(why, pair, "%s.%s holds a %s whose %s holds it %zu times", model, property, target, back, n);
    json_decref(pair);
    return -1;
}

/* One relationship `property` of `model` (target `target`, inverse `inverse` or NULL) over every record. */
static inline int graph_check_relationship(const json_t *schema_doc, json_t *all, json_t *index, const char *model,
                                           const char *property, const char *target, int many, const char *inverse,
                                           char *why) {
    const char *key_name = graph_key_name(schema_doc, model);
    const json_t *inverse_definition =
        inverse ? json_object_get(
                      json_object_get(json_object_get(json_object_get(schema_doc, "models"), target), "properties"),
                      inverse)
                : NULL;
    char inverse_target[128];
    int inverse_many = 0;
    json_t *record;
    size_t i;
    if (inverse && graph_target(schema_doc, inverse_definition, inverse_target, sizeof inverse_target,
                                &inverse_many) == NULL) {
        graph_why(why, NULL, "%s.%s: the inverse %s.%s is not a relationship", model, property, target, inverse);
        return -1;
    }
    json_array_foreach(json_object_get(all, model), i, record) {
        json_t *own_key = json_object_get(record, key_name), *held = graph_held(record, property, many), *key;
        size_t k;
        json_array_foreach(held, k, key) {
            json_t *other = graph_find(index, target, key);
            if (other == NULL) {
                graph_why(why, record, "%s.%s names a missing %s", model, property, target);
                json_decref(held);
                return -1;
            }
            if (graph_occurrences(held, key) != 1) {
                graph_why(why, record, "%s.%s holds a %s more than once", model, property, target);
                json_decref(held);
                return -1;
            }
            if (inverse &&
                graph_held_once(record, other, own_key, inverse, inverse_many, model, property, target, why) != 0) {
                json_decref(held);
                return -1;
            }
        }
        json_decref(held);
    }
    if (inverse) {
        /* the other way: every record the inverse holds holds this one */
        const char *target_key_name = graph_key_name(schema_doc, target);
        json_array_foreach(json_object_get(all, target), i, record) {
            json_t *own_key = json_object_get(record, target_key_name);
            json_t *held = graph_held(record, inverse, inverse_many), *key;
            size_t k;
            json_array_foreach(held, k, key) {
                json_t *other = graph_find(index, model, key);
                if (other == NULL) {
                    graph_why(why, record, "%s.%s names a missing %s", target, inverse, model);
                    json_decref(held);
                    return -1;
                }
                if (graph_held_once(record, other, own_key, property, many, target, inverse, model, why) != 0) {
                    json_decref(held);
                    return -1;
                }
            }
            json_decref(held);
        }
    }
    return 0;
}

/*
 * Checks the invariants of a snapshot (above); with `context` not NULL also
 * that strata_context_get agrees with it. Returns 0, or -1 with `why`.
 */
static inline int graph_check(strata_context_t *context, const json_t *schema_doc, json_t *all, char *why) {
    json_t *definition, *index = json_object();
    const char *model;
    int status = 0;
    /* the index {model: {key as text: record}}; a key met twice is two records with one key */
    json_object_foreach((json_t *)json_object_get(schema_doc, "models"), model, definition) {
        const char *key_name = graph_key_name(schema_doc, model);
        json_t *record, *records = json_object();
        size_t i;
        if (key_name == NULL) {
            json_decref(records);
            continue;
        }
        json_object_set_new(index, model, records);
        json_array_foreach(json_object_get(all, model), i, record) {
            json_t *key = json_object_get(record, key_name);
            char *text = key ? graph_key_text(key) : NULL;
            if (text == NULL) {
                graph_why(why, record, "a %s without its key", model);
                status = -1;
            } else if (json_object_get(records, text) != NULL) {
                graph_why(why, record, "two %s records have one key", model);
                status = -1;
            } else {
                json_object_set(records, text, record);
            }
            free(text);
            if (status == 0 && context != NULL) {
                strata_error_t err;
                strata_model_t *found = strata_context_get(context, model, key, &err);
                json_t *dictionary = found ? strata_model_dictionary(found, NULL) : NULL;
                if (dictionary == NULL || !json_equal(dictionary, record)) {
                    graph_why(why, record, "strata_context_get(%s) %s the listed record", model,
                              found ? "differs from" : "does not find");
                    status = -1;
                }
                json_decref(dictionary);
                strata_model_decref(found);
            }
            if (status != 0)
                break;
        }
        if (status != 0)
            break;
    }
    json_object_foreach((json_t *)json_object_get(schema_doc, "models"), model, definition) {
        const char *property;
        json_t *property_definition;
        if (status != 0 || graph_key_name(schema_doc, model) == NULL)
            continue;
        json_object_foreach(json_object_get(definition, "properties"), property, property_definition) {
            char target[128];
            int many = 0;
            const char *type = json_string_value(json_object_get(property_definition, "type"));
            size_t length = type ? strlen(type) : 0;
            if (length > 0 && type[length - 1] != '?' && strcmp(type, "json") != 0) {
                json_t *record;
                size_t i;
                json_array_foreach(json_object_get(all, model), i, record) {
                    if (json_is_null(json_object_get(record, property))) {
                        graph_why(why, record, "%s.%s (of type %s) holds null", model, property, type);
                        status = -1;
                        break;
                    }
                }
                if (status != 0)
                    break;
            }
            if (graph_target(schema_doc, property_definition, target, sizeof target, &many) == NULL)
                continue;
            if (graph_check_relationship(schema_doc, all, index, model, property, target, many,
                                         json_string_value(json_object_get(property_definition, "inverse")),
                                         why) != 0) {
                status = -1;
                break;
            }
        }
    }
    json_decref(index);
    if (status == 0 && context != NULL) {
        strata_error_t err;
        if (strata_context_check(context, &err) != 0) {
            json_t *errors = strata_errors();
            graph_why(why, errors, "strata_context_check: %s %s", err.path, err.message);
            json_decref(errors);
            status = -1;
        }
    }
    return status;
}

#endif /* STRATA_GRAPH_CHECK_H */
