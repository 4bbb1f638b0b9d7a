/* `gpucensus run`: the whole pipeline on every rank (MPI initialised by the
 * caller): plan -> node/GPU binding -> phases of work items -> shards ->
 * gather -> catalogue at rank 0. Returns the process exit code:
 * 0 done, 1 a failure during the run, 2 a bad plan or bad arguments. */
#ifndef GC_RUN_H
#define GC_RUN_H

typedef struct gc_run_opts {
    const char *plan_path;
    const char *backend;      /* "cuda" (default) or "sim" */
    const char *out_dir;      /* overrides the plan's output */
    int sim_nodes;            /* overrides plan sim.nodes when > 0 */
    int quiet;                /* no summary, no progress */
    int progress;             /* gc_progress_mode: off, text (default), json */
    double gather_timeout_s;  /* a rank silent this long past its item's budget is
                                 lost; <= 0: GC_GATHER_TIMEOUT_S */
    const char *resume;       /* measure only what OUT's shards lack; NULL: all */
    int resume_reshape;       /* --resume-reshape: resume with other GPUs than the old run's */
    int force;                /* --force: write over an OUT that holds a run */
    const char *history;      /* rank 0 adds the catalogue to this history database */
    const char *only;         /* --only: comma-separated benchmark names or labels; NULL: all */
} gc_run_opts;

#define GC_GATHER_TIMEOUT_S 60.0

int gc_run_main(const gc_run_opts *o);

/* Expand "%t" (UTC timestamp) and "%j" (Slurm job id) in an output path. */
int gc_expand_output(const char *pattern, const char *stamp, char *out, unsigned cap);

#endif
