/* `gpucensus check CATALOGUE [--baseline B|DIR] [--rules R.cfg] [--json]`:
 * judge a catalogue (detect.c), print the non-ok GPUs, links and nodes as
 * a table and, for each degraded or failed node, the Slurm command an
 * operator would use to drain it (printed, never run), then a per-GPU table
 * of benchmark families. --json prints an object {run, counts,
 * exit_status, verdicts} instead.
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
#include "read/catread.h"
#include "read/catread_hist.h"

enum { GC_CHECK_OK = 0, GC_CHECK_SUSPECT = 1, GC_CHECK_DEGRADED = 2, GC_CHECK_ERROR = 3 };

int gc_check_main(int argc, char **argv);
extern const char gc_check_usage[];
/* The table and drain commands for a finished detector. */
void gc_check_print(FILE *f, const gc_detect *d);
int gc_check_exit_code(const gc_detect *d);
/* check_table.c: the per-GPU table of benchmark families (Pass, Warn, Fail,
 * Skip), and --json's object {run, counts, exit_status, verdicts}. */
/* table: what the verdicts' read kept (filled), else hc's; GC_ENOMEM or 0 */
int gc_check_table(FILE *f, const gc_detect *d, gc_cat_table *table, const gc_hcat *hc);
int gc_check_json(FILE *f, const gc_detect *d, const char *path, const gc_catread_info *info,
                  int exit_status, gc_err *err);

#endif
