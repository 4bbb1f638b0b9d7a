/* GPU<->GPU of one node (p2p items, pair phase) in the cuda backend: copies
 * through CUDA IPC (peer access on) or staged by the driver (off), and the
 * latency of one load across the link by a remote pointer chase.
 *
 * Both ranks export a buffer and swap IPC handles. mode = copy:
 *   oneway  the initiator's copy engine copies its buffer into the peer's;
 *   bidir   both ranks copy into the other's buffer at the same time, each
 *           with its own GPU's copy engine (two copies queued by one GPU
 *           share its engines and were seen to run one after the other:
 *           392 GB/s "both ways" on 18 NVLinks that carry 394 one way).
 *           Per chunk the initiator sends the chunk's size, both queue it
 *           behind their spin kernel, meet (sendrecv) and release together;
 *           the responder sends its event times back. A sample is the
 *           slower direction's time (bandwidth: both directions' bytes over
 *           it); bandwidth_to_peer / bandwidth_from_peer are each
 *           direction's own rate, their sum the link's both-ways rate.
 * mode = chase (peer access on): the initiator builds one random cycle of
 *   128-byte lines over size_bytes of the peer's buffer (pointers in its
 *   own mapping of it) and one thread chases it: latency per load in
 *   cycles and ns, as the chase benchmark (cuda_mem.c) reports a local one.
 * Both ranks end an item by swapping a "done", so the responder keeps its
 * buffer until the initiator is finished with it. */
#include "measure/cuda/cuda_xfer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/model_xfer.h"


typedef struct ipc_msg {
    unsigned char handle[GCK_IPC_HANDLE_BYTES];
    uint64_t bytes;
    int32_t status;          /* 0 ok; non-zero: this side failed */
    int32_t pad;
} ipc_msg;

typedef struct p2p_job {
    gc_xfer_job base;
    int peer_dev, peer_access, bidir, peer_rank;
    double out[GCK_XFER_MAX_CHUNK], in[GCK_XFER_MAX_CHUNK];
} p2p_job;

typedef struct hold_ctx {
    gc_cuda *c;
    int peer_rank;
} hold_ctx;

/* Both ranks' chunks are queued: start together. Non-zero: the peer failed. */
static int meet(void *ctx, int ok)
{
    hold_ctx *h = ctx;
    int32_t mine = ok, theirs = 0;
    if (h->c->peer->sendrecv(h->c->peer->ctx, h->peer_rank, &mine, &theirs, sizeof mine))
        return 1;
    return !theirs;
}

typedef struct chunk_msg {
    uint32_t n, batch;       /* n = 0: stop */
} chunk_msg;

static int p2p_chunk(gc_cuda *c, gc_xfer_job *jb, uint32_t n, uint32_t batch, double *ns,
                     char *msg, size_t len)
{
    p2p_job *j = (p2p_job *)jb;
    if (!j->bidir)
        return gck_p2p_run(&c->xfer, j->peer_dev, j->peer_access, jb->bytes, n, batch, ns,
                           &jb->spin_timeouts, NULL, NULL, msg, len);
    const gc_peer_io *io = c->peer;
    chunk_msg cm = { n, batch };
    if (io->send(io->ctx, j->peer_rank, &cm, sizeof cm)) {
        snprintf(msg, len, "p2p: sending a chunk to rank %d failed", j->peer_rank);
        return 1;
    }
    hold_ctx h = { c, j->peer_rank };
    int rc = gck_p2p_run(&c->xfer, j->peer_dev, j->peer_access, jb->bytes, n, batch, ns,
                         &jb->spin_timeouts, meet, &h, msg, len);
    /* the responder always answers a chunk it was sent: n times + status */
    double back[GCK_XFER_MAX_CHUNK + 1];
    if (io->recv(io->ctx, j->peer_rank, back, (n + 1) * sizeof *back)) {
        snprintf(msg, len, "p2p: receiving rank %d's times failed", j->peer_rank);
        return 1;
    }
    if (rc)
        return rc;
    if (back[n] != 0) {
        snprintf(msg, len, "p2p: the peer rank %d failed its direction", j->peer_rank);
        return 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        j->out[i] = ns[i];
        j->in[i] = back[i];
        ns[i] = fmax(ns[i], back[i]);
    }
    return 0;
}

/* The responder's side of bidir: copy its direction of every chunk the
 * initiator announces, send the times back. */
static int respond(gc_cuda *c, p2p_job *j, gc_err *err)
{
    const gc_peer_io *io = c->peer;
    double ns[GCK_XFER_MAX_CHUNK + 1];
    hold_ctx h = { c, j->peer_rank };
    int failed = 0;
    char msg[256] = "";
    for (;;) {
        chunk_msg cm;
        if (io->recv(io->ctx, j->peer_rank, &cm, sizeof cm))
            return gc_fail(err, GC_EIO, "p2p: receiving a chunk from rank %d failed", j->peer_rank);
        if (cm.n == 0)
            break;
        if (cm.n > GCK_XFER_MAX_CHUNK)   /* never sent by the initiator */
            return gc_fail(err, GC_EIO, "p2p: rank %d sent a chunk of %u", j->peer_rank, cm.n);
        if (failed)   /* this side failed before: still meet, say so */
            meet(&h, 0);
        else if (gck_p2p_run(&c->xfer, j->peer_dev, j->peer_access, j->base.bytes, cm.n,
                             cm.batch, ns, &j->base.spin_timeouts, meet, &h, msg, sizeof msg))
            failed = 1;
        ns[cm.n] = failed;
        if (io->send(io->ctx, j->peer_rank, ns, (cm.n + 1) * sizeof *ns))
            return gc_fail(err, GC_EIO, "p2p: sending times to rank %d failed", j->peer_rank);
    }
    return failed ? gc_fail(err, GC_EDEVICE, "p2p: this side's direction failed: %s", msg) : 0;
}

