/* MPI side of a run: which node each rank is on, which GPU it drives, and
 * the schedule that keeps phases apart.
 *
 * A rank's node is found with MPI_Comm_split_type(SHARED) (same host), then
 * split again by node name, because logical nodes can share a host (Slurm
 * test clusters) and a simulated cluster places many "nodes" on one host.
 * The GPU index is the node-local rank. */
#ifndef GC_CLUSTER_H
#define GC_CLUSTER_H

#include <mpi.h>
#include <stddef.h>

#include "util/err.h"
#include "census/results.h"
#include "census/shard.h"

typedef struct gc_cluster {
    MPI_Comm world;      /* dup of MPI_COMM_WORLD */
    MPI_Comm node;       /* ranks of this node */
    int rank, size;
    int local_rank, local_size;
    int node_index, nodes;
    char node_name[GC_NODE_MAX];
    gc_roster_entry *roster;   /* size entries, every rank has them */
    int *host_pids;            /* process ids of the job's ranks on this host */
    size_t nhost_pids;
} gc_cluster;

/* sim_nodes > 0: simulate that many nodes named n1..nN, ranks spread over
 * them in contiguous blocks, as long as no block spans two hosts (else
 * rank 0 says so and the real names are used: a simulated node is never
 * made of two machines' GPUs). Otherwise the real topology: the node name
 * is $GPUCENSUS_NODE_NAME, else $SLURMD_NODENAME, else the host name. Both
 * communicators return MPI errors as values. */
int gc_cluster_init(gc_cluster *c, int sim_nodes, gc_err *err);
void gc_cluster_free(gc_cluster *c);

/* 1 if every rank passed ok != 0; collective. */
int gc_cluster_all_ok(const gc_cluster *c, int ok);

/* gc_fail with MPI's own text for mpi_rc: "MPI error in WHAT: ...". */
int gc_mpi_fail(gc_err *err, int mpi_rc, const char *what);

#endif
