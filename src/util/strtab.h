/* Strings interned: each distinct string once, found by an id (its place
 * in order of first use) through an open-addressed hash of FNV-1a. The
 * detector's keys, groups and verdict strings, the catalogue writer's link
 * classes and peer groups, and the report's node index hash alike. */
#ifndef GC_STRTAB_H
#define GC_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define GC_FNV_SEED 1469598103934665603ull

/* FNV-1a of s continuing from h (GC_FNV_SEED to start) */
uint64_t gc_fnv1a(const char *s, uint64_t h);

typedef struct gc_strtab {
    char **s;          /* by id, owned */
    size_t n, cap;
    uint32_t *slot;    /* open addressing: id + 1, 0 empty */
    size_t nslot;
} gc_strtab;           /* zeroed: empty */

/* id of s (NULL: ""), added when absent and add; -1 when absent (add = 0)
 * or out of memory */
long gc_strtab_id(gc_strtab *t, const char *s, int add);
void gc_strtab_free(gc_strtab *t);

#endif
