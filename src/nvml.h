/* NVML, loaded at run time with dlopen("libnvidia-ml.so.1"), so the tool
 * builds where nvml.h is absent and runs where the library is missing
 * (conditions are then reported as not valid). Only the few calls the
 * census needs: clocks, temperature, power, clocks-event (throttle)
 * reasons, ECC mode and volatile error counts, driver version, PCIe and
 * NVLink state. */
#ifndef GC_NVML_H
#define GC_NVML_H

#include <stddef.h>

#include "results.h"

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

/* Clocks-event reasons that mean the GPU is slowed down (power cap, HW
 * slowdown, SW/HW thermal, power brake), as opposed to idle or app clocks. */
#define GC_NVML_SLOWDOWN_MASK 0xECull   /* 0x4 | 0x8 | 0x20 | 0x40 | 0x80 */
#define GC_NVML_REASON_IDLE 0x1ull

#endif
