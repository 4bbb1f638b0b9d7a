/* The host as one rank sees it, so that a slow host is not read as a slow
 * GPU: the CPU frequency governor of the CPUs the rank may run on, and the
 * CPUs and NUMA nodes it is bound to (Linux: /sys and /proc/self/status). */
#ifndef GC_HOSTINFO_H
#define GC_HOSTINFO_H

#include "census/results.h"

/* Fills info's host_* fields; "" where the system does not say. */
void gc_host_info(gc_gpu_info *info);

/* The PCIe switch above a device, from its sysfs path (the realpath of
 * /sys/bus/pci/devices/BUS_ID, e.g. /sys/devices/pci0000:00/0000:00:01.0/
 * 0000:01:00.0/0000:02:08.0/0000:05:00.0: root port, switch upstream port,
 * downstream port, device): the bus id of the nearest switch's upstream
 * port, two PCI components above the device, when a root port is above
 * that; "" when the device sits on a root port (or the path says nothing). */
void gc_pcie_switch_of_path(const char *path, char *out, size_t cap);
/* The same for a bus id ("0000:05:00.0", any case), from /sys. */
void gc_pcie_switch(const char *bus_id, char *out, size_t cap);

#endif
