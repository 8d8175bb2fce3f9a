/*
 * bench.c - the C side of the Strata benchmark.
 *
 * Times, on one payload and in one process:
 *   loadb       json_loadb: bytes -> json_t (jansson's parser)
 *   map_many    strata_map_many: json_t -> models (model GHIssue)
 *   to_json     strata_model_to_json for every model: models -> json_t
 *   map_manyb   strata_map_manyb: bytes -> models (Strata's own parse + map)
 *   unpack      the floor: json_unpack into plain C structs, strings borrowed
 *               from the json_t (the DOM must outlive the structs)
 *   unpack_dup  the same, strings strdup'ed (the structs own their data, as
 *               models do)
 * and measures heap bytes (glibc mallinfo2: uordblks + hblkhd) held by the
 * jansson DOM, by the models (with the DOM alive, and after the DOM is
 * released), and by the C structs.
 *
 * Output is one fact a line, for Benchmarks/run.py to read:
 *   time <key> <best seconds> <median seconds> <repetitions>
 *   mem <key> <bytes>
 *   info <key> <text>
 * Build: see scripts/bench (gcc -O2 ... -DHAVE_STRATA -lstrata -ljansson).
 * Without -DHAVE_STRATA only the jansson and json_unpack rows are built.
 *
 *   bench PAYLOAD SCHEMA [REPETITIONS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#ifdef HAVE_STRATA
#include "strata.h"
#endif

/* ---------------------------------------------------------------------- */
/* The C structs of the floor: the same fields and nesting as schema.json, */
/* the Codable structs, the pydantic and the msgspec models.               */

typedef enum { GH_OPEN = 0, GH_CLOSED = 1 } gh_state;

typedef struct {
    const char *login;
    json_int_t id;
    const char *avatar_url;
    int site_admin;
} gh_user;

typedef struct {
    json_int_t id;
    const char *name;
    const char *color;
    int is_default;
    const char *description; /* NULL for null */
} gh_label;

typedef struct {
    const char *url;
    json_int_t id;
    json_int_t number;
    const char *title;
    const char *description; /* NULL for null */
    gh_state state;
    json_int_t open_issues;
    json_int_t closed_issues;
    const char *created_at;
    const char *due_on; /* NULL for null */
} gh_milestone;

typedef struct {
    const char *url;
    const char *html_url;
    json_int_t id;
    json_int_t number;
    const char *title;
    gh_user user;
    gh_label *labels;
    size_t label_count;
    gh_state state;
    int locked;
    gh_user *assignee;       /* NULL for null */
    gh_milestone *milestone; /* NULL for null */
    json_int_t comments;
    const char *created_at;
    const char *updated_at;
    const char *closed_at; /* NULL for null */
    const char *body;      /* NULL for null */
    double score;
    json_t *reactions; /* a new reference: any JSON, kept as is */
} gh_issue;

/* Strings are borrowed from the DOM, or strdup'ed when `own` is set. */
typedef struct {
    int own;
} floor_opts;

static const char *take_str(const floor_opts *o, const char *s) {
    return (o->own && s) ? strdup(s) : s;
}

/* Strata's `url` rule: scheme ALPHA *(ALPHA / DIGIT / + / - / .), ':', at
 * least one more character, no spaces or control characters. */
