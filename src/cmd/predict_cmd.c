/* `gpucensus predict`. See predict_cmd.h.
 *
 * Per GPU: the launch geometry (occupancy calculator with the GPU's
 * limits), both models with the catalogue's parameters, the time with
 * lambda = 1 and calibrated with the GPU's lambda (t = floor + model /
 * lambda, validate.h), and the regime by the rule shared with the
 * validation. The lambda is this build's: the validation kernels the
 * catalogue measured on that GPU, predicted by these very models and
 * calibrated by validate.c (the run's own code), so predict's figures are
 * the ones the accuracy table scores whichever build wrote the catalogue;
 * the stored lambda only where the catalogue's points cannot be read. Per
 * link: t(n) = alpha + n / beta. */
#include "cmd/predict_cmd.h"
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/catread_models.h"
#include "util/args.h"
#include "util/datadir.h"
#include "util/fsutil.h"
#include "util/jsonw.h"
#include "census/kdesc.h"
#include "census/kdesc_set.h"
#include "analyze/model_little.h"
#include "analyze/model_mwp.h"
#include "analyze/validate.h"

/* A GPU's calibration: where its lambdas come from and, when recomputed,
 * how the validation suite scores with them (validate.h). */
enum { LAM_VALIDATION, LAM_CATALOGUE, LAM_NONE };
static const char *const lam_from_names[] = { "validation", "catalogue", "none" };
typedef struct gpu_cal {
    int from;                   /* LAM_* */
    double lambda[GC_NMODELS];
    int lambda_n[GC_NMODELS];
    gc_err_stats raw[GC_NMODELS], cal[GC_NMODELS];   /* the suite, all kernels */
    size_t kernels;
    char note[240];
} gpu_cal;

typedef struct gpu_pred {
    int launch_ok, ok[GC_NMODELS];
    char error[GC_NMODELS][200];
    gc_mlaunch l;
    gc_mwp_pred mwp;
    gc_little_pred lit;
    double ns[GC_NMODELS], cal_ns[GC_NMODELS];
    int regime;
    const char *bound;          /* "memory", "compute", "latency", "launch" or NULL */
    double kd_gmem_waits;       /* the description's critical_path.gmem */
    int kd_store_lsu;           /* its scattered stores' sectors outweigh its loads' */
    char says[320];             /* which of the GPU's parameters drove the result */
    gpu_cal cal;                /* the lambdas used */
} gpu_pred;

/* The lambdas of GPU c: from its measured validation kernels with this
 * build's models and descriptions; else the catalogue's; else none. */
static int calibrate_gpu(const gc_cat_gpu *c, const gc_kdesc_set *set, gpu_cal *o)
{
    memset(o, 0, sizeof *o);
    gc_models m;
    if (c->nvalid && set->n) {
        if (gc_models_validate(&c->info, &c->hw, set, c->valid, c->nvalid, &m))
            return GC_ENOMEM;
        o->kernels = m.nrows;
        for (int k = 0; k < GC_NMODELS; k++) {
            o->lambda[k] = m.lambda[k];
            o->lambda_n[k] = m.lambda_n[k];
            o->raw[k] = m.raw[k][GC_REG_ALL];
            o->cal[k] = m.cal[k][GC_REG_ALL];
        }
        gc_models_free(&m);
        if (isfinite(o->lambda[GC_M_MWP]) || isfinite(o->lambda[GC_M_LITTLE])) {
            o->from = LAM_VALIDATION;
            snprintf(o->note, sizeof o->note, "%zu validation kernels measured in the catalogue, "
                     "predicted by this build", o->kernels);
            return 0;
        }
    }
    const char *why = !set->n ? "this build has no validation descriptions"
                    : c->nvalid ? "no validation kernel calibrates (all below 1.5 launch floors)"
                    : c->valid_note;
    o->from = isfinite(c->lambda[GC_M_MWP]) || isfinite(c->lambda[GC_M_LITTLE]) ? LAM_CATALOGUE
            : LAM_NONE;
    for (int k = 0; k < GC_NMODELS; k++)
        o->lambda[k] = o->from == LAM_CATALOGUE ? c->lambda[k] : NAN;
    snprintf(o->note, sizeof o->note, "%s: %.180s", o->from == LAM_CATALOGUE ?
             "the catalogue's stored lambda (not recomputed)" : "uncalibrated (lambda 1)", why);
    return 0;
}

