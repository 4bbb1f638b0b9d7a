/* The sim backend's transfers: host<->device copies (copy engine or SM,
 * pinned or pageable, one or both directions), peer-to-peer copies and the
 * remote pointer chase, and network items, which between real ranks move
 * real bytes through MPI (sim_net_real). Models: t = latency + bytes /
 * rate per direction, with the faults of the link's ends. */
#include "measure/sim/sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"

static void draw_xfer(const job *j, sim_rng *r, double launch, double *v)
{
    const xfer_m *m = &j->u.x;
    const gc_sim_profile *p = j->p;
    double lat = m->lat_s * sim_lognorm(r, p->time_sigma);
    double rate = 0;
    for (int d = 0; d < m->ndir; d++)
        rate += m->rate[d] * sim_lognorm(r, p->bw_sigma) / sim_bimodal(r, m->slow[d]);
    rate *= (m->ndir == 2 ? 1.0 - m->loss : 1.0) /
            sim_outlier(r, p->outlier_prob, p->outlier_max);
    double moved = m->bytes * m->ndir;
    double t = (lat + moved / rate) * launch;
    v[0] = t * 1e9;
    v[1] = moved / t;
}

/* p2p both ways, both GPUs copying at once: each direction its own copy,
 * the sample is the slower one; to / from peer are each direction's rate. */
static void draw_p2p_bidir(const job *j, sim_rng *r, double launch, double *v)
{
    const xfer_m *m = &j->u.x;
    const gc_sim_profile *p = j->p;
    double out = sim_outlier(r, p->outlier_prob, p->outlier_max), t[2];
    for (int d = 0; d < 2; d++) {
        double rate = m->rate[d] * sim_lognorm(r, p->bw_sigma) / sim_bimodal(r, m->slow[d]) *
                      (1.0 - m->loss) / out;
        t[d] = (m->lat_s * sim_lognorm(r, p->time_sigma) + m->bytes / rate) * launch;
    }
    double tmax = fmax(t[0], t[1]);
    v[0] = tmax * 1e9;
    v[1] = 2 * m->bytes / tmax;
    v[2] = m->bytes / t[0];
    v[3] = m->bytes / t[1];
}

static void xfer_job(job *j, double lat_s, double bytes, int ndir, double loss)
{
    j->u.x.lat_s = lat_s;
    j->u.x.bytes = bytes;
    j->u.x.ndir = ndir;
    j->u.x.loss = loss;
    j->draw = draw_xfer;
    j->metrics = M_XFER;
    j->nmetrics = 2;
}

static int pcie_ctx(const gc_backend *b, job *j, gc_err *err)
{
    int w = (int)lround(b->prof.pcie_width * b->f.scale[F_PCIE_WIDTH]);
    int rc = sim_ctx_num(j, "pcie_gen", b->prof.pcie_gen, err);
    return rc ? rc : sim_ctx_num(j, "pcie_width", w < 1 ? 1 : w, err);
}

/* One load from the GPU to mapped pinned host memory (xfer mode chase):
 * the host's DRAM (the chain flushed from the CPU caches, host_cache) behind
 * the PCIe round trip, whatever the footprint
 * (an H200 over PCIe gen5: 1207.3 ns at 256 MiB); a far NUMA node (fault
 * numa) slows it as it slows copies. numa = "each": one chase per node of
 * the profile's host (device.numa_nodes), memory on another node than the
 * GPU's SIM_REMOTE_NODE_NS further (an assumption: a cross-socket hop;
 * every host we measured had one node). */
#define SIM_HOST_CHASE_NS 1207.0
#define SIM_REMOTE_NODE_NS 120.0
static int setup_host_chase(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    lat_m *m = &j->u.lat;
    sim_chase_levels(b, sim_pnum(t->item, "size_bytes"), 128, m);
    m->p[0] = m->p[1] = m->p[2] = 0;
    m->p[3] = 1;
    m->lat[3] = 0;
    double mhz = b->prof.sm_clock_mhz * b->f.scale[F_SM_CLOCK];
    int each = !strcmp(sim_pstr(t->item, "numa"), "each");
    double ns = SIM_HOST_CHASE_NS + (each && j->numa_node != b->numa_node ? SIM_REMOTE_NODE_NS : 0);
    m->extra_cycles = ns / b->f.scale[F_NUMA] * mhz / 1000.0;
    m->ns_slot = 1;
    m->timer_slot = 2;
    j->draw = sim_draw_latency;
    j->metrics = M_CHASE;
    j->nmetrics = 3;
    int rc = sim_ctx_num(j, "stride_bytes", 128, err);
    if (!rc && gc_ctx_set_str(&j->ctx, "host_cache", "flushed"))   /* as gc_cuda_chase_far */
        rc = gc_fail(err, GC_EINVAL, "sim: no room in the point context for host_cache");
    if (!rc && each) {   /* as cuda_xfer.c's host_chase_numa names them */
        rc = sim_ctx_num(j, "numa_node", j->numa_node, err);
        rc = rc ? rc : sim_ctx_num(j, "numa_nodes", b->prof.numa_nodes, err);
        rc = rc ? rc : sim_ctx_num(j, "numa_landed", j->numa_node, err);
        rc = rc ? rc : sim_ctx_num(j, "host_huge_fraction", 1, err);   /* all in huge pages */
    }
    return rc ? rc : pcie_ctx(b, j, err);
}

