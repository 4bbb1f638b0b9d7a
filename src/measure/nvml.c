/* NVML through dlopen: no build-time dependency on nvml.h or the library.
 * The declarations below are the stable NVML C ABI (return codes are int,
 * nvmlDevice_t is an opaque pointer). */
#include "measure/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/grow.h"

typedef struct nvml_dev_st *nvml_dev;

enum { NVML_OK = 0, NVML_ERROR_NOT_FOUND = 6, NVML_EVENT_XID = 8, NVML_ERROR_INSUFFICIENT_SIZE = 7, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMP_GPU = 0,
       NVML_ECC_CORRECTED = 0, NVML_ECC_UNCORRECTED = 1, NVML_ECC_VOLATILE = 0 };

/* nvmlProcessInfo_t of the _v2 and _v3 calls */
typedef struct nvml_proc {
    unsigned pid;
    unsigned long long used_bytes;
    unsigned gpu_instance, compute_instance;
} nvml_proc;

/* nvmlProcessUtilizationSample_t */
typedef struct nvml_util {
    unsigned pid;
    unsigned long long time_us;
    unsigned sm, mem, enc, dec;
} nvml_util;

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
    int (*compute_procs)(nvml_dev, unsigned *, nvml_proc *);
    int (*graphics_procs)(nvml_dev, unsigned *, nvml_proc *);
    int (*proc_util)(nvml_dev, nvml_util *, unsigned *, unsigned long long);
    int (*proc_name)(unsigned, char *, unsigned);
    int (*remapped)(nvml_dev, unsigned *, unsigned *, unsigned *, unsigned *);
    int (*evset_create)(void **);
    int (*evset_free)(void *);
    int (*ev_register)(nvml_dev, unsigned long long, void *);
    int (*ev_wait)(void *, void *, unsigned);
    void *evset;               /* XID events while a sustained load runs */
    uint32_t *ours;            /* the job's pids on this host */
    size_t nours;
    nvml_proc *procs;          /* scratch */
    size_t procs_cap;
    nvml_util *utils;
    size_t utils_cap;
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
    typedef int (*procs_fn)(nvml_dev, unsigned *, nvml_proc *);
    n->compute_procs = (procs_fn)sym(lib, "nvmlDeviceGetComputeRunningProcesses_v3",
                                     "nvmlDeviceGetComputeRunningProcesses_v2");
    n->graphics_procs = (procs_fn)sym(lib, "nvmlDeviceGetGraphicsRunningProcesses_v3",
                                      "nvmlDeviceGetGraphicsRunningProcesses_v2");
    n->proc_util = (int (*)(nvml_dev, nvml_util *, unsigned *, unsigned long long))sym(
        lib, "nvmlDeviceGetProcessUtilization", NULL);
    n->proc_name = (int (*)(unsigned, char *, unsigned))sym(lib, "nvmlSystemGetProcessName", NULL);
    n->remapped = (int (*)(nvml_dev, unsigned *, unsigned *, unsigned *, unsigned *))sym(
        lib, "nvmlDeviceGetRemappedRows", NULL);
    n->evset_create = (int (*)(void **))sym(lib, "nvmlEventSetCreate", NULL);
    n->evset_free = (int (*)(void *))sym(lib, "nvmlEventSetFree", NULL);
    n->ev_register = (int (*)(nvml_dev, unsigned long long, void *))sym(
        lib, "nvmlDeviceRegisterEvents", NULL);
    n->ev_wait = (int (*)(void *, void *, unsigned))sym(lib, "nvmlEventSetWait_v2", "nvmlEventSetWait");
    return n;
}

void gc_nvml_read(gc_nvml *n, gc_conditions *c)
{
    memset(c, 0, sizeof *c);
    c->ecc_corrected = c->ecc_uncorrected = -1;
    c->foreign_procs = c->foreign_sm_util_pct = c->foreign_mem_util_pct = -1;
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

/* ---- foreign load ---------------------------------------------------- */

uint64_t gc_nvml_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void gc_nvml_set_ours(gc_nvml *n, const int *pids, size_t npids)
{
    if (!n)
        return;
    uint32_t *p = malloc((npids + 1) * sizeof *p);
    if (!p)
        return;
    for (size_t i = 0; i < npids; i++)
        p[i] = (uint32_t)pids[i];
    p[npids] = (uint32_t)getpid();   /* always ours, whatever was passed */
    free(n->ours);
    n->ours = p;
    n->nours = npids + 1;
}

static int is_ours(const gc_nvml *n, unsigned pid)
{
    if (pid == (unsigned)getpid())
        return 1;
    for (size_t i = 0; i < n->nours; i++)
        if (n->ours[i] == pid)
            return 1;
    return 0;
}

/* Appends fn's processes (compute or graphics) to n->procs[*np..]; -1
 * when NVML cannot list them. */
static int list_procs(gc_nvml *n, int (*fn)(nvml_dev, unsigned *, nvml_proc *), size_t *np)
{
    if (!fn)
        return -1;
    for (int tries = 0; tries < 3; tries++) {
        unsigned cnt = (unsigned)(n->procs_cap - *np);
        int rc = fn(n->dev, &cnt, n->procs + *np);
        if (rc == NVML_OK) {
            *np += cnt;
            return 0;
        }
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE ||
            gc_grow((void **)&n->procs, &n->procs_cap, *np + cnt + 16, sizeof *n->procs))
            return -1;
    }
    return -1;
}