/* MWP-CWP is kept as the reference it is (the paper's model with the
 * census's parameters), not as a prediction to use: on the held-out
 * kernels its synchronisation cost (eq. 26, departure delay x (MWP - 1)
 * per barrier and block) is most of its time where kernels sync, and its
 * Mem_L puts every global access at the DRAM latency, cache hits too
 * (lab/gpu/mwp_terms.py measures both; docs/models.md). */
static const char mwp_fit_note[] =
    "a reference model that does not fit these kernels: its synchronisation term (eq. 26) "
    "dominates kernels with barriers and its memory term puts every global access at the DRAM "
    "latency (no cache); use Little's law";

/* The parameter behind each Little's-law throughput term (model_little.h). */
static const int term_param[LT_NTERMS] = { HW_LANES_FP32, HW_LANES_FP64, HW_LANES_INT, HW_LANES_SFU,
                                           HW_LANES_SMEM, HW_ISSUE_INTERVAL, HW_GMEM_BPC,
                                           HW_BLOCK_CYCLES, HW_SCAT_LD, HW_L2_BPC };

/* What bounds the kernel on this GPU, from the Little's-law terms (the
 * regime rule of validate.h) plus the launch floor: "launch" when the
 * measured back-to-back launch time is at least half the prediction. */
static void explain(const gc_cat_gpu *c, gpu_pred *o)
{
    const gc_little_pred *m = &o->lit;
    const gc_hwp *h = &c->hw;
    double fl = h->v[HW_LAUNCH_NS];
    if (!o->ok[GC_M_LITTLE])
        return;
    if (isfinite(fl) && fl >= 0.5 * o->cal_ns[GC_M_LITTLE]) {
        o->bound = "launch";
        snprintf(o->says, sizeof o->says, "launch: launch_overhead_ns %.0f of %.0f ns", fl,
                 o->cal_ns[GC_M_LITTLE]);
    } else if (o->regime == GC_REG_LATENCY) {
        o->bound = "latency";
        char infl[96] = "";
        if (m->inflight_per_sm > 0)   /* measured at it (bench mlp) */
            snprintf(infl, sizeof infl, ", %.3g requests in flight per SM", m->inflight_per_sm);
        if (m->gmem_tail_cycles >= 0.5) {   /* the block's slowest warp / barrier wait */
            size_t n = strlen(infl);
            snprintf(infl + n, sizeof infl - n, "; +%.0f waiting for the block's other warps",
                     m->gmem_tail_cycles);
        }
        snprintf(o->says, sizeof o->says,
                 "latency: %.0f warps/SM over %.0f cycles a warp (critical path %.0f with %.0f "
                 "dependent loads at %s %.0f%s; block_replacement_cycles %.0f)",
                 m->occupancy_warps, m->latency_bound_cycles, m->cp_cycles,
                 o->kd_gmem_waits, m->gmem_latency_src, m->gmem_latency_cycles, infl,
                 m->block_cycles);
    } else {
        int t = m->cpw_max, id = term_param[t];
        if (t == LT_LSU && o->kd_store_lsu)   /* the stores' sectors are most of it */
            id = HW_SCAT_ST;
        o->bound = t == LT_GMEM || t == LT_LSU || t == LT_L2 ? "memory" : "compute";
        int n = snprintf(o->says, sizeof o->says, "%s: the %s term, %.1f cycles/warp at %s %.4g "
                         "(%.0f DRAM bytes/warp)", o->bound, gc_little_term_names[t], m->cpw[t],
                         gc_hw_defs[id].name, h->v[id], m->gmem_bytes_per_warp);
        if (m->warp_throughput < m->throughput_bound && n > 0 && (size_t)n < sizeof o->says) {
            if (m->dram_wait_cycles > 0)   /* a catalogue without bench mlp: M/D/1 */
                snprintf(o->says + n, sizeof o->says - (size_t)n, "; its dependent loads queue %.0f "
                         "cycles behind its DRAM traffic: %.0f%% of that bound",
                         m->dram_wait_cycles, 100 * m->warp_throughput / m->throughput_bound);
            else
                snprintf(o->says + n, sizeof o->says - (size_t)n, "; its loads wait %s %.0f at "
                         "%.3g requests in flight per SM: %.0f%% of that bound",
                         m->gmem_latency_src, m->gmem_latency_cycles, m->inflight_per_sm,
                         100 * m->warp_throughput / m->throughput_bound);
        }
    }
}

