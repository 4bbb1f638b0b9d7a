/* Rank 0's choice of P2P links to measure again (src/run/confirm.c,
 * gc_confirm_pick_links): per item, the links the peers rule would call
 * degraded, each once (either direction), each with a partner on its
 * node that the fewest other slow links touch; links of another node
 * never lend a partner; a fleet of equal links picks none. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "run/confirm.h"

#define W GC_CONFIRM_LINK_W

static gc_roster_entry roster[16];
static double links[256 * W];
static size_t nl;

static void add(int src, int item, int dst, double bps)
{
    double *x = links + nl++ * W;
    x[0] = src, x[1] = item, x[2] = dst, x[3] = bps;
}

/* every ordered pair of each node of 8, item 3, bandwidth 370 GB/s +- 0.5% */
static void fleet(void)
{
    nl = 0;
    for (int r = 0; r < 16; r++) {
        roster[r].rank = r;
        snprintf(roster[r].node, sizeof roster[r].node, "n%d", r / 8 + 1);
        roster[r].local_index = r % 8;
    }
    for (int s = 0; s < 16; s++)
        for (int d = (s / 8) * 8; d < (s / 8) * 8 + 8; d++)
            if (d != s)
                add(s, 3, d, 370e9 * (1 + 0.005 * sin(s * 7.0 + d)));
}

static double *link_of(int src, int dst)
{
    for (size_t i = 0; i < nl; i++)
        if (links[i * W] == src && links[i * W + 2] == dst)
            return links + i * W;
    return NULL;
}

int main(void)
{
    int out[4 * 32];
    fleet();
    size_t m = gc_confirm_pick_links(links, nl, roster, 16, out, 32);
    CHECK(m == 0, "equal links: %zu picked", m);

    /* one slow link on n1; GPU 13 of n2 slow to everyone it drives */
    fleet();
    link_of(5, 1)[3] = 260e9;
    for (int d = 8; d < 16; d++)
        if (d != 13)
            link_of(13, d)[3] = 250e9;
    link_of(1, 5)[3] = 255e9;   /* the same pair the other way: checked once */
    m = gc_confirm_pick_links(links, nl, roster, 16, out, 32);
    CHECK(m == 8, "1 pair on n1 and 7 links from GPU 13 picked, got %zu", m);
    int seen51 = 0, seen13 = 0;
    for (size_t k = 0; k < m; k++) {
        int s = out[4 * k], d = out[4 * k + 1], item = out[4 * k + 2], g = out[4 * k + 3];
        CHECK(item == 3, "item %d", item);
        CHECK(g >= 0 && g != s && g != d && !strcmp(roster[g].node, roster[s].node),
              "partner %d of %d -> %d on the pair's node", g, s, d);
        if ((s == 5 && d == 1) || (s == 1 && d == 5))
            seen51++;
        if (s == 13)
            seen13++;
    }
    CHECK(seen51 == 1 && seen13 == 7, "pairs: 5-1 %d, from 13 %d", seen51, seen13);

    /* cap */
    m = gc_confirm_pick_links(links, nl, roster, 16, out, 3);
    CHECK(m == 3, "cap 3: %zu", m);
    CHECK_DONE();
}
