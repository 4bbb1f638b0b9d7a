/* The host as one rank sees it, so that a slow host is not read as a slow
 * GPU: the CPU frequency governor of the CPUs the rank may run on, and the
 * CPUs and NUMA nodes it is bound to (Linux: /sys and /proc/self/status). */
#ifndef GC_HOSTINFO_H
#define GC_HOSTINFO_H

#include "results.h"

/* Fills info's host_* fields; "" where the system does not say. */
void gc_host_info(gc_gpu_info *info);

#endif
