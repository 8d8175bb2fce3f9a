/*
 * strata.h - the C API of Strata, a model layer for programs that live on
 * JSON APIs.
 *
 * A schema (a JSON document) declares models; Strata maps JSON onto them,
 * checks every value, serializes models back to JSON and gives each model's
 * canonical dictionary. JSON values are jansson `json_t *` handles.
 *
 * Conventions (jansson's, where jansson has one):
 *
 * - Ownership. A `json_t *` argument is borrowed unless the function's name
 *   ends in `_new` (then the reference is stolen). A returned `json_t *` is a
 *   new reference: release it with json_decref() (or strata_json_decref()).
 *   Schemas and models are reference counted: every function that returns a
 *   `strata_schema_t *` or `strata_model_t *` returns a new reference, released
 *   with strata_schema_decref() / strata_model_decref(). Strings returned as
 *   `const char *` are borrowed from the object they came from and live as
 *   long as it does.
 *
 * - Shared leaves. A JSON leaf that passes through a mapping untransformed is
 *   shared, not copied: a model holds a reference to the input's string, number
 *   or `json`-typed value, and the json_t trees that strata_model_to_json() and
 *   strata_model_dictionary() return share those leaves with the model. Treat
 *   them as read-only; json_deep_copy() what you mean to change in place.
 *
 * - Errors. A function that can fail takes a `strata_error_t *error`, which
 *   may be NULL. On failure it returns NULL (or -1) and fills `error` with the
 *   first error of the call and the number of errors. Every error of the
 *   calling thread's most recent failed call is available as a JSON array from
 *   strata_errors(). No function aborts the host process: NULL arguments,
 *   unknown model or property names and malformed input all come back as
 *   errors.
 *
 * - Threads. A loaded schema is immutable: one schema may be used by any
 *   number of threads at once. A model is used by one thread at a time, like a
 *   json_t. strata_errors() is per thread.
 *
 * - Limits. Input nested deeper than STRATA_MAX_DEPTH levels (models, arrays,
 *   dictionaries, and the inside of json values and kept keys) is a
 *   STRATA_ERROR_DEPTH error; so is a patch, merge patch, archive or schema
 *   document nested deeper than STRATA_MAX_DEPTH + 16. Every call therefore
 *   needs a bounded stack. A call made on a thread with less than 2 MiB of
 *   stack left (musl threads, many runtimes' worker threads) runs on a helper
 *   thread with a large stack while the calling thread waits: the same
 *   result, the errors reported to the calling thread. Transformers and
 *   mergers that such a call invokes run on the helper thread.
 *
 * - Cores. strata_map_manyb() reads an array of 512 KiB or more in pieces on
 *   several threads at once (at most one per CPU the process may run on and
 *   at most 8), with the answer of reading it whole; the calling thread
 *   reads pieces too, and returns once all are read. The environment variable
 *   STRATA_THREADS (1 to 64, read once) caps the threads such calls use,
 *   together when several run at once: 1 keeps every call on its calling
 *   thread. Transformers and mergers such a
 *   call invokes may run on those threads, concurrently.
 */
#ifndef STRATA_H
#define STRATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this header; strata_version() gives the library's. */
#define STRATA_VERSION_MAJOR 0
#define STRATA_VERSION_MINOR 1
#define STRATA_VERSION_PATCH 0
#define STRATA_VERSION "0.1.0"

/**
 * The kind of an error. The names in parentheses are the `code` strings of
 * the error list (strata_errors()) and of the Python and Swift bindings.
 */
typedef enum strata_code {
    STRATA_OK = 0,               /* no error */
    STRATA_ERROR_MISSING = 1,    /* "missing": a required key is absent */
    STRATA_ERROR_TYPE = 2,       /* "type": wrong JSON type */
    STRATA_ERROR_NULL = 3,       /* "null": null where the type is not T? */
    STRATA_ERROR_FORMAT = 4,     /* "format": a value could not be read (a bad URL) */
    STRATA_ERROR_ENUM = 5,       /* "enum": a value outside an enum mapping */
    STRATA_ERROR_VALIDATION = 6, /* "validation": a validate rule failed */
    STRATA_ERROR_UNKNOWN_KEY = 7,/* "unknown_key": a key refused by unknownKeys: reject */
    STRATA_ERROR_SUBTYPE = 8,    /* "subtype": no subtype matched */
    STRATA_ERROR_PATH = 9,       /* "path": a key path runs through a non-object */
    STRATA_ERROR_SCHEMA = 10,    /* "schema": the schema document is invalid */
    STRATA_ERROR_SYNTAX = 11,    /* "syntax": input text is not valid JSON */
    STRATA_ERROR_DEPTH = 12,     /* "depth": input nested deeper than STRATA_MAX_DEPTH */
    STRATA_ERROR_ARGUMENT = 13,  /* "argument": a NULL or invalid argument, an unknown name */
    STRATA_ERROR_IO = 14,        /* "io": a file could not be read */
    STRATA_ERROR_DENY = 15,      /* "deny": a graph change refused by a relationship's deleteRule */
    STRATA_ERROR_OOM = 16,       /* "oom": memory ran out (an allocation failed); nothing changed */
    STRATA_ERROR_PROPERTY = 17,  /* "property": a query names a property its model does not have */
    STRATA_ERROR_HTTP = 18       /* "http": a fetched page's status was not 2xx (status, URL, body's start) */
} strata_code_t;

/** How deep models, arrays and dictionaries may nest in mapped input. */
#define STRATA_MAX_DEPTH 512

/** Sizes of the text fields of strata_error_t (each includes the NUL). */
#define STRATA_ERROR_PATH_LENGTH 256
#define STRATA_ERROR_NAME_LENGTH 80
#define STRATA_ERROR_MESSAGE_LENGTH 256

/**
 * The first error of a failed call, filled like jansson's json_error_t.
 * Text fields are NUL-terminated UTF-8, cut at a character boundary if too
 * long (the full text is in strata_errors()).
 */
typedef struct strata_error {
    strata_code_t code;                              /* STRATA_OK on success */
    size_t count;                                    /* errors in the call */
    char code_name[16];                              /* "missing", "type", ... */
    char path[STRATA_ERROR_PATH_LENGTH];             /* RFC 6901 pointer into the input */
    char model[STRATA_ERROR_NAME_LENGTH];            /* model, or "" */
    char property[STRATA_ERROR_NAME_LENGTH];         /* property, or "" */
    char message[STRATA_ERROR_MESSAGE_LENGTH];       /* one line for a person */
} strata_error_t;

/** A loaded, checked, immutable schema. Reference counted. */
typedef struct strata_schema strata_schema_t;

/** One model instance: a set of property values. Reference counted. */
typedef struct strata_model strata_model_t;

/* ------------------------------------------------------------------------ */
/* Library                                                                    */

/**
 * The library's version as "MAJOR.MINOR.PATCH". Borrowed, static.
 */
const char *strata_version(void);

/**
 * Every error of the calling thread's most recent failed call, as a JSON
 * array of objects with the string members "path", "model", "property",
 * "code" and "message". Returns a new reference, or NULL when the most recent
 * call that takes a strata_error_t succeeded (a successful call clears it).
 */
json_t *strata_errors(void);

/**
 * Releases a reference to a json_t returned by this library (jansson's
 * json_decref is an inline function that ctypes callers cannot reach).
 * NULL is ignored.
 */
void strata_json_decref(json_t *json);

