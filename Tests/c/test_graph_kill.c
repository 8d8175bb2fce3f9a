/*
 * test_graph_kill.c - a process killed with SIGKILL in the middle of an
 * import leaves the graph file as it was.
 *
 * The parent writes a first graph (100 posts, 10 users) into a fresh file,
 * then runs itself as a child (`test_graph_kill child PATH`) that imports a
 * big second payload (8,000 posts of 500 users, moving some of the first
 * posts to new authors) into the same file, and kills the child after a
 * delay: first one run to the end to time it, then kills spread over that
 * time (some during the parse and mapping, some during the commit). After
 * each kill the file must hold exactly the first graph, or exactly the first
 * and the whole second import - never a part - with every inverse true.
 *
 * usage: test_graph_kill            (the test)
 *        test_graph_kill child PATH (the importing child)
 */
#define _POSIX_C_SOURCE 200809L

#include <strata.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char schema_text[] =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"name\": {\"type\": \"string\"}, \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\"}}},"
    "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"body\": {\"type\": \"string\"}, \"author\": {\"type\": \"User\", \"inverse\": \"posts\"}}}}}";

static int checks, failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        checks++;                                                                    \
        if (!(cond)) {                                                               \
            failed++;                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* Posts `first` .. `first + count - 1`, by `users` users (ids from `user_base`). */
static json_t *posts(int first, int count, int users, int user_base) {
    json_t *list = json_array();
    int i;
    for (i = 0; i < count; i++) {
        int user = user_base + (i % users);
        json_array_append_new(list, json_pack("{s:i, s:s, s:{s:i, s:s}}", "id", first + i, "body",
                                              "a body of some length, to fill pages of the write-ahead log",
                                              "author", "id", user, "name", "someone"));
    }
    return list;
}

static strata_schema_t *load_schema(void) {
    strata_error_t err;
    strata_schema_t *schema = strata_schema_loadb(schema_text, sizeof schema_text - 1, &err);
    if (schema == NULL) {
        fprintf(stderr, "the schema does not load: %s\n", err.message);
        exit(2);
    }
    return schema;
}

static int import_into(strata_context_t *context, json_t *data) {
    strata_error_t err;
    size_t count = 0, i;
    strata_model_t **records = strata_context_import(context, "Post", data, NULL, NULL, NULL, &count, NULL, &err);
    if (records == NULL) {
        fprintf(stderr, "import failed: %s %s\n", err.path, err.message);
        return -1;
    }
    for (i = 0; i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    return 0;
}

/* The child: the second import (posts 50..8049: 50 of them move to new authors). */
static int child(const char *path) {
    strata_schema_t *schema = load_schema();
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, path, &err);
    json_t *data = posts(50, 8000, 500, 1000);
    int status;
    if (context == NULL)
        return 3;
    status = import_into(context, data);
    json_decref(data);
    strata_context_decref(context);
    strata_schema_decref(schema);
    return status == 0 ? 0 : 4;
}

static void remove_files(const char *path) {
    const char *suffixes[] = {"", "-wal", "-shm"};
    char name[256];
    int i;
    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

/* Writes the first graph into a fresh file. */
static void first_graph(strata_schema_t *schema, const char *path) {
    strata_error_t err;
    strata_context_t *context;
    json_t *data = posts(0, 100, 10, 0);
    remove_files(path);
    context = strata_context_open(schema, path, &err);
    CHECK(context != NULL);
    if (context != NULL) {
        CHECK(import_into(context, data) == 0);
        strata_context_decref(context);
    }
    json_decref(data);
}

/* 0: the first graph, 1: the first and the whole second import, -1: anything else. */
static int which_graph(strata_schema_t *schema, const char *path) {
    strata_error_t err;
    strata_context_t *context = strata_context_open(schema, path, &err);
    long long posts_count, users;
    int state = -1;
    if (context == NULL) {
        fprintf(stderr, "the file does not reopen: %s\n", err.message);
        return -1;
    }
    posts_count = strata_context_count(context, "Post", &err);
    users = strata_context_count(context, "User", &err);
    if (posts_count == 100 && users == 10)
        state = 0;
    else if (posts_count == 8050 && users == 510)
        state = 1;
    if (state >= 0) {
        /* the inverse holds: every user's posts have that user as author */
        size_t count = 0, i, n = 0, total = 0;
        strata_model_t **all = strata_context_all(context, "User", &count, &err);
        for (i = 0; all != NULL && i < count; i++) {
            strata_model_t **written = strata_context_related(context, all[i], "posts", &n, &err);
            json_t *id = strata_model_get(all[i], "id", NULL);
            size_t j;
            for (j = 0; written != NULL && j < n; j++) {
                json_t *author = strata_model_get(written[j], "author", NULL);
                if (!json_equal(author, id))
                    state = -1;
                json_decref(author);
                strata_model_decref(written[j]);
            }
            total += n;
            strata_free(written);
            json_decref(id);
            strata_model_decref(all[i]);
        }
        strata_free(all);
        if ((long long)total != posts_count)
            state = -1;
    }
    if (state < 0)
        fprintf(stderr, "a torn graph: %lld posts, %lld users\n", posts_count, users);
    strata_context_decref(context);
    return state;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs the child; kills it after `delay` seconds (negative: lets it finish). Returns its run time. */
static double run_child(const char *self, const char *path, double delay, int *killed) {
    double start = now();
    int status = 0;
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "child", path, (char *)NULL);
        _exit(127);
    }
    *killed = 0;
    if (delay >= 0) {
        struct timespec wait = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
        nanosleep(&wait, NULL);
        if (waitpid(pid, &status, WNOHANG) == 0) {
            kill(pid, SIGKILL);
            *killed = 1;
        }
    }
    waitpid(pid, &status, 0);
    if (!*killed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
        !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
        fprintf(stderr, "the child ended with status %d\n", status);
    return now() - start;
}

int main(int argc, char **argv) {
    char folder[] = "/tmp/strata-graph-kill-XXXXXX", path[128];
    strata_schema_t *schema;
    double full;
    int killed, round, outcomes[2] = {0, 0};
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2]);
    if (mkdtemp(folder) == NULL)
        return 2;
    snprintf(path, sizeof path, "%s/graph.db", folder);
    schema = load_schema();

    first_graph(schema, path);
    full = run_child(argv[0], path, -1, &killed);
    CHECK(which_graph(schema, path) == 1);
    for (round = 0; round < 10; round++) {
        double delay = full * (0.05 + 0.1 * round);
        int state;
        first_graph(schema, path);
        run_child(argv[0], path, delay, &killed);
        state = which_graph(schema, path);
        CHECK(state == 0 || state == 1);
        if (state >= 0)
            outcomes[state]++;
    }
    printf("child took %.2f s; after kills: %d times the first graph, %d times both imports\n", full,
           outcomes[0], outcomes[1]);
    remove_files(path);
    rmdir(folder);
    strata_schema_decref(schema);
    printf("%d checks, %d failed\n", checks, failed);
    return failed == 0 ? 0 : 1;
}
