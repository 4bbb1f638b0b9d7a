/* Host memory on one NUMA node. See cuda_numa.h. mbind and get_mempolicy
 * through syscall(2): numaif.h is libnuma's header, not a dependency here. */
#include "measure/cuda/cuda_numa.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POLICY_BIND 2      /* MPOL_BIND */
#define MF_STRICT 1        /* MPOL_MF_STRICT */
#define MF_MOVE 2          /* MPOL_MF_MOVE */
#define F_NODE 1           /* MPOL_F_NODE */
#define F_ADDR 2           /* MPOL_F_ADDR */
#define MASK_WORDS (GC_NUMA_MAX / (8 * sizeof(unsigned long)))
#define HUGE_BYTES ((size_t)2 << 20)   /* a transparent huge page on x86-64 and 4 KiB-granule Arm */

int gc_numa_nodes(int *nodes, int cap)
{
    FILE *f = fopen("/sys/devices/system/node/online", "r");
    if (!f)
        return 0;
    char line[256] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    int n = 0;
    for (char *s = line; *s && *s != '\n';) {   /* "0-1,3" */
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long k = a; k <= b && n < cap && k < GC_NUMA_MAX; k++)
            nodes[n++] = (int)k;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int node_of(void *addr)
{
    int node = -1;
    if (syscall(SYS_get_mempolicy, &node, NULL, 0, addr, F_NODE | F_ADDR))
        return -1;
    return node;
}

/* The mapping in whole huge pages (a chase over 1 MiB lies in one). */
static size_t whole_pages(size_t bytes)
{
    return (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
}

/* Aligned to HUGE_BYTES and advised into transparent huge pages: the GPU
 * then maps the buffer with few large pages, as it maps cudaHostAlloc's
 * memory, so that a chase over hundreds of MiB reads the host's memory and
 * not the GPU's misses on 4 KiB host pages (lab/examples-2026-11/PEERS.md).
 * Where the kernel gives no huge pages the buffer is 4 KiB pages, said by
 * gc_numa_huge_bytes. */
void *gc_numa_alloc(size_t bytes, int node, int *landed, char *msg, size_t len)
{
    *landed = -1;
    if (node < 0 || node >= GC_NUMA_MAX) {
        snprintf(msg, len, "NUMA node %d: 0 .. %d", node, GC_NUMA_MAX - 1);
        return NULL;
    }
    size_t mapped = whole_pages(bytes), span = mapped + HUGE_BYTES;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        snprintf(msg, len, "mmap %zu bytes: %s", span, strerror(errno));
        return NULL;
    }
    char *p = (char *)(((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    size_t head = (size_t)(p - raw), tail = span - head - mapped;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap(p + mapped, tail);
#ifdef MADV_HUGEPAGE
    (void)madvise(p, mapped, MADV_HUGEPAGE);   /* refused (THP off): 4 KiB pages */
#endif
    unsigned long mask[MASK_WORDS] = { 0 };
    mask[node / (8 * sizeof(unsigned long))] = 1ul << (node % (8 * sizeof(unsigned long)));
    if (syscall(SYS_mbind, p, mapped, POLICY_BIND, mask, (unsigned long)GC_NUMA_MAX + 1,
                MF_STRICT | MF_MOVE)) {
        snprintf(msg, len, "mbind to NUMA node %d: %s", node, strerror(errno));
        munmap(p, mapped);
        return NULL;
    }
    memset(p, 0x3c, mapped);   /* place every page now, on the bound node */
    int first = node_of(p), last = node_of(p + bytes - 1);
    *landed = first == last ? first : -1;
    return p;
}

size_t gc_numa_huge_bytes(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int in = 0;
    size_t kib = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {   /* a mapping's first line */
            if (in)
                break;   /* the next mapping */
            in = lo == (uintptr_t)p;
        } else if (in && sscanf(line, "AnonHugePages: %zu kB", &kib) == 1) {
            break;
        }
    }
    fclose(f);
    return in ? kib * 1024 : 0;
}

void gc_numa_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, whole_pages(bytes));
}
