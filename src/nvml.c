/* NVML through dlopen: no build-time dependency on nvml.h or the library.
 * The declarations below are the stable NVML C ABI (return codes are int,
 * nvmlDevice_t is an opaque pointer). */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nvml_dev_st *nvml_dev;

enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMP_GPU = 0,
       NVML_ECC_CORRECTED = 0, NVML_ECC_UNCORRECTED = 1, NVML_ECC_VOLATILE = 0 };

struct gc_nvml {
    void *lib;
    nvml_dev dev;
    int (*shutdown)(void);
    int (*clock)(nvml_dev, int, unsigned *);
    int (*temp)(nvml_dev, int, unsigned *);
    int (*power)(nvml_dev, unsigned *);
    int (*reasons)(nvml_dev, unsigned long long *);
    int (*ecc_mode)(nvml_dev, int *, int *);
    int (*ecc_count)(nvml_dev, int, int, unsigned long long *);
    int (*driver)(char *, unsigned);
    int (*pcie_gen)(nvml_dev, unsigned *), (*pcie_width)(nvml_dev, unsigned *);
    int (*pcie_max_gen)(nvml_dev, unsigned *), (*pcie_max_width)(nvml_dev, unsigned *);
    int (*nvlink_state)(nvml_dev, unsigned, int *);
    int (*nvlink_version)(nvml_dev, unsigned, unsigned *);
};

static void *sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    if (!p && b)
        p = dlsym(lib, b);
    return p;
}

