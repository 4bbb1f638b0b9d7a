/* NVML, loaded at run time with dlopen("libnvidia-ml.so.1"), so the tool
 * builds where nvml.h is absent and runs where the library is missing
 * (conditions are then reported as not valid). Only the few calls the
 * census needs: clocks, temperature, power, clocks-event (throttle)
 * reasons, ECC mode and volatile error counts, driver version, PCIe and
 * NVLink state. */
#ifndef GC_NVML_H
#define GC_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "census/results.h"

typedef struct gc_nvml gc_nvml;

/* Opens NVML and finds the GPU by UUID ("GPU-...") or PCI bus id. Returns
 * NULL (with a reason in why) when NVML or the GPU cannot be found. */
gc_nvml *gc_nvml_open(const char *uuid, const char *pci_bus_id, char *why, size_t whylen);
/* Fills c; c->valid = 0 when n is NULL or the clocks cannot be read. */
void gc_nvml_read(gc_nvml *n, gc_conditions *c);
/* 1 on, 0 off, -1 unknown. */
int gc_nvml_ecc_enabled(gc_nvml *n);
int gc_nvml_driver_version(gc_nvml *n, char *buf, size_t len);
void gc_nvml_close(gc_nvml *n);

/* Link state. PCIe current generation and width (read them while the link
 * carries traffic: an idle link trains down), the maximum the link allows;
 * NVLink: active links and the version NVML reports for the first active
 * one (its raw nvmlDeviceGetNvLinkVersion value). -1: unknown. */
#define GC_NVML_MAX_NVLINKS 18
typedef struct gc_nvml_link {
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
    int nvlink_links, nvlink_version;
} gc_nvml_link;
void gc_nvml_links(gc_nvml *n, gc_nvml_link *l);

/* Foreign load. The job's processes on this host (every rank may hold a
 * context on every GPU of the node, for P2P) are ours; any other process
 * with a context is foreign. */
void gc_nvml_set_ours(gc_nvml *n, const int *pids, size_t npids);
/* Fills c's foreign_* fields: foreign processes with a context on the GPU
 * now, and the highest SM / memory utilisation NVML sampled for one since
 * since_us (CLOCK_REALTIME microseconds; 0: utilisation not read). Returns
 * 1 when a foreign process holds a context now or used the GPU in that
 * window, else 0. Holding one is enough: NVML's per-process samples are
 * too coarse to call a process idle (on an H100 a process streaming HBM
 * without pause read 0% in 10 of 83 windows of a quick census). Fields
 * stay -1 where NVML cannot tell (no process API, or NVML's pids are of
 * another pid namespace: our own process is not among them). */
int gc_nvml_foreign(gc_nvml *n, uint64_t since_us, gc_conditions *c);
uint64_t gc_nvml_now_us(void);

/* Health counters a sustained load watches: XID (critical error) events
 * and remapped memory rows. -1: unknown (not supported, no permission). */
typedef struct gc_nvml_health {
    long long xid_events;       /* since gc_nvml_watch_begin */
    long long last_xid;         /* the last one's code, 0 none */
    long long remapped_corr, remapped_unc, remap_pending, remap_failed;
} gc_nvml_health;
/* Starts counting XID events (and reads the remapped rows). */
void gc_nvml_watch_begin(gc_nvml *n, gc_nvml_health *h);
/* Drains the XID events seen since the last call into h (never blocks);
 * call it now and then while the load runs, from one thread at a time. */
void gc_nvml_watch_poll(gc_nvml *n, gc_nvml_health *h);
/* A last poll, the remapped rows again, and the event set released. */
void gc_nvml_watch_end(gc_nvml *n, gc_nvml_health *h);

/* Clocks-event reasons that mean the GPU is slowed down (power cap, HW
 * slowdown, SW/HW thermal, power brake), as opposed to idle or app clocks. */
#define GC_NVML_SLOWDOWN_MASK 0xECull   /* 0x4 | 0x8 | 0x20 | 0x40 | 0x80 */
#define GC_NVML_REASON_IDLE 0x1ull
#define GC_NVML_REASON_POWER_CAP 0x4ull
/* The slowdowns a healthy GPU under a steady load does not show: HW
 * slowdown, SW and HW thermal, HW power brake (rules.cfg throttle_bad_mask) */
#define GC_NVML_FAULT_MASK 0xE8ull

#endif