static int valid_url(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        return 0;
    p++;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           *p == '+' || *p == '-' || *p == '.')
        p++;
    if (*p != ':' || p[1] == 0)
        return 0;
    for (p++; *p; p++)
        if (*p <= 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

static int parse_state(const char *s, gh_state *out) {
    if (strcmp(s, "open") == 0) {
        *out = GH_OPEN;
        return 0;
    }
    if (strcmp(s, "closed") == 0) {
        *out = GH_CLOSED;
        return 0;
    }
    return -1;
}

/* A `string?`: NULL for null, -1 for anything but a string or null. */
static int nullable_str(const floor_opts *o, json_t *v, const char **out) {
    if (json_is_null(v)) {
        *out = NULL;
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    *out = take_str(o, json_string_value(v));
    return 0;
}

static int unpack_user(const floor_opts *o, json_t *j, gh_user *u) {
    const char *login, *avatar;
    if (json_unpack(j, "{s:s, s:I, s:s, s:b}", "login", &login, "id", &u->id, "avatar_url",
                    &avatar, "site_admin", &u->site_admin) != 0)
        return -1;
    if (!valid_url(avatar))
        return -1;
    u->login = take_str(o, login);
    u->avatar_url = take_str(o, avatar);
    return 0;
}

static int unpack_label(const floor_opts *o, json_t *j, gh_label *l) {
    const char *name, *color;
    json_t *desc;
    if (json_unpack(j, "{s:I, s:s, s:s, s:b, s:o}", "id", &l->id, "name", &name, "color", &color,
                    "default", &l->is_default, "description", &desc) != 0)
        return -1;
    if (nullable_str(o, desc, &l->description) != 0)
        return -1;
    l->name = take_str(o, name);
    l->color = take_str(o, color);
    return 0;
}

static int unpack_milestone(const floor_opts *o, json_t *j, gh_milestone *m) {
    const char *url, *title, *state, *created;
    json_t *desc, *due;
    if (json_unpack(j, "{s:s, s:I, s:I, s:s, s:o, s:s, s:I, s:I, s:s, s:o}", "url", &url, "id",
                    &m->id, "number", &m->number, "title", &title, "description", &desc, "state",
                    &state, "open_issues", &m->open_issues, "closed_issues", &m->closed_issues,
                    "created_at", &created, "due_on", &due) != 0)
        return -1;
    if (!valid_url(url) || parse_state(state, &m->state) != 0)
        return -1;
    if (nullable_str(o, desc, &m->description) != 0 || nullable_str(o, due, &m->due_on) != 0)
        return -1;
    m->url = take_str(o, url);
    m->title = take_str(o, title);
    m->created_at = take_str(o, created);
    return 0;
}

static int unpack_issue(const floor_opts *o, json_t *j, gh_issue *is) {
    const char *url, *html_url, *title, *state, *created, *updated;
    json_t *user, *labels, *assignee, *milestone, *closed, *body, *reactions;
    memset(is, 0, sizeof *is);
    if (json_unpack(j,
                    "{s:s, s:s, s:I, s:I, s:s, s:o, s:o, s:s, s:b, s:o, s:o, s:I, s:s, s:s, s:o, "
                    "s:o, s:F, s:o}",
                    "url", &url, "html_url", &html_url, "id", &is->id, "number", &is->number,
                    "title", &title, "user", &user, "labels", &labels, "state", &state, "locked",
                    &is->locked, "assignee", &assignee, "milestone", &milestone, "comments",
                    &is->comments, "created_at", &created, "updated_at", &updated, "closed_at",
                    &closed, "body", &body, "score", &is->score, "reactions", &reactions) != 0)
        return -1;
    if (!valid_url(url) || !valid_url(html_url) || parse_state(state, &is->state) != 0)
        return -1;
    if (unpack_user(o, user, &is->user) != 0)
        return -1;
    if (!json_is_array(labels))
        return -1;
    is->label_count = json_array_size(labels);
    is->labels = calloc(is->label_count ? is->label_count : 1, sizeof *is->labels);
    for (size_t i = 0; i < is->label_count; i++)
        if (unpack_label(o, json_array_get(labels, i), &is->labels[i]) != 0)
            return -1;
    if (!json_is_null(assignee)) {
        is->assignee = malloc(sizeof *is->assignee);
        if (unpack_user(o, assignee, is->assignee) != 0)
            return -1;
    }
    if (!json_is_null(milestone)) {
        is->milestone = malloc(sizeof *is->milestone);
        if (unpack_milestone(o, milestone, is->milestone) != 0)
            return -1;
    }
    if (nullable_str(o, closed, &is->closed_at) != 0 || nullable_str(o, body, &is->body) != 0)
        return -1;
    is->url = take_str(o, url);
    is->html_url = take_str(o, html_url);
    is->title = take_str(o, title);
    is->created_at = take_str(o, created);
    is->updated_at = take_str(o, updated);
    is->reactions = json_incref(reactions);
    return 0;
}

static void free_str(const floor_opts *o, const char *s) {
    if (o->own)
        free((void *)s);
}

static void free_user(const floor_opts *o, gh_user *u) {
    free_str(o, u->login);
    free_str(o, u->avatar_url);
}

static void free_issues(const floor_opts *o, gh_issue *issues, size_t n) {
    for (size_t i = 0; i < n; i++) {
        gh_issue *is = &issues[i];
        free_user(o, &is->user);
        for (size_t k = 0; k < is->label_count; k++) {
            free_str(o, is->labels[k].name);
            free_str(o, is->labels[k].color);
            free_str(o, is->labels[k].description);
        }
        free(is->labels);
        if (is->assignee) {
            free_user(o, is->assignee);
            free(is->assignee);
        }
        if (is->milestone) {
            gh_milestone *m = is->milestone;
            free_str(o, m->url);
            free_str(o, m->title);
            free_str(o, m->description);
            free_str(o, m->created_at);
            free_str(o, m->due_on);
            free(m);
        }
        free_str(o, is->url);
        free_str(o, is->html_url);
        free_str(o, is->title);
        free_str(o, is->created_at);
        free_str(o, is->updated_at);
        free_str(o, is->closed_at);
        free_str(o, is->body);
        json_decref(is->reactions);
    }
    free(issues);
}

/* Maps the whole array; NULL (after freeing what was made) on any error. */
static gh_issue *unpack_all(const floor_opts *o, json_t *array, size_t *count) {
    size_t n = json_array_size(array);
    gh_issue *issues = calloc(n ? n : 1, sizeof *issues);
    for (size_t i = 0; i < n; i++) {
        if (unpack_issue(o, json_array_get(array, i), &issues[i]) != 0) {
            fprintf(stderr, "bench: json_unpack floor failed at element %zu\n", i);
            free_issues(o, issues, i + 1);
            return NULL;
        }
    }
    *count = n;
    return issues;
}

/* ---------------------------------------------------------------------- */
/* Timing and memory                                                       */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long heap_bytes(void) {
    struct mallinfo2 mi = mallinfo2();
    return (long long)(mi.uordblks + mi.hblkhd);
}

static long max_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

#define MAX_REPS 100

typedef struct {
    const char *key;
    double t[MAX_REPS];
    int n;
} series;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(series *s) {
    if (s->n == 0)
        return;
    double sorted[MAX_REPS];
    memcpy(sorted, s->t, sizeof(double) * (size_t)s->n);
    qsort(sorted, (size_t)s->n, sizeof(double), cmp_double);
    double median = (s->n % 2) ? sorted[s->n / 2] : (sorted[s->n / 2 - 1] + sorted[s->n / 2]) / 2;
    printf("time %s %.9f %.9f %d\n", s->key, sorted[0], median, s->n);
}

static void add(series *s, double t, int record) {
    if (record && s->n < MAX_REPS)
        s->t[s->n++] = t;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "bench: cannot read %s\n", path);
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[size] = 0;
    *len = (size_t)size;
    return buf;
}

static json_t *load(const char *buf, size_t len) {
    json_error_t err;
    json_t *dom = json_loadb(buf, len, 0, &err);
    if (!dom) {
        fprintf(stderr, "bench: json_loadb: %s (line %d, column %d)\n", err.text, err.line,
                err.column);
        exit(1);
    }
    return dom;
}

#ifdef HAVE_STRATA
static void strata_fail(const char *what, const strata_error_t *e) {
    fprintf(stderr, "bench: %s failed: %s at %s (%s.%s): %s [%zu errors]\n", what, e->code_name,
            e->path, e->model, e->property, e->message, e->count);
    exit(1);
}

static void release_models(strata_model_t **models, size_t n) {
    for (size_t i = 0; i < n; i++)
        strata_model_decref(models[i]);
    strata_free(models);
}

/* The JSON the mapping should give back: each input issue without the keys
 * that no property maps (`node_id`). */
static void check_round_trip(json_t *dom, strata_model_t **models, size_t n) {
    size_t same = 0;
    size_t first_bad = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        json_t *expect = json_deep_copy(json_array_get(dom, i));
        json_object_del(expect, "node_id");
        strata_error_t err;
        json_t *out = strata_model_to_json(models[i], &err);
        if (!out)
            strata_fail("strata_model_to_json", &err);
        if (json_equal(expect, out))
            same++;
        else if (first_bad == (size_t)-1)
            first_bad = i;
        json_decref(out);
        json_decref(expect);
    }
    printf("info round_trip %zu/%zu issues: strata_model_to_json(map(x)) == x without unmapped keys\n",
           same, n);
    if (first_bad != (size_t)-1) {
        json_t *out = strata_model_to_json(models[first_bad], NULL);
        char *a = json_dumps(json_array_get(dom, first_bad), JSON_COMPACT);
        char *b = json_dumps(out, JSON_COMPACT);
        fprintf(stderr, "bench: round trip differs at %zu\n  in:  %.600s\n  out: %.600s\n",
                first_bad, a, b);
        free(a);
        free(b);
        json_decref(out);
    }
}
#endif