static void predict_gpu(const gc_cat_gpu *c, const gpu_cal *cal, const gc_kdesc *d, gpu_pred *o)
{
    memset(o, 0, sizeof *o);
    o->cal = *cal;
    gc_occ_limits lim;
    gc_occ_limits_of(&c->info, &lim);
    gc_err e = { 0 };
    o->regime = GC_REG_ALL;
    if (gc_mlaunch_of(&lim, &c->hw, d, &o->l, &e)) {
        for (int k = 0; k < GC_NMODELS; k++)
            snprintf(o->error[k], sizeof o->error[k], "cannot launch: %.180s", e.msg);
        return;
    }
    o->launch_ok = 1;
    if (gc_mwp_predict(&c->hw, &o->l, d, &o->mwp, &e) == 0) {
        o->ok[GC_M_MWP] = 1;
        o->ns[GC_M_MWP] = o->mwp.ns;
        o->cal_ns[GC_M_MWP] = gc_calibrated_ns(&c->hw, o->mwp.exec_ns, cal->lambda[GC_M_MWP]);
    } else {
        snprintf(o->error[GC_M_MWP], sizeof o->error[GC_M_MWP], "%.190s", e.msg);
    }
    o->kd_gmem_waits = d->critical_path[GC_CP_GMEM];
    double st = 0, ldc = 0;
    for (int i = 0; i < d->nmem; i++)
        if (d->mem[i].sectors_per_inst > 2 * gc_kdesc_min_sectors(&d->mem[i]))
            *(d->mem[i].is_store ? &st : &ldc) += d->mem[i].count * d->mem[i].sectors_per_inst;
    o->kd_store_lsu = st > ldc;
    if (gc_little_predict(&c->hw, &o->l, d, &o->lit, &e) == 0) {
        o->ok[GC_M_LITTLE] = 1;
        o->ns[GC_M_LITTLE] = o->lit.ns;
        o->cal_ns[GC_M_LITTLE] = gc_calibrated_ns(&c->hw, o->lit.exec_ns, cal->lambda[GC_M_LITTLE]);
        o->regime = gc_regime_of(&o->lit);
        explain(c, o);
    } else {
        snprintf(o->error[GC_M_LITTLE], sizeof o->error[GC_M_LITTLE], "%.190s", e.msg);
    }
}

/* ---- terminal ---------------------------------------------------------------- */

static void cell_us(char *out, size_t cap, int ok, double ns)
{
    if (ok)
        snprintf(out, cap, "%.3f", ns / 1000);
    else
        snprintf(out, cap, "-");
}

