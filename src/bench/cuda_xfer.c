/* Transfer drivers of the cuda backend: host<->device (xfer), GPU<->GPU of
 * one node through CUDA IPC (p2p) and GPU buffer to GPU buffer between
 * nodes through MPI with host-staged pinned buffers (net).
 *
 * Every size of every item samples until its histogram holds `samples`
 * values or the item's deadline passes. One warm-up chunk of one sample is
 * timed and dropped; it also sizes the next chunks so that a chunk takes at
 * most half of the time left. A sample is the time of one copy, averaged
 * over a batch of back-to-back copies for small sizes (context `batch`);
 * bytes are counted once per copy (bidir: both directions' bytes). */
#include "cuda.h"

#include <math.h>
#include <string.h>

#include "../timeutil.h"

#define MAX_QUEUED_OPS 480   /* stay well below the driver's launch queue */

typedef struct xfer_job {
    int kind;                /* 0 xfer, 1 p2p */
    int dir, pageable, sm;   /* xfer */
    int peer_dev, bidir, peer_access;   /* p2p */
    size_t bytes;
    int spin_timeouts;
} xfer_job;

static int run_chunk(gc_cuda *c, xfer_job *j, uint32_t n, uint32_t batch, double *ns, char *msg,
                     size_t len)
{
    if (j->kind == 0)
        return gck_xfer_run(&c->xfer, j->dir, j->pageable, j->sm, j->bytes, n, batch, ns,
                            &j->spin_timeouts, msg, len);
    return gck_p2p_run(&c->xfer, j->peer_dev, j->bidir, j->peer_access, j->bytes, n, batch, ns,
                       &j->spin_timeouts, msg, len);
}

static uint32_t batch_for(size_t bytes)
{
    /* about 256 KiB per sample for small copies, at most 16 copies */
    size_t b = (256u << 10) / (bytes ? bytes : 1);
    return b < 1 ? 1 : b > 16 ? 16 : (uint32_t)b;
}

