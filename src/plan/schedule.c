/* Phase schedule. See schedule.h. */
#include "plan/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

#define NET_ROUNDS 2

static int net_rounds(const gc_geom *g)
{
    return g->nodes - 1 < NET_ROUNDS ? g->nodes - 1 : NET_ROUNDS;
}

int gc_phase_steps(gc_phase p, const gc_geom *g)
{
    switch (p) {
    case GC_PHASE_GPU:
    case GC_PHASE_CONCURRENT: return 1;
    case GC_PHASE_ISOLATED: return g->local_size;
    case GC_PHASE_PAIR: return g->local_size * (g->local_size - 1);
    case GC_PHASE_NET: return net_rounds(g) > 0 ? net_rounds(g) * g->nodes : 0;
    default: return 0;
    }
}

/* First rank of node index n in the roster (ranks of a node need not be
 * contiguous). */
static int node_leader(const gc_geom *g, int node_index, const char **name)
{
    int seen = -1;
    for (int r = 0; r < g->size; r++) {
        int is_new = 1;
        for (int q = 0; q < r; q++)
            if (strcmp(g->roster[q].node, g->roster[r].node) == 0) {
                is_new = 0;
                break;
            }
        if (is_new && ++seen == node_index) {
            *name = g->roster[r].node;
            return r;
        }
    }
    *name = NULL;
    return -1;
}

typedef struct { gc_step_task *v; size_t n, cap; } task_vec;

/* A p2p copy both ways runs on one of its two ordered pairs. */
static int both_ways(const gc_item *it)
{
    return !strcmp(it->spec->name, "p2p") &&
           !strcmp(gc_ctx_str(&it->params, "direction", "oneway"), "bidir") &&
           strcmp(gc_ctx_str(&it->params, "mode", "copy"), "chase") != 0;
}

static int pair_runs(const gc_item *it, int src, int dst, int L)
{
    int d = ((dst - src) % L + L) % L;
    return !both_ways(it) || 2 * d < L || (2 * d == L && src < dst);
}

/* Budget of the pair work that local rank src drives. */
static double pair_driven_s(const gc_item *items, size_t n, int src, int L)
{
    double sum = 0;
    for (int dst = 0; dst < L; dst++)
        for (size_t i = 0; dst != src && i < n; i++)
            if (items[i].phase == GC_PHASE_PAIR && pair_runs(&items[i], src, dst, L))
                sum += items[i].spec->budget_s;
    return sum;
}

static int push(task_vec *tv, const gc_item *it, int step, int peer_local, int peer_rank,
                const char *peer_node, int initiator)
{
    if (gc_grow((void **)&tv->v, &tv->cap, tv->n + 1, sizeof *tv->v))
        return GC_ENOMEM;
    gc_step_task *t = &tv->v[tv->n++];
    memset(t, 0, sizeof *t);
    t->task.item = it;
    t->task.peer_local_index = peer_local;
    t->task.peer_rank = peer_rank;
    t->task.peer_node = peer_node;
    t->task.initiator = initiator;
    t->step = step;
    t->budget_s = it->spec->budget_s;
    return 0;
}

/* Global rank of node-local rank l on this rank's node. */
static int rank_of_local(const gc_geom *g, int l)
{
    const char *mine = g->roster[g->rank].node;
    for (int r = 0; r < g->size; r++)
        if (strcmp(g->roster[r].node, mine) == 0 && g->roster[r].local_index == l)
            return r;
    return -1;
}