static void table_kernel(const gc_cat_models *cat, const char *path, const gc_kdesc *d,
                         const gpu_pred *p)
{
    printf("kernel %s (%s, origin %s): %lld blocks x %d threads, %d registers/thread, "
           "%lld B shared memory/block\n", gc_esc(d->name), gc_esc(d->file), gc_esc(d->origin), d->grid_blocks,
           d->block_threads, d->registers_per_thread, d->smem_static_bytes + d->smem_dynamic_bytes);
    printf("catalogue %s (backend %s): %zu GPUs; times in us, calibrated by each GPU's lambda "
           "(raw: lambda = 1), launch floor included\n", gc_esc(path), gc_esc(cat->backend), cat->ngpus);
    printf("%-14s %4s %-22s %8s %-8s %11s %11s %11s %11s  %s\n", "node", "gpu", "name", "warps/SM",
           "regime", "MWP-CWP", "(raw)", "Little", "(raw)", "parameters");
    for (size_t i = 0; i < cat->ngpus; i++) {
        const gc_cat_gpu *c = &cat->gpus[i];
        const gpu_pred *o = &p[i];
        char w[16] = "-", cells[4][24];
        if (o->launch_ok)
            snprintf(w, sizeof w, "%.0f", o->l.warps_per_sm);
        cell_us(cells[0], 24, o->ok[0], o->cal_ns[0]);
        cell_us(cells[1], 24, o->ok[0], o->ns[0]);
        cell_us(cells[2], 24, o->ok[1], o->cal_ns[1]);
        cell_us(cells[3], 24, o->ok[1], o->ns[1]);
        printf("%-14.14s %4d %-22.22s %8s %-8s %11s %11s %11s %11s  %s\n", gc_esc(c->info.node),
               c->info.local_index, gc_esc(c->info.name), w,
               o->regime == GC_REG_ALL ? "-" : gc_regime_names[o->regime], cells[0], cells[1],
               cells[2], cells[3], c->from_models ? "catalogue models" : "recomputed");
        if (o->bound)
            printf("    bound by %s\n", gc_esc(o->says));
        printf("    lambda MWP-CWP %.4g, Little %.4g: %s\n", o->cal.lambda[GC_M_MWP],
               o->cal.lambda[GC_M_LITTLE], gc_esc(o->cal.note));
        for (int k = 0; k < GC_NMODELS; k++)
            if (!o->ok[k] && (k == 0 || strcmp(o->error[0], o->error[1])))
                printf("    %s: %s\n", gc_model_names[k], gc_esc(o->error[k]));
    }
    printf("MWP-CWP: %s (docs/models.md)\n", mwp_fit_note);
}

/* ---- JSON ---------------------------------------------------------------------- */

static void json_mwp(gc_jw *w, const gc_mwp_pred *m)
{
    gc_jw_kint(w, "case", m->case_no);
    gc_jw_kreal(w, "cycles", m->cycles);
    gc_jw_kreal(w, "n", m->n);
    gc_jw_kreal(w, "mwp", m->mwp);
    gc_jw_kreal(w, "cwp", m->cwp);
    gc_jw_kreal(w, "cwp_full", m->cwp_full);
    gc_jw_kreal(w, "mwp_without_bw_full", m->mwp_without_bw_full);
    gc_jw_kreal(w, "mwp_peak_bw", m->mwp_peak_bw);
    gc_jw_kreal(w, "mem_l_cycles", m->mem_l);
    gc_jw_kreal(w, "departure_delay_cycles", m->departure_delay);
    gc_jw_kreal(w, "bw_per_warp_bps", m->bw_per_warp_bps);
    gc_jw_kreal(w, "load_bytes_per_warp", m->load_bytes_per_warp);
    gc_jw_kreal(w, "mem_bandwidth_bps", m->mem_bandwidth_bps);
    gc_jw_kreal(w, "comp_cycles", m->comp_cycles);
    gc_jw_kreal(w, "mem_cycles", m->mem_cycles);
    gc_jw_kreal(w, "synch_cycles", m->synch_cycles);
    gc_jw_kreal(w, "block_floor_cycles", m->block_floor_cycles);
    gc_jw_kreal(w, "rep", m->rep);
}