static void measure_memory(const char *buf, size_t len, const void *schema_) {
    /* Heap bytes in use (mallinfo2 uordblks + hblkhd) before and after each
     * step, in a process that has mapped nothing big yet, so that the rise of
     * ru_maxrss (which only grows) shows each step's peak too (coarse: pages,
     * and glibc keeps freed memory). */
    (void)schema_;
    long long m0 = heap_bytes();
    long rss0 = max_rss_kb();
    json_t *dom = load(buf, len);
    long long m1 = heap_bytes();
    long rss1 = max_rss_kb();
    printf("mem dom %lld\n", m1 - m0);
    printf("mem dom_peak_rss_rise %ld\n", (rss1 - rss0) * 1024L);

#ifdef HAVE_STRATA
    const strata_schema_t *schema = schema_;
    strata_error_t err;
    size_t count = 0;
    strata_model_t **models = strata_map_many(schema, "GHIssue", dom, &count, &err);
    if (!models)
        strata_fail("strata_map_many", &err);
    long long m2 = heap_bytes();
    long rss2 = max_rss_kb();
    printf("mem models %lld\n", m2 - m1);
    printf("mem models_peak_rss_rise %ld\n", (rss2 - rss1) * 1024L);

    json_t **outs = malloc(sizeof(json_t *) * (count ? count : 1));
    long long m3a = heap_bytes();
    for (size_t i = 0; i < count; i++)
        outs[i] = strata_model_to_json(models[i], NULL);
    printf("mem to_json %lld\n", heap_bytes() - m3a);
    for (size_t i = 0; i < count; i++)
        json_decref(outs[i]);
    free(outs);

    long long m4a = heap_bytes();
    json_decref(dom);
    long long m4 = heap_bytes();
    printf("mem dom_released %lld\n", m4a - m4);
    /* What the models hold on their own: their storage plus the leaves they
     * share with the released DOM and so keep alive. */
    printf("mem models_alone %lld\n", m4 - m0);
    release_models(models, count);
    printf("mem leftover %lld\n", heap_bytes() - m0);
    dom = load(buf, len);
    m1 = heap_bytes();
#endif

    size_t n = 0;
    gh_issue *issues = unpack_all(&(floor_opts){0}, dom, &n);
    printf("mem structs %lld\n", heap_bytes() - m1);
    free_issues(&(floor_opts){0}, issues, n);
    long long m5 = heap_bytes();
    issues = unpack_all(&(floor_opts){1}, dom, &n);
    printf("mem structs_dup %lld\n", heap_bytes() - m5);
    free_issues(&(floor_opts){1}, issues, n);
    json_decref(dom);
}

