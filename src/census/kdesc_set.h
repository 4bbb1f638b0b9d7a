/* A set of parsed kernel descriptions: the validation suite's, compiled
 * into the binary (kdesc_embed.h), looked up by kernel name. */
#ifndef GC_KDESC_SET_H
#define GC_KDESC_SET_H

#include <stddef.h>

#include "census/kdesc.h"

typedef struct gc_kdesc_set {
    gc_kdesc *d;
    size_t n;
    char origin[16];      /* gc_valid_desc_origin, or "none" */
    char error[512];      /* the first description that did not parse ("" if none) */
} gc_kdesc_set;

/* The embedded descriptions. Never fails: a text that does not parse is
 * left out and named in s->error. */
void gc_kdesc_set_embedded(gc_kdesc_set *s);
/* Add one (tests); 0 or GC_ENOMEM. */
int gc_kdesc_set_add(gc_kdesc_set *s, const gc_kdesc *d);
/* Parse only the embedded description of kernel `name` (the sim backend,
 * one per work item). GC_EINVAL when this build has none of that name. */
int gc_kdesc_embedded_find(const char *name, gc_kdesc *d, gc_err *err);
const gc_kdesc *gc_kdesc_set_find(const gc_kdesc_set *s, const char *name);
void gc_kdesc_set_free(gc_kdesc_set *s);

#endif
