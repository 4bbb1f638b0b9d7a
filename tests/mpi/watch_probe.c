/* Probes of watch.c for tests/mpi/t_watch.sh: `watch_probe MODE` under
 * mpirun (record: 3 ranks, the others 2). Rank 0 judges a rank lost when
 * nothing came from it for more than LOST_S (lost_s: 1 s, 2 s in
 * analysis). The order of events is made by messages on MPI_COMM_WORLD,
 * not by timing: a rank meant to be silent past LOST_S is so whenever rank
 * 0 next judges, and a rank that gets no answer from the watch waits for
 * ever (the test's timeout fails it).
 *
 * record   Rank 2 says its last word, which rank 0 takes in, and goes
 *          silent; rank 0 takes rank 1's record and, inside the handler
 *          (on_blob, where the run analyses a record: seconds at times),
 *          waits while rank 2 stays silent past LOST_S, sends its record
 *          and tells rank 0 (on world) that it did: rank 2's length is then
 *          with rank 0 (one connection between them, in order). Rank 2
 *          delivered: taken, not judged lost, the run not abandoned.
 * analysis Rank 1 ends its items and works on alone (its analysis) while
 *          rank 0 watches for LOST_S + 2 s of its own clock, calling
 *          gc_watch_busy between steps: not judged lost.
 * lost     Rank 1 goes silent (hung) until rank 0 has judged it lost, then
 *          comes back and waits on a transfer no one will complete (a
 *          barrier whose peers stopped): rank 0's word must end that wait,
 *          saying that rank 0 judged it lost. It sends its record only
 *          once rank 0's gather has ended: not taken (its shard is what
 *          rank 0 has), and rank 0's release ends its send.
 * place    Rank 1 leads simulated node n2 (gc_cluster_init with 2 nodes).
 *          It goes silent until rank 0 has judged it lost, gathered and
 *          written n2's node file (OUT/nodes/n2.json, by rename as
 *          collect.c does); then it writes its own node file
 *          (gc_tree_node_file) without seeing rank 0's word (the profiling
 *          interface hides it from MPI_Test): a leader told in the instant
 *          after its last check. Rank 0's file must stay, byte for byte.
 * late     Rank 1 goes silent until rank 0 has judged it lost, then sends
 *          its record; rank 0 starts its gather once rank 1's length is
 *          with it (probed on the watch's communicator, which the
 *          profiling interface shows): nobody else is awaited, so the
 *          gather would end at once; the record that came is taken.
 * body     Rank 1's length goes to rank 0 but its bytes never leave (the
 *          profiling interface swallows them: a rank dead or hung between
 *          the two sends): rank 0 must judge it lost and end the gather.
 * Prints one line on rank 0: "probe MODE: lost N abandoned A taken
 * R0,R1[,R2]" (lost: the gather's count), for lost also "told: REASON",
 * for place "node file: rank 0's|the leader's, leader's note N"
 * (shard.h: 1 written, 2 failed); exit 0. Usage: watch_probe MODE [OUT]
 * (place: a directory for OUT). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tree/cluster.h"
#include "util/fsutil.h"
#include "util/timeutil.h"
#include "tree/tree.h"
#include "tree/watch_int.h"   /* TAG_LEN, TAG_LOST: a record's length, rank 0's word to a lost rank */

#define TAG_QUIET 900  /* to rank 0: my last word is sent; silent from now */
#define TAG_HOLD 901   /* rank 0 to 2: it is taking rank 1's record */
#define TAG_SENT 902   /* rank 2 to 0: its record is sent */
#define TAG_GO 903     /* rank 0 to 1: go on (send your record, come back) */
#define TAG_LEFT 904   /* rank 1 to 0: it left its wait; the reason follows */
#define TAG_NEVER 905  /* never sent */

static double lost_s = 1.0;
static int swallow_body;   /* body: this rank's record bytes never leave */

/* The profiling interface: the watch's record bytes are the only MPI_BYTE
 * send on its own communicator. Swallowed, they become a request that
 * never completes, as for a rank that died or hung after its length. */
int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    static char none;
    if (swallow_body && dt == MPI_BYTE && comm != MPI_COMM_WORLD)
        return PMPI_Irecv(&none, 0, MPI_BYTE, 0, TAG_NEVER, MPI_COMM_SELF, req);
    return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
}