#ifdef HAVE_STRATA
/* `bench_c PAYLOAD SCHEMA 1 bytes-memory`: in a process of its own (so that no
 * DOM was ever made), the heap the models of strata_map_manyb hold and the
 * rise of the peak resident set over mapping them: models plus the parser's
 * small constant, no DOM. */
static int bytes_memory(const char *buf, size_t len, const char *schema_path) {
    strata_error_t err;
    strata_schema_t *schema = strata_schema_load_file(schema_path, &err);
    if (!schema)
        strata_fail("strata_schema_load_file", &err);
    size_t count = 0;
    /* the Swift runtime and the schema's plans, on a small input first */
    strata_model_t **warm = strata_map_manyb(schema, "GHIssue", "[]", 2, &count, &err);
    if (!warm)
        strata_fail("strata_map_manyb (warm-up)", &err);
    release_models(warm, count);
    long long m0 = heap_bytes();
    long rss0 = max_rss_kb();
    strata_model_t **models = strata_map_manyb(schema, "GHIssue", buf, len, &count, &err);
    if (!models)
        strata_fail("strata_map_manyb", &err);
    printf("mem bytes_models %lld\n", heap_bytes() - m0);
    printf("mem bytes_peak_rss_rise %ld\n", (max_rss_kb() - rss0) * 1024L);
    release_models(models, count);
    strata_schema_decref(schema);
    return 0;
}
#endif

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PAYLOAD SCHEMA [REPETITIONS]\n", argv[0]);
        return 2;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    if (reps < 1 || reps > MAX_REPS)
        reps = 5;
    size_t len;
    char *buf = read_file(argv[1], &len);
    if (!buf)
        return 1;