static int schedule_phase(const gc_item *items, size_t n, gc_phase ph, const gc_geom *g,
                          task_vec *tv)
{
    int steps = gc_phase_steps(ph, g), rc = 0;
    for (int s = 0; s < steps && !rc; s++) {
        for (size_t i = 0; i < n && !rc; i++) {
            const gc_item *it = &items[i];
            if (it->phase != ph)
                continue;
            if (ph == GC_PHASE_GPU || ph == GC_PHASE_CONCURRENT) {
                rc = push(tv, it, s, -1, -1, NULL, 1);
            } else if (ph == GC_PHASE_ISOLATED) {
                if (s == g->local_rank)
                    rc = push(tv, it, s, -1, -1, NULL, 1);
            } else if (ph == GC_PHASE_PAIR) {
                int L = g->local_size, src = s / (L - 1), k = s % (L - 1);
                int dst = k < src ? k : k + 1;
                if (!pair_runs(it, src, dst, L))
                    continue;
                if (g->local_rank == src)
                    rc = push(tv, it, s, dst, rank_of_local(g, dst), NULL, 1);
                else if (g->local_rank == dst)
                    rc = push(tv, it, s, src, rank_of_local(g, src), NULL, 0);
            } else if (ph == GC_PHASE_NET && g->local_rank == 0) {
                /* One node pair at a time: simple and deadlock-free; a
                 * parallel matching is left for when clusters need it. */
                int r = s / g->nodes + 1, src = s % g->nodes, dst = (src + r) % g->nodes;
                const char *name = NULL;
                if (g->node_index == src) {
                    int peer = node_leader(g, dst, &name);
                    rc = push(tv, it, s, -1, peer, name, 1);
                } else if (g->node_index == dst) {
                    int peer = node_leader(g, src, &name);
                    rc = push(tv, it, s, -1, peer, name, 0);
                }
            }
        }
    }
    return rc;
}

int gc_schedule(const gc_item *items, size_t nitems, const gc_geom *g, double pair_budget_s,
                gc_step_task **out, size_t *nout, gc_err *err)
{
    task_vec tv = { 0 };
    for (int ph = 0; ph < GC_NPHASES; ph++)
        if (schedule_phase(items, nitems, (gc_phase)ph, g, &tv)) {
            free(tv.v);
            return gc_fail(err, GC_ENOMEM, "schedule: out of memory");
        }
    /* one factor per node (both ranks of a pair must agree): the GPU that
     * drives the most pair work gets pair_budget_s */
    double most = 0;
    for (int src = 0; pair_budget_s > 0 && g->local_size > 1 && src < g->local_size; src++) {
        double d = pair_driven_s(items, nitems, src, g->local_size);
        most = d > most ? d : most;
    }
    if (most > pair_budget_s && pair_budget_s > 0)
        for (size_t k = 0; k < tv.n; k++)
            if (tv.v[k].task.item->phase == GC_PHASE_PAIR)
                tv.v[k].budget_s *= pair_budget_s / most;
    *out = tv.v;
    *nout = tv.n;
    return 0;
}

void gc_schedule_budgets(const gc_step_task *t, size_t n, double out[GC_NPHASES])
{
    for (int p = 0; p < GC_NPHASES; p++)
        out[p] = 0;
    for (size_t k = 0; k < n; k++)
        if (t[k].task.initiator && (unsigned)t[k].task.item->phase < GC_NPHASES)
            out[t[k].task.item->phase] += t[k].budget_s;
}

int gc_geom_simulated(int ranks, int nodes, int rank, gc_geom *g, gc_roster_entry **roster,
                      gc_err *err)
{
    if (ranks < 1 || nodes < 1 || rank < 0 || rank >= ranks)
        return gc_fail(err, GC_EINVAL, "ranks and nodes must be >= 1");
    /* Contiguous blocks, as gc_cluster_init places simulated nodes. */
    int per = (ranks + nodes - 1) / nodes;
    gc_roster_entry *ro = calloc((size_t)ranks, sizeof *ro);
    if (!ro)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    for (int r = 0; r < ranks; r++) {
        ro[r].rank = r;
        ro[r].local_index = r % per;
        snprintf(ro[r].node, sizeof ro[r].node, "n%d", r / per + 1);
    }
    memset(g, 0, sizeof *g);
    g->rank = rank;
    g->size = ranks;
    g->local_rank = rank % per;
    g->node_index = rank / per;
    g->nodes = (ranks + per - 1) / per;
    g->local_size = g->node_index == g->nodes - 1 ? ranks - (g->nodes - 1) * per : per;
    g->roster = ro;
    *roster = ro;
    return 0;
}