int sim_setup_xfer(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    const gc_sim_profile *p = &b->prof;
    if (!strcmp(sim_pstr(t->item, "mode"), "chase"))
        return setup_host_chase(b, t, j, err);
    const faultset *f = &b->f;
    const char *dir = sim_pstr(t->item, "direction");
    int pageable = !strcmp(sim_pstr(t->item, "memory"), "pageable");
    double k = (pageable ? p->pageable_factor : 1.0) *
               (!strcmp(sim_pstr(t->item, "engine"), "sm") ? p->sm_engine_factor : 1.0) *
               f->scale[F_PCIE_WIDTH] * f->scale[F_NUMA] * 1e9;
    double h2d = p->h2d_pinned_gb_per_s * k * f->scale[F_H2D_BW];
    double d2h = p->d2h_pinned_gb_per_s * k * f->scale[F_D2H_BW];
    int flapping = sim_flap_slow(b->plan, b->node, b->local_index, t->item->id);
    if (f->flap[F_H2D_BW] > 0 && flapping)
        h2d *= f->flap[F_H2D_BW];
    if (f->flap[F_D2H_BW] > 0 && flapping)
        d2h *= f->flap[F_D2H_BW];
    int bidir = !strcmp(dir, "bidir"), is_d2h = !strcmp(dir, "d2h");
    xfer_job(j, (p->pcie_latency_us + (pageable ? p->pageable_extra_latency_us : 0)) * 1e-6,
             sim_pnum(t->item, "size_bytes"), bidir ? 2 : 1, p->pcie_bidir_loss);
    j->u.x.rate[0] = is_d2h ? d2h : h2d;
    j->u.x.slow[0] = f->bimodal[is_d2h ? F_D2H_BW : F_H2D_BW];
    j->u.x.rate[1] = d2h;
    j->u.x.slow[1] = f->bimodal[F_D2H_BW];
    if (t->item->phase == GC_PHASE_CONCURRENT && gc_ctx_set_str(&j->ctx, "phase", "concurrent"))
        return gc_fail(err, GC_EINVAL, "sim: no room in the point context for phase");
    if (bidir && !pageable && strcmp(sim_pstr(t->item, "engine"), "sm") &&   /* as cuda_xfer.c */
        gc_ctx_set_str(&j->ctx, "both_ways", "each_loaded"))
        return gc_fail(err, GC_EINVAL, "sim: no room in the point context for both_ways");
    return pcie_ctx(b, j, err);
}

/* One load across the link into the peer's memory (p2p mode chase): the
 * peer's L2 or DRAM by footprint (no local L1: remote lines are not kept
 * near), plus the link's round trip. Round trips per link kind: NVLink
 * 855 ns (2 H200 over 18 NVLinks: 995 ns per load at 4 MiB, the peer's L2
 * included), PCIe peer ~ 1.6 us (an estimate, not measured here). */
#define SIM_NVLINK_HOP_NS 855.0
#define SIM_PCIE_HOP_NS 1600.0
static int setup_p2p_chase(const gc_backend *b, const gc_task *t, job *j, int nvlink,
                           gc_err *err)
{
    if (strcmp(sim_pstr(t->item, "peer_access"), "off") == 0)
        return gc_fail(err, GC_EINVAL, "p2p: mode chase loads the peer's memory: it needs "
                                       "peer_access = on");
    lat_m *m = &j->u.lat;
    sim_chase_levels(b, sim_pnum(t->item, "size_bytes"), 128, m);
    m->p[1] += m->p[0];
    m->p[0] = 0;
    double mhz = b->prof.sm_clock_mhz * b->f.scale[F_SM_CLOCK];
    m->extra_cycles = (nvlink ? SIM_NVLINK_HOP_NS : SIM_PCIE_HOP_NS) * mhz / 1000.0;
    m->ns_slot = 1;
    m->timer_slot = 2;
    j->draw = sim_draw_latency;
    j->metrics = M_CHASE;
    j->nmetrics = 3;
    int rc = sim_ctx_num(j, "peer_gpu", t->peer_local_index, err);
    return rc ? rc : sim_ctx_num(j, "stride_bytes", 128, err);
}