static void json_little(gc_jw *w, const gc_little_pred *m)
{
    gc_jw_kreal(w, "cycles", m->cycles);
    gc_jw_kreal(w, "warps_launched", m->warps_launched);
    gc_jw_kreal(w, "occupancy_warps", m->occupancy_warps);
    gc_jw_kreal(w, "latency_bound_cycles", m->latency_bound_cycles);
    gc_jw_kreal(w, "critical_path_cycles", m->cp_cycles);
    gc_jw_kreal(w, "dram_wait_cycles", m->dram_wait_cycles);
    gc_jw_kreal(w, "inflight_per_sm", m->inflight_per_sm);
    gc_jw_kreal(w, "gmem_latency_cycles", m->gmem_latency_cycles);
    gc_jw_kreal(w, "gmem_tail_cycles", m->gmem_tail_cycles);
    gc_jw_kstr(w, "gmem_latency_param", m->gmem_latency_src ? m->gmem_latency_src : "");
    gc_jw_kreal(w, "block_replacement_cycles", m->block_cycles);
    gc_jw_kreal(w, "block_interval_cycles", m->interval_cycles);
    gc_jw_kreal(w, "issue_cycles", m->issue_cycles);
    gc_jw_key(w, "cpw_cycles");
    gc_jw_open(w, "{");
    for (int t = 0; t < LT_NTERMS; t++)
        gc_jw_kreal(w, gc_little_term_names[t], m->cpw[t]);
    gc_jw_close(w, "}");
    gc_jw_kstr(w, "cpw_max", gc_little_term_names[m->cpw_max]);
    gc_jw_kreal(w, "throughput_bound_warps_per_cycle", m->throughput_bound);
    gc_jw_kreal(w, "latency_rate_warps_per_cycle", m->latency_rate);
    gc_jw_kreal(w, "warp_throughput_per_cycle", m->warp_throughput);
    gc_jw_kreal(w, "gmem_bytes_per_warp", m->gmem_bytes_per_warp);
    gc_jw_kreal(w, "gmem_bytes_per_cycle_per_sm", m->gmem_bytes_per_cycle_per_sm);
}

static void json_errs(gc_jw *w, const char *key, const gc_err_stats *e)
{
    gc_jw_key(w, key);
    gc_jw_open(w, "{");
    gc_jw_kint(w, "n", e->n);
    gc_jw_kreal(w, "mape", e->n ? e->mape : NAN);
    gc_jw_kreal(w, "max_ape", e->n ? e->max_ape : NAN);
    gc_jw_close(w, "}");
}

/* "calibration": where the lambdas come from and the suite's errors
 * with them (leave one kernel out, as the catalogue's). */
static void json_cal(gc_jw *w, const gpu_cal *c)
{
    gc_jw_key(w, "calibration");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "lambda_from", lam_from_names[c->from]);
    gc_jw_kstr(w, "note", c->note);
    gc_jw_kint(w, "validation_kernels", (long long)c->kernels);
    for (int k = 0; k < GC_NMODELS; k++) {
        gc_jw_key(w, gc_model_names[k]);
        gc_jw_open(w, "{");
        gc_jw_kreal(w, "lambda", c->lambda[k]);
        gc_jw_kint(w, "lambda_kernels", c->lambda_n[k]);
        if (c->from == LAM_VALIDATION) {
            json_errs(w, "suite_raw", &c->raw[k]);
            json_errs(w, "suite_calibrated", &c->cal[k]);
        }
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "}");
}

