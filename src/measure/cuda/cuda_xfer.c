/* Transfer drivers of the cuda backend: host<->device (xfer) and GPU
 * buffer to GPU buffer between nodes through MPI with host-staged pinned
 * buffers (net); GPU<->GPU of one node is cuda_p2p.c. The sampling harness
 * here (cuda_xfer.h) serves xfer and p2p.
 *
 * Every size of every item samples until its histogram holds `samples`
 * values or the item's deadline passes. Warm-up chunks of one sample are
 * timed and dropped until the path has moved data for WARM_NS (an idle
 * PCIe link runs at a lower generation until traffic retrains it: a
 * single 1 ms warm-up copy could leave the first timed copies on the slow
 * link); they also size the next chunks so that a chunk takes at most half
 * of the time left. A sample is the time of one copy, averaged over a
 * batch of back-to-back copies for small sizes (context `batch`); bytes
 * are counted once per copy (bidir: both directions' bytes).
 *
 * Guards: a chunk whose spin kernel gave up holding the stream (the host
 * took > 2 s to queue it, so its copies ran while being queued) is dropped
 * and measured again, once; a sample faster than the path's nominal
 * bandwidth x 1.02 cannot be a real transfer: its points are flagged
 * over_nominal (the link fit leaves such sizes out), the count of such
 * samples goes to the context. */
#include "measure/cuda/cuda_xfer.h"

#include <math.h>
#include <string.h>

#include "census/links_nominal.h"
#include "measure/cuda/cuda_numa.h"
#include "util/timeutil.h"

#define MAX_QUEUED_OPS 480   /* stay well below the driver's launch queue */
#define WARM_NS 1e6          /* warm-up traffic before the first timed chunk */
#define WARM_MAX_CHUNKS 16
#define XFER_MIN_SAMPLES 3   /* timed samples a point takes past its budget, up to twice it (a 1 GiB pair both ways with its tail: ~55 ms each) */

typedef struct hx_job {
    gc_xfer_job base;
    gck_xfer_dir dir;
    int pageable, sm;
    double dir_ns[2 * GCK_XFER_MAX_CHUNK];   /* both ways: h2d, d2h of each sample */
    double out[GCK_XFER_MAX_CHUNK], in[GCK_XFER_MAX_CHUNK];
} hx_job;

static int hx_chunk(gc_cuda *c, gc_xfer_job *jb, uint32_t n, uint32_t batch, double *ns,
                    char *msg, size_t len)
{
    hx_job *j = (hx_job *)jb;
    if (gck_xfer_run(&c->xfer, j->dir, j->pageable, j->sm, jb->bytes, n, batch, ns,
                     jb->ns_out ? j->dir_ns : NULL, &jb->spin_timeouts, msg, len))
        return 1;
    for (uint32_t i = 0; jb->ns_out && i < n; i++) {
        j->out[i] = j->dir_ns[2 * i];
        j->in[i] = j->dir_ns[2 * i + 1];
    }
    return 0;
}

static uint32_t batch_for(size_t bytes)
{
    /* about 256 KiB per sample for small copies, at most 16 copies */
    size_t b = (256u << 10) / (bytes ? bytes : 1);
    return b < 1 ? 1 : b > 16 ? 16 : (uint32_t)b;
}

