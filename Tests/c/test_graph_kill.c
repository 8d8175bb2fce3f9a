/*
 * test_graph_kill.c - a process killed with SIGKILL in the middle of an
 * import leaves the graph file as it was.
 *
 * The parent writes a first graph (100 posts of 10 users) into a fresh file,
 * then fork()s and runs itself as a child (`test_graph_kill child PATH N
 * json|text STOP`) that opens the same file and imports a big second payload
 * (N posts, default 8,000, of N/16 new users; 50 of the first posts move to
 * new authors), as a json_t or as text (strata_context_importb reads an
 * array element by element), in ONE transaction. Two uncut runs (one each
 * way) give the graph after the whole import, its run time and how many
 * bytes its commit writes into the write-ahead log (PATH-wal). Then each
 * round kills the child with SIGKILL:
 *
 *   - after a random delay over the child's run time (open, parse, mapping,
 *     commit, close) and a little beyond it; or
 *   - in the middle of the commit: the child stops itself (SIGSTOP) once
 *     its writes into the log reach STOP bytes, a random part of what the
 *     whole commit writes, tells the parent how many it wrote, and the
 *     parent, seeing it stopped, kills it. The log then holds exactly that
 *     part of the transaction; or
 *   - just after the commit: STOP is the whole commit's bytes (the
 *     transaction is in the log, not yet copied into the file).
 *
 * The commit writes the log in a few milliseconds, too fast for a watching
 * parent to hit reliably on a loaded machine; so the child counts its own
 * log writes, through SQLite's system-call hooks (xSetSystemCall of the
 * default VFS: pwrite64/pwrite/write) - libstrata uses the process's
 * libsqlite3. The engine is not touched: it is killed where it stands.
 *
 * After each kill the parent reopens the file: its whole graph (every
 * record's canonical dictionary, strata_context_all) must equal exactly the
 * first graph, or exactly the graph of the uncut run - never a part - and
 * pass the checks of graph_check.h (counts, keys, no dangling key, inverses);
 * and the file must take a new import. A kill with less than the whole
 * commit in the log must give the first graph, one with all of it the
 * whole import.
 *
 * The random delays come from a seed printed at the start; STRATA_KILL_SEED
 * repeats a run.
 *
 * usage: test_graph_kill [ROUNDS [POSTS]]           (the test; default 10, 8000)
 *        test_graph_kill child PATH POSTS MODE STOP (the importing child; STOP 0: never)
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "graph_check.h"

#include <sqlite3.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char schema_text[] =
    "{\"strata\": 1, \"models\": {"
    "\"User\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"name\": {\"type\": \"string\"}, \"posts\": {\"type\": \"[Post]\", \"inverse\": \"author\"}}},"
    "\"Post\": {\"primaryKey\": \"id\", \"properties\": {\"id\": {\"type\": \"int\"},"
    " \"body\": {\"type\": \"string\"}, \"author\": {\"type\": \"User\", \"inverse\": \"posts\"}}}}}";

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

static int import_into(strata_context_t *context, json_t *data, int text) {
    strata_error_t err;
    size_t count = 0, i;
    strata_model_t **records;
    if (text) {
        char *buffer = json_dumps(data, JSON_COMPACT);
        records = strata_context_importb(context, "Post", buffer, strlen(buffer), NULL, NULL, NULL, &count, NULL,
                                         &err);
        free(buffer);
    } else {
        records = strata_context_import(context, "Post", data, NULL, NULL, NULL, &count, NULL, &err);
    }
    if (records == NULL) {
        fprintf(stderr, "import failed: %s %s\n", err.path, err.message);
        return -1;
    }
    for (i = 0; i < count; i++)
        strata_model_decref(records[i]);
    strata_free(records);
    return 0;
}

/* The child's count of the bytes it wrote into the log, and where it stops (0: never). */
static long long wal_written, stop_at;
static int hooked;

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
static pwrite_fn real_pwrite64, real_pwrite;
static write_fn real_write;