/* The watch's communicator: the first one duplicated (gc_watch_open). */
static MPI_Comm watch_comm = MPI_COMM_NULL;

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    int rc = PMPI_Comm_dup(comm, out);
    if (rc == MPI_SUCCESS && watch_comm == MPI_COMM_NULL)
        watch_comm = *out;
    return rc;
}

/* place: rank 0's word to this rank (TAG_LOST) has come but is not seen. */
static int hide_lost;
static MPI_Request *lost_req_at;

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (tag == TAG_LOST && comm == watch_comm)
        lost_req_at = req;
    return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (hide_lost && req == lost_req_at) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return PMPI_Test(req, flag, st);
}

static const char rank0_file[] = "rank 0's node file\n";

typedef struct taken {
    int got[3];
    int hold;   /* record: hold rank 2 inside rank 1's record */
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
    if (rank == 1 && t->hold) {   /* rank 2 stays silent past lost_s and sends meanwhile */
        int x = 1;
        MPI_Send(&x, 1, MPI_INT, 2, TAG_HOLD, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 2, TAG_SENT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Rank r's last word is with rank 0 (it came before TAG_QUIET): from here
 * rank 0's clock of r's silence runs. */
/* Rank 0: polls until rank 1 is judged lost. */
static void until_abandoned(gc_watch *w)
{
    while (!gc_watch_abandoned(w)) {
        gc_watch_poll(w);
        nap_s(0.001);
    }
}

static void quiet(gc_watch *w, int rank, int r)
{
    int x = 1;
    if (rank == r) {
        MPI_Send(&x, 1, MPI_INT, 0, TAG_QUIET, MPI_COMM_WORLD);
        return;
    }
    MPI_Request rq;
    int flag = 0;
    MPI_Irecv(&x, 1, MPI_INT, r, TAG_QUIET, MPI_COMM_WORLD, &rq);
    while (!flag) {
        MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        gc_watch_poll(w);
        nap_s(0.001);
    }
    gc_watch_poll(w);
}

static int go_seen(void)
{
    int flag = 0;
    MPI_Iprobe(0, TAG_GO, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return flag;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "record";
    int want = !strcmp(mode, "record") ? 3 : 2;
    int late = !strcmp(mode, "late"), place = !strcmp(mode, "place");
    if (strcmp(mode, "record") && strcmp(mode, "analysis") && strcmp(mode, "lost") &&
        strcmp(mode, "body") && !late && !(place && argc > 2)) {
        if (!rank)
            fprintf(stderr, "watch_probe: unknown mode '%s'\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (size != want) {
        if (!rank)
            fprintf(stderr, "watch_probe: run %s on %d ranks\n", mode, want);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(mode, "analysis"))
        lost_s = 2.0;   /* beats every lost_s / 4: a margin of 1.5 s against a loaded machine */
    swallow_body = !strcmp(mode, "body") && rank == 1;
    gc_watch *w;
    gc_err err = { 0 };
    if (gc_watch_open(&w, MPI_COMM_WORLD, GC_PROGRESS_OFF, lost_s, 1, 0, &err)) {
        fprintf(stderr, "watch_probe: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    gc_watch_plan(w, 1, 0, 0);   /* a word to rank 0 */
    char mine[2] = { 'r', (char)('0' + rank) };
    char told[4200] = "";
    int x = 1, placed_lost = 0;
    if (!strcmp(mode, "record")) {
        if (rank == 2) {   /* silent from here: no watch call until the gather */
            quiet(w, rank, 2);
            MPI_Recv(&x, 1, MPI_INT, 0, TAG_HOLD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            nap_s(lost_s + 1.0);
        } else if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            quiet(w, rank, 2);
            MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
        }
    } else if (!strcmp(mode, "analysis")) {
        gc_watch_item(w, 1, 0);   /* its items are done */
        quiet(w, rank, 1);
        if (rank == 1) {
            while (!go_seen()) {   /* a step of its analysis, then the watch */
                nap_s(0.01);
                gc_watch_busy(w);
            }
        } else {
            double t = gc_now_s();
            while (gc_now_s() - t <= lost_s + 2.0) {
                gc_watch_poll(w);
                nap_s(0.001);
            }
            MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
        }
    } else if (!strcmp(mode, "lost")) {
        quiet(w, rank, 1);
        if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Request rq;   /* a barrier whose peers stopped */
            MPI_Irecv(&x, 1, MPI_INT, 0, TAG_NEVER, MPI_COMM_WORLD, &rq);
            int left = gc_watch_wait(w, MPI_SUCCESS, &rq, "a barrier");
            MPI_Cancel(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            snprintf(told, sizeof told, "%s", left ? gc_watch_reason(w) : "(wait completed?)");
            MPI_Send(told, 128, MPI_CHAR, 0, TAG_LEFT, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            until_abandoned(w);
            MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
            MPI_Recv(told, 128, MPI_CHAR, 1, TAG_LEFT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (place) {
        const char *out = argv[2];
        gc_cluster cl;
        gc_err ce = { 0 };
        if (gc_cluster_init(&cl, 2, &ce)) {
            fprintf(stderr, "watch_probe: rank %d: %s\n", rank, ce.msg);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        gc_file_id prior;
        gc_tree_node_prior(out, &cl, &prior);   /* as run_out.c does, then its reduction */
        MPI_Barrier(MPI_COMM_WORLD);
        hide_lost = rank == 1;
        quiet(w, rank, 1);
        char path[4200];
        snprintf(path, sizeof path, "%s/nodes/n2.json", out);
        if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            gc_run_meta run;
            memset(&run, 0, sizeof run);
            int abandoned = 0;
            gc_record_note note;
            gc_tree_node_file(out, &run, &cl, w, &prior, &abandoned, &note);
            MPI_Send(&note.node_file, 1, MPI_INT, 0, TAG_LEFT, MPI_COMM_WORLD);
        } else {
            until_abandoned(w);
            int *gl = NULL;   /* rank 0's gather ends, then it writes the lost leader's file */
            taken tg = { { 0 }, 0 };
            placed_lost = gc_watch_gather(w, mine, sizeof mine, on_blob, &tg, &gl, &err);
            free(gl);
            snprintf(told, sizeof told, "%s/nodes", out);
            if (gc_mkdir_p(told, &err) || gc_write_atomic(path, rank0_file, sizeof rank0_file - 1, &err)) {
                fprintf(stderr, "watch_probe: %s\n", err.msg);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
            int nf = -1;
            MPI_Recv(&nf, 1, MPI_INT, 1, TAG_LEFT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            uint8_t *got = NULL;
            size_t glen = 0;
            int same = gc_read_file(path, 1 << 24, &got, &glen, &err) == 0 &&
                       glen == sizeof rank0_file - 1 && !memcmp(got, rank0_file, glen);
            free(got);
            snprintf(told, sizeof told, "node file: %s, leader's note %d",
                     same ? "rank 0's" : "the leader's", nf);
        }
        gc_cluster_free(&cl);
    } else if (late) {
        quiet(w, rank, 1);
        if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            until_abandoned(w);
            MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
            for (int flag = 0; !flag; nap_s(0.001))   /* its length is here, not taken */
                MPI_Iprobe(1, TAG_LEN, watch_comm, &flag, MPI_STATUS_IGNORE);
        }
    }
    int *lost = NULL;
    taken t = { { 0 }, !strcmp(mode, "record") };
    int nlost = place && rank == 0 ? placed_lost
                                   : gc_watch_gather(w, mine, sizeof mine, on_blob, &t, &lost, &err);
    if (place && rank == 0)
        t.got[0] = 1;   /* its own, taken in the gather above */
    if (nlost < 0 && strcmp(mode, "body") && strcmp(mode, "lost") && !place)
        fprintf(stderr, "watch_probe: rank %d: %s\n", rank, err.msg);
    if (rank == 2 && !strcmp(mode, "record"))
        MPI_Send(&x, 1, MPI_INT, 0, TAG_SENT, MPI_COMM_WORLD);
    if (rank == 0 && !strcmp(mode, "lost"))   /* its record now: after the gather */
        MPI_Send(&x, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
    if (rank == 0) {
        gc_watch_release(w);   /* as before MPI_Abort: a lost rank still sending leaves */
        printf("probe %s: lost %d abandoned %d taken %d,%d", mode, nlost, gc_watch_abandoned(w),
               t.got[0], t.got[1]);
        if (size == 3)
            printf(",%d", t.got[2]);
        if (told[0])
            printf(place ? " %s" : " told: %s", told);
        printf("\n");
    }
    fflush(stdout);
    free(lost);
    gc_watch_close(w);
    MPI_Finalize();
    return nlost < 0 && strcmp(mode, "body") && strcmp(mode, "lost") && !place;
}
