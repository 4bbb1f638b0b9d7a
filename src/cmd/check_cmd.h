/* `gpucensus check CATALOGUE [--baseline B|DIR] [--rules R.cfg] [--json]`:
 * judge a catalogue (detect.c), print the non-ok GPUs, links and nodes as
 * a table and, for each degraded or failed node, the Slurm command an
 * operator would use to drain it (printed, never run). --json prints the
 * verdicts array instead of the table.
 *
 * Exit status: 0 all ok, 1 suspects only (an inconclusive verdict, "shared:
 * inconclusive: GPU shared", is one: another process used the GPU while it
 * was measured, so its deviations are not blamed on it), 2 degraded or failed,
 * 3 could not judge (unreadable, malformed or schema-invalid catalogue,
 * baseline or rules; no GPU in the catalogue); bad arguments exit 2, as
 * for every command. */
#ifndef GC_CHECK_CMD_H
#define GC_CHECK_CMD_H

#include <stdio.h>

#include "judge/detect.h"

enum { GC_CHECK_OK = 0, GC_CHECK_SUSPECT = 1, GC_CHECK_DEGRADED = 2, GC_CHECK_ERROR = 3 };

int gc_check_main(int argc, char **argv);
extern const char gc_check_usage[];
/* The table and drain commands for a finished detector. */
void gc_check_print(FILE *f, const gc_detect *d);
int gc_check_exit_code(const gc_detect *d);

#endif
