/* What a person reads: the terminal summary at the end of a run (and, as
 * it grows, `gpucensus report`). Colour only on a TTY. */
#ifndef GC_REPORT_H
#define GC_REPORT_H

#include <stdio.h>

#include "catalogue.h"

void gc_report_summary(FILE *f, const gc_run_meta *run, const gc_catalogue_stats *st,
                       const char *out_dir, double elapsed_s);

#endif
