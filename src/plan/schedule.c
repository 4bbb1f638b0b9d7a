/* Phase schedule. See schedule.h. */
#include "plan/schedule.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

#define NET_ROUNDS 2
#define NET_COLOURS 3   /* steps per round: a cycle of odd length needs a third */

static int net_rounds(const gc_geom *g)
{
    return g->nodes - 1 < NET_ROUNDS ? g->nodes - 1 : NET_ROUNDS;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* x with a * x = 1 mod m (gcd(a, m) = 1, m >= 1) */
static int inverse_mod(int a, int m)
{
    long t = 0, nt = 1, r = m, nr = a % m;
    while (nr) {
        long q = r / nr, x = t - q * nt, y = r - q * nr;
        t = nt, nt = x, r = nr, nr = y;
    }
    return (int)((t % m + m) % m);
}

/* Round r's pairs are node i -> i + r (mod N): cycles of L = N / gcd(N, r)
 * nodes each. The pair that leaves node i is coloured by i's position p in
 * its cycle: p mod 2, and 2 for the last of an odd cycle, so the pairs of a
 * colour share no node and run at once, one step per colour. */
static int net_colour(int N, int r, int i)
{
    int g = gcd(N, r), L = N / g, c = i % g;
    int p = (int)((long)((i - c) / g) * inverse_mod((r / g) % L, L) % L);
    return L % 2 && p == L - 1 ? 2 : p % 2;
}

int gc_phase_steps(gc_phase p, const gc_geom *g)
{
    switch (p) {
    case GC_PHASE_GPU:
    case GC_PHASE_CONCURRENT: return 1;
    case GC_PHASE_ISOLATED: return g->local_size;
    case GC_PHASE_PAIR: return g->local_size * (g->local_size - 1);
    case GC_PHASE_NET: return net_rounds(g) > 0 ? net_rounds(g) * NET_COLOURS : 0;
    default: return 0;
    }
}

/* FNV-1a of a node name, for the roster's index */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void gc_geom_index_free(gc_geom_index *ix)
{
    free(ix->node_of);
    free(ix->leader);
    free(ix->start);
    free(ix->by_node);
    memset(ix, 0, sizeof *ix);
}

static int by_local(const void *a, const void *b, const gc_roster_entry *ro)
{
    int x = *(const int *)a, y = *(const int *)b;
    int d = ro[x].local_index - ro[y].local_index;
    return d ? d : x - y;
}

/* insertion sort of one node's ranks by local index (a node has few) */
static void sort_node(int *v, int n, const gc_roster_entry *ro)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_local(&v[j - 1], &v[j], ro) > 0; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

int gc_geom_index_build(const gc_roster_entry *ro, int size, gc_geom_index *ix, gc_err *err)
{
    memset(ix, 0, sizeof *ix);
    size_t cap = 16;
    while (cap < 2 * (size_t)size)
        cap *= 2;
    int *slot = malloc(cap * sizeof *slot);   /* hash slot -> first rank of a node */
    ix->node_of = malloc((size_t)size * sizeof *ix->node_of);
    ix->leader = malloc((size_t)size * sizeof *ix->leader);
    ix->start = calloc((size_t)size + 1, sizeof *ix->start);
    ix->by_node = malloc((size_t)size * sizeof *ix->by_node);
    if (!slot || !ix->node_of || !ix->leader || !ix->start || !ix->by_node) {
        free(slot);
        gc_geom_index_free(ix);
        return gc_fail(err, GC_ENOMEM, "schedule: out of memory");
    }
    for (size_t k = 0; k < cap; k++)
        slot[k] = -1;
    for (int r = 0; r < size; r++) {
        size_t k = name_hash(ro[r].node) & (cap - 1);
        while (slot[k] >= 0 && strcmp(ro[slot[k]].node, ro[r].node))
            k = (k + 1) & (cap - 1);
        if (slot[k] < 0) {
            slot[k] = r;
            ix->leader[ix->nodes] = r;
            ix->node_of[r] = ix->nodes++;
        } else {
            ix->node_of[r] = ix->node_of[slot[k]];
        }
        ix->start[ix->node_of[r] + 1]++;
    }
    free(slot);
    for (int n = 0; n < ix->nodes; n++)
        ix->start[n + 1] += ix->start[n];
    int *fill = calloc((size_t)ix->nodes + 1, sizeof *fill);
    if (!fill) {
        gc_geom_index_free(ix);
        return gc_fail(err, GC_ENOMEM, "schedule: out of memory");
    }
    for (int r = 0; r < size; r++) {
        int n = ix->node_of[r];
        ix->by_node[ix->start[n] + fill[n]++] = r;
    }
    free(fill);
    for (int n = 0; n < ix->nodes; n++)
        sort_node(ix->by_node + ix->start[n], ix->start[n + 1] - ix->start[n], ro);
    return 0;
}

void gc_geom_at(gc_geom *g, int rank)
{
    const gc_geom_index *ix = g->index;
    int n = ix->node_of[rank];
    g->rank = rank;
    g->node_index = n;
    g->nodes = ix->nodes;
    g->local_rank = g->roster[rank].local_index;
    g->local_size = ix->start[n + 1] - ix->start[n];
}

/* First rank of node index n in the roster (ranks of a node need not be
 * contiguous). */
static int node_leader(const gc_geom *g, int node_index, const char **name)
{
    if (node_index < 0 || node_index >= g->index->nodes) {
        *name = NULL;
        return -1;
    }
    int r = g->index->leader[node_index];
    *name = g->roster[r].node;
    return r;
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
    const gc_geom_index *ix = g->index;
    int n = ix->node_of[g->rank];
    for (int k = ix->start[n]; k < ix->start[n + 1]; k++)   /* sorted: usually k = start + l */
        if (g->roster[ix->by_node[k]].local_index == l)
            return ix->by_node[k];
    return -1;
}

/* The tasks of step s of phase ph (not net) that concern this rank, items
 * in order. */
static int schedule_step(const gc_item *items, size_t n, gc_phase ph, int s, const gc_geom *g,
                         task_vec *tv)
{
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const gc_item *it = &items[i];
        if (it->phase != ph)
            continue;
        if (ph == GC_PHASE_GPU || ph == GC_PHASE_CONCURRENT || ph == GC_PHASE_ISOLATED) {
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
        }
    }
    return rc;
}

