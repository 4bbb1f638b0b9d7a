/* Errors are values: a function that can fail returns 0 or a GC_E* code and,
 * when given a gc_err, fills it with a message for the user. main() decides
 * what to print and which exit code follows. */
#ifndef GC_ERR_H
#define GC_ERR_H

#include <stddef.h>

enum {
    GC_OK = 0,
    GC_EINVAL = 1,   /* bad argument or bad input (plan, file contents) */
    GC_ENOMEM = 2,
    GC_EIO = 3,      /* file system */
    GC_ECORRUPT = 4, /* bytes that fail a check: CRC, bounds, version */
    GC_EDEVICE = 5,  /* GPU or driver */
    GC_EMPI = 6,
    GC_EUNSUPPORTED = 7,
    GC_ETIMEOUT = 8,
    GC_EEXIST = 9,   /* already there (a run added twice): nothing changed */
};

typedef struct gc_err {
    int code;
    char msg[512];
} gc_err;

/* Fill err (when non-NULL) and return code. printf-style. */
int gc_fail(gc_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
