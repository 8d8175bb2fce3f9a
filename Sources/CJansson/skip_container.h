#ifndef STRATA_SKIP_CONTAINER_H
#define STRATA_SKIP_CONTAINER_H
/* The byte parser's skip of an object or array that no model reads (for
   `PrunedParser.skipContainer`): how far it runs, every byte of it checked as
   jansson checks it, in one tight loop of C.

   The loop is the Swift one's (`skipContainer`), made cheaper where Swift
   cannot go: no overflow or bounds traps on each step, the cursor and the
   bracket stack in registers, and each string crossed 32 bytes a step with
   AVX2 (its non-ASCII bytes checked with the tables of `utf8_run.h`, its runs
   of `\uXXXX` escapes with `strata_escape_run`). Skipped containers are most
   of the bytes of a wide API response (a user's profile, a quoted status,
   entities, metrics), so their cost per value is most of the call's.

   The kernel says yes only to what it is sure of. Anything else (an error of
   any kind, a newline (the JSON lines reader must see every one it skips),
   a number with an exponent or outside 64 bits, a key with `\u0000`,
   nesting past 64 levels or the parser's room, the input's last 32 bytes,
   no AVX2) gives 0, and the caller skips the container its own way, byte by
   byte, which finds and reports the error or takes the rare form. So the
   kernel's every answer is one the Swift loop would give. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "utf8_run.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/* The four hex digits at `text` (4 readable bytes) as a number, or -1. */
static inline int32_t strata_skip_hex4(const uint8_t *text) {
    int32_t value = 0;
    for (int i = 0; i < 4; i++) {
        const uint8_t c = text[i];
        const uint8_t lower = c | 0x20;
        int32_t digit;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (lower >= 'a' && lower <= 'f')
            digit = lower - 'a' + 10;
        else
            return -1;
        value = value << 4 | digit;
    }
    return value;
}

/* The end of the `\uXXXX` escape at `at` (its backslash), and of the low
   half after it when it is a high half; NULL when the digits are not hex,
   a half is alone, or (with `key`) it is `\u0000`. */
static inline const uint8_t *strata_skip_unicode(const uint8_t *at, const uint8_t *end, int key) {
    if (end - at < 6)
        return NULL;
    const int32_t code = strata_skip_hex4(at + 2);
    if (code < 0 || (key && code == 0) || (code >= 0xDC00 && code <= 0xDFFF))
        return NULL;
    if (code < 0xD800 || code > 0xDBFF)
        return at + 6;
    if (end - at < 12 || at[6] != '\\' || at[7] != 'u')
        return NULL;
    const int32_t low = strata_skip_hex4(at + 8);
    return low >= 0xDC00 && low <= 0xDFFF ? at + 12 : NULL;
}

/* One bit per byte of the 32 at `input` that stops a plain run of a
   string (`"`, backslash, a control byte) or is not ASCII (its top bit). */
__attribute__((target("avx2"), always_inline)) static inline uint32_t strata_skip_specials(__m256i input) {
    const __m256i lastControl = _mm256_set1_epi8(0x1F);
    const __m256i stops = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(input, _mm256_set1_epi8('"')),
            _mm256_cmpeq_epi8(input, _mm256_set1_epi8('\\'))),
        _mm256_cmpeq_epi8(_mm256_max_epu8(input, lastControl), lastControl));
    return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(stops, input));
}

/* `strata_skip_string` past its first block: strings longer than 32
   bytes, with escapes or non-ASCII text (out of line, so that the common
   short string pays for none of its setup). */
