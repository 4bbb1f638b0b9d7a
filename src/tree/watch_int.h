/* Private to the watch (watch.c: progress, liveness, the end of the job;
 * watch_gather.c: the gather): its state and what one file calls in the
 * other. Not part of the public API (watch.h). */
#ifndef GC_WATCH_INT_H
#define GC_WATCH_INT_H

#include "tree/watch.h"

enum { TAG_PROGRESS = 80, TAG_ABANDON = 81, TAG_RELEASE = 82, TAG_STOP = 83, TAG_LOST = 84,
       TAG_LEN = 76, TAG_DATA = 77, NSLOTS = 8 };

/* Why a run is abandoned (the word rank 0 sends with TAG_ABANDON; WHY_SELF
 * only on the rank rank 0 judged lost, told with TAG_LOST). */
enum { WHY_NONE, WHY_LOST, WHY_STOP, WHY_MPI, WHY_SELF, WHY_ENDED };
/* A rank's TAG_STOP word: the signal that stopped it, or this. */
#define STOP_MPI_ERROR (-1)
/* Stopped by a signal (Slurm's SIGTERM, then SIGKILL after KillWait,
 * default 30 s): a rank silent this long past its item's budget is lost,
 * so the partial catalogue is written in time. */
#define STOP_LOST_AFTER_S 10.0

struct gc_watch {
    MPI_Comm comm;
    int rank, size;
    gc_progress_mode mode;
    double lost_after_s, t0;
    int abandon, why;
    char reason[96];         /* why the run is abandoned, for messages */
    int stop_seen;           /* gc_stop_signal() acted upon */
    int32_t stop_msg;        /* non-root: what this rank tells rank 0 */
    MPI_Request stop_req;    /* non-root: that send; rank 0: its receive */
    /* every rank: its own counters, sends in flight */
    uint32_t done, total;
    double budget_s, last_sent, sent_budget_s, window_start;
    int window_sent;
    int32_t slot_buf[NSLOTS][3];
    MPI_Request slot_req[NSLOTS];
    MPI_Request abandon_req;       /* non-root: the word from rank 0 */
    int32_t abandon_buf;
    MPI_Request lost_req;          /* non-root: rank 0 judged this rank lost */
    int32_t lost_buf;
    int lost_self;
    MPI_Request release_req;       /* non-root: rank 0's release (gc_watch_release) */
    int32_t release_buf;
    int released;
    void (*on_busy)(void *);       /* gc_watch_on_busy */
    void *on_busy_ctx;
    /* rank 0 */
    MPI_Request prog_req;
    int32_t prog_buf[3];
    uint32_t *done_of, *total_of;
    double *budget_of, *heard;
    int *lost, *delivered;
    uint64_t all_total;
    /* rank 0's own wall budget left (gc_watch_left): at the plan's start
     * (total), at its last task (left), when that was, and when the plan began */
    gc_eta_est eta;   /* rank 0: the ETA from its node's budgets left */
    double last_print;
    int printed_end;
    MPI_Request *abandon_out, *lost_out;
    int32_t abandon_msg, lost_msg;
};

/* Spin a little, then sleep: a waiting rank leaves the CPU to others. */
void wt_nap(unsigned *spins);
/* Rank 0: read progress and stop words, judge silent ranks, print. */
void wt_root_poll(gc_watch *w);
/* Silence, beyond a rank's budget, after which it is lost. */
double wt_lost_after(const gc_watch *w);
/* Rank 0 gives up on rank r (`why`: what it did not hear, for stderr):
 * marks it lost, tells it so, and has every other rank stop and send. */
void wt_judge_lost(gc_watch *w, int r, const char *why);
/* Non-root: rank 0 released this rank (gc_watch_release). */
int wt_release_seen(gc_watch *w);
void wt_print_progress(gc_watch *w, double now);

#endif
