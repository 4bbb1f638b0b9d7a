/* Measure again before blaming (issue 19): after a run's last phase, the
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
 * Links (P2P against a known-good partner) are not measured again here yet;
 * network pairs are (run.c's net checks). What rank 0 gathers is one
 * double per GPU item and rank: a run whose ranks x items exceed
 * GC_CONFIRM_MAX_VALUES is not screened (it says so). */
#ifndef GC_CONFIRM_H
#define GC_CONFIRM_H

#include <mpi.h>
#include <stddef.h>

#include "plan.h"
#include "results.h"

#define GC_CONFIRM_MAX_VALUES (16u << 20)
#define GC_CONFIRM_MAX_PER_RANK 16   /* items one rank measures again at most */

typedef struct gc_confirm_io {
    MPI_Comm world;
    int rank, size, quiet;
    gc_gpu *gpu;                 /* this rank's measurements so far */
    const gc_item *items;        /* the plan's items, by id */
    size_t nitems;
    /* runs item id again on this rank's GPU (run.c's run_task); 0: ran */
    int (*remeasure)(void *ctx, uint32_t item_id);
    void *ctx;
    /* waits for a started collective (the run's watch); nonzero: abandoned */
    int (*wait)(void *ctx, int start_rc, MPI_Request *rq, const char *what);
} gc_confirm_io;

/* Collective over io->world. Returns the number of items this rank
 * measured again, or -1 when the run was abandoned meanwhile. */
int gc_confirm_run(const gc_confirm_io *io);

/* 1: a point of a re-measurement (its context says confirm = remeasure) */
int gc_confirm_is_remeasure(const gc_ctx *ctx);

#endif
