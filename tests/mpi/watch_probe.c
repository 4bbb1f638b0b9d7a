/* A probe of watch.c's gather for tests/mpi/t_watch.sh, on 3 ranks
 * (mpirun -np 3): rank 0 judges a rank lost when nothing came from it for
 * more than LOST_S. Rank 2 says its last word, which rank 0 takes in, and
 * goes silent; rank 0 then takes rank 1's record, and inside the handler
 * (on_blob, where the run analyses a record: seconds at times) waits while
 * rank 2 stays silent past LOST_S, sends its record, and tells rank 0 (on
 * another communicator) that it did: rank 2's length is then with rank 0
 * (one connection between them, in order). Rank 2 delivered: it must be
 * taken, not judged lost, and the run not abandoned. The order of events
 * is made by messages, not by timing: rank 2 is silent past LOST_S
 * whenever the handler returns.
 * Prints "probe: lost N abandoned A taken R0,R1,R2" on rank 0; exit 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watch.h"

#define LOST_S 1.0
#define TAG_QUIET 900  /* rank 2 to 0: its last word is sent; silent from now */
#define TAG_GO 903     /* rank 0 to 1: send your record */
#define TAG_HOLD 901   /* rank 0 to 2: it is taking rank 1's record */
#define TAG_SENT 902   /* rank 2 to 0: its record is sent */

typedef struct taken {
    int got[3];
} taken;

static void nap_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

static void on_blob(void *ctx, int rank, uint8_t *data, size_t len)
{
    taken *t = ctx;
    if (rank >= 0 && rank < 3 && data && len == 2 && data[0] == 'r' && data[1] == '0' + rank)
        t->got[rank] = 1;
    free(data);
    if (rank == 1) {   /* rank 2 stays silent past LOST_S and sends meanwhile */
        int x = 1;
        MPI_Send(&x, 1, MPI_INT, 2, TAG_HOLD, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 2, TAG_SENT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (!rank)
            fprintf(stderr, "watch_probe: run it on 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    gc_watch *w;
    gc_err err = { 0 };
    if (gc_watch_open(&w, MPI_COMM_WORLD, GC_PROGRESS_OFF, LOST_S, 1, 0, &err)) {
        fprintf(stderr, "watch_probe: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    gc_watch_plan(w, 1, 0, 0);   /* a word to rank 0 */
    char mine[2] = { 'r', (char)('0' + rank) };
    int x = 1;
    if (rank == 2) {   /* silent from here: no watch call until the gather */
        MPI_Send(&x, 1, MPI_INT, 0, TAG_QUIET, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, TAG_HOLD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        nap_s(LOST_S + 1.0);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        /* rank 2's last word taken in (it came before TAG_QUIET), then rank 1 sends */
        MPI_Request rq;
        int flag = 0;
        MPI_Irecv(&x, 1, MPI_INT, 2, TAG_QUIET, MPI_COMM_WORLD, &rq);
        while (!flag) {
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
            gc_watch_poll(w);
            nap_s(0.001);
        }
        gc_watch_poll(w);
        MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
    }
    int *lost = NULL;
    taken t = { { 0 } };
    int nlost = gc_watch_gather(w, mine, sizeof mine, on_blob, &t, &lost, &err);
    if (nlost < 0)
        fprintf(stderr, "watch_probe: rank %d: %s\n", rank, err.msg);
    if (rank == 2)
        MPI_Send(&x, 1, MPI_INT, 0, TAG_SENT, MPI_COMM_WORLD);
    if (rank == 0)
        printf("probe: lost %d abandoned %d taken %d,%d,%d\n", nlost, gc_watch_abandoned(w), t.got[0],
               t.got[1], t.got[2]);
    fflush(stdout);
    free(lost);
    gc_watch_close(w);
    MPI_Finalize();
    return nlost < 0;
}
