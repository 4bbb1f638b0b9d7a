/* The transfer parts of the schedule: p2p both ways once per pair of GPUs
 * (balanced), pair budgets under pair_budget_s, and the net checks that
 * measure a slow pair's sides against a node with good results, and the
 * slow ends of a small set of network links. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "judge/net_checks.h"
#include "plan/schedule.h"

static gc_plan plan;

static void load(const char *text)
{
    gc_err e = { 0 };
    int rc = gc_plan_load_mem("t.cfg", text, strlen(text), &plan, &e);
    CHECK(rc == 0, "plan: %s", e.msg);
}

static const char *P2P =
    "name = \"t\"; pair_budget_s = 10.0;\n"
    "benchmarks = ( { name = \"p2p\"; budget_s = 0.5;\n"
    "  sweep = { direction = [\"oneway\", \"bidir\"]; size_bytes = [4096, 1048576]; }; },\n"
    "  { name = \"p2p\"; label = \"c\"; budget_s = 0.25; sweep = { mode = \"chase\"; }; } );\n";

/* Tasks of local rank `lr` on a node of L GPUs. */
static size_t tasks_of(const gc_item *items, size_t n, int L, int lr, double pb, double *pair_s,
                       int *bidir_driven)
{
    gc_geom g;
    gc_roster_entry *ro = NULL;
    gc_step_task *t = NULL;
    size_t nt = 0;
    gc_err e = { 0 };
    CHECK(gc_geom_simulated(L, 1, lr, &g, &ro, &e) == 0, "geom");
    CHECK(gc_schedule(items, n, &g, pb, &t, &nt, &e) == 0, "schedule");
    double b[GC_NPHASES];
    gc_schedule_budgets(t, nt, b);
    *pair_s = b[GC_PHASE_PAIR];
    *bidir_driven = 0;
    for (size_t k = 0; k < nt; k++)
        if (t[k].task.initiator &&
            !strcmp(gc_ctx_str(&t[k].task.item->params, "direction", ""), "bidir"))
            (*bidir_driven)++;
    free(t);
    free(ro);
    return nt;
}

static void test_pairs(void)
{
    load(P2P);
    gc_item *items = NULL;
    size_t n = 0;
    gc_err e = { 0 };
    CHECK(gc_plan_expand(&plan, &items, &n, &e) == 0, "expand");
    CHECK(n == 5, "items %zu", n);
    /* 8 GPUs: 7 peers oneway (1.0 s + chase 0.25 each), bidir with 3 or 4
     * of them (1.0 s each): GPU 0 drives 7 x 1.25 + 4 = 12.75 s > 10 */
    int total_bidir = 0, most_bidir = 0;
    double most = 0;
    for (int lr = 0; lr < 8; lr++) {
        double s;
        int bd;
        tasks_of(items, n, 8, lr, plan.pair_budget_s, &s, &bd);
        total_bidir += bd;
        most_bidir = bd > most_bidir ? bd : most_bidir;
        most = s > most ? s : most;
        CHECK(bd == 3 * 2 || bd == 4 * 2, "gpu %d drives %d bidir items", lr, bd);
    }
    CHECK(total_bidir == 28 * 2, "bidir items on the node %d (28 pairs x 2 sizes)", total_bidir);
    CHECK(fabs(most - 10.0) < 1e-9, "pair budget of the busiest GPU %.3f", most);
    /* without the cap: 12.75 s */
    double s;
    int bd;
    tasks_of(items, n, 8, 0, 0, &s, &bd);
    CHECK(fabs(s - 12.75) < 1e-9, "uncapped %.3f", s);
    /* 2 GPUs: GPU 0 owns the pair's bidir; no scaling (2.25 s < 10) */
    tasks_of(items, n, 2, 0, plan.pair_budget_s, &s, &bd);
    CHECK(bd == 2 && fabs(s - 2.25) < 1e-9, "2 GPUs, gpu 0: %d bidir, %.3f s", bd, s);
    tasks_of(items, n, 2, 1, plan.pair_budget_s, &s, &bd);
    CHECK(bd == 0 && fabs(s - 1.25) < 1e-9, "2 GPUs, gpu 1: %d bidir, %.3f s", bd, s);
    free(items);
    gc_plan_free(&plan);
}

static const char *NET =
    "name = \"t\";\n"
    "benchmarks = ( { name = \"net\"; budget_s = 1.0; sweep = { size_bytes = [4096, 1048576]; }; } );\n";

/* The net phase on N = 2..17 nodes of 2 GPUs: each node's first rank drives
 * one pair and answers one per round (two partners, one with 2 nodes), the
 * pairs of a step share no node, both ends of a pair agree on its step,
 * and the phase has 3 steps a round whatever N. */
