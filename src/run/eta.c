/* The plan's wall budget left, per task of this rank. See eta.h. */
#include "run/eta.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

/* A segment: a parallel phase (gpu, concurrent) whole, or one step of a
 * serial phase; the node's ranks meet at its end. */
static size_t seg_of(const gc_step_task *t, int maxsteps)
{
    int p = (int)t->task.item->phase;
    int serial = p != GC_PHASE_GPU && p != GC_PHASE_CONCURRENT;
    return (size_t)p * (size_t)(maxsteps + 1) + (size_t)(serial ? t->step + 1 : 0);
}

/* The rank of the node's GPU lr (a node's ranks need not be contiguous);
 * -1: not in the roster. */
static int rank_of(const gc_geom *g, int lr)
{
    if (!g->roster)
        return g->rank - g->local_rank + lr;
    const char *node = g->roster[g->rank].node;
    for (int r = 0; r < g->size; r++)
        if (g->roster[r].local_index == lr && !strcmp(g->roster[r].node, node))
            return r;
    return -1;
}

static int fixed_time(const gc_step_task *t)
{
    return !strcmp(t->task.item->spec->name, "sustain");
}

/* A segment's budget: the longest GPU's, fixed and scalable. */
typedef struct seg_budget {
    double fixed_s, scalable_s;
} seg_budget;

/* Adds segment s's budget (or a task's: fixed or scalable) to l, in the
 * segment's phase. */
static void add_seg(gc_eta_left *l, size_t s, int maxsteps, double fixed_s, double scalable_s)
{
    size_t p = s / (size_t)(maxsteps + 1);
    l->fixed_s += fixed_s;
    if (p < GC_NPHASES)
        l->scalable_s[p] += scalable_s;
}

int gc_eta_timeline(const gc_item *items, size_t nitems, const gc_geom *g, double pair_budget_s,
                    const gc_step_task *tasks, size_t ntasks, gc_eta_left *left, gc_err *err)
{
    int maxsteps = 0;
    for (size_t k = 0; k < ntasks; k++)
        if (tasks[k].step > maxsteps)
            maxsteps = tasks[k].step;
    /* other ranks of the node may have more steps: bounded by the node's
     * size (pairs) and the node count (net) */
    int cap = g->local_size * g->local_size + 2 * g->nodes + 8;
    if (maxsteps < cap)
        maxsteps = cap;
    maxsteps++;   /* a serial step t is segment t + 1 of its phase */
    size_t nseg = (size_t)GC_NPHASES * (size_t)(maxsteps + 1);
    seg_budget *wall = calloc(nseg, sizeof *wall), *own = calloc(nseg, sizeof *own),
               *sum = calloc(nseg, sizeof *sum);
    int rc = wall && own && sum ? 0 : gc_fail(err, GC_ENOMEM, "out of memory");
    for (int lr = 0; !rc && lr < g->local_size; lr++) {
        gc_geom o = *g;
        o.local_rank = lr;
        o.rank = rank_of(g, lr);
        gc_step_task *ts = NULL;
        size_t n = 0;
        gc_err e = { 0 };
        if (lr == g->local_rank) {
            ts = (gc_step_task *)tasks;
            n = ntasks;
        } else if (o.rank < 0 || o.rank >= g->size ||
                   gc_schedule(items, nitems, &o, pair_budget_s, &ts, &n, &e)) {
            continue;   /* a rank not laid out: the others stand for it */
        }
        memset(sum, 0, nseg * sizeof *sum);
        for (size_t k = 0; k < n; k++) {
            size_t s = seg_of(&ts[k], maxsteps);
            if (s >= nseg)
                continue;
            if (fixed_time(&ts[k]))
                sum[s].fixed_s += ts[k].budget_s;
            else
                sum[s].scalable_s += ts[k].budget_s;
        }
        for (size_t s = 0; s < nseg; s++) {
            if (sum[s].fixed_s + sum[s].scalable_s > wall[s].fixed_s + wall[s].scalable_s)
                wall[s] = sum[s];
            if (lr == g->local_rank)
                own[s] = sum[s];
        }
        if (ts != tasks)
            free(ts);
    }
    if (!rc) {
        /* from the end: what is left after each segment, then each task */
        gc_eta_left after;
        memset(&after, 0, sizeof after);
        size_t s_next = nseg;
        left[ntasks] = after;
        seg_budget in_seg = { 0, 0 };   /* own budget left in the current segment */
        for (size_t k = ntasks; k-- > 0;) {
            size_t s = seg_of(&tasks[k], maxsteps);
            if (s != s_next) {
                /* the segments between s and s_next (other ranks' steps) */
                for (size_t x = s + 1; x < s_next && x < nseg; x++)
                    add_seg(&after, x, maxsteps, wall[x].fixed_s, wall[x].scalable_s);
                if (s_next < nseg)
                    add_seg(&after, s_next, maxsteps, wall[s_next].fixed_s, wall[s_next].scalable_s);
                s_next = s;
                in_seg = (seg_budget){ 0, 0 };
            }
            if (fixed_time(&tasks[k]))
                in_seg.fixed_s += tasks[k].budget_s;
            else
                in_seg.scalable_s += tasks[k].budget_s;
            /* the segment lasts its longest rank: what this one will wait */
            double wf = 0, ws = 0;
            if (s < nseg) {
                wf = fmax(0, wall[s].fixed_s - own[s].fixed_s);
                ws = fmax(0, wall[s].scalable_s - own[s].scalable_s);
            }
            left[k] = after;
            add_seg(&left[k], s, maxsteps, in_seg.fixed_s + wf, in_seg.scalable_s + ws);
        }
        /* before the first task: the segments it waits through too */
        for (size_t x = 0; ntasks && x < s_next && x < nseg; x++)
            add_seg(&left[0], x, maxsteps, wall[x].fixed_s, wall[x].scalable_s);
        /* as the watch hears it: once task k-1 is done (the waits for the
         * node's other GPUs that follow it still ahead), not before task k */
        for (size_t k = ntasks; k > 0; k--) {
            const gc_step_task *t = &tasks[k - 1];
            size_t p = (size_t)t->task.item->phase;
            left[k] = left[k - 1];
            if (fixed_time(t))
                left[k].fixed_s = fmax(0, left[k].fixed_s - t->budget_s);
            else if (p < GC_NPHASES)
                left[k].scalable_s[p] = fmax(0, left[k].scalable_s[p] - t->budget_s);
        }
    }
    free(wall), free(own), free(sum);
    return rc;
}
