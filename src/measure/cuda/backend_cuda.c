/* The cuda backend: binds the rank to its node-local GPU, reports identity
 * (runtime properties, NVML for ECC and driver), reads conditions through
 * NVML, and dispatches work items to the host drivers in src/bench/cuda_*.c.
 * Device buffers and the pointer-chase chain are cached across items. A
 * measurement during which the SM clock moved (seen by the kernels or by
 * NVML) or a slowdown reason appeared is flagged on its points, and so is
 * one during which a process outside the job used the GPU (gpu_shared). */
#include "measure/backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/cuda/cuda.h"
#include "measure/hostinfo.h"
#include "measure/nvml.h"

struct gc_backend {
    gc_cuda c;
    gc_nvml *nvml;
    uint64_t window_us;   /* foreign load: NVML's samples since then are read next */
};

static int cuda_open(const gc_backend_args *a, gc_backend **out, gc_gpu_info *info, gc_err *err)
{
    char msg[256] = "";
    int count = 0;
    *out = NULL;
    if (gck_device_count(&count, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "cuda: %s", msg);
    if (count == 0)
        return gc_fail(err, GC_EDEVICE, "cuda: node %s: no GPU visible (no driver or no device)",
                       a->node ? a->node : "?");
    if (a->local_index < 0 || a->local_index >= count)
        return gc_fail(err, GC_EINVAL, "cuda: node %s has %d ranks but %d GPUs (rank %d has node-local index %d)",
                       a->node ? a->node : "?", a->local_size, count, a->rank, a->local_index);
    gc_backend *b = calloc(1, sizeof *b);
    if (!b)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    b->c.index = a->local_index;
    b->c.sub_bits = a->sub_bits;
    b->c.peer = a->peer;
    if (gck_device_open(a->local_index, &b->c.dev, msg, sizeof msg)) {
        free(b);
        return gc_fail(err, GC_EDEVICE, "cuda: GPU %d: %s", a->local_index, msg);
    }
    int seen = 0;
    uint64_t ns = 0;
    if (gck_identity_probe(&seen, &ns, msg, sizeof msg)) {
        free(b);
        return gc_fail(err, GC_EDEVICE, "cuda: GPU %d does not run kernels: %s", a->local_index, msg);
    }
    const gck_device *d = &b->c.dev;
    char why[256] = "";
    b->nvml = gc_nvml_open(d->uuid, d->pci_bus_id, why, sizeof why);
    gc_nvml_set_ours(b->nvml, a->job_pids, a->njob_pids);
    b->c.nvml = b->nvml;
    b->window_us = gc_nvml_now_us();
    memset(info, 0, sizeof *info);
    snprintf(info->node, sizeof info->node, "%s", a->node ? a->node : "");
    info->local_index = a->local_index;
    info->rank = a->rank;
    snprintf(info->uuid, sizeof info->uuid, "%s", d->uuid);
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%s", d->pci_bus_id);
    snprintf(info->name, sizeof info->name, "%s", d->name);
    info->cc_major = d->cc_major;
    info->cc_minor = d->cc_minor;
    info->sm_count = d->sm_count;
    info->cores_per_sm = d->cores_per_sm;
    info->warp_size = d->warp_size;
    info->max_threads_per_sm = d->max_threads_per_sm;
    info->regs_per_sm = d->regs_per_sm;
    info->smem_per_sm_bytes = d->smem_per_sm_bytes;
    info->l2_bytes = d->l2_bytes;
    info->mem_bytes = d->mem_bytes;
    info->sm_clock_mhz = d->sm_clock_khz / 1000.0;
    info->mem_clock_mhz = d->mem_clock_khz / 1000.0;
    info->bus_width_bits = d->bus_width_bits;
    int ecc = gc_nvml_ecc_enabled(b->nvml);
    info->ecc_enabled = ecc >= 0 ? ecc : d->ecc_enabled;
    info->numa_node = -1;
    char pci_numa[160];
    char bus[24];
    snprintf(bus, sizeof bus, "%s", d->pci_bus_id);
    for (char *p = bus; *p; p++)
        if (*p >= 'A' && *p <= 'F')
            *p = (char)(*p - 'A' + 'a');
    snprintf(pci_numa, sizeof pci_numa, "/sys/bus/pci/devices/%s/numa_node", bus);
    FILE *f = fopen(pci_numa, "r");
    if (f) {
        int nn;
        if (fscanf(f, "%d", &nn) == 1)
            info->numa_node = nn;
        fclose(f);
    }
    gc_pcie_switch(bus, info->pcie_switch, sizeof info->pcie_switch);
    if (gc_nvml_driver_version(b->nvml, info->driver_version, sizeof info->driver_version))
        snprintf(info->driver_version, sizeof info->driver_version, "unknown");
    *out = b;
    return 0;
}

/* A reading after an item covers the item's NVML samples (the window
 * starts where cuda_measure began it); the next one those since. */
static int cuda_conditions(gc_backend *b, gc_conditions *c)
{
    gc_nvml_read(b ? b->nvml : NULL, c);
    if (b && b->nvml) {
        gc_nvml_foreign(b->nvml, b->window_us, c);
        b->window_us = gc_nvml_now_us();
    }
    return 0;
}

typedef int (*driver_fn)(gc_cuda *, const gc_task *, gc_gpu *, gc_err *);

static const struct { const char *name; driver_fn fn; } drivers[] = {
    { "chase", gc_cuda_chase },
    { "chase_loaded", gc_cuda_chase_loaded },
    { "departure", gc_cuda_departure },
    { "inst", gc_cuda_inst },
    { "hbm_bw", gc_cuda_hbm },
    { "l2_bw", gc_cuda_l2 },
    { "smem_bw", gc_cuda_smem },
    { "launch", gc_cuda_launch },
    { "valid", gc_cuda_valid },
    { "mlp", gc_cuda_mlp },
    { "xfer", gc_cuda_xfer },
    { "p2p", gc_cuda_p2p },
    { "net", gc_cuda_net },
    { "sustain", gc_cuda_sustain },
};

/* Nominal NVLink rate per link and direction: by architecture (NVML's
 * version numbering differs between driver releases), else by version. */
static double nvlink_bps_per_link(int cc_major, int version)
{
    if (cc_major >= 10)
        return 50e9;          /* NVLink 5 */
    if (cc_major >= 7)
        return 25e9;          /* NVLink 2, 3, 4 */
    if (cc_major == 6)
        return 20e9;          /* NVLink 1 */
    return version == 1 ? 20e9 : version >= 2 ? 25e9 : 0;
}

/* PCIe and NVLink state, once per rank, read while copies keep the host
 * link busy (an idle link reports a lower generation). */
static void read_links(gc_backend *b, gc_gpu *gpu)
{
    gc_cuda *c = &b->c;
    if (c->pcie_gen || !b->nvml)
        return;
    char msg[256];
    int busy = gck_xfer_busy_begin(&c->xfer, 64u << 20, 16, msg, sizeof msg) == 0;
    gc_nvml_link l;
    gc_nvml_links(b->nvml, &l);
    if (busy)
        gck_xfer_busy_end(&c->xfer, msg, sizeof msg);
    c->pcie_gen = l.pcie_gen > 0 ? l.pcie_gen : -1;
    c->pcie_width = l.pcie_width > 0 ? l.pcie_width : 0;
    c->pcie_max_gen = l.pcie_max_gen > 0 ? l.pcie_max_gen : 0;
    c->pcie_max_width = l.pcie_max_width > 0 ? l.pcie_max_width : 0;
    c->nvlink_links = l.nvlink_links > 0 ? l.nvlink_links : 0;
    gc_gpu_info *in = &gpu->info;
    in->pcie_gen = c->pcie_gen > 0 ? c->pcie_gen : 0;
    in->pcie_width = c->pcie_width;
    in->pcie_max_gen = c->pcie_max_gen;
    in->pcie_max_width = c->pcie_max_width;
    in->nvlink_links = l.nvlink_links;
    in->nvlink_bps_per_link = l.nvlink_links > 0 ? nvlink_bps_per_link(c->dev.cc_major, l.nvlink_version) : 0;
}

static int cuda_measure(gc_backend *b, const gc_task *task, gc_gpu *gpu, gc_err *err)
{
    const gc_bench_spec *spec = task->item->spec;
    const char *name = spec->def ? spec->def->name : spec->name;
    driver_fn fn = NULL;
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (strcmp(drivers[i].name, name) == 0)
            fn = drivers[i].fn;
    if (!fn)
        return gc_fail(err, GC_EUNSUPPORTED, "%s: not implemented in the cuda backend yet", name);
    gc_conditions before, after;
    if (!strcmp(name, "xfer") || !strcmp(name, "p2p") || !strcmp(name, "net"))
        read_links(b, gpu);
    gc_nvml_read(b->nvml, &before);
    int there = gc_nvml_foreign(b->nvml, 0, &before);
    b->window_us = gc_nvml_now_us();
    gc_cuda_begin(&b->c, task);
    size_t from = gpu->npoints;
    int rc = fn(&b->c, task, gpu, err);
    gc_nvml_read(b->nvml, &after);   /* right after the last kernel: still busy */
    /* Shared: another process held the GPU before or after the item, or
     * used it in between (drivers of long items also look meanwhile). */
    if (gc_nvml_foreign(b->nvml, b->window_us, &after) || there)
        b->c.flags |= GC_FLAG_SHARED;
    if (after.valid) {
        if (after.throttle_reasons & GC_NVML_SLOWDOWN_MASK)
            b->c.flags |= GC_FLAG_THROTTLED;
        /* a clock change between two busy readings (an idle GPU's low
         * clock before the item is not a change during it) */
        if (before.valid && !(before.throttle_reasons & GC_NVML_REASON_IDLE) &&
            before.sm_clock_mhz > 0 &&
            fabs(after.sm_clock_mhz - before.sm_clock_mhz) / before.sm_clock_mhz > 0.05)
            b->c.flags |= GC_FLAG_CLOCKS_MOVED;
    }
    gc_cuda_flag_points(&b->c, gpu, from);
    return rc;
}

static void cuda_close(gc_backend *b)
{
    if (!b)
        return;
    gck_xfer_free(&b->c.xfer);
    gck_scratch_free(&b->c.scratch);
    gck_free(b->c.big);
    gck_free(b->c.perm);
    free(b->c.host);
    gc_nvml_close(b->nvml);
    free(b);
}

const gc_backend_ops gc_backend_cuda = {
    .name = "cuda",
    .open = cuda_open,
    .conditions = cuda_conditions,
    .measure = cuda_measure,
    .close = cuda_close,
};
