/* The progress line's ETA on a virtual clock: the default plan on one GPU
 * whose items take what the H100's took per second of budget (the
 * on-GPU sweeps a small and uneven fraction, the host copies about their
 * budget, the largest more, each item 10 ms of overhead, the sustained load
 * its duration), and a 2-node x 4-GPU layout of a small plan whose serial
 * phases are waited through. From 10% of the run on, the estimate must be
 * within 25% of the true time left (lines with under 1 s left not
 * counted), where one ratio for the whole run is not.
 * Usage: test_eta [REPO_ROOT]   (default ".") */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan/eta_est.h"
#include "run/eta.h"

/* What an item takes per second of budget, by label (as the H100's log
 * shows them: lab/fleet/h100-2026-12-07-afcf375b5117-eta.txt). */
static double took_per_budget(const gc_step_task *t)
{
    const char *l = t->task.item->spec->label;
    if (!strcmp(l, "sustain"))
        return 20.0 / 20.5;
    if (!strcmp(l, "chase"))
        return 0.12;
    if (!strcmp(l, "hbm_bw"))
        return 0.4;
    if (!strcmp(l, "hbm_full"))
        return 1.0;
    if (!strcmp(l, "xfer_large"))
        return 1.2;
    if (t->task.item->phase != GC_PHASE_GPU)
        return 0.9;
    return 0.06;
}

/* One GPU's run on a virtual clock: the worst relative error of the ETA,
 * sampled every 0.25 s, from frac of the run on. single: the one-ratio
 * estimate of before (every phase at the ratio seen so far). */
static double worst_error(const gc_step_task *ts, size_t n, const gc_eta_left *left, double frac,
                          int single)
{
    double *end = malloc((n + 1) * sizeof *end), t = 0.5;   /* start-up before the first task */
    end[0] = t;
    for (size_t k = 0; k < n; k++)
        end[k + 1] = t += 0.01 + ts[k].budget_s * took_per_budget(&ts[k]);
    double total = t + 0.7, worst = 0;   /* the end: analysis, catalogue */
    gc_eta_est e = { 0 };
    size_t k = 0;
    for (double now = end[0]; now < total; now += 0.25) {
        while (k <= n && end[k] <= now) {
            gc_eta_left l = left[k];
            if (single) {   /* every phase's budget in one: the ratio of all */
                double all = 0;
                for (int p = 0; p < GC_NPHASES; p++)
                    all += l.scalable_s[p], l.scalable_s[p] = 0;
                l.scalable_s[GC_PHASE_NET] = all;
            }
            gc_eta_est_tell(&e, end[k], &l);
            k++;
        }
        double eta = gc_eta_est_left(&e, now), truth = total - now;
        if (now >= frac * total && truth >= 1.0 && eta >= 0 && fabs(eta - truth) / truth > fabs(worst))
            worst = (eta - truth) / truth;
    }
    free(end);
    return worst;
}

static void default_plan_one_gpu(const char *root)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/configs/default.cfg", root);
    gc_plan plan;
    gc_err err = { 0 };
    CHECK(gc_plan_load(path, &plan, &err) == 0, "%s", err.msg);
    gc_item *items = NULL;
    size_t nitems = 0, n = 0;
    CHECK(gc_plan_expand(&plan, &items, &nitems, &err) == 0, "%s", err.msg);
    gc_geom g;
    gc_roster_entry *ro = NULL;
    gc_step_task *ts = NULL;
    CHECK(gc_geom_simulated(1, 1, 0, &g, &ro, &err) == 0, "%s", err.msg);
    CHECK(gc_schedule(items, nitems, &g, plan.pair_budget_s, &ts, &n, &err) == 0, "%s", err.msg);
    gc_eta_left *left = calloc(n + 1, sizeof *left);
    CHECK(gc_eta_timeline(items, nitems, &g, plan.pair_budget_s, ts, n, left, &err) == 0, "%s",
          err.msg);
    /* the budgets laid out (as `plan configs/default.cfg --ranks 1` prints
     * them): on-GPU 64.25 s, isolated 18.3 s, sustain 41 s */
    CHECK(fabs(left[0].scalable_s[GC_PHASE_GPU] - 64.25) < 0.1, "%g", left[0].scalable_s[GC_PHASE_GPU]);
    CHECK(fabs(left[0].scalable_s[GC_PHASE_ISOLATED] - 18.325) < 0.1, "%g",
          left[0].scalable_s[GC_PHASE_ISOLATED]);
    CHECK(fabs(left[0].fixed_s - 41.0) < 0.01, "%g", left[0].fixed_s);
    CHECK(left[n].fixed_s == 0 && left[n].scalable_s[GC_PHASE_ISOLATED] < 1e-9, "nothing left at the end");
    double per_phase = worst_error(ts, n, left, 0.10, 0), single = worst_error(ts, n, left, 0.10, 1);
    printf("default plan, one GPU: worst ETA error from 10%% on %+.0f%% per phase, %+.0f%% with one ratio\n",
           100 * per_phase, 100 * single);
    CHECK(fabs(per_phase) <= 0.25, "per phase %+.2f", per_phase);
    CHECK(fabs(single) > 0.25, "one ratio %+.2f (the case this guards against)", single);
    free(left), free(ts), free(ro), free(items);
    gc_plan_free(&plan);
}

