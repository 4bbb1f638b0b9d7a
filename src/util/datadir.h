/* Where the installed configs are, for what a plan or a command names
 * without a path of its own (the sim profiles, `gpucensus list`'s plans):
 * next to the binary, so that a copied plan or another working directory
 * still finds them. Looked for, in order: PREFIX/share/gpucensus/configs
 * (`make install`, the binary in PREFIX/bin) and the repository's configs/
 * (the binary in build/). */
#ifndef GC_DATADIR_H
#define GC_DATADIR_H

#include <stddef.h>

/* The configs directory into out; 0, or -1 when none is found. */
int gc_configs_dir(char *out, size_t cap);

#endif
