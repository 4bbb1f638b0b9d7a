/* What a person reads: the terminal summary at the end of a run, and
 * `gpucensus report CATALOGUE [-o REPORT.html]`: a table per node (GPU, SKU,
 * L1/L2/DRAM latency, HBM bandwidth and its share of the theoretical,
 * H2D/D2H bandwidth and latency from the links, P2P, verdict), or one
 * self-contained HTML page with the plots (report_html.c). Colour only on
 * a TTY. */
#ifndef GC_REPORT_H
#define GC_REPORT_H

#include <stdio.h>

#include "write/catalogue.h"

void gc_report_summary(FILE *f, const gc_run_meta *run, const gc_catalogue_stats *st,
                       const char *out_dir, double elapsed_s);
/* `gpucensus report` (argv after the subcommand). Exit status: 0 done,
 * 1 the page could not be written, 2 bad arguments, 3 unreadable,
 * malformed or schema-invalid catalogue (the message names the file). */
int gc_report_main(int argc, char **argv);
extern const char gc_report_usage[];

#endif
