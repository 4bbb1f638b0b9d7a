/* Minimal assertions for the C unit tests. Each test program counts its
 * checks, prints failures with file:line, ends with "N passed, N failed"
 * and exits 1 if any check failed (77 = skipped, as automake). */
#ifndef GC_CHECK_H
#define GC_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (cond) {                                                           \
            check_passed++;                                                   \
        } else {                                                              \
            check_failed++;                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

#define CHECK_DONE()                                                          \
    do {                                                                      \
        printf("%d passed, %d failed\n", check_passed, check_failed);         \
        return check_failed ? 1 : 0;                                          \
    } while (0)

#endif