gc_nvml *gc_nvml_open(const char *uuid, const char *pci_bus_id, char *why, size_t whylen)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, whylen, "dlopen libnvidia-ml.so.1: %s", dlerror());
        return NULL;
    }
    int (*init)(void) = (int (*)(void))sym(lib, "nvmlInit_v2", "nvmlInit");
    int (*by_uuid)(const char *, nvml_dev *) =
        (int (*)(const char *, nvml_dev *))sym(lib, "nvmlDeviceGetHandleByUUID", NULL);
    int (*by_pci)(const char *, nvml_dev *) = (int (*)(const char *, nvml_dev *))sym(
        lib, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
    gc_nvml *n = calloc(1, sizeof *n);
    if (!n || !init || init() != NVML_OK) {
        snprintf(why, whylen, "nvmlInit failed");
        free(n);
        dlclose(lib);
        return NULL;
    }
    n->lib = lib;
    n->shutdown = (int (*)(void))sym(lib, "nvmlShutdown", NULL);
    int rc = -1;
    if (by_uuid && uuid && uuid[0])
        rc = by_uuid(uuid, &n->dev);
    if (rc != NVML_OK && by_pci && pci_bus_id && pci_bus_id[0])
        rc = by_pci(pci_bus_id, &n->dev);
    if (rc != NVML_OK) {
        snprintf(why, whylen, "NVML does not know GPU %s (%s)", uuid ? uuid : "?",
                 pci_bus_id ? pci_bus_id : "?");
        gc_nvml_close(n);
        return NULL;
    }
    n->clock = (int (*)(nvml_dev, int, unsigned *))sym(lib, "nvmlDeviceGetClockInfo", NULL);
    n->temp = (int (*)(nvml_dev, int, unsigned *))sym(lib, "nvmlDeviceGetTemperature", NULL);
    n->power = (int (*)(nvml_dev, unsigned *))sym(lib, "nvmlDeviceGetPowerUsage", NULL);
    n->reasons = (int (*)(nvml_dev, unsigned long long *))sym(
        lib, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    n->ecc_mode = (int (*)(nvml_dev, int *, int *))sym(lib, "nvmlDeviceGetEccMode", NULL);
    n->ecc_count = (int (*)(nvml_dev, int, int, unsigned long long *))sym(
        lib, "nvmlDeviceGetTotalEccErrors", NULL);
    n->driver = (int (*)(char *, unsigned))sym(lib, "nvmlSystemGetDriverVersion", NULL);
    typedef int (*u_fn)(nvml_dev, unsigned *);
    n->pcie_gen = (u_fn)sym(lib, "nvmlDeviceGetCurrPcieLinkGeneration", NULL);
    n->pcie_width = (u_fn)sym(lib, "nvmlDeviceGetCurrPcieLinkWidth", NULL);
    n->pcie_max_gen = (u_fn)sym(lib, "nvmlDeviceGetMaxPcieLinkGeneration", NULL);
    n->pcie_max_width = (u_fn)sym(lib, "nvmlDeviceGetMaxPcieLinkWidth", NULL);
    n->nvlink_state = (int (*)(nvml_dev, unsigned, int *))sym(lib, "nvmlDeviceGetNvLinkState", NULL);
    n->nvlink_version = (int (*)(nvml_dev, unsigned, unsigned *))sym(
        lib, "nvmlDeviceGetNvLinkVersion", NULL);
    return n;
}

void gc_nvml_read(gc_nvml *n, gc_conditions *c)
{
    memset(c, 0, sizeof *c);
    c->ecc_corrected = c->ecc_uncorrected = -1;
    if (!n || !n->clock)
        return;
    unsigned v;
    if (n->clock(n->dev, NVML_CLOCK_SM, &v) != NVML_OK)
        return;
    c->valid = 1;
    c->sm_clock_mhz = v;
    if (n->clock(n->dev, NVML_CLOCK_MEM, &v) == NVML_OK)
        c->mem_clock_mhz = v;
    if (n->temp && n->temp(n->dev, NVML_TEMP_GPU, &v) == NVML_OK)
        c->temperature_c = v;
    if (n->power && n->power(n->dev, &v) == NVML_OK)
        c->power_w = v / 1000.0;
    unsigned long long r;
    if (n->reasons && n->reasons(n->dev, &r) == NVML_OK)
        c->throttle_reasons = r;
    if (n->ecc_count && gc_nvml_ecc_enabled(n) == 1) {
        if (n->ecc_count(n->dev, NVML_ECC_CORRECTED, NVML_ECC_VOLATILE, &r) == NVML_OK)
            c->ecc_corrected = (int64_t)r;
        if (n->ecc_count(n->dev, NVML_ECC_UNCORRECTED, NVML_ECC_VOLATILE, &r) == NVML_OK)
            c->ecc_uncorrected = (int64_t)r;
    }
}

int gc_nvml_ecc_enabled(gc_nvml *n)
{
    int cur, pend;
    if (!n || !n->ecc_mode || n->ecc_mode(n->dev, &cur, &pend) != NVML_OK)
        return -1;
    return cur ? 1 : 0;
}

int gc_nvml_driver_version(gc_nvml *n, char *buf, size_t len)
{
    if (!n || !n->driver || n->driver(buf, (unsigned)len) != NVML_OK)
        return -1;
    return 0;
}

static int get_u(int (*fn)(nvml_dev, unsigned *), nvml_dev d)
{
    unsigned v;
    return fn && fn(d, &v) == NVML_OK ? (int)v : -1;
}

void gc_nvml_links(gc_nvml *n, gc_nvml_link *l)
{
    l->pcie_gen = l->pcie_width = l->pcie_max_gen = l->pcie_max_width = -1;
    l->nvlink_links = l->nvlink_version = -1;
    if (!n)
        return;
    l->pcie_gen = get_u(n->pcie_gen, n->dev);
    l->pcie_width = get_u(n->pcie_width, n->dev);
    l->pcie_max_gen = get_u(n->pcie_max_gen, n->dev);
    l->pcie_max_width = get_u(n->pcie_max_width, n->dev);
    if (!n->nvlink_state)
        return;
    int up = 0, known = 0;
    for (unsigned k = 0; k < GC_NVML_MAX_NVLINKS; k++) {
        int st = 0;
        if (n->nvlink_state(n->dev, k, &st) != NVML_OK)
            continue;   /* no such link (or NVLink not supported) */
        known = 1;
        if (st) {
            up++;
            unsigned v;
            if (l->nvlink_version < 0 && n->nvlink_version &&
                n->nvlink_version(n->dev, k, &v) == NVML_OK)
                l->nvlink_version = (int)v;
        }
    }
    l->nvlink_links = known ? up : 0;
}

void gc_nvml_close(gc_nvml *n)
{
    if (!n)
        return;
    if (n->shutdown)
        n->shutdown();
    if (n->lib)
        dlclose(n->lib);
    free(n);
}
