/* MPI topology and gather. See cluster.h. */
#include "tree/cluster.h"
#include "util/quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/crash.h"

static void own_node_name(char *out, size_t cap)
{
    const char *e = getenv("GPUCENSUS_NODE_NAME");
    if (!e || !*e)
        e = getenv("SLURMD_NODENAME");
    if (e && *e) {
        snprintf(out, cap, "%s", e);
        return;
    }
    char host[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(host, &len);
    host[len] = '\0';
    char *dot = strchr(host, '.');
    if (dot)
        *dot = '\0';
    snprintf(out, cap, "%.*s", (int)cap - 1, host);
}

int gc_cluster_all_ok(const gc_cluster *c, int ok)
{
    int mine = ok != 0, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, c->world) != MPI_SUCCESS)
        return 0;
    return all;
}

int gc_mpi_fail(gc_err *err, int mpi_rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(mpi_rc, s, &len);
    return gc_fail(err, GC_EIO, "MPI error in %s: %s", what, s[0] ? s : "unknown");
}

/* A simulated node is a block of consecutive ranks; it must not span two
 * hosts (two shared-memory domains), or two GPUs of different machines
 * would be one node's. host_of[r]: an id of rank r's host. */
static int sim_fits_hosts(const int *host_of, int size, int sim_nodes)
{
    int per = (size + sim_nodes - 1) / sim_nodes;
    for (int r = 1; r < size; r++)
        if (r % per && host_of[r] != host_of[r - 1])
            return 0;
    return 1;
}

/* Every rank's host (the lowest world rank sharing its memory), its
 * shared-memory communicator, and the job's processes on this host (the
 * cuda backend tells them from other processes on its GPU: every rank may
 * hold a context on every GPU of the host). */
static int find_hosts(gc_cluster *c, MPI_Comm *host, int **host_of, gc_err *err)
{
    int id = c->rank, pid = (int)getpid(), host_size = 0, rc;
    *host_of = malloc(sizeof(int) * (size_t)c->size);
    if (!*host_of)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    if ((rc = MPI_Comm_split_type(c->world, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, host)))
        return gc_mpi_fail(err, rc, "MPI_Comm_split_type");
    MPI_Comm_set_errhandler(*host, MPI_ERRORS_RETURN);
    MPI_Comm_size(*host, &host_size);
    c->host_pids = malloc(sizeof(int) * (size_t)(host_size > 0 ? host_size : 1));
    if (!c->host_pids)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    c->nhost_pids = (size_t)host_size;
    if ((rc = MPI_Allreduce(&c->rank, &id, 1, MPI_INT, MPI_MIN, *host)) ||
        (rc = MPI_Allgather(&id, 1, MPI_INT, *host_of, 1, MPI_INT, c->world)) ||
        (rc = MPI_Allgather(&pid, 1, MPI_INT, c->host_pids, 1, MPI_INT, *host)))
        return gc_mpi_fail(err, rc, "finding the hosts");
    return 0;
}

static int hosts_count(const int *host_of, int size)
{
    int n = 0;
    for (int r = 0; r < size; r++)
        n += host_of[r] == r;
    return n;
}