static void json_kernel(gc_jw *w, const gc_cat_models *cat, const char *path, const gc_kdesc *d,
                        const gpu_pred *p)
{
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "catalogue", path);
    gc_jw_kstr(w, "backend", cat->backend);
    gc_jw_key(w, "kernel");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "name", d->name);
    gc_jw_kstr(w, "file", d->file);
    gc_jw_kstr(w, "origin", d->origin);
    gc_jw_kint(w, "grid_blocks", d->grid_blocks);
    gc_jw_kint(w, "block_threads", d->block_threads);
    gc_jw_kint(w, "registers_per_thread", d->registers_per_thread);
    gc_jw_kint(w, "smem_bytes", d->smem_static_bytes + d->smem_dynamic_bytes);
    gc_jw_close(w, "}");
    gc_jw_key(w, "gpus");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < cat->ngpus; i++) {
        const gc_cat_gpu *c = &cat->gpus[i];
        const gpu_pred *o = &p[i];
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "node", c->info.node);
        gc_jw_kint(w, "index", c->info.local_index);
        gc_jw_kstr(w, "uuid", c->info.uuid);
        gc_jw_kstr(w, "name", c->info.name);
        gc_jw_kstr(w, "parameters_from", c->from_models ? "models" : "parameters");
        json_cal(w, &o->cal);
        if (o->regime == GC_REG_ALL)
            gc_jw_knull(w, "regime");
        else
            gc_jw_kstr(w, "regime", gc_regime_names[o->regime]);
        if (o->bound) {
            gc_jw_key(w, "bound");
            gc_jw_open(w, "{");
            gc_jw_kstr(w, "kind", o->bound);
            gc_jw_kstr(w, "says", o->says);
            gc_jw_close(w, "}");
        } else {
            gc_jw_knull(w, "bound");
        }
        if (o->launch_ok) {
            gc_jw_key(w, "launch");
            gc_jw_open(w, "{");
            gc_jw_kint(w, "blocks_per_sm", o->l.occ.blocks_per_sm);
            gc_jw_kint(w, "warps_per_block", o->l.occ.warps_per_block);
            gc_jw_kreal(w, "occupancy", o->l.occ.occupancy);
            gc_jw_kstr(w, "limiter", o->l.occ.limiter);
            gc_jw_kreal(w, "active_sms", o->l.active_sms);
            gc_jw_kreal(w, "warps_per_sm", o->l.warps_per_sm);
            gc_jw_kreal(w, "rep", o->l.rep);
            gc_jw_close(w, "}");
        } else {
            gc_jw_knull(w, "launch");
        }
        for (int k = 0; k < GC_NMODELS; k++) {
            gc_jw_key(w, gc_model_names[k]);
            gc_jw_open(w, "{");
            gc_jw_kstr(w, "role", k == GC_M_MWP ? "reference" : "prediction");
            if (k == GC_M_MWP)
                gc_jw_kstr(w, "fit", mwp_fit_note);
            if (o->ok[k]) {
                gc_jw_kreal(w, "ns", o->ns[k]);
                gc_jw_kreal(w, "calibrated_ns", o->cal_ns[k]);
                gc_jw_kreal(w, "lambda", o->cal.lambda[k]);
                gc_jw_kreal(w, "launch_overhead_ns", c->hw.v[HW_LAUNCH_NS]);
                if (k == GC_M_MWP)
                    json_mwp(w, &o->mwp);
                else
                    json_little(w, &o->lit);
            } else {
                gc_jw_kstr(w, "error", o->error[k]);
            }
            gc_jw_close(w, "}");
        }
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
}

/* ---- transfers -------------------------------------------------------------------- */

static int has_model(const gc_cat_link *l)
{
    return isfinite(l->alpha_s) && isfinite(l->beta_bps) && l->beta_bps > 0;
}

static void table_bytes(const gc_cat_models *cat, const char *path, double n)
{
    printf("transfer of %.0f bytes on every link of %s (backend %s): t = alpha + n / beta\n", n,
           gc_esc(path), gc_esc(cat->backend));
    printf("%-10s %-5s %-6s %-8s %-4s %-24s %-24s %10s %10s %12s %10s\n", "kind", "bench", "dir",
           "memory", "eng", "src", "dst", "alpha_us", "beta_GB/s", "time_us", "GB/s");
    for (size_t i = 0; i < cat->nlinks; i++) {
        const gc_cat_link *l = &cat->links[i];
        printf("%-10s %-5s %-6s %-8s %-4s %-24.24s %-24.24s", gc_esc(l->kind), gc_esc(l->benchmark),
               gc_esc(l->direction), gc_esc(l->memory), gc_esc(l->engine), gc_esc(l->src),
               gc_esc(l->dst));
        if (has_model(l)) {
            double t = l->alpha_s + n / l->beta_bps;
            printf(" %10.3f %10.3f %12.3f %10.3f%s\n", l->alpha_s * 1e6, l->beta_bps / 1e9, t * 1e6,
                   n / t / 1e9, l->concurrent ? "  (all GPUs at once)" : "");
        } else {
            printf(" %10s %10s %12s %10s  (no fitted model)\n", "-", "-", "-", "-");
        }
    }
    if (!cat->nlinks)
        printf("(the catalogue has no links)\n");
}