static void test_net_parallel(void)
{
    load(NET);
    gc_item *items = NULL;
    size_t n = 0;
    gc_err e = { 0 };
    CHECK(gc_plan_expand(&plan, &items, &n, &e) == 0, "expand");
    for (int N = 2; N <= 17; N++) {
        int steps = 0, *drive = calloc((size_t)N * 6, sizeof *drive);   /* [step][node]: peer + 1 */
        int *busy = calloc((size_t)N * 6, sizeof *busy);
        for (int rank = 0; rank < 2 * N; rank++) {
            gc_geom g;
            gc_roster_entry *ro = NULL;
            gc_step_task *t = NULL;
            size_t nt = 0;
            CHECK(gc_geom_simulated(2 * N, N, rank, &g, &ro, &e) == 0, "geom");
            steps = gc_phase_steps(GC_PHASE_NET, &g);
            CHECK(gc_schedule(items, n, &g, 0, &t, &nt, &e) == 0, "schedule");
            int last = -1, mine = 0;
            for (size_t k = 0; k < nt; k++) {
                const gc_step_task *x = &t[k];
                CHECK(g.local_rank == 0, "N %d: rank %d (not a leader) in the net phase", N, rank);
                CHECK(x->step >= last && x->step < steps, "N %d: steps in order", N);
                last = x->step;
                int peer = x->task.peer_rank / 2, me = g.node_index;
                CHECK(peer != me && x->task.peer_rank % 2 == 0, "N %d: peer %d", N, x->task.peer_rank);
                if (x->task.item != &items[0])
                    continue;
                mine++;
                int *b = &busy[x->step * N + me];
                CHECK(*b == 0, "N %d: node %d twice in step %d", N, me, x->step);
                *b = peer + 1;
                if (x->task.initiator)
                    drive[x->step * N + me] = peer + 1;
            }
            if (g.local_rank == 0)
                CHECK(mine == (N == 2 ? 2 : 4), "N %d: node %d in %d pairs", N, g.node_index, mine);
            free(t);
            free(ro);
        }
        CHECK(steps == (N == 2 ? 3 : 6), "N %d: %d steps", N, steps);
        int pairs = 0;
        for (int s = 0; s < steps; s++)
            for (int a = 0; a < N; a++)
                if (drive[s * N + a]) {   /* its other end answers it in the same step */
                    int b = drive[s * N + a] - 1;
                    CHECK(busy[s * N + b] == a + 1 && !drive[s * N + b], "N %d step %d: %d -> %d", N, s, a, b);
                    pairs++;
                }
        CHECK(pairs == (N == 2 ? 2 : 2 * N), "N %d: %d pairs", N, pairs);   /* 2 nodes: both ways */
        free(drive);
        free(busy);
    }
    free(items);
    gc_plan_free(&plan);
}

static void test_net_checks(void)
{
    gc_rules r;
    gc_rules_default(&r);
    /* 5 nodes (ranks 0..4), two rounds; rank 2's NIC is slow */
    gc_net_pair p[10];
    size_t n = 0;
    for (int s = 0; s < 5; s++)
        for (int k = 1; k <= 2; k++) {
            int d = (s + k) % 5;
            p[n++] = (gc_net_pair){ s, d, (s == 2 || d == 2) ? 2e9 : 20e9 * (1 + 0.01 * s) };
        }
    gc_net_pair out[10];
    size_t m = gc_net_checks(p, n, &r, out, 10);
    /* slow pairs: (0,2) (1,2) (2,3) (2,4): sides 0, 2, 1, 3, 4 once each */
    CHECK(m == 5, "checks %zu", m);
    int seen[5] = { 0 };
    for (size_t k = 0; k < m; k++) {
        CHECK(out[k].dst != 2 && out[k].dst != out[k].src, "check %d -> %d", out[k].src, out[k].dst);
        seen[out[k].src]++;
    }
    for (int q = 0; q < 5; q++)
        CHECK(seen[q] == 1, "side %d checked %d times", q, seen[q]);
    /* healthy: nothing to check; too few pairs: nothing */
    for (size_t i = 0; i < n; i++)
        p[i].bps = 20e9 * (1 + 0.01 * (double)i);
    CHECK(gc_net_checks(p, n, &r, out, 10) == 0, "healthy");
    p[0].bps = 1e9;
    CHECK(gc_net_checks(p, 2, &r, out, 10) == 0, "2 pairs");
}

/* 4 nodes, two rounds (8 pairs, each node in 4): a NIC at half speed is
 * in half the pairs, and the median over all of them (between its pairs
 * and the others) hid it; against the pairs of the other nodes it shows. */
static void test_net_slow_ends(void)
{
    gc_rules r;
    gc_rules_default(&r);
    double bps[8];
    uint32_t ends[16];
    gc_net_pair p[8];
    size_t n = 0;
    for (int k = 1; k <= 2; k++)
        for (int s = 0; s < 4; s++) {
            int d = (s + k) % 4;
            double noise = 1 + 0.01 * (double)((n * 7) % 5) - 0.02;   /* +-2% */
            bps[n] = (s == 2 || d == 2 ? 0.5 : 1.0) * 45e6 * noise;
            ends[2 * n] = (uint32_t)s, ends[2 * n + 1] = (uint32_t)d;
            p[n] = (gc_net_pair){ s, d, bps[n] };
            n++;
        }
    uint8_t slow[4];
    CHECK(gc_net_slow_ends(bps, ends, n, 4, &r, slow) == 1, "one slow end");
    CHECK(slow[2] && !slow[0] && !slow[1] && !slow[3], "node 2 the slow end");
    double med, sigma;
    size_t used;
    CHECK(gc_net_reference(bps, ends, n, slow, &r, &med, &sigma, &used) == 0, "reference");
    CHECK(used == 4 && fabs(med / 45e6 - 1) < 0.03, "reference of the 4 good pairs: %zu, %g", used, med);
    gc_net_pair out[8];
    size_t m = gc_net_checks(p, n, &r, out, 8);
    CHECK(m >= 1, "the slow pairs checked: %zu", m);
    for (size_t k = 0; k < m; k++)
        CHECK(out[k].dst != 2, "check %d -> %d: a good partner", out[k].src, out[k].dst);
    /* healthy, +-2%: no slow end, nothing to check */
    for (size_t i = 0; i < n; i++)
        bps[i] = p[i].bps = 45e6 * (1 + 0.01 * (double)((i * 7) % 5) - 0.02);
    CHECK(gc_net_slow_ends(bps, ends, n, 4, &r, slow) == 0, "healthy: no slow end");
    CHECK(gc_net_checks(p, n, &r, out, 8) == 0, "healthy: no checks");
}

int main(void)
{
    test_pairs();
    test_net_parallel();
    test_net_checks();
    test_net_slow_ends();
    CHECK_DONE();
}
