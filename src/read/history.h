/* The history database: every GPU's runs over time, in SQLite.
 *
 * One row per run (identified by its start time, plan hash, backend and
 * the set of its GPU UUIDs, so the same run added twice is refused), per
 * GPU of a run (UUID, node, index, SKU, status, verdict and worst reason),
 * per derived parameter, per link (class, GPU end, alpha, beta, nominal,
 * lambda, verdict) and per node (verdict); each parameter and link with
 * the method version of its benchmark (registry.c), so that a value is
 * compared only with past values of the same method. A database of schema
 * 1 (no method versions) is read as it is and migrated when opened to
 * write; its values' methods are known only where none of their
 * benchmark's method changes is dated at or before their run (then 1), and
 * unknown otherwise: never compared (history.c, gc_old_method). Several
 * jobs may add at once: the database runs in WAL mode, waits for a busy
 * writer up to a timeout, and adds a run in one transaction, whole or not
 * at all. A database that
 * is locked past the timeout, corrupt, or not ours is an error naming the
 * file; the catalogue being added is only read, so the add can be retried.
 *
 * SQLite's WAL needs the database on one host's file system (not NFS):
 * keep it where the jobs that add run (see README, "Running it every day"). */
#ifndef GC_HISTORY_H
#define GC_HISTORY_H

#include <stddef.h>

#include "read/catread_hist.h"
#include "judge/detect.h"
#include "util/err.h"
#include "judge/rules.h"

#define GC_HISTORY_TIMEOUT_S 60.0
/* 1: a start time (s since 1970) a run may have, 1970 to 9999 */
int gc_history_time_ok(long long t_s);

typedef struct gc_history gc_history;

/* 1 when path is a regular file that starts like an SQLite database. */
int gc_history_is_db(const char *path);
/* write: create the database if needed and allow adding; otherwise read
 * only (the file must exist). timeout_s: how long to wait for a writer. */
int gc_history_open(const char *path, int write, double timeout_s, gc_history **out, gc_err *err);
void gc_history_close(gc_history *h);
const char *gc_history_path(const gc_history *h);
/* 1 when this open migrated the file from schema 1: *unknown, how many of
 * its stored values were left of unknown method (never compared). */
int gc_history_migrated(const gc_history *h, long long *unknown);

/* Stores the run of c (source: where it was read from). GC_EEXIST: the
 * run is already there; GC_EINVAL: a start time that is not one, or two
 * GPUs with one UUID; GC_ETIMEOUT: another writer held the database
 * past the timeout; GC_ECORRUPT: not a (gpucensus) SQLite database or a
 * damaged one; GC_EIO: cannot open or write. Nothing is added on error. */
int gc_history_add(gc_history *h, const gc_hcat *c, const char *source, gc_err *err);

/* The run key of a catalogue (sha256 hex of what identifies the run). */
void gc_history_run_key(const gc_hcat *c, char key[65]);

/* One value of a GPU (or of a link from it) in one run. */
typedef struct gc_hpoint {
    long long t_s;          /* the run's start, seconds since the epoch */
    char time[32], plan[64], commit[48], node[64];
    int level;              /* the GPU's (or link's) verdict, -1: none */
    double value;
    int method;             /* its benchmark's method version, 0: unknown or none */
    char unit[24];          /* the value's unit as the catalogue gave it (a link: bytes_per_s) */
} gc_hpoint;

/* The values of a GPU's parameter (or, with link_class, the beta_bps of
 * that class of its links) over its runs, oldest first. plan: only runs of
 * that plan name (NULL: all); good: only runs where the subject was ok or
 * suspect and, for a GPU, measured ok; skip_key: leave out that run (the
 * one being judged); method: only values of that method version (0: any,
 * unknown ones too); max: at most the last max runs (0: all). */
typedef struct gc_hquery {
    const char *uuid, *param, *link_class, *plan, *skip_key;
    int good, method;
    size_t max;
} gc_hquery;
int gc_history_series(gc_history *h, const gc_hquery *q, gc_hpoint **out, size_t *n, gc_err *err);

/* The GPUs the database knows, latest run first per GPU; who: a UUID or
 * a node name (NULL: all). */
typedef struct gc_hgpu {
    char uuid[48], node[64], name[96], last_time[32], first_time[32], verdict[16];
    int index;
    long runs;
} gc_hgpu;
int gc_history_gpus(gc_history *h, const char *who, gc_hgpu **out, size_t *n, gc_err *err);

/* A GPU's parameter names (those it has in any run), sorted. */
int gc_history_params(gc_history *h, const char *uuid, char (**names)[64], size_t *n, gc_err *err);

/* A SKU's band for a parameter over every GPU of that SKU in the database:
 * lo/mid/hi = p10/median/p90 of their values in good runs (plan NULL: any)
 * measured with that method (0: any). */
int gc_history_band(gc_history *h, const char *sku, const char *param, const char *plan, int method,
                    double *lo, double *mid, double *hi, gc_err *err);

/* The last verdict the database holds for a node. GC_EINVAL: none. */
typedef struct gc_hnode {
    char node[64], time[32], plan[64], reason[256], source[256];   /* source: the run, as added */
    long long t_s;
    int level;
} gc_hnode;
int gc_history_last_node(gc_history *h, const char *node, gc_hnode *out, gc_err *err);
/* Every node the database has a verdict for, sorted. */
int gc_history_node_names(gc_history *h, char (**names)[64], size_t *n, gc_err *err);

/* ---- history_base.c: `check --baseline DB` ---- */

/* A baseline of each GPU of c against its own past (rules: the judged
 * parameters and the history settings): the values of its last
 * r->hist_runs good runs of c's plan measured with the method c's value
 * was, the run of c left out (gc_baseline takes their median), for its
 * judged parameters and its links' beta; and a `drift` reason (suspect)
 * where the Theil-Sen slope of those runs and c's values trends in the
 * bad direction beyond r->hist_drift_rel_per_month. A value whose past
 * holds none of its method is not compared: past values of other methods
 * go into the baseline under their method (the detector notes them per
 * GPU), and *note (malloc'd, NULL when every value had a comparable past
 * or none at all) says per benchmark how many values were not compared
 * and what methods their past holds ("unknown": stored without one).
 * *ndrift: how many drift reasons. */
int gc_history_baseline(gc_history *h, const gc_hcat *c, const gc_rules *r, gc_baseline **out,
                        size_t *ndrift, char **note, gc_err *err);
/* The same from the database at db (opened read only). */
int gc_history_baseline_path(const char *db, const gc_hcat *c, const gc_rules *r, gc_baseline **out,
                             char **note, gc_err *err);

#endif
