/*
 * replay_main.c - runs fuzz inputs once, without libFuzzer: each argument is
 * a file or a folder of files, handed to LLVMFuzzerTestOneInput one by one.
 * The normal build links the fuzz targets with it, so that ctest replays the
 * seed corpora and the regression cases (Tests/fuzz/regressions) with any
 * compiler; the sanitized build uses libFuzzer itself (-runs=0).
 *
 * STRATA_REPLAY_EVERY=N replays every Nth input of each folder (in name
 * order, from the first) instead of all: the valgrind run of a target whose
 * inputs are slow under memcheck (graph: 111 inputs, 130 s) takes a sample,
 * while the ASan replay and the normal replay take them all. Single files
 * named as arguments are always replayed.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    long size;
    uint8_t *data;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        if (f)
            fclose(f);
        return 0;
    }
    /* an exact-size heap buffer, as libFuzzer gives: overreads show under ASan */
    data = malloc(size > 0 ? (size_t)size : 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        fclose(f);
        free(data);
        return 0;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    free(data);
    return 1;
}

static int compare(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    int i, files = 0, failed = 0;
    const char *every_text = getenv("STRATA_REPLAY_EVERY");
    size_t every = every_text ? (size_t)strtoul(every_text, NULL, 10) : 1;
    if (every == 0)
        every = 1;
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            continue; /* a folder that does not exist yet (no regressions) is fine */
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            char **names = NULL;
            size_t n = 0, k;
            while (d && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
                    continue;
                names = realloc(names, (n + 1) * sizeof *names);
                names[n++] = strdup(e->d_name);
            }
            if (d)
                closedir(d);
            if (n > 0)
                qsort(names, n, sizeof *names, compare);
            for (k = 0; k < n; k++) {
                if (k % every == 0) {
                    size_t len = strlen(argv[i]) + strlen(names[k]) + 2;
                    char *path = malloc(len);
                    snprintf(path, len, "%s/%s", argv[i], names[k]);
                    if (run_file(path))
                        files++;
                    else
                        failed++;
                    free(path);
                }
                free(names[k]);
            }
            free(names);
        } else if (run_file(argv[i])) {
            files++;
        } else {
            failed++;
        }
    }
    printf("replayed %d inputs without a crash\n", files);
    return failed ? 1 : 0;
}