/* Node names and numbers, the roster, the node communicator. */
static int place(gc_cluster *c, MPI_Comm host, const int *host_of, gc_err *err)
{
    int ok = gc_name_ok(c->node_name), rc;   /* names become file names */
    if (!gc_cluster_all_ok(c, ok))
        return gc_fail(err, GC_EINVAL,
                       "node name '%s' is not 1-63 characters of [A-Za-z0-9._-] (nor . or ..)%s", c->node_name,
                       ok ? " (on another rank)" : "");

    /* Every rank learns every rank's node name; nodes are numbered in
     * order of their lowest rank. */
    char *names = calloc((size_t)c->size, GC_NODE_MAX);
    int *node_of = calloc((size_t)c->size, sizeof(int));
    int *all = malloc(sizeof(int) * 2 * (size_t)c->size);
    c->roster = calloc((size_t)c->size, sizeof *c->roster);
    if (!names || !node_of || !all || !c->roster) {
        rc = gc_fail(err, GC_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = MPI_Allgather(c->node_name, GC_NODE_MAX, MPI_CHAR, names, GC_NODE_MAX, MPI_CHAR,
                            c->world))) {
        rc = gc_mpi_fail(err, rc, "MPI_Allgather of the node names");
        goto out;
    }
    c->nodes = 0;
    for (int r = 0; r < c->size; r++) {
        node_of[r] = -1;
        for (int q = 0; q < r; q++)
            if (strcmp(names + (size_t)q * GC_NODE_MAX, names + (size_t)r * GC_NODE_MAX) == 0) {
                node_of[r] = node_of[q];
                break;
            }
        if (node_of[r] < 0)
            node_of[r] = c->nodes++;
    }
    c->node_index = node_of[c->rank];

    /* A node name seen on two hosts would give two GPUs the same identity. */
    int split_ok = 1;
    for (int r = 0; r < c->size; r++)
        split_ok &= node_of[r] != c->node_index || host_of[r] == host_of[c->rank];

    /* Same host, then same node name within it. */
    if ((rc = MPI_Comm_split(host, c->node_index, c->rank, &c->node))) {
        rc = gc_mpi_fail(err, rc, "MPI_Comm_split");
        goto out;
    }
    MPI_Comm_set_errhandler(c->node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->node, &c->local_rank);
    MPI_Comm_size(c->node, &c->local_size);
    int mine[2] = { c->local_rank, c->node_index };
    if ((rc = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c->world))) {
        rc = gc_mpi_fail(err, rc, "MPI_Allgather of the roster");
        goto out;
    }
    for (int r = 0; r < c->size; r++) {
        c->roster[r].rank = r;
        c->roster[r].local_index = all[2 * r];
        snprintf(c->roster[r].node, GC_NODE_MAX, "%s", names + (size_t)r * GC_NODE_MAX);
    }
    if (!gc_cluster_all_ok(c, split_ok))
        rc = gc_fail(err, GC_EINVAL,
                     "node name '%s' is used by ranks on different hosts; set "
                     "GPUCENSUS_NODE_NAME", c->node_name);
out:
    free(all);
    free(names);
    free(node_of);
    return rc;
}

int gc_cluster_init(gc_cluster *c, int sim_nodes, gc_err *err)
{
    memset(c, 0, sizeof *c);
    c->world = c->node = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c->world);
    if (rc)
        return gc_mpi_fail(err, rc, "MPI_Comm_dup");
    /* Errors come back as values: a failed transfer is this rank's error
     * to report, not a reason for the library to kill the job. */
    MPI_Comm_set_errhandler(c->world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->world, &c->rank);
    MPI_Comm_size(c->world, &c->size);

    MPI_Comm host = MPI_COMM_NULL;
    int *host_of = NULL;
    rc = find_hosts(c, &host, &host_of, err);
    if (!rc && sim_nodes > 0 && !sim_fits_hosts(host_of, c->size, sim_nodes)) {
        /* The plan's layout (e.g. sim.nodes = 1 over a 3-node allocation)
         * would make one node of several machines: follow the allocation. */
        if (c->rank == 0)
            fprintf(stderr, "gpucensus: the sim layout of %d node%s (sim.nodes or --sim-nodes) "
                            "would put ranks of different hosts in one node; the ranks run on "
                            "%d hosts: using their node names instead\n",
                    sim_nodes, sim_nodes > 1 ? "s" : "", hosts_count(host_of, c->size));
        sim_nodes = 0;
    }
    if (!rc) {
        if (sim_nodes > 0) {
            int per = (c->size + sim_nodes - 1) / sim_nodes;
            snprintf(c->node_name, sizeof c->node_name, "n%d", c->rank / per + 1);
        } else {
            own_node_name(c->node_name, sizeof c->node_name);
        }
        rc = place(c, host, host_of, err);
    }
    if (host != MPI_COMM_NULL)
        MPI_Comm_free(&host);
    free(host_of);
    if (!rc)
        gc_crash_identity(c->rank, c->node_name, c->local_rank);
    return rc;
}

void gc_cluster_free(gc_cluster *c)
{
    free(c->roster);
    free(c->host_pids);
    if (c->node != MPI_COMM_NULL && c->node)
        MPI_Comm_free(&c->node);
    if (c->world != MPI_COMM_NULL && c->world)
        MPI_Comm_free(&c->world);
    memset(c, 0, sizeof *c);
}
