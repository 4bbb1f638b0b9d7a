/* `gpucensus history`: the history database from the command line.
 *
 *   history add DB OUT|CATALOGUE... [--timeout S]
 *       store each run (one transaction each); exit 0 added, 1 database
 *       error (locked past S seconds, corrupt, not ours, unwritable:
 *       nothing was changed, retry), 2 bad arguments, 3 unreadable
 *       catalogue, 4 the run was already there (nothing changed)
 *   history show DB [UUID|NODE] [--param NAME]
 *       the GPUs it knows; a GPU's (or a node's GPUs') main parameters, or
 *       one, run by run
 *   history last DB|CATALOGUE|DIR|FILE.verdict NODE [--max-age S]
 *       the node's last verdict in one line (for NHC, nhc/gpucensus.nhc):
 *       from the database, a run's catalogue, or the verdict file the
 *       history host published (DIR/NODE.verdict, verdict_file.h); exit 0
 *       ok, 1 suspect, 2 degraded or failed (and bad arguments, as
 *       everywhere), 3 none, missing, unreadable, or older than S seconds
 *   history publish DB DIR [--node NODE]...
 *       DIR/NODE.verdict for every node of DB (verdict_file.h) */
#ifndef GC_HISTORY_CMD_H
#define GC_HISTORY_CMD_H

#include "util/err.h"

enum { GC_HIST_OK = 0, GC_HIST_DB = 1, GC_HIST_USAGE = 2, GC_HIST_CATALOGUE = 3, GC_HIST_DUP = 4 };

int gc_history_main(int argc, char **argv);
extern const char gc_history_usage[];
/* Adds the catalogue of out (a run's directory or its catalogue.json) to
 * the database db (created if needed). Returns a GC_HIST_* exit code and
 * the message in err. */
int gc_history_add_path(const char *db, const char *out, double timeout_s, gc_err *err);

#endif