/* Only the steps this rank takes part in, in step order: O(its own work),
 * not O(the cluster's steps). */
static int schedule_phase(const gc_item *items, size_t n, gc_phase ph, const gc_geom *g,
                          task_vec *tv)
{
    int rc = 0;
    if (ph == GC_PHASE_GPU || ph == GC_PHASE_CONCURRENT)
        return schedule_step(items, n, ph, 0, g, tv);
    if (ph == GC_PHASE_ISOLATED)
        return g->local_rank < g->local_size ? schedule_step(items, n, ph, g->local_rank, g, tv) : 0;
    if (ph == GC_PHASE_PAIR) {
        int L = g->local_size, me = g->local_rank;
        if (L < 2 || me < 0 || me >= L)
            return 0;
        for (int src = 0; src < L && !rc; src++) {
            if (src == me)   /* the steps this rank drives, contiguous */
                for (int k = 0; k < L - 1 && !rc; k++)
                    rc = schedule_step(items, n, ph, src * (L - 1) + k, g, tv);
            else   /* the one step where src drives this rank */
                rc = schedule_step(items, n, ph, src * (L - 1) + (me < src ? me : me - 1), g, tv);
        }
        return rc;
    }
    if (ph == GC_PHASE_NET && g->local_rank == 0) {
        /* Disjoint node pairs at once: in round r this node drives the pair
         * to node + r on the step of its colour and answers node - r's on
         * that node's (net_colour); the pairs of one step share no node. */
        int N = g->nodes, me = g->node_index;
        for (int r = 1; r <= net_rounds(g) && !rc; r++) {
            int from = (me - r + N) % N;
            int a = (r - 1) * NET_COLOURS + net_colour(N, r, me);
            int b = (r - 1) * NET_COLOURS + net_colour(N, r, from);
            for (int k = 0; k < 2 && !rc; k++) {
                int drive = (k == 0) == (a < b);   /* the earlier step first */
                const char *name = NULL;
                int peer = node_leader(g, drive ? (me + r) % N : from, &name);
                for (size_t i = 0; i < n && !rc; i++)
                    if (items[i].phase == GC_PHASE_NET)
                        rc = push(tv, &items[i], drive ? a : b, -1, peer, name, drive);
            }
        }
    }
    return rc;
}

int gc_schedule(const gc_item *items, size_t nitems, const gc_geom *g, double pair_budget_s,
                gc_step_task **out, size_t *nout, gc_err *err)
{
    task_vec tv = { 0 };
    gc_geom_index own = { 0 };
    gc_geom gi = *g;
    if (!gi.index) {
        if (gc_geom_index_build(g->roster, g->size, &own, err))
            return err ? err->code : GC_ENOMEM;
        gi.index = &own;
    }
    int rc = 0;
    for (int ph = 0; ph < GC_NPHASES && !rc; ph++)
        rc = schedule_phase(items, nitems, (gc_phase)ph, &gi, &tv);
    gc_geom_index_free(&own);
    if (rc) {
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
    /* one roster and one index for every rank: linear in ranks */
    gc_geom g;
    gc_geom_index ix = { 0 };
    gc_roster_entry *ro = NULL;
    int rc = gc_geom_simulated(ranks, nodes, 0, &g, &ro, err);
    if (!rc && !(rc = gc_geom_index_build(ro, ranks, &ix, err)))
        g.index = &ix;
    for (int r = 0; !rc && r < ranks; r++) {
        gc_step_task *tasks = NULL;
        size_t nt = 0;
        gc_geom_at(&g, r);
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
    }
    gc_geom_index_free(&ix);
    free(ro);
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