static void json_bytes(gc_jw *w, const gc_cat_models *cat, const char *path, double n)
{
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "catalogue", path);
    gc_jw_kstr(w, "backend", cat->backend);
    gc_jw_kreal(w, "bytes", n);
    gc_jw_key(w, "links");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < cat->nlinks; i++) {
        const gc_cat_link *l = &cat->links[i];
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kint(w, "index", (long long)i);
        gc_jw_kstr(w, "kind", l->kind);
        gc_jw_kstr(w, "benchmark", l->benchmark);
        gc_jw_kstr(w, "direction", l->direction);
        gc_jw_kstr(w, "memory", l->memory);
        gc_jw_kstr(w, "engine", l->engine);
        gc_jw_kstr(w, "src", l->src);
        gc_jw_kstr(w, "dst", l->dst);
        gc_jw_key(w, "concurrent");
        gc_jw_puts(w, l->concurrent ? "true" : "false");
        int ok = has_model(l);
        gc_jw_kreal(w, "alpha_s", ok ? l->alpha_s : NAN);
        gc_jw_kreal(w, "beta_bps", ok ? l->beta_bps : NAN);
        double t = ok ? l->alpha_s + n / l->beta_bps : NAN;
        gc_jw_kreal(w, "time_s", t);
        gc_jw_kreal(w, "bandwidth_bps", ok ? n / t : NAN);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
}

/* ---- main -------------------------------------------------------------------------- */

/* Whether any GPU (a kernel: p) or any link (a transfer: p NULL) has what
 * its model needs: a catalogue of a plan that measured none has nothing to
 * predict with. */
static int predictable(const gc_cat_models *cat, const gpu_pred *p)
{
    for (size_t i = 0; p && i < cat->ngpus; i++)
        if (p[i].ok[GC_M_MWP] || p[i].ok[GC_M_LITTLE])
            return 1;
    for (size_t i = 0; !p && i < cat->nlinks; i++)
        if (has_model(&cat->links[i]))
            return 1;
    return 0;
}

/* Says which plan measures the models' inputs (exit 3: could not). */
static void no_inputs(const char *path, const gc_cat_models *cat, const gpu_pred *p)
{
    char dir[4096], plan[4200] = "configs/default.cfg";
    if (!gc_configs_dir(dir, sizeof dir))
        snprintf(plan, sizeof plan, "%s/default.cfg", dir);
    if (p)
        fprintf(stderr, "gpucensus predict: %s: none of its %zu GPUs has the models' inputs (%s): "
                "its plan did not measure them; %s does (gpucensus run %s)\n", path, cat->ngpus,
                cat->ngpus ? p[0].error[GC_M_LITTLE] : "no GPU", plan, plan);
    else
        fprintf(stderr, "gpucensus predict: %s: none of its %zu links has a fitted transfer model "
                "(its plan measured no sweep of sizes); %s does (gpucensus run %s)\n", path,
                cat->nlinks, plan, plan);
}

const char gc_predict_usage[] =
    "predict CATALOGUE|OUT KERNEL.cfg [--json] | predict CATALOGUE|OUT --bytes N [--json]\n"
    "        a kernel's time on every GPU of a catalogue with both models (MWP-CWP,\n"
    "        Little's law), or a transfer's time on every link\n"
    "\n"
    "  KERNEL.cfg:  a kernel description (docs/kernel-description.md, configs/kernels)\n"
    "  --bytes:     a transfer of N bytes on every link, from the links' fitted models\n"
    "  --json:      JSON on stdout instead of the table\n"
    "  the models' inputs are measured by configs/default.cfg; a catalogue of a plan that\n"
    "  did not measure them (demo, quick) has none: exit 3, naming the plan that does\n"
    "exit codes: 0 done; 1 could not write; 2 bad arguments or description;\n"
    "            3 unreadable catalogue, or one without the models' inputs\n";

