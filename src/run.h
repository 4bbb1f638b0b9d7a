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
    int quiet;
} gc_run_opts;

int gc_run_main(const gc_run_opts *o);

/* Expand "%t" (UTC timestamp) and "%j" (Slurm job id) in an output path. */
int gc_expand_output(const char *pattern, const char *stamp, char *out, unsigned cap);

#endif
