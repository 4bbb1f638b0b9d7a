/* The run's output directory: OUT's name from its pattern, made and locked
 * by rank 0, the roster of ranks, and --resume's checks and skips. See run.h
 * and run_int.h. */
#include "run/run_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fsutil.h"
#include "util/outlock.h"
#include "util/quote.h"
#include "tree/tree.h"
#include "util/version.h"

void gc_run_rank_error(const runner *r, const gc_err *e)
{
    fprintf(stderr, "gpucensus: rank %d (node %s, gpu %d): %s\n", r->cl.rank, r->cl.node_name,
            r->cl.local_rank, e->msg);
}

int gc_expand_output(const char *pattern, const char *stamp, char *out, unsigned cap)
{
    const char *job = getenv("SLURM_JOB_ID");
    unsigned n = 0;
    if (!*pattern)
        return GC_EINVAL;   /* "" would put OUT's files at the root */
    for (const char *p = pattern; *p; p++) {
        const char *ins = NULL;
        char one[2] = { *p, 0 };
        if (p[0] == '%' && p[1] == 't')
            ins = stamp, p++;
        else if (p[0] == '%' && p[1] == 'j') {
            /* the environment is input too: "../x" must not move OUT */
            if (job && *job && !gc_name_ok(job))
                return GC_EINVAL;
            ins = job && *job ? job : "nojob", p++;
        } else if (p[0] == '%' && p[1] == '%')
            ins = "%", p++;
        else
            ins = one;
        size_t k = strlen(ins);
        if (n + k + 1 > cap)
            return GC_EINVAL;
        memcpy(out + n, ins, k);
        n += (unsigned)k;
    }
    out[n] = '\0';
    return 0;
}

void gc_run_fill_meta(runner *r, const char *start)
{
    gc_run_meta *m = &r->meta;
    snprintf(m->tool_version, sizeof m->tool_version, "%s", GC_VERSION);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", GC_GIT_COMMIT);
    snprintf(m->plan_name, sizeof m->plan_name, "%s", r->plan.name);
    snprintf(m->plan_file, sizeof m->plan_file, "%s", r->plan.file);
    snprintf(m->plan_sha256, sizeof m->plan_sha256, "%s", r->plan.sha256);
    snprintf(m->start_time, sizeof m->start_time, "%s", start);
    snprintf(m->backend, sizeof m->backend, "%s", r->ops->name);
    if (r->ops == &gc_backend_sim) {
        snprintf(m->sim_profile, sizeof m->sim_profile, "%s", r->plan.sim.profile);
        m->seed = r->plan.sim.seed;
    }
    m->ranks = r->cl.size;
    m->nodes = r->cl.nodes;
    m->precision = r->plan.precision;
    m->sub_bits = r->sub_bits;
}

/* An OUT that holds a run, finished (its catalogue) or stopped (its
 * roster), is not written over without --force: its results would be lost
 * to a mistyped -o. */
static int refuse_earlier_run(const char *out, gc_err *e)
{
    char cat[4200], roster[4200];
    struct stat st;
    snprintf(cat, sizeof cat, "%s/catalogue.json", out);
    snprintf(roster, sizeof roster, "%s/shards/roster.gcr", out);
    int finished = lstat(cat, &st) == 0, started = lstat(roster, &st) == 0;
    if (!finished && !started)
        return 0;
    return gc_fail(e, GC_EEXIST,
                   "%s holds %s: `gpucensus run PLAN --resume %s` measures what it lacks, --force "
                   "replaces it, or give another -o", out,
                   finished ? "a run already (its catalogue.json)"
                            : "a run that stopped before it finished (shards/roster.gcr)", out);
}