/* Adds the time and bandwidth points of a job and fills them. */
static int sample(gc_cuda *c, const gc_task *t, gc_gpu *g, xfer_job *j, double moved,
                  const char *timing, gc_err *err)
{
    uint32_t total = gc_cuda_samples(t, 20);
    uint32_t batch = batch_for(j->bytes);
    int streams = (j->kind == 0 && j->dir == 2) || (j->kind == 1 && j->bidir) ? 2 : 1;
    uint32_t max_chunk = MAX_QUEUED_OPS / (batch * streams + 4);
    if (max_chunk > GCK_XFER_MAX_CHUNK)
        max_chunk = GCK_XFER_MAX_CHUNK;
    if (max_chunk < 1)
        max_chunk = 1;
    double *ns = gc_cuda_host(c, GCK_XFER_MAX_CHUNK, err);
    if (!ns)
        return GC_ENOMEM;
    char msg[256] = "";
    /* warm-up: first touch of the path, and the time of one sample */
    if (run_chunk(c, j, 1, batch, ns, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "%s", msg);
    double est_s = ns[0] * 1e-9 * batch;
    size_t ip = g->npoints;
    if (!gc_cuda_point(c, t, g, "time", "ns", 1000, err) ||
        !gc_cuda_point(c, t, g, "bandwidth", "bytes_per_s", 1, err))
        return GC_ENOMEM;
    uint32_t done = 0;
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
        if (run_chunk(c, j, n, batch, ns, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        for (uint32_t i = 0; i < n; i++) {
            gc_cuda_record(&g->points[ip], ns[i]);
            if (ns[i] > 0)
                gc_cuda_record(&g->points[ip + 1], moved / (ns[i] * 1e-9));
        }
        done += n;
        if (done < total && gc_cuda_over(c))
            break;
    }
    for (size_t k = ip; k < ip + 2; k++) {
        gc_ctx *x = &g->points[k].ctx;
        gc_ctx_set_num(x, "batch", batch);
        gc_ctx_set_str(x, "timing", timing);
        if (j->spin_timeouts)
            gc_ctx_set_num(x, "spin_timeouts", j->spin_timeouts);
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

int gc_cuda_xfer(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    const char *d = gc_cuda_str(t, "direction");
    xfer_job j = { 0 };
    j.dir = !strcmp(d, "d2h") ? 1 : !strcmp(d, "bidir") ? 2 : 0;
    j.pageable = !strcmp(gc_cuda_str(t, "memory"), "pageable");
    j.sm = !strcmp(gc_cuda_str(t, "engine"), "sm");
    j.bytes = (size_t)gc_cuda_num(t, "size_bytes");
    if (j.bytes == 0)
        return gc_fail(err, GC_EINVAL, "xfer: size_bytes must be > 0");
    /* Growing the buffers (pinning, touching) is not measuring: it does
     * not count against the item's time. */
    char msg[256] = "";
    double t0 = gc_now_s();
    if (gck_xfer_reserve(&c->xfer, j.bytes, j.pageable, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "xfer: %s", msg);
    if (c->stop_s > 0)
        c->stop_s += gc_now_s() - t0;
    size_t from = g->npoints;
    int rc = sample(c, t, g, &j, (double)j.bytes * (j.dir == 2 ? 2 : 1),
                    j.pageable && !j.sm ? "host_clock" : "events", err);
    if (!rc)
        link_ctx(c, g, from);
    for (size_t k = from; !rc && t->item->phase == GC_PHASE_CONCURRENT && k < g->npoints; k++)
        gc_ctx_set_str(&g->points[k].ctx, "phase", "concurrent");
    return rc;
}

/* ---- p2p ---------------------------------------------------------------- */

typedef struct ipc_msg {
    unsigned char handle[GCK_IPC_HANDLE_BYTES];
    uint64_t bytes;
    int32_t status;          /* 0 ok; non-zero: this side failed */
    int32_t pad;
} ipc_msg;

int gc_cuda_p2p(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    if (t->peer_local_index < 0 || t->peer_rank < 0)
        return gc_fail(err, GC_EINVAL, "p2p: item %u has no peer GPU", t->item->id);
    if (!c->peer || !c->peer->sendrecv)
        return gc_fail(err, GC_EUNSUPPORTED, "p2p: no channel to the peer rank");
    xfer_job j = { 0 };
    j.kind = 1;
    j.bytes = (size_t)gc_cuda_num(t, "size_bytes");
    j.bidir = !strcmp(gc_cuda_str(t, "direction"), "bidir");
    j.peer_access = strcmp(gc_cuda_str(t, "peer_access"), "off") != 0;
    j.peer_dev = t->peer_local_index;
    if (j.bytes == 0)
        return gc_fail(err, GC_EINVAL, "p2p: size_bytes must be > 0");
    /* Both ranks export a buffer and swap handles; the initiator opens the
     * responder's, copies, then both swap a "done" so the responder keeps
     * its buffer until the copies are over. */
    char msg[256] = "";
    ipc_msg mine = { 0 }, theirs = { 0 };
    double t0 = gc_now_s();
    if (gck_p2p_local(&c->xfer, j.bytes, mine.handle, msg, sizeof msg))
        mine.status = 1;
    mine.bytes = c->xfer.p2p_bytes;
    if (c->peer->sendrecv(c->peer->ctx, t->peer_rank, &mine, &theirs, sizeof mine))
        return gc_fail(err, GC_EIO, "p2p: exchanging IPC handles with rank %d failed", t->peer_rank);
    int rc = 0;
    if (mine.status)
        rc = gc_fail(err, GC_EDEVICE, "p2p: %s", msg);
    else if (theirs.status)
        rc = gc_fail(err, GC_EDEVICE, "p2p: the peer rank %d could not export its buffer",
                     t->peer_rank);
    size_t from = g->npoints;
    if (!rc && t->initiator) {
        int can = 0;
        gck_p2p_can_access(c->index, j.peer_dev, &can);
        if (j.peer_access && !can)
            rc = gc_fail(err, GC_EUNSUPPORTED, "p2p: GPU %d cannot access GPU %d as a peer",
                         c->index, j.peer_dev);
        else if (j.peer_access &&
                 gck_p2p_open(&c->xfer, theirs.handle, (size_t)theirs.bytes, msg, sizeof msg))
            rc = gc_fail(err, GC_EDEVICE, "p2p: opening the peer's IPC handle: %s", msg);
        if (!rc && gck_p2p_run(&c->xfer, j.peer_dev, j.bidir, j.peer_access, j.bytes, 0, 1, NULL,
                               NULL, msg, sizeof msg))
            rc = gc_fail(err, GC_EDEVICE, "p2p: %s", msg);
        if (c->stop_s > 0)   /* allocation, export and opening are not measuring */
            c->stop_s += gc_now_s() - t0;
        if (!rc)
            rc = sample(c, t, g, &j, (double)j.bytes * (j.bidir ? 2 : 1),
                        j.peer_access ? "events" : "host_clock", err);
        if (!rc) {
            for (size_t k = from; k < g->npoints; k++) {
                gc_ctx *x = &g->points[k].ctx;
                gc_ctx_set_num(x, "peer_gpu", j.peer_dev);
                gc_ctx_set_num(x, "nvlink_links", c->nvlink_links);
                gc_ctx_set_str(x, "path", j.peer_access ? "ipc_peer" : "memcpy_peer_staged");
            }
        }
    }
    int32_t ok = rc == 0, peer_ok = 0;
    if (c->peer->sendrecv(c->peer->ctx, t->peer_rank, &ok, &peer_ok, sizeof ok) && !rc)
        rc = gc_fail(err, GC_EIO, "p2p: finishing with rank %d failed", t->peer_rank);
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
    if (t->initiator && (!gc_cuda_point(c, t, g, "time", "ns", 1000, err) ||
                         !gc_cuda_point(c, t, g, "bandwidth", "bytes_per_s", 1, err)))
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
