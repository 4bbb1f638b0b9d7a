/* The sim backend's lowest file: what its benchmark families share (the
 * metric tables of chases and copies, item parameters, the latency
 * mixture of the cache levels, the HBM rate, sample units), so that
 * backend_sim.c (the microbenchmarks and the sampling loop), sim_xfer.c
 * and sim_sustain.c call down into it and never into each other. */
#include "measure/sim/sim_int.h"

#include <math.h>
#include <string.h>

const char *const M_CHASE[] = { "latency", "latency_ns", "timer_cost" };
const char *const M_XFER[] = { "time", "bandwidth", "bandwidth_to_peer", "bandwidth_from_peer" };

double sim_hit(double footprint, double capacity, double k)
{
    return 1.0 / (1.0 + pow(footprint / capacity, k));
}

double sim_pnum(const gc_item *it, const char *name)
{
    const gc_bench_def *d = it->spec->def ? it->spec->def : gc_bench_find(it->spec->name);
    const gc_param_def *pd = d ? gc_bench_param(d, name) : NULL;
    return gc_ctx_num(&it->params, name, pd ? pd->dflt_num : 0);
}

const char *sim_pstr(const gc_item *it, const char *name)
{
    const gc_bench_def *d = it->spec->def ? it->spec->def : gc_bench_find(it->spec->name);
    const gc_param_def *pd = d ? gc_bench_param(d, name) : NULL;
    return gc_ctx_str(&it->params, name, pd && pd->dflt_str ? pd->dflt_str : "");
}

int sim_ctx_num(job *j, const char *key, double v, gc_err *err)
{
    if (gc_ctx_set_num(&j->ctx, key, v))
        return gc_fail(err, GC_EINVAL, "sim: no room in the point context for %s", key);
    return 0;
}

void sim_lat_common(const gc_backend *b, lat_m *m)
{
    m->n_acc = b->prof.accesses_per_sample;
    m->sd_abs = b->prof.latency_sd_cycles;
    m->rel_sigma = b->prof.latency_rel_sigma;
    m->cyc_to_ns = 1000.0 / (b->prof.sm_clock_mhz * b->f.scale[F_SM_CLOCK]);
    m->timer_cycles = b->prof.timer_cost_cycles;
    m->ns_slot = m->timer_slot = -1;
}

/* Fractions served by each level for a footprint walked with a stride. */
void sim_chase_levels(const gc_backend *b, double footprint, double stride, lat_m *m)
{
    const gc_sim_profile *p = &b->prof;
    const faultset *f = &b->f;
    double k = p->transition_sharpness, l2 = p->l2_mib * MIB;
    double eff = footprint * fmin(1.0, p->line_bytes / stride); /* lines held */
    double h1 = sim_hit(eff, p->l1_kib * KIB, k);
    double h2 = (1 - h1) * sim_hit(eff, l2, k);
    double far = 1 - sim_hit(eff, l2 / 2, k);
    sim_lat_common(b, m);
    m->p[0] = h1;
    m->p[1] = h2 * (1 - far);
    m->p[2] = h2 * far;
    m->p[3] = fmax(0.0, 1 - h1 - h2);
    m->lat[0] = p->l1_latency_cycles * f->scale[F_L1_LAT];
    m->lat[1] = p->l2_near_latency_cycles * f->scale[F_L2_LAT];
    m->lat[2] = p->l2_far_latency_cycles * f->scale[F_L2_LAT];
    m->lat[3] = p->dram_latency_cycles * f->scale[F_DRAM_LAT];
    m->slow[0] = f->bimodal[F_L1_LAT];
    m->slow[1] = m->slow[2] = f->bimodal[F_L2_LAT];
    m->slow[3] = f->bimodal[F_DRAM_LAT];
}

void sim_draw_latency(const job *j, sim_rng *r, double launch, double *v)
{
    const lat_m *m = &j->u.lat;
    const gc_sim_profile *p = j->p;
    double s_l1 = sim_bimodal(r, m->slow[0]), s_l2 = sim_bimodal(r, m->slow[1]);
    double s_dram = sim_bimodal(r, m->slow[3]);
    double lat[4] = { m->lat[0] * s_l1, m->lat[1] * s_l2, m->lat[2] * s_l2,
                      m->lat[3] * s_dram };
    double mu = 0, var = 0;
    for (int i = 0; i < 4; i++)
        mu += m->p[i] * lat[i];
    for (int i = 0; i < 4; i++)
        var += m->p[i] * (lat[i] - mu) * (lat[i] - mu);
    mu += m->extra_cycles;
    double rel = m->rel_sigma * mu;
    double sd = sqrt(var / m->n_acc + m->sd_abs * m->sd_abs + rel * rel);
    double cyc = (mu + sd * sim_rng_normal(r)) * launch *
                 sim_outlier(r, p->outlier_prob, p->outlier_max);
    v[0] = cyc;
    if (m->ns_slot >= 0)
        v[m->ns_slot] = cyc * m->cyc_to_ns;
    if (m->timer_slot >= 0)
        v[m->timer_slot] = m->timer_cycles + 0.3 * sim_rng_normal(r);
}

double sim_hbm_bps(const gc_backend *b, const char *kernel, double blocks_per_sm)
{
    const gc_sim_profile *p = &b->prof;
    double kf = !strcmp(kernel, "read") ? p->hbm_read_factor
              : !strcmp(kernel, "write") ? p->hbm_write_factor
              : !strcmp(kernel, "copy") ? p->hbm_copy_factor
              : !strcmp(kernel, "sparse") ? p->hbm_read_factor * 32 / p->dram_fetch_bytes
              : p->hbm_triad_factor;
    double occ = 1 - exp(-blocks_per_sm / p->hbm_blocks_per_sm_scale);
    return p->hbm_achieved_tb_per_s * 1e12 * kf * occ * b->f.scale[F_HBM_BW];
}

uint64_t sim_to_units(double v, double scale)
{
    double x = v * scale + 0.5;
    return x <= 0 ? 0 : x >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)x;
}
