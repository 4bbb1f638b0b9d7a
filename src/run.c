/* The run pipeline. See run.h. */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "catalogue.h"
#include "cluster.h"
#include "fsutil.h"
#include "report.h"
#include "schedule.h"
#include "shard.h"
#include "version.h"

/* NVML throttle/clocks-event reasons that mean the GPU slowed down
 * (power cap, HW slowdown, SW/HW thermal, power brake), not idle or
 * application clocks. */
#define THROTTLE_MASK (0x4ull | 0x8ull | 0x20ull | 0x40ull | 0x80ull)

typedef struct runner {
    const gc_run_opts *opts;
    gc_plan plan;
    gc_cluster cl;
    const gc_backend_ops *ops;
    gc_backend *be;
    gc_run_meta meta;
    gc_gpu gpu;
    char out[4096];
    char shard_path[4096];
    double last_shard_s;
    uint32_t sub_bits;
    gc_peer_io pio;
} runner;

/* ---- the backends' channel to a pair's or net item's other rank ---- */

#define PEER_TAG 4747
#define PEER_CHUNK ((size_t)1 << 30)   /* MPI counts are int */

static int pio_sendrecv(void *ctx, int peer, const void *s, void *r, size_t len)
{
    const gc_cluster *cl = ctx;
    for (size_t o = 0; o < len || o == 0; o += PEER_CHUNK) {
        int n = (int)(len - o < PEER_CHUNK ? len - o : PEER_CHUNK);
        if (MPI_Sendrecv((const char *)s + o, n, MPI_BYTE, peer, PEER_TAG, (char *)r + o, n,
                         MPI_BYTE, peer, PEER_TAG, cl->world, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (!len)
            break;
    }
    return 0;
}

static int pio_send(void *ctx, int peer, const void *buf, size_t len)
{
    const gc_cluster *cl = ctx;
    for (size_t o = 0; o < len || o == 0; o += PEER_CHUNK) {
        int n = (int)(len - o < PEER_CHUNK ? len - o : PEER_CHUNK);
        if (MPI_Send((const char *)buf + o, n, MPI_BYTE, peer, PEER_TAG, cl->world) != MPI_SUCCESS)
            return -1;
        if (!len)
            break;
    }
    return 0;
}

static int pio_recv(void *ctx, int peer, void *buf, size_t len)
{
    const gc_cluster *cl = ctx;
    for (size_t o = 0; o < len || o == 0; o += PEER_CHUNK) {
        int n = (int)(len - o < PEER_CHUNK ? len - o : PEER_CHUNK);
        if (MPI_Recv((char *)buf + o, n, MPI_BYTE, peer, PEER_TAG, cl->world, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            return -1;
        if (!len)
            break;
    }
    return 0;
}

int gc_expand_output(const char *pattern, const char *stamp, char *out, unsigned cap)
{
    const char *job = getenv("SLURM_JOB_ID");
    unsigned n = 0;
    for (const char *p = pattern; *p; p++) {
        const char *ins = NULL;
        char one[2] = { *p, 0 };
        if (p[0] == '%' && p[1] == 't')
            ins = stamp, p++;
        else if (p[0] == '%' && p[1] == 'j')
            ins = job && *job ? job : "nojob", p++;
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

/* Every rank prints its own failure; rank 0 adds nothing. */
static void rank_error(const runner *r, const gc_err *e)
{
    fprintf(stderr, "gpucensus: rank %d (node %s, gpu %d): %s\n", r->cl.rank, r->cl.node_name,
            r->cl.local_rank, e->msg);
}

static int write_shard(runner *r, gc_wbuf *keep)
{
    gc_wbuf w = { 0 };
    gc_err e = { 0 };
    /* A shard's end time is when it was written: the run ends with its
     * last shard, whatever stopped it. */
    gc_iso_time(r->meta.end_time, sizeof r->meta.end_time, 0);
    int rc = gc_shard_encode(&r->meta, &r->gpu, &w, &e);
    if (!rc)
        rc = gc_write_atomic(r->shard_path, w.data, w.len, &e);
    if (rc)
        fprintf(stderr, "gpucensus: rank %d: shard not saved: %s (results stay in memory and are "
                        "still sent to rank 0)\n", r->cl.rank, e.msg);
    r->last_shard_s = gc_now_s();
    if (keep)
        *keep = w;
    else
        gc_wbuf_free(&w);
    return rc;
}

static void mark_points(runner *r, size_t first, const gc_item *it, const gc_conditions *before,
                        const gc_conditions *after)
{
    uint32_t flags = 0;
    if (before->valid && after->valid) {
        double d = fabs(after->sm_clock_mhz - before->sm_clock_mhz);
        if (d > 0.01 * before->sm_clock_mhz || after->mem_clock_mhz != before->mem_clock_mhz)
            flags |= GC_FLAG_CLOCKS_MOVED;
        if ((after->throttle_reasons & THROTTLE_MASK) & ~(before->throttle_reasons & THROTTLE_MASK) ||
            (before->throttle_reasons & THROTTLE_MASK))
            flags |= GC_FLAG_THROTTLED;
    }
    for (size_t i = first; i < r->gpu.npoints; i++) {
        gc_point *p = &r->gpu.points[i];
        p->before = *before;
        p->after = *after;
        p->flags |= flags;
        /* Points carry the registry name; a plan label goes to the context. */
        snprintf(p->bench, sizeof p->bench, "%s", it->spec->name);
        if (strcmp(it->spec->label, it->spec->name) != 0)
            gc_ctx_set_str(&p->ctx, "label", it->spec->label);
    }
}

static void record_failure(runner *r, const gc_item *it, const char *msg)
{
    gc_point *p = gc_gpu_add_point(&r->gpu, it->id, it->spec->name, &it->params, "error", "none",
                                   1, r->sub_bits);
    if (!p)
        return;
    p->status = GC_PT_FAILED;
    snprintf(p->error, sizeof p->error, "%s", msg);
}

static void run_task(runner *r, gc_task *t, double plan_deadline)
{
    const gc_item *it = t->item;
    gc_conditions before = { 0 }, after = { 0 };
    r->ops->conditions(r->be, &before);
    size_t first = r->gpu.npoints;
    double now = gc_now_s();
    if (plan_deadline > 0 && now > plan_deadline) {
        char msg[96];
        snprintf(msg, sizeof msg, "skipped: the plan's budget of %.0f s per GPU is spent",
                 r->plan.budget_s);
        record_failure(r, it, msg);
    } else {
        t->deadline_s = now + it->spec->budget_s;
        gc_err e = { 0 };
        if (r->ops->measure(r->be, t, &r->gpu, &e)) {
            /* Keep nothing half-made from a failed item but its reason. */
            for (size_t i = first; i < r->gpu.npoints; i++)
                gc_hist_free(&r->gpu.points[i].hist);
            r->gpu.npoints = first;
            record_failure(r, it, e.msg[0] ? e.msg : "failed");
        }
    }
    r->ops->conditions(r->be, &after);
    mark_points(r, first, it, &before, &after);
    r->gpu.items_done++;
    /* The plan is done when its last item is: save that at once, before
     * any barrier or the gather can stall on another rank. */
    r->gpu.complete = r->gpu.items_done == r->gpu.items_total;
    if (r->gpu.complete || gc_now_s() - r->last_shard_s >= r->plan.shard_interval_s)
        write_shard(r, NULL);
}

static void run_phases(runner *r, gc_step_task *tasks, size_t ntasks, const gc_geom *geom)
{
    double deadline = r->plan.budget_s > 0 ? gc_now_s() + r->plan.budget_s : 0;
    size_t k = 0;
    for (int ph = 0; ph < GC_NPHASES; ph++) {
        int steps = gc_phase_steps((gc_phase)ph, geom);
        MPI_Comm comm = ph == GC_PHASE_NET ? r->cl.world : r->cl.node;
        if (ph == GC_PHASE_CONCURRENT)
            MPI_Barrier(comm); /* start together */
        for (int s = 0; s < steps; s++) {
            while (k < ntasks && (int)tasks[k].task.item->phase == ph && tasks[k].step == s)
                run_task(r, &tasks[k++].task, deadline);
            if (ph != GC_PHASE_GPU && ph != GC_PHASE_CONCURRENT)
                MPI_Barrier(comm);
        }
        /* A phase ends on the whole node before the next begins, so
         * isolated measurements never overlap another GPU's work. */
        MPI_Barrier(r->cl.node);
        if (ph == GC_PHASE_PAIR || ph == GC_PHASE_ISOLATED)
            write_shard(r, NULL);
    }
}

static int setup(runner *r, gc_err *e)
{
    const gc_run_opts *o = r->opts;
    if (strcmp(o->backend, "sim") == 0) {
        r->ops = &gc_backend_sim;
        if (!r->plan.sim.present)
            return gc_fail(e, GC_EINVAL, "%s: the sim backend needs a 'sim' section in the plan",
                           r->plan.file);
    } else if (strcmp(o->backend, "cuda") == 0) {
        r->ops = &gc_backend_cuda;
    } else {
        return gc_fail(e, GC_EINVAL, "unknown backend '%s' (cuda or sim)", o->backend);
    }
    return gc_hist_sub_bits_for(r->plan.precision, &r->sub_bits, e);
}

static void fill_meta(runner *r, const char *start)
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

/* Rank 0 picks the output directory and creates it; everyone learns it. */
static int make_out_dir(runner *r, const char *stamp, gc_err *e)
{
    int rc = 0;
    if (r->cl.rank == 0) {
        const char *pat = r->opts->out_dir ? r->opts->out_dir : r->plan.output;
        if (gc_expand_output(pat, stamp, r->out, sizeof r->out))
            rc = gc_fail(e, GC_EINVAL, "output path '%s' is too long", pat);
        char shards[4200];
        snprintf(shards, sizeof shards, "%s/shards", r->out);
        if (!rc)
            rc = gc_mkdir_p(shards, e);
    }
    MPI_Bcast(r->out, sizeof r->out, MPI_CHAR, 0, r->cl.world);
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

static int open_backend(runner *r, gc_err *e)
{
    gc_backend_args a = {
        .plan = &r->plan, .node = r->cl.node_name, .node_index = r->cl.node_index,
        .local_index = r->cl.local_rank, .local_size = r->cl.local_size, .rank = r->cl.rank,
        .sub_bits = r->sub_bits, .peer = &r->pio,
    };
    r->pio = (gc_peer_io){ .ctx = &r->cl, .sendrecv = pio_sendrecv, .send = pio_send,
                           .recv = pio_recv };
    gc_gpu_init(&r->gpu);
    int rc = r->ops->open(&a, &r->be, &r->gpu.info, e);
    snprintf(r->gpu.info.node, sizeof r->gpu.info.node, "%s", r->cl.node_name);
    r->gpu.info.local_index = r->cl.local_rank;
    r->gpu.info.rank = r->cl.rank;
    return rc;
}

static int write_roster(runner *r, gc_err *e)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/shards/roster.gcr", r->out);
    gc_wbuf w = { 0 };
    int rc = gc_roster_encode(&r->meta, r->cl.roster, (size_t)r->cl.size, &w, e);
    if (!rc)
        rc = gc_write_atomic(path, w.data, w.len, e);
    gc_wbuf_free(&w);
    return rc;
}

static int finish(runner *r, gc_wbuf *mine, double t0)
{
    uint8_t **blobs = NULL;
    size_t *lens = NULL;
    gc_err e = { 0 };
    int rc = gc_cluster_gather(&r->cl, mine->data, mine->len, &blobs, &lens, &e);
    if (r->cl.rank != 0 || rc) {
        if (rc)
            rank_error(r, &e);
        return rc ? 1 : 0;
    }
    gc_blob *bl = calloc((size_t)r->cl.size, sizeof *bl);
    for (int i = 0; bl && i < r->cl.size; i++) {
        bl[i].data = blobs[i];
        bl[i].len = lens[i];
    }
    gc_iso_time(r->meta.end_time, sizeof r->meta.end_time, 0);
    gc_catalogue_stats st = { 0 };
    rc = bl ? gc_catalogue_write(r->out, &r->meta, r->cl.roster, (size_t)r->cl.size, bl, &st, &e)
            : gc_fail(&e, GC_ENOMEM, "out of memory");
    if (rc)
        fprintf(stderr, "gpucensus: catalogue not written: %s (shards are in %s/shards; "
                        "`gpucensus merge` can rebuild it)\n", e.msg, r->out);
    else if (!r->opts->quiet)
        gc_report_summary(stdout, &r->meta, &st, r->out, gc_now_s() - t0);
    for (int i = 0; i < r->cl.size; i++)
        free(blobs[i]);
    free(blobs);
    free(lens);
    free(bl);
    free(st.briefs);
    return rc ? 1 : 0;
}

int gc_run_main(const gc_run_opts *o)
{
    runner r;
    memset(&r, 0, sizeof r);
    r.opts = o;
    gc_err e = { 0 };
    double t0 = gc_now_s();
    int world_rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);

    /* Validate the plan everywhere before anything is measured. */
    int rc = gc_plan_load(o->plan_path, &r.plan, &e);
    if (!rc)
        rc = setup(&r, &e);
    int ok = rc == 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rc && world_rank == 0)
            fprintf(stderr, "gpucensus: %s\n", e.msg);
        else if (rc)
            fprintf(stderr, "gpucensus: rank %d: %s\n", world_rank, e.msg);
        gc_plan_free(&r.plan);
        return 2;
    }
    int sim_nodes = 0;
    if (r.ops == &gc_backend_sim)
        sim_nodes = o->sim_nodes > 0 ? o->sim_nodes : r.plan.sim.nodes;
    rc = gc_cluster_init(&r.cl, sim_nodes, &e);
    if (rc) {
        if (world_rank == 0)
            fprintf(stderr, "gpucensus: %s\n", e.msg);
        gc_plan_free(&r.plan);
        return 1;
    }
    char stamp[32], start[32];
    if (r.cl.rank == 0) {
        gc_iso_time(stamp, sizeof stamp, 1);
        gc_iso_time(start, sizeof start, 0);
    }
    MPI_Bcast(stamp, sizeof stamp, MPI_CHAR, 0, r.cl.world);
    MPI_Bcast(start, sizeof start, MPI_CHAR, 0, r.cl.world);
    fill_meta(&r, start);

    int exit_code = 1;
    gc_item *items = NULL;
    gc_step_task *tasks = NULL;
    size_t nitems = 0, ntasks = 0;
    rc = make_out_dir(&r, stamp, &e);
    if (rc) {
        if (r.cl.rank == 0)
            fprintf(stderr, "gpucensus: %s\n", e.msg);
        goto out;
    }
    rc = open_backend(&r, &e);
    if (rc)
        rank_error(&r, &e);
    if (!gc_cluster_all_ok(&r.cl, rc == 0))
        goto out;
    gc_geom geom = { r.cl.rank, r.cl.size, r.cl.local_rank, r.cl.local_size,
                     r.cl.node_index, r.cl.nodes, r.cl.roster };
    rc = gc_plan_expand(&r.plan, &items, &nitems, &e);
    if (!rc)
        rc = gc_schedule(items, nitems, &geom, &tasks, &ntasks, &e);
    if (!rc && r.cl.rank == 0)
        rc = write_roster(&r, &e);
    if (rc)
        rank_error(&r, &e);
    if (!gc_cluster_all_ok(&r.cl, rc == 0))
        goto out;
    r.gpu.items_total = (uint32_t)ntasks;
    r.ops->conditions(r.be, &r.gpu.start);
    write_shard(&r, NULL);

    run_phases(&r, tasks, ntasks, &geom);

    r.ops->conditions(r.be, &r.gpu.end);
    r.gpu.complete = 1; /* also a plan with no items for this rank */
    gc_wbuf mine = { 0 };
    write_shard(&r, &mine);
    exit_code = finish(&r, &mine, t0);
    gc_wbuf_free(&mine);
out:
    if (r.be)
        r.ops->close(r.be);
    gc_gpu_free(&r.gpu);
    free(tasks);
    free(items);
    gc_plan_free(&r.plan);
    gc_cluster_free(&r.cl);
    return exit_code;
}
