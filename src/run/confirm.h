/* Measure again before blaming: after a run's last phase, the
 * GPU items whose value a GPU's peers would call degraded are measured
 * again on that GPU, within the run, and both measurements go into the
 * catalogue; the detector then calls the GPU degraded only where the
 * deviation held (detect_temper.c), and `check` on the catalogue says
 * which verdicts were confirmed.
 *
 * How: every rank sends rank 0 one value per GPU item (the median of the
 * item's first judged point) and a hash of its SKU; rank 0 compares each
 * with the same item's median over the ranks of that SKU (robust z with
 * the run's comparisons counted, and the relative floor, as the peers
 * rule), and broadcasts the (rank, item) pairs to measure again; each rank
 * runs its own, and its new points carry context confirm = "remeasure".
 * P2P links likewise: every rank sends, per P2P link it drives (peer and
 * direction, peer access), the median bandwidth at the link's largest
 * size; rank 0 compares each with the same item over all links of the run
 * and, for each link the peers rule would call degraded, has the pair
 * measure that item again (confirm = "remeasure") and each of its ends
 * measure it against a known-good partner on the node, a GPU that the
 * fewest other slow links of that item touch (confirm = "partner"), one
 * check at a time
 * across the run. The links carry the second measurement
 * (links.c: remeasured_bandwidth_bps) and the detector degrades a link only
 * where it held (detect_temper.c). Network pairs are checked by run.c's net
 * checks. What rank 0 gathers is one double per GPU item and rank: a run
 * whose ranks x items exceed GC_CONFIRM_MAX_VALUES is not screened (it
 * says so). */
#ifndef GC_CONFIRM_H
#define GC_CONFIRM_H

#include <mpi.h>
#include <stddef.h>

#include "plan/plan.h"
#include "census/results.h"
#include "census/shard.h"

#define GC_CONFIRM_MAX_VALUES (16u << 20)
#define GC_CONFIRM_MAX_PER_RANK 16   /* items one rank measures again at most */
#define GC_CONFIRM_MAX_LINKS 64      /* P2P links one rank reports */
#define GC_CONFIRM_MAX_PAIRS 32      /* P2P links checked in a run at most */

typedef struct gc_confirm_io {
    MPI_Comm world;
    int rank, size, quiet;
    gc_gpu *gpu;                 /* this rank's measurements so far */
    const gc_item *items;        /* the plan's items, by id */
    size_t nitems;
    /* runs item id again on this rank's GPU (run.c's run_task); 0: ran */
    int (*remeasure)(void *ctx, uint32_t item_id);
    /* runs pair item id again with peer_rank (this rank drives it when
     * initiator); both ranks call it together. 0: ran. NULL: links are not
     * checked. */
    int (*remeasure_pair)(void *ctx, uint32_t item_id, int peer_rank, int initiator);
    /* node of each rank (size entries): partners are on the pair's node */
    const gc_roster_entry *roster;
    void *ctx;
    /* waits for a started collective (the run's watch); nonzero: abandoned */
    int (*wait)(void *ctx, int start_rc, MPI_Request *rq, const char *what);
} gc_confirm_io;

/* Collective over io->world. Returns the number of items this rank
 * measured again, or -1 when the run was abandoned meanwhile. */
int gc_confirm_run(const gc_confirm_io *io);

/* Rank 0's choice (exposed for tests/unit/test_confirm.c): links is the
 * reports, LINK_W doubles each (rank, item, peer rank, bandwidth); per item
 * the links whose bandwidth the peers rule would call degraded, each with
 * a partner on its node (roster) that the fewest of that item's other slow
 * links touch (-1: the node has no third GPU); out: (src, dst, item,
 * partner) x the count returned (<= cap). */
#define GC_CONFIRM_LINK_W 4
size_t gc_confirm_pick_links(const double *links, size_t n, const gc_roster_entry *roster,
                             int size, int *out, size_t cap);

/* 1: a point of a re-measurement (its context says confirm = remeasure) */
int gc_confirm_is_remeasure(const gc_ctx *ctx);

#endif