/* Counts a write into the log (a file whose name ends in "-wal"); stops there at `stop_at`. */
static void count_write(int fd, ssize_t written) {
    char link[64], target[512];
    ssize_t length;
    if (written <= 0)
        return;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    length = readlink(link, target, sizeof target - 1);
    if (length < 4 || memcmp(target + length - 4, "-wal", 4) != 0)
        return;
    wal_written += written;
    if (stop_at > 0 && wal_written >= stop_at) {
        char said[32];
        int length = snprintf(said, sizeof said, "%lld\n", wal_written);
        stop_at = 0;
        if (write(1, said, (size_t)length) != length) /* the parent reads where we stopped */
            _exit(6);
        raise(SIGSTOP); /* and kills us here */
    }
}

static ssize_t hook_pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    ssize_t written = real_pwrite64(fd, buffer, count, offset);
    count_write(fd, written);
    return written;
}

static ssize_t hook_pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    ssize_t written = real_pwrite(fd, buffer, count, offset);
    count_write(fd, written);
    return written;
}

static ssize_t hook_write(int fd, const void *buffer, size_t count) {
    ssize_t written = real_write(fd, buffer, count);
    count_write(fd, written);
    return written;
}

/* Puts the hooks in the default VFS's system calls (the SQLite that libstrata uses too). */
static void hook_sqlite(void) {
    sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
    sqlite3_syscall_ptr call;
    if (vfs == NULL || vfs->iVersion < 3 || vfs->xGetSystemCall == NULL)
        return;
    if ((call = vfs->xGetSystemCall(vfs, "pwrite64")) != NULL) {
        real_pwrite64 = (pwrite_fn)call;
        hooked += vfs->xSetSystemCall(vfs, "pwrite64", (sqlite3_syscall_ptr)hook_pwrite64) == SQLITE_OK;
    }
    if ((call = vfs->xGetSystemCall(vfs, "pwrite")) != NULL) {
        real_pwrite = (pwrite_fn)call;
        hooked += vfs->xSetSystemCall(vfs, "pwrite", (sqlite3_syscall_ptr)hook_pwrite) == SQLITE_OK;
    }
    if ((call = vfs->xGetSystemCall(vfs, "write")) != NULL) {
        real_write = (write_fn)call;
        hooked += vfs->xSetSystemCall(vfs, "write", (sqlite3_syscall_ptr)hook_write) == SQLITE_OK;
    }
}

/*
 * The child: the second import (posts 50 .. 50 + n - 1 by users 1000 ...: 50
 * of the first posts move). Exits 0 and prints the bytes written into the
 * log on its stdout; 5 when the hooks could not be set.
 */
static int child(const char *path, int n, int text, long long stop) {
    strata_schema_t *schema;
    strata_error_t err;
    strata_context_t *context;
    json_t *data;
    int status;
    hook_sqlite();
    if (!hooked)
        return 5;
    stop_at = stop;
    schema = load_schema();
    context = strata_context_open(schema, path, &err);
    if (context == NULL)
        return 3;
    data = posts(50, n, n / 16 > 0 ? n / 16 : 1, 1000);
    status = import_into(context, data, text);
    json_decref(data);
    strata_context_decref(context);
    strata_schema_decref(schema);
    printf("%lld\n", wal_written);
    return status == 0 ? 0 : 4;
}

static void remove_files(const char *path) {
    const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
    char name[256];
    int i;
    for (i = 0; i < 4; i++) {
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
        CHECK(import_into(context, data, 0) == 0);
        strata_context_decref(context);
    }
    json_decref(data);
}

/*
 * Reopens the file: its whole graph (new reference), checked (graph_check.h);
 * then the file must take a new import. NULL if anything fails.
 */