int sim_setup_p2p(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    const gc_sim_profile *p = &b->prof;
    if (t->peer_local_index < 0)
        return gc_fail(err, GC_EINVAL, "sim: p2p item %u has no peer GPU", t->item->id);
    faultset peer;   /* a link is as good as its worse end */
    sim_faults_for(b->plan, b->node, t->peer_local_index, &peer);
    double links = fmin(b->f.scale[F_NVLINK], peer.scale[F_NVLINK]);
    double scale = fmin(b->f.scale[F_P2P_BW], peer.scale[F_P2P_BW]);
    /* a flapping link: slow in half of the pair's items (by item and pair) */
    uint32_t pair_item = t->item->id * 131u + (uint32_t)t->peer_local_index * 17u + (uint32_t)b->local_index;
    if (b->f.flap[F_P2P_BW] > 0 && sim_flap_slow(b->plan, b->node, b->local_index, pair_item))
        scale *= b->f.flap[F_P2P_BW];
    if (peer.flap[F_P2P_BW] > 0 && sim_flap_slow(b->plan, b->node, t->peer_local_index, pair_item))
        scale *= peer.flap[F_P2P_BW];
    double slow = fmax(b->f.bimodal[F_P2P_BW], peer.bimodal[F_P2P_BW]);
    int on = strcmp(sim_pstr(t->item, "peer_access"), "off") != 0;
    int nvlink = lround(p->nvlink_links * links) > 0;
    if (!strcmp(sim_pstr(t->item, "mode"), "chase")) {
        int rc = setup_p2p_chase(b, t, j, nvlink, err);
        return rc ? rc : sim_ctx_num(j, "nvlink_links", lround(p->nvlink_links * links), err);
    }
    double rate = on ? p->p2p_achieved_gb_per_s * 1e9 * links * scale
                     : p->p2p_staged_gb_per_s * 1e9 * scale * b->f.scale[F_NUMA];
    xfer_job(j, (on ? p->p2p_latency_us : p->p2p_staged_latency_us) * 1e-6,
             sim_pnum(t->item, "size_bytes"),
             !strcmp(sim_pstr(t->item, "direction"), "bidir") ? 2 : 1, p->p2p_bidir_loss);
    j->u.x.rate[0] = j->u.x.rate[1] = rate;
    j->u.x.slow[0] = j->u.x.slow[1] = slow;
    if (j->u.x.ndir == 2) {   /* both ranks copy at once (cuda_p2p.c) */
        j->draw = draw_p2p_bidir;
        j->nmetrics = 4;
    }
    int rc = sim_ctx_num(j, "peer_gpu", t->peer_local_index, err);
    if (!rc)
        rc = sim_ctx_num(j, "nvlink_links", lround(p->nvlink_links * links), err);
    return rc ? rc : pcie_ctx(b, j, err);
}

int sim_setup_net(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    const gc_sim_profile *p = &b->prof;
    xfer_job(j, p->net_latency_us * 1e-6, sim_pnum(t->item, "size_bytes"), 1, 0);
    j->u.x.rate[0] = p->net_gb_per_s * 1e9 * b->f.scale[F_NET_BW];
    j->u.x.slow[0] = b->f.bimodal[F_NET_BW];
    int rc = 0;
    if (t->peer_node && gc_ctx_set_str(&j->ctx, "peer_node", t->peer_node))
        rc = gc_fail(err, GC_EINVAL, "sim: no room in the point context for peer_node");
    return rc ? rc : sim_ctx_num(j, "peer_rank", t->peer_rank, err);
}

/* Net items between real ranks: the bytes really travel through MPI as a
 * ping-pong of host buffers (what the cuda backend does with its pinned
 * staging buffers); only the GPU side, the staging copies device -> host
 * at the sender and host -> device at the receiver, comes from the
 * profile. A sample is half a round trip plus the two staging copies. */