/* Rank 0 picks the output directory and creates it; everyone learns it. */
int gc_run_make_out_dir(runner *r, const char *stamp, gc_err *e)
{
    int rc = 0;
    if (r->cl.rank == 0) {
        const char *pat = r->opts->resume    ? r->opts->resume
                          : r->opts->out_dir ? r->opts->out_dir
                                             : r->plan.output;
        if (gc_expand_output(pat, stamp, r->out, sizeof r->out))
            rc = gc_fail(e, GC_EINVAL, !*pat ? "the output directory is empty (-o '')"
                                       : "output path '%s' is too long, or %%j has a SLURM_JOB_ID "
                                         "that is not a name of [A-Za-z0-9._-]", pat);
        char shards[4200];
        snprintf(shards, sizeof shards, "%s/shards", r->out);
        if (!rc)
            rc = gc_mkdir_p(shards, e);
        if (!rc)
            rc = gc_out_lock(r->out, e);   /* one run per OUT */
        r->out_locked = rc == 0;
        if (!rc)
            gc_sweep_out_tmp(r->out);   /* an earlier killed writer's, before ours exist */
        if (!rc && !r->opts->resume && !r->opts->force && (rc = refuse_earlier_run(r->out, e)) != 0)
            r->out_refused = 1;
    }
    int brc = MPI_Bcast(r->out, sizeof r->out, MPI_CHAR, 0, r->cl.world);
    if (!brc)
        brc = MPI_Bcast(&r->out_refused, 1, MPI_INT, 0, r->cl.world);
    if (brc && !rc) {
        rc = gc_mpi_fail(e, brc, "MPI_Bcast of the output directory");
        gc_run_rank_error(r, e);
    }
    /* Before the reduction: rank 0 passes it only once every leader has
     * looked, so a node file rank 0 writes later is never taken for an
     * earlier run's (the leader may replace only that one). */
    if (!rc && !brc)
        gc_tree_node_prior(r->out, &r->cl, &r->node_prior);
    if (!gc_cluster_all_ok(&r->cl, rc == 0))
        return rc ? rc : GC_EIO;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/shards", r->out);
    /* Without a shared file system other nodes need their own directory;
     * if they cannot have one, their results still reach rank 0. */
    gc_err de = { 0 };
    if (r->cl.rank != 0 && gc_mkdir_p(dir, &de))
        fprintf(stderr, "gpucensus: rank %d: %s: shards will not be saved on this node\n",
                r->cl.rank, de.msg);
    if (gc_shard_path(r->shard_path, sizeof r->shard_path, dir, r->cl.node_name, r->cl.local_rank))
        return gc_fail(e, GC_EINVAL, "shard path too long");
    return 0;
}

/* --resume: the run being resumed must be this plan on the same GPUs; with
 * fewer ranks its other GPUs would silently leave the catalogue. */
static int resume_same_job(runner *r, const char *path, gc_err *e)
{
    uint8_t *data;
    size_t len;
    gc_err re = { 0 };
    if (gc_read_file_in(path, 1, 64u << 20, &data, &len, &re))
        return 0;   /* no roster: nothing to compare (each shard is checked) */
    gc_run_meta old;
    gc_roster_entry *v;
    size_t n;
    int rc = gc_roster_decode(data, len, &old, &v, &n, &re);
    free(data);
    if (rc)
        return gc_fail(e, rc, "%s: %s", path, re.msg);
    snprintf(r->resumed_start, sizeof r->resumed_start, "%s", old.start_time);
    if (strcmp(old.plan_sha256, r->meta.plan_sha256))
        rc = gc_fail(e, GC_EINVAL, "--resume %s: that run is of another plan (%.60s, sha256 "
                     "%.12s...): resume needs the same plan file", r->out, old.plan_name,
                     old.plan_sha256);
    for (size_t i = 0; !rc && !r->opts->resume_reshape && i < n; i++) {
        int found = 0;
        for (int k = 0; !found && k < r->cl.size; k++)
            found = r->cl.roster[k].local_index == v[i].local_index &&
                    !strcmp(r->cl.roster[k].node, v[i].node);
        if (!found || (size_t)r->cl.size != n)
            rc = gc_fail(e, GC_EINVAL, "--resume %s: that run had %zu ranks, this job %d%s%s%s: its "
                         "results would leave the catalogue; run with the old run's ranks, or add "
                         "--resume-reshape to resume anyway", r->out, n, r->cl.size,
                         found ? "" : " (", found ? "" : v[i].node, found ? "" : " is missing)");
    }
    free(v);
    return rc;
}

int gc_run_write_roster(runner *r, gc_err *e)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/shards/roster.gcr", r->out);
    if (r->opts->resume) {
        int rc = resume_same_job(r, path, e);
        if (rc)
            return rc;
    }
    gc_wbuf w = { 0 };
    int rc = gc_roster_encode(&r->meta, r->cl.roster, (size_t)r->cl.size, &w, e);
    if (!rc)
        rc = gc_write_atomic(path, w.data, w.len, e);
    gc_wbuf_free(&w);
    return rc;
}

/* --resume: every rank reads its own earlier shard; the bitmaps of done
 * items are shared so that both ranks of a pair or net item agree to skip
 * it (when its initiator has it). Collective. Returns 0, or an exit code. */
