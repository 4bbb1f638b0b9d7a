/* MPI topology and gather. See cluster.h. */
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Node names become file names: keep them to a safe alphabet. */
static int name_ok(const char *s)
{
    if (!*s || s[0] == '.' || s[0] == '-')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
            return 0;
    return 1;
}

int gc_cluster_all_ok(const gc_cluster *c, int ok)
{
    int mine = ok != 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, c->world);
    return all;
}

int gc_cluster_init(gc_cluster *c, int sim_nodes, gc_err *err)
{
    memset(c, 0, sizeof *c);
    MPI_Comm_dup(MPI_COMM_WORLD, &c->world);
    MPI_Comm_rank(c->world, &c->rank);
    MPI_Comm_size(c->world, &c->size);

    if (sim_nodes > 0) {
        int per = (c->size + sim_nodes - 1) / sim_nodes;
        snprintf(c->node_name, sizeof c->node_name, "n%d", c->rank / per + 1);
    } else {
        own_node_name(c->node_name, sizeof c->node_name);
    }
    int ok = name_ok(c->node_name);
    if (!gc_cluster_all_ok(c, ok))
        return gc_fail(err, GC_EINVAL,
                       "node name '%s' has characters other than [A-Za-z0-9._-]%s", c->node_name,
                       ok ? " (on another rank)" : "");

    /* Every rank learns every rank's node name. */
    char *names = calloc((size_t)c->size, GC_NODE_MAX);
    if (!names)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    MPI_Allgather(c->node_name, GC_NODE_MAX, MPI_CHAR, names, GC_NODE_MAX, MPI_CHAR, c->world);

    /* Nodes are numbered in order of their lowest rank. */
    int *node_of = malloc(sizeof(int) * (size_t)c->size);
    if (!node_of) {
        free(names);
        return gc_fail(err, GC_ENOMEM, "out of memory");
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

    /* Same host first (shared memory), then same node name within it. */
    MPI_Comm host;
    MPI_Comm_split_type(c->world, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &host);
    MPI_Comm_split(host, c->node_index, c->rank, &c->node);
    int host_size = 0, pid = (int)getpid();
    MPI_Comm_size(host, &host_size);
    /* The job's processes on this host: the cuda backend tells them from
     * other processes on its GPU (every rank may hold a context on every
     * GPU of the host). */
    c->host_pids = malloc(sizeof(int) * (size_t)(host_size > 0 ? host_size : 1));
    if (!c->host_pids) {
        MPI_Comm_free(&host);
        free(names);
        free(node_of);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    MPI_Allgather(&pid, 1, MPI_INT, c->host_pids, 1, MPI_INT, host);
    c->nhost_pids = (size_t)host_size;
    MPI_Comm_free(&host);
    MPI_Comm_rank(c->node, &c->local_rank);
    MPI_Comm_size(c->node, &c->local_size);

    /* A node name seen on two hosts would give two GPUs the same identity. */
    int local_count = 0;
    for (int r = 0; r < c->size; r++)
        local_count += node_of[r] == c->node_index;
    int split_ok = local_count == c->local_size;

    int mine[2] = { c->local_rank, c->node_index }, *all = malloc(sizeof(int) * 2 * (size_t)c->size);
    c->roster = calloc((size_t)c->size, sizeof *c->roster);
    if (!all || !c->roster) {
        free(all);
        free(names);
        free(node_of);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c->world);
    for (int r = 0; r < c->size; r++) {
        c->roster[r].rank = r;
        c->roster[r].local_index = all[2 * r];
        snprintf(c->roster[r].node, GC_NODE_MAX, "%s", names + (size_t)r * GC_NODE_MAX);
    }
    free(all);
    free(names);
    free(node_of);
    if (!gc_cluster_all_ok(c, split_ok))
        return gc_fail(err, GC_EINVAL,
                       "node name '%s' is used by ranks on different hosts; set GPUCENSUS_NODE_NAME",
                       c->node_name);
    return 0;
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

int gc_cluster_gather(const gc_cluster *c, const void *data, size_t len, uint8_t ***blobs,
                      size_t **lens, gc_err *err)
{
    /* MPI counts are int: a blob over 2 GiB is refused (shards are capped
     * well below that). Blobs are gathered one rank at a time so rank 0
     * never needs one contiguous buffer for the whole cluster. */
    long long mylen = (long long)len;
    long long *all = NULL;
    if (c->rank == 0) {
        all = calloc((size_t)c->size, sizeof *all);
        *blobs = calloc((size_t)c->size, sizeof **blobs);
        *lens = calloc((size_t)c->size, sizeof **lens);
        if (!all || !*blobs || !*lens)
            return gc_fail(err, GC_ENOMEM, "gather: out of memory");
    }
    MPI_Gather(&mylen, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, c->world);
    if (c->rank != 0) {
        if (len)
            MPI_Send(data, (int)len, MPI_BYTE, 0, 77, c->world);
        return 0;
    }
    for (int r = 0; r < c->size; r++) {
        size_t n = (size_t)all[r];
        (*lens)[r] = n;
        if (!n)
            continue;
        uint8_t *b = malloc(n);
        if (!b) {
            /* Senders block until received: nothing sane is left to do. */
            fprintf(stderr, "gpucensus: gather: out of memory for rank %d's %zu bytes\n", r, n);
            MPI_Abort(c->world, 1);
        }
        if (r == 0)
            memcpy(b, data, n);
        else
            MPI_Recv(b, (int)n, MPI_BYTE, r, 77, c->world, MPI_STATUS_IGNORE);
        (*blobs)[r] = b;
    }
    free(all);
    return 0;
}
