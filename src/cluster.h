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

#include "err.h"
#include "results.h"
#include "shard.h"

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
 * them in contiguous blocks. Otherwise the real topology: the node name is
 * $GPUCENSUS_NODE_NAME, else $SLURMD_NODENAME, else the host name. */
int gc_cluster_init(gc_cluster *c, int sim_nodes, gc_err *err);
void gc_cluster_free(gc_cluster *c);

/* 1 if every rank passed ok != 0; collective. */
int gc_cluster_all_ok(const gc_cluster *c, int ok);

/* Rank 0 receives every rank's bytes (NULL/0 from a rank that sent none).
 * blobs and lens are arrays of c->size owned by the caller on rank 0. */
int gc_cluster_gather(const gc_cluster *c, const void *data, size_t len,
                      uint8_t ***blobs, size_t **lens, gc_err *err);

#endif