/* Nominal of one direction of the path this GPU sees. */
static double path_nominal(const gc_cuda *c, const gc_gpu *g, int peer_access)
{
    if (peer_access && c->nvlink_links > 0 && g->info.nvlink_bps_per_link > 0)
        return c->nvlink_links * g->info.nvlink_bps_per_link;
    return gc_pcie_nominal_bps(c->pcie_gen, c->pcie_width);
}

/* ---- the item ------------------------------------------------------------ */

int gc_cuda_p2p(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    if (t->peer_local_index < 0 || t->peer_rank < 0)
        return gc_fail(err, GC_EINVAL, "p2p: item %u has no peer GPU", t->item->id);
    if (!c->peer || !c->peer->sendrecv || !c->peer->send || !c->peer->recv)
        return gc_fail(err, GC_EUNSUPPORTED, "p2p: no channel to the peer rank");
    p2p_job j;
    memset(&j, 0, sizeof j);
    j.base.bytes = (size_t)gc_cuda_num(t, "size_bytes");
    int chase = !strcmp(gc_cuda_str(t, "mode"), "chase");
    j.bidir = !chase && !strcmp(gc_cuda_str(t, "direction"), "bidir");
    j.peer_access = strcmp(gc_cuda_str(t, "peer_access"), "off") != 0;
    j.peer_dev = t->peer_local_index;
    j.peer_rank = t->peer_rank;
    if (j.base.bytes == 0)
        return gc_fail(err, GC_EINVAL, "p2p: size_bytes must be > 0");
    if (chase && !j.peer_access)   /* both ranks see the same item: both stop here */
        return gc_fail(err, GC_EINVAL, "p2p: mode chase loads the peer's memory: it needs "
                                       "peer_access = on");
    int copier = t->initiator || j.bidir;
    char msg[256] = "";
    ipc_msg mine = { 0 }, theirs = { 0 };
    double t0 = gc_now_s();
    if (gck_p2p_local(&c->xfer, j.base.bytes, mine.handle, msg, sizeof msg))
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
    if (!rc && copier) {
        int can = 0;
        gck_p2p_can_access(c->index, j.peer_dev, &can);
        if (j.peer_access && !can)
            rc = gc_fail(err, GC_EUNSUPPORTED, "p2p: GPU %d cannot access GPU %d as a peer",
                         c->index, j.peer_dev);
        else if (j.peer_access &&
                 gck_p2p_open(&c->xfer, theirs.handle, (size_t)theirs.bytes, msg, sizeof msg))
            rc = gc_fail(err, GC_EDEVICE, "p2p: opening the peer's IPC handle: %s", msg);
        if (!rc && !chase && gck_p2p_run(&c->xfer, j.peer_dev, j.peer_access, j.base.bytes, 0, 1,
                                         NULL, NULL, NULL, NULL, msg, sizeof msg))
            rc = gc_fail(err, GC_EDEVICE, "p2p: %s", msg);
    }
    /* both ways: both sides ready, or neither copies */
    int32_t ok = rc == 0, peer_ok = 1;
    if (j.bidir && c->peer->sendrecv(c->peer->ctx, t->peer_rank, &ok, &peer_ok, sizeof ok))
        return rc ? rc : gc_fail(err, GC_EIO, "p2p: agreeing with rank %d failed", t->peer_rank);
    if (!rc && !peer_ok)
        rc = gc_fail(err, GC_EDEVICE, "p2p: the peer rank %d could not prepare its direction",
                     t->peer_rank);
    gc_cuda_unmeasured(c, t0);   /* allocation, export and opening */
    size_t from = g->npoints;
    if (!rc && t->initiator) {
        if (chase) {
            rc = gc_cuda_chase_far(c, t, g, c->xfer.p2p_remote, NULL, j.base.bytes, 0, "p2p chase",
                                   err);
        } else {
            j.base.chunk = p2p_chunk;
            j.base.moved = (double)j.base.bytes * (j.bidir ? 2 : 1);
            j.base.timing = j.peer_access ? "events" : "host_clock";
            j.base.nominal_bps = path_nominal(c, g, j.peer_access) * (j.bidir ? 2 : 1);
            if (j.bidir) {
                j.base.ns_out = j.out;
                j.base.ns_in = j.in;
                j.base.out_metric = "bandwidth_to_peer";
                j.base.in_metric = "bandwidth_from_peer";
            }
            rc = gc_xfer_sample(c, t, g, &j.base, err);
            chunk_msg stop = { 0, 0 };
            if (j.bidir && c->peer->send(c->peer->ctx, t->peer_rank, &stop, sizeof stop) && !rc)
                rc = gc_fail(err, GC_EIO, "p2p: stopping rank %d failed", t->peer_rank);
        }
        for (size_t k = from; !rc && k < g->npoints; k++) {
            gc_ctx *x = &g->points[k].ctx;
            gc_ctx_set_num(x, "peer_gpu", j.peer_dev);
            gc_ctx_set_num(x, "nvlink_links", c->nvlink_links);
            gc_ctx_set_str(x, "path", j.peer_access ? "ipc_peer" : "memcpy_peer_staged");
            if (j.bidir)
                gc_ctx_set_str(x, "both_ways", "both_ranks_at_once");
        }
    } else if (!rc && j.bidir) {
        rc = respond(c, &j, err);
    }
    int32_t fin = rc == 0, peer_fin = 0;
    if (c->peer->sendrecv(c->peer->ctx, t->peer_rank, &fin, &peer_fin, sizeof fin) && !rc)
        rc = gc_fail(err, GC_EIO, "p2p: finishing with rank %d failed", t->peer_rank);
    return rc;
}
