/* The run pipeline. See run.h. */
#include "run/run.h"
#include "run/run_int.h"
#include "run/eta.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/backend.h"
#include "write/catalogue.h"
#include "run/confirm.h"
#include "read/history.h"
#include "cmd/history_cmd.h"
#include "tree/cluster.h"
#include "util/outlock.h"
#include "util/crash.h"
#include "util/fsutil.h"
#include "measure/hostinfo.h"
#include "measure/remeasure.h"
#include "report/report.h"
#include "run/resume.h"
#include "plan/schedule.h"
#include "judge/net_checks.h"
#include "census/shard.h"
#include "tree/tree.h"
#include "tree/watch.h"

/* NVML throttle/clocks-event reasons that mean the GPU slowed down
 * (power cap, HW slowdown, SW/HW thermal, power brake), not idle or
 * application clocks. */
#define THROTTLE_MASK (0x4ull | 0x8ull | 0x20ull | 0x40ull | 0x80ull)

/* ---- the backends' channel to a pair's or net item's other rank ---- */

#define PEER_TAG 4747
#define PEER_CHUNK ((size_t)1 << 30)   /* MPI counts are int */

/* Transfers with the pair's other rank wait through the watch, so that a
 * peer that hangs cannot hang this rank: it keeps reporting, and gives up
 * when rank 0 abandons the run. */
static int pio_xfer(runner *r, int peer, const void *s, void *d, size_t len)
{
    char what[64];
    snprintf(what, sizeof what, "a transfer with rank %d", peer);
    for (size_t o = 0; o < len || o == 0; o += PEER_CHUNK) {
        int n = (int)(len - o < PEER_CHUNK ? len - o : PEER_CHUNK), rc = MPI_SUCCESS;
        MPI_Request rq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        if (d)
            rc = MPI_Irecv((char *)d + o, n, MPI_BYTE, peer, PEER_TAG, r->cl.world, &rq[0]);
        if (s && !rc)
            rc = MPI_Isend((const char *)s + o, n, MPI_BYTE, peer, PEER_TAG, r->cl.world, &rq[1]);
        for (int k = 0; k < 2; k++) {
            if (rq[k] == MPI_REQUEST_NULL && !rc)
                continue;
            if (gc_watch_wait(r->watch, rc, &rq[k], what)) {
                /* Abandoned: the receive must not land in d later. */
                if (rq[0] != MPI_REQUEST_NULL) {
                    MPI_Cancel(&rq[0]);
                    MPI_Request_free(&rq[0]);
                }
                if (rq[1] != MPI_REQUEST_NULL)
                    MPI_Request_free(&rq[1]);
                return -1;
            }
        }
        if (!len)
            break;
    }
    return 0;
}

static int pio_sendrecv(void *ctx, int peer, const void *s, void *d, size_t len)
{
    return pio_xfer(ctx, peer, s, d, len);
}

static int pio_send(void *ctx, int peer, const void *buf, size_t len)
{
    return pio_xfer(ctx, peer, buf, NULL, len);
}

