/*
 * chunk_source.h - a strata_read_fn over bytes in memory that hands them out
 * in pieces of at most `piece` bytes, for the JSON lines tests
 * (conformance_lines.h, test_limits.c).
 */
#ifndef STRATA_TESTS_CHUNK_SOURCE_H
#define STRATA_TESTS_CHUNK_SOURCE_H

#include <stddef.h>
#include <string.h>

struct chunk_source {
    const char *bytes;
    size_t length, at, piece;
};

/* The next piece of the chunk_source `data` into `buffer` (at most `size`
   bytes); 0 at the end. */
static size_t chunk_source_read(void *buffer, size_t size, void *data) {
    struct chunk_source *s = data;
    size_t n = s->length - s->at;
    if (n > size)
        n = size;
    if (n > s->piece)
        n = s->piece;
    memcpy(buffer, s->bytes + s->at, n);
    s->at += n;
    return n;
}

#endif
