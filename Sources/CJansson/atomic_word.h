#ifndef STRATA_ATOMIC_WORD_H
#define STRATA_ATOMIC_WORD_H
/* One machine word shared between threads, read and changed atomically: the
   state of each piece of an array read on several threads (see
   Sources/Strata/Parse/ArraySplit.swift). Swift's own atomics live in a
   module of their own (Synchronization) that the library does not link, so
   the few operations it needs are these, on the compiler's builtins. */
#include <stdint.h>

/* The word's value, with every write made before the store that wrote it. */
static inline intptr_t strata_word_load(const intptr_t *_Nonnull word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/* Sets the word to `value`, publishing every write made before. */
static inline void strata_word_store(intptr_t *_Nonnull word, intptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/* Sets the word to `desired` if it holds `expected`: 1 if it did, else 0. */
static inline int strata_word_swap(intptr_t *_Nonnull word, intptr_t expected, intptr_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
/* Adds `value` to the word; the value it held before. */
static inline intptr_t strata_word_add(intptr_t *_Nonnull word, intptr_t value) {
    return __atomic_fetch_add(word, value, __ATOMIC_ACQ_REL);
}
#endif