#ifdef HAVE_STRATA
    if (argc > 4 && strcmp(argv[4], "bytes-memory") == 0)
        return bytes_memory(buf, len, argv[2]);
#endif
    printf("info payload_bytes %zu\n", len);
    printf("info jansson %s\n", jansson_version_str());

    series s_load = {.key = "loadb"}, s_unpack = {.key = "unpack"}, s_unpack_dup = {.key = "unpack_dup"},
           s_free_dom = {.key = "dom_free"};
    floor_opts borrowed = {0}, owning = {1};
    size_t n_issues = 0;

#ifdef HAVE_STRATA
    series s_map = {.key = "map_many"}, s_to_json = {.key = "to_json"}, s_mapb = {.key = "map_manyb"},
           s_release = {.key = "models_free"};
    printf("info strata %s\n", strata_version());
    strata_error_t err;
    strata_schema_t *schema = strata_schema_load_file(argv[2], &err);
    if (!schema)
        strata_fail("strata_schema_load_file", &err);
#endif

#ifdef HAVE_STRATA
    /* Let the Swift runtime set itself up (type metadata, the schema's
     * caches) before measuring: map an array of the payload's first issue
     * (parsed alone, so that no big DOM has been made and freed yet). */
    {
        json_error_t jerr;
        json_t *first = json_loadb(buf + 1, len - 1, JSON_DISABLE_EOF_CHECK, &jerr);
        if (!first) {
            fprintf(stderr, "bench: cannot parse the first issue: %s\n", jerr.text);
            return 1;
        }
        json_t *few = json_array();
        json_array_append_new(few, first);
        size_t c = 0;
        strata_model_t **m = strata_map_many(schema, "GHIssue", few, &c, &err);
        if (!m)
            strata_fail("strata_map_many (warm-up)", &err);
        for (size_t i = 0; i < c; i++)
            json_decref(strata_model_to_json(m[i], NULL));
        release_models(m, c);
        json_decref(few);
    }
    measure_memory(buf, len, schema);
#else
    measure_memory(buf, len, NULL);
#endif

    /* Repetition 0 is the warm-up: run, not recorded. */
    for (int r = 0; r <= reps; r++) {
        int rec = r > 0;
        double t0 = now();
        json_t *dom = load(buf, len);
        add(&s_load, now() - t0, rec);
        n_issues = json_array_size(dom);

#ifdef HAVE_STRATA
        size_t count = 0;
        t0 = now();
        strata_model_t **models = strata_map_many(schema, "GHIssue", dom, &count, &err);
        add(&s_map, now() - t0, rec);
        if (!models)
            strata_fail("strata_map_many", &err);

        json_t **outs = malloc(sizeof(json_t *) * (count ? count : 1));
        t0 = now();
        for (size_t i = 0; i < count; i++) {
            outs[i] = strata_model_to_json(models[i], &err);
            if (!outs[i])
                strata_fail("strata_model_to_json", &err);
        }
        add(&s_to_json, now() - t0, rec);
        for (size_t i = 0; i < count; i++)
            json_decref(outs[i]);
        free(outs);

        if (r == 0)
            check_round_trip(dom, models, count);

        t0 = now();
        release_models(models, count);
        add(&s_release, now() - t0, rec);
#endif

        size_t n = 0;
        t0 = now();
        gh_issue *issues = unpack_all(&borrowed, dom, &n);
        add(&s_unpack, now() - t0, rec);
        if (!issues)
            return 1;
        free_issues(&borrowed, issues, n);

        t0 = now();
        issues = unpack_all(&owning, dom, &n);
        add(&s_unpack_dup, now() - t0, rec);
        if (!issues)
            return 1;
        free_issues(&owning, issues, n);

        t0 = now();
        json_decref(dom);
        add(&s_free_dom, now() - t0, rec);

#ifdef HAVE_STRATA
        t0 = now();
        models = strata_map_manyb(schema, "GHIssue", buf, len, &count, &err);
        add(&s_mapb, now() - t0, rec);
        if (!models)
            strata_fail("strata_map_manyb", &err);
        release_models(models, count);
#endif
    }
    printf("info issues %zu\n", n_issues);
    report(&s_load);
    report(&s_unpack);
    report(&s_unpack_dup);
    report(&s_free_dom);
#ifdef HAVE_STRATA
    report(&s_map);
    report(&s_to_json);
    report(&s_mapb);
    report(&s_release);
    strata_schema_decref(schema);
#endif

    free(buf);
    return 0;
}
