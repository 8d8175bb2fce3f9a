/*
 * bench_file.h - reading a payload whole, for the C benchmark programs
 * (bench_social, bench_graph, bench_allocs, bench_ab).
 */
#ifndef STRATA_BENCH_FILE_H
#define STRATA_BENCH_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The whole of the file at `path`, NUL-terminated (free() it), its length
   in `*len`. On failure prints "PROGRAM: cannot read PATH" and exits 1. */
static char *bench_read_file(const char *program, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "%s: cannot read %s\n", program, path);
        exit(1);
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: cannot read %s\n", program, path);
        exit(1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

#endif
