#ifndef STRATA_UTF8_RUN_H
#define STRATA_UTF8_RUN_H
/* The byte parser's AVX2 kernels: `strata_utf8_run` (for
   Sources/Strata/Parse/PlainRun.swift), how far a run of string bytes goes
   before its first `"`, backslash or control byte, every byte before it
   checked as well-formed UTF-8, 32 bytes a step; and `strata_escape_run`
   (for `JSONEscape.skipRun`), a run of `\uXXXX` escapes checked five at a
   time.

   Swift can only emit the x86-64 baseline (SSE2), and the check wants a
   byte shuffle (`vpshufb`, SSSE3 and later). So the kernels are C with the
   AVX2 target on their functions alone, chosen at run time: on a CPU or OS
   without AVX2 (or off x86-64) they return 0 and the Swift code does the
   whole run. Each block is checked the way Keiser and Lemire describe
   ("Validating UTF-8 in less than one instruction per byte", 2021): three
   16-entry tables looked up by the nibbles of each byte and of the byte
   before, ANDed, flag every malformed pair (overlong, surrogate, past
   U+10FFFF, a lead without its continuations, a stray continuation), and
   the bytes that must be the third or fourth of a sequence are checked from
   the bytes two and three before. The method is theirs; this code was
   written for Strata. */
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>

/* 1 when the CPU has AVX2 and the OS saves its registers (XCR0's SSE and
   AVX state), 0 otherwise. */
static inline int strata_avx2_usable(void) {
    unsigned a, b, c, d, low, high;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!(c & (1u << 27)) || !(c & (1u << 28))) /* OSXSAVE, AVX */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    if ((low & 6) != 6)
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 5) & 1;
}

/* `strata_avx2_usable()`, asked once. */
static inline int strata_avx2_known(void) {
    static int usable = -1; /* -1 until asked; a race only asks twice */
    int known = __atomic_load_n(&usable, __ATOMIC_RELAXED);
    if (known < 0) {
        known = strata_avx2_usable();
        __atomic_store_n(&usable, known, __ATOMIC_RELAXED);
    }
    return known;
}

/* The 32 bytes before each byte of `input`, `n` (1-3) back, the earlier ones
   taken from `before` (the block before). */
#define STRATA_UTF8_BACK(input, before, n)                                                         \
    _mm256_alignr_epi8((input), _mm256_permute2x128_si256((before), (input), 0x21), 16 - (n))

/* A byte per byte of `input`, nonzero where the UTF-8 of `before` then
   `input` is malformed at that byte (a sequence not ended by then counts
   at the byte that should have continued it). */
__attribute__((target("avx2"))) static inline __m256i strata_utf8_errors(__m256i input, __m256i before) {
    /* what a pair of bytes can get wrong, one bit each */
    enum {
        short_ = 1 << 0,    /* a lead not followed by a continuation */
        long_ = 1 << 1,     /* a continuation after an ASCII byte */
        overlong3 = 1 << 2, /* E0 80-9F */
        large = 1 << 3,     /* F4 90-BF, F5-FF 80-BF */
        surrogate = 1 << 4, /* ED A0-BF */
        overlong2 = 1 << 5, /* C0-C1 80-BF */
        large1000 = 1 << 6, /* F5-FF 80-8F; shares the bit with overlong4 */
        overlong4 = 1 << 6, /* F0 80-8F */
        twoConts = 1 << 7,  /* a continuation after a continuation */
        carry = short_ | long_ | twoConts
    };
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i back1 = STRATA_UTF8_BACK(input, before, 1);
#define STRATA_TABLE(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)                              \
    _mm256_setr_epi8((char)(a), (char)(b), (char)(c), (char)(d), (char)(e), (char)(f), (char)(g),    \
        (char)(h), (char)(i), (char)(j), (char)(k), (char)(l), (char)(m), (char)(n), (char)(o),     \
        (char)(p), (char)(a), (char)(b), (char)(c), (char)(d), (char)(e), (char)(f), (char)(g),     \
        (char)(h), (char)(i), (char)(j), (char)(k), (char)(l), (char)(m), (char)(n), (char)(o),     \
        (char)(p))
    /* by the high nibble of the byte before */
    const __m256i firstHigh = _mm256_shuffle_epi8(
        STRATA_TABLE(long_, long_, long_, long_, long_, long_, long_, long_, twoConts, twoConts,
            twoConts, twoConts, short_ | overlong2, short_, short_ | overlong3 | surrogate,
            short_ | large | large1000 | overlong4),
        _mm256_and_si256(_mm256_srli_epi16(back1, 4), nibble));
    /* by the low nibble of the byte before */
    const __m256i firstLow = _mm256_shuffle_epi8(
        STRATA_TABLE(carry | overlong3 | overlong2 | overlong4, carry | overlong2, carry, carry,
            carry | large, carry | large | large1000, carry | large | large1000,
            carry | large | large1000, carry | large | large1000, carry | large | large1000,
            carry | large | large1000, carry | large | large1000, carry | large | large1000,
            carry | large | large1000 | surrogate, carry | large | large1000,
            carry | large | large1000),
        _mm256_and_si256(back1, nibble));
    /* by the high nibble of the byte itself */
    const __m256i secondHigh = _mm256_shuffle_epi8(
        STRATA_TABLE(short_, short_, short_, short_, short_, short_, short_, short_,
            long_ | overlong2 | twoConts | overlong3 | large1000 | overlong4,
            long_ | overlong2 | twoConts | overlong3 | large,
            long_ | overlong2 | twoConts | surrogate | large,
            long_ | overlong2 | twoConts | surrogate | large, short_, short_, short_, short_),
        _mm256_and_si256(_mm256_srli_epi16(input, 4), nibble));
#undef STRATA_TABLE
    const __m256i pairs = _mm256_and_si256(_mm256_and_si256(firstHigh, firstLow), secondHigh);
    /* the third byte of a sequence of three or four (a lead E0-FF two back),
       the fourth of four (a lead F0-FF three back): their top bit set here */
    const __m256i third = _mm256_subs_epu8(STRATA_UTF8_BACK(input, before, 2), _mm256_set1_epi8((char)(0xE0 - 0x80)));
    const __m256i fourth = _mm256_subs_epu8(STRATA_UTF8_BACK(input, before, 3), _mm256_set1_epi8((char)(0xF0 - 0x80)));
    const __m256i mustContinue = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    /* such a byte must be a continuation after a continuation (twoConts),
       and twoConts anywhere else is an error */
    return _mm256_xor_si256(mustContinue, pairs);
}