static void add_foreign(gc_nvml *n, gc_conditions *c, unsigned pid)
{
    for (int i = 0; i < c->nforeign; i++)
        if (c->foreign[i].pid == pid)
            return;
    if (c->nforeign >= GC_FOREIGN_MAX)
        return;
    gc_foreign_proc *f = &c->foreign[c->nforeign++];
    f->pid = pid;
    f->name[0] = '\0';
    if (n->proc_name && n->proc_name(pid, f->name, sizeof f->name) == NVML_OK) {
        /* NVML gives the path: keep the program's name */
        const char *base = strrchr(f->name, '/');
        if (base)
            memmove(f->name, base + 1, strlen(base + 1) + 1);
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/comm", pid);
    FILE *fp = fopen(path, "r");
    if (fp) {
        if (fgets(f->name, sizeof f->name, fp))
            f->name[strcspn(f->name, "\n")] = '\0';
        fclose(fp);
    }
}

int gc_nvml_foreign(gc_nvml *n, uint64_t since_us, gc_conditions *c)
{
    c->foreign_procs = c->foreign_sm_util_pct = c->foreign_mem_util_pct = -1;
    c->nforeign = 0;
    if (!n || (!n->procs && gc_grow((void **)&n->procs, &n->procs_cap, 64, sizeof *n->procs)))
        return 0;
    size_t np = 0;
    int listed = list_procs(n, n->compute_procs, &np) == 0;
    listed &= list_procs(n, n->graphics_procs, &np) == 0;
    int mine = 0, foreign = 0;
    for (size_t i = 0; i < np; i++)
        mine |= n->procs[i].pid == (unsigned)getpid();
    /* Without our own process in the list NVML's pids are not ours to
     * compare (another pid namespace): say nothing rather than guess. */
    if (!listed || !mine)
        return 0;
    for (size_t i = 0; i < np; i++) {
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = n->procs[j].pid == n->procs[i].pid;
        if (!dup && !is_ours(n, n->procs[i].pid)) {
            foreign++;
            add_foreign(n, c, n->procs[i].pid);
        }
    }
    c->foreign_procs = foreign;
    if (!since_us || !n->proc_util)
        return foreign > 0;
    unsigned cnt = 0;
    int rc = n->proc_util(n->dev, NULL, &cnt, since_us);
    if (rc == NVML_ERROR_NOT_FOUND) {   /* no sample in the window: it cannot say idle */
        c->foreign_sm_util_pct = c->foreign_mem_util_pct = foreign ? -1 : 0;
        return foreign > 0;
    }
    if ((rc != NVML_OK && rc != NVML_ERROR_INSUFFICIENT_SIZE) ||
        gc_grow((void **)&n->utils, &n->utils_cap, cnt + 16, sizeof *n->utils))
        return foreign > 0;
    cnt = (unsigned)n->utils_cap;
    if (n->proc_util(n->dev, n->utils, &cnt, since_us) != NVML_OK)
        return foreign > 0;
    int sm = 0, mem = 0, used = 0;
    for (unsigned i = 0; i < cnt; i++) {
        const nvml_util *u = &n->utils[i];
        if (is_ours(n, u->pid) || u->time_us <= since_us)
            continue;
        sm = u->sm > (unsigned)sm ? (int)(u->sm > 100 ? 100 : u->sm) : sm;
        mem = u->mem > (unsigned)mem ? (int)(u->mem > 100 ? 100 : u->mem) : mem;
        if (u->sm || u->mem) {
            used = 1;
            add_foreign(n, c, u->pid);
        }
    }
    c->foreign_sm_util_pct = sm;
    c->foreign_mem_util_pct = mem;
    return used || foreign > 0;
}

/* ---- health under sustained load ------------------------------------ */

static void read_remapped(gc_nvml *n, gc_nvml_health *h)
{
    unsigned corr, unc, pend, fail;
    h->remapped_corr = h->remapped_unc = h->remap_pending = h->remap_failed = -1;
    if (n && n->remapped && n->remapped(n->dev, &corr, &unc, &pend, &fail) == NVML_OK) {
        h->remapped_corr = corr;
        h->remapped_unc = unc;
        h->remap_pending = pend;
        h->remap_failed = fail;
    }
}

void gc_nvml_watch_begin(gc_nvml *n, gc_nvml_health *h)
{
    h->xid_events = -1;
    h->last_xid = 0;
    read_remapped(n, h);
    if (!n || n->evset || !n->evset_create || !n->ev_register || !n->ev_wait)
        return;
    if (n->evset_create(&n->evset) != NVML_OK) {
        n->evset = NULL;
        return;
    }
    if (n->ev_register(n->dev, NVML_EVENT_XID, n->evset) != NVML_OK) {
        if (n->evset_free)
            n->evset_free(n->evset);
        n->evset = NULL;
        return;
    }
    h->xid_events = 0;
}

void gc_nvml_watch_poll(gc_nvml *n, gc_nvml_health *h)
{
    if (!n || !n->evset || h->xid_events < 0)
        return;
    /* nvmlEventData_t (device, type, data, instance ids), room to spare */
    struct { void *dev; unsigned long long type, data; unsigned gi, ci; char spare[64]; } ev;
    for (int k = 0; k < 1024 && n->ev_wait(n->evset, &ev, 0) == NVML_OK; k++)
        if (ev.type & NVML_EVENT_XID) {
            h->xid_events++;
            h->last_xid = (long long)ev.data;
        }
}

void gc_nvml_watch_end(gc_nvml *n, gc_nvml_health *h)
{
    gc_nvml_watch_poll(n, h);
    read_remapped(n, h);
    if (n && n->evset && n->evset_free)
        n->evset_free(n->evset);
    if (n)
        n->evset = NULL;
}

void gc_nvml_close(gc_nvml *n)
{
    if (!n)
        return;
    if (n->evset && n->evset_free)
        n->evset_free(n->evset);
    free(n->ours);
    free(n->procs);
    free(n->utils);
    if (n->shutdown)
        n->shutdown();
    if (n->lib)
        dlclose(n->lib);
    free(n);
}