int gc_run_resume_setup(runner *r, const gc_step_task *tasks, size_t ntasks, size_t nitems)
{
    gc_err e = { 0 };
    /* the run resumed: this plan, started when its roster says */
    gc_run_meta was = r->meta;
    if (MPI_Bcast(r->resumed_start, sizeof r->resumed_start, MPI_CHAR, 0, r->cl.world))
        r->resumed_start[0] = '\0';
    r->resumed_start[sizeof r->resumed_start - 1] = '\0';
    snprintf(was.start_time, sizeof was.start_time, "%s", r->resumed_start);
    int rc = gc_resume_load(&r->rs, r->shard_path, &was, r->opts->resume_reshape, r->gpu.info.uuid,
                            nitems, &e);
    if (rc)
        gc_run_rank_error(r, &e);
    if (!gc_cluster_all_ok(&r->cl, rc == 0))
        return 2;
    if (!r->rs.have)
        fprintf(stderr, "gpucensus: rank %d (node %s, gpu %d): %s\n", r->cl.rank,
                r->cl.node_name, r->cl.local_rank, r->rs.note);
    /* the (item, peer) tasks this rank initiates and has done: every rank
     * learns every initiator's, so both ends of a task agree */
    size_t nb = r->rs.nbytes, np = 0, size = (size_t)r->cl.size;
    uint64_t *mine = malloc((ntasks ? ntasks : 1) * sizeof *mine), *all = NULL;
    int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
    r->skip = calloc(ntasks ? ntasks : 1, 1);
    rc = mine && counts && displs && r->skip ? 0 : GC_ENOMEM;
    for (size_t k = 0; !rc && k < ntasks; k++) {
        const gc_task *t = &tasks[k].task;
        uint64_t key = gc_resume_task_key(t, 0, r->cl.rank, r->cl.local_rank);
        if (t->peer_rank >= 0 && t->initiator && gc_resume_has(r->rs.pairs, r->rs.npairs, key))
            mine[np++] = key;
    }
    np = gc_resume_sort(mine, np);
    int mrc = 0, n_mine = (int)np;
    if (gc_cluster_all_ok(&r->cl, rc == 0)) {
        mrc = MPI_Allgather(&n_mine, 1, MPI_INT, counts, 1, MPI_INT, r->cl.world);
        size_t total = 0;
        for (size_t i = 0; !mrc && i < size; i++) {
            displs[i] = (int)total;
            total += (size_t)counts[i];
        }
        if (!mrc && !(all = malloc((total ? total : 1) * sizeof *all)))
            rc = GC_ENOMEM;
        if (!gc_cluster_all_ok(&r->cl, rc == 0 && mrc == 0))
            mrc = mrc ? mrc : MPI_ERR_NO_MEM;
        else
            mrc = MPI_Allgatherv(mine, n_mine, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T,
                                 r->cl.world);
    } else {
        free(mine), free(counts), free(displs);
        return 1;
    }
    if (mrc) {
        free(all);
        all = NULL;   /* measure every pair and net task again rather than guess */
        gc_run_rank_error(r, (gc_mpi_fail(&e, mrc, "MPI_Allgatherv of the tasks done"), &e));
    }
    uint32_t skipped = 0;
    size_t nkept = 0;
    for (size_t k = 0; k < ntasks; k++) {
        const gc_task *t = &tasks[k].task;
        if (t->peer_rank < 0) {
            r->skip[k] = gc_resume_bit(r->rs.done, t->item->id);
        } else if (all && t->peer_rank < (int)size) {
            int who = t->initiator ? r->cl.rank : t->peer_rank;
            uint64_t key = gc_resume_task_key(t, !t->initiator, r->cl.rank, r->cl.local_rank);
            r->skip[k] = gc_resume_has(all + displs[who], (size_t)counts[who], key);
        }
        skipped += r->skip[k];
    }
    free(all), free(counts), free(displs);
    /* Points of tasks that will be measured again are dropped: the done
     * sets become the skipped tasks' */
    for (size_t b = 0; b < nb; b++)
        r->rs.done[b] = 0;
    for (size_t k = 0; k < ntasks; k++) {
        const gc_task *t = &tasks[k].task;
        if (!r->skip[k])
            continue;
        if (t->peer_rank < 0)
            r->rs.done[t->item->id >> 3] |= (uint8_t)(1u << (t->item->id & 7));
        else
            mine[nkept++] = gc_resume_task_key(t, 0, r->cl.rank, r->cl.local_rank);
    }
    free(r->rs.pairs);
    r->rs.pairs = mine;
    r->rs.npairs = gc_resume_sort(mine, nkept);
    rc = mrc ? GC_EIO : gc_resume_carry(&r->rs, &r->gpu, &e);
    if (rc && !mrc)
        gc_run_rank_error(r, &e);
    r->gpu.items_done = skipped;
    unsigned long long tot[2] = { skipped, ntasks }, sum[2] = { 0, 0 };
    if (MPI_Reduce(tot, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, r->cl.world) == MPI_SUCCESS &&
        r->cl.rank == 0 && !r->opts->quiet)
        fprintf(stderr, "gpucensus: resuming %s: %llu of %llu work items already done, "
                        "measuring the other %llu\n", r->out, sum[0], sum[1], sum[1] - sum[0]);
    return gc_cluster_all_ok(&r->cl, rc == 0) ? 0 : 1;
}