int gc_plan_budget_of(const gc_item *items, size_t nitems, double pair_budget_s, int ranks,
                      int nodes, const char *only, gc_budget_each each, void *ctx, gc_plan_budget *out,
                      gc_err *err)
{
    memset(out, 0, sizeof *out);
    double node_wall = 0;
    char node[GC_NODE_MAX] = "";
    int rc = 0;
    for (int r = 0; !rc && r < ranks; r++) {
        gc_geom g;
        gc_roster_entry *ro = NULL;
        gc_step_task *tasks = NULL;
        size_t nt = 0;
        rc = gc_geom_simulated(ranks, nodes, r, &g, &ro, err);
        if (!rc)
            rc = gc_schedule(items, nitems, &g, pair_budget_s, &tasks, &nt, err);
        if (!rc && only)
            gc_schedule_only(tasks, &nt, only);
        if (!rc) {
            double b[GC_NPHASES];
            gc_schedule_budgets(tasks, nt, b);
            if (each)
                each(ctx, r, &ro[r], tasks, nt, b);
            for (int ph = 0; ph < GC_NPHASES; ph++)
                out->most_s[ph] = b[ph] > out->most_s[ph] ? b[ph] : out->most_s[ph];
            if (strcmp(node, ro[r].node))   /* a new node */
                node_wall = b[GC_PHASE_CONCURRENT] + b[GC_PHASE_NET];
            node_wall += b[GC_PHASE_ISOLATED] + b[GC_PHASE_PAIR];
            if (node_wall > out->node_transfers_s)
                out->node_transfers_s = node_wall;
            snprintf(node, sizeof node, "%s", ro[r].node);
        }
        free(tasks);
        free(ro);
    }
    const double *m = out->most_s;
    out->per_gpu_s = m[GC_PHASE_GPU] + m[GC_PHASE_ISOLATED] + m[GC_PHASE_CONCURRENT] +
                     m[GC_PHASE_PAIR] + m[GC_PHASE_NET];
    out->per_node_s = m[GC_PHASE_GPU] + out->node_transfers_s;
    return rc;
}

/* Whether the comma-separated list holds word. */
static int list_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !strncmp(p, word, n))
            return 1;
        p += len + (c != NULL);
    }
    return 0;
}

int gc_spec_selected(const gc_bench_spec *s, const char *only)
{
    return !only || list_has(only, s->name) || list_has(only, s->label);
}

int gc_plan_only_check(const gc_plan *plan, const char *only, gc_err *err)
{
    if (!*only)
        return gc_fail(err, GC_EINVAL, "--only: no benchmark named");
    for (const char *p = only; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        int found = 0;
        for (size_t i = 0; i < plan->nbench && !found; i++)
            found = (strlen(plan->bench[i].name) == len && !strncmp(plan->bench[i].name, p, len)) ||
                    (strlen(plan->bench[i].label) == len && !strncmp(plan->bench[i].label, p, len));
        if (!found) {
            char valid[2048];
            size_t n = 0;
            valid[0] = '\0';
            for (size_t i = 0; i < plan->nbench && n + 1 < sizeof valid; i++) {
                const gc_bench_spec *b = &plan->bench[i];
                int same = !strcmp(b->name, b->label);
                n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s%s%s%s", i ? ", " : "",
                                      b->label, same ? "" : " (", same ? "" : b->name,
                                      same ? "" : ")");
            }
            return gc_fail(err, GC_EINVAL, "--only: %s has no benchmark '%.*s' (its benchmarks: %s)",
                           plan->file, (int)(len > 64 ? 64 : len), p, valid);
        }
        p += len + (c != NULL);
    }
    return 0;
}

void gc_schedule_only(gc_step_task *tasks, size_t *ntasks, const char *only)
{
    size_t k = 0;
    for (size_t i = 0; i < *ntasks; i++)
        if (gc_spec_selected(tasks[i].task.item->spec, only))
            tasks[k++] = tasks[i];
    *ntasks = k;
}