static int chunk_once(gc_cuda *c, gc_xfer_job *j, uint32_t n, uint32_t batch, double *ns,
                      gc_err *err)
{
    char msg[256] = "";
    for (int attempt = 0;; attempt++) {
        int before = j->spin_timeouts;
        if (j->chunk(c, j, n, batch, ns, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        if (j->spin_timeouts == before || attempt == 1)
            return 0;
        j->dropped_chunks++;   /* copies ran while being queued: again, once */
    }
}

int gc_xfer_sample(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_xfer_job *j, gc_err *err)
{
    uint32_t total = gc_cuda_samples(t, 20);
    uint32_t batch = batch_for(j->bytes);
    uint32_t max_chunk = MAX_QUEUED_OPS / (batch * (j->copies_per_batch ? j->copies_per_batch : 1) + 4);
    if (max_chunk > GCK_XFER_MAX_CHUNK)
        max_chunk = GCK_XFER_MAX_CHUNK;
    if (max_chunk < 1)
        max_chunk = 1;
    double *ns = gc_cuda_host(c, GCK_XFER_MAX_CHUNK, err);
    if (!ns)
        return GC_ENOMEM;
    /* warm-up: first touch of the path, a busy link, the time of one sample */
    double warm = 0, est_s = 0;
    int rc;
    for (int k = 0; k < WARM_MAX_CHUNKS && warm < WARM_NS; k++) {
        if ((rc = chunk_once(c, j, 1, batch, ns, err)))
            return rc;
        warm += ns[0] * batch;
        est_s = ns[0] * 1e-9 * batch * (j->copies_per_batch ? j->copies_per_batch : 1);   /* with its tail */
        if (k > 0 && gc_cuda_over(c))
            break;
    }
    size_t ip = g->npoints;
    int npts = j->ns_out ? 4 : 2;
    if (!gc_cuda_point(c, t, g, "time", err) ||
        !gc_cuda_point(c, t, g, "bandwidth", err) ||
        (j->ns_out && (!gc_cuda_point(c, t, g, j->out_metric, err) ||
                       !gc_cuda_point(c, t, g, j->in_metric, err))))
        return GC_ENOMEM;
    uint32_t done = 0, over = 0;
    double one = j->ns_out ? j->moved / 2 : j->moved;
    while (done < total) {
        uint32_t n = total - done;
        if (n > max_chunk)
            n = max_chunk;
        if (c->stop_s > 0 && est_s > 0) {
            double left = c->stop_s - gc_now_s();
            double fit = floor(0.5 * left / est_s);
            if (fit < n)
                n = fit < 1 ? 1 : (uint32_t)fit;
        }
        if ((rc = chunk_once(c, j, n, batch, ns, err)))
            return rc;
        for (uint32_t i = 0; i < n; i++) {
            gc_cuda_record(&g->points[ip], ns[i]);
            if (!(ns[i] > 0))
                continue;
            double bps = j->moved / (ns[i] * 1e-9);
            gc_cuda_record(&g->points[ip + 1], bps);
            int fast = j->nominal_bps > 0 && bps > GC_OVER_NOMINAL * j->nominal_bps;
            if (j->ns_out && j->ns_out[i] > 0 && j->ns_in[i] > 0) {
                double o = one / (j->ns_out[i] * 1e-9), in = one / (j->ns_in[i] * 1e-9);
                gc_cuda_record(&g->points[ip + 2], o);
                gc_cuda_record(&g->points[ip + 3], in);
                /* each direction against one direction's nominal */
                fast |= j->nominal_bps > 0 && fmax(o, in) > GC_OVER_NOMINAL * j->nominal_bps / 2;
            }
            over += fast;
        }
        done += n;
        if (done < total && gc_cuda_over_min(c, done, XFER_MIN_SAMPLES))
            break;
    }
    for (int k = 0; k < npts; k++) {
        gc_point *p = &g->points[ip + k];
        gc_ctx *x = &p->ctx;
        gc_ctx_set_num(x, "batch", batch);
        gc_ctx_set_str(x, "timing", j->timing);
        if (j->spin_timeouts)
            gc_ctx_set_num(x, "spin_timeouts", j->spin_timeouts);
        if (j->dropped_chunks)
            gc_ctx_set_num(x, "dropped_chunks", j->dropped_chunks);
        if (j->nominal_bps > 0)
            gc_ctx_set_num(x, "nominal_bps", j->nominal_bps);
        if (over) {
            p->flags |= GC_FLAG_OVER_NOMINAL;
            gc_ctx_set_num(x, "over_nominal_samples", over);
        }
    }
    return 0;
}

static void link_ctx(gc_cuda *c, gc_gpu *g, size_t from)
{
    for (size_t k = from; k < g->npoints; k++) {
        gc_ctx *x = &g->points[k].ctx;
        if (c->pcie_gen > 0) {
            gc_ctx_set_num(x, "pcie_gen", c->pcie_gen);
            gc_ctx_set_num(x, "pcie_width", c->pcie_width);
        }
    }
}

/* numa = "each": the chase once per online NUMA node of the host, over
 * memory bound to that node (cuda_numa.c) and then pinned and mapped; each
 * point says numa_node, numa_nodes, numa_landed (the node the pages
 * are on, -1 unknown) and host_huge_fraction (of the buffer in huge
 * pages). Without /sys NUMA information: node 0 of 1. */
static int host_chase_numa(gc_cuda *c, const gc_task *t, gc_gpu *g, size_t fp, gc_err *err)
{
    int nodes[GC_NUMA_MAX], nn = gc_numa_nodes(nodes, GC_NUMA_MAX), done = 0;
    if (nn == 0)
        nodes[nn++] = 0;
    char msg[256] = "";
    for (int k = 0; k < nn; k++) {
        double t0 = gc_now_s();
        int landed = -1;
        void *host = gc_numa_alloc(fp, nodes[k], &landed, msg, sizeof msg), *dev = NULL;
        size_t huge_b = host ? gc_numa_huge_bytes(host) : 0;   /* of whole pages, >= fp */
        double huge = (double)(huge_b < fp ? huge_b : fp) / (double)fp;
        if (host && gck_host_register(host, fp, &dev, msg, sizeof msg)) {
            gc_numa_free(host, fp);
            host = NULL;
        }
        gc_cuda_unmeasured(c, t0);   /* binding and pinning */
        if (!host)
            continue;   /* a node this process may not bind to (cpuset): the others still count */
        size_t from = g->npoints;
        int rc = gc_cuda_chase_far(c, t, g, dev, host, fp, 1, "xfer chase", err);
        gck_host_unregister(host);
        gc_numa_free(host, fp);
        if (rc)
            return rc;
        link_ctx(c, g, from);
        for (size_t i = from; i < g->npoints; i++) {
            gc_ctx_set_num(&g->points[i].ctx, "numa_node", nodes[k]);
            gc_ctx_set_num(&g->points[i].ctx, "numa_nodes", nn);
            gc_ctx_set_num(&g->points[i].ctx, "numa_landed", landed);
            gc_ctx_set_num(&g->points[i].ctx, "host_huge_fraction", huge);
        }
        done++;
    }
    return done ? 0 : gc_fail(err, GC_EDEVICE, "xfer chase: no NUMA node could be bound (last: %s)", msg);
}

/* mode chase: one thread chases a cycle over mapped pinned host memory,
 * the latency of one load from the GPU to the host's memory (its DRAM: the
 * chain's lines are flushed from the CPU caches first, gc_cuda_chase_far). */
static int host_chase(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    size_t fp = (size_t)gc_cuda_num(t, "size_bytes");
    char msg[256] = "";
    if (strcmp(gc_cuda_str(t, "memory"), "pinned"))
        return gc_fail(err, GC_EINVAL, "xfer: mode chase reads mapped pinned memory (memory = \"pinned\")");
    if (!strcmp(gc_cuda_str(t, "numa"), "each"))
        return host_chase_numa(c, t, g, fp, err);
    double t0 = gc_now_s();
    if (gck_xfer_reserve(&c->xfer, fp, 0, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "xfer chase: %s", msg);
    gc_cuda_unmeasured(c, t0);
    size_t from = g->npoints;
    int rc = gc_cuda_chase_far(c, t, g, c->xfer.h_pin_dev, c->xfer.h_pin, fp, 1, "xfer chase", err);
    if (!rc)
        link_ctx(c, g, from);
    return rc;
}

int gc_cuda_xfer(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    if (!strcmp(gc_cuda_str(t, "mode"), "chase"))
        return host_chase(c, t, g, err);
    const char *d = gc_cuda_str(t, "direction");
    hx_job j;
    memset(&j, 0, sizeof j);
    j.dir = !strcmp(d, "d2h") ? GCK_XFER_D2H : !strcmp(d, "bidir") ? GCK_XFER_BOTH : GCK_XFER_H2D;
    j.pageable = !strcmp(gc_cuda_str(t, "memory"), "pageable");
    j.sm = !strcmp(gc_cuda_str(t, "engine"), "sm");
    if (j.dir == GCK_XFER_BOTH && !(j.pageable && !j.sm)) {
        /* each direction's own rate from the common start, while the other
         * direction copies: as nvbandwidth's *_bidirectional_memcpy_* tests
         * time it (PEERS.md). SM: one kernel, both end together; copy
         * engines: each direction copies on past its timed batch (the tail,
         * kernels/xfer.cu) so that the later one ends under load too. */
        j.base.ns_out = j.out;
        j.base.ns_in = j.in;
        j.base.out_metric = "bandwidth_h2d";
        j.base.in_metric = "bandwidth_d2h";
        j.base.copies_per_batch = j.sm ? 1 : 2;
    }
    j.base.bytes = (size_t)gc_cuda_num(t, "size_bytes");
    j.base.chunk = hx_chunk;
    int ways = j.dir == GCK_XFER_BOTH ? 2 : 1;
    j.base.moved = (double)j.base.bytes * ways;
    j.base.timing = j.pageable && !j.sm ? "host_clock" : "events";
    j.base.nominal_bps = gc_pcie_nominal_bps(c->pcie_gen, c->pcie_width) * ways;
    if (j.base.bytes == 0)
        return gc_fail(err, GC_EINVAL, "xfer: size_bytes must be > 0");
    /* Growing the buffers (pinning, touching) is not measuring: it does
     * not count against the item's time. */
    char msg[256] = "";
    double t0 = gc_now_s();
    if (gck_xfer_reserve(&c->xfer, j.base.bytes, j.pageable, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "xfer: %s", msg);
    gc_cuda_unmeasured(c, t0);
    size_t from = g->npoints;
    int rc = gc_xfer_sample(c, t, g, &j.base, err);
    if (!rc)
        link_ctx(c, g, from);
    for (size_t k = from; !rc && t->item->phase == GC_PHASE_CONCURRENT && k < g->npoints; k++)
        gc_ctx_set_str(&g->points[k].ctx, "phase", "concurrent");
    for (size_t k = from; !rc && j.base.copies_per_batch == 2 && k < g->npoints; k++)
        gc_ctx_set_str(&g->points[k].ctx, "both_ways", "each_loaded");
    return rc;
}

/* ---- net ---------------------------------------------------------------- */

/* Ping-pong between the initiator and the responder: the initiator stages
 * its device buffer to pinned host memory, sends it; the responder
 * receives, copies it to its device, stages it back and returns it; the
 * initiator receives and copies to its device. A sample is half of the
 * round trip: one GPU-to-GPU transfer including both staging copies. */
int gc_cuda_net(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    if (t->peer_rank < 0)
        return gc_fail(err, GC_EINVAL, "net: item %u has no peer rank", t->item->id);
    if (!c->peer || !c->peer->send || !c->peer->recv)
        return gc_fail(err, GC_EUNSUPPORTED, "net: no channel to the peer rank");
    size_t bytes = (size_t)gc_cuda_num(t, "size_bytes");
    uint32_t total = gc_cuda_samples(t, 20);
    char msg[256] = "";
    void *host = NULL;
    int rc = 0;
    /* both sides agree on the number of rounds: the initiator decides and
     * tells the responder before each round (1: go, 0: stop) */
    size_t ip = g->npoints;
    if (t->initiator && (!gc_cuda_point(c, t, g, "time", err) ||
                         !gc_cuda_point(c, t, g, "bandwidth", err)))
        return GC_ENOMEM;
    for (uint32_t i = 0;; i++) {   /* round 0 is a warm-up */
        int32_t go = 1;
        if (t->initiator) {
            go = i <= total && !(i > 1 && gc_cuda_over(c));
            if (c->peer->send(c->peer->ctx, t->peer_rank, &go, sizeof go))
                return gc_fail(err, GC_EIO, "net: send to rank %d failed", t->peer_rank);
            if (!go)
                break;
            double t0 = gc_now_s();
            if (gck_stage(&c->xfer, 1, bytes, &host, msg, sizeof msg))
                return gc_fail(err, GC_EDEVICE, "net: %s", msg);
            if (c->peer->send(c->peer->ctx, t->peer_rank, host, bytes) ||
                c->peer->recv(c->peer->ctx, t->peer_rank, host, bytes))
                return gc_fail(err, GC_EIO, "net: ping-pong with rank %d failed", t->peer_rank);
            if (gck_stage(&c->xfer, 0, bytes, &host, msg, sizeof msg))
                return gc_fail(err, GC_EDEVICE, "net: %s", msg);
            double one = (gc_now_s() - t0) / 2;
            if (i > 0 && one > 0) {
                gc_cuda_record(&g->points[ip], one * 1e9);
                gc_cuda_record(&g->points[ip + 1], (double)bytes / one);
            }
        } else {
            if (c->peer->recv(c->peer->ctx, t->peer_rank, &go, sizeof go))
                return gc_fail(err, GC_EIO, "net: receive from rank %d failed", t->peer_rank);
            if (!go)
                break;
            if (gck_xfer_reserve(&c->xfer, bytes, 0, msg, sizeof msg))
                return gc_fail(err, GC_EDEVICE, "net: %s", msg);
            host = c->xfer.h_pin;
            if (c->peer->recv(c->peer->ctx, t->peer_rank, host, bytes) ||
                gck_stage(&c->xfer, 0, bytes, &host, msg, sizeof msg) ||
                gck_stage(&c->xfer, 1, bytes, &host, msg, sizeof msg) ||
                c->peer->send(c->peer->ctx, t->peer_rank, host, bytes))
                return gc_fail(err, GC_EIO, "net: ping-pong with rank %d failed", t->peer_rank);
        }
    }
    if (t->initiator)
        for (size_t k = ip; k < g->npoints; k++) {
            gc_ctx *x = &g->points[k].ctx;
            gc_ctx_set_num(x, "peer_rank", t->peer_rank);
            if (t->peer_node)
                gc_ctx_set_str(x, "peer_node", t->peer_node);
            gc_ctx_set_str(x, "path", "mpi_host_staged");
        }
    return rc;
}