static int pio_recv(void *ctx, int peer, void *buf, size_t len)
{
    return pio_xfer(ctx, peer, NULL, buf, len);
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

/* A failed task's point; one with a peer names it as its measured points
 * do (peer_rank and peer_node across nodes, peer_gpu within one), so that
 * the failure with each partner is its own result and --resume measures
 * that task again with that partner. */
static void record_failure(runner *r, const gc_task *t, const char *msg)
{
    const gc_item *it = t->item;
    gc_ctx ctx = it->params;
    if (t->peer_node && t->peer_rank >= 0) {
        gc_ctx_set_num(&ctx, "peer_rank", t->peer_rank);
        gc_ctx_set_str(&ctx, "peer_node", t->peer_node);
    } else if (t->peer_local_index >= 0) {
        gc_ctx_set_num(&ctx, "peer_gpu", t->peer_local_index);
    }
    gc_point *p = gc_gpu_add_point(&r->gpu, it->id, it->spec->name, &ctx, "error", "none",
                                   1, r->sub_bits);
    if (!p)
        return;
    p->status = GC_PT_FAILED;
    snprintf(p->error, sizeof p->error, "%s", msg);
}

/* An item that ran past its budget by more than this (it did not stop at
 * its deadline: a kernel that never checks, a stuck transfer) is recorded
 * failed: its numbers were not measured under the plan's terms. The fixed
 * part leaves room for what a backend does outside the measured time and
 * the budget (first use of a 1 GiB pinned buffer: 1.5 s on an H200 host). */
#define OVERRUN_FIXED_S 10.0
static double overrun_grace_s(double budget_s)
{
    return budget_s + OVERRUN_FIXED_S;
}

static void run_task(runner *r, gc_task *t, double budget_s, double plan_deadline)
{
    const gc_item *it = t->item;
    gc_conditions before = { 0 }, after = { 0 };
    r->ops->conditions(r->be, &before);
    size_t first = r->gpu.npoints;
    double now = gc_now_s();
    int spent = plan_deadline > 0 && now > plan_deadline, lost = 0;
    if (t->peer_rank >= 0) {
        /* Both ranks of a pair or net item skip it or neither does: the
         * one that runs would wait for the other forever. */
        int32_t mine = spent, theirs = 0;
        if (pio_xfer(r, t->peer_rank, &mine, &theirs, sizeof mine) == 0)
            spent = mine || theirs;
        else
            lost = 1;   /* the run is being abandoned: do not start it */
        now = gc_now_s();
    }
    if (spent || lost) {
        char msg[96];
        if (lost)
            snprintf(msg, sizeof msg, "not run: the run was abandoned (a rank was lost)");
        else
            snprintf(msg, sizeof msg, "skipped: the plan's budget of %.0f s per GPU is spent",
                     r->plan.budget_s);
        record_failure(r, t, msg);
    } else {
        t->deadline_s = now + budget_s;
        gc_err e = { 0 };
        gc_crash_item(it->id, it->spec->label, gc_phase_name(it->phase));
        int rc = r->ops->measure(r->be, t, &r->gpu, &e);
        gc_crash_stage("between work items");
        double took = gc_now_s() - now;
        if (!rc && budget_s > 0 && took > budget_s + overrun_grace_s(budget_s)) {
            rc = 1;
            snprintf(e.msg, sizeof e.msg, "abandoned: ran %.1f s, over its time budget of %.1f s",
                     took, budget_s);
        }
        if (rc) {
            /* Keep nothing half-made from a failed item but its reason. */
            for (size_t i = first; i < r->gpu.npoints; i++)
                gc_hist_free(&r->gpu.points[i].hist);
            r->gpu.npoints = first;
            record_failure(r, t, e.msg[0] ? e.msg : "failed");
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

/* A barrier that a hung rank cannot turn into a hang: 0 passed, 1 the run
 * is abandoned (rank 0 judged a rank lost). */
static int barrier(runner *r, MPI_Comm comm)
{
    MPI_Request rq;
    if (r->abandoned)
        return 1;
    if (gc_watch_wait(r->watch, MPI_Ibarrier(comm, &rq), &rq, "a barrier"))
        r->abandoned = 1;
    return r->abandoned;
}

/* gc_cluster_all_ok that a hung rank cannot hang: 1 every rank ok, 0 one
 * is not, -1 the run is abandoned (rank 0 judged a rank lost). */
static int all_ok_watched(runner *r, int ok)
{
    MPI_Request rq;
    if (r->abandoned)
        return -1;
    r->ok_in = ok != 0;
    if (gc_watch_wait(r->watch,
                      MPI_Iallreduce(&r->ok_in, &r->ok_out, 1, MPI_INT, MPI_LAND, r->cl.world, &rq),
                      &rq, "an agreement (MPI_Iallreduce)")) {
        r->abandoned = 1;
        return -1;
    }
    return r->ok_out;
}

static double budget_of(const gc_step_task *tasks, size_t ntasks, size_t k)
{
    return k < ntasks ? tasks[k].budget_s : 0;
}

/* ---- net checks: a slow pair's sides against a good node -------------- */

#define NET_MINE 4           /* pairs a rank reports (it initiates NET_ROUNDS) */

/* This rank's net pairs as initiator: peer rank and the bandwidth median
 * at the largest size. */
static void net_mine(const runner *r, double out[2 * NET_MINE])
{
    double size[NET_MINE] = { 0 };
    for (int k = 0; k < NET_MINE; k++)
        out[2 * k] = -1, out[2 * k + 1] = 0;
    for (size_t i = 0; i < r->gpu.npoints; i++) {
        const gc_point *p = &r->gpu.points[i];
        if (strcmp(p->bench, "net") || strcmp(p->metric, "bandwidth") || p->status != GC_PT_OK ||
            gc_ctx_get(&p->ctx, "net_check"))
            continue;
        double peer = gc_ctx_num(&p->ctx, "peer_rank", -1), sz = gc_ctx_num(&p->ctx, "size_bytes", 0);
        int k = 0;
        while (k < NET_MINE && out[2 * k] >= 0 && out[2 * k] != peer)
            k++;
        if (peer < 0 || k == NET_MINE || sz < size[k])
            continue;
        gc_summary sm;
        gc_point_summary(p, &sm);
        if (!sm.count)
            continue;
        out[2 * k] = peer;
        out[2 * k + 1] = sm.p50;
        size[k] = sz;
    }
}

/* Collective over the world: rank 0 picks the checks (gc_net_checks), all
 * learn them, the two ranks of each run every net item again, one check
 * per step. */
static void net_checks(runner *r, const gc_step_task *tasks, size_t ntasks, const gc_geom *g,
                       double deadline)
{
    size_t cap = 2 * (size_t)g->nodes;
    double mine[2 * NET_MINE], *all = NULL;
    int *chk = calloc(2 * cap + 1, sizeof *chk);
    if (r->cl.rank == 0)
        all = calloc((size_t)g->size * 2 * NET_MINE, sizeof *all);
    net_mine(r, mine);
    MPI_Request rq;
    if (gc_watch_wait(r->watch,
                      MPI_Igather(mine, 2 * NET_MINE, MPI_DOUBLE, all, 2 * NET_MINE, MPI_DOUBLE, 0,
                                  r->cl.world, &rq),
                      &rq, "the net checks' gather"))
        r->abandoned = 1;
    if (r->cl.rank == 0 && all && chk && !r->abandoned) {
        gc_net_pair *p = calloc((size_t)g->size * NET_MINE + cap, sizeof *p);
        size_t n = 0;
        for (int q = 0; p && q < g->size; q++)
            for (int k = 0; k < NET_MINE; k++)
                if (all[(size_t)q * 2 * NET_MINE + 2 * k] >= 0)
                    p[n++] = (gc_net_pair){ q, (int)all[(size_t)q * 2 * NET_MINE + 2 * k],
                                            all[(size_t)q * 2 * NET_MINE + 2 * k + 1] };
        gc_rules rules;
        gc_rules_default(&rules);
        size_t m = p ? gc_net_checks(p, n, &rules, p + n, cap) : 0;
        chk[0] = (int)m;
        for (size_t k = 0; k < m; k++)
            chk[1 + 2 * k] = p[n + k].src, chk[2 + 2 * k] = p[n + k].dst;
        if (m && !r->opts->quiet)
            fprintf(stderr, "gpucensus: %zu slow network pair side(s) measured again against a "
                            "node with good results\n", m);
        free(p);
    }
    free(all);
    if (!chk || r->abandoned) {
        free(chk);
        return;
    }
    if (gc_watch_wait(r->watch, MPI_Ibcast(chk, (int)(2 * cap + 1), MPI_INT, 0, r->cl.world, &rq),
                      &rq, "the net checks' broadcast"))
        r->abandoned = 1;
    for (int k = 0; k < chk[0] && !r->abandoned; k++) {
        int src = chk[1 + 2 * k], dst = chk[2 + 2 * k];
        int me = r->cl.rank == src ? 1 : r->cl.rank == dst ? 2 : 0;
        for (size_t i = 0; me && i < ntasks; i++) {
            const gc_item *it = tasks[i].task.item;
            int seen = it->phase != GC_PHASE_NET;
            for (size_t j = 0; !seen && j < i; j++)
                seen = tasks[j].task.item == it;
            if (seen)
                continue;
            gc_task t = { .item = it, .peer_local_index = -1, .peer_rank = me == 1 ? dst : src,
                          .initiator = me == 1 };
            t.peer_node = r->cl.roster[t.peer_rank].node;
            size_t first = r->gpu.npoints;
            r->gpu.items_total++;
            run_task(r, &t, it->spec->budget_s, deadline);
            for (size_t q = first; q < r->gpu.npoints; q++)
                gc_ctx_set_str(&r->gpu.points[q].ctx, "net_check", "remeasure");
        }
        barrier(r, r->cl.world);
    }
    free(chk);
}

/* Host-bound items of the step just run whose samples spread widely are
 * measured again (remeasure.h), inside the step: an isolated step still
 * has the node to itself. Bound: the host-bound items' budgets once more. */
static void remeasure_step(runner *r, gc_step_task *tasks, size_t from, size_t to,
                           double plan_deadline)
{
    size_t n = 0;
    gc_task **ts = malloc((to - from + 1) * sizeof *ts);
    double *bs = malloc((to - from + 1) * sizeof *bs), step_s = 0;
    for (size_t k = from; ts && bs && k < to; k++)
        if (!(r->skip && r->skip[k]) && gc_remeasure_host_bound(tasks[k].task.item)) {
            ts[n] = &tasks[k].task;
            bs[n] = tasks[k].budget_s;
            step_s += bs[n++];
        }
    if (ts && bs && n) {
        gc_remeasure_cfg cfg;
        gc_remeasure_defaults(&cfg);
        cfg.budget_s = step_s;
        cfg.deadline_s = plan_deadline;
        /* rank 0 hears nothing while it measures: tell it how long at most */
        gc_watch_item(r->watch, r->gpu.items_done, step_s);
        if (gc_remeasure(r->ops, r->be, ts, bs, n, &r->gpu, &cfg))
            write_shard(r, NULL);
    }
    free(ts);
    free(bs);
}

/* The node's wall budget left before task k, to the watch (the ETA). */
static void eta_tell(runner *r, size_t k)
{
    if (r->eta)
        gc_watch_left(r->watch, &r->eta[k]);
}

static void run_phases(runner *r, gc_step_task *tasks, size_t ntasks, const gc_geom *geom)
{
    double deadline = r->plan.budget_s > 0 ? gc_now_s() + r->plan.budget_s : 0;
    size_t k = 0;
    for (int ph = 0; ph < GC_NPHASES && !r->abandoned; ph++) {
        int steps = gc_phase_steps((gc_phase)ph, geom);
        MPI_Comm comm = ph == GC_PHASE_NET ? r->cl.world : r->cl.node;
        if (ph == GC_PHASE_CONCURRENT && barrier(r, comm)) /* start together */
            break;
        for (int s = 0; s < steps && !r->abandoned; s++) {
            size_t step_first = k;
            while (k < ntasks && (int)tasks[k].task.item->phase == ph && tasks[k].step == s) {
                if (r->skip && r->skip[k]) {   /* resumed: already measured */
                    k++;
                    continue;
                }
                run_task(r, &tasks[k].task, tasks[k].budget_s, deadline);
                k++;
                eta_tell(r, k);
                gc_watch_item(r->watch, r->gpu.items_done, budget_of(tasks, ntasks, k));
                if (gc_watch_abandoned(r->watch)) {
                    r->abandoned = 1;
                    break;
                }
            }
            if ((ph == GC_PHASE_GPU || ph == GC_PHASE_ISOLATED) && !r->abandoned) {
                remeasure_step(r, tasks, step_first, k, deadline);
                gc_watch_item(r->watch, r->gpu.items_done, budget_of(tasks, ntasks, k));
            }
            if (ph != GC_PHASE_GPU && ph != GC_PHASE_CONCURRENT)
                barrier(r, comm);
        }
        if (ph == GC_PHASE_NET && geom->nodes > 2 && !r->abandoned)
            net_checks(r, tasks, ntasks, geom, deadline);
        /* A phase ends on the whole node before the next begins, so
         * isolated measurements never overlap another GPU's work. */
        barrier(r, r->cl.node);
        if (ph == GC_PHASE_PAIR || ph == GC_PHASE_ISOLATED)
            write_shard(r, NULL);
    }
    if (r->abandoned && r->gpu.items_done < r->gpu.items_total)
        fprintf(stderr, "gpucensus: rank %d (node %s, gpu %d): run abandoned after %u of %u "
                        "items (%s); sending what is done\n",
                r->cl.rank, r->cl.node_name, r->cl.local_rank, r->gpu.items_done,
                r->gpu.items_total, gc_watch_reason(r->watch));
}

/* ---- measure again before blaming (confirm.c) ------------------------- */

typedef struct confirm_ctx {
    runner *r;
    gc_step_task *tasks;
    size_t ntasks;
} confirm_ctx;

static int confirm_item(void *ctx, uint32_t item_id)
{
    confirm_ctx *c = ctx;
    for (size_t i = 0; i < c->ntasks; i++)
        if (c->tasks[i].task.item->id == item_id && c->tasks[i].task.peer_rank < 0) {
            c->r->gpu.items_total++;
            run_task(c->r, &c->tasks[i].task, c->tasks[i].budget_s, 0);
            return 0;
        }
    return -1;
}

/* A pair item again with peer_rank (a P2P link checked, confirm.c); round 1
 * says it is a re-measure (the sim's transient faults spare it). */
static int confirm_pair(void *ctx, uint32_t item_id, int peer_rank, int initiator)
{
    confirm_ctx *c = ctx;
    for (size_t i = 0; i < c->ntasks; i++) {
        const gc_item *it = c->tasks[i].task.item;
        if (it->id != item_id || it->phase != GC_PHASE_PAIR)
            continue;
        gc_task t = { .item = it, .peer_local_index = c->r->cl.roster[peer_rank].local_index,
                      .peer_rank = peer_rank, .initiator = initiator, .round = 1 };
        c->r->gpu.items_total++;
        run_task(c->r, &t, it->spec->budget_s, 0);
        return 0;
    }
    return -1;
}

static int confirm_wait(void *ctx, int start_rc, MPI_Request *rq, const char *what)
{
    confirm_ctx *c = ctx;
    if (gc_watch_wait(c->r->watch, start_rc, rq, what))
        c->r->abandoned = 1;
    return c->r->abandoned;
}

static void confirm_phase(runner *r, const gc_item *items, size_t nitems, gc_step_task *tasks,
                          size_t ntasks)
{
    confirm_ctx c = { r, tasks, ntasks };
    gc_confirm_io io = { .world = r->cl.world, .rank = r->cl.rank, .size = r->cl.size,
                         .quiet = r->opts->quiet, .gpu = &r->gpu, .items = items, .nitems = nitems,
                         .remeasure = confirm_item, .remeasure_pair = confirm_pair,
                         .roster = r->cl.roster, .wait = confirm_wait, .ctx = &c };
    gc_confirm_run(&io);
    barrier(r, r->cl.world);
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

static int open_backend(runner *r, gc_err *e)
{
    gc_backend_args a = {
        .plan = &r->plan, .node = r->cl.node_name, .node_index = r->cl.node_index,
        .local_index = r->cl.local_rank, .local_size = r->cl.local_size, .rank = r->cl.rank,
        .sub_bits = r->sub_bits, .peer = &r->pio,
        .job_pids = r->cl.host_pids, .njob_pids = r->cl.nhost_pids,
    };
    r->pio = (gc_peer_io){ .ctx = r, .sendrecv = pio_sendrecv, .send = pio_send,
                           .recv = pio_recv };
    gc_gpu_init(&r->gpu);
    int rc = r->ops->open(&a, &r->be, &r->gpu.info, e);
    gc_host_info(&r->gpu.info);
    snprintf(r->gpu.info.node, sizeof r->gpu.info.node, "%s", r->cl.node_name);
    r->gpu.info.local_index = r->cl.local_rank;
    r->gpu.info.rank = r->cl.rank;
    return rc;
}

/* Rank 0 lost a rank: its shard on disk (a shared file system, or rank
 * 0's own node) holds what it finished; else nothing, with the reason. */
static void lost_blob(runner *r, int rank, gc_blob *b, uint8_t **owned)
{
    void *o = NULL;
    gc_tree_read_shard(r->out, &r->meta, &r->cl.roster[rank], b, &o);
    *owned = o;
    if (!b->data)
        snprintf(b->missing_reason, sizeof b->missing_reason,
                 "rank %d lost (no word for %.0f s: hung or dead), no shard on rank 0's disk",
                 rank, gc_watch_silent_s(r->watch, rank));
}

/* Rank 0 analyses each record as it arrives (collect.h) and frees it. */
typedef struct gather_sink {
    gc_collect *c;
    int failed;
    gc_err err;
} gather_sink;

static void on_record(void *ctx, int rank, uint8_t *data, size_t len)
{
    gather_sink *g = ctx;
    gc_blob b = { .data = data, .len = len };
    if (g->c && !g->failed && gc_collect_add(g->c, (size_t)rank, &b, &g->err))
        g->failed = 1;
    free(data);
}

/* A resume that did not make the run whole says what is still missing. */
static void resume_not_whole(const runner *r, const gc_catalogue_stats *st)
{
    fprintf(stderr, "gpucensus: the resumed run is still not whole: %d GPU%s with failed items, %d "
                    "failed, %d incomplete:", st->partial, st->partial == 1 ? "" : "s", st->failed,
            st->incomplete);
    int shown = 0;
    for (int i = 0; i < st->gpus && shown < 8; i++) {
        const gc_brief *b = &st->briefs[i];
        if (b->status == GC_GPU_OK)
            continue;
        fprintf(stderr, "%s %s/gpu%d (%s, %zu items failed)", shown++ ? "," : "", b->node, b->index,
                gc_gpu_status_name(b->status), b->failed_items);
    }
    fprintf(stderr, "%s; each failed item's error is in %s/catalogue.json (gpus[].results[].error: "
                    "e.g. the plan's budget spent); another `--resume %s` measures them again\n",
            shown < st->partial + st->failed + st->incomplete ? ", ..." : "", r->out, r->out);
}

/* Returns the exit code; *lost_ranks: how many ranks rank 0 gave up on. */
static int finish(runner *r, gc_wbuf *mine, double t0, int *lost_ranks)
{
    int *lost = NULL;
    gc_err e = { 0 };
    gc_crash_stage("node files");
    /* From the last item to the record's length, this rank works alone
     * (shard, node file, analysis): it says so between steps, else rank
     * 0 judged a live rank lost after lost_after seconds of it. */
    gc_watch_busy(r->watch);
    gc_record_note note;
    gc_tree_node_file(r->out, &r->meta, &r->cl, r->watch, &r->node_prior, &r->abandoned, &note);
    gc_watch_busy(r->watch);
    /* What travels is the record (summaries); the shard only if the
     * record cannot be made. */
    gc_wbuf rec = { 0 };
    if (gc_analyze_local(&r->meta, &r->gpu, &note, &rec, &e)) {
        gc_run_rank_error(r, &e);
        gc_wbuf_free(&rec);
        rec = *mine;
        *mine = (gc_wbuf){ 0 };
    }
    gc_crash_stage("gather and catalogue");
    gather_sink sink = { 0 };
    if (r->cl.rank == 0 &&
        !(sink.c = gc_collect_new(r->out, &r->meta, r->cl.roster, (size_t)r->cl.size, &sink.err)))
        sink.failed = 1;
    int nlost = gc_watch_gather(r->watch, rec.data, rec.len, on_record, &sink, &lost, &e);
    gc_wbuf_free(&rec);
    if (gc_watch_abandoned(r->watch))   /* told while it ended (lost, released): leave as such */
        r->abandoned = 1;
    *lost_ranks = nlost > 0 ? nlost : 0;
    if (r->cl.rank != 0 || nlost < 0) {
        if (nlost < 0)
            gc_run_rank_error(r, &e);
        gc_collect_free(sink.c);
        free(lost);
        return nlost < 0 || r->abandoned ? 1 : 0;
    }
    for (int i = 0; i < r->cl.size; i++) {
        if (!lost[i])
            continue;
        gc_blob b;
        uint8_t *owned = NULL;
        lost_blob(r, i, &b, &owned);
        fprintf(stderr, "gpucensus: rank %d (node %s, gpu %d) lost: %s\n", i,
                r->cl.roster[i].node, r->cl.roster[i].local_index,
                b.data ? "its GPU is marked failed with what its shard holds"
                       : "its GPU is marked failed, no results");
        if (sink.c && !sink.failed && gc_collect_add(sink.c, (size_t)i, &b, &sink.err))
            sink.failed = 1;
        free(owned);
    }
    gc_iso_time(r->meta.end_time, sizeof r->meta.end_time, 0);
    gc_catalogue_stats st = { 0 };
    int rc = sink.failed ? gc_fail(&e, sink.err.code ? sink.err.code : GC_ENOMEM, "%s", sink.err.msg)
                         : gc_tree_catalogue(r->out, &r->meta, r->cl.roster, sink.c, &st, &e);
    gc_collect_free(sink.c);
    if (rc)
        fprintf(stderr, "gpucensus: catalogue not written: %s (`gpucensus merge %s/shards` can "
                        "rebuild it from the shards that were saved; a rank that said \"shard not "
                        "saved\" left none)\n", e.msg, r->out);
    else if (!r->opts->quiet)
        gc_report_summary(stdout, &r->meta, &st, r->out, gc_now_s() - t0);
    if (!rc && r->opts->history && gc_history_add_path(r->opts->history, r->out, GC_HISTORY_TIMEOUT_S, &e)) {
        fprintf(stderr, "gpucensus: history: %s (the catalogue is in %s: `gpucensus history add %s %s` "
                        "adds it later)\n", e.msg, r->out, r->opts->history, r->out);
        rc = 1;
    }
    if (nlost > 0)
        fprintf(stderr, "gpucensus: %d rank%s lost: the catalogue in %s is partial; `gpucensus "
                        "merge %s/shards` later gives the whole picture from the shards\n",
                nlost, nlost > 1 ? "s" : "", r->out, r->out);
    else if (r->abandoned)
        fprintf(stderr, "gpucensus: %s: the catalogue in %s is partial; `gpucensus run PLAN "
                        "--resume %s` measures what it lacks\n",
                gc_watch_reason(r->watch), r->out, r->out);
    else if (!rc && r->opts->resume && (st.partial || st.failed || st.incomplete))
        resume_not_whole(r, &st);
    free(lost);
    free(st.briefs);
    return rc || nlost > 0 || r->abandoned ? 1 : 0;
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
    if (!rc && r.ops == &gc_backend_sim)
        rc = gc_sim_plan_check(&r.plan, &e);
    if (!rc && o->only)
        rc = gc_plan_only_check(&r.plan, o->only, &e);
    int ok = rc == 0, all_ok, root_ok = ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Bcast(&root_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!all_ok) {
        /* Rank 0 speaks for a plan every rank finds wrong; the others
         * only for what rank 0 did not see. */
        if (rc && world_rank == 0)
            fprintf(stderr, "gpucensus: %s\n", e.msg);
        else if (rc && root_ok)
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
        gc_cluster_free(&r.cl);   /* what it made before it refused */
        gc_plan_free(&r.plan);
        return rc == GC_EINVAL ? 2 : 1;   /* a refused node name (every rank agrees): bad arguments */
    }
    char stamp[32] = "", start[32] = "";
    if (r.cl.rank == 0) {
        gc_iso_time(stamp, sizeof stamp, 1);
        gc_iso_time(start, sizeof start, 0);
    }
    int brc = MPI_Bcast(stamp, sizeof stamp, MPI_CHAR, 0, r.cl.world);
    if (!brc)
        brc = MPI_Bcast(start, sizeof start, MPI_CHAR, 0, r.cl.world);
    if (brc)
        gc_run_rank_error(&r, (gc_mpi_fail(&e, brc, "MPI_Bcast of the start time"), &e));
    gc_run_fill_meta(&r, start);

    int exit_code = 1;
    gc_item *items = NULL;
    gc_step_task *tasks = NULL;
    size_t nitems = 0, ntasks = 0;
    rc = gc_run_make_out_dir(&r, stamp, &e);
    if (rc) {
        if (r.cl.rank == 0)
            fprintf(stderr, "gpucensus: %s\n", e.msg);
        if (r.out_refused)
            exit_code = 2;   /* every rank: rank 0 broadcast it */
        /* rank 0's verdict for every rank: a refused path (%j) is bad arguments */
        int refused = r.cl.rank == 0 && rc == GC_EINVAL;
        if (MPI_Bcast(&refused, 1, MPI_INT, 0, r.cl.world) == MPI_SUCCESS && refused)
            exit_code = 2;
        goto out;
    }
    /* From here on a rank that hangs (a GPU that never answers) is
     * judged by rank 0 instead of hanging the job. */
    rc = gc_watch_open(&r.watch, r.cl.world, o->quiet ? GC_PROGRESS_OFF : o->progress,
                       o->gather_timeout_s > 0 ? o->gather_timeout_s : GC_GATHER_TIMEOUT_S,
                       GC_WATCH_UNKNOWN, 0, &e);
    if (rc)
        gc_run_rank_error(&r, &e);
    if (!gc_cluster_all_ok(&r.cl, rc == 0))
        goto out;
    rc = open_backend(&r, &e);
    if (rc)
        gc_run_rank_error(&r, &e);
    ok = all_ok_watched(&r, rc == 0);   /* (ok: reused from the plan check) */
    if (!ok)
        goto out;
    if (r.ops == &gc_backend_sim &&
        (r.sim_end.step_s = gc_sim_end_step_s(&r.plan, r.cl.node_name, r.cl.local_rank)) > 0) {
        r.sim_end.rank = r.cl.rank;
        gc_watch_on_busy(r.watch, gc_sim_end_step, &r.sim_end);
    }
    gc_geom geom = { r.cl.rank, r.cl.size, r.cl.local_rank, r.cl.local_size,
                     r.cl.node_index, r.cl.nodes, r.cl.roster, NULL };
    /* Abandoned already: still learn the plan, so the GPU is reported
     * with its items (none done), and rank 0 writes the roster. */
    rc = gc_plan_expand(&r.plan, &items, &nitems, &e);
    if (!rc)
        rc = gc_schedule(items, nitems, &geom, r.plan.pair_budget_s, &tasks, &ntasks, &e);
    if (!rc && o->only)
        gc_schedule_only(tasks, &ntasks, o->only);
    if (!rc && r.cl.rank == 0 && (rc = gc_run_write_roster(&r, &e)) == GC_EINVAL)
        exit_code = 2;   /* --resume of another plan or other GPUs: nothing measured */
    if (rc)
        gc_run_rank_error(&r, &e);
    if (o->resume && ok > 0 && !gc_cluster_all_ok(&r.cl, exit_code != 2)) {
        exit_code = 2;   /* every rank: the job's exit code does not depend on who ends first */
        goto out;
    }
    if (ok > 0)
        ok = all_ok_watched(&r, rc == 0);
    if (!ok || rc)
        goto out;
    if (ok > 0 && o->resume && (exit_code = gc_run_resume_setup(&r, tasks, ntasks, nitems)) != 0)
        goto out;
    exit_code = 1;
    r.gpu.items_total = (uint32_t)ntasks;
    r.ops->conditions(r.be, &r.gpu.start);
    write_shard(&r, NULL);
    gc_watch_plan(r.watch, (uint32_t)ntasks, r.gpu.items_done, budget_of(tasks, ntasks, 0));
    /* rank 0's ETA: the plan's budgets along its node's phases (eta.h);
     * without it, the item counts */
    if (r.cl.rank == 0 && (r.eta = calloc(ntasks + 1, sizeof *r.eta)) != NULL) {
        gc_err ee = { 0 };
        if (gc_eta_timeline(items, nitems, &geom, r.plan.pair_budget_s, tasks, ntasks, r.eta, &ee)) {
            free(r.eta);
            r.eta = NULL;
        }
        size_t first = 0;
        while (r.skip && first < ntasks && r.skip[first])
            first++;
        eta_tell(&r, first);
    }

    if (ok > 0)
        run_phases(&r, tasks, ntasks, &geom);
    if (ok > 0 && !r.abandoned)
        confirm_phase(&r, items, nitems, tasks, ntasks);   /* measure again before blaming */

    r.ops->conditions(r.be, &r.gpu.end);
    /* Also a plan with no items for this rank; not a run abandoned. */
    r.gpu.complete = r.gpu.items_done == r.gpu.items_total;
    gc_wbuf mine = { 0 };
    gc_watch_busy(r.watch);
    write_shard(&r, &mine);
    int lost = 0;
    exit_code = finish(&r, &mine, t0, &lost);
    gc_wbuf_free(&mine);
    if (lost || r.abandoned || gc_watch_released(r.watch)) {
        /* The lost ranks never reach MPI_Finalize: end the job here.
         * Rank 0 aborts it once the catalogue is written; the others
         * wait for its word, then leave without finalizing (one that rank
         * 0 judged lost while it was slow has its word already). */
        fflush(stdout);
        fflush(stderr);
        if (r.cl.rank == 0 && r.out_locked)
            gc_out_unlock(r.out);   /* the catalogue is written: the run has ended */
        if (r.cl.rank == 0)
            gc_watch_abort(r.watch, exit_code ? exit_code : 1);
        /* Rank 0 writes the catalogue first (a minute at 16,384 GPUs):
         * leaving earlier with a non-zero code had mpirun kill the job,
         * rank 0 too, before it was written (seen under load with the
         * gather timeout as this wait). Bounded only for a rank 0 that
         * died (Open MPI's recovery mode keeps the others running). */
        gc_watch_await_release(r.watch, fmax(o->gather_timeout_s > 0 ? o->gather_timeout_s
                                                                     : GC_GATHER_TIMEOUT_S,
                                             GC_WATCH_RELEASE_WAIT_S));
        _exit(exit_code ? exit_code : 1);
    }
out:
    if (r.cl.rank == 0 && r.out_locked)
        gc_out_unlock(r.out);
    gc_watch_close(r.watch);
    if (r.be)
        r.ops->close(r.be);
    gc_gpu_free(&r.gpu);
    gc_resume_free(&r.rs);   /* after the GPU: carried points borrow its bytes */
    free(r.skip);
    free(r.eta);
    free(tasks);
    free(items);
    gc_plan_free(&r.plan);
    gc_cluster_free(&r.cl);
    return exit_code;
}
