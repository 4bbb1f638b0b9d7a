/* Host memory bound to a NUMA node without libnuma (src/measure/cuda/cuda_numa.c,
 * the per-node host chase): the online nodes are read, memory bound to the
 * first lands there, 2 MiB-aligned (so that it can be in huge pages, and
 * the smaps reading finds its mapping), a node that does not exist is
 * refused by name. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "measure/cuda/cuda_numa.h"
#include "check.h"

int main(void)
{
    int nodes[GC_NUMA_MAX];
    int n = gc_numa_nodes(nodes, GC_NUMA_MAX);
    CHECK(n >= 0 && n <= GC_NUMA_MAX, "%d online nodes", n);
    int node = n ? nodes[0] : 0;
    char msg[256] = "";
    int landed = -2;
    size_t bytes = 4u << 20;
    void *p = gc_numa_alloc(bytes, node, &landed, msg, sizeof msg);
    CHECK(p != NULL, "bound to node %d: %s", node, msg);
    if (p) {
        CHECK(landed == node || (n == 0 && landed == -1), "landed on %d", landed);
        CHECK(((unsigned char *)p)[bytes - 1] == 0x3c, "touched");
        CHECK((uintptr_t)p % (2u << 20) == 0, "2 MiB-aligned: %p", p);
        size_t huge = gc_numa_huge_bytes(p);
        CHECK(huge <= bytes && huge % (2u << 20) == 0, "%zu bytes in huge pages", huge);
        int local = 7;
        CHECK(gc_numa_huge_bytes(&local) == 0, "a stack address starts no mapping");
        gc_numa_free(p, bytes);
    }
    p = gc_numa_alloc(1u << 20, node, &landed, msg, sizeof msg);   /* in one whole 2 MiB page */
    CHECK(p != NULL && (uintptr_t)p % (2u << 20) == 0, "1 MiB, 2 MiB-aligned: %s", msg);
    if (p) {
        size_t huge = gc_numa_huge_bytes(p);
        CHECK(huge == 0 || huge == (2u << 20), "1 MiB: %zu bytes in huge pages", huge);
        gc_numa_free(p, 1u << 20);
    }
    p = gc_numa_alloc(bytes, GC_NUMA_MAX - 1, &landed, msg, sizeof msg);
    CHECK(p == NULL && strstr(msg, "node 63"), "a node not online is refused: %s", msg);
    p = gc_numa_alloc(bytes, -1, &landed, msg, sizeof msg);
    CHECK(p == NULL && landed == -1, "a negative node is refused: %s", msg);
    CHECK_DONE();
}