/* Rank 0 of 2 nodes x 4 GPUs: its timeline counts the other GPUs' steps of
 * the serial phases it waits through, in their phases. */
static void serial_waits(void)
{
    static const char *P =
        "name = \"t\";\n"
        "benchmarks = ( { name = \"chase\"; budget_s = 1.0; sweep = { footprint_bytes = [4096, 8192]; }; },\n"
        "  { name = \"xfer\"; budget_s = 0.5; sweep = { direction = \"h2d\"; size_bytes = [4096, 8192]; }; },\n"
        "  { name = \"sustain\"; budget_s = 3.0; sweep = { load = \"hbm\"; duration_s = 2.5; }; } );\n";
    gc_plan plan;
    gc_err err = { 0 };
    CHECK(gc_plan_load_mem("t.cfg", P, strlen(P), &plan, &err) == 0, "%s", err.msg);
    gc_item *items = NULL;
    size_t nitems = 0, n = 0;
    CHECK(gc_plan_expand(&plan, &items, &nitems, &err) == 0, "%s", err.msg);
    gc_geom g;
    gc_roster_entry *ro = NULL;
    gc_step_task *ts = NULL;
    CHECK(gc_geom_simulated(8, 2, 0, &g, &ro, &err) == 0, "%s", err.msg);
    CHECK(gc_schedule(items, nitems, &g, 0, &ts, &n, &err) == 0, "%s", err.msg);
    gc_eta_left *left = calloc(n + 1, sizeof *left);
    CHECK(gc_eta_timeline(items, nitems, &g, 0, ts, n, left, &err) == 0, "%s", err.msg);
    CHECK(n == 5, "%zu tasks", n);
    CHECK(fabs(left[0].scalable_s[GC_PHASE_GPU] - 2.0) < 1e-9, "%g", left[0].scalable_s[GC_PHASE_GPU]);
    /* four GPUs' host copies one after another: 4 x 1 s */
    CHECK(fabs(left[0].scalable_s[GC_PHASE_ISOLATED] - 4.0) < 1e-9, "%g",
          left[0].scalable_s[GC_PHASE_ISOLATED]);
    CHECK(fabs(left[0].fixed_s - 3.0) < 1e-9, "%g", left[0].fixed_s);
    /* after rank 0's own copies (task 3 done): the three other GPUs' still ahead */
    CHECK(fabs(left[4].scalable_s[GC_PHASE_ISOLATED] - 3.0) < 1e-9, "%g",
          left[4].scalable_s[GC_PHASE_ISOLATED]);
    CHECK(left[4].scalable_s[GC_PHASE_GPU] == 0, "%g", left[4].scalable_s[GC_PHASE_GPU]);
    free(left), free(ts), free(ro), free(items);
    gc_plan_free(&plan);
}

/* The estimator alone: each phase by its own ratio, a phase not started at
 * its prior, the fixed part at its budget. */
static void ratios(void)
{
    gc_eta_est e = { 0 };
    gc_eta_left l = { 10.0, { 40.0, 10.0, 0, 0, 0 } };
    gc_eta_est_tell(&e, 100.0, &l);
    double at0 = gc_eta_est_left(&e, 100.0);
    CHECK(fabs(at0 - (10 + 40 * gc_eta_prior(GC_PHASE_GPU) + 10)) < 1e-9, "%g", at0);
    l.scalable_s[GC_PHASE_GPU] = 0;   /* the on-GPU 40 s of budget in 8 s */
    gc_eta_est_tell(&e, 108.0, &l);
    CHECK(fabs(gc_eta_est_ratio(&e, GC_PHASE_GPU) - (8 + 2 * gc_eta_prior(GC_PHASE_GPU)) / 42) < 1e-9,
          "%g", gc_eta_est_ratio(&e, GC_PHASE_GPU));
    CHECK(gc_eta_est_ratio(&e, GC_PHASE_ISOLATED) == gc_eta_prior(GC_PHASE_ISOLATED), "isolated at its prior");
    CHECK(fabs(gc_eta_est_left(&e, 108.0) - 20.0) < 1e-9, "%g", gc_eta_est_left(&e, 108.0));
    l.fixed_s = 0;   /* the sustained load: its 10 s count at its budget, the other 4 s isolated's */
    l.scalable_s[GC_PHASE_ISOLATED] = 5.0;
    gc_eta_est_tell(&e, 122.0, &l);
    CHECK(fabs(e.took_s[GC_PHASE_ISOLATED] - 4.0) < 1e-9, "%g", e.took_s[GC_PHASE_ISOLATED]);
    CHECK(fabs(gc_eta_est_left(&e, 122.0) - 5.0 * (4 + 2) / 7) < 1e-9, "%g", gc_eta_est_left(&e, 122.0));
    CHECK(gc_eta_est_left(&e, 1000.0) == 0, "never below 0");
    gc_eta_left none = { 0, { 0 } };
    gc_eta_est_tell(&e, 123.0, &none);
    CHECK(gc_eta_est_left(&e, 123.0) == -1, "nothing left: not known");
}

int main(int argc, char **argv)
{
    ratios();
    serial_waits();
    default_plan_one_gpu(argc > 1 ? argv[1] : ".");
    CHECK_DONE();
}