static json_t *read_graph(strata_schema_t *schema, const json_t *schema_doc, const char *path) {
    strata_error_t err;
    char why[GRAPH_WHY_SIZE] = "";
    strata_context_t *context = strata_context_open(schema, path, &err);
    json_t *all, *more;
    long long before;
    if (context == NULL) {
        fprintf(stderr, "the file does not reopen: %s %s\n", err.code_name, err.message);
        return NULL;
    }
    all = graph_snapshot(context, schema_doc, why);
    if (all != NULL && graph_check(context, schema_doc, all, why) != 0) {
        json_decref(all);
        all = NULL;
    }
    if (all == NULL)
        fprintf(stderr, "invariant broken in the reopened file: %s\n", why);
    /* the file is sound and writable again (the context is closed without a snapshot of this) */
    before = strata_context_count(context, "Post", &err);
    more = posts(1000000, 1, 1, 999999);
    if (import_into(context, more, 0) != 0 || strata_context_count(context, "Post", &err) != before + 1) {
        fprintf(stderr, "the reopened file does not take a new import\n");
        json_decref(all);
        all = NULL;
    }
    json_decref(more);
    strata_context_decref(context);
    return all;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long file_size(const char *name) {
    struct stat st;
    return stat(name, &st) == 0 ? (long)st.st_size : -1;
}

/* One run of the child. */
struct run {
    double delay;   /* kill after this many seconds (< 0: no) */
    long long stop; /* the child stops when it has written this many bytes into the log (0: no) */
    int killed;     /* the child died of our SIGKILL */
    int stopped;    /* it had stopped itself at `stop` */
    double took;    /* seconds until it ended */
    long wal_size;  /* the log's size when it was killed */
    long long wal_written; /* the bytes it wrote into the log (by its stop, or in all) */
};

static void run_child(const char *self, const char *path, int n, int text, struct run *run) {
    char wal[300], count[32], stop[32];
    double start = now();
    int status = 0, out[2];
    pid_t pid;
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(count, sizeof count, "%d", n);
    snprintf(stop, sizeof stop, "%lld", run->stop);
    run->killed = run->stopped = 0;
    run->wal_size = 0;
    run->wal_written = -1;
    if (pipe(out) != 0) {
        checks_failed++;
        return;
    }
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        execl(self, self, "child", path, count, text ? "text" : "json", stop, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    for (;;) {
        struct timespec pause = {0, 50000};
        pid_t done = waitpid(pid, &status, WNOHANG | WUNTRACED);
        if (done == pid && WIFSTOPPED(status)) {
            /* stopped itself in the middle of its log writes (a SIGSTOP from elsewhere would not matter) */
            run->stopped = 1;
            run->wal_size = file_size(wal);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        if (done != 0)
            break;
        if (run->delay >= 0 && now() - start >= run->delay) {
            run->wal_size = file_size(wal);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        nanosleep(&pause, NULL);
    }
    run->took = now() - start;
    run->killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (run->stopped || !run->killed) {
        char said[64] = "";
        ssize_t got = read(out[0], said, sizeof said - 1);
        if (got > 0) {
            said[got] = 0;
            run->wal_written = atoll(said);
        }
    }
    if (!run->killed) {
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            fprintf(stderr, "the child ended with status %d%s\n", status,
                    WIFEXITED(status) && WEXITSTATUS(status) == 5 ? " (no SQLite system-call hooks)" : "");
            checks_failed++;
        }
    }
    close(out[0]);
}

int main(int argc, char **argv) {
    char folder[] = "/tmp/strata-graph-kill-XXXXXX", path[128];
    strata_schema_t *schema;
    json_t *schema_doc, *first, *both = NULL, *again;
    struct run run;
    double full = 0;
    long long wal_full = 0;
    int rounds = 10, n = 8000, round, mode, outcomes[2] = {0, 0}, in_commit = 0, after_commit = 0;
    unsigned seed;
    if (argc == 6 && strcmp(argv[1], "child") == 0)
        return child(argv[2], atoi(argv[3]), strcmp(argv[4], "text") == 0, atoll(argv[5]));
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (argc > 2)
        n = atoi(argv[2]);
    seed = getenv("STRATA_KILL_SEED") ? (unsigned)strtoul(getenv("STRATA_KILL_SEED"), NULL, 10)
                                      : (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    if (mkdtemp(folder) == NULL)
        return 2;
    snprintf(path, sizeof path, "%s/graph.db", folder);
    schema = load_schema();
    schema_doc = json_loads(schema_text, 0, NULL);
    printf("seed %u (STRATA_KILL_SEED repeats it), %d rounds, %d posts\n", seed, rounds, n);

    first_graph(schema, path);
    first = read_graph(schema, schema_doc, path);
    CHECK(first != NULL && json_array_size(json_object_get(first, "Post")) == 100);

    /* the uncut runs, one each way: the graph after the whole import, the run time, the commit's log bytes */
    for (mode = 0; mode < 2; mode++) {
        run.delay = -1;
        run.stop = 0;
        first_graph(schema, path);
        run_child(argv[0], path, n, mode, &run);
        again = read_graph(schema, schema_doc, path);
        CHECK(!run.killed && run.wal_written > 0);
        CHECK(again != NULL && json_array_size(json_object_get(again, "Post")) == (size_t)n + 50);
        if (both == NULL) {
            both = again;
        } else {
            CHECK(json_equal(again, both)); /* as text and as a json_t: the same graph */
            json_decref(again);
        }
        if (run.took > full)
            full = run.took;
        if (wal_full == 0 || (run.wal_written > 0 && run.wal_written < wal_full))
            wal_full = run.wal_written;
        printf("uncut %s import: %.3f s, %lld bytes written into the log\n", mode ? "text" : "json", run.took,
               run.wal_written);
    }

    for (round = 0; first != NULL && both != NULL && wal_full > 0 && round < rounds; round++) {
        int text = (round / 2) % 2, state = -1;
        double r = (double)rand() / ((double)RAND_MAX + 1.0);
        json_t *graph;
        run.delay = -1;
        run.stop = 0;
        if (round % 3 == 0) /* any time, now and then after the end */
            run.delay = full * 1.15 * r;
        else if (round % 3 == 1) /* part of the import in the log */
            run.stop = 1 + (long long)((double)(wal_full - 1) * r);
        else /* the whole import in the log: committed, not yet copied into the file */
            run.stop = wal_full;
        first_graph(schema, path);
        run_child(argv[0], path, n, text, &run);
        graph = read_graph(schema, schema_doc, path);
        if (graph != NULL && json_equal(graph, first))
            state = 0;
        else if (graph != NULL && json_equal(graph, both))
            state = 1;
        if (graph != NULL && state < 0)
            fprintf(stderr, "a torn graph: %zu posts, %zu users\n", json_array_size(json_object_get(graph, "Post")),
                    json_array_size(json_object_get(graph, "User")));
        CHECK(state == 0 || state == 1);
        if (state >= 0)
            outcomes[state]++;
        if (run.delay >= 0) {
            printf("round %d: %s import, kill after %.3f s: ", round, text ? "text" : "json", run.delay);
        } else {
            printf("round %d: %s import, stop at %lld of the commit's %lld log bytes: ", round,
                   text ? "text" : "json", run.stop, wal_full);
            CHECK(run.stopped && run.killed && run.wal_written >= run.stop);
            /* a commit cut short is not there; a commit written whole is */
            if (run.wal_written < wal_full) {
                CHECK(state == 0);
                in_commit += state == 0;
            } else {
                CHECK(state == 1);
                after_commit += state == 1;
            }
        }
        if (run.stopped)
            printf("stopped at %lld, killed at %.3f s, the log %ld bytes", run.wal_written, run.took,
                   run.wal_size);
        else if (run.killed)
            printf("killed at %.3f s, the log %ld bytes", run.took, run.wal_size);
        else
            printf("it had ended (%.3f s)", run.took);
        printf(" -> %s\n", state == 0 ? "the first graph" : state == 1 ? "the whole import" : "TORN");
        json_decref(graph);
    }
    printf("after kills: %d times the first graph, %d times the whole import; %d kills in the middle of the "
           "commit, %d just after it\n",
           outcomes[0], outcomes[1], in_commit, after_commit);
    CHECK(outcomes[0] + outcomes[1] == rounds);
    json_decref(first);
    json_decref(both);
    json_decref(schema_doc);
    remove_files(path);
    rmdir(folder);
    strata_schema_decref(schema);
    return check_summary();
}
