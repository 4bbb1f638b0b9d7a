/* The validation kernels' descriptions compiled into the binary
 * (build/gen/valid_desc.c, made by the Makefile from tools/kdesc.py's
 * output or from the committed configs/kernels/valid/ files), so a run
 * predicts exactly the kernels this build measures. Texts are libconfig
 * in the format of docs/kernel-description.md. */
#ifndef GC_KDESC_EMBED_H
#define GC_KDESC_EMBED_H

#include <stddef.h>

typedef struct gc_kdesc_text {
    const char *name;       /* kernel = { name = ... } */
    const char *cfg_text;   /* the whole description file */
} gc_kdesc_text;

extern const gc_kdesc_text gc_valid_descs[];
extern const size_t gc_valid_ndescs;
/* "sass" (counted by this build from its own SASS), "committed" (the
 * checked-in copies, generated from the same kernels/valid.cu), or
 * "stale" (checked-in copies of an older kernels/valid.cu). */
extern const char gc_valid_desc_origin[];

#endif