__attribute__((target("avx2"), noinline)) static const uint8_t *strata_skip_string_rest(
    const uint8_t *text, const uint8_t *end, int key) {
    for (;;) {
        if (end - text < 32)
            return NULL;
        const uint32_t specials =
            strata_skip_specials(_mm256_loadu_si256((const __m256i *)(const void *)text));
        if (specials == 0) {
            text += 32;
            continue;
        }
        unsigned stop = (unsigned)__builtin_ctz(specials);
        if (text[stop] >= 0x80) {
            /* non-ASCII first: checked (and the stop found) as a string's run is */
            stop = (unsigned)strata_utf8_run_avx2(text, (size_t)(end - text));
            if (end - text <= (ptrdiff_t)stop)
                return NULL;
        }
        const uint8_t *at = text + stop;
        const uint8_t c = *at;
        if (c == '"')
            return at + 1;
        if (c != '\\')
            return NULL; /* a control byte, or where UTF-8 could not be confirmed */
        if (end - at < 2)
            return NULL;
        switch (at[1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            text = at + 2;
            break;
        case 'u': {
            uint32_t state = 0;
            const size_t crossed = strata_escape_run_avx2(at, (size_t)(end - at), key, &state);
            if (state >> 1)
                return NULL;
            at += crossed;
            if (state & 1) {
                /* a high half ended the run: its low half must come next */
                if (end - at < 6 || at[0] != '\\' || at[1] != 'u')
                    return NULL;
                const int32_t low = strata_skip_hex4(at + 2);
                if (low < 0xDC00 || low > 0xDFFF)
                    return NULL;
                text = at + 6;
            } else if (crossed == 0) {
                text = strata_skip_unicode(at, end, key);
                if (text == NULL)
                    return NULL;
            } else {
                text = at;
            }
            break;
        }
        default:
            return NULL;
        }
    }
}

/* Past the string whose first byte after the opening quote is at `text`:
   just after its closing quote, or NULL when the kernel is not sure of it
   (fewer than 32 bytes left at some step, or anything wrong). A string of
   ASCII without escapes that ends within 32 bytes, the common one, is
   crossed here by one block. */
__attribute__((target("avx2"), always_inline)) static inline const uint8_t *strata_skip_string(
    const uint8_t *text, const uint8_t *end, int key) {
    if (end - text >= 32) {
        const uint32_t special = strata_skip_specials(_mm256_loadu_si256((const __m256i *)(const void *)text));
        if (special != 0) {
            const unsigned stop = (unsigned)__builtin_ctz(special);
            if (text[stop] == '"')
                return text + stop + 1;
        }
    }
    return strata_skip_string_rest(text, end, key);
}

/* Past the run of decimal digits at `text` (eight at a time: a byte is no
   digit when, XORed with `0`, it is over 9, which adding 0x76 shows in its
   top bit, or when its own top bit is set). */
static inline const uint8_t *strata_skip_digits(const uint8_t *text, const uint8_t *end) {
    while (end - text >= 8) {
        uint64_t word;
        memcpy(&word, text, 8);
        const uint64_t other =
            (((word ^ UINT64_C(0x3030303030303030)) + UINT64_C(0x7676767676767676)) | word) &
            UINT64_C(0x8080808080808080);
        if (other != 0)
            return text + (__builtin_ctzll(other) >> 3);
        text += 8;
    }
    while (text < end && *text >= '0' && *text <= '9')
        text++;
    return text;
}

/* Past the number or literal at `text`, when it is one the kernel takes
   and a byte that may follow a value inside a container (`,`, `]`, `}`, a
   space, a tab or a carriage return) comes after it; NULL otherwise.
   Integers must fit in 64 bits (as jansson's do); reals may have no
   exponent and fewer than 300 bytes (so that they cannot overflow). */
__attribute__((always_inline)) static inline const uint8_t *strata_skip_scalar(
    const uint8_t *text, const uint8_t *end) {
    const uint8_t *start = text;
    const uint8_t first = *text;
    if (first >= 'a') {
        /* `true`, `null`, `false`, compared as 32-bit words (little-endian) */
        uint32_t word;
        if (end - text < 6)
            return NULL;
        memcpy(&word, text, 4);
        if (word == UINT32_C(0x65757274) || word == UINT32_C(0x6C6C756E))
            text += 4;
        else if (word == UINT32_C(0x736C6166) && text[4] == 'e')
            text += 5;
        else
            return NULL;
    } else {
        const int negative = first == '-';
        if (negative && ++text >= end)
            return NULL;
        const uint8_t *digits = text;
        if (*text == '0')
            text++;
        else if (*text >= '1' && *text <= '9')
            text = strata_skip_digits(text + 1, end);
        else
            return NULL;
        if (text < end && *text == '.') {
            const uint8_t *fraction = ++text;
            text = strata_skip_digits(text, end);
            if (text == fraction || text - start >= 300)
                return NULL;
        } else {
            const ptrdiff_t count = text - digits;
            if (count > 19)
                return NULL;
            if (count == 19 && memcmp(digits, negative ? "9223372036854775808" : "9223372036854775807", 19) > 0)
                return NULL;
        }
    }
    if (text >= end)
        return NULL;
    const uint8_t next = *text;
    return next == ',' || next == ']' || next == '}' || next == ' ' || next == '\t' || next == '\r' ? text : NULL;
}

/* Past the spaces, tabs and carriage returns at `text` (a newline is not
   crossed: the caller then sees a byte it does not take). */
static inline const uint8_t *strata_skip_spaces(const uint8_t *text, const uint8_t *end) {
    while (text < end && (*text == ' ' || *text == '\t' || *text == '\r'))
        text++;
    return text;
}

__attribute__((target("avx2"))) static inline size_t strata_skip_container_avx2(
    const uint8_t *base, size_t position, size_t end, size_t room) {
    const uint8_t *text = base + position;
    const uint8_t *const stop = base + end;
    uint64_t kinds = 0; /* one bit per open bracket, 1 for `{`; the innermost lowest */
    size_t depth = 0;
    for (;;) {
        /* at the first byte of a value (before `stop`) */
        uint8_t c = *text;
        if (c == '{' || c == '[') {
            if (depth == 64 || depth + 1 >= room)
                return 0;
            const int object = c == '{';
            kinds = kinds << 1 | (uint64_t)object;
            depth++;
            text = strata_skip_spaces(text + 1, stop);
            if (text >= stop)
                return 0;
            if (*text == (object ? '}' : ']')) {
                text++;
                kinds >>= 1;
                depth--;
            } else if (object) {
                goto key;
            } else {
                continue;
            }
        } else if (c == '"') {
            text = strata_skip_string(text + 1, stop, 0);
            if (text == NULL)
                return 0;
        } else {
            text = strata_skip_scalar(text, stop);
            if (text == NULL)
                return 0;
        }
        /* after a value: `,` then the next one, or closing brackets */
        for (;;) {
            if (depth == 0)
                return (size_t)(text - base);
            text = strata_skip_spaces(text, stop);
            if (text >= stop)
                return 0;
            c = *text;
            if (c == ',') {
                text = strata_skip_spaces(text + 1, stop);
                if (text >= stop)
                    return 0;
                if (kinds & 1)
                    goto key;
                break;
            }
            if (c != ((kinds & 1) ? '}' : ']'))
                return 0;
            text++;
            kinds >>= 1;
            depth--;
        }
        continue;
    key:
        /* at a member's key (after `{` or `,` and spaces): the key, its colon */
        if (*text != '"')
            return 0;
        text = strata_skip_string(text + 1, stop, 1);
        if (text == NULL)
            return 0;
        text = strata_skip_spaces(text, stop);
        if (text >= stop || *text != ':')
            return 0;
        text = strata_skip_spaces(text + 1, stop);
        if (text >= stop)
            return 0;
    }
}

/* The index after the object or array whose opening bracket is at
   `position` (with `end` the input's length), when the kernel is sure all of
   it is valid JSON as jansson reads it, with at most `room - 1` levels of
   nesting (the opening bracket's own included); 0 otherwise (and without
   AVX2), where the caller skips it byte by byte. */
static inline size_t strata_skip_container(const uint8_t *base, size_t position, size_t end, size_t room) {
    if (position >= end || (base[position] != '{' && base[position] != '['))
        return 0;
    return strata_avx2_known() ? strata_skip_container_avx2(base, position, end, room) : 0;
}

#else
static inline size_t strata_skip_container(const uint8_t *base, size_t position, size_t end, size_t room) {
    (void)base;
    (void)position;
    (void)end;
    (void)room;
    return 0;
}
#endif
#endif
