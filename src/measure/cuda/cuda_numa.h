/* Host memory on one NUMA node, without libnuma: the host chase
 * (cuda_xfer.c, numa = "each") measures the GPU's load latency from each
 * node's memory. */
#ifndef GC_CUDA_NUMA_H
#define GC_CUDA_NUMA_H

#include <stddef.h>

#define GC_NUMA_MAX 64

/* Online NUMA nodes (/sys/devices/system/node/online) into nodes[];
 * returns their count, 0 when the file is absent (no NUMA: one node 0). */
int gc_numa_nodes(int *nodes, int cap);

/* bytes of anonymous memory bound to node (mbind MPOL_BIND, strict), in
 * whole transparent huge pages where the kernel gives them (a buffer of
 * 1 MiB lies in one), and touched; *landed: the node its first and last pages are on (-1 when
 * get_mempolicy cannot say or they differ). NULL with msg on failure. */
void *gc_numa_alloc(size_t bytes, int node, int *landed, char *msg, size_t len);
void gc_numa_free(void *p, size_t bytes);
/* How many bytes of the mapping that starts at p are in huge pages
 * (/proc/self/smaps AnonHugePages; 0 when it cannot say). */
size_t gc_numa_huge_bytes(const void *p);

#endif