int sim_net_real(gc_backend *b, const gc_task *t, gc_gpu *gpu, gc_err *err)
{
    const gc_item *it = t->item;
    const gc_sim_profile *p = &b->prof;
    if (t->peer_rank < 0)
        return gc_fail(err, GC_EINVAL, "sim: net item %u has no peer rank", it->id);
    size_t bytes = (size_t)sim_pnum(it, "size_bytes");
    if (bytes > b->net_cap) {
        char *nb = realloc(b->net_buf, bytes);
        if (!nb)
            return gc_fail(err, GC_ENOMEM, "sim: no memory for a %zu-byte net buffer", bytes);
        memset(nb, 0x5a, bytes);
        b->net_buf = nb;
        b->net_cap = bytes;
    }
    double lat = p->pcie_latency_us * 1e-6;
    double stage = 2 * lat + bytes / (p->d2h_pinned_gb_per_s * 1e9) +
                   bytes / (p->h2d_pinned_gb_per_s * 1e9);
    /* a slow NIC (fault net_bw x f < 1 on either node): what the NIC at f
     * of the profile's rate takes more than a healthy one, on top of the
     * real MPI time */
    faultset peer;
    sim_faults_for(b->plan, t->peer_node ? t->peer_node : "", 0, &peer);
    double nic = fmin(b->f.scale[F_NET_BW], peer.scale[F_NET_BW]);
    if (nic < 1 && p->net_gb_per_s > 0)
        stage += bytes / (p->net_gb_per_s * 1e9 * nic) - bytes / (p->net_gb_per_s * 1e9);
    const gc_peer_io *io = b->peer;
    uint32_t total = it->spec->samples ? it->spec->samples : 1;
    gc_point *pt[2] = { NULL, NULL };
    size_t first = gpu->npoints;
    if (t->initiator) {
        for (int k = 0; k < 2; k++) {
            int rc = gc_metric_add_point(&pt[k], gpu, it->id, it->spec->name, it->spec->label,
                                         &it->params, M_XFER[k], b->sub_bits, err);
            if (rc)
                return rc;
        }
        pt[0] = &gpu->points[first];
        pt[1] = &gpu->points[first + 1];
    }
    for (uint32_t i = 0;; i++) {   /* round 0 warms up */
        int32_t go = 1;
        if (t->initiator) {
            go = i <= total && !(i > 1 && t->deadline_s > 0 && gc_now_s() > t->deadline_s);
            if (!go && i <= total)
                pt[0]->flags |= GC_FLAG_BUDGET_HIT, pt[1]->flags |= GC_FLAG_BUDGET_HIT;
            if (io->send(io->ctx, t->peer_rank, &go, sizeof go))
                return gc_fail(err, GC_EIO, "sim: net: send to rank %d failed", t->peer_rank);
            if (!go)
                break;
            double t0 = gc_now_s();
            if (io->send(io->ctx, t->peer_rank, b->net_buf, bytes) ||
                io->recv(io->ctx, t->peer_rank, b->net_buf, bytes))
                return gc_fail(err, GC_EIO, "sim: net: ping-pong with rank %d failed", t->peer_rank);
            double one = (gc_now_s() - t0) / 2 + stage;
            if (i == 0)
                continue;
            if (gc_hist_record(&pt[0]->hist, sim_to_units(one * 1e9, pt[0]->scale)) ||
                gc_hist_record(&pt[1]->hist, sim_to_units(bytes / one, pt[1]->scale)))
                return gc_fail(err, GC_ENOMEM, "sim: out of memory recording a sample");
        } else {
            if (io->recv(io->ctx, t->peer_rank, &go, sizeof go))
                return gc_fail(err, GC_EIO, "sim: net: receive from rank %d failed", t->peer_rank);
            if (!go)
                break;
            if (io->recv(io->ctx, t->peer_rank, b->net_buf, bytes) ||
                io->send(io->ctx, t->peer_rank, b->net_buf, bytes))
                return gc_fail(err, GC_EIO, "sim: net: ping-pong with rank %d failed", t->peer_rank);
        }
    }
    for (size_t k = first; k < gpu->npoints; k++) {
        gc_ctx *x = &gpu->points[k].ctx;
        gc_ctx_set_num(x, "peer_rank", t->peer_rank);
        if (t->peer_node)
            gc_ctx_set_str(x, "peer_node", t->peer_node);
        gc_ctx_set_str(x, "path", "mpi_host_staged");
    }
    return 0;
}