enum { PR_JSON, PR_BYTES };
static const gc_opt predict_opts[] = { [PR_JSON] = { "--json", 0 }, [PR_BYTES] = { "--bytes", 1 } };

int gc_predict_main(int argc, char **argv)
{
    const char *cat_path = NULL, *kpath = NULL;
    int json = 0, have_bytes = 0;
    double bytes = 0;
    gc_args a;
    gc_args_init(&a, "gpucensus predict", gc_predict_usage, argc, argv, predict_opts,
                 sizeof predict_opts / sizeof *predict_opts);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        if (k == GC_ARG_HELP)
            return 0;
        if (k == GC_ARG_BAD)
            return GC_EXIT_USAGE;
        if (k == PR_JSON) {
            json = 1;
        } else if (k == PR_BYTES) {
            char *end;
            errno = 0;
            bytes = strtod(a.value, &end);
            if (!*a.value || *end || errno || !(bytes >= 0 && bytes <= 1e15))
                return fprintf(stderr, "gpucensus predict: --bytes: a size in bytes, 0..1e15\n"), 2;
            have_bytes = 1;
        } else if (!cat_path) {
            cat_path = a.value;
        } else if (!kpath) {
            kpath = a.value;
        } else {
            return gc_args_unexpected(&a, a.value);
        }
    }
    if (!cat_path || (!kpath) == !have_bytes)
        return gc_args_missing(&a, "CATALOGUE and either KERNEL.cfg or --bytes N");
    char path[4200];
    gc_catalogue_path(cat_path, path, sizeof path);
    cat_path = path;
    gc_err e = { 0 };
    gc_kdesc d;
    if (kpath && gc_kdesc_load(kpath, &d, &e))
        return fprintf(stderr, "gpucensus predict: %s\n", e.msg), 2;
    gc_cat_models cat;
    if (gc_catread_models(cat_path, &cat, &e))
        return fprintf(stderr, "gpucensus predict: %s\n", e.msg), 3;
    gpu_pred *p = kpath ? calloc(cat.ngpus ? cat.ngpus : 1, sizeof *p) : NULL;
    char *buf = json ? malloc(GC_JW_BUF) : NULL;
    if ((kpath && !p) || (json && !buf)) {
        free(p);
        free(buf);
        gc_cat_models_free(&cat);
        return fprintf(stderr, "gpucensus predict: out of memory\n"), 1;
    }
    gc_kdesc_set set;
    gc_kdesc_set_embedded(&set);
    int calrc = 0;
    for (size_t i = 0; kpath && i < cat.ngpus && !calrc; i++) {
        gpu_cal cal;
        calrc = calibrate_gpu(&cat.gpus[i], &set, &cal);
        predict_gpu(&cat.gpus[i], &cal, &d, &p[i]);
    }
    gc_kdesc_set_free(&set);
    if (calrc) {
        free(p);
        free(buf);
        gc_cat_models_free(&cat);
        return fprintf(stderr, "gpucensus predict: out of memory\n"), 1;
    }
    int rc = 0, none = !predictable(&cat, p);
    if (none)   /* the JSON still says what each GPU lacks; a table of "-" would not */
        no_inputs(cat_path, &cat, p);
    if (none && !json) {
        rc = 3;
    } else if (json) {
        gc_jw w;
        gc_jw_init(&w, stdout, buf, 0);
        if (kpath)
            json_kernel(&w, &cat, cat_path, &d, p);
        else
            json_bytes(&w, &cat, cat_path, bytes);
        gc_jw_put(&w, "\n", 1);
        rc = gc_jw_finish(&w, "stdout", &e) ? 1 : none ? 3 : 0;
    } else if (kpath) {
        table_kernel(&cat, cat_path, &d, p);
    } else {
        table_bytes(&cat, cat_path, bytes);
    }
    free(p);
    free(buf);
    gc_cat_models_free(&cat);
    return rc;
}