/* The last character boundary at or before `index`, when every character
   that ends before `index` is known to be well formed: `index` itself, or
   the lead of the sequence that crosses it. */
static inline size_t strata_utf8_boundary(const uint8_t *text, size_t index) {
    size_t back;
    for (back = 1; back <= 3 && back <= index; back++) {
        uint8_t byte = text[index - back];
        if (byte < 0x80)
            return index;
        if (byte >= 0xC0) {
            size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2;
            return back < length ? index - back : index;
        }
    }
    return index;
}

__attribute__((target("avx2"))) static inline size_t strata_utf8_run_avx2(const uint8_t *text, size_t length) {
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i control = _mm256_set1_epi8(0x1F);
    __m256i before = _mm256_setzero_si256();
    uint32_t tail = 0; /* the block before's non-ASCII bytes among its last three */
    size_t index = 0;
    while (index + 32 <= length) {
        const __m256i input = _mm256_loadu_si256((const __m256i *)(const void *)(text + index));
        const __m256i stops = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(input, quote), _mm256_cmpeq_epi8(input, backslash)),
            _mm256_cmpeq_epi8(_mm256_max_epu8(input, control), control));
        const uint32_t special = (uint32_t)_mm256_movemask_epi8(stops);
        const uint32_t high = (uint32_t)_mm256_movemask_epi8(input);
        uint32_t wrong = 0;
        if ((high | tail) != 0) {
            const __m256i errors = strata_utf8_errors(input, before);
            wrong = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(errors, _mm256_setzero_si256()));
        }
        if (special != 0) {
            /* the bytes up to the stop, the stop included (a sequence it cuts) */
            const unsigned stop = (unsigned)__builtin_ctz(special);
            const uint32_t upTo = stop == 31 ? UINT32_MAX : (UINT32_C(2) << stop) - 1;
            if ((wrong & upTo) == 0)
                return index + stop;
            break;
        }
        if (wrong != 0)
            break;
        before = input;
        tail = high >> 29;
        index += 32;
    }
    return strata_utf8_boundary(text, index);
}

/* Runs of `\uXXXX` escapes (text where every non-ASCII character is one),
   checked five at a time: a 32-byte block holds five escapes at bytes 0, 6,
   12, 18 and 24. Each byte is classed at once (backslash, `u`, hex digit,
   `0`, a `d`/`D` and the second digits of the two surrogate halves), and
   each class's bits are tested against where an escape's bytes stand. */