/**
 * Serializes `json` (borrowed) as compact UTF-8 JSON text with object keys in
 * insertion order. Any JSON value may be encoded, not only objects and arrays.
 * Returns a NUL-terminated string to be freed with strata_free(), or NULL if
 * `json` is NULL or memory runs out.
 */
char *strata_json_dumps(const json_t *json);

/**
 * Parses UTF-8 JSON text of `length` bytes (any value at the top level).
 * Returns a new reference, or NULL with a "syntax" error whose path is the
 * JSON Pointer of the value being read where the text broke and whose message
 * names the line, column and byte offset (docs/parsing.md, "Syntax errors"),
 * or an "argument" error for a NULL buffer.
 */
json_t *strata_json_loadb(const char *buffer, size_t length, strata_error_t *error);

/**
 * Frees memory that this library allocated and handed over: strings from
 * strata_json_dumps(), strata_schema_diagram() and strata_schema_codegen_python(), and the arrays of strata_map_many(),
 * strata_map_response() and of the graph context calls (strata_context_import(), _all(), _related()).
 * NULL is ignored.
 */
void strata_free(void *pointer);

/* ------------------------------------------------------------------------ */
/* Schemas                                                                    */

/**
 * Loads and checks a schema from its JSON document `doc` (borrowed).
 * The whole schema is checked at once; every problem is a "schema" error whose
 * path is a JSON Pointer into `doc` (see strata_errors() for all of them).
 * Returns a new reference, or NULL on error.
 */
strata_schema_t *strata_schema_load(json_t *doc, strata_error_t *error);

/**
 * Like strata_schema_load(), from UTF-8 JSON text of `length` bytes.
 * Malformed text is a "syntax" error.
 */
strata_schema_t *strata_schema_loadb(const char *buffer, size_t length, strata_error_t *error);

/**
 * Like strata_schema_load(), from the file at `path`. A file that cannot be
 * read is an "io" error; malformed text is a "syntax" error.
 */
strata_schema_t *strata_schema_load_file(const char *path, strata_error_t *error);

/** Adds a reference to `schema` and returns it. NULL is ignored. */
strata_schema_t *strata_schema_incref(strata_schema_t *schema);

/**
 * Releases a reference to `schema`. Models keep their schema alive, so a
 * schema may be released while its models are still in use. NULL is ignored.
 * Releasing a reference the caller does not own is undefined behaviour.
 */
void strata_schema_decref(strata_schema_t *schema);

/** The schema's `version` (0 when the document declares none), or -1 for NULL. */
int64_t strata_schema_version(const strata_schema_t *schema);

/** The number of models the schema declares (0 for NULL). */
size_t strata_schema_model_count(const strata_schema_t *schema);

/**
 * The name of the model at `index` (0-based, in the document's order), or
 * NULL if out of range. Borrowed from the schema.
 */
const char *strata_schema_model_name(const strata_schema_t *schema, size_t index);

/* ------------------------------------------------------------------------ */
/* Custom transformers and the schema builder                                 */

/**
 * A transformer step: reads `value` (borrowed) and returns the transformed
 * value as a new reference (json_incref(value) to pass it through). To refuse
 * the value, write a one-line NUL-terminated reason into `message` (at most
 * `message_size` bytes including the NUL) and return NULL: the engine reports
 * a "format" error at the value's path with that message. `payload` is the
 * pointer given at registration. A schema may be used by several threads at
 * once, so a transformer may be called concurrently: make it thread-safe.
 */
typedef json_t *(*strata_transform_fn)(json_t *value, void *payload, char *message, size_t message_size);

/** Releases a transformer's payload when no schema or builder uses it any more. */
typedef void (*strata_release_fn)(void *payload);

/**
 * Collects host transformers before a schema is loaded. A schema loaded
 * through a builder keeps the transformers it needs; the schema itself stays
 * immutable. Not thread-safe: fill it from one thread.
 */
typedef struct strata_schema_builder strata_schema_builder_t;

/** A new, empty builder (free it with strata_schema_builder_free()), or NULL if memory runs out. */
strata_schema_builder_t *strata_schema_builder_new(void);

/** Frees a builder; schemas loaded through it are not affected. NULL is ignored. */
void strata_schema_builder_free(strata_schema_builder_t *builder);

/**
 * Registers the transformer `name` (schemas name it in "transform"):
 * `forward` maps JSON values to model values, `reverse` (may be NULL: a
 * one-way transformer whose values are written back unchanged) maps them back.
 * `release` (may be NULL) is called with `payload` once the builder and every
 * schema loaded through it are gone. A name that is built in or already
 * registered is an "argument" error (then `release` is not called).
 * Returns 0 on success, -1 on error.
 */
int strata_schema_builder_add_transformer(strata_schema_builder_t *builder, const char *name,
                                          strata_transform_fn forward, strata_transform_fn reverse,
                                          void *payload, strata_release_fn release,
                                          strata_error_t *error);

/**
 * Like strata_schema_load(), with the builder's transformers available to the
 * schema's "transform" keys. The builder may be reused. Returns a new
 * reference, or NULL on error.
 */
strata_schema_t *strata_schema_builder_load(strata_schema_builder_t *builder, json_t *doc,
                                            strata_error_t *error);

/** Like strata_schema_builder_load(), from UTF-8 JSON text of `length` bytes. */
strata_schema_t *strata_schema_builder_loadb(strata_schema_builder_t *builder, const char *buffer,
                                             size_t length, strata_error_t *error);

/** Like strata_schema_builder_load(), from the file at `path` ("io" and "syntax" errors as strata_schema_load_file()). */
strata_schema_t *strata_schema_builder_load_file(strata_schema_builder_t *builder, const char *path,
                                                 strata_error_t *error);

/**
 * A key injector (docs/graph.md): gives a key to a graph record whose input
 * has none. Called with
 * the record's input object (borrowed) and the canonical dictionary of the
 * record that holds it (borrowed; NULL at the top of a response); returns the
 * key as a new reference (the key property's canonical value, a list for a
 * composite key), or NULL after writing a one-line reason into `message`
 * (the import then fails with a "format" error).
 */
typedef json_t *(*strata_key_fn)(json_t *value, json_t *parent, void *payload, char *message,
                                 size_t message_size);

/**
 * Registers the key injector of `model` for schemas loaded through
 * `builder`; payload and release as for strata_schema_builder_add_transformer().
 * The model must exist and have a primaryKey when the schema loads. Returns
 * 0, or -1 on error.
 */