__attribute__((target("avx2"))) static inline size_t strata_escape_run_avx2(
    const uint8_t *text, size_t length, int key, uint32_t *state) {
    /* bit 6j of each: escape j's backslash; 6j+1 its `u`; 6j+2 to 6j+5 its digits */
    const uint32_t slash = 0x01041041u, letter = slash << 1, digits = 0x3CF3CF3Cu;
    uint32_t pending = *state & 1, wrong = *state >> 1;
    size_t index = 0;
    while (index + 32 <= length) {
        const __m256i input = _mm256_loadu_si256((const __m256i *)(const void *)(text + index));
        const __m256i lower = _mm256_or_si256(input, _mm256_set1_epi8(0x20));
        const __m256i digit = _mm256_sub_epi8(input, _mm256_set1_epi8('0'));
        const __m256i alpha = _mm256_sub_epi8(lower, _mm256_set1_epi8('a'));
        const __m256i isDigit = _mm256_cmpeq_epi8(_mm256_min_epu8(digit, _mm256_set1_epi8(9)), digit);
        const __m256i isAlpha = _mm256_cmpeq_epi8(_mm256_min_epu8(alpha, _mm256_set1_epi8(5)), alpha);
        const uint32_t hex = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(isDigit, isAlpha));
        const uint32_t backslashes = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(input, _mm256_set1_epi8('\\')));
        const uint32_t us = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(input, _mm256_set1_epi8('u')));
        /* the bytes in place, then the first escape with one out of place */
        const uint32_t fit = (backslashes & slash) | (us & letter) | (hex & digits);
        const unsigned firstMisfit = (unsigned)__builtin_ctz(~fit); /* bit 30 is never set in fit */
        const unsigned count = firstMisfit / 6; /* whole escapes, 0-5 */
        if (count == 0)
            break;
        const uint32_t escapes = slash & ((UINT32_C(1) << (6 * count)) - 1);
        /* surrogate halves: a first digit d, a second 8-b (high) or c-f
           (low); none where no escape's first digit is a d */
        const uint32_t ds =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lower, _mm256_set1_epi8('d'))) >> 2 & escapes;
        if (ds == 0) {
            wrong |= pending; /* a high half's low half was due */
            pending = 0;
        } else {
            /* the second digit (as `lower - 'a'` for a letter, `input - '0'` for a digit) */
            const uint32_t eightNine = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpgt_epi8(digit, _mm256_set1_epi8(7))) & ~(uint32_t)_mm256_movemask_epi8(isAlpha);
            const uint32_t letterAB = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpeq_epi8(_mm256_min_epu8(alpha, _mm256_set1_epi8(1)), alpha));
            const uint32_t letters = (uint32_t)_mm256_movemask_epi8(isAlpha);
            const uint32_t highs = ds & ((eightNine | letterAB) >> 3);
            const uint32_t lows = ds & ((letters & ~letterAB) >> 3);
            /* each low half right after a high half, and only there */
            const uint32_t due = (highs << 6 | pending) & escapes;
            wrong |= (lows ^ due) != 0;
            pending = (highs >> (6 * (count - 1))) & 1;
        }
        if (key) {
            const uint32_t zeros = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(input, _mm256_set1_epi8('0')));
            wrong |= ((zeros & zeros >> 1 & zeros >> 2 & zeros >> 3) >> 2 & escapes) != 0;
        }
        index += 6 * count;
        if (count < 5 || text[index] != '\\')
            break;
    }
    *state = pending | wrong << 1;
    return index;
}

/* How far `text` (`length` bytes, the rest of the input from a character
   boundary) runs before its first `"`, backslash or control byte, with every
   byte before it well-formed UTF-8: that byte's offset when it is found
   within whole 32-byte blocks; otherwise a character boundary (0 without
   AVX2) up to which all is well formed, where the caller goes on byte by
   byte (the input's last 31 bytes, a malformed sequence). */
static inline size_t strata_utf8_run(const uint8_t *text, size_t length) {
    return strata_avx2_known() ? strata_utf8_run_avx2(text, length) : 0;
}

/* How many bytes of `text` (`length` bytes from a backslash) are a run of
   `\uXXXX` escapes, read in 32-byte blocks (0 without AVX2, or when the
   first is not such an escape): every one's digits checked, and their
   surrogate halves paired. `state` carries the run's flags in and out: bit
   0 a high half whose low half is due next, bit 1 an error met (a half
   unpaired; with `key`, `\u0000`). The caller reads what follows. */
static inline size_t strata_escape_run(const uint8_t *text, size_t length, int key, uint32_t *state) {
    return strata_avx2_known() ? strata_escape_run_avx2(text, length, key, state) : 0;
}

#undef STRATA_UTF8_BACK
#else
static inline size_t strata_utf8_run(const uint8_t *text, size_t length) {
    (void)text;
    (void)length;
    return 0;
}

static inline size_t strata_escape_run(const uint8_t *text, size_t length, int key, uint32_t *state) {
    (void)text;
    (void)length;
    (void)key;
    (void)state;
    return 0;
}
#endif
#endif