int strata_schema_builder_add_key_injector(strata_schema_builder_t *builder, const char *model,
                                           strata_key_fn inject, void *payload, strata_release_fn release,
                                           strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* Mapping                                                                    */

/*
 * Model names: wherever a function takes a model name, an instance of a
 * generic model may be named too ("Page<Tweet>", "Pair<int, User?>"; spacing
 * is free), if the schema makes it: instances are made when the schema
 * loads, for each one its models use or its "instances" list names
 * (docs/generics.md). Another instance is an "argument" error.
 */

/**
 * Maps `json` (borrowed) onto a new model of the schema's model named
 * `model`. Every error of the input is collected (see strata_errors()); if
 * there is any, no model is made and NULL is returned. Leaves of `json` are
 * shared with the model (see "Shared leaves").
 * Returns a new reference, or NULL on error.
 */
strata_model_t *strata_map(const strata_schema_t *schema, const char *model, json_t *json,
                           strata_error_t *error);

/**
 * Like strata_map(), from UTF-8 JSON text of `length` bytes.
 */
strata_model_t *strata_mapb(const strata_schema_t *schema, const char *model, const char *buffer,
                            size_t length, strata_error_t *error);

/**
 * Maps every element of the JSON array `json` (borrowed) onto a model named
 * `model`. Errors name their element ("/3/title"); if any element fails,
 * nothing is made and NULL is returned with every error of every element.
 * On success returns an array of `*count` new model references, to be
 * released one by one with strata_model_decref() and the array itself with
 * strata_free(). An empty input array gives a non-NULL array and *count 0.
 * `count` must not be NULL.
 */
strata_model_t **strata_map_many(const strata_schema_t *schema, const char *model, json_t *json,
                                 size_t *count, strata_error_t *error);

/**
 * Like strata_map_many(), from UTF-8 JSON text of `length` bytes. A long
 * array is read on several cores at once (see "Cores" above): the same
 * models in the same order, the same errors.
 */
strata_model_t **strata_map_manyb(const strata_schema_t *schema, const char *model,
                                  const char *buffer, size_t length, size_t *count,
                                  strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* Responses                                                                  */

/**
 * Maps an API response `response` (borrowed): the records of the model named
 * `model`, found at its root, and the paging metadata (docs/responses.md).
 *
 * The root is the model's "root" key path (or JSON Pointer), or the whole
 * response when it declares none. The value there gives the records: an
 * array one record per element, in order; an object one record; null or
 * [] no records (a successful, empty result). A root key that is absent is
 * a "missing" error at its pointer ("/statuses"), so an error body such as
 * {"errors": [...]} never passes for an empty page; a root that runs
 * through a value that is not an object is a "path" error; a string,
 * number or bool at the root a "type" error. A root that runs through null
 * gives no records, as key paths of properties do.
 *
 * The metadata is the value at the model's "meta" path mapped onto the meta
 * model; absent or null there gives no metadata (the last page often leaves
 * it out); a value that is not an object is a "type" error.
 *
 * `options` (borrowed; NULL for none) is a JSON object that overrides the
 * schema: "root": a key path or JSON Pointer ("" for the whole response, to
 * ignore the model's root), "meta": {"path": key path, "model": model name}.
 * Null members count as not given; an unknown member, a bad path or an
 * unknown model is an "argument" error.
 *
 * Every error of the records and of the metadata is collected, each with a
 * path into the whole response ("/statuses/7/id"); if there is any, nothing is
 * made and NULL is returned. On success returns an array of `*count` new
 * model references, as strata_map_many() does: release each with
 * strata_model_decref() and the array with strata_free(). An empty result
 * gives a non-NULL array and *count 0. `count` must not be NULL. `metadata`
 * may be NULL when the caller does not want the metadata; otherwise
 * *metadata is set to a new reference to the metadata model (release it
 * with strata_model_decref()), or to NULL when there is none. On failure
 * *count is 0 and *metadata NULL.
 */
strata_model_t **strata_map_response(const strata_schema_t *schema, const char *model,
                                     json_t *response, json_t *options, size_t *count,
                                     strata_model_t **metadata, strata_error_t *error);

/**
 * Like strata_map_response(), from the response as UTF-8 JSON text of
 * `length` bytes (malformed text is a "syntax" error). `options` is still a
 * json_t (borrowed, may be NULL).
 */
strata_model_t **strata_map_responseb(const strata_schema_t *schema, const char *model,
                                      const char *buffer, size_t length, json_t *options,
                                      size_t *count, strata_model_t **metadata,
                                      strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* JSON lines                                                                 */

/*
 * JSON lines (docs/lines.md): one JSON value per line, each mapped onto a
 * model as strata_mapb() maps it alone. Lines end at "\n" (a trailing "\r"
 * is removed); a line holding only whitespace is skipped but counted; a
 * last line without "\n" is a line; line numbers start at 1. A line that is
 * not valid JSON (truncated, binary, invalid UTF-8) is a "syntax" error of
 * that line (its path points into that line's value, its message names the
 * column and byte offset within the line); a mapping error keeps its path
 * into that line's value. Every
 * error object handed over for a line has an integer member "line" besides
 * the five string members of strata_errors().
 *
 * Memory stays constant whatever the input's size: the input is read in
 * chunks, and only a line that spans chunks is gathered, up to the line
 * length limit. A longer line is dropped as it comes, until its newline, and
 * is one "syntax" error of that line.
 *
 * Callbacks run on the calling thread (or on the helper thread of a call
 * that needs a large stack, see "Limits"). A callback may call any strata
 * function but strata_lines_feed(), strata_lines_feed_array() and
 * strata_lines_finish() on the line mapper that is calling it: those are
 * refused with an "argument" error.
 */

/** The default line length limit (bytes before the "\n"): 64 MiB. */
#define STRATA_LINES_DEFAULT_MAX_LENGTH ((size_t)64 << 20)

/** What a strata_read_fn returns on a read error. */
#define STRATA_READ_ERROR ((size_t)-1)

/**
 * Reads up to `size` bytes of input into `buffer`. Returns the number of
 * bytes read (fewer than `size` is fine), 0 at the end of the input, or
 * STRATA_READ_ERROR when the input cannot be read (the call then fails with
 * an "io" error). `data` is the `read_data` given to strata_map_lines().
 */
typedef size_t (*strata_read_fn)(void *buffer, size_t size, void *data);

/**
 * Receives the model of line `line`. `model` is a new reference handed to
 * the callee: release it with strata_model_decref() (or keep it). Return 0
 * to go on, non-zero to stop the call.
 */
typedef int (*strata_line_model_fn)(strata_model_t *model, size_t line, void *data);

/**
 * Receives the errors of line `line`, a line that did not map: `errors` is
 * a JSON array of error objects, each with "path" (into that line's value),
 * "model", "property", "code", "message" and "line". Borrowed: valid during
 * the call; json_incref() it to keep it. Return 0 to go on, non-zero to stop.
 */
typedef int (*strata_line_error_fn)(const json_t *errors, size_t line, void *data);

/**
 * Maps JSON lines read with `read` (called with `read_data`) onto models
 * named `model`: `on_model` receives each line's model, `on_error` each bad
 * line's errors, in the input's order, both with `data`. A bad line never
 * stops the call when `on_error` is given; when `on_error` is NULL, the
 * first bad line stops it: the call returns -1 with that line's errors in
 * `error` and strata_errors() (each with "line"). `on_model` may be NULL to
 * only check the lines (models are counted and released).
 *
 * `max_line_length` is the longest line accepted, in bytes before the "\n";
 * 0 means STRATA_LINES_DEFAULT_MAX_LENGTH.
 *
 * Returns the number of models made (also when a callback stopped the call),
 * or -1 on a failure of the whole call: a NULL `schema`, `model` or `read`,
 * an unknown model ("argument"), a read error ("io", with "line": the line
 * being read), or a bad line with no `on_error`. `error` (may be NULL) is
 * cleared on success.
 */
int64_t strata_map_lines(const strata_schema_t *schema, const char *model, strata_read_fn read,
                         void *read_data, size_t max_line_length, strata_line_model_fn on_model,
                         strata_line_error_fn on_error, void *data, strata_error_t *error);

/**
 * Like strata_map_lines(), reading `file` (an open FILE *, read from its
 * current position to its end with fread(); not closed). A read error
 * (ferror()) is an "io" error. A NULL `file` is an "argument" error.
 */
int64_t strata_map_lines_file(const strata_schema_t *schema, const char *model, FILE *file,
                              size_t max_line_length, strata_line_model_fn on_model,
                              strata_line_error_fn on_error, void *data, strata_error_t *error);

/**
 * A push-style line mapper, for input that arrives in pieces (a socket, an
 * event loop, a binding's generator): bytes go in with strata_lines_feed(),
 * strata_lines_finish() ends the input. Used by one thread at a time.
 */
typedef struct strata_lines strata_lines_t;

/**
 * A new line mapper onto the model named `model` of `schema` (which it keeps
 * alive), refusing lines longer than `max_line_length` bytes (0: the
 * default). Free it with strata_lines_free(). Returns NULL with an
 * "argument" error for a NULL argument or an unknown model.
 */
strata_lines_t *strata_lines_new(const strata_schema_t *schema, const char *model,
                                 size_t max_line_length, strata_error_t *error);

/**
 * Feeds `length` bytes of input (borrowed; any split of the input, lines
 * may span calls). The callbacks receive the lines these bytes complete, as
 * in strata_map_lines(); the start of an unfinished line is kept for the
 * next call. Returns the number of models made by this call, or -1 with an
 * "argument" error (NULL `lines` or `buffer`; a mapper that has ended) or
 * with a bad line's errors when `on_error` is NULL. A mapper ends when a
 * callback stops it, when a bad line stops it, and at strata_lines_finish():
 * later feeds are "argument" errors.
 */
int64_t strata_lines_feed(strata_lines_t *lines, const char *buffer, size_t length,
                          strata_line_model_fn on_model, strata_line_error_fn on_error, void *data,
                          strata_error_t *error);

/**
 * Ends the input: maps a last line that has no "\n", through the callbacks.
 * Returns the number of models made by this call (0 or 1), or -1 as
 * strata_lines_feed() does. The mapper has ended afterwards.
 */
int64_t strata_lines_finish(strata_lines_t *lines, strata_line_model_fn on_model,
                            strata_line_error_fn on_error, void *data, strata_error_t *error);

/**
 * strata_lines_feed() without callbacks, for bindings and loops where a call
 * per line costs more than the line: feeds `length` bytes (borrowed; NULL
 * only with `length` 0) and, when `finish` is non-zero, then ends the input
 * as strata_lines_finish() does. Every line these bytes complete has an
 * entry, in order (a blank line has none): its model, or NULL for a bad
 * line. Bad lines never stop the call.
 *
 * Returns a new array of `*count` entries, each model a new reference (free
 * the array with strata_free() and release the models with
 * strata_model_decref()). `*bad_lines` (`bad_lines` may be NULL) receives
 * NULL when no line was bad, otherwise a new reference to a JSON array
 * holding, for each NULL entry in order, that line's error array (each error
 * with "line"). Returns NULL, `*count` 0 and `*bad_lines` NULL with an
 * "argument" error: NULL `lines` or `count`, a NULL `buffer` with a
 * `length`, a mapper that has ended, or no memory.
 */
strata_model_t **strata_lines_feed_array(strata_lines_t *lines, const char *buffer, size_t length, int finish,
                                         size_t *count, json_t **bad_lines, strata_error_t *error);

/** Frees a line mapper (the lines not yet finished are dropped). NULL is ignored. */
void strata_lines_free(strata_lines_t *lines);

/* ------------------------------------------------------------------------ */
/* Models                                                                     */

/** Adds a reference to `model` and returns it. NULL is ignored. */
strata_model_t *strata_model_incref(strata_model_t *model);

/**
 * Releases a reference to `model`. NULL is ignored. As with json_decref(),
 * releasing a reference the caller does not own (a decref after the last
 * one, or a handle that is not a model) is undefined behaviour: it cannot be
 * detected. The reliability checks (Tests/fuzz/README.md) catch mismatches
 * in Strata's own code.
 */
void strata_model_decref(strata_model_t *model);

/** The name of the model's model type, or NULL for NULL. Borrowed from the model. */
const char *strata_model_name(const strata_model_t *model);

/**
 * The schema of `model`. Borrowed: strata_schema_incref() it to keep it
 * beyond the model's life. NULL for NULL.
 */
strata_schema_t *strata_model_schema(const strata_model_t *model);

/**
 * The state of `property`: 1 if it holds a value or null, 0 if it is absent
 * (never set), -1 with an "argument" error if the model has no such property
 * or an argument is NULL.
 */
int strata_model_has(const strata_model_t *model, const char *property, strata_error_t *error);

/**
 * The canonical value of `property` (null for a property set to null).
 * Returns a new reference, or NULL if the property is absent (then
 * error->code is STRATA_OK and strata_model_has() gives 0), with an
 * "argument" error if there is no such property, or with an "oom" error
 * when the value cannot be made (an integer or string read from bytes is
 * kept without a json_t, and one is made for each call).
 */
json_t *strata_model_get(const strata_model_t *model, const char *property, strata_error_t *error);

/**
 * The value of the date property `property` as an instant: seconds since
 * 1970-01-01T00:00:00Z (negative before) and nanoseconds (0 to 999999999) in
 * `*seconds` and `*nanoseconds`. strata_model_get() gives the same date as its
 * canonical RFC 3339 string. Returns 1 when the property holds a date, 0 when
 * it is absent or null, and -1 with an "argument" error when the model has no
 * such property, the property's type is not `date` (or `date?`), or an
 * argument is NULL.
 */
int strata_model_get_date(const strata_model_t *model, const char *property, int64_t *seconds,
                          int32_t *nanoseconds, strata_error_t *error);

/**
 * The model's canonical dictionary: a JSON object of property name ->
 * canonical value, in the schema's property order, absent properties left out,
 * null kept. Returns a new reference, or NULL with an "argument" error for a
 * NULL model.
 */
json_t *strata_model_dictionary(const strata_model_t *model, strata_error_t *error);

/**
 * Serializes the model back to JSON, the reverse of the mapping: values placed
 * under their JSON keys and key paths (nested objects rebuilt), enum values
 * mapped back, absent properties left out, null written as null, unknown keys
 * carried through under `unknownKeys: keep`. Returns a new reference, or NULL
 * with an "argument" error for a NULL model.
 */
json_t *strata_model_to_json(const strata_model_t *model, strata_error_t *error);

/**
 * 1 if `a` and `b` are models of the same model type with equal values
 * (absent differs from null; kept unknown keys count), 0 if not. Two NULLs are
 * equal; NULL and a model are not.
 */
int strata_model_equal(const strata_model_t *a, const strata_model_t *b);

/**
 * A hash of the model's values, equal for models that strata_model_equal()
 * calls equal, and stable across runs. 0 for NULL.
 */
uint64_t strata_model_hash(const strata_model_t *model);

/**
 * A deep copy of `model` that shares no mutable state with it.
 * Returns a new reference, or NULL for NULL.
 */
strata_model_t *strata_model_copy(const strata_model_t *model);

/* ------------------------------------------------------------------------ */
/* Merge and update                                                           */

/**
 * A custom merger, named by a property's "merge" key: combines the current
 * canonical value (borrowed; NULL when the property is absent) with the
 * incoming one (borrowed; never NULL: a merger is called only when the other
 * side is present) and returns the merged canonical value as a new reference.
 * The result is checked against the property's type. To refuse, write a
 * one-line reason into `message` and return NULL: the merge fails with a
 * "validation" error naming the property, and nothing is changed.
 */
typedef json_t *(*strata_merge_fn)(json_t *current, json_t *incoming, void *payload, char *message,
                                   size_t message_size);

/**
 * Registers the merger `name` for schemas loaded through `builder`; like
 * strata_schema_builder_add_transformer() for names, payload and release.
 * Built-in policy names (replace, keep, merge, append, union, max, min) are
 * refused. Returns 0 on success, -1 on error.
 */
int strata_schema_builder_add_merger(strata_schema_builder_t *builder, const char *name,
                                     strata_merge_fn merge, void *payload, strata_release_fn release,
                                     strata_error_t *error);

/**
 * Merges `other` (borrowed) into `model`, in place, property by property by
 * each property's "merge" policy: replace (the default: a present value of
 * `other` wins, an absent one never wipes, an explicit null does), keep, merge
 * (nested models recursively), append, union (arrays of models, by the element
 * model's primary key), max, min, or a registered merger. `other` must be of
 * the same model, or of a model related to it by "extends" (then the shared
 * properties merge and the rest stay). All or nothing: on any error `model` is
 * unchanged. Returns 0 on success, -1 on error.
 */
int strata_model_merge(strata_model_t *model, const strata_model_t *other, strata_error_t *error);

/**
 * Updates `model` in place from a JSON object (borrowed) in the API's form:
 * JSON Merge Patch (RFC 7396) lifted to models. The keys present are mapped
 * and validated like strata_map() input (required keys may be missing) and
 * merged by each property's policy; keys not present are untouched; null
 * clears a value (to null for `T?` properties, to absent otherwise). All or
 * nothing: if any value fails, `model` is unchanged and every error is
 * reported. Returns 0 on success, -1 on error.
 */
int strata_model_update(strata_model_t *model, json_t *json, strata_error_t *error);

/** Like strata_model_update(), from UTF-8 JSON text of `length` bytes. */
int strata_model_updateb(strata_model_t *model, const char *buffer, size_t length,
                         strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* Diff and patch                                                             */

/**
 * The changes from `a` to `b` (models of one schema) as an RFC 6902 JSON Patch
 * (a JSON array of operations) over their canonical dictionaries, in the form
 * archives carry them ("$type" for subtypes, "$unknown" for kept unknown
 * keys): applying it to `a` with strata_model_patch() gives a model equal to
 * `b`. Objects are diffed member by member, arrays element by element (extra
 * elements added at "-", surplus ones removed from the end), anything else
 * replaced. Returns a new reference, or NULL with an "argument" error for a
 * NULL model or models of different schemas (two loads of one document are
 * different schemas) or models.
 */
json_t *strata_model_diff(const strata_model_t *a, const strata_model_t *b, strata_error_t *error);

/**
 * The changes from `a` to `b` as a merge patch (RFC 7396, lifted: null sets a
 * property to null) over their canonical dictionaries; applying it to `a` with
 * strata_model_merge_patch() gives a model equal to `b`. A property that `a`
 * holds and `b` lacks cannot be said in a merge patch: that is an "argument"
 * error naming the property (use strata_model_diff()). Returns a new reference,
 * or NULL on error.
 */
json_t *strata_model_diff_merge(const strata_model_t *a, const strata_model_t *b,
                                strata_error_t *error);

/**
 * A new model: `model` with the RFC 6902 JSON Patch `patch` (borrowed) applied
 * to its canonical dictionary (add, remove, replace, move, copy, test), then
 * read back as a canonical value: properties the patched dictionary leaves
 * out are absent (defaults are not filled in). `model` is not changed. A
 * malformed or failing operation is an "argument" error pointing into the
 * patch ("/2/path", "/2/value" for a failed "test"); an invalid result fails
 * with every mapping error, pointing into the patched dictionary ("/title").
 * No model is made then. Returns a new reference, or NULL on error.
 */
strata_model_t *strata_model_patch(const strata_model_t *model, json_t *patch, strata_error_t *error);

/**
 * A new model: `model` with the lifted merge patch `patch` (borrowed, an
 * object; null sets null, objects merge recursively, anything else replaces)
 * applied to its canonical dictionary, read back as strata_model_patch()
 * does. A patch that is not an object is an "argument" error. Returns a new
 * reference, or NULL on error.
 */
strata_model_t *strata_model_merge_patch(const strata_model_t *model, json_t *patch,
                                         strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* Archives and versions                                                      */

/**
 * A self-describing archive of `model`:
 * {"strata-archive": 1, "version": <the schema's version>, "model": "Name",
 *  "values": <the canonical dictionary>}, the values including properties
 * that `json: false` hides from JSON, "$type" for subtypes and "$unknown" for
 * kept unknown keys (in every nested model). strata_unarchive() restores an
 * equal model. Returns a new reference, or NULL with an "argument" error for
 * NULL.
 */
json_t *strata_model_archive(const strata_model_t *model, strata_error_t *error);

/**
 * Restores a model from an archive (borrowed). An archive of an older schema
 * version is brought up to date by the schema's "migrations"; one from a newer
 * version, or an older one with no migration path, is refused with an
 * "argument" error at "/version" saying why (naming each missing step: "no
 * migration from version 1 to 2"). A malformed archive is an "argument" error
 * at the offending member; a migration's transformer that fails is a "format"
 * error; errors of the values point under "/values". Returns a new reference,
 * or NULL on error.
 */
strata_model_t *strata_unarchive(const strata_schema_t *schema, json_t *archive, strata_error_t *error);

/** Like strata_unarchive(), from UTF-8 JSON text of `length` bytes. */
strata_model_t *strata_unarchiveb(const strata_schema_t *schema, const char *buffer, size_t length,
                                  strata_error_t *error);

/**
 * The changes from schema `old_schema` to `new_schema` (both borrowed) that
 * matter to data written under the old one: a JSON array of objects with the
 * string members "path" (a JSON Pointer into the new schema document, or the
 * old one for removals), "model", "property", "change" (for example
 * "property-removed", "type-narrowed", "required-added") and "message", and
 * the boolean "breaking": true when old archives or old JSON could no longer be
 * read (a property removed with no migration, a type narrowed, a required key
 * added). Returns a new reference, or NULL with an "argument" error.
 */
json_t *strata_schema_compare(const strata_schema_t *old_schema, const strata_schema_t *new_schema,
                              strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* Schema tools (docs/tools.md, docs/codegen.md)                              */

/**
 * The JSON Schema (draft 2020-12) of model `model`: of the JSON the API sends
 * (what strata_map() accepts) when `canonical` is 0, or of the canonical
 * dictionary (strata_model_dictionary()) otherwise. Every model reached is an
 * entry of "$defs", referenced with "$ref" (escaped as a JSON Pointer in a URI
 * fragment: "#/$defs/Page%3CTweet%3E"). What JSON Schema cannot express (custom
 * transformers, date patterns and bounds, enumDefault) is described in
 * "$comment"s; docs/tools.md lists the limits.
 *
 * Return value: New reference, or NULL with an "argument" error (NULL
 * `schema` or `model`, unknown model).
 */
json_t *strata_schema_json_schema(const strata_schema_t *schema, const char *model, int canonical,
                                  strata_error_t *error);

/**
 * A class diagram of the schema's models, as text: `format` "mermaid" (a
 * Mermaid classDiagram) or "dot" (a Graphviz digraph). Models show their
 * properties with their types; `extends` is inheritance, `subtypes` are arrows
 * labelled with the discriminator value, model-typed properties are
 * associations with a multiplicity ("1", "0..1", "*"), a relationship and its
 * "inverse" one two-way edge labelled with both names, and each generic model
 * appears once with its parameters, its instances linked to it.
 *
 * Returns a NUL-terminated string to be freed with strata_free(), or NULL with
 * an "argument" error (NULL `schema` or `format`, an unknown format).
 */
char *strata_schema_diagram(const strata_schema_t *schema, const char *format, strata_error_t *error);

/**
 * Python source of typed classes for the schema's models (what `strata codegen
 * python` writes; docs/codegen.md): one class per model, a typed read-only
 * attribute per property, each class a view over a strata.Model of the Python
 * binding. `document` (borrowed; may be NULL) is the schema's JSON text, embedded
 * so that the module loads the schema itself; with NULL, the module's
 * bind(schema) must be called before use.
 *
 * Returns a NUL-terminated UTF-8 string to be freed with strata_free(), or NULL
 * with an "argument" error (NULL `schema`).
 */
char *strata_schema_codegen_python(const strata_schema_t *schema, const char *document, strata_error_t *error);

/* ------------------------------------------------------------------------ */
/* Graph contexts (docs/graph.md)                                             */

/**
 * A graph context: the uniqued records of a schema's models, found by their
 * model's "primaryKey", with relationships (properties holding models that
 * have a primaryKey) linked to records and kept in step with their "inverse".
 * In memory, or in memory and in an SQLite file. Reference counted.
 *
 * Threads: a context may be shared between threads. Every call takes the
 * context's lock, so calls on one context run one at a time. Record handles
 * are read-only models and may be read from any thread.
 */
typedef struct strata_context strata_context_t;

/**
 * Opens a graph context on `schema` (which it keeps alive): in memory when
 * `path` is NULL or ":memory:"; on a PostgreSQL database when `path` is a
 * URL ("postgresql://user@host:5432/db?schema=NAME": the graph's tables in
 * that schema, created on first use; libpq is loaded then, an "io" error
 * naming the package when it is missing; docs/graph.md, "PostgreSQL");
 * else on the SQLite file at `path` (created when missing; only its
 * metadata is read, records are read on demand). A file written by a newer schema
 * "version" is refused with an "argument" error; one written by an older
 * version is migrated with the schema's "migrations" and rewritten. A file
 * that is not a Strata graph is an "argument" or "io" error.
 *
 * Return value: New reference (release it with strata_context_decref()), or
 * NULL on error.
 */
strata_context_t *strata_context_open(const strata_schema_t *schema, const char *path, strata_error_t *error);

/** Adds a reference to `context`; returns `context`. NULL is ignored. */
strata_context_t *strata_context_incref(strata_context_t *context);

/** Releases a reference to `context`; the last one closes it. NULL is ignored. */
void strata_context_decref(strata_context_t *context);

/**
 * Closes `context` now (its file too); every later call on it is an
 * "argument" error, and it still needs its strata_context_decref(). Record
 * handles already returned stay valid as read-only models. Idempotent; NULL
 * is ignored.
 */
void strata_context_close(strata_context_t *context);

/**
 * Called by an import's orphan rule with each record about to be deleted
 * (`record` borrowed, valid for the call): return non-zero to keep it.
 */
typedef int (*strata_keep_fn)(strata_model_t *record, void *payload);

/**
 * Imports the records of `model` (which must have a primaryKey) in `data`
 * (borrowed: an object, an array of objects, or a response with the records
 * at the model's "root"), in ONE transaction:
 *
 * - each record is found by its key and updated as strata_model_update()
 *   updates (absent keys never wipe, null clears), or made; a key repeated
 *   in the input is one record, listed at each position, later values win;
 * - a relationship given as an object imports that record; given as a bare
 *   key ("user": "u1", "tags": ["a", "b"]; a list for a composite key) it
 *   links to that record, making a stub that a later object fills;
 * - a to-many relationship takes the input's list by its "merge" policy:
 *   replace (default), union or append; "orphans": "delete" deletes the
 *   records it drops that nothing else refers to;
 * - a record whose input has no key gets one from the model's key injector
 *   (strata_schema_builder_add_key_injector()), or is made fresh and
 *   reported under "warnings".
 *
 * `options` (borrowed; NULL for none) is an object: "root" (a key path or
 * JSON Pointer, over the model's "root"), "meta" (as strata_map_response()
 * takes it; the metadata is handed over by strata_context_import_response()),
 * "delete_orphans": {"model": name,
 * "where": {property: canonical value}, "scope": "all" | "top"}: the records
 * of that model in scope that the response did not contain are deleted,
 * unless `keep` (may be NULL) returns non-zero for one. With "scope": "all"
 * (the default) a record nested anywhere in the response counts as
 * contained; with "top" only its top-level records do (MMRecord's rule).
 * Any other member, here or in "delete_orphans", is an "argument" error.
 *
 * A relationship whose type is not "T?" refuses null ("null" error); a
 * delete or a dropped link that would leave one empty follows the
 * relationship's "deleteRule" (docs/graph.md): "cascade" deletes, "deny" is
 * a "deny" error naming both records (path "/Model/key/property").
 *
 * Any error (every one of the input is collected, each with its path) means
 * nothing changed, in memory or in the file; a file that cannot be written
 * is an "io" error.
 *
 * Return value: an array of `*count` new references to the top-level records
 * in input order (release each with strata_model_decref() and the array with
 * strata_free()), or NULL on error. `report` may be NULL; otherwise
 * *report is a new reference to {"created": {model: n}, "updated": {model: n},
 * "unchanged": {model: n}, "deleted": {model: n}, "warnings": [{"path",
 * "model", "message"}]}: "updated" counts the records that existed and whose
 * values the import changed (given in the input, or through an inverse),
 * "unchanged" those the input gave as objects and left as they were.
 * Records are read-only models: strata_model_update() and
 * strata_model_merge() refuse them (change a strata_model_copy()).
 */
strata_model_t **strata_context_import(strata_context_t *context, const char *model, json_t *data,
                                       json_t *options, strata_keep_fn keep, void *payload, size_t *count,
                                       json_t **report, strata_error_t *error);

/** Like strata_context_import(), from UTF-8 JSON text of `length` bytes. */
strata_model_t **strata_context_importb(strata_context_t *context, const char *model, const char *buffer,
                                        size_t length, json_t *options, strata_keep_fn keep, void *payload,
                                        size_t *count, json_t **report, strata_error_t *error);

/**
 * Like strata_context_import(), and hands over the response's paging
 * metadata as strata_map_response() does: the value at the model's "meta"
 * path (or at the "meta" option's, {"path": key path, "model": model name},
 * which overrides it) mapped onto the meta model. The metadata is a plain
 * model, never a record of the graph; an error in it fails the import (the
 * error's path points into the whole response) and nothing changes.
 *
 * `metadata` may be NULL when the caller does not want it; otherwise, on
 * success, *metadata is a new reference to the metadata model (release it
 * with strata_model_decref()), or NULL when none is declared or the
 * response leaves it out (or holds null there). On failure *metadata is NULL.
 * The text form (strata_context_import_responseb()) parses the response
 * once for the records and the metadata.
 */
strata_model_t **strata_context_import_response(strata_context_t *context, const char *model, json_t *data,
                                                json_t *options, strata_keep_fn keep, void *payload,
                                                size_t *count, strata_model_t **metadata, json_t **report,
                                                strata_error_t *error);

/** Like strata_context_import_response(), from UTF-8 JSON text of `length` bytes. */
strata_model_t **strata_context_import_responseb(strata_context_t *context, const char *model,
                                                 const char *buffer, size_t length, json_t *options,
                                                 strata_keep_fn keep, void *payload, size_t *count,
                                                 strata_model_t **metadata, json_t **report,
                                                 strata_error_t *error);

/**
 * Fetching pages (docs/graph.md, "Fetching pages"). The host makes each HTTP
 * request with its own client; the context says what to send and takes what
 * came back: it imports the page, says which page is next (the model's
 * "paging": a URL or cursor in the body, or the Link header), and keeps, per
 * URL, what it needs to answer the same page again without importing it.
 *
 * strata_context_fetch_headers(): the headers to send with a GET of `url`
 * (borrowed): If-None-Match and If-Modified-Since with the validators of the
 * page of last time, when the graph keeps one.
 *
 * Return value: New reference to an array of ["name", "value"] pairs (empty
 * when there is nothing to send), or NULL on error.
 */
json_t *strata_context_fetch_headers(strata_context_t *context, const char *url, strata_error_t *error);

/**
 * Takes the response to a GET of `url` for records of `model`: `status`, the
 * response's `headers` (borrowed: an array of ["name", "value"] pairs or an
 * object {"name": "value"}; may be NULL) and its `body` of `length` bytes
 * (may be NULL with length 0, for a 304).
 *
 * - A 2xx body is imported as strata_context_import_responseb() imports it
 *   (`options` the same, borrowed, may be NULL), unless `cache` is nonzero
 *   and it is the body of last time.
 * - A 304 answers with the records of last time (an "http" error when the
 *   graph keeps no page of `url`).
 * - Any other status is an "http" error naming the status, the URL and the
 *   body's first bytes; nothing is imported. A body that is not JSON is a
 *   "syntax" error; every error's message starts with the URL.
 * - With `cache` nonzero, the page's ETag and Last-Modified, a digest of its
 *   body, its next page and its records' keys are kept (in the graph's
 *   database, or in memory for a context in memory).
 *
 * Return value: as strata_context_import_responseb(): a new array of new
 * record references (free the array with strata_free(), release each), and
 * *count, *metadata (a page answered from the cache has none) and *report,
 * which also holds "next" (the next page's URL, or null for the last page)
 * and "cached" (true when the page was not imported again). NULL on error.
 */
strata_model_t **strata_context_fetch_page(strata_context_t *context, const char *model, const char *url,
                                           int status, json_t *headers, const char *body, size_t length,
                                           json_t *options, int cache, size_t *count, strata_model_t **metadata,
                                           json_t **report, strata_error_t *error);

/** A GET that strata_context_fetch() asks the fetch function to make. */
typedef struct strata_request {
    const char *url;       /* the URL (borrowed, valid during the call) */
    const json_t *headers; /* the headers to send: an array of ["name", "value"] (borrowed) */
} strata_request_t;

/**
 * What the fetch function fills in: the status, the headers (a new reference
 * to an array of ["name", "value"] pairs or an object, or NULL; stolen) and
 * the body (memory from malloc() of `length` bytes, or NULL; stolen: freed
 * with free()). A function that fails returns nonzero, with a line for a
 * person in `error` (NUL-terminated).
 */
typedef struct strata_response {
    int status;
    json_t *headers;
    char *body;
    size_t length;
    char error[256];
} strata_response_t;

/** Makes one GET; 0 on success, nonzero (with response->error) on failure. */
typedef int (*strata_fetch_fn)(const strata_request_t *request, strata_response_t *response, void *payload);

/**
 * Called with each page: its records (borrowed: valid during the call;
 * strata_model_incref() one to keep it), their count and the page's report
 * (borrowed: as strata_context_fetch_page() gives it, with "url", "status",
 * "next" and "cached"). Returns 0 to go on, nonzero to stop (no further page
 * is requested).
 */
typedef int (*strata_page_fn)(strata_model_t *const *records, size_t count, const json_t *report, void *payload);

/**
 * Fetches the pages of `model`'s records from `url` on (docs/graph.md,
 * "Fetching pages"): for each page, strata_context_fetch_headers(), then
 * `fetch` makes the request, strata_context_fetch_page() takes the response
 * and `page` gets the page; then the next page (the model's "paging"), until
 * the last page, `max_pages` pages (0: no limit) or `page` returns nonzero.
 * `payload` goes to both functions. `cache` as for
 * strata_context_fetch_page().
 *
 * Return value: the number of pages taken (>= 0), or -1 on error: a fetch
 * function that failed (an "io" error with its message and the URL), or
 * the page's own error ("http", "syntax", ...). Nothing of the failing page
 * is imported; the pages before it stay.
 */
long strata_context_fetch(strata_context_t *context, const char *model, const char *url, strata_fetch_fn fetch,
                          strata_page_fn page, void *payload, long max_pages, int cache, strata_error_t *error);

/**
 * The record of `model` (or a subtype) under `key` (borrowed: the key
 * property's canonical value; a list for a composite key; the related
 * record's key for a relationship key). A key of the wrong type ("5" for an
 * int key) is a "type" error.
 *
 * Return value: New reference, or NULL: when there is no such record
 * error->code is STRATA_OK.
 */
strata_model_t *strata_context_get(strata_context_t *context, const char *model, json_t *key,
                                   strata_error_t *error);

/**
 * Every record of `model` (and its subtypes) in key order: an array of
 * `*count` new references (release each and strata_free() the array), or NULL
 * on error.
 */
strata_model_t **strata_context_all(strata_context_t *context, const char *model, size_t *count,
                                    strata_error_t *error);

/** The number of records of `model` (and its subtypes), or -1 on error. */
long long strata_context_count(strata_context_t *context, const char *model, strata_error_t *error);

/**
 * The records of `model` (and its subtypes) that `query` selects, in its
 * order (docs/graph.md#queries). `query` (borrowed; NULL or null: every
 * record, in key order) is one JSON object:
 *
 *   {"where": {"user.name": "ann", "retweetCount": {">=": 10}},
 *    "order_by": ["-createdAt", "id"], "limit": 20, "offset": 0, "stubs": true}
 *
 * `where` maps property names and key paths (through relationships; through
 * a to-many one, any of its records) to a value (equality; null: no value)
 * or an operator object (==, !=, <, <=, >, >=, in, prefix, contains, null),
 * and takes "and", "or" (lists) and "not". `order_by` names properties
 * (through to-one relationships), "-" first for descending; ties are
 * broken by key. Values are read as the property reads canonical values (a
 * relationship: the related record's key). An unknown property is a
 * "property" error, a value of the wrong type a "type" error, each with the
 * JSON Pointer of its place in the query.
 *
 * Return value: an array of `*count` new references (release each and
 * strata_free() the array), or NULL on error.
 */
strata_model_t **strata_context_query(strata_context_t *context, const char *model, json_t *query,
                                      size_t *count, strata_error_t *error);

/** The number of records strata_context_query() would give for `query`
    (borrowed), or -1 on error. */
long long strata_context_query_count(strata_context_t *context, const char *model, json_t *query,
                                     strata_error_t *error);

/** A flag of strata_context_all_flags() and strata_context_count_flags():
    leave out stubs (records known by their key only, strata_record_is_stub()). */
#define STRATA_SKIP_STUBS 1u

/** Like strata_context_all(), with `flags` (0 or STRATA_SKIP_STUBS). */
strata_model_t **strata_context_all_flags(strata_context_t *context, const char *model, unsigned int flags,
                                          size_t *count, strata_error_t *error);

/** Like strata_context_count(), with `flags` (0 or STRATA_SKIP_STUBS). */
long long strata_context_count_flags(strata_context_t *context, const char *model, unsigned int flags,
                                     strata_error_t *error);

/**
 * Deletes `record` (borrowed; a record handle of this context): every
 * relationship that held it lets go, inverses included, and the records its
 * "orphans": "delete" relationships held are deleted when nothing else refers
 * to them. The "deleteRule" of its relationships applies: "cascade" deletes
 * what they hold; "deny", and a link that cannot be empty (a relationship
 * whose type is not "T?") left empty, make the delete a "deny" error with
 * nothing changed. Returns 0, or -1 on error.
 */
int strata_context_delete(strata_context_t *context, strata_model_t *record, strata_error_t *error);

/**
 * Sets how many records the cache of a context on a file may hold between
 * calls (docs/graph.md, "The cache"): after a call that leaves more (the
 * records read or written, and a quarter for each record they link to that
 * is known by its key only), the records used least recently are dropped
 * (down to half the limit; never those of that call) and read from the
 * file again when asked for. 0 drops every record after each call. The
 * default is 50,000. A context in memory holds every record whatever the
 * limit.
 *
 * `records` is a `size_t` passed as is (values above PTRDIFF_MAX are an
 * "argument" error). Returns 0, or -1 with `error` filled.
 */
int strata_context_set_cache_limit(strata_context_t *context, size_t records, strata_error_t *error);

/**
 * The cache's limit (`*limit`) and the number of records read or written it
 * holds now (`*held`); either pointer may be NULL. Returns 0, or -1 with
 * `error` filled (a NULL or closed context).
 */
int strata_context_cache_info(strata_context_t *context, size_t *limit, size_t *held, strata_error_t *error);

/**
 * Reads up to `bytes` of the context's SQLite file through a memory map
 * (SQLite's `PRAGMA mmap_size`; 0, the default, reads pages with pread()).
 * Cold reads of a large file then take their pages from the operating
 * system's cache without a copy (docs/graph.md, "Reading through a memory
 * map"). The price: an I/O error of the disk, or the file cut short by a
 * program that does not lock it as SQLite does, stops the process with
 * SIGBUS instead of failing a call; leave it off where that can happen
 * (network filesystems, removable disks). SQLite caps the size at the limit
 * it was built with: strata_context_memory_map() gives what holds. A context
 * in memory or on PostgreSQL takes the call and maps nothing.
 *
 * `bytes` is a `size_t` passed as is (values above PTRDIFF_MAX are an
 * "argument" error). Returns 0, or -1 with `error` filled (a NULL or closed
 * context, a call inside a read block).
 */
int strata_context_set_memory_map(strata_context_t *context, size_t bytes, strata_error_t *error);

/**
 * How many bytes of its file the context reads through a memory map now, in
 * `*bytes` (may be NULL; 0 when none, in memory, or on PostgreSQL). Returns
 * 0, or -1 with `error` filled (a NULL or closed context).
 */
int strata_context_memory_map(strata_context_t *context, size_t *bytes, strata_error_t *error);

/**
 * Opens a read block on `context` (docs/graph.md, "Read blocks"): until the
 * matching strata_context_end_read(), every call of the context, from any
 * thread, reads one snapshot of its file (a read transaction held from the
 * block's first call), whatever other connections commit meanwhile, and
 * records the cache holds are served without asking the file whether
 * another connection wrote it (a cached strata_context_get then costs what
 * it costs in memory). Blocks nest. An import or delete inside a block ends
 * its snapshot; the block's next read takes a new one. While a block is
 * open the file's write-ahead log cannot be checkpointed past its snapshot:
 * keep blocks short. On a context in memory a block changes nothing.
 * Returns 0, or -1 with `error` filled (a NULL or closed context).
 */
int strata_context_begin_read(strata_context_t *context, strata_error_t *error);

/**
 * Closes the innermost read block of `context`; the last one ends its
 * snapshot, and the next call sees what other connections committed. On a
 * context closed inside the block the block just ends. Returns 0, or -1
 * with `error` filled (a NULL context, or no block open: "argument").
 */
int strata_context_end_read(strata_context_t *context, strata_error_t *error);

/**
 * Checks the invariants of `context` (docs/graph.md, "Checking a graph"):
 * every record maps under its schema (the values it is stored with read back
 * without an error), every link names a live record and agrees with the key
 * the record's handle shows, every inverse holds both ways; on a file, these
 * hold for the whole file, each row reads back to what was written, and every
 * record the cache holds is the file's. For tests, fuzzers, and a file one
 * doubts; it reads every record of the file.
 *
 * Returns 0 when every invariant holds, or -1 with each broken one (at most
 * 100) as an "io" error naming the record (path "/Model/key/property").
 */
int strata_context_check(strata_context_t *context, strata_error_t *error);

/**
 * The records the relationship `property` of `record` (borrowed) holds now,
 * in order: none (absent or null), one, or the list. An array of `*count` new
 * references (release each and strata_free() the array), or NULL on error.
 */
strata_model_t **strata_context_related(strata_context_t *context, strata_model_t *record,
                                        const char *property, size_t *count, strata_error_t *error);

/**
 * The canonical dictionary of `record` (borrowed) with relationships nested;
 * a record met again on a cycle is written as its key. New reference, or NULL
 * on error. (strata_model_dictionary() gives relationships as keys.)
 */
json_t *strata_context_dictionary(strata_context_t *context, strata_model_t *record, strata_error_t *error);

/**
 * Like strata_context_dictionary(), nested `depth` levels down: the related
 * records of the first `depth` levels are nested, those below are written as
 * their keys (0: the record's own dictionary, relationships as keys; a
 * negative depth: all the way, as strata_context_dictionary()). A record's
 * nested dictionary can otherwise hold its whole connected graph. New
 * reference, or NULL on error.
 */
json_t *strata_context_dictionary_depth(strata_context_t *context, strata_model_t *record, int depth,
                                        strata_error_t *error);

/** Like strata_context_dictionary(), serialized back to API JSON. New reference, or NULL. */
json_t *strata_context_to_json(strata_context_t *context, strata_model_t *record, strata_error_t *error);

/**
 * What `property` of `model` is in a graph context: 1 a to-one relationship
 * (its type is a model with a primaryKey, or that model optional), 2 a to-many
 * one ([M] or [M]?), 0 an ordinary property; -1 with an "argument" error for
 * a NULL argument, an unknown model or property.
 */
int strata_schema_relationship(const strata_schema_t *schema, const char *model, const char *property,
                               strata_error_t *error);

/**
 * 1 when `record` (borrowed) is a stub: a record known by its key only (a
 * bare key in an input made it), not yet filled by an object; 0 for any
 * other record, an ordinary model or NULL. As the handle saw it when it was
 * read: get the record again to see a later fill.
 */
int strata_record_is_stub(const strata_model_t *record);

/**
 * The key of a record handle (new reference), or NULL for an ordinary model or
 * NULL. A record's handle keeps its key and values after the record is
 * deleted or its context closed; following its relationships then is an
 * "argument" error that says so (the record was deleted, or the context is
 * closed).
 */
json_t *strata_record_key(const strata_model_t *record);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_H */
